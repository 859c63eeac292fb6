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
 * Commit latency: before each iteration (untimed) {@code dirtyKeys} puts of keys drawn from
 * {@link Sizes#PUT_KEYS} with 100-byte values are written without committing; the iteration is
 * one {@code commit(offsets)}, timed alone ({@link Mode#SingleShotTime}, so one op = one commit and
 * lower is better). For the {@code kafka} column (flag off) the puts already went to RocksDB and
 * the commit only writes the offsets.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class CommitBenchmark {
    @Param({"txn", "txn-secondary", "kafka-txn", "kafka", "kafka-memory"})
    public String store;

    @Param({"1000", "10000", "100000"})
    public int dirtyKeys;

    private BenchStore<KeyValueStore<Bytes, byte[]>> bench;
    private SplittableRandom random;
    private byte[] value;
    private long offset;

    @Setup(Level.Trial)
    public void open() {
        bench = BenchStore.keyValue(store);
        random = new SplittableRandom(1234);
        value = Keys.value(random);
        offset = 0;
    }

    @Setup(Level.Iteration)
    public void dirty() {
        KeyValueStore<Bytes, byte[]> kv = bench.store;
        for (int i = 0; i < dirtyKeys; i++) {
            kv.put(Keys.sequential(random.nextInt(Sizes.PUT_KEYS)), value);
        }
        offset += dirtyKeys;
        if (bench.kind.transactionalFlag && bench.uncommittedBytes() == 0) {
            throw new IllegalStateException(bench.kind.id + " reports no uncommitted bytes after " + dirtyKeys
                    + " uncommitted puts: it is not staging writes");
        }
    }

    @Benchmark
    public void commit() {
        bench.commit(offset);
    }

    @TearDown(Level.Trial)
    public void close() {
        bench.close();
    }
}
