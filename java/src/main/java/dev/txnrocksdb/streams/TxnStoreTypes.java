package dev.txnrocksdb.streams;

import org.apache.kafka.streams.state.DslStoreSuppliers;

/**
 * Store types for {@code Materialized.withStoreType(...)} and
 * {@code StreamJoined.withDslStoreSuppliers(...)}, standing in for KIP-844's
 * {@code Materialized.StoreType.TXN_ROCKS_DB} (Kafka 4.4's {@code StoreType} enum is closed).
 */
public final class TxnStoreTypes {
    /** Transactional txn-rocksdb stores for every DSL operator. */
    public static final DslStoreSuppliers TXN_ROCKS_DB = new TxnRocksDBDslStoreSuppliers();

    private TxnStoreTypes() {}
}
