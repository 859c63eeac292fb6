package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import java.time.Duration;
import java.util.Objects;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Supplies {@link TxnTimestampedKeyValueStore}s (values as {@code [8-byte timestamp][value]}) to
 * Kafka Streams, e.g. through {@code Materialized.as(supplier)} (the DSL's own format, so no
 * adapter sits between Kafka and the store) or {@code Stores.timestampedKeyValueStoreBuilder}.
 * Obtain one from {@link dev.txnrocksdb.streams.TxnStores}.
 */
public final class TxnTimestampedKeyValueBytesStoreSupplier extends TxnKeyValueSupplierBase {
    /**
     * @param name the store name
     * @param transactional whether the supplied stores stage writes until commit
     * @throws NullPointerException if {@code name} is null
     */
    public TxnTimestampedKeyValueBytesStoreSupplier(String name, boolean transactional) {
        this(name, transactional, null);
    }

    /**
     * @param name the store name
     * @param transactional whether the supplied stores stage writes until commit
     * @param strategy where the supplied stores keep uncommitted writes; null: the application's
     *     {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @throws NullPointerException if {@code name} is null
     */
    public TxnTimestampedKeyValueBytesStoreSupplier(String name, boolean transactional, TransactionStrategy strategy) {
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
    public TxnTimestampedKeyValueBytesStoreSupplier(
            String name, boolean transactional, TransactionStrategy strategy, Duration ttl) {
        super(name, transactional, strategy, ttl);
    }

    @Override
    public TxnTimestampedKeyValueBytesStoreSupplier withTtl(Duration ttl) {
        return new TxnTimestampedKeyValueBytesStoreSupplier(
                name(), transactional(), transactionStrategy(), Objects.requireNonNull(ttl, "ttl"));
    }

    /** A new, unopened store on every call. */
    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return new TxnTimestampedKeyValueStore(name(), transactional(), transactionStrategy(), ttl());
    }
}
