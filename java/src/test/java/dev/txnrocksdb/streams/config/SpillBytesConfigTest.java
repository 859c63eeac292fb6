package dev.txnrocksdb.streams.config;

import static dev.txnrocksdb.streams.fixtures.StoreFixture.key;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.fixtures.StoreFixture;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import dev.txnrocksdb.streams.internals.nativeapi.NativeStoreStatistics;
import dev.txnrocksdb.streams.internals.nativeapi.StoreStatistic;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code txn.rocksdb.secondary.store.spill.bytes} and its per-store form reach the store a
 * secondary-store transaction stages in: with 0 its writes are in the temporary store at once
 * ({@code TEMPORARY_STORE_BYTES} grows), with the default 16 MiB a small transaction stays in
 * memory; indexed-batch ignores it; a negative value fails init naming the key.
 */
class SpillBytesConfigTest {
    private static final String KEY = TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_CONFIG;
    private static final TopicPartition CHANGELOG = new TopicPartition("changelog", 0);

    @TempDir
    Path dir;

    private final List<TxnKeyValueStore> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(TxnKeyValueStore::close);
    }

    private TestStateStoreContext secondaryStore() {
        return new TestStateStoreContext(dir.toFile())
                .config(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, TransactionStrategy.SECONDARY_STORE.configName());
    }

    private TxnKeyValueStore open(String name, TestStateStoreContext context) {
        TxnKeyValueStore store = StoreFixture.open(new TxnKeyValueStore(name, true), context);
        opened.add(store);
        return store;
    }

    /** The temporary store's growth from staging 50 writes of ~110 bytes (then committed and read back). */
    private static long temporaryStoreGrowth(TxnKeyValueStore store) {
        long before = temporaryStoreBytes(store);
        for (int i = 0; i < 50; i++) {
            store.put(key(String.format("key-%04d", i)), new byte[100]);
        }
        long growth = temporaryStoreBytes(store) - before;
        store.put(key("last"), "v".getBytes());
        store.commit(Map.of(CHANGELOG, 1L));
        assertEquals("v", string(store.get(key("last"))), "the spill size changes where writes wait, not what commits");
        return growth;
    }

    private static long temporaryStoreBytes(TxnKeyValueStore store) {
        return StoreStatistic.TEMPORARY_STORE_BYTES.of(
                NativeStoreStatistics.read(store.core().store()));
    }

    @Test
    void zeroSpillsEveryWriteAtOnceAndTheDefaultKeepsASmallTransactionInMemory() {
        assertTrue(
                temporaryStoreGrowth(open("zero", secondaryStore().config(KEY, 0L))) >= 50 * 100,
                "spill bytes 0: the writes are in the temporary store");
        assertEquals(
                0,
                temporaryStoreGrowth(open("default", secondaryStore())),
                "the default 16 MiB: nothing reached the temporary store");
        assertEquals(
                0,
                temporaryStoreGrowth(open("large", secondaryStore().config(KEY, "1048576"))),
                "1 MiB, as a string: nothing reached the temporary store");
    }

    @Test
    void thePerStoreFormOverridesTheKeyForThatStoreOnly() {
        TestStateStoreContext context = secondaryStore()
                .config(KEY, 0L)
                .config(TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_STORE_PREFIX + "roomy", "16777216");
        assertEquals(0, temporaryStoreGrowth(open("roomy", context)), "its own 16 MiB");
        assertTrue(temporaryStoreGrowth(open("other", context)) >= 50 * 100, "the application's 0");
    }

    @Test
    void indexedBatchIgnoresIt() {
        TestStateStoreContext context = new TestStateStoreContext(dir.toFile()).config(KEY, 0L);
        TxnKeyValueStore store = open("indexed", context);
        assertEquals(TransactionStrategy.INDEXED_BATCH, store.transactionStrategy());
        assertEquals(0, temporaryStoreGrowth(store));
    }

    @Test
    void aStoresOwnStrategyTakesTheConfiguredSpillSize() {
        TestStateStoreContext context = new TestStateStoreContext(dir.toFile()).config(KEY, 0L);
        TxnKeyValueStore store = new TxnKeyValueStore("own", true, TransactionStrategy.SECONDARY_STORE);
        store.init(context, store);
        opened.add(store);
        assertTrue(temporaryStoreGrowth(store) >= 50 * 100);
    }

    @Test
    void aNegativeValueFailsInitNamingTheKey() {
        for (String key : List.of(KEY, TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_STORE_PREFIX + "bad")) {
            TxnKeyValueStore store = new TxnKeyValueStore("bad", true);
            ConfigException e = assertThrows(
                    ConfigException.class, () -> store.init(secondaryStore().config(key, -1L), store));
            assertEquals("Invalid value -1 for configuration " + key + ": Value must be at least 0", e.getMessage());
            assertFalse(store.isOpen());
            assertFalse(Files.exists(dir.resolve("bad")), "nothing is created before the settings are read");
        }
    }
}
