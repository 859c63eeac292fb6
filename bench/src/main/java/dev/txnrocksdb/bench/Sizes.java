package dev.txnrocksdb.bench;

/**
 * Data sizes the benchmarks read from system properties, so that the smoke run
 * ({@code -Dbench.smoke=true}) can shrink them; {@link CompareStores} passes every {@code bench.*}
 * property on to JMH's forks. Defaults are the sizes of issue 10.
 */
final class Sizes {
    /** Committed entries the read benchmarks load: {@code bench.keys}, default 100,000. */
    static final int KEYS = Integer.getInteger("bench.keys", 100_000);
    /**
     * The first {@code bench.hotKeys} (default 10,000) of those: where staged writes go and where
     * ranges start, so that a range of 10,000 holds all 5,000 staged writes.
     */
    static final int HOT_KEYS = Math.min(KEYS, Integer.getInteger("bench.hotKeys", 10_000));
    /** Entries of the full-scan benchmark's store: {@code bench.fullScanKeys}, default 100,000 (1,000,000 for issue 10's size). */
    static final int FULL_SCAN_KEYS = Integer.getInteger("bench.fullScanKeys", 100_000);
    /**
     * Committed entries of {@link LargeStateBenchmark}'s store: {@code bench.largeKeys}, default
     * 3,000,000 (about 350 MB of keys and values, beyond every column's block cache).
     */
    static final int LARGE_KEYS = Integer.getInteger("bench.largeKeys", 3_000_000);
    /** Key space of the put benchmarks: {@code bench.putKeys}, default 1,000,000. */
    static final int PUT_KEYS = Integer.getInteger("bench.putKeys", 1_000_000);
    /** Writes between commits while loading, and the put benchmarks' "every 10,000". */
    static final int LOAD_COMMIT_INTERVAL = 10_000;
    /** Keys of the window benchmarks: {@code bench.windowKeys}, default 1,000. */
    static final int WINDOW_KEYS = Integer.getInteger("bench.windowKeys", 1_000);
    /** Windows per key of the window benchmarks: {@code bench.windows}, default 100 (100,000 entries). */
    static final int WINDOWS = Integer.getInteger("bench.windows", 100);
    /** Windows one fetch and one fetchAll span. */
    static final int FETCH_WINDOWS = Math.min(WINDOWS, 10);
    /** Keys of the session benchmark: {@code bench.sessionKeys}, default 10,000. */
    static final int SESSION_KEYS = Integer.getInteger("bench.sessionKeys", 10_000);
    /** Sessions per key of the session benchmark: {@code bench.sessionsPerKey}, default 10 (100,000 sessions). */
    static final int SESSIONS_PER_KEY = Integer.getInteger("bench.sessionsPerKey", 10);

    private Sizes() {}
}
