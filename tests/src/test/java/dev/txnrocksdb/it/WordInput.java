package dev.txnrocksdb.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The generated input of {@link EosCrashApp} (skewed words, one record every {@link #STEP_MS} ms
 * of event time), its production to {@link EosCrashApp#INPUT}, and the outputs it must produce:
 * per key counts, per (key, window) counts, live sessions.
 */
final class WordInput {
    static final int WORDS = 300;
    /**
     * Recent timestamps, so that the broker's time-based retention never deletes the input; at most 1 h
     * ahead of the clock (the broker's message.timestamp.after.max.ms) up to 180,000 records.
     */
    static final long T0 =
            System.currentTimeMillis() / 60_000 * 60_000 - Duration.ofHours(1).toMillis();

    static final long STEP_MS = 20;

    private final List<String[]> records; // {key, value}; timestamp = t0 + i * STEP_MS
    private final long t0;
    private int produced;
    private String topic = EosCrashApp.INPUT;

    final Map<String, Long> expKv = new TreeMap<>();
    final Map<String, Long> expWin = new TreeMap<>();
    final Map<String, Long> expSes = new TreeMap<>();

    WordInput(int count, long seed) {
        this(count, seed, T0);
    }

    /** Record i at event time {@code t0 + i * STEP_MS}. */
    WordInput(int count, long seed, long t0) {
        this.t0 = t0;
        Random rnd = new Random(seed);
        records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            // skewed key distribution: some hot words, a long tail
            int w = rnd.nextInt(4) == 0 ? rnd.nextInt(10) : rnd.nextInt(WORDS);
            records.add(new String[] {"word-" + w, "v" + i});
        }
        expect();
    }

    int size() {
        return records.size();
    }

    /** Produces to {@code topic} instead of {@link EosCrashApp#INPUT} (an app of its own reading {@code eos-app.input}). */
    WordInput topic(String topic) {
        this.topic = topic;
        return this;
    }

    /** The topic it produces to. */
    String topic() {
        return topic;
    }

    int produced() {
        return produced;
    }

    /** Produces records {@code [produced, to)} (idempotent producer, acks=all: Kafka's defaults); nothing if already sent. */
    void produceUpTo(BrokerFixture kafka, int to) {
        if (to <= produced) return;
        // Every send's result checked: flush() returns when the sends are done, failed or not, and a
        // record the broker never took would be missing from the input, not lost by the app. A broker
        // that had just deleted topics answered NOT_LEADER_OR_FOLLOWER on the input's partitions for
        // the producer's whole 2 minutes in a CI run (SnapshotRestoreTest): now it keeps trying for 5.
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer =
                kafka.stringProducer(Map.of(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000))) {
            for (int i = produced; i < to; i++) {
                String[] r = records.get(i);
                sent.add(producer.send(new ProducerRecord<>(topic, null, t0 + i * STEP_MS, r[0], r[1])));
            }
            producer.flush();
            for (int i = 0; i < sent.size(); i++) {
                try {
                    sent.get(i).get();
                } catch (Exception e) {
                    throw new IllegalStateException(
                            topic + ": the broker did not take input record " + (produced + i) + " of " + produced
                                    + ".." + to + ": " + e.getCause(),
                            e);
                }
            }
        }
        produced = to;
    }

    private void expect() {
        Map<String, long[]> open = new HashMap<>(); // key -> {start, end, count}
        long size = EosCrashApp.WINDOW_SIZE.toMillis();
        long gap = EosCrashApp.SESSION_GAP.toMillis();
        for (int i = 0; i < records.size(); i++) {
            String k = records.get(i)[0];
            long ts = t0 + i * STEP_MS;
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
        }
        open.forEach((k, s) -> expSes.put(k + "@" + s[0] + "-" + s[1], s[2]));
    }

    /** Exactly-once: per key 1..n for KV and windows (no gap, no repeat), exactly the live sessions. */
    List<String> checkExactlyOnce(
            Map<String, List<Long>> kv, Map<String, List<Long>> win, Map<String, List<Long>> ses) {
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
                if (!Objects.equals(gotSes.get(k), expSes.get(k)) && shown++ < 10) {
                    problems.add("session " + k + ": got " + gotSes.get(k) + " expected " + expSes.get(k));
                }
            }
            problems.add("session: " + gotSes.size() + " live sessions, expected " + expSes.size());
        }
        BrokerFixture.say(String.format(
                "  checked: kv %d keys, window %d keys, session %d live sessions (%d output keys)",
                expKv.size(), expWin.size(), expSes.size(), ses.size()));
        return problems;
    }

    /**
     * At-least-once: per key (KV and windows) the last output is at least the expected count (no input
     * record's update is lost; duplicates and over-counts allowed), and count values are missing from the
     * output only as often as the store was restored from its changelog. Such a gap is at-least-once
     * behaviour: a changelog write that reached the broker before the kill, whose output record did not,
     * is restored into the store, and reprocessing the input then counts on from there. A store commit
     * cannot cause one, because Kafka flushes the producer before it commits the stores.
     *
     * @param kvRestored records the KV store restored from its changelog over all restarts
     * @param winRestored the same for the window store
     */
    List<String> checkAtLeastOnce(
            Map<String, List<Long>> kv, Map<String, List<Long>> win, long kvRestored, long winRestored) {
        List<String> problems = new ArrayList<>();
        long kvGaps = atLeastOnceCheck("kv", kv, expKv, kvRestored, problems);
        long winGaps = atLeastOnceCheck("window", win, expWin, winRestored, problems);
        BrokerFixture.say(String.format(
                "  checked at-least-once: kv %d keys (%d count values missing from the output,"
                        + " %d restored), window %d keys (%d missing, %d restored)",
                expKv.size(), kvGaps, kvRestored, expWin.size(), winGaps, winRestored));
        return problems;
    }

    /** The at-least-once check of one output; returns the number of count values 1..expected missing from it. */
    private static long atLeastOnceCheck(
            String what,
            Map<String, List<Long>> got,
            Map<String, Long> expected,
            long restored,
            List<String> problems) {
        int before = problems.size();
        long gaps = 0;
        for (String k : union(got, expected)) {
            List<Long> vs = got.getOrDefault(k, List.of());
            long exp = expected.getOrDefault(k, 0L);
            TreeSet<Long> seen = new TreeSet<>();
            for (Long v : vs) if (v != null) seen.add(v);
            for (long c = 1; c <= exp; c++) if (!seen.contains(c)) gaps++;
            Long last = vs.isEmpty() ? null : vs.get(vs.size() - 1);
            if ((exp == 0 || last == null || last < exp) && problems.size() - before < 10) {
                problems.add(what + " " + k + ": expected a last count >= " + exp + ", got " + shorten(vs));
            }
        }
        if (gaps > restored) {
            problems.add(what + ": " + gaps + " count values missing from the output, but only " + restored
                    + " records were restored from the changelog");
        }
        return gaps;
    }

    /** Output values beyond the exactly-once sequence (duplicates and over-counts), KV and windows. */
    static long surplus(Map<String, List<Long>> got, Map<String, Long> expected) {
        long n = 0;
        for (Map.Entry<String, List<Long>> e : got.entrySet())
            n += e.getValue().size() - expected.getOrDefault(e.getKey(), 0L);
        return n;
    }

    /** Exactly-once: per key the output is 1, 2, ..., expected. */
    private static void sequenceCheck(
            String what, Map<String, List<Long>> got, Map<String, Long> expected, List<String> problems) {
        int before = problems.size();
        for (String k : union(got, expected)) {
            List<Long> vs = got.getOrDefault(k, List.of());
            long exp = expected.getOrDefault(k, 0L);
            boolean ok = vs.size() == exp;
            for (int i = 0; ok && i < vs.size(); i++) ok = vs.get(i) != null && vs.get(i) == i + 1;
            if (!ok && problems.size() - before < 10) {
                problems.add(what + " " + k + ": expected 1.." + exp + ", got " + shorten(vs));
            }
        }
    }

    private static String shorten(List<Long> vs) {
        return vs.size() > 20
                ? vs.subList(0, 10) + "...(" + vs.size() + " values, last " + vs.get(vs.size() - 1) + ")"
                : vs.toString();
    }

    private static List<String> union(Map<String, ?> a, Map<String, ?> b) {
        TreeSet<String> s = new TreeSet<>(a.keySet());
        s.addAll(b.keySet());
        return new ArrayList<>(s);
    }
}
