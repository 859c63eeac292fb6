package dev.txnrocksdb.bench;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueTimestampHeaders;
import org.apache.kafka.streams.state.internals.ValueTimestampHeadersSerde;
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
 * Timestamped key-value stores with headers (KIP-1271): ours
 * ({@code TxnStores.persistentTransactionalTimestampedKeyValueStoreWithHeaders}, a
 * {@code TxnTimestampedKeyValueStoreWithHeaders}), Kafka's
 * {@code Stores.persistentTimestampedKeyValueStoreWithHeaders} ({@code RocksDBTimestampedStoreWithHeaders})
 * with and without the transactional flag, and {@code Stores.inMemoryKeyValueStore} (what Kafka's
 * headers builder wraps for an in-memory store). Bare stores, as {@link BenchStore} opens them.
 *
 * <p>Values are in the format Kafka's headers layers write into the store,
 * {@code [varint headers size][headers][8-byte timestamp][value]}, made by Kafka's own
 * {@code ValueTimestampHeadersSerde}: empty headers and a 100-byte value, 109 bytes in all.
 * Keys are 16 bytes, as in the plain key-value benchmarks.
 *
 * <p>{@code put}: as {@link PutBenchmark#put} (a fresh store, keys drawn from {@link Sizes#PUT_KEYS},
 * commit every {@code commitEvery} puts included). {@code get}: a get of a random one of
 * {@link Sizes#KEYS} (100,000) committed keys, nothing staged, as {@code ReadBenchmark.get}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class HeadersBenchmark {
    private static final ValueTimestampHeadersSerde<byte[]> SERDE =
            new ValueTimestampHeadersSerde<>(Serdes.ByteArray());
    /** The serialized value's size: a one-byte varint 0 (empty headers), the timestamp, the value. */
    static final int STORED_VALUE_SIZE = 1 + Long.BYTES + Keys.VALUE_SIZE;

    /** {@code value} at {@code timestamp} with empty headers, as Kafka's headers store layers serialize it. */
    static byte[] headersValue(byte[] value, long timestamp) {
        byte[] bytes =
                SERDE.serializer().serialize(null, ValueTimestampHeaders.make(value, timestamp, new RecordHeaders()));
        if (bytes.length != 1 + Long.BYTES + value.length || bytes[0] != 0) {
            throw new IllegalStateException("Kafka's headers format is not [varint 0][8-byte timestamp][value]: "
                    + bytes.length + " bytes for a " + value.length + "-byte value, first byte " + bytes[0]);
        }
        return bytes;
    }

    /** The transactional proof of {@link ReopenCheck} for the column's headers store. */
    static void checkReopen(String store) {
        byte[] value = headersValue(new byte[Keys.VALUE_SIZE], WindowBenchmark.BASE);
        ReopenCheck.<KeyValueStore<Bytes, byte[]>>run(
                "timestamped key-value store with headers",
                () -> BenchStore.headersKeyValue(store),
                (kv, key) -> kv.put(key, value),
                (kv, key) -> kv.get(key) != null);
    }

    /** A fresh store for puts. */
    @State(Scope.Thread)
    public static class Fresh {
        @Param({"txn", "txn-secondary", "kafka-txn", "kafka", "kafka-memory"})
        public String store;

        @Param({"100", "10000"})
        public int commitEvery;

        BenchStore<KeyValueStore<Bytes, byte[]>> bench;
        KeyValueStore<Bytes, byte[]> kv;
        SplittableRandom random;
        byte[] value;
        long puts;

        @Setup(Level.Trial)
        public void open() {
            checkReopen(store);
            bench = BenchStore.headersKeyValue(store);
            kv = bench.store;
            random = new SplittableRandom(42);
            value = headersValue(Keys.value(random), WindowBenchmark.BASE);
            puts = 0;
        }

        @TearDown(Level.Trial)
        public void close() {
            bench.close();
        }
    }

    /** {@link Sizes#KEYS} committed entries, nothing staged. */
    @State(Scope.Benchmark)
    public static class Loaded {
        @Param({"txn", "txn-secondary", "kafka-txn", "kafka", "kafka-memory"})
        public String store;

        BenchStore<KeyValueStore<Bytes, byte[]>> bench;
        KeyValueStore<Bytes, byte[]> kv;
        Bytes[] keys;

        @Setup(Level.Trial)
        public void load() {
            checkReopen(store);
            bench = BenchStore.headersKeyValue(store);
            kv = bench.store;
            try {
                SplittableRandom random = new SplittableRandom(7);
                keys = new Bytes[Sizes.KEYS];
                byte[] last = null;
                for (int i = 0; i < keys.length; i++) {
                    keys[i] = Keys.sequential(i);
                    last = headersValue(Keys.value(random), WindowBenchmark.BASE + i);
                    kv.put(keys[i], last);
                    if ((i + 1) % Sizes.LOAD_COMMIT_INTERVAL == 0) {
                        bench.commit(i + 1);
                    }
                }
                bench.commit(keys.length);
                // A wrong answer would make the numbers meaningless; check once, outside timing.
                byte[] got = kv.get(keys[keys.length - 1]);
                if (!Arrays.equals(got, last)) {
                    throw new IllegalStateException(store + ": get of the last key loaded returned "
                            + (got == null ? "nothing" : got.length + " other bytes"));
                }
                ValueTimestampHeaders<byte[]> read =
                        SERDE.deserializer().deserialize(null, kv.get(keys[keys.length / 2]));
                if (read.timestamp() != WindowBenchmark.BASE + keys.length / 2
                        || read.value().length != Keys.VALUE_SIZE
                        || read.headers().toArray().length != 0) {
                    throw new IllegalStateException(store + ": get returned " + read);
                }
                if (kv.get(Keys.missing(keys.length / 2)) != null) {
                    throw new IllegalStateException(store + ": a key never written was found");
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

    /** One op = one put of a 16-byte key and a 109-byte headers value (commit every {@code commitEvery} included). */
    @Benchmark
    public void put(Fresh s) {
        s.kv.put(Keys.sequential(s.random.nextInt(Sizes.PUT_KEYS)), s.value);
        if (++s.puts % s.commitEvery == 0) {
            s.bench.commit(s.puts);
        }
    }

    /** One op = a get of a random one of the committed keys (always a hit). */
    @Benchmark
    public byte[] get(Loaded s) {
        return s.kv.get(s.keys[ThreadLocalRandom.current().nextInt(s.keys.length)]);
    }
}
