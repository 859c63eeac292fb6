package dev.txnrocksdb.streams;

import java.util.Objects;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;

/**
 * Factory for txn-rocksdb store suppliers, named after the methods KIP-844 proposes for Kafka's
 * {@code Stores}. Use a supplier where Kafka's {@code Stores.persistentKeyValueStore(...)} would go:
 *
 * <pre>{@code
 * builder.stream("words")
 *        .groupByKey()
 *        .count(Materialized.as(TxnStores.persistentTransactionalTimestampedKeyValueStore("counts")));
 * }</pre>
 *
 * <p>The DSL stores values with timestamps; a timestamped supplier avoids the adapter Kafka puts
 * around a plain one. Under exactly-once, transactional stores need
 * {@code enable.transactional.statestores=true} (see {@link TransactionalStateStore}).
 */
public final class TxnStores {
    private TxnStores() {}

    /**
     * A persistent key-value store supplier, for {@code Stores.keyValueStoreBuilder}.
     *
     * @param name name of the store (cannot be {@code null})
     * @param transactional true: writes are staged and become durable at commit; false:
     *     write-through, like Kafka's RocksDB store, on the same engine
     * @return a supplier of {@link TxnKeyValueStore}s
     * @throws NullPointerException if {@code name} is null
     */
    public static KeyValueBytesStoreSupplier persistentKeyValueStore(String name, boolean transactional) {
        Objects.requireNonNull(name, "name cannot be null");
        return new TxnKeyValueBytesStoreSupplier(name, transactional);
    }

    /**
     * A persistent timestamped key-value store supplier, for {@code Stores.timestampedKeyValueStoreBuilder}
     * and the DSL.
     *
     * @param name name of the store (cannot be {@code null})
     * @param transactional true: writes are staged and become durable at commit; false: write-through
     * @return a supplier of {@link TxnTimestampedKeyValueStore}s
     * @throws NullPointerException if {@code name} is null
     */
    public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStore(String name, boolean transactional) {
        Objects.requireNonNull(name, "name cannot be null");
        return new TxnTimestampedKeyValueBytesStoreSupplier(name, transactional);
    }

    /**
     * A persistent transactional key-value store supplier: {@code persistentKeyValueStore(name, true)}.
     *
     * @param name name of the store (cannot be {@code null})
     * @return a supplier of transactional {@link TxnKeyValueStore}s
     * @throws NullPointerException if {@code name} is null
     */
    public static KeyValueBytesStoreSupplier persistentTransactionalKeyValueStore(String name) {
        return persistentKeyValueStore(name, true);
    }

    /**
     * A persistent transactional timestamped key-value store supplier:
     * {@code persistentTimestampedKeyValueStore(name, true)}.
     *
     * @param name name of the store (cannot be {@code null})
     * @return a supplier of transactional {@link TxnTimestampedKeyValueStore}s
     * @throws NullPointerException if {@code name} is null
     */
    public static KeyValueBytesStoreSupplier persistentTransactionalTimestampedKeyValueStore(String name) {
        return persistentTimestampedKeyValueStore(name, true);
    }
}
