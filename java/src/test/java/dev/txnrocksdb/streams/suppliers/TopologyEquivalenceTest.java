package dev.txnrocksdb.streams.suppliers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TxnStores;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The same DSL topologies on Kafka's built-in RocksDB store and on txn-rocksdb stores, fed the
 * same random input through TopologyTestDriver (which commits the task, and so the stores with
 * their changelog offsets, after every record): output and final store contents must be equal.
 */
class TopologyEquivalenceTest {
    private static final String APP_ID = "equivalence";
    private static final TopicPartition CHANGELOG = new TopicPartition(APP_ID + "-store-changelog", 0);

    @TempDir
    Path stateDir;

    private int runs;

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (String guarantee : List.of(StreamsConfig.AT_LEAST_ONCE, StreamsConfig.EXACTLY_ONCE_V2)) {
            for (boolean caching : List.of(true, false)) {
                cases.add(Arguments.of("transactional timestamped", guarantee, caching));
                cases.add(Arguments.of("transactional plain", guarantee, caching));
                if (guarantee.equals(StreamsConfig.AT_LEAST_ONCE)) {
                    cases.add(Arguments.of("write-through timestamped", guarantee, caching));
                }
            }
        }
        return cases.stream();
    }

    private static KeyValueBytesStoreSupplier supplier(String kind) {
        switch (kind) {
            case "transactional timestamped":
                return TxnStores.persistentTransactionalTimestampedKeyValueStore("store");
            case "transactional plain":
                return TxnStores.persistentTransactionalKeyValueStore("store");
            case "write-through timestamped":
                return TxnStores.persistentTimestampedKeyValueStore("store", false);
            default:
                throw new IllegalArgumentException(kind);
        }
    }

    /**
     * Kafka's store of the same shape: its default (timestamped) RocksDB store, or for a plain
     * supplier its plain RocksDB store (the DSL then wraps both in the same adapter, which drops
     * timestamps).
     */
    private static <V> Materialized<String, V, KeyValueStore<Bytes, byte[]>> builtIn(String kind) {
        return kind.equals("transactional plain")
                ? Materialized.as(Stores.persistentKeyValueStore("store"))
                : Materialized.as("store");
    }

    @ParameterizedTest(name = "count on {0}, {1}, caching={2}")
    @MethodSource("cases")
    void countMatchesBuiltInStore(String kind, String guarantee, boolean caching) {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<KeyValue<String, String>> input = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            input.add(KeyValue.pair("w" + random.nextInt(80), "x"));
        }
        Function<Materialized<String, Long, KeyValueStore<Bytes, byte[]>>, Topology> count = materialized -> {
            StreamsBuilder builder = new StreamsBuilder();
            builder.stream("words", Consumed.with(Serdes.String(), Serdes.String()))
                    .groupByKey()
                    .count(materialized.withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                    .toStream()
                    .to("out", Produced.with(Serdes.String(), Serdes.Long()));
            return builder.build();
        };
        Result<Long> expected =
                run(count.apply(builtIn(kind)), input, guarantee, caching, new LongDeserializer(), false);
        Result<Long> actual = run(
                count.apply(Materialized.as(supplier(kind))), input, guarantee, caching, new LongDeserializer(), true);
        assertEquals(expected.output, actual.output, "output differs; seed " + seed);
        assertEquals(expected.store, actual.store, "store differs; seed " + seed);
        assertFalse(actual.output.isEmpty());
    }

    @ParameterizedTest(name = "table on {0}, {1}, caching={2}")
    @MethodSource("cases")
    void tableWithTombstonesMatchesBuiltInStore(String kind, String guarantee, boolean caching) {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<KeyValue<String, String>> input = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            input.add(KeyValue.pair("k" + random.nextInt(60), random.nextInt(4) == 0 ? null : "v" + i));
        }
        Function<Materialized<String, String, KeyValueStore<Bytes, byte[]>>, Topology> table = materialized -> {
            StreamsBuilder builder = new StreamsBuilder();
            builder.table(
                            "words",
                            Consumed.with(Serdes.String(), Serdes.String()),
                            materialized.withKeySerde(Serdes.String()).withValueSerde(Serdes.String()))
                    .mapValues(v -> v + "!")
                    .toStream()
                    .to("out", Produced.with(Serdes.String(), Serdes.String()));
            return builder.build();
        };
        Result<String> expected =
                run(table.apply(builtIn(kind)), input, guarantee, caching, new StringDeserializer(), false);
        Result<String> actual = run(
                table.apply(Materialized.as(supplier(kind))),
                input,
                guarantee,
                caching,
                new StringDeserializer(),
                true);
        assertEquals(expected.output, actual.output, "output differs; seed " + seed);
        assertEquals(expected.store, actual.store, "store differs; seed " + seed);
        assertTrue(actual.output.stream().anyMatch(kv -> kv.value == null), "input had tombstones; seed " + seed);
    }

    private static final class Result<V> {
        final List<KeyValue<String, V>> output;
        final Map<String, ValueAndTimestamp<V>> store;

        Result(List<KeyValue<String, V>> output, Map<String, ValueAndTimestamp<V>> store) {
            this.output = output;
            this.store = store;
        }
    }

    private <V> Result<V> run(
            Topology topology,
            List<KeyValue<String, String>> input,
            String guarantee,
            boolean caching,
            org.apache.kafka.common.serialization.Deserializer<V> valueDeserializer,
            boolean ours) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(
                StreamsConfig.STATE_DIR_CONFIG,
                stateDir.resolve("run-" + runs++).toString());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
        props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, StreamsConfig.EXACTLY_ONCE_V2.equals(guarantee));
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, caching ? 10 * 1024 * 1024L : 0L);
        try (TopologyTestDriver driver = new TopologyTestDriver(topology, props)) {
            TestInputTopic<String, String> in =
                    driver.createInputTopic("words", new StringSerializer(), new StringSerializer());
            TestOutputTopic<String, V> out =
                    driver.createOutputTopic("out", new StringDeserializer(), valueDeserializer);
            long timestamp = 1_000L;
            for (KeyValue<String, String> record : input) {
                in.pipeInput(record.key, record.value, timestamp++);
            }
            List<KeyValue<String, V>> output = out.readKeyValuesToList();
            KeyValueStore<String, ValueAndTimestamp<V>> store = driver.getTimestampedKeyValueStore("store");
            Map<String, ValueAndTimestamp<V>> contents = new TreeMap<>();
            try (KeyValueIterator<String, ValueAndTimestamp<V>> all = store.all()) {
                all.forEachRemaining(kv -> contents.put(kv.key, kv.value));
            }
            if (ours) {
                // TopologyTestDriver committed the task after each record: the store holds the changelog offset.
                Long committed = ((StateStore) store).committedOffset(CHANGELOG);
                assertNotNull(committed, "no committed changelog offset");
                assertEquals(0L, ((StateStore) store).approximateNumUncommittedBytes());
            }
            return new Result<>(output, contents);
        }
    }
}
