package dev.txnrocksdb.streams.crash;

import static dev.txnrocksdb.streams.children.CommitCrashWriterMain.BASE;
import static dev.txnrocksdb.streams.children.CommitCrashWriterMain.BASE_OFFSET;
import static dev.txnrocksdb.streams.children.CommitCrashWriterMain.BIG_OFFSET;
import static dev.txnrocksdb.streams.children.CommitCrashWriterMain.DELETED;
import static dev.txnrocksdb.streams.children.CommitCrashWriterMain.OVERWRITTEN;
import static dev.txnrocksdb.streams.children.CommitCrashWriterMain.baseKey;
import static dev.txnrocksdb.streams.children.CommitCrashWriterMain.bigKey;
import static dev.txnrocksdb.streams.children.CommitCrashWriterMain.bigValue;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.key;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.string;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.children.CommitCrashWriterMain;
import dev.txnrocksdb.streams.fixtures.ChildJvm;
import dev.txnrocksdb.streams.fixtures.CopyProbe;
import dev.txnrocksdb.streams.fixtures.StoreFixture;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * kill -9 in the middle of a large commit: on reopen the store holds the whole transaction or
 * none of it, matching its committed offset. Under secondary-store the child is killed as soon as
 * the commit's record is in the store's WAL file (the commit is then decided and copying is under
 * way; {@link CopyProbe} watches the file), so reopening must roll it forward, whichever strategy
 * reopens the store.
 */
class CommitCrashTest {
    private static final String STORE = "commit-crash";
    /** Under secondary-store 150 MB, so that the copy (some 40 writes) lasts long enough to be seen under way. */
    private static int bigCount(TransactionStrategy written) {
        return written == TransactionStrategy.SECONDARY_STORE ? 150_000 : 40_000;
    }

    private static final int VALUE_BYTES = 1_000;
    private static final TopicPartition CHANGELOG = new TopicPartition(STORE + "-changelog", 0);

    @TempDir
    Path stateDir;

    static Stream<Arguments> strategies() {
        return Stream.of(
                Arguments.of(TransactionStrategy.INDEXED_BATCH, TransactionStrategy.INDEXED_BATCH),
                Arguments.of(TransactionStrategy.SECONDARY_STORE, TransactionStrategy.SECONDARY_STORE),
                Arguments.of(TransactionStrategy.SECONDARY_STORE, TransactionStrategy.INDEXED_BATCH));
    }

    @ParameterizedTest(name = "written with {0}, reopened with {1}")
    @MethodSource("strategies")
    void killDashNineDuringALargeCommitLeavesAllOrNothing(TransactionStrategy written, TransactionStrategy reopened)
            throws Exception {
        // Under secondary-store the kill must fall while the copy is under way; a commit that ends
        // before the probe sees its record (a fast, quiet machine) proves nothing, so it is run
        // again in a fresh directory, up to 3 times, before the test fails.
        Path dir = stateDir;
        ChildJvm child = null;
        boolean copySeen = false;
        for (int attempt = 1; attempt <= 3; attempt++) {
            dir = stateDir.resolve("attempt-" + attempt);
            Path storeDir = dir.resolve(STORE);
            child = ChildJvm.start(
                    CommitCrashWriterMain.class,
                    dir.toString(),
                    STORE,
                    written.configName(),
                    Integer.toString(bigCount(written)),
                    Integer.toString(VALUE_BYTES));
            ChildJvm running = child;
            try {
                if (written != TransactionStrategy.SECONDARY_STORE) {
                    child.awaitLine(CommitCrashWriterMain.COMMITTING);
                    break;
                }
                // the probe reads the WAL from the start, as the transaction spills into it, so
                // that when the commit begins only its newest bytes are left to read
                CopyProbe probe = new CopyProbe(storeDir);
                boolean[] seen = {false};
                child.pollUntil(() -> (seen[0] = probe.commitRecordWritten())
                        || running.output().contains("COMMITTED"));
                copySeen = seen[0];
            } finally {
                child.killAndAssertSigkill();
            }
            if (copySeen) {
                break;
            }
            System.out.println("attempt " + attempt + ": the commit ended before its record was seen in the WAL: "
                    + child.output());
        }
        if (written == TransactionStrategy.SECONDARY_STORE) {
            assertTrue(
                    copySeen,
                    "the commit's record never reached the WAL while the copy was under way, in 3 attempts: "
                            + child.output());
        }

        Path storeDir = dir.resolve(STORE);
        TxnKeyValueStore store =
                StoreFixture.open(new TxnKeyValueStore(STORE, true, reopened), new TestStateStoreContext(dir.toFile()));
        try {
            assertFalse(Files.exists(storeDir.resolve("TXN-COMMIT")), "no commit file (before 2026-12 there was one)");
            Long offset = store.committedOffset(CHANGELOG);
            System.out.println("written with " + written + ", reopened with " + reopened + ": copy seen under way "
                    + copySeen + ", committed offset " + offset + "; child printed " + child.output());
            if (copySeen) {
                assertEquals(BIG_OFFSET, offset, "a commit whose copy began is rolled forward");
            }
            if (offset == BIG_OFFSET) {
                assertWholeTransaction(store, bigCount(written));
            } else {
                assertEquals(BASE_OFFSET, offset);
                assertNoTransaction(store);
            }
            assertEquals(0L, store.approximateNumUncommittedBytes());
        } finally {
            store.close();
        }
    }

    private static void assertWholeTransaction(TxnKeyValueStore store, int bigCount) {
        int big = 0;
        int base = 0;
        try (KeyValueIterator<Bytes, byte[]> all = store.all()) {
            while (all.hasNext()) {
                KeyValue<Bytes, byte[]> kv = all.next();
                String k = new String(kv.key.get(), StandardCharsets.UTF_8);
                if (k.startsWith("big-")) {
                    assertEquals(bigKey(big), k);
                    assertArrayEquals(bigValue(big, VALUE_BYTES), kv.value, k);
                    big++;
                } else {
                    base++;
                }
            }
        }
        assertEquals(bigCount, big);
        assertEquals(BASE - DELETED, base);
        assertEquals("overwritten", string(store.get(key(baseKey(0)))));
        assertEquals("overwritten", string(store.get(key(baseKey(OVERWRITTEN - 1)))));
        assertNull(store.get(key(baseKey(OVERWRITTEN))));
        assertNull(store.get(key(baseKey(OVERWRITTEN + DELETED - 1))));
        assertEquals("base-value-" + (BASE - 1), string(store.get(key(baseKey(BASE - 1)))));
    }

    private static void assertNoTransaction(TxnKeyValueStore store) {
        int count = 0;
        try (KeyValueIterator<Bytes, byte[]> all = store.all()) {
            while (all.hasNext()) {
                KeyValue<Bytes, byte[]> kv = all.next();
                assertEquals(baseKey(count), new String(kv.key.get(), StandardCharsets.UTF_8));
                assertEquals("base-value-" + count, string(kv.value));
                count++;
            }
        }
        assertEquals(BASE, count);
    }
}
