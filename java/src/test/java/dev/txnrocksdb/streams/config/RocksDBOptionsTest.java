package dev.txnrocksdb.streams.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.fixtures.StoreFixture;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import dev.txnrocksdb.streams.internals.nativeapi.NativeStoreStatistics;
import dev.txnrocksdb.streams.internals.nativeapi.StoreStatistic;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code txn.rocksdb.options} and {@code txn.rocksdb.options.<store>} reach the store's RocksDB; forbidden ones fail init. */
class RocksDBOptionsTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("tuned-changelog", 0);

    @TempDir
    Path dir;

    private static long liveSstBytesAfterWriting(TxnKeyValueStore store) throws InterruptedException {
        byte[] value = new byte[1000];
        for (int i = 0; i < 3000; i++) {
            store.put(Bytes.wrap(String.format("key-%06d", i).getBytes(StandardCharsets.UTF_8)), value);
            if (i % 100 == 99) {
                store.commit(Map.of(CHANGELOG, (long) i));
            }
        }
        long sst = 0;
        for (int attempt = 0; attempt < 100 && sst == 0; attempt++) {
            Thread.sleep(50); // flushes run in the background
            sst = StoreStatistic.LIVE_SST_FILES_SIZE.of(
                    NativeStoreStatistics.read(store.core().store()));
        }
        return sst;
    }

    @Test
    void aStoresOwnOptionsApplyToItAlone() throws Exception {
        TestStateStoreContext context = new TestStateStoreContext(dir.toFile())
                .config(TxnRocksDBConfig.ROCKSDB_OPTIONS_CONFIG, "max_write_buffer_number=2")
                .config(TxnRocksDBConfig.ROCKSDB_OPTIONS_STORE_PREFIX + "write-heavy", "write_buffer_size=262144");
        TxnKeyValueStore tuned = StoreFixture.open(new TxnKeyValueStore("write-heavy", true), context);
        TxnKeyValueStore other = StoreFixture.open(new TxnKeyValueStore("other", true), context);
        try {
            assertTrue(liveSstBytesAfterWriting(tuned) > 0, "3 MB through 256 KiB memtables reach SST files");
            assertEquals(0, liveSstBytesAfterWriting(other), "the other store keeps the default 16 MiB memtables");
        } finally {
            tuned.close();
            other.close();
        }
    }

    /**
     * Two applications in one JVM, each with a store named "counts" and its own
     * {@code txn.rocksdb.options.counts}, both open at once: each store gets its application's
     * options. They travel with each store's open ({@code OpenOptions}); until 2026-12 they went
     * through a process-wide table by store name, filled just before each open, so two stream
     * threads opening stores of the same name at the same time could each get the other's.
     */
    @Test
    void twoApplicationsWithTheSameStoreNameEachGetTheirOwnOptions() throws Exception {
        TestStateStoreContext small = new TestStateStoreContext(
                        dir.resolve("app-small").toFile())
                .config(TxnRocksDBConfig.ROCKSDB_OPTIONS_STORE_PREFIX + "counts", "write_buffer_size=262144");
        TestStateStoreContext large = new TestStateStoreContext(
                        dir.resolve("app-large").toFile())
                .config(TxnRocksDBConfig.ROCKSDB_OPTIONS_STORE_PREFIX + "counts", "write_buffer_size=67108864");
        TxnKeyValueStore first = new TxnKeyValueStore("counts", true);
        TxnKeyValueStore second = new TxnKeyValueStore("counts", true);
        // init both before either writes
        StoreFixture.open(first, small);
        StoreFixture.open(second, large);
        try {
            assertTrue(liveSstBytesAfterWriting(first) > 0, "the first application's 256 KiB memtables flush");
            assertEquals(0, liveSstBytesAfterWriting(second), "the second application's 64 MiB memtables do not");
        } finally {
            first.close();
            second.close();
        }
    }

    @Test
    void anOptionCorrectnessDependsOnFailsTheStoresInit() {
        TestStateStoreContext context = new TestStateStoreContext(dir.toFile())
                .config(TxnRocksDBConfig.ROCKSDB_OPTIONS_CONFIG, "manual_wal_flush=false");
        TxnKeyValueStore store = new TxnKeyValueStore("refused", true);
        ConfigException e = assertThrows(ConfigException.class, () -> store.init(context, store));
        assertTrue(e.getMessage().contains("'manual_wal_flush' cannot be changed"), e.getMessage());
        assertFalse(store.isOpen());
    }
}
