package dev.txnrocksdb.streams.crash;

import static dev.txnrocksdb.streams.fixtures.StoreFixture.key;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.string;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.fixtures.CopyProbe;
import dev.txnrocksdb.streams.fixtures.StoreFixture;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.query.Position;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A secondary-store commit that fails after its copy began (its first copy write stores the
 * commit record) is decided: the store refuses writes and reports the offset of the last complete
 * commit until the commit is rolled forward, which reopening the store does (the failure here
 * stops RocksDB for good, so {@code recover} cannot), with the offset and the position that commit
 * wrote. The engine's own test, {@code rust/core/tests/interrupted_commit.rs}, fails commits at each
 * step in-process and rolls them forward with {@code recover}.
 *
 * <p>The failure is real: before the commit the test makes the store's directory immutable
 * ({@code chattr +i}), so RocksDB cannot create the files a memtable switch needs; with 8 MiB
 * memtables that happens at the third of the copy's 4 MiB writes, and RocksDB stops writing with
 * EPERM. Skipped where {@code chattr} cannot do that (no chattr, not root, or a file system without
 * the attribute).
 */
class SecondaryStoreFailedCommitTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("failing-changelog", 0);
    private static final int BIG_COUNT = 60_000;
    private static final int VALUE_BYTES = 1_000;

    @TempDir
    Path stateDir;

    private TxnKeyValueStore store;
    private Path storeDir;

    @AfterEach
    void tearDown() throws Exception {
        if (storeDir != null) {
            chattr("-i", storeDir);
        }
        if (store != null) {
            store.close();
        }
    }

    private static boolean chattr(String flag, Path file) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("chattr", flag, file.toString())
                .redirectErrorStream(true)
                .start();
        p.getInputStream().readAllBytes();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    private static boolean immutableFilesWork(Path dir) throws InterruptedException {
        try {
            Path probe = Files.writeString(dir.resolve("chattr-probe"), "x");
            if (!chattr("+i", probe)) {
                return false;
            }
            boolean blocked;
            try {
                Files.delete(probe);
                blocked = false;
            } catch (IOException expected) {
                blocked = true;
            }
            chattr("-i", probe);
            Files.deleteIfExists(probe);
            return blocked;
        } catch (IOException noChattr) {
            return false;
        }
    }

    @Test
    void aFailedCommitIsRefusedUntilReopeningRollsItForward() throws Exception {
        assumeTrue(immutableFilesWork(stateDir), "chattr +i is not available here");
        TestStateStoreContext context = new TestStateStoreContext(stateDir.toFile())
                .config(TxnRocksDBConfig.ROCKSDB_OPTIONS_STORE_PREFIX + "failing", "write_buffer_size=8388608");
        store = StoreFixture.open(new TxnKeyValueStore("failing", true, TransactionStrategy.SECONDARY_STORE), context);
        storeDir = stateDir.resolve("failing");
        context.processing("input", 0, 4L);
        store.put(key("base"), value("old"));
        store.commit(Map.of(CHANGELOG, 10L));
        context.processing("input", 0, 5L);

        List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>();
        for (int i = 0; i < BIG_COUNT; i++) {
            batch.add(KeyValue.pair(key(String.format("big-%06d", i)), new byte[VALUE_BYTES]));
            if (batch.size() == 1_000) {
                store.putAll(batch);
                batch.clear();
            }
        }
        store.put(key("base"), value("new"));

        // Let the memtable flushes the staging started finish, so that the copy's first write (its
        // commit record) usually lands before RocksDB needs a new file; whether it did is read from
        // the WAL below, and each outcome is checked.
        Thread.sleep(1_000);
        assertTrue(chattr("+i", storeDir));
        ProcessorStateException failed = assertThrows(
                ProcessorStateException.class,
                () -> store.commit(Map.of(CHANGELOG, 20L)),
                "the commit's copy could not fill its memtables");
        assertTrue(failed.getMessage().contains("Operation not permitted"), failed.getMessage());

        // Decided but not finished: no writes until it is rolled forward.
        ProcessorStateException refused =
                assertThrows(ProcessorStateException.class, () -> store.put(key("other"), value("x")));
        assertTrue(refused.getMessage().contains("failed half-way"), refused.getMessage());
        assertEquals(10L, store.committedOffset(CHANGELOG), "the failed commit is not reported as committed");

        // RocksDB stopped on a WAL file it could not create: with its WAL buffered (manual WAL
        // flush) that error is fatal to the open instance, so recover fails, even once the
        // directory is writable again, and says why; Kafka Streams then closes the task's stores
        // and reopens them, which is what completes the decided commit.
        assertThrows(ProcessorStateException.class, () -> store.recover(0L));
        assertTrue(chattr("-i", storeDir));
        ProcessorStateException stopped = assertThrows(ProcessorStateException.class, () -> store.recover(0L));
        assertTrue(stopped.getMessage().contains("Operation not permitted"), stopped.getMessage());
        store.close();
        boolean decided = new CopyProbe(storeDir).commitRecordWritten();
        System.out.println("the failed commit's record " + (decided ? "reached" : "did not reach") + " the WAL");
        store = StoreFixture.open(
                new TxnKeyValueStore("failing", true, TransactionStrategy.SECONDARY_STORE),
                new TestStateStoreContext(stateDir.toFile()));
        if (!decided) {
            // the copy failed at its first write: nothing of the commit is there
            assertEquals(10L, store.committedOffset(CHANGELOG));
            assertEquals("old", string(store.get(key("base"))));
            assertNull(store.get(key("big-000000")));
            return;
        }
        assertEquals(20L, store.committedOffset(CHANGELOG), "reopening rolls the decided commit forward");
        Position rolledForward = Position.fromMap(Map.of("input", Map.of(0, 5L)));
        assertEquals(rolledForward, store.getPosition(), "the position committed with it is back too");
        assertEquals("new", string(store.get(key("base"))));
        assertEquals("new", string(store.readOnly(IsolationLevel.READ_COMMITTED).get(key("base"))));
        assertEquals(VALUE_BYTES, store.get(key(String.format("big-%06d", BIG_COUNT - 1))).length);
        assertEquals(0L, store.approximateNumUncommittedBytes());

        // Usable again, and the roll-forward is durable.
        store.put(key("other"), value("x"));
        store.commit(Map.of(CHANGELOG, 30L));
        store.close();
        store = StoreFixture.open(
                new TxnKeyValueStore("failing", true, TransactionStrategy.SECONDARY_STORE),
                new TestStateStoreContext(stateDir.toFile()));
        assertEquals(30L, store.committedOffset(CHANGELOG));
        assertEquals(rolledForward, store.getPosition());
        assertEquals("new", string(store.get(key("base"))));
        assertEquals("x", string(store.get(key("other"))));
        assertEquals(new byte[VALUE_BYTES].length, store.get(key("big-000000")).length);
        assertNull(store.get(key("never")));
    }
}
