package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import java.time.Duration;
import java.util.Objects;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.HeadersBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Supplies {@link TxnTimestampedKeyValueStoreWithHeaders}s (values as
 * {@code [varint size][headers][8-byte timestamp][value]}) to Kafka Streams, for
 * {@code Stores.timestampedKeyValueStoreWithHeadersBuilder} and the DSL under
 * {@code dsl.store.format=headers}: the counterpart of Kafka's
 * {@code RocksDBKeyValueHeadersBytesStoreSupplier}. Obtain one from {@link dev.txnrocksdb.streams.TxnStores}.
 */
public final class TxnKeyValueHeadersBytesStoreSupplier extends TxnKeyValueSupplierBase
        implements HeadersBytesStoreSupplier {
    /**
     * @param name the store name
     * @param transactional whether the supplied stores stage writes until commit
     * @param strategy where the supplied stores keep uncommitted writes; null: the application's
     *     {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @throws NullPointerException if {@code name} is null
     */
    public TxnKeyValueHeadersBytesStoreSupplier(String name, boolean transactional, TransactionStrategy strategy) {
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
    public TxnKeyValueHeadersBytesStoreSupplier(
            String name, boolean transactional, TransactionStrategy strategy, Duration ttl) {
        super(name, transactional, strategy, ttl);
    }

    @Override
    public TxnKeyValueHeadersBytesStoreSupplier withTtl(Duration ttl) {
        return new TxnKeyValueHeadersBytesStoreSupplier(
                name(), transactional(), transactionStrategy(), Objects.requireNonNull(ttl, "ttl"));
    }

    /** A new, unopened store on every call. */
    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return new TxnTimestampedKeyValueStoreWithHeaders(name(), transactional(), transactionStrategy(), ttl());
    }
}
