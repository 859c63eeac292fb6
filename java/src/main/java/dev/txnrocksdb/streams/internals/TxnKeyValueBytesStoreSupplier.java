package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import java.time.Duration;
import java.util.Objects;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Supplies {@link TxnKeyValueStore}s (plain values) to Kafka Streams, e.g. through
 * {@code Materialized.as(supplier)} or {@code Stores.keyValueStoreBuilder(supplier, ...)}.
 * Obtain one from {@link dev.txnrocksdb.streams.TxnStores}.
 */
public final class TxnKeyValueBytesStoreSupplier extends TxnKeyValueSupplierBase {
    /**
     * @param name the store name
     * @param transactional whether the supplied stores stage writes until commit
     * @throws NullPointerException if {@code name} is null
     */
    public TxnKeyValueBytesStoreSupplier(String name, boolean transactional) {
        this(name, transactional, null);
    }

    /**
     * @param name the store name
     * @param transactional whether the supplied stores stage writes until commit
     * @param strategy where the supplied stores keep uncommitted writes; null: the application's
     *     {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @throws NullPointerException if {@code name} is null
     */
    public TxnKeyValueBytesStoreSupplier(String name, boolean transactional, TransactionStrategy strategy) {
        this(name, transactional, strategy, null);
    }

    /**
     * @param name the store name
     * @param transactional whether the supplied stores stage writes until commit
     * @param strategy where the supplied stores keep uncommitted writes; null: the configured one
     * @param ttl how long a key stays after its last write; null: the configured one
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code ttl} is below 1 ms
     */
    public TxnKeyValueBytesStoreSupplier(
            String name, boolean transactional, TransactionStrategy strategy, Duration ttl) {
        super(name, transactional, strategy, ttl);
    }

    @Override
    public TxnKeyValueBytesStoreSupplier withTtl(Duration ttl) {
        return new TxnKeyValueBytesStoreSupplier(
                name(), transactional(), transactionStrategy(), Objects.requireNonNull(ttl, "ttl"));
    }

    /** A new, unopened store on every call. */
    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return new TxnKeyValueStore(name(), transactional(), transactionStrategy(), ttl());
    }
}
