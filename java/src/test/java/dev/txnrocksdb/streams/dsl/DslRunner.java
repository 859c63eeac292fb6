package dev.txnrocksdb.streams.dsl;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers;
import dev.txnrocksdb.streams.TxnStreamsConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.test.TestRecord;

/**
 * Runs one topology on one {@link StoreSide} with {@link TopologyTestDriver} (which commits the
 * task, and so every store, after each input record) and collects the output (tagged with the
 * input record that produced it), the final store contents, the results of the read queries of
 * {@link StoreInspector#queries}, the dropped-records metric and which store classes were
 * actually used.
 */
final class DslRunner {
    static final String APP_ID = "dsl-differential";
    static final String OUT = "out";
    private static final AtomicInteger RUNS = new AtomicInteger();

    private DslRunner() {}

    /** One output record, tagged with the index of the input record whose processing emitted it. */
    record OutRecord(int batch, String key, String value, long timestamp, String headers) {
        @Override
        public String toString() {
            return "after #" + batch + ": " + key + " = " + value + " @" + timestamp
                    + (headers.isEmpty() ? "" : " " + headers);
        }
    }

    /** Everything one run produced; {@code failure} is set if the driver threw. */
    static final class RunResult {
        final StoreSide side;
        final List<OutRecord> output = new ArrayList<>();
        /** Store name → rendered entries in iteration order (only stores that can be iterated). */
        final Map<String, List<String>> stores = new TreeMap<>();
        /** "store name :: query" → rendered result of that read query (see {@link StoreInspector#queries}). */
        final Map<String, List<String>> queries = new LinkedHashMap<>();
        /** Store name → the classes found inside the store (outermost first). */
        final Map<String, List<String>> storeClasses = new TreeMap<>();
        /** Store name → approximateNumUncommittedBytes() of the root store after the last commit. */
        final Map<String, Long> uncommittedBytes = new TreeMap<>();
        /** Task metric dropped-records-total: records skipped by processors and puts into expired store segments. */
        double droppedRecords;

        Throwable failure;

        RunResult(StoreSide side) {
            this.side = side;
        }
    }

    static Properties config(DslSettings settings, StoreSide side, Path stateDir) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(
                StreamsConfig.STATE_DIR_CONFIG,
                stateDir.resolve("run-" + RUNS.getAndIncrement()).toString());
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, settings.guarantee());
        if (!settings.caching()) {
            props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L);
        }
        if (settings.headersFormat()) {
            props.put(StreamsConfig.DSL_STORE_FORMAT_CONFIG, StreamsConfig.DSL_STORE_FORMAT_HEADERS);
        }
        // Emit-final windows and the outer-join spurious-result fix check wall-clock time, which
        // TopologyTestDriver does not advance: emit on every record instead.
        props.put(StreamsConfig.InternalConfig.EMIT_INTERVAL_MS_KSTREAMS_WINDOWED_AGGREGATION, 0L);
        props.put(StreamsConfig.InternalConfig.EMIT_INTERVAL_MS_KSTREAMS_OUTER_JOIN_SPURIOUS_RESULTS_FIX, 0L);
        if (side == StoreSide.OURS_BY_CONFIG || side == StoreSide.OURS_SECONDARY_STORE_BY_CONFIG) {
            props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, TxnRocksDBDslStoreSuppliers.class);
        }
        if (side == StoreSide.OURS_SECONDARY_STORE_BY_CONFIG) {
            props.put(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, TransactionStrategy.SECONDARY_STORE.configName());
        }
        if (side.ours() && settings.exactlyOnce()) {
            props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        }
        if (side == StoreSide.OURS_BY_KIP_CONFIG) {
            props.put(TxnStreamsConfig.DEFAULT_DSL_STORE_CONFIG, TxnStreamsConfig.TXN_ROCKS_DB);
            return TxnStreamsConfig.translate(props);
        }
        return props;
    }

    static RunResult run(
            Topology topology, List<DslInputs.Event> events, DslSettings settings, StoreSide side, Path stateDir) {
        RunResult result = new RunResult(side);
        try (TopologyTestDriver driver = new TopologyTestDriver(topology, config(settings, side, stateDir))) {
            pipe(driver, events, result);
            readStores(
                    driver,
                    result,
                    events.stream().mapToLong(DslInputs.Event::timestamp).max().orElse(0));
            result.droppedRecords = droppedRecords(driver);
        } catch (RuntimeException | AssertionError e) {
            result.failure = e;
        }
        return result;
    }

    private static void pipe(TopologyTestDriver driver, List<DslInputs.Event> events, RunResult result) {
        Map<String, TestInputTopic<String, String>> inputs = new HashMap<>();
        TestOutputTopic<String, String> out =
                driver.createOutputTopic(OUT, new StringDeserializer(), new StringDeserializer());
        for (DslInputs.Event event : events) {
            TestInputTopic<String, String> in = inputs.computeIfAbsent(
                    event.topic(), t -> driver.createInputTopic(t, new StringSerializer(), new StringSerializer()));
            RecordHeaders headers = new RecordHeaders();
            headers.add("n", Integer.toString(event.index()).getBytes(StandardCharsets.UTF_8));
            in.pipeInput(new TestRecord<>(event.key(), event.value(), headers, event.timestamp()));
            for (TestRecord<String, String> record : out.readRecordsToList()) {
                result.output.add(new OutRecord(
                        event.index(),
                        record.key(),
                        record.value(),
                        record.timestamp(),
                        renderHeaders(record.headers())));
            }
        }
    }

    private static void readStores(TopologyTestDriver driver, RunResult result, long streamTime) {
        Map<String, StateStore> stores = new LinkedHashMap<>(driver.getAllStateStores());
        for (Map.Entry<String, StateStore> store : stores.entrySet()) {
            result.storeClasses.put(store.getKey(), StoreInspector.classesInside(store.getValue()));
            List<String> dump = StoreInspector.dump(store.getValue());
            if (dump != null) {
                result.stores.put(store.getKey(), dump);
                for (Map.Entry<String, List<String>> query : StoreInspector.queries(store.getValue(), dump, streamTime)
                        .entrySet()) {
                    result.queries.put(store.getKey() + " :: " + query.getKey(), query.getValue());
                }
            }
            result.uncommittedBytes.put(store.getKey(), store.getValue().approximateNumUncommittedBytes());
        }
    }

    private static double droppedRecords(TopologyTestDriver driver) {
        double total = 0;
        for (Map.Entry<MetricName, ? extends Metric> metric : driver.metrics().entrySet()) {
            if (metric.getKey().name().equals("dropped-records-total")
                    && metric.getKey().group().equals("stream-task-metrics")) {
                total += ((Number) metric.getValue().metricValue()).doubleValue();
            }
        }
        return total;
    }

    static String renderHeaders(Iterable<Header> headers) {
        StringBuilder sb = new StringBuilder();
        for (Header header : headers) {
            sb.append(sb.length() == 0 ? "[" : ", ")
                    .append(header.key())
                    .append('=')
                    .append(header.value() == null ? "null" : new String(header.value(), StandardCharsets.UTF_8));
        }
        return sb.length() == 0 ? "" : sb.append(']').toString();
    }
}
