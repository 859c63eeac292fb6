package dev.txnrocksdb.streams.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers;
import dev.txnrocksdb.streams.internals.TxnTimestampedKeyValueStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.IsolationLevel;
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
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The README's word count on TopologyTestDriver with the whole DSL on our stores
 * ({@code dsl.store.suppliers.class}) and {@code txn.rocksdb.transaction.strategy=secondary-store}
 * in the application configuration: the counts are right, the store really is a secondary-store
 * one, its committed view holds the same counts (the driver commits after every record), and no
 * commit file is left between commits. (A restart cannot be shown here: closing a
 * TopologyTestDriver deletes its state directory.)
 */
class SecondaryStoreWordCountTest {
    private static final String APP_ID = "secondary-word-count";

    @TempDir
    Path stateDir;

    private Properties props(String guarantee) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, TxnRocksDBDslStoreSuppliers.class.getName());
        props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, "true");
        props.put(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, "secondary-store");
        return props;
    }

    private static StreamsBuilder wordCount() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("sentences", Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(sentence -> Arrays.asList(sentence.toLowerCase().split("\\W+")))
                .groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.as("counts"))
                .toStream()
                .to("word-counts", Produced.with(Serdes.String(), Serdes.Long()));
        return builder;
    }

    /** Pipes the sentences through a driver; returns the last count output per word and the store's counts. */
    private Map<String, Long>[] run(String guarantee, List<String> sentences) throws IOException {
        Properties props = props(guarantee);
        try (TopologyTestDriver driver = new TopologyTestDriver(wordCount().build(props), props)) {
            TestInputTopic<String, String> in =
                    driver.createInputTopic("sentences", new StringSerializer(), new StringSerializer());
            TestOutputTopic<String, Long> out =
                    driver.createOutputTopic("word-counts", new StringDeserializer(), new LongDeserializer());
            sentences.forEach(sentence -> in.pipeInput(null, sentence));
            Map<String, Long> output = new TreeMap<>();
            for (KeyValue<String, Long> kv : out.readKeyValuesToList()) {
                output.put(kv.key, kv.value);
            }

            KeyValueStore<String, ValueAndTimestamp<Long>> counts = driver.getTimestampedKeyValueStore("counts");
            Map<String, Long> stored = new TreeMap<>();
            try (KeyValueIterator<String, ValueAndTimestamp<Long>> all = counts.all()) {
                all.forEachRemaining(kv -> stored.put(kv.key, kv.value.value()));
            }

            StateStore inner = (StateStore) counts;
            while (inner instanceof WrappedStateStore) {
                inner = ((WrappedStateStore<?, ?, ?>) inner).wrapped();
            }
            TxnTimestampedKeyValueStore ours = assertInstanceOf(TxnTimestampedKeyValueStore.class, inner);
            assertEquals(TransactionStrategy.SECONDARY_STORE, ours.transactionStrategy());
            // TopologyTestDriver commits after every record: nothing is in flight or uncommitted.
            assertEquals(0L, ours.approximateNumUncommittedBytes());
            Map<String, Long> committed = new TreeMap<>();
            try (KeyValueIterator<Bytes, byte[]> all =
                    ours.readOnly(IsolationLevel.READ_COMMITTED).all()) {
                // timestamped values: [8-byte timestamp][8-byte count]
                all.forEachRemaining(kv -> committed.put(
                        new String(kv.key.get(), StandardCharsets.UTF_8),
                        ByteBuffer.wrap(kv.value).getLong(8)));
            }
            assertEquals(stored, committed, "committed view");
            Path storeDir = stateDir.resolve(APP_ID).resolve("0_0").resolve("counts");
            assertTrue(Files.isDirectory(storeDir), storeDir + " missing");
            List<String> files;
            try (Stream<Path> list = Files.list(storeDir)) {
                files = list.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
            }
            assertFalse(files.contains("TXN-COMMIT"), "a commit file outlived its commit: " + files);
            assertFalse(files.contains("TXN-COMMIT.tmp"), "a temporary commit file was left: " + files);
            assertTrue(files.contains("CURRENT"), "not a RocksDB directory: " + files);
            @SuppressWarnings("unchecked")
            Map<String, Long>[] result = new Map[] {output, stored};
            return result;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {StreamsConfig.AT_LEAST_ONCE, StreamsConfig.EXACTLY_ONCE_V2})
    void countsWords(String guarantee) throws IOException {
        // The tutorial's input, one sentence per record, and a second mention in another case.
        Map<String, Long>[] result = run(guarantee, List.of("log kejadian", "log dibaca", "log kejadian", "LOG baru"));
        Map<String, Long> expected = new TreeMap<>(Map.of("log", 4L, "kejadian", 2L, "dibaca", 1L, "baru", 1L));
        assertEquals(expected, result[0], "last count output per word");
        assertEquals(expected, result[1], "store contents");
    }
}
