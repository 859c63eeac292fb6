package dev.txnrocksdb.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Changelog restore through the callback each store registers in init, driven as Kafka's
 * restore loop drives it: batches of 1,000 records (max.poll.records' default) of keys drawn from
 * {@link Sizes#PUT_KEYS} and 100-byte values, offsets committed every 10,000 records. One op =
 * one record. (Kafka's RocksDBStore restores with a WriteBatch written straight to RocksDB,
 * bypassing its transaction buffer, with or without the transactional flag.)
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RestoreBenchmark {
    static final int BATCH = 1_000;

    @Param({"txn", "txn-secondary", "kafka-txn", "kafka", "kafka-memory"})
    public String store;

    private BenchStore<KeyValueStore<Bytes, byte[]>> bench;
    private RecordBatchingStateRestoreCallback restore;
    private SplittableRandom random;
    private byte[] value;
    private long offset;

    @Setup(Level.Trial)
    public void open() {
        bench = BenchStore.keyValue(store);
        restore = bench.batchRestoreCallback();
        random = new SplittableRandom(99);
        value = Keys.value(random);
        offset = 0;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void restore() {
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            batch.add(BenchStore.changelogRecord(
                    offset++, Keys.sequential(random.nextInt(Sizes.PUT_KEYS)).get(), value));
        }
        restore.restoreBatch(batch);
        if (offset % Sizes.LOAD_COMMIT_INTERVAL == 0) {
            bench.commit(offset);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        bench.close();
    }
}
