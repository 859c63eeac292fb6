package dev.txnrocksdb.streams.window;

import static dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture.toList;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.key;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.string;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.value;
import static java.time.Duration.ofMillis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnStores;
import dev.txnrocksdb.streams.fixtures.SegmentedStoreTestContext;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.TxnTimestampedWindowStore;
import dev.txnrocksdb.streams.internals.TxnWindowStore;
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
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.WindowKeyQuery;
import org.apache.kafka.streams.query.WindowRangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedWindowStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.apache.kafka.streams.state.internals.WithRetentionPeriod;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Transactions on window stores: staged versus committed windows, commits that span several
 * time segments, reopen and recovery, {@code READ_COMMITTED} views and IQv2 queries, offsets and
 * positions, and the store stacks Kafka's builders put around the store.
 */
public class TxnWindowStoreCommitTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("test-app-window-changelog", 0);
    private static final long RETENTION = 300_000L;
    private static final long SEGMENT = 150_000L;
    private static final long SIZE = 10L;

    @TempDir
    Path dir;

    private TxnWindowStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private TxnWindowStore reopen(boolean transactional) {
        if (store != null) {
            store.close();
        }
        store = new TxnWindowStore("window", RETENTION, SEGMENT, SIZE, false, transactional);
        store.init(new TestStateStoreContext(dir.toFile()), store);
        return store;
    }

    private TxnWindowStore reopen(TransactionStrategy strategy) {
        if (store != null) {
            store.close();
        }
        store = new TxnWindowStore("window", RETENTION, SEGMENT, SIZE, false, true, strategy);
        store.init(new TestStateStoreContext(dir.toFile()), store);
        assertEquals(strategy, store.transactionStrategy());
        return store;
    }

    private static List<String> windows(KeyValueIterator<Windowed<Bytes>, byte[]> iterator) {
        return toList(iterator).stream()
                .map(kv -> string(kv.key.key().get()) + "@" + kv.key.window().start() + "=" + string(kv.value))
                .collect(Collectors.toList());
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void commitSpanningSeveralSegmentsIsDurableAndUncommittedWritesAreDroppedOnReopen(TransactionStrategy strategy) {
        reopen(strategy);
        // Three segments (nothing expires: stream time 320000 - retention < 100000): [0, 150000), [150000, 300000),
        // [300000, 450000).
        store.put(key("a"), value("a0"), 100_000L);
        store.put(key("b"), value("b1"), 160_000L);
        store.put(key("a"), value("a2"), 310_000L);
        assertTrue(store.approximateNumUncommittedBytes() > 0);
        store.commit(Map.of(CHANGELOG, 42L));
        assertEquals(0L, store.approximateNumUncommittedBytes());

        store.put(key("c"), value("c1"), 170_000L);
        store.put(key("a"), value("a0-overwritten"), 100_000L);
        store.put(key("b"), null, 160_000L);
        store.put(key("d"), value("d3"), 320_000L);
        assertEquals(
                List.of("a@100000=a0-overwritten", "c@170000=c1", "a@310000=a2", "d@320000=d3"), windows(store.all()));

        reopen(strategy);
        assertEquals(42L, store.committedOffset(CHANGELOG));
        assertEquals(List.of("a@100000=a0", "b@160000=b1", "a@310000=a2"), windows(store.all()));
        assertEquals("a0", string(store.fetch(key("a"), 100_000L)));
        assertNull(store.fetch(key("c"), 170_000L));
    }

    @Test
    void writeThroughStoreKeepsWritesWithoutCommit() {
        reopen(false);
        store.put(key("a"), value("a0"), 10L);
        store.put(key("a"), value("a2"), 310_000L);
        assertEquals(0L, store.approximateNumUncommittedBytes());
        reopen(false);
        assertEquals(List.of("a@10=a0", "a@310000=a2"), windows(store.all()));
        assertNull(store.committedOffset(CHANGELOG));
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void recoverDropsStagedWritesAndReturnsTheCommittedOffset(TransactionStrategy strategy) {
        reopen(strategy);
        store.put(key("a"), value("a0"), 10L);
        store.commit(Map.of(CHANGELOG, 7L));
        store.put(key("a"), value("a1"), 200_000L);
        assertEquals(7L, store.recover(0L));
        assertEquals(List.of("a@10=a0"), windows(store.all()));
        assertEquals(0L, store.approximateNumUncommittedBytes());
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void readCommittedViewSeesOnlyCommittedWindows(TransactionStrategy strategy) {
        reopen(strategy);
        store.put(key("a"), value("a0"), 10L);
        store.commit(Map.of(CHANGELOG, 1L));
        store.put(key("a"), value("a1"), 20L);
        store.put(key("b"), value("b0"), 160_000L);

        ReadOnlyWindowStore<Bytes, byte[]> committed = store.readOnly(IsolationLevel.READ_COMMITTED);
        assertSame(store, store.readOnly(IsolationLevel.READ_UNCOMMITTED));
        assertEquals(List.of("a@10=a0"), windows(committed.all()));
        assertEquals(List.of("a@10=a0"), windows(committed.backwardAll()));
        assertEquals(
                List.of("a@10=a0"),
                windows(committed.fetchAll(Instant.ofEpochMilli(0), Instant.ofEpochMilli(200_000))));
        assertEquals(
                List.of("a@10=a0"),
                windows(committed.backwardFetchAll(Instant.ofEpochMilli(0), Instant.ofEpochMilli(200_000))));
        assertEquals(
                List.of("a@10=a0"),
                windows(committed.fetch(key("a"), key("b"), Instant.ofEpochMilli(0), Instant.ofEpochMilli(200_000))));
        assertEquals(
                List.of("a@10=a0"),
                windows(committed.backwardFetch(
                        key("a"), key("b"), Instant.ofEpochMilli(0), Instant.ofEpochMilli(200_000))));
        try (WindowStoreIterator<byte[]> it =
                committed.fetch(key("a"), Instant.ofEpochMilli(0), Instant.ofEpochMilli(100))) {
            assertEquals(List.of(10L), toList(it).stream().map(kv -> kv.key).collect(Collectors.toList()));
        }
        try (WindowStoreIterator<byte[]> it =
                committed.backwardFetch(key("a"), Instant.ofEpochMilli(0), Instant.ofEpochMilli(100))) {
            assertEquals(List.of(10L), toList(it).stream().map(kv -> kv.key).collect(Collectors.toList()));
        }
        assertEquals("a0", string(committed.fetch(key("a"), 10L)));
        assertNull(committed.fetch(key("a"), 20L));
        assertEquals("a1", string(store.fetch(key("a"), 20L)));

        store.commit(Map.of(CHANGELOG, 2L));
        assertEquals(List.of("a@10=a0", "a@20=a1", "b@160000=b0"), windows(committed.all()));
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void committedOffsetsFollowKafkasRules(TransactionStrategy strategy) {
        reopen(strategy);
        TopicPartition other = new TopicPartition("other", 1);
        assertTrue(store.managesOffsets());
        assertTrue(store.persistent());
        assertNull(store.committedOffset(CHANGELOG));
        store.commit(Map.of(CHANGELOG, -4L));
        assertEquals(-4L, store.committedOffset(CHANGELOG));
        store.commit(Map.of(other, 3L));
        assertEquals(-4L, store.committedOffset(CHANGELOG));
        store.commit(Map.of());
        assertNull(store.committedOffset(CHANGELOG));
        assertNull(store.committedOffset(other));
    }

    @Test
    void transactionalStoreRefusesExactlyOnceWithoutTransactionalStateStores() {
        store = new TxnWindowStore("window", RETENTION, SEGMENT, SIZE, false, true);
        TestStateStoreContext context = new TestStateStoreContext(dir.toFile())
                .config(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        ProcessorStateException e = assertThrows(ProcessorStateException.class, () -> store.init(context, store));
        assertTrue(e.getMessage().contains(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG), e.getMessage());
        store = null;
    }

    @Test
    void positionsAreCommittedWithTheDataAndQueriesReportThemByIsolationLevel() {
        store = new TxnWindowStore("window", RETENTION, SEGMENT, SIZE, false, true);
        TestStateStoreContext context = new TestStateStoreContext(dir.toFile());
        store.init(context, store);
        context.processing("input", 0, 5L);
        store.put(key("a"), value("a0"), 10L);
        store.commit(Map.of(CHANGELOG, 5L));
        context.processing("input", 0, 6L);
        store.put(key("a"), value("a1"), 20L);

        Position committedPosition = Position.fromMap(Map.of("input", Map.of(0, 5L)));
        Position currentPosition = Position.fromMap(Map.of("input", Map.of(0, 6L)));
        assertEquals(currentPosition, store.getPosition());

        WindowKeyQuery<Bytes, byte[]> keyQuery =
                WindowKeyQuery.withKeyAndWindowStartRange(key("a"), Instant.ofEpochMilli(0), Instant.ofEpochMilli(100));
        QueryResult<WindowStoreIterator<byte[]>> committed =
                store.query(keyQuery, PositionBound.unbounded(), new QueryConfig(false, IsolationLevel.READ_COMMITTED));
        assertTrue(committed.isSuccess(), committed::toString);
        assertEquals(committedPosition, committed.getPosition());
        assertEquals(
                List.of(10L),
                toList(committed.getResult()).stream().map(kv -> kv.key).collect(Collectors.toList()));

        QueryResult<WindowStoreIterator<byte[]>> uncommitted = store.query(
                keyQuery, PositionBound.unbounded(), new QueryConfig(false, IsolationLevel.READ_UNCOMMITTED));
        assertEquals(currentPosition, uncommitted.getPosition());
        assertEquals(
                List.of(10L, 20L),
                toList(uncommitted.getResult()).stream().map(kv -> kv.key).collect(Collectors.toList()));

        WindowRangeQuery<Bytes, byte[]> rangeQuery =
                WindowRangeQuery.withWindowStartRange(Instant.ofEpochMilli(0), Instant.ofEpochMilli(100));
        QueryResult<KeyValueIterator<Windowed<Bytes>, byte[]>> range = store.query(
                rangeQuery, PositionBound.unbounded(), new QueryConfig(false, IsolationLevel.READ_COMMITTED));
        assertEquals(List.of("a@10=a0"), windows(range.getResult()));

        // Reopened, the committed position is back and the uncommitted one is gone.
        store.close();
        store = new TxnWindowStore("window", RETENTION, SEGMENT, SIZE, false, true);
        store.init(new TestStateStoreContext(dir.toFile()), store);
        assertEquals(committedPosition, store.getPosition());
    }

    @Test
    void reportsItsRetentionPeriodToKafkasRestore() {
        WindowStore<String, String> built = Stores.windowStoreBuilder(
                        TxnStores.persistentTransactionalWindowStore(
                                "window", ofMillis(RETENTION), ofMillis(SIZE), false),
                        Serdes.String(),
                        Serdes.String())
                .build();
        assertEquals(RETENTION, WithRetentionPeriod.resolveRetentionPeriod(built));
    }

    @Test
    void timestampedStoreGetsNoAdapterAndKeepsTimestamps() {
        SegmentedStoreTestContext context = new SegmentedStoreTestContext(dir.toFile());
        TimestampedWindowStore<String, String> timestamped = Stores.timestampedWindowStoreBuilder(
                        TxnStores.persistentTransactionalTimestampedWindowStore(
                                "window", ofMillis(RETENTION), ofMillis(SIZE), false),
                        Serdes.String(),
                        Serdes.String())
                .withCachingDisabled()
                .build();
        timestamped.init((StateStoreContext) context, timestamped);
        try {
            assertInstanceOf(TxnTimestampedWindowStore.class, innermost(timestamped));
            timestamped.put("k", ValueAndTimestamp.make("v", 1234L), 100L);
            assertEquals(ValueAndTimestamp.make("v", 1234L), timestamped.fetch("k", 100L));
        } finally {
            timestamped.close();
        }
    }

    @Test
    void cachingLayerMergesWithTheStoreAndCommitsThrough() {
        Properties config = new Properties();
        SegmentedStoreTestContext context = new SegmentedStoreTestContext(dir.toFile(), 1_000_000L, config);
        WindowStore<String, String> cached = Stores.windowStoreBuilder(
                        TxnStores.persistentTransactionalWindowStore(
                                "window", ofMillis(RETENTION), ofMillis(SIZE), false),
                        Serdes.String(),
                        Serdes.String())
                .withCachingEnabled()
                .build();
        cached.init((StateStoreContext) context, cached);
        try {
            // Some windows flushed to the store, some only in the cache, over three segments.
            cached.put("b", "b1", 160_000L);
            cached.put("a", "a0", 100_000L);
            cached.commit(Map.of(CHANGELOG, 1L));
            cached.put("a", "a2", 310_000L);
            cached.put("c", "c0", 110_000L);
            cached.put("b", "b1-new", 160_000L);

            List<String> all = toList(cached.all()).stream()
                    .map(kv -> kv.key.key() + "@" + kv.key.window().start() + "=" + kv.value)
                    .collect(Collectors.toList());
            // Segment by segment (interval 150000), key-first inside each: Kafka's order.
            assertEquals(List.of("a@100000=a0", "c@110000=c0", "b@160000=b1-new", "a@310000=a2"), all);

            // READ_COMMITTED skips the cache and the store's staged writes.
            ReadOnlyWindowStore<String, String> committed = cached.readOnly(IsolationLevel.READ_COMMITTED);
            assertEquals(
                    List.of("a@100000=a0", "b@160000=b1"),
                    toList(committed.all()).stream()
                            .map(kv -> kv.key.key() + "@" + kv.key.window().start() + "=" + kv.value)
                            .collect(Collectors.toList()));

            cached.commit(Map.of(CHANGELOG, 2L));
            assertEquals(
                    List.of("a@100000=a0", "c@110000=c0", "b@160000=b1-new", "a@310000=a2"),
                    toList(committed.all()).stream()
                            .map(kv -> kv.key.key() + "@" + kv.key.window().start() + "=" + kv.value)
                            .collect(Collectors.toList()));
        } finally {
            cached.close();
        }
    }

    @Test
    void restoreAppliesChangelogBatchesAndTimestampedRestoreKeepsTimestamps() {
        SegmentedStoreTestContext context = new SegmentedStoreTestContext(dir.toFile());
        WindowStore<String, String> window = Stores.windowStoreBuilder(
                        TxnStores.persistentTransactionalWindowStore(
                                "window", ofMillis(RETENTION), ofMillis(SIZE), true),
                        Serdes.String(),
                        Serdes.String())
                .build();
        window.init((StateStoreContext) context, window);
        window.put("k", "first", 100L);
        window.put("k", "second", 100L);
        window.put("k", null, 100L);
        List<KeyValue<Bytes, byte[]>> changelog = List.copyOf(context.changelog());
        List<Long> timestamps = List.copyOf(context.changelogTimestamps());
        window.close();

        SegmentedStoreTestContext restoreContext =
                new SegmentedStoreTestContext(dir.resolve("restored").toFile());
        WindowStore<String, String> restored = Stores.windowStoreBuilder(
                        TxnStores.persistentTransactionalWindowStore(
                                "window", ofMillis(RETENTION), ofMillis(SIZE), true),
                        Serdes.String(),
                        Serdes.String())
                .build();
        restored.init((StateStoreContext) restoreContext, restored);
        try {
            // The null put was logged as a tombstone with its own seqnum (3): deleting nothing.
            restoreContext.restore(changelog, timestamps);
            assertEquals(
                    List.of("first", "second"),
                    toList(restored.fetch("k", 0L, 200L)).stream()
                            .map(kv -> kv.value)
                            .collect(Collectors.toList()));
            // Restored data is committed data.
            assertEquals(
                    List.of("first", "second"),
                    toList(restored.readOnly(IsolationLevel.READ_COMMITTED)
                                    .fetch("k", Instant.ofEpochMilli(0), Instant.ofEpochMilli(200)))
                            .stream()
                            .map(kv -> kv.value)
                            .collect(Collectors.toList()));
        } finally {
            restored.close();
        }
    }

    public static Object innermost(Object store) {
        Object layer = store;
        while (layer instanceof WrappedStateStore) {
            layer = ((WrappedStateStore<?, ?, ?>) layer).wrapped();
        }
        return layer;
    }
}
