package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.HeadersBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Supplies {@link TxnTimestampedWindowStoreWithHeaders}s (values as
 * {@code [varint size][headers][8-byte timestamp][value]}) to Kafka Streams, for
 * {@code Stores.timestampedWindowStoreWithHeadersBuilder} and the DSL under
 * {@code dsl.store.format=headers}: the counterpart of Kafka's
 * {@code RocksDbWindowHeadersBytesStoreSupplier}. Obtain one from {@link dev.txnrocksdb.streams.TxnStores}.
 */
public final class TxnWindowHeadersBytesStoreSupplier extends TxnWindowBytesStoreSupplier
        implements HeadersBytesStoreSupplier {
    /** Built by {@link dev.txnrocksdb.streams.TxnStores}, which validates the arguments as Kafka's {@code Stores} does. */
    public TxnWindowHeadersBytesStoreSupplier(
            String name,
            long retentionPeriod,
            long windowSize,
            boolean retainDuplicates,
            boolean transactional,
            TransactionStrategy strategy,
            TxnWindowStore.Layout layout) {
        super(name, retentionPeriod, windowSize, retainDuplicates, true, transactional, strategy, layout);
    }

    /** A new, unopened store on every call. */
    @Override
    public WindowStore<Bytes, byte[]> get() {
        return new TxnTimestampedWindowStoreWithHeaders(
                name(),
                retentionPeriod(),
                segmentIntervalMs(),
                windowSize(),
                retainDuplicates(),
                transactional(),
                transactionStrategy(),
                layout());
    }
}
