package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.internals.nativeapi.NativeStore;
import java.util.Collection;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.internals.ChangelogRecordDeserializationHelper;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.query.Position;

/**
 * Restores a store from its changelog: one native call per batch ({@link NativeStore#restore(Collection)}),
 * written straight to committed data (as Kafka's own stores do; Kafka commits the store with the
 * restored offset afterwards). The changelog records are passed as they are (keys and values in
 * the changelog's format, which for window and session stores is the store-key format the native
 * store decodes); a null value is a delete. Positions come from the record headers exactly as in
 * Kafka's {@code RocksDBStore#restoreBatch}: only when the IQ consistency vector is enabled.
 * Each batch restored is told to the store's {@link RestoreProgress}, which logs and publishes how
 * far a long restore has come (Kafka Streams gives a restore callback no totals).
 */
public final class ChangelogRestorer implements RecordBatchingStateRestoreCallback {
    private final Supplier<? extends NativeStore> store;
    private final PositionTracker positions;
    private final boolean consistencyEnabled;
    private final IntConsumer restoredRecords;
    private final RestoreProgress progress;

    /**
     * @param store the open store (read at each batch, so a reopened store is picked up); throws
     *     {@code InvalidStateStoreException} when there is none
     * @param positions where restored positions go
     * @param consistencyEnabled whether to read positions from changelog headers
     * @param restoredRecords told the size of every batch restored (metrics)
     * @param progress told the offsets and size of every batch restored (progress log and metrics)
     */
    public ChangelogRestorer(
            Supplier<? extends NativeStore> store,
            PositionTracker positions,
            boolean consistencyEnabled,
            IntConsumer restoredRecords,
            RestoreProgress progress) {
        this.store = store;
        this.positions = positions;
        this.consistencyEnabled = consistencyEnabled;
        this.restoredRecords = restoredRecords;
        this.progress = progress;
    }

    @Override
    public void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        if (records.isEmpty()) {
            return;
        }
        Position restored = Position.emptyPosition();
        ConsumerRecord<byte[], byte[]> first = null;
        ConsumerRecord<byte[], byte[]> last = null;
        for (ConsumerRecord<byte[], byte[]> record : records) {
            ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition(record, consistencyEnabled, restored);
            if (first == null) {
                first = record;
            }
            last = record;
        }
        store.get().restore(records);
        positions.mergeCommitted(restored);
        restoredRecords.accept(records.size());
        // after the batch is in the store: a batch that failed was not restored
        progress.restored(
                new TopicPartition(first.topic(), first.partition()), first.offset(), last.offset(), records.size());
    }
}
