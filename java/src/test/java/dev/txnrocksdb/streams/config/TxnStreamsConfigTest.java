package dev.txnrocksdb.streams.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers;
import dev.txnrocksdb.streams.TxnStreamsConfig;
import dev.txnrocksdb.streams.internals.TxnTimestampedKeyValueBytesStoreSupplier;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.state.DslKeyValueParams;
import org.junit.jupiter.api.Test;

/** KIP-844's {@code default.dsl.store=txn_rocksDB}, translated into what Kafka Streams 4.4 accepts. */
class TxnStreamsConfigTest {
    private static Properties base() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "app");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "dummy:9092");
        return props;
    }

    @Test
    void kafkaRejectsTheKipSpelling() {
        Properties props = base();
        props.put(TxnStreamsConfig.DEFAULT_DSL_STORE_CONFIG, TxnStreamsConfig.TXN_ROCKS_DB);
        assertThrows(ConfigException.class, () -> new StreamsConfig(props));
    }

    @Test
    void translatesTheKipSpellingIntoSuppliersClassAndTransactionalStores() {
        Properties props = base();
        props.put(TxnStreamsConfig.DEFAULT_DSL_STORE_CONFIG, "TXN_ROCKSDB");
        Properties translated = TxnStreamsConfig.translate(props);
        assertNotSame(props, translated);
        assertTrue(props.containsKey(TxnStreamsConfig.DEFAULT_DSL_STORE_CONFIG), "the input is left alone");
        assertFalse(translated.containsKey(TxnStreamsConfig.DEFAULT_DSL_STORE_CONFIG));
        assertEquals(
                TxnRocksDBDslStoreSuppliers.class.getName(),
                translated.get(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG));
        assertEquals("true", translated.get(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG));
        assertEquals("app", translated.get(StreamsConfig.APPLICATION_ID_CONFIG));

        // Kafka accepts it and builds our suppliers from it.
        StreamsConfig config = new StreamsConfig(translated);
        assertTrue(config.getBoolean(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG));
        TopologyConfig topologyConfig = new TopologyConfig(config);
        assertTrue(topologyConfig.resolveDslStoreSuppliers().isPresent());
        assertTrue(topologyConfig.resolveDslStoreSuppliers().get() instanceof TxnRocksDBDslStoreSuppliers);
        assertTrue(
                config.getConfiguredInstance(
                                        StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG,
                                        org.apache.kafka.streams.state.DslStoreSuppliers.class)
                                .keyValueStore(new DslKeyValueParams("kv", true))
                        instanceof TxnTimestampedKeyValueBytesStoreSupplier);
    }

    @Test
    void otherValuesAndConfigsWithoutTheKeyAreCopiedUnchanged() {
        Map<String, Object> rocks =
                new HashMap<>(Map.of(TxnStreamsConfig.DEFAULT_DSL_STORE_CONFIG, StreamsConfig.ROCKS_DB, "x", 1));
        assertEquals(rocks, TxnStreamsConfig.translate(rocks));
        assertEquals(Map.of("x", 1), TxnStreamsConfig.translate(Map.of("x", 1)));
    }

    @Test
    void consistentExplicitSettingsAreAccepted() {
        Map<String, Object> configs = Map.of(
                TxnStreamsConfig.DEFAULT_DSL_STORE_CONFIG, TxnStreamsConfig.TXN_ROCKS_DB,
                StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, TxnRocksDBDslStoreSuppliers.class,
                StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        Map<String, Object> translated = TxnStreamsConfig.translate(configs);
        assertEquals(
                TxnRocksDBDslStoreSuppliers.class.getName(),
                translated.get(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG));
    }

    @Test
    void conflictingSettingsAreRefused() {
        assertThrows(
                ConfigException.class,
                () -> TxnStreamsConfig.translate(Map.of(
                        TxnStreamsConfig.DEFAULT_DSL_STORE_CONFIG,
                        TxnStreamsConfig.TXN_ROCKS_DB,
                        StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG,
                        "org.example.Other")));
        assertThrows(
                ConfigException.class,
                () -> TxnStreamsConfig.translate(Map.of(
                        TxnStreamsConfig.DEFAULT_DSL_STORE_CONFIG,
                        TxnStreamsConfig.TXN_ROCKS_DB,
                        StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG,
                        "false")));
    }
}
