package dev.txnrocksdb.examples.gradle;

import dev.txnrocksdb.streams.TxnStores;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * Counts the tutorial's words into a transactional txn-rocksdb store (through Kafka's
 * TopologyTestDriver, so no broker is needed) and prints the counts; exits non-zero if they are
 * not dibaca=1, kejadian=2, log=3.
 */
public final class CountWords {
    public static void main(String[] args) throws Exception {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("kata", Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .count(Materialized.<String, Long>as(
                                TxnStores.persistentTransactionalTimestampedKeyValueStore("jumlah-kata"))
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()));

        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "gradle-app");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(
                StreamsConfig.STATE_DIR_CONFIG,
                Files.createTempDirectory("gradle-app").toString());

        Map<String, Long> counts = new TreeMap<>();
        try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props)) {
            TestInputTopic<String, String> input = driver.createInputTopic(
                    "kata", Serdes.String().serializer(), Serdes.String().serializer());
            for (String word : List.of("log", "kejadian", "log", "dibaca", "log", "kejadian")) {
                input.pipeInput(word, word);
            }
            KeyValueStore<String, ValueAndTimestamp<Long>> store = driver.getTimestampedKeyValueStore("jumlah-kata");
            try (KeyValueIterator<String, ValueAndTimestamp<Long>> it = store.all()) {
                it.forEachRemaining(kv -> counts.put(kv.key, kv.value.value()));
            }
        }
        System.out.println("counts from the txn-rocksdb store: " + counts);
        if (!counts.equals(Map.of("dibaca", 1L, "kejadian", 2L, "log", 3L))) {
            System.err.println("unexpected counts");
            System.exit(1);
        }
    }
}
