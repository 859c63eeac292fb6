package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.internals.nativeapi.NativeLibrary;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Passes the configured process-wide memory budget to the native library, once. */
final class MemoryBudget {
    private static final Logger log = LoggerFactory.getLogger(MemoryBudget.class);
    private static boolean attempted;

    private MemoryBudget() {}

    static synchronized void configureOnce(long blockCacheBytes, long writeBufferBytes) {
        if (attempted) {
            return;
        }
        attempted = true;
        if (NativeLibrary.configureMemory(blockCacheBytes, writeBufferBytes)) {
            log.info(
                    "txn-rocksdb memory budget: block cache {} bytes, write buffers {} bytes (charged to the cache)",
                    blockCacheBytes,
                    writeBufferBytes);
        } else {
            log.warn(
                    "txn-rocksdb memory budget (block cache {} bytes, write buffers {} bytes) ignored: a store of this"
                            + " process opened before it was configured, and the budget is fixed at the first open",
                    blockCacheBytes,
                    writeBufferBytes);
        }
    }
}
