package dev.txnrocksdb.streams;

import java.time.Duration;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;

/**
 * A supplier of txn-rocksdb key-value stores (plain, timestamped or with headers), as
 * {@link TxnStores} returns them: a {@link KeyValueBytesStoreSupplier} whose stores may be given a
 * time-to-live, in the shape KIP-1225 proposes for Kafka's own stores.
 *
 * <pre>{@code
 * builder.table("sessions", Materialized.<String, Session>as(
 *         TxnStores.persistentTransactionalTimestampedKeyValueStore("sessions").withTtl(Duration.ofHours(1)))
 *     .withCachingDisabled());
 * }</pre>
 */
public interface TxnKeyValueStoreSupplier extends KeyValueBytesStoreSupplier {
    /**
     * A supplier of the same stores whose keys expire {@code ttl} after their last write (in the
     * time {@link TxnRocksDBConfig#TTL_TIME_CONFIG} says, stream time by default): an expired key is
     * invisible to every read at once, and a later commit removes it and writes its tombstone to
     * the store's changelog in the same transaction, so that no restore brings it back. This
     * overrides {@link TxnRocksDBConfig#TTL_MS_CONFIG} for these stores. A store with a time-to-live
     * refuses a caching layer above it, unless {@code statestore.cache.max.bytes=0}.
     *
     * @param ttl at least 1 ms
     * @return a new supplier; this one is unchanged
     * @throws NullPointerException if {@code ttl} is null
     * @throws IllegalArgumentException if {@code ttl} is below 1 ms
     */
    TxnKeyValueStoreSupplier withTtl(Duration ttl);

    /**
     * The supplied stores' own time-to-live.
     *
     * @return the duration given to {@link #withTtl}, or null when the stores take the configured one
     */
    Duration ttl();
}
