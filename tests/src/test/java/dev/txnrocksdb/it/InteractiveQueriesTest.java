package dev.txnrocksdb.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TxnStores;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.RangeQuery;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.WindowKeyQuery;
import org.apache.kafka.streams.query.WindowRangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ReadOnlySessionStore;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Interactive queries against a running exactly-once app (in this JVM) whose KV, window and session
 * counts live in our transactional stores, on a real KRaft broker: IQv1 ({@code KafkaStreams.store})
 * and IQv2 ({@code KafkaStreams.query}) over every partition, and {@code READ_COMMITTED} isolation.
 *
 * <p>Kafka 4.4's public isolation API for interactive queries: {@code StateQueryRequest.withIsolationLevel}
 * (IQv2, per query), the config {@code default.interactive.query.isolation.level} (IQv1 and the IQv2
 * default, {@code READ_UNCOMMITTED} unless set), and {@code readOnly(IsolationLevel)} on the stores IQv1
 * returns. For IQv1 on the DSL's (timestamped) stores, the isolation level only takes effect through
 * {@code QueryableStoreTypes.timestampedKeyValueStore()} / {@code timestampedWindowStore()}: the plain
 * types wrap the store in a Kafka facade that ignores it (asserted below).
 *
 * <p>Commits are under the test's control: {@code commit.interval.ms} (and the transaction timeout) is
 * ten minutes, and a {@code COMMIT} record makes the app call {@code context.commit()}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InteractiveQueriesTest {

    static final String APP = "iq";
    static final String INPUT = "iq-input";
    static final String KV = "iq-counts";
    static final String WINDOW = "iq-window-counts";
    static final String SESSION = "iq-session-counts";
    static final int PARTITIONS = 2;
    /** Event time of the first record: recent and on a window boundary. */
    static final long T = System.currentTimeMillis() / 10_000 * 10_000
            - Duration.ofMinutes(10).toMillis();

    static BrokerFixture kafka;
    static KafkaStreams streams;

    @BeforeAll
    static void start() throws Exception {
        kafka = BrokerFixture.start("iq");
        kafka.createTopics(PARTITIONS, INPUT);
        StreamsBuilder builder = new StreamsBuilder();
        KGroupedStream<String, String> grouped = builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
                .processValues(CommitOnMarker::new)
                .groupByKey();
        grouped.count(Materialized.<String, Long>as(TxnStores.persistentTransactionalTimestampedKeyValueStore(KV))
                .withKeySerde(Serdes.String())
                .withValueSerde(Serdes.Long()));
        grouped.windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofSeconds(10)))
                .count(Materialized.<String, Long>as(TxnStores.persistentTransactionalTimestampedWindowStore(
                                WINDOW, Duration.ofHours(1), Duration.ofSeconds(10), false))
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()));
        grouped.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(Duration.ofSeconds(5)))
                .count(Materialized.<String, Long>as(
                                TxnStores.persistentTransactionalSessionStore(SESSION, Duration.ofHours(1)))
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()));

        streams = kafka.startEosApp(
                APP,
                builder.build(),
                Map.of(
                        StreamsConfig.COMMIT_INTERVAL_MS_CONFIG,
                        Duration.ofMinutes(10).toMillis(),
                        // Streams refuses a transaction timeout below the commit interval (the broker allows up to 15
                        // min)
                        StreamsConfig.producerPrefix("transaction.timeout.ms"),
                        (int) Duration.ofMinutes(10).toMillis(),
                        // no record cache: IQ reads go to our stores (READ_UNCOMMITTED would otherwise be served by the
                        // cache)
                        StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG,
                        0));

        // a=3, b=2, c=1; windows [T, T+10s): a=2, b=1; [T+10s, ..): c=1; [T+30s, ..): a=1, b=1;
        // sessions (5 s gap): a [T, T+1s]=2, a [T+30s]=1, b [T+2s]=1, b [T+31s]=1, c [T+12s]=1
        send(List.of("a@0", "a@1000", "b@2000", "c@12000", "a@30000", "b@31000"));
        commitAndAwait(
                Map.of("a", 3L, "b", 2L, "c", 1L),
                Map.of(
                        "a",
                        Map.of(T, 2L, T + 30_000, 1L),
                        "b",
                        Map.of(T, 1L, T + 30_000, 1L),
                        "c",
                        Map.of(T + 10_000, 1L)),
                Map.of(
                        "a",
                        Map.of(session("a", 0, 1000), 2L, session("a", 30_000, 30_000), 1L),
                        "b",
                        Map.of(session("b", 2000, 2000), 1L, session("b", 31_000, 31_000), 1L),
                        "c",
                        Map.of(session("c", 12_000, 12_000), 1L)));
    }

    @AfterAll
    static void stop() throws Exception {
        if (streams != null) {
            streams.close(Duration.ofSeconds(30));
            streams.cleanUp();
        }
        if (kafka != null) kafka.close();
    }

    /** Forwards every record but {@code COMMIT}, which requests a commit instead. */
    static final class CommitOnMarker implements FixedKeyProcessor<String, String, String> {
        private FixedKeyProcessorContext<String, String> context;

        @Override
        public void init(FixedKeyProcessorContext<String, String> context) {
            this.context = context;
        }

        @Override
        public void process(FixedKeyRecord<String, String> record) {
            if ("COMMIT".equals(record.value())) {
                context.commit();
            } else {
                context.forward(record);
            }
        }
    }

    // ------------------------------------------------------------------ IQv1

    @Test
    void iqV1KeyValueGetRangeAll() {
        ReadOnlyKeyValueStore<String, Long> store =
                streams.store(StoreQueryParameters.fromNameAndType(KV, QueryableStoreTypes.keyValueStore()));
        assertEquals(3L, store.get("a"));
        assertEquals(2L, store.get("b"));
        assertEquals(1L, store.get("c"));
        assertEquals(null, store.get("zzz"));
        assertEquals(Map.of("a", 3L, "b", 2L), drain(store.range("a", "b"), kv -> kv.key));
        assertEquals(Map.of("a", 3L, "b", 2L, "c", 1L), drain(store.all(), kv -> kv.key));
        assertEquals(Map.of("b", 2L, "c", 1L), drain(store.reverseRange("b", "c"), kv -> kv.key));

        ReadOnlyKeyValueStore<String, ValueAndTimestamp<Long>> timestamped =
                streams.store(StoreQueryParameters.fromNameAndType(KV, QueryableStoreTypes.timestampedKeyValueStore()));
        assertEquals(ValueAndTimestamp.make(3L, T + 30_000), timestamped.get("a"));
        assertEquals(ValueAndTimestamp.make(1L, T + 12_000), timestamped.get("c"));
    }

    @Test
    void iqV1WindowFetch() {
        ReadOnlyWindowStore<String, Long> store =
                streams.store(StoreQueryParameters.fromNameAndType(WINDOW, QueryableStoreTypes.windowStore()));
        assertEquals(2L, store.fetch("a", T));
        assertEquals(
                Map.of(T, 2L, T + 30_000, 1L),
                drainWindow(store.fetch("a", Instant.ofEpochMilli(T), Instant.ofEpochMilli(T + 60_000))));
        assertEquals(
                Map.of(T, 2L),
                drainWindow(store.fetch("a", Instant.ofEpochMilli(T), Instant.ofEpochMilli(T + 29_999))));
        assertEquals(
                Map.of("a@" + T, 2L, "b@" + T, 1L, "c@" + (T + 10_000), 1L),
                drain(
                        store.fetchAll(Instant.ofEpochMilli(T), Instant.ofEpochMilli(T + 10_000)),
                        InteractiveQueriesTest::windowKey));
        assertEquals(
                Map.of("a@" + (T + 30_000), 1L, "b@" + (T + 30_000), 1L),
                drain(
                        store.fetch("a", "b", Instant.ofEpochMilli(T + 20_000), Instant.ofEpochMilli(T + 60_000)),
                        InteractiveQueriesTest::windowKey));
        assertEquals(5, drain(store.all(), InteractiveQueriesTest::windowKey).size());
    }

    @Test
    void iqV1SessionFetch() {
        ReadOnlySessionStore<String, Long> store =
                streams.store(StoreQueryParameters.fromNameAndType(SESSION, QueryableStoreTypes.sessionStore()));
        assertEquals(
                Map.of("a@" + T + "-" + (T + 1000), 2L, "a@" + (T + 30_000) + "-" + (T + 30_000), 1L),
                drain(store.fetch("a"), InteractiveQueriesTest::sessionKey));
        assertEquals(
                Map.of(
                        "b@" + (T + 2000) + "-" + (T + 2000),
                        1L,
                        "b@" + (T + 31_000) + "-" + (T + 31_000),
                        1L,
                        "c@" + (T + 12_000) + "-" + (T + 12_000),
                        1L),
                drain(store.fetch("b", "c"), InteractiveQueriesTest::sessionKey));
        assertEquals(
                Map.of("a@" + T + "-" + (T + 1000), 2L),
                drain(store.findSessions("a", T, T + 10_000), InteractiveQueriesTest::sessionKey));
    }

    // ------------------------------------------------------------------ IQv2

    @Test
    void iqV2KeyAndRangeQueries() {
        assertEquals(List.of(3L), values(query(KV, KeyQuery.<String, Long>withKey("a"), null)));
        assertEquals(List.of(), values(query(KV, KeyQuery.<String, Long>withKey("zzz"), null)));
        Map<String, Long> range = new TreeMap<>();
        for (KeyValueIterator<String, Long> it :
                values(query(KV, RangeQuery.<String, Long>withRange("b", "c"), null))) {
            range.putAll(drain(it, kv -> kv.key));
        }
        assertEquals(Map.of("b", 2L, "c", 1L), range);
        Map<String, Long> all = new TreeMap<>();
        for (KeyValueIterator<String, Long> it : values(query(KV, RangeQuery.<String, Long>withNoBounds(), null))) {
            all.putAll(drain(it, kv -> kv.key));
        }
        assertEquals(Map.of("a", 3L, "b", 2L, "c", 1L), all);
    }

    /**
     * On the DSL's timestamped window store, Kafka 4.4's IQv2 window queries return
     * {@code ValueAndTimestamp} values (its key-value queries return plain values).
     */
    @Test
    void iqV2WindowQueries() {
        Map<Long, ValueAndTimestamp<Long>> a = new TreeMap<>();
        for (WindowStoreIterator<ValueAndTimestamp<Long>> it : values(query(
                WINDOW,
                WindowKeyQuery.<String, ValueAndTimestamp<Long>>withKeyAndWindowStartRange(
                        "a", Instant.ofEpochMilli(T), Instant.ofEpochMilli(T + 60_000)),
                null))) {
            a.putAll(drainWindow(it));
        }
        assertEquals(
                Map.of(T, ValueAndTimestamp.make(2L, T + 1000), T + 30_000, ValueAndTimestamp.make(1L, T + 30_000)), a);
        Map<String, ValueAndTimestamp<Long>> range = new TreeMap<>();
        for (KeyValueIterator<Windowed<String>, ValueAndTimestamp<Long>> it : values(query(
                WINDOW,
                WindowRangeQuery.<String, ValueAndTimestamp<Long>>withWindowStartRange(
                        Instant.ofEpochMilli(T + 10_000), Instant.ofEpochMilli(T + 30_000)),
                null))) {
            range.putAll(drain(it, InteractiveQueriesTest::windowKey));
        }
        assertEquals(
                Map.of(
                        "c@" + (T + 10_000),
                        ValueAndTimestamp.make(1L, T + 12_000),
                        "a@" + (T + 30_000),
                        ValueAndTimestamp.make(1L, T + 30_000),
                        "b@" + (T + 30_000),
                        ValueAndTimestamp.make(1L, T + 31_000)),
                range);
        // on a session store, WindowRangeQuery by key
        Map<String, Long> sessions = new TreeMap<>();
        for (KeyValueIterator<Windowed<String>, Long> it :
                values(query(SESSION, WindowRangeQuery.<String, Long>withKey("b"), null))) {
            sessions.putAll(drain(it, InteractiveQueriesTest::sessionKey));
        }
        assertEquals(
                Map.of("b@" + (T + 2000) + "-" + (T + 2000), 1L, "b@" + (T + 31_000) + "-" + (T + 31_000), 1L),
                sessions);
    }

    // ------------------------------------------------------------------ READ_COMMITTED

    /**
     * A write the app has processed but not committed is seen by READ_UNCOMMITTED queries (IQv1's
     * default here, IQv2 without isolation or with READ_UNCOMMITTED) and not by READ_COMMITTED ones
     * (IQv2 {@code withIsolationLevel}, IQv1 {@code readOnly(READ_COMMITTED)}), for all three store
     * kinds; after the commit, READ_COMMITTED sees it. Runs after the other tests (it adds records).
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void readCommittedDoesNotSeeUncommittedWrites() throws Exception {
        // IQv1 isolation per store: readOnly(IsolationLevel) on the store KafkaStreams.store returns. The
        // DSL's stores are timestamped: query them with the timestamped types (see below for why).
        ReadOnlyKeyValueStore<String, ValueAndTimestamp<Long>> kv =
                streams.store(StoreQueryParameters.fromNameAndType(KV, QueryableStoreTypes.timestampedKeyValueStore()));
        ReadOnlyWindowStore<String, ValueAndTimestamp<Long>> window = streams.store(
                StoreQueryParameters.fromNameAndType(WINDOW, QueryableStoreTypes.timestampedWindowStore()));
        ReadOnlySessionStore<String, Long> session =
                streams.store(StoreQueryParameters.fromNameAndType(SESSION, QueryableStoreTypes.sessionStore()));
        String key = "rc";
        String sessionKey = session(key, 40_000, 41_000);
        send(List.of(key + "@40000", key + "@41000"));
        // processed: READ_UNCOMMITTED (IQv1's default here, IQv2 with or without isolation) sees it
        // (the three aggregations update one after the other on the stream thread: wait for the last)
        BrokerFixture.await(
                "the uncommitted counts of " + key,
                Duration.ofSeconds(30),
                () -> Map.of(sessionKey, 2L).equals(drain(session.fetch(key), InteractiveQueriesTest::sessionKey)));
        assertEquals(ValueAndTimestamp.make(2L, T + 41_000), kv.get(key));
        assertEquals(List.of(2L), values(query(KV, KeyQuery.<String, Long>withKey(key), null)));
        assertEquals(
                List.of(2L), values(query(KV, KeyQuery.<String, Long>withKey(key), IsolationLevel.READ_UNCOMMITTED)));
        assertEquals(2L, window.fetch(key, T + 40_000).value());
        assertEquals(Map.of(T + 40_000, 2L), windowsOf(key, IsolationLevel.READ_UNCOMMITTED));

        // not committed: READ_COMMITTED does not, in IQv2 ...
        assertEquals(List.of(), values(query(KV, KeyQuery.<String, Long>withKey(key), IsolationLevel.READ_COMMITTED)));
        assertEquals(Map.of(), windowsOf(key, IsolationLevel.READ_COMMITTED));
        assertEquals(Map.of(), sessionsOf(key, IsolationLevel.READ_COMMITTED));
        Map<String, Long> committed = new TreeMap<>();
        for (KeyValueIterator<String, Long> it :
                values(query(KV, RangeQuery.<String, Long>withNoBounds(), IsolationLevel.READ_COMMITTED))) {
            committed.putAll(drain(it, e -> e.key));
        }
        assertEquals(Map.of("a", 3L, "b", 2L, "c", 1L), committed);
        // ... and in IQv1
        assertEquals(null, kv.readOnly(IsolationLevel.READ_COMMITTED).get(key));
        assertEquals(
                Map.of("a", 3L, "b", 2L, "c", 1L),
                drain(kv.readOnly(IsolationLevel.READ_COMMITTED).all(), e -> e.key).entrySet().stream()
                        .collect(java.util.stream.Collectors.toMap(
                                Map.Entry::getKey, e -> e.getValue().value())));
        assertEquals(null, window.readOnly(IsolationLevel.READ_COMMITTED).fetch(key, T + 40_000));
        assertEquals(
                Map.of(),
                drain(session.readOnly(IsolationLevel.READ_COMMITTED).fetch(key), InteractiveQueriesTest::sessionKey));

        // Kafka 4.4: QueryableStoreTypes.keyValueStore()/windowStore() on a timestamped store wrap it in
        // GenericReadOnlyKeyValueStoreFacade/GenericReadOnlyWindowStoreFacade, which do not override
        // readOnly(IsolationLevel): the interface default returns the facade itself, so READ_COMMITTED is
        // silently ignored there (our stores are never asked). Asserted so that a Kafka fix shows up here.
        ReadOnlyKeyValueStore<String, Long> plainKv =
                streams.store(StoreQueryParameters.fromNameAndType(KV, QueryableStoreTypes.keyValueStore()));
        ReadOnlyWindowStore<String, Long> plainWindow =
                streams.store(StoreQueryParameters.fromNameAndType(WINDOW, QueryableStoreTypes.windowStore()));
        assertEquals(
                2L,
                plainKv.readOnly(IsolationLevel.READ_COMMITTED).get(key),
                "Kafka's facade ignores the isolation level");
        assertEquals(
                2L,
                plainWindow.readOnly(IsolationLevel.READ_COMMITTED).fetch(key, T + 40_000),
                "Kafka's facade ignores the isolation level");

        // the commit makes it visible to READ_COMMITTED
        commitAndAwait(Map.of(key, 2L), Map.of(key, Map.of(T + 40_000, 2L)), Map.of(key, Map.of(sessionKey, 2L)));
        assertEquals(
                ValueAndTimestamp.make(2L, T + 41_000),
                kv.readOnly(IsolationLevel.READ_COMMITTED).get(key));
        assertEquals(
                ValueAndTimestamp.make(2L, T + 41_000),
                window.readOnly(IsolationLevel.READ_COMMITTED).fetch(key, T + 40_000));
        assertEquals(
                Map.of(sessionKey, 2L),
                drain(session.readOnly(IsolationLevel.READ_COMMITTED).fetch(key), InteractiveQueriesTest::sessionKey));
    }

    /** IQv2 WindowKeyQuery: window start -> count of {@code key}. */
    static Map<Long, Long> windowsOf(String key, IsolationLevel isolation) {
        Map<Long, Long> out = new TreeMap<>();
        for (WindowStoreIterator<ValueAndTimestamp<Long>> it : values(query(
                WINDOW,
                WindowKeyQuery.<String, ValueAndTimestamp<Long>>withKeyAndWindowStartRange(
                        key, Instant.ofEpochMilli(T), Instant.ofEpochMilli(T + 60_000)),
                isolation))) {
            drainWindow(it).forEach((start, v) -> out.put(start, v.value()));
        }
        return out;
    }

    /** IQv2 WindowRangeQuery on the session store: session -> count of {@code key}. */
    static Map<String, Long> sessionsOf(String key, IsolationLevel isolation) {
        Map<String, Long> out = new TreeMap<>();
        for (KeyValueIterator<Windowed<String>, Long> it :
                values(query(SESSION, WindowRangeQuery.<String, Long>withKey(key), isolation))) {
            out.putAll(drain(it, InteractiveQueriesTest::sessionKey));
        }
        return out;
    }

    // ------------------------------------------------------------------ helpers

    /** Sends {@code key@offsetMs} records with timestamp T + offsetMs. */
    static void send(List<String> records) throws Exception {
        try (KafkaProducer<String, String> producer = kafka.stringProducer()) {
            for (String r : records) {
                String[] f = r.split("@");
                producer.send(new ProducerRecord<>(INPUT, null, T + Long.parseLong(f[1]), f[0], "x"))
                        .get(30, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Sends a COMMIT marker to every partition and waits until READ_COMMITTED IQv2 queries see {@code expected}
     * in all three stores (each store commits on its own, one after the other).
     */
    static void commitAndAwait(
            Map<String, Long> expectedKv,
            Map<String, Map<Long, Long>> expectedWindows,
            Map<String, Map<String, Long>> expectedSessions)
            throws Exception {
        try (KafkaProducer<String, String> producer = kafka.stringProducer()) {
            for (int p = 0; p < PARTITIONS; p++) {
                producer.send(new ProducerRecord<>(INPUT, p, T + 59_000, "~marker", "COMMIT"))
                        .get(30, TimeUnit.SECONDS);
            }
        }
        BrokerFixture.await(
                "READ_COMMITTED " + expectedKv + " " + expectedWindows + " " + expectedSessions,
                Duration.ofSeconds(30),
                () -> {
                    for (Map.Entry<String, Long> e : expectedKv.entrySet()) {
                        if (!List.of(e.getValue())
                                .equals(values(query(
                                        KV,
                                        KeyQuery.<String, Long>withKey(e.getKey()),
                                        IsolationLevel.READ_COMMITTED)))) return false;
                    }
                    for (Map.Entry<String, Map<Long, Long>> e : expectedWindows.entrySet()) {
                        if (!e.getValue().equals(windowsOf(e.getKey(), IsolationLevel.READ_COMMITTED))) return false;
                    }
                    for (Map.Entry<String, Map<String, Long>> e : expectedSessions.entrySet()) {
                        if (!e.getValue().equals(sessionsOf(e.getKey(), IsolationLevel.READ_COMMITTED))) return false;
                    }
                    return true;
                });
    }

    /** An IQv2 query over every partition ({@code isolation} null: the app's default). */
    static <R> Map<Integer, QueryResult<R>> query(String store, Query<R> q, IsolationLevel isolation) {
        StateQueryRequest<R> request = StateQueryRequest.inStore(store).withQuery(q);
        if (isolation != null) request = request.withIsolationLevel(isolation);
        Map<Integer, QueryResult<R>> results = streams.query(request).getPartitionResults();
        assertEquals(PARTITIONS, results.size(), "partitions answered: " + results);
        results.forEach((p, r) -> assertTrue(
                r.isSuccess(), () -> "partition " + p + ": " + r.getFailureReason() + " " + r.getFailureMessage()));
        return results;
    }

    /** The non-null results of every partition. */
    static <R> List<R> values(Map<Integer, QueryResult<R>> results) {
        List<R> out = new ArrayList<>();
        results.values().forEach(r -> {
            if (r.getResult() != null) out.add(r.getResult());
        });
        return out;
    }

    static <K, V> Map<String, V> drain(KeyValueIterator<K, V> it, Function<KeyValue<K, V>, String> key) {
        Map<String, V> out = new TreeMap<>();
        try (it) {
            while (it.hasNext()) {
                KeyValue<K, V> kv = it.next();
                out.put(key.apply(kv), kv.value);
            }
        }
        return out;
    }

    static <V> Map<Long, V> drainWindow(WindowStoreIterator<V> it) {
        Map<Long, V> out = new TreeMap<>();
        try (it) {
            it.forEachRemaining(kv -> out.put(kv.key, kv.value));
        }
        return out;
    }

    static String windowKey(KeyValue<Windowed<String>, ?> kv) {
        return kv.key.key() + "@" + kv.key.window().start();
    }

    /** How {@link #sessionKey} names the session of {@code key} from T + startMs to T + endMs. */
    static String session(String key, long startMs, long endMs) {
        return key + "@" + (T + startMs) + "-" + (T + endMs);
    }

    static String sessionKey(KeyValue<Windowed<String>, Long> kv) {
        return kv.key.key() + "@" + kv.key.window().start() + "-"
                + kv.key.window().end();
    }
}
