package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.say;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.txnrocksdb.streams.TxnStores;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard ({@code ops/grafana/txn-rocksdb-dashboard.json}) asks only for metrics that a
 * real application exports through the Prometheus JMX exporter with the repository's rules
 * ({@code ops/prometheus/jmx-exporter.yml}): Grafana cannot run here, so this stands in for a
 * rendered dashboard. An exactly-once app with our key-value (snapshots to a {@code file://}
 * location), window, session and time-to-live stores runs on the broker fixture with the exporter's
 * Java agent (1.0.1, from Maven Central) at the default {@code metrics.recording.level=INFO}; once its
 * stores have committed and snapshotted, {@code /metrics} is scraped and every metric name in every
 * panel's and variable's query must be among the scrape's. Also: the dashboard covers each area the
 * issue names, every metric of ours the app has is exported under the rules' name with the labels the
 * dashboard filters on, and counters keep {@code _total} (exporter 1.x strips it from other types).
 */
class DashboardMetricsTest {
    static final String APP = "dashboard";
    static final String INPUT = "dashboard-input";
    static final String KV = "counts";
    static final String WINDOW = "windowed-counts";
    static final String SESSION = "session-counts";
    static final String TTL_STORE = "recent-ids";
    static final String STORE_PREFIX = "kafka_streams_stream_state_metrics_";
    static final String THREAD_COMMIT_LATENCY = "kafka_streams_stream_thread_metrics_commit_latency_avg";

    /** The areas the issue asks the dashboard to show, each with the metrics that show it (one at least). */
    static final Map<String, List<String>> AREAS = new LinkedHashMap<>();

    static {
        AREAS.put(
                "commit latency",
                List.of(
                        "kafka_streams_stream_thread_metrics_commit_latency_avg",
                        "kafka_streams_stream_thread_metrics_commit_latency_max"));
        AREAS.put(
                "uncommitted bytes",
                List.of(STORE_PREFIX + "uncommitted_bytes", STORE_PREFIX + "temporary_store_bytes"));
        AREAS.put(
                "restore progress",
                List.of(
                        "kafka_streams_stream_task_metrics_restore_remaining_records",
                        STORE_PREFIX + "restore_records_total",
                        STORE_PREFIX + "restore_remaining_offsets"));
        AREAS.put("snapshot age", List.of(STORE_PREFIX + "snapshot_last_age_ms"));
        AREAS.put(
                "damage events",
                List.of(
                        STORE_PREFIX + "wipes_total",
                        STORE_PREFIX + "rollbacks_total",
                        STORE_PREFIX + "roll_forwards_total",
                        STORE_PREFIX + "snapshot_objects_damaged_total",
                        STORE_PREFIX + "snapshot_objects_resent_total"));
        AREAS.put(
                "memory",
                List.of(
                        STORE_PREFIX + "block_cache_usage",
                        STORE_PREFIX + "cur_size_all_mem_tables",
                        "jvm_memory_used_bytes"));
    }

    @Test
    void theDashboardsQueriesUseOnlyMetricsARealRunExports() throws Exception {
        long t0 = System.nanoTime();
        Path ops = Path.of(System.getProperty("it.ops.dir", "../ops"));
        Path rules = ops.resolve("prometheus/jmx-exporter.yml").toAbsolutePath();
        Path dashboardFile = ops.resolve("grafana/txn-rocksdb-dashboard.json");
        Path agent =
                Path.of(System.getProperty("it.jmx.agent.jar", "target/jmx-exporter/jmx_prometheus_javaagent.jar"));
        assertTrue(Files.isRegularFile(agent), "the JMX exporter's agent jar (maven-dependency-plugin): " + agent);
        assertTrue(Files.isRegularFile(rules), rules.toString());

        // the dashboard's metric names, per panel, before anything runs
        Map<String, Set<String>> used = dashboardMetricNames(new ObjectMapper().readTree(dashboardFile.toFile()));
        Set<String> allUsed = new TreeSet<>();
        used.values().forEach(allUsed::addAll);
        assertFalse(allUsed.isEmpty(), "no metric names found in " + dashboardFile);
        for (Map.Entry<String, List<String>> area : AREAS.entrySet()) {
            assertTrue(
                    area.getValue().stream().anyMatch(allUsed::contains),
                    "the dashboard shows no metric of the area '" + area.getKey() + "' (any of " + area.getValue()
                            + ")");
        }

        int port;
        try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (BrokerFixture kafka = BrokerFixture.start("dashboard")) {
            kafka.createTopicsWithLeaders(1, List.of(INPUT));
            Path snapshots = Files.createDirectories(kafka.tmp.resolve("snapshots"));
            AppProcess app = AppProcess.start(
                    List.of("-Xmx512m", "-javaagent:" + agent.toAbsolutePath() + "=127.0.0.1:" + port + ":" + rules),
                    APP,
                    kafka,
                    App.class,
                    kafka.bootstrap(),
                    kafka.tmp.resolve("state").toString(),
                    APP,
                    snapshots.toUri().toString());
            try {
                app.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(60));
                Scrape scrape = produceUntilCommittedAndSnapshotted(kafka, port);
                // kept for a look at what the exporter gives (target/ of the tests module)
                Files.writeString(Path.of("target", "dashboard-metrics-scrape.txt"), scrape.body);
                String names = app.ask("names", "NAMES ", Duration.ofSeconds(30));
                checkScrape(scrape, names.substring("NAMES ".length()));

                Set<String> missing = new TreeSet<>(allUsed);
                missing.removeAll(scrape.samples.keySet());
                Map<String, Set<String>> missingByPanel = new TreeMap<>();
                used.forEach((panel, metrics) -> metrics.stream()
                        .filter(missing::contains)
                        .forEach(m -> missingByPanel
                                .computeIfAbsent(panel, k -> new TreeSet<>())
                                .add(m)));
                say("  scrape: " + scrape.bytes + " bytes, " + scrape.lines + " samples, " + scrape.samples.size()
                        + " metric names");
                say("  dashboard: " + allUsed.size() + " metric names in " + used.size() + " panels and variables:");
                allUsed.forEach(m -> say("    " + m + (missing.contains(m) ? "   <- NOT EXPORTED" : "")));
                assertTrue(
                        missing.isEmpty(),
                        "the dashboard asks for metrics the exporter does not give: " + missingByPanel);
                // a metric Kafka registers but records only at DEBUG is exported at INFO too, as NaN
                // (averages, maxima) or 0: each one the dashboard uses must have a number somewhere
                Set<String> noNumber = new TreeSet<>();
                for (String m : allUsed) {
                    if (scrape.values.get(m).values().stream().noneMatch(Double::isFinite)) noNumber.add(m);
                }
                assertTrue(noNumber.isEmpty(), "the dashboard uses metrics with no value (DEBUG level?): " + noNumber);
                app.stop();
            } catch (Throwable e) {
                kafka.showLogs(APP);
                throw e;
            } finally {
                if (app.process.isAlive()) app.process.destroyForcibly();
            }
        }
        say("  DashboardMetricsTest took " + BrokerFixture.ms(t0) + " ms");
    }

    /** The metric-name extraction itself, on queries written to trip it. */
    @Test
    void metricNamesAreTakenFromQueriesAndNothingElse() {
        assertEquals(
                Set.of("foo_total", "bar"),
                metricNames("sum by (store, task_id) (rate(foo_total{job=~\"$job\", a=\"b(c) d\"}[$__rate_interval]))"
                        + " / on (instance) group_left (x) max without (y) (bar offset 5m) > 0.5 * 1e3"));
        assertEquals(Set.of("up"), metricNames("count(up) by (job) or vector(0)"));
        assertEquals(Set.of("a_b:c"), metricNames("histogram_quantile(0.99, sum(rate(a_b:c[5m])) by (le))"));
        assertEquals(Set.of("m"), metricNames("label_values(m{x=\"1\"}, instance)"));
    }

    /** Produces a few records a second until every store of ours has committed and the key-value store snapshotted. */
    static Scrape produceUntilCommittedAndSnapshotted(BrokerFixture kafka, int port) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        int n = 0;
        try (KafkaProducer<String, String> producer = kafka.stringProducer()) {
            while (true) {
                for (int i = 0; i < 100; i++, n++) {
                    producer.send(new ProducerRecord<>(INPUT, "word-" + n % 50, "id-" + n));
                }
                producer.flush();
                Scrape scrape = Scrape.of(port);
                boolean done = scrape.value(STORE_PREFIX + "snapshots_total", KV) >= 1
                        && scrape.value(STORE_PREFIX + "estimate_num_keys", KV) > 0
                        && List.of(KV, WINDOW, SESSION, TTL_STORE).stream()
                                .allMatch(s -> scrape.value(STORE_PREFIX + "commit_total", s) > 0)
                        // our stores commit inside the task's commit, before Kafka's transaction
                        // commits and the thread records the commit's latency: a scrape in between
                        // sees our commit and no thread commit yet (CI, stop 55)
                        && scrape.values.getOrDefault(THREAD_COMMIT_LATENCY, Map.of()).values().stream()
                                .anyMatch(Double::isFinite);
                if (done) {
                    say("  " + n + " records produced; " + KV + ": "
                            + scrape.value(STORE_PREFIX + "snapshots_total", KV) + " snapshots, "
                            + scrape.value(STORE_PREFIX + "commit_total", KV) + " commits, last snapshot "
                            + scrape.value(STORE_PREFIX + "snapshot_last_age_ms", KV) + " ms ago");
                    return scrape;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(
                            "no commit and snapshot of every store within 60 s; our store metrics: " + scrape.ours());
                }
                Thread.sleep(300);
            }
        }
    }

    /**
     * What the rules make of our metrics: every metric of ours the app has ({@code names}: {@code
     * store:name} pairs from {@code KafkaStreams.metrics()}) is exported for its store, with the
     * labels the dashboard filters on, counters with {@code _total} and as counters.
     */
    static void checkScrape(Scrape scrape, String names) {
        assertFalse(names.isBlank(), "the app reports no metric of our stores");
        Set<String> expected = new TreeSet<>();
        List<String> problems = new ArrayList<>();
        for (String pair : names.split(";")) {
            int colon = pair.indexOf(':');
            String store = pair.substring(0, colon);
            String kafkaName = pair.substring(colon + 1);
            String name = STORE_PREFIX + kafkaName.replace('-', '_');
            expected.add(name);
            if (scrape.labels(name, store).isEmpty()) problems.add(store + " " + kafkaName + " -> " + name);
            if (kafkaName.endsWith("-total")) {
                String stripped = name.substring(0, name.length() - "_total".length());
                if (scrape.samples.containsKey(stripped)) problems.add(name + " exported as " + stripped);
                String type = scrape.types.getOrDefault(name, scrape.types.get(stripped));
                if (!"counter".equals(type)) problems.add(name + " of type " + type + ", not counter");
            }
        }
        assertTrue(problems.isEmpty(), "our metrics as exported: " + problems);
        // the set covers the three store kinds and the optional parts (snapshots, time-to-live)
        for (String m : List.of(
                "commit_total",
                "wipes_total",
                "rollbacks_total",
                "roll_forwards_total",
                "snapshots_total",
                "snapshot_last_age_ms",
                "snapshot_objects_damaged_total",
                "ttl_expired_total",
                "ttl_expiry_backlog_commits",
                "estimate_num_keys",
                "temporary_store_bytes",
                "restore_records_total")) {
            assertTrue(expected.contains(STORE_PREFIX + m), "the app has no " + m + ": " + names);
        }
        for (String kind : List.of("txn-rocksdb", "txn-rocksdb-window", "txn-rocksdb-session")) {
            assertTrue(
                    scrape.samples.getOrDefault(STORE_PREFIX + "commit_total", List.of()).stream()
                            .anyMatch(s -> kind.equals(s.get("store_type"))),
                    "no store of type " + kind);
        }
        for (Map.Entry<String, List<Map<String, String>>> e : scrape.samples.entrySet()) {
            if (!e.getKey().startsWith(STORE_PREFIX)) continue;
            for (Map<String, String> labels : e.getValue()) {
                assertTrue(
                        labels.keySet().containsAll(List.of("thread_id", "task_id", "store", "store_type")),
                        e.getKey() + labels);
            }
        }
        // every Kafka Streams metric keeps its name (the group's prefix, then the metric's name with
        // '-' as '_'), except the two the rules rename
        Map<String, String> renamed = Map.of(
                "kafka_streams_stream_task_metrics_restore_remaining_records", "restore-remaining-records-total",
                "kafka_streams_stream_thread_metrics_created_tasks_total", "task-created-total");
        List<String> mangled = new ArrayList<>();
        scrape.attributes.forEach((name, attribute) -> {
            if (!name.endsWith("_" + attribute.replace('-', '_')) && !attribute.equals(renamed.get(name)))
                mangled.add(attribute + " -> " + name);
        });
        assertFalse(scrape.attributes.isEmpty(), "no HELP line names its attribute: the exporter's format changed");
        assertTrue(mangled.isEmpty(), "metric names the exporter changed: " + mangled);
        assertFalse(
                scrape.samples.values().stream().flatMap(List::stream).anyMatch(l -> l.containsKey("_objectname")),
                "two MBeans exported under one name and labels (the exporter added _objectname): a rule is too loose");
        say("  our metrics, all exported with their store: " + expected.size() + " names; Kafka Streams metrics"
                + " exported under their own names: " + scrape.attributes.size());
    }

    // ------------------------------------------------------------------------------------------
    // The dashboard's metric names

    /** PromQL's keywords and aggregation operators (which may be followed by {@code by (...)} rather than {@code (}). */
    static final Set<String> PROMQL_WORDS = Set.of(
            "by",
            "without",
            "on",
            "ignoring",
            "group_left",
            "group_right",
            "bool",
            "and",
            "or",
            "unless",
            "offset",
            "inf",
            "nan",
            "start",
            "end",
            "sum",
            "min",
            "max",
            "avg",
            "group",
            "stddev",
            "stdvar",
            "count",
            "count_values",
            "bottomk",
            "topk",
            "quantile",
            "limitk",
            "limit_ratio");

    /** Metric names per panel ({@code "panel <title>: <refId>"}) and per variable, from every query of the dashboard. */
    static Map<String, Set<String>> dashboardMetricNames(JsonNode dashboard) {
        Map<String, Set<String>> out = new TreeMap<>();
        List<JsonNode> panels = new ArrayList<>();
        dashboard.path("panels").forEach(panels::add);
        // collapsed rows hold their panels
        for (int i = 0; i < panels.size(); i++) panels.get(i).path("panels").forEach(panels::add);
        for (JsonNode panel : panels) {
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText("");
                if (!expr.isBlank()) {
                    Set<String> names = metricNames(expr);
                    assertFalse(names.isEmpty(), "no metric in " + expr);
                    out.put(
                            "panel '" + panel.path("title").asText() + "' "
                                    + target.path("refId").asText(),
                            names);
                }
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (!variable.path("type").asText().equals("query")) continue;
            JsonNode query = variable.path("query");
            String q = query.isObject() ? query.path("query").asText("") : query.asText("");
            Set<String> names = metricNames(q);
            if (!names.isEmpty()) out.put("variable " + variable.path("name").asText(), names);
        }
        return out;
    }

    /**
     * The metric names a PromQL query (or a Grafana variable query such as {@code label_values(m{...},
     * label)}) reads: the identifiers left once strings, label matchers, ranges, the label lists of
     * {@code by}/{@code without}/{@code on}/{@code ignoring}/{@code group_left}/{@code group_right},
     * Grafana variables, numbers and durations are removed, except function names (an identifier
     * followed by {@code (}) and PromQL's keywords.
     */
    static Set<String> metricNames(String query) {
        String e = query;
        Matcher lv = Pattern.compile("^\\s*label_values\\s*\\((.*),\\s*[A-Za-z_][A-Za-z0-9_]*\\s*\\)\\s*$")
                .matcher(e);
        if (lv.matches()) e = lv.group(1); // the label argument is not a metric
        else if (e.matches("^\\s*label_values\\s*\\(\\s*[A-Za-z_][A-Za-z0-9_]*\\s*\\)\\s*$")) return Set.of();
        e = e.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", " ")
                .replaceAll("'(?:[^'\\\\]|\\\\.)*'", " ")
                .replaceAll("`[^`]*`", " ")
                .replaceAll("\\{[^}]*\\}", " ")
                .replaceAll("\\[[^\\]]*\\]", " ")
                .replaceAll("(?i)\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " $1 ")
                .replaceAll("\\$\\{[^}]*\\}|\\$\\w+|\\[\\[\\w+\\]\\]", " ");
        Set<String> names = new TreeSet<>();
        Matcher m = Pattern.compile("([A-Za-z0-9_:.]+)(\\s*\\()?").matcher(e);
        while (m.find()) {
            String token = m.group(1);
            char first = token.charAt(0);
            if (Character.isDigit(first) || first == '.') continue; // numbers, durations
            if (m.group(2) != null) continue; // a function
            if (PROMQL_WORDS.contains(token.toLowerCase(Locale.ROOT))) continue;
            names.add(token);
        }
        return names;
    }

    // ------------------------------------------------------------------------------------------
    // The exporter's output

    /** One GET of the exporter's {@code /metrics}: samples by metric name (their labels), and the TYPE lines. */
    static final class Scrape {
        final Map<String, List<Map<String, String>>> samples = new TreeMap<>();
        final Map<String, Map<Map<String, String>, Double>> values = new HashMap<>();
        final Map<String, String> types = new HashMap<>();
        /** Exported name to the JMX attribute (Kafka's metric name) it came from, from the HELP lines. */
        final Map<String, String> attributes = new TreeMap<>();

        String body;
        int bytes;
        int lines;

        private static final HttpClient HTTP =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        /** The exporter ends each HELP text with the MBean and the attribute: {@code ...,attribute=commit-total}. */
        private static final Pattern HELP_ATTRIBUTE =
                Pattern.compile("^# HELP (kafka_streams_\\S+) .*[,:]attribute=([A-Za-z0-9._-]+)$");

        private static final Pattern LABEL = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

        static Scrape of(int port) throws Exception {
            HttpResponse<String> r = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                            .timeout(Duration.ofSeconds(20))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            Scrape s = new Scrape();
            s.body = r.body();
            s.bytes = r.body().length();
            for (String line : r.body().split("\n")) {
                if (line.startsWith("# TYPE ")) {
                    String[] f = line.split(" ");
                    s.types.put(f[2], f[3]);
                }
                Matcher help = HELP_ATTRIBUTE.matcher(line);
                if (help.find()) s.attributes.put(help.group(1), help.group(2));
                if (line.isBlank() || line.startsWith("#")) continue;
                s.lines++;
                int brace = line.indexOf('{');
                int space = line.indexOf(' ');
                boolean labelled = brace >= 0 && (space < 0 || brace < space);
                String name = line.substring(0, labelled ? brace : space);
                Map<String, String> labels = new TreeMap<>();
                String rest = labelled ? line : line.substring(space);
                if (labelled) {
                    int close = line.lastIndexOf('}');
                    Matcher m = LABEL.matcher(line.substring(brace + 1, close));
                    while (m.find()) labels.put(m.group(1), m.group(2));
                    rest = line.substring(close + 1);
                }
                double value;
                try {
                    value = Double.parseDouble(rest.trim().split(" ")[0]);
                } catch (NumberFormatException notANumber) {
                    value = Double.NaN;
                }
                s.samples.computeIfAbsent(name, k -> new ArrayList<>()).add(labels);
                s.values.computeIfAbsent(name, k -> new HashMap<>()).put(labels, value);
            }
            return s;
        }

        /** The labels of {@code name}'s samples for {@code store}. */
        List<Map<String, String>> labels(String name, String store) {
            return samples.getOrDefault(name, List.of()).stream()
                    .filter(l -> store.equals(l.get("store")))
                    .toList();
        }

        /** The largest value of {@code name} for {@code store}, or -Infinity without one. */
        double value(String name, String store) {
            return values.getOrDefault(name, Map.of()).entrySet().stream()
                    .filter(e -> store.equals(e.getKey().get("store")))
                    .mapToDouble(Map.Entry::getValue)
                    .max()
                    .orElse(Double.NEGATIVE_INFINITY);
        }

        /** Our stores' samples, for a failure message. */
        String ours() {
            StringBuilder b = new StringBuilder();
            values.forEach((name, byLabels) -> byLabels.forEach((labels, v) -> {
                if (name.startsWith(STORE_PREFIX)
                        && labels.getOrDefault("store_type", "").startsWith("txn-rocksdb"))
                    b.append("\n    ").append(name).append(labels).append(' ').append(v);
            }));
            return b.toString();
        }
    }

    // ------------------------------------------------------------------------------------------
    // The app

    /**
     * The app the exporter watches, in a child JVM: {@code App <bootstrap> <stateDir> <appId>
     * <snapshot location>}. Exactly-once, one stream thread, stores of ours from the DSL suppliers: a
     * word count (key-value), a windowed and a session count over the input's keys, plus a key-value
     * store with a time-to-live of 2 s that remembers each record's value (an id). Snapshots of every
     * store every 300 ms. Prints RUNNING; answers {@code names} with {@code NAMES store:metric;...}
     * (every metric of our stores in {@code KafkaStreams.metrics()}) and {@code stop}.
     */
    public static final class App {
        private App() {}

        public static void main(String[] args) throws Exception {
            Properties p = new Properties();
            p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[2]);
            p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
            p.put(StreamsConfig.STATE_DIR_CONFIG, args[1]);
            p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
            p.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
            p.put("dsl.store.suppliers.class", "dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers");
            p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
            p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
            p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
            p.put("txn.rocksdb.snapshot.location", args[3]);
            p.put("txn.rocksdb.snapshot.interval.ms", "300");

            StreamsBuilder builder = new StreamsBuilder();
            KStream<String, String> input = builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()));
            KGroupedStream<String, String> grouped = input.groupByKey();
            grouped.count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as(KV)
                    .withKeySerde(Serdes.String())
                    .withValueSerde(Serdes.Long()));
            grouped.windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofSeconds(10)))
                    .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as(WINDOW)
                            .withKeySerde(Serdes.String())
                            .withValueSerde(Serdes.Long()));
            grouped.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(Duration.ofSeconds(5)))
                    .count(Materialized.<String, Long, SessionStore<Bytes, byte[]>>as(SESSION)
                            .withKeySerde(Serdes.String())
                            .withValueSerde(Serdes.Long()));
            builder.addStateStore(Stores.keyValueStoreBuilder(
                    TxnStores.persistentTransactionalKeyValueStore(TTL_STORE).withTtl(Duration.ofSeconds(2)),
                    Serdes.String(),
                    Serdes.Long()));
            input.process(Remember::new, TTL_STORE);

            KafkaStreams streams = new KafkaStreams(builder.build(), p);
            streams.setStateListener((now, before) -> {
                if (now == KafkaStreams.State.RUNNING) out("RUNNING");
            });
            streams.start();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.trim().equals("stop")) {
                if (line.trim().equals("names")) out("NAMES " + ourMetricNames(streams));
            }
            streams.close(Duration.ofSeconds(30));
            out("STOPPED");
            System.exit(0);
        }

        /** {@code store:metric;...} over every metric of a store of ours (a {@code txn-rocksdb*-state-id} tag). */
        static String ourMetricNames(KafkaStreams streams) {
            Set<String> names = new TreeSet<>();
            streams.metrics().keySet().forEach(name -> {
                if (!name.group().equals("stream-state-metrics")) return;
                name.tags().forEach((tag, value) -> {
                    if (tag.startsWith("txn-rocksdb") && tag.endsWith("-state-id"))
                        names.add(value + ":" + name.name());
                });
            });
            return String.join(";", names);
        }

        private static synchronized void out(String s) {
            System.out.println(s);
            System.out.flush();
        }
    }

    /** Remembers each record's value (an id) at the record's timestamp in the time-to-live store. */
    static final class Remember implements Processor<String, String, Void, Void> {
        private KeyValueStore<String, Long> store;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            store = context.getStateStore(TTL_STORE);
        }

        @Override
        public void process(Record<String, String> record) {
            store.put(record.value(), record.timestamp());
        }
    }
}
