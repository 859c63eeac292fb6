package dev.txnrocksdb.streams.internals.nativeapi;

/**
 * The JNI methods over one native transactional key-value store ({@code rust/jni/src/kv.rs}).
 *
 * <p>Every method is static and takes the native handle as its first argument. A handle is only
 * valid between {@link #open} and {@link #close}; the owning Java object guarantees that it never
 * passes a closed handle (see {@code NativeStoreHandle}). Errors arrive as Java exceptions:
 * {@code org.apache.kafka.streams.errors.ProcessorStateException} for storage errors (message names
 * the store path and carries RocksDB's message), {@link IllegalArgumentException} for malformed
 * input, {@code org.apache.kafka.streams.errors.InvalidStateStoreException} for a closed store or
 * iterator, and {@code ProcessorStateException} with "native panic" for a bug in the native code.
 *
 * <p>Wire formats (all integers big-endian):
 * <ul>
 *   <li>batch (putAll, restore): repeated {@code [int32 keyLen][key][int32 valueLen or -1][value]};
 *       a value length of -1 is a delete.</li>
 *   <li>chunk (iteratorNext): repeated {@code [int32 keyLen][key][int32 valueLen][value]}.</li>
 *   <li>offsets (commit): {@code [int32 count]} then per entry
 *       {@code [int32 topicLen][topic UTF-8][int32 partition][byte hasOffset][int64 offset]};
 *       hasOffset=0 removes that partition's offset; count=0 clears all offsets.</li>
 *   <li>offsets (committedOffsets): {@code [int32 count]} then per entry
 *       {@code [int32 topicLen][topic UTF-8][int32 partition][int64 offset]}.</li>
 * </ul>
 */
public final class NativeKeyValueStore {
    private NativeKeyValueStore() {}

    static {
        NativeLibrary.load();
    }

    /**
     * Opens (creating if needed) the store at {@code path}. Uncommitted writes of a previous
     * process are gone; committed data and offsets are intact.
     *
     * @param transactional true: writes are staged until {@link #commit}; false: write-through
     * @param syncCommit true: fsync the write-ahead log on every commit (survives power loss)
     * @return the native handle
     */
    public static native long open(String path, boolean transactional, boolean syncCommit);

    /** Value of key (uncommitted writes included unless committedOnly), or null. */
    public static native byte[] get(long handle, byte[] key, boolean committedOnly);

    /** Stages key=value; a null value stages a delete. */
    public static native void put(long handle, byte[] key, byte[] value);

    /** Stages key=value only when key has no visible value; returns the visible value or null. */
    public static native byte[] putIfAbsent(long handle, byte[] key, byte[] value);

    /** Stages every entry of an encoded batch in one call. */
    public static native void putAll(long handle, byte[] batch);

    /** Stages a delete; returns the value it hid, or null. */
    public static native byte[] delete(long handle, byte[] key);

    /**
     * Opens an iterator over [from, to] ({@code toInclusive}) or [from, to); a null bound is
     * unbounded. The iterator sees a consistent snapshot of committed data as of this call plus
     * the uncommitted writes (unless committedOnly).
     */
    public static native long newIterator(long handle, byte[] from, byte[] to, boolean toInclusive,
                                          boolean reverse, boolean committedOnly);

    /**
     * Next chunk of at most maxEntries entries (and roughly maxBytes bytes, but always at least
     * one entry), encoded as a chunk; null once the iterator is exhausted.
     */
    public static native byte[] iteratorNext(long iterator, int maxEntries, int maxBytes);

    /** Frees the iterator; the handle must not be used again. */
    public static native void iteratorClose(long iterator);

    /**
     * Atomically writes the staged writes, the offsets update and (if non-null) the position
     * blob. Returns once the write is durable per syncCommit.
     */
    public static native void commit(long handle, byte[] offsets, byte[] position);

    /** Committed offsets, encoded as described above. */
    public static native byte[] committedOffsets(long handle);

    /** The position blob stored by the last commit, or null. */
    public static native byte[] committedPosition(long handle);

    /** Writes an encoded batch of changelog records straight to committed data (one call per batch). */
    public static native void restore(long handle, byte[] batch);

    /** Drops all uncommitted writes. */
    public static native void rollback(long handle);

    /** Bytes held by uncommitted writes. */
    public static native long approximateUncommittedBytes(long handle);

    /** Estimate of the number of committed keys plus staged writes. */
    public static native long approximateNumEntries(long handle);

    /**
     * Sets the process-wide memory budget shared by every store: one LRU block cache of
     * {@code blockCacheBytes} and a write-buffer manager of {@code writeBufferBytes} whose memtables
     * are charged to that cache. Only takes effect before the first {@link #open}; returns false
     * (and changes nothing) afterwards.
     */
    public static native boolean configureMemory(long blockCacheBytes, long writeBufferBytes);

    /** Closes the store, dropping uncommitted writes; the handle must not be used again. */
    public static native void close(long handle);
}
