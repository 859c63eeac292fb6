package dev.txnrocksdb.streams.internals;

import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * A store's id at a snapshot location, {@code <application.id>/<store>/<partition>-<changelog topic
 * id>}: the folder its snapshots live under. The changelog topic's id makes a topic that was deleted
 * and recreated a new id, so that a new host never restores a snapshot of the old topic's offsets.
 * Application ids and store names are Kafka names ({@code [a-zA-Z0-9._-]}), so neither holds a
 * {@code /}; a topic id's text may hold {@code -}, the partition never does.
 *
 * @param applicationId the application's {@code application.id}
 * @param storeName the store's name
 * @param partition the changelog partition's number (the task's partition)
 * @param topicId the changelog topic's id
 */
public record SnapshotStoreId(String applicationId, String storeName, int partition, Uuid topicId) {
    public SnapshotStoreId {
        Objects.requireNonNull(applicationId, "applicationId cannot be null");
        Objects.requireNonNull(storeName, "storeName cannot be null");
        Objects.requireNonNull(topicId, "topicId cannot be null");
    }

    /** The id as a location holds it. */
    @Override
    public String toString() {
        return applicationId + "/" + storeName + "/" + partition + "-" + topicId;
    }

    /** The id {@code id} names, or empty when it is not one {@link #toString()} makes. */
    public static Optional<SnapshotStoreId> parse(String id) {
        String[] parts = id.split("/", -1);
        if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty()) return Optional.empty();
        int dash = parts[2].indexOf('-');
        if (dash <= 0) return Optional.empty();
        try {
            int partition = Integer.parseInt(parts[2].substring(0, dash));
            Uuid topicId = Uuid.fromString(parts[2].substring(dash + 1));
            if (partition < 0) return Optional.empty();
            return Optional.of(new SnapshotStoreId(parts[0], parts[1], partition, topicId));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
