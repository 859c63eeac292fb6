package dev.txnrocksdb.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TxnStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The changelog topics Kafka Streams 4.4 creates for our stores in a running exactly-once app on a
 * real KRaft broker: names {@code <application.id>-<store>-changelog}, {@code compact} for key-value
 * stores, {@code compact,delete} for window and session stores (retention: the windows' size or gap plus
 * grace, plus 1 day; Kafka ignores the supplier's retention period there),
 * {@code withLoggingEnabled(configs)} reaching the topic, and a {@code withLoggingDisabled()} store
 * that works, has no changelog, and so is not restored when its state directory is lost.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChangelogTopicsTest {

    static final String APP = "cl";
    static final String INPUT = "cl-input";
    static final String KV = "kv-counts";
    static final String WINDOW = "window-counts";
    static final String SESSION = "session-counts";
    static final String NO_LOG = "unlogged-counts";
    static final int PARTITIONS = 2;
    static final Duration RETENTION = Duration.ofHours(2);
    static final Duration WINDOW_SIZE = Duration.ofMinutes(1);
    static final Duration SESSION_GAP = Duration.ofSeconds(30);
    static final long ONE_DAY_MS = Duration.ofDays(1).toMillis(); // windowstore.changelog.additional.retention.ms
    static final Map<String, Long> EXPECTED = Map.of("a", 3L, "b", 2L, "c", 1L);

    static BrokerFixture kafka;
    static Path stateDir;
    static KafkaStreams streams;

    @BeforeAll
    static void start() throws Exception {
        kafka = BrokerFixture.start("changelog");
        kafka.createTopics(PARTITIONS, INPUT);
        stateDir = kafka.tmp.resolve(APP + "-state");
        streams = startApp();
        long t = System.currentTimeMillis();
        try (KafkaProducer<String, String> producer = kafka.stringProducer()) {
            for (String k : List.of("a", "b", "a", "c", "b", "a")) {
                producer.send(new ProducerRecord<>(INPUT, null, t, k, "x")).get(30, TimeUnit.SECONDS);
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (streams != null) streams.close(Duration.ofSeconds(30));
        if (kafka != null) kafka.close();
    }

    static KafkaStreams startApp() throws Exception {
        StreamsBuilder builder = new StreamsBuilder();
        KGroupedStream<String, String> grouped = builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey();
        grouped.count(Materialized.<String, Long>as(TxnStores.persistentTransactionalTimestampedKeyValueStore(KV))
                .withKeySerde(Serdes.String())
                .withValueSerde(Serdes.Long())
                .withLoggingEnabled(Map.of("min.insync.replicas", "1", "segment.ms", "3600000")));
        grouped.windowedBy(TimeWindows.ofSizeWithNoGrace(WINDOW_SIZE))
                .count(Materialized.<String, Long>as(TxnStores.persistentTransactionalTimestampedWindowStore(
                                WINDOW, RETENTION, WINDOW_SIZE, false))
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()));
        grouped.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(SESSION_GAP))
                .count(Materialized.<String, Long>as(TxnStores.persistentTransactionalSessionStore(SESSION, RETENTION))
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()));
        grouped.count(Materialized.<String, Long>as(TxnStores.persistentTransactionalTimestampedKeyValueStore(NO_LOG))
                .withKeySerde(Serdes.String())
                .withValueSerde(Serdes.Long())
                .withLoggingDisabled());
        return kafka.startEosApp(APP, builder.build(), Map.of());
    }

    static Map<String, Long> counts(KafkaStreams s, String store) {
        ReadOnlyKeyValueStore<String, Long> kv =
                s.store(StoreQueryParameters.fromNameAndType(store, QueryableStoreTypes.keyValueStore()));
        Map<String, Long> out = new java.util.TreeMap<>();
        try (var it = kv.all()) {
            it.forEachRemaining(e -> out.put(e.key, e.value));
        }
        return out;
    }

    static String changelog(String store) {
        return APP + "-" + store + "-changelog";
    }

    static Map<String, ConfigEntry> topicConfig(Admin admin, String topic) throws Exception {
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config c = admin.describeConfigs(List.of(r))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(r);
        return c.entries().stream().collect(Collectors.toMap(ConfigEntry::name, e -> e));
    }

    @Test
    @Order(1)
    void changelogTopicsAreNamedAndConfiguredAsKafkaDoesForItsOwnStores() throws Exception {
        try (Admin admin = kafka.admin()) {
            Set<String> changelogs = new TreeSet<>(admin.listTopics().names().get(30, TimeUnit.SECONDS));
            changelogs.removeIf(t -> !t.endsWith("-changelog"));
            assertEquals(
                    new TreeSet<>(Set.of(changelog(KV), changelog(WINDOW), changelog(SESSION))),
                    changelogs,
                    "changelog topics (none for the store with logging disabled)");
            Map<String, TopicDescription> described =
                    admin.describeTopics(changelogs).allTopicNames().get(30, TimeUnit.SECONDS);
            described.forEach((t, d) -> assertEquals(PARTITIONS, d.partitions().size(), t + " partitions"));

            Map<String, ConfigEntry> kv = topicConfig(admin, changelog(KV));
            assertEquals("compact", kv.get("cleanup.policy").value());
            // withLoggingEnabled(configs) reach the topic as topic-level configs
            assertEquals("1", kv.get("min.insync.replicas").value());
            assertEquals(
                    ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG,
                    kv.get("min.insync.replicas").source());
            assertEquals("3600000", kv.get("segment.ms").value());
            assertEquals(
                    ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG,
                    kv.get("segment.ms").source());

            // Kafka 4.4 takes the retention from the windows (size + grace, or gap + grace), or from
            // Materialized.withRetention, not from the supplier's retentionPeriod(); plus
            // windowstore.changelog.additional.retention.ms (1 day)
            Map<String, Long> retention = Map.of(WINDOW, WINDOW_SIZE.toMillis(), SESSION, SESSION_GAP.toMillis());
            for (String store : List.of(WINDOW, SESSION)) {
                Map<String, ConfigEntry> c = topicConfig(admin, changelog(store));
                assertEquals("compact,delete", c.get("cleanup.policy").value(), store);
                assertEquals(
                        String.valueOf(retention.get(store) + ONE_DAY_MS),
                        c.get("retention.ms").value(),
                        store);
                assertEquals(
                        ConfigEntry.ConfigSource.DEFAULT_CONFIG,
                        c.get("segment.ms").source(),
                        store);
            }
        }
    }

    @Test
    @Order(2)
    void storeWithLoggingDisabledWorks() throws Exception {
        BrokerFixture.await(
                "counts in both stores",
                Duration.ofSeconds(30),
                () -> counts(streams, KV).equals(EXPECTED)
                        && counts(streams, NO_LOG).equals(EXPECTED));
        assertTrue(Files.isDirectory(stateDir.resolve(APP)), "state directory");
    }

    /**
     * Without a changelog nothing can rebuild the store: a clean restart keeps its contents (the store
     * committed them locally), but once the state directory is gone the logged store is restored from its
     * changelog and the unlogged one comes back empty.
     */
    /** Closes the app and leaves the group, so that the restarted one need not wait for its session to expire. */
    static void closeLeavingGroup() {
        assertTrue(
                streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                        .withTimeout(Duration.ofSeconds(30))),
                "closed in time");
    }

    @Test
    @Order(3)
    void storeWithLoggingDisabledIsNotRestoredAfterItsStateDirectoryIsLost() throws Exception {
        closeLeavingGroup();
        streams = startApp();
        assertEquals(EXPECTED, counts(streams, KV));
        assertEquals(EXPECTED, counts(streams, NO_LOG), "kept locally across a clean restart");

        closeLeavingGroup();
        streams.cleanUp(); // the state directory is lost
        assertFalse(Files.exists(stateDir.resolve(APP).resolve("0_0")), "task directories deleted");
        streams = startApp();
        assertEquals(EXPECTED, counts(streams, KV), "restored from its changelog");
        assertEquals(Map.of(), counts(streams, NO_LOG), "nothing to restore it from");
    }
}
