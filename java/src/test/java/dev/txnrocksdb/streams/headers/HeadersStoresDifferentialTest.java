package dev.txnrocksdb.streams.headers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnStores;
import dev.txnrocksdb.streams.fixtures.TestDrivers.Reopen;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.AggregationWithHeaders;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.SessionStoreWithHeaders;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.TimestampedKeyValueStoreWithHeaders;
import org.apache.kafka.streams.state.TimestampedWindowStore;
import org.apache.kafka.streams.state.TimestampedWindowStoreWithHeaders;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.ValueTimestampHeaders;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Our stores with headers against Kafka 4.4's own ({@code Stores.persistent...WithHeaders}), under
 * Kafka's own headers builders, driven by the same random operations through a Processor API
 * topology on TopologyTestDriver with {@code enable.transactional.statestores=true}: puts with
 * random headers (repeated keys, null values, none), deletes, reads and range reads, timestamps in
 * and out of order past the retention, and a close and reopen half-way. Every read result, headers
 * byte for byte, and the final contents must be equal. The seed is in the failure message.
 */
class HeadersStoresDifferentialTest {
    private static final Duration RETENTION = Duration.ofSeconds(10);
    private static final Duration WINDOW = Duration.ofSeconds(1);
    private static final int OPERATIONS = 1_500;
    /** Where a run closes and reopens: the first phase runs the operations before it. */
    private static final int SPLIT = OPERATIONS / 2;

    @TempDir
    Path stateDir;

    private int runs;

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (String kind : List.of("key-value", "window", "session")) {
            for (TransactionStrategy strategy : TransactionStrategy.values()) {
                cases.add(Arguments.of(kind, strategy));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} with headers, {1}")
    @MethodSource("cases")
    void sameResultsAndHeadersAsKafkasStore(String kind, TransactionStrategy strategy) {
        long seed = System.nanoTime();
        List<Op> ops = operations(new Random(seed));
        List<String> kafka = run(List.of(topology(kind, null), topology(kind, null)), ops, Reopen.KEEPING_STATE);
        List<String> ours = run(List.of(topology(kind, strategy), topology(kind, strategy)), ops, Reopen.KEEPING_STATE);
        assertEquals(kafka.size(), ours.size(), kind + " with headers, seed " + seed);
        for (int i = 0; i < kafka.size(); i++) {
            assertEquals(
                    kafka.get(i),
                    ours.get(i),
                    kind + " with headers, result " + i + " (" + ops.get(i) + "), seed " + seed);
        }
        assertTrue(kafka.stream().anyMatch(line -> line.contains("h0=")), "some results carry headers; seed " + seed);
        // The reopen really reopens on the state written before it: on lost state the results differ
        // (the reads of every key right after the reopen see it), so a store of ours that lost its
        // state would fail the comparison above. (Kafka's reopened store is the reference, not its
        // uninterrupted run: window and session stores take their observed stream time up again
        // from -1 after a reopen, so until the next put they answer reads of expired windows that
        // the uninterrupted store no longer returns; ours do the same.)
        assertNotEquals(
                kafka,
                run(List.of(topology(kind, null), topology(kind, null)), ops, Reopen.LOSING_STATE),
                kind + ": a reopen on lost state goes unseen, seed " + seed);
    }

    /**
     * An application that turns headers on with existing state: the first half of the operations
     * runs on the store of the older format (timestamped key-value and window stores, a plain
     * session store), the second on the store with headers over the same state directory. Kafka's
     * stores upgrade their entries as they read them, ours when they open; the results must match.
     */
    @ParameterizedTest(name = "{0} upgraded to headers, {1}")
    @MethodSource("cases")
    void upgradingExistingStateMatchesKafka(String kind, TransactionStrategy strategy) {
        long seed = System.nanoTime();
        List<Op> ops = operations(new Random(seed));
        List<String> kafka = run(List.of(olderFormat(kind, null), topology(kind, null)), ops, Reopen.KEEPING_STATE);
        List<String> ours =
                run(List.of(olderFormat(kind, strategy), topology(kind, strategy)), ops, Reopen.KEEPING_STATE);
        assertEquals(kafka, ours, kind + " upgraded to headers, seed " + seed);
        assertTrue(
                kafka.stream().anyMatch(line -> line.contains("[]")),
                "old entries read back with empty headers; seed " + seed);
        // The upgrade really starts from the older store's state: on lost state the results differ.
        assertNotEquals(
                kafka,
                run(List.of(olderFormat(kind, null), topology(kind, null)), ops, Reopen.LOSING_STATE),
                kind + ": an upgrade from lost state goes unseen, seed " + seed);
    }

    /**
     * Issue 19's report: one record with a header {@code trace}, stored with its headers by the
     * Processor API, read back through TopologyTestDriver's typed store: the header is there, as with
     * Kafka's store (before, Kafka's adapter in front of our timestamped store dropped it silently).
     */
    @ParameterizedTest(name = "{0} with headers keeps a record's header, {1}")
    @MethodSource("cases")
    void aRecordsHeaderIsKeptInState(String kind, TransactionStrategy strategy) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "headers-kept");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(
                StreamsConfig.STATE_DIR_CONFIG,
                stateDir.resolve("kept-" + runs++).toString());
        props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        Headers trace = new RecordHeaders().add("trace", "abc-123".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        try (TopologyTestDriver driver =
                new TopologyTestDriver(topology(kind, strategy).get(), props)) {
            driver.createInputTopic("ops", new StringSerializer(), new StringSerializer())
                    .pipeInput(new org.apache.kafka.streams.test.TestRecord<>("k1", "put|hello|5000", trace, 5_000L));
            Headers stored;
            switch (kind) {
                case "key-value":
                    stored = driver.<String, String>getTimestampedKeyValueStoreWithHeaders("store")
                            .get("k1")
                            .headers();
                    break;
                case "window":
                    stored = driver.<String, String>getTimestampedWindowStoreWithHeaders("store")
                            .fetch("k1", 5_000L)
                            .headers();
                    break;
                default:
                    stored = driver.<String, String>getSessionStoreWithHeaders("store")
                            .fetchSession("k1", 5_000L, 5_000L)
                            .headers();
            }
            assertEquals("[trace=6162632d313233;]", render(stored), kind);
        }
    }

    /** The topology of the older format: puts only, without headers. */
    private static Supplier<Topology> olderFormat(String kind, TransactionStrategy ours) {
        return () -> {
            Topology topology = new Topology();
            topology.addSource("in", new StringDeserializer(), new StringDeserializer(), "ops");
            StoreBuilder<?> store;
            switch (kind) {
                case "key-value":
                    store = Stores.timestampedKeyValueStoreBuilder(
                            ours == null
                                    ? Stores.persistentTimestampedKeyValueStore("store")
                                    : TxnStores.persistentTransactionalTimestampedKeyValueStore("store", ours),
                            Serdes.String(),
                            Serdes.String());
                    break;
                case "window":
                    store = Stores.timestampedWindowStoreBuilder(
                            ours == null
                                    ? Stores.persistentTimestampedWindowStore("store", RETENTION, WINDOW, false)
                                    : TxnStores.persistentTransactionalTimestampedWindowStore(
                                            "store", RETENTION, WINDOW, false, ours),
                            Serdes.String(),
                            Serdes.String());
                    break;
                default:
                    store = Stores.sessionStoreBuilder(
                            ours == null
                                    ? Stores.persistentSessionStore("store", RETENTION)
                                    : TxnStores.persistentTransactionalSessionStore("store", RETENTION, ours),
                            Serdes.String(),
                            Serdes.String());
            }
            topology.addProcessor("apply", () -> new OlderFormatPut(kind), "in");
            topology.addStateStore(store, "apply");
            topology.addSink("out", "results", new StringSerializer(), new StringSerializer(), "apply");
            return topology;
        };
    }

    /** Writes each record's value without headers into the store of the older format. */
    private static final class OlderFormatPut implements Processor<String, String, String, String> {
        private final String kind;
        private ProcessorContext<String, String> context;

        OlderFormatPut(String kind) {
            this.kind = kind;
        }

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
        }

        @Override
        public void process(Record<String, String> record) {
            String[] f = fields(record);
            String value = f[1].equals("null") ? "was-null" : f[1];
            long start = record.timestamp() - record.timestamp() % WINDOW.toMillis();
            switch (kind) {
                case "key-value":
                    context.<TimestampedKeyValueStore<String, String>>getStateStore("store")
                            .put(record.key(), ValueAndTimestamp.make(value, record.timestamp()));
                    break;
                case "window":
                    context.<TimestampedWindowStore<String, String>>getStateStore("store")
                            .put(record.key(), ValueAndTimestamp.make(value, record.timestamp()), start);
                    break;
                default:
                    long other = Long.parseLong(f[2]);
                    context.<SessionStore<String, String>>getStateStore("store")
                            .put(
                                    new Windowed<>(
                                            record.key(),
                                            new SessionWindow(Math.min(other, record.timestamp()), record.timestamp())),
                                    value);
            }
            context.forward(record.withValue("put " + record.key()).withHeaders(new RecordHeaders()));
        }
    }

    /** One operation: what, on which key, with which value, headers and timestamp. */
    private static final class Op {
        final String what;
        final String key;
        final String value;
        final Headers headers;
        final long timestamp;
        final long other;

        Op(String what, String key, String value, Headers headers, long timestamp, long other) {
            this.what = what;
            this.key = key;
            this.value = value;
            this.headers = headers;
            this.timestamp = timestamp;
            this.other = other;
        }

        @Override
        public String toString() {
            return what + "(" + key + ", " + value + ", " + render(headers) + ", " + timestamp + ", " + other + ")";
        }
    }

    private static List<Op> operations(Random random) {
        String[] kinds = {"put", "put", "put", "put", "putIfAbsent", "delete", "get", "get", "range", "all"};
        List<Op> ops = new ArrayList<>();
        long time = 0;
        for (int i = 0; i < OPERATIONS; i++) {
            // mostly forward in time, sometimes back, across several retention periods
            time = Math.max(0, time + random.nextInt(400) - 120);
            Headers headers = new RecordHeaders();
            for (int h = random.nextInt(4); h > 0; h--) {
                byte[] value = random.nextInt(6) == 0 ? null : new byte[random.nextInt(5)];
                if (value != null) {
                    random.nextBytes(value);
                }
                headers.add("h" + random.nextInt(3), value);
            }
            String value = random.nextInt(10) == 0 ? null : "v" + i;
            ops.add(new Op(
                    kinds[random.nextInt(kinds.length)],
                    "k" + random.nextInt(25),
                    value,
                    headers,
                    time,
                    Math.max(0, time - random.nextInt(3_000))));
        }
        // Where a run may close and reopen, a read of every key's entries ("all": the whole store for
        // key-value stores, every window up to now for window stores, the key's sessions for session
        // stores), so what survived the reopen is read before anything else touches the store.
        long now = ops.get(SPLIT - 1).timestamp;
        for (int k = 0; k < 25; k++) {
            ops.add(SPLIT + k, new Op("all", "k" + k, null, new RecordHeaders(), now, 0));
        }
        return ops;
    }

    private static String render(Headers headers) {
        if (headers == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder("[");
        for (Header header : headers) {
            out.append(header.key()).append('=');
            if (header.value() == null) {
                out.append("null");
            } else {
                for (byte b : header.value()) {
                    out.append(String.format("%02x", b));
                }
            }
            out.append(';');
        }
        return out.append(']').toString();
    }

    private static String render(ValueTimestampHeaders<String> value) {
        return value == null ? "null" : value.value() + "@" + value.timestamp() + render(value.headers());
    }

    private static String render(AggregationWithHeaders<String> value) {
        return value == null ? "null" : value.aggregation() + render(value.headers());
    }

    /** The topology: a processor applying each input record's operation to the store named "store". */
    private static Supplier<Topology> topology(String kind, TransactionStrategy ours) {
        return () -> {
            Topology topology = new Topology();
            topology.addSource("in", new StringDeserializer(), new StringDeserializer(), "ops");
            StoreBuilder<?> store;
            switch (kind) {
                case "key-value": {
                    KeyValueBytesStoreSupplier supplier = ours == null
                            ? Stores.persistentTimestampedKeyValueStoreWithHeaders("store")
                            : TxnStores.persistentTransactionalTimestampedKeyValueStoreWithHeaders("store", ours);
                    store = Stores.timestampedKeyValueStoreWithHeadersBuilder(
                            supplier, Serdes.String(), Serdes.String());
                    topology.addProcessor("apply", KeyValueApply::new, "in");
                    break;
                }
                case "window": {
                    WindowBytesStoreSupplier supplier = ours == null
                            ? Stores.persistentTimestampedWindowStoreWithHeaders("store", RETENTION, WINDOW, false)
                            : TxnStores.persistentTransactionalTimestampedWindowStoreWithHeaders(
                                    "store", RETENTION, WINDOW, false, ours);
                    store = Stores.timestampedWindowStoreWithHeadersBuilder(supplier, Serdes.String(), Serdes.String());
                    topology.addProcessor("apply", WindowApply::new, "in");
                    break;
                }
                default: {
                    SessionBytesStoreSupplier supplier = ours == null
                            ? Stores.persistentSessionStoreWithHeaders("store", RETENTION)
                            : TxnStores.persistentTransactionalSessionStoreWithHeaders("store", RETENTION, ours);
                    store = Stores.sessionStoreWithHeadersBuilder(supplier, Serdes.String(), Serdes.String());
                    topology.addProcessor("apply", SessionApply::new, "in");
                }
            }
            topology.addStateStore(store, "apply");
            topology.addSink("out", "results", new StringSerializer(), new StringSerializer(), "apply");
            return topology;
        };
    }

    /**
     * Runs the first half of the operations on the first topology, closes the application as
     * {@code reopen} says and runs the second half on the second one over the same state directory
     * (with {@link Reopen#NONE}, every operation on the one topology); the results.
     */
    private List<String> run(List<Supplier<Topology>> phases, List<Op> ops, Reopen reopen) {
        Path dir = stateDir.resolve("run-" + runs++);
        List<String> results = new ArrayList<>();
        for (int phase = 0; phase < phases.size(); phase++) {
            List<Op> half =
                    reopen == Reopen.NONE ? ops : phase == 0 ? ops.subList(0, SPLIT) : ops.subList(SPLIT, ops.size());
            Supplier<Topology> topology = phases.get(phase);
            Properties props = new Properties();
            props.put(StreamsConfig.APPLICATION_ID_CONFIG, "headers-differential");
            props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
            props.put(StreamsConfig.STATE_DIR_CONFIG, dir.toString());
            props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
            props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
            TopologyTestDriver driver = new TopologyTestDriver(topology.get(), props);
            try {
                TestInputTopic<String, String> in =
                        driver.createInputTopic("ops", new StringSerializer(), new StringSerializer());
                TestOutputTopic<String, String> out =
                        driver.createOutputTopic("results", new StringDeserializer(), new StringDeserializer());
                for (Op op : half) {
                    in.pipeInput(new org.apache.kafka.streams.test.TestRecord<>(
                            op.key, op.what + "|" + op.value + "|" + op.other, op.headers, op.timestamp));
                }
                out.readValuesToList().forEach(results::add);
            } finally {
                reopen.close(driver, props, phase == 0);
            }
        }
        return results;
    }

    /** Every entry of {@code iterator} as {@code key=value}, in order; closes it. */
    private static <K, V> String drain(KeyValueIterator<K, V> iterator, Function<V, String> render) {
        StringBuilder out = new StringBuilder();
        try (iterator) {
            iterator.forEachRemaining(kv -> out.append(kv.key)
                    .append('=')
                    .append(render.apply(kv.value))
                    .append(' '));
        }
        return out.toString();
    }

    private static String[] fields(Record<String, String> record) {
        return record.value().split("\\|", -1);
    }

    private static String nullable(String field) {
        return field.equals("null") ? null : field;
    }

    private static final class KeyValueApply implements Processor<String, String, String, String> {
        private ProcessorContext<String, String> context;
        private TimestampedKeyValueStoreWithHeaders<String, String> store;

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            this.store = context.getStateStore("store");
        }

        @Override
        public void process(Record<String, String> record) {
            String[] f = fields(record);
            String value = nullable(f[1]);
            String result;
            switch (f[0]) {
                case "put":
                    store.put(
                            record.key(),
                            value == null
                                    ? null
                                    : ValueTimestampHeaders.make(value, record.timestamp(), record.headers()));
                    result = "ok";
                    break;
                case "putIfAbsent":
                    result = render(store.putIfAbsent(
                            record.key(),
                            ValueTimestampHeaders.make(
                                    value == null ? "absent" : value, record.timestamp(), record.headers())));
                    break;
                case "delete":
                    result = render(store.delete(record.key()));
                    break;
                case "get":
                    result = render(store.get(record.key()));
                    break;
                case "range":
                    result = drain(store.range(record.key(), "k2"), HeadersStoresDifferentialTest::render);
                    break;
                default:
                    result = drain(store.all(), HeadersStoresDifferentialTest::render);
            }
            context.forward(record.withValue(f[0] + " " + record.key() + " -> " + result)
                    .withHeaders(new RecordHeaders()));
        }
    }

    private static final class WindowApply implements Processor<String, String, String, String> {
        private ProcessorContext<String, String> context;
        private TimestampedWindowStoreWithHeaders<String, String> store;

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            this.store = context.getStateStore("store");
        }

        @Override
        public void process(Record<String, String> record) {
            String[] f = fields(record);
            String value = nullable(f[1]);
            long other = Long.parseLong(f[2]);
            long start = record.timestamp() - record.timestamp() % WINDOW.toMillis();
            String result;
            switch (f[0]) {
                case "put":
                case "putIfAbsent":
                    store.put(
                            record.key(),
                            value == null
                                    ? null
                                    : ValueTimestampHeaders.make(value, record.timestamp(), record.headers()),
                            start);
                    result = "ok";
                    break;
                case "delete":
                    store.put(record.key(), null, start);
                    result = "ok";
                    break;
                case "get":
                    result = render(store.fetch(record.key(), start));
                    break;
                case "range": {
                    StringBuilder out = new StringBuilder();
                    try (WindowStoreIterator<ValueTimestampHeaders<String>> iterator =
                            store.fetch(record.key(), other, record.timestamp())) {
                        iterator.forEachRemaining(kv -> out.append(kv.key)
                                .append('=')
                                .append(render(kv.value))
                                .append(' '));
                    }
                    result = out.toString();
                    break;
                }
                default:
                    result = drain(store.fetchAll(other, record.timestamp()), HeadersStoresDifferentialTest::render);
            }
            context.forward(record.withValue(f[0] + " " + record.key() + " -> " + result)
                    .withHeaders(new RecordHeaders()));
        }
    }

    private static final class SessionApply implements Processor<String, String, String, String> {
        private ProcessorContext<String, String> context;
        private SessionStoreWithHeaders<String, String> store;

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            this.store = context.getStateStore("store");
        }

        @Override
        public void process(Record<String, String> record) {
            String[] f = fields(record);
            String value = nullable(f[1]);
            long other = Long.parseLong(f[2]);
            Windowed<String> session = new Windowed<>(
                    record.key(), new SessionWindow(Math.min(other, record.timestamp()), record.timestamp()));
            String result;
            switch (f[0]) {
                case "put":
                case "putIfAbsent":
                    store.put(session, value == null ? null : AggregationWithHeaders.make(value, record.headers()));
                    result = "ok";
                    break;
                case "delete":
                    store.remove(session);
                    result = "ok";
                    break;
                case "get":
                    result = render(store.fetchSession(
                            record.key(),
                            session.window().start(),
                            session.window().end()));
                    break;
                case "range":
                    result = drain(
                            store.findSessions(record.key(), other, record.timestamp()),
                            HeadersStoresDifferentialTest::render);
                    break;
                default:
                    result = drain(store.fetch(record.key()), HeadersStoresDifferentialTest::render);
            }
            context.forward(record.withValue(f[0] + " " + record.key() + " -> " + result)
                    .withHeaders(new RecordHeaders()));
        }
    }
}
