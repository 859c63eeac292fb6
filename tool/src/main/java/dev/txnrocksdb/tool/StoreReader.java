package dev.txnrocksdb.tool;

import dev.txnrocksdb.streams.internals.nativeapi.NativeLibrary;
import dev.txnrocksdb.streams.internals.nativeapi.NativeStoreInspection;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.DumpChunk;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Facts;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Verification;
import java.nio.file.Path;

/**
 * What the commands read of a store, always under its {@link StoreLocks}: the native library's
 * {@link NativeStoreInspection} ({@link #natives()}), or a test's stand-in that records which
 * directories the tool asked for.
 */
interface StoreReader {
    /** What the store's files say about it ({@link NativeStoreInspection#facts}). */
    Facts facts(Path storeDir);

    /** Every file checked, and the next open under each damage policy ({@link NativeStoreInspection#verify}). */
    Verification verify(Path storeDir);

    /** Committed entries ({@link NativeStoreInspection#dump}). */
    DumpChunk dump(Path storeDir, byte[] fromInclusive, byte[] toInclusive, byte[] resume, int maxEntries);

    /**
     * The native library's reads. The library is loaded before the first one, so that a missing or
     * stale library fails the command with the loader's message (where it looked, which version)
     * rather than as one store's failure.
     */
    static StoreReader natives() {
        return new StoreReader() {
            @Override
            public Facts facts(Path storeDir) {
                NativeLibrary.load();
                return NativeStoreInspection.facts(storeDir);
            }

            @Override
            public Verification verify(Path storeDir) {
                NativeLibrary.load();
                return NativeStoreInspection.verify(storeDir);
            }

            @Override
            public DumpChunk dump(
                    Path storeDir, byte[] fromInclusive, byte[] toInclusive, byte[] resume, int maxEntries) {
                NativeLibrary.load();
                return NativeStoreInspection.dump(storeDir, fromInclusive, toInclusive, resume, maxEntries);
            }
        };
    }
}
