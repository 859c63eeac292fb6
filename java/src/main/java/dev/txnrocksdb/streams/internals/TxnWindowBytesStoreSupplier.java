package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Supplies {@link TxnWindowStore}s (or {@link TxnTimestampedWindowStore}s) to Kafka Streams, e.g.
 * through {@code Materialized.as(supplier)}, {@code StreamJoined.with(...)} or
 * {@code Stores.windowStoreBuilder(supplier, ...)}. Obtain one from {@link dev.txnrocksdb.streams.TxnStores}.
 *
 * <p>{@link #segmentIntervalMs()} is Kafka's {@code max(retentionPeriod / 2, 60_000)}: the store
 * iterates segment by segment with this interval, and Kafka's caching layer merges its cache with
 * the store's iterators assuming exactly this interval.
 */
public class TxnWindowBytesStoreSupplier extends TxnSegmentedSupplierBase implements WindowBytesStoreSupplier {
    private final long windowSize;
    private final boolean retainDuplicates;
    private final boolean timestamped;
    private final TxnWindowStore.Layout layout;

    /**
     * Built by {@link dev.txnrocksdb.streams.TxnStores}, which validates the arguments as Kafka's {@code Stores} does.
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
    public TxnWindowBytesStoreSupplier(
            String name,
            long retentionPeriod,
            long windowSize,
            boolean retainDuplicates,
            boolean timestamped,
            boolean transactional) {
        this(name, retentionPeriod, windowSize, retainDuplicates, timestamped, transactional, null);
    }

    /**
     * Built by {@link dev.txnrocksdb.streams.TxnStores}, which validates the arguments as Kafka's {@code Stores} does.
     *
     * @param name the store name
     * @param retentionPeriod the retention period in ms
     * @param windowSize the window size in ms
     * @param retainDuplicates whether every put is kept under its own seqnum
     * @param timestamped whether the stores keep values as {@code [8-byte timestamp][value]}
     *     ({@link TxnTimestampedWindowStore})
     * @param transactional whether the stores stage writes until commit
     * @param strategy where the stores keep uncommitted writes; null: the application's
     *     {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @throws NullPointerException if {@code name} is null
     */
    public TxnWindowBytesStoreSupplier(
            String name,
            long retentionPeriod,
            long windowSize,
            boolean retainDuplicates,
            boolean timestamped,
            boolean transactional,
            TransactionStrategy strategy) {
        this(
                name,
                retentionPeriod,
                windowSize,
                retainDuplicates,
                timestamped,
                transactional,
                strategy,
                TxnWindowStore.Layout.KEY_FIRST);
    }

    public TxnWindowBytesStoreSupplier(
            String name,
            long retentionPeriod,
            long windowSize,
            boolean retainDuplicates,
            boolean timestamped,
            boolean transactional,
            TransactionStrategy strategy,
            TxnWindowStore.Layout layout) {
        super(name, retentionPeriod, transactional, strategy);
        this.windowSize = windowSize;
        this.retainDuplicates = retainDuplicates;
        this.timestamped = timestamped;
        this.layout = layout;
    }

    /** A new, unopened store on every call. */
    @Override
    public WindowStore<Bytes, byte[]> get() {
        return timestamped
                ? new TxnTimestampedWindowStore(
                        name(),
                        retentionPeriod(),
                        segmentIntervalMs(),
                        windowSize,
                        retainDuplicates,
                        transactional(),
                        transactionStrategy(),
                        layout)
                : new TxnWindowStore(
                        name(),
                        retentionPeriod(),
                        segmentIntervalMs(),
                        windowSize,
                        retainDuplicates,
                        transactional(),
                        transactionStrategy(),
                        layout);
    }

    /** {@value StoreMetrics#WINDOW_SCOPE}. */
    @Override
    public String metricsScope() {
        return StoreMetrics.WINDOW_SCOPE;
    }

    @Override
    public long windowSize() {
        return windowSize;
    }

    @Override
    public boolean retainDuplicates() {
        return retainDuplicates;
    }

    /** Whether the supplied stores keep values as {@code [8-byte timestamp][value]}. */
    public boolean timestamped() {
        return timestamped;
    }

    /** The key layout of the supplied stores. */
    TxnWindowStore.Layout layout() {
        return layout;
    }

    @Override
    String details() {
        return super.details() + ", windowSize=" + windowSize + ", retainDuplicates=" + retainDuplicates
                + ", timestamped=" + timestamped + ", layout=" + layout;
    }
}
