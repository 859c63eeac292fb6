package dev.txnrocksdb.streams;

/**
 * What a key-value store's time-to-live counts in ({@link TxnRocksDBConfig#TTL_TIME_CONFIG}), named
 * as Kafka's {@link org.apache.kafka.streams.processor.PunctuationType} names the same two clocks.
 */
public enum TimeBasis {
    /**
     * {@code stream}, the default: the timestamps of the records the store is written with. A key's
     * write time is its value's timestamp in a timestamped store, else the timestamp of the record
     * being processed; the store's time is the largest write time it has seen. A replay of the same
     * input expires the same keys, and a store expires nothing while no records arrive.
     */
    STREAM_TIME("stream"),

    /**
     * {@code wall-clock}: the stream thread's clock ({@code currentSystemTimeMs()}, which
     * {@code TopologyTestDriver#advanceWallClockTime} moves) at each write and each commit, so a
     * store shrinks while no records arrive. A replay expires by the time it runs at.
     */
    WALL_CLOCK_TIME("wall-clock");

    private final String configName;

    TimeBasis(String configName) {
        this.configName = configName;
    }

    /**
     * The spelling in {@link TxnRocksDBConfig#TTL_TIME_CONFIG} (read case-insensitively) and in the native library:
     * {@code stream} or {@code wall-clock}.
     *
     * @return the configuration value of this basis
     */
    public String configName() {
        return configName;
    }
}
