//! The RocksDB options and column families a store's instance opens with: the engine's own
//! ([`options`]), the user's tuning applied over them (`tuning.rs`), and every open of a store's
//! files ([`Opening`]: the instance itself in `db.rs`, and the read-only views `corruption/wal.rs`
//! opens to see which commit a damaged write-ahead log still reaches).

use crate::memory;
use crate::tuning::Tuning;
use rust_rocksdb::statistics::StatsLevel;
use rust_rocksdb::{
    BlockBasedIndexType, BlockBasedOptions, BlockBasedPinningTier, ColumnFamilyDescriptor, DBCompactionStyle,
    DBCompressionType, DBRecoveryMode, LogLevel, Options, DB,
};
use std::path::Path;

pub(crate) const DATA_CF: &str = "data";
pub(crate) const OFFSETS_CF: &str = "offsets";
pub(crate) const TXN_CF: &str = "txn";

/// The engine's options for a store's instance and each of its column families.
pub(crate) fn options() -> Options {
    let budget = memory::shared();
    let mut table = BlockBasedOptions::default();
    table.set_block_cache(&budget.cache);
    table.set_bloom_filter(10.0, false);
    // Index and filter blocks live in the block cache, so they count against the budget too: one
    // whole block of each per SST, pinned by its table reader for as long as the file is open
    // (never evicted, so never read back). A get then looks up only the data block in the cache.
    // Partitioned blocks would keep the cache strictly bounded but cost two more cache lookups and
    // a partition search per SST read; whole blocks left unpinned are evicted once an SST's blocks
    // outgrow a cache shard, and then read back on every get (docs/profiles.md, "Point gets at
    // every state size", measured with `examples/point_gets.rs`). Pinned, they stay charged to
    // the cache (about 2 bytes per key, summed over every store of the process); past the cache's
    // capacity they are kept anyway and data blocks get less room, as Kafka's stores keep theirs
    // in each table reader outside any budget.
    table.set_cache_index_and_filter_blocks(true);
    table.set_cache_index_and_filter_blocks_with_high_priority(true);
    table.set_index_type(BlockBasedIndexType::BinarySearch);
    table.set_unpartitioned_pinning_tier(BlockBasedPinningTier::All);
    let mut options = Options::default();
    options.set_block_based_table_factory(&table);
    options.set_write_buffer_manager(&budget.write_buffers);
    options.set_write_buffer_size(16 << 20);
    options.set_max_write_buffer_number(3);
    // Universal compaction, as Kafka's RocksDB stores: a Kafka Streams store is mostly updates of
    // random keys, where leveled compaction rewrites the base level at every L0 compaction: it
    // writes far more bytes to disk per put and stalls puts on flushes (the disk is the limit: the
    // WAL is synced before each flush). Each level stays one sorted run, so a store written under
    // leveled compaction opens unchanged. Gets are slower while compactions run, not once they
    // settle (docs/profiles.md, "Puts of 1 KiB values", measured with `examples/put_rate.rs`).
    options.set_compaction_style(DBCompactionStyle::Universal);
    // No compression where data is young and rewritten soon (L0 and L1: flushes, the CPU a busy
    // 2-core host feels), LZ4 below, where compactions put their sorted runs and most bytes end up.
    options.set_compression_per_level(&[
        DBCompressionType::None,
        DBCompressionType::None,
        DBCompressionType::Lz4,
        DBCompressionType::Lz4,
        DBCompressionType::Lz4,
        DBCompressionType::Lz4,
        DBCompressionType::Lz4,
    ]);
    options.set_max_background_jobs(2);
    // Bounds WAL growth: old WAL files force a flush of the (small) offsets family.
    options.set_max_total_wal_size(64 << 20);
    // WAL records wait in RocksDB's buffer until a commit writes them to the file
    // (`Db::write_commit`): one write(2) per commit instead of one per put. Only a commit has to
    // survive a killed process; what is not committed is thrown away at open anyway.
    options.set_manual_wal_flush(true);
    // Restored records and the offsets committed after them skip the WAL (`Db::write_restored`):
    // flushing the families together keeps offsets from being persisted ahead of those records.
    options.set_atomic_flush(true);
    // A WAL damaged before its end fails the open (`corruption::open` decides what then); RocksDB's
    // default would silently stop replaying at the damage and drop every later commit.
    options.set_wal_recovery_mode(DBRecoveryMode::TolerateCorruptedTailRecords);
    // RocksDB's WAL chain check: each new WAL records its predecessor (number, last sequence,
    // size), and recovery refuses a WAL whose predecessor is missing although the MANIFEST says its
    // data is not yet flushed. That is how a MANIFEST that reads as shorter than it is (cut after a
    // record, or a record's length garbled past the file's end: RocksDB drops such a "torn tail"
    // silently) is caught: its older version would replay the newer WALs over the data flushed in
    // between (`tests/damaged_files.rs`). RocksDB 11.12's log reader can loop forever on some
    // garbled WAL records, in this check too, so this check is safe only because the open checks
    // every WAL file and sets damaged ones aside before RocksDB reads any (`corruption/wal.rs`).
    options.set_track_and_verify_wals(true);
    // RocksDB's own LOG stays in the store directory: warnings and errors only, at most two files
    // of 1 MiB (README, "Logs").
    options.set_log_level(LogLevel::Warn);
    options.set_max_log_file_size(1 << 20);
    options.set_keep_log_file_num(2);
    options
}

/// What every RocksDB open of one store takes: its directory, whether it collects statistics, and
/// the user's tuning (applied first: it cannot touch what is set here and in `options`).
pub(crate) struct Opening<'a> {
    pub(crate) path: &'a Path,
    pub(crate) statistics: bool,
    pub(crate) tuning: &'a Tuning,
}

impl Opening<'_> {
    pub(crate) fn open(&self, recovery: DBRecoveryMode) -> std::result::Result<DB, rust_rocksdb::Error> {
        let mut db_options = self.tuning.apply(self.path, options());
        db_options.create_if_missing(true);
        db_options.create_missing_column_families(true);
        db_options.set_wal_recovery_mode(recovery);
        if self.statistics {
            db_options.enable_statistics();
            db_options.set_statistics_level(StatsLevel::ExceptHistogramOrTimers);
        }
        DB::open_cf_descriptors(&db_options, self.path, self.families())
    }

    /// Read-only, in `recovery` mode (to see which commit a mode reaches).
    pub(crate) fn open_read_only(&self, recovery: DBRecoveryMode) -> std::result::Result<DB, rust_rocksdb::Error> {
        let mut read_only = options();
        read_only.set_wal_recovery_mode(recovery);
        DB::open_cf_descriptors_read_only(&read_only, self.path, self.families(), false)
    }

    fn families(&self) -> [ColumnFamilyDescriptor; 3] {
        [DATA_CF, OFFSETS_CF, TXN_CF]
            .map(|name| ColumnFamilyDescriptor::new(name, self.tuning.apply(self.path, options())))
    }
}
