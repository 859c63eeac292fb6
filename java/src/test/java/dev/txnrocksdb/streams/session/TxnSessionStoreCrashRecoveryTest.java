package dev.txnrocksdb.streams.session;

import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.PER_SEGMENT;
import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.RETENTION;
import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.SEGMENTS;
import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.SEGMENT_INTERVAL;
import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.key;
import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.time;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.string;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.fixtures.SegmentedCrash;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.TxnSessionStore;
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

/** As {@link TxnWindowStoreCrashRecoveryTest}, for session stores. */
class TxnSessionStoreCrashRecoveryTest {
    private static final long OFFSET = 778L;

    @TempDir
    Path stateDir;

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void killDashNineKeepsTheCommittedSegmentsAndDropsStagedWrites(TransactionStrategy strategy) throws Exception {
        SegmentedCrash.runAndKill("session", stateDir, "crash-session", OFFSET, strategy);

        TxnSessionStore store = new TxnSessionStore("crash-session", RETENTION, SEGMENT_INTERVAL, true, strategy);
        store.init(new TestStateStoreContext(stateDir.toFile()), store);
        try {
            assertEquals(OFFSET, store.committedOffset(new TopicPartition("crash-session-changelog", 0)));
            List<String> expected = new ArrayList<>();
            for (int s = 0; s < SEGMENTS; s++) {
                for (int i = 0; i < PER_SEGMENT; i++) {
                    expected.add("k" + i + "@" + (time(s, i) - 5) + "-" + time(s, i) + "=v" + s + "-" + i);
                }
            }
            List<String> actual = new ArrayList<>();
            try (KeyValueIterator<Windowed<Bytes>, byte[]> all = store.fetch(null, null)) {
                while (all.hasNext()) {
                    KeyValue<Windowed<Bytes>, byte[]> kv = all.next();
                    actual.add(string(kv.key.key().get()) + "@"
                            + kv.key.window().start() + "-" + kv.key.window().end() + "=" + string(kv.value));
                }
            }
            expected.sort(null);
            actual.sort(null);
            assertEquals(expected, actual);
            assertEquals("v1-1", string(store.fetchSession(key("k1"), time(1, 1) - 5, time(1, 1))));
            assertEquals(0L, store.approximateNumUncommittedBytes());
        } finally {
            store.close();
        }
    }
}
