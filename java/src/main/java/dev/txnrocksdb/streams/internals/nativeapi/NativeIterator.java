package dev.txnrocksdb.streams.internals.nativeapi;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.NoSuchElementException;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * A {@link KeyValueIterator} over a native iterator of any store kind ({@code rust/jni/src/iterator.rs})
 * that crosses JNI once per chunk of entries rather than per entry. Entries are the store's keys as
 * stored (for window and session stores, Kafka's store keys) and their values.
 *
 * <p>Opened by a native store, its {@link Owner}, which tracks it: every chunk is read under the
 * store's read lock, and closing the store closes the iterator first, so the native iterator
 * never outlives the store that made it.
 *
 * <p>Meant for one thread at a time, like Kafka's own store iterators; only {@link #close()} may
 * come from another thread (the store closing). After either close, {@link #hasNext()},
 * {@link #next()} and {@link #peekNextKey()} throw {@link InvalidStateStoreException}.
 */
public final class NativeIterator implements KeyValueIterator<Bytes, byte[]> {
    /** Entries per JNI call: amortizes the call while keeping a short scan cheap. */
    static final int CHUNK_MAX_ENTRIES = 256;
    /** Soft byte limit per chunk (the native side always returns at least one entry). */
    static final int CHUNK_MAX_BYTES = 1 << 20;
    /**
     * Initial size of an iterator's chunk buffer: small, since most iterators (a fetch, a
     * findSessions) return a few entries; it grows to the first chunk that needs more and is then
     * reused for every chunk.
     */
    static final int CHUNK_BUFFER_BYTES = 4 << 10;

    static {
        NativeLibrary.load();
    }

    /** What an iterator needs of the store that opened it and tracks it. */
    interface Owner {
        /** Enters a native call on the store (its read lock). Throws if the store is closed. */
        void enter();

        /** Leaves the native call {@link #enter()} entered. */
        void leave();

        /** The store's name, for messages. */
        String storeName();

        /** Its user closed the iterator: the store forgets it and frees it unless it did. */
        void closed(NativeIterator iterator);
    }

    private final Owner owner;
    private final long iterator;
    /** Guards the native iterator: a fetch and a free never overlap. Taken after the store lock. */
    private final Object nativeLock = new Object();

    private boolean nativeOpen = true;

    private volatile boolean closed;
    private volatile boolean closedByStore;
    /** The chunks' buffer, reused (the entries are copied out of it before the next fetch). */
    private byte[] buffer;

    private ByteBuffer chunk;
    private boolean exhausted;
    private KeyValue<Bytes, byte[]> next;

    NativeIterator(Owner owner, long iterator) {
        this.owner = owner;
        this.iterator = iterator;
    }

    @Override
    public boolean hasNext() {
        ensureOpen();
        if (next != null) {
            return true;
        }
        while (chunk == null || !chunk.hasRemaining()) {
            if (exhausted) {
                return false;
            }
            int length;
            owner.enter();
            try {
                length = fetchChunk();
            } finally {
                owner.leave();
            }
            if (length == 0) {
                exhausted = true;
                chunk = null;
                return false;
            }
            chunk = ByteBuffer.wrap(buffer, 0, length);
        }
        next = decodeEntry();
        return true;
    }

    @Override
    public KeyValue<Bytes, byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException("no more entries in the iterator over store " + owner.storeName());
        }
        KeyValue<Bytes, byte[]> entry = next;
        next = null;
        return entry;
    }

    @Override
    public Bytes peekNextKey() {
        if (!hasNext()) {
            throw new NoSuchElementException("no more entries in the iterator over store " + owner.storeName());
        }
        return next.key;
    }

    /**
     * Whether the store closed this iterator (rather than its user). Kafka's segmented stores
     * report such an iterator as exhausted instead of throwing.
     */
    public boolean isClosedByStore() {
        return closedByStore;
    }

    /** Closes the iterator and frees the native one (at most once). Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        chunk = null;
        next = null;
        owner.closed(this);
    }

    /** Called by the owning store, under its write lock, when the store closes. */
    void closeBecauseStoreClosed() {
        closedByStore = true;
        closed = true;
        freeNative();
    }

    /** Frees the native iterator unless already freed. The caller holds the store lock. */
    void freeNative() {
        synchronized (nativeLock) {
            if (nativeOpen) {
                nativeOpen = false;
                close(iterator);
            }
        }
    }

    /**
     * Runs under the store's read lock: reads the next chunk into {@link #buffer} (growing it when
     * one entry needs more) and returns its length, or 0 once the iterator is exhausted.
     */
    private int fetchChunk() {
        synchronized (nativeLock) {
            if (!nativeOpen) {
                return 0;
            }
            if (buffer == null) {
                buffer = new byte[CHUNK_BUFFER_BYTES];
            }
            int length = next(iterator, buffer, CHUNK_MAX_ENTRIES, CHUNK_MAX_BYTES);
            while (length < 0) {
                buffer = new byte[Math.max(-length, Math.min(buffer.length * 2, CHUNK_MAX_BYTES))];
                length = next(iterator, buffer, CHUNK_MAX_ENTRIES, CHUNK_MAX_BYTES);
            }
            if (length == 0) {
                // Exhausted: release the native snapshot now rather than at close().
                nativeOpen = false;
                close(iterator);
            }
            return length;
        }
    }

    private KeyValue<Bytes, byte[]> decodeEntry() {
        try {
            byte[] key = new byte[chunk.getInt()];
            chunk.get(key);
            byte[] value = new byte[chunk.getInt()];
            chunk.get(value);
            return KeyValue.pair(Bytes.wrap(key), value);
        } catch (BufferUnderflowException | NegativeArraySizeException e) {
            throw new ProcessorStateException(
                    "malformed iterator chunk from the native store " + owner.storeName() + " (" + chunk.capacity()
                            + " bytes)",
                    e);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new InvalidStateStoreException(
                    closedByStore
                            ? "Iterator over store " + owner.storeName() + " has closed because the store was closed"
                            : "Iterator over store " + owner.storeName() + " has closed");
        }
    }

    // ---------------------------------------------------------------- natives (rust/jni/src/iterator.rs)

    /**
     * Writes the next chunk of at most maxEntries entries (and about maxBytes bytes, but always at
     * least one entry), in the chunk format, to the start of buffer. Returns its length; 0 once
     * the iterator is exhausted; minus the chunk's length when it does not fit buffer (the chunk
     * is kept: call again with a buffer at least that big).
     */
    private static native int next(long iterator, byte[] buffer, int maxEntries, int maxBytes);

    /** Frees the native iterator; the handle must not be used again. */
    private static native void close(long iterator);
}
