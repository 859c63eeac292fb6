package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.HeadersBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;

/**
 * Supplies {@link TxnSessionStoreWithHeaders}s (values as {@code [varint size][headers][aggregation]})
 * to Kafka Streams, for {@code Stores.sessionStoreWithHeadersBuilder} and the DSL under
 * {@code dsl.store.format=headers}: the counterpart of Kafka's
 * {@code RocksDbSessionHeadersBytesStoreSupplier}. Obtain one from {@link dev.txnrocksdb.streams.TxnStores}.
 */
public final class TxnSessionHeadersBytesStoreSupplier extends TxnSessionBytesStoreSupplier
        implements HeadersBytesStoreSupplier {
    /** Built by {@link dev.txnrocksdb.streams.TxnStores}, which validates the arguments as Kafka's {@code Stores} does. */
    public TxnSessionHeadersBytesStoreSupplier(
            String name, long retentionPeriod, boolean transactional, TransactionStrategy strategy, boolean emitFinal) {
        super(name, retentionPeriod, transactional, strategy, emitFinal);
    }

    /** A new, unopened store on every call. */
    @Override
    public SessionStore<Bytes, byte[]> get() {
        return new TxnSessionStoreWithHeaders(
                name(), retentionPeriod(), segmentIntervalMs(), transactional(), transactionStrategy(), emitFinal());
    }
}
