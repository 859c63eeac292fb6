package dev.txnrocksdb.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.Bytes;
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
 * Puts into a fresh store, committing every {@code commitEvery} puts (the commit's cost is part of
 * the measurement, spread over the puts it covers). Keys are drawn at random from
 * {@link Sizes#PUT_KEYS} 16-byte keys (a bounded key space, as an aggregation's, so that the
 * in-memory store does not outgrow the heap: after that many puts most are updates). One op = one put.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PutBenchmark {
    @Param({"txn", "txn-secondary", "kafka-txn", "kafka", "kafka-memory"})
    public String store;

    @Param({"100", "1024"})
    public int valueSize;

    @Param({"100", "10000"})
    public int commitEvery;

    private BenchStore<KeyValueStore<Bytes, byte[]>> bench;
    private KeyValueStore<Bytes, byte[]> kv;
    private SplittableRandom random;
    private byte[] value;
    private long puts;

    @Setup(Level.Trial)
    public void open() {
        bench = BenchStore.keyValue(store);
        kv = bench.store;
        random = new SplittableRandom(42);
        value = Keys.value(random, valueSize);
        puts = 0;
    }

    @Benchmark
    public void put() {
        kv.put(Keys.sequential(random.nextInt(Sizes.PUT_KEYS)), value);
        if (++puts % commitEvery == 0) {
            bench.commit(puts);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        bench.close();
    }
}
