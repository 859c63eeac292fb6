package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.await;
import static dev.txnrocksdb.it.BrokerFixture.say;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.examples.wordcount.KafkaBroker;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A deduplication ({@link TtlDedupApp}: ids remembered for one hour of stream time in a store with
 * a time-to-live) on a real broker under exactly-once, fed {@link #IDS} distinct ids over six
 * simulated hours, each id seen again 30 minutes later (dropped: still remembered) and one in ten
 * again 90 minutes later (forwarded again: forgotten). The app is killed with SIGKILL half-way and
 * at the end. Then:
 * <ul>
 *   <li>the output is exactly the expected deduplicated stream, exactly once;</li>
 *   <li>the changelog ends every id that expired well before the end with a tombstone, so a
 *       compacted changelog holds the live ids and tombstones only;</li>
 *   <li>a new instance with the state directory deleted restores from the changelog and holds
 *       exactly the live ids (interactive queries: no expired id visible, not for one read);</li>
 *   <li>another restores from the snapshots the app took (every partition's restore starts past
 *       offset 0), plus the changelog's tail, with the same result.</li>
 * </ul>
 */
class TtlBrokerTest {
    static final int IDS = Integer.getInteger("it.ttl.ids", 1_000_000);
    static final int PARTITIONS = 2;
    static final long SPAN_MS = Duration.ofHours(6).toMillis();
    static final long STEP_MS = Math.max(1, SPAN_MS / IDS);
    static final long AGAIN_SOON = Duration.ofMinutes(30).toMillis() / STEP_MS;
    static final long AGAIN_LATE = Duration.ofMinutes(90).toMillis() / STEP_MS;
    static final String APP = "ttl-app";
    /**
     * The first record's timestamp: six hours ago, so that every timestamp is recent (the broker's
     * time-based retention deletes the log segments of records stamped in 1970 at once).
     */
    static final long BASE =
            System.currentTimeMillis() - SPAN_MS - Duration.ofMinutes(5).toMillis();

    static BrokerFixture kafka;

    @BeforeAll
    static void startBroker() throws Exception {
        kafka = BrokerFixture.start("ttl");
        kafka.createTopicsWithLeaders(PARTITIONS, List.of(TtlDedupApp.INPUT, TtlDedupApp.OUTPUT));
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (kafka != null) kafka.close();
    }

    /** One input record. */
    record Input(String id, long timestamp) {}

    /** The input, in order: a new id at each step, an id of 30 minutes ago every 10 steps, one of 90 minutes ago every 10 more. */
    static List<Input> input() {
        List<Input> input = new ArrayList<>(IDS + IDS / 5);
        for (long i = 0; i < IDS; i++) {
            long t = BASE + i * STEP_MS;
            input.add(new Input("id-" + i, t));
            if (i % 10 == 0 && i >= AGAIN_SOON) input.add(new Input("id-" + (i - AGAIN_SOON), t));
            if (i % 10 == 5 && i >= AGAIN_LATE) input.add(new Input("id-" + (i - AGAIN_LATE), t));
        }
        return input;
    }

    static int partition(String id) {
        return Utils.toPositive(Utils.murmur2(id.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
    }

    /** What the deduplication must do with {@code input}: per id how often it is forwarded, and its last write time. */
    static final class Model {
        final Map<String, Integer> forwarded = new HashMap<>();
        final Map<String, Long> lastWrite = new HashMap<>();
        /** Per partition: the largest write time (a restored store's time) and the largest timestamp. */
        final long[] maxWrite = new long[PARTITIONS];

        final long[] maxTimestamp = new long[PARTITIONS];

        Model(List<Input> input) {
            long ttl = TtlDedupApp.TTL.toMillis();
            for (Input r : input) {
                int p = partition(r.id());
                maxTimestamp[p] = Math.max(maxTimestamp[p], r.timestamp());
                Long last = lastWrite.get(r.id());
                // the margins (30 and 90 minutes against one hour) make the store's time lag irrelevant
                if (last == null || last <= r.timestamp() - ttl) {
                    forwarded.merge(r.id(), 1, Integer::sum);
                    lastWrite.put(r.id(), r.timestamp());
                    maxWrite[p] = Math.max(maxWrite[p], r.timestamp());
                }
            }
        }

        /** Ids live for a store whose time is {@code time[partition]}. */
        Set<String> liveAt(long[] time) {
            Set<String> live = new HashSet<>();
            lastWrite.forEach((id, t) -> {
                if (t > time[partition(id)] - TtlDedupApp.TTL.toMillis()) live.add(id);
            });
            return live;
        }
    }

    @Test
    void expiredIdsAreGoneFromTheStoreTheChangelogAndEveryRestore() throws Exception {
        List<Input> input = input();
        Model model = new Model(input);
        Path snapshots = Files.createDirectories(kafka.tmp.resolve("snapshots"));
        String snapshotLocation = snapshots.toUri().toString();
        String stateDir = kafka.tmp.resolve("app-state").toString();
        say("ttl: " + input.size() + " records, " + IDS + " ids, step " + STEP_MS + " ms");

        int half = input.size() / 2;
        produce(input.subList(0, half));
        Process app = startApp(stateDir, snapshotLocation);
        kafka.awaitGroupCaughtUp(APP, TtlDedupApp.INPUT, PARTITIONS, Duration.ofMinutes(5));
        produce(input.subList(half, half + (input.size() - half) / 2));
        Thread.sleep(500);
        kill(app);
        app = startApp(stateDir, snapshotLocation);
        produce(input.subList(half + (input.size() - half) / 2, input.size()));
        kafka.awaitGroupCaughtUp(APP, TtlDedupApp.INPUT, PARTITIONS, Duration.ofMinutes(5));
        // a snapshot of the end state, then the last kill
        Thread.sleep(3_000);
        kill(app);

        // the output: exactly the deduplicated stream, exactly once
        Map<String, Integer> output = countPerKey(TtlDedupApp.OUTPUT);
        assertEquals(model.forwarded.size(), output.size(), "ids forwarded");
        List<String> wrong = new ArrayList<>();
        model.forwarded.forEach((id, n) -> {
            if (!n.equals(output.get(id)) && wrong.size() < 10) wrong.add(id + " " + output.get(id) + " != " + n);
        });
        assertTrue(wrong.isEmpty(), "ids forwarded a wrong number of times: " + wrong);

        // the changelog: every id that expired 10 minutes of stream time before the end ends with a tombstone
        Map<String, Boolean> lastIsValue = lastChangelogRecords(APP + "-" + TtlDedupApp.STORE + "-changelog");
        long tenMinutes = Duration.ofMinutes(10).toMillis();
        long ttl = TtlDedupApp.TTL.toMillis();
        int tombstoned = 0;
        List<String> kept = new ArrayList<>();
        for (Map.Entry<String, Long> e : model.lastWrite.entrySet()) {
            boolean longExpired = e.getValue() <= model.maxWrite[partition(e.getKey())] - ttl - tenMinutes;
            Boolean value = lastIsValue.get(e.getKey());
            if (longExpired) {
                if (Boolean.TRUE.equals(value) && kept.size() < 10) kept.add(e.getKey());
                tombstoned++;
            }
        }
        assertTrue(kept.isEmpty(), "expired ids whose last changelog record is not a tombstone: " + kept);
        long values = lastIsValue.values().stream().filter(v -> v).count();
        Set<String> live = model.liveAt(model.maxWrite);
        say("ttl: " + tombstoned + " ids expired long before the end, all tombstoned; " + values
                + " ids end with a value in the changelog, " + live.size() + " live");
        assertTrue(
                values <= live.size() + IDS / 100,
                values + " values left in the changelog for " + live.size() + " live ids");

        // a new host: the state directory deleted, restored from the changelog
        Map<TopicPartition, Long> restoreStarts = new HashMap<>();
        Set<String> restored = restoreAndQuery("restore-changelog", Map.of(), restoreStarts);
        assertEquals(Set.of(0L), Set.copyOf(restoreStarts.values()), "a whole changelog restore");
        assertEquals(live, restored, "restored from the changelog: exactly the live ids");

        // and from the snapshots, plus the changelog's tail
        restoreStarts.clear();
        Set<String> fromSnapshot = restoreAndQuery(
                "restore-snapshot", Map.of(TxnRocksDBConfig.SNAPSHOT_LOCATION_CONFIG, snapshotLocation), restoreStarts);
        assertEquals(PARTITIONS, restoreStarts.size());
        assertTrue(
                restoreStarts.values().stream().allMatch(start -> start > 0),
                "every partition restored a snapshot, then the changelog from past it: " + restoreStarts);
        Set<String> surelyLive = model.liveAt(model.maxTimestamp);
        assertTrue(live.containsAll(fromSnapshot), "restored from a snapshot: an expired id is visible");
        assertTrue(fromSnapshot.containsAll(surelyLive), "restored from a snapshot: a live id is missing");
    }

    private static Process startApp(String stateDir, String snapshotLocation) throws Exception {
        Process p = KafkaBroker.java(
                        List.of("-Xmx512m"),
                        TtlDedupApp.class.getName(),
                        kafka.bootstrap(),
                        stateDir,
                        APP,
                        TxnRocksDBConfig.SNAPSHOT_LOCATION_CONFIG + "=" + snapshotLocation,
                        TxnRocksDBConfig.SNAPSHOT_INTERVAL_MS_CONFIG + "=2000")
                .redirectError(kafka.tmp.resolve("ttl-app.log").toFile())
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.equals("RUNNING")) {}
        if (line == null) {
            kafka.showLogs("ttl-app");
            throw new AssertionError("the app exited before RUNNING");
        }
        Thread drain = new Thread(() -> {
            try {
                while (out.readLine() != null) {}
            } catch (Exception ignored) {
                // the process died
            }
        });
        drain.setDaemon(true);
        drain.start();
        return p;
    }

    private static void kill(Process app) throws Exception {
        app.destroyForcibly();
        assertEquals(AppProcess.SIGKILL_EXIT, app.waitFor(), "killed with SIGKILL");
    }

    private static void produce(List<Input> records) {
        try (KafkaProducer<String, String> producer = kafka.stringProducer()) {
            for (Input r : records) {
                producer.send(new ProducerRecord<>(TtlDedupApp.INPUT, null, r.timestamp(), r.id(), "x"));
            }
        }
    }

    /** Per key, how many committed records a String-keyed topic has. */
    private static Map<String, Integer> countPerKey(String topic) {
        Map<String, Integer> counts = new HashMap<>();
        consume(topic, r -> counts.merge(r.key(), 1, Integer::sum));
        return counts;
    }

    /** Per key of a changelog, whether its last committed record is a value (false: a tombstone). */
    private static Map<String, Boolean> lastChangelogRecords(String topic) {
        Map<String, Boolean> last = new HashMap<>();
        consume(topic, r -> last.put(r.key(), r.value() != null));
        return last;
    }

    private static void consume(String topic, java.util.function.Consumer<ConsumerRecord<String, byte[]>> each) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        try (KafkaConsumer<String, byte[]> c =
                new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) tps.add(new TopicPartition(topic, i));
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) each.accept(r);
                if (System.nanoTime() > deadline)
                    throw new AssertionError(topic + ": not read to its end in 3 minutes");
            }
        }
    }

    /**
     * Starts the app in this JVM on an empty state directory (so it restores), waits until every
     * store is restored, and returns the ids its stores hold (IQv1, every partition).
     */
    private static Set<String> restoreAndQuery(
            String name, Map<String, Object> overrides, Map<TopicPartition, Long> restoreStarts) throws Exception {
        Path dir = kafka.tmp.resolve(name);
        Properties p = TtlDedupApp.config(kafka.bootstrap(), dir.toString(), APP);
        p.putAll(overrides);
        long start = System.nanoTime();
        try (KafkaStreams streams = new KafkaStreams(TtlDedupApp.topology(new AtomicLong()), p)) {
            streams.setGlobalStateRestoreListener(new StateRestoreListener() {
                @Override
                public void onRestoreStart(TopicPartition tp, String store, long start, long end) {
                    synchronized (restoreStarts) {
                        restoreStarts.put(tp, start);
                    }
                }

                @Override
                public void onBatchRestored(TopicPartition tp, String store, long batchEnd, long restored) {}

                @Override
                public void onRestoreEnd(TopicPartition tp, String store, long restored) {}
            });
            streams.start();
            await(name + " RUNNING", Duration.ofMinutes(3), () -> streams.state() == KafkaStreams.State.RUNNING);
            Set<String> ids = new TreeSet<>();
            // a store being restored is not queryable yet (InvalidStateStoreException): retry until it is
            await(name + " queryable", Duration.ofMinutes(3), () -> {
                ids.clear();
                try {
                    ReadOnlyKeyValueStore<String, Long> store = streams.store(StoreQueryParameters.fromNameAndType(
                            TtlDedupApp.STORE, QueryableStoreTypes.<String, Long>keyValueStore()));
                    try (KeyValueIterator<String, Long> all = store.all()) {
                        while (all.hasNext()) {
                            KeyValue<String, Long> kv = all.next();
                            ids.add(kv.key);
                        }
                    }
                    return true;
                } catch (InvalidStateStoreException restoring) {
                    return false;
                }
            });
            say("ttl: " + name + " in " + BrokerFixture.ms(start) + " ms: " + ids.size() + " ids");
            streams.close(Duration.ofSeconds(30));
            return ids;
        } finally {
            KafkaBroker.deleteRecursively(dir);
        }
    }
}
