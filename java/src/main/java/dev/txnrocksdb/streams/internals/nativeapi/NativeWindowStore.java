package dev.txnrocksdb.streams.internals.nativeapi;

/**
 * The JNI methods over one native transactional window store ({@code rust/jni/src/segmented.rs}).
 *
 * <p>Entries are stored under Kafka's {@code WindowKeySchema} store keys
 * {@code [key][8-byte BE window start][4-byte BE seqnum]}, grouped into time segments of
 * {@code segmentIntervalMs} inside ONE RocksDB instance, so a commit is atomic across segments and
 * iteration order is Kafka's (segment by segment, then store-key bytes). Stream time and expiry
 * follow Kafka's {@code AbstractRocksDBSegmentedBytesStore}: stream time is the newest window start
 * seen by put or restore (reset to -1 on open); a put into a segment older than
 * {@code segmentId(streamTime - retention)} is dropped; reads only return windows with
 * {@code start >= streamTime - retention + 1}.
 *
 * <p>Commit, committed offsets and position, rollback and sizes: call the
 * {@link NativeKeyValueStore} methods with {@link #engine(long)}. Iterators returned by
 * {@link #newIterator} are read and freed with {@link NativeKeyValueStore#iteratorNext} and
 * {@link NativeKeyValueStore#iteratorClose}; their chunks hold {@code [store key][value]} entries.
 * Errors arrive as the exceptions documented on {@link NativeKeyValueStore}.
 */
public final class NativeWindowStore {
    private NativeWindowStore() {}

    static {
        NativeLibrary.load();
    }

    /**
     * Opens (creating if needed) the store; uncommitted writes of an earlier process are gone (see
     * {@link NativeKeyValueStore#open} for recovery and the arguments they share).
     *
     * @param strategy {@code "indexed-batch"} or {@code "secondary-store"}
     * @throws IllegalArgumentException for a null path or strategy, or an unknown strategy
     */
    public static native long open(String path, boolean transactional, boolean syncCommit, String strategy,
                                   long retentionMs, long segmentIntervalMs);

    /** Frees the store; the handle and its engine pointer must not be used again. */
    public static native void close(long handle);

    /**
     * The store's engine as a handle for {@link NativeKeyValueStore}'s commit, committedOffsets,
     * committedPosition, rollback, approximateUncommittedBytes and approximateNumEntries. Borrowed:
     * valid until {@link #close}; never pass it to {@link NativeKeyValueStore#close}.
     */
    public static native long engine(long handle);

    /**
     * Stages the window {@code [key][windowStart][seq]} = value (null value: delete).
     *
     * @return false when the window's segment has expired and nothing was written
     */
    public static native boolean put(long handle, byte[] key, long windowStart, int seq, byte[] value);

    /** The value of exactly this window, or null when absent or expired. */
    public static native byte[] fetch(long handle, byte[] key, long windowStart, int seq, boolean committedOnly);

    /**
     * Windows of keys in [keyFrom, keyTo] (inclusive; null = unbounded) whose start lies in
     * [timeFrom, timeTo] and is still visible, in Kafka's order (reversed when {@code reverse}).
     * Use timeFrom=0, timeTo=Long.MAX_VALUE for {@code all()}.
     */
    public static native long newIterator(long handle, byte[] keyFrom, byte[] keyTo, long timeFrom, long timeTo,
                                          boolean reverse, boolean committedOnly);

    /** Applies a batch of changelog records (store keys as above; value length -1 = delete). */
    public static native void restore(long handle, byte[] batch);

    /** Current stream time (-1 before any put or restore since open). */
    public static native long streamTime(long handle);
}
