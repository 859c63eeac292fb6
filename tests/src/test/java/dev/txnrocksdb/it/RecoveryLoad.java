package dev.txnrocksdb.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * How the recovery benchmark ({@link E2EBench}, {@code -De2e.recovery.load=app|changelog}) gives a
 * fresh {@link EosCrashApp} ({@code eos-app.topology=kv}: a count by key) its state of N keys before
 * the kills. Both leave the same state, keys {@link #key k0 .. k(N-1)} each counted once, in the same
 * store and changelog partitions; they differ in how long that takes:
 * <ul>
 * <li>{@link #APP}: the N keys are produced to the app's input topic and the app counts them,
 * committing as it goes: the state built as in production, at the app's processing rate (30,000 to
 * 57,000 records/s at 10^6 to 3x10^6 keys on 2 cores, and it may slow down as the state outgrows the
 * block cache);</li>
 * <li>{@link #CHANGELOG}: before the app's first start, the store's changelog topic is created as
 * Streams would create it ({@code <application.id>-<store>-changelog}, compacted, the input's
 * partition count) and N records are produced straight into it, each as the count's changelog
 * record: the key serialized as the count's key serde does (String), the value as its value serde
 * (Long 1; a timestamped store's changelog carries the plain value, the timestamp in the record), in
 * the partition the input's default partitioner gives that key (the same murmur2 of the same bytes
 * over the same partition count: the count has no repartition, so its task for input partition p
 * owns changelog partition p). The app's first start restores them through the store's restore
 * path, at the broker's and the restore's rate.</li>
 * </ul>
 * After either, {@link #probe} checks the state is what it should be: one more record of a sample
 * of keys must bring each of their counts to 2 (a wrong serde, partition or restore would show as
 * 1 or a failed app).
 */
enum RecoveryLoad {
    /** The app processes N input records, one per key. */
    APP,
    /** N changelog records restored by the app's first start. */
    CHANGELOG;

    /** Keys whose counts {@link #probe} checks (fewer if the state is smaller). */
    static final int PROBE_KEYS = 10;

    static RecoveryLoad of(String name) {
        for (RecoveryLoad l : values()) {
            if (l.id().equals(name)) return l;
        }
        throw new IllegalArgumentException("e2e.recovery.load must be app or changelog, not " + name);
    }

    /** The name in {@code e2e.recovery.load} and the JSON. */
    String id() {
        return name().toLowerCase();
    }

    /** What the load does, for the results file. */
    String description() {
        return this == APP
                ? "N distinct keys produced to the app's input topic, counted by the app (committing as it goes)"
                : "N records (key, count 1) produced straight into the store's changelog topic (created before the app's "
                        + "first start, compacted, as Streams names and partitions it), restored by the app's first start";
    }

    /** The state's key number {@code i}: what the load, the trickle and the probe send. */
    static String key(long i) {
        return "k" + i;
    }

    /**
     * Before the app's first start: produces the state's N records, to {@code input} ({@link #APP})
     * or to {@code changelog}, which it creates ({@link #CHANGELOG}). Returns the seconds it took.
     */
    double produce(BrokerFixture kafka, String input, String changelog, int partitions, long n) throws Exception {
        long t = System.nanoTime();
        if (this == APP) {
            produceDistinctKeys(kafka, input, n, new StringSerializer(), "v");
        } else {
            try (Admin admin = kafka.admin()) {
                admin.createTopics(List.of(new NewTopic(changelog, partitions, (short) 1)
                                .configs(
                                        Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT))))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            produceDistinctKeys(kafka, changelog, n, new LongSerializer(), 1L);
        }
        String topic = this == APP ? input : changelog;
        long produced = BrokerFixture.sum(kafka.endOffsets(List.of(topic), partitions));
        if (produced != n) throw new IllegalStateException(topic + " holds " + produced + " records, not " + n);
        return (System.nanoTime() - t) / 1e9;
    }

    /**
     * After the app's first start: waits until it holds the state. {@link #APP}: the app is RUNNING
     * and its group committed the input's end offsets; {@link #CHANGELOG}: the app is RUNNING and its
     * restore listener reported exactly N records restored.
     */
    void awaitLoaded(BrokerFixture kafka, AppProcess app, String appId, String input, int partitions, long n)
            throws Exception {
        if (this == APP) {
            app.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(120));
            kafka.awaitGroupCaughtUp(appId, input, partitions, Duration.ofSeconds(300 + n / 2_000));
            return;
        }
        Duration timeout = Duration.ofSeconds(300 + n / 20_000);
        app.awaitLine(l -> l.equals("RUNNING"), timeout);
        BrokerFixture.await(
                app.name + " to report " + n + " records restored", timeout, () -> app.restoredTotal() >= n);
        if (app.restoredTotal() != n) {
            throw new IllegalStateException(app.name + " restored " + app.restoredTotal() + " records, not the " + n
                    + " produced to its changelog" + app.restoredDetail());
        }
    }

    /**
     * Keys {@code k0 .. k<n-1>}, each once with {@code value}, through a producer tuned for bulk
     * (large batches, lz4); the default partitioner places each key.
     */
    static <V> void produceDistinctKeys(
            BrokerFixture kafka, String topic, long n, Serializer<V> valueSerializer, V value) {
        try (KafkaProducer<String, V> p = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        kafka.bootstrap(),
                        ProducerConfig.LINGER_MS_CONFIG,
                        20,
                        ProducerConfig.BATCH_SIZE_CONFIG,
                        256 * 1024,
                        ProducerConfig.COMPRESSION_TYPE_CONFIG,
                        "lz4"),
                new StringSerializer(),
                valueSerializer)) {
            for (long i = 0; i < n; i++) {
                p.send(new ProducerRecord<>(topic, key(i), value));
            }
            p.flush();
        }
    }

    /**
     * Checks the loaded state of N keys: sends one more record of {@link #PROBE_KEYS} keys spread
     * over the N to {@code input} and expects each key's count on {@code output} (read_committed,
     * from the end offsets before the sends) to be 2. Run before anything else reaches the input.
     */
    static void probe(BrokerFixture kafka, String input, String output, int partitions, long n) throws Exception {
        List<String> keys = new ArrayList<>();
        int probes = (int) Math.min(PROBE_KEYS, n);
        for (int i = 0; i < probes; i++) keys.add(key(i * n / probes));
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<String, Long> counts = new LinkedHashMap<>();
        try (KafkaConsumer<String, Long> consumer =
                        new KafkaConsumer<>(p, new StringDeserializer(), new LongDeserializer());
                KafkaProducer<String, String> producer = kafka.stringProducer()) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) tps.add(new TopicPartition(output, i));
            consumer.assign(tps);
            consumer.seekToEnd(tps);
            tps.forEach(consumer::position); // resolves the end offsets now, before the sends
            for (String k : keys) producer.send(new ProducerRecord<>(input, k, "probe"));
            producer.flush();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!counts.keySet().containsAll(keys)) {
                for (ConsumerRecord<String, Long> r : consumer.poll(Duration.ofMillis(200)))
                    counts.put(r.key(), r.value());
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "state probe: counts of " + keys + " not all on " + output + " within 60 s; got " + counts);
                }
            }
        }
        for (String k : keys) {
            if (counts.get(k) != 2L) {
                throw new IllegalStateException(
                        "state probe: " + k + " counted " + counts.get(k) + " after one more record, "
                                + "not 2: the load did not leave every key counted once (" + counts + ")");
            }
        }
    }
}
