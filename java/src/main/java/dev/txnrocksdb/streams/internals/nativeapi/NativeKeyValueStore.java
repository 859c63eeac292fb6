package dev.txnrocksdb.streams.internals.nativeapi;

import java.nio.file.Path;
import java.util.Collection;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * One open native transactional key-value store ({@code rust/jni/src/key_value.rs}): its reads and
 * writes; commit, offsets, restore and close are {@link NativeStore}'s.
 */
public final class NativeKeyValueStore extends NativeStore {
    /** Whether the store has a time-to-live: its restore batches then carry each record's timestamp. */
    private final boolean expiring;

    private NativeKeyValueStore(String storeName, long handle, boolean expiring) {
        super(storeName, handle);
        this.expiring = expiring;
    }

    /**
     * Opens (creating if needed) the store in {@code dir}. This is recovery: uncommitted writes of
     * a previous process are gone, committed data and offsets are intact, and a secondary-store
     * commit whose copy a crash cut short is rolled forward (whichever strategy the store is
     * opened with now). Damaged files are handled as {@link OpenOptions#corruption} says.
     *
     * @param storeName the Kafka store name, used in exception messages
     * @param dir the store's directory
     * @param options transactional or write-through, commit sync, strategy, corruption policy
     * @throws org.apache.kafka.streams.errors.ProcessorStateException if RocksDB cannot open the
     *     store, or finds it damaged and {@code options} refuse to open it
     */
    public static NativeKeyValueStore open(String storeName, Path dir, OpenOptions options) {
        long handle = open(nativePath(dir), options.encode());
        return new NativeKeyValueStore(storeName, handle, options.ttl() != null);
    }

    /**
     * The value of {@code key}, or null.
     *
     * @param committedOnly true: ignore uncommitted writes
     * @throws InvalidStateStoreException if the store is closed
     */
    public byte[] get(byte[] key, boolean committedOnly) {
        long h = acquire();
        try {
            return get(h, key, committedOnly);
        } finally {
            release();
        }
    }

    /**
     * Stages {@code key = value}; a null value stages a delete.
     *
     * @param time the write's time, for a store with a time-to-live (see {@link OpenOptions#ttl()}):
     *     the record's timestamp or the wall clock's time; below 0 when there is none. A store
     *     without a time-to-live ignores it.
     * @throws InvalidStateStoreException if the store is closed
     */
    public void put(byte[] key, byte[] value, long time) {
        long h = acquire();
        try {
            put(h, key, value, time);
        } finally {
            release();
        }
    }

    /**
     * Stages {@code key = value} only when {@code key} has no visible value.
     *
     * @param time the write's time (see {@link #put})
     * @return the visible value, or null when this call wrote
     * @throws InvalidStateStoreException if the store is closed
     */
    public byte[] putIfAbsent(byte[] key, byte[] value, long time) {
        long h = acquire();
        try {
            return putIfAbsent(h, key, value, time);
        } finally {
            release();
        }
    }

    /**
     * Stages every entry of a batch in one native call.
     *
     * @param batch the entries in {@link BatchEncoder}'s format (a value length of -1 deletes)
     * @param time the writes' time (see {@link #put})
     * @throws InvalidStateStoreException if the store is closed
     */
    public void putAll(byte[] batch, long time) {
        long h = acquire();
        try {
            putAll(h, batch, time);
        } finally {
            release();
        }
    }

    /**
     * Stages a delete of {@code key}.
     *
     * @return the value the delete hid, or null
     * @throws InvalidStateStoreException if the store is closed
     */
    public byte[] delete(byte[] key) {
        long h = acquire();
        try {
            return delete(h, key);
        } finally {
            release();
        }
    }

    /**
     * Opens an iterator over {@code [from, to]} ({@code toInclusive}) or {@code [from, to)}; a null
     * bound is unbounded. The iterator sees a consistent snapshot of committed data as of this
     * call plus the uncommitted writes (unless {@code committedOnly}). The store tracks it and
     * closes it if the store closes first.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public NativeIterator newIterator(
            byte[] from, byte[] to, boolean toInclusive, boolean reverse, boolean committedOnly) {
        long h = acquire();
        try {
            return track(newIterator(h, from, to, toInclusive, reverse, committedOnly));
        } finally {
            release();
        }
    }

    /**
     * An expiry pass of a store with a time-to-live: stages the delete of up to {@code maxRows}
     * expired keys (expiry index rows visited, rows of keys written again since included) in the
     * open transaction.
     *
     * @return the keys removed, which the caller logs as tombstones in the same transaction, and
     *     whether expired keys remain for another pass
     * @throws IllegalArgumentException if the store has no time-to-live, or {@code maxRows} is negative
     * @throws InvalidStateStoreException if the store is closed
     */
    public ExpiredKeys expire(int maxRows) {
        long h = acquire();
        try {
            return ExpiredKeys.decode(expire(h, maxRows));
        } finally {
            release();
        }
    }

    /**
     * Moves the time of a store with a time-to-live forward to {@code time} (the wall clock's, at a
     * commit); an earlier time changes nothing.
     *
     * @throws IllegalArgumentException if the store has no time-to-live
     * @throws InvalidStateStoreException if the store is closed
     */
    public void advanceTime(long time) {
        long h = acquire();
        try {
            advanceTime(h, time);
        } finally {
            release();
        }
    }

    /**
     * A store with a time-to-live restores each record at its timestamp (the key's write time,
     * unless its value carries one).
     */
    @Override
    byte[] encodeRestoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        if (!expiring) {
            return super.encodeRestoreBatch(records);
        }
        return BatchEncoder.encodeTimestamped(
                records, ConsumerRecord::key, ConsumerRecord::value, ConsumerRecord::timestamp);
    }

    // ---------------------------------------------------------------- natives (rust/jni/src/key_value.rs)

    /**
     * @param options {@link OpenOptions#encode()}
     * @throws IllegalArgumentException for a null argument, a malformed options record (naming what
     *     was wrong: an unknown code, a truncated record) or a negative spill size
     */
    private static native long open(String path, byte[] options);

    private static native byte[] get(long handle, byte[] key, boolean committedOnly);

    private static native void put(long handle, byte[] key, byte[] value, long time);

    private static native byte[] putIfAbsent(long handle, byte[] key, byte[] value, long time);

    private static native void putAll(long handle, byte[] batch, long time);

    private static native byte[] delete(long handle, byte[] key);

    private static native long newIterator(
            long handle, byte[] from, byte[] to, boolean toInclusive, boolean reverse, boolean committedOnly);

    /** @return the format crate's {@code wire::encode_expired} layout */
    private static native byte[] expire(long handle, int maxRows);

    private static native void advanceTime(long handle, long time);
}
