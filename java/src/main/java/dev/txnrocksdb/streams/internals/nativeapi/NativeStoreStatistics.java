package dev.txnrocksdb.streams.internals.nativeapi;

/**
 * A store's statistics ({@link StoreStatistic}) in one native call (whether RocksDB collects its
 * own for a store is chosen when it opens: {@link OpenOptions.Builder#statistics}). Natives in
 * {@code rust/jni/src/statistics.rs}.
 */
public final class NativeStoreStatistics {
    /** The value of a statistic that is not collected (RocksDB statistics are off). */
    public static final long UNAVAILABLE = -1L;

    static {
        NativeLibrary.load();
    }

    private NativeStoreStatistics() {}

    /**
     * Every {@link StoreStatistic} of {@code store}, indexed by ordinal, read in one native call.
     *
     * @throws org.apache.kafka.streams.errors.InvalidStateStoreException if the store is closed
     */
    public static long[] read(NativeStore store) {
        long handle = store.acquire();
        try {
            return read(handle);
        } finally {
            store.release();
        }
    }

    /** The native side's names of the statistics, in array order. */
    static String[] nativeNames() {
        return names().split(",");
    }

    // ---------------------------------------------------------------- natives (rust/jni/src/statistics.rs)

    private static native long[] read(long handle);

    private static native String names();
}
