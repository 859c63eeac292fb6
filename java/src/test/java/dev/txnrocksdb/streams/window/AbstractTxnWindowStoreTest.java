package dev.txnrocksdb.streams.window;

import static dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture.INVALID_RANGE_WARNING;
import static dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture.capturingLog;
import static dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture.toList;
import static dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture.toSet;
import static dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture.valuesToSet;
import static java.time.Duration.ofMillis;
import static java.time.Instant.ofEpochMilli;
import static java.util.Arrays.asList;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture;
import dev.txnrocksdb.streams.fixtures.SegmentedStoreTestContext;
import dev.txnrocksdb.streams.internals.SupplierFactory;
import dev.txnrocksdb.streams.internals.TxnWindowBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnWindowStore;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
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
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cases of Kafka's {@code AbstractWindowBytesStoreTest} and the visible effects of
 * {@code AbstractRocksDBWindowStoreTest}, ported to JUnit 5 and run against txn-rocksdb window
 * stores built through Kafka's public builder ({@code Stores.windowStoreBuilder}), so the metered
 * and change-logging layers are exercised. Kafka's suites cannot run on 4.4 (see
 * docs/kafka-window-session-semantics.md section 4); constants and expectations are Kafka's.
 */
abstract class AbstractTxnWindowStoreTest {
    static final long WINDOW_SIZE = 3L;
    static final long SEGMENT_INTERVAL = 60_000L;
    static final long RETENTION_PERIOD = 2 * SEGMENT_INTERVAL;
    static final String STORE_NAME = "window-store";

    final long defaultStartTime = SEGMENT_INTERVAL - 4L;

    final KeyValue<Windowed<Integer>, String> zero = windowedPair(0, "zero", defaultStartTime);
    final KeyValue<Windowed<Integer>, String> one = windowedPair(1, "one", defaultStartTime + 1);
    final KeyValue<Windowed<Integer>, String> two = windowedPair(2, "two", defaultStartTime + 2);
    final KeyValue<Windowed<Integer>, String> three = windowedPair(3, "three", defaultStartTime + 2);
    final KeyValue<Windowed<Integer>, String> four = windowedPair(4, "four", defaultStartTime + 4);
    final KeyValue<Windowed<Integer>, String> five = windowedPair(5, "five", defaultStartTime + 5);

    @TempDir
    Path stateDir;

    WindowStore<Integer, String> windowStore;
    SegmentedStoreTestContext context;

    /** Whether the stores under test are transactional. */
    abstract boolean transactional();

    /** The stores' own transaction strategy; null: the configured one (default indexed-batch). */
    TransactionStrategy strategy() {
        return null;
    }

    /** Whether the store under test is the time-ordered (emit-final) layout. */
    boolean timeOrdered() {
        return false;
    }

    <K, V> WindowStore<K, V> buildWindowStore(
            long retentionPeriod, long windowSize, boolean retainDuplicates, Serde<K> keySerde, Serde<V> valueSerde) {
        TxnWindowBytesStoreSupplier supplier = timeOrdered()
                ? SupplierFactory.windowStore(
                        STORE_NAME,
                        ofMillis(retentionPeriod),
                        ofMillis(windowSize),
                        retainDuplicates,
                        false,
                        transactional(),
                        strategy(),
                        TxnWindowStore.Layout.TIME_ORDERED)
                : SupplierFactory.windowStore(
                        STORE_NAME,
                        ofMillis(retentionPeriod),
                        ofMillis(windowSize),
                        retainDuplicates,
                        false,
                        transactional(),
                        strategy(),
                        TxnWindowStore.Layout.KEY_FIRST);
        return Stores.windowStoreBuilder(supplier, keySerde, valueSerde).build();
    }

    @BeforeEach
    void setUp() {
        windowStore = buildWindowStore(RETENTION_PERIOD, WINDOW_SIZE, false, Serdes.Integer(), Serdes.String());
        context = new SegmentedStoreTestContext(stateDir.toFile());
        windowStore.init((StateStoreContext) context, windowStore);
    }

    @AfterEach
    void tearDown() {
        windowStore.close();
    }

    public static <K, V> KeyValue<Windowed<K>, V> windowedPair(K key, V value, long timestamp) {
        return SegmentedStoreFixture.windowedPair(key, value, timestamp, WINDOW_SIZE);
    }

    void putFirstBatch(WindowStore<Integer, String> store, long startTime) {
        context.setTime(startTime);
        store.put(0, "zero", startTime);
        store.put(1, "one", startTime + 1L);
        store.put(2, "two", startTime + 2L);
        store.put(3, "three", startTime + 2L);
        store.put(4, "four", startTime + 4L);
        store.put(5, "five", startTime + 5L);
    }

    void putSecondBatch(WindowStore<Integer, String> store, long startTime) {
        store.put(2, "two+1", startTime + 3L);
        store.put(2, "two+2", startTime + 4L);
        store.put(2, "two+3", startTime + 5L);
        store.put(2, "two+4", startTime + 6L);
        store.put(2, "two+5", startTime + 7L);
        store.put(2, "two+6", startTime + 8L);
    }

    /** The changelog as Kafka's test reads it: key to "value@(start - startTime)". */
    Map<Integer, Set<String>> entriesByKey(long startTime) {
        Map<Integer, Set<String>> entriesByKey = new HashMap<>();
        for (KeyValue<Bytes, byte[]> entry : context.changelog()) {
            byte[] key = entry.key.get();
            long timestamp = ByteBuffer.wrap(key).getLong(key.length - 12);
            Integer k = Serdes.Integer().deserializer().deserialize("", Arrays.copyOf(key, key.length - 12));
            String value =
                    entry.value == null ? null : Serdes.String().deserializer().deserialize("", entry.value);
            entriesByKey.computeIfAbsent(k, ignored -> new HashSet<>()).add(value + "@" + (timestamp - startTime));
        }
        return entriesByKey;
    }

    Set<String> fetchValues(int key, long from, long to) {
        return valuesToSet(windowStore.fetch(key, ofEpochMilli(from), ofEpochMilli(to)));
    }

    static Set<String> set(String... values) {
        return new HashSet<>(asList(values));
    }

    // ---------------------------------------------------------------- AbstractWindowBytesStoreTest

    @Test
    void testRangeAndSinglePointFetch() {
        putFirstBatch(windowStore, defaultStartTime);
        assertEquals(set("zero"), fetchValues(0, defaultStartTime - WINDOW_SIZE, defaultStartTime + WINDOW_SIZE));

        putSecondBatch(windowStore, defaultStartTime);
        assertEquals("two+1", windowStore.fetch(2, defaultStartTime + 3L));
        assertEquals("two+2", windowStore.fetch(2, defaultStartTime + 4L));
        assertEquals("two+3", windowStore.fetch(2, defaultStartTime + 5L));
        assertEquals("two+4", windowStore.fetch(2, defaultStartTime + 6L));
        assertEquals("two+5", windowStore.fetch(2, defaultStartTime + 7L));
        assertEquals("two+6", windowStore.fetch(2, defaultStartTime + 8L));

        long t = defaultStartTime;
        assertEquals(set(), fetchValues(2, t - 2L - WINDOW_SIZE, t - 2L + WINDOW_SIZE));
        assertEquals(set("two"), fetchValues(2, t - 1L - WINDOW_SIZE, t - 1L + WINDOW_SIZE));
        assertEquals(set("two", "two+1"), fetchValues(2, t - WINDOW_SIZE, t + WINDOW_SIZE));
        assertEquals(set("two", "two+1", "two+2"), fetchValues(2, t + 1L - WINDOW_SIZE, t + 1L + WINDOW_SIZE));
        assertEquals(set("two", "two+1", "two+2", "two+3"), fetchValues(2, t + 2L - WINDOW_SIZE, t + 2L + WINDOW_SIZE));
        assertEquals(
                set("two", "two+1", "two+2", "two+3", "two+4"),
                fetchValues(2, t + 3L - WINDOW_SIZE, t + 3L + WINDOW_SIZE));
        assertEquals(
                set("two", "two+1", "two+2", "two+3", "two+4", "two+5"),
                fetchValues(2, t + 4L - WINDOW_SIZE, t + 4L + WINDOW_SIZE));
        assertEquals(
                set("two", "two+1", "two+2", "two+3", "two+4", "two+5", "two+6"),
                fetchValues(2, t + 5L - WINDOW_SIZE, t + 5L + WINDOW_SIZE));
        assertEquals(
                set("two+1", "two+2", "two+3", "two+4", "two+5", "two+6"),
                fetchValues(2, t + 6L - WINDOW_SIZE, t + 6L + WINDOW_SIZE));
        assertEquals(
                set("two+2", "two+3", "two+4", "two+5", "two+6"),
                fetchValues(2, t + 7L - WINDOW_SIZE, t + 7L + WINDOW_SIZE));
        assertEquals(
                set("two+3", "two+4", "two+5", "two+6"), fetchValues(2, t + 8L - WINDOW_SIZE, t + 8L + WINDOW_SIZE));
        assertEquals(set("two+4", "two+5", "two+6"), fetchValues(2, t + 9L - WINDOW_SIZE, t + 9L + WINDOW_SIZE));
        assertEquals(set("two+5", "two+6"), fetchValues(2, t + 10L - WINDOW_SIZE, t + 10L + WINDOW_SIZE));
        assertEquals(set("two+6"), fetchValues(2, t + 11L - WINDOW_SIZE, t + 11L + WINDOW_SIZE));
        assertEquals(set(), fetchValues(2, t + 12L - WINDOW_SIZE, t + 12L + WINDOW_SIZE));

        Map<Integer, Set<String>> entriesByKey = entriesByKey(defaultStartTime);
        assertEquals(set("zero@0"), entriesByKey.get(0));
        assertEquals(set("one@1"), entriesByKey.get(1));
        assertEquals(
                set("two@2", "two+1@3", "two+2@4", "two+3@5", "two+4@6", "two+5@7", "two+6@8"), entriesByKey.get(2));
        assertEquals(set("three@2"), entriesByKey.get(3));
        assertEquals(set("four@4"), entriesByKey.get(4));
        assertEquals(set("five@5"), entriesByKey.get(5));
        assertNull(entriesByKey.get(6));
    }

    @Test
    void shouldGetAll() {
        putFirstBatch(windowStore, defaultStartTime);
        assertEquals(asList(zero, one, two, three, four, five), toList(windowStore.all()));
    }

    @Test
    void shouldGetAllNonDeletedRecords() {
        windowStore.put(0, "zero", defaultStartTime + 0);
        windowStore.put(1, "one", defaultStartTime + 1);
        windowStore.put(2, "two", defaultStartTime + 2);
        windowStore.put(3, "three", defaultStartTime + 3);
        windowStore.put(4, "four", defaultStartTime + 4);
        windowStore.put(1, null, defaultStartTime + 1);
        windowStore.put(3, null, defaultStartTime + 3);
        assertEquals(asList(zero, two, four), toList(windowStore.all()));
    }

    @Test
    void shouldGetAllReturnTimestampOrderedRecords() {
        windowStore.put(4, "four", defaultStartTime + 4);
        windowStore.put(0, "zero", defaultStartTime + 0);
        windowStore.put(2, "two", defaultStartTime + 2);
        windowStore.put(3, "three", defaultStartTime + 3);
        windowStore.put(1, "one", defaultStartTime + 1);
        KeyValue<Windowed<Integer>, String> three = windowedPair(3, "three", defaultStartTime + 3);
        assertEquals(asList(zero, one, two, three, four), toList(windowStore.all()));
    }

    @Test
    void shouldEarlyClosedIteratorStillGetAllRecords() {
        windowStore.put(0, "zero", defaultStartTime + 0);
        windowStore.put(1, "one", defaultStartTime + 1);
        KeyValueIterator<Windowed<Integer>, String> it = windowStore.all();
        assertEquals(zero, it.next());
        it.close();
        assertEquals(asList(zero, one), toList(windowStore.all()));
    }

    @Test
    void shouldGetBackwardAll() {
        putFirstBatch(windowStore, defaultStartTime);
        assertEquals(asList(five, four, three, two, one, zero), toList(windowStore.backwardAll()));
    }

    @Test
    void shouldFetchAllInTimeRange() {
        putFirstBatch(windowStore, defaultStartTime);
        assertEquals(
                asList(one, two, three, four),
                toList(windowStore.fetchAll(ofEpochMilli(defaultStartTime + 1), ofEpochMilli(defaultStartTime + 4))));
        assertEquals(
                asList(zero, one, two, three),
                toList(windowStore.fetchAll(ofEpochMilli(defaultStartTime + 0), ofEpochMilli(defaultStartTime + 3))));
        assertEquals(
                asList(one, two, three, four, five),
                toList(windowStore.fetchAll(ofEpochMilli(defaultStartTime + 1), ofEpochMilli(defaultStartTime + 5))));
    }

    @Test
    void shouldBackwardFetchAllInTimeRange() {
        putFirstBatch(windowStore, defaultStartTime);
        assertEquals(
                asList(four, three, two, one),
                toList(windowStore.backwardFetchAll(
                        ofEpochMilli(defaultStartTime + 1), ofEpochMilli(defaultStartTime + 4))));
        assertEquals(
                asList(three, two, one, zero),
                toList(windowStore.backwardFetchAll(
                        ofEpochMilli(defaultStartTime + 0), ofEpochMilli(defaultStartTime + 3))));
        assertEquals(
                asList(five, four, three, two, one),
                toList(windowStore.backwardFetchAll(
                        ofEpochMilli(defaultStartTime + 1), ofEpochMilli(defaultStartTime + 5))));
    }

    List<KeyValue<Windowed<Integer>, String>> fetchRange(
            int from, int to, long timeFrom, long timeTo, boolean backward) {
        return toList(
                backward
                        ? windowStore.backwardFetch(from, to, ofEpochMilli(timeFrom), ofEpochMilli(timeTo))
                        : windowStore.fetch(from, to, ofEpochMilli(timeFrom), ofEpochMilli(timeTo)));
    }

    @Test
    void testFetchRange() {
        putFirstBatch(windowStore, defaultStartTime);
        long t = defaultStartTime;
        assertEquals(asList(zero, one), fetchRange(0, 1, t - WINDOW_SIZE, t + WINDOW_SIZE, false));
        assertEquals(List.of(one), fetchRange(1, 1, t - WINDOW_SIZE, t + WINDOW_SIZE, false));
        assertEquals(asList(one, two, three), fetchRange(1, 3, t - WINDOW_SIZE, t + WINDOW_SIZE, false));
        assertEquals(asList(zero, one, two, three), fetchRange(0, 5, t - WINDOW_SIZE, t + WINDOW_SIZE, false));
        assertEquals(
                asList(zero, one, two, three, four, five),
                fetchRange(0, 5, t - WINDOW_SIZE, t + WINDOW_SIZE + 5L, false));
        assertEquals(asList(two, three, four, five), fetchRange(0, 5, t + 2L, t + WINDOW_SIZE + 5L, false));
        assertEquals(List.of(), fetchRange(4, 5, t + 2L, t + WINDOW_SIZE, false));
        assertEquals(List.of(), fetchRange(0, 3, t + 3L, t + WINDOW_SIZE + 5, false));
    }

    @Test
    void testBackwardFetchRange() {
        putFirstBatch(windowStore, defaultStartTime);
        long t = defaultStartTime;
        assertEquals(asList(one, zero), fetchRange(0, 1, t - WINDOW_SIZE, t + WINDOW_SIZE, true));
        assertEquals(List.of(one), fetchRange(1, 1, t - WINDOW_SIZE, t + WINDOW_SIZE, true));
        assertEquals(asList(three, two, one), fetchRange(1, 3, t - WINDOW_SIZE, t + WINDOW_SIZE, true));
        assertEquals(asList(three, two, one, zero), fetchRange(0, 5, t - WINDOW_SIZE, t + WINDOW_SIZE, true));
        assertEquals(
                asList(five, four, three, two, one, zero),
                fetchRange(0, 5, t - WINDOW_SIZE, t + WINDOW_SIZE + 5L, true));
        assertEquals(asList(five, four, three, two), fetchRange(0, 5, t + 2L, t + WINDOW_SIZE + 5L, true));
        assertEquals(List.of(), fetchRange(4, 5, t + 2L, t + WINDOW_SIZE, true));
        assertEquals(List.of(), fetchRange(0, 3, t + 3L, t + WINDOW_SIZE + 5, true));
    }

    @Test
    void testPutAndFetchBefore() {
        putFirstBatch(windowStore, defaultStartTime);
        long t = defaultStartTime;
        assertEquals(set("zero"), fetchValues(0, t - WINDOW_SIZE, t));
        assertEquals(set("one"), fetchValues(1, t + 1L - WINDOW_SIZE, t + 1L));
        assertEquals(set("two"), fetchValues(2, t + 2L - WINDOW_SIZE, t + 2L));
        assertEquals(set("three"), fetchValues(3, t + 3L - WINDOW_SIZE, t + 3L));
        assertEquals(set("four"), fetchValues(4, t + 4L - WINDOW_SIZE, t + 4L));
        assertEquals(set("five"), fetchValues(5, t + 5L - WINDOW_SIZE, t + 5L));

        putSecondBatch(windowStore, defaultStartTime);
        assertEquals(set(), fetchValues(2, t - 1L - WINDOW_SIZE, t - 1L));
        assertEquals(set(), fetchValues(2, t - WINDOW_SIZE, t));
        assertEquals(set(), fetchValues(2, t + 1L - WINDOW_SIZE, t + 1L));
        assertEquals(set("two"), fetchValues(2, t + 2L - WINDOW_SIZE, t + 2L));
        assertEquals(set("two", "two+1"), fetchValues(2, t + 3L - WINDOW_SIZE, t + 3L));
        assertEquals(set("two", "two+1", "two+2"), fetchValues(2, t + 4L - WINDOW_SIZE, t + 4L));
        assertEquals(set("two", "two+1", "two+2", "two+3"), fetchValues(2, t + 5L - WINDOW_SIZE, t + 5L));
        assertEquals(set("two+1", "two+2", "two+3", "two+4"), fetchValues(2, t + 6L - WINDOW_SIZE, t + 6L));
        assertEquals(set("two+2", "two+3", "two+4", "two+5"), fetchValues(2, t + 7L - WINDOW_SIZE, t + 7L));
        assertEquals(set("two+3", "two+4", "two+5", "two+6"), fetchValues(2, t + 8L - WINDOW_SIZE, t + 8L));
        assertEquals(set("two+4", "two+5", "two+6"), fetchValues(2, t + 9L - WINDOW_SIZE, t + 9L));
        assertEquals(set("two+5", "two+6"), fetchValues(2, t + 10L - WINDOW_SIZE, t + 10L));
        assertEquals(set("two+6"), fetchValues(2, t + 11L - WINDOW_SIZE, t + 11L));
        assertEquals(set(), fetchValues(2, t + 12L - WINDOW_SIZE, t + 12L));
        assertEquals(set(), fetchValues(2, t + 13L - WINDOW_SIZE, t + 13L));
    }

    @Test
    void testPutAndFetchAfter() {
        putFirstBatch(windowStore, defaultStartTime);
        long t = defaultStartTime;
        assertEquals(set("zero"), fetchValues(0, t, t + WINDOW_SIZE));
        assertEquals(set("one"), fetchValues(1, t + 1L, t + 1L + WINDOW_SIZE));
        assertEquals(set("two"), fetchValues(2, t + 2L, t + 2L + WINDOW_SIZE));
        assertEquals(set(), fetchValues(3, t + 3L, t + 3L + WINDOW_SIZE));
        assertEquals(set("four"), fetchValues(4, t + 4L, t + 4L + WINDOW_SIZE));
        assertEquals(set("five"), fetchValues(5, t + 5L, t + 5L + WINDOW_SIZE));

        putSecondBatch(windowStore, defaultStartTime);
        assertEquals(set(), fetchValues(2, t - 2L, t - 2L + WINDOW_SIZE));
        assertEquals(set("two"), fetchValues(2, t - 1L, t - 1L + WINDOW_SIZE));
        assertEquals(set("two", "two+1"), fetchValues(2, t, t + WINDOW_SIZE));
        assertEquals(set("two", "two+1", "two+2"), fetchValues(2, t + 1L, t + 1L + WINDOW_SIZE));
        assertEquals(set("two", "two+1", "two+2", "two+3"), fetchValues(2, t + 2L, t + 2L + WINDOW_SIZE));
        assertEquals(set("two+1", "two+2", "two+3", "two+4"), fetchValues(2, t + 3L, t + 3L + WINDOW_SIZE));
        assertEquals(set("two+2", "two+3", "two+4", "two+5"), fetchValues(2, t + 4L, t + 4L + WINDOW_SIZE));
        assertEquals(set("two+3", "two+4", "two+5", "two+6"), fetchValues(2, t + 5L, t + 5L + WINDOW_SIZE));
        assertEquals(set("two+4", "two+5", "two+6"), fetchValues(2, t + 6L, t + 6L + WINDOW_SIZE));
        assertEquals(set("two+5", "two+6"), fetchValues(2, t + 7L, t + 7L + WINDOW_SIZE));
        assertEquals(set("two+6"), fetchValues(2, t + 8L, t + 8L + WINDOW_SIZE));
        assertEquals(set(), fetchValues(2, t + 9L, t + 9L + WINDOW_SIZE));
        assertEquals(set(), fetchValues(2, t + 10L, t + 10L + WINDOW_SIZE));
        assertEquals(set(), fetchValues(2, t + 11L, t + 11L + WINDOW_SIZE));
        assertEquals(set(), fetchValues(2, t + 12L, t + 12L + WINDOW_SIZE));
    }

    @Test
    void testPutSameKeyTimestamp() {
        windowStore.close();
        windowStore = buildWindowStore(RETENTION_PERIOD, WINDOW_SIZE, true, Serdes.Integer(), Serdes.String());
        windowStore.init((StateStoreContext) context, windowStore);

        windowStore.put(0, "zero", defaultStartTime);
        assertEquals(set("zero"), fetchValues(0, defaultStartTime - WINDOW_SIZE, defaultStartTime + WINDOW_SIZE));

        windowStore.put(0, "zero", defaultStartTime);
        windowStore.put(0, "zero+", defaultStartTime);
        windowStore.put(0, "zero++", defaultStartTime);

        long t = defaultStartTime;
        assertEquals(
                List.of("zero", "zero", "zero+", "zero++"),
                toList(windowStore.fetch(0, ofEpochMilli(t - WINDOW_SIZE), ofEpochMilli(t + WINDOW_SIZE))).stream()
                        .map(kv -> kv.value)
                        .collect(java.util.stream.Collectors.toList()));
        assertEquals(set("zero", "zero+", "zero++"), fetchValues(0, t + 1L - WINDOW_SIZE, t + 1L + WINDOW_SIZE));
        assertEquals(set("zero", "zero+", "zero++"), fetchValues(0, t + 2L - WINDOW_SIZE, t + 2L + WINDOW_SIZE));
        assertEquals(set("zero", "zero+", "zero++"), fetchValues(0, t + 3L - WINDOW_SIZE, t + 3L + WINDOW_SIZE));
        assertEquals(set(), fetchValues(0, t + 4L - WINDOW_SIZE, t + 4L + WINDOW_SIZE));

        // Four changelog entries at one timestamp, with distinct seqnums.
        long atStart = context.changelog().stream()
                .filter(kv -> ByteBuffer.wrap(kv.key.get()).getLong(4) == t)
                .count();
        assertEquals(4, atStart);
        assertEquals(
                4,
                context.changelog().stream()
                        .map(kv -> ByteBuffer.wrap(kv.key.get()).getInt(12))
                        .distinct()
                        .count());
    }

    @Test
    void shouldCloseOpenIteratorsWhenStoreIsClosedAndNotThrowInvalidStateStoreExceptionOnHasNext() {
        windowStore.put(1, "one", 1L);
        windowStore.put(1, "two", 2L);
        windowStore.put(1, "three", 3L);
        try (WindowStoreIterator<String> iterator = windowStore.fetch(1, ofEpochMilli(1L), ofEpochMilli(3L))) {
            assertTrue(iterator.hasNext());
            windowStore.close();
            assertFalse(iterator.hasNext());
        }
    }

    @Test
    void shouldFetchAndIterateOverExactKeys() {
        long windowSize = 0x7a00000000000000L;
        long retentionPeriod = 0x7a00000000000000L;
        windowStore.close();
        WindowStore<String, String> store =
                buildWindowStore(retentionPeriod, windowSize, false, Serdes.String(), Serdes.String());
        store.init((StateStoreContext) context, store);
        try {
            store.put("a", "0001", 0);
            store.put("aa", "0002", 0);
            store.put("a", "0003", 1);
            store.put("aa", "0004", 1);
            store.put("a", "0005", 0x7a00000000000000L - 1);

            assertEquals(
                    set("0001", "0003", "0005"),
                    valuesToSet(store.fetch("a", ofEpochMilli(0), ofEpochMilli(Long.MAX_VALUE))));
            assertEquals(
                    new HashSet<>(asList(
                            SegmentedStoreFixture.windowedPair("a", "0001", 0, windowSize),
                            SegmentedStoreFixture.windowedPair("a", "0003", 1, windowSize),
                            SegmentedStoreFixture.windowedPair("a", "0005", 0x7a00000000000000L - 1, windowSize))),
                    toSet(store.fetch("a", "a", ofEpochMilli(0), ofEpochMilli(Long.MAX_VALUE))));
            assertEquals(
                    new HashSet<>(asList(
                            SegmentedStoreFixture.windowedPair("aa", "0002", 0, windowSize),
                            SegmentedStoreFixture.windowedPair("aa", "0004", 1, windowSize))),
                    toSet(store.fetch("aa", "aa", ofEpochMilli(0), ofEpochMilli(Long.MAX_VALUE))));
        } finally {
            store.close();
        }
    }

    @Test
    void testDeleteAndUpdate() {
        long currentTime = 0;
        windowStore.put(1, "one", currentTime);
        windowStore.put(1, "one v2", currentTime);
        try (WindowStoreIterator<String> iterator = windowStore.fetch(1, 0, currentTime)) {
            assertEquals(new KeyValue<>(currentTime, "one v2"), iterator.next());
        }
        windowStore.put(1, null, currentTime);
        try (WindowStoreIterator<String> iterator = windowStore.fetch(1, 0, currentTime)) {
            assertFalse(iterator.hasNext());
        }
    }

    @Test
    void shouldReturnNullOnWindowNotFound() {
        assertNull(windowStore.fetch(1, 0L));
    }

    @Test
    void shouldThrowNullPointerExceptionOnPutNullKey() {
        assertThrows(NullPointerException.class, () -> windowStore.put(null, "anyValue", 0L));
    }

    @Test
    void shouldThrowNullPointerExceptionOnGetNullKey() {
        assertThrows(NullPointerException.class, () -> windowStore.fetch(null, ofEpochMilli(1L), ofEpochMilli(2L)));
    }

    @Test
    void shouldFetchAndIterateOverExactBinaryKeys() {
        windowStore.close();
        WindowStore<Bytes, String> store =
                buildWindowStore(RETENTION_PERIOD, WINDOW_SIZE, true, Serdes.Bytes(), Serdes.String());
        store.init((StateStoreContext) context, store);
        try {
            Bytes key1 = Bytes.wrap(new byte[] {0});
            Bytes key2 = Bytes.wrap(new byte[] {0, 0});
            Bytes key3 = Bytes.wrap(new byte[] {0, 0, 0});
            store.put(key1, "1", 0);
            store.put(key2, "2", 0);
            store.put(key3, "3", 0);
            store.put(key1, "4", 1);
            store.put(key2, "5", 1);
            store.put(key3, "6", 59999);
            store.put(key1, "7", 59999);
            store.put(key2, "8", 59999);
            store.put(key3, "9", 59999);

            assertEquals(
                    set("1", "4", "7"), valuesToSet(store.fetch(key1, ofEpochMilli(0), ofEpochMilli(Long.MAX_VALUE))));
            assertEquals(
                    set("2", "5", "8"), valuesToSet(store.fetch(key2, ofEpochMilli(0), ofEpochMilli(Long.MAX_VALUE))));
            assertEquals(
                    set("3", "6", "9"), valuesToSet(store.fetch(key3, ofEpochMilli(0), ofEpochMilli(Long.MAX_VALUE))));
        } finally {
            store.close();
        }
    }

    @Test
    void shouldReturnSameResultsForSingleKeyFetchAndEqualKeyRangeFetch() {
        windowStore.put(1, "one", 0L);
        windowStore.put(2, "two", 1L);
        windowStore.put(2, "two", 2L);
        windowStore.put(3, "three", 3L);
        try (WindowStoreIterator<String> singleKeyIterator = windowStore.fetch(2, 0L, 5L);
                KeyValueIterator<Windowed<Integer>, String> keyRangeIterator = windowStore.fetch(2, 2, 0L, 5L)) {
            assertEquals(singleKeyIterator.next().value, keyRangeIterator.next().value);
            assertEquals(singleKeyIterator.next().value, keyRangeIterator.next().value);
            assertFalse(singleKeyIterator.hasNext());
            assertFalse(keyRangeIterator.hasNext());
        }
    }

    @Test
    void shouldNotThrowInvalidRangeExceptionWithNegativeFromKey() {
        String log = capturingLog(() -> {
            try (KeyValueIterator<Windowed<Integer>, String> iterator = windowStore.fetch(-1, 1, 0L, 10L)) {
                assertFalse(iterator.hasNext());
            }
        });
        assertTrue(log.contains(INVALID_RANGE_WARNING), log);
    }

    @Test
    void shouldMeasureExpiredRecords() {
        String log = capturingLog(() -> {
            // Advance stream time so that records with timestamp 0 are expired.
            windowStore.put(1, "initial record", 2 * RETENTION_PERIOD);
            windowStore.put(1, "late record", 0L);
            windowStore.put(1, "another on-time record", RETENTION_PERIOD + 1);
        });
        assertTrue(log.contains("Skipping record for expired segment."), log);

        Map<MetricName, ? extends Metric> metrics = context.metrics().metrics();
        Map<String, String> tags = Map.of("thread-id", Thread.currentThread().getName(), "task-id", "0_0");
        Metric dropTotal = metrics.get(new MetricName("dropped-records-total", "stream-task-metrics", "", tags));
        Metric dropRate = metrics.get(new MetricName("dropped-records-rate", "stream-task-metrics", "", tags));
        assertEquals(1.0, dropTotal.metricValue());
        assertNotEquals(0.0, dropRate.metricValue());
    }

    @Test
    void shouldNotThrowExceptionWhenFetchRangeIsExpired() {
        windowStore.put(1, "one", 0L);
        windowStore.put(1, "two", 4 * RETENTION_PERIOD);
        try (WindowStoreIterator<String> iterator = windowStore.fetch(1, 0L, 10L)) {
            assertFalse(iterator.hasNext());
        }
    }

    @Test
    void testWindowIteratorPeek() {
        long currentTime = 0;
        windowStore.put(1, "one", currentTime);
        try (KeyValueIterator<Windowed<Integer>, String> iterator = windowStore.fetchAll(0L, currentTime)) {
            assertTrue(iterator.hasNext());
            Windowed<Integer> nextKey = iterator.peekNextKey();
            assertEquals(iterator.peekNextKey(), nextKey);
            assertEquals(iterator.peekNextKey(), iterator.next().key);
            assertFalse(iterator.hasNext());
        }
    }

    @Test
    void testValueIteratorPeek() {
        windowStore.put(1, "one", 0L);
        try (WindowStoreIterator<String> iterator = windowStore.fetch(1, 0L, 10L)) {
            assertTrue(iterator.hasNext());
            Long nextKey = iterator.peekNextKey();
            assertEquals(iterator.peekNextKey(), nextKey);
            assertEquals(iterator.peekNextKey(), iterator.next().key);
            assertFalse(iterator.hasNext());
        }
    }

    @Test
    void shouldNotThrowConcurrentModificationException() {
        long currentTime = 0;
        windowStore.put(1, "one", currentTime);
        currentTime += WINDOW_SIZE * 10;
        windowStore.put(1, "two", currentTime);
        try (KeyValueIterator<Windowed<Integer>, String> iterator = windowStore.all()) {
            currentTime += WINDOW_SIZE * 10;
            windowStore.put(1, "three", currentTime);
            currentTime += WINDOW_SIZE * 10;
            windowStore.put(2, "four", currentTime);
            // Records added after all() but before the first hasNext() are returned.
            assertEquals(windowedPair(1, "one", 0), iterator.next());
            assertEquals(windowedPair(1, "two", WINDOW_SIZE * 10), iterator.next());
            assertEquals(windowedPair(1, "three", WINDOW_SIZE * 20), iterator.next());
            assertEquals(windowedPair(2, "four", WINDOW_SIZE * 30), iterator.next());
            assertFalse(iterator.hasNext());
        }
    }

    @Test
    void testFetchDuplicates() {
        windowStore.close();
        windowStore = buildWindowStore(RETENTION_PERIOD, WINDOW_SIZE, true, Serdes.Integer(), Serdes.String());
        windowStore.init((StateStoreContext) context, windowStore);

        long currentTime = 0;
        windowStore.put(1, "one", currentTime);
        windowStore.put(1, "one-2", currentTime);
        currentTime += WINDOW_SIZE * 10;
        windowStore.put(1, "two", currentTime);
        windowStore.put(1, "two-2", currentTime);
        currentTime += WINDOW_SIZE * 10;
        windowStore.put(1, "three", currentTime);
        windowStore.put(1, "three-2", currentTime);

        try (WindowStoreIterator<String> iterator = windowStore.fetch(1, 0, WINDOW_SIZE * 10)) {
            assertEquals(new KeyValue<>(0L, "one"), iterator.next());
            assertEquals(new KeyValue<>(0L, "one-2"), iterator.next());
            assertEquals(new KeyValue<>(WINDOW_SIZE * 10, "two"), iterator.next());
            assertEquals(new KeyValue<>(WINDOW_SIZE * 10, "two-2"), iterator.next());
            assertFalse(iterator.hasNext());
        }
    }

    // ---------------------------------------------------------------- AbstractRocksDBWindowStoreTest (visible effects)

    @Test
    void shouldOnlyIterateOpenSegments() {
        long currentTime = 0;
        windowStore.put(1, "one", currentTime);
        currentTime = currentTime + SEGMENT_INTERVAL;
        windowStore.put(1, "two", currentTime);
        currentTime = currentTime + SEGMENT_INTERVAL;
        windowStore.put(1, "three", currentTime);

        try (WindowStoreIterator<String> iterator = windowStore.fetch(1, 0L, currentTime)) {
            // roll to the next segment, which expires the first
            currentTime = currentTime + SEGMENT_INTERVAL;
            windowStore.put(1, "four", currentTime);
            if (timeOrdered()) {
                // Known difference (see TxnRocksDBDslStoreSuppliers): streamTime - retention =
                // 60000 is a segment boundary, where our time-ordered layout deletes segment 0
                // one ms of stream time later than Kafka, and this iterator was opened before.
                assertEquals(new KeyValue<>(0L, "one"), iterator.next());
            }
            assertEquals(new KeyValue<>(SEGMENT_INTERVAL, "two"), iterator.next());
            assertEquals(new KeyValue<>(2 * SEGMENT_INTERVAL, "three"), iterator.next());
            assertFalse(iterator.hasNext());
        }
    }

    @Test
    void testRolling() {
        long startTime = SEGMENT_INTERVAL * 2;
        long increment = SEGMENT_INTERVAL / 2;
        windowStore.put(0, "zero", startTime);
        windowStore.put(1, "one", startTime + increment);
        windowStore.put(2, "two", startTime + increment * 2);
        windowStore.put(4, "four", startTime + increment * 4);
        windowStore.put(5, "five", startTime + increment * 5);

        // Stream time 270000, retention 120000: the key-first store shows starts > 150000, the
        // time-ordered one starts >= 150000.
        assertEquals(set(), fetchValues(0, startTime - WINDOW_SIZE, startTime + WINDOW_SIZE));
        assertEquals(
                timeOrdered() ? set("one") : set(),
                fetchValues(1, startTime + increment - WINDOW_SIZE, startTime + increment + WINDOW_SIZE));
        assertEquals(
                set("two"),
                fetchValues(2, startTime + increment * 2 - WINDOW_SIZE, startTime + increment * 2 + WINDOW_SIZE));
        assertEquals(
                set(),
                fetchValues(3, startTime + increment * 3 - WINDOW_SIZE, startTime + increment * 3 + WINDOW_SIZE));
        assertEquals(
                set("four"),
                fetchValues(4, startTime + increment * 4 - WINDOW_SIZE, startTime + increment * 4 + WINDOW_SIZE));
        assertEquals(
                set("five"),
                fetchValues(5, startTime + increment * 5 - WINDOW_SIZE, startTime + increment * 5 + WINDOW_SIZE));

        windowStore.put(6, "six", startTime + increment * 6);
        assertEquals(set(), fetchValues(0, startTime - WINDOW_SIZE, startTime + WINDOW_SIZE));
        assertEquals(set(), fetchValues(1, startTime + increment - WINDOW_SIZE, startTime + increment + WINDOW_SIZE));
        assertEquals(
                timeOrdered() ? set("two") : set(),
                fetchValues(2, startTime + increment * 2 - WINDOW_SIZE, startTime + increment * 2 + WINDOW_SIZE));
        assertEquals(
                set("four"),
                fetchValues(4, startTime + increment * 4 - WINDOW_SIZE, startTime + increment * 4 + WINDOW_SIZE));
        assertEquals(
                set("five"),
                fetchValues(5, startTime + increment * 5 - WINDOW_SIZE, startTime + increment * 5 + WINDOW_SIZE));
        assertEquals(
                set("six"),
                fetchValues(6, startTime + increment * 6 - WINDOW_SIZE, startTime + increment * 6 + WINDOW_SIZE));

        windowStore.put(7, "seven", startTime + increment * 7);
        assertEquals(
                set(),
                fetchValues(2, startTime + increment * 2 - WINDOW_SIZE, startTime + increment * 2 + WINDOW_SIZE));
        assertEquals(
                set("four"),
                fetchValues(4, startTime + increment * 4 - WINDOW_SIZE, startTime + increment * 4 + WINDOW_SIZE));
        assertEquals(
                set("seven"),
                fetchValues(7, startTime + increment * 7 - WINDOW_SIZE, startTime + increment * 7 + WINDOW_SIZE));

        // A put into an expired segment is dropped and stays invisible.
        windowStore.put(8, "late", startTime);
        assertEquals(set(), fetchValues(8, 0, Long.MAX_VALUE));
    }

    @Test
    void testRestore() {
        // Records are written through the change-logging layer; a fresh store restores them.
        long startTime = SEGMENT_INTERVAL * 2;
        long increment = SEGMENT_INTERVAL / 2;
        for (int i = 0; i <= 7; i++) {
            windowStore.put(i, "v" + i, startTime + increment * i);
        }
        List<KeyValue<Bytes, byte[]>> changelog = List.copyOf(context.changelog());
        List<Long> timestamps = List.copyOf(context.changelogTimestamps());
        windowStore.close();

        Path restoredDir = stateDir.resolve("restored");
        SegmentedStoreTestContext restoreContext = new SegmentedStoreTestContext(restoredDir.toFile());
        windowStore = buildWindowStore(RETENTION_PERIOD, WINDOW_SIZE, false, Serdes.Integer(), Serdes.String());
        windowStore.init((StateStoreContext) restoreContext, windowStore);
        restoreContext.restore(changelog, timestamps);

        // Stream time is the restored batch's newest start (330000), so starts before 210000(+1)
        // are invisible, and the records of segment 2 (before 180000) were not even written.
        Set<String> visible = valuesToSet(windowStore.fetchAll(0L, Long.MAX_VALUE));
        assertEquals(timeOrdered() ? set("v3", "v4", "v5", "v6", "v7") : set("v4", "v5", "v6", "v7"), visible);
        assertEquals(set("v7"), fetchValues(7, 0, Long.MAX_VALUE));
    }

    @Test
    void shouldMatchPositionAfterPut() {
        context.setRecord("input", 1, 0L);
        windowStore.put(0, "0", SEGMENT_INTERVAL);
        context.setRecord("input", 2, 0L);
        windowStore.put(1, "1", SEGMENT_INTERVAL);
        context.setRecord("input", 3, 0L);
        windowStore.put(2, "2", SEGMENT_INTERVAL);
        assertEquals(
                org.apache.kafka.streams.query.Position.fromMap(Map.of("input", Map.of(0, 3L))),
                windowStore.getPosition());
    }
}
