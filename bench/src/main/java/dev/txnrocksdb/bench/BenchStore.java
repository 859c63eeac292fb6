package dev.txnrocksdb.bench;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnStores;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * One store under benchmark, opened in its own temporary state directory: "txn" is
 * txn-rocksdb's transactional store (indexed-batch strategy, the default), "txn-secondary" the same
 * store with the secondary-store strategy, "builtin" Kafka Streams' RocksDB store. Both are the bare
 * stores their suppliers build (no caching or change-logging layers), committed the same way.
 */
final class BenchStore implements AutoCloseable {
    static final String TXN = "txn";
    static final String TXN_SECONDARY = "txn-secondary";
    static final String BUILTIN = "builtin";
    static final TopicPartition CHANGELOG = new TopicPartition("txn-rocksdb-bench-store-changelog", 0);

    final KeyValueStore<Bytes, byte[]> store;
    private final BenchContext context;
    private final Path dir;

    BenchStore(String kind) {
        try {
            dir = Files.createTempDirectory("txn-rocksdb-bench-" + kind + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        KeyValueBytesStoreSupplier supplier = switch (kind) {
            case TXN -> TxnStores.persistentTransactionalKeyValueStore("bench-store");
            case TXN_SECONDARY -> TxnStores.persistentTransactionalKeyValueStore("bench-store",
                    TransactionStrategy.SECONDARY_STORE);
            case BUILTIN -> Stores.persistentKeyValueStore("bench-store");
            default -> throw new IllegalArgumentException("store must be txn, txn-secondary or builtin, not " + kind);
        };
        context = new BenchContext(dir.toFile());
        store = supplier.get();
        try {
            store.init(context, store);
        } catch (RuntimeException | Error e) {
            deleteRecursively(dir);
            throw e;
        }
    }

    /** Commits the writes so far, recording {@code offset} as the changelog offset they reach. */
    void commit(long offset) {
        store.commit(Map.of(CHANGELOG, offset));
    }

    StateRestoreCallback restoreCallback() {
        StateRestoreCallback callback = context.restoreCallback();
        if (callback == null) {
            throw new IllegalStateException(store.getClass().getName() + " registered no restore callback");
        }
        return callback;
    }

    @Override
    public void close() {
        try {
            store.close();
        } finally {
            deleteRecursively(dir);
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
