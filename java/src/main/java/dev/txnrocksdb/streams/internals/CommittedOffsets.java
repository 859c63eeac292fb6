package dev.txnrocksdb.streams.internals;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * The changelog offsets durable in a store, mirrored in memory so that
 * {@code committedOffset(partition)} needs no native call. Loaded when the store opens and updated
 * after every successful commit with the same rules the native store applies.
 */
public final class CommittedOffsets {
    private final Map<TopicPartition, Long> offsets;

    /** @param loaded the offsets read from the store when it opened */
    public CommittedOffsets(Map<TopicPartition, Long> loaded) {
        this.offsets = new HashMap<>(loaded);
    }

    /** The committed offset of a partition, or null. */
    public synchronized Long get(TopicPartition partition) {
        return offsets.get(partition);
    }

    /**
     * Applies a committed update: an empty map clears every offset, a null value removes that
     * partition's offset, any other value replaces it.
     */
    public synchronized void apply(Map<TopicPartition, Long> update) {
        if (update.isEmpty()) {
            offsets.clear();
            return;
        }
        for (Map.Entry<TopicPartition, Long> entry : update.entrySet()) {
            if (entry.getValue() == null) {
                offsets.remove(entry.getKey());
            } else {
                offsets.put(entry.getKey(), entry.getValue());
            }
        }
    }

    /** Replaces every offset with those read back from the store (after a recovery). */
    public synchronized void replaceWith(Map<TopicPartition, Long> loaded) {
        offsets.clear();
        offsets.putAll(loaded);
    }

    /** A copy of every committed offset. */
    public synchronized Map<TopicPartition, Long> snapshot() {
        return new HashMap<>(offsets);
    }

    /** The partition, if exactly one partition has a committed offset. */
    public synchronized Optional<TopicPartition> onlyPartition() {
        return offsets.size() == 1 ? Optional.of(offsets.keySet().iterator().next()) : Optional.empty();
    }
}
