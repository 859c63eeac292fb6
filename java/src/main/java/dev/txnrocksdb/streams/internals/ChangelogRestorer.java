package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.internals.nativeapi.BatchEncoder;
import dev.txnrocksdb.streams.internals.nativeapi.NativeStoreHandle;
import java.util.Collection;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.processor.internals.ChangelogRecordDeserializationHelper;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.query.Position;

/**
 * Restores a store from its changelog: one native call per batch, written straight to committed
 * data (as Kafka's own stores do; Kafka commits the store with the restored offset afterwards).
 * The changelog records are passed as they are (keys and values in the changelog's format, which
 * for window and session stores is the store-key format the native store decodes); a null value
 * is a delete. Positions come from the record headers exactly as in Kafka's
 * {@code RocksDBStore#restoreBatch}: only when the IQ consistency vector is enabled.
 */
public final class ChangelogRestorer implements RecordBatchingStateRestoreCallback {
    /** The native restore function of a store kind, e.g. {@code NativeKeyValueStore::restore}. */
    @FunctionalInterface
    public interface BatchRestore {
        /**
         * @param handle the native store handle
         * @param batch the records in the batch wire format of {@link BatchEncoder}
         */
        void restore(long handle, byte[] batch);
    }

    private final Supplier<NativeStoreHandle> handle;
    private final BatchRestore restore;
    private final Consumer<Collection<ConsumerRecord<byte[], byte[]>>> beforeBatch;
    private final PositionTracker positions;
    private final boolean consistencyEnabled;

    /**
     * @param handle the open store (read at each batch, so a reopened store is picked up)
     * @param restore the native call that applies one encoded batch
     * @param beforeBatch sees every non-empty batch before it is applied
     * @param positions where restored positions go
     * @param consistencyEnabled whether to read positions from changelog headers
     */
    public ChangelogRestorer(Supplier<NativeStoreHandle> handle, BatchRestore restore,
                             Consumer<Collection<ConsumerRecord<byte[], byte[]>>> beforeBatch, PositionTracker positions,
                             boolean consistencyEnabled) {
        this.handle = handle;
        this.restore = restore;
        this.beforeBatch = beforeBatch;
        this.positions = positions;
        this.consistencyEnabled = consistencyEnabled;
    }

    @Override
    public void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        if (records.isEmpty()) {
            return;
        }
        Position restored = Position.emptyPosition();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition(record, consistencyEnabled, restored);
        }
        beforeBatch.accept(records);
        byte[] batch = BatchEncoder.encode(records, ConsumerRecord::key, ConsumerRecord::value);
        handle.get().run(h -> restore.restore(h, batch));
        positions.mergeCommitted(restored);
    }
}
