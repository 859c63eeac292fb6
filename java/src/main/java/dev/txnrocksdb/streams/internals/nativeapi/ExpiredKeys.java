package dev.txnrocksdb.streams.internals.nativeapi;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What an expiry pass of a store with a time-to-live answers ({@link NativeKeyValueStore#expire}):
 * the keys whose deletes it staged, in the order of their write times, the bytes of their keys and
 * values, and whether expired keys remain for another pass. Decoded from the format crate's
 * {@code wire::encode_expired} layout: {@code [int8 more][int64 bytes]([int32 keyLen][key])*}.
 */
public final class ExpiredKeys {
    private final List<byte[]> keys;
    private final long bytes;
    private final boolean more;

    private ExpiredKeys(List<byte[]> keys, long bytes, boolean more) {
        this.keys = Collections.unmodifiableList(keys);
        this.bytes = bytes;
        this.more = more;
    }

    static ExpiredKeys decode(byte[] answer) {
        ByteBuffer in = ByteBuffer.wrap(answer);
        boolean more = in.get() != 0;
        long bytes = in.getLong();
        List<byte[]> keys = new ArrayList<>();
        while (in.hasRemaining()) {
            byte[] key = new byte[in.getInt()];
            in.get(key);
            keys.add(key);
        }
        return new ExpiredKeys(keys, bytes, more);
    }

    /** The keys removed, each to be logged as a tombstone. */
    public List<byte[]> keys() {
        return keys;
    }

    /** The bytes of the removed keys and their values, as stored (freed once compaction drops them). */
    public long bytes() {
        return bytes;
    }

    /** Whether expired keys remain beyond the pass's limit. */
    public boolean more() {
        return more;
    }
}
