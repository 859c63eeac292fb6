package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.await;
import static dev.txnrocksdb.it.BrokerFixture.ms;
import static dev.txnrocksdb.it.BrokerFixture.say;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.examples.wordcount.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreType;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A model-based differential of the key-value stores' time-to-live on a real broker (issue 48):
 * {@link TtlModelApp}'s six stores (key-value, timestamped and headers kinds, each under both
 * transaction strategies, TTL one minute of stream time) are driven by a seeded random sequence
 * of ops over 40 keys and two partitions: puts, putIfAbsents, deletes, gets, ranges and reverse
 * ranges (bounded and open), all, reverseAll and prefix scans, with stream time moving on in small
 * steps, jumping several TTLs now and then, records arriving late (up to 1.5 TTLs behind stream
 * time, so some writes are expired when written) and reads placed exactly on and 1 ms before a
 * key's expiry. A plain reference model ({@link Model}: per partition a map key -> value, write
 * time, and the partition's stream time; a key is live while {@code writeTime > streamTime - ttl})
 * computes the answer of every op. The app runs in a child JVM, is killed with SIGKILL (exit 137
 * asserted) at random moments while it processes and restarted, its state directory deleted before
 * at least one restart (a restore from the changelogs); then a last restore from the changelogs
 * with the state directory deleted runs in this JVM. Checked:
 * <ul>
 *   <li>every op that answers has exactly one committed answer per store ({@code read_committed}:
 *       exactly once across the kills), equal to the model's, and no other answer exists;</li>
 *   <li>the first ops after the last restore (an {@code all} per partition at the restored stream
 *       time, then a {@code reverseAll} and an {@code all} half a TTL later) see exactly the
 *       model's live keys: restored keys that had expired are invisible at once;</li>
 *   <li>interactive queries ({@code all()} over both partitions) of the six stores return exactly
 *       the model's live keys with their values, timestamps and headers.</li>
 * </ul>
 * Several seeds: {@code -Dit.ttl.model.seeds=1,2,3} (default 1,2); ops per seed
 * {@code -Dit.ttl.model.ops=} (default 20000); kills per seed {@code -Dit.ttl.model.kills=}
 * (default 6). The wall-clock time basis is not covered here: on a broker its expiries depend on
 * when the JVM happens to run, so no model can predict the answers; the Rust model test
 * ({@code rust/core/tests/ttl.rs}) and {@code TtlTopologyTestDriverTest} (a driven clock) cover it.
 */
class TtlModelTest {
    static final int PARTITIONS = 2;
    static final int KEYS = 40;
    static final long TTL = TtlModelApp.TTL.toMillis();
    static final int OPS = Integer.getInteger("it.ttl.model.ops", 20_000);
    static final int KILLS = Integer.getInteger("it.ttl.model.kills", 6);
    /** The kinds of store: each kind's two stores (both strategies) must answer the same. */
    static final List<String> KINDS = List.of("kv", "ts", "hd");

    static BrokerFixture kafka;

    @BeforeAll
    static void startBroker() throws Exception {
        kafka = BrokerFixture.start("ttl-model");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (kafka != null) kafka.close();
    }

    static Stream<Long> seeds() {
        return Arrays.stream(System.getProperty("it.ttl.model.seeds", "1,2").split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .map(Long::valueOf);
    }

    static String key(int i) {
        return String.format("k%02d", i);
    }

    static int partition(String key) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
    }

    /** One op: {@code body} is the op record's value without its sequence number. */
    record Op(long seq, String key, long timestamp, String body) {
        String value() {
            return seq + "|" + body;
        }

        String[] args() {
            return body.split("\\|", -1);
        }

        /** A put and a putIfAbsent carry their sequence number in a header, which the headers stores keep. */
        boolean writes() {
            return body.startsWith("put|") || body.startsWith("pia|");
        }

        Op at(long base) {
            return new Op(seq, key, base + timestamp, body);
        }

        @Override
        public String toString() {
            return "#" + seq + " " + body + " key " + key + " (partition " + partition(key) + ") at " + timestamp;
        }
    }

    /**
     * The reference semantics, in plain Java: per partition (a task, whose stores see only its
     * keys) the entries and the stream time, the largest op timestamp seen so far (Kafka's task
     * stream time, which counts the record being processed; the stores read with it). A key is
     * live while {@code writeTime > streamTime - ttl}, its write time being its last write's
     * timestamp, older than stream time or not.
     */
    static final class Model {
        record Entry(String value, long writeTime, long seq) {}

        final List<TreeMap<String, Entry>> data = new ArrayList<>();
        final long[] streamTime = new long[PARTITIONS];
        /** What the reads met, for the log: live entries, entries hidden by their expiry. */
        long liveRead, expiredRead;

        Model() {
            for (int p = 0; p < PARTITIONS; p++) data.add(new TreeMap<>());
            Arrays.fill(streamTime, Long.MIN_VALUE);
        }

        boolean live(Entry e, int p) {
            return e != null && e.writeTime() > streamTime[p] - TTL;
        }

        private boolean counted(Entry e, int p) {
            boolean live = live(e, p);
            if (live) liveRead++;
            else if (e != null) expiredRead++;
            return live;
        }

        /** What the op answers, per kind (as {@link #KINDS}), or null for a put. */
        String[] apply(Op op) {
            int p = partition(op.key());
            streamTime[p] = Math.max(streamTime[p], op.timestamp());
            TreeMap<String, Entry> m = data.get(p);
            String[] a = op.args();
            Entry current = m.get(op.key());
            Entry found = !a[0].equals("put") && counted(current, p) ? current : null;
            switch (a[0]) {
                case "put" -> {
                    m.put(op.key(), new Entry(a[1], op.timestamp(), op.seq()));
                    return null;
                }
                case "pia" -> {
                    if (found == null) m.put(op.key(), new Entry(a[1], op.timestamp(), op.seq()));
                    return render(found);
                }
                case "delete" -> {
                    m.remove(op.key());
                    return render(found);
                }
                case "get" -> {
                    return render(found);
                }
                default -> {
                    return scan(p, a);
                }
            }
        }

        private String[] scan(int p, String[] a) {
            NavigableMap<String, Entry> view = data.get(p);
            boolean reverse = a[0].equals("reverse") || a[0].equals("rall");
            if (a[0].equals("range") || a[0].equals("reverse")) {
                if (!a[1].equals(TtlModelApp.NONE)) view = view.tailMap(a[1], true);
                if (!a[2].equals(TtlModelApp.NONE)) view = view.headMap(a[2], true);
            }
            if (reverse) view = view.descendingMap();
            String[] out = {"", "", ""};
            for (Map.Entry<String, Entry> e : view.entrySet()) {
                if (a[0].equals("prefix") && !e.getKey().startsWith(a[1])) continue;
                if (!counted(e.getValue(), p)) continue;
                String[] v = render(e.getValue());
                for (int k = 0; k < out.length; k++) {
                    out[k] += (out[k].isEmpty() ? "" : ",") + e.getKey() + "=" + v[k];
                }
            }
            return out;
        }

        /** As {@link TtlModelApp#render(Object)} renders the kinds' stored values. */
        static String[] render(Entry e) {
            if (e == null) return new String[] {TtlModelApp.NONE, TtlModelApp.NONE, TtlModelApp.NONE};
            return new String[] {
                e.value(), e.value() + "@" + e.writeTime(), e.value() + "@" + e.writeTime() + "#" + e.seq()
            };
        }

        /** The live keys of every partition with their rendered values, for kind {@code k}. */
        Map<String, String> live(int k) {
            Map<String, String> out = new TreeMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                for (Map.Entry<String, Entry> e : data.get(p).entrySet()) {
                    if (live(e.getValue(), p)) out.put(e.getKey(), render(e.getValue())[k]);
                }
            }
            return out;
        }
    }

    /**
     * The seeded op sequence, timestamps relative to 0: {@code n} random ops, then the final reads
     * of every partition (an {@code all} at its stream time, a {@code reverseAll} and an
     * {@code all} half a TTL later), which the test sends after the last restore.
     */
    static List<Op> generate(long seed, int n) {
        Random rnd = new Random(seed);
        // the generator follows the model, to place reads on keys' expiry boundaries
        Model model = new Model();
        List<Op> ops = new ArrayList<>(n + 3 * PARTITIONS);
        long now = 0;
        for (long seq = 0; seq < n; seq++) {
            String key = key(rnd.nextInt(KEYS));
            // stream time: steps of half a second on average (a key is written about every 100
            // ops, so some live through a TTL and some do not), and now and then a jump of 2 to 5
            // TTLs that expires everything
            if (rnd.nextInt(150) == 0) now += TTL * (2 + rnd.nextInt(4));
            else now += rnd.nextInt((int) (TTL / 60));
            long t = now;
            // late records (not moving stream time): up to 1.5 TTLs behind, so some writes are expired at once
            if (rnd.nextInt(100) < 15) t = now - rnd.nextLong(TTL * 3 / 2);
            String body;
            int p = partition(key);
            Model.Entry e = model.data.get(p).get(key);
            int o = rnd.nextInt(100);
            if (o < 4 && e != null) {
                // exactly at the expiry (the key is gone) or 1 ms before it (still live)
                t = e.writeTime() + TTL - rnd.nextInt(2);
                now = Math.max(now, t);
                body = "get";
            } else if (o < 35) {
                body = "put|v" + seq;
            } else if (o < 40) {
                body = "pia|v" + seq;
            } else if (o < 50) {
                body = "delete";
            } else if (o < 70) {
                body = "get";
            } else if (o < 84) {
                String a = bound(rnd), b = bound(rnd);
                if (!a.equals(TtlModelApp.NONE) && !b.equals(TtlModelApp.NONE) && a.compareTo(b) > 0) {
                    String x = a;
                    a = b;
                    b = x;
                }
                body = (o < 78 ? "range|" : "reverse|") + a + "|" + b;
            } else if (o < 89) {
                body = "all";
            } else if (o < 93) {
                body = "rall";
            } else {
                // a whole key (k07 is a prefix of itself only) or one of the ten-key groups k0..k3
                body = "prefix|" + (rnd.nextInt(5) == 0 ? key : key.substring(0, 2));
            }
            Op op = new Op(seq, key, t, body);
            model.apply(op);
            ops.add(op);
        }
        for (int p = 0; p < PARTITIONS; p++) {
            String key = firstKeyOf(p);
            long st = model.streamTime[p];
            ops.add(new Op(ops.size(), key, st, "all"));
            ops.add(new Op(ops.size(), key, st + TTL / 2, "rall"));
            ops.add(new Op(ops.size(), key, st + TTL / 2, "all"));
        }
        return ops;
    }

    private static String bound(Random rnd) {
        return rnd.nextInt(10) == 0 ? TtlModelApp.NONE : key(rnd.nextInt(KEYS));
    }

    private static String firstKeyOf(int p) {
        for (int i = 0; i < KEYS; i++) {
            if (partition(key(i)) == p) return key(i);
        }
        throw new IllegalStateException("no key in partition " + p);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void storesAnswerAsTheModelAcrossKillsAndRestores(long seed) throws Exception {
        long started = System.nanoTime();
        String appId = "ttl-model-" + seed;
        String opsTopic = TtlModelApp.opsTopic(appId);
        String answersTopic = TtlModelApp.answersTopic(appId);
        kafka.createTopicsWithLeaders(PARTITIONS, List.of(opsTopic, answersTopic));

        // timestamps end 5 minutes ago: every one is recent (the broker's time-based retention
        // deletes the log segments of records stamped long ago) and none in the future
        List<Op> relative = generate(seed, OPS);
        long maxRel = relative.stream().mapToLong(Op::timestamp).max().orElse(0);
        long base = System.currentTimeMillis() - maxRel - Duration.ofMinutes(5).toMillis();
        List<Op> ops = relative.stream().map(op -> op.at(base)).toList();
        Model model = new Model();
        Map<String, String> expected = new LinkedHashMap<>();
        Map<String, Op> opOf = new HashMap<>();
        for (Op op : ops) {
            String[] answer = model.apply(op);
            if (answer == null) continue;
            for (String store : TtlModelApp.STORES) {
                expected.put(store + "|" + op.seq(), answer[KINDS.indexOf(store.substring(0, 2))]);
            }
            opOf.put(Long.toString(op.seq()), op);
        }
        List<Op> main = ops.subList(0, OPS);
        List<Op> last = ops.subList(OPS, ops.size());
        say(String.format(
                "ttl-model seed %d: %d ops (%d answers per store), %d kills, stream time span %d TTLs;"
                        + " the reads meet %d live entries and %d expired ones",
                seed,
                ops.size(),
                expected.size() / TtlModelApp.STORES.size(),
                KILLS,
                maxRel / TTL,
                model.liveRead,
                model.expiredRead));

        Path stateDir = kafka.tmp.resolve(appId + "-state");
        Random rnd = new Random(seed * 7919);
        // at least one restart with the state directory deleted, and about one in three besides
        int wipeCycle = 1 + rnd.nextInt(KILLS);
        int chunk = (main.size() + KILLS) / (KILLS + 1);
        produce(opsTopic, main.subList(0, Math.min(chunk, main.size())));
        AppProcess app = startApp(appId + "#0", appId, stateDir);
        List<String> log = new ArrayList<>();
        for (int cycle = 1; cycle <= KILLS; cycle++) {
            app.awaitLine(0, l -> l.equals("RUNNING"), Duration.ofSeconds(120));
            // a random moment while it processes its backlog (at least this chunk): after 50 to
            // ~80% of a chunk of ops processed by this JVM, plus up to 30 ms
            long target = 50L * (1 + rnd.nextInt(Math.max(1, chunk * 8 / 10 / 50)));
            app.awaitLine(
                    0,
                    l -> l.startsWith("PROCESSED ") && Long.parseLong(l.substring(10)) >= target,
                    Duration.ofSeconds(120));
            Thread.sleep(rnd.nextInt(30));
            long processed = app.lastProcessed();
            app.kill();
            boolean wipe = cycle == wipeCycle || rnd.nextInt(3) == 0;
            if (wipe) KafkaBroker.deleteRecursively(stateDir);
            log.add("killed #" + (cycle - 1) + " at ~" + processed + " processed" + (wipe ? ", state deleted" : ""));
            produce(
                    opsTopic,
                    main.subList(Math.min(cycle * chunk, main.size()), Math.min((cycle + 1) * chunk, main.size())));
            app = startApp(appId + "#" + cycle, appId, stateDir);
        }
        app.awaitLine(0, l -> l.equals("RUNNING"), Duration.ofSeconds(120));
        kafka.awaitGroupCaughtUp(appId, opsTopic, PARTITIONS, Duration.ofMinutes(3));
        app.kill();
        log.add("killed #" + KILLS + " after it caught up, state deleted");
        say("ttl-model seed " + seed + ": " + String.join("; ", log));

        // the last restore: state deleted, restored from the changelogs in this JVM (for the
        // interactive queries); the final reads are its first ops
        KafkaBroker.deleteRecursively(stateDir);
        produce(opsTopic, last);
        Properties config = TtlModelApp.config(kafka.bootstrap(), stateDir.toString(), appId);
        try (KafkaStreams streams = new KafkaStreams(TtlModelApp.topology(appId, new AtomicLong()), config)) {
            streams.start();
            await(appId + " RUNNING", Duration.ofMinutes(3), () -> streams.state() == KafkaStreams.State.RUNNING);
            kafka.awaitGroupCaughtUp(appId, opsTopic, PARTITIONS, Duration.ofMinutes(3));

            // every answer, exactly once, equal to the model's
            Map<String, List<String>> answers = readAnswers(answersTopic);
            List<String> wrong = new ArrayList<>();
            int wrongCount = 0;
            for (Map.Entry<String, String> e : expected.entrySet()) {
                List<String> got = answers.getOrDefault(e.getKey(), List.of());
                if (got.size() == 1 && got.get(0).equals(e.getValue())) continue;
                wrongCount++;
                if (wrong.size() < 12) {
                    String seq = e.getKey().substring(e.getKey().indexOf('|') + 1);
                    wrong.add(e.getKey() + " " + opOf.get(seq) + ": expected [" + e.getValue() + "], got " + got);
                }
            }
            List<String> unexpected = answers.keySet().stream()
                    .filter(k -> !expected.containsKey(k))
                    .limit(10)
                    .toList();
            say(String.format(
                    "ttl-model seed %d: %d answers read, %d expected, %d wrong or missing",
                    seed, answers.values().stream().mapToInt(List::size).sum(), expected.size(), wrongCount));
            assertTrue(
                    wrong.isEmpty(),
                    "seed " + seed + ": " + wrongCount + " answers differ from the model:\n  "
                            + String.join("\n  ", wrong));
            assertTrue(unexpected.isEmpty(), "seed " + seed + ": answers to no op: " + unexpected);

            // the restored and advanced stores hold exactly the model's live keys
            for (String store : TtlModelApp.STORES) {
                Map<String, String> want = model.live(KINDS.indexOf(store.substring(0, 2)));
                Map<String, String> got = new TreeMap<>();
                try {
                    await(store + " queried as the model", Duration.ofSeconds(30), () -> {
                        got.clear();
                        got.putAll(query(streams, store));
                        return want.equals(got);
                    });
                } catch (AssertionError timedOut) {
                    assertEquals(want, got, "seed " + seed + ": interactive queries of " + store);
                }
            }
            say(String.format(
                    "ttl-model seed %d: %d live keys at the end, every store agrees; %d s",
                    seed, model.live(0).size(), ms(started) / 1000));
            streams.close(Duration.ofSeconds(30));
        } finally {
            KafkaBroker.deleteRecursively(stateDir);
        }
    }

    /** Every key and rendered value of a store over both partitions (IQv1 {@code all()}); empty while restoring. */
    private static Map<String, String> query(KafkaStreams streams, String store) {
        QueryableStoreType<? extends ReadOnlyKeyValueStore<String, ?>> type = switch (store.substring(0, 2)) {
            case "kv" -> QueryableStoreTypes.<String, String>keyValueStore();
            case "ts" -> QueryableStoreTypes.<String, String>timestampedKeyValueStore();
            default -> QueryableStoreTypes.<String, String>timestampedKeyValueStoreWithHeaders();
        };
        Map<String, String> out = new TreeMap<>();
        try {
            ReadOnlyKeyValueStore<String, ?> s = streams.store(StoreQueryParameters.fromNameAndType(store, type));
            try (KeyValueIterator<String, ?> all = s.all()) {
                while (all.hasNext()) {
                    KeyValue<String, ?> kv = all.next();
                    out.put(kv.key, TtlModelApp.render(kv.value));
                }
            }
        } catch (InvalidStateStoreException restoring) {
            out.clear();
        }
        return out;
    }

    private static void produce(String topic, List<Op> ops) {
        try (KafkaProducer<String, String> producer = kafka.stringProducer()) {
            for (Op op : ops) {
                RecordHeaders headers = new RecordHeaders();
                if (op.writes()) {
                    headers.add(
                            TtlModelApp.WRITE_HEADER, Long.toString(op.seq()).getBytes(StandardCharsets.UTF_8));
                }
                producer.send(new ProducerRecord<>(
                        topic, partition(op.key()), op.timestamp(), op.key(), op.value(), headers));
            }
        }
    }

    /** Every committed answer, per {@code <store>|<seq>} (read_committed, to the end, then 1 s more for late duplicates). */
    private static Map<String, List<String>> readAnswers(String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        Map<String, List<String>> out = new HashMap<>();
        try (KafkaConsumer<String, String> c =
                new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) tps.add(new TopicPartition(topic, i));
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps); // the last stable offsets
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            long linger = Long.MAX_VALUE;
            while (System.nanoTime() < linger) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
                }
                if (linger == Long.MAX_VALUE && tps.stream().allMatch(tp -> c.position(tp) >= end.get(tp))) {
                    linger = System.nanoTime() + Duration.ofSeconds(1).toNanos();
                }
                if (System.nanoTime() > deadline)
                    throw new AssertionError(topic + ": not read to its end in 3 minutes");
            }
        }
        return out;
    }

    /** {@link TtlModelApp} in a child JVM (stderr to {@code <tmp>/<name>.log}). */
    private static AppProcess startApp(String name, String appId, Path stateDir) throws Exception {
        return AppProcess.start(
                List.of("-Xmx512m"), name, kafka, TtlModelApp.class, kafka.bootstrap(), stateDir.toString(), appId);
    }
}
