package dev.txnrocksdb.streams.dsl;

import static dev.txnrocksdb.streams.dsl.DslInputs.LEFT;
import static dev.txnrocksdb.streams.dsl.DslInputs.RIGHT;
import static dev.txnrocksdb.streams.dsl.DslRunner.OUT;

import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;

/**
 * The topologies of the differential suite. Windows: size 10 s, hop 3 s, grace 5 s; sliding
 * difference 5 s, grace 3 s; session gap 4 s, grace 3 s; join difference 3 s (grace 0 or 2 s).
 * Input time advances ~1 s per record (0.7 s for two topics) over a few minutes, so window
 * stores span several 60 s segments; late records are 6-40 s behind stream time.
 */
final class Scenarios {
    static final int RECORDS = 180;

    static final Duration SIZE = Duration.ofSeconds(10);
    static final Duration HOP = Duration.ofSeconds(3);
    static final Duration GRACE = Duration.ofSeconds(5);
    static final Duration SLIDE = Duration.ofSeconds(5);
    static final Duration SLIDE_GRACE = Duration.ofSeconds(3);
    static final Duration GAP = Duration.ofSeconds(4);
    static final Duration GAP_GRACE = Duration.ofSeconds(3);
    static final Duration JOIN = Duration.ofSeconds(3);
    static final Duration JOIN_GRACE = Duration.ofSeconds(2);
    /** Longer than size + grace: the store keeps closed windows for a few segments. */
    static final Duration LONG_RETENTION = Duration.ofMinutes(3);

    private Scenarios() {}

    enum Emit {
        ON_UPDATE,
        ON_CLOSE;

        EmitStrategy strategy() {
            return this == ON_CLOSE ? EmitStrategy.onWindowClose() : EmitStrategy.onWindowUpdate();
        }
    }

    private static KStream<String, String> left(StreamsBuilder builder) {
        return builder.stream(LEFT, Consumed.with(Serdes.String(), Serdes.String()));
    }

    private static KStream<String, String> right(StreamsBuilder builder) {
        return builder.stream(RIGHT, Consumed.with(Serdes.String(), Serdes.String()));
    }

    private static <V> void windowedToOut(KTable<Windowed<String>, V> table) {
        table.toStream((wk, v) ->
                        wk.key() + "@" + wk.window().start() + "/" + wk.window().end())
                .mapValues(v -> v == null ? null : v.toString())
                .to(OUT, Produced.with(Serdes.String(), Serdes.String()));
    }

    private static <V> void toOut(KTable<String, V> table) {
        table.toStream()
                .mapValues(v -> v == null ? null : v.toString())
                .to(OUT, Produced.with(Serdes.String(), Serdes.String()));
    }

    private static String add(String agg, String value) {
        return agg + value + ";";
    }

    private static Materialized<String, Long, WindowStore<Bytes, byte[]>> windowCount(String name) {
        return Materialized.<String, Long, WindowStore<Bytes, byte[]>>as(name).withValueSerde(Serdes.Long());
    }

    private static Materialized<String, String, WindowStore<Bytes, byte[]>> windowAgg(String name) {
        return Materialized.<String, String, WindowStore<Bytes, byte[]>>as(name).withValueSerde(Serdes.String());
    }

    // ---------------------------------------------------------------- windowed aggregations

    static Scenario tumblingCount(Emit emit) {
        String store = "tumbling-count";
        return new Scenario(
                "tumbling count" + suffix(emit),
                side -> {
                    StreamsBuilder builder = new StreamsBuilder();
                    windowedToOut(left(builder)
                            .groupByKey()
                            .windowedBy(TimeWindows.ofSizeAndGrace(SIZE, GRACE))
                            .emitStrategy(emit.strategy())
                            .count(side.materialized(windowCount(store).withRetention(LONG_RETENTION))));
                    return builder.build();
                },
                DslInputs.Spec.oneTopic(RECORDS, 0.05),
                List.of(store));
    }

    static Scenario hoppingAggregate(Emit emit) {
        String store = "hopping-aggregate";
        return new Scenario(
                "hopping aggregate" + suffix(emit),
                side -> {
                    StreamsBuilder builder = new StreamsBuilder();
                    windowedToOut(left(builder)
                            .groupByKey()
                            .windowedBy(TimeWindows.ofSizeAndGrace(SIZE, GRACE).advanceBy(HOP))
                            .emitStrategy(emit.strategy())
                            .aggregate(() -> "", (k, v, agg) -> add(agg, v), side.materialized(windowAgg(store))));
                    return builder.build();
                },
                DslInputs.Spec.oneTopic(RECORDS, 0.05),
                List.of(store));
    }

    static Scenario slidingCount(Emit emit) {
        String store = "sliding-count";
        return new Scenario(
                "sliding count" + suffix(emit),
                side -> {
                    StreamsBuilder builder = new StreamsBuilder();
                    windowedToOut(left(builder)
                            .groupByKey()
                            .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(SLIDE, SLIDE_GRACE))
                            .emitStrategy(emit.strategy())
                            .count(side.materialized(windowCount(store).withRetention(LONG_RETENTION))));
                    return builder.build();
                },
                DslInputs.Spec.oneTopic(RECORDS, 0.05),
                List.of(store));
    }

    static Scenario slidingAggregate(Emit emit) {
        String store = "sliding-aggregate";
        return new Scenario(
                "sliding aggregate" + suffix(emit),
                side -> {
                    StreamsBuilder builder = new StreamsBuilder();
                    windowedToOut(left(builder)
                            .groupByKey()
                            .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(SLIDE, SLIDE_GRACE))
                            .emitStrategy(emit.strategy())
                            .aggregate(() -> "", (k, v, agg) -> add(agg, v), side.materialized(windowAgg(store))));
                    return builder.build();
                },
                DslInputs.Spec.oneTopic(RECORDS, 0.05),
                List.of(store));
    }

    // ---------------------------------------------------------------- session windows

    static Scenario sessionCount() {
        String store = "session-count";
        return new Scenario(
                "session count",
                side -> {
                    StreamsBuilder builder = new StreamsBuilder();
                    windowedToOut(left(builder)
                            .groupByKey()
                            .windowedBy(SessionWindows.ofInactivityGapAndGrace(GAP, GAP_GRACE))
                            .count(side.materialized(Materialized.<String, Long, SessionStore<Bytes, byte[]>>as(store)
                                    .withValueSerde(Serdes.Long())
                                    .withRetention(LONG_RETENTION))));
                    return builder.build();
                },
                DslInputs.Spec.oneTopic(RECORDS, 0.05),
                List.of(store));
    }

    static Scenario sessionAggregate(Emit emit) {
        String store = "session-aggregate";
        return new Scenario(
                "session aggregate with merges" + suffix(emit),
                side -> {
                    StreamsBuilder builder = new StreamsBuilder();
                    windowedToOut(left(builder)
                            .groupByKey()
                            .windowedBy(SessionWindows.ofInactivityGapAndGrace(GAP, GAP_GRACE))
                            .emitStrategy(emit.strategy())
                            .aggregate(
                                    () -> "",
                                    (k, v, agg) -> add(agg, v),
                                    (k, a, b) -> a + "+" + b,
                                    side.materialized(
                                            Materialized.<String, String, SessionStore<Bytes, byte[]>>as(store)
                                                    .withValueSerde(Serdes.String()))));
                    return builder.build();
                },
                DslInputs.Spec.oneTopic(RECORDS, 0.05),
                List.of(store));
    }

    // ---------------------------------------------------------------- suppress

    static Scenario suppressedTumblingCount() {
        String store = "suppressed-count";
        return new Scenario(
                "tumbling count + suppress(untilWindowCloses)",
                side -> {
                    StreamsBuilder builder = new StreamsBuilder();
                    windowedToOut(left(builder)
                            .groupByKey()
                            .windowedBy(TimeWindows.ofSizeAndGrace(SIZE, GRACE))
                            .count(side.materialized(windowCount(store)))
                            .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded())));
                    return builder.build();
                },
                DslInputs.Spec.oneTopic(RECORDS, 0.05),
                List.of(store));
    }

    static Scenario suppressedSessionAggregate() {
        String store = "suppressed-session";
        return new Scenario(
                "session aggregate + suppress(untilWindowCloses)",
                side -> {
                    StreamsBuilder builder = new StreamsBuilder();
                    windowedToOut(left(builder)
                            .groupByKey()
                            .windowedBy(SessionWindows.ofInactivityGapAndGrace(GAP, GAP_GRACE))
                            .aggregate(
                                    () -> "",
                                    (k, v, agg) -> add(agg, v),
                                    (k, a, b) -> a + "+" + b,
                                    side.materialized(
                                            Materialized.<String, String, SessionStore<Bytes, byte[]>>as(store)
                                                    .withValueSerde(Serdes.String())))
                            .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded())));
                    return builder.build();
                },
                DslInputs.Spec.oneTopic(RECORDS, 0.05),
                List.of(store));
    }

    // ---------------------------------------------------------------- stream-stream joins

    enum JoinKind {
        INNER,
        LEFT,
        OUTER
    }

    static Scenario streamStreamJoin(JoinKind kind, boolean grace) {
        JoinWindows windows = grace
                ? JoinWindows.ofTimeDifferenceAndGrace(JOIN, JOIN_GRACE)
                : JoinWindows.ofTimeDifferenceWithNoGrace(JOIN);
        String name = "stream-stream " + kind.name().toLowerCase() + " join, " + (grace ? "grace 2s" : "no grace");
        return new Scenario(
                name,
                side -> {
                    StreamsBuilder builder = new StreamsBuilder();
                    KStream<String, String> l = left(builder);
                    KStream<String, String> r = right(builder);
                    StreamJoined<String, String, String> joined =
                            side.streamJoined(StreamJoined.with(Serdes.String(), Serdes.String(), Serdes.String()));
                    KStream<String, String> out = kind == JoinKind.INNER
                            ? l.join(r, (a, b) -> a + "+" + b, windows, joined)
                            : kind == JoinKind.LEFT
                                    ? l.leftJoin(r, (a, b) -> a + "+" + b, windows, joined)
                                    : l.outerJoin(r, (a, b) -> a + "+" + b, windows, joined);
                    out.to(OUT, Produced.with(Serdes.String(), Serdes.String()));
                    return builder.build();
                },
                DslInputs.Spec.twoTopics(RECORDS, 0.05).withTiming(700, 2_500, 6_000, 30_000),
                List.of(Scenario.ALL_STORES));
    }

    // ---------------------------------------------------------------- tables

    private static Materialized<String, String, KeyValueStore<Bytes, byte[]>> kv(String name) {
        return Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as(name)
                .withKeySerde(Serdes.String())
                .withValueSerde(Serdes.String());
    }

    static Scenario tableTableJoin(JoinKind kind) {
        String name = "KTable-KTable " + kind.name().toLowerCase() + " join";
        return new Scenario(
                name,
                side -> {
                    StreamsBuilder builder = new StreamsBuilder();
                    KTable<String, String> l = builder.table(
                            LEFT, Consumed.with(Serdes.String(), Serdes.String()), side.materialized(kv("left-table")));
                    KTable<String, String> r = builder.table(
                            RIGHT,
                            Consumed.with(Serdes.String(), Serdes.String()),
                            side.materialized(kv("right-table")));
                    Materialized<String, String, KeyValueStore<Bytes, byte[]>> result =
                            side.materialized(kv("joined-table"));
                    KTable<String, String> out = kind == JoinKind.INNER
                            ? l.join(r, (a, b) -> a + "+" + b, result)
                            : kind == JoinKind.LEFT
                                    ? l.leftJoin(r, (a, b) -> a + "+" + b, result)
                                    : l.outerJoin(r, (a, b) -> a + "+" + b, result);
                    toOut(out);
                    return builder.build();
                },
                DslInputs.Spec.twoTopics(RECORDS, 0.15),
                List.of("left-table", "right-table", "joined-table"));
    }

    static final List<String> FOREIGN_KEYS = List.of("f0", "f1", "f2", "f3");

    static Scenario foreignKeyJoin(boolean leftJoin) {
        String name = "foreign-key " + (leftJoin ? "left join" : "inner join");
        DslInputs.Spec spec = DslInputs.Spec.twoTopics(RECORDS, 0.12)
                .withKeys(List.of(DslInputs.KEYS, FOREIGN_KEYS))
                .withValues((topic, i, random) ->
                        topic == 0 ? FOREIGN_KEYS.get(random.nextInt(FOREIGN_KEYS.size())) + "|L" + i : "R" + i);
        return new Scenario(
                name,
                side -> {
                    StreamsBuilder builder = new StreamsBuilder();
                    KTable<String, String> l = builder.table(
                            LEFT, Consumed.with(Serdes.String(), Serdes.String()), side.materialized(kv("fk-left")));
                    KTable<String, String> r = builder.table(
                            RIGHT, Consumed.with(Serdes.String(), Serdes.String()), side.materialized(kv("fk-right")));
                    Materialized<String, String, KeyValueStore<Bytes, byte[]>> result =
                            side.materialized(kv("fk-joined"));
                    KTable<String, String> out = leftJoin
                            ? l.leftJoin(r, v -> v.substring(0, v.indexOf('|')), (a, b) -> a + "+" + b, result)
                            : l.join(r, v -> v.substring(0, v.indexOf('|')), (a, b) -> a + "+" + b, result);
                    toOut(out);
                    return builder.build();
                },
                spec,
                List.of("fk-left", "fk-right", "fk-joined"));
    }

    static Scenario toTable() {
        String store = "to-table";
        return new Scenario(
                "toTable",
                side -> {
                    StreamsBuilder builder = new StreamsBuilder();
                    toOut(left(builder)
                            .mapValues(v -> v == null ? null : v + "!")
                            .toTable(side.materialized(kv(store))));
                    return builder.build();
                },
                DslInputs.Spec.oneTopic(RECORDS, 0.2),
                List.of(store));
    }

    private static String suffix(Emit emit) {
        return emit == Emit.ON_CLOSE ? ", emit final" : "";
    }
}
