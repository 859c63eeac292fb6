package dev.txnrocksdb.streams.internals.nativeapi;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.VersionedRecord;

/**
 * One open native versioned key-value store ({@code rust/jni/src/versioned.rs}, engine
 * {@code rust/core/src/versioned.rs}): Kafka's {@code RocksDBVersionedStore} semantics, with every
 * row a put touches staged in the store's transaction. Commit, offsets, restore and close are
 * {@link NativeStore}'s; a restore batch carries each changelog record's timestamp.
 *
 * <p>Reads return versions in the wire format {@code [int64 validFrom][int8 bounded][int64 validTo]
 * [int32 valueLen][value]}, repeated, decoded here.
 */
public final class NativeVersionedStore extends NativeStore {
    private NativeVersionedStore(String storeName, long handle) {
        super(storeName, handle);
    }

    /**
     * Opens (creating if needed) the store in {@code dir} (recovery, as
     * {@link NativeKeyValueStore#open}).
     *
     * @param historyRetentionMs how long superseded versions stay readable (also the grace period)
     * @param segmentIntervalMs the width of a segment of history
     * @throws IllegalArgumentException for a negative retention or a non-positive interval
     */
    public static NativeVersionedStore open(
            String storeName, Path dir, OpenOptions options, long historyRetentionMs, long segmentIntervalMs) {
        long handle = open(nativePath(dir), options.encode(), historyRetentionMs, segmentIntervalMs);
        return new NativeVersionedStore(storeName, handle);
    }

    /**
     * Puts a version ({@code value} null: a tombstone).
     *
     * @return Kafka's put return code: the new version's validTo, -1 ({@code PUT_RETURN_CODE_VALID_TO_UNDEFINED})
     *     when it is the latest, {@code Long.MIN_VALUE} when it was older than the grace period and not put
     * @throws IllegalArgumentException for a timestamp whose segment would be negative
     * @throws InvalidStateStoreException if the store is closed
     */
    public long put(byte[] key, byte[] value, long timestamp) {
        long h = acquire();
        try {
            return put(h, key, value, timestamp);
        } finally {
            release();
        }
    }

    /** What a delete did: whether it was put, and the version it ended. */
    public static final class Deleted {
        private final boolean written;
        private final VersionedRecord<byte[]> ended;

        private Deleted(boolean written, VersionedRecord<byte[]> ended) {
            this.written = written;
            this.ended = ended;
        }

        /** False when the delete was older than the grace period and nothing was written. */
        public boolean written() {
            return written;
        }

        /** The version valid at the delete's time before it, or null. */
        public VersionedRecord<byte[]> ended() {
            return ended;
        }
    }

    /**
     * Puts a tombstone at {@code timestamp}, unless it is older than the grace period.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public Deleted delete(byte[] key, long timestamp) {
        byte[] encoded;
        long h = acquire();
        try {
            encoded = delete(h, key, timestamp);
        } finally {
            release();
        }
        return new Deleted(encoded != null, single(encoded));
    }

    /**
     * The latest version of {@code key}, or null.
     *
     * @param committedOnly true: ignore uncommitted writes
     * @throws InvalidStateStoreException if the store is closed
     */
    public VersionedRecord<byte[]> get(byte[] key, boolean committedOnly) {
        long h = acquire();
        try {
            return single(get(h, key, committedOnly));
        } finally {
            release();
        }
    }

    /**
     * The version of {@code key} valid at {@code asOf}, or null.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public VersionedRecord<byte[]> getAsOf(byte[] key, long asOf, boolean committedOnly) {
        long h = acquire();
        try {
            return single(getAsOf(h, key, asOf, committedOnly));
        } finally {
            release();
        }
    }

    /**
     * The versions of {@code key} valid at some time in {@code [from, to]}, by timestamp.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public List<VersionedRecord<byte[]>> versions(
            byte[] key, long from, long to, boolean ascending, boolean committedOnly) {
        byte[] encoded;
        long h = acquire();
        try {
            encoded = versions(h, key, from, to, ascending, committedOnly);
        } finally {
            release();
        }
        return decode(encoded);
    }

    /** Each record's timestamp travels with it: it is the version's validFrom. */
    @Override
    byte[] encodeRestoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        return BatchEncoder.encodeTimestamped(
                records, ConsumerRecord::key, ConsumerRecord::value, ConsumerRecord::timestamp);
    }

    private static VersionedRecord<byte[]> single(byte[] encoded) {
        List<VersionedRecord<byte[]>> records = decode(encoded);
        return records.isEmpty() ? null : records.get(0);
    }

    static List<VersionedRecord<byte[]>> decode(byte[] encoded) {
        List<VersionedRecord<byte[]>> records = new ArrayList<>();
        if (encoded == null) {
            return records;
        }
        ByteBuffer in = ByteBuffer.wrap(encoded);
        while (in.hasRemaining()) {
            long validFrom = in.getLong();
            boolean bounded = in.get() != 0;
            long validTo = in.getLong();
            byte[] value = new byte[in.getInt()];
            in.get(value);
            records.add(
                    bounded
                            ? new VersionedRecord<>(value, validFrom, validTo)
                            : new VersionedRecord<>(value, validFrom));
        }
        return records;
    }

    // ---------------------------------------------------------------- natives (rust/jni/src/versioned.rs)

    /**
     * @param options {@link OpenOptions#encode()}
     * @throws IllegalArgumentException for a null argument, a malformed options record (naming what
     *     was wrong: an unknown code, a truncated record) or a negative spill size
     */
    private static native long open(String path, byte[] options, long historyRetentionMs, long segmentIntervalMs);

    private static native long put(long handle, byte[] key, byte[] value, long timestamp);

    private static native byte[] delete(long handle, byte[] key, long timestamp);

    private static native byte[] get(long handle, byte[] key, boolean committedOnly);

    private static native byte[] getAsOf(long handle, byte[] key, long asOf, boolean committedOnly);

    private static native byte[] versions(
            long handle, byte[] key, long from, long to, boolean ascending, boolean committedOnly);
}
