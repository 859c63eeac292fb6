package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.internals.nativeapi.ValueFormat;
import org.apache.kafka.streams.state.TimestampedBytesStore;

/**
 * A {@link TxnWindowStore} whose values are stored in Kafka's timestamped format,
 * {@code [8-byte timestamp][value]}. The {@link TimestampedBytesStore} marker tells Kafka Streams'
 * timestamped window store builders (the DSL's) to pass values through as they are instead of
 * wrapping the store in an adapter that drops timestamps, and makes Kafka restore the changelog
 * with the record timestamp prepended to each value.
 */
public class TxnTimestampedWindowStore extends TxnWindowStore implements TimestampedBytesStore {
    /**
     * Creates a store; it opens in {@link #init}. Applications get stores from {@link dev.txnrocksdb.streams.TxnStores}.
     *
     * @see TxnWindowStore#TxnWindowStore(String, long, long, long, boolean, boolean)
     */
    public TxnTimestampedWindowStore(
            String name,
            long retentionPeriod,
            long segmentInterval,
            long windowSize,
            boolean retainDuplicates,
            boolean transactional) {
        super(name, retentionPeriod, segmentInterval, windowSize, retainDuplicates, transactional);
    }

    /**
     * Creates a store with its own transaction strategy; it opens in {@link #init}. Applications get
     * stores from {@link dev.txnrocksdb.streams.TxnStores}.
     *
     * @param name the store name (also its directory name)
     * @param retentionPeriod how long windows are kept, in ms (at least {@code windowSize})
     * @param segmentInterval the time segment size in ms
     * @param windowSize the window size in ms (for window ends)
     * @param retainDuplicates whether every put is kept (stream-stream join buffers)
     * @param transactional true: stage writes until commit; false: write-through
     * @param strategy where uncommitted writes are kept; null: the application's
     *     {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code retentionPeriod} is negative or
     *     {@code segmentInterval} is not positive
     * @see TxnWindowStore#TxnWindowStore(String, long, long, long, boolean, boolean, TransactionStrategy)
     */
    public TxnTimestampedWindowStore(
            String name,
            long retentionPeriod,
            long segmentInterval,
            long windowSize,
            boolean retainDuplicates,
            boolean transactional,
            TransactionStrategy strategy) {
        super(name, retentionPeriod, segmentInterval, windowSize, retainDuplicates, transactional, strategy);
    }

    public TxnTimestampedWindowStore(
            String name,
            long retentionPeriod,
            long segmentInterval,
            long windowSize,
            boolean retainDuplicates,
            boolean transactional,
            Layout layout) {
        super(name, retentionPeriod, segmentInterval, windowSize, retainDuplicates, transactional, layout);
    }

    public TxnTimestampedWindowStore(
            String name,
            long retentionPeriod,
            long segmentInterval,
            long windowSize,
            boolean retainDuplicates,
            boolean transactional,
            TransactionStrategy strategy,
            Layout layout) {
        super(name, retentionPeriod, segmentInterval, windowSize, retainDuplicates, transactional, strategy, layout);
    }

    /** {@link ValueFormat#TIMESTAMPED}: {@code [8-byte timestamp][value]}. */
    @Override
    ValueFormat valueFormat() {
        return ValueFormat.TIMESTAMPED;
    }
}
