package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.internals.nativeapi.ValueFormat;
import org.apache.kafka.streams.state.HeadersBytesStore;

/**
 * A {@link TxnSessionStore} whose aggregations carry record headers (KIP-1271),
 * {@code [varint size][headers][aggregation]}: the counterpart of Kafka's
 * {@code RocksDBSessionStoreWithHeaders}. Kafka Streams' headers session store builder then passes
 * values through with their headers, and Kafka restores the changelog with each record's headers in
 * front of its value. A store that holds plain session values gets empty headers in front of each of
 * them when it first opens as this store.
 */
public class TxnSessionStoreWithHeaders extends TxnSessionStore implements HeadersBytesStore {
    /**
     * Creates a store; it opens in {@link #init}. Applications get stores from {@link dev.txnrocksdb.streams.TxnStores}.
     *
     * @param emitFinal whether to answer {@code findSessions(long, long)} (emit-final aggregations)
     * @see TxnSessionStore#TxnSessionStore(String, long, long, boolean, TransactionStrategy)
     */
    public TxnSessionStoreWithHeaders(
            String name,
            long retentionPeriod,
            long segmentInterval,
            boolean transactional,
            TransactionStrategy strategy,
            boolean emitFinal) {
        super(name, retentionPeriod, segmentInterval, transactional, strategy, emitFinal);
    }

    /** {@link ValueFormat#WITH_HEADERS}. */
    @Override
    ValueFormat valueFormat() {
        return ValueFormat.WITH_HEADERS;
    }
}
