package dev.txnrocksdb.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
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
 * {@code examples/spring-boot} (Spring Boot 4.0.7, spring-kafka's {@code @EnableKafkaStreams},
 * our stores chosen in {@code application.properties} alone, {@code kafka.version} overridden to
 * 4.4.0), built with Maven and run as {@code java -jar} against the fixture's broker: the word
 * counts are right, the store is ours (its directory under the task directory, no Kafka RocksDB
 * directory), a {@code kill -9} and restart restore nothing and the counts go on. Built without the
 * override ({@code -Pframework-kafka}: Spring Boot's own Kafka 4.1.x), the application must fail
 * at start with our version message, not a {@code NoSuchMethodError}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SpringBootExampleTest {

    static final String APP = "sb-wordcount";
    static final String INPUT = "sb-words";
    static final String OUTPUT = "sb-word-counts";
    static final String STORE = "word-counts";
    static final int PARTITIONS = 2;
    static final int WORDS = 12;
    static final Duration START = Duration.ofSeconds(120);

    static BrokerFixture kafka;
    static final List<SpringBootExample> apps = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        kafka = BrokerFixture.start("spring-boot");
        kafka.createTopics(PARTITIONS, INPUT, OUTPUT);
    }

    @AfterAll
    static void stop() throws Exception {
        apps.forEach(SpringBootExample::destroy);
        if (kafka != null) kafka.close();
    }

    /** The Spring properties the test sets on the command line, as a user would. */
    static String[] args(String appId, Path stateDir) {
        return new String[] {
            "--spring.kafka.bootstrap-servers=" + kafka.bootstrap(),
            "--spring.kafka.streams.application-id=" + appId,
            "--spring.kafka.streams.state-dir=" + stateDir,
            "--wordcount.input-topic=" + INPUT,
            "--wordcount.output-topic=" + OUTPUT,
            // static membership: the restarted instance takes its tasks back without waiting for
            // the killed one to leave the group
            "--spring.kafka.streams.properties.main.consumer.group.instance.id=" + appId + "-instance",
        };
    }

    SpringBootExample run(String name, Path jar, String appId, Path stateDir) throws Exception {
        SpringBootExample app =
                SpringBootExample.start(name, jar, kafka.tmp.resolve(name + ".log"), args(appId, stateDir));
        apps.add(app);
        return app;
    }

    /**
     * Produces {@code n} random words {@code w0..w<WORDS-1>} (key = the word), every word at least
     * once, and adds them to {@code expected}.
     */
    static void produce(int n, int seed, Map<String, Long> expected) throws Exception {
        Random random = new Random(seed);
        try (KafkaProducer<String, String> producer = kafka.stringProducer()) {
            for (int i = 0; i < n; i++) {
                String w = "w" + (i < WORDS ? i : random.nextInt(WORDS));
                producer.send(new ProducerRecord<>(INPUT, w, w));
                expected.merge(w, 1L, Long::sum);
            }
            producer.flush();
        }
    }

    /** Waits for the app to have committed all input, then checks the committed counts per word. */
    static void assertCounts(Map<String, Long> expected) throws Exception {
        kafka.awaitGroupCaughtUp(APP, INPUT, PARTITIONS, Duration.ofSeconds(90));
        Map<String, List<Long>> out = kafka.readCommitted(OUTPUT, PARTITIONS, expected.size(), Duration.ofSeconds(60));
        Map<String, Long> last = new TreeMap<>();
        out.forEach((w, values) -> {
            for (int i = 1; i < values.size(); i++) {
                assertTrue(values.get(i) > values.get(i - 1), w + ": counts must only grow: " + values);
            }
            last.put(w, values.get(values.size() - 1));
        });
        assertEquals(WORDS, expected.size());
        assertEquals(new TreeMap<>(expected), last, "last committed count per word");
    }

    @Test
    @Order(1)
    void wordCountOnOurStoresRestoresNothingAfterKill9() throws Exception {
        long t0 = System.nanoTime();
        Path jar = SpringBootExample.build(
                kafka.tmp.resolve("mvn-package.log"), "spring-boot-wordcount-0.1.0-SNAPSHOT.jar");
        Path stateDir = kafka.tmp.resolve("sb-state");
        Map<String, Long> expected = new TreeMap<>();

        long t = System.nanoTime();
        SpringBootExample first = run("spring-boot-1", jar, APP, stateDir);
        first.awaitLine(l -> l.startsWith("STATE RUNNING"), START);
        BrokerFixture.say("app RUNNING in " + BrokerFixture.ms(t) + " ms");
        produce(3000, 1, expected);
        assertCounts(expected);

        // our engine's store directory <state.dir>/<app>/<task>/<store> (its RocksDB column families
        // data, offsets, txn), and no Kafka RocksDB store (<task>/rocksdb/<store>)
        for (int p = 0; p < PARTITIONS; p++) {
            Path task = stateDir.resolve(APP).resolve("0_" + p);
            Path store = task.resolve(STORE);
            assertTrue(Files.isDirectory(store), store + " missing; task dir holds " + list(task));
            assertFalse(
                    Files.exists(task.resolve("rocksdb")), "Kafka's RocksDB directory in " + task + ": " + list(task));
            String options = optionsFile(store);
            for (String cf : List.of("data", "offsets", "txn")) {
                assertTrue(options.contains("[CFOptions \"" + cf + "\"]"), store + " has no column family " + cf);
            }
            if (p == 0) BrokerFixture.say("task 0_0: " + list(task) + ", " + STORE + "/: " + list(store));
        }

        first.kill();
        produce(2000, 2, expected); // while it is down

        t = System.nanoTime();
        SpringBootExample second = run("spring-boot-2", jar, APP, stateDir);
        String running = second.awaitLine(l -> l.startsWith("STATE RUNNING"), START);
        BrokerFixture.say("restarted after kill -9: RUNNING in " + BrokerFixture.ms(t) + " ms, " + running);
        assertEquals(
                0,
                second.restored(),
                "records restored after kill -9: "
                        + second.lines().stream()
                                .filter(l -> l.startsWith("RESTORE-"))
                                .toList());
        assertEquals("STATE RUNNING restored=0", running);
        assertCounts(expected);
        second.process.destroy(); // SIGTERM: Spring closes KafkaStreams
        assertTrue(second.process.waitFor(60, TimeUnit.SECONDS), "app did not stop on SIGTERM");
        BrokerFixture.say("spring boot scenario: " + BrokerFixture.ms(t0) + " ms");
    }

    @Test
    @Order(2)
    void withoutTheKafkaOverrideItFailsWithOurVersionMessage() throws Exception {
        long t0 = System.nanoTime();
        Path jar = SpringBootExample.build(
                kafka.tmp.resolve("mvn-package-framework-kafka.log"),
                "spring-boot-wordcount-framework-kafka.jar",
                "-Pframework-kafka");
        try (JarFile j = new JarFile(jar.toFile())) {
            assertTrue(
                    j.stream().anyMatch(e -> e.getName().matches("BOOT-INF/lib/kafka-streams-4\\.1\\.[0-9]+\\.jar")),
                    "the profile's jar should carry Spring Boot's Kafka Streams 4.1.x");
        }
        SpringBootExample app = run("spring-boot-framework-kafka", jar, APP + "-fk", kafka.tmp.resolve("sb-fk-state"));
        int exit = app.awaitExit(START);
        String out = String.join("\n", app.lines());
        assertNotEquals(0, exit, "the application should fail at start");
        assertFalse(out.contains("NoSuchMethodError"), "a NoSuchMethodError instead of our message:\n" + tail(app));
        assertTrue(
                out.contains("needs Kafka Streams 4.4.x, but found Kafka Streams 4.1."),
                "our version message missing:\n" + tail(app));
        BrokerFixture.say("framework-kafka scenario: " + BrokerFixture.ms(t0) + " ms");
    }

    static String optionsFile(Path store) throws Exception {
        try (Stream<Path> s = Files.list(store)) {
            Path options = s.filter(f -> f.getFileName().toString().startsWith("OPTIONS-"))
                    .max(Path::compareTo)
                    .orElseThrow(() -> new AssertionError("no RocksDB OPTIONS file in " + store + ": " + list(store)));
            return Files.readString(options, StandardCharsets.UTF_8);
        }
    }

    static List<String> list(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(f -> f.getFileName().toString()).sorted().toList();
        } catch (Exception e) {
            return List.of("(" + e + ")");
        }
    }

    static String tail(SpringBootExample app) {
        List<String> l = app.lines();
        return String.join("\n", l.subList(Math.max(0, l.size() - 40), l.size()));
    }
}
