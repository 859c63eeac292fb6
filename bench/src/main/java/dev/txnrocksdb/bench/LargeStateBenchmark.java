package dev.txnrocksdb.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueStore;
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
 * Point reads over a large state: {@link Sizes#LARGE_KEYS} (3,000,000) committed entries, the
 * keys of {@link ReadBenchmark} ({@link Keys#sequential}) with distinct random 100-byte values,
 * about 350 MB: far more than any column's block cache (ours share 64 MiB, each Kafka store has
 * 50 MB), so a get reads from the OS page cache or the disk as a large store's would.
 *
 * <p>The trial loads the store the way a large state reaches a task, through its changelog: the
 * records, in key order, go through the restore callback the store registered (in batches of
 * {@link RestoreBenchmark#BATCH}, offsets committed every {@link Sizes#LOAD_COMMIT_INTERVAL}
 * records, as {@link RestoreBenchmark} drives it; loading millions of keys by puts and commits
 * would take minutes). Then the store is closed and reopened on the same directory: every column
 * flushes its memtables on close, so the reads find the whole state in SST files, as after a
 * restart, rather than a column-dependent part of it still in memtables. The trial then waits
 * until the store's files stop changing ({@link BenchStore#awaitQuietFiles}): the compactions the
 * load left pending run before the measurement, not during it. Nothing is staged.
 *
 * <p>Only the persistent columns: Kafka's in-memory store keeps nothing across that reopen
 * ({@link CompareStores} runs this class as a suite of its own, over those columns).
 *
 * <p>Keys are built per get (two small allocations, the same for every column) rather than read
 * from an array of millions, whose random reads would add CPU cache misses of the benchmark's own.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LargeStateBenchmark {

    /**
     * How long the store's files must stay unchanged before the measurement starts: the compactions
     * the load left pending would otherwise run during it (for up to {@link #QUIET_LIMIT}). The smoke
     * run does not wait.
     */
    static final Duration QUIET = Boolean.getBoolean("bench.smoke") ? Duration.ZERO : Duration.ofSeconds(2);

    static final Duration QUIET_LIMIT = Duration.ofSeconds(60);

    /** {@link Sizes#LARGE_KEYS} entries restored from the changelog, committed, and reopened. */
    @State(Scope.Benchmark)
    public static class Restored {
        @Param({"txn", "txn-secondary", "kafka-txn", "kafka"})
        public String store;

        BenchStore<KeyValueStore<Bytes, byte[]>> bench;

        @Setup(Level.Trial)
        public void restoreAndReopen() {
            long started = System.nanoTime();
            BenchStore<KeyValueStore<Bytes, byte[]>> restored = BenchStore.keyValue(store);
            try {
                restore(restored, Sizes.LARGE_KEYS);
            } catch (RuntimeException | Error e) {
                restored.close();
                throw e;
            }
            long reopening = System.nanoTime();
            bench = restored.reopen();
            long reopened = System.nanoTime();
            Duration settling;
            try {
                check(bench);
                settling = bench.awaitQuietFiles(QUIET, QUIET_LIMIT);
            } catch (RuntimeException | Error e) {
                bench.close();
                throw e;
            }
            System.out.printf(
                    Locale.ROOT,
                    "%s: %,d keys restored in %.1f s, closed and reopened in %.1f s, "
                            + "compactions settled in %.1f s%n",
                    store,
                    Sizes.LARGE_KEYS,
                    (reopening - started) / 1e9,
                    (reopened - reopening) / 1e9,
                    settling.toMillis() / 1e3);
        }

        @Setup(Level.Iteration)
        public void sameThread() {
            bench.checkThread();
        }

        @TearDown(Level.Trial)
        public void close() {
            bench.close();
        }
    }

    /** A get of a random one of the committed keys (always a hit). */
    @Benchmark
    public byte[] get(Restored s) {
        return s.bench.store.get(Keys.sequential(ThreadLocalRandom.current().nextInt(Sizes.LARGE_KEYS)));
    }

    /** A get of a key that sorts next to a random committed one but was never written. */
    @Benchmark
    public byte[] getMiss(Restored s) {
        return s.bench.store.get(Keys.missing(ThreadLocalRandom.current().nextInt(Sizes.LARGE_KEYS)));
    }

    /**
     * Restores {@code keys} records of {@code Keys.sequential(0 .. keys - 1)}, in that order, with
     * random 100-byte values, through the store's restore callback, and commits their offsets.
     */
    static void restore(BenchStore<KeyValueStore<Bytes, byte[]>> bench, int keys) {
        RecordBatchingStateRestoreCallback callback = bench.batchRestoreCallback();
        SplittableRandom random = new SplittableRandom(7);
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>(RestoreBenchmark.BATCH);
        for (int offset = 0; offset < keys; offset++) {
            batch.add(BenchStore.changelogRecord(offset, Keys.sequential(offset).get(), Keys.value(random)));
            int restored = offset + 1;
            if (batch.size() == RestoreBenchmark.BATCH || restored == keys) {
                callback.restoreBatch(batch);
                batch.clear();
            }
            if (restored % Sizes.LOAD_COMMIT_INTERVAL == 0 || restored == keys) {
                bench.commit(restored);
            }
        }
    }

    /** Checks once, outside timing, that the reopened store holds the restored keys and nothing else. */
    private static void check(BenchStore<KeyValueStore<Bytes, byte[]>> bench) {
        KeyValueStore<Bytes, byte[]> kv = bench.store;
        for (int i : new int[] {0, Sizes.LARGE_KEYS / 2, Sizes.LARGE_KEYS - 1}) {
            byte[] value = kv.get(Keys.sequential(i));
            if (value == null || value.length != Keys.VALUE_SIZE) {
                throw new IllegalStateException(
                        bench.kind.id + ": key " + i + " of " + Sizes.LARGE_KEYS + " restored is "
                                + (value == null ? "missing" : value.length + " bytes") + " after the reopen");
            }
        }
        if (kv.get(Keys.missing(Sizes.LARGE_KEYS / 2)) != null) {
            throw new IllegalStateException(bench.kind.id + ": a key never written was found");
        }
        if (kv.get(Keys.sequential(Sizes.LARGE_KEYS)) != null) {
            throw new IllegalStateException(
                    bench.kind.id + ": a key beyond the " + Sizes.LARGE_KEYS + " restored was found");
        }
    }
}
