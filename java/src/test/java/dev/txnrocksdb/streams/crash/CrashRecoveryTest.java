package dev.txnrocksdb.streams.crash;

import static dev.txnrocksdb.streams.fixtures.StoreFixture.key;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.children.CrashWriterMain;
import dev.txnrocksdb.streams.fixtures.ChildJvm;
import dev.txnrocksdb.streams.fixtures.StoreFixture;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * kill -9 of a process with staged writes: on reopen, exactly the committed state is there, under
 * either transaction strategy (under secondary-store the staged writes were on disk, in the
 * temporary store, and opening throws them away).
 */
class CrashRecoveryTest {
    private static final int COMMITTED = 2_000;
    private static final int UNCOMMITTED = 500;
    private static final long OFFSET = 4_242L;

    @TempDir
    Path stateDir;

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void killDashNineKeepsCommittedDataAndDropsStagedWrites(TransactionStrategy strategy) throws Exception {
        ChildJvm.runUntilReadyThenKill(
                CrashWriterMain.class,
                CrashWriterMain.READY,
                stateDir.toString(),
                "crash-store",
                Integer.toString(COMMITTED),
                Integer.toString(UNCOMMITTED),
                Long.toString(OFFSET),
                strategy.configName());
        assertFalse(Files.exists(stateDir.resolve("crash-store").resolve("TXN-COMMIT")), "no commit was in flight");

        TxnKeyValueStore store = StoreFixture.open(
                new TxnKeyValueStore("crash-store", true, strategy), new TestStateStoreContext(stateDir.toFile()));
        try {
            assertEquals(strategy, store.transactionStrategy());
            assertEquals(OFFSET, store.committedOffset(new TopicPartition("crash-store-changelog", 0)));
            assertEquals("value-0", string(store.get(key("committed-0"))));
            assertEquals("value-1", string(store.get(key("committed-1"))));
            int count = 0;
            try (KeyValueIterator<Bytes, byte[]> all = store.all()) {
                while (all.hasNext()) {
                    String k = new String(all.next().key.get(), StandardCharsets.UTF_8);
                    assertTrue(k.startsWith("committed-"), "uncommitted key survived the crash: " + k);
                    count++;
                }
            }
            assertEquals(COMMITTED, count);
            assertNull(store.get(key("uncommitted-0")));
            assertEquals(0L, store.approximateNumUncommittedBytes());
        } finally {
            store.close();
        }
    }
}
