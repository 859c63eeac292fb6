package dev.txnrocksdb.streams.versioned;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnStores;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A versioned table from {@code Materialized.as(TxnStores.persistentVersionedKeyValueStore(...))}
 * in the DSL, joined by a stream (a versioned stream-table join: each stream record meets the
 * table version valid at its own timestamp), with table updates and deletes arriving out of order
 * and stream records at times between them, on TopologyTestDriver with
 * {@code enable.transactional.statestores=true}: the join output equals the one with Kafka's
 * {@code Stores.persistentVersionedKeyValueStore}, and the table's store holds the same history.
 */
class VersionedTableJoinTest {
    private static final Duration HISTORY = Duration.ofSeconds(30);

    @TempDir
    Path stateDir;

    private int runs;

    static Stream<Arguments> strategies() {
        return Stream.of(TransactionStrategy.values()).map(Arguments::of);
    }

    @ParameterizedTest(name = "versioned table join, {0}")
    @MethodSource("strategies")
    void joinsTheVersionValidAtEachStreamRecordsTimeAsKafkaDoes(TransactionStrategy strategy) {
        long seed = System.nanoTime();
        List<String[]> inputs = inputs(new Random(seed));
        List<String> kafka = run(Stores.persistentVersionedKeyValueStore("table-store", HISTORY), inputs);
        List<String> ours = run(
                TxnStores.persistentTransactionalVersionedKeyValueStore(
                        "table-store", HISTORY, Duration.ofSeconds(5), strategy),
                inputs);
        assertEquals(kafka, ours, "seed " + seed);
        // the join really read history: some stream record met a table value older than the latest
        assertTrue(kafka.stream().anyMatch(line -> line.startsWith("join ") && line.contains("older")), "seed " + seed);
    }

    /** {@code [topic, key, value or "null", timestamp]}, table updates out of order, stream records between. */
    private static List<String[]> inputs(Random random) {
        List<String[]> inputs = new ArrayList<>();
        long clock = 1_000;
        for (int i = 0; i < 600; i++) {
            clock += random.nextInt(200);
            String key = "k" + random.nextInt(4);
            long back = (long) (random.nextDouble() * HISTORY.toMillis() * 0.8);
            if (random.nextInt(3) == 0) {
                inputs.add(new String[] {"stream", key, "s" + i, Long.toString(Math.max(0, clock - back))});
            } else {
                String value = random.nextInt(10) == 0 ? "null" : (back > 2_000 ? "older" : "t") + i;
                inputs.add(new String[] {"table", key, value, Long.toString(Math.max(0, clock - back))});
            }
        }
        return inputs;
    }

    private static Topology topology(VersionedBytesStoreSupplier supplier) {
        StreamsBuilder builder = new StreamsBuilder();
        KTable<String, String> table = builder.table(
                "table",
                Consumed.with(Serdes.String(), Serdes.String()),
                Materialized.<String, String>as(supplier)
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.String()));
        builder.stream("stream", Consumed.with(Serdes.String(), Serdes.String()))
                .join(table, (streamValue, tableValue) -> streamValue + "+" + tableValue)
                .mapValues(joined -> "join " + joined)
                .to("out", Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    private List<String> run(VersionedBytesStoreSupplier supplier, List<String[]> inputs) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "versioned-join");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(
                StreamsConfig.STATE_DIR_CONFIG,
                stateDir.resolve("run-" + runs++).toString());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        List<String> results = new ArrayList<>();
        try (TopologyTestDriver driver = new TopologyTestDriver(topology(supplier), props)) {
            TestInputTopic<String, String> table =
                    driver.createInputTopic("table", new StringSerializer(), new StringSerializer());
            TestInputTopic<String, String> stream =
                    driver.createInputTopic("stream", new StringSerializer(), new StringSerializer());
            TestOutputTopic<String, String> out =
                    driver.createOutputTopic("out", new StringDeserializer(), new StringDeserializer());
            for (String[] input : inputs) {
                String value = input[2].equals("null") ? null : input[2];
                (input[0].equals("table") ? table : stream).pipeInput(input[1], value, Long.parseLong(input[3]));
            }
            for (KeyValue<String, String> joined : out.readKeyValuesToList()) {
                results.add(joined.key + " " + joined.value);
            }
            results.replaceAll(
                    line -> line.substring(line.indexOf(' ') + 1) + " @" + line.substring(0, line.indexOf(' ')));
            VersionedKeyValueStore<String, String> store = driver.getVersionedKeyValueStore("table-store");
            for (int k = 0; k < 4; k++) {
                for (long t = 0; t <= 130_000; t += 250) {
                    VersionedRecord<String> found = store.get("k" + k, t);
                    results.add("k" + k + " as of " + t + ": "
                            + (found == null
                                    ? "null"
                                    : found.value() + "@" + found.timestamp() + " " + found.validTo()));
                }
            }
        }
        return results;
    }
}
