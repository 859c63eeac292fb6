package dev.txnrocksdb.it;

import dev.txnrocksdb.examples.wordcount.KafkaBroker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Exactly-once crash survival against a real KRaft broker: the app ({@link EosCrashApp}) runs in a child
 * JVM that is killed with SIGKILL at random moments, N times, and restarted each time on the same state
 * directory. At the end the read_committed output of the KV, windowed and session counts must equal
 * the counts computed here from the input, and no restart may have restored more than a small tail of
 * the changelogs (the transactional store is not wiped after a crash).
 *
 * <p>System properties: {@code it.crash.cycles} (default 8), {@code it.builtin.cycles} (default 4; the
 * same scenario on Kafka's built-in stores with the flag off, printed only, 0 skips it),
 * {@code it.records} (default 30000), {@code it.seed} (default 42).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EosCrashSurvivalTest {

    static final int PARTITIONS = 2;
    static final int RECORDS = Integer.getInteger("it.records", 30_000);
    static final long SEED = Long.getLong("it.seed", 42L);
    static final int WORDS = 300;
    /** Recent timestamps, so that the broker's time-based retention never deletes the input. */
    static final long T0 = System.currentTimeMillis() / 60_000 * 60_000 - Duration.ofHours(1).toMillis();
    static final long STEP_MS = 20;

    static Path tmp;
    static KafkaBroker broker;
    static List<String[]> input; // {key, value}; timestamp = T0 + i * STEP_MS
    static int produced;
    /** Restored records per restart, per mode, for the closing summary. */
    static final Map<String, List<String>> SUMMARY = new TreeMap<>();

    @BeforeAll
    static void startBroker() throws Exception {
        tmp = Files.createTempDirectory("txn-rocksdb-it-");
        broker = new KafkaBroker(tmp);
        long t = System.nanoTime();
        broker.start(Duration.ofSeconds(90));
        say("broker up at " + broker.bootstrapServers() + " in " + ms(t) + " ms (dir " + tmp + ")");
        try (Admin admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic(EosCrashApp.INPUT, PARTITIONS, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
        }
        Random rnd = new Random(SEED);
        input = new ArrayList<>(RECORDS);
        for (int i = 0; i < RECORDS; i++) {
            // skewed key distribution: some hot words, a long tail
            int w = rnd.nextInt(4) == 0 ? rnd.nextInt(10) : rnd.nextInt(WORDS);
            input.add(new String[] {"word-" + w, "v" + i});
        }
    }

    @AfterAll
    static void stopBroker() throws Exception {
        SUMMARY.forEach((mode, lines) -> {
            say("==== summary " + mode + " ====");
            lines.forEach(EosCrashSurvivalTest::say);
        });
        if (broker != null) broker.close();
        if (!Boolean.getBoolean("it.keep.tmp")) KafkaBroker.deleteRecursively(tmp);
    }

    @Test
    @Order(1)
    void transactionalStoresSurviveKillMinus9Exactly() throws Exception {
        int cycles = Integer.getInteger("it.crash.cycles", 8);
        Result r = runScenario("eos-txn", true, cycles);
        assertTrue(r.problems.isEmpty(), "output is not exactly-once:\n  " + String.join("\n  ", r.problems));
        for (Restart s : r.restarts) {
            assertTrue(s.restored * 4 < Math.max(1, s.changelogTotal),
                    "restart " + s.cycle + " restored " + s.restored + " records of a changelog of "
                            + s.changelogTotal + ": the store was wiped");
        }
        assertEquals(cycles, r.restarts.size());
    }

    @Test
    @Order(2)
    void builtInStoresWithoutFlagForComparison() throws Exception {
        int cycles = Integer.getInteger("it.builtin.cycles", 4);
        if (cycles <= 0) {
            say("built-in comparison skipped (it.builtin.cycles=0)");
            return;
        }
        // reported, not asserted
        Result r = runScenario("eos-builtin", false, cycles);
        say("[eos-builtin] output check: " + (r.problems.isEmpty() ? "exactly-once OK" : r.problems));
    }

    // ------------------------------------------------------------------ scenario

    record Restart(int cycle, long restored, long changelogTotal) {
    }

    record Result(List<Restart> restarts, List<String> problems) {
    }

    Result runScenario(String appId, boolean txn, int cycles) throws Exception {
        long started = System.nanoTime();
        String mode = appId + (txn ? " (txn-rocksdb, enable.transactional.statestores=true)"
                : " (built-in RocksDB, enable.transactional.statestores=false)");
        List<String> summary = new ArrayList<>();
        SUMMARY.put(appId, summary);
        say("==== " + mode + ": " + cycles + " kill -9 cycles, " + RECORDS + " input records ====");
        try (Admin admin = broker.admin()) {
            List<NewTopic> topics = new ArrayList<>();
            for (String t : List.of(EosCrashApp.kvOut(appId), EosCrashApp.windowOut(appId), EosCrashApp.sessionOut(appId))) {
                topics.add(new NewTopic(t, PARTITIONS, (short) 1));
            }
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
        }
        String stateDir = Files.createDirectories(tmp.resolve(appId + "-state")).toString();
        List<String> changelogs = List.of(EosCrashApp.KV_STORE, EosCrashApp.WINDOW_STORE, EosCrashApp.SESSION_STORE)
                .stream().map(s -> appId + "-" + s + "-changelog").toList();
        Random rnd = new Random(SEED * 31 + appId.hashCode());

        // The input arrives in chunks while the app runs (and gets killed); the first chunk before the start.
        int chunk = (RECORDS + cycles) / (cycles + 1);
        int sent = 0;
        if (produced < RECORDS) {
            produce(0, Math.min(chunk, RECORDS));
        }
        sent = Math.min(chunk, RECORDS);
        List<Restart> restarts = new ArrayList<>();
        Child child = Child.start(appId + "#0", broker, appId, stateDir, txn);
        for (int cycle = 1; cycle <= cycles; cycle++) {
            child.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(90));
            if (cycle == 1) {
                // the first kill only once the changelogs hold a few thousand records, so that
                // "restored far below the changelog size" is meaningful from the first restart on
                child.awaitLine(l -> l.startsWith("PROCESSED ") && Long.parseLong(l.substring(10)) >= chunk / 2,
                        Duration.ofSeconds(90));
            }
            // a random moment while it processes its backlog: between 0.05 and 1.5 s after it is RUNNING
            Thread.sleep(50 + rnd.nextInt(1450));
            long processed = child.lastProcessed();
            child.process.destroyForcibly(); // SIGKILL
            assertTrue(child.process.waitFor(30, TimeUnit.SECONDS), "child did not die");
            int exit = child.process.exitValue();
            assertEquals(137, exit, child.name + " exit code (128 + SIGKILL)");
            // the next chunk of input arrives while the app is down
            int next = Math.min(RECORDS, sent + chunk);
            if (produced < next) produce(produced, next);
            sent = next;
            Map<TopicPartition, Long> ends = endOffsets(changelogs);
            long changelogTotal = ends.values().stream().mapToLong(Long::longValue).sum();

            child = Child.start(appId + "#" + cycle, broker, appId, stateDir, txn);
            child.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(120));
            long restored = child.restoredTotal();
            restarts.add(new Restart(cycle, restored, changelogTotal));
            String line = String.format("[%s] cycle %2d: killed %s (exit %d) at ~%d processed; restart restored %d records"
                            + " of %d changelog records (%.1f%%)%s", appId, cycle, appId + "#" + (cycle - 1), exit, processed,
                    restored, changelogTotal, changelogTotal == 0 ? 0.0 : 100.0 * restored / changelogTotal,
                    child.restoredDetail());
            say(line);
            summary.add(line);
        }
        if (produced < RECORDS) produce(produced, RECORDS);

        // let it drain, then compare
        List<String> problems;
        try {
            Map<String, List<Long>> kv = readCommitted(EosCrashApp.kvOut(appId), RECORDS, Duration.ofSeconds(180));
            Map<String, List<Long>> win = readCommitted(EosCrashApp.windowOut(appId), RECORDS, Duration.ofSeconds(60));
            Map<String, List<Long>> ses = readCommitted(EosCrashApp.sessionOut(appId), 0, Duration.ofSeconds(60));
            problems = check(kv, win, ses);
        } finally {
            child.send("stop");
            if (!child.process.waitFor(60, TimeUnit.SECONDS)) child.process.destroyForcibly();
        }
        String line = String.format("[%s] %d cycles, %d records, output %s, restored per restart %s, %d s",
                appId, cycles, RECORDS, problems.isEmpty() ? "exactly-once OK" : problems.size() + " problems",
                restarts.stream().map(x -> x.restored + "/" + x.changelogTotal).toList(), ms(started) / 1000);
        say(line);
        summary.add(line);
        if (!problems.isEmpty()) showLogs(appId);
        return new Result(restarts, problems);
    }

    /** Expected counts from the input, compared with the read_committed outputs. */
    static List<String> check(Map<String, List<Long>> kv, Map<String, List<Long>> win, Map<String, List<Long>> ses) {
        Map<String, Long> expKv = new TreeMap<>();
        Map<String, Long> expWin = new TreeMap<>();
        Map<String, Long> lastTs = new HashMap<>();
        Map<String, long[]> open = new HashMap<>(); // key -> {start, end, count}
        Map<String, Long> expSes = new TreeMap<>();
        long size = EosCrashApp.WINDOW_SIZE.toMillis();
        long gap = EosCrashApp.SESSION_GAP.toMillis();
        for (int i = 0; i < input.size(); i++) {
            String k = input.get(i)[0];
            long ts = T0 + i * STEP_MS;
            expKv.merge(k, 1L, Long::sum);
            expWin.merge(k + "@" + (ts - ts % size), 1L, Long::sum);
            long[] s = open.get(k);
            if (s != null && ts - s[1] <= gap) {
                s[1] = ts;
                s[2]++;
            } else {
                if (s != null) expSes.put(k + "@" + s[0] + "-" + s[1], s[2]);
                open.put(k, new long[] {ts, ts, 1});
            }
            lastTs.put(k, ts);
        }
        open.forEach((k, s) -> expSes.put(k + "@" + s[0] + "-" + s[1], s[2]));

        List<String> problems = new ArrayList<>();
        sequenceCheck("kv", kv, expKv, problems);
        sequenceCheck("window", win, expWin, problems);
        Map<String, Long> gotSes = new TreeMap<>();
        ses.forEach((k, vs) -> {
            Long last = vs.get(vs.size() - 1);
            if (last != null) gotSes.put(k, last);
        });
        if (!gotSes.equals(expSes)) {
            int shown = 0;
            for (String k : union(gotSes, expSes)) {
                if (!java.util.Objects.equals(gotSes.get(k), expSes.get(k)) && shown++ < 10) {
                    problems.add("session " + k + ": got " + gotSes.get(k) + " expected " + expSes.get(k));
                }
            }
            problems.add("session: " + gotSes.size() + " live sessions, expected " + expSes.size());
        }
        say(String.format("  checked: kv %d keys, window %d keys, session %d live sessions (%d output keys)",
                expKv.size(), expWin.size(), expSes.size(), ses.size()));
        return problems;
    }

    /** Per key the output must be 1, 2, ..., expected: no gap, no repeat, nothing extra or missing. */
    static void sequenceCheck(String what, Map<String, List<Long>> got, Map<String, Long> expected, List<String> problems) {
        int before = problems.size();
        for (String k : union(got, expected)) {
            List<Long> vs = got.getOrDefault(k, List.of());
            long exp = expected.getOrDefault(k, 0L);
            boolean ok = vs.size() == exp;
            for (int i = 0; ok && i < vs.size(); i++) ok = vs.get(i) != null && vs.get(i) == i + 1;
            if (!ok && problems.size() - before < 10) {
                problems.add(what + " " + k + ": expected 1.." + exp + ", got " + (vs.size() > 20
                        ? vs.subList(0, 10) + "...(" + vs.size() + " values, last " + vs.get(vs.size() - 1) + ")" : vs));
            }
        }
    }

    static List<String> union(Map<String, ?> a, Map<String, ?> b) {
        java.util.TreeSet<String> s = new java.util.TreeSet<>(a.keySet());
        s.addAll(b.keySet());
        return new ArrayList<>(s);
    }

    // ------------------------------------------------------------------ Kafka helpers

    static void produce(int from, int to) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = from; i < to; i++) {
                String[] r = input.get(i);
                producer.send(new ProducerRecord<>(EosCrashApp.INPUT, null, T0 + i * STEP_MS, r[0], r[1]));
            }
            producer.flush();
        }
        produced = Math.max(produced, to);
    }

    /**
     * All committed records of a topic, per key in offset order (values may be null = tombstone),
     * after at least {@code atLeast} arrived and the consumer reached the last stable offset.
     */
    static Map<String, List<Long>> readCommitted(String topic, int atLeast, Duration timeout) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        Map<String, List<Long>> out = new HashMap<>();
        int n = 0;
        try (KafkaConsumer<String, Long> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) tps.add(new TopicPartition(topic, i));
            c.assign(tps);
            c.seekToBeginning(tps);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                for (ConsumerRecord<String, Long> r : c.poll(Duration.ofMillis(200))) {
                    out.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
                    n++;
                }
                if (n >= atLeast) {
                    Map<TopicPartition, Long> end = c.endOffsets(tps); // LSO under read_committed
                    boolean atEnd = true;
                    for (TopicPartition tp : tps) atEnd &= c.position(tp) >= end.get(tp);
                    if (atEnd) break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(topic + ": only " + n + " of " + atLeast
                            + " records committed within " + timeout);
                }
            }
            // linger a little: duplicates committed late would show up here
            long extra = System.nanoTime() + Duration.ofSeconds(1).toNanos();
            while (System.nanoTime() < extra) {
                for (ConsumerRecord<String, Long> r : c.poll(Duration.ofMillis(200))) {
                    out.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
                    n++;
                }
            }
        }
        say("  read " + n + " committed records from " + topic);
        return out;
    }

    static Map<TopicPartition, Long> endOffsets(List<String> topics) throws Exception {
        try (Admin admin = broker.admin()) {
            Map<TopicPartition, OffsetSpec> q = new HashMap<>();
            for (String t : topics) {
                for (int i = 0; i < PARTITIONS; i++) q.put(new TopicPartition(t, i), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> r = new HashMap<>();
            admin.listOffsets(q).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> r.put(tp, info.offset()));
            return r;
        }
    }

    static void showLogs(String appId) {
        try (var files = Files.list(tmp)) {
            for (Path f : files.filter(x -> x.getFileName().toString().startsWith(appId) && x.toString().endsWith(".log"))
                    .sorted().toList()) {
                List<String> lines = Files.readAllLines(f);
                say("---- last lines of " + f.getFileName() + " ----");
                lines.subList(Math.max(0, lines.size() - 20), lines.size()).forEach(EosCrashSurvivalTest::say);
            }
        } catch (Exception ignored) {
        }
    }

    static long ms(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    static synchronized void say(String s) {
        System.out.println(s);
        System.out.flush();
    }

    // ------------------------------------------------------------------ the child JVM

    /** The app in a child JVM; stdout lines are parsed (and echoed when -Dit.verbose=true). */
    static final class Child {
        final String name;
        final Process process;
        final List<String> lines = new ArrayList<>();
        final Map<String, Long> restored = new TreeMap<>(); // "tp store" -> records

        private Child(String name, Process process) {
            this.name = name;
            this.process = process;
        }

        static Child start(String name, KafkaBroker broker, String appId, String stateDir, boolean txn) throws Exception {
            Process p = KafkaBroker.java(EosCrashApp.class.getName(), broker.bootstrapServers(), stateDir, appId,
                            Boolean.toString(txn))
                    .redirectError(tmp.resolve(name.replace('#', '-') + ".log").toFile())
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
            Child c = new Child(name, p);
            boolean verbose = Boolean.getBoolean("it.verbose");
            Thread pump = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    String l;
                    while ((l = r.readLine()) != null) {
                        if (verbose) say("  [" + name + "] " + l);
                        synchronized (c) {
                            if (l.startsWith("RESTORE-END ")) {
                                String[] f = l.split(" ");
                                c.restored.merge(f[1] + " " + f[2], Long.parseLong(f[3]), Long::sum);
                            }
                            c.lines.add(l);
                            c.notifyAll();
                        }
                    }
                } catch (Exception ignored) {
                }
            }, name + "-stdout");
            pump.setDaemon(true);
            pump.start();
            return c;
        }

        synchronized long restoredTotal() {
            return restored.values().stream().mapToLong(Long::longValue).sum();
        }

        synchronized String restoredDetail() {
            if (restored.isEmpty()) return "";
            StringBuilder b = new StringBuilder(" [");
            restored.forEach((k, v) -> b.append(b.length() > 2 ? ", " : "").append(k.substring(k.lastIndexOf(' ') + 1))
                    .append('/').append(k, k.lastIndexOf('-', k.indexOf(' ')) + 1, k.indexOf(' ')).append('=').append(v));
            return b.append(']').toString();
        }

        synchronized long lastProcessed() {
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (lines.get(i).startsWith("PROCESSED ")) return Long.parseLong(lines.get(i).substring(10));
            }
            return 0;
        }

        synchronized String awaitLine(Predicate<String> p, Duration timeout) throws Exception {
            long deadline = System.nanoTime() + timeout.toNanos();
            int from = 0;
            while (true) {
                for (; from < lines.size(); from++) {
                    if (p.test(lines.get(from))) return lines.get(from);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || !process.isAlive() && from == lines.size()) {
                    throw new IllegalStateException(name + ": expected line not seen (alive=" + process.isAlive()
                            + "), last lines: " + lines.subList(Math.max(0, lines.size() - 10), lines.size()));
                }
                wait(Math.max(1, Math.min(200, left / 1_000_000)));
            }
        }

        void send(String line) throws Exception {
            process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().flush();
        }
    }
}
