package dev.txnrocksdb.streams.internals;

import java.util.Arrays;
import org.apache.kafka.common.utils.Bytes;
import org.slf4j.Logger;

/** Byte-key arithmetic for range scans. */
public final class KeyRanges {
    private KeyRanges() {}

    /**
     * Kafka's check for a key range whose lower bound is greater than its upper bound (null bounds
     * are unbounded): such a range is empty, and Kafka's stores log this exact warning.
     *
     * @param log the store's logger
     * @return true (after logging the warning) if the range is inverted
     */
    public static boolean isInvertedRange(Bytes from, Bytes to, Logger log) {
        if (from == null || to == null || from.compareTo(to) <= 0) {
            return false;
        }
        log.warn("Returning empty iterator for fetch with invalid key range: from > to. "
                + "This may be due to range arguments set in the wrong order, "
                + "or serdes that don't preserve ordering when lexicographically comparing the serialized bytes. "
                + "Note that the built-in numerical serdes do not follow this for negative numbers");
        return true;
    }

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
