package dev.txnrocksdb.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The generated input of {@link EosCrashApp} (skewed words, one record every {@link #STEP_MS} ms
 * of event time), its production to {@link EosCrashApp#INPUT}, and the outputs it must produce:
 * per key counts, per (key, window) counts, live sessions.
 */
final class WordInput {
    static final int WORDS = 300;
    /** Recent timestamps, so that the broker's time-based retention never deletes the input. */
    static final long T0 = System.currentTimeMillis() / 60_000 * 60_000 - Duration.ofHours(1).toMillis();
    static final long STEP_MS = 20;

    private final List<String[]> records; // {key, value}; timestamp = T0 + i * STEP_MS
    private int produced;

    final Map<String, Long> expKv = new TreeMap<>();
    final Map<String, Long> expWin = new TreeMap<>();
    final Map<String, Long> expSes = new TreeMap<>();

    WordInput(int count, long seed) {
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

    int produced() {
        return produced;
    }

    /** Produces records {@code [produced, to)} (idempotent producer, acks=all); nothing if already sent. */
    void produceUpTo(BrokerFixture kafka, int to) {
        if (to <= produced) return;
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = produced; i < to; i++) {
                String[] r = records.get(i);
                producer.send(new ProducerRecord<>(EosCrashApp.INPUT, null, T0 + i * STEP_MS, r[0], r[1]));
            }
            producer.flush();
        }
        produced = to;
    }

    private void expect() {
        Map<String, long[]> open = new HashMap<>(); // key -> {start, end, count}
        long size = EosCrashApp.WINDOW_SIZE.toMillis();
        long gap = EosCrashApp.SESSION_GAP.toMillis();
        for (int i = 0; i < records.size(); i++) {
            String k = records.get(i)[0];
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
        }
        open.forEach((k, s) -> expSes.put(k + "@" + s[0] + "-" + s[1], s[2]));
    }

    /** Exactly-once: per key 1..n for KV and windows (no gap, no repeat), exactly the live sessions. */
    List<String> checkExactlyOnce(Map<String, List<Long>> kv, Map<String, List<Long>> win, Map<String, List<Long>> ses) {
        List<String> problems = new ArrayList<>();
        sequenceCheck("kv", kv, expKv, true, problems);
        sequenceCheck("window", win, expWin, true, problems);
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
        BrokerFixture.say(String.format("  checked: kv %d keys, window %d keys, session %d live sessions (%d output keys)",
                expKv.size(), expWin.size(), expSes.size(), ses.size()));
        return problems;
    }

    /**
     * At-least-once: per key (KV and windows) every count 1..expected appears at least once and the last
     * one is at least the expected count (nothing lost; duplicates and over-counts allowed).
     */
    List<String> checkAtLeastOnce(Map<String, List<Long>> kv, Map<String, List<Long>> win) {
        List<String> problems = new ArrayList<>();
        sequenceCheck("kv", kv, expKv, false, problems);
        sequenceCheck("window", win, expWin, false, problems);
        BrokerFixture.say(String.format("  checked at-least-once: kv %d keys, window %d keys", expKv.size(), expWin.size()));
        return problems;
    }

    /** Output values beyond the exactly-once sequence (duplicates and over-counts), KV and windows. */
    static long surplus(Map<String, List<Long>> got, Map<String, Long> expected) {
        long n = 0;
        for (Map.Entry<String, List<Long>> e : got.entrySet()) n += e.getValue().size() - expected.getOrDefault(e.getKey(), 0L);
        return n;
    }

    /**
     * Exact: per key the output is 1, 2, ..., expected. Not exact: every value 1..expected occurs and the
     * last value is at least expected.
     */
    private static void sequenceCheck(String what, Map<String, List<Long>> got, Map<String, Long> expected, boolean exact,
                                      List<String> problems) {
        int before = problems.size();
        for (String k : union(got, expected)) {
            List<Long> vs = got.getOrDefault(k, List.of());
            long exp = expected.getOrDefault(k, 0L);
            boolean ok;
            if (exact) {
                ok = vs.size() == exp;
                for (int i = 0; ok && i < vs.size(); i++) ok = vs.get(i) != null && vs.get(i) == i + 1;
            } else {
                TreeSet<Long> seen = new TreeSet<>();
                for (Long v : vs) if (v != null) seen.add(v);
                ok = exp > 0 && !vs.isEmpty() && vs.get(vs.size() - 1) != null && vs.get(vs.size() - 1) >= exp;
                for (long c = 1; ok && c <= exp; c++) ok = seen.contains(c);
            }
            if (!ok && problems.size() - before < 10) {
                problems.add(what + " " + k + ": expected " + (exact ? "" : "at least ") + "1.." + exp + ", got "
                        + (vs.size() > 20 ? vs.subList(0, 10) + "...(" + vs.size() + " values, last " + vs.get(vs.size() - 1) + ")" : vs));
            }
        }
    }

    private static List<String> union(Map<String, ?> a, Map<String, ?> b) {
        TreeSet<String> s = new TreeSet<>(a.keySet());
        s.addAll(b.keySet());
        return new ArrayList<>(s);
    }
}
