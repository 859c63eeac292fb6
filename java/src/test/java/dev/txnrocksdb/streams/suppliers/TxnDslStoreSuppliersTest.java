package dev.txnrocksdb.streams.suppliers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers;
import dev.txnrocksdb.streams.TxnStoreTypes;
import dev.txnrocksdb.streams.internals.TxnKeyValueBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnSessionBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnSessionStore;
import dev.txnrocksdb.streams.internals.TxnSessionStoreWithHeaders;
import dev.txnrocksdb.streams.internals.TxnTimestampedKeyValueBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnTimestampedKeyValueStoreWithHeaders;
import dev.txnrocksdb.streams.internals.TxnTimestampedWindowStore;
import dev.txnrocksdb.streams.internals.TxnTimestampedWindowStoreWithHeaders;
import dev.txnrocksdb.streams.internals.TxnWindowBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnWindowStore;
import dev.txnrocksdb.streams.window.TxnWindowStoreCommitTest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.DslKeyValueParams;
import org.apache.kafka.streams.state.DslSessionParams;
import org.apache.kafka.streams.state.DslWindowParams;
import org.apache.kafka.streams.state.HeadersBytesStore;
import org.apache.kafka.streams.state.HeadersBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@link TxnRocksDBDslStoreSuppliers} supplies for each DSL request, and DSL topologies running on it. */
class TxnDslStoreSuppliersTest {
    private static final Duration RETENTION = Duration.ofMinutes(10);
    private static final Duration SIZE = Duration.ofSeconds(10);

    @TempDir
    Path stateDir;

    private final TxnRocksDBDslStoreSuppliers suppliers = new TxnRocksDBDslStoreSuppliers();

    private static DslWindowParams windowParams(EmitStrategy emit, boolean sliding, DslStoreFormat format) {
        return new DslWindowParams("w", RETENTION, SIZE, false, emit, sliding, format);
    }

    // ---------------------------------------------------------------- what is supplied

    @Test
    void keyValueStoresWithoutConfigure() {
        KeyValueBytesStoreSupplier plain = suppliers.keyValueStore(new DslKeyValueParams("kv", DslStoreFormat.PLAIN));
        assertInstanceOf(TxnKeyValueBytesStoreSupplier.class, plain);
        assertTrue(((TxnKeyValueBytesStoreSupplier) plain).transactional());
        KeyValueBytesStoreSupplier timestamped =
                suppliers.keyValueStore(new DslKeyValueParams("kv", DslStoreFormat.TIMESTAMPED));
        assertInstanceOf(TxnTimestampedKeyValueBytesStoreSupplier.class, timestamped);
        assertTrue(((TxnTimestampedKeyValueBytesStoreSupplier) timestamped).transactional());
        assertEquals("kv", timestamped.name());
    }

    @Test
    void headersFormatSuppliesOurStoresWithHeaders() {
        KeyValueBytesStoreSupplier kv = suppliers.keyValueStore(new DslKeyValueParams("kv", DslStoreFormat.HEADERS));
        assertInstanceOf(HeadersBytesStoreSupplier.class, kv);
        assertInstanceOf(TxnTimestampedKeyValueStoreWithHeaders.class, kv.get());
        assertInstanceOf(HeadersBytesStore.class, kv.get());

        WindowBytesStoreSupplier window =
                suppliers.windowStore(windowParams(EmitStrategy.onWindowUpdate(), false, DslStoreFormat.HEADERS));
        assertInstanceOf(HeadersBytesStoreSupplier.class, window);
        assertInstanceOf(TxnTimestampedWindowStoreWithHeaders.class, window.get());
        assertEquals(300_000L, window.segmentIntervalMs());

        WindowBytesStoreSupplier emitFinal =
                suppliers.windowStore(windowParams(EmitStrategy.onWindowClose(), false, DslStoreFormat.HEADERS));
        assertInstanceOf(HeadersBytesStoreSupplier.class, emitFinal);
        // Kafka's headers-format time-ordered store is always indexed.
        assertEquals(TxnWindowStore.Layout.TIME_ORDERED_INDEXED, ((TxnWindowStore) emitFinal.get()).layout());
        assertInstanceOf(TxnTimestampedWindowStoreWithHeaders.class, emitFinal.get());

        SessionBytesStoreSupplier session = suppliers.sessionStore(
                new DslSessionParams("s", RETENTION, EmitStrategy.onWindowUpdate(), DslStoreFormat.HEADERS));
        assertInstanceOf(HeadersBytesStoreSupplier.class, session);
        assertInstanceOf(TxnSessionStoreWithHeaders.class, session.get());
    }

    @Test
    void windowStoresHonourFormatRetentionSizeDuplicatesAndEmitStrategy() {
        WindowBytesStoreSupplier timestamped = suppliers.windowStore(new DslWindowParams(
                "w", RETENTION, SIZE, true, EmitStrategy.onWindowUpdate(), false, DslStoreFormat.TIMESTAMPED));
        assertInstanceOf(TxnWindowBytesStoreSupplier.class, timestamped);
        assertEquals(600_000L, timestamped.retentionPeriod());
        assertEquals(10_000L, timestamped.windowSize());
        assertTrue(timestamped.retainDuplicates());
        assertEquals(300_000L, timestamped.segmentIntervalMs());
        assertInstanceOf(TxnTimestampedWindowStore.class, timestamped.get());
        assertEquals(TxnWindowStore.Layout.KEY_FIRST, ((TxnWindowStore) timestamped.get()).layout());

        WindowBytesStoreSupplier plain =
                suppliers.windowStore(windowParams(EmitStrategy.onWindowUpdate(), false, DslStoreFormat.PLAIN));
        assertFalse(plain.get() instanceof TxnTimestampedWindowStore);

        // Emit-final windows: the timestamped store whatever the format (as Kafka's time-ordered store).
        WindowBytesStoreSupplier tumbling =
                suppliers.windowStore(windowParams(EmitStrategy.onWindowClose(), false, DslStoreFormat.PLAIN));
        assertInstanceOf(TxnTimestampedWindowStore.class, tumbling.get());
        assertEquals(TxnWindowStore.Layout.TIME_ORDERED, ((TxnWindowStore) tumbling.get()).layout());
        WindowBytesStoreSupplier sliding =
                suppliers.windowStore(windowParams(EmitStrategy.onWindowClose(), true, DslStoreFormat.TIMESTAMPED));
        assertEquals(TxnWindowStore.Layout.TIME_ORDERED_INDEXED, ((TxnWindowStore) sliding.get()).layout());

        // Kafka's minimum segment interval.
        WindowBytesStoreSupplier small = suppliers.windowStore(new DslWindowParams(
                "w",
                Duration.ofSeconds(30),
                SIZE,
                false,
                EmitStrategy.onWindowUpdate(),
                false,
                DslStoreFormat.TIMESTAMPED));
        assertEquals(60_000L, small.segmentIntervalMs());
    }

    @Test
    void windowStoresValidateLikeKafka() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> suppliers.windowStore(new DslWindowParams(
                        "w",
                        Duration.ofSeconds(5),
                        SIZE,
                        false,
                        EmitStrategy.onWindowUpdate(),
                        false,
                        DslStoreFormat.TIMESTAMPED)));
        assertEquals(
                "The retention period of the window store w must be no smaller than its window size. Got size=[PT10S],"
                        + " retention=[PT5S]",
                e.getMessage());
    }

    @Test
    void sessionStoresForBothEmitStrategies() {
        SessionBytesStoreSupplier onUpdate =
                suppliers.sessionStore(new DslSessionParams("s", RETENTION, EmitStrategy.onWindowUpdate()));
        assertInstanceOf(TxnSessionBytesStoreSupplier.class, onUpdate);
        assertEquals(300_000L, onUpdate.segmentIntervalMs());
        assertEquals(600_000L, onUpdate.retentionPeriod());
        assertFalse(((TxnSessionStore) onUpdate.get()).emitFinal());
        SessionBytesStoreSupplier onClose =
                suppliers.sessionStore(new DslSessionParams("s", RETENTION, EmitStrategy.onWindowClose()));
        assertTrue(assertInstanceOf(TxnSessionStore.class, onClose.get()).emitFinal());
    }

    @Test
    void configureChoosesWriteThroughStores() {
        TxnRocksDBDslStoreSuppliers configured = new TxnRocksDBDslStoreSuppliers();
        configured.configure(Map.of(TxnRocksDBConfig.DSL_TRANSACTIONAL_CONFIG, "false"));
        assertFalse(configured.transactional());
        assertFalse(((TxnKeyValueBytesStoreSupplier)
                        configured.keyValueStore(new DslKeyValueParams("kv", DslStoreFormat.PLAIN)))
                .transactional());
        assertFalse(((TxnWindowStore) configured
                        .windowStore(windowParams(EmitStrategy.onWindowUpdate(), false, DslStoreFormat.TIMESTAMPED))
                        .get())
                .transactional());
        assertFalse(((TxnSessionStore) configured
                        .sessionStore(new DslSessionParams("s", RETENTION, EmitStrategy.onWindowUpdate()))
                        .get())
                .transactional());
        configured.configure(Map.of());
        assertTrue(configured.transactional());
    }

    @Test
    void storeTypeConstantIsOurSuppliers() {
        assertInstanceOf(TxnRocksDBDslStoreSuppliers.class, TxnStoreTypes.TXN_ROCKS_DB);
    }

    // ---------------------------------------------------------------- DSL topologies

    private Properties props(String guarantee, Map<String, Object> extra) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "dsl-suppliers");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "dummy:9092");
        props.put(
                StreamsConfig.STATE_DIR_CONFIG,
                stateDir.resolve("run-" + System.nanoTime()).toString());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
        props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, "true");
        props.putAll(extra);
        return props;
    }

    private static List<TestRecord<String, String>> inputs(int count, long seed) {
        Random random = new Random(seed);
        List<TestRecord<String, String>> records = new ArrayList<>();
        long time = 0;
        for (int i = 0; i < count; i++) {
            time += random.nextInt(3_000);
            long ts = random.nextInt(10) == 0 ? Math.max(0, time - random.nextInt(20_000)) : time;
            records.add(new TestRecord<>("k" + random.nextInt(4), "v" + i, null, ts));
        }
        return records;
    }

    /** Runs a topology over the inputs and returns its output, and lets {@code inspect} look at the driver first. */
    private List<String> run(
            Consumer<StreamsBuilder> topology, Properties props, Consumer<TopologyTestDriver> inspect) {
        StreamsBuilder builder = new StreamsBuilder();
        topology.accept(builder);
        List<String> out = new ArrayList<>();
        try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(props), props)) {
            TestInputTopic<String, String> input =
                    driver.createInputTopic("input", new StringSerializer(), new StringSerializer());
            TestOutputTopic<String, Long> output =
                    driver.createOutputTopic("output", new StringDeserializer(), new LongDeserializer());
            for (TestRecord<String, String> record : inputs(300, 7)) {
                input.pipeInput(record);
            }
            output.readRecordsToList().forEach(r -> out.add(r.key() + "=" + r.value() + "@" + r.timestamp()));
            inspect.accept(driver);
        }
        return out;
    }

    private static List<String> layers(StateStore store) {
        List<String> layers = new ArrayList<>();
        StateStore layer = store;
        while (layer != null) {
            layers.add(layer.getClass().getSimpleName());
            layer = layer instanceof WrappedStateStore ? ((WrappedStateStore<?, ?, ?>) layer).wrapped() : null;
        }
        return layers;
    }

    private static StateStore innermost(StateStore store) {
        return (StateStore) TxnWindowStoreCommitTest.innermost(store);
    }

    private static Consumer<StreamsBuilder> windowedCount(
            Function<TimeWindows, Object> ignored, EmitStrategy emit, boolean caching) {
        return builder -> {
            Materialized<
                            String,
                            Long,
                            org.apache.kafka.streams.state.WindowStore<org.apache.kafka.common.utils.Bytes, byte[]>>
                    m = Materialized.as("counts");
            builder.stream("input", Consumed.with(Serdes.String(), Serdes.String()))
                    .groupByKey()
                    .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofSeconds(10), Duration.ofSeconds(5))
                            .advanceBy(Duration.ofSeconds(5)))
                    .emitStrategy(emit)
                    .count(caching ? m.withCachingEnabled() : m.withCachingDisabled())
                    .toStream((wk, v) -> wk.key() + "@" + wk.window().start())
                    .to("output", Produced.with(Serdes.String(), Serdes.Long()));
        };
    }

    @Test
    void emitFinalHoppingCountWithoutCachingMatchesTheBuiltInStoreExactly() {
        Consumer<StreamsBuilder> topology = windowedCount(null, EmitStrategy.onWindowClose(), false);
        List<String> builtIn = run(topology, props(StreamsConfig.AT_LEAST_ONCE, Map.of()), d -> {});
        List<String> ours = run(
                topology,
                props(
                        StreamsConfig.EXACTLY_ONCE_V2,
                        Map.of(
                                StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG,
                                TxnRocksDBDslStoreSuppliers.class.getName())),
                driver -> {
                    StateStore store = driver.getAllStateStores().get("counts");
                    TxnWindowStore inner = assertInstanceOf(TxnTimestampedWindowStore.class, innermost(store));
                    assertTrue(inner.timeFirstScans(), layers(store).toString());
                });
        assertFalse(builtIn.isEmpty());
        assertEquals(builtIn, ours);
    }

    @Test
    void emitFinalHoppingCountWithCachingEmitsTheSameRecordsKeyFirstWithinAnEmission() {
        Consumer<StreamsBuilder> topology = windowedCount(null, EmitStrategy.onWindowClose(), true);
        List<String> builtIn = run(topology, props(StreamsConfig.AT_LEAST_ONCE, Map.of()), d -> {});
        List<String> ours = run(
                topology,
                props(
                        StreamsConfig.AT_LEAST_ONCE,
                        Map.of(
                                StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG,
                                TxnRocksDBDslStoreSuppliers.class.getName())),
                driver -> {
                    StateStore store = driver.getAllStateStores().get("counts");
                    assertTrue(
                            layers(store).contains("CachingWindowStore"),
                            layers(store).toString());
                    TxnWindowStore inner = assertInstanceOf(TxnTimestampedWindowStore.class, innermost(store));
                    assertFalse(inner.timeFirstScans(), "a cached store must iterate key-first");
                });
        assertEquals(new java.util.HashSet<>(builtIn), new java.util.HashSet<>(ours));
        assertEquals(builtIn.size(), ours.size());
    }

    @Test
    void onUpdateCountUnderHeadersFormatRunsOnOurStoreWithHeadersWithTheSameOutput() {
        Consumer<StreamsBuilder> topology = windowedCount(null, EmitStrategy.onWindowUpdate(), false);
        Map<String, Object> headers =
                Map.of(StreamsConfig.DSL_STORE_FORMAT_CONFIG, StreamsConfig.DSL_STORE_FORMAT_HEADERS);
        List<String> builtIn = run(topology, props(StreamsConfig.AT_LEAST_ONCE, headers), d -> {});
        Map<String, Object> ourConfig = new java.util.HashMap<>(headers);
        ourConfig.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, TxnRocksDBDslStoreSuppliers.class.getName());
        List<String> ours = run(topology, props(StreamsConfig.AT_LEAST_ONCE, ourConfig), driver -> {
            StateStore store = driver.getAllStateStores().get("counts");
            assertTrue(
                    layers(store).get(0).endsWith("WithHeaders"), layers(store).toString());
            // no adapter between Kafka's layers and our store: it keeps the headers itself
            assertFalse(
                    layers(store).contains("TimestampedToHeadersWindowStoreAdapter"),
                    layers(store).toString());
            assertInstanceOf(TxnTimestampedWindowStoreWithHeaders.class, innermost(store));
        });
        assertEquals(builtIn, ours);
    }

    @Test
    void slidingAndSessionAggregationsOnTheStoreTypeMatchTheBuiltInStores() {
        Consumer<StreamsBuilder> sliding = builder -> builder.stream(
                        "input", Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofSeconds(8), Duration.ofSeconds(4)))
                .emitStrategy(EmitStrategy.onWindowClose())
                .count(Materialized
                        .<String, Long,
                                org.apache.kafka.streams.state.WindowStore<org.apache.kafka.common.utils.Bytes, byte[]>>
                                as("sliding")
                        .withStoreType(TxnStoreTypes.TXN_ROCKS_DB))
                .toStream((wk, v) ->
                        wk.key() + "@" + wk.window().start() + "-" + wk.window().end())
                .to("output", Produced.with(Serdes.String(), Serdes.Long()));
        Consumer<StreamsBuilder> slidingBuiltIn = builder -> builder.stream(
                        "input", Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofSeconds(8), Duration.ofSeconds(4)))
                .emitStrategy(EmitStrategy.onWindowClose())
                .count(Materialized.as("sliding"))
                .toStream((wk, v) ->
                        wk.key() + "@" + wk.window().start() + "-" + wk.window().end())
                .to("output", Produced.with(Serdes.String(), Serdes.Long()));
        List<String> ours = run(
                sliding,
                props(StreamsConfig.AT_LEAST_ONCE, Map.of()),
                driver -> assertInstanceOf(
                        TxnTimestampedWindowStore.class,
                        innermost(driver.getAllStateStores().get("sliding"))));
        assertEquals(run(slidingBuiltIn, props(StreamsConfig.AT_LEAST_ONCE, Map.of()), d -> {}), ours);

        Consumer<StreamsBuilder> sessions = builder -> builder.stream(
                        "input", Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofSeconds(4), Duration.ofSeconds(2)))
                .emitStrategy(EmitStrategy.onWindowClose())
                .count()
                .toStream((wk, v) ->
                        wk.key() + "@" + wk.window().start() + "-" + wk.window().end())
                .to("output", Produced.with(Serdes.String(), Serdes.Long()));
        List<String> builtIn = run(sessions, props(StreamsConfig.AT_LEAST_ONCE, Map.of()), d -> {});
        List<String> oursSessions = run(
                sessions,
                props(
                        StreamsConfig.EXACTLY_ONCE_V2,
                        Map.of(
                                StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG,
                                TxnRocksDBDslStoreSuppliers.class.getName())),
                driver -> {});
        assertFalse(builtIn.isEmpty());
        assertEquals(builtIn, oursSessions);
    }

    @Test
    void streamJoinedWithOurSuppliersJoinsOnOurWindowStores() {
        Function<Boolean, Consumer<StreamsBuilder>> join = ours -> builder -> {
            var left = builder.stream("input", Consumed.with(Serdes.String(), Serdes.String()));
            var right = builder.stream("input", Consumed.with(Serdes.String(), Serdes.String()))
                    .mapValues(v -> v + "'");
            StreamJoined<String, String, String> joined = StreamJoined.<String, String, String>with(
                            Serdes.String(), Serdes.String(), Serdes.String())
                    .withStoreName("join");
            left.outerJoin(
                            right.selectKey((k, v) -> k),
                            (a, b) -> a + "+" + b,
                            JoinWindows.ofTimeDifferenceAndGrace(Duration.ofSeconds(3), Duration.ofSeconds(2)),
                            ours ? joined.withDslStoreSuppliers(TxnStoreTypes.TXN_ROCKS_DB) : joined)
                    .mapValues(v -> (long) v.length())
                    .to("output", Produced.with(Serdes.String(), Serdes.Long()));
        };
        List<String> builtIn = run(join.apply(false), props(StreamsConfig.AT_LEAST_ONCE, Map.of()), d -> {});
        List<String> ours = run(join.apply(true), props(StreamsConfig.AT_LEAST_ONCE, Map.of()), driver -> {
            StateStore thisStore = driver.getAllStateStores().get("join-outer-this-join-store");
            assertInstanceOf(
                    TxnWindowStore.class,
                    innermostThroughAdapters(thisStore),
                    layers(thisStore).toString());
        });
        assertFalse(builtIn.isEmpty());
        assertEquals(builtIn, ours);
    }

    /** The innermost store, looking through Kafka's headers adapters (which are not WrappedStateStores). */
    private static Object innermostThroughAdapters(StateStore store) {
        Object layer = innermost(store);
        try {
            while (!(layer instanceof TxnWindowStore)) {
                java.lang.reflect.Field field = findStoreField(layer.getClass());
                field.setAccessible(true);
                layer = field.get(layer);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            return layer;
        }
        return layer;
    }

    private static java.lang.reflect.Field findStoreField(Class<?> type) throws NoSuchFieldException {
        for (java.lang.reflect.Field field : type.getDeclaredFields()) {
            if (StateStore.class.isAssignableFrom(field.getType())) {
                return field;
            }
        }
        throw new NoSuchFieldException("no store field in " + type);
    }
}
