package dev.txnrocksdb.streams.internals.nativeapi;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Encodes key-value entries in the batch wire format of {@link NativeKeyValueStore#putAll} and
 * {@link NativeStore#restore}: repeated {@code [int32 keyLen][key][int32 valueLen or -1][value]},
 * big-endian, where a value length of -1 is a delete.
 */
public final class BatchEncoder {
    private static final int DELETE = -1;

    private BatchEncoder() {}

    /**
     * Encodes every entry in iteration order.
     *
     * @param entries the entries
     * @param key the key bytes of an entry
     * @param value the value bytes of an entry, or null for a delete
     * @throws NullPointerException if a key is null
     * @throws IllegalArgumentException if the encoded batch would exceed the largest Java array
     */
    public static <T> byte[] encode(Collection<T> entries, Function<T, byte[]> key, Function<T, byte[]> value) {
        return encode(entries, key, value, null);
    }

    /**
     * Encodes every entry in iteration order with a timestamp after each, the restore batch of
     * {@link NativeVersionedStore}: repeated {@code [int32 keyLen][key][int32 valueLen or -1][value][int64 timestamp]}.
     *
     * @throws NullPointerException if a key is null
     * @throws IllegalArgumentException if the encoded batch would exceed the largest Java array
     */
    public static <T> byte[] encodeTimestamped(
            Collection<T> entries, Function<T, byte[]> key, Function<T, byte[]> value, ToLongFunction<T> timestamp) {
        return encode(entries, key, value, Objects.requireNonNull(timestamp, "timestamp cannot be null"));
    }

    /** The one encoder: {@code timestamp} null leaves the timestamps out. */
    private static <T> byte[] encode(
            Collection<T> entries, Function<T, byte[]> key, Function<T, byte[]> value, ToLongFunction<T> timestamp) {
        int timestampBytes = timestamp == null ? 0 : Long.BYTES;
        long size = 0;
        for (T entry : entries) {
            byte[] k = Objects.requireNonNull(key.apply(entry), "key cannot be null");
            byte[] v = value.apply(entry);
            size += Integer.BYTES + k.length + Integer.BYTES + (v == null ? 0 : v.length) + timestampBytes;
        }
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("write batch of " + entries.size() + " entries needs " + size
                    + " bytes, more than one JNI call can carry; split it into smaller batches");
        }
        ByteBuffer out = ByteBuffer.allocate((int) size);
        for (T entry : entries) {
            byte[] k = key.apply(entry);
            byte[] v = value.apply(entry);
            out.putInt(k.length).put(k);
            if (v == null) {
                out.putInt(DELETE);
            } else {
                out.putInt(v.length).put(v);
            }
            if (timestamp != null) {
                out.putLong(timestamp.applyAsLong(entry));
            }
        }
        return out.array();
    }
}
