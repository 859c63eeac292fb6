package dev.txnrocksdb.it;

import dev.txnrocksdb.examples.wordcount.KafkaBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;

/**
 * One real KRaft broker per test class (the demo's {@link KafkaBroker}, in its own JVM) in a temp
 * directory, plus the Kafka client helpers the integration tests share: topics, end offsets,
 * group progress and reading an output topic with {@code read_committed}.
 */
final class BrokerFixture implements AutoCloseable {

    final Path tmp;
    final KafkaBroker broker;

    private BrokerFixture(Path tmp, KafkaBroker broker) {
        this.tmp = tmp;
        this.broker = broker;
    }

    static BrokerFixture start(String name) throws Exception {
        Path tmp = Files.createTempDirectory("txn-rocksdb-it-" + name + "-");
        KafkaBroker broker = new KafkaBroker(tmp);
        long t = System.nanoTime();
        broker.start(Duration.ofSeconds(90));
        say("broker up at " + broker.bootstrapServers() + " in " + ms(t) + " ms (dir " + tmp + ")");
        return new BrokerFixture(tmp, broker);
    }

    String bootstrap() {
        return broker.bootstrapServers();
    }

    Admin admin() {
        return broker.admin();
    }

    void createTopics(int partitions, String... names) throws Exception {
        List<NewTopic> topics = new ArrayList<>();
        for (String t : names) topics.add(new NewTopic(t, partitions, (short) 1));
        try (Admin admin = admin()) {
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Creates the topics and waits until each partition has a leader, so that nothing is produced
     * before (an idempotent producer racing a topic's first leader election can retry forever).
     */
    void createTopicsWithLeaders(int partitions, List<String> names) throws Exception {
        createTopics(partitions, names.toArray(String[]::new));
        try (Admin admin = admin()) {
            await("a leader for every partition", Duration.ofSeconds(60), () -> {
                try {
                    return admin.describeTopics(names).allTopicNames().get().values().stream()
                            .allMatch(d -> d.partitions().stream()
                                    .allMatch(p ->
                                            p.leader() != null && !p.leader().isEmpty()));
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    /** A String/String producer (defaults: idempotent, acks=all). */
    KafkaProducer<String, String> stringProducer() {
        return stringProducer(Map.of());
    }

    /** A producer of string keys and values, with {@code overrides} on top of the defaults. */
    KafkaProducer<String, String> stringProducer(Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class));
        config.putAll(overrides);
        return new KafkaProducer<>(config);
    }

    /**
     * Starts a Streams app in this JVM under exactly-once with {@code enable.transactional.statestores=true}
     * and the state directory {@code <tmp>/<appId>-state}, plus {@code overrides}; returns once it is RUNNING.
     */
    KafkaStreams startEosApp(String appId, Topology topology, Map<String, Object> overrides) throws Exception {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        p.put(
                StreamsConfig.STATE_DIR_CONFIG,
                Files.createDirectories(tmp.resolve(appId + "-state")).toString());
        p.putAll(overrides);
        KafkaStreams streams = new KafkaStreams(topology, p);
        streams.start();
        await(appId + " RUNNING", Duration.ofSeconds(60), () -> streams.state() == KafkaStreams.State.RUNNING);
        return streams;
    }

    /** Log end offsets of every partition {@code 0..partitions-1} of the topics. */
    Map<TopicPartition, Long> endOffsets(List<String> topics, int partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> q = new HashMap<>();
        for (String t : topics) {
            for (int i = 0; i < partitions; i++) q.put(new TopicPartition(t, i), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> r = new HashMap<>();
        try (Admin admin = admin()) {
            admin.listOffsets(q).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> r.put(tp, info.offset()));
        }
        return r;
    }

    /**
     * Last stable offsets (what a read_committed consumer can read up to) of every partition
     * {@code 0..partitions-1} of the topics: below the log end offset while a transaction on it is open.
     */
    Map<TopicPartition, Long> stableOffsets(Admin admin, List<String> topics, int partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> q = new HashMap<>();
        for (String t : topics) {
            for (int i = 0; i < partitions; i++) q.put(new TopicPartition(t, i), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> r = new HashMap<>();
        admin.listOffsets(q, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .all()
                .get(30, TimeUnit.SECONDS)
                .forEach((tp, info) -> r.put(tp, info.offset()));
        return r;
    }

    static long sum(Map<TopicPartition, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Waits until consumer group {@code group} has committed the end offset of every partition of {@code topic}. */
    void awaitGroupCaughtUp(String group, String topic, int partitions, Duration timeout) throws Exception {
        Map<TopicPartition, Long> ends = endOffsets(List.of(topic), partitions);
        // one admin client for the whole wait: polling every 100 ms, a new one per poll costs CPU the app could use
        try (Admin admin = admin()) {
            await("group " + group + " to commit " + ends, timeout, () -> {
                try {
                    Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata()
                            .get(10, TimeUnit.SECONDS);
                    for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
                        OffsetAndMetadata o = committed.get(e.getKey());
                        if (o == null || o.offset() < e.getValue()) return false;
                    }
                    return true;
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    /**
     * All committed records of a String/Long topic, per key in offset order (values may be null =
     * tombstone), after at least {@code atLeast} arrived and the consumer reached the last stable offset.
     */
    Map<String, List<Long>> readCommitted(String topic, int partitions, int atLeast, Duration timeout) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        Map<String, List<Long>> out = new HashMap<>();
        int n = 0;
        try (KafkaConsumer<String, Long> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) tps.add(new TopicPartition(topic, i));
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
                    // where each partition stands: read up to (position), readable up to (the last
                    // stable offset: an open transaction holds it back), written up to (log end)
                    Map<TopicPartition, Long> stable = c.endOffsets(tps);
                    Map<TopicPartition, Long> written;
                    try {
                        written = endOffsets(List.of(topic), partitions);
                    } catch (Exception e) {
                        written = Map.of();
                    }
                    StringBuilder where = new StringBuilder();
                    for (TopicPartition tp : tps) {
                        where.append(String.format(
                                " %s: position %d, stable %d, end %s;",
                                tp, c.position(tp), stable.get(tp), written.getOrDefault(tp, -1L)));
                    }
                    throw new IllegalStateException(
                            topic + ": only " + n + " of " + atLeast + " records committed within " + timeout + " ("
                                    + where.toString().trim() + ")");
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

    /** Prints the last lines of the app logs (stderr files) whose name starts with {@code prefix}. */
    void showLogs(String prefix) {
        try (var files = Files.list(tmp)) {
            for (Path f : files.filter(x -> x.getFileName().toString().startsWith(prefix)
                            && x.toString().endsWith(".log"))
                    .sorted()
                    .toList()) {
                List<String> lines = Files.readAllLines(f);
                say("---- last lines of " + f.getFileName() + " ----");
                lines.subList(Math.max(0, lines.size() - Integer.getInteger("it.logLines", 20)), lines.size())
                        .forEach(BrokerFixture::say);
            }
        } catch (Exception ignored) {
            // diagnostics only
        }
    }

    @Override
    public void close() throws Exception {
        broker.close();
        if (!Boolean.getBoolean("it.keep.tmp")) KafkaBroker.deleteRecursively(tmp);
    }

    /** Polls {@code condition} every 100 ms until it holds, or fails after {@code timeout}. */
    static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline)
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            Thread.sleep(100);
        }
    }

    static long ms(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    static synchronized void say(String s) {
        System.out.println(s);
        System.out.flush();
    }
}
