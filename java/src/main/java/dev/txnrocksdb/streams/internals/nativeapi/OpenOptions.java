package dev.txnrocksdb.streams.internals.nativeapi;

import dev.txnrocksdb.streams.TimeBasis;
import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * What opening any native store takes besides its directory (the engine's {@code StoreOptions}).
 * It crosses JNI as one record, {@code encode()}, whose layout and enumeration codes the format
 * crate owns ({@code rust/format/src/open_options.rs}); every kind's native {@code open} takes it.
 * Built with {@link #builder()}, from the store's settings ({@code StoreSettings.openOptions}).
 * (A class rather than a record: the Gradle build also compiles with Gradle 4.4, which knows no
 * source level past 12.)
 */
public final class OpenOptions {
    /** The record's version byte ({@code open_options::VERSION}). */
    private static final byte VERSION = 2;

    private final boolean transactional;
    private final boolean syncCommit;
    private final TransactionStrategy strategy;
    private final CorruptionPolicy corruption;
    private final ValueFormat valueFormat;
    private final boolean statistics;
    private final String rocksDBOptions;
    private final String storeRocksDBOptions;
    private final long spillBytes;
    private final Duration ttl;
    private final TimeBasis timeBasis;

    private OpenOptions(Builder builder) {
        this.transactional = builder.transactional;
        this.syncCommit = builder.syncCommit;
        this.strategy = builder.strategy;
        this.corruption = builder.corruption;
        this.valueFormat = builder.valueFormat;
        this.statistics = builder.statistics;
        this.rocksDBOptions = builder.rocksDBOptions;
        this.storeRocksDBOptions = builder.storeRocksDBOptions;
        this.spillBytes = builder.spillBytes;
        this.ttl = builder.ttl;
        this.timeBasis = builder.timeBasis;
    }

    /**
     * Options with the engine's defaults ({@code StoreOptions::default}): transactional, no fsync
     * at commit, {@code indexed-batch}, refuse damaged files, plain values, no statistics, no
     * RocksDB options, a 16 MiB spill size.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Whether writes are staged until the commit (false: write-through). */
    public boolean transactional() {
        return transactional;
    }

    /** Whether every commit fsyncs the write-ahead log. */
    public boolean syncCommit() {
        return syncCommit;
    }

    /** Where a transactional store keeps uncommitted writes. */
    public TransactionStrategy strategy() {
        return strategy;
    }

    /** What opening does when it finds the store's files damaged. */
    public CorruptionPolicy corruption() {
        return corruption;
    }

    /** The format of the values the store holds. */
    public ValueFormat valueFormat() {
        return valueFormat;
    }

    /** Whether RocksDB collects its statistics for the store. */
    public boolean statistics() {
        return statistics;
    }

    /** The RocksDB options for every store (RocksDB's option-string syntax; may be empty). */
    public String rocksDBOptions() {
        return rocksDBOptions;
    }

    /** This store's own RocksDB options, applied after {@link #rocksDBOptions()} (may be empty). */
    public String storeRocksDBOptions() {
        return storeRocksDBOptions;
    }

    /**
     * Under {@code secondary-store}, the bytes of keys and values a transaction keeps in memory
     * before they spill to the temporary store (the engine's {@code StoreOptions::spill_bytes}).
     */
    public long spillBytes() {
        return spillBytes;
    }

    /** The key-value store's time-to-live, or null when its keys never expire. */
    public Duration ttl() {
        return ttl;
    }

    /** What the time-to-live counts in (meaningless without one). */
    public TimeBasis timeBasis() {
        return timeBasis;
    }

    /**
     * The record every native {@code open} takes, in the layout of {@code rust/format/src/open_options.rs}
     * (big-endian): {@code [int8 version][int8 transactional][int8 syncCommit][int8 statistics]
     * [int8 strategy][int8 corruption][int8 valueFormat][int64 spillBytes][int8 ttl][int64 ttlMs][int8 timeBasis]
     * [int32 len][rocksDBOptions UTF-8]
     * [int32 len][storeRocksDBOptions UTF-8]}. {@code OpenOptionsTest} checks it against the format
     * crate's golden records ({@code rust/format/tests/golden/open_options.txt}).
     */
    byte[] encode() {
        byte[] every = rocksDBOptions.getBytes(StandardCharsets.UTF_8);
        byte[] own = storeRocksDBOptions.getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(
                7 + Long.BYTES + 1 + Long.BYTES + 1 + Integer.BYTES + every.length + Integer.BYTES + own.length);
        out.put(VERSION).put(flag(transactional)).put(flag(syncCommit)).put(flag(statistics));
        out.put(code(strategy)).put(corruption.code()).put(valueFormat.code());
        out.putLong(spillBytes);
        out.put(flag(ttl != null)).putLong(ttl == null ? 0 : ttl.toMillis());
        out.put(ttl == null ? 0 : code(timeBasis));
        out.putInt(every.length).put(every).putInt(own.length).put(own);
        return out.array();
    }

    private static byte flag(boolean value) {
        return (byte) (value ? 1 : 0);
    }

    /** The format crate's {@code open_options::Strategy::code}. */
    private static byte code(TransactionStrategy strategy) {
        switch (strategy) {
            case INDEXED_BATCH:
                return 0;
            case SECONDARY_STORE:
                return 1;
            default:
                throw new IllegalArgumentException("no native code for transaction strategy " + strategy);
        }
    }

    /** The format crate's {@code open_options::TimeBasis::code}. */
    private static byte code(TimeBasis basis) {
        switch (basis) {
            case STREAM_TIME:
                return 0;
            case WALL_CLOCK_TIME:
                return 1;
            default:
                throw new IllegalArgumentException("no native code for time basis " + basis);
        }
    }

    /** Sets {@link OpenOptions}' values; each setter says what the value means. */
    public static final class Builder {
        private boolean transactional = true;
        private boolean syncCommit;
        private TransactionStrategy strategy = TransactionStrategy.INDEXED_BATCH;
        private CorruptionPolicy corruption = CorruptionPolicy.REFUSE;
        private ValueFormat valueFormat = ValueFormat.PLAIN;
        private boolean statistics;
        private String rocksDBOptions = "";
        private String storeRocksDBOptions = "";
        private long spillBytes = TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_DEFAULT;
        private Duration ttl;
        private TimeBasis timeBasis = TimeBasis.STREAM_TIME;

        private Builder() {}

        /** True: writes are staged until {@link NativeStore#commit}; false: write-through. */
        public Builder transactional(boolean transactional) {
            this.transactional = transactional;
            return this;
        }

        /** True: fsync the write-ahead log on every commit (survives power loss). */
        public Builder syncCommit(boolean syncCommit) {
            this.syncCommit = syncCommit;
            return this;
        }

        /** Where a transactional store keeps uncommitted writes (ignored when not transactional, but checked). */
        public Builder strategy(TransactionStrategy strategy) {
            this.strategy = Objects.requireNonNull(strategy, "strategy");
            return this;
        }

        /** What opening does when it finds the store's files damaged. */
        public Builder corruption(CorruptionPolicy corruption) {
            this.corruption = Objects.requireNonNull(corruption, "corruption");
            return this;
        }

        /** The format of the values the store holds. */
        public Builder valueFormat(ValueFormat valueFormat) {
            this.valueFormat = Objects.requireNonNull(valueFormat, "valueFormat");
            return this;
        }

        /**
         * Whether RocksDB collects its statistics for the store (bytes written and read, block cache
         * hits), which cost a little on every operation; Kafka's RocksDB stores collect them only
         * under {@code metrics.recording.level=DEBUG}.
         */
        public Builder statistics(boolean statistics) {
            this.statistics = statistics;
            return this;
        }

        /**
         * The RocksDB options for every store ({@code txn.rocksdb.options}) and this store's own,
         * applied after them (RocksDB's option-string syntax; either may be empty).
         */
        public Builder rocksDBOptions(String every, String own) {
            this.rocksDBOptions = Objects.requireNonNull(every, "rocksDBOptions");
            this.storeRocksDBOptions = Objects.requireNonNull(own, "storeRocksDBOptions");
            return this;
        }

        /**
         * Under {@code secondary-store}, the bytes of keys and values a transaction keeps in memory
         * before they spill to the temporary store (0: every write spills at once); ignored by the
         * other strategies. Not checked here: the configuration refuses a negative value, and so
         * does the native open ({@code IllegalArgumentException}).
         */
        public Builder spillBytes(long spillBytes) {
            this.spillBytes = spillBytes;
            return this;
        }

        /**
         * The key-value store's time-to-live (null: keys never expire) and what it counts in. Not
         * checked here: the configuration refuses a TTL below 1 ms, and so does the native open
         * ({@code IllegalArgumentException}), as do the other kinds' opens any TTL at all.
         */
        public Builder ttl(Duration ttl, TimeBasis timeBasis) {
            this.ttl = ttl;
            this.timeBasis = Objects.requireNonNull(timeBasis, "timeBasis");
            return this;
        }

        public OpenOptions build() {
            return new OpenOptions(this);
        }
    }

    @Override
    public String toString() {
        return "OpenOptions{transactional=" + transactional + ", syncCommit=" + syncCommit + ", strategy=" + strategy
                + ", corruption=" + corruption + ", valueFormat=" + valueFormat + ", statistics=" + statistics
                + ", rocksDBOptions=" + rocksDBOptions + ", storeRocksDBOptions="
                + storeRocksDBOptions + ", spillBytes=" + spillBytes + ", ttl=" + ttl + ", timeBasis=" + timeBasis
                + "}";
    }
}
