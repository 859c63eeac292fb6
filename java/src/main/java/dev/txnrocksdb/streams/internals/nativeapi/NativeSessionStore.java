package dev.txnrocksdb.streams.internals.nativeapi;

import java.nio.file.Path;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * One open native transactional session store ({@code rust/jni/src/session.rs}): its reads and
 * writes; commit, offsets, restore and close are {@link NativeStore}'s.
 *
 * <p>Entries are stored under Kafka's {@code SessionKeySchema} store keys
 * {@code [key][8-byte BE end][8-byte BE start]}, grouped by session end into time segments inside
 * ONE RocksDB instance; order, stream time and expiry follow Kafka's {@code RocksDBSessionStore}
 * (reads only return sessions with {@code end > streamTime - retention}). Restore reads each
 * record's session end from its changelog key. Iterator chunks hold {@code [store key][aggregate]}
 * entries.
 */
public final class NativeSessionStore extends NativeStore {
    private NativeSessionStore(String storeName, long handle) {
        super(storeName, handle);
    }

    /**
     * Opens (creating if needed) the store in {@code dir}; uncommitted writes of an earlier
     * process are gone (see {@link NativeKeyValueStore#open} for recovery and the arguments they
     * share).
     *
     * @param storeName the Kafka store name, used in exception messages
     * @param dir the store's directory
     * @param options transactional or write-through, commit sync, strategy, corruption policy
     * @param retentionMs how long sessions are kept after they end, in ms
     * @param segmentIntervalMs the time segment size in ms
     * @throws IllegalArgumentException if {@code retentionMs} is negative or
     *     {@code segmentIntervalMs} is not positive
     * @throws org.apache.kafka.streams.errors.ProcessorStateException if RocksDB cannot open the store
     */
    public static NativeSessionStore open(
            String storeName, Path dir, OpenOptions options, long retentionMs, long segmentIntervalMs) {
        long handle = open(nativePath(dir), options.encode(), retentionMs, segmentIntervalMs);
        return new NativeSessionStore(storeName, handle);
    }

    /**
     * Stages session {@code [start, end]} of {@code key} = aggregate (null: delete), advancing
     * stream time first, as Kafka does.
     *
     * @return false when the session's segment has expired and nothing was written
     * @throws InvalidStateStoreException if the store is closed
     */
    public boolean put(byte[] key, long start, long end, byte[] aggregate) {
        long h = acquire();
        try {
            return put(h, key, start, end, aggregate);
        } finally {
            release();
        }
    }

    /**
     * Kafka's remove: deletes the session (advances stream time, no expiry check).
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public void remove(byte[] key, long start, long end) {
        long h = acquire();
        try {
            remove(h, key, start, end);
        } finally {
            release();
        }
    }

    /**
     * The aggregate of exactly this session, or null when absent or no longer visible.
     *
     * @param committedOnly true: ignore uncommitted writes
     * @throws InvalidStateStoreException if the store is closed
     */
    public byte[] fetchSession(byte[] key, long start, long end, boolean committedOnly) {
        long h = acquire();
        try {
            return fetchSession(h, key, start, end, committedOnly);
        } finally {
            release();
        }
    }

    /**
     * Kafka's findSessions: an iterator over the sessions of keys in {@code [keyFrom, keyTo]}
     * (inclusive; null = unbounded) with {@code end >= earliestSessionEndTime} and
     * {@code start <= latestSessionStartTime}, still visible, in Kafka's order (reversed when
     * {@code reverse}). The store tracks it and closes it if the store closes first.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public NativeIterator newIterator(
            byte[] keyFrom,
            byte[] keyTo,
            long earliestSessionEndTime,
            long latestSessionStartTime,
            boolean reverse,
            boolean committedOnly) {
        long h = acquire();
        try {
            return track(newIterator(
                    h, keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime, reverse, committedOnly));
        } finally {
            release();
        }
    }

    /**
     * An iterator over the sessions of any key whose end lies in {@code [earliestEnd, latestEnd]},
     * in segments that have not expired, with no per-record retention filter (Kafka's emit-final
     * session store's {@code findSessions(long, long)}), in the engine's order (segment, key, end,
     * start). The store tracks it and closes it if the store closes first.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public NativeIterator newTimeRangeIterator(long earliestEnd, long latestEnd, boolean committedOnly) {
        long h = acquire();
        try {
            return track(newTimeRangeIterator(h, earliestEnd, latestEnd, committedOnly));
        } finally {
            release();
        }
    }

    // ---------------------------------------------------------------- natives (rust/jni/src/session.rs)

    /**
     * @param options {@link OpenOptions#encode()}
     * @throws IllegalArgumentException for a null argument, a malformed options record (naming what
     *     was wrong: an unknown code, a truncated record) or a negative spill size
     */
    private static native long open(String path, byte[] options, long retentionMs, long segmentIntervalMs);

    private static native boolean put(long handle, byte[] key, long start, long end, byte[] aggregate);

    private static native void remove(long handle, byte[] key, long start, long end);

    private static native byte[] fetchSession(long handle, byte[] key, long start, long end, boolean committedOnly);

    private static native long newIterator(
            long handle,
            byte[] keyFrom,
            byte[] keyTo,
            long earliestSessionEndTime,
            long latestSessionStartTime,
            boolean reverse,
            boolean committedOnly);

    private static native long newTimeRangeIterator(
            long handle, long earliestEnd, long latestEnd, boolean committedOnly);
}
