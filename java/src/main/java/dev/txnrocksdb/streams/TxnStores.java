package dev.txnrocksdb.streams;

import static org.apache.kafka.streams.internals.ApiUtils.prepareMillisCheckFailMsgPrefix;
import static org.apache.kafka.streams.internals.ApiUtils.validateMillisecondDuration;

import dev.txnrocksdb.streams.internals.KafkaStreamsCompatibility;
import dev.txnrocksdb.streams.internals.SupplierFactory;
import dev.txnrocksdb.streams.internals.TxnKeyValueBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnKeyValueHeadersBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnTimestampedKeyValueBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnVersionedBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnWindowStore;
import java.time.Duration;
import java.util.Objects;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

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
 *
 * <p>Window and session suppliers validate their arguments with the exceptions and messages of
 * Kafka's {@code Stores}. To use txn-rocksdb stores for every DSL operator at once, see
 * {@link TxnRocksDBDslStoreSuppliers}.
 *
 * <p><b>Transaction strategy.</b> Transactional stores keep their uncommitted writes as the
 * application's {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG} says (default
 * {@code indexed-batch}). The {@code persistentTransactional...} overloads that take a
 * {@link TransactionStrategy} fix it for one store, whatever the configuration says:
 *
 * <pre>{@code
 * // a large aggregation whose transactions may outgrow memory
 * Materialized.as(TxnStores.persistentTransactionalTimestampedKeyValueStore("totals",
 *     TransactionStrategy.SECONDARY_STORE))
 * }</pre>
 */
public final class TxnStores {
    static {
        // Before any factory method touches Kafka Streams API newer than what the application may bring.
        KafkaStreamsCompatibility.check();
    }

    private TxnStores() {}

    /**
     * A persistent key-value store supplier, for {@code Stores.keyValueStoreBuilder}.
     *
     * @param name name of the store (cannot be {@code null})
     * @param transactional true: writes are staged and become durable at commit; false:
     *     write-through, like Kafka's RocksDB store, on the same engine
     * @return a supplier of key-value stores
     * @throws NullPointerException if {@code name} is null
     */
    public static TxnKeyValueStoreSupplier persistentKeyValueStore(String name, boolean transactional) {
        Objects.requireNonNull(name, "name cannot be null");
        return new TxnKeyValueBytesStoreSupplier(name, transactional);
    }

    /**
     * A persistent timestamped key-value store supplier, for {@code Stores.timestampedKeyValueStoreBuilder}
     * and the DSL.
     *
     * @param name name of the store (cannot be {@code null})
     * @param transactional true: writes are staged and become durable at commit; false: write-through
     * @return a supplier of timestamped key-value stores
     * @throws NullPointerException if {@code name} is null
     */
    public static TxnKeyValueStoreSupplier persistentTimestampedKeyValueStore(String name, boolean transactional) {
        Objects.requireNonNull(name, "name cannot be null");
        return new TxnTimestampedKeyValueBytesStoreSupplier(name, transactional);
    }

    /**
     * A persistent transactional key-value store supplier: {@code persistentKeyValueStore(name, true)}.
     *
     * @param name name of the store (cannot be {@code null})
     * @return a supplier of transactional key-value stores
     * @throws NullPointerException if {@code name} is null
     */
    public static TxnKeyValueStoreSupplier persistentTransactionalKeyValueStore(String name) {
        return persistentKeyValueStore(name, true);
    }

    /**
     * A persistent transactional key-value store supplier whose stores use {@code strategy},
     * overriding {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}.
     *
     * @param name name of the store (cannot be {@code null})
     * @param strategy where the stores keep uncommitted writes (cannot be {@code null})
     * @return a supplier of transactional key-value stores
     * @throws NullPointerException if {@code name} or {@code strategy} is null
     */
    public static TxnKeyValueStoreSupplier persistentTransactionalKeyValueStore(
            String name, TransactionStrategy strategy) {
        Objects.requireNonNull(name, "name cannot be null");
        return new TxnKeyValueBytesStoreSupplier(name, true, requireStrategy(strategy));
    }

    /**
     * A persistent transactional timestamped key-value store supplier:
     * {@code persistentTimestampedKeyValueStore(name, true)}.
     *
     * @param name name of the store (cannot be {@code null})
     * @return a supplier of transactional timestamped key-value stores
     * @throws NullPointerException if {@code name} is null
     */
    public static TxnKeyValueStoreSupplier persistentTransactionalTimestampedKeyValueStore(String name) {
        return persistentTimestampedKeyValueStore(name, true);
    }

    /**
     * A persistent transactional timestamped key-value store supplier whose stores use
     * {@code strategy}, overriding {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}.
     *
     * @param name name of the store (cannot be {@code null})
     * @param strategy where the stores keep uncommitted writes (cannot be {@code null})
     * @return a supplier of transactional timestamped key-value stores
     * @throws NullPointerException if {@code name} or {@code strategy} is null
     */
    public static TxnKeyValueStoreSupplier persistentTransactionalTimestampedKeyValueStore(
            String name, TransactionStrategy strategy) {
        Objects.requireNonNull(name, "name cannot be null");
        return new TxnTimestampedKeyValueBytesStoreSupplier(name, true, requireStrategy(strategy));
    }

    // ---------------------------------------------------------------- window stores

    /**
     * A persistent window store supplier, for {@code Stores.windowStoreBuilder}.
     *
     * @param name name of the store (cannot be {@code null})
     * @param retentionPeriod how long windows are kept (at least {@code windowSize})
     * @param windowSize the size of the windows (cannot be negative)
     * @param retainDuplicates whether to keep every put, as stream-stream joins need
     * @param transactional true: writes are staged and become durable at commit; false:
     *     write-through, like Kafka's RocksDB store, on the same engine
     * @return a supplier of window stores
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code retentionPeriod} or {@code windowSize} is negative,
     *     not representable in milliseconds, or {@code retentionPeriod} is smaller than {@code windowSize}
     */
    public static WindowBytesStoreSupplier persistentWindowStore(
            String name,
            Duration retentionPeriod,
            Duration windowSize,
            boolean retainDuplicates,
            boolean transactional) {
        return SupplierFactory.windowStore(
                name, retentionPeriod, windowSize, retainDuplicates, false, transactional, null);
    }

    /**
     * A persistent timestamped window store supplier, for {@code Stores.timestampedWindowStoreBuilder}
     * and the DSL.
     *
     * @return a supplier of timestamped window stores
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException as {@link #persistentWindowStore}
     * @see #persistentWindowStore
     */
    public static WindowBytesStoreSupplier persistentTimestampedWindowStore(
            String name,
            Duration retentionPeriod,
            Duration windowSize,
            boolean retainDuplicates,
            boolean transactional) {
        return SupplierFactory.windowStore(
                name, retentionPeriod, windowSize, retainDuplicates, true, transactional, null);
    }

    /**
     * A persistent transactional window store supplier:
     * {@code persistentWindowStore(name, retentionPeriod, windowSize, retainDuplicates, true)}.
     *
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException as {@link #persistentWindowStore}
     */
    public static WindowBytesStoreSupplier persistentTransactionalWindowStore(
            String name, Duration retentionPeriod, Duration windowSize, boolean retainDuplicates) {
        return persistentWindowStore(name, retentionPeriod, windowSize, retainDuplicates, true);
    }

    /**
     * A persistent transactional window store supplier whose stores use {@code strategy},
     * overriding {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}.
     *
     * @param name name of the store (cannot be {@code null})
     * @param retentionPeriod how long windows are kept (at least {@code windowSize})
     * @param windowSize the size of the windows (cannot be negative)
     * @param retainDuplicates whether to keep every put, as stream-stream joins need
     * @param strategy where the stores keep uncommitted writes (cannot be {@code null})
     * @return a supplier of transactional window stores
     * @throws NullPointerException if {@code name} or {@code strategy} is null
     * @throws IllegalArgumentException as {@link #persistentWindowStore}
     */
    public static WindowBytesStoreSupplier persistentTransactionalWindowStore(
            String name,
            Duration retentionPeriod,
            Duration windowSize,
            boolean retainDuplicates,
            TransactionStrategy strategy) {
        return SupplierFactory.windowStore(
                name, retentionPeriod, windowSize, retainDuplicates, false, true, requireStrategy(strategy));
    }

    /**
     * A persistent transactional timestamped window store supplier:
     * {@code persistentTimestampedWindowStore(name, retentionPeriod, windowSize, retainDuplicates, true)}.
     *
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException as {@link #persistentWindowStore}
     */
    public static WindowBytesStoreSupplier persistentTransactionalTimestampedWindowStore(
            String name, Duration retentionPeriod, Duration windowSize, boolean retainDuplicates) {
        return persistentTimestampedWindowStore(name, retentionPeriod, windowSize, retainDuplicates, true);
    }

    /**
     * A persistent transactional timestamped window store supplier whose stores use
     * {@code strategy}, overriding {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}.
     *
     * @param name name of the store (cannot be {@code null})
     * @param retentionPeriod how long windows are kept (at least {@code windowSize})
     * @param windowSize the size of the windows (cannot be negative)
     * @param retainDuplicates whether to keep every put, as stream-stream joins need
     * @param strategy where the stores keep uncommitted writes (cannot be {@code null})
     * @return a supplier of transactional timestamped window stores
     * @throws NullPointerException if {@code name} or {@code strategy} is null
     * @throws IllegalArgumentException as {@link #persistentWindowStore}
     */
    public static WindowBytesStoreSupplier persistentTransactionalTimestampedWindowStore(
            String name,
            Duration retentionPeriod,
            Duration windowSize,
            boolean retainDuplicates,
            TransactionStrategy strategy) {
        return SupplierFactory.windowStore(
                name, retentionPeriod, windowSize, retainDuplicates, true, true, requireStrategy(strategy));
    }

    // ---------------------------------------------------------------- session stores

    /**
     * A persistent session store supplier, for {@code Stores.sessionStoreBuilder} and the DSL. Like
     * Kafka's {@code Stores.persistentSessionStore}, its stores do not implement
     * {@code findSessions(long, long)}, which emit-final session aggregations need: those get a
     * store that does from {@link TxnRocksDBDslStoreSuppliers}.
     *
     * @param name name of the store (cannot be {@code null})
     * @param retentionPeriod how long sessions are kept after they end (cannot be negative)
     * @param transactional true: writes are staged and become durable at commit; false: write-through
     * @return a supplier of session stores
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code retentionPeriod} is negative or not representable
     *     in milliseconds
     */
    public static SessionBytesStoreSupplier persistentSessionStore(
            String name, Duration retentionPeriod, boolean transactional) {
        return SupplierFactory.sessionStore(name, retentionPeriod, transactional, null, false);
    }

    /**
     * A persistent transactional session store supplier: {@code persistentSessionStore(name, retentionPeriod, true)}.
     *
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException as {@link #persistentSessionStore}
     */
    public static SessionBytesStoreSupplier persistentTransactionalSessionStore(String name, Duration retentionPeriod) {
        return persistentSessionStore(name, retentionPeriod, true);
    }

    /**
     * A persistent transactional session store supplier whose stores use {@code strategy},
     * overriding {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}.
     *
     * @param name name of the store (cannot be {@code null})
     * @param retentionPeriod how long sessions are kept after they end (cannot be negative)
     * @param strategy where the stores keep uncommitted writes (cannot be {@code null})
     * @return a supplier of transactional session stores
     * @throws NullPointerException if {@code name} or {@code strategy} is null
     * @throws IllegalArgumentException as {@link #persistentSessionStore}
     */
    public static SessionBytesStoreSupplier persistentTransactionalSessionStore(
            String name, Duration retentionPeriod, TransactionStrategy strategy) {
        return SupplierFactory.sessionStore(name, retentionPeriod, true, requireStrategy(strategy), false);
    }

    // ---------------------------------------------------------------- stores with headers (KIP-1271)

    /**
     * A persistent timestamped key-value store supplier whose values keep record headers, for
     * {@code Stores.timestampedKeyValueStoreWithHeadersBuilder} and {@code Materialized.as} under
     * {@code dsl.store.format=headers}: the counterpart of Kafka's
     * {@code Stores.persistentTimestampedKeyValueStoreWithHeaders}. A store that holds timestamped
     * values from before headers were turned on gets empty headers in front of each when it opens.
     *
     * @param name name of the store (cannot be {@code null})
     * @param transactional true: writes are staged and become durable at commit; false: write-through
     * @return a supplier of timestamped key-value store with headerss
     * @throws NullPointerException if {@code name} is null
     */
    public static TxnKeyValueStoreSupplier persistentTimestampedKeyValueStoreWithHeaders(
            String name, boolean transactional) {
        Objects.requireNonNull(name, "name cannot be null");
        return new TxnKeyValueHeadersBytesStoreSupplier(name, transactional, null);
    }

    /**
     * A persistent transactional timestamped key-value store supplier with headers:
     * {@code persistentTimestampedKeyValueStoreWithHeaders(name, true)}.
     *
     * @param name name of the store (cannot be {@code null})
     * @return a supplier of transactional timestamped key-value store with headerss
     * @throws NullPointerException if {@code name} is null
     */
    public static TxnKeyValueStoreSupplier persistentTransactionalTimestampedKeyValueStoreWithHeaders(String name) {
        return persistentTimestampedKeyValueStoreWithHeaders(name, true);
    }

    /**
     * A persistent transactional timestamped key-value store supplier with headers whose stores use
     * {@code strategy}, overriding {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}.
     *
     * @param name name of the store (cannot be {@code null})
     * @param strategy where the stores keep uncommitted writes (cannot be {@code null})
     * @return a supplier of transactional timestamped key-value store with headerss
     * @throws NullPointerException if {@code name} or {@code strategy} is null
     */
    public static TxnKeyValueStoreSupplier persistentTransactionalTimestampedKeyValueStoreWithHeaders(
            String name, TransactionStrategy strategy) {
        Objects.requireNonNull(name, "name cannot be null");
        return new TxnKeyValueHeadersBytesStoreSupplier(name, true, requireStrategy(strategy));
    }

    /**
     * A persistent timestamped window store supplier whose values keep record headers, for
     * {@code Stores.timestampedWindowStoreWithHeadersBuilder}: the counterpart of Kafka's
     * {@code Stores.persistentTimestampedWindowStoreWithHeaders}.
     *
     * @param name name of the store (cannot be {@code null})
     * @param retentionPeriod how long windows are kept (at least {@code windowSize})
     * @param windowSize the size of the windows (cannot be negative)
     * @param retainDuplicates whether to keep every put, as stream-stream joins need
     * @param transactional true: writes are staged and become durable at commit; false: write-through
     * @return a supplier of timestamped window store with headerss
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException as {@link #persistentWindowStore}
     */
    public static WindowBytesStoreSupplier persistentTimestampedWindowStoreWithHeaders(
            String name,
            Duration retentionPeriod,
            Duration windowSize,
            boolean retainDuplicates,
            boolean transactional) {
        return SupplierFactory.windowStoreWithHeaders(
                name,
                retentionPeriod,
                windowSize,
                retainDuplicates,
                transactional,
                null,
                TxnWindowStore.Layout.KEY_FIRST);
    }

    /**
     * A persistent transactional timestamped window store supplier with headers:
     * {@code persistentTimestampedWindowStoreWithHeaders(name, retentionPeriod, windowSize, retainDuplicates, true)}.
     *
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException as {@link #persistentWindowStore}
     */
    public static WindowBytesStoreSupplier persistentTransactionalTimestampedWindowStoreWithHeaders(
            String name, Duration retentionPeriod, Duration windowSize, boolean retainDuplicates) {
        return persistentTimestampedWindowStoreWithHeaders(name, retentionPeriod, windowSize, retainDuplicates, true);
    }

    /**
     * A persistent transactional timestamped window store supplier with headers whose stores use
     * {@code strategy}, overriding {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}.
     *
     * @param strategy where the stores keep uncommitted writes (cannot be {@code null})
     * @throws NullPointerException if {@code name} or {@code strategy} is null
     * @throws IllegalArgumentException as {@link #persistentWindowStore}
     */
    public static WindowBytesStoreSupplier persistentTransactionalTimestampedWindowStoreWithHeaders(
            String name,
            Duration retentionPeriod,
            Duration windowSize,
            boolean retainDuplicates,
            TransactionStrategy strategy) {
        return SupplierFactory.windowStoreWithHeaders(
                name,
                retentionPeriod,
                windowSize,
                retainDuplicates,
                true,
                requireStrategy(strategy),
                TxnWindowStore.Layout.KEY_FIRST);
    }

    /**
     * A persistent session store supplier whose aggregations keep record headers, for
     * {@code Stores.sessionStoreWithHeadersBuilder}: the counterpart of Kafka's
     * {@code Stores.persistentSessionStoreWithHeaders}. A store that holds plain session values gets
     * empty headers in front of each when it opens.
     *
     * @param name name of the store (cannot be {@code null})
     * @param retentionPeriod how long sessions are kept after they end (cannot be negative)
     * @param transactional true: writes are staged and become durable at commit; false: write-through
     * @return a supplier of session store with headerss
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException as {@link #persistentSessionStore}
     */
    public static SessionBytesStoreSupplier persistentSessionStoreWithHeaders(
            String name, Duration retentionPeriod, boolean transactional) {
        return SupplierFactory.sessionStoreWithHeaders(name, retentionPeriod, transactional, null, false);
    }

    /**
     * A persistent transactional session store supplier with headers:
     * {@code persistentSessionStoreWithHeaders(name, retentionPeriod, true)}.
     *
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException as {@link #persistentSessionStore}
     */
    public static SessionBytesStoreSupplier persistentTransactionalSessionStoreWithHeaders(
            String name, Duration retentionPeriod) {
        return persistentSessionStoreWithHeaders(name, retentionPeriod, true);
    }

    /**
     * A persistent transactional session store supplier with headers whose stores use
     * {@code strategy}, overriding {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}.
     *
     * @param strategy where the stores keep uncommitted writes (cannot be {@code null})
     * @throws NullPointerException if {@code name} or {@code strategy} is null
     * @throws IllegalArgumentException as {@link #persistentSessionStore}
     */
    public static SessionBytesStoreSupplier persistentTransactionalSessionStoreWithHeaders(
            String name, Duration retentionPeriod, TransactionStrategy strategy) {
        return SupplierFactory.sessionStoreWithHeaders(name, retentionPeriod, true, requireStrategy(strategy), false);
    }

    /**
     * A persistent transactional versioned key-value store supplier (KIP-889), for
     * {@code Stores.versionedKeyValueStoreBuilder} and {@code Materialized.as} (versioned tables,
     * versioned stream-table joins): the counterpart of Kafka's
     * {@code Stores.persistentVersionedKeyValueStore(name, historyRetention)}, with Kafka's
     * default segment interval for that retention.
     *
     * @param name name of the store (cannot be {@code null})
     * @param historyRetention how long superseded versions stay readable, also the grace period for
     *     out-of-order puts (cannot be negative)
     * @return a supplier of versioned key-value stores
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code historyRetention} is negative or not in milliseconds' range
     */
    public static VersionedBytesStoreSupplier persistentVersionedKeyValueStore(String name, Duration historyRetention) {
        Objects.requireNonNull(name, "name cannot be null");
        long historyRetentionMs = SupplierFactory.historyRetentionMillis(historyRetention);
        return new TxnVersionedBytesStoreSupplier(
                name, historyRetentionMs, SupplierFactory.defaultSegmentInterval(historyRetentionMs), null);
    }

    /**
     * A persistent transactional versioned key-value store supplier with its own segment interval:
     * the counterpart of Kafka's {@code Stores.persistentVersionedKeyValueStore(name,
     * historyRetention, segmentInterval)}.
     *
     * @param name name of the store (cannot be {@code null})
     * @param historyRetention how long superseded versions stay readable (cannot be negative)
     * @param segmentInterval the width of a segment of history (must be positive)
     * @return a supplier of versioned key-value stores
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code historyRetention} is negative or {@code segmentInterval}
     *     is not positive
     */
    public static VersionedBytesStoreSupplier persistentVersionedKeyValueStore(
            String name, Duration historyRetention, Duration segmentInterval) {
        return persistentTransactionalVersionedKeyValueStore(name, historyRetention, segmentInterval, null);
    }

    /**
     * As {@link #persistentVersionedKeyValueStore(String, Duration, Duration)}, with stores that use
     * {@code strategy}, overriding {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}; null takes
     * the configured one.
     *
     * @param name name of the store (cannot be {@code null})
     * @param historyRetention how long superseded versions stay readable (cannot be negative)
     * @param segmentInterval the width of a segment of history (must be positive)
     * @param strategy where the stores keep uncommitted writes, or null for the configured one
     * @return a supplier of versioned key-value stores
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code historyRetention} is negative or {@code segmentInterval}
     *     is not positive
     */
    public static VersionedBytesStoreSupplier persistentTransactionalVersionedKeyValueStore(
            String name, Duration historyRetention, Duration segmentInterval, TransactionStrategy strategy) {
        Objects.requireNonNull(name, "name cannot be null");
        long historyRetentionMs = SupplierFactory.historyRetentionMillis(historyRetention);
        String msgPrefix = prepareMillisCheckFailMsgPrefix(segmentInterval, "segmentInterval");
        long segmentIntervalMs = validateMillisecondDuration(segmentInterval, msgPrefix);
        if (segmentIntervalMs < 1L) {
            throw new IllegalArgumentException("segmentInterval cannot be zero or negative");
        }
        return new TxnVersionedBytesStoreSupplier(name, historyRetentionMs, segmentIntervalMs, strategy);
    }

    private static TransactionStrategy requireStrategy(TransactionStrategy strategy) {
        return Objects.requireNonNull(strategy, "strategy cannot be null");
    }
}
