package dev.txnrocksdb.streams.internals;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

class ConfigValidationTest {
    private static final String TABLE_START =
            "<!-- settings table: generated from TxnRocksDBConfig.configDef(), checked by ConfigValidationTest -->";
    private static final String TABLE_END = "<!-- end of settings table -->";

    @Test
    void defaultsComeFromTheDefinition() {
        Map<String, Object> parsed = ConfigValidation.parse(Map.of());
        assertEquals(false, parsed.get(TxnRocksDBConfig.COMMIT_SYNC_CONFIG));
        assertEquals("indexed-batch", parsed.get(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG));
        assertEquals(64L << 20, parsed.get(TxnRocksDBConfig.MEMORY_BLOCK_CACHE_BYTES_CONFIG));
        assertEquals(32L << 20, parsed.get(TxnRocksDBConfig.MEMORY_WRITE_BUFFER_BYTES_CONFIG));
        assertEquals(true, parsed.get(TxnRocksDBConfig.DSL_TRANSACTIONAL_CONFIG));
        assertEquals(16L << 20, parsed.get(TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_CONFIG));
        assertEquals(16L << 20, StoreSettings.from(Map.of()).spillBytes("any"));
    }

    @Test
    void theSpillSizeTakesZeroAndUpAndRefusesNegativeOrMalformedValuesNamingTheKey() {
        String key = TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_CONFIG;
        assertEquals("txn.rocksdb.secondary.store.spill.bytes", key);
        assertEquals(0L, ConfigValidation.parse(Map.of(key, "0")).get(key));
        assertEquals(1L << 30, ConfigValidation.parse(Map.of(key, 1 << 30)).get(key));
        assertEquals(
                Long.MAX_VALUE,
                ConfigValidation.parse(Map.of(key, Long.MAX_VALUE)).get(key));
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigValidation.parse(Map.of(key, "-1")));
        assertEquals(
                "Invalid value -1 for configuration txn.rocksdb.secondary.store.spill.bytes: Value must be at least 0",
                e.getMessage());
        e = assertThrows(ConfigException.class, () -> ConfigValidation.parse(Map.of(key, "16MiB")));
        assertEquals(
                "Invalid value 16MiB for configuration txn.rocksdb.secondary.store.spill.bytes: Not a number of type LONG",
                e.getMessage());
        e = assertThrows(ConfigException.class, () -> StoreSettings.from(Map.of(key, -5L)));
        assertTrue(e.getMessage().contains(key), e.getMessage());
    }

    @Test
    void thePerStoreSpillSizeIsKnownCheckedAndOverridesTheKeyForItsStore() {
        String perStore = TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_STORE_PREFIX + "word-counts";
        assertEquals("txn.rocksdb.secondary.store.spill.bytes.word-counts", perStore);
        assertEquals(List.of(), ConfigValidation.warnings(Map.of(perStore, "0")), "a per-store key is known");
        StoreSettings settings = StoreSettings.from(
                Map.of(TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_CONFIG, "1024", perStore, " 0 "));
        assertEquals(0L, settings.spillBytes("word-counts"));
        assertEquals(1024L, settings.spillBytes("other"));
        assertEquals(
                0L,
                settings.withTransactionStrategy(TransactionStrategy.SECONDARY_STORE)
                        .spillBytes("word-counts"),
                "a store's own strategy keeps the spill sizes");

        ConfigException e = assertThrows(ConfigException.class, () -> ConfigValidation.parse(Map.of(perStore, -1)));
        assertEquals(
                "Invalid value -1 for configuration txn.rocksdb.secondary.store.spill.bytes.word-counts: Value must be"
                        + " at least 0",
                e.getMessage());
        e = assertThrows(ConfigException.class, () -> ConfigValidation.parse(Map.of(perStore, "lots")));
        assertEquals(
                "Invalid value lots for configuration txn.rocksdb.secondary.store.spill.bytes.word-counts: Not a number"
                        + " of type LONG",
                e.getMessage());
        assertEquals(
                List.of("Unknown txn-rocksdb setting txn.rocksdb.spill.bytes is ignored; did you mean"
                        + " txn.rocksdb.secondary.store.spill.bytes?"),
                ConfigValidation.warnings(Map.of("txn.rocksdb.spill.bytes", "0")));
    }

    @Test
    void parsedValuesAndStrategyObjectsAreAccepted() {
        Map<String, Object> parsed = ConfigValidation.parse(Map.of(
                TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG,
                TransactionStrategy.SECONDARY_STORE,
                TxnRocksDBConfig.COMMIT_SYNC_CONFIG,
                "TRUE",
                TxnRocksDBConfig.MEMORY_BLOCK_CACHE_BYTES_CONFIG,
                128 << 20));
        assertEquals("secondary-store", parsed.get(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG));
        assertEquals(true, parsed.get(TxnRocksDBConfig.COMMIT_SYNC_CONFIG));
        assertEquals(128L << 20, parsed.get(TxnRocksDBConfig.MEMORY_BLOCK_CACHE_BYTES_CONFIG));
    }

    @Test
    void aBadValueNamesTheKeyTheValueAndWhatIsAllowed() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigValidation.parse(Map.of(TxnRocksDBConfig.MEMORY_WRITE_BUFFER_BYTES_CONFIG, "0")));
        assertEquals(
                "Invalid value 0 for configuration txn.rocksdb.memory.write.buffer.bytes: Value must be at least 1",
                e.getMessage());
        e = assertThrows(
                ConfigException.class,
                () -> ConfigValidation.parse(Map.of(TxnRocksDBConfig.MEMORY_BLOCK_CACHE_BYTES_CONFIG, "64MB")));
        assertEquals(
                "Invalid value 64MB for configuration txn.rocksdb.memory.block.cache.bytes: Not a number of type LONG",
                e.getMessage());
        e = assertThrows(
                ConfigException.class,
                () -> ConfigValidation.parse(Map.of(TxnRocksDBConfig.COMMIT_SYNC_CONFIG, "sometimes")));
        assertEquals(
                "Invalid value sometimes for configuration txn.rocksdb.commit.sync: Expected value to be either true or false",
                e.getMessage());
    }

    @Test
    void rocksDbOptionsAreCheckedWithRocksDbsParserAndTheForbiddenOnesRefused() {
        Map<String, Object> parsed = ConfigValidation.parse(Map.of(
                TxnRocksDBConfig.ROCKSDB_OPTIONS_CONFIG,
                "write_buffer_size=67108864;max_write_buffer_number=4",
                "txn.rocksdb.options.word-counts",
                "block_based_table_factory={block_size=16384}"));
        assertEquals(
                "write_buffer_size=67108864;max_write_buffer_number=4",
                parsed.get(TxnRocksDBConfig.ROCKSDB_OPTIONS_CONFIG));
        assertEquals(
                List.of(),
                ConfigValidation.warnings(Map.of("txn.rocksdb.options.word-counts", "")),
                "a per-store key is known");
        assertEquals("", ConfigValidation.parse(Map.of()).get(TxnRocksDBConfig.ROCKSDB_OPTIONS_CONFIG));

        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigValidation.parse(Map.of(TxnRocksDBConfig.ROCKSDB_OPTIONS_CONFIG, "write_bufer_size=1")));
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "Invalid value write_bufer_size=1 for configuration txn.rocksdb.options:"
                                        + " invalid RocksDB options 'write_bufer_size=1': Invalid argument: Extra option not recognized: write_bufer_size"),
                e.getMessage());
        e = assertThrows(
                ConfigException.class,
                () -> ConfigValidation.parse(Map.of("txn.rocksdb.options.word-counts", "atomic_flush=false")));
        assertEquals(
                "Invalid value atomic_flush=false for configuration txn.rocksdb.options.word-counts: RocksDB option"
                        + " 'atomic_flush' cannot be changed for txn-rocksdb stores: restored records and their offsets are flushed"
                        + " together (atomic flush), which crash safety relies on",
                e.getMessage());
    }

    @Test
    void theDslSuppliersValidateEverySettingWhenConfigured() {
        TxnRocksDBDslStoreSuppliers suppliers = new TxnRocksDBDslStoreSuppliers();
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> suppliers.configure(Map.of(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, "secondary")));
        assertEquals(
                "Invalid value secondary for configuration txn.rocksdb.transaction.strategy:"
                        + " Expected one of: indexed-batch, secondary-store",
                e.getMessage());
        suppliers.configure(Map.of(TxnRocksDBConfig.DSL_TRANSACTIONAL_CONFIG, "false"));
        assertEquals(false, suppliers.transactional());
    }

    @Test
    void anUnknownKeyIsAWarningNamingTheClosestKnownKey() {
        List<String> warnings = ConfigValidation.warnings(Map.of(
                "txn.rocksdb.commit.synch", "true",
                "txn.rocksdb.memory.block.cache.size", "1",
                "txn.rocksdb.strategy", "secondary-store",
                "rocksdb.something.else", "not ours"));
        assertEquals(
                List.of(
                        "Unknown txn-rocksdb setting txn.rocksdb.commit.synch is ignored; did you mean txn.rocksdb.commit.sync?",
                        "Unknown txn-rocksdb setting txn.rocksdb.memory.block.cache.size is ignored; did you mean"
                                + " txn.rocksdb.memory.block.cache.bytes?",
                        "Unknown txn-rocksdb setting txn.rocksdb.strategy is ignored; did you mean txn.rocksdb.transaction.strategy?"),
                warnings);
        // A typo never fails the application.
        ConfigValidation.parse(Map.of("txn.rocksdb.commit.synch", "true"));
    }

    @Test
    void aRocksDbConfigSetterIsAWarningSayingWhatToUseInstead() {
        List<String> warnings = ConfigValidation.warnings(
                Map.of(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, "com.example.Setter"));
        assertEquals(1, warnings.size());
        assertTrue(
                warnings.get(0)
                        .startsWith("rocksdb.config.setter=com.example.Setter does not apply to txn-rocksdb stores"),
                warnings.get(0));
        assertTrue(warnings.get(0).contains(TxnRocksDBConfig.MEMORY_BLOCK_CACHE_BYTES_CONFIG), warnings.get(0));
    }

    /** The README's settings table is exactly what {@link #settingsTable()} generates from the definition. */
    @Test
    void theReadmeSettingsTableMatchesTheDefinition() throws IOException {
        Path readme = Paths.get("..", "README.md");
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        int start = text.indexOf(TABLE_START);
        int end = text.indexOf(TABLE_END);
        assertTrue(
                start >= 0 && end > start,
                "README.md has no settings table between " + TABLE_START + " and " + TABLE_END);
        String documented = text.substring(start + TABLE_START.length(), end).strip();
        assertEquals(
                settingsTable(), documented, "README.md's settings table is out of date; this is the generated one");
    }

    static String settingsTable() {
        StringBuilder out = new StringBuilder(
                "| key | type | default | valid values | importance | meaning |\n|---|---|---|---|---|---|\n");
        for (ConfigDef.ConfigKey key :
                new TreeMap<>(TxnRocksDBConfig.configDef().configKeys()).values()) {
            out.append("| `")
                    .append(key.name)
                    .append("` | ")
                    .append(key.type.toString().toLowerCase())
                    .append(" | ")
                    .append(defaultText(key))
                    .append(" | ")
                    .append(key.validator == null ? "" : key.validator.toString())
                    .append(" | ")
                    .append(key.importance.toString().toLowerCase())
                    .append(" | ")
                    .append(key.documentation)
                    .append(" |\n");
        }
        return out.toString().strip();
    }

    private static String defaultText(ConfigDef.ConfigKey key) {
        Object value = key.defaultValue;
        if ("".equals(value)) {
            return "(empty)";
        }
        if (value == null) {
            return "(none)";
        }
        if (value instanceof Long && (Long) value != 0 && (Long) value % (1L << 20) == 0) {
            return "`" + value + "` (" + ((Long) value >> 20) + " MiB)";
        }
        return "`" + value + "`";
    }
}
