package dev.txnrocksdb.streams.ttl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers;
import dev.txnrocksdb.streams.TxnStores;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.BytesDeserializer;
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
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deduplication a user could copy: ids are remembered for one hour of stream time in a store
 * with a time-to-live, tried with {@link TopologyTestDriver}. Advance the driver's stream time past
 * the hour and the id is gone from the store, its tombstone is in the changelog, and the id passes
 * again.
 */
class TtlTopologyTestDriverTest {
    private static final Duration HOUR = Duration.ofHours(1);

    @TempDir
    Path stateDir;

    /** Forwards each id the first time it is seen within the store's time-to-live. */
    static final class Dedup implements Processor<String, String, String, String> {
        private ProcessorContext<String, String> context;
        private KeyValueStore<String, Long> seen;

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            this.seen = context.getStateStore("seen");
        }

        @Override
        public void process(Record<String, String> record) {
            if (seen.putIfAbsent(record.key(), record.timestamp()) == null) {
                context.forward(record);
            }
        }
    }

    private static Topology dedup() {
        StreamsBuilder builder = new StreamsBuilder();
        // Stores.keyValueStoreBuilder builds no caching layer unless asked to.
        builder.addStateStore(Stores.keyValueStoreBuilder(
                TxnStores.persistentTransactionalKeyValueStore("seen").withTtl(HOUR), Serdes.String(), Serdes.Long()));
        builder.stream("events", Consumed.with(Serdes.String(), Serdes.String()))
                .process(Dedup::new, "seen")
                .to("unique", Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    private Properties config() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "dedup");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        return props;
    }

    @Test
    void anIdIsForgottenOneHourOfStreamTimeAfterItWasSeen() {
        try (TopologyTestDriver driver = new TopologyTestDriver(dedup(), config(), Instant.EPOCH)) {
            TestInputTopic<String, String> events =
                    driver.createInputTopic("events", new StringSerializer(), new StringSerializer());
            TestOutputTopic<String, String> unique =
                    driver.createOutputTopic("unique", new StringDeserializer(), new StringDeserializer());
            KeyValueStore<String, Long> seen = driver.getKeyValueStore("seen");

            events.pipeInput("a", "1", Instant.EPOCH);
            events.pipeInput("a", "2", Instant.EPOCH.plus(Duration.ofMinutes(30)));
            assertEquals(List.of(KeyValue.pair("a", "1")), unique.readKeyValuesToList());
            assertEquals(0L, seen.get("a"));

            // stream time moves to 1 h: "a", last written at 0, has expired
            events.pipeInput("b", "3", Instant.EPOCH.plus(HOUR));
            assertNull(seen.get("a"), "expired: invisible to reads");
            assertNotNull(seen.get("b"));
            TestOutputTopic<Bytes, Long> changelog =
                    driver.createOutputTopic("dedup-seen-changelog", new BytesDeserializer(), new LongDeserializer());
            List<TestRecord<Bytes, Long>> logged = changelog.readRecordsToList();
            TestRecord<Bytes, Long> last = logged.get(logged.size() - 1);
            assertEquals(Bytes.wrap("a".getBytes()), last.key());
            assertNull(last.value(), "a tombstone for the expired id, so no restore brings it back");

            assertEquals(1L, metric(driver, "ttl-expired-total"));
            assertEquals(0, metric(driver, "ttl-expiry-backlog-commits"));
            assertTrue(((Long) metric(driver, "ttl-expired-bytes-total")) > 0);

            events.pipeInput("a", "4", Instant.EPOCH.plus(HOUR).plusSeconds(1));
            assertEquals(List.of(KeyValue.pair("b", "3"), KeyValue.pair("a", "4")), unique.readKeyValuesToList());
        }
    }

    /** The value of the store metric {@code name} of the "seen" store. */
    private static Object metric(TopologyTestDriver driver, String name) {
        return driver.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(name)
                        && "seen".equals(e.getKey().tags().get("txn-rocksdb-state-id")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no metric " + name))
                .getValue()
                .metricValue();
    }

    /**
     * A mass expiry larger than one commit's share is removed over several commits, and they come
     * when no records arrive too: the store makes its task commit again while expired keys remain.
     */
    @Test
    void aBacklogOfExpiredKeysDrainsWithoutNewRecords() {
        Properties props = config();
        props.put(TxnRocksDBConfig.TTL_EXPIRY_KEYS_PER_COMMIT_CONFIG, 100);
        try (TopologyTestDriver driver = new TopologyTestDriver(dedup(), props, Instant.EPOCH)) {
            TestInputTopic<String, String> events =
                    driver.createInputTopic("events", new StringSerializer(), new StringSerializer());
            for (int i = 0; i < 350; i++) {
                events.pipeInput("id-" + i, "x", Instant.EPOCH);
            }
            events.pipeInput("late", "x", Instant.EPOCH.plus(HOUR));
            assertEquals(100L, metric(driver, "ttl-expired-total"), "one commit's share");
            assertEquals(1, metric(driver, "ttl-expiry-backlog-commits"));
            for (int i = 0; i < 5; i++) {
                driver.advanceWallClockTime(Duration.ofMillis(100));
            }
            assertEquals(350L, metric(driver, "ttl-expired-total"), "the rest, with no record since");
            assertEquals(0, metric(driver, "ttl-expiry-backlog-commits"));
            KeyValueStore<String, Long> seen = driver.getKeyValueStore("seen");
            assertNull(seen.get("id-7"));
            assertNotNull(seen.get("late"));
        }
    }

    /**
     * Configuration alone: every key-value store the DSL builds through our suppliers takes the
     * application's TTL. A count starts again once its key has been quiet for the TTL; with
     * {@code dsl.store.format=headers} the store's values carry headers before their timestamp.
     */
    @Test
    void aDslCountByConfigurationAloneStartsAgainAfterTheTtl() {
        for (String format : List.of(StreamsConfig.DSL_STORE_FORMAT_DEFAULT, StreamsConfig.DSL_STORE_FORMAT_HEADERS)) {
            StreamsBuilder builder = new StreamsBuilder();
            builder.stream("events", Consumed.with(Serdes.String(), Serdes.String()))
                    .groupByKey()
                    .count(Materialized.as("counts"))
                    .toStream()
                    .to("counts-out", Produced.with(Serdes.String(), Serdes.Long()));
            Properties props = config();
            props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, TxnRocksDBDslStoreSuppliers.class);
            props.put(StreamsConfig.DSL_STORE_FORMAT_CONFIG, format);
            props.put(TxnRocksDBConfig.TTL_MS_CONFIG, HOUR.toMillis());
            props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
            try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props, Instant.EPOCH)) {
                TestInputTopic<String, String> events =
                        driver.createInputTopic("events", new StringSerializer(), new StringSerializer());
                TestOutputTopic<String, Long> counts =
                        driver.createOutputTopic("counts-out", new StringDeserializer(), new LongDeserializer());
                events.pipeInput("a", "x", Instant.EPOCH);
                events.pipeInput("a", "x", Instant.EPOCH.plus(Duration.ofMinutes(50)));
                // "a" was last written at 50 min: still there at 1 h 40 min, gone at 1 h 50 min
                events.pipeInput("b", "x", Instant.EPOCH.plus(Duration.ofMinutes(100)));
                events.pipeInput("a", "x", Instant.EPOCH.plus(Duration.ofMinutes(101)));
                events.pipeInput("b", "x", Instant.EPOCH.plus(Duration.ofMinutes(210)));
                events.pipeInput("a", "x", Instant.EPOCH.plus(Duration.ofMinutes(211)));
                assertEquals(
                        List.of(
                                KeyValue.pair("a", 1L),
                                KeyValue.pair("a", 2L),
                                KeyValue.pair("b", 1L),
                                KeyValue.pair("a", 3L),
                                KeyValue.pair("b", 1L),
                                KeyValue.pair("a", 1L)),
                        counts.readKeyValuesToList(),
                        format);
            }
        }
    }

    @Test
    void aCachingLayerThatKeepsEntriesIsRefused() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.table(
                "events",
                Consumed.with(Serdes.String(), Serdes.String()),
                Materialized.<String, String>as(TxnStores.persistentTransactionalTimestampedKeyValueStore("latest")
                                .withTtl(HOUR))
                        .withCachingEnabled());
        Exception e = assertThrows(Exception.class, () -> new TopologyTestDriver(builder.build(), config()).close());
        Throwable cause = e;
        while (cause.getCause() != null && !cause.getMessage().contains("caching layer")) {
            cause = cause.getCause();
        }
        assertTrue(cause.getMessage().contains("withCachingDisabled()"), cause.getMessage());

        Properties noCache = config();
        noCache.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        new TopologyTestDriver(builder.build(), noCache).close();
    }

    @Test
    void underWallClockTimeAKeyExpiresWhileNoRecordsArrive() {
        Properties props = config();
        props.put(TxnRocksDBConfig.TTL_TIME_CONFIG, "wall-clock");
        try (TopologyTestDriver driver = new TopologyTestDriver(dedup(), props, Instant.EPOCH)) {
            TestInputTopic<String, String> events =
                    driver.createInputTopic("events", new StringSerializer(), new StringSerializer());
            KeyValueStore<String, Long> seen = driver.getKeyValueStore("seen");
            events.pipeInput("a", "1", Instant.EPOCH);
            assertNotNull(seen.get("a"));
            driver.advanceWallClockTime(Duration.ofMinutes(59));
            assertNotNull(seen.get("a"));
            driver.advanceWallClockTime(Duration.ofMinutes(2));
            assertNull(seen.get("a"), "an hour of wall-clock time later, with no record since");
        }
    }
}
