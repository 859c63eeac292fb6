package dev.txnrocksdb.bench;

import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Reads over {@link Sizes#KEYS} (100,000) committed entries, 16-byte keys in order, 100-byte
 * values, loaded once per trial and committed every 10,000. With {@code staged > 0}, that many
 * uncommitted overwrites (new values) of evenly spaced keys among the first {@link Sizes#HOT_KEYS}
 * (10,000) are staged after the load: 5,000 staged = every second key there. Ranges start at
 * random inside those first 10,000 keys, so a range of 10,000 holds all 5,000 staged writes and a
 * range of 100 about 50; gets pick any of the 100,000 keys (5% of them staged).
 *
 * <p>Each benchmark method takes the state it needs, so it runs only over that state's parameters.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ReadBenchmark {

    /** 100,000 committed entries, nothing staged. */
    @State(Scope.Benchmark)
    public static class Committed {
        @Param({"txn", "txn-secondary", "kafka-txn", "kafka", "kafka-memory"})
        public String store;

        Loaded loaded;
        Bytes[] missing;

        @Setup(Level.Trial)
        public void load() {
            loaded = new Loaded(store, Sizes.KEYS, 0);
            missing = new Bytes[Sizes.KEYS];
            for (int i = 0; i < missing.length; i++) {
                missing[i] = Keys.missing(i);
            }
            if (loaded.kv.get(missing[missing.length / 2]) != null) {
                throw new IllegalStateException(store + ": a key never written was found");
            }
        }

        @Setup(Level.Iteration)
        public void sameThread() {
            loaded.checkThread();
        }

        @TearDown(Level.Trial)
        public void close() {
            loaded.close();
        }
    }

    /** 100,000 committed entries, {@code staged} overwrites staged among the first 10,000. */
    @State(Scope.Benchmark)
    public static class Staged {
        @Param({"txn", "txn-secondary", "kafka-txn", "kafka", "kafka-memory"})
        public String store;

        @Param({"0", "5000"})
        public int staged;

        Loaded loaded;

        @Setup(Level.Trial)
        public void load() {
            loaded = new Loaded(store, Sizes.KEYS, staged);
        }

        @Setup(Level.Iteration)
        public void sameThread() {
            loaded.checkThread();
        }

        @TearDown(Level.Trial)
        public void close() {
            loaded.close();
        }
    }

    /** As {@link Staged}, for ranges of {@code length} entries. */
    @State(Scope.Benchmark)
    public static class Ranged {
        @Param({"txn", "txn-secondary", "kafka-txn", "kafka", "kafka-memory"})
        public String store;

        @Param({"0", "5000"})
        public int staged;

        @Param({"100", "10000"})
        public int length;

        Loaded loaded;

        @Setup(Level.Trial)
        public void load() {
            if (length > Sizes.HOT_KEYS) {
                throw new IllegalArgumentException("range length " + length + " > bench.hotKeys " + Sizes.HOT_KEYS);
            }
            loaded = new Loaded(store, Sizes.KEYS, staged);
            loaded.checkRange(Sizes.HOT_KEYS - length, length);
        }

        @Setup(Level.Iteration)
        public void sameThread() {
            loaded.checkThread();
        }

        @TearDown(Level.Trial)
        public void close() {
            loaded.close();
        }
    }

    /** {@link Sizes#FULL_SCAN_KEYS} committed entries (100,000; 1,000,000 with -Dbench.fullScanKeys), {@code staged} staged. */
    @State(Scope.Benchmark)
    public static class FullScan {
        @Param({"txn", "txn-secondary", "kafka-txn", "kafka", "kafka-memory"})
        public String store;

        @Param({"0", "5000"})
        public int staged;

        Loaded loaded;

        @Setup(Level.Trial)
        public void load() {
            loaded = new Loaded(store, Sizes.FULL_SCAN_KEYS, staged);
        }

        @Setup(Level.Iteration)
        public void sameThread() {
            loaded.checkThread();
        }

        @TearDown(Level.Trial)
        public void close() {
            loaded.close();
        }
    }

    /** A get of a random one of the 100,000 keys (always a hit). */
    @Benchmark
    public byte[] get(Staged s) {
        return s.loaded.kv.get(s.loaded.keys[ThreadLocalRandom.current().nextInt(s.loaded.keys.length)]);
    }

    /** A get of a key that sorts next to a random one of the 100,000 but was never written. */
    @Benchmark
    public byte[] getMiss(Committed s) {
        return s.loaded.kv.get(s.missing[ThreadLocalRandom.current().nextInt(s.missing.length)]);
    }

    /** One op = one range of {@code length} consecutive keys from a random start among the first 10,000, every entry consumed. */
    @Benchmark
    public int range(Ranged s, Blackhole bh) {
        Bytes[] keys = s.loaded.keys;
        int from = ThreadLocalRandom.current().nextInt(Sizes.HOT_KEYS - s.length + 1);
        int n = 0;
        try (KeyValueIterator<Bytes, byte[]> it = s.loaded.kv.range(keys[from], keys[from + s.length - 1])) {
            while (it.hasNext()) {
                bh.consume(it.next());
                n++;
            }
        }
        return n;
    }

    /** One op = one scan of every entry. */
    @Benchmark
    public int fullScan(FullScan s, Blackhole bh) {
        int n = 0;
        try (KeyValueIterator<Bytes, byte[]> it = s.loaded.kv.all()) {
            while (it.hasNext()) {
                bh.consume(it.next());
                n++;
            }
        }
        return n;
    }

    /** One op = one prefix scan of a random 7-byte prefix: 256 entries. */
    @Benchmark
    public int prefixScan(Committed s, Blackhole bh) {
        int blocks = Math.max(1, s.loaded.keys.length / Keys.PREFIX_SPAN);
        int n = 0;
        try (KeyValueIterator<Bytes, byte[]> it =
                s.loaded.kv.prefixScan(Keys.prefix(ThreadLocalRandom.current().nextInt(blocks)), PREFIX_SERIALIZER)) {
            while (it.hasNext()) {
                bh.consume(it.next());
                n++;
            }
        }
        return n;
    }

    static final BytesSerializer PREFIX_SERIALIZER = new BytesSerializer();

    /** A loaded store, its keys, and the checks that make its numbers mean something. */
    static final class Loaded {
        final BenchStore<KeyValueStore<Bytes, byte[]>> bench;
        final KeyValueStore<Bytes, byte[]> kv;
        final Bytes[] keys;

        Loaded(String store, int count, int staged) {
            bench = BenchStore.keyValue(store);
            kv = bench.store;
            try {
                SplittableRandom random = new SplittableRandom(7);
                keys = new Bytes[count];
                for (int i = 0; i < count; i++) {
                    keys[i] = Keys.sequential(i);
                    kv.put(keys[i], Keys.value(random));
                    if ((i + 1) % Sizes.LOAD_COMMIT_INTERVAL == 0) {
                        bench.commit(i + 1);
                    }
                }
                bench.commit(count);
                if (staged > 0) {
                    stage(random, staged, Math.min(Sizes.HOT_KEYS, count));
                }
                // A wrong answer would make every number meaningless; check once, outside timing.
                checkRange(0, Math.min(count, Math.max(Sizes.HOT_KEYS, 1)));
                if (kv.get(keys[count - 1]) == null) {
                    throw new IllegalStateException(store + ": get missed the last key loaded");
                }
                if (count >= Keys.PREFIX_SPAN) {
                    int n = 0;
                    try (KeyValueIterator<Bytes, byte[]> it = kv.prefixScan(Keys.prefix(0), PREFIX_SERIALIZER)) {
                        while (it.hasNext()) {
                            it.next();
                            n++;
                        }
                    }
                    if (n != Keys.PREFIX_SPAN) {
                        throw new IllegalStateException(
                                store + ": prefix scan returned " + n + " entries, expected " + Keys.PREFIX_SPAN);
                    }
                }
            } catch (RuntimeException | Error e) {
                bench.close();
                throw e;
            }
        }

        /** Overwrites {@code staged} evenly spaced keys among the first {@code hot}, without committing. */
        private void stage(SplittableRandom random, int staged, int hot) {
            if (staged > hot) {
                throw new IllegalArgumentException(staged + " staged writes > " + hot + " hot keys");
            }
            int stride = hot / staged;
            for (int n = 0; n < staged; n++) {
                kv.put(keys[n * stride], Keys.value(random));
            }
            if (bench.kind.transactionalFlag && bench.uncommittedBytes() == 0) {
                throw new IllegalStateException(
                        bench.kind.id + " reports no uncommitted bytes after " + staged
                                + " uncommitted puts: it is not staging writes, so it is not the store this column claims to be");
            }
        }

        /** Checks that a range of {@code length} keys from {@code from} returns exactly those keys. */
        void checkRange(int from, int length) {
            int n = 0;
            try (KeyValueIterator<Bytes, byte[]> it = kv.range(keys[from], keys[from + length - 1])) {
                while (it.hasNext()) {
                    KeyValue<Bytes, byte[]> entry = it.next();
                    if (!entry.key.equals(keys[from + n]) || entry.value.length != Keys.VALUE_SIZE) {
                        throw new IllegalStateException(bench.kind.id + ": range returned " + entry.key + " at " + n);
                    }
                    n++;
                }
            }
            if (n != length) {
                throw new IllegalStateException(
                        bench.kind.id + ": range returned " + n + " entries, expected " + length);
            }
        }

        /** See {@link BenchStore#checkThread()}. */
        void checkThread() {
            bench.checkThread();
        }

        void close() {
            bench.close();
        }
    }
}
