package dev.txnrocksdb.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The released artifact as a user gets it: {@code tests/consumers/app} (a plain exactly-once count
 * per key whose store is ours by configuration alone) built by a Maven project and by a Gradle
 * project that declare {@code dev.txnrocksdb:txn-rocksdb-streams} and resolve it from the release
 * repository ({@code scripts/check-release.sh} unpacks the Central bundle into
 * {@code dist/repository}) and Maven Central, nothing else. Each build's application runs in its own
 * JVM on its resolved class path against the fixture's broker: the counts are exact, the store is
 * ours (loading the native library out of the released jar), a {@code kill -9} and a restart on the
 * same state directory restore no record (Kafka's own store would restore its whole changelog after
 * a crash under exactly-once), and the counts go on exactly. Each build also resolves the release's
 * operators' tool, {@code dev.txnrocksdb:txn-rocksdb-tool} (a runnable jar; Maven with
 * {@code dependency:copy}, Gradle as a configuration of its own, which must resolve to the tool's jar
 * alone), from the same repositories, and once the application stopped, {@code java -jar <tool>
 * --json inspect <state dir>} must find its store on every partition, as the application left it.
 *
 * <p>The repository is {@code -Dtxn.release.repository=<dir>} (default {@code <root>/dist/repository}),
 * the version {@code -Dtxn.release.version} (default: the release this tree builds, the project's
 * version without {@code -SNAPSHOT}, as scripts/release.sh builds it). Without the repository the test fails:
 * it is the proof that the release works, so it must not pass by being skipped. Maven builds with an
 * empty local repository, so nothing of ours can come from {@code ~/.m2}; it needs Maven Central
 * (about 140 MB per run). {@code -Dit.mvn=}, {@code -Dit.gradle=} pick the executables.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReleaseConsumersTest {

    static final String GROUP_PATH = "dev/txnrocksdb/txn-rocksdb-streams";
    static final String VERSION = System.getProperty(
            "txn.release.version", System.getProperty("it.project.version", "").replace("-SNAPSHOT", ""));
    static final String JAR = "txn-rocksdb-streams-" + VERSION + ".jar";
    static final String TOOL_PATH = "dev/txnrocksdb/txn-rocksdb-tool";
    static final String TOOL_JAR = "txn-rocksdb-tool-" + VERSION + ".jar";
    static final String MAIN = "dev.txnrocksdb.consumer.CountPerKey";
    static final String STORE = "counts";
    static final int PARTITIONS = 2;
    static final int KEYS = 12;
    static final Duration START = Duration.ofSeconds(90);

    static Path repository;
    static Path releasedJar;
    static Path releasedTool;
    static BrokerFixture kafka;
    /** A copy of {@code tests/consumers}, so the builds write nothing into the checkout. */
    static Path consumers;

    static final List<ExampleProcess> apps = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        repository = releaseRepository();
        releasedJar = repository.resolve(GROUP_PATH).resolve(VERSION).resolve(JAR);
        Path pom = releasedJar.resolveSibling("txn-rocksdb-streams-" + VERSION + ".pom");
        if (!Files.isRegularFile(releasedJar) || !Files.isRegularFile(pom)) {
            fail("no release repository at " + repository + " (" + GROUP_PATH + "/" + VERSION + "/" + JAR
                    + " and its .pom missing): build it with scripts/check-release.sh, or name one with"
                    + " -Dtxn.release.repository=<dir>");
        }
        releasedTool = repository.resolve(TOOL_PATH).resolve(VERSION).resolve(TOOL_JAR);
        if (!Files.isRegularFile(releasedTool)) {
            fail("the release repository " + repository + " has no operators' tool (" + TOOL_PATH + "/" + VERSION + "/"
                    + TOOL_JAR + "): build it with scripts/check-release.sh");
        }
        BrokerFixture.say("release repository " + repository + ", " + JAR + " " + Files.size(releasedJar) + " bytes");
        kafka = BrokerFixture.start("release-consumers");
        consumers = kafka.tmp.resolve("consumers");
        copyTree(SpringBootExample.repoRoot().resolve("tests").resolve("consumers"), consumers);
    }

    @AfterAll
    static void stop() throws Exception {
        for (ExampleProcess app : apps) app.destroy();
        if (kafka != null) kafka.close();
    }

    static Path releaseRepository() {
        String property = System.getProperty("txn.release.repository");
        Path dir = property == null || property.isBlank()
                ? SpringBootExample.repoRoot().resolve("dist").resolve("repository")
                : Path.of(property);
        return dir.toAbsolutePath().normalize();
    }

    @Test
    @Order(1)
    void mavenConsumer() throws Exception {
        Path project = consumers.resolve("maven-app");
        Path localRepo = Files.createDirectories(kafka.tmp.resolve("maven-local-repository"));
        long ms = ExampleProcess.mavenPackage(
                project.resolve("pom.xml"),
                kafka.tmp.resolve("maven-consumer-build.log"),
                "-Dmaven.repo.local=" + localRepo,
                "-Drelease.repository=" + repository.toUri(),
                "-Dtxn-rocksdb.version=" + VERSION);
        List<Path> classpath = new ArrayList<>();
        classpath.add(project.resolve("target").resolve("classes"));
        classpath.addAll(split(Files.readString(project.resolve("target").resolve("classpath.txt"))));
        Path ours = ours(classpath);
        BrokerFixture.say("maven consumer built in " + ms + " ms with an empty local repository; " + ours);

        // resolved into the fresh local repository, downloaded from the release repository (Maven's
        // record of where each file came from), and the released bytes
        assertTrue(ours.startsWith(localRepo), JAR + " not from the fresh local repository " + localRepo + ": " + ours);
        String origin = Files.readString(ours.resolveSibling("_remote.repositories"), StandardCharsets.UTF_8);
        assertTrue(
                origin.contains(JAR + ">txn-rocksdb-release="),
                JAR + " was not downloaded from the release repository (id txn-rocksdb-release):\n" + origin);
        assertEquals(-1L, Files.mismatch(ours, releasedJar), ours + " differs from " + releasedJar);

        // the tool, by dependency:copy from the same repositories into the same fresh local repository
        Path tool = project.resolve("target").resolve("tool").resolve(TOOL_JAR);
        assertTrue(Files.isRegularFile(tool), "dependency:copy wrote no " + tool);
        Path toolInRepo = localRepo.resolve(TOOL_PATH).resolve(VERSION).resolve(TOOL_JAR);
        String toolOrigin = Files.readString(toolInRepo.resolveSibling("_remote.repositories"), StandardCharsets.UTF_8);
        assertTrue(
                toolOrigin.contains(TOOL_JAR + ">txn-rocksdb-release="),
                TOOL_JAR + " was not downloaded from the release repository (id txn-rocksdb-release):\n" + toolOrigin);
        assertEquals(-1L, Files.mismatch(tool, releasedTool), tool + " differs from " + releasedTool);

        killAndRestart("maven", classpath, tool);
    }

    @Test
    @Order(2)
    void gradleConsumer() throws Exception {
        Path project = consumers.resolve("gradle-app");
        Path log = kafka.tmp.resolve("gradle-consumer-build.log");
        List<String> cmd = List.of(
                System.getProperty("it.gradle", "gradle"),
                "--no-daemon",
                "-q",
                "--console=plain",
                "-p",
                project.toString(),
                "-PreleaseRepository=" + repository.toUri(),
                "-PtxnRocksdbVersion=" + VERSION,
                "writeClasspath",
                "writeToolPath");
        long ms = ExampleProcess.build(cmd, log, 10);
        List<Path> classpath = split(Files.readString(project.resolve("build").resolve("classpath.txt")));
        Path ours = ours(classpath);
        BrokerFixture.say("gradle consumer built in " + ms + " ms; " + ours);

        // Gradle reads a file repository in place: the jar is the release repository's, not ~/.m2's
        Path m2 = Path.of(System.getProperty("user.home"), ".m2").toAbsolutePath();
        assertFalse(ours.toAbsolutePath().startsWith(m2), JAR + " came from " + m2 + ": " + ours);
        assertTrue(
                ours.toAbsolutePath().normalize().startsWith(repository),
                JAR + " not from " + repository + ": " + ours);
        assertEquals(-1L, Files.mismatch(ours, releasedJar), ours + " differs from " + releasedJar);

        // the tool's configuration, resolved transitively: its jar and nothing else (what it runs on is
        // inside it), read in place from the release repository
        List<Path> toolFiles = split(Files.readString(project.resolve("build").resolve("tool.txt")));
        assertEquals(1, toolFiles.size(), "the tool's configuration must resolve to its jar alone: " + toolFiles);
        Path tool = toolFiles.get(0).toAbsolutePath().normalize();
        assertEquals(TOOL_JAR, tool.getFileName().toString(), "the tool's configuration: " + toolFiles);
        assertTrue(tool.startsWith(repository), TOOL_JAR + " not from " + repository + ": " + tool);
        assertEquals(-1L, Files.mismatch(tool, releasedTool), tool + " differs from " + releasedTool);

        killAndRestart("gradle", classpath, tool);
    }

    /** The class path's one txn-rocksdb jar, which must be the released version's; no other artifact of ours. */
    static Path ours(List<Path> classpath) {
        List<Path> jars = classpath.stream()
                .filter(p -> p.getFileName().toString().startsWith("txn-rocksdb"))
                .toList();
        assertEquals(1, jars.size(), "txn-rocksdb jars on the class path: " + classpath);
        assertEquals(JAR, jars.get(0).getFileName().toString(), "the class path: " + classpath);
        return jars.get(0);
    }

    /**
     * Runs the built application: counts exact and committed, our store in the state directory, the
     * native library extracted from the released jar; {@code kill -9}; a restart on the same state
     * directory that restores no record; more input counted on exactly; once it stopped, the released
     * tool inspects its state directory.
     */
    void killAndRestart(String name, List<Path> classpath, Path tool) throws Exception {
        String appId = "release-" + name;
        String input = appId + "-in";
        String output = appId + "-out";
        kafka.createTopicsWithLeaders(PARTITIONS, List.of(input, output));
        Path stateDir = kafka.tmp.resolve(name + "-state");
        Map<String, Long> expected = new TreeMap<>();

        long t = System.nanoTime();
        ExampleProcess first = app(name + "-1", classpath, appId, input, output, stateDir);
        awaitRunning(first);
        BrokerFixture.say(name + ": RUNNING in " + BrokerFixture.ms(t) + " ms, restore lines " + restoreLines(first));
        produce(input, 3000, 1, expected);
        assertCounts(appId, input, output, expected);

        for (int p = 0; p < PARTITIONS; p++) {
            Path task = stateDir.resolve(appId).resolve("0_" + p);
            assertTrue(
                    Files.isDirectory(task.resolve(STORE)),
                    "our store " + STORE + " missing in " + task + ": " + list(task));
            assertFalse(
                    Files.exists(task.resolve("rocksdb")), "Kafka's RocksDB directory in " + task + ": " + list(task));
        }
        Path jvmTmp = kafka.tmp.resolve(name + "-1-jvm-tmp");
        try (Stream<Path> files = Files.walk(jvmTmp)) {
            List<String> libraries = files.map(f -> f.getFileName().toString())
                    .filter(f -> f.startsWith("libtxn_rocksdb_jni-") && f.endsWith(".so"))
                    .toList();
            assertEquals(1, libraries.size(), "the native library extracted from the jar into " + jvmTmp);
        }

        first.kill(); // SIGKILL, exit 137 asserted

        t = System.nanoTime();
        ExampleProcess second = app(name + "-2", classpath, appId, input, output, stateDir);
        awaitRunning(second);
        BrokerFixture.say(name + ": restarted after kill -9, RUNNING in " + BrokerFixture.ms(t) + " ms");
        produce(input, 2000, 2, expected);
        assertCounts(appId, input, output, expected);
        // nothing restored, and yet the counts went on from where they were: the store reopened at
        // its last commit (Kafka's own store is wiped after a crash under exactly-once and restores
        // its whole changelog)
        List<String> restores = restoreLines(second);
        BrokerFixture.say(name + ": restore lines after kill -9 " + restores);
        for (String l : restores) {
            if (l.startsWith("RESTORED ")) {
                String[] f = l.split(" ");
                assertEquals(STORE, f[1], l);
                assertEquals(0L, Long.parseLong(f[3]), "records restored after kill -9: " + restores);
            }
        }
        second.destroy(); // SIGTERM: the app's shutdown hook closes KafkaStreams
        assertFalse(second.process.isAlive(), name + "-2 did not stop");

        inspectWithTool(name, tool, appId, stateDir, expected.size());
    }

    /**
     * The released tool as an operator runs it, {@code java -jar <tool> --json inspect <state dir>}, on
     * the stopped application's state directory (the native library from the tool's own jar): exit 0,
     * the application's store on both partitions, each our key-value store with the changelog offset
     * it committed and nothing pending, and together exactly the keys the application counted; no
     * store of Kafka's own.
     */
    void inspectWithTool(String name, Path tool, String appId, Path stateDir, int keys) throws Exception {
        Path tmp = Files.createDirectories(kafka.tmp.resolve(name + "-tool-tmp"));
        Path out = kafka.tmp.resolve(name + "-tool-inspect.json");
        Path err = kafka.tmp.resolve(name + "-tool-inspect.err");
        List<String> cmd = List.of(
                "env",
                "-u",
                "TXN_ROCKSDB_NATIVE_DIR",
                "-u",
                "CLASSPATH",
                ExampleProcess.java(),
                "-Xmx256m",
                "-Djava.io.tmpdir=" + tmp,
                "-jar",
                tool.toString(),
                "--json",
                "inspect",
                stateDir.toString());
        long t = System.nanoTime();
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("the tool took more than 2 minutes: " + cmd);
        }
        String json = Files.readString(out, StandardCharsets.UTF_8);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        String run = String.join(" ", cmd) + "\n--- stdout\n" + json + "\n--- stderr\n" + stderr;
        assertEquals(0, p.exitValue(), "the tool's exit status: " + run);

        JsonNode report = new ObjectMapper().readTree(json);
        Map<String, JsonNode> stores = new TreeMap<>();
        report.path("stores")
                .forEach(s -> stores.put(
                        s.path("application").asText() + "/"
                                + s.path("task").asText() + "/"
                                + s.path("store").asText(),
                        s));
        TreeSet<String> expected = new TreeSet<>();
        for (int i = 0; i < PARTITIONS; i++) expected.add(appId + "/0_" + i + "/" + STORE);
        assertEquals(expected, stores.keySet(), "the stores the tool found: " + run);
        long counted = 0;
        for (Map.Entry<String, JsonNode> e : stores.entrySet()) {
            JsonNode s = e.getValue();
            assertEquals("inspected", s.path("status").asText(), e.getKey() + ": " + s);
            assertEquals("key-value", s.path("kind").asText(), e.getKey() + ": " + s);
            assertFalse(s.path("damage").asBoolean(), e.getKey() + ": " + s);
            assertFalse(
                    s.path("commitPending").asBoolean()
                            || s.path("uncommittedPending").asBoolean(),
                    e.getKey() + ": " + s);
            int partition = Integer.parseInt(s.path("task").asText().split("_")[1]);
            JsonNode offsets = s.path("offsets");
            assertEquals(1, offsets.size(), e.getKey() + ": " + s);
            assertEquals(
                    appId + "-" + STORE + "-changelog",
                    offsets.get(0).path("topic").asText(),
                    e.getKey() + ": " + s);
            assertEquals(partition, offsets.get(0).path("partition").asInt(), e.getKey() + ": " + s);
            assertTrue(offsets.get(0).path("known").asBoolean(), e.getKey() + ": " + s);
            assertTrue(offsets.get(0).path("offset").asLong() > 0, e.getKey() + ": " + s);
            counted += s.path("approximateKeys").asLong();
        }
        // the stores hold one count per key, committed: the tool counts their entries (exactly, up to
        // a million)
        assertEquals(keys, counted, "keys in the stores, by the tool: " + run);
        assertEquals(0, report.path("kafkaStores").size(), "Kafka's own stores: " + run);
        // the native library came out of the tool's jar (TXN_ROCKSDB_NATIVE_DIR unset)
        try (Stream<Path> files = Files.walk(tmp)) {
            List<String> libraries = files.map(f -> f.getFileName().toString())
                    .filter(f -> f.startsWith("libtxn_rocksdb_jni-") && f.endsWith(".so"))
                    .toList();
            assertEquals(1, libraries.size(), "the native library extracted from the tool's jar into " + tmp);
        }
        BrokerFixture.say(name + ": the released tool (" + tool.getFileName() + ") inspected the stopped app's "
                + stores.size() + " stores, " + counted + " keys, in " + BrokerFixture.ms(t) + " ms");
    }

    ExampleProcess app(String name, List<Path> classpath, String appId, String input, String output, Path stateDir)
            throws Exception {
        Path jvmTmp = Files.createDirectories(kafka.tmp.resolve(name + "-jvm-tmp"));
        List<String> cmd = List.of(
                // no override directory: the native library must come out of the released jar
                "env",
                "-u",
                "TXN_ROCKSDB_NATIVE_DIR",
                "-u",
                "CLASSPATH",
                ExampleProcess.java(),
                "-Xmx512m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Djava.io.tmpdir=" + jvmTmp,
                "-cp",
                String.join(
                        File.pathSeparator,
                        classpath.stream().map(Path::toString).toList()),
                MAIN,
                kafka.bootstrap(),
                appId,
                input,
                output,
                stateDir.toString());
        ExampleProcess app = ExampleProcess.start(name, kafka.tmp.resolve(name + ".log"), cmd);
        apps.add(app);
        return app;
    }

    static void awaitRunning(ExampleProcess app) throws Exception {
        String line = app.awaitLine(
                0, l -> l.equals("RUNNING") || l.equals("STATE ERROR") || l.equals("STATE PENDING_ERROR"), START);
        assertEquals("RUNNING", line, app.name + ": " + app.lines());
    }

    static List<String> restoreLines(ExampleProcess app) {
        return app.lines().stream().filter(l -> l.startsWith("RESTORE")).toList();
    }

    /** {@code n} keys {@code k0..k<KEYS-1>} (every key at least once), added to {@code expected}. */
    static void produce(String topic, int n, int seed, Map<String, Long> expected) throws Exception {
        Random random = new Random(seed);
        try (KafkaProducer<String, String> producer = kafka.stringProducer()) {
            for (int i = 0; i < n; i++) {
                String k = "k" + (i < KEYS ? i : random.nextInt(KEYS));
                producer.send(new ProducerRecord<>(topic, k, k));
                expected.merge(k, 1L, Long::sum);
            }
            producer.flush();
        }
    }

    /** Once the app committed all input, the last committed count per key must equal the input's. */
    static void assertCounts(String appId, String input, String output, Map<String, Long> expected) throws Exception {
        kafka.awaitGroupCaughtUp(appId, input, PARTITIONS, Duration.ofSeconds(60));
        Map<String, List<Long>> out = kafka.readCommitted(output, PARTITIONS, expected.size(), Duration.ofSeconds(60));
        Map<String, Long> last = new TreeMap<>();
        out.forEach((k, values) -> {
            for (int i = 1; i < values.size(); i++) {
                assertTrue(values.get(i) > values.get(i - 1), k + ": counts must only grow: " + values);
            }
            last.put(k, values.get(values.size() - 1));
        });
        assertEquals(expected, last, "last committed count per key");
    }

    static List<Path> split(String classpath) {
        return Arrays.stream(classpath.split("[" + File.pathSeparator + "\n]"))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .map(Path::of)
                .toList();
    }

    static List<String> list(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(f -> f.getFileName().toString()).sorted().toList();
        } catch (Exception e) {
            return List.of("(" + e + ")");
        }
    }

    static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path rel = from.relativize(f);
                // build outputs of a run by hand stay behind
                if (rel.startsWith("maven-app/target") || rel.startsWith("gradle-app/build")) continue;
                if (rel.toString().startsWith(".gradle") || rel.toString().contains("/.gradle")) continue;
                Path target = to.resolve(rel.toString());
                if (Files.isDirectory(f)) Files.createDirectories(target);
                else Files.copy(f, target);
            }
        }
    }
}
