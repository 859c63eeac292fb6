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
     * Opens (creating if needed) the store at {@code path}. This is recovery: uncommitted writes
     * of a previous process are gone, committed data and offsets are intact, and a
     * secondary-store commit that a crash interrupted after its commit file was written is rolled
     * forward (whichever strategy the store is opened with now).
     *
     * @param transactional true: writes are staged until {@link #commit}; false: write-through
     * @param syncCommit true: fsync the write-ahead log on every commit (survives power loss)
     * @param strategy where a transactional store keeps uncommitted writes: exactly
     *     {@code "indexed-batch"} or {@code "secondary-store"} (ignored when not transactional,
     *     but still checked)
     * @return the native handle
     * @throws IllegalArgumentException for a null path or strategy, or an unknown strategy
     *     ("unknown transaction strategy ...")
     */
    public static native long open(String path, boolean transactional, boolean syncCommit, String strategy);

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
     * Commits the staged writes, the offsets update and (if non-null) the position blob; returns
     * once they are durable per syncCommit. A crash at any point leaves either all of it or none
     * (indexed-batch: one atomic RocksDB write; secondary-store: the commit file decides, and
     * recovery rolls a decided commit forward). If it throws after a secondary-store commit file
     * was written, the store refuses writes and commits until {@link #rollback} rolls that commit
     * forward.
     */
    public static native void commit(long handle, byte[] offsets, byte[] position);

    /** Committed offsets, encoded as described above. */
    public static native byte[] committedOffsets(long handle);

    /** The position blob stored by the last commit, or null. */
    public static native byte[] committedPosition(long handle);

    /** Writes an encoded batch of changelog records straight to committed data (one call per batch). */
    public static native void restore(long handle, byte[] batch);

    /**
     * Drops all uncommitted writes. If a secondary-store commit failed half-way (its commit file
     * was written, then copying into the main store failed), rolls that commit forward instead:
     * the commit was decided, so afterwards its data, offsets and position are committed, and
     * {@link #committedOffsets} and {@link #committedPosition} may differ from before the call.
     *
     * @throws org.apache.kafka.streams.errors.ProcessorStateException if dropping the writes or
     *     rolling the commit forward fails (the store then stays unusable for writes until a
     *     rollback succeeds or it is reopened)
     */
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
