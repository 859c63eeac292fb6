//! The RocksDB instance under one store, and what every transaction strategy does with it.
//!
//! Column families: `data` (committed entries), `offsets` (changelog offsets and the position,
//! see `offsets.rs`) and `txn` (the secondary-store strategy's temporary store; empty under the
//! other strategies). A [`Db`] is shared (`Arc`) by the store, its strategy and every open
//! iterator or [`Snapshot`], so RocksDB closes only after the last of them is gone.

use crate::corruption::{self, CorruptionPolicy};
use crate::error::{Error, Result};
use crate::memory;
use crate::tuning::Tuning;
use txn_rocksdb_format::commit_record::CommitRecord;
use txn_rocksdb_format::offsets::{decode_offset, is_offset_key, TopicPartition, COMMIT_RECORD_KEY};
use rust_rocksdb::statistics::StatsLevel;
use rust_rocksdb::{
    BlockBasedIndexType, BlockBasedOptions, BlockBasedPinningTier, ColumnFamily, ColumnFamilyDescriptor, DBCompactionStyle, DBCompressionType, DBPinnableSlice, DBRecoveryMode, DBRawIteratorWithThreadMode,
    FlushOptions, LogLevel, Options, ReadOptions, SnapshotWithThreadMode, WriteBatch, WriteOptions, DB,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

pub(crate) const DATA_CF: &str = "data";
pub(crate) const OFFSETS_CF: &str = "offsets";
pub(crate) const TXN_CF: &str = "txn";

/// One write to the `data` family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write<'a> {
    Put(&'a [u8], &'a [u8]),
    Delete(&'a [u8]),
    /// Deletes keys in `[from, to)`.
    DeleteRange(&'a [u8], &'a [u8]),
}

impl<'a> Write<'a> {
    /// The key written (the start of a deleted range).
    fn key(&self) -> &'a [u8] {
        match *self {
            Write::Put(key, _) | Write::Delete(key) | Write::DeleteRange(key, _) => key,
        }
    }
}

impl<'a> From<(&'a [u8], Option<&'a [u8]>)> for Write<'a> {
    fn from((key, value): (&'a [u8], Option<&'a [u8]>)) -> Self {
        match value {
            Some(value) => Write::Put(key, value),
            None => Write::Delete(key),
        }
    }
}

fn without_wal() -> WriteOptions {
    let mut write_options = WriteOptions::default();
    write_options.disable_wal(true);
    write_options
}

/// A RocksDB iterator that borrows the [`Db`] its owner keeps alive (see [`Db::raw_iterator`]).
pub(crate) type RawIterator = DBRawIteratorWithThreadMode<'static, DB>;

/// What recovery did to a store since it opened (counted by `secondary::roll_forward` and
/// `store.rs`'s open; read by `stats.rs`).
#[derive(Debug, Default)]
pub(crate) struct RecoveryCounters {
    /// Commits completed by recovery: a commit record found at open, or a failed commit rolled
    /// forward by `rollback`.
    pub(crate) rolled_forward: AtomicU64,
    /// Transactions whose uncommitted temporary-store writes recovery threw away.
    pub(crate) rolled_back: AtomicU64,
    /// Times the store's files were found damaged at open and deleted, so that its changelog
    /// restores it (`CorruptionPolicy::RestoreFromChangelog`).
    pub(crate) wiped: AtomicU64,
}

/// One store's RocksDB instance.
pub(crate) struct Db {
    pub(crate) rocks: DB,
    pub(crate) path: PathBuf,
    /// Whether a commit fsyncs the write-ahead log (`StoreOptions::sync_commit`).
    pub(crate) sync_commit: bool,
    /// Restored changelog records were written without the WAL since the last flush of `data`
    /// ([`Db::write_restored`]); commits then follow [`Db::write_commit`]'s rules.
    restored_unflushed: AtomicBool,
    /// What recovery did since the store opened (`stats.rs`).
    pub(crate) recovery: RecoveryCounters,
    /// The user's RocksDB options for this store, for the SST files it builds ([`Db::file_options`]).
    tuning: Tuning,
}

fn options() -> Options {
    let budget = memory::shared();
    let mut table = BlockBasedOptions::default();
    table.set_block_cache(&budget.cache);
    table.set_bloom_filter(10.0, false);
    // Index and filter blocks live in the block cache, so they count against the budget too: one
    // whole block of each per SST, pinned by its table reader for as long as the file is open
    // (never evicted, so never read back). A get then looks up only the data block in the cache.
    // Partitioned blocks (two-level, 4 KiB partitions, until 2026-12-02) kept the cache strictly
    // bounded but cost two more cache lookups and a partition search per SST read: random gets on
    // 10^5-10^7 keys in SSTs were 27-40% slower (`docs/profiles.md`, `examples/point_gets.rs`).
    // Whole blocks unpinned were as fast until an SST's blocks (about 1.2 MB for 64 MiB of data)
    // outgrew a 1 MiB cache shard and were read back on every get. Pinned, they stay charged to
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
    // random keys, where leveled compaction rewrites the base level at every L0 compaction. Puts
    // of 1 KiB values over 10^6 keys (`examples/put_rate.rs`, 12 s): leveled wrote 4.0 KiB to disk
    // per put and stalled on flushes (the disk is the limit: the WAL is synced before each flush),
    // universal 2.1 KiB per put, 1.3-1.5x the puts. Each level stays one sorted run, so a store
    // written under leveled compaction opens unchanged. Gets lose 7-15% while compactions run and
    // none once they settle (docs/profiles.md, "Puts of 1 KiB values").
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
    // A WAL damaged before its end fails the open (`Db::open` decides what then); RocksDB's
    // default would silently stop replaying at the damage and drop every later commit.
    options.set_wal_recovery_mode(DBRecoveryMode::TolerateCorruptedTailRecords);
    // (RocksDB's WAL chain check, `track_and_verify_wals`, would catch a WAL cut short before a
    // newer one, but RocksDB 11.12's recovery can loop forever in it on a garbled WAL: `Db::open`
    // finds such a hole itself, `wal_hole`.)
    // RocksDB's own LOG stays in the store directory: warnings and errors only, at most two files
    // of 1 MiB (README, "Logs").
    options.set_log_level(LogLevel::Warn);
    options.set_max_log_file_size(1 << 20);
    options.set_keep_log_file_num(2);
    options
}

impl Db {
    /// Opens (creating if needed) the RocksDB instance in `path` with its three column families.
    /// A write-ahead log damaged before its end fails with [`Error::CorruptedWal`] unless
    /// `corruption` opens it at the last consistent commit; other damage RocksDB finds at open
    /// fails with [`Error::Damaged`] (see [`CorruptionPolicy`]). With `statistics`, RocksDB collects
    /// its statistics for this store (they cost a little on every operation); `tuning` is the
    /// user's RocksDB options for it.
    pub(crate) fn open(
        path: &Path,
        sync_commit: bool,
        corruption: CorruptionPolicy,
        statistics: bool,
        tuning: &Tuning,
    ) -> Result<Db> {
        #[cfg(feature = "test-logging")]
        let _ = env_logger::builder().is_test(true).try_init();
        std::fs::create_dir_all(path).map_err(|e| Error::storage(path, e))?;
        corruption::check_not_marked(path)?;
        let opening = Opening { path, statistics, tuning };
        if let Some(damage) = damaged_wal(path)? {
            set_aside_damaged_wal(&opening, damage, corruption)?;
        }
        let rocks = match wal_hole(&opening) {
            Some(hole) => open_after_corruption(&opening, hole, corruption)?,
            None => match opening.open(DBRecoveryMode::TolerateCorruptedTailRecords) {
                Err(e) if is_corruption(&e) => open_after_corruption(&opening, e.to_string(), corruption)?,
                opened => opened.map_err(|e| Error::storage(path, e))?,
            },
        };
        Ok(Db {
            rocks,
            path: path.to_path_buf(),
            sync_commit,
            restored_unflushed: AtomicBool::new(false),
            recovery: RecoveryCounters::default(),
            tuning: tuning.clone(),
        })
    }

    pub(crate) fn data(&self) -> &ColumnFamily {
        self.rocks.cf_handle(DATA_CF).expect("data column family is created at open")
    }

    pub(crate) fn offsets(&self) -> &ColumnFamily {
        self.rocks.cf_handle(OFFSETS_CF).expect("offsets column family is created at open")
    }

    pub(crate) fn txn(&self) -> &ColumnFamily {
        self.rocks.cf_handle(TXN_CF).expect("txn column family is created at open")
    }

    /// The options of SST files built for ingestion into `data` (`secondary/ingest.rs`): the
    /// family's table format (blocks, filters), uncompressed as the young data of L0 (compaction
    /// compresses it where it settles lower).
    pub(crate) fn file_options(&self) -> Options {
        let mut options = self.tuning.apply(&self.path, options());
        // RocksDB's SstFileWriter compresses like the bottommost level (else the last of the
        // per-level types, else the family's type): LZ4 here, without this.
        options.set_bottommost_compression_type(DBCompressionType::None);
        options
    }

    /// A storage error naming this store's directory.
    pub(crate) fn err(&self, e: impl std::fmt::Display) -> Error {
        Error::storage(&self.path, e)
    }

    /// The error of a failed RocksDB call: [`Error::Damaged`] when RocksDB found damaged data (the
    /// store is then marked damaged for its next open, see [`corruption::mark_damaged`]), else a
    /// storage error.
    pub(crate) fn rocks_err(&self, e: rust_rocksdb::Error) -> Error {
        rocks_error(&self.path, e)
    }

    /// Writes `batch`, a commit's final write: logged in the WAL, which is then written to the OS
    /// (enough for a killed process) and, with `sync_commit`, fsynced (power loss).
    ///
    /// After a restore (restored records not yet flushed, see [`Db::write_restored`]) a commit
    /// that carries only offsets (`offsets_only`: nothing was staged, as when Kafka commits a
    /// restoring or standby task) is written without the WAL too: atomic flushes keep it with
    /// the records it covers, so a crash loses both or neither and Kafka restores again from the
    /// older offset. A commit that carries data flushes the restored records first
    /// ([`Db::flush_restored`]), since its WAL records would otherwise survive a crash that the
    /// restored ones do not.
    pub(crate) fn write_commit(&self, batch: &WriteBatch, offsets_only: bool) -> Result<()> {
        if self.restored_unflushed.load(Ordering::Acquire) {
            if offsets_only {
                return self.rocks.write_opt(batch, &without_wal()).map_err(|e| self.rocks_err(e));
            }
            self.flush_restored()?;
        }
        self.rocks.write(batch).map_err(|e| self.rocks_err(e))?;
        self.flush_wal()
    }

    /// Writes the WAL records buffered so far to the OS, fsynced with `sync_commit`: everything
    /// written before is then durable (see `manual_wal_flush` in [`options`]).
    pub(crate) fn flush_wal(&self) -> Result<()> {
        self.rocks.flush_wal(self.sync_commit).map_err(|e| self.rocks_err(e))
    }

    /// Flushes every family's memtables in one atomic flush: everything written so far is then in
    /// synced SST files, whatever the WAL keeps (`secondary/ingest.rs`).
    pub(crate) fn flush_all(&self) -> Result<()> {
        self.rocks.flush_cfs_opt(&[self.data(), self.offsets(), self.txn()], &FlushOptions::default()).map_err(|e| self.rocks_err(e))
    }

    /// Applies `writes` straight to committed data in one RocksDB write (logged in the WAL).
    pub(crate) fn write_committed<'a>(&self, writes: impl IntoIterator<Item = Write<'a>>) -> Result<()> {
        self.rocks.write(&self.data_batch(writes)).map_err(|e| self.rocks_err(e))
    }

    /// Applies restored changelog records to committed data in one RocksDB write, without the
    /// WAL (as Kafka's restore does). A crash may lose them, but never keeps an offset past
    /// them: commits after a restore write their offsets without the WAL as well, and atomic
    /// flushes persist the `data` and `offsets` families together, until a commit with data
    /// flushes them ([`Db::write_commit`]). Kafka then restores them again from the stored
    /// offset (a restore is idempotent: the same records in the same order).
    ///
    /// The records are inserted in key order (a stable sort, so a key written twice keeps its
    /// last value): RocksDB's memtable then finds each insert position next to the previous one
    /// instead of searching its skip list from the top, which is most of a restore's cost.
    pub(crate) fn write_restored<'a>(&self, writes: impl IntoIterator<Item = Write<'a>>) -> Result<()> {
        let mut writes: Vec<Write<'a>> = writes.into_iter().collect();
        if !writes.iter().any(|write| matches!(write, Write::DeleteRange(..))) {
            writes.sort_by(|a, b| a.key().cmp(b.key()));
        }
        self.restored_unflushed.store(true, Ordering::Release);
        self.rocks.write_opt(&self.data_batch(writes), &without_wal()).map_err(|e| self.rocks_err(e))
    }

    /// Flushes the `data` and `offsets` families (atomically) if restored records were written
    /// without the WAL since the last such flush. A store that restored flushes once, at its
    /// first commit that carries data; until then (a standby) RocksDB's own atomic flushes
    /// persist it.
    pub(crate) fn flush_restored(&self) -> Result<()> {
        if self.restored_unflushed.swap(false, Ordering::AcqRel) {
            if let Err(e) = self.rocks.flush_cfs_opt(&[self.data(), self.offsets()], &FlushOptions::default()) {
                self.restored_unflushed.store(true, Ordering::Release);
                return Err(self.rocks_err(e));
            }
        }
        Ok(())
    }

    fn data_batch<'a>(&self, writes: impl IntoIterator<Item = Write<'a>>) -> WriteBatch {
        let data = self.data();
        let mut batch = WriteBatch::default();
        for write in writes {
            match write {
                Write::Put(key, value) => batch.put_cf(data, key, value),
                Write::Delete(key) => batch.delete_cf(data, key),
                Write::DeleteRange(from, to) => batch.delete_range_cf(data, from, to),
            }
        }
        batch
    }

    /// The committed value of `key` in `data`, read at `snapshot` (the latest data if `None`),
    /// pinned in RocksDB's memory (no copy).
    pub(crate) fn get_committed(&self, key: &[u8], snapshot: Option<&Snapshot>) -> Result<Option<DBPinnableSlice<'_>>> {
        match snapshot {
            Some(snapshot) => {
                let mut read_options = ReadOptions::default();
                read_options.set_snapshot(&snapshot.rocks);
                self.rocks.get_pinned_cf_opt(self.data(), key, &read_options)
            }
            None => self.rocks.get_pinned_cf(self.data(), key),
        }
        .map_err(|e| self.rocks_err(e))
    }

    /// A RocksDB iterator over `family` (one of this instance's) that outlives the borrow of
    /// `self`. The caller keeps `db` alive for as long as the iterator and drops the iterator
    /// first (declare it before the `Arc<Db>` in the owning struct).
    pub(crate) fn raw_iterator(db: &Arc<Db>, family: &str, read_options: ReadOptions) -> RawIterator {
        // SAFETY: the owner keeps `db` (an Arc) alive at least as long as the iterator (see above),
        // so the 'static borrow never outlives the RocksDB instance.
        let rocks: &'static DB = unsafe { &*(&db.rocks as *const DB) };
        let family = rocks.cf_handle(family).expect("column families are created at open");
        rocks.raw_iterator_cf_opt(family, read_options)
    }
}

/// What every RocksDB open of one store takes: its directory, whether it collects statistics, and
/// the user's tuning (applied first: it cannot touch what is set here and in `options`).
struct Opening<'a> {
    path: &'a Path,
    statistics: bool,
    tuning: &'a Tuning,
}

impl Opening<'_> {
    fn open(&self, recovery: DBRecoveryMode) -> std::result::Result<DB, rust_rocksdb::Error> {
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
    fn open_read_only(&self, recovery: DBRecoveryMode) -> std::result::Result<DB, rust_rocksdb::Error> {
        let mut read_only = options();
        read_only.set_wal_recovery_mode(recovery);
        DB::open_cf_descriptors_read_only(&read_only, self.path, self.families(), false)
    }

    fn families(&self) -> [ColumnFamilyDescriptor; 3] {
        [DATA_CF, OFFSETS_CF, TXN_CF].map(|name| ColumnFamilyDescriptor::new(name, self.tuning.apply(self.path, options())))
    }
}

/// The error of a failed RocksDB call on the store in `path` (see [`Db::rocks_err`]).
fn rocks_error(path: &Path, e: rust_rocksdb::Error) -> Error {
    if !is_corruption(&e) {
        return Error::storage(path, e);
    }
    let message = format!("RocksDB found damaged data: {e}");
    corruption::mark_damaged(path, &message);
    Error::Damaged { path: path.display().to_string(), message }
}

/// Whether RocksDB found damaged data (checksums, sizes, formats), as opposed to failing to read
/// or write (an I/O error, a full disk), which deleting files would not cure.
pub(crate) fn is_corruption(e: &rust_rocksdb::Error) -> bool {
    e.kind() == rust_rocksdb::ErrorKind::Corruption
}

/// The open failed with `corruption`. If the instance opens read-only at the point in time
/// before a damaged WAL record (so the damage is in the WAL, not in an SST file or the
/// manifest), either refuse, or open read-write in that mode as `policy` says: RocksDB then keeps
/// the commits before the damage and discards the rest of the log. What it keeps is a prefix of
/// the store's writes, so it is a commit's state, or a secondary-store copy cut short, which
/// recovery rolls forward from its commit record. Any other damage is [`Error::Damaged`].
fn open_after_corruption(opening: &Opening<'_>, corruption: String, policy: CorruptionPolicy) -> Result<DB> {
    let path = opening.path;
    let damaged = |e: String| Error::Damaged {
        path: path.display().to_string(),
        message: format!("RocksDB found damaged files at open: {e}"),
    };
    let offsets = match opening.open_read_only(DBRecoveryMode::PointInTime) {
        Ok(rocks) => consistent_offsets(&rocks, path)?,
        // not (only) the WAL: nothing to decide
        Err(_) => return Err(damaged(corruption)),
    };
    let offsets = format!("{offsets:?}");
    let wal = wal_files(path);
    if !policy.opens_at_last_consistent_commit() {
        return Err(Error::CorruptedWal {
            path: path.display().to_string(),
            message: format!("{corruption}; WAL files {wal}"),
            last_consistent_offsets: offsets,
        });
    }
    let rocks = opening
        .open(DBRecoveryMode::PointInTime)
        .map_err(|e| if is_corruption(&e) { damaged(e.to_string()) } else { Error::storage(path, e) })?;
    log::warn!(
        "store {}: the write-ahead log is damaged before its end ({corruption}; WAL files {wal}); opened at the \
         last consistent commit, changelog offsets {offsets}. Every commit after the damage is lost from this store \
         and is restored from the changelog",
        path.display()
    );
    Ok(rocks)
}

/// A WAL file damaged before its end (see `txn_rocksdb_format::wal`), found before RocksDB
/// replays it: RocksDB 11.12's log reader can loop forever on some garbled records, in every
/// recovery mode.
struct WalDamage {
    /// The WAL files in replay order: the damaged one first, then every newer one.
    files: Vec<PathBuf>,
    /// Where the intact records of the damaged file end.
    at: usize,
    message: String,
}

/// The store's WAL files, oldest first (RocksDB numbers them in creation order).
fn wal_paths(path: &Path) -> Vec<PathBuf> {
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let number = name.strip_suffix(".log")?.parse::<u64>().ok()?;
                    Some((number, e.path()))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files.into_iter().map(|(_, path)| path).collect()
}

/// The first WAL file whose records are damaged before its end: garbled records with intact ones
/// after them, or an older file cut short (RocksDB's tolerant mode would replay the newer files
/// around the gap). The newest file's torn end (a last record cut short or garbled, with nothing
/// intact after it: no commit was acknowledged from it) is cut off here, as RocksDB would drop it,
/// because RocksDB must not read a garbled record at all.
fn damaged_wal(path: &Path) -> Result<Option<WalDamage>> {
    use txn_rocksdb_format::wal::{scan, WalScan};
    let files = wal_paths(path);
    for (i, file) in files.iter().enumerate() {
        let Ok(bytes) = std::fs::read(file) else { continue };
        let newest = i + 1 == files.len();
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let (at, what) = match scan(&bytes) {
            WalScan::Intact => continue,
            WalScan::TornTail { at } if newest => {
                log::info!("store {}: WAL file {name} ends in a record cut short at byte {at}; cut there", path.display());
                write_synced(file, &bytes[..at]).map_err(|e| Error::storage(path, e))?;
                continue;
            }
            WalScan::TornTail { at } => (at, format!("it ends in a record cut short at byte {at}, before newer WAL files")),
            WalScan::Damaged { at, reason } => (at, reason),
        };
        return Ok(Some(WalDamage {
            files: files[i..].to_vec(),
            at,
            message: format!("WAL file {name} ({} bytes) is damaged: {what}", bytes.len()),
        }));
    }
    Ok(None)
}

/// Handles a damaged WAL before RocksDB reads it. The commits before the damage are the intact
/// records of the damaged file (and every older file): a view of the store with that file cut at
/// the damage and the newer files left out is opened read-only to read their offsets. Then, as
/// `policy` says, the store refuses ([`Error::CorruptedWal`], naming those offsets), or the damaged
/// file and the newer ones are moved to `damaged-wal-<time>/` inside the store (kept for
/// inspection, never replayed) and the cut file takes the damaged one's place, so the open goes on
/// at the last commit before the damage.
fn set_aside_damaged_wal(opening: &Opening<'_>, damage: WalDamage, policy: CorruptionPolicy) -> Result<()> {
    let path = opening.path;
    let io = |e: std::io::Error| Error::storage(path, e);
    let damaged = &damage.files[0];
    let bytes = std::fs::read(damaged).map_err(io)?;
    let kept = &bytes[..damage.at.min(bytes.len())];
    let offsets = offsets_before(opening, &damage, kept).map_or_else(|e| format!("unknown ({e})"), |o| format!("{o:?}"));
    if !policy.opens_at_last_consistent_commit() {
        return Err(Error::CorruptedWal {
            path: path.display().to_string(),
            message: damage.message,
            last_consistent_offsets: offsets,
        });
    }
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let aside = path.join(format!("damaged-wal-{secs}"));
    std::fs::create_dir_all(&aside).map_err(io)?;
    for file in &damage.files {
        if let Some(name) = file.file_name() {
            std::fs::rename(file, aside.join(name)).map_err(io)?;
        }
    }
    write_synced(damaged, kept).map_err(io)?;
    std::fs::File::open(path).and_then(|dir| dir.sync_all()).map_err(io)?;
    log::warn!(
        "store {}: {}. The store opens at the last commit before the damage, changelog offsets {offsets}; every \
         commit after it is lost from this store and is restored from the changelog. The damaged WAL files were \
         moved to {}",
        path.display(),
        damage.message,
        aside.display()
    );
    Ok(())
}

fn write_synced(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut out = std::fs::File::create(file)?;
    out.write_all(bytes)?;
    out.sync_all()
}

/// The offsets of the commit a store reaches when its WAL stops where `kept` ends: read from a
/// sibling directory holding the store's files (hard links, copies where linking fails) with the
/// damaged WAL cut and the newer ones left out, opened read-only and then deleted.
fn offsets_before(opening: &Opening<'_>, damage: &WalDamage, kept: &[u8]) -> Result<Vec<(TopicPartition, i64)>> {
    let path = opening.path;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let view = path.with_file_name(format!(".{name}.wal-view-{}", std::process::id()));
    let io = |e: std::io::Error| Error::storage(path, e);
    let _ = std::fs::remove_dir_all(&view);
    std::fs::create_dir_all(&view).map_err(io)?;
    let result = (|| {
        for entry in std::fs::read_dir(path).map_err(io)? {
            let entry = entry.map_err(io)?;
            let from = entry.path();
            if !entry.file_type().map_err(io)?.is_file() || damage.files.contains(&from) || entry.file_name() == "LOCK" {
                continue;
            }
            let to = view.join(entry.file_name());
            if std::fs::hard_link(&from, &to).is_err() {
                std::fs::copy(&from, &to).map_err(io)?;
            }
        }
        write_synced(&view.join(damage.files[0].file_name().unwrap_or_default()), kept).map_err(io)?;
        let inside = Opening { path: &view, statistics: false, tuning: opening.tuning };
        let rocks = inside.open_read_only(DBRecoveryMode::PointInTime).map_err(|e| Error::storage(path, e))?;
        consistent_offsets(&rocks, path)
    })();
    let _ = std::fs::remove_dir_all(&view);
    result
}

/// A hole in the write-ahead log: with several WAL files, RocksDB's `TolerateCorruptedTailRecords`
/// drops the cut-short end of an older one and goes on replaying the newer ones, which would leave a
/// gap in the middle of the store's writes (`tests/damaged_files.rs` cuts an older live WAL). Opened
/// read-only in both modes, a hole shows as two different commits: `PointInTime` stops at the cut.
/// Then the damage is described (the open goes on as for a damaged WAL); else `None`. A single WAL
/// (the usual case) needs no check: its cut end is a torn tail.
fn wal_hole(opening: &Opening<'_>) -> Option<String> {
    let path = opening.path;
    let wals = wal_files(path);
    if wals.split(", ").filter(|name| !name.is_empty()).count() < 2 {
        return None;
    }
    let reached = |mode: DBRecoveryMode| {
        let rocks = opening.open_read_only(mode).ok()?;
        consistent_offsets(&rocks, path).ok()
    };
    let tolerant = reached(DBRecoveryMode::TolerateCorruptedTailRecords)?;
    let point_in_time = reached(DBRecoveryMode::PointInTime)?;
    (tolerant != point_in_time).then(|| {
        format!(
            "a WAL file ends before a newer one begins (WAL files {wals}): replaying past the gap would reach offsets \
             {tolerant:?} without the commits in it; the last commit before it has offsets {point_in_time:?}"
        )
    })
}

/// The changelog offsets of the commit `rocks` opens at: those of a secondary-store commit whose
/// copy was cut short (recovery completes it), else the committed ones.
fn consistent_offsets(rocks: &DB, path: &Path) -> Result<Vec<(TopicPartition, i64)>> {
    let family = rocks.cf_handle(OFFSETS_CF).expect("offsets column family is created at open");
    let in_progress = rocks.get_pinned_cf(family, COMMIT_RECORD_KEY).map_err(|e| rocks_error(path, e))?;
    let mut entries = offset_entries(rocks, path)?;
    if let Some(Ok(record)) = in_progress.map(|bytes| CommitRecord::decode(&bytes)) {
        for (key, value) in record.offset_writes.into_iter().filter(|(key, _)| is_offset_key(key)) {
            match value {
                Some(value) => entries.insert(key, value),
                None => entries.remove(&key),
            };
        }
    }
    decode_offsets(&entries, path)
}

/// The committed changelog offsets in `rocks` (a store's instance, perhaps opened read-only; key
/// and value layout: the format crate's `offsets`).
pub(crate) fn offsets_in(rocks: &DB, path: &Path) -> Result<Vec<(TopicPartition, i64)>> {
    decode_offsets(&offset_entries(rocks, path)?, path)
}

/// The offset entries of the `offsets` family, raw, in key order.
fn offset_entries(rocks: &DB, path: &Path) -> Result<std::collections::BTreeMap<Vec<u8>, Vec<u8>>> {
    let family = rocks.cf_handle(OFFSETS_CF).expect("offsets column family is created at open");
    let mut entries = std::collections::BTreeMap::new();
    let mut iterator = rocks.raw_iterator_cf(family);
    iterator.seek_to_first();
    while let (Some(key), Some(value)) = (iterator.key(), iterator.value()) {
        if is_offset_key(key) {
            entries.insert(key.to_vec(), value.to_vec());
        }
        iterator.next();
    }
    iterator.status().map_err(|e| rocks_error(path, e))?;
    Ok(entries)
}

fn decode_offsets(entries: &std::collections::BTreeMap<Vec<u8>, Vec<u8>>, path: &Path) -> Result<Vec<(TopicPartition, i64)>> {
    entries.iter().map(|(key, value)| decode_offset(key, value).map_err(|why| Error::storage(path, why))).collect()
}

/// The names of the WAL files in `path`, for messages.
fn wal_files(path: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(path)
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.retain(|name| name.ends_with(".log"));
    names.sort();
    names.join(", ")
}

impl Drop for Db {
    fn drop(&mut self) {
        // Writes after the last commit (a write-through store's) reach the OS at close, as they
        // would have without `manual_wal_flush`.
        if let Err(e) = self.rocks.flush_wal(false) {
            log::warn!("store {}: writing the WAL at close failed: {e}", self.path.display());
        }
    }
}

/// A RocksDB snapshot that keeps its [`Db`] alive.
pub(crate) struct Snapshot {
    // Declared first: released before the Db it belongs to.
    pub(crate) rocks: SnapshotWithThreadMode<'static, DB>,
    _db: Arc<Db>,
}

impl Snapshot {
    pub(crate) fn new(db: &Arc<Db>) -> Arc<Snapshot> {
        // SAFETY: `_db` keeps the instance alive for as long as the snapshot, which is dropped first.
        let rocks: &'static DB = unsafe { &*(&db.rocks as *const DB) };
        Arc::new(Snapshot { rocks: rocks.snapshot(), _db: db.clone() })
    }
}
