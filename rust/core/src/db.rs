//! The RocksDB instance under one store, and what every transaction strategy does with it.
//!
//! Column families: `data` (committed entries), `offsets` (changelog offsets and the position,
//! see `offsets.rs`) and `txn` (the secondary-store strategy's temporary store; empty under the
//! other strategies). A [`Db`] is shared (`Arc`) by the store, its strategy and every open
//! iterator or [`Snapshot`], so RocksDB closes only after the last of them is gone.

use crate::error::{Error, Result};
use crate::memory;
use rust_rocksdb::{
    BlockBasedOptions, ColumnFamily, ColumnFamilyDescriptor, DBCompressionType, DBPinnableSlice, DBRawIteratorWithThreadMode, LogLevel,
    Options, ReadOptions, SnapshotWithThreadMode, WriteBatch, WriteOptions, DB,
};
use std::path::{Path, PathBuf};
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

impl<'a> From<(&'a [u8], Option<&'a [u8]>)> for Write<'a> {
    fn from((key, value): (&'a [u8], Option<&'a [u8]>)) -> Self {
        match value {
            Some(value) => Write::Put(key, value),
            None => Write::Delete(key),
        }
    }
}

/// A RocksDB iterator that borrows the [`Db`] its owner keeps alive (see [`Db::raw_iterator`]).
pub(crate) type RawIterator = DBRawIteratorWithThreadMode<'static, DB>;

/// One store's RocksDB instance.
pub(crate) struct Db {
    pub(crate) rocks: DB,
    pub(crate) path: PathBuf,
    /// Whether a commit fsyncs the write-ahead log (`StoreOptions::sync_commit`).
    pub(crate) sync_commit: bool,
}

fn options() -> Options {
    let budget = memory::shared();
    let mut table = BlockBasedOptions::default();
    table.set_block_cache(&budget.cache);
    table.set_bloom_filter(10.0, false);
    // Index and filter blocks live in the block cache, so they count against the budget too.
    table.set_cache_index_and_filter_blocks(true);
    table.set_pin_l0_filter_and_index_blocks_in_cache(true);
    let mut options = Options::default();
    options.set_block_based_table_factory(&table);
    options.set_write_buffer_manager(&budget.write_buffers);
    options.set_write_buffer_size(16 << 20);
    options.set_max_write_buffer_number(3);
    // No compression where data is young and rewritten soon (L0, L1: flushes and their first
    // compactions, the CPU a busy 2-core host feels), LZ4 below, where most bytes end up.
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
    options.set_log_level(LogLevel::Warn);
    options.set_keep_log_file_num(2);
    options
}

impl Db {
    /// Opens (creating if needed) the RocksDB instance in `path` with its three column families.
    pub(crate) fn open(path: &Path, sync_commit: bool) -> Result<Db> {
        std::fs::create_dir_all(path).map_err(|e| Error::storage(path, e))?;
        let mut db_options = options();
        db_options.create_if_missing(true);
        db_options.create_missing_column_families(true);
        let families = [DATA_CF, OFFSETS_CF, TXN_CF].map(|name| ColumnFamilyDescriptor::new(name, options()));
        let rocks = DB::open_cf_descriptors(&db_options, path, families).map_err(|e| Error::storage(path, e))?;
        Ok(Db { rocks, path: path.to_path_buf(), sync_commit })
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

    /// A storage error naming this store's directory.
    pub(crate) fn err(&self, e: impl std::fmt::Display) -> Error {
        Error::storage(&self.path, e)
    }

    /// Write options of a commit's final write: fsynced when `sync_commit`.
    pub(crate) fn commit_write_options(&self) -> WriteOptions {
        let mut write_options = WriteOptions::default();
        write_options.set_sync(self.sync_commit);
        write_options
    }

    /// Applies `writes` straight to committed data in one RocksDB write.
    pub(crate) fn write_committed<'a>(&self, writes: impl IntoIterator<Item = Write<'a>>) -> Result<()> {
        let data = self.data();
        let mut batch = WriteBatch::default();
        for write in writes {
            match write {
                Write::Put(key, value) => batch.put_cf(data, key, value),
                Write::Delete(key) => batch.delete_cf(data, key),
                Write::DeleteRange(from, to) => batch.delete_range_cf(data, from, to),
            }
        }
        self.rocks.write(&batch).map_err(|e| self.err(e))
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
        .map_err(|e| self.err(e))
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
