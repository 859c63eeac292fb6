package dev.txnrocksdb.bench;

import java.util.SplittableRandom;
import org.apache.kafka.common.utils.Bytes;

/** Keys and values shared by the benchmarks: 16-byte keys, 100-byte values unless stated. */
final class Keys {
    static final int KEY_SIZE = 16;
    static final int VALUE_SIZE = 100;
    /** Keys of one prefix-scan prefix: the first 7 of a sequential key's 8 big-endian index bytes. */
    static final int PREFIX_SPAN = 256;

    static final int PREFIX_SIZE = 7;
    private static final long SUFFIX = 0x5EED_5EED_5EED_5EEDL;
    private static final long MISSING_SUFFIX = 0x0BAD_0BAD_0BAD_0BADL;

    private Keys() {}

    /** A random 16-byte key. */
    static byte[] random(SplittableRandom random) {
        byte[] key = new byte[KEY_SIZE];
        putLong(key, 0, random.nextLong());
        putLong(key, 8, random.nextLong());
        return key;
    }

    /**
     * The i-th of a run of 16-byte keys that sort (unsigned, as every store compares) in the
     * order of i: a big-endian i, then 8 fixed bytes.
     */
    static Bytes sequential(long i) {
        return Bytes.wrap(sequentialBytes(i, SUFFIX));
    }

    /** A key that sorts just before {@code sequential(i)} and is never written: a get of it misses. */
    static Bytes missing(long i) {
        return Bytes.wrap(sequentialBytes(i, MISSING_SUFFIX));
    }

    /** The prefix shared by {@code sequential(block * 256)} to {@code sequential(block * 256 + 255)}. */
    static Bytes prefix(long block) {
        byte[] key = sequentialBytes(block * PREFIX_SPAN, 0);
        byte[] prefix = new byte[PREFIX_SIZE];
        System.arraycopy(key, 0, prefix, 0, PREFIX_SIZE);
        return Bytes.wrap(prefix);
    }

    private static byte[] sequentialBytes(long i, long suffix) {
        byte[] key = new byte[KEY_SIZE];
        putLong(key, 0, i);
        putLong(key, 8, suffix);
        return key;
    }

    static byte[] value(SplittableRandom random) {
        return value(random, VALUE_SIZE);
    }

    static byte[] value(SplittableRandom random, int size) {
        byte[] value = new byte[size];
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
