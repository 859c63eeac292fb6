package dev.txnrocksdb.streams;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Supplies {@link TxnKeyValueStore}s (plain values) to Kafka Streams, e.g. through
 * {@code Materialized.as(supplier)} or {@code Stores.keyValueStoreBuilder(supplier, ...)}.
 * Obtain one from {@link TxnStores}.
 */
public final class TxnKeyValueBytesStoreSupplier extends TxnKeyValueSupplierBase {
    /** The metrics scope of every txn-rocksdb store. */
    public static final String METRICS_SCOPE = "txn-rocksdb";

    /**
     * @param name the store name
     * @param transactional whether the supplied stores stage writes until commit
     * @throws NullPointerException if {@code name} is null
     */
    public TxnKeyValueBytesStoreSupplier(String name, boolean transactional) {
        super(name, transactional);
    }

    /** A new, unopened store on every call. */
    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return new TxnKeyValueStore(name(), transactional());
    }
}
