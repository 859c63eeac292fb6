package dev.txnrocksdb.streams.session;

import static dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture.toList;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.key;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.string;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.value;
import static java.time.Duration.ofMillis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnStores;
import dev.txnrocksdb.streams.fixtures.SegmentedStoreTestContext;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.TxnSessionStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.WindowRangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlySessionStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.internals.WithRetentionPeriod;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Transactions on session stores: staged versus committed sessions, commits spanning several
 * segments, reopen, {@code READ_COMMITTED} views and IQv2, the emit-final time-range read, and
 * Kafka's caching layer.
 */
class TxnSessionStoreCommitTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("test-app-session-changelog", 0);
    private static final long RETENTION = 300_000L;
    private static final long SEGMENT = 150_000L;

    @TempDir
    Path dir;

    private TxnSessionStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private TxnSessionStore reopen(boolean transactional) {
        if (store != null) {
            store.close();
        }
        store = new TxnSessionStore("session", RETENTION, SEGMENT, transactional);
        store.init(new TestStateStoreContext(dir.toFile()), store);
        return store;
    }

    private TxnSessionStore reopen(TransactionStrategy strategy) {
        if (store != null) {
            store.close();
        }
        store = new TxnSessionStore("session", RETENTION, SEGMENT, true, strategy);
        store.init(new TestStateStoreContext(dir.toFile()), store);
        assertEquals(strategy, store.transactionStrategy());
        return store;
    }

    private static Windowed<Bytes> session(String key, long start, long end) {
        return new Windowed<>(key(key), new SessionWindow(start, end));
    }

    private static List<String> sessions(KeyValueIterator<Windowed<Bytes>, byte[]> iterator) {
        return toList(iterator).stream()
                .map(kv -> string(kv.key.key().get()) + "@" + kv.key.window().start() + "-"
                        + kv.key.window().end() + "=" + string(kv.value))
                .collect(Collectors.toList());
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void commitSpanningSeveralSegmentsIsDurableAndUncommittedWritesAreDroppedOnReopen(TransactionStrategy strategy) {
        reopen(strategy);
        store.put(session("a", 100_000, 100_100), value("a0"));
        store.put(session("b", 150_000, 160_000), value("b1"));
        store.put(session("a", 305_000, 310_000), value("a2"));
        store.commit(Map.of(CHANGELOG, 9L));

        store.remove(session("b", 150_000, 160_000));
        store.put(session("a", 100_000, 100_100), null);
        store.put(session("c", 170_000, 170_000), value("c1"));
        assertEquals(List.of("c@170000-170000=c1", "a@305000-310000=a2"), sessions(store.fetch(null, null)));

        reopen(strategy);
        assertEquals(9L, store.committedOffset(CHANGELOG));
        assertEquals(
                List.of("a@100000-100100=a0", "b@150000-160000=b1", "a@305000-310000=a2"),
                sessions(store.fetch(null, null)));
        assertEquals("b1", string(store.fetchSession(key("b"), 150_000, 160_000)));
        assertNull(store.fetchSession(key("c"), 170_000, 170_000));
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void readCommittedViewSeesOnlyCommittedSessions(TransactionStrategy strategy) {
        reopen(strategy);
        store.put(session("a", 0, 10), value("a0"));
        store.commit(Map.of(CHANGELOG, 1L));
        store.put(session("a", 20, 30), value("a1"));
        store.put(session("b", 5, 40), value("b0"));

        ReadOnlySessionStore<Bytes, byte[]> committed = store.readOnly(IsolationLevel.READ_COMMITTED);
        assertSame(store, store.readOnly(IsolationLevel.READ_UNCOMMITTED));
        assertEquals(List.of("a@0-10=a0"), sessions(committed.fetch(key("a"))));
        assertEquals(List.of("a@0-10=a0"), sessions(committed.backwardFetch(key("a"))));
        assertEquals(List.of("a@0-10=a0"), sessions(committed.fetch(key("a"), key("b"))));
        assertEquals(List.of("a@0-10=a0"), sessions(committed.backwardFetch(key("a"), key("b"))));
        assertEquals(List.of("a@0-10=a0"), sessions(committed.findSessions(key("a"), 0, 100)));
        assertEquals(List.of("a@0-10=a0"), sessions(committed.backwardFindSessions(key("a"), 0, 100)));
        assertEquals(List.of("a@0-10=a0"), sessions(committed.findSessions(key("a"), key("b"), 0, 100)));
        assertEquals(List.of("a@0-10=a0"), sessions(committed.backwardFindSessions(key("a"), key("b"), 0, 100)));
        assertEquals(
                List.of("a@0-10=a0"),
                sessions(committed.findSessions(key("a"), Instant.ofEpochMilli(0), Instant.ofEpochMilli(100))));
        assertEquals(
                List.of("a@0-10=a0"),
                sessions(committed.backwardFindSessions(
                        key("a"), key("b"), Instant.ofEpochMilli(0), Instant.ofEpochMilli(100))));
        assertEquals("a0", string(committed.fetchSession(key("a"), 0, 10)));
        assertEquals("a0", string(committed.fetchSession(key("a"), Instant.ofEpochMilli(0), Instant.ofEpochMilli(10))));
        assertNull(committed.fetchSession(key("a"), 20, 30));
        assertEquals("a1", string(store.fetchSession(key("a"), 20, 30)));

        // IQv2 through StoreQueryUtils reads the view of the query's isolation level.
        QueryResult<KeyValueIterator<Windowed<Bytes>, byte[]>> result = store.query(
                WindowRangeQuery.withKey(key("a")),
                PositionBound.unbounded(),
                new QueryConfig(false, IsolationLevel.READ_COMMITTED));
        assertTrue(result.isSuccess(), result::toString);
        assertEquals(List.of("a@0-10=a0"), sessions(result.getResult()));
        result = store.query(
                WindowRangeQuery.withKey(key("a")),
                PositionBound.unbounded(),
                new QueryConfig(false, IsolationLevel.READ_UNCOMMITTED));
        assertEquals(List.of("a@0-10=a0", "a@20-30=a1"), sessions(result.getResult()));

        store.commit(Map.of(CHANGELOG, 2L));
        assertEquals(List.of("a@0-10=a0", "a@20-30=a1"), sessions(committed.fetch(key("a"))));
    }

    @Test
    void timeRangeReadForEmitFinalSkipsExpiredSegmentsButNotTheRetentionFilter() {
        store = new TxnSessionStore("session", 5_000L, 60_000L, true, true);
        store.init(new TestStateStoreContext(dir.toFile()), store);
        store.put(session("a", 10, 10), value("a"));
        store.put(session("b", 100, 100), value("b"));
        // Stream time 100: reads of keys hide sessions ending before 100 - 5000 + 1 ...
        store.put(session("c", 9_000, 9_000), value("c"));
        assertEquals(List.of(), sessions(store.findSessions(key("a"), 0, Long.MAX_VALUE)));
        // ... but the emit-final read, like Kafka's time-ordered session store, returns what its
        // live segments hold, ordered by (end, start, key).
        assertEquals(List.of("a@10-10=a", "b@100-100=b"), sessions(store.findSessions(0L, 8_999L)));
        // Once stream time expires segment 0, its sessions are gone (the native drop is staged
        // until commit; the read must not see them anyway).
        store.put(session("d", 70_000, 70_000), value("d"));
        assertEquals(List.of("d@70000-70000=d"), sessions(store.findSessions(0L, 80_000L)));
        store.commit(Map.of(CHANGELOG, 1L));
        assertEquals(List.of("d@70000-70000=d"), sessions(store.findSessions(0L, 80_000L)));
        assertEquals(List.of(), sessions(store.findSessions(80_000L, 0L)));
    }

    @Test
    void reportsItsRetentionPeriodToKafkasRestore() {
        SessionStore<String, Long> built = Stores.sessionStoreBuilder(
                        TxnStores.persistentTransactionalSessionStore("session", ofMillis(RETENTION)),
                        Serdes.String(),
                        Serdes.Long())
                .build();
        assertEquals(RETENTION, WithRetentionPeriod.resolveRetentionPeriod(built));
    }

    @Test
    void cachingLayerMergesWithTheStore() {
        SegmentedStoreTestContext context = new SegmentedStoreTestContext(dir.toFile(), 1_000_000L, new Properties());
        SessionStore<String, String> cached = Stores.sessionStoreBuilder(
                        TxnStores.persistentTransactionalSessionStore("session", ofMillis(RETENTION)),
                        Serdes.String(),
                        Serdes.String())
                .withCachingEnabled()
                .build();
        cached.init((StateStoreContext) context, cached);
        try {
            cached.put(new Windowed<>("b", new SessionWindow(150_000, 160_000)), "b1");
            cached.put(new Windowed<>("a", new SessionWindow(100_000, 100_100)), "a0");
            cached.commit(Map.of(CHANGELOG, 1L));
            cached.put(new Windowed<>("a", new SessionWindow(305_000, 310_000)), "a2");
            cached.put(new Windowed<>("c", new SessionWindow(100_000, 100_200)), "c0");
            cached.remove(new Windowed<>("b", new SessionWindow(150_000, 160_000)));
            List<String> all = toList(cached.fetch("a", "c")).stream()
                    .map(kv -> kv.key.key() + "@" + kv.key.window().end() + "=" + kv.value)
                    .collect(Collectors.toList());
            assertEquals(List.of("a@100100=a0", "c@100200=c0", "a@310000=a2"), all);
            cached.commit(Map.of(CHANGELOG, 2L));
            assertEquals(
                    all,
                    toList(cached.readOnly(IsolationLevel.READ_COMMITTED).fetch("a", "c")).stream()
                            .map(kv -> kv.key.key() + "@" + kv.key.window().end() + "=" + kv.value)
                            .collect(Collectors.toList()));
        } finally {
            cached.close();
        }
    }
}
