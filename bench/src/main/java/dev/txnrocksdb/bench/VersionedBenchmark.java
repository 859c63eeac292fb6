package dev.txnrocksdb.bench;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.VersionedBytesStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Versioned key-value stores (KIP-889), 10-minute history retention, 1-minute segments: ours
 * ({@code TxnStores.persistentTransactionalVersionedKeyValueStore}) and Kafka's
 * {@code Stores.persistentVersionedKeyValueStore} ({@code RocksDBVersionedStore}) with and without
 * the transactional flag, both as Kafka's builder gets them, a {@code VersionedBytesStore}
 * ({@code VersionedKeyValueToBytesStoreAdapter}): {@code put(key, value, timestamp)} and
 * {@code get(key, asOfTimestamp)}. Kafka has no in-memory versioned store, so there is no
 * {@code kafka-memory} column: {@link CompareStores} runs this class with the columns of
 * {@link StoreKind#versionedIds()} only.
 *
 * <p>{@code put}: a fresh store, keys drawn from {@link Sizes#PUT_KEYS}, 100-byte values, in
 * timestamp order (the timestamp advancing 1 ms a put, so that a new segment starts every 60,000
 * puts and, past 600,000 puts, the oldest fall out of the history retention), committed every
 * {@code commitEvery} puts (the commit included). After a million puts most are new versions of a
 * key that has one, which moves the previous version into a segment.
 *
 * <p>{@code get}: a store loaded, in timestamp order, with {@link #KEYS} (20,000) keys x
 * {@link #VERSIONS} (4) versions, 100-byte values, committed every 10,000: pass {@code v} puts
 * version {@code v} of every key, over 2 minutes (2 segments) of timestamps, so that the history
 * of every key spans 8 minutes and 7 to 8 segments, all inside the history retention. One op = an
 * as-of get of a random key at a random time between its first version and the stream time; about
 * 86% of them are answered from the history segments, the rest by the latest version.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class VersionedBenchmark {
    /** Keys of the as-of benchmark's store: {@code bench.versionedKeys}, default {@code bench.keys} / 5 (20,000). */
    static final int KEYS = Integer.getInteger("bench.versionedKeys", Math.max(1, Sizes.KEYS / 5));
    /** Versions per key of the as-of benchmark's store: {@code bench.versions}, default 4. */
    static final int VERSIONS = Integer.getInteger("bench.versions", 4);
    /** Timestamps one pass over the keys spans: two segments. */
    static final long PASS_MS = 2 * StoreKind.SEGMENT_INTERVAL.toMillis();

    /** Timestamp of version {@code version} of key {@code key}: in put order, pass after pass. */
    static long timestamp(int key, int version) {
        return WindowBenchmark.BASE + version * PASS_MS + key * PASS_MS / KEYS;
    }

    /** The transactional proof of {@link ReopenCheck} for the column's versioned store. */
    static void checkReopen(String store) {
        byte[] value = new byte[Keys.VALUE_SIZE];
        ReopenCheck.<VersionedBytesStore>run(
                "versioned key-value store",
                () -> BenchStore.versioned(store),
                (vs, key) -> vs.put(key, value, WindowBenchmark.BASE),
                (vs, key) -> vs.get(key, WindowBenchmark.BASE) != null);
    }

    /** The timestamp of an as-of get's answer: its first 8 bytes (Kafka's {@code ValueAndTimestamp} format). */
    static long timestampOf(byte[] versioned) {
        return ByteBuffer.wrap(versioned).getLong();
    }

    /** A fresh store for puts. */
    @State(Scope.Thread)
    public static class Fresh {
        @Param({"txn", "txn-secondary", "kafka-txn", "kafka"})
        public String store;

        @Param({"100", "10000"})
        public int commitEvery;

        BenchStore<VersionedBytesStore> bench;
        VersionedBytesStore vs;
        SplittableRandom random;
        byte[] value;
        long puts;

        @Setup(Level.Trial)
        public void open() {
            checkReopen(store);
            bench = BenchStore.versioned(store);
            vs = bench.store;
            random = new SplittableRandom(42);
            value = Keys.value(random);
            puts = 0;
        }

        @TearDown(Level.Trial)
        public void close() {
            bench.close();
        }
    }

    /** {@link #KEYS} keys x {@link #VERSIONS} versions, committed. */
    @State(Scope.Benchmark)
    public static class Loaded {
        @Param({"txn", "txn-secondary", "kafka-txn", "kafka"})
        public String store;

        BenchStore<VersionedBytesStore> bench;
        VersionedBytesStore vs;
        Bytes[] keys;
        /** The stream time: the timestamp of the last version put. */
        long streamTime;

        @Setup(Level.Trial)
        public void load() {
            if (VERSIONS * PASS_MS > StoreKind.HISTORY_RETENTION.toMillis()) {
                throw new IllegalArgumentException(VERSIONS + " versions span " + VERSIONS * PASS_MS
                        + " ms, more than the history retention " + StoreKind.HISTORY_RETENTION);
            }
            checkReopen(store);
            bench = BenchStore.versioned(store);
            vs = bench.store;
            try {
                SplittableRandom random = new SplittableRandom(17);
                keys = new Bytes[KEYS];
                for (int k = 0; k < keys.length; k++) {
                    keys[k] = Keys.sequential(k);
                }
                long n = 0;
                for (int v = 0; v < VERSIONS; v++) {
                    for (int k = 0; k < keys.length; k++) {
                        vs.put(keys[k], Keys.value(random), timestamp(k, v));
                        if (++n % Sizes.LOAD_COMMIT_INTERVAL == 0) {
                            bench.commit(n);
                        }
                    }
                }
                bench.commit(n);
                streamTime = timestamp(KEYS - 1, VERSIONS - 1);
                check(keys.length / 2);
                check(keys.length - 1);
            } catch (RuntimeException | Error e) {
                bench.close();
                throw e;
            }
        }

        /** Every version of a key is returned as of its start and just before the next; nothing before the first. */
        private void check(int k) {
            // A wrong answer would make the numbers meaningless; check once, outside timing.
            for (int v = 0; v < VERSIONS; v++) {
                long from = timestamp(k, v);
                long to = v + 1 < VERSIONS ? timestamp(k, v + 1) - 1 : streamTime;
                for (long asOf : new long[] {from, to}) {
                    byte[] got = vs.get(keys[k], asOf);
                    if (got == null || got.length != Long.BYTES + Keys.VALUE_SIZE || timestampOf(got) != from) {
                        throw new IllegalStateException(store + ": as-of get of key " + k + " at " + asOf + " returned "
                                + (got == null ? "nothing" : "the version of " + timestampOf(got))
                                + ", expected the version of "
                                + from);
                    }
                }
            }
            if (vs.get(keys[k], timestamp(k, 0) - 1) != null) {
                throw new IllegalStateException(
                        store + ": as-of get of key " + k + " before its first version found one");
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            bench.close();
        }
    }

    /** One op = one put at the next millisecond (commit every {@code commitEvery} included). */
    @Benchmark
    public long put(Fresh s) {
        long validTo =
                s.vs.put(Keys.sequential(s.random.nextInt(Sizes.PUT_KEYS)), s.value, WindowBenchmark.BASE + s.puts);
        if (++s.puts % s.commitEvery == 0) {
            s.bench.commit(s.puts);
        }
        return validTo;
    }

    /** One op = an as-of get of a random key at a random time between its first version and the stream time. */
    @Benchmark
    public byte[] get(Loaded s) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        int k = r.nextInt(s.keys.length);
        long first = timestamp(k, 0);
        return s.vs.get(s.keys[k], first + r.nextLong(s.streamTime - first + 1));
    }
}
