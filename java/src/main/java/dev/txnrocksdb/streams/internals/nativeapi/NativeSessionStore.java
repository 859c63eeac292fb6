package dev.txnrocksdb.streams.internals.nativeapi;

/**
 * The JNI methods over one native transactional session store ({@code rust/jni/src/segmented.rs}).
 *
 * <p>Entries are stored under Kafka's {@code SessionKeySchema} store keys
 * {@code [key][8-byte BE end][8-byte BE start]}, grouped by session end into time segments inside
 * ONE RocksDB instance; order, stream time and expiry follow Kafka's {@code RocksDBSessionStore}
 * (reads only return sessions with {@code end >= streamTime - retention + 1}).
 *
 * <p>Commit, offsets, rollback and sizes: the {@link NativeKeyValueStore} methods on
 * {@link #engine(long)}. Iterators: {@link NativeKeyValueStore#iteratorNext} /
 * {@link NativeKeyValueStore#iteratorClose}, chunks of {@code [store key][aggregate]}.
 */
public final class NativeSessionStore {
    private NativeSessionStore() {}

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

    /** The store's engine for {@link NativeKeyValueStore}'s shared methods; see NativeWindowStore#engine. */
    public static native long engine(long handle);

    /**
     * Stages session [start, end] of key = aggregate (null: delete).
     *
     * @return false when the session's segment has expired and nothing was written
     */
    public static native boolean put(long handle, byte[] key, long start, long end, byte[] aggregate);

    /** Kafka's remove: deletes the session (advances stream time, no expiry check). */
    public static native void remove(long handle, byte[] key, long start, long end);

    /** The aggregate of exactly this session, or null when absent or expired. */
    public static native byte[] fetchSession(long handle, byte[] key, long start, long end, boolean committedOnly);

    /**
     * Kafka's findSessions: sessions of keys in [keyFrom, keyTo] (inclusive; null = unbounded)
     * with {@code end >= earliestSessionEndTime} and {@code start <= latestSessionStartTime}.
     */
    public static native long newIterator(long handle, byte[] keyFrom, byte[] keyTo, long earliestSessionEndTime,
                                          long latestSessionStartTime, boolean reverse, boolean committedOnly);

    /**
     * Sessions of any key whose end lies in [earliestEnd, latestEnd], in segments that have not
     * expired, with no per-record retention filter (Kafka's emit-final session store's
     * {@code findSessions(long, long)}), in the engine's order (segment, key, end, start).
     */
    public static native long newTimeRangeIterator(long handle, long earliestEnd, long latestEnd, boolean committedOnly);

    /** Current stream time: the newest session end seen by put, remove or restore since open (-1 before). */
    public static native long streamTime(long handle);

    /** Applies a batch of changelog records (store keys as above; value length -1 = delete). */
    public static native void restore(long handle, byte[] batch);
}
