//! The RocksDB instance under one store, and what every transaction strategy does with it.
//!
//! Column families: `data` (committed entries), `offsets` (changelog offsets and the position,
//! see `offsets.rs`) and `txn` (the secondary-store strategy's temporary store; empty under the
//! other strategies). A [`Db`] is shared (`Arc`) by the store, its strategy and every open
//! iterator or [`Snapshot`], so RocksDB closes only after the last of them is gone.

use crate::corruption::{self, CorruptionPolicy};
use crate::error::{Error, Result};
use crate::offsets::{self, TopicPartition};
use crate::options::{self, Opening, DATA_CF, OFFSETS_CF, TXN_CF};
use crate::tuning::Tuning;
use rust_rocksdb::{
    ColumnFamily, DBCompressionType, DBPinnableSlice, DBRawIteratorWithThreadMode, FlushOptions, Options, ReadOptions,
    SnapshotWithThreadMode, WriteBatch, WriteOptions, DB,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

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

/// Live WAL bytes from which a checkpoint flushes the memtables rather than copy the WAL
/// ([`Db::checkpoint`]).
const CHECKPOINT_FLUSH_WAL_BYTES: u64 = 64 << 20;

impl Db {
    /// Opens (creating if needed) the RocksDB instance in `path` with its three column families.
    /// A write-ahead log damaged before its end fails with [`Error::CorruptedWal`] unless
    /// `corruption` opens it at the last consistent commit; other damage RocksDB finds at open
    /// fails with [`Error::Damaged`] (see [`CorruptionPolicy`] and [`corruption::open`]). With `statistics`, RocksDB collects
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
        std::fs::create_dir_all(path).map_err(|e| Error::storage(path, "", e))?;
        let rocks = corruption::open(&Opening { path, statistics, tuning }, corruption)?;
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
        let mut options = self.tuning.apply(&self.path, options::options());
        // RocksDB's SstFileWriter compresses like the bottommost level (else the last of the
        // per-level types, else the family's type): LZ4 here, without this.
        options.set_bottommost_compression_type(DBCompressionType::None);
        options
    }

    /// Ingests the SST files at `files` (built by `SstFileWriter`) into `data`, in one atomic
    /// RocksDB call, moving them into the store (a sequence number above every earlier write; a
    /// memtable they overlap is flushed first). RocksDB's `SstFileWriter` drops each file from the
    /// OS page cache as it writes it (its C API cannot turn that off), so every first read of the
    /// ingested data would go to the disk (docs/profiles.md, "Restore by ingestion"): the files are
    /// read back into the page cache first (the cache follows the file into the store: it is
    /// moved, not copied, except on Windows).
    pub(crate) fn ingest(&self, files: Vec<PathBuf>) -> Result<()> {
        for file in &files {
            read_into_page_cache(file);
        }
        let mut options = rust_rocksdb::IngestExternalFileOptions::default();
        // Moved (hard-linked into the store, the built file's name deleted) where a deleted name
        // goes at once. On Windows the name of a file that is open stays until its last handle
        // closes, and RocksDB keeps each ingested file open: moved files would leave the build
        // directory undeletable ("Directory is not empty") and fail the next ingestion. There the
        // files are copied.
        options.set_move_files(!cfg!(windows));
        self.rocks.ingest_external_file_cf_opts(self.data(), &options, files).map_err(|e| self.rocks_err(e))
    }

    /// A storage error the engine found in this store (no error underneath).
    pub(crate) fn err(&self, message: impl Into<String>) -> Error {
        Error::storage_found(&self.path, message)
    }

    /// A storage error in this store caused by `source` while doing `context`.
    pub(crate) fn err_from(&self, context: &str, source: impl std::error::Error + Send + Sync + 'static) -> Error {
        Error::storage(&self.path, context, source)
    }

    /// The error of a failed RocksDB call: [`Error::Damaged`] when RocksDB found damaged data (the
    /// store is then marked damaged for its next open, see `corruption/damaged.rs`'s
    /// `mark_damaged`), else a storage error.
    pub(crate) fn rocks_err(&self, e: rust_rocksdb::Error) -> Error {
        corruption::rocks_error(&self.path, e)
    }

    /// The committed changelog offsets.
    pub(crate) fn committed_offsets(&self) -> Result<Vec<(TopicPartition, i64)>> {
        let entries = offsets::offset_entries(&self.rocks).map_err(|e| self.rocks_err(e))?;
        offsets::decode_offsets(&entries, &self.path)
    }

    /// The position blob written by the last commit that carried one.
    pub(crate) fn committed_position(&self) -> Result<Option<Vec<u8>>> {
        offsets::position(&self.rocks).map_err(|e| self.rocks_err(e))
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
    /// written before is then durable (see `manual_wal_flush` in `options.rs`).
    pub(crate) fn flush_wal(&self) -> Result<()> {
        self.rocks.flush_wal(self.sync_commit).map_err(|e| self.rocks_err(e))
    }

    /// Flushes every family's memtables in one atomic flush: everything written so far is then in
    /// synced SST files, whatever the WAL keeps (`secondary/ingest.rs`).
    pub(crate) fn flush_all(&self) -> Result<()> {
        self.rocks
            .flush_cfs_opt(&[self.data(), self.offsets(), self.txn()], &FlushOptions::default())
            .map_err(|e| self.rocks_err(e))
    }

    /// A RocksDB checkpoint of the instance in `dir` (which must not exist, on the same file
    /// system): SST files hard linked, the MANIFEST, CURRENT, OPTIONS and live WAL files copied
    /// (the WAL synced first); the memtables are flushed first only when the live WAL files hold
    /// [`CHECKPOINT_FLUSH_WAL_BYTES`] or more, so a snapshot neither stalls the committing thread
    /// on a flush nor leaves a small SST file (and the compactions it causes) behind every time.
    /// The image is then what a `kill -9` between two commits leaves (SST files plus the WAL),
    /// which opening recovers to the last commit as after any crash: writes that skip the WAL
    /// (restored records, and the offsets of commits after them until a flush) are in neither.
    /// The caller keeps commits out meanwhile (`KeyValueStore::checkpoint`).
    pub(crate) fn checkpoint(&self, dir: &Path) -> Result<()> {
        self.rocks.flush_wal(true).map_err(|e| self.rocks_err(e))?;
        let checkpoint = rust_rocksdb::checkpoint::Checkpoint::new(&self.rocks).map_err(|e| self.rocks_err(e))?;
        checkpoint
            .create_checkpoint_with_log_size(dir, CHECKPOINT_FLUSH_WAL_BYTES)
            .map_err(|e| self.err_from(&format!("creating a checkpoint in {}", dir.display()), e))
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

    /// Writes the offsets of commits deferred during a restore by ingestion (`changelog_restore.rs`), after
    /// the files holding the records they cover were ingested, and makes them durable the way
    /// those files are, in the MANIFEST after them: without the WAL, then one atomic flush of
    /// `data` and `offsets`, whose MANIFEST edit follows the ingestions' edits. The MANIFEST is a
    /// log, so whatever part of it survives (a crash, a damaged or cut file) holds the offsets only
    /// with the files before them; offsets in the WAL would not be tied to the MANIFEST. A flush
    /// per ingested file (about 16 MiB of records) keeps a killed restore's progress.
    pub(crate) fn write_restored_offsets(&self, batch: &WriteBatch) -> Result<()> {
        self.restored_unflushed.store(true, Ordering::Release);
        self.rocks.write_opt(batch, &without_wal()).map_err(|e| self.rocks_err(e))?;
        self.flush_restored()
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

/// Reads `file` through, so the OS holds it in its page cache (best effort: a read that fails
/// only leaves the file to be read from the disk later). `POSIX_FADV_WILLNEED` would not do:
/// Linux reads ahead at most the device's readahead window (128 KiB) for it.
fn read_into_page_cache(file: &Path) {
    use std::io::Read;
    if let Ok(mut opened) = std::fs::File::open(file) {
        let mut buffer = vec![0u8; 1 << 20];
        while let Ok(read) = opened.read(&mut buffer) {
            if read == 0 {
                break;
            }
        }
    }
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
