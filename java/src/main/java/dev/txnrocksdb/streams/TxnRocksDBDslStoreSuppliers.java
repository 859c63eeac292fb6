package dev.txnrocksdb.streams;

import dev.txnrocksdb.streams.internals.KafkaStreamsCompatibility;
import dev.txnrocksdb.streams.internals.StoreSettings;
import dev.txnrocksdb.streams.internals.SupplierFactory;
import dev.txnrocksdb.streams.internals.TxnWindowStore;
import java.util.Map;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.state.DslKeyValueParams;
import org.apache.kafka.streams.state.DslSessionParams;
import org.apache.kafka.streams.state.DslStoreSuppliers;
import org.apache.kafka.streams.state.DslWindowParams;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

/**
 * txn-rocksdb stores for every stateful DSL operator: the counterpart of Kafka's
 * {@code BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers}, and KIP-844's
 * {@code default.dsl.store=txn_rocksDB}. Use it
 * <ul>
 *   <li>for a whole application: {@code dsl.store.suppliers.class=dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers}
 *       plus {@code enable.transactional.statestores=true} (or let {@link TxnStreamsConfig} translate
 *       the KIP's {@code default.dsl.store=txn_rocksDB});</li>
 *   <li>per operator: {@code Materialized.withStoreType(TxnStoreTypes.TXN_ROCKS_DB)} or
 *       {@code StreamJoined.withDslStoreSuppliers(TxnStoreTypes.TXN_ROCKS_DB)}.</li>
 * </ul>
 * It needs no {@link #configure} call (Kafka does not call it for a topology-level or per-operator
 * setting); when Kafka does call it, {@link TxnRocksDBConfig#DSL_TRANSACTIONAL_CONFIG} chooses
 * transactional (default) or write-through stores. Store settings ({@link TxnRocksDBConfig}),
 * the transaction strategy ({@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}) included, are
 * read by each store from the application configuration when it is initialized.
 *
 * <p><b>Mapping.</b> Kafka's arguments are validated as by Kafka's suppliers; segment intervals are
 * Kafka's {@code max(retention / 2, 60_000)}.
 * <table>
 *   <caption>What each DSL request gets</caption>
 *   <tr><th>request</th><th>format</th><th>store</th></tr>
 *   <tr><td>key-value</td><td>PLAIN / TIMESTAMPED / HEADERS</td><td>key-value store / timestamped key-value store / timestamped key-value store with headers</td></tr>
 *   <tr><td>window, emit on update</td><td>PLAIN / TIMESTAMPED (or none) / HEADERS</td><td>window store / timestamped window store / timestamped window store with headers</td></tr>
 *   <tr><td>window, emit on window close</td><td>any but HEADERS / HEADERS</td><td>timestamped window store / timestamped window store with headers, time-ordered (below)</td></tr>
 *   <tr><td>session</td><td>any but HEADERS / HEADERS</td><td>session store / session store with headers; for emit on window close one that answers {@code findSessions(long, long)}</td></tr>
 * </table>
 *
 * <p><b>HEADERS format.</b> For {@code DslStoreFormat.HEADERS} (e.g. {@code dsl.store.format=headers},
 * KIP-1285) it supplies the stores with headers (KIP-1271), which keep each record's headers in
 * state in Kafka's byte format, as Kafka's own headers stores do; Kafka 4.4 documents which DSL
 * operators write empty headers. A store written in the timestamped (sessions: plain) format before
 * the application turned headers on upgrades its values when it opens.
 *
 * <p><b>Emit-final windows</b> ({@code EmitStrategy.onWindowClose()}). Kafka serves them with its
 * time-ordered window store, which shows windows with {@code start >= streamTime - retention}
 * (one ms more than its other window stores) and whose {@code fetchAll}, which the emit-final
 * processor emits closed windows in, iterates by {@code (window start, key bytes, seqnum)}. Ours
 * applies the same visibility rule, and iterates the same way unless Kafka's
 * {@code CachingWindowStore} wraps it: Kafka pairs its time-ordered caching layer only with its own
 * time-ordered store (the DSL turns caching on for emit-final tumbling and hopping windows when
 * {@code Materialized} caching is on, the default), and {@code CachingWindowStore} merges its
 * cache with the store's iterators in key-first order (segment, then key bytes), so the store
 * checks at init whether that layer is above it and then iterates key-first. So:
 * <ul>
 *   <li>caching off (including every emit-final sliding window, for which the DSL turns it off):
 *       exactly the built-in's records in the built-in's order;</li>
 *   <li>caching on (tumbling and hopping): the same records per emission, but within one emission
 *       ordered by segment and key instead of by window start and key. Interactive queries then
 *       also go through {@code CachingWindowStore}, whose key-range fetches with a null key bound
 *       return some windows more than once (a Kafka behaviour its key-first window stores share;
 *       the time-ordered caching layer does not have it).</li>
 * </ul>
 * Key-range fetches read in key-first order for sliding windows and for the HEADERS format, as
 * Kafka's indexed time-ordered stores do, and time-first otherwise (uncached). Puts into expired
 * segments are dropped (and counted), and expired segments deleted, by Kafka's rule.
 *
 * <p><b>Emit-final sessions</b> get a session store that implements
 * {@code findSessions(long, long)}, which the emit-final processor reads closed
 * sessions with, returning what Kafka's time-ordered session store returns, in its order. Other
 * session stores throw {@code UnsupportedOperationException} there, as Kafka's do.
 */
public class TxnRocksDBDslStoreSuppliers implements DslStoreSuppliers {
    private volatile boolean transactional = TxnRocksDBConfig.DSL_TRANSACTIONAL_DEFAULT;

    /**
     * Suppliers of transactional stores; works without {@link #configure}.
     *
     * @throws IllegalStateException if the Kafka Streams on the class path is not the one this jar
     *     needs, naming both versions and how to fix the build
     */
    public TxnRocksDBDslStoreSuppliers() {
        KafkaStreamsCompatibility.check();
    }

    /**
     * Validates every {@code txn.rocksdb.*} setting ({@link TxnRocksDBConfig#configDef()}), so a
     * malformed one fails when Kafka Streams is created rather than when a stream thread first
     * opens a store, and reads {@link TxnRocksDBConfig#DSL_TRANSACTIONAL_CONFIG} (default
     * {@code true}). Unknown {@code txn.rocksdb.*} keys and {@code rocksdb.config.setter} are
     * logged as warnings.
     *
     * @throws org.apache.kafka.common.config.ConfigException naming the key, the value and what is
     *     allowed, if a {@code txn.rocksdb.*} entry is malformed
     * @throws IllegalStateException if the Kafka Streams on the class path is not the one this jar needs
     */
    @Override
    public void configure(Map<String, ?> configs) {
        KafkaStreamsCompatibility.check();
        transactional = StoreSettings.from(configs).dslTransactional();
    }

    /** Whether the supplied stores are transactional. */
    public boolean transactional() {
        return transactional;
    }

    @Override
    public KeyValueBytesStoreSupplier keyValueStore(DslKeyValueParams params) {
        DslStoreFormat format = params.dslStoreFormat();
        if (format == null) {
            throw new IllegalArgumentException(
                    "Unsupported DslStoreFormat: null. Expected one of: HEADERS, TIMESTAMPED, or PLAIN");
        }
        switch (format) {
            case PLAIN:
                return TxnStores.persistentKeyValueStore(params.name(), transactional);
            case TIMESTAMPED:
                return TxnStores.persistentTimestampedKeyValueStore(params.name(), transactional);
            case HEADERS:
                return TxnStores.persistentTimestampedKeyValueStoreWithHeaders(params.name(), transactional);
            default:
                throw new IllegalArgumentException(
                        "Unsupported DslStoreFormat: " + format + ". Expected one of: HEADERS, TIMESTAMPED, or PLAIN");
        }
    }

    @Override
    public WindowBytesStoreSupplier windowStore(DslWindowParams params) {
        DslStoreFormat format = params.dslStoreFormat() == null ? DslStoreFormat.TIMESTAMPED : params.dslStoreFormat();
        TxnWindowStore.Layout layout;
        if (params.emitStrategy().type() == EmitStrategy.StrategyType.ON_WINDOW_CLOSE) {
            // Kafka's headers-format time-ordered store is always indexed.
            layout = params.isSlidingWindow() || format == DslStoreFormat.HEADERS
                    ? TxnWindowStore.Layout.TIME_ORDERED_INDEXED
                    : TxnWindowStore.Layout.TIME_ORDERED;
        } else {
            layout = TxnWindowStore.Layout.KEY_FIRST;
        }
        boolean timeOrdered = layout != TxnWindowStore.Layout.KEY_FIRST;
        if (format == DslStoreFormat.HEADERS) {
            return SupplierFactory.windowStoreWithHeaders(
                    params.name(),
                    params.retentionPeriod(),
                    params.windowSize(),
                    params.retainDuplicates(),
                    transactional,
                    null,
                    layout);
        }
        return SupplierFactory.windowStore(
                params.name(),
                params.retentionPeriod(),
                params.windowSize(),
                params.retainDuplicates(),
                timeOrdered || format != DslStoreFormat.PLAIN,
                transactional,
                null,
                layout);
    }

    @Override
    public SessionBytesStoreSupplier sessionStore(DslSessionParams params) {
        boolean emitFinal = params.emitStrategy().type() == EmitStrategy.StrategyType.ON_WINDOW_CLOSE;
        return params.storeFormat() == DslStoreFormat.HEADERS
                ? SupplierFactory.sessionStoreWithHeaders(
                        params.name(), params.retentionPeriod(), transactional, null, emitFinal)
                : SupplierFactory.sessionStore(params.name(), params.retentionPeriod(), transactional, null, emitFinal);
    }

    @Override
    public String toString() {
        return "TxnRocksDBDslStoreSuppliers{transactional=" + transactional + "}";
    }
}
