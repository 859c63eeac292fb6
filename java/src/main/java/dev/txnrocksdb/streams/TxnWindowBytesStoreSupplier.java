package dev.txnrocksdb.streams;

import java.util.Objects;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Supplies {@link TxnWindowStore}s (or {@link TxnTimestampedWindowStore}s) to Kafka Streams, e.g.
 * through {@code Materialized.as(supplier)}, {@code StreamJoined.with(...)} or
 * {@code Stores.windowStoreBuilder(supplier, ...)}. Obtain one from {@link TxnStores}.
 *
 * <p>{@link #segmentIntervalMs()} is Kafka's {@code max(retentionPeriod / 2, 60_000)}: the store
 * iterates segment by segment with this interval, and Kafka's caching layer merges its cache with
 * the store's iterators assuming exactly this interval.
 */
public class TxnWindowBytesStoreSupplier implements WindowBytesStoreSupplier {
    /** The metrics scope of txn-rocksdb window stores. */
    public static final String METRICS_SCOPE = "txn-rocksdb-window";

    private final String name;
    private final long retentionPeriod;
    private final long segmentInterval;
    private final long windowSize;
    private final boolean retainDuplicates;
    private final boolean timestamped;
    private final boolean transactional;
    private final TransactionStrategy strategy;
    private final TxnWindowStore.Layout layout;

    /**
     * Prefer {@link TxnStores}, which validates the arguments as Kafka's {@code Stores} does.
     *
     * @param name the store name
     * @param retentionPeriod the retention period in ms
     * @param windowSize the window size in ms
     * @param retainDuplicates whether every put is kept under its own seqnum
     * @param timestamped whether the stores keep values as {@code [8-byte timestamp][value]}
     *     ({@link TxnTimestampedWindowStore})
     * @param transactional whether the stores stage writes until commit
     * @throws NullPointerException if {@code name} is null
     */
    public TxnWindowBytesStoreSupplier(String name, long retentionPeriod, long windowSize, boolean retainDuplicates,
                                       boolean timestamped, boolean transactional) {
        this(name, retentionPeriod, windowSize, retainDuplicates, timestamped, transactional, null);
    }

    /**
     * Prefer {@link TxnStores}, which validates the arguments as Kafka's {@code Stores} does.
     *
     * @param name the store name
     * @param retentionPeriod the retention period in ms
     * @param windowSize the window size in ms
     * @param retainDuplicates whether every put is kept under its own seqnum
     * @param timestamped whether the stores keep values as {@code [8-byte timestamp][value]}
     *     ({@link TxnTimestampedWindowStore})
     * @param transactional whether the stores stage writes until commit
     * @param strategy where the stores keep uncommitted writes; null: the application's
     *     {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @throws NullPointerException if {@code name} is null
     */
    public TxnWindowBytesStoreSupplier(String name, long retentionPeriod, long windowSize, boolean retainDuplicates,
                                       boolean timestamped, boolean transactional, TransactionStrategy strategy) {
        this(name, retentionPeriod, windowSize, retainDuplicates, timestamped, transactional, strategy,
            TxnWindowStore.Layout.KEY_FIRST);
    }

    TxnWindowBytesStoreSupplier(String name, long retentionPeriod, long windowSize, boolean retainDuplicates,
                                boolean timestamped, boolean transactional, TransactionStrategy strategy,
                                TxnWindowStore.Layout layout) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = defaultSegmentInterval(retentionPeriod);
        this.windowSize = windowSize;
        this.retainDuplicates = retainDuplicates;
        this.timestamped = timestamped;
        this.transactional = transactional;
        this.strategy = strategy;
        this.layout = layout;
    }

    /** Kafka's segment interval for a retention period: {@code max(retentionPeriod / 2, 60_000)}. */
    static long defaultSegmentInterval(long retentionPeriod) {
        return Math.max(retentionPeriod / 2, 60_000L);
    }

    @Override
    public String name() {
        return name;
    }

    /** A new, unopened store on every call. */
    @Override
    public WindowStore<Bytes, byte[]> get() {
        return timestamped
            ? new TxnTimestampedWindowStore(name, retentionPeriod, segmentInterval, windowSize, retainDuplicates,
                transactional, strategy, layout)
            : new TxnWindowStore(name, retentionPeriod, segmentInterval, windowSize, retainDuplicates, transactional,
                strategy, layout);
    }

    /** {@value #METRICS_SCOPE}. */
    @Override
    public String metricsScope() {
        return METRICS_SCOPE;
    }

    @Override
    public long segmentIntervalMs() {
        return segmentInterval;
    }

    @Override
    public long windowSize() {
        return windowSize;
    }

    @Override
    public boolean retainDuplicates() {
        return retainDuplicates;
    }

    @Override
    public long retentionPeriod() {
        return retentionPeriod;
    }

    /** Whether the supplied stores keep values as {@code [8-byte timestamp][value]}. */
    public boolean timestamped() {
        return timestamped;
    }

    /**
     * Whether the supplied stores stage writes until commit (KIP-844).
     *
     * @return {@code true} for transactional stores, {@code false} for write-through ones
     */
    public boolean transactional() {
        return transactional;
    }

    /**
     * The transaction strategy the supplied stores use instead of the application's
     * {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}.
     *
     * @return the supplier's own strategy, or null when the stores take the configured one
     */
    public TransactionStrategy transactionStrategy() {
        return strategy;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{name=" + name + ", retentionPeriod=" + retentionPeriod
            + ", segmentInterval=" + segmentInterval + ", windowSize=" + windowSize + ", retainDuplicates="
            + retainDuplicates + ", timestamped=" + timestamped + ", transactional=" + transactional
            + ", strategy=" + (strategy == null ? "from config" : strategy.configName()) + ", layout=" + layout + "}";
    }
}
