package dev.txnrocksdb.streams;

import static dev.txnrocksdb.streams.StoreFixture.key;
import static dev.txnrocksdb.streams.StoreFixture.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kill -9 of a process with staged writes: on reopen, exactly the committed state is there. */
class CrashRecoveryTest {
    private static final int COMMITTED = 2_000;
    private static final int UNCOMMITTED = 500;
    private static final long OFFSET = 4_242L;

    @TempDir
    Path stateDir;

    @Test
    void killDashNineKeepsCommittedDataAndDropsStagedWrites() throws Exception {
        ChildJvm.runUntilReadyThenKill(CrashWriterMain.class, CrashWriterMain.READY, stateDir.toString(), "crash-store",
            Integer.toString(COMMITTED), Integer.toString(UNCOMMITTED), Long.toString(OFFSET));

        TxnKeyValueStore store = StoreFixture.open(new TxnKeyValueStore("crash-store", true),
            new TestStateStoreContext(stateDir.toFile()));
        try {
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
