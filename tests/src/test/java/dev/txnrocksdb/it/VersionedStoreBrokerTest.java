package dev.txnrocksdb.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.txnrocksdb.streams.TxnStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.query.MultiVersionedKeyQuery;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.StateQueryResult;
import org.apache.kafka.streams.query.VersionedKeyQuery;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.state.VersionedRecordIterator;
import org.junit.jupiter.api.Test;

/**
 * Our transactional versioned key-value store as the store of a versioned table in an exactly-once app
 * on a real KRaft broker: table updates arrive out of order (timestamps going back and forth within the
 * history retention, a tombstone, two updates that replace a version at the same timestamp); a
 * stream-table join on that table joins each stream record with the table version valid at the stream
 * record's timestamp; IQv2's {@code VersionedKeyQuery} (latest and as of a time) and
 * {@code MultiVersionedKeyQuery} (ascending, descending, a partial time range) return the versions a
 * versioned table must hold, with their validTo; and after the app's state directory is deleted, the
 * store is restored from its changelog ({@code <app>-versioned-changelog}, created as Kafka creates it
 * for its own versioned stores) and returns the same versions, and joins new stream records against the
 * restored history.
 */
class VersionedStoreBrokerTest {
    private static final String APP = "versioned-it";
    private static final String TABLE = "table-topic";
    private static final String STREAM = "stream-topic";
    private static final String OUTPUT = "join-output";
    private static final String STORE = "versioned";
    private static final String CHANGELOG = APP + "-" + STORE + "-changelog";
    private static final int PARTITIONS = 2;
    private static final Duration HISTORY = Duration.ofMinutes(10);
    private static final Duration SEGMENT = Duration.ofMinutes(1);
    /** Event time of the earliest table update: recent, on a minute boundary; all updates fall within 5 minutes after. */
    private static final long T = System.currentTimeMillis() / 60_000 * 60_000
            - Duration.ofMinutes(15).toMillis();

    private static final List<String> TABLE_KEYS = List.of("k0", "k1", "k2", "k3", "k4", "k5");
    /** Stream keys: the table's, plus one the table never has. */
    private static final List<String> STREAM_KEYS = List.of("k0", "k1", "k2", "k3", "k4", "k5", "k6");

    /** A table update ({@code value} null: a tombstone) or a stream record, at event time {@code ts}. */
    private static final ObjectMapper JSON = new ObjectMapper();

    private record Rec(String key, String value, long ts) {}

    /** A version of a key: valid from {@code from} (inclusive) to {@code to} (exclusive; null: the latest). */
    private record Version(String value, long from, Long to) {
        boolean validAt(long t) {
            return from <= t && (to == null || t < to);
        }

        boolean overlaps(long fromTime, long toTime) {
            return from <= toTime && (to == null || to > fromTime);
        }
    }

    private static Topology topology() {
        StreamsBuilder builder = new StreamsBuilder();
        KTable<String, String> table = builder.table(
                TABLE,
                Materialized.<String, String>as(TxnStores.persistentVersionedKeyValueStore(STORE, HISTORY, SEGMENT))
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.String()));
        builder.stream(STREAM, Consumed.with(Serdes.String(), Serdes.String()))
                .join(table, (streamValue, tableValue) -> streamValue + "+" + tableValue)
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    @Test
    void versionedTableJoinsQueriesAndRestoresFromTheChangelog() throws Exception {
        long start = System.nanoTime();
        Random random = new Random(889);
        List<Rec> updates = tableUpdates(random);
        List<Rec> streamBatch1 = streamRecords(random, updates);
        BrokerFixture.say("versioned: " + updates.size() + " table updates " + render(updates));

        try (BrokerFixture kafka = BrokerFixture.start("versioned")) {
            kafka.createTopics(PARTITIONS, TABLE, STREAM, OUTPUT);
            Map<String, Object> overrides = Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);

            // the table first, all of it, out of order; only then the stream records, so that each one is
            // joined against the complete history (the expectation does not depend on processing order)
            produce(kafka, updates, TABLE);
            Map<String, String> expectedQueries = expectedQueries(updates);
            Map<String, List<Long>> probes = new TreeMap<>();
            for (String key : STREAM_KEYS) probes.put(key, asOfTimes(updates, key));
            KafkaStreams streams = startApp(kafka, overrides, new ConcurrentHashMap<>());
            Map<TopicPartition, Long> changelogRecords;
            try {
                kafka.awaitGroupCaughtUp(APP, TABLE, PARTITIONS, Duration.ofSeconds(30));
                awaitEquals(
                        "IQv2 versions (READ_UNCOMMITTED)",
                        Duration.ofSeconds(20),
                        expectedQueries,
                        () -> queried(streams, IsolationLevel.READ_UNCOMMITTED, probes));
                awaitEquals(
                        "IQv2 versions (READ_COMMITTED)",
                        Duration.ofSeconds(20),
                        expectedQueries,
                        () -> queried(streams, IsolationLevel.READ_COMMITTED, probes));
                BrokerFixture.say("versioned: " + expectedQueries.size() + " IQv2 queries answered as expected at "
                        + BrokerFixture.ms(start) + " ms");

                produce(kafka, streamBatch1, STREAM);
                kafka.awaitGroupCaughtUp(APP, STREAM, PARTITIONS, Duration.ofSeconds(30));
                Map<String, List<String>> expectedJoin = expectedJoin(updates, streamBatch1);
                int expectedCount =
                        expectedJoin.values().stream().mapToInt(List::size).sum();
                assertTrue(
                        expectedCount > 40 && expectedCount < streamBatch1.size(),
                        "the test joins some stream records and not others: " + expectedCount + " of "
                                + streamBatch1.size());
                assertEquals(
                        expectedJoin,
                        byKey(readCommitted(kafka, OUTPUT, expectedCount, true)),
                        "join output: each stream record joined with the table version valid at its timestamp");
                BrokerFixture.say("versioned: " + expectedCount + " of " + streamBatch1.size()
                        + " stream records joined as expected at " + BrokerFixture.ms(start) + " ms");

                changelogRecords = assertChangelog(kafka, updates);
            } finally {
                closeLeavingGroup(streams);
            }
            toolReadsTheStores(kafka.tmp.resolve(APP + "-state"), updates);

            // the state directory is lost: the store is rebuilt from its changelog topic on the broker
            streams.cleanUp();
            Path state = kafka.tmp.resolve(APP + "-state");
            try (Stream<Path> files = Files.walk(state)) {
                assertFalse(files.anyMatch(p -> p.getFileName().toString().equals(STORE)), "store directories deleted");
            }
            Map<TopicPartition, Long> restored = new ConcurrentHashMap<>();
            KafkaStreams restarted = startApp(kafka, overrides, restored);
            try {
                awaitEquals(
                        "IQv2 versions restored from the changelog (READ_UNCOMMITTED)",
                        Duration.ofSeconds(30),
                        expectedQueries,
                        () -> queried(restarted, IsolationLevel.READ_UNCOMMITTED, probes));
                awaitEquals(
                        "IQv2 versions restored from the changelog (READ_COMMITTED)",
                        Duration.ofSeconds(20),
                        expectedQueries,
                        () -> queried(restarted, IsolationLevel.READ_COMMITTED, probes));
                assertEquals(changelogRecords, restored, "records restored per changelog partition");
                BrokerFixture.say("versioned: restored " + restored + " from " + CHANGELOG
                        + "; IQv2 answered as before at " + BrokerFixture.ms(start) + " ms");

                // new stream records join against the restored history (as-of lookups into its segments)
                List<Rec> streamBatch2 = streamRecords(new Random(914), updates).subList(0, 60);
                List<Rec> renamed = new ArrayList<>();
                for (Rec r : streamBatch2) renamed.add(new Rec(r.key(), "after-restore-" + r.value(), r.ts()));
                produce(kafka, renamed, STREAM);
                kafka.awaitGroupCaughtUp(APP, STREAM, PARTITIONS, Duration.ofSeconds(30));
                List<Rec> allStream = new ArrayList<>(streamBatch1);
                allStream.addAll(renamed);
                Map<String, List<String>> expectedJoin = expectedJoin(updates, allStream);
                int expectedCount =
                        expectedJoin.values().stream().mapToInt(List::size).sum();
                assertEquals(
                        expectedJoin,
                        byKey(readCommitted(kafka, OUTPUT, expectedCount, true)),
                        "join output after the restore: earlier results once, new ones against the restored versions");
                BrokerFixture.say(
                        "versioned: joined after the restore as expected at " + BrokerFixture.ms(start) + " ms");
            } finally {
                closeLeavingGroup(restarted);
                restarted.cleanUp();
            }
        }
        BrokerFixture.say("versioned: done in " + BrokerFixture.ms(start) + " ms");
    }

    // ---------------------------------------------------------------- the data and what it must give

    /**
     * For every table key, 8 to 12 versions at distinct times within T..T+5min in shuffled order (about one
     * in five a tombstone; k3's newest update is a tombstone), interleaved across keys; then two updates
     * that replace a version at the same timestamp: one in k0's history, k1's latest.
     */
    private static List<Rec> tableUpdates(Random random) {
        Map<String, List<Rec>> perKey = new TreeMap<>();
        Map<String, Long> newest = new HashMap<>();
        Map<String, Long> middle = new HashMap<>();
        for (String key : TABLE_KEYS) {
            TreeSet<Long> times = new TreeSet<>();
            int n = 8 + random.nextInt(5);
            while (times.size() < n) times.add(T + random.nextInt(300) * 1000L + random.nextInt(1000));
            List<Long> ordered = new ArrayList<>(times);
            newest.put(key, ordered.get(ordered.size() - 1));
            middle.put(key, ordered.get(ordered.size() / 2));
            Collections.shuffle(ordered, random);
            List<Rec> recs = new ArrayList<>();
            for (int i = 0; i < ordered.size(); i++) {
                long ts = ordered.get(i);
                boolean tombstone = random.nextInt(5) == 0;
                if (key.equals("k3") && ts == newest.get(key)) tombstone = true;
                if (key.equals("k1") && ts == newest.get(key)) tombstone = false;
                if (key.equals("k0") && ts == middle.get(key)) tombstone = false;
                recs.add(new Rec(key, tombstone ? null : key + "-v" + i, ts));
            }
            perKey.put(key, recs);
        }
        List<Rec> out = new ArrayList<>();
        List<String> pending = new ArrayList<>(perKey.keySet());
        while (!pending.isEmpty()) {
            String key = pending.get(random.nextInt(pending.size()));
            out.add(perKey.get(key).remove(0));
            if (perKey.get(key).isEmpty()) pending.remove(key);
        }
        out.add(new Rec("k0", "k0-replaced", middle.get("k0")));
        out.add(new Rec("k1", "k1-replaced", newest.get("k1")));
        return out;
    }

    /**
     * Stream records, shuffled: for every key, one before its first version, and around each version
     * time t (t - 1, t, halfway to the next one), and one after its newest; the key without a table a few.
     */
    private static List<Rec> streamRecords(Random random, List<Rec> updates) {
        List<Rec> out = new ArrayList<>();
        for (String key : STREAM_KEYS) {
            List<Long> times = new ArrayList<>(distinctTimes(updates, key));
            List<Long> probes = new ArrayList<>();
            if (times.isEmpty()) {
                for (int i = 0; i < 4; i++) probes.add(T + random.nextInt(300_000));
            } else {
                probes.add(T - 20_000);
                for (int i = 0; i < times.size(); i++) {
                    long t = times.get(i);
                    probes.add(t - 1);
                    probes.add(t);
                    probes.add(i + 1 < times.size() ? (t + times.get(i + 1)) / 2 : t + 30_000);
                }
            }
            for (long ts : probes) out.add(new Rec(key, null, ts));
        }
        Collections.shuffle(out, random);
        List<Rec> named = new ArrayList<>();
        for (int i = 0; i < out.size(); i++)
            named.add(new Rec(out.get(i).key(), "s" + i, out.get(i).ts()));
        return named;
    }

    private static TreeSet<Long> distinctTimes(List<Rec> updates, String key) {
        TreeSet<Long> times = new TreeSet<>();
        for (Rec u : updates) if (u.key().equals(key)) times.add(u.ts());
        return times;
    }

    /**
     * The versions of {@code key} a versioned table holds after {@code updates}: at each timestamp the last
     * update written there; each valid until the next timestamp (a tombstone ends a version and is none).
     */
    private static List<Version> versions(List<Rec> updates, String key) {
        TreeMap<Long, Optional<String>> byTime = new TreeMap<>();
        for (Rec u : updates) if (u.key().equals(key)) byTime.put(u.ts(), Optional.ofNullable(u.value()));
        List<Map.Entry<Long, Optional<String>>> entries = new ArrayList<>(byTime.entrySet());
        List<Version> out = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Optional<String> value = entries.get(i).getValue();
            if (value.isPresent()) {
                Long to = i + 1 < entries.size() ? entries.get(i + 1).getKey() : null;
                out.add(new Version(value.get(), entries.get(i).getKey(), to));
            }
        }
        return out;
    }

    private static Version versionAt(List<Version> versions, long t) {
        for (Version v : versions) if (v.validAt(t)) return v;
        return null;
    }

    /** key -> "streamValue+tableValue@ts" for every stream record that joins, in the order produced. */
    private static Map<String, List<String>> expectedJoin(List<Rec> updates, List<Rec> stream) {
        Map<String, List<String>> out = new TreeMap<>();
        for (Rec s : stream) {
            Version v = versionAt(versions(updates, s.key()), s.ts());
            if (v != null)
                out.computeIfAbsent(s.key(), k -> new ArrayList<>())
                        .add(s.value() + "+" + v.value() + "@" + rel(s.ts()));
        }
        return out;
    }

    /** The probe times of a key's as-of queries: before everything, and t - 1, t, t + 1 around each update time. */
    private static List<Long> asOfTimes(List<Rec> updates, String key) {
        List<Long> out = new ArrayList<>(List.of(T - 60_000L));
        for (long t : distinctTimes(updates, key)) {
            out.add(t - 1);
            out.add(t);
            out.add(t + 1);
        }
        out.add(T + 400_000L);
        return out;
    }

    private static final long PARTIAL_FROM = T + 100_000;
    private static final long PARTIAL_TO = T + 200_000;

    /** query description -> rendered answer, for every query {@link #queried} makes. */
    /**
     * The operators' tool ({@link ToolTest}) on the state directory the application left: {@code
     * inspect} names each partition's store a versioned store, and {@code dump} gives each key's
     * latest value with its valid-from, exactly the table's latest versions (a key whose latest
     * version is a tombstone has none).
     */
    private static void toolReadsTheStores(Path state, List<Rec> updates) throws Exception {
        String jar = System.getProperty("it.tool.jar");
        assertTrue(jar != null, "it.tool.jar: the tool's jar (tests/pom.xml sets it)");
        Path tool = Path.of(jar);
        ToolTest.Run inspect = ToolTest.run(tool, List.of("--json", "inspect", state.toString()));
        assertEquals(0, inspect.exit(), inspect.toString());
        Map<String, String> dumped = new TreeMap<>();
        int stores = 0;
        for (JsonNode s : JSON.readTree(inspect.out()).path("stores")) {
            if (!s.path("store").asText().equals(STORE)) continue;
            stores++;
            assertEquals("versioned", s.path("kind").asText(), s.toString());
            ToolTest.Run dump =
                    ToolTest.run(tool, List.of("--json", "dump", s.path("path").asText(), "--limit", "100000"));
            assertEquals(0, dump.exit(), dump.toString());
            for (JsonNode e : JSON.readTree(dump.out()).path("entries")) {
                dumped.put(
                        e.path("key").path("utf8").asText(),
                        e.path("value").path("utf8").asText() + "@"
                                + e.path("validFrom").asLong());
            }
        }
        assertEquals(PARTITIONS, stores, "a versioned store per partition: " + inspect);
        Map<String, String> latest = new TreeMap<>();
        for (String key : new TreeSet<>(updates.stream().map(Rec::key).toList())) {
            List<Version> versions = versions(updates, key);
            Version last = versions.isEmpty() ? null : versions.get(versions.size() - 1);
            if (last != null && last.to() == null) latest.put(key, last.value() + "@" + last.from());
        }
        assertEquals(latest, dumped, "the tool's dump: each key's latest version");
        BrokerFixture.say("versioned: the tool found " + stores + " versioned stores and dumped the " + latest.size()
                + " latest versions");
    }

    private static Map<String, String> expectedQueries(List<Rec> updates) {
        Map<String, String> out = new TreeMap<>();
        for (String key : STREAM_KEYS) {
            List<Version> versions = versions(updates, key);
            Version last = versions.isEmpty() ? null : versions.get(versions.size() - 1);
            out.put(key + " latest", render(last != null && last.to() == null ? last : null));
            for (long t : asOfTimes(updates, key)) out.put(key + " asOf " + rel(t), render(versionAt(versions, t)));
            out.put(key + " all", renderAll(versions));
            out.put(key + " ascending", renderAll(versions));
            List<Version> descending = new ArrayList<>(versions);
            Collections.reverse(descending);
            out.put(key + " descending", renderAll(descending));
            out.put(
                    key + " partial",
                    renderAll(versions.stream()
                            .filter(v -> v.overlaps(PARTIAL_FROM, PARTIAL_TO))
                            .toList()));
        }
        return out;
    }

    // ---------------------------------------------------------------- IQv2

    /**
     * The answers of the store's IQv2 queries, described as in {@link #expectedQueries}: for every key, the
     * latest version, the version as of each of its probe times, and its versions in a time range.
     */
    private static Map<String, String> queried(
            KafkaStreams streams, IsolationLevel isolation, Map<String, List<Long>> probes) {
        Map<String, String> out = new TreeMap<>();
        for (String key : STREAM_KEYS) {
            out.put(key + " latest", versioned(streams, isolation, VersionedKeyQuery.<String, String>withKey(key)));
            for (long t : probes.get(key)) {
                out.put(
                        key + " asOf " + rel(t),
                        versioned(
                                streams,
                                isolation,
                                VersionedKeyQuery.<String, String>withKey(key).asOf(Instant.ofEpochMilli(t))));
            }
            Map<String, MultiVersionedKeyQuery<String, String>> multi = new TreeMap<>();
            multi.put("all", MultiVersionedKeyQuery.<String, String>withKey(key).withAscendingTimestamps());
            multi.put(
                    "ascending",
                    MultiVersionedKeyQuery.<String, String>withKey(key)
                            .fromTime(Instant.ofEpochMilli(T - 3_600_000L))
                            .toTime(Instant.ofEpochMilli(T + 3_600_000L))
                            .withAscendingTimestamps());
            multi.put(
                    "descending",
                    MultiVersionedKeyQuery.<String, String>withKey(key)
                            .fromTime(Instant.ofEpochMilli(T - 3_600_000L))
                            .toTime(Instant.ofEpochMilli(T + 3_600_000L))
                            .withDescendingTimestamps());
            multi.put(
                    "partial",
                    MultiVersionedKeyQuery.<String, String>withKey(key)
                            .fromTime(Instant.ofEpochMilli(PARTIAL_FROM))
                            .toTime(Instant.ofEpochMilli(PARTIAL_TO))
                            .withAscendingTimestamps());
            for (Map.Entry<String, MultiVersionedKeyQuery<String, String>> q : multi.entrySet()) {
                out.put(key + " " + q.getKey(), multiVersioned(streams, isolation, q.getValue()));
            }
        }
        return out;
    }

    /** The rendered version a key query returns (over every partition: at most one may have it), or why it did not answer. */
    private static String versioned(
            KafkaStreams streams, IsolationLevel isolation, VersionedKeyQuery<String, String> query) {
        StateQueryResult<VersionedRecord<String>> result =
                streams.query(StateQueryRequest.inStore(STORE).withQuery(query).withIsolationLevel(isolation));
        Map<Integer, QueryResult<VersionedRecord<String>>> partitions = result.getPartitionResults();
        if (partitions.size() != PARTITIONS) return "answered by partitions " + partitions.keySet();
        List<VersionedRecord<String>> found = new ArrayList<>();
        for (QueryResult<VersionedRecord<String>> r : partitions.values()) {
            if (!r.isSuccess()) return "failed: " + r.getFailureReason() + " " + r.getFailureMessage();
            if (r.getResult() != null) found.add(r.getResult());
        }
        if (found.size() > 1) return "in " + found.size() + " partitions: " + found;
        return found.isEmpty() ? "none" : render(found.get(0));
    }

    /** The rendered versions a multi-versioned query returns (over every partition: at most one may have some), or why not. */
    private static String multiVersioned(
            KafkaStreams streams, IsolationLevel isolation, MultiVersionedKeyQuery<String, String> query) {
        StateQueryResult<VersionedRecordIterator<String>> result =
                streams.query(StateQueryRequest.inStore(STORE).withQuery(query).withIsolationLevel(isolation));
        Map<Integer, QueryResult<VersionedRecordIterator<String>>> partitions = result.getPartitionResults();
        List<String> found = new ArrayList<>();
        int nonEmpty = 0;
        if (partitions.size() != PARTITIONS) return "answered by partitions " + partitions.keySet();
        for (QueryResult<VersionedRecordIterator<String>> r : partitions.values()) {
            if (!r.isSuccess()) return "failed: " + r.getFailureReason() + " " + r.getFailureMessage();
            try (VersionedRecordIterator<String> it = r.getResult()) {
                boolean any = false;
                while (it.hasNext()) {
                    found.add(render(it.next()));
                    any = true;
                }
                if (any) nonEmpty++;
            }
        }
        return (nonEmpty > 1 ? "in " + nonEmpty + " partitions: " : "") + "[" + String.join(", ", found) + "]";
    }

    private static String render(VersionedRecord<String> r) {
        return r.value() + "@" + rel(r.timestamp()) + ".."
                + r.validTo().map(VersionedStoreBrokerTest::rel).orElse("");
    }

    private static String render(Version v) {
        return v == null ? "none" : v.value() + "@" + rel(v.from()) + ".." + (v.to() == null ? "" : rel(v.to()));
    }

    private static String renderAll(List<Version> versions) {
        List<String> out = new ArrayList<>();
        for (Version v : versions) out.add(render(v));
        return "[" + String.join(", ", out) + "]";
    }

    private static String render(List<Rec> recs) {
        List<String> out = new ArrayList<>();
        for (Rec r : recs) out.add(r.key() + "=" + r.value() + "@" + rel(r.ts()));
        return String.join(" ", out);
    }

    /** A timestamp relative to T, readable in a failure's diff. */
    private static String rel(long ts) {
        return "T" + (ts >= T ? "+" : "") + (ts - T);
    }

    // ---------------------------------------------------------------- Kafka helpers

    /** The app, with a restore listener that adds up the records restored into the store per changelog partition. */
    private static KafkaStreams startApp(
            BrokerFixture kafka, Map<String, Object> overrides, Map<TopicPartition, Long> restored) throws Exception {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        p.put(
                StreamsConfig.STATE_DIR_CONFIG,
                Files.createDirectories(kafka.tmp.resolve(APP + "-state")).toString());
        p.putAll(overrides);
        KafkaStreams streams = new KafkaStreams(topology(), p);
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(
                    TopicPartition partition, String storeName, long startingOffset, long endingOffset) {}

            @Override
            public void onBatchRestored(
                    TopicPartition partition, String storeName, long batchEndOffset, long numRestored) {}

            @Override
            public void onRestoreEnd(TopicPartition partition, String storeName, long totalRestored) {
                if (storeName.equals(STORE)) restored.merge(partition, totalRestored, Long::sum);
            }
        });
        long t = System.nanoTime();
        streams.start();
        BrokerFixture.await(
                APP + " RUNNING", Duration.ofSeconds(60), () -> streams.state() == KafkaStreams.State.RUNNING);
        BrokerFixture.say("versioned: app RUNNING in " + BrokerFixture.ms(t) + " ms");
        return streams;
    }

    /** Closes the app and leaves the group, so that the restarted one need not wait for its session to expire. */
    private static void closeLeavingGroup(KafkaStreams streams) {
        assertTrue(
                streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                        .withTimeout(Duration.ofSeconds(30))),
                "closed in time");
    }

    /** Sends the records in order (one producer, key-partitioned like the topics' other side) and waits for every ack. */
    private static void produce(BrokerFixture kafka, List<Rec> recs, String topic) throws Exception {
        try (KafkaProducer<String, String> producer = kafka.stringProducer()) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (Rec r : recs) sent.add(producer.send(new ProducerRecord<>(topic, null, r.ts(), r.key(), r.value())));
            producer.flush();
            for (Future<RecordMetadata> f : sent) f.get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * The committed records of a String/String topic, every partition in offset order, once at least
     * {@code atLeast} arrived and the consumer reached the last stable offset; then, if {@code linger},
     * a second more (duplicates committed late would show up).
     */
    private static List<ConsumerRecord<String, String>> readCommitted(
            BrokerFixture kafka, String topic, int atLeast, boolean linger) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) tps.add(new TopicPartition(topic, i));
            c.assign(tps);
            c.seekToBeginning(tps);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (true) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
                if (out.size() >= atLeast) {
                    Map<TopicPartition, Long> end = c.endOffsets(tps); // the last stable offsets under read_committed
                    boolean atEnd = true;
                    for (TopicPartition tp : tps) atEnd &= c.position(tp) >= end.get(tp);
                    if (atEnd) break;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(topic + ": only " + out.size() + " of " + atLeast
                            + " records committed in 30 s: "
                            + out.stream().map(r -> r.key() + "=" + r.value()).toList());
                }
            }
            if (linger) {
                long extra = System.nanoTime() + Duration.ofSeconds(1).toNanos();
                while (System.nanoTime() < extra) c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    /** key -> "value@ts" in offset order (a key's records are all in one partition). */
    private static Map<String, List<String>> byKey(List<ConsumerRecord<String, String>> records) {
        Map<String, List<String>> out = new TreeMap<>();
        for (ConsumerRecord<String, String> r : records) {
            out.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value() + "@" + rel(r.timestamp()));
        }
        return out;
    }

    /**
     * The changelog topic exists, is configured as Kafka configures a versioned store's (compacted, with a
     * compaction lag of the history retention plus a day), and holds every table update in order, each at
     * its timestamp: what a restore replays.
     *
     * @return the number of records in each changelog partition that has some
     */
    private static Map<TopicPartition, Long> assertChangelog(BrokerFixture kafka, List<Rec> updates) throws Exception {
        try (Admin admin = kafka.admin()) {
            assertTrue(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(CHANGELOG), CHANGELOG + " exists");
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, CHANGELOG);
            Config config = admin.describeConfigs(List.of(resource))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get(resource);
            assertEquals("compact", config.get("cleanup.policy").value(), CHANGELOG + " cleanup.policy");
            assertEquals(
                    String.valueOf(HISTORY.toMillis() + Duration.ofDays(1).toMillis()),
                    config.get("min.compaction.lag.ms").value(),
                    CHANGELOG + " min.compaction.lag.ms");
        }
        Map<String, List<String>> expected = new TreeMap<>();
        for (Rec u : updates)
            expected.computeIfAbsent(u.key(), k -> new ArrayList<>()).add(u.value() + "@" + rel(u.ts()));
        List<ConsumerRecord<String, String>> records = readCommitted(kafka, CHANGELOG, updates.size(), false);
        assertEquals(expected, byKey(records), CHANGELOG + ": every table update, in order, at its timestamp");
        Map<TopicPartition, Long> perPartition = new HashMap<>();
        for (ConsumerRecord<String, String> r : records)
            perPartition.merge(new TopicPartition(r.topic(), r.partition()), 1L, Long::sum);
        return perPartition;
    }

    /** Polls {@code actual} every 100 ms until it equals {@code expected}; on timeout fails showing the last difference. */
    private static <T> void awaitEquals(String what, Duration timeout, T expected, Supplier<T> actual)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        AtomicLong polls = new AtomicLong();
        while (true) {
            T last = actual.get();
            polls.incrementAndGet();
            if (expected.equals(last)) return;
            if (System.nanoTime() > deadline) {
                assertEquals(expected, last, what + ": still different after " + timeout + " (" + polls + " polls)");
                return;
            }
            Thread.sleep(100);
        }
    }
}
