package dev.txnrocksdb.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.utils.Bytes;
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
 * Puts of random 16-byte keys with 100-byte values, committing every 10,000 puts (the commit's
 * cost is part of the measurement, spread over the puts it covers). One op = one put.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PutBenchmark {
    @Param({"txn", "txn-secondary", "builtin"})
    public String store;

    private BenchStore bench;
    private SplittableRandom random;
    private byte[] value;
    private long puts;

    @Setup(Level.Trial)
    public void open() {
        bench = new BenchStore(store);
        random = new SplittableRandom(42);
        value = Keys.value(random);
        puts = 0;
    }

    @Benchmark
    public void put() {
        bench.store.put(Bytes.wrap(Keys.random(random)), value);
        if (++puts % Keys.COMMIT_INTERVAL == 0) {
            bench.commit(puts);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        bench.close();
    }
}
