package dev.txnrocksdb.streams.internals.nativeapi;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open native store (key-value, window, session or versioned) and what every kind shares: commit,
 * committed offsets and position, rollback, restore, sizes and close. Natives in
 * {@code rust/jni/src/store.rs}; the kinds add their reads and writes in
 * {@link NativeKeyValueStore}, {@link NativeWindowStore} and {@link NativeSessionStore}.
 *
 * <p><b>Ownership.</b> The object owns exactly one native handle, freed exactly once by
 * {@link #close()} (compare-and-set), and every {@link NativeIterator} opened on it. Every native
 * call runs under the read lock after checking that the store is open, so calls from the stream
 * thread and from interactive-query threads proceed in parallel; {@link #close()} takes the write
 * lock, so it waits for running calls, closes the open iterators and then frees the store, and no
 * call can start on a freed handle. A call after close throws
 * {@link InvalidStateStoreException} ("Store &lt;name&gt; is currently closed").
 *
 * <p><b>Errors</b> arrive as Java exceptions chosen by kind: {@link ProcessorStateException} for
 * storage errors (the message names the store path and carries RocksDB's message),
 * {@link IllegalArgumentException} for malformed input, {@link InvalidStateStoreException} for a
 * closed store or iterator, and {@code ProcessorStateException} with "native panic" for a bug in
 * the native code.
 *
 * <p><b>Wire formats</b> (all integers big-endian):
 * <ul>
 *   <li>batch ({@link #restore}, {@link NativeKeyValueStore#putAll}): {@link BatchEncoder}'s,
 *       repeated {@code [int32 keyLen][key][int32 valueLen or -1][value]}; -1 is a delete.</li>
 *   <li>chunk ({@link NativeIterator}): repeated {@code [int32 keyLen][key][int32 valueLen][value]}.</li>
 *   <li>offsets: {@link OffsetsCodec}'s, encoded and decoded here.</li>
 * </ul>
 */
public abstract class NativeStore implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NativeStore.class);

    static {
        NativeLibrary.load();
    }

    private final String storeName;
    private final long handle;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final Set<NativeIterator> openIterators = ConcurrentHashMap.newKeySet();
    /** This store as its iterators see it (without widening what the store offers its callers). */
    private final NativeIterator.Owner iteratorOwner = new NativeIterator.Owner() {
        @Override
        public void enter() {
            acquire();
        }

        @Override
        public void leave() {
            release();
        }

        @Override
        public String storeName() {
            return NativeStore.this.storeName();
        }

        @Override
        public void closed(NativeIterator iterator) {
            iteratorClosed(iterator);
        }
    };

    /**
     * @param storeName the Kafka store name, used in exception messages
     * @param handle the handle a kind's native {@code open} returned; owned from now on
     */
    NativeStore(String storeName, long handle) {
        this.storeName = storeName;
        this.handle = handle;
    }

    /** The path string the native {@code open} functions take. */
    static String nativePath(Path dir) {
        return dir.toAbsolutePath().toString();
    }

    /** The Kafka store name this store belongs to. */
    public final String storeName() {
        return storeName;
    }

    /** True until {@link #close()} starts. */
    public final boolean isOpen() {
        return open.get();
    }

    /**
     * Commits the staged writes, the offsets update and (if non-null) the position blob; returns
     * once they are durable per the store's sync setting. A crash at any point leaves either all
     * of it or none (indexed-batch: one atomic RocksDB write; secondary-store: one atomic write, or a copy
     * behind a commit record that recovery rolls forward). If it throws after a secondary-store
     * commit record was written, the store refuses writes and commits until {@link #rollback} rolls
     * that commit forward.
     *
     * @param offsets the changelog offsets update: an empty map clears every committed offset, a
     *     null value removes that partition's offset, any other value (including Kafka's
     *     {@code -4}) is stored as given
     * @param position the encoded position to store with the commit, or null to keep the stored one
     * @throws InvalidStateStoreException if the store is closed
     * @throws ProcessorStateException if the commit fails
     */
    public final void commit(Map<TopicPartition, Long> offsets, byte[] position) {
        byte[] encodedOffsets = OffsetsCodec.encodeUpdates(offsets);
        long h = acquire();
        try {
            commit(h, encodedOffsets, position);
        } finally {
            release();
        }
    }

    /**
     * The committed changelog offsets.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public final Map<TopicPartition, Long> committedOffsets() {
        byte[] encoded;
        long h = acquire();
        try {
            encoded = committedOffsets(h);
        } finally {
            release();
        }
        return OffsetsCodec.decodeOffsets(encoded);
    }

    /**
     * The position blob stored by the last commit, or null if none was stored.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public final byte[] committedPosition() {
        long h = acquire();
        try {
            return committedPosition(h);
        } finally {
            release();
        }
    }

    /**
     * Drops all uncommitted writes. If a secondary-store commit failed half-way (its commit record
     * was written, then copying into the main store failed), rolls that commit forward instead:
     * the commit was decided, so afterwards its data, offsets and position are committed, and
     * {@link #committedOffsets} and {@link #committedPosition} may differ from before the call.
     *
     * @throws InvalidStateStoreException if the store is closed
     * @throws ProcessorStateException if dropping the writes or rolling the commit forward fails
     *     (the store then stays unusable for writes until a rollback succeeds or it is reopened)
     */
    public final void rollback() {
        long h = acquire();
        try {
            rollback(h);
        } finally {
            release();
        }
    }

    /**
     * Writes a batch of changelog records straight to committed data, one native call per batch.
     * Keys are the changelog's: for window and session stores, Kafka's store keys, from which the
     * native store reads each record's time segment; a null value deletes (for the versioned
     * store: is a tombstone at the record's timestamp).
     *
     * @param records the changelog records, as Kafka's restore hands them over
     * @throws InvalidStateStoreException if the store is closed
     * @throws IllegalArgumentException if a window or session key is too short for its store
     */
    public final void restore(Collection<ConsumerRecord<byte[], byte[]>> records) {
        restore(encodeRestoreBatch(records));
    }

    /**
     * A changelog batch in the restore format of this kind of store: {@link BatchEncoder#encode}
     * of keys and values as they are in the changelog (the versioned store adds each record's
     * timestamp).
     */
    byte[] encodeRestoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        return BatchEncoder.encode(records, ConsumerRecord::key, ConsumerRecord::value);
    }

    /**
     * Applies one encoded batch of changelog records straight to committed data (see
     * {@link #restore(Collection)}).
     *
     * @param batch the records in {@link #encodeRestoreBatch}'s format
     * @throws InvalidStateStoreException if the store is closed
     * @throws IllegalArgumentException if the batch is malformed, or a window or session key is
     *     too short for its store
     */
    public final void restore(byte[] batch) {
        long h = acquire();
        try {
            restore(h, batch);
        } finally {
            release();
        }
    }

    /**
     * Bytes held by uncommitted writes.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public final long approximateUncommittedBytes() {
        long h = acquire();
        try {
            return approximateUncommittedBytes(h);
        } finally {
            release();
        }
    }

    /**
     * Estimate of the number of committed keys plus staged writes ({@link Long#MAX_VALUE} at most).
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public final long approximateNumEntries() {
        long h = acquire();
        try {
            return approximateNumEntries(h);
        } finally {
            release();
        }
    }

    /** Number of iterators opened on this store and not yet closed. */
    public final int openIteratorCount() {
        return openIterators.size();
    }

    /**
     * Closes the store: waits for running calls, closes every open iterator, then frees the native
     * store (dropping uncommitted writes). Idempotent.
     */
    @Override
    public final void close() {
        Lock write = lock.writeLock();
        write.lock();
        try {
            if (!open.compareAndSet(true, false)) {
                return;
            }
            List<NativeIterator> iterators = new ArrayList<>(openIterators);
            openIterators.clear();
            if (!iterators.isEmpty()) {
                log.warn("Closing {} open iterators for store {}", iterators.size(), storeName);
            }
            for (NativeIterator iterator : iterators) {
                try {
                    iterator.closeBecauseStoreClosed();
                } catch (RuntimeException e) {
                    log.error("Error closing an open iterator of store {}", storeName, e);
                }
            }
            close(handle);
        } finally {
            write.unlock();
        }
    }

    // ---------------------------------------------------------------- for the kinds and iterators

    /**
     * Enters a native call: takes the read lock and returns the handle. Every {@code acquire()}
     * is paired with {@link #release()} in a {@code finally}.
     *
     * @throws InvalidStateStoreException if the store is closed (the lock is then not held)
     */
    final long acquire() {
        Lock read = lock.readLock();
        read.lock();
        if (!open.get()) {
            read.unlock();
            throw new InvalidStateStoreException("Store " + storeName + " is currently closed");
        }
        return handle;
    }

    /** Leaves a native call entered with {@link #acquire()}. */
    final void release() {
        lock.readLock().unlock();
    }

    /**
     * Wraps a native iterator just opened on this store and tracks it, so that closing the store
     * closes it first. Called between {@link #acquire()} and {@link #release()}.
     */
    final NativeIterator track(long iterator) {
        NativeIterator wrapper = new NativeIterator(iteratorOwner, iterator);
        openIterators.add(wrapper);
        return wrapper;
    }

    /** Called by an iterator that its user closed: forget it and free it unless the store did. */
    final void iteratorClosed(NativeIterator iterator) {
        openIterators.remove(iterator);
        Lock read = lock.readLock();
        read.lock();
        try {
            if (open.get()) {
                iterator.freeNative();
            }
        } finally {
            read.unlock();
        }
    }

    // ---------------------------------------------------------------- natives (rust/jni/src/store.rs)

    /**
     * The engine's default secondary-store spill size ({@code DEFAULT_SPILL_BYTES}), which the
     * default of {@code txn.rocksdb.secondary.store.spill.bytes} repeats (a test compares them).
     */
    static native long defaultSpillBytes();

    /** Frees the store (dropping uncommitted writes); the handle must not be used again. */
    private static native void close(long handle);

    /** Offsets in {@link OffsetsCodec#encodeUpdates}'s format; position may be null. */
    private static native void commit(long handle, byte[] offsets, byte[] position);

    /** Committed offsets in {@link OffsetsCodec#decodeOffsets}'s format. */
    private static native byte[] committedOffsets(long handle);

    private static native byte[] committedPosition(long handle);

    private static native void restore(long handle, byte[] batch);

    private static native void rollback(long handle);

    private static native long approximateUncommittedBytes(long handle);

    private static native long approximateNumEntries(long handle);
}
