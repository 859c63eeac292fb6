package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.internals.nativeapi.ValueFormat;
import java.time.Duration;
import org.apache.kafka.streams.state.HeadersBytesStore;

/**
 * A {@link TxnKeyValueStore} whose values are in Kafka's timestamped format with record headers
 * (KIP-1271), {@code [varint size][headers][8-byte timestamp][value]}: the counterpart of Kafka's
 * {@code RocksDBTimestampedStoreWithHeaders}. The {@link HeadersBytesStore} marker tells Kafka
 * Streams' headers store builders ({@code Stores.timestampedKeyValueStoreWithHeadersBuilder}, the
 * DSL under {@code dsl.store.format=headers}) to pass values through as they are, headers included,
 * and makes Kafka restore the changelog with each record's headers and timestamp in front of its
 * value. A store that holds timestamped values (a {@link TxnTimestampedKeyValueStore} before the
 * application turned headers on) gets empty headers in front of each of them when it first opens as
 * this store, as Kafka's {@code HeadersBytesStore.convertToHeaderFormat} does.
 */
public class TxnTimestampedKeyValueStoreWithHeaders extends TxnKeyValueStore implements HeadersBytesStore {
    /**
     * Creates a store; it opens in {@link #init}. Applications get stores from {@link dev.txnrocksdb.streams.TxnStores}.
     *
     * @param name the store name (also its directory name)
     * @param transactional true: stage writes until commit; false: write-through
     * @param strategy where uncommitted writes are kept; null: the application's
     *     {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @throws NullPointerException if {@code name} is null
     */
    public TxnTimestampedKeyValueStoreWithHeaders(String name, boolean transactional, TransactionStrategy strategy) {
        super(name, transactional, strategy);
    }

    /**
     * Creates a store with its own transaction strategy and time-to-live; it opens in {@link #init}.
     *
     * @param name the store name (also its directory name)
     * @param transactional true: stage writes until commit; false: write-through
     * @param strategy where uncommitted writes are kept; null: the configured one
     * @param ttl how long a key stays after its last write (the value's timestamp, under stream
     *     time); null: the configured one ({@link dev.txnrocksdb.streams.TxnRocksDBConfig#TTL_MS_CONFIG})
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code ttl} is below 1 ms
     */
    public TxnTimestampedKeyValueStoreWithHeaders(
            String name, boolean transactional, TransactionStrategy strategy, Duration ttl) {
        super(name, transactional, strategy, ttl);
    }

    /** {@link ValueFormat#TIMESTAMPED_WITH_HEADERS}. */
    @Override
    ValueFormat valueFormat() {
        return ValueFormat.TIMESTAMPED_WITH_HEADERS;
    }
}
