package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.internals.nativeapi.ValueFormat;
import org.apache.kafka.streams.state.HeadersBytesStore;

/**
 * A {@link TxnTimestampedWindowStore} whose values carry record headers (KIP-1271),
 * {@code [varint size][headers][8-byte timestamp][value]}: the counterpart of Kafka's
 * {@code RocksDBTimestampedWindowStoreWithHeaders}, which, like this one, is both a
 * {@code TimestampedBytesStore} and a {@link HeadersBytesStore}. Kafka Streams' headers window
 * store builders then pass values through with their headers, and Kafka restores the changelog
 * with each record's headers and timestamp in front of its value. A store that holds timestamped
 * values gets empty headers in front of each of them when it first opens as this store.
 */
public class TxnTimestampedWindowStoreWithHeaders extends TxnTimestampedWindowStore implements HeadersBytesStore {
    /**
     * Creates a store; it opens in {@link #init}. Applications get stores from {@link dev.txnrocksdb.streams.TxnStores}.
     *
     * @see TxnTimestampedWindowStore#TxnTimestampedWindowStore(String, long, long, long, boolean, boolean, TransactionStrategy, Layout)
     */
    public TxnTimestampedWindowStoreWithHeaders(
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

    /** {@link ValueFormat#TIMESTAMPED_WITH_HEADERS}. */
    @Override
    ValueFormat valueFormat() {
        return ValueFormat.TIMESTAMPED_WITH_HEADERS;
    }
}
