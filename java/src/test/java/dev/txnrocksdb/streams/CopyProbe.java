package dev.txnrocksdb.streams;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Watches, from the test's JVM, the files of a store another process is writing: whether a
 * secondary-store commit is copying, that is whether its commit record (key {@code c} of the
 * {@code offsets} column family) is in what RocksDB would recover from the files now, which is
 * what a {@code kill -9} now would leave. A RocksDB secondary instance (RocksJava, which Kafka
 * Streams depends on) tails the store's MANIFEST and WAL, so each poll reads only what is new.
 */
final class CopyProbe implements AutoCloseable {
    private static final byte[] COMMIT_RECORD_KEY = "c".getBytes(StandardCharsets.UTF_8);

    private final DBOptions options;
    private final List<ColumnFamilyHandle> handles = new ArrayList<>();
    private final RocksDB secondary;

    private CopyProbe(Path storeDir, Path secondaryDir) throws RocksDBException {
        RocksDB.loadLibrary();
        options = new DBOptions().setMaxOpenFiles(-1);
        List<ColumnFamilyDescriptor> families = List.of(
            new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
            new ColumnFamilyDescriptor("offsets".getBytes(StandardCharsets.UTF_8)));
        secondary = RocksDB.openAsSecondary(options, storeDir.toString(), secondaryDir.toString(), families, handles);
    }

    /**
     * A probe of the store in {@code storeDir}, opened as soon as the child has created the store
     * (before it stages anything, so that every later poll only reads what is new).
     *
     * @return the probe, or null if the store's files never became readable while the child ran
     */
    static CopyProbe awaitStore(ChildJvm child, Path storeDir, Path secondaryDir) {
        CopyProbe[] probe = new CopyProbe[1];
        child.pollUntil(() -> (probe[0] = tryOpen(storeDir, secondaryDir)) != null);
        return probe[0];
    }

    /** A probe of the store in {@code storeDir}, once its files exist (null until then). */
    static CopyProbe tryOpen(Path storeDir, Path secondaryDir) {
        if (!Files.exists(storeDir.resolve("CURRENT"))) {
            return null;
        }
        try {
            return new CopyProbe(storeDir, secondaryDir);
        } catch (RocksDBException e) {
            return null; // files changing under the open: try again
        }
    }

    /** Whether a commit's copy is under way in what the files hold now. */
    boolean copyInProgress() {
        try {
            secondary.tryCatchUpWithPrimary();
            return secondary.get(handles.get(1), COMMIT_RECORD_KEY) != null;
        } catch (RocksDBException e) {
            return false; // a file deleted while catching up: the next poll sees the new state
        }
    }

    @Override
    public void close() {
        handles.forEach(ColumnFamilyHandle::close);
        secondary.close();
        options.close();
    }
}
