package dev.txnrocksdb.streams.dsl;

import dev.txnrocksdb.streams.TxnStoreTypes;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.processor.StateStore;

/**
 * Which stores a run uses, and how it selects them. Topologies pass every {@code Materialized}
 * and {@code StreamJoined} through {@link #materialized} / {@link #streamJoined}, so the same
 * topology code serves all three sides.
 */
enum StoreSide {
    /** Kafka's built-in stores, default configuration. */
    BUILT_IN,
    /** Ours for the whole DSL: {@code dsl.store.suppliers.class = TxnRocksDBDslStoreSuppliers}. */
    OURS_BY_CONFIG,
    /**
     * Ours per operator: {@code Materialized.withStoreType(TxnStoreTypes.TXN_ROCKS_DB)} and
     * {@code StreamJoined.withDslStoreSuppliers(TxnStoreTypes.TXN_ROCKS_DB)}, no config.
     */
    OURS_PER_OPERATOR,
    /**
     * Ours for the whole DSL through KIP-844's spelling: {@code default.dsl.store=txn_rocksDB}
     * translated by {@code TxnStreamsConfig.translate} (which also sets
     * {@code enable.transactional.statestores=true}, under at-least-once too).
     */
    OURS_BY_KIP_CONFIG,
    /**
     * As {@link #OURS_BY_CONFIG}, with {@code txn.rocksdb.transaction.strategy=secondary-store}:
     * every store keeps its uncommitted writes in the temporary store on disk.
     */
    OURS_SECONDARY_STORE_BY_CONFIG;

    boolean ours() {
        return this != BUILT_IN;
    }

    <K, V, S extends StateStore> Materialized<K, V, S> materialized(Materialized<K, V, S> materialized) {
        return this == OURS_PER_OPERATOR ? materialized.withStoreType(TxnStoreTypes.TXN_ROCKS_DB) : materialized;
    }

    <K, V1, V2> StreamJoined<K, V1, V2> streamJoined(StreamJoined<K, V1, V2> streamJoined) {
        return this == OURS_PER_OPERATOR
                ? streamJoined.withDslStoreSuppliers(TxnStoreTypes.TXN_ROCKS_DB)
                : streamJoined;
    }
}
