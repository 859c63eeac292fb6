package dev.txnrocksdb.bench;

import java.util.SplittableRandom;

import org.apache.kafka.common.utils.Bytes;

/** Keys and values shared by the benchmarks: 16-byte keys, 100-byte values. */
final class Keys {
    static final int KEY_SIZE = 16;
    static final int VALUE_SIZE = 100;
    static final int COMMIT_INTERVAL = 10_000;
    static final int PRELOADED = 100_000;

    private Keys() {}

    /** A random 16-byte key. */
    static byte[] random(SplittableRandom random) {
        byte[] key = new byte[KEY_SIZE];
        putLong(key, 0, random.nextLong());
        putLong(key, 8, random.nextLong());
        return key;
    }

    /**
     * The i-th of a run of 16-byte keys that sort (unsigned, as both stores compare) in the
     * order of i: a big-endian i, then 8 fixed bytes.
     */
    static Bytes sequential(long i) {
        byte[] key = new byte[KEY_SIZE];
        putLong(key, 0, i);
        putLong(key, 8, 0x5EED_5EED_5EED_5EEDL);
        return Bytes.wrap(key);
    }

    static byte[] value(SplittableRandom random) {
        byte[] value = new byte[VALUE_SIZE];
        random.nextBytes(value);
        return value;
    }

    private static void putLong(byte[] to, int at, long v) {
        for (int i = 7; i >= 0; i--) {
            to[at + i] = (byte) v;
            v >>>= 8;
        }
    }
}
