package dev.txnrocksdb.examples.wordcount;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The demo: a real KRaft broker in its own JVM, the tutorial's word count on a transactional
 * txn-rocksdb store under exactly_once_v2, then SIGKILL of the app mid-stream and a restart that
 * restores only a short changelog tail, then a new host with no local state, whose restore of the
 * whole changelog logs its progress.
 */
public final class WordCountDemo {

    static final List<String> EVENTS = List.of("log", "kejadian", "log", "dibaca", "log", "kejadian");
    static final int CRASH_EVENTS = 60_000;
    static final int PARTITIONS = 1; // like the tutorial: one partition, so the order is the input order
    static final PrintStream OUT = System.out;

    private WordCountDemo() {}

    public static void main(String[] args) throws Exception {
        long t0 = System.nanoTime();
        Path tmp = Files.createTempDirectory("txn-rocksdb-wordcount-");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> KafkaBroker.deleteRecursively(tmp)));
        String stateDir = Files.createDirectories(tmp.resolve("state")).toString();
        int rc = 1;
        try (KafkaBroker broker = new KafkaBroker(tmp)) {
            say("== 0. Kafka broker (KRaft, broker+controller, own JVM) ==");
            broker.start(Duration.ofSeconds(90));
            say("broker up at " + broker.bootstrapServers() + " (pid " + broker.pid() + "), temp dir " + tmp);
            try (Admin admin = broker.admin()) {
                admin.createTopics(List.of(
                                new NewTopic(WordCountApp.INPUT, PARTITIONS, (short) 1),
                                new NewTopic(WordCountApp.OUTPUT, PARTITIONS, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            Map<String, Long> expected = new TreeMap<>();
            part1(broker, stateDir, expected);
            part2(broker, tmp, stateDir, expected);
            part3(broker, tmp, expected);
            rc = 0;
            say("");
            say(String.format("DEMO OK in %.1f s", (System.nanoTime() - t0) / 1e9));
        } catch (Throwable e) {
            say("DEMO FAILED: " + e);
            e.printStackTrace(OUT);
            showLogs(tmp);
        }
        System.exit(rc); // runs the shutdown hooks: temp dir removed
    }

    // ------------------------------------------------------------------ part 1: the tutorial

    static void part1(KafkaBroker broker, String stateDir, Map<String, Long> expected) throws Exception {
        say("");
        say("== 1. The tutorial's events, counted per key into the transactional store \"jumlah-kata\" ==");
        produce(broker, EVENTS);
        EVENTS.forEach(w -> expected.merge(w, 1L, Long::sum));
        say("produced to topic '" + WordCountApp.INPUT + "': " + String.join(", ", EVENTS));

        AtomicLong processed = new AtomicLong();
        Map<String, Long> seen = new ConcurrentHashMap<>();
        KafkaStreams streams = new KafkaStreams(
                WordCountApp.topology((word, count, offset) -> {
                    long before = seen.getOrDefault(word, 0L);
                    seen.put(word, count);
                    processed.incrementAndGet();
                    say(String.format(
                            "  offset=%d key=%s: count %d -> %d (put to store, changelog, output)",
                            offset, word, before, count));
                }),
                WordCountApp.config(broker.bootstrapServers(), stateDir));
        CountDownLatch running = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) running.countDown();
        });
        streams.start();
        try {
            if (!running.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("app not RUNNING in 60 s");
            // read_committed output: only what exactly-once committed
            List<ConsumerRecord<String, Long>> output = readCommitted(broker, EVENTS.size(), Duration.ofSeconds(60));
            Map<String, Long> fromTopic = lastValues(output);

            ReadOnlyKeyValueStore<String, Long> store = WordCountApp.store(streams, Duration.ofSeconds(30));
            Map<String, Long> fromStore = new TreeMap<>();
            try (KeyValueIterator<String, Long> it = store.all()) {
                while (it.hasNext()) {
                    KeyValue<String, Long> kv = it.next();
                    fromStore.put(kv.key, kv.value);
                }
            }
            say("final counts, interactive query on store 'jumlah-kata': " + fromStore);
            say("final counts, topic '" + WordCountApp.OUTPUT + "' (read_committed): " + fromTopic);
            check(fromStore.equals(expected), "store counts " + fromStore + " != expected " + expected);
            check(fromTopic.equals(expected), "output counts " + fromTopic + " != expected " + expected);
            say("OK: dibaca=1, kejadian=2, log=3");
        } finally {
            streams.close(Duration.ofSeconds(30));
        }
    }

    // ------------------------------------------------------------------ part 2: kill -9 and restart

    static void part2(KafkaBroker broker, Path tmp, String stateDir, Map<String, Long> expected) throws Exception {
        say("");
        say("== 2. Crash: the same app in a child JVM, SIGKILLed mid-stream, then restarted ==");
        List<String> words = new ArrayList<>(CRASH_EVENTS);
        for (int i = 0; i < CRASH_EVENTS; i++) {
            words.add(i % 5 == 0 ? EVENTS.get((i / 5) % EVENTS.size()) : String.format("kata-%04d", (i * 7919) % 2000));
        }
        produce(broker, words);
        words.forEach(w -> expected.merge(w, 1L, Long::sum));
        say("produced " + CRASH_EVENTS + " more events (" + expected.size() + " distinct words in total)");

        // First run: kill it with SIGKILL once it is well into the stream.
        Child first = Child.start("app#1", broker, tmp, stateDir);
        long atKill = first.awaitProcessed(CRASH_EVENTS / 3, Duration.ofSeconds(90));
        first.process.destroyForcibly();
        check(first.process.waitFor(30, TimeUnit.SECONDS), "child did not die");
        int exit = first.process.exitValue();
        say("killed app#1 (pid " + first.process.pid() + ") with SIGKILL after it reported " + atKill
                + " records processed: exit code " + exit + (exit == 137 ? " (128 + SIGKILL)" : ""));
        check(exit == 137, "expected exit code 137, got " + exit);
        Map<TopicPartition, Long> changelogEnd = endOffsets(broker, WordCountApp.CHANGELOG);
        say("changelog '" + WordCountApp.CHANGELOG + "' end offsets after the kill: " + changelogEnd);

        // Second run: same state dir. The store reopens at its last commit; only the tail is replayed.
        Child second = Child.start("app#2", broker, tmp, stateDir);
        int total = EVENTS.size() + CRASH_EVENTS;
        List<ConsumerRecord<String, Long>> output = readCommitted(broker, total, Duration.ofSeconds(120));
        second.send("stop");
        String iq = second.awaitLine(l -> l.startsWith("IQ"), Duration.ofSeconds(60));
        second.process.waitFor(60, TimeUnit.SECONDS);

        say("");
        say("restore statistics of app#2 (StateRestoreListener):");
        long restored = 0;
        if (second.restored.isEmpty()) {
            say("  no restore at all: the store was already at the changelog's committed end");
        }
        for (Map.Entry<String, Long> e : new TreeMap<>(second.restored).entrySet()) {
            TopicPartition tp = parse(e.getKey());
            say(String.format(
                    "  %s: restored %d records, reading only the tail after the store's last commit (%s;"
                            + " aborted records of the killed run are skipped under read_committed)",
                    e.getKey(), e.getValue(), second.restoreRange.get(e.getKey())));
            say(String.format(
                    "  %s: the changelog holds %d records: a wiped store (Kafka's built-in RocksDB under EOS"
                            + " after a crash) would replay all of them",
                    e.getKey(), changelogEnd.getOrDefault(tp, -1L)));
            restored += e.getValue();
        }
        long changelogTotal =
                changelogEnd.values().stream().mapToLong(Long::longValue).sum();
        say("  total restored " + restored + " of " + changelogTotal + " changelog records; store holds "
                + expected.size() + " keys");

        // Exactly once: per word, the read_committed output is 1, 2, ..., n: no gap, no duplicate.
        Map<String, Long> last = new HashMap<>();
        int duplicates = 0;
        int gaps = 0;
        for (ConsumerRecord<String, Long> r : output) {
            long prev = last.getOrDefault(r.key(), 0L);
            if (r.value() <= prev) duplicates++;
            else if (r.value() != prev + 1) gaps++;
            last.put(r.key(), r.value());
        }
        Map<String, Long> finalCounts = new TreeMap<>(last);
        say("");
        say("read_committed output: " + output.size() + " records for " + total + " input events, " + duplicates
                + " duplicates, " + gaps + " gaps");
        say("app#2 interactive query: " + iq.substring(3));
        say("tutorial words in the output topic: dibaca=" + finalCounts.get("dibaca") + ", kejadian="
                + finalCounts.get("kejadian") + ", log=" + finalCounts.get("log")
                + " (expected " + expected.get("dibaca") + ", " + expected.get("kejadian") + ", " + expected.get("log")
                + ")");
        check(duplicates == 0 && gaps == 0 && output.size() == total, "output is not exactly-once");
        check(finalCounts.equals(expected), "final counts differ from the expected counts");
        check(
                iq.contains("dibaca=" + expected.get("dibaca") + " ")
                        && iq.contains("kejadian=" + expected.get("kejadian") + " ")
                        && iq.contains("log=" + expected.get("log") + " ")
                        && iq.endsWith(" keys=" + expected.size()),
                "interactive query differs: " + iq);
        say("OK: all " + expected.size() + " counts correct after kill -9 + restart, state came back from the store");
    }

    // ------------------------------------------------------------------ part 3: a new host

    static void part3(KafkaBroker broker, Path tmp, Map<String, Long> expected) throws Exception {
        say("");
        say("== 3. A new host: no local state, the store restored from its changelog, with its progress ==");
        String newHost = Files.createDirectories(tmp.resolve("state-new-host")).toString();
        // The library logs a restore's progress every 10 s once it is behind for 10 s. A restore of
        // these 60,000 records from a local broker takes half a second, so the demo plays a slow
        // network: a client quota holds every consumer to a sixth of the changelog's size per second
        // (lifted after), the restore fetching 64 KiB at a time, and the app logs a line every second
        // (an internal setting).
        long changelogBytes = sizeOf(broker, new TopicPartition(WordCountApp.CHANGELOG, 0));
        double bytesPerSecond = Math.max(1024, changelogBytes / 6);
        ClientQuotaEntity everyClient =
                new ClientQuotaEntity(Collections.singletonMap(ClientQuotaEntity.CLIENT_ID, null));
        quota(broker, everyClient, bytesPerSecond);
        say(String.format(
                "the changelog holds %,d bytes; the broker now serves each consumer %,.0f bytes/s (a client quota,"
                        + " for this part only)",
                changelogBytes, bytesPerSecond));
        String iq;
        try {
            Child third = Child.start(
                    "app#3",
                    broker,
                    tmp,
                    newHost,
                    "__txn.rocksdb.restore.progress.interval.ms__=1000",
                    "restore.consumer.max.partition.fetch.bytes=65536");
            third.awaitLine(l -> l.startsWith("RESTORE-END "), Duration.ofSeconds(120));
            third.send("stop");
            iq = third.awaitLine(l -> l.startsWith("IQ"), Duration.ofSeconds(60));
            third.process.waitFor(60, TimeUnit.SECONDS);
        } finally {
            quota(broker, everyClient, null);
        }
        String logger = "dev.txnrocksdb.streams.internals.RestoreProgress - ";
        List<String> progress = Files.readAllLines(tmp.resolve("app#3.log")).stream()
                .filter(l -> l.contains(logger))
                .map(l -> l.substring(l.indexOf(logger) + logger.length()))
                .toList();
        say("");
        say("app#3's restore progress (logger dev.txnrocksdb.streams.internals.RestoreProgress, INFO):");
        progress.forEach(l -> say("  " + l));
        say("app#3 interactive query: " + iq.substring(3));
        check(progress.size() >= 2, "the new host's restore logged no progress line: " + progress);
        check(progress.get(progress.size() - 1).startsWith("Restored "), "no summary line last: " + progress);
        check(
                iq.endsWith(" keys=" + expected.size()) && iq.contains("log=" + expected.get("log") + " "),
                "the new host's store differs: " + iq);
        say("OK: the new host restored all " + expected.size() + " keys from the changelog, its progress logged as"
                + " it went");
    }

    /** The bytes of {@code partition}'s log on the broker. */
    static long sizeOf(KafkaBroker broker, TopicPartition partition) throws Exception {
        try (Admin admin = broker.admin()) {
            List<Integer> brokers = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream()
                    .map(n -> n.id())
                    .toList();
            long bytes = 0;
            for (var dirs : admin.describeLogDirs(brokers)
                    .allDescriptions()
                    .get(30, TimeUnit.SECONDS)
                    .values()) {
                for (var dir : dirs.values()) {
                    var replica = dir.replicaInfos().get(partition);
                    if (replica != null) bytes += replica.size();
                }
            }
            return bytes;
        }
    }

    /** Sets (or, with null, removes) the consumer byte-rate quota of {@code entity}. */
    static void quota(KafkaBroker broker, ClientQuotaEntity entity, Double bytesPerSecond) throws Exception {
        try (Admin admin = broker.admin()) {
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                            entity, List.of(new ClientQuotaAlteration.Op("consumer_byte_rate", bytesPerSecond)))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /** A Streams app in a child JVM; its stdout lines are echoed with a prefix and parsed. */
    static final class Child {
        final String name;
        final Process process;
        final List<String> lines = new ArrayList<>();
        final Map<String, Long> restored = new LinkedHashMap<>();
        final Map<String, String> restoreRange = new LinkedHashMap<>();

        private Child(String name, Process process) {
            this.name = name;
            this.process = process;
        }

        static Child start(String name, KafkaBroker broker, Path tmp, String stateDir, String... overrides)
                throws Exception {
            List<String> args = new ArrayList<>(List.of(broker.bootstrapServers(), stateDir));
            args.addAll(List.of(overrides));
            Process p = KafkaBroker.java(WordCountApp.class.getName(), args.toArray(String[]::new))
                    .redirectError(tmp.resolve(name + ".log").toFile())
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
            Child c = new Child(name, p);
            say("started " + name + " (pid " + p.pid() + ", logs: WARN and above)");
            Thread pump = new Thread(
                    () -> {
                        try (BufferedReader r =
                                new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                            String l;
                            while ((l = r.readLine()) != null) {
                                say("  [" + name + "] " + l);
                                if (l.startsWith("RESTORE-START ")) {
                                    String[] f = l.split(" ");
                                    synchronized (c) {
                                        c.restoreRange.put(f[1], "offsets " + f[5] + ".." + f[7]);
                                    }
                                }
                                if (l.startsWith("RESTORE-END ")) {
                                    String[] f = l.split(" ");
                                    synchronized (c) {
                                        c.restored.put(f[1], Long.parseLong(f[2]));
                                    }
                                }
                                synchronized (c) {
                                    c.lines.add(l);
                                    c.notifyAll();
                                }
                            }
                        } catch (Exception ignored) {
                        }
                    },
                    name + "-stdout");
            pump.setDaemon(true);
            pump.start();
            return c;
        }

        long awaitProcessed(long n, Duration timeout) throws Exception {
            String l = awaitLine(s -> s.startsWith("PROCESSED ") && Long.parseLong(s.substring(10)) >= n, timeout);
            return Long.parseLong(l.substring(10));
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
                    throw new IllegalStateException(
                            name + ": expected line not seen (alive=" + process.isAlive() + ")");
                }
                wait(Math.max(1, Math.min(200, left / 1_000_000)));
            }
        }

        void send(String line) throws Exception {
            process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().flush();
        }
    }

    // ------------------------------------------------------------------ Kafka helpers

    static void produce(KafkaBroker broker, List<String> words) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (String w : words) producer.send(new ProducerRecord<>(WordCountApp.INPUT, w, w));
            producer.flush();
        }
    }

    /** Everything committed in the output topic, waiting until at least {@code atLeast} records arrived. */
    static List<ConsumerRecord<String, Long>> readCommitted(KafkaBroker broker, int atLeast, Duration timeout) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class);
        List<ConsumerRecord<String, Long>> out = new ArrayList<>();
        try (KafkaConsumer<String, Long> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) tps.add(new TopicPartition(WordCountApp.OUTPUT, i));
            c.assign(tps);
            c.seekToBeginning(tps);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (out.size() < atLeast) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "only " + out.size() + " of " + atLeast + " output records committed in " + timeout);
                }
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            // linger a little: duplicates would show up here
            long extra = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while (System.nanoTime() < extra) c.poll(Duration.ofMillis(200)).forEach(out::add);
        }
        return out;
    }

    static Map<String, Long> lastValues(List<ConsumerRecord<String, Long>> records) {
        Map<String, Long> m = new TreeMap<>();
        records.forEach(r -> m.put(r.key(), r.value()));
        return m;
    }

    static Map<TopicPartition, Long> endOffsets(KafkaBroker broker, String topic) throws Exception {
        try (Admin admin = broker.admin()) {
            Map<TopicPartition, OffsetSpec> q = new HashMap<>();
            for (int i = 0; i < PARTITIONS; i++) q.put(new TopicPartition(topic, i), OffsetSpec.latest());
            Map<TopicPartition, Long> r = new TreeMap<>((a, b) -> Integer.compare(a.partition(), b.partition()));
            admin.listOffsets(q).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> r.put(tp, info.offset()));
            return r;
        }
    }

    /** On failure: the last lines of the broker's and the apps' logs (the temp dir is removed on exit). */
    static void showLogs(Path tmp) {
        try (var files = Files.list(tmp)) {
            for (Path f :
                    files.filter(x -> x.toString().endsWith(".log")).sorted().toList()) {
                List<String> lines = Files.readAllLines(f);
                say("---- last lines of " + f.getFileName() + " ----");
                lines.subList(Math.max(0, lines.size() - 30), lines.size()).forEach(WordCountDemo::say);
            }
        } catch (Exception ignored) {
        }
    }

    static TopicPartition parse(String tp) {
        int dash = tp.lastIndexOf('-');
        return new TopicPartition(tp.substring(0, dash), Integer.parseInt(tp.substring(dash + 1)));
    }

    static void check(boolean ok, String message) {
        if (!ok) throw new IllegalStateException(message);
    }

    static void say(String s) {
        synchronized (OUT) {
            OUT.println(s);
            OUT.flush();
        }
    }
}
