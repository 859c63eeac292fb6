package dev.txnrocksdb.streams.internals.nativeapi;

import java.nio.file.Path;
import java.util.Objects;
import org.apache.kafka.streams.errors.ProcessorStateException;

/**
 * A store's files read without opening it for writing, for the operators' tool
 * ({@code txn-rocksdb-tool}): what they say about the store ({@link #facts}), a check of every file
 * with what the next open would do under each damage policy ({@link #verify}), and its committed
 * entries ({@link #dump}). Natives in {@code rust/jni/src/inspection.rs}, over the engine's
 * read-only view of a store; what they return are {@link StoreInspection}'s records.
 *
 * <p>No call writes to the store's directory, and none takes RocksDB's lock: the caller makes sure
 * no application has the store open (the tool holds shared locks on {@code <store>/LOCK} and the
 * application directory's {@code .lock} for the whole command). Each call opens the store's files
 * and closes them before it returns; nothing stays open between calls.
 *
 * <p><b>Errors:</b> {@link IllegalArgumentException} for a directory that holds no store or
 * arguments the native side cannot use, {@link ProcessorStateException} when reading the files
 * fails (the message names the store and what failed), both thrown by the native side.
 */
public final class NativeStoreInspection {
    static {
        NativeLibrary.load();
    }

    private NativeStoreInspection() {}

    /** What the files of the store in {@code storeDir} say about it. */
    public static StoreInspection.Facts facts(Path storeDir) {
        return StoreInspection.Facts.decode(facts0(NativeStore.nativePath(storeDir)));
    }

    /**
     * Checks every file of the store in {@code storeDir} (checksums, the write-ahead log, the
     * {@code DAMAGED} mark) and what its next open would do under each damage policy, without acting.
     */
    public static StoreInspection.Verification verify(Path storeDir) {
        return StoreInspection.Verification.decode(verify0(NativeStore.nativePath(storeDir)));
    }

    /**
     * Committed entries of the store in {@code storeDir}, in its order: those from
     * {@code fromInclusive} to {@code toInclusive} (null: from the first, to the last), starting
     * where {@code resume} says (null: at the start of the range; otherwise the
     * {@link StoreInspection.DumpChunk#resume()} of the chunk before), at most {@code maxEntries}
     * of them. Never uncommitted writes.
     *
     * @throws IllegalArgumentException if {@code maxEntries} is not positive
     */
    public static StoreInspection.DumpChunk dump(
            Path storeDir, byte[] fromInclusive, byte[] toInclusive, byte[] resume, int maxEntries) {
        Objects.requireNonNull(storeDir, "storeDir cannot be null");
        if (maxEntries <= 0) {
            throw new IllegalArgumentException("maxEntries must be positive, not " + maxEntries);
        }
        return StoreInspection.DumpChunk.decode(
                dump0(NativeStore.nativePath(storeDir), fromInclusive, toInclusive, resume, maxEntries));
    }

    // ---------------------------------------------------------------- natives (rust/jni/src/inspection.rs)

    private static native byte[] facts0(String storeDir);

    private static native byte[] verify0(String storeDir);

    private static native byte[] dump0(String storeDir, byte[] from, byte[] to, byte[] resume, int maxEntries);
}
