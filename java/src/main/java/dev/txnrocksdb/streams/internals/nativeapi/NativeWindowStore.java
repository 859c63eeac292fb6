package dev.txnrocksdb.streams.internals.nativeapi;

import java.nio.file.Path;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * One open native transactional window store ({@code rust/jni/src/window.rs}): its reads and
 * writes; commit, offsets, restore and close are {@link NativeStore}'s.
 *
 * <p>Entries are stored under Kafka's {@code WindowKeySchema} store keys
 * {@code [key][8-byte BE window start][4-byte BE seqnum]}, grouped into time segments of
 * {@code segmentIntervalMs} inside ONE RocksDB instance, so a commit is atomic across segments and
 * iteration order is Kafka's (segment by segment, then store-key bytes). Stream time and expiry
 * follow Kafka's segmented stores, decided by the native store: stream time is the newest window
 * start seen by put or restore (reset to -1 on open); a put into a segment older than
 * {@code segmentId(streamTime - retention)} is dropped; reads return windows with
 * {@code start > streamTime - retention}, or {@code start >= streamTime - retention} when the
 * store is opened with {@link RetentionEdge#INCLUDED}. Restore reads each record's window start
 * from its changelog key. Iterator chunks hold {@code [store key][value]} entries.
 */
public final class NativeWindowStore extends NativeStore {
    /** Whether reads still return windows that start exactly at {@code streamTime - retention}. */
    public enum RetentionEdge {
        /** No: {@code start > streamTime - retention} (Kafka's {@code RocksDBWindowStore}). */
        EXCLUDED,
        /** Yes: {@code start >= streamTime - retention} (Kafka's {@code RocksDBTimeOrderedWindowStore}). */
        INCLUDED
    }

    private NativeWindowStore(String storeName, long handle) {
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
     * @param retentionMs how long windows are kept, in ms
     * @param segmentIntervalMs the time segment size in ms
     * @param edge whether reads return windows exactly at the retention edge
     * @throws IllegalArgumentException if {@code retentionMs} is negative or
     *     {@code segmentIntervalMs} is not positive
     * @throws org.apache.kafka.streams.errors.ProcessorStateException if RocksDB cannot open the store
     */
    public static NativeWindowStore open(
            String storeName,
            Path dir,
            OpenOptions options,
            long retentionMs,
            long segmentIntervalMs,
            RetentionEdge edge) {
        long handle =
                open(nativePath(dir), options.encode(), retentionMs, segmentIntervalMs, edge == RetentionEdge.INCLUDED);
        return new NativeWindowStore(storeName, handle);
    }

    /**
     * Stages the window {@code [key][windowStart][seq]} = value (null value: delete), advancing
     * stream time first, as Kafka does.
     *
     * @return false when the window's segment has expired and nothing was written
     * @throws InvalidStateStoreException if the store is closed
     */
    public boolean put(byte[] key, long windowStart, int seq, byte[] value) {
        long h = acquire();
        try {
            return put(h, key, windowStart, seq, value);
        } finally {
            release();
        }
    }

    /**
     * The value of exactly this window, or null when absent or no longer visible.
     *
     * @param committedOnly true: ignore uncommitted writes
     * @throws InvalidStateStoreException if the store is closed
     */
    public byte[] fetch(byte[] key, long windowStart, int seq, boolean committedOnly) {
        long h = acquire();
        try {
            return fetch(h, key, windowStart, seq, committedOnly);
        } finally {
            release();
        }
    }

    /**
     * Opens an iterator over the windows of keys in {@code [keyFrom, keyTo]} (inclusive; null =
     * unbounded) whose start lies in {@code [timeFrom, timeTo]} and is still visible, in Kafka's
     * order (reversed when {@code reverse}); {@code timeFrom = 0, timeTo = Long.MAX_VALUE} is
     * {@code all()}. The store tracks it and closes it if the store closes first.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public NativeIterator newIterator(
            byte[] keyFrom, byte[] keyTo, long timeFrom, long timeTo, boolean reverse, boolean committedOnly) {
        long h = acquire();
        try {
            return track(newIterator(h, keyFrom, keyTo, timeFrom, timeTo, reverse, committedOnly));
        } finally {
            release();
        }
    }

    /**
     * Current stream time: the newest window start seen by put or restore since open (-1 before).
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public long streamTime() {
        long h = acquire();
        try {
            return streamTime(h);
        } finally {
            release();
        }
    }

    // ---------------------------------------------------------------- natives (rust/jni/src/window.rs)

    /**
     * @param options {@link OpenOptions#encode()}
     * @throws IllegalArgumentException for a null argument, a malformed options record (naming what
     *     was wrong: an unknown code, a truncated record) or a negative spill size
     */
    private static native long open(
            String path, byte[] options, long retentionMs, long segmentIntervalMs, boolean retentionEdgeIncluded);

    private static native boolean put(long handle, byte[] key, long windowStart, int seq, byte[] value);

    private static native byte[] fetch(long handle, byte[] key, long windowStart, int seq, boolean committedOnly);

    private static native long newIterator(
            long handle,
            byte[] keyFrom,
            byte[] keyTo,
            long timeFrom,
            long timeTo,
            boolean reverse,
            boolean committedOnly);

    private static native long streamTime(long handle);
}
