package dev.txnrocksdb.bench;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.internals.StateRestoreCallbackAdapter;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.VersionedBytesStore;
import org.apache.kafka.streams.state.WindowStore;

/**
 * One store under benchmark, opened in its own temporary state directory with the app configs its
 * {@link StoreKind} wants: key-value stores through {@link BenchContext} (kafka-streams-test-utils'
 * MockProcessorContext), window and session stores through {@link SegmentedBenchContext} (Kafka's
 * segmented stores need an internal context). Stores are the bare stores their suppliers build (no caching or
 * change-logging layers), all committed the same way: {@code store.commit(Map.of(CHANGELOG, offset))}.
 *
 * @param <S> the store's type
 */
final class BenchStore<S extends StateStore> implements AutoCloseable {
    static final TopicPartition CHANGELOG = new TopicPartition("txn-rocksdb-bench-store-changelog", 0);

    final StoreKind kind;
    final S store;
    private final Function<StoreKind, S> factory;
    private final boolean segmented;
    private final String processingGuarantee;
    private final StateStoreContext context;
    private final Supplier<StateRestoreCallback> registered;
    private final Path dir;
    /** The thread that opened the store: see {@link #checkThread()}. */
    private final Thread owner = Thread.currentThread();

    private boolean ownsDir = true;

    private BenchStore(
            StoreKind kind, Function<StoreKind, S> factory, boolean segmented, Path dir, String processingGuarantee) {
        this.kind = kind;
        this.factory = factory;
        this.segmented = segmented;
        this.dir = dir;
        this.processingGuarantee = processingGuarantee;
        if (segmented) {
            SegmentedBenchContext c =
                    new SegmentedBenchContext(dir.toFile(), kind.transactionalFlag, processingGuarantee);
            context = c;
            registered = c::restoreCallback;
        } else {
            BenchContext c = new BenchContext(dir.toFile(), kind.transactionalFlag, processingGuarantee);
            context = c;
            registered = c::restoreCallback;
        }
        this.store = factory.apply(kind);
        try {
            store.init(context, store);
        } catch (RuntimeException | Error e) {
            deleteRecursively(dir);
            throw e;
        }
    }

    private static <S extends StateStore> BenchStore<S> open(
            String kind, Function<StoreKind, S> factory, boolean segmented, String processingGuarantee) {
        StoreKind k = StoreKind.of(kind);
        Path dir;
        try {
            dir = Files.createTempDirectory("txn-rocksdb-bench-" + k.id + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new BenchStore<>(k, factory, segmented, dir, processingGuarantee);
    }

    static BenchStore<KeyValueStore<Bytes, byte[]>> keyValue(String kind) {
        return keyValue(kind, null);
    }

    static BenchStore<KeyValueStore<Bytes, byte[]>> keyValue(String kind, String processingGuarantee) {
        return open(kind, k -> k.keyValueSupplier().get(), false, processingGuarantee);
    }

    static BenchStore<WindowStore<Bytes, byte[]>> window(String kind) {
        return window(kind, null);
    }

    static BenchStore<WindowStore<Bytes, byte[]>> window(String kind, String processingGuarantee) {
        return open(kind, k -> k.windowSupplier().get(), true, processingGuarantee);
    }

    static BenchStore<SessionStore<Bytes, byte[]>> session(String kind) {
        return session(kind, null);
    }

    static BenchStore<SessionStore<Bytes, byte[]>> session(String kind, String processingGuarantee) {
        return open(kind, k -> k.sessionSupplier().get(), true, processingGuarantee);
    }

    /** A timestamped key-value store with headers ({@link StoreKind#headersKeyValueSupplier()}), opened as key-value stores are. */
    static BenchStore<KeyValueStore<Bytes, byte[]>> headersKeyValue(String kind) {
        return open(kind, k -> k.headersKeyValueSupplier().get(), false, null);
    }

    /**
     * A versioned store ({@link StoreKind#versionedSupplier()}) as Kafka's builder gets it: a
     * {@link VersionedBytesStore}. Opened through {@link SegmentedBenchContext}: Kafka's
     * {@code RocksDBVersionedStore} requires an internal context, as its segmented stores do.
     */
    static BenchStore<VersionedBytesStore> versioned(String kind) {
        return open(kind, k -> (VersionedBytesStore) k.versionedSupplier().get(), true, null);
    }

    /** Commits the writes so far, recording {@code offset} as the changelog offset they reach. */
    void commit(long offset) {
        store.commit(Map.of(CHANGELOG, offset));
    }

    /** What the store says its staged writes hold: more than 0 after a put only if it stages writes. */
    long uncommittedBytes() {
        return store.approximateNumUncommittedBytes();
    }

    /**
     * Closes the store (uncommitted writes included, as a clean shutdown between commits would)
     * and opens a new one of the same kind on the same state directory, which the new one then owns.
     */
    BenchStore<S> reopen() {
        store.close();
        ownsDir = false;
        return new BenchStore<>(kind, factory, segmented, dir, processingGuarantee);
    }

    /**
     * Waits until the store's files (names and sizes, under its state directory) have not changed
     * for {@code quiet}, or for at most {@code limit}: then its background flushes and compactions
     * are over, whichever store it is. Returns the time waited.
     */
    Duration awaitQuietFiles(Duration quiet, Duration limit) {
        long started = System.nanoTime();
        long poll = Math.max(1, quiet.toMillis() / 4);
        Map<String, Long> last = files();
        long unchangedSince = System.nanoTime();
        while (System.nanoTime() - unchangedSince < quiet.toNanos() && System.nanoTime() - started < limit.toNanos()) {
            try {
                Thread.sleep(poll);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            Map<String, Long> now = files();
            if (!now.equals(last)) {
                last = now;
                unchangedSince = System.nanoTime();
            }
        }
        return Duration.ofNanos(System.nanoTime() - started);
    }

    /** Every file under the state directory, with its size. */
    private Map<String, Long> files() {
        Map<String, Long> files = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.filter(Files::isRegularFile)
                    .forEach(p -> files.put(p.toString(), p.toFile().length()));
        } catch (IOException | UncheckedIOException e) {
            // A file deleted while walking: the files are changing; the next poll sees them again.
            files.put("", -1L);
        }
        return files;
    }

    StateRestoreCallback restoreCallback() {
        StateRestoreCallback callback = registered.get();
        if (callback == null) {
            throw new IllegalStateException(store.getClass().getName() + " registered no restore callback");
        }
        return callback;
    }

    /** The registered restore callback as Kafka's restore loop calls it: a batch of changelog records at a time. */
    RecordBatchingStateRestoreCallback batchRestoreCallback() {
        return StateRestoreCallbackAdapter.adapt(restoreCallback());
    }

    /** A record of the store's changelog ({@link #CHANGELOG}) at {@code offset}, as a restore consumer reads it. */
    static ConsumerRecord<byte[], byte[]> changelogRecord(long offset, byte[] key, byte[] value) {
        return new ConsumerRecord<>(CHANGELOG.topic(), CHANGELOG.partition(), offset, key, value);
    }

    /**
     * Fails unless called on the thread that opened the store. Kafka's transactional buffer serves
     * iterators opened on that thread from its live staging map and copies the map for any other
     * thread: a benchmark must run on the thread that loaded its store, or Kafka's numbers would
     * include that copy.
     */
    void checkThread() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException(
                    "benchmark thread " + Thread.currentThread().getName()
                            + " is not the thread that opened the store (" + owner.getName() + ")");
        }
    }

    @Override
    public void close() {
        try {
            if (store.isOpen()) {
                store.close();
            }
        } finally {
            if (ownsDir) {
                deleteRecursively(dir);
            }
        }
    }

    static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
