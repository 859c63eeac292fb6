package dev.txnrocksdb.streams.session;

import static dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture.INVALID_RANGE_WARNING;
import static dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture.capturingLog;
import static dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture.sessionPair;
import static dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture.toList;
import static dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture.toSet;
import static dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture.valuesToSet;
import static java.time.Duration.ofMillis;
import static java.util.Arrays.asList;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.fixtures.SegmentedStoreTestContext;
import dev.txnrocksdb.streams.internals.SupplierFactory;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cases of Kafka's {@code AbstractSessionBytesStoreTest}, ported to JUnit 5 and run against
 * txn-rocksdb session stores built through Kafka's public builder ({@code Stores.sessionStoreBuilder}),
 * so the metered and change-logging layers are exercised. Where Kafka's test branches on the
 * store type, the expectations are those of Kafka's {@code RocksDBSessionStore}, except
 * {@code findSessions(long, long)}, which txn-rocksdb implements with the semantics of Kafka's
 * time-ordered session store.
 */
abstract class AbstractTxnSessionStoreTest {
    static final long SEGMENT_INTERVAL = 60_000L;
    static final long RETENTION_PERIOD = 10_000L;
    static final String STORE_NAME = "session-store";

    @TempDir
    Path stateDir;

    SessionStore<String, Long> sessionStore;
    SegmentedStoreTestContext context;

    /** Whether the stores under test are transactional. */
    abstract boolean transactional();

    /** The stores' own transaction strategy; null: the configured one (default indexed-batch). */
    TransactionStrategy strategy() {
        return null;
    }

    <K, V> SessionStore<K, V> buildSessionStore(long retentionPeriod, Serde<K> keySerde, Serde<V> valueSerde) {
        return Stores.sessionStoreBuilder(
                        SupplierFactory.sessionStore(
                                STORE_NAME, ofMillis(retentionPeriod), transactional(), strategy(), false),
                        keySerde,
                        valueSerde)
                .build();
    }

    @BeforeEach
    void setUp() {
        sessionStore = buildSessionStore(RETENTION_PERIOD, Serdes.String(), Serdes.Long());
        context = new SegmentedStoreTestContext(stateDir.toFile());
        sessionStore.init((StateStoreContext) context, sessionStore);
    }

    @AfterEach
    void tearDown() {
        sessionStore.close();
    }

    static Windowed<String> session(String key, long start, long end) {
        return new Windowed<>(key, new SessionWindow(start, end));
    }

    void putAll(List<KeyValue<Windowed<String>, Long>> entries) {
        for (KeyValue<Windowed<String>, Long> kv : entries) {
            sessionStore.put(kv.key, kv.value);
        }
    }

    @Test
    void shouldPutAndFindSessionsInRange() {
        Windowed<String> a1 = session("a", 10, 10L);
        Windowed<String> a2 = session("a", 500L, 1000L);
        sessionStore.put(a1, 1L);
        sessionStore.put(a2, 2L);
        sessionStore.put(session("a", 1500L, 2000L), 1L);
        sessionStore.put(session("a", 2500L, 3000L), 2L);
        assertEquals(
                asList(KeyValue.pair(a1, 1L), KeyValue.pair(a2, 2L)), toList(sessionStore.findSessions("a", 0, 1000L)));
        assertEquals(List.of(KeyValue.pair(a2, 2L)), toList(sessionStore.findSessions("a", 400L, 600L)));
    }

    @Test
    void shouldPutAndBackwardFindSessionsInRange() {
        Windowed<String> a1 = session("a", 10, 10L);
        Windowed<String> a2 = session("a", 500L, 1000L);
        sessionStore.put(a1, 1L);
        sessionStore.put(a2, 2L);
        sessionStore.put(session("a", 1500L, 2000L), 1L);
        sessionStore.put(session("a", 2500L, 3000L), 2L);
        assertEquals(
                asList(KeyValue.pair(a2, 2L), KeyValue.pair(a1, 1L)),
                toList(sessionStore.backwardFindSessions("a", 0, 1000L)));
        assertEquals(List.of(KeyValue.pair(a2, 2L)), toList(sessionStore.backwardFindSessions("a", 400L, 600L)));
    }

    List<KeyValue<Windowed<String>, Long>> sameRecordKey() {
        return asList(
                KeyValue.pair(session("a", 0, 0), 1L),
                KeyValue.pair(session("a", 10, 10), 2L),
                KeyValue.pair(session("a", 100, 100), 3L),
                KeyValue.pair(session("a", 1000, 1000), 4L));
    }

    @Test
    void shouldFetchAllSessionsWithSameRecordKey() {
        List<KeyValue<Windowed<String>, Long>> expected = sameRecordKey();
        putAll(expected);
        sessionStore.put(session("aa", 0, 0), 5L);
        assertEquals(expected, toList(sessionStore.fetch("a")));
    }

    @Test
    void shouldBackwardFetchAllSessionsWithSameRecordKey() {
        List<KeyValue<Windowed<String>, Long>> expected = new java.util.ArrayList<>(sameRecordKey());
        putAll(expected);
        sessionStore.put(session("aa", 0, 0), 5L);
        java.util.Collections.reverse(expected);
        assertEquals(expected, toList(sessionStore.backwardFetch("a")));
    }

    @Test
    void shouldFindSessionsForTimeRange() {
        sessionStore.put(session("a", 0, 0), 5L);
        // As Kafka's RocksDBSessionStore: only the emit-final stores answer this.
        UnsupportedOperationException e =
                assertThrows(UnsupportedOperationException.class, () -> sessionStore.findSessions(0L, 0L));
        assertEquals("This API is not supported by this implementation of SessionStore.", e.getMessage());

        sessionStore.close();
        sessionStore = Stores.sessionStoreBuilder(
                        SupplierFactory.sessionStore(
                                STORE_NAME, ofMillis(RETENTION_PERIOD), transactional(), strategy(), true),
                        Serdes.String(),
                        Serdes.Long())
                .build();
        sessionStore.init((StateStoreContext) context, sessionStore);
        sessionStore.put(session("a", 0, 0), 5L);
        assertEquals(List.of(KeyValue.pair(session("a", 0, 0), 5L)), toList(sessionStore.findSessions(0L, 0L)));

        sessionStore.put(session("b", 10, 20), 10L);
        sessionStore.put(session("c", 30, 40), 20L);
        assertEquals(
                asList(KeyValue.pair(session("a", 0, 0), 5L), KeyValue.pair(session("b", 10, 20), 10L)),
                toList(sessionStore.findSessions(0L, 20L)));
        assertEquals(List.of(KeyValue.pair(session("a", 0, 0), 5L)), toList(sessionStore.findSessions(0L, 19L)));

        // Order (end, start, key bytes), whatever the key order; no retention filter.
        sessionStore.put(session("a", 5, 20), 30L);
        sessionStore.put(session("0", 15, 20), 40L);
        assertEquals(
                asList(
                        KeyValue.pair(session("b", 10, 20), 10L),
                        KeyValue.pair(session("0", 15, 20), 40L),
                        KeyValue.pair(session("c", 30, 40), 20L)),
                toList(sessionStore.findSessions(1L, 40L)).stream()
                        .filter(kv -> !kv.key.equals(session("a", 5, 20)))
                        .collect(java.util.stream.Collectors.toList()));
        assertEquals(
                asList(session("a", 5, 20), session("b", 10, 20), session("0", 15, 20)),
                toList(sessionStore.findSessions(20L, 20L)).stream()
                        .map(kv -> kv.key)
                        .collect(java.util.stream.Collectors.toList()));
        // Kafka's upper bound is [latest + 1][0], which overflows for Long.MAX_VALUE: nothing found.
        assertEquals(List.of(), toList(sessionStore.findSessions(0L, Long.MAX_VALUE)));
        assertEquals(List.of(), toList(sessionStore.findSessions(30L, 20L)));
    }

    @Test
    void shouldFetchAllSessionsWithinKeyRange() {
        List<KeyValue<Windowed<String>, Long>> expected = asList(
                KeyValue.pair(session("aa", 10, 10), 2L),
                KeyValue.pair(session("b", 1000, 1000), 4L),
                KeyValue.pair(session("aaa", 100, 100), 3L),
                KeyValue.pair(session("bb", 1500, 2000), 5L));
        putAll(expected);
        sessionStore.put(session("a", 0, 0), 1L);
        sessionStore.put(session("bbb", 2500, 3000), 6L);
        assertEquals(new HashSet<>(expected), toSet(sessionStore.fetch("aa", "bb")));
    }

    @Test
    void shouldBackwardFetchAllSessionsWithinKeyRange() {
        List<KeyValue<Windowed<String>, Long>> expected = asList(
                KeyValue.pair(session("aa", 10, 10), 2L),
                KeyValue.pair(session("b", 1000, 1000), 4L),
                KeyValue.pair(session("aaa", 100, 100), 3L),
                KeyValue.pair(session("bb", 1500, 2000), 5L));
        putAll(expected);
        sessionStore.put(session("a", 0, 0), 1L);
        sessionStore.put(session("bbb", 2500, 3000), 6L);
        assertEquals(new HashSet<>(expected), toSet(sessionStore.backwardFetch("aa", "bb")));
    }

    @Test
    void shouldFetchExactSession() {
        sessionStore.put(session("a", 0, 4), 1L);
        sessionStore.put(session("aa", 0, 3), 2L);
        sessionStore.put(session("aa", 0, 4), 3L);
        sessionStore.put(session("aa", 1, 4), 4L);
        sessionStore.put(session("aaa", 0, 4), 5L);
        assertEquals(3L, sessionStore.fetchSession("aa", 0, 4));
    }

    @Test
    void shouldReturnNullOnSessionNotFound() {
        assertNull(sessionStore.fetchSession("any key", 0L, 5L));
    }

    @Test
    void shouldFindValuesWithinMergingSessionWindowRange() {
        sessionStore.put(session("a", 0L, 0L), 1L);
        sessionStore.put(session("a", 1000L, 1000L), 2L);
        assertEquals(
                asList(KeyValue.pair(session("a", 0L, 0L), 1L), KeyValue.pair(session("a", 1000L, 1000L), 2L)),
                toList(sessionStore.findSessions("a", -1, 1000L)));
    }

    @Test
    void shouldBackwardFindValuesWithinMergingSessionWindowRange() {
        sessionStore.put(session("a", 0L, 0L), 1L);
        sessionStore.put(session("a", 1000L, 1000L), 2L);
        assertEquals(
                asList(KeyValue.pair(session("a", 1000L, 1000L), 2L), KeyValue.pair(session("a", 0L, 0L), 1L)),
                toList(sessionStore.backwardFindSessions("a", -1, 1000L)));
    }

    @Test
    void shouldRemove() {
        sessionStore.put(session("a", 0, 1000), 1L);
        sessionStore.put(session("a", 1500, 2500), 2L);
        sessionStore.remove(session("a", 0, 1000));
        try (KeyValueIterator<Windowed<String>, Long> results = sessionStore.findSessions("a", 0L, 1000L)) {
            assertFalse(results.hasNext());
        }
        try (KeyValueIterator<Windowed<String>, Long> results = sessionStore.findSessions("a", 1500L, 2500L)) {
            assertTrue(results.hasNext());
        }
    }

    @Test
    void shouldRemoveOnNullAggValue() {
        sessionStore.put(session("a", 0, 1000), 1L);
        sessionStore.put(session("a", 1500, 2500), 2L);
        sessionStore.put(session("a", 0, 1000), null);
        try (KeyValueIterator<Windowed<String>, Long> results = sessionStore.findSessions("a", 0L, 1000L)) {
            assertFalse(results.hasNext());
        }
        try (KeyValueIterator<Windowed<String>, Long> results = sessionStore.findSessions("a", 1500L, 2500L)) {
            assertTrue(results.hasNext());
        }
    }

    void putSessionsToMerge() {
        sessionStore.put(session("a", 0, 100), 1L);
        sessionStore.put(session("a", 101, 200), 2L);
        sessionStore.put(session("a", 201, 300), 3L);
        sessionStore.put(session("a", 301, 400), 4L);
        sessionStore.put(session("a", 401, 500), 5L);
    }

    @Test
    void shouldFindSessionsToMerge() {
        putSessionsToMerge();
        assertEquals(
                asList(KeyValue.pair(session("a", 101, 200), 2L), KeyValue.pair(session("a", 201, 300), 3L)),
                toList(sessionStore.findSessions("a", 150, 300)));
    }

    @Test
    void shouldBackwardFindSessionsToMerge() {
        putSessionsToMerge();
        assertEquals(
                asList(KeyValue.pair(session("a", 201, 300), 3L), KeyValue.pair(session("a", 101, 200), 2L)),
                toList(sessionStore.backwardFindSessions("a", 150, 300)));
    }

    void putExactKeys(SessionStore<String, Long> store) {
        store.put(session("a", 0, 0), 1L);
        store.put(session("aa", 0, 10), 2L);
        store.put(session("a", 10, 20), 3L);
        store.put(session("aa", 10, 20), 4L);
        store.put(session("a", 0x7a00000000000000L - 2, 0x7a00000000000000L - 1), 5L);
    }

    @Test
    void shouldFetchExactKeys() {
        sessionStore.close();
        sessionStore = buildSessionStore(0x7a00000000000000L, Serdes.String(), Serdes.Long());
        sessionStore.init((StateStoreContext) context, sessionStore);
        putExactKeys(sessionStore);
        assertEquals(Set.of(1L, 3L, 5L), valuesToSet(sessionStore.findSessions("a", 0, Long.MAX_VALUE)));
        assertEquals(Set.of(2L, 4L), valuesToSet(sessionStore.findSessions("aa", 0, Long.MAX_VALUE)));
        assertEquals(Set.of(1L, 2L, 3L, 4L, 5L), valuesToSet(sessionStore.findSessions("a", "aa", 0, Long.MAX_VALUE)));
        assertEquals(Set.of(2L), valuesToSet(sessionStore.findSessions("a", "aa", 10, 0)));
    }

    @Test
    void shouldBackwardFetchExactKeys() {
        sessionStore.close();
        sessionStore = buildSessionStore(0x7a00000000000000L, Serdes.String(), Serdes.Long());
        sessionStore.init((StateStoreContext) context, sessionStore);
        putExactKeys(sessionStore);
        assertEquals(Set.of(1L, 3L, 5L), valuesToSet(sessionStore.backwardFindSessions("a", 0, Long.MAX_VALUE)));
        assertEquals(Set.of(2L, 4L), valuesToSet(sessionStore.backwardFindSessions("aa", 0, Long.MAX_VALUE)));
        assertEquals(
                Set.of(1L, 2L, 3L, 4L, 5L),
                valuesToSet(sessionStore.backwardFindSessions("a", "aa", 0, Long.MAX_VALUE)));
        assertEquals(Set.of(2L), valuesToSet(sessionStore.backwardFindSessions("a", "aa", 10, 0)));
    }

    SessionStore<Bytes, String> binaryKeyStore() {
        sessionStore.close();
        SessionStore<Bytes, String> store = buildSessionStore(RETENTION_PERIOD, Serdes.Bytes(), Serdes.String());
        store.init((StateStoreContext) context, store);
        Bytes key1 = Bytes.wrap(new byte[] {0});
        Bytes key2 = Bytes.wrap(new byte[] {0, 0});
        Bytes key3 = Bytes.wrap(new byte[] {0, 0, 0});
        store.put(new Windowed<>(key1, new SessionWindow(1, 100)), "1");
        store.put(new Windowed<>(key2, new SessionWindow(2, 100)), "2");
        store.put(new Windowed<>(key3, new SessionWindow(3, 100)), "3");
        store.put(new Windowed<>(key1, new SessionWindow(4, 100)), "4");
        store.put(new Windowed<>(key2, new SessionWindow(5, 100)), "5");
        store.put(new Windowed<>(key3, new SessionWindow(6, 100)), "6");
        store.put(new Windowed<>(key1, new SessionWindow(7, 100)), "7");
        store.put(new Windowed<>(key2, new SessionWindow(8, 100)), "8");
        store.put(new Windowed<>(key3, new SessionWindow(9, 100)), "9");
        return store;
    }

    @Test
    void shouldFetchAndIterateOverExactBinaryKeys() {
        SessionStore<Bytes, String> store = binaryKeyStore();
        try {
            assertEquals(
                    Set.of("1", "4", "7"),
                    valuesToSet(store.findSessions(Bytes.wrap(new byte[] {0}), 0L, Long.MAX_VALUE)));
            assertEquals(
                    Set.of("2", "5", "8"),
                    valuesToSet(store.findSessions(Bytes.wrap(new byte[] {0, 0}), 0L, Long.MAX_VALUE)));
            assertEquals(
                    Set.of("3", "6", "9"),
                    valuesToSet(store.findSessions(Bytes.wrap(new byte[] {0, 0, 0}), 0L, Long.MAX_VALUE)));
        } finally {
            store.close();
        }
    }

    @Test
    void shouldBackwardFetchAndIterateOverExactBinaryKeys() {
        SessionStore<Bytes, String> store = binaryKeyStore();
        try {
            assertEquals(
                    Set.of("1", "4", "7"),
                    valuesToSet(store.backwardFindSessions(Bytes.wrap(new byte[] {0}), 0L, Long.MAX_VALUE)));
            assertEquals(
                    Set.of("2", "5", "8"),
                    valuesToSet(store.backwardFindSessions(Bytes.wrap(new byte[] {0, 0}), 0L, Long.MAX_VALUE)));
            assertEquals(
                    Set.of("3", "6", "9"),
                    valuesToSet(store.backwardFindSessions(Bytes.wrap(new byte[] {0, 0, 0}), 0L, Long.MAX_VALUE)));
        } finally {
            store.close();
        }
    }

    void putPeekSessions() {
        sessionStore.put(session("a", 0, 0), 1L);
        sessionStore.put(session("aa", 0, 10), 2L);
        sessionStore.put(session("a", 10, 20), 3L);
        sessionStore.put(session("aa", 10, 20), 4L);
    }

    @Test
    void testIteratorPeek() {
        putPeekSessions();
        try (KeyValueIterator<Windowed<String>, Long> iterator = sessionStore.findSessions("a", 0L, 20)) {
            assertEquals(iterator.peekNextKey(), session("a", 0L, 0L));
            assertEquals(iterator.peekNextKey(), iterator.next().key);
            assertEquals(iterator.peekNextKey(), iterator.next().key);
            assertFalse(iterator.hasNext());
        }
    }

    @Test
    void testIteratorPeekBackward() {
        putPeekSessions();
        try (KeyValueIterator<Windowed<String>, Long> iterator = sessionStore.backwardFindSessions("a", 0L, 20)) {
            assertEquals(iterator.peekNextKey(), session("a", 10L, 20L));
            assertEquals(iterator.peekNextKey(), iterator.next().key);
            assertEquals(iterator.peekNextKey(), iterator.next().key);
            assertFalse(iterator.hasNext());
        }
    }

    @Test
    void shouldRestore() {
        List<KeyValue<Windowed<String>, Long>> expected = sameRecordKey();
        putAll(expected);
        assertEquals(new HashSet<>(expected), toSet(sessionStore.fetch("a")));
        List<KeyValue<Bytes, byte[]>> changelog = List.copyOf(context.changelog());
        List<Long> timestamps = List.copyOf(context.changelogTimestamps());
        sessionStore.close();

        // Kafka's test reads the closed store (empty there); txn-rocksdb stores throw instead.
        assertThrows(org.apache.kafka.streams.errors.InvalidStateStoreException.class, () -> sessionStore.fetch("a"));

        SegmentedStoreTestContext restoreContext =
                new SegmentedStoreTestContext(stateDir.resolve("restored").toFile());
        sessionStore = buildSessionStore(RETENTION_PERIOD, Serdes.String(), Serdes.Long());
        sessionStore.init((StateStoreContext) restoreContext, sessionStore);
        restoreContext.restore(changelog, timestamps);
        assertEquals(expected, toList(sessionStore.fetch("a")));
    }

    @Test
    void shouldCloseOpenIteratorsWhenStoreIsClosedAndNotThrowInvalidStateStoreExceptionOnHasNext() {
        sessionStore.put(session("a", 0, 0), 1L);
        sessionStore.put(session("b", 10, 50), 2L);
        sessionStore.put(session("c", 100, 500), 3L);
        KeyValueIterator<Windowed<String>, Long> iterator = sessionStore.fetch("a");
        assertTrue(iterator.hasNext());
        sessionStore.close();
        assertFalse(iterator.hasNext());
    }

    @Test
    void shouldReturnSameResultsForSingleKeyFindSessionsAndEqualKeyRangeFindSessions() {
        sessionStore.put(session("a", 0, 1), 0L);
        sessionStore.put(session("aa", 2, 3), 1L);
        sessionStore.put(session("aa", 4, 5), 2L);
        sessionStore.put(session("aaa", 6, 7), 3L);
        try (KeyValueIterator<Windowed<String>, Long> singleKeyIterator = sessionStore.findSessions("aa", 0L, 10L);
                KeyValueIterator<Windowed<String>, Long> rangeIterator =
                        sessionStore.findSessions("aa", "aa", 0L, 10L)) {
            assertEquals(singleKeyIterator.next(), rangeIterator.next());
            assertEquals(singleKeyIterator.next(), rangeIterator.next());
            assertFalse(singleKeyIterator.hasNext());
            assertFalse(rangeIterator.hasNext());
        }
    }

    @Test
    void shouldMeasureExpiredRecords() {
        String log = capturingLog(() -> {
            // Only whole segments expire (segment interval 60000 for this retention).
            sessionStore.put(session("initial record", 0, 2 * SEGMENT_INTERVAL), 0L);
            sessionStore.put(session("late record", 0, 0), 0L);
            sessionStore.put(session("another on-time record", 0, 2 * SEGMENT_INTERVAL), 0L);
        });
        assertTrue(log.contains("Skipping record for expired segment."), log);
        Map<MetricName, ? extends Metric> metrics = context.metrics().metrics();
        Map<String, String> tags = Map.of("thread-id", Thread.currentThread().getName(), "task-id", "0_0");
        assertEquals(
                1.0,
                metrics.get(new MetricName("dropped-records-total", "stream-task-metrics", "", tags))
                        .metricValue());
        assertNotEquals(
                0.0,
                metrics.get(new MetricName("dropped-records-rate", "stream-task-metrics", "", tags))
                        .metricValue());
    }

    @Test
    void shouldNotThrowExceptionRemovingNonexistentKey() {
        sessionStore.remove(session("a", 0, 1));
    }

    @Test
    void shouldThrowNullPointerExceptionOnFindSessionsNullKey() {
        assertThrows(NullPointerException.class, () -> sessionStore.findSessions(null, 1L, 2L));
    }

    @Test
    void shouldThrowNullPointerExceptionOnFetchNullKey() {
        assertThrows(NullPointerException.class, () -> sessionStore.fetch(null));
    }

    @Test
    void shouldThrowNullPointerExceptionOnRemoveNullKey() {
        assertThrows(NullPointerException.class, () -> sessionStore.remove(null));
    }

    @Test
    void shouldThrowNullPointerExceptionOnPutNullKey() {
        assertThrows(NullPointerException.class, () -> sessionStore.put(null, 1L));
    }

    @Test
    void shouldNotThrowInvalidRangeExceptionWithNegativeFromKey() {
        String keyFrom = Serdes.String()
                .deserializer()
                .deserialize("", Serdes.Integer().serializer().serialize("", -1));
        String keyTo = Serdes.String()
                .deserializer()
                .deserialize("", Serdes.Integer().serializer().serialize("", 1));
        String log = capturingLog(() -> {
            try (KeyValueIterator<Windowed<String>, Long> iterator =
                    sessionStore.findSessions(keyFrom, keyTo, 0L, 10L)) {
                assertFalse(iterator.hasNext());
            }
        });
        assertTrue(log.contains(INVALID_RANGE_WARNING), log);
    }

    @Test
    void shouldRemoveExpired() {
        sessionStore.put(session("a", 0, 0), 1L);
        sessionStore.put(session("aa", 0, 10), 2L);
        sessionStore.put(session("a", 10, 20), 3L);
        // Advance stream time to expire the first three entries.
        sessionStore.put(session("aa", 10, 10_000), 4L);
        // Still visible in segment 1, but the segment of the first entries is not yet expired.
        sessionStore.put(session("aa", 0, 60_000), 2L);
        sessionStore.put(session("a", 10, 60_000), 3L);
        // Expire segment 0 and hide everything that ends before 110001.
        sessionStore.put(session("aa", 10, 120_000), 4L);
        assertEquals(Set.of(4L), valuesToSet(sessionStore.findSessions("a", "b", 0L, Long.MAX_VALUE)));
    }

    @Test
    void shouldMatchPositionAfterPut() {
        context.setRecord("input", 1, 0L);
        sessionStore.put(session("a", 0, 0), 1L);
        context.setRecord("input", 2, 0L);
        sessionStore.put(session("aa", 0, 10), 2L);
        context.setRecord("input", 3, 0L);
        sessionStore.put(session("a", 10, 20), 3L);
        assertEquals(Position.fromMap(Map.of("input", Map.of(0, 3L))), sessionStore.getPosition());
    }

    @Test
    void shouldNotFetchExpiredSessions() {
        long systemTime = 1_000_000L;
        sessionStore.put(session("p", systemTime - 3 * RETENTION_PERIOD, systemTime - 2 * RETENTION_PERIOD), 1L);
        sessionStore.put(session("q", systemTime - 2 * RETENTION_PERIOD, systemTime - RETENTION_PERIOD), 4L);
        sessionStore.put(session("r", systemTime - RETENTION_PERIOD, systemTime - RETENTION_PERIOD / 2), 3L);
        sessionStore.put(session("p", systemTime - RETENTION_PERIOD, systemTime - RETENTION_PERIOD / 2), 2L);
        // Stream time systemTime - 5000: visible iff end > systemTime - 15000, so p's first session is not.
        assertEquals(
                List.of(sessionPair("p", 2L, systemTime - RETENTION_PERIOD, systemTime - RETENTION_PERIOD / 2)),
                toList(sessionStore.findSessions("p", systemTime - 5 * RETENTION_PERIOD, systemTime)));
        assertEquals(Set.of(2L, 3L, 4L), valuesToSet(sessionStore.findSessions("p", "r", 0L, Long.MAX_VALUE)));
        assertEquals(Set.of(2L, 3L, 4L), valuesToSet(sessionStore.backwardFetch("p", "r")));
        assertNull(
                sessionStore.fetchSession("p", systemTime - 3 * RETENTION_PERIOD, systemTime - 2 * RETENTION_PERIOD));
        assertEquals(
                4L, sessionStore.fetchSession("q", systemTime - 2 * RETENTION_PERIOD, systemTime - RETENTION_PERIOD));
        assertEquals(
                2L, sessionStore.fetchSession("p", systemTime - RETENTION_PERIOD, systemTime - RETENTION_PERIOD / 2));
    }
}
