package dev.txnrocksdb.bench;

import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
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
 * Window stores (1-minute windows, 1-day retention, no duplicates): ours
 * ({@code TxnStores.persistentTransactionalWindowStore}), Kafka's {@code Stores.persistentWindowStore}
 * with and without the transactional flag, and {@code Stores.inMemoryWindowStore}.
 *
 * <p>{@code put}: a fresh store, keys drawn from {@link Sizes#PUT_KEYS}, the window start advancing
 * one minute every 10,000 puts, committed every 10,000 puts. {@code fetch} and {@code fetchAll}
 * read a store loaded with {@link Sizes#WINDOW_KEYS} (1,000) keys x {@link Sizes#WINDOWS} (100)
 * windows, 100-byte values, committed: {@code fetch(key, from, to)} of a random key over 10
 * consecutive windows (10 entries), {@code fetchAll(from, to)} over 10 consecutive windows (10,000
 * of the 100,000 entries).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class WindowBenchmark {
    /** Start of the first window: a multiple of the window size, early in a 12-hour segment. */
    static final long BASE = 1_699_999_980_000L;

    static final long WINDOW_MS = StoreKind.WINDOW_SIZE.toMillis();

    static long windowStart(int w) {
        return BASE + w * WINDOW_MS;
    }

    @State(Scope.Thread)
    public static class Fresh {
        @Param({"txn", "txn-secondary", "kafka-txn", "kafka", "kafka-memory"})
        public String store;

        BenchStore<WindowStore<Bytes, byte[]>> bench;
        SplittableRandom random;
        byte[] value;
        long puts;

        @Setup(Level.Trial)
        public void open() {
            bench = BenchStore.window(store);
            random = new SplittableRandom(42);
            value = Keys.value(random);
            puts = 0;
        }

        @TearDown(Level.Trial)
        public void close() {
            bench.close();
        }
    }

    @State(Scope.Benchmark)
    public static class Loaded {
        @Param({"txn", "txn-secondary", "kafka-txn", "kafka", "kafka-memory"})
        public String store;

        BenchStore<WindowStore<Bytes, byte[]>> bench;
        WindowStore<Bytes, byte[]> ws;
        Bytes[] keys;

        @Setup(Level.Trial)
        public void load() {
            bench = BenchStore.window(store);
            ws = bench.store;
            try {
                SplittableRandom random = new SplittableRandom(11);
                keys = new Bytes[Sizes.WINDOW_KEYS];
                for (int k = 0; k < keys.length; k++) {
                    keys[k] = Keys.sequential(k);
                }
                long n = 0;
                for (int w = 0; w < Sizes.WINDOWS; w++) {
                    for (Bytes key : keys) {
                        ws.put(key, Keys.value(random), windowStart(w));
                        if (++n % Sizes.LOAD_COMMIT_INTERVAL == 0) {
                            bench.commit(n);
                        }
                    }
                }
                bench.commit(n);
                int fetched = countFetch(this, null, 0, keys.length / 2);
                int all = countFetchAll(this, null, 0);
                if (fetched != Sizes.FETCH_WINDOWS || all != Sizes.FETCH_WINDOWS * keys.length) {
                    throw new IllegalStateException(
                            store + ": fetch returned " + fetched + " and fetchAll " + all + " entries, expected "
                                    + Sizes.FETCH_WINDOWS + " and " + Sizes.FETCH_WINDOWS * keys.length);
                }
            } catch (RuntimeException | Error e) {
                bench.close();
                throw e;
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            bench.close();
        }
    }

    /** One op = one window put (commit every 10,000 included). */
    @Benchmark
    public void put(Fresh s) {
        long n = s.puts++;
        s.bench.store.put(Keys.sequential(s.random.nextInt(Sizes.PUT_KEYS)), s.value, windowStart((int)
                (n / Sizes.LOAD_COMMIT_INTERVAL)));
        if (s.puts % Sizes.LOAD_COMMIT_INTERVAL == 0) {
            s.bench.commit(s.puts);
        }
    }

    /** One op = fetch(key, from, to) of a random key over 10 windows, every entry consumed. */
    @Benchmark
    public int fetch(Loaded s, Blackhole bh) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return countFetch(s, bh, r.nextInt(Sizes.WINDOWS - Sizes.FETCH_WINDOWS + 1), r.nextInt(s.keys.length));
    }

    /** One op = fetchAll(from, to) over 10 windows, every entry consumed. */
    @Benchmark
    public int fetchAll(Loaded s, Blackhole bh) {
        return countFetchAll(s, bh, ThreadLocalRandom.current().nextInt(Sizes.WINDOWS - Sizes.FETCH_WINDOWS + 1));
    }

    static int countFetch(Loaded s, Blackhole bh, int firstWindow, int key) {
        int n = 0;
        try (WindowStoreIterator<byte[]> it =
                s.ws.fetch(s.keys[key], windowStart(firstWindow), windowStart(firstWindow + Sizes.FETCH_WINDOWS - 1))) {
            while (it.hasNext()) {
                Object kv = it.next();
                if (bh != null) {
                    bh.consume(kv);
                }
                n++;
            }
        }
        return n;
    }

    static int countFetchAll(Loaded s, Blackhole bh, int firstWindow) {
        int n = 0;
        try (KeyValueIterator<Windowed<Bytes>, byte[]> it =
                s.ws.fetchAll(windowStart(firstWindow), windowStart(firstWindow + Sizes.FETCH_WINDOWS - 1))) {
            while (it.hasNext()) {
                Object kv = it.next();
                if (bh != null) {
                    bh.consume(kv);
                }
                n++;
            }
        }
        return n;
    }
}
