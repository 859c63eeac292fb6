package dev.txnrocksdb.tool;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Changelog partitions as the cluster has them now (topic id, log start and end offsets), which a
 * new host's restore checks snapshots against: looked up with Kafka's {@link Admin} client, as the
 * application's stores look theirs up when they open with an empty directory. The client's settings
 * are {@code --bootstrap-server} and, as for Kafka's own tools, a {@code --command-config} file
 * (security settings); every wait is bounded by {@link #TIMEOUT}.
 */
final class ChangelogsNow implements AutoCloseable {
    /** How long the cluster may take to answer each question. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** The cluster did not answer, or refused (exit code {@link TxnRocksDbTool#EXIT_FAILED}). */
    static final class Unanswered extends Exception {
        private static final long serialVersionUID = 1L;

        Unanswered(String message) {
            super(message);
        }
    }

    /** A changelog partition now; {@code topicId} is null when the topic does not exist. */
    record Changelog(Uuid topicId, long start, long end) {}

    private final Admin admin;
    private final String bootstrapServers;

    private ChangelogsNow(Admin admin, String bootstrapServers) {
        this.admin = admin;
        this.bootstrapServers = bootstrapServers;
    }

    /** A client of the cluster at {@code bootstrapServers}, with {@code commandConfig}'s settings (may be null). */
    static ChangelogsNow connect(String bootstrapServers, Path commandConfig) throws IOException {
        Properties config = new Properties();
        if (commandConfig != null) {
            try (Reader in = Files.newBufferedReader(commandConfig, StandardCharsets.UTF_8)) {
                config.load(in);
            }
        }
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "txn-rocksdb-tool");
        config.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        config.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis() / 2);
        return new ChangelogsNow(Admin.create(config), bootstrapServers);
    }

    /**
     * Each of {@code partitions} as the cluster has it now.
     *
     * @throws Unanswered when the cluster does not answer in time or refuses
     */
    Map<TopicPartition, Changelog> describe(Collection<TopicPartition> partitions) throws Unanswered {
        Set<String> topics = new TreeSet<>();
        partitions.forEach(p -> topics.add(p.topic()));
        Map<String, Uuid> ids = new HashMap<>();
        for (String topic : topics) {
            try {
                TopicDescription description = admin.describeTopics(Set.of(topic))
                        .allTopicNames()
                        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .get(topic);
                ids.put(topic, description.topicId());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) throw failure("describe " + topic, e);
            } catch (Exception e) {
                throw failure("describe " + topic, e);
            }
        }
        Map<TopicPartition, OffsetSpec> earliest = new LinkedHashMap<>();
        Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
        for (TopicPartition partition : partitions) {
            if (ids.containsKey(partition.topic())) {
                earliest.put(partition, OffsetSpec.earliest());
                latest.put(partition, OffsetSpec.latest());
            }
        }
        Map<TopicPartition, Changelog> now = new LinkedHashMap<>();
        try {
            var starts = earliest.isEmpty()
                    ? Map.<TopicPartition, org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo>of()
                    : admin.listOffsets(earliest).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            var ends = latest.isEmpty()
                    ? Map.<TopicPartition, org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo>of()
                    : admin.listOffsets(latest).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            for (TopicPartition partition : partitions) {
                Uuid id = ids.get(partition.topic());
                now.put(
                        partition,
                        id == null || !starts.containsKey(partition)
                                ? new Changelog(null, -1, -1)
                                : new Changelog(
                                        id,
                                        starts.get(partition).offset(),
                                        ends.get(partition).offset()));
            }
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof UnknownTopicOrPartitionException))
                throw failure("list the offsets of " + latest.keySet(), e);
            // a partition the topic does not have (fewer partitions now): looked up one by one
            for (TopicPartition partition : partitions) {
                now.put(partition, one(partition, ids.get(partition.topic())));
            }
        } catch (Exception e) {
            throw failure("list the offsets of " + latest.keySet(), e);
        }
        return now;
    }

    private Changelog one(TopicPartition partition, Uuid id) throws Unanswered {
        if (id == null) return new Changelog(null, -1, -1);
        try {
            long start = admin.listOffsets(Map.of(partition, OffsetSpec.earliest()))
                    .partitionResult(partition)
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .offset();
            long end = admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
                    .partitionResult(partition)
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .offset();
            return new Changelog(id, start, end);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) return new Changelog(null, -1, -1);
            throw failure("list the offsets of " + partition, e);
        } catch (Exception e) {
            throw failure("list the offsets of " + partition, e);
        }
    }

    private Unanswered failure(String what, Exception e) {
        if (e instanceof InterruptedException) Thread.currentThread().interrupt();
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return new Unanswered("the cluster at " + bootstrapServers + " did not " + what + " within "
                + TIMEOUT.toSeconds() + " s: " + cause);
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
