package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.say;

import dev.txnrocksdb.examples.wordcount.KafkaBroker;
import dev.txnrocksdb.it.TtlDedupApp.Expiry;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ObjLongConsumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;

/**
 * The {@code ttl} part of the end-to-end benchmark (issue 48), run by {@link E2EBench}: a
 * deduplication ({@link TtlDedupApp}) on a real broker under exactly-once, ids remembered for a
 * time-to-live of stream time, in three scenarios over pre-produced input:
 * <ol>
 * <li><b>steady</b>: {@code ids} new ids spread over one time-to-live (100 minutes), so that at the
 * steady state the store holds {@code ids} live ids and 1% of them expire per minute of stream time;
 * then {@code measure} x {@code ids} more, the steady state the figures are taken over; one in ten ids
 * seen again 30 minutes later (dropped: still remembered). Columns: ours with a time-to-live against the
 * workaround users write today (a stream-time punctuator that scans the whole store every minute and
 * deletes what is older), on Kafka's transactional store and on ours.</li>
 * <li><b>cost</b>: the same input's first {@code cost.ids} ids with a time-to-live of a day (nothing
 * expires) against no time-to-live: what the time-to-live costs by itself.</li>
 * <li><b>mass</b>: {@code mass.ids} ids written within one second of stream time, then
 * {@code mass.background} ids over two time-to-lives (10 minutes): half-way through, all of the first
 * expire at once. Commit latency while they are removed against the same input without a
 * time-to-live.</li>
 * </ol>
 * Per run: records/s from the first record processed to the group's committed offsets at the input's
 * end (steady: from the committed offsets passing the fill to the end), the stream thread's
 * {@code commit-latency-max} and {@code punctuate-latency-max} sampled every second (the app's SAMPLE
 * lines over one-to-two-second windows: percentiles over the samples from five seconds after the first
 * record on), the keys a read sees at the end
 * (interactive queries) against the ids live by the model, the state directory's size after a clean
 * stop, and our store's expiry metrics.
 *
 * <p>System properties (defaults in brackets, smoke sizes in {@code e2e.smoke}):
 * {@code e2e.ttl.scenarios} [steady,cost,mass], {@code e2e.ttl.ids} [10000000],
 * {@code e2e.ttl.measure} [0.2], {@code e2e.ttl.columns} [txn-ttl,txn-punctuator,kafka-txn-punctuator],
 * {@code e2e.ttl.cost.ids} [3000000], {@code e2e.ttl.cost.runs} [2], {@code e2e.ttl.cost.columns}
 * [txn,txn-ttl], {@code e2e.ttl.mass.ids} [1000000], {@code e2e.ttl.mass.background} [2000000],
 * {@code e2e.ttl.mass.columns} [txn-ttl,txn], {@code e2e.ttl.expiryKeysPerCommit} [the setting's default].
 */
final class TtlBench {
    /** A column: how the app's store forgets ids, and whose store it is. */
    record Column(String id, Expiry expiry, boolean ours, String description) {}

    static final Map<String, Column> COLUMNS = new LinkedHashMap<>();

    static {
        for (Column c : List.of(
                new Column(
                        "txn-ttl",
                        Expiry.TTL,
                        true,
                        "ours with a time-to-live (TxnStores.persistentTransactionalKeyValueStore(...).withTtl(ttl)), "
                                + "putIfAbsent per record"),
                new Column(
                        "txn-punctuator",
                        Expiry.PUNCTUATOR,
                        true,
                        "ours without a time-to-live, with the workaround: get, put if absent or older than the TTL, "
                                + "and a stream-time punctuator every minute scanning all() and deleting what is older"),
                new Column(
                        "kafka-txn-punctuator",
                        Expiry.PUNCTUATOR,
                        false,
                        "Kafka 4.4's RocksDB store (Stores.persistentKeyValueStore, enable.transactional.statestores=true) "
                                + "with the same workaround: what users write today"),
                new Column(
                        "txn",
                        Expiry.NONE,
                        true,
                        "ours without a time-to-live, putIfAbsent per record; nothing expires"),
                new Column(
                        "kafka-txn",
                        Expiry.NONE,
                        false,
                        "Kafka 4.4's RocksDB store (enable.transactional.statestores=true), putIfAbsent per record; "
                                + "nothing expires"))) {
            COLUMNS.put(c.id(), c);
        }
    }

    private static final int PARTITIONS = 2;
    private static final Duration STEADY_TTL = Duration.ofMinutes(100);
    private static final Duration MASS_TTL = Duration.ofMinutes(10);
    /**
     * {@code e2e.ttl.expiryKeysPerCommit}: our stores' {@code txn.rocksdb.ttl.expiry.keys.per.commit} in
     * this run (default: the setting's default), recorded in the part's settings.
     */
    private static final String EXPIRY_KEYS_PER_COMMIT = System.getProperty("e2e.ttl.expiryKeysPerCommit");
    /** The start of a run left out of its latency figures. */
    private static final Duration WARM_UP = Duration.ofSeconds(5);
    /** How far behind its first sighting an id is seen again, as a share of the time-to-live. */
    private static final double AGAIN_AFTER = 0.3;

    private final BrokerFixture kafka;
    private final E2EResults results;
    private final boolean smoke;
    /** The model's live ids per input topic and TTL ({@link Input#liveAtEnd}: a replay of the whole input). */
    private final Map<String, Long> live = new HashMap<>();

    private TtlBench(BrokerFixture kafka, E2EResults results, boolean smoke) {
        this.kafka = kafka;
        this.results = results;
        this.smoke = smoke;
    }

    static void run(BrokerFixture kafka, Map<String, Object> out, E2EResults results, boolean smoke) throws Exception {
        long t0 = System.nanoTime();
        TtlBench bench = new TtlBench(kafka, results, smoke);
        Map<String, Object> columns = new LinkedHashMap<>();
        COLUMNS.values().forEach(c -> columns.put(c.id(), c.description()));
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("partitions", PARTITIONS);
        settings.put("columns", columns);
        settings.put(
                "app",
                "TtlDedupApp: stream -> process (dedup on the store 'seen', String id -> Long first-seen time) "
                        + "-> output topic; exactly_once_v2, commit.interval.ms=100, no record cache, -Xmx512m");
        settings.put(
                "latency",
                "the stream thread's commit-latency-max and punctuate-latency-max, read every second with "
                        + "metrics.sample.window.ms=1000 and metrics.num.samples=2 (each sample: the worst of the "
                        + "last one to two seconds); p50/p99/max over the samples from 5 s after the first record "
                        + "processed (the first commits set up the transactions)");
        if (EXPIRY_KEYS_PER_COMMIT != null) settings.put("expiryKeysPerCommit", EXPIRY_KEYS_PER_COMMIT);
        out.put("settings", settings);
        List<String> scenarios = E2EBench.list("e2e.ttl.scenarios", "steady,cost,mass");
        for (String s : scenarios) {
            switch (s) {
                case "steady" -> out.put("steady", bench.steady());
                case "cost" -> out.put("cost", bench.cost());
                case "mass" -> out.put("mass", bench.mass());
                default ->
                    throw new IllegalArgumentException(
                            "e2e.ttl.scenarios: unknown scenario " + s + " (steady, cost, mass)");
            }
            out.put("seconds", E2EBench.seconds(t0));
            results.checkpoint();
        }
        results.finish("ttl");
    }

    // ---------------------------------------------------------------- the scenarios

    /** The headline: ours with a time-to-live against the punctuator workaround, at a steady state of {@code ids} live ids. */
    private Map<String, Object> steady() throws Exception {
        long ids = (long) Double.parseDouble(System.getProperty("e2e.ttl.ids", smoke ? "4000" : "10000000"));
        double measure = Double.parseDouble(System.getProperty("e2e.ttl.measure", "0.2"));
        Input input = Input.steady(ids, Math.round(ids * (1 + measure)), STEADY_TTL);
        List<Column> columns = columns("e2e.ttl.columns", "txn-ttl,txn-punctuator,kafka-txn-punctuator");
        Map<String, Object> s = new LinkedHashMap<>();
        Map<String, Object> settings = input.settings();
        settings.put("liveIds", ids);
        settings.put("fillRecords", input.recordsBefore(ids));
        settings.put(
                "workload",
                "ids new ids over one TTL (100 minutes of stream time: 1% of the live ids expire per minute), then "
                        + measure + " x ids more over which the steady figures are taken; every tenth id seen again "
                        + AGAIN_AFTER + " TTL later (dropped)");
        settings.put("columns", columns.stream().map(Column::id).toList());
        s.put("settings", settings);
        String topic = produce("steady", input);
        Map<String, List<Map<String, Object>>> byColumn = byColumn(s, columns);
        for (Column c : columns) {
            byColumn.get(c.id()).add(run(c, topic, input, STEADY_TTL, 1, input.recordsBefore(ids), -1));
            results.checkpoint();
        }
        E2EBench.deleteTopics(kafka, topic);
        return s;
    }

    /** TTL on with nothing expiring against TTL off: the same input, alternating, {@code cost.runs} times. */
    private Map<String, Object> cost() throws Exception {
        long steadyIds = (long) Double.parseDouble(System.getProperty("e2e.ttl.ids", smoke ? "4000" : "10000000"));
        long ids = (long) Double.parseDouble(System.getProperty("e2e.ttl.cost.ids", smoke ? "2000" : "3000000"));
        int runs = Integer.getInteger("e2e.ttl.cost.runs", smoke ? 1 : 2);
        // the steady scenario's rate of ids per minute, and a TTL of a day: nothing expires
        Input input = Input.steady(steadyIds, ids, STEADY_TTL);
        Duration ttl = Duration.ofDays(1);
        List<Column> columns = columns("e2e.ttl.cost.columns", "txn,txn-ttl");
        Map<String, Object> s = new LinkedHashMap<>();
        Map<String, Object> settings = input.settings();
        settings.put("ttlMs", ttl.toMillis());
        settings.put("runs", runs);
        settings.put(
                "workload",
                "the steady scenario's input, its first " + ids + " ids, with a TTL of a day: nothing expires; "
                        + "the columns alternate, each run a fresh app");
        settings.put("columns", columns.stream().map(Column::id).toList());
        s.put("settings", settings);
        String topic = produce("cost", input);
        Map<String, List<Map<String, Object>>> byColumn = byColumn(s, columns);
        for (int run = 1; run <= runs; run++) {
            List<Column> order = new ArrayList<>(columns);
            Collections.rotate(order, -(run - 1));
            for (Column c : order) {
                byColumn.get(c.id()).add(run(c, topic, input, ttl, run, -1, -1));
                results.checkpoint();
            }
        }
        E2EBench.deleteTopics(kafka, topic);
        return s;
    }

    /** {@code mass.ids} ids expiring at once, half-way through a steady trickle of new ids. */
    private Map<String, Object> mass() throws Exception {
        long ids = (long) Double.parseDouble(System.getProperty("e2e.ttl.mass.ids", smoke ? "1000" : "1000000"));
        long background =
                (long) Double.parseDouble(System.getProperty("e2e.ttl.mass.background", smoke ? "2000" : "2000000"));
        Input input = Input.mass(ids, background, MASS_TTL);
        List<Column> columns = columns("e2e.ttl.mass.columns", "txn-ttl,txn");
        Map<String, Object> s = new LinkedHashMap<>();
        Map<String, Object> settings = input.settings();
        settings.put("massIds", ids);
        settings.put("backgroundIds", background);
        settings.put("expiryRecord", input.massExpiryRecord());
        settings.put(
                "workload",
                ids + " ids within one second of stream time, then " + background + " new ids over two TTLs (10 "
                        + "minutes each): the first " + ids + " expire together when stream time passes one TTL, at "
                        + "record " + input.massExpiryRecord() + "; latency 'after' is from the committed offsets "
                        + "passing that record to the end");
        settings.put("columns", columns.stream().map(Column::id).toList());
        s.put("settings", settings);
        String topic = produce("mass", input);
        Map<String, List<Map<String, Object>>> byColumn = byColumn(s, columns);
        for (Column c : columns) {
            byColumn.get(c.id()).add(run(c, topic, input, MASS_TTL, 1, -1, input.massExpiryRecord()));
            results.checkpoint();
        }
        E2EBench.deleteTopics(kafka, topic);
        return s;
    }

    // ---------------------------------------------------------------- one run

    /**
     * One column on one input: a fresh app processes it all; {@code steadyFrom} (or -1) is the record
     * count from which the steady figures are taken, {@code splitAt} (or -1) the one that splits the
     * latency samples into before and after.
     */
    private Map<String, Object> run(
            Column c, String topic, Input input, Duration ttl, int run, long steadyFrom, long splitAt)
            throws Exception {
        String appId = topic.replace("-input", "") + "-" + c.id() + "-r" + run;
        String output = appId + "-out";
        String changelog = appId + "-" + TtlDedupApp.STORE + "-changelog";
        kafka.createTopics(PARTITIONS, output);
        Path stateDir = Files.createDirectories(kafka.tmp.resolve(appId + "-state"));
        AppProcess app = null;
        try (Progress progress = new Progress(appId, topic, steadyFrom, splitAt, stateDir)) {
            long launch = System.nanoTime();
            List<String> args = new ArrayList<>(List.of(
                    kafka.bootstrap(),
                    stateDir.toString(),
                    appId,
                    "ttl-app.expiry=" + c.expiry().name().toLowerCase(),
                    "ttl-app.store=" + (c.ours() ? "txn" : "kafka"),
                    "ttl-app.ttlMs=" + ttl.toMillis(),
                    "ttl-app.input=" + topic,
                    "ttl-app.output=" + output,
                    "ttl-app.sample=true"));
            if (EXPIRY_KEYS_PER_COMMIT != null)
                args.add(TxnRocksDBConfig.TTL_EXPIRY_KEYS_PER_COMMIT_CONFIG + "=" + EXPIRY_KEYS_PER_COMMIT);
            app = AppProcess.start(List.of("-Xmx512m"), appId, kafka, TtlDedupApp.class, args.toArray(String[]::new));
            app.awaitLine(l -> l.equals("FIRST-PROCESSED"), Duration.ofSeconds(120));
            long first = app.arrivalOf(0, l -> l.equals("FIRST-PROCESSED"));
            progress.awaitEnd(input.records(), Duration.ofSeconds(600 + input.records() / 2_000));
            long end = System.nanoTime();
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("run", run);
            r.put("records", input.records());
            r.put("seconds", (end - first) / 1e9);
            r.put("recordsPerSecond", input.records() / ((end - first) / 1e9));
            r.put("launchToFirstProcessedMs", (first - launch) / 1e6);
            List<double[]> samples = samples(app);
            // the series itself, for plots: seconds since the first record, commit and punctuate max (null: none)
            List<List<Object>> series = new ArrayList<>();
            for (double[] x : samples) {
                if (x[0] < first || x[0] > end) continue;
                series.add(Arrays.asList(
                        Math.round((x[0] - first) / 1e8) / 10.0,
                        Double.isNaN(x[1]) ? null : x[1],
                        Double.isNaN(x[2]) ? null : x[2]));
            }
            r.put("latencySeries", series);
            // the first seconds' commits set up the producer's transactions: not the steady cost
            long warm = first + WARM_UP.toNanos();
            r.put("commitLatencyMs", latency(samples, 0, warm, end));
            r.put("punctuateLatencyMs", latency(samples, 1, warm, end));
            // a window under a second (a smoke run's) measures the offsets' polling, not the app
            if (steadyFrom >= 0 && progress.crossed > 0 && end - progress.crossed > 1_000_000_000L) {
                double secs = (end - progress.crossed) / 1e9;
                r.put("steadySeconds", secs);
                r.put("steadyRecordsPerSecond", (input.records() - steadyFrom) / secs);
                r.put("steadyCommitLatencyMs", latency(samples, 0, progress.crossed, end));
                r.put("steadyPunctuateLatencyMs", latency(samples, 1, progress.crossed, end));
            }
            if (progress.crossed > 0) r.put("markSeconds", Math.round((progress.crossed - first) / 1e8) / 10.0);
            if (splitAt >= 0 && progress.crossed > 0) {
                r.put("commitLatencyBeforeMs", latency(samples, 0, warm, progress.crossed));
                r.put("commitLatencyAfterMs", latency(samples, 0, progress.crossed, end));
            }
            if (progress.bytesAtMark >= 0) {
                // the store's size on disk as the steady state starts and as it ends, the app running
                // both times (write-ahead log and memtables' flushes as they are): a store that gives
                // space back stays at about the same size for the same live set
                r.put("stateDirMiBAtMark", progress.bytesAtMark / 1048576.0);
                r.put("stateDirMiBAtEnd", runningBytes(stateDir) / 1048576.0);
            }
            r.put(
                    "keysVisible",
                    Long.parseLong(
                            app.ask("count", "COUNT ", Duration.ofMinutes(5)).substring(6)));
            long liveTtl = c.expiry() == Expiry.NONE ? Long.MAX_VALUE : ttl.toMillis();
            r.put("liveIds", live.computeIfAbsent(topic + "/" + liveTtl, k -> input.liveAtEnd(liveTtl)));
            if (c.expiry() == Expiry.TTL) {
                r.put("expiredKeys", app.metric("ttl-expired-total")[0]);
                r.put("expiredBytes", app.metric("ttl-expired-bytes-total")[0]);
            }
            app.stop();
            r.put("stateDirMiB", E2EBench.directoryBytes(stateDir) / 1048576.0);
            r.put("changelogRecords", BrokerFixture.sum(kafka.endOffsets(List.of(changelog), PARTITIONS)));
            say(String.format(
                    "ttl [%s] %s: %,d records in %.1f s: %,.0f records/s%s; commit latency p99 %s ms, punctuate p99 %s "
                            + "ms; %,d keys visible (%,d live); state dir %.1f MiB",
                    c.id(),
                    topic,
                    input.records(),
                    r.get("seconds"),
                    r.get("recordsPerSecond"),
                    r.containsKey("steadyRecordsPerSecond")
                            ? String.format(" (steady %,.0f records/s)", r.get("steadyRecordsPerSecond"))
                            : "",
                    p99(r.get("commitLatencyMs")),
                    p99(r.get("punctuateLatencyMs")),
                    r.get("keysVisible"),
                    r.get("liveIds"),
                    r.get("stateDirMiB")));
            return r;
        } catch (Exception | AssertionError e) {
            kafka.showLogs(appId);
            throw new IllegalStateException("ttl run " + appId + " failed: " + e.getMessage(), e);
        } finally {
            if (app != null) app.stop();
            KafkaBroker.deleteRecursively(stateDir);
            E2EBench.deleteTopics(kafka, output, changelog);
        }
    }

    /** The bytes of the files under a running app's state directory (files RocksDB deletes meanwhile are skipped). */
    private static long runningBytes(Path dir) {
        long[] bytes = {0};
        try (var files = Files.walk(dir)) {
            files.forEach(p -> {
                try {
                    if (Files.isRegularFile(p)) bytes[0] += Files.size(p);
                } catch (java.io.IOException gone) {
                    // deleted by a compaction since the walk listed it
                }
            });
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return -1;
        }
        return bytes[0];
    }

    /** The SAMPLE lines of an app: arrival (nanoTime), commit-latency-max, punctuate-latency-max (NaN: none). */
    private static List<double[]> samples(AppProcess app) {
        List<double[]> r = new ArrayList<>();
        List<String> lines = app.linesFrom(0);
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (!l.startsWith("SAMPLE ")) continue;
            String[] f = l.split(" ");
            int index = i;
            long at = app.arrivalOf(index, x -> true);
            r.add(new double[] {at, number(f[1]), number(f[2])});
        }
        return r;
    }

    private static double number(String s) {
        return s.equals("-") ? Double.NaN : Double.parseDouble(s);
    }

    /** p50, p99 and max of one kind of sample ({@code which}: 0 commit, 1 punctuate) arrived within [from, to]. */
    private static Map<String, Object> latency(List<double[]> samples, int which, long from, long to) {
        double[] v = samples.stream()
                .filter(s -> s[0] >= from && s[0] <= to && !Double.isNaN(s[1 + which]))
                .mapToDouble(s -> s[1 + which])
                .sorted()
                .toArray();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("samples", v.length);
        if (v.length == 0) return r;
        r.put("p50", percentile(v, 0.50));
        r.put("p99", percentile(v, 0.99));
        r.put("max", v[v.length - 1]);
        return r;
    }

    private static double percentile(double[] sorted, double q) {
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
    }

    @SuppressWarnings("unchecked")
    private static Object p99(Object latency) {
        return ((Map<String, Object>) latency).getOrDefault("p99", "-");
    }

    /**
     * Watches the group's committed offsets of the input (every 250 ms): when their sum first reaches
     * {@code mark} ({@link #crossed}, nanoTime) and when it reaches the end.
     */
    private final class Progress implements AutoCloseable {
        private final String group;
        private final String topic;
        private final long mark;
        private final Admin admin;
        private final Path stateDir;
        volatile long crossed = -1;
        /** The state directory's bytes when the mark was crossed (the app running), or -1. */
        volatile long bytesAtMark = -1;

        Progress(String group, String topic, long steadyFrom, long splitAt, Path stateDir) {
            this.group = group;
            this.topic = topic;
            this.mark = Math.max(steadyFrom, splitAt);
            this.admin = kafka.admin();
            this.stateDir = stateDir;
        }

        void awaitEnd(long records, Duration timeout) throws Exception {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                long committed = committed();
                if (mark >= 0 && crossed < 0 && committed >= mark) {
                    crossed = System.nanoTime();
                    bytesAtMark = runningBytes(stateDir);
                }
                if (committed >= records) return;
                if (System.nanoTime() > deadline)
                    throw new IllegalStateException(group + ": committed " + committed + " of " + records + " in "
                            + timeout.toSeconds() + " s");
                Thread.sleep(250);
            }
        }

        private long committed() {
            try {
                Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata()
                        .get(10, TimeUnit.SECONDS);
                long sum = 0;
                for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
                    if (e.getKey().topic().equals(topic) && e.getValue() != null)
                        sum += e.getValue().offset();
                }
                return sum;
            } catch (Exception e) {
                return 0;
            }
        }

        @Override
        public void close() {
            admin.close(Duration.ofSeconds(5));
        }
    }

    // ---------------------------------------------------------------- the input

    /**
     * A generated input, in order: each record an id at a timestamp. {@link #forEach} replays it, so
     * that nothing of it is held in memory; the model's answers are computed from the same replay.
     */
    private record Input(
            String shape, long records, long firstTimestamp, Map<String, Object> description, Generator gen) {

        interface Generator {
            void forEach(ObjLongConsumer<String> each);
        }

        /**
         * {@code total} new ids at a rate of {@code ratePerTtl} ids per {@code ttl} of stream time, and
         * every tenth id again {@link #AGAIN_AFTER} of the TTL later.
         */
        static Input steady(long ratePerTtl, long total, Duration ttl) {
            double step = (double) ttl.toMillis() / ratePerTtl;
            long again = Math.round(ratePerTtl * AGAIN_AFTER);
            long span = Math.round(total * step);
            long base = start(span);
            Generator gen = each -> {
                for (long i = 0; i < total; i++) {
                    long t = base + (long) (i * step);
                    each.accept(id(i), t);
                    if (i % 10 == 0 && i >= again) each.accept(id(i - again), t);
                }
            };
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("ids", total);
            d.put("ttlMs", ttl.toMillis());
            d.put("idsPerTtl", ratePerTtl);
            d.put("spanMs", span);
            return new Input("steady", count(gen), base, d, gen);
        }

        /** {@code ids} ids within one second, then {@code background} new ids over two TTLs. */
        static Input mass(long ids, long background, Duration ttl) {
            long span = 2 * ttl.toMillis();
            long base = start(span);
            double step = (double) span / background;
            Generator gen = each -> {
                for (long i = 0; i < ids; i++) each.accept(id(i), base + i * 1000 / ids);
                for (long i = 0; i < background; i++) each.accept(id(ids + i), base + 1000 + (long) (i * step));
            };
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("ttlMs", ttl.toMillis());
            d.put("spanMs", span);
            return new Input("mass", ids + background, base, d, gen);
        }

        Map<String, Object> settings() {
            Map<String, Object> s = new LinkedHashMap<>(description);
            s.put("records", records);
            return s;
        }

        void forEach(ObjLongConsumer<String> each) {
            gen.forEach(each);
        }

        /** The records before the first sighting of id number {@code n}. */
        long recordsBefore(long n) {
            String id = id(n);
            long[] count = {0, -1};
            forEach((key, t) -> {
                if (count[1] < 0 && key.equals(id)) count[1] = count[0];
                count[0]++;
            });
            return count[1] < 0 ? count[0] : count[1];
        }

        /** The first record whose timestamp is at least one TTL after the first record's: when the first ids expire. */
        long massExpiryRecord() {
            long limit = firstTimestamp + (long) description.get("ttlMs");
            long[] count = {0, -1};
            forEach((key, t) -> {
                if (count[1] < 0 && t >= limit) count[1] = count[0];
                count[0]++;
            });
            return count[1];
        }

        /**
         * The ids a deduplication with a time-to-live of {@code ttlMs} remembers at the end: first seen
         * (or seen again after expiring) later than {@code ttlMs} before its partition's last timestamp.
         */
        long liveAtEnd(long ttlMs) {
            Map<String, Long> last = new HashMap<>();
            long[] end = new long[PARTITIONS];
            forEach((key, t) -> {
                int p = partition(key);
                end[p] = Math.max(end[p], t);
                Long at = last.get(key);
                if (at == null || ttlMs != Long.MAX_VALUE && at <= t - ttlMs) last.put(key, t);
            });
            if (ttlMs == Long.MAX_VALUE) return last.size();
            return last.entrySet().stream()
                    .filter(e -> e.getValue() > end[partition(e.getKey())] - ttlMs)
                    .count();
        }

        private static long count(Generator gen) {
            AtomicLong n = new AtomicLong();
            gen.forEach((key, t) -> n.incrementAndGet());
            return n.get();
        }

        /** The first timestamp of an input spanning {@code span} ms that ends five minutes ago (the broker's clock bounds). */
        private static long start(long span) {
            return System.currentTimeMillis() / 60_000 * 60_000
                    - span
                    - Duration.ofMinutes(5).toMillis();
        }

        static String id(long i) {
            return "id-" + i;
        }

        static int partition(String id) {
            return Utils.toPositive(Utils.murmur2(id.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
        }
    }

    /** Produces {@code input} to a new topic {@code e2e-ttl-<name>-input}; returns its name. */
    private String produce(String name, Input input) throws Exception {
        String topic = "e2e-ttl-" + name + "-input";
        kafka.createTopics(PARTITIONS, topic);
        long t = System.nanoTime();
        AtomicReference<Exception> failed = new AtomicReference<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrap(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class,
                ProducerConfig.LINGER_MS_CONFIG,
                20,
                ProducerConfig.BATCH_SIZE_CONFIG,
                256 * 1024,
                ProducerConfig.COMPRESSION_TYPE_CONFIG,
                "lz4"))) {
            input.forEach((id, ts) -> producer.send(new ProducerRecord<>(topic, null, ts, id, "x"), (m, e) -> {
                if (e != null) failed.compareAndSet(null, e);
            }));
        }
        if (failed.get() != null) throw new IllegalStateException("producing " + topic + " failed", failed.get());
        long produced = BrokerFixture.sum(kafka.endOffsets(List.of(topic), PARTITIONS));
        if (produced != input.records())
            throw new IllegalStateException(topic + " holds " + produced + " records, not " + input.records());
        say(String.format("ttl: %,d records produced to %s in %.1f s", produced, topic, E2EBench.seconds(t)));
        return topic;
    }

    private static Map<String, List<Map<String, Object>>> byColumn(Map<String, Object> out, List<Column> columns) {
        Map<String, List<Map<String, Object>>> byColumn = new LinkedHashMap<>();
        List<Map<String, Object>> all = new ArrayList<>();
        for (Column c : columns) {
            List<Map<String, Object>> runs = new ArrayList<>();
            byColumn.put(c.id(), runs);
            all.add(new LinkedHashMap<>(Map.of("column", c.id(), "runs", runs)));
        }
        out.put("results", all);
        return byColumn;
    }

    private static List<Column> columns(String property, String defaults) {
        List<Column> r = new ArrayList<>();
        for (String id : E2EBench.list(property, defaults)) {
            Column c = COLUMNS.get(id);
            if (c == null)
                throw new IllegalArgumentException(property + ": unknown column " + id + " " + COLUMNS.keySet());
            r.add(c);
        }
        return r;
    }
}
