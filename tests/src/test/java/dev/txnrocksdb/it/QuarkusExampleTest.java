package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.ms;
import static dev.txnrocksdb.it.BrokerFixture.say;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code examples/quarkus}, built as its users build it (a Maven subprocess: the Quarkus fast-jar)
 * and run as a child process against the fixture's broker:
 * <ul>
 *   <li>with the Kafka 4.4.0 override: the word count under exactly-once on our stores, chosen in
 *   application.properties alone, counts correctly; the state directory holds our store (its own
 *   column families), not Kafka's RocksDB store; after {@code kill -9} (exit 137) a restart restores
 *   0 records and the counts go on exactly once; the same app on an empty state directory restores
 *   the whole changelog (so the restore listener really reports);</li>
 *   <li>without the override ({@code -Dframework-kafka}: the Quarkus BOM's Kafka 4.1.x), the app fails
 *   at startup with our version message, not a {@code NoSuchMethodError}.</li>
 * </ul>
 */
class QuarkusExampleTest {

    static final int PARTITIONS = 2;
    static final String INPUT = "words";
    static final String OUTPUT = "word-counts-output";
    static final String STORE = "word-counts";
    static final List<String> WORDS = List.of(
            "log",
            "kejadian",
            "dibaca",
            "aliran",
            "topik",
            "partisi",
            "transaksi",
            "toko",
            "kunci",
            "nilai",
            "offset",
            "broker");
    static final String VERSION_MESSAGE = "needs Kafka Streams 4.4.x, but found Kafka Streams 4.1.";

    static BrokerFixture kafka;
    static Path example;

    @BeforeAll
    static void start() throws Exception {
        Path tests = Path.of(System.getProperty("basedir", System.getProperty("user.dir")))
                .toAbsolutePath();
        example = tests.getParent().resolve("examples/quarkus");
        assertTrue(Files.isRegularFile(example.resolve("pom.xml")), "no Quarkus example at " + example);
        kafka = BrokerFixture.start("quarkus");
        kafka.createTopics(PARTITIONS, INPUT, OUTPUT);
    }

    @AfterAll
    static void stop() throws Exception {
        if (kafka != null) kafka.close();
    }

    @Test
    void wordCountOnOurStoresSurvivesKill9() throws Exception {
        long build = ExampleProcess.mavenPackage(example.resolve("pom.xml"), kafka.tmp.resolve("quarkus-build.log"));
        Path app = example.resolve("target/quarkus-app");
        say("Quarkus example built in " + build + " ms");
        assertTrue(
                Files.isRegularFile(app.resolve("lib/main/org.apache.kafka.kafka-streams-4.4.0.jar")),
                "the override put Kafka Streams 4.4.0 into the app: " + kafkaJars(app));

        String appId = "quarkus-wordcount-it";
        Path state = Files.createDirectories(kafka.tmp.resolve(appId + "-state"));
        Map<String, Long> expected = new TreeMap<>();
        Random random = new Random(42);
        long t = System.nanoTime();

        ExampleProcess first = startApp("quarkus-1", app, appId, state);
        try {
            awaitRunning(first);
            say("  app RUNNING " + ms(t) + " ms after launch");
            produce(random, 600, expected);
            checkCounts(appId, expected);
            checkOurStoreFiles(state.resolve(appId));
            nativeLibraries(first);
        } catch (Exception | AssertionError e) {
            first.destroy();
            throw e;
        }
        first.kill();
        say("  killed with SIGKILL (exit 137)");

        t = System.nanoTime();
        ExampleProcess second = startApp("quarkus-2", app, appId, state);
        try {
            awaitRunning(second);
            say("  restarted: RUNNING " + ms(t) + " ms after launch, restored " + second.restoredTotal() + " records");
            assertEquals(0, second.restoredTotal(), "records restored after kill -9: " + restoreLines(second));
            produce(random, 400, expected);
            checkCounts(appId, expected);
        } finally {
            second.destroy();
        }

        // The same app on an empty state directory restores every changelog record: the listener
        // that reported 0 above does report restores.
        long changelog = BrokerFixture.sum(kafka.endOffsets(List.of(appId + "-" + STORE + "-changelog"), PARTITIONS));
        Path fresh = Files.createDirectories(kafka.tmp.resolve(appId + "-state-fresh"));
        ExampleProcess third = startApp("quarkus-3", app, appId, fresh);
        try {
            awaitRunning(third);
            long records = expected.values().stream().mapToLong(Long::longValue).sum();
            say("  on an empty state directory: restored " + third.restoredTotal() + " records (" + records
                    + " count updates, changelog end offsets " + changelog + ")");
            assertEquals(records, third.restoredTotal(), "records restored into an empty state directory");
        } finally {
            third.destroy();
        }
    }

    @Test
    void withoutTheOverrideFailsWithOurVersionMessage() throws Exception {
        long build = ExampleProcess.mavenPackage(
                example.resolve("pom.xml"),
                kafka.tmp.resolve("quarkus-build-framework-kafka.log"),
                "-Dframework-kafka");
        Path app = example.resolve("target/framework-kafka/quarkus-app");
        say("Quarkus example without the override (-Dframework-kafka) built in " + build + " ms");
        assertTrue(
                kafkaJars(app).stream().anyMatch(j -> j.startsWith("org.apache.kafka.kafka-streams-4.1.")),
                "the Quarkus BOM's Kafka Streams 4.1.x: " + kafkaJars(app));

        String appId = "quarkus-wordcount-framework-kafka";
        Path state = Files.createDirectories(kafka.tmp.resolve(appId + "-state"));
        ExampleProcess p = startApp("quarkus-framework-kafka", app, appId, state);
        try {
            int exit = p.awaitExit(Duration.ofSeconds(90));
            String out = String.join("\n", p.lines());
            assertNotEquals(0, exit, "exit code of the app without the override");
            assertFalse(
                    out.contains("NoSuchMethodError"),
                    "the app failed with a NoSuchMethodError, not our message:\n" + tail(p));
            assertTrue(
                    out.contains(VERSION_MESSAGE),
                    "our version message (" + VERSION_MESSAGE + ") not in the output:\n" + tail(p));
            say("  failed at startup (exit " + exit + ") with: "
                    + p.lines().stream()
                            .filter(l -> l.contains(VERSION_MESSAGE))
                            .findFirst()
                            .orElse(""));
        } finally {
            p.destroy();
        }
    }

    /** The fast-jar, with the broker, application id and state directory as system properties (and static membership). */
    static ExampleProcess startApp(String name, Path app, String appId, Path state) throws Exception {
        // Kafka's RocksDB library, which Quarkus loads at every start, is extracted to a new temp file
        // each time, and a JVM killed with SIGKILL leaves it behind (about 15 MB): in the fixture's dir
        Path javaTmp = Files.createDirectories(kafka.tmp.resolve("java-tmp"));
        return ExampleProcess.start(
                name,
                kafka.tmp.resolve(name + ".log"),
                List.of(
                        ExampleProcess.java(),
                        "-Xmx384m",
                        "-Djava.io.tmpdir=" + javaTmp,
                        "-Dkafka.bootstrap.servers=" + kafka.bootstrap(),
                        "-Dquarkus.kafka-streams.application-id=" + appId,
                        "-Dkafka-streams.state.dir=" + state,
                        // a restarted instance takes the killed one's place at once instead of waiting for its session
                        // to time out
                        "-Dkafka-streams.consumer.group.instance.id=" + appId + "-1",
                        "-Dkafka-streams.consumer.session.timeout.ms=6000",
                        "-Dkafka-streams.consumer.heartbeat.interval.ms=1000",
                        "-jar",
                        app.resolve("quarkus-run.jar").toString()));
    }

    static void awaitRunning(ExampleProcess p) throws Exception {
        p.awaitLine(0, l -> l.startsWith("STATE ") && l.endsWith("-> RUNNING"), Duration.ofSeconds(120));
    }

    /** Sends {@code n} words (key = value = the word) and adds them to {@code expected}. */
    static void produce(Random random, int n, Map<String, Long> expected) {
        try (KafkaProducer<String, String> producer = kafka.stringProducer()) {
            for (int i = 0; i < n; i++) {
                String w = WORDS.get(random.nextInt(WORDS.size()));
                producer.send(new ProducerRecord<>(INPUT, w, w));
                expected.merge(w, 1L, Long::sum);
            }
            producer.flush();
        }
    }

    /** Once the app committed all input: per word, the committed outputs are exactly 1, 2, ..., count. */
    static void checkCounts(String appId, Map<String, Long> expected) throws Exception {
        kafka.awaitGroupCaughtUp(appId, INPUT, PARTITIONS, Duration.ofSeconds(120));
        long total = expected.values().stream().mapToLong(Long::longValue).sum();
        Map<String, List<Long>> out = kafka.readCommitted(OUTPUT, PARTITIONS, (int) total, Duration.ofSeconds(60));
        assertEquals(expected.keySet(), out.keySet(), "words on the output topic");
        expected.forEach((w, n) ->
                assertEquals(LongStream.rangeClosed(1, n).boxed().toList(), out.get(w), "committed counts of " + w));
    }

    /**
     * Our store is {@code <state.dir>/<app>/<task>/word-counts}, a RocksDB database with our column
     * families ({@code data}, {@code offsets}, {@code txn}); Kafka's RocksDB store would be
     * {@code <task>/rocksdb/word-counts} with its {@code keyValueWithTimestamp} column family.
     */
    static void checkOurStoreFiles(Path appState) throws Exception {
        List<Path> stores = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(appState)) {
            for (Path task : tasks.filter(Files::isDirectory).toList()) {
                assertFalse(Files.exists(task.resolve("rocksdb")), "Kafka's RocksDB store directory in " + task);
                if (Files.isDirectory(task.resolve(STORE))) stores.add(task.resolve(STORE));
            }
        }
        assertEquals(PARTITIONS, stores.size(), "our store's directory in every task of " + appState);
        for (Path store : stores) {
            assertTrue(Files.isRegularFile(store.resolve("CURRENT")), "a RocksDB database in " + store);
            try (Stream<Path> files = Files.list(store)) {
                Path options = files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-"))
                        .max(Path::compareTo)
                        .orElseThrow(() -> new AssertionError("no OPTIONS file in " + store));
                String text = Files.readString(options);
                assertTrue(
                        text.contains("[CFOptions \"offsets\"]") && text.contains("[CFOptions \"txn\"]"),
                        "our column families in " + options);
            }
        }
        say("  our store in " + stores.size() + " task directories: "
                + stores.stream().map(s -> appState.relativize(s).toString()).toList());
    }

    /**
     * The native libraries the running app has mapped: ours must be; Kafka's RocksDB
     * ({@code librocksdbjni}) is too, because Quarkus' Kafka Streams extension calls
     * {@code RocksDB.loadLibrary()} at every start (printed, not asserted: it is Quarkus' doing).
     */
    static void nativeLibraries(ExampleProcess p) throws Exception {
        Path maps = Path.of("/proc", Long.toString(p.process.pid()), "maps");
        if (!Files.isReadable(maps)) return;
        List<String> libs = Files.readAllLines(maps).stream()
                .filter(l -> l.endsWith(".so") || l.contains(".so."))
                .map(l -> l.substring(l.lastIndexOf('/') + 1))
                .filter(l -> l.contains("rocksdb"))
                .distinct()
                .sorted()
                .toList();
        say("  RocksDB native libraries mapped by the app: " + libs);
        assertTrue(
                libs.stream().anyMatch(l -> l.startsWith("libtxn_rocksdb_jni")),
                "our native library is loaded: " + libs);
    }

    static List<String> kafkaJars(Path app) throws Exception {
        try (Stream<Path> jars = Files.list(app.resolve("lib/main"))) {
            return jars.map(j -> j.getFileName().toString())
                    .filter(j -> j.startsWith("org.apache.kafka.") || j.startsWith("org.rocksdb."))
                    .sorted()
                    .toList();
        }
    }

    static List<String> restoreLines(ExampleProcess p) {
        return p.lines().stream().filter(l -> l.startsWith("RESTORE-")).toList();
    }

    static String tail(ExampleProcess p) {
        List<String> l = p.lines();
        return String.join("\n", l.subList(Math.max(0, l.size() - 40), l.size()));
    }
}
