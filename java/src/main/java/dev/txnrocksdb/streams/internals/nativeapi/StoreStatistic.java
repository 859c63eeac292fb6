package dev.txnrocksdb.streams.internals.nativeapi;

/**
 * The statistics {@link NativeStoreStatistics#read} returns, in array order (the order of
 * {@code txn_rocksdb::stats::Stat} in {@code rust/core/src/stats.rs}; a test compares the names).
 */
public enum StoreStatistic {
    /** Bytes in memtables (active and immutable, all column families). */
    CUR_SIZE_ALL_MEM_TABLES,
    /** As above, plus memtables pinned by iterators and snapshots. */
    SIZE_ALL_MEM_TABLES,
    /** RocksDB's estimate of the committed keys. */
    ESTIMATE_NUM_KEYS,
    /** Bytes of the SST files of the current version. */
    LIVE_SST_FILES_SIZE,
    /** Bytes of all SST files, obsolete ones not yet deleted included. */
    TOTAL_SST_FILES_SIZE,
    /** Bytes compaction has to rewrite to bring every level under its target size. */
    ESTIMATE_PENDING_COMPACTION_BYTES,
    /** Compactions running now. */
    NUM_RUNNING_COMPACTIONS,
    /** Flushes running now. */
    NUM_RUNNING_FLUSHES,
    /** SST files, all of which RocksDB keeps open. */
    NUMBER_OPEN_FILES,
    /** Capacity of the block cache every store of the process shares. */
    BLOCK_CACHE_CAPACITY,
    /** Bytes in the shared block cache (memtables included: they are charged to it). */
    BLOCK_CACHE_USAGE,
    /** Bytes of the shared block cache pinned by readers. */
    BLOCK_CACHE_PINNED_USAGE,
    /** Bytes held by the current transaction's writes. */
    UNCOMMITTED_BYTES,
    /** Bytes in the secondary-store strategy's temporary store. */
    TEMPORARY_STORE_BYTES,
    /** Commits completed by recovery since the store opened. */
    ROLL_FORWARDS,
    /** Transactions whose uncommitted temporary-store writes were thrown away when the store opened. */
    ROLLBACKS,
    /** 1 if the store's files were found damaged at open and deleted so that its changelog restores it, else 0. */
    WIPES,
    /** RocksDB statistics from here on (-1 when not collected): bytes written. */
    BYTES_WRITTEN,
    /** Bytes read by gets and iterators. */
    BYTES_READ,
    /** Block cache hits for data blocks. */
    BLOCK_CACHE_DATA_HIT,
    /** Block cache misses for data blocks. */
    BLOCK_CACHE_DATA_MISS,
    /** Block cache hits for index blocks. */
    BLOCK_CACHE_INDEX_HIT,
    /** Block cache misses for index blocks. */
    BLOCK_CACHE_INDEX_MISS,
    /** Block cache hits for filter blocks. */
    BLOCK_CACHE_FILTER_HIT,
    /** Block cache misses for filter blocks. */
    BLOCK_CACHE_FILTER_MISS;

    /** The value of this statistic in an array {@link NativeStoreStatistics#read} returned. */
    public long of(long[] values) {
        return values[ordinal()];
    }
}
