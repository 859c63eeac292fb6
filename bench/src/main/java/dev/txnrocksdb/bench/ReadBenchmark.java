package dev.txnrocksdb.bench;

import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
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
 * Reads over 100,000 committed entries (16-byte keys in order 0..99,999, 100-byte values),
 * loaded once per trial: a point get, a 1,000-entry range scan, and a scan of the whole store.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ReadBenchmark {
    static final int SCAN_LENGTH = 1_000;

    @Param({"txn", "txn-secondary", "builtin"})
    public String store;

    private BenchStore bench;
    private Bytes[] keys;

    @Setup(Level.Trial)
    public void load() {
        bench = new BenchStore(store);
        SplittableRandom random = new SplittableRandom(7);
        keys = new Bytes[Keys.PRELOADED];
        for (int i = 0; i < Keys.PRELOADED; i++) {
            keys[i] = Keys.sequential(i);
            bench.store.put(keys[i], Keys.value(random));
            if ((i + 1) % Keys.COMMIT_INTERVAL == 0) {
                bench.commit(i + 1);
            }
        }
        bench.commit(Keys.PRELOADED);
        // A wrong answer would make every number below meaningless; check once, outside timing.
        int n = 0;
        try (KeyValueIterator<Bytes, byte[]> it = bench.store.range(keys[5], keys[5 + SCAN_LENGTH - 1])) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> kv = it.next();
                if (!kv.key.equals(keys[5 + n]) || kv.value.length != Keys.VALUE_SIZE) {
                    throw new IllegalStateException(store + ": range returned " + kv.key + " at " + n);
                }
                n++;
            }
        }
        if (n != SCAN_LENGTH || bench.store.get(keys[Keys.PRELOADED - 1]) == null) {
            throw new IllegalStateException(store + ": range returned " + n + " entries, expected " + SCAN_LENGTH);
        }
    }

    @Benchmark
    public byte[] get() {
        return bench.store.get(keys[ThreadLocalRandom.current().nextInt(Keys.PRELOADED)]);
    }

    /** One op = one scan of 1,000 consecutive keys from a random start. */
    @Benchmark
    public int rangeScan(Blackhole bh) {
        int from = ThreadLocalRandom.current().nextInt(Keys.PRELOADED - SCAN_LENGTH + 1);
        int n = 0;
        try (KeyValueIterator<Bytes, byte[]> it = bench.store.range(keys[from], keys[from + SCAN_LENGTH - 1])) {
            while (it.hasNext()) {
                bh.consume(it.next());
                n++;
            }
        }
        return n;
    }

    /** One op = one scan of all 100,000 entries. */
    @Benchmark
    public int allScan(Blackhole bh) {
        int n = 0;
        try (KeyValueIterator<Bytes, byte[]> it = bench.store.all()) {
            while (it.hasNext()) {
                bh.consume(it.next());
                n++;
            }
        }
        return n;
    }

    @TearDown(Level.Trial)
    public void close() {
        bench.close();
    }
}
