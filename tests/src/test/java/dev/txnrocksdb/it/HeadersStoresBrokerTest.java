package dev.txnrocksdb.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TxnStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ReadOnlyRecord;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.TimestampedKeyWithHeadersQuery;
import org.apache.kafka.streams.query.TimestampedWindowKeyWithHeadersQuery;
import org.apache.kafka.streams.state.ReadOnlyRecordIterator;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStoreWithHeaders;
import org.apache.kafka.streams.state.TimestampedWindowStoreWithHeaders;
import org.apache.kafka.streams.state.ValueTimestampHeaders;
import org.junit.jupiter.api.Test;

/**
 * Our key-value and window stores with headers in an exactly-once app on a real KRaft broker: every
 * record is stored with its headers; KIP-1356's IQv2 headers queries return them; and after the
 * local state is deleted, the stores are restored from their changelogs, where Kafka keeps the
 * headers in the changelog records and rebuilds each value with them (the store is a
 * {@code HeadersBytesStore}), and the queries return the same headers again.
 */
class HeadersStoresBrokerTest {
    private static final String APP = "headers-it";
    private static final String INPUT = "headers-input";
    private static final String KV = "headers-kv";
    private static final String WINDOW = "headers-window";
    private static final int RECORDS = 200;
    private static final long T = System.currentTimeMillis() / 60_000 * 60_000
            - Duration.ofMinutes(10).toMillis();

    /** Stores every record with its headers in both stores. */
    private static final class Put implements Processor<String, String, Void, Void> {
        private TimestampedKeyValueStoreWithHeaders<String, String> kv;
        private TimestampedWindowStoreWithHeaders<String, String> window;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            kv = context.getStateStore(KV);
            window = context.getStateStore(WINDOW);
        }

        @Override
        public void process(Record<String, String> record) {
            ValueTimestampHeaders<String> value =
                    ValueTimestampHeaders.make(record.value(), record.timestamp(), record.headers());
            kv.put(record.key(), value);
            window.put(record.key(), value, T);
        }
    }

    private static Topology topology() {
        Topology topology = new Topology();
        topology.addSource("in", new StringDeserializer(), new StringDeserializer(), INPUT);
        topology.addProcessor("put", Put::new, "in");
        topology.addStateStore(
                Stores.timestampedKeyValueStoreWithHeadersBuilder(
                        TxnStores.persistentTransactionalTimestampedKeyValueStoreWithHeaders(KV),
                        Serdes.String(),
                        Serdes.String()),
                "put");
        topology.addStateStore(
                Stores.timestampedWindowStoreWithHeadersBuilder(
                        TxnStores.persistentTransactionalTimestampedWindowStoreWithHeaders(
                                WINDOW, Duration.ofDays(1), Duration.ofMinutes(1), false),
                        Serdes.String(),
                        Serdes.String()),
                "put");
        return topology;
    }

    @Test
    void headersAreKeptQueriedAndRestoredFromTheChangelog() throws Exception {
        try (BrokerFixture kafka = BrokerFixture.start("headers")) {
            kafka.createTopics(1, INPUT);
            Map<String, String> expected = new HashMap<>();
            try (KafkaProducer<String, String> producer = kafka.stringProducer()) {
                for (int i = 0; i < RECORDS; i++) {
                    String key = "k" + i % 50;
                    ProducerRecord<String, String> record = new ProducerRecord<>(INPUT, 0, T + i, key, "v" + i);
                    record.headers().add("trace", ("t-" + i).getBytes(StandardCharsets.UTF_8));
                    producer.send(record).get(30, TimeUnit.SECONDS);
                    expected.put(key, "v" + i + "|t-" + i);
                }
            }
            Map<String, Object> overrides = Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
            KafkaStreams streams = kafka.startEosApp(APP, topology(), overrides);
            try {
                kafka.awaitGroupCaughtUp(APP, INPUT, 1, Duration.ofSeconds(60));
                BrokerFixture.await(
                        "headers in both stores", Duration.ofSeconds(30), () -> expected.equals(queried(streams)));
            } finally {
                streams.close(Duration.ofSeconds(30));
            }

            // delete the local state: the stores are restored from their changelogs
            Path state = kafka.tmp.resolve(APP + "-state");
            try (Stream<Path> files = Files.walk(state)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            KafkaStreams restored = kafka.startEosApp(APP, topology(), overrides);
            try {
                BrokerFixture.await(
                        "headers restored in both stores",
                        Duration.ofSeconds(60),
                        () -> expected.equals(queried(restored)));
            } finally {
                restored.close(Duration.ofSeconds(30));
                restored.cleanUp();
            }
        }
    }

    /** key -> "value|trace" for both stores, through IQv2's headers queries; null if they disagree. */
    private static Map<String, String> queried(KafkaStreams streams) {
        Map<String, String> out = new HashMap<>();
        for (int k = 0; k < 50; k++) {
            String key = "k" + k;
            QueryResult<ReadOnlyRecord<String, String>> kv = streams.query(StateQueryRequest.inStore(KV)
                            .withQuery(TimestampedKeyWithHeadersQuery.<String, String>withKey(key)))
                    .getOnlyPartitionResult();
            if (kv == null || !kv.isSuccess() || kv.getResult() == null) {
                return null;
            }
            String fromKv = render(kv.getResult().value(), kv.getResult().headers());
            QueryResult<ReadOnlyRecordIterator<Windowed<String>, String>> window = streams.query(
                            StateQueryRequest.inStore(WINDOW)
                                    .withQuery(
                                            TimestampedWindowKeyWithHeadersQuery
                                                    .<String, String>withKeyAndWindowStartRange(
                                                            key, Instant.ofEpochMilli(T), Instant.ofEpochMilli(T))))
                    .getOnlyPartitionResult();
            if (window == null || !window.isSuccess()) {
                return null;
            }
            String fromWindow = null;
            try (ReadOnlyRecordIterator<Windowed<String>, String> it = window.getResult()) {
                while (it.hasNext()) {
                    ReadOnlyRecord<Windowed<String>, String> record = it.next();
                    fromWindow = render(record.value(), record.headers());
                }
            }
            if (!fromKv.equals(fromWindow)) {
                return null;
            }
            out.put(key, fromKv);
        }
        return out;
    }

    private static String render(String value, Headers headers) {
        assertNotNull(headers);
        Header trace = headers.lastHeader("trace");
        assertTrue(trace != null, "the header is gone from " + value);
        assertEquals(1, headers.toArray().length, "headers of " + value);
        return value + "|" + new String(trace.value(), StandardCharsets.UTF_8);
    }
}
