package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.internals.nativeapi.ValueFormat;
import java.time.Duration;
import org.apache.kafka.streams.state.TimestampedBytesStore;

/**
 * A {@link TxnKeyValueStore} whose values are stored in Kafka's timestamped format,
 * {@code [8-byte timestamp][value]}. The {@link TimestampedBytesStore} marker tells Kafka Streams'
 * timestamped store builders to pass values through as they are instead of wrapping the store in
 * an adapter that drops timestamps.
 */
public class TxnTimestampedKeyValueStore extends TxnKeyValueStore implements TimestampedBytesStore {
    /**
     * Creates a store; it opens in {@link #init}. Applications get stores from {@link dev.txnrocksdb.streams.TxnStores}.
     *
     * @param name the store name (also its directory name)
     * @param transactional true: stage writes until commit; false: write-through
     * @throws NullPointerException if {@code name} is null
     */
    public TxnTimestampedKeyValueStore(String name, boolean transactional) {
        super(name, transactional);
    }

    /**
     * Creates a store with its own transaction strategy; it opens in {@link #init}. Applications get
     * stores from {@link dev.txnrocksdb.streams.TxnStores}.
     *
     * @param name the store name (also its directory name)
     * @param transactional true: stage writes until commit; false: write-through
     * @param strategy where uncommitted writes are kept; null: the application's
     *     {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @throws NullPointerException if {@code name} is null
     */
    public TxnTimestampedKeyValueStore(String name, boolean transactional, TransactionStrategy strategy) {
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
    public TxnTimestampedKeyValueStore(String name, boolean transactional, TransactionStrategy strategy, Duration ttl) {
        super(name, transactional, strategy, ttl);
    }

    /** {@link ValueFormat#TIMESTAMPED}: {@code [8-byte timestamp][value]}. */
    @Override
    ValueFormat valueFormat() {
        return ValueFormat.TIMESTAMPED;
    }
}
