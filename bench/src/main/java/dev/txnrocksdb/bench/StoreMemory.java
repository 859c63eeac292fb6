package dev.txnrocksdb.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The memory part of the end-to-end benchmark ({@code bench/e2e.sh}): one JVM opens {@code stores}
 * bare key-value stores of one {@link StoreKind} (as the JMH benchmarks open them, each in its own
 * state directory, under {@code exactly_once_v2}), then loads {@code keysPerStore} distinct keys
 * into each the way a count aggregation does (a get, then a put of a 100-byte value), in rounds of
 * {@code commitEvery} records per store after which every store commits (a task committing its
 * stores), then reads every 10th key once more (to run the reads through the block caches); finally it prints its own peak and current RSS
 * ({@code VmHWM}, {@code VmRSS} from {@code /proc/self/status}) and the heap in use as one line:
 * {@code RESULT kind=.. stores=.. keysPerStore=.. vmHwmKiB=.. vmRssKiB=.. heapUsedKiB=.. seconds=..}.
 * One JVM per column, so the RSS is the column's alone.
 *
 * <p>{@code java -cp bench/target/benchmarks.jar dev.txnrocksdb.bench.StoreMemory <kind> <stores> <keysPerStore> <commitEvery>};
 * {@code ... StoreMemory machine} prints the machine as {@code MACHINE <json>} (as the JMH results describe it).
 */
public final class StoreMemory {

    /** The read-back pass gets every this many-th key of each store. */
    static final int READ_BACK_EVERY = 10;

    private StoreMemory() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("machine")) {
            System.out.println("MACHINE " + CompareStores.Machine.describe().json());
            return;
        }
        if (args.length != 4) {
            throw new IllegalArgumentException(
                    "usage: StoreMemory <" + StoreKind.ids() + "> <stores> <keysPerStore> <commitEvery>");
        }
        StoreKind kind = StoreKind.of(args[0]);
        int stores = Integer.parseInt(args[1]);
        int keysPerStore = Integer.parseInt(args[2]);
        int commitEvery = Integer.parseInt(args[3]);
        long started = System.nanoTime();
        List<BenchStore<KeyValueStore<Bytes, byte[]>>> open = new ArrayList<>();
        try {
            for (int s = 0; s < stores; s++) {
                open.add(BenchStore.keyValue(kind.id, StreamsConfig.EXACTLY_ONCE_V2));
            }
            SplittableRandom random = new SplittableRandom(42);
            // distinct keys per store, in a scattered order: i * stride mod keysPerStore, stride coprime to it
            long stride = coprimeStride(keysPerStore);
            long offset = 0;
            for (int from = 0; from < keysPerStore; from += commitEvery) {
                int to = Math.min(keysPerStore, from + commitEvery);
                for (BenchStore<KeyValueStore<Bytes, byte[]>> b : open) {
                    for (int i = from; i < to; i++) {
                        Bytes key = Keys.sequential(i * stride % keysPerStore);
                        b.store.get(key);
                        b.store.put(key, Keys.value(random));
                    }
                }
                offset += to - from;
                for (BenchStore<KeyValueStore<Bytes, byte[]>> b : open) {
                    b.commit(offset);
                }
            }
            long found = 0;
            long expected = 0;
            for (BenchStore<KeyValueStore<Bytes, byte[]>> b : open) {
                for (int i = 0; i < keysPerStore; i += READ_BACK_EVERY) {
                    expected++;
                    if (b.store.get(Keys.sequential(i)) != null) {
                        found++;
                    }
                }
            }
            if (found != expected) {
                throw new IllegalStateException(kind.id + ": read back " + found + " of " + expected + " keys");
            }
            Runtime rt = Runtime.getRuntime();
            long heapUsed = (rt.totalMemory() - rt.freeMemory()) / 1024;
            System.out.printf(
                    Locale.ROOT,
                    "RESULT kind=%s stores=%d keysPerStore=%d vmHwmKiB=%d vmRssKiB=%d heapUsedKiB=%d seconds=%.1f%n",
                    kind.id,
                    stores,
                    keysPerStore,
                    status("VmHWM"),
                    status("VmRSS"),
                    heapUsed,
                    (System.nanoTime() - started) / 1e9);
        } finally {
            for (BenchStore<KeyValueStore<Bytes, byte[]>> b : open) {
                b.close();
            }
        }
    }

    private static long coprimeStride(long n) {
        long stride = 7_919;
        while (java.math.BigInteger.valueOf(n)
                        .gcd(java.math.BigInteger.valueOf(stride))
                        .longValue()
                != 1) {
            stride++;
        }
        return stride;
    }

    /** A {@code kB} field of {@code /proc/self/status}. */
    private static long status(String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
            }
        }
        throw new IllegalStateException("no " + field + " in /proc/self/status");
    }
}
