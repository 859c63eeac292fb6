package dev.txnrocksdb.streams.window;

import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.PER_SEGMENT;
import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.RETENTION;
import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.SEGMENTS;
import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.SEGMENT_INTERVAL;
import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.key;
import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.time;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.children.SegmentedCrashWriterMain;
import dev.txnrocksdb.streams.fixtures.SegmentedCrash;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.TxnWindowStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * kill -9 of a process with staged window writes after a commit that touched several segments:
 * on reopen, exactly the committed windows of every segment are there (the staged expiry of the
 * old segments, the overwrite, the delete and the new windows are gone), under either transaction
 * strategy.
 */
class TxnWindowStoreCrashRecoveryTest {
    private static final long OFFSET = 777L;

    @TempDir
    Path stateDir;

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void killDashNineKeepsTheCommittedSegmentsAndDropsStagedWrites(TransactionStrategy strategy) throws Exception {
        SegmentedCrash.runAndKill("window", stateDir, "crash-window", OFFSET, strategy);

        TxnWindowStore store =
                new TxnWindowStore("crash-window", RETENTION, SEGMENT_INTERVAL, 10L, false, true, strategy);
        store.init(new TestStateStoreContext(stateDir.toFile()), store);
        try {
            assertEquals(OFFSET, store.committedOffset(new TopicPartition("crash-window-changelog", 0)));
            List<String> expected = new ArrayList<>();
            for (int s = 0; s < SEGMENTS; s++) {
                for (int i = 0; i < PER_SEGMENT; i++) {
                    expected.add("k" + i + "@" + time(s, i) + "=v" + s + "-" + i);
                }
            }
            List<String> actual = new ArrayList<>();
            try (KeyValueIterator<Windowed<Bytes>, byte[]> all = store.all()) {
                while (all.hasNext()) {
                    KeyValue<Windowed<Bytes>, byte[]> kv = all.next();
                    actual.add(
                            string(kv.key.key().get()) + "@" + kv.key.window().start() + "=" + string(kv.value));
                }
            }
            expected.sort(null);
            actual.sort(null);
            assertEquals(expected, actual);
            assertEquals("v0-0", string(store.fetch(key("k0"), time(0, 0))));
            assertNull(store.fetch(key("far"), SegmentedCrashWriterMain.FAR_AHEAD));
            assertEquals(0L, store.approximateNumUncommittedBytes());
        } finally {
            store.close();
        }
    }
}
