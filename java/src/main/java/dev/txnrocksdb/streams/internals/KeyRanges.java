package dev.txnrocksdb.streams.internals;

import java.util.Arrays;

/** Byte-key arithmetic for range scans. */
public final class KeyRanges {
    private KeyRanges() {}

    /**
     * The smallest key greater than every key that starts with {@code prefix}, or null when there
     * is none (the prefix is empty or all {@code 0xFF}), meaning "unbounded". A prefix scan is the
     * range [prefix, successor).
     */
    public static byte[] prefixSuccessor(byte[] prefix) {
        int last = prefix.length - 1;
        while (last >= 0 && prefix[last] == (byte) 0xFF) {
            last--;
        }
        if (last < 0) {
            return null;
        }
        byte[] successor = Arrays.copyOf(prefix, last + 1);
        successor[last]++;
        return successor;
    }
}
