package dev.txnrocksdb.streams.config;

import static dev.txnrocksdb.streams.fixtures.StoreFixture.key;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.string;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.value;
import static java.time.Duration.ofMillis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.TxnStores;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.AbstractTxnStore;
import dev.txnrocksdb.streams.internals.ConfigValues;
import dev.txnrocksdb.streams.internals.TxnKeyValueBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import dev.txnrocksdb.streams.internals.TxnSessionBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnSessionStore;
import dev.txnrocksdb.streams.internals.TxnTimestampedKeyValueBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnTimestampedKeyValueStore;
import dev.txnrocksdb.streams.internals.TxnTimestampedWindowStore;
import dev.txnrocksdb.streams.internals.TxnWindowBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnWindowStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code txn.rocksdb.transaction.strategy}: parsing, what the stores read from the application
 * configuration, and the {@link TxnStores} overloads that override it for one store.
 */
class TransactionStrategyConfigTest {
    private static final String KEY = TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG;
    private static final Duration RETENTION = ofMillis(300_000L);
    private static final Duration WINDOW = ofMillis(10L);

    @TempDir
    Path dir;

    private final List<StateStore> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(StateStore::close);
    }

    private <S extends AbstractTxnStore> S init(S store, TestStateStoreContext context) {
        store.init(context, store);
        opened.add(store);
        return store;
    }

    private TestStateStoreContext configured(Object strategy) {
        TestStateStoreContext context = new TestStateStoreContext(dir.toFile());
        return strategy == null ? context : context.config(KEY, strategy);
    }

    // ---------------------------------------------------------------- the key and its values

    @Test
    void keyAndDefaultAreTheDocumentedOnes() {
        assertEquals("txn.rocksdb.transaction.strategy", TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG);
        assertEquals("indexed-batch", TxnRocksDBConfig.TRANSACTION_STRATEGY_DEFAULT);
        assertEquals("indexed-batch", TransactionStrategy.INDEXED_BATCH.configName());
        assertEquals("secondary-store", TransactionStrategy.SECONDARY_STORE.configName());
    }

    @Test
    void parseAcceptsTheConfigNamesIgnoringCaseAndSurroundingBlanks() {
        assertSame(
                TransactionStrategy.INDEXED_BATCH,
                ConfigValues.transactionStrategy(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, "indexed-batch"));
        assertSame(
                TransactionStrategy.SECONDARY_STORE,
                ConfigValues.transactionStrategy(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, "secondary-store"));
        assertSame(
                TransactionStrategy.SECONDARY_STORE,
                ConfigValues.transactionStrategy(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, " Secondary-Store\t"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "secondary", "SECONDARY_STORE", "indexed_batch", "rocksdb"})
    void parseRejectsAnythingElseNamingTheKeyTheValueAndTheAllowedValues(String bad) {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigValues.transactionStrategy(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, bad));
        assertEquals(
                "Invalid value " + bad + " for configuration " + KEY
                        + ": Expected one of: indexed-batch, secondary-store",
                e.getMessage());
    }

    @Test
    void parseRejectsNull() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigValues.transactionStrategy(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, null));
        assertTrue(e.getMessage().contains(KEY), e.getMessage());
    }

    // ---------------------------------------------------------------- stores read the configuration

    @Test
    void withoutTheKeyStoresUseIndexedBatch() {
        TxnKeyValueStore store = new TxnKeyValueStore("kv", true);
        assertNull(store.transactionStrategy(), "before init: takes the configured one");
        init(store, configured(null));
        assertEquals(TransactionStrategy.INDEXED_BATCH, store.transactionStrategy());
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void everyStoreKindReadsTheKey(TransactionStrategy strategy) {
        TestStateStoreContext context = configured(strategy.configName());
        assertEquals(strategy, init(new TxnKeyValueStore("kv", true), context).transactionStrategy());
        assertEquals(
                strategy,
                init(new TxnTimestampedKeyValueStore("ts-kv", true), context).transactionStrategy());
        assertEquals(
                strategy,
                init(new TxnWindowStore("window", 300_000L, 150_000L, 10L, false, true), context)
                        .transactionStrategy());
        assertEquals(
                strategy,
                init(new TxnTimestampedWindowStore("ts-window", 300_000L, 150_000L, 10L, false, true), context)
                        .transactionStrategy());
        assertEquals(
                strategy,
                init(new TxnSessionStore("session", 300_000L, 150_000L, true), context)
                        .transactionStrategy());
    }

    @Test
    void theKeyMayHoldTheEnumItself() {
        TxnKeyValueStore store =
                init(new TxnKeyValueStore("kv", true), configured(TransactionStrategy.SECONDARY_STORE));
        assertEquals(TransactionStrategy.SECONDARY_STORE, store.transactionStrategy());
    }

    @Test
    void aConfiguredSecondaryStoreCommitsAndReopens() {
        TestStateStoreContext context = configured("secondary-store");
        TopicPartition changelog = new TopicPartition("kv-changelog", 0);
        TxnKeyValueStore store = init(new TxnKeyValueStore("kv", true), context);
        store.put(key("a"), value("1"));
        store.commit(Map.of(changelog, 3L));
        store.put(key("b"), value("2"));
        store.close();
        store = init(new TxnKeyValueStore("kv", true), context);
        assertEquals("1", string(store.get(key("a"))));
        assertNull(store.get(key("b")));
        assertEquals(3L, store.committedOffset(changelog));
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void switchingTheStrategyOfAnExistingStoreKeepsItsCommittedState(TransactionStrategy first) {
        TransactionStrategy second = first == TransactionStrategy.INDEXED_BATCH
                ? TransactionStrategy.SECONDARY_STORE
                : TransactionStrategy.INDEXED_BATCH;
        TopicPartition changelog = new TopicPartition("kv-changelog", 0);
        TxnKeyValueStore store = init(new TxnKeyValueStore("kv", true), configured(first.configName()));
        store.put(key("a"), value("1"));
        store.put(key("gone"), value("x"));
        store.commit(Map.of(changelog, 1L));
        store.put(key("staged"), value("lost"));
        store.close();

        store = init(new TxnKeyValueStore("kv", true), configured(second.configName()));
        assertEquals(second, store.transactionStrategy());
        assertEquals(1L, store.committedOffset(changelog));
        assertEquals("1", string(store.get(key("a"))));
        assertNull(store.get(key("staged")));
        store.delete(key("gone"));
        store.put(key("b"), value("2"));
        store.commit(Map.of(changelog, 2L));
        store.close();

        store = init(new TxnKeyValueStore("kv", true), configured(first.configName()));
        assertEquals(2L, store.committedOffset(changelog));
        assertEquals("1", string(store.get(key("a"))));
        assertEquals("2", string(store.get(key("b"))));
        assertNull(store.get(key("gone")));
    }

    @Test
    void aMalformedValueFailsInitNamingTheKeyAndTheValue() {
        for (Function<String, AbstractTxnStore> kind : List.<Function<String, AbstractTxnStore>>of(
                name -> new TxnKeyValueStore(name, true),
                name -> new TxnWindowStore(name, 300_000L, 150_000L, 10L, false, true),
                name -> new TxnSessionStore(name, 300_000L, 150_000L, true),
                // write-through stores ignore the strategy, but a typo is still a typo
                name -> new TxnKeyValueStore(name, false))) {
            AbstractTxnStore store = kind.apply("bad");
            ConfigException e = assertThrows(ConfigException.class, () -> store.init(configured("in-memory"), store));
            assertEquals(
                    "Invalid value in-memory for configuration " + KEY
                            + ": Expected one of: indexed-batch, secondary-store",
                    e.getMessage());
            assertFalse(store.isOpen());
            assertFalse(Files.exists(dir.resolve("bad")), "nothing is created before the settings are read");
        }
    }

    // ---------------------------------------------------------------- TxnStores overloads override it

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void factoryOverloadsOverrideTheConfiguredStrategy(TransactionStrategy chosen) {
        TransactionStrategy other = chosen == TransactionStrategy.INDEXED_BATCH
                ? TransactionStrategy.SECONDARY_STORE
                : TransactionStrategy.INDEXED_BATCH;
        TestStateStoreContext context = configured(other.configName());

        KeyValueBytesStoreSupplier kv = TxnStores.persistentTransactionalKeyValueStore("kv", chosen);
        KeyValueBytesStoreSupplier tsKv = TxnStores.persistentTransactionalTimestampedKeyValueStore("ts-kv", chosen);
        WindowBytesStoreSupplier window =
                TxnStores.persistentTransactionalWindowStore("window", RETENTION, WINDOW, false, chosen);
        WindowBytesStoreSupplier tsWindow =
                TxnStores.persistentTransactionalTimestampedWindowStore("ts-window", RETENTION, WINDOW, true, chosen);
        SessionBytesStoreSupplier session = TxnStores.persistentTransactionalSessionStore("session", RETENTION, chosen);

        assertEquals(chosen, ((TxnKeyValueBytesStoreSupplier) kv).transactionStrategy());
        assertEquals(chosen, ((TxnTimestampedKeyValueBytesStoreSupplier) tsKv).transactionStrategy());
        assertEquals(chosen, ((TxnWindowBytesStoreSupplier) window).transactionStrategy());
        assertEquals(chosen, ((TxnWindowBytesStoreSupplier) tsWindow).transactionStrategy());
        assertEquals(chosen, ((TxnSessionBytesStoreSupplier) session).transactionStrategy());
        assertTrue(kv.toString().contains("strategy=" + chosen.configName()), kv.toString());

        AbstractTxnStore kvStore = (AbstractTxnStore) kv.get();
        AbstractTxnStore tsKvStore = (AbstractTxnStore) tsKv.get();
        AbstractTxnStore windowStore = (AbstractTxnStore) window.get();
        AbstractTxnStore tsWindowStore = (AbstractTxnStore) tsWindow.get();
        AbstractTxnStore sessionStore = (AbstractTxnStore) session.get();
        assertInstanceOf(TxnTimestampedKeyValueStore.class, tsKvStore);
        assertInstanceOf(TxnTimestampedWindowStore.class, tsWindowStore);
        for (AbstractTxnStore store : List.of(kvStore, tsKvStore, windowStore, tsWindowStore, sessionStore)) {
            assertTrue(store.transactional(), store.name());
            assertEquals(chosen, store.transactionStrategy(), "before init: " + store.name());
            assertEquals(chosen, init(store, context).transactionStrategy(), "after init: " + store.name());
        }
    }

    @Test
    void factoriesWithoutAStrategyLeaveItToTheConfiguration() {
        TestStateStoreContext context = configured("secondary-store");
        List<Object> suppliers = List.of(
                TxnStores.persistentTransactionalKeyValueStore("kv"),
                TxnStores.persistentTransactionalTimestampedKeyValueStore("ts-kv"),
                TxnStores.persistentTransactionalWindowStore("window", RETENTION, WINDOW, false),
                TxnStores.persistentTransactionalTimestampedWindowStore("ts-window", RETENTION, WINDOW, false),
                TxnStores.persistentTransactionalSessionStore("session", RETENTION));
        for (Object supplier : suppliers) {
            assertTrue(supplier.toString().contains("strategy=from config"), supplier.toString());
            AbstractTxnStore store = (AbstractTxnStore)
                    (supplier instanceof KeyValueBytesStoreSupplier
                            ? ((KeyValueBytesStoreSupplier) supplier).get()
                            : supplier instanceof WindowBytesStoreSupplier
                                    ? ((WindowBytesStoreSupplier) supplier).get()
                                    : ((SessionBytesStoreSupplier) supplier).get());
            assertNull(store.transactionStrategy(), store.name());
            assertEquals(
                    TransactionStrategy.SECONDARY_STORE, init(store, context).transactionStrategy(), store.name());
        }
    }

    @Test
    void nullStrategyIsRejectedByTheOverloads() {
        for (Executable call : new Executable[] {
            () -> TxnStores.persistentTransactionalKeyValueStore("kv", null),
            () -> TxnStores.persistentTransactionalTimestampedKeyValueStore("kv", null),
            () -> TxnStores.persistentTransactionalWindowStore("w", RETENTION, WINDOW, false, null),
            () -> TxnStores.persistentTransactionalTimestampedWindowStore("w", RETENTION, WINDOW, false, null),
            () -> TxnStores.persistentTransactionalSessionStore("s", RETENTION, null),
        }) {
            assertEquals(
                    "strategy cannot be null",
                    assertThrows(NullPointerException.class, call).getMessage());
        }
        assertEquals(
                "name cannot be null",
                assertThrows(
                                NullPointerException.class,
                                () -> TxnStores.persistentTransactionalKeyValueStore(
                                        null, TransactionStrategy.SECONDARY_STORE))
                        .getMessage());
    }

    @Test
    void overloadsKeepKafkasArgumentChecks() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> TxnStores.persistentTransactionalWindowStore(
                        "w", ofMillis(5), ofMillis(10), false, TransactionStrategy.SECONDARY_STORE));
        assertTrue(e.getMessage().contains("must be no smaller than its window size"), e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class,
                () -> TxnStores.persistentTransactionalSessionStore(
                        "s", ofMillis(-1), TransactionStrategy.SECONDARY_STORE));
        assertEquals("retentionPeriod cannot be negative", e.getMessage());
    }
}
