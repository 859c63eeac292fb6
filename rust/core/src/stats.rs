//! What an operator watches about one store, read from RocksDB's properties and statistics and
//! from the store's own counters in one call ([`crate::KeyValueStore::stats`]), so the JNI
//! boundary passes all of it in one array.
//!
//! RocksDB statistics (bytes written and read, block cache hits) cost a little on every operation,
//! so, as in Kafka's RocksDB stores, they are collected only by stores opened with
//! `StoreOptions::statistics` (Kafka Streams' `metrics.recording.level=DEBUG`); without them those
//! values are [`UNAVAILABLE`].

use crate::db::Db;
use crate::memory;
use crate::options::{DATA_CF, OFFSETS_CF, TXN_CF};
use std::sync::atomic::Ordering;

/// The value of a statistic the store does not collect (RocksDB statistics turned off).
pub const UNAVAILABLE: i64 = -1;

/// The statistics of one store, in the order of [`Stat::ALL`] (the JNI boundary's array).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stat {
    /// Bytes in memtables (active and immutable, all column families).
    CurSizeAllMemTables,
    /// As above, plus memtables pinned by iterators and snapshots.
    SizeAllMemTables,
    /// RocksDB's estimate of the committed keys.
    EstimateNumKeys,
    /// Bytes of the SST files of the current version.
    LiveSstFilesSize,
    /// Bytes of all SST files, obsolete ones not yet deleted included.
    TotalSstFilesSize,
    /// Bytes compaction has to rewrite to bring every level under its target size.
    EstimatePendingCompactionBytes,
    NumRunningCompactions,
    NumRunningFlushes,
    /// SST files; RocksDB keeps every one open (`max_open_files` is unlimited).
    NumberOpenFiles,
    /// The shared block cache (the same for every store of the process).
    BlockCacheCapacity,
    BlockCacheUsage,
    BlockCachePinnedUsage,
    /// Bytes held by the current transaction's writes.
    UncommittedBytes,
    /// Bytes in the secondary-store strategy's temporary store (memtables and SST files).
    TemporaryStoreBytes,
    RollForwards,
    Rollbacks,
    /// 1 if the store's files were found damaged at open and deleted, so that its changelog
    /// restores it (`CorruptionPolicy::RestoreFromChangelog`), else 0.
    Wipes,
    /// RocksDB statistics (or [`UNAVAILABLE`]): bytes written by writes, bytes read by gets and
    /// iterators, block cache hits and misses by block type, since the store opened.
    BytesWritten,
    BytesRead,
    BlockCacheDataHit,
    BlockCacheDataMiss,
    BlockCacheIndexHit,
    BlockCacheIndexMiss,
    BlockCacheFilterHit,
    BlockCacheFilterMiss,
}

impl Stat {
    /// Every statistic, in array order.
    pub const ALL: [Stat; 25] = [
        Stat::CurSizeAllMemTables,
        Stat::SizeAllMemTables,
        Stat::EstimateNumKeys,
        Stat::LiveSstFilesSize,
        Stat::TotalSstFilesSize,
        Stat::EstimatePendingCompactionBytes,
        Stat::NumRunningCompactions,
        Stat::NumRunningFlushes,
        Stat::NumberOpenFiles,
        Stat::BlockCacheCapacity,
        Stat::BlockCacheUsage,
        Stat::BlockCachePinnedUsage,
        Stat::UncommittedBytes,
        Stat::TemporaryStoreBytes,
        Stat::RollForwards,
        Stat::Rollbacks,
        Stat::Wipes,
        Stat::BytesWritten,
        Stat::BytesRead,
        Stat::BlockCacheDataHit,
        Stat::BlockCacheDataMiss,
        Stat::BlockCacheIndexHit,
        Stat::BlockCacheIndexMiss,
        Stat::BlockCacheFilterHit,
        Stat::BlockCacheFilterMiss,
    ];

    /// The name Java uses for it (its `StoreStatistic` constant, which a Java test compares).
    pub fn name(self) -> &'static str {
        match self {
            Stat::CurSizeAllMemTables => "CUR_SIZE_ALL_MEM_TABLES",
            Stat::SizeAllMemTables => "SIZE_ALL_MEM_TABLES",
            Stat::EstimateNumKeys => "ESTIMATE_NUM_KEYS",
            Stat::LiveSstFilesSize => "LIVE_SST_FILES_SIZE",
            Stat::TotalSstFilesSize => "TOTAL_SST_FILES_SIZE",
            Stat::EstimatePendingCompactionBytes => "ESTIMATE_PENDING_COMPACTION_BYTES",
            Stat::NumRunningCompactions => "NUM_RUNNING_COMPACTIONS",
            Stat::NumRunningFlushes => "NUM_RUNNING_FLUSHES",
            Stat::NumberOpenFiles => "NUMBER_OPEN_FILES",
            Stat::BlockCacheCapacity => "BLOCK_CACHE_CAPACITY",
            Stat::BlockCacheUsage => "BLOCK_CACHE_USAGE",
            Stat::BlockCachePinnedUsage => "BLOCK_CACHE_PINNED_USAGE",
            Stat::UncommittedBytes => "UNCOMMITTED_BYTES",
            Stat::TemporaryStoreBytes => "TEMPORARY_STORE_BYTES",
            Stat::RollForwards => "ROLL_FORWARDS",
            Stat::Rollbacks => "ROLLBACKS",
            Stat::Wipes => "WIPES",
            Stat::BytesWritten => "BYTES_WRITTEN",
            Stat::BytesRead => "BYTES_READ",
            Stat::BlockCacheDataHit => "BLOCK_CACHE_DATA_HIT",
            Stat::BlockCacheDataMiss => "BLOCK_CACHE_DATA_MISS",
            Stat::BlockCacheIndexHit => "BLOCK_CACHE_INDEX_HIT",
            Stat::BlockCacheIndexMiss => "BLOCK_CACHE_INDEX_MISS",
            Stat::BlockCacheFilterHit => "BLOCK_CACHE_FILTER_HIT",
            Stat::BlockCacheFilterMiss => "BLOCK_CACHE_FILTER_MISS",
        }
    }
}

/// RocksDB statistics tickers behind the last statistics, as named in `rocksdb.options-statistics`.
const TICKERS: [(Stat, &[&str]); 8] = [
    (Stat::BytesWritten, &["rocksdb.bytes.written"]),
    (Stat::BytesRead, &["rocksdb.bytes.read", "rocksdb.db.iter.bytes.read"]),
    (Stat::BlockCacheDataHit, &["rocksdb.block.cache.data.hit"]),
    (Stat::BlockCacheDataMiss, &["rocksdb.block.cache.data.miss"]),
    (Stat::BlockCacheIndexHit, &["rocksdb.block.cache.index.hit"]),
    (Stat::BlockCacheIndexMiss, &["rocksdb.block.cache.index.miss"]),
    (Stat::BlockCacheFilterHit, &["rocksdb.block.cache.filter.hit"]),
    (Stat::BlockCacheFilterMiss, &["rocksdb.block.cache.filter.miss"]),
];

/// Reads every [`Stat`] of `db`; `uncommitted_bytes` comes from the store's staging.
pub(crate) fn read(db: &Db, uncommitted_bytes: u64) -> Vec<i64> {
    let recovery = &db.recovery;
    let mut values = vec![UNAVAILABLE; Stat::ALL.len()];
    let mut set = |stat: Stat, value: u64| values[stat as usize] = value.min(i64::MAX as u64) as i64;
    let families = [DATA_CF, OFFSETS_CF, TXN_CF];
    let sum = |property: &str| families.iter().map(|family| family_property(db, family, property)).sum::<u64>();
    set(Stat::CurSizeAllMemTables, sum("rocksdb.cur-size-all-mem-tables"));
    set(Stat::SizeAllMemTables, sum("rocksdb.size-all-mem-tables"));
    set(Stat::EstimateNumKeys, family_property(db, DATA_CF, "rocksdb.estimate-num-keys"));
    set(Stat::LiveSstFilesSize, sum("rocksdb.live-sst-files-size"));
    set(Stat::TotalSstFilesSize, sum("rocksdb.total-sst-files-size"));
    set(Stat::EstimatePendingCompactionBytes, sum("rocksdb.estimate-pending-compaction-bytes"));
    set(
        Stat::NumRunningCompactions,
        db.rocks.property_int_value("rocksdb.num-running-compactions").ok().flatten().unwrap_or(0),
    );
    set(
        Stat::NumRunningFlushes,
        db.rocks.property_int_value("rocksdb.num-running-flushes").ok().flatten().unwrap_or(0),
    );
    set(Stat::NumberOpenFiles, (0..7).map(|level| sum(&format!("rocksdb.num-files-at-level{level}"))).sum());
    let budget = memory::shared();
    set(Stat::BlockCacheCapacity, budget.cache.get_capacity() as u64);
    set(Stat::BlockCacheUsage, budget.cache.get_usage() as u64);
    set(Stat::BlockCachePinnedUsage, budget.cache.get_pinned_usage() as u64);
    set(Stat::UncommittedBytes, uncommitted_bytes);
    set(
        Stat::TemporaryStoreBytes,
        family_property(db, TXN_CF, "rocksdb.cur-size-all-mem-tables")
            + family_property(db, TXN_CF, "rocksdb.total-sst-files-size"),
    );
    set(Stat::RollForwards, recovery.rolled_forward.load(Ordering::Relaxed));
    set(Stat::Rollbacks, recovery.rolled_back.load(Ordering::Relaxed));
    set(Stat::Wipes, recovery.wiped.load(Ordering::Relaxed));
    if let Ok(Some(text)) = db.rocks.property_value("rocksdb.options-statistics") {
        for (stat, tickers) in TICKERS {
            set(stat, tickers.iter().map(|ticker| ticker_count(&text, ticker).unwrap_or(0)).sum());
        }
    }
    values
}

fn family_property(db: &Db, family: &str, property: &str) -> u64 {
    db.rocks
        .cf_handle(family)
        .and_then(|handle| db.rocks.property_int_value_cf(handle, property).ok().flatten())
        .unwrap_or(0)
}

/// The count of `ticker` in RocksDB's statistics dump (lines `name COUNT : value`).
fn ticker_count(dump: &str, ticker: &str) -> Option<u64> {
    dump.lines().find_map(|line| {
        let rest = line.strip_prefix(ticker)?.strip_prefix(" COUNT : ")?;
        rest.trim().parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticker_counts_are_read_from_the_statistics_dump() {
        let dump =
            "rocksdb.block.cache.miss COUNT : 7\nrocksdb.bytes.written COUNT : 1234\nrocksdb.bytes.read COUNT : 5\n";
        assert_eq!(ticker_count(dump, "rocksdb.bytes.written"), Some(1234));
        assert_eq!(ticker_count(dump, "rocksdb.bytes.read"), Some(5));
        assert_eq!(ticker_count(dump, "rocksdb.block.cache"), None);
    }

    #[test]
    fn the_array_order_is_the_enum_order() {
        for (i, stat) in Stat::ALL.iter().enumerate() {
            assert_eq!(*stat as usize, i, "{}", stat.name());
        }
    }
}
