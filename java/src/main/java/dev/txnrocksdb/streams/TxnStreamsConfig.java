package dev.txnrocksdb.streams;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Translates KIP-844's {@code default.dsl.store=txn_rocksDB} into the configuration Kafka Streams
 * 4.4 accepts. Kafka's validator allows only {@code rocksDB} and {@code in_memory} for
 * {@code default.dsl.store}, so the KIP spelling cannot reach {@code KafkaStreams}; the equivalent
 * is
 * <pre>
 * dsl.store.suppliers.class=dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers
 * enable.transactional.statestores=true
 * </pre>
 * which is what {@link #translate(Properties)} produces:
 * <pre>{@code
 * Properties props = new Properties();
 * props.put(StreamsConfig.APPLICATION_ID_CONFIG, "app");
 * props.put("default.dsl.store", "txn_rocksDB");
 * KafkaStreams streams = new KafkaStreams(topology, TxnStreamsConfig.translate(props));
 * }</pre>
 * Any other {@code default.dsl.store} value is left alone. The value is matched ignoring case.
 */
public final class TxnStreamsConfig {
    /** {@value}: Kafka's {@code StreamsConfig.DEFAULT_DSL_STORE_CONFIG}. */
    public static final String DEFAULT_DSL_STORE_CONFIG = "default.dsl.store";

    /** {@value}: KIP-844's value of {@link #DEFAULT_DSL_STORE_CONFIG} for transactional RocksDB stores. */
    public static final String TXN_ROCKS_DB = "txn_rocksDB";

    private TxnStreamsConfig() {}

    /**
     * A copy of {@code props} in which {@code default.dsl.store=txn_rocksDB} is replaced by
     * {@code dsl.store.suppliers.class=}{@link TxnRocksDBDslStoreSuppliers} and
     * {@code enable.transactional.statestores=true}; without that entry, an equal copy. Only the
     * entries of {@code props} itself are copied, not its defaults.
     *
     * @throws ConfigException if {@code props} also sets {@code dsl.store.suppliers.class} to
     *     another class, or {@code enable.transactional.statestores} to {@code false}
     */
    public static Properties translate(Properties props) {
        Map<String, Object> entries = new HashMap<>();
        props.forEach((key, value) -> entries.put(key.toString(), value));
        Properties translated = new Properties();
        translated.putAll(translate(entries));
        return translated;
    }

    /**
     * As {@link #translate(Properties)}, for a configuration map.
     *
     * @return a new map; {@code configs} is not modified
     * @throws ConfigException on a conflicting entry (see {@link #translate(Properties)})
     */
    public static Map<String, Object> translate(Map<String, ?> configs) {
        Map<String, Object> translated = new HashMap<>(configs);
        Object dslStore = translated.get(DEFAULT_DSL_STORE_CONFIG);
        if (dslStore == null
                || !dslStore.toString().trim().toLowerCase(Locale.ROOT).equals(TXN_ROCKS_DB.toLowerCase(Locale.ROOT))) {
            return translated;
        }
        Object suppliers = translated.get(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG);
        if (suppliers != null && !isOurSuppliers(suppliers)) {
            throw new ConfigException(
                    StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG,
                    suppliers,
                    DEFAULT_DSL_STORE_CONFIG + "=" + dslStore + " selects "
                            + TxnRocksDBDslStoreSuppliers.class.getName() + "; remove one of the two settings");
        }
        Object transactional = translated.get(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG);
        if (transactional != null && !transactional.toString().trim().equalsIgnoreCase("true")) {
            throw new ConfigException(
                    StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG,
                    transactional,
                    DEFAULT_DSL_STORE_CONFIG + "=" + dslStore + " needs transactional state stores enabled");
        }
        translated.remove(DEFAULT_DSL_STORE_CONFIG);
        translated.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, TxnRocksDBDslStoreSuppliers.class.getName());
        translated.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, "true");
        return translated;
    }

    private static boolean isOurSuppliers(Object value) {
        String className = value instanceof Class
                ? ((Class<?>) value).getName()
                : value.toString().trim();
        return className.equals(TxnRocksDBDslStoreSuppliers.class.getName());
    }
}
