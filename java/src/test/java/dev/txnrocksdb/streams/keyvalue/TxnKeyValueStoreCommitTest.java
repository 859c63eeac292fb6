package dev.txnrocksdb.streams.keyvalue;

import static dev.txnrocksdb.streams.fixtures.StoreFixture.drain;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.key;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.string;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.fixtures.StoreFixture;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Staged versus committed data, commit with offsets, and what survives a reopen. */
class TxnKeyValueStoreCommitTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("app-store-changelog", 0);
    private static final TopicPartition OTHER = new TopicPartition("app-other-changelog", 3);

    @TempDir
    Path dir;

    private TxnKeyValueStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private TxnKeyValueStore reopen(boolean transactional) {
        if (store != null) {
            store.close();
        }
        store = StoreFixture.open(dir, transactional);
        return store;
    }

    private TxnKeyValueStore reopen(TransactionStrategy strategy) {
        if (store != null) {
            store.close();
        }
        store = StoreFixture.open(
                new TxnKeyValueStore("store", true, strategy), new TestStateStoreContext(dir.toFile()));
        assertEquals(strategy, store.transactionStrategy());
        return store;
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void readCommittedViewSeesOnlyCommittedWrites(TransactionStrategy strategy) {
        reopen(strategy);
        store.put(key("a"), value("1"));
        store.put(key("b"), value("2"));
        ReadOnlyKeyValueStore<Bytes, byte[]> committed = store.readOnly(IsolationLevel.READ_COMMITTED);
        assertSame(store, store.readOnly(IsolationLevel.READ_UNCOMMITTED));
        assertNull(committed.get(key("a")));
        assertEquals(List.of(), drain(committed.all()));

        store.commit(Map.of(CHANGELOG, 10L));
        assertEquals("1", string(committed.get(key("a"))));
        assertEquals(List.of("a=1", "b=2"), drain(committed.all()));

        store.put(key("a"), value("staged"));
        store.delete(key("b"));
        store.put(key("c"), value("3"));
        assertEquals(List.of("a=1", "b=2"), drain(committed.all()));
        assertEquals(List.of("b=2", "a=1"), drain(committed.reverseAll()));
        assertEquals(List.of("a=1", "b=2"), drain(committed.range(key("a"), key("c"))));
        assertEquals(List.of("b=2", "a=1"), drain(committed.reverseRange(null, null)));
        assertEquals(List.of("a=1"), drain(committed.prefixScan("a", new StringSerializer())));
        assertEquals("2", string(committed.get(key("b"))));
        assertEquals(List.of("a=staged", "c=3"), drain(store.all()));
    }

    @Test
    void writeThroughStoreMakesEveryWriteCommittedAtOnce() {
        reopen(false);
        assertEquals(false, store.transactional());
        store.put(key("a"), value("1"));
        assertEquals("1", string(store.readOnly(IsolationLevel.READ_COMMITTED).get(key("a"))));
        assertEquals(0L, store.approximateNumUncommittedBytes());
        reopen(false);
        assertEquals("1", string(store.get(key("a"))));
        assertNull(store.committedOffset(CHANGELOG));
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void uncommittedBytesGrowWithWritesAndResetAtCommit(TransactionStrategy strategy) {
        reopen(strategy);
        assertEquals(true, store.transactional());
        assertEquals(0L, store.approximateNumUncommittedBytes());
        store.put(key("a"), new byte[1000]);
        long afterOne = store.approximateNumUncommittedBytes();
        assertTrue(afterOne >= 1000, "uncommitted bytes " + afterOne);
        store.put(key("b"), new byte[1000]);
        assertTrue(store.approximateNumUncommittedBytes() > afterOne);
        store.commit(Map.of());
        assertEquals(0L, store.approximateNumUncommittedBytes());
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void commitRecordsOffsetsWithKafkaSemantics(TransactionStrategy strategy) {
        reopen(strategy);
        assertNull(store.committedOffset(CHANGELOG));

        Map<TopicPartition, Long> both = new HashMap<>();
        both.put(CHANGELOG, 5L);
        both.put(OTHER, 7L);
        store.commit(both);
        assertEquals(5L, store.committedOffset(CHANGELOG));
        assertEquals(7L, store.committedOffset(OTHER));

        Map<TopicPartition, Long> removeOne = new HashMap<>();
        removeOne.put(CHANGELOG, null);
        store.commit(removeOne);
        assertNull(store.committedOffset(CHANGELOG));
        assertEquals(7L, store.committedOffset(OTHER));

        store.commit(Map.of(CHANGELOG, -4L));
        assertEquals(-4L, store.committedOffset(CHANGELOG));
        assertEquals(7L, store.committedOffset(OTHER));

        reopen(strategy);
        assertEquals(-4L, store.committedOffset(CHANGELOG));
        assertEquals(7L, store.committedOffset(OTHER));

        store.commit(Map.of());
        assertNull(store.committedOffset(CHANGELOG));
        assertNull(store.committedOffset(OTHER));
        reopen(strategy);
        assertNull(store.committedOffset(CHANGELOG));
        assertNull(store.committedOffset(OTHER));
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void reopenWithoutCommitLosesUncommittedWritesOnly(TransactionStrategy strategy) {
        reopen(strategy);
        store.put(key("kept"), value("1"));
        store.put(key("overwritten"), value("old"));
        store.put(key("deleted"), value("x"));
        store.commit(Map.of(CHANGELOG, 100L));

        store.put(key("lost"), value("2"));
        store.put(key("overwritten"), value("new"));
        store.delete(key("deleted"));
        store.putAll(List.of(org.apache.kafka.streams.KeyValue.pair(key("lost2"), value("3"))));
        reopen(strategy);

        assertEquals(List.of("deleted=x", "kept=1", "overwritten=old"), drain(store.all()));
        assertEquals(100L, store.committedOffset(CHANGELOG));
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void commitAfterReopenKeepsEarlierCommits(TransactionStrategy strategy) {
        reopen(strategy);
        store.put(key("a"), value("1"));
        store.commit(Map.of(CHANGELOG, 1L));
        reopen(strategy);
        store.put(key("b"), value("2"));
        store.commit(Map.of(CHANGELOG, 2L));
        reopen(strategy);
        assertEquals(List.of("a=1", "b=2"), drain(store.all()));
        assertEquals(2L, store.committedOffset(CHANGELOG));
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void kip844CommitUsesTheKnownChangelogPartition(TransactionStrategy strategy) {
        reopen(strategy);
        store.put(key("a"), value("1"));
        // No partition known yet: the data commits, offsets stay as they are (none).
        store.commit(42L);
        assertEquals("1", string(store.readOnly(IsolationLevel.READ_COMMITTED).get(key("a"))));
        assertNull(store.committedOffset(CHANGELOG));

        store.commit(Map.of(CHANGELOG, 50L));
        store.put(key("b"), value("2"));
        store.commit(60L);
        assertEquals(60L, store.committedOffset(CHANGELOG));
        assertEquals("2", string(store.readOnly(IsolationLevel.READ_COMMITTED).get(key("b"))));

        store.put(key("c"), value("3"));
        store.commit((Long) null);
        assertEquals(60L, store.committedOffset(CHANGELOG));
        assertEquals("3", string(store.readOnly(IsolationLevel.READ_COMMITTED).get(key("c"))));

        reopen(strategy);
        store.put(key("d"), value("4"));
        store.commit(70L);
        assertEquals(70L, store.committedOffset(CHANGELOG));
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void kip844CommitWithUnknownPartitionKeepsSeveralOffsets(TransactionStrategy strategy) {
        reopen(strategy);
        Map<TopicPartition, Long> both = new HashMap<>();
        both.put(CHANGELOG, 5L);
        both.put(OTHER, 7L);
        store.commit(both);
        store.put(key("a"), value("1"));
        store.commit(99L);
        assertEquals(5L, store.committedOffset(CHANGELOG));
        assertEquals(7L, store.committedOffset(OTHER));
        assertEquals("1", string(store.readOnly(IsolationLevel.READ_COMMITTED).get(key("a"))));
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void kip844RecoverDropsUncommittedWritesAndReturnsTheCommittedOffset(TransactionStrategy strategy) {
        reopen(strategy);
        store.put(key("a"), value("1"));
        assertEquals(17L, store.recover(17L));
        assertNull(store.get(key("a")));

        store.put(key("a"), value("1"));
        store.commit(Map.of(CHANGELOG, 30L));
        store.put(key("b"), value("2"));
        assertEquals(30L, store.recover(0L));
        assertEquals(List.of("a=1"), drain(store.all()));
        assertEquals(0L, store.approximateNumUncommittedBytes());
    }
}
