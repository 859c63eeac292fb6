package dev.txnrocksdb.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TxnStores;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A running exactly-once app on a real broker exposes our stores' metrics through
 * {@code KafkaStreams.metrics()} (group {@code stream-state-metrics}, Kafka's store tags), with
 * plausible values, RocksDB statistics included at {@code metrics.recording.level=DEBUG}; they go
 * away when the store closes (here: its stream thread is removed).
 */
class StoreMetricsTest {
    static final String APP = "metrics";
    static final String INPUT = "metrics-input";
    static final String KV = "word-counts";
    static final String WINDOW = "windowed-counts";
    static final String GROUP = "stream-state-metrics";
    static final int WORDS = 200;

    static BrokerFixture kafka;
    static KafkaStreams streams;

    @BeforeAll
    static void start() throws Exception {
        kafka = BrokerFixture.start("metrics");
        kafka.createTopics(1, INPUT);
        StreamsBuilder builder = new StreamsBuilder();
        KGroupedStream<String, String> grouped = builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey();
        grouped.count(Materialized.<String, Long>as(TxnStores.persistentTransactionalTimestampedKeyValueStore(KV))
                .withKeySerde(Serdes.String())
                .withValueSerde(Serdes.Long()));
        grouped.windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMinutes(1)))
                .count(Materialized.<String, Long>as(TxnStores.persistentTransactionalTimestampedWindowStore(
                                WINDOW, Duration.ofHours(1), Duration.ofMinutes(1), false))
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()));
        streams = kafka.startEosApp(
                APP,
                builder.build(),
                Map.of(
                        StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG,
                        "DEBUG",
                        StreamsConfig.NUM_STREAM_THREADS_CONFIG,
                        1));
    }

    @AfterAll
    static void stop() throws Exception {
        if (streams != null) streams.close(Duration.ofSeconds(30));
        if (kafka != null) kafka.close();
    }

    static void produce(int rounds) throws Exception {
        long t = System.currentTimeMillis();
        try (KafkaProducer<String, String> producer = kafka.stringProducer()) {
            for (int r = 0; r < rounds; r++) {
                for (int w = 0; w < WORDS; w++) {
                    producer.send(new ProducerRecord<>(INPUT, null, t, "word-" + w, "x"));
                }
            }
            producer.flush();
        }
    }

    static long count(String word) {
        ReadOnlyKeyValueStore<String, Long> kv =
                streams.store(StoreQueryParameters.fromNameAndType(KV, QueryableStoreTypes.keyValueStore()));
        Long n = kv.get(word);
        return n == null ? 0 : n;
    }

    /** Our metrics of one store (by its {@code <scope>-state-id} tag), by name. */
    static Map<String, Metric> storeMetrics(String scopeTag, String store) {
        Map<String, Metric> out = new TreeMap<>();
        for (Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
            MetricName name = e.getKey();
            if (name.group().equals(GROUP) && store.equals(name.tags().get(scopeTag))) {
                out.put(name.name(), e.getValue());
            }
        }
        return out;
    }

    static double value(Map<String, Metric> metrics, String name) {
        Metric metric = Optional.ofNullable(metrics.get(name))
                .orElseThrow(() -> new AssertionError("no metric " + name + " in " + metrics.keySet()));
        return ((Number) metric.metricValue()).doubleValue();
    }

    @Test
    void storesExposeRocksDbAndTransactionMetricsAndRemoveThemWhenTheyClose() throws Exception {
        produce(5);
        BrokerFixture.await("counts of 5", Duration.ofSeconds(60), () -> count("word-" + (WORDS - 1)) == 5);
        // Interactive queries see staged writes: wait until a commit has carried them into RocksDB's
        // data (the memtables hold the store's value format from its open on, so their size is no sign).
        BrokerFixture.await(
                "a commit carrying data in " + KV,
                Duration.ofSeconds(60),
                () -> value(storeMetrics("txn-rocksdb-state-id", KV), "estimate-num-keys") > 0);
        Map<String, Metric> kv = storeMetrics("txn-rocksdb-state-id", KV);
        MetricName any = streams.metrics().keySet().stream()
                .filter(n -> n.group().equals(GROUP)
                        && KV.equals(n.tags().get("txn-rocksdb-state-id"))
                        && n.name().equals("commit-total"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no commit-total for " + KV + ": " + kv.keySet()));
        assertEquals("0_0", any.tags().get("task-id"));
        assertTrue(
                any.tags().get("thread-id").contains("StreamThread-1"),
                any.tags().toString());

        double commits = value(kv, "commit-total");
        assertTrue(commits > 0, "commits recorded");
        assertTrue(value(kv, "commit-latency-avg") > 0);
        assertTrue(value(kv, "commit-latency-max") >= value(kv, "commit-latency-avg"));
        assertTrue(value(kv, "bytes-written-total") > 0, "RocksDB statistics at DEBUG");
        assertTrue(value(kv, "estimate-num-keys") > 0);
        assertTrue(value(kv, "cur-size-all-mem-tables") > 0);
        double capacity = value(kv, "block-cache-capacity");
        assertEquals(64 << 20, capacity, "the shared cache's default capacity");
        assertTrue(value(kv, "block-cache-usage") <= capacity);
        assertTrue(value(kv, "uncommitted-bytes") >= 0);
        assertEquals(0, value(kv, "roll-forwards-total"));
        assertEquals(0, value(kv, "rollbacks-total"));
        double hitRatio = value(kv, "block-cache-data-hit-ratio");
        assertTrue(hitRatio >= 0 && hitRatio <= 1, "hit ratio " + hitRatio);
        Map<String, Metric> window = storeMetrics("txn-rocksdb-window-state-id", WINDOW);
        assertTrue(value(window, "bytes-written-total") > 0, "window store: " + window.keySet());
        BrokerFixture.say("  metrics of " + KV + ": " + describe(kv));

        produce(5);
        BrokerFixture.await("counts of 10", Duration.ofSeconds(60), () -> count("word-" + (WORDS - 1)) == 10);
        BrokerFixture.await(
                "commit count growing",
                Duration.ofSeconds(30),
                () -> value(storeMetrics("txn-rocksdb-state-id", KV), "commit-total") > commits);

        Optional<String> removed = streams.removeStreamThread(Duration.ofSeconds(60));
        assertTrue(removed.isPresent(), "the only stream thread was removed");
        BrokerFixture.await(
                "store metrics removed",
                Duration.ofSeconds(30),
                () -> storeMetrics("txn-rocksdb-state-id", KV).isEmpty()
                        && storeMetrics("txn-rocksdb-window-state-id", WINDOW).isEmpty());
    }

    static String describe(Map<String, Metric> metrics) {
        StringBuilder out = new StringBuilder();
        metrics.forEach((name, metric) ->
                out.append("\n    ").append(name).append(" = ").append(metric.metricValue()));
        return out.toString();
    }
}
