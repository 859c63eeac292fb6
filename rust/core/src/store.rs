//! One transactional store: a RocksDB instance with a `data`, an `offsets` and a `txn` column
//! family. The uncommitted writes of the current transaction are staged in a `WriteBatchWithIndex`
//! (strategy [`Strategy::IndexedBatch`]) or in the `txn` family (strategy
//! [`Strategy::SecondaryStore`], see `secondary.rs`).

use crate::commit_file::CommitRecord;
use crate::error::{Error, Result};
use crate::fault;
use crate::iter::{Range, RangeIter};
use crate::memory;
use crate::offsets::{self, OffsetUpdate, TopicPartition};
use crate::secondary::{self, Phase, TXN_CF};
use rust_rocksdb::{
    BlockBasedOptions, ColumnFamily, ColumnFamilyDescriptor, DBCompressionType, LogLevel, Options, ReadOptions,
    SnapshotWithThreadMode, WriteBatch, WriteBatchWithIndex, WriteOptions, DB,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

pub(crate) const DATA_CF: &str = "data";
pub(crate) const OFFSETS_CF: &str = "offsets";

/// Where a transactional store keeps its uncommitted writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// In memory, in a RocksDB `WriteBatchWithIndex`; commit is ONE atomic RocksDB write. Fastest
    /// for transactions that fit in memory (Kafka commits every 100 ms under exactly-once).
    #[default]
    IndexedBatch,
    /// In a temporary store on disk (KIP-844's reference design): a transaction may be larger than
    /// memory; commit copies it into the main store in bounded batches behind a commit file.
    SecondaryStore,
}

impl Strategy {
    /// The configuration spelling: `indexed-batch` or `secondary-store`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::IndexedBatch => "indexed-batch",
            Strategy::SecondaryStore => "secondary-store",
        }
    }

    /// Parses [`Self::name`]'s spelling.
    pub fn parse(s: &str) -> Result<Strategy> {
        match s {
            "indexed-batch" => Ok(Strategy::IndexedBatch),
            "secondary-store" => Ok(Strategy::SecondaryStore),
            other => Err(Error::InvalidArgument(format!(
                "unknown transaction strategy '{other}': expected indexed-batch or secondary-store"
            ))),
        }
    }
}

/// How a store behaves; fixed when it opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreOptions {
    /// true: writes are staged until [`KeyValueStore::commit`]; false: every write goes straight to
    /// RocksDB (write-through, as Kafka's non-transactional stores) and commit only records offsets.
    pub transactional: bool,
    /// true: fsync the write-ahead log at every commit (survives power loss). false: the commit is
    /// in the OS page cache when `commit` returns, which survives the process being killed.
    pub sync_commit: bool,
    /// Where uncommitted writes live (ignored when not transactional).
    pub strategy: Strategy,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions { transactional: true, sync_commit: false, strategy: Strategy::IndexedBatch }
    }
}

impl StoreOptions {
    pub(crate) fn secondary(&self) -> bool {
        self.transactional && self.strategy == Strategy::SecondaryStore
    }
}

/// The uncommitted writes of one transaction. Shared (`Arc`) with the iterators opened during the
/// transaction: a commit swaps in a fresh batch instead of clearing this one, so an iterator never
/// reads freed memory. `version` counts mutations, so an iterator knows when to re-seek.
pub(crate) struct Staged {
    /// Indexed-batch strategy: the writes (empty under the secondary-store strategy).
    pub(crate) batch: Mutex<WriteBatchWithIndex>,
    /// Indexed-batch strategy: counts mutations of `batch`, so live iterators know to re-seek.
    pub(crate) version: AtomicU64,
    /// Range deletes, applied after the records at commit. RocksDB's `WriteBatchWithIndex` drops
    /// range deletes silently, so they are kept here; reads never look at the ranges they cover.
    range_deletes: Mutex<Vec<(Vec<u8>, Vec<u8>)>>,
    /// Secondary-store strategy: the temporary store's generation holding this transaction.
    pub(crate) generation: u64,
    /// Secondary-store strategy: key and value bytes, and records, written to the temporary store.
    tmp_bytes: AtomicU64,
    tmp_writes: AtomicU64,
}

impl Staged {
    fn new(generation: u64) -> Arc<Self> {
        Arc::new(Staged {
            batch: Mutex::new(WriteBatchWithIndex::new(0, true)),
            version: AtomicU64::new(0),
            range_deletes: Mutex::new(Vec::new()),
            generation,
            tmp_bytes: AtomicU64::new(0),
            tmp_writes: AtomicU64::new(0),
        })
    }
}

/// A RocksDB snapshot that lives as long as the store (`Inner` releases it before the DB).
pub(crate) struct Frozen(pub(crate) SnapshotWithThreadMode<'static, DB>);

impl Frozen {
    pub(crate) fn new(inner: &Inner) -> Arc<Frozen> {
        // SAFETY: `db` lives inside the `Arc<Inner>` that every holder of a `Frozen` also holds and
        // drops after it (struct field order); `Inner` itself drops `frozen` before `db`.
        let db: &'static DB = unsafe { &*(&inner.db as *const DB) };
        Arc::new(Frozen(db.snapshot()))
    }
}

pub(crate) struct Inner {
    /// Secondary-store strategy: the committed view as of the start of the commit in progress, for
    /// committed-only readers while the commit copies (it is not one atomic write). Declared
    /// before `db`, so it is released first.
    pub(crate) frozen: Mutex<Option<Arc<Frozen>>>,
    /// Odd while a secondary-store commit copies (see [`Inner::committed_read`]).
    commit_epoch: AtomicU64,
    pub(crate) db: DB,
    pub(crate) path: PathBuf,
    pub(crate) options: StoreOptions,
    /// The current transaction. Held while a commit writes, so a new iterator never pairs a
    /// pre-commit snapshot with the post-commit (empty) batch, and no write lands mid-commit.
    pub(crate) staged: Mutex<Arc<Staged>>,
    /// The current transaction's generation, readable without waiting for a commit in progress.
    pub(crate) generation: AtomicU64,
    /// Secondary-store strategy: the current generation has writes (set before the first one
    /// lands). Until then reads skip the temporary store.
    pub(crate) tmp_dirty: AtomicBool,
    /// A secondary-store commit failed after its commit file was written: the transaction must be
    /// rolled forward ([`KeyValueStore::rollback`], or reopening) before anything else is written.
    interrupted: AtomicBool,
}

impl Inner {
    pub(crate) fn data_cf(&self) -> &ColumnFamily {
        self.db.cf_handle(DATA_CF).expect("data column family is created at open")
    }

    pub(crate) fn offsets_cf(&self) -> &ColumnFamily {
        self.db.cf_handle(OFFSETS_CF).expect("offsets column family is created at open")
    }

    /// Starts a new transaction (caller holds the `staged` lock).
    fn next_transaction(&self, current: &mut Arc<Staged>) {
        let generation = current.generation + 1;
        *current = Staged::new(generation);
        self.generation.store(generation, Ordering::Release);
        self.tmp_dirty.store(false, Ordering::Release);
    }

    fn check_not_interrupted(&self) -> Result<()> {
        if self.interrupted.load(Ordering::Acquire) {
            return Err(self.err(
                "an earlier commit failed half-way and must be completed first: recover the store \
                 (rollback) or reopen it",
            ));
        }
        Ok(())
    }

    /// Runs `read` against a consistent committed view and returns its result with the snapshot
    /// it used (if any). A secondary-store commit copies in several writes; while it does (odd
    /// `commit_epoch`), `read` gets the snapshot frozen before the copy; otherwise it reads the
    /// live data and is retried if a commit started meanwhile. Never blocks on a commit.
    pub(crate) fn committed_read<R>(&self, mut read: impl FnMut(Option<&Frozen>) -> R) -> (R, Option<Arc<Frozen>>) {
        loop {
            let epoch = self.commit_epoch.load(Ordering::SeqCst);
            if epoch % 2 == 1 {
                // `frozen` is set before the epoch turns odd and cleared after it turns even
                if let Some(frozen) = lock(&self.frozen).clone() {
                    return (read(Some(&frozen)), Some(frozen));
                }
                std::hint::spin_loop();
                continue;
            }
            let r = read(None);
            if self.commit_epoch.load(Ordering::SeqCst) == epoch {
                return (r, None);
            }
        }
    }

    /// A secondary-store commit starts copying: committed-view readers switch to the snapshot.
    fn freeze(&self) {
        *lock(&self.frozen) = Some(Frozen::new(self));
        self.commit_epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// The copy is complete (or abandoned before it began): readers see the live data again.
    fn thaw(&self) {
        if self.commit_epoch.load(Ordering::SeqCst) % 2 == 1 {
            self.commit_epoch.fetch_add(1, Ordering::SeqCst);
        }
        *lock(&self.frozen) = None;
    }

    pub(crate) fn err(&self, e: impl std::fmt::Display) -> Error {
        Error::storage(&self.path, e)
    }

    pub(crate) fn lock_staged(&self) -> MutexGuard<'_, Arc<Staged>> {
        self.staged.lock().unwrap_or_else(|e| e.into_inner())
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One write to the `data` family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write<'a> {
    Put(&'a [u8], &'a [u8]),
    Delete(&'a [u8]),
    /// Deletes keys in `[from, to)`.
    DeleteRange(&'a [u8], &'a [u8]),
}

impl<'a> From<(&'a [u8], Option<&'a [u8]>)> for Write<'a> {
    fn from((k, v): (&'a [u8], Option<&'a [u8]>)) -> Self {
        match v {
            Some(v) => Write::Put(k, v),
            None => Write::Delete(k),
        }
    }
}

/// A transactional key-value store over one RocksDB instance. Cloning shares the same store.
#[derive(Clone)]
pub struct KeyValueStore {
    inner: Arc<Inner>,
}

fn db_options() -> Options {
    let mem = memory::shared();
    let mut table = BlockBasedOptions::default();
    table.set_block_cache(&mem.cache);
    table.set_bloom_filter(10.0, false);
    // Index and filter blocks live in the block cache, so they count against the budget too.
    table.set_cache_index_and_filter_blocks(true);
    table.set_pin_l0_filter_and_index_blocks_in_cache(true);
    let mut o = Options::default();
    o.set_block_based_table_factory(&table);
    o.set_write_buffer_manager(&mem.write_buffers);
    o.set_write_buffer_size(16 << 20);
    o.set_max_write_buffer_number(3);
    o.set_compression_type(DBCompressionType::Lz4);
    o.set_max_background_jobs(2);
    // Bounds WAL growth: old WAL files force a flush of the (small) offsets family.
    o.set_max_total_wal_size(64 << 20);
    o.set_log_level(LogLevel::Warn);
    o.set_keep_log_file_num(2);
    o
}

impl KeyValueStore {
    /// Opens (creating if needed) the store in directory `path`.
    ///
    /// This is recovery: afterwards the store holds exactly the last commit. Under the
    /// indexed-batch strategy uncommitted writes were never written to RocksDB and a commit is one
    /// atomic write; under the secondary-store strategy a commit file left by a crash rolls its
    /// commit forward, and the temporary store's uncommitted writes are thrown away.
    pub fn open(path: impl AsRef<Path>, options: StoreOptions) -> Result<KeyValueStore> {
        let path = path.as_ref().to_path_buf();
        std::fs::create_dir_all(&path).map_err(|e| Error::storage(&path, e))?;
        let mut db_opts = db_options();
        db_opts.create_if_missing(true);
        db_opts.create_missing_column_families(true);
        let cfs = [DATA_CF, OFFSETS_CF, TXN_CF].map(|name| ColumnFamilyDescriptor::new(name, db_options()));
        let db = DB::open_cf_descriptors(&db_opts, &path, cfs).map_err(|e| Error::storage(&path, e))?;
        let inner = Inner {
            frozen: Mutex::new(None),
            commit_epoch: AtomicU64::new(0),
            db,
            path,
            options,
            staged: Mutex::new(Staged::new(1)),
            generation: AtomicU64::new(1),
            tmp_dirty: AtomicBool::new(false),
            interrupted: AtomicBool::new(false),
        };
        secondary::recover_at_open(&inner)?;
        log::debug!("opened store {} ({options:?})", inner.path.display());
        Ok(KeyValueStore { inner: Arc::new(inner) })
    }

    /// The options the store was opened with.
    pub fn options(&self) -> StoreOptions {
        self.inner.options
    }

    /// The directory this store lives in.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The value of `key`, seeing uncommitted writes unless `committed_only`.
    pub fn get(&self, key: &[u8], committed_only: bool) -> Result<Option<Vec<u8>>> {
        self.get_with(key, committed_only, |v| v.map(<[u8]>::to_vec))
    }

    /// Calls `f` with the value of `key` (pinned, not copied), as [`Self::get`] sees it.
    pub fn get_with<R>(&self, key: &[u8], committed_only: bool, f: impl FnOnce(Option<&[u8]>) -> R) -> Result<R> {
        let inner = &*self.inner;
        let cf = inner.data_cf();
        let secondary = inner.options.secondary();
        if committed_only || !inner.options.transactional || (secondary && !inner.tmp_dirty.load(Ordering::Acquire)) {
            // the committed view (for secondary-store also the whole view while nothing is staged)
            let (v, _) = inner.committed_read(|frozen| match frozen {
                Some(frozen) => {
                    let mut ro = ReadOptions::default();
                    ro.set_snapshot(&frozen.0);
                    inner.db.get_pinned_cf_opt(cf, key, &ro)
                }
                None => inner.db.get_pinned_cf(cf, key),
            });
            let v = v.map_err(|e| inner.err(e))?;
            return Ok(f(v.as_deref()));
        }
        if secondary {
            // The temporary store first; a commit finishing meanwhile only moves the value to the
            // main store, so reading the main store after a miss is still right.
            let generation = inner.generation.load(Ordering::Acquire);
            let tmp = inner
                .db
                .get_pinned_cf(inner.txn_cf(), secondary::tmp_key(generation, key))
                .map_err(|e| inner.err(e))?;
            if let Some(raw) = tmp {
                return Ok(f(secondary::decode_value(&raw)));
            }
            let v = inner.db.get_pinned_cf(cf, key).map_err(|e| inner.err(e))?;
            return Ok(f(v.as_deref()));
        }
        let staged = inner.lock_staged();
        let batch = lock(&staged.batch);
        let v = if batch.is_empty() {
            inner.db.get_pinned_cf(cf, key)
        } else {
            batch.get_pinned_from_batch_and_db_cf(&inner.db, cf, key, &ReadOptions::default())
        }
        .map_err(|e| inner.err(e))?;
        Ok(f(v.as_deref()))
    }

    /// Writes `key` = `value`, or deletes `key` when `value` is `None`.
    pub fn put(&self, key: &[u8], value: Option<&[u8]>) -> Result<()> {
        self.put_all(std::iter::once((key, value)))
    }

    /// Writes several entries (a `None` value deletes) under one lock, or in one RocksDB write
    /// when the store is write-through.
    pub fn put_all<'a>(&self, entries: impl IntoIterator<Item = (&'a [u8], Option<&'a [u8]>)>) -> Result<()> {
        self.write_all(entries.into_iter().map(Write::from))
    }

    /// Stages `writes` in the current transaction (or applies them at once when write-through).
    /// A [`Write::DeleteRange`] is not visible to reads before the commit; callers use it only
    /// for data their reads already exclude (expired segments).
    pub fn write_all<'a>(&self, writes: impl IntoIterator<Item = Write<'a>>) -> Result<()> {
        let inner = &*self.inner;
        let cf = inner.data_cf();
        if !inner.options.transactional {
            return self.write_direct(writes);
        }
        let staged = inner.lock_staged();
        inner.check_not_interrupted()?;
        if inner.options.secondary() {
            return self.write_temporary(&staged, writes);
        }
        let mut batch = lock(&staged.batch);
        for w in writes {
            match w {
                Write::Put(k, v) => batch.put_cf(cf, k, v),
                Write::Delete(k) => batch.delete_cf(cf, k),
                Write::DeleteRange(from, to) => {
                    // A later put into the range must survive the commit, so apply the range
                    // delete to the puts staged so far only: the caller never puts into a range
                    // it deleted (expired segments), which keeps "after the batch" correct.
                    lock(&staged.range_deletes).push((from.to_vec(), to.to_vec()))
                }
            }
        }
        staged.version.fetch_add(1, Ordering::Release);
        Ok(())
    }

    /// Secondary-store strategy: writes to the temporary store (one RocksDB write, logged in the
    /// WAL so that a commit only has to make the WAL durable).
    fn write_temporary<'a>(&self, staged: &Staged, writes: impl IntoIterator<Item = Write<'a>>) -> Result<()> {
        let inner = &*self.inner;
        let tcf = inner.txn_cf();
        let mut wb = WriteBatch::default();
        let (mut bytes, mut records) = (0u64, 0u64);
        for w in writes {
            let (k, v) = match w {
                Write::Put(k, v) => (k, Some(v)),
                Write::Delete(k) => (k, None),
                Write::DeleteRange(from, to) => {
                    lock(&staged.range_deletes).push((from.to_vec(), to.to_vec()));
                    continue;
                }
            };
            let value = secondary::encode_value(v);
            let key = secondary::tmp_key(staged.generation, k);
            bytes += (key.len() + value.len()) as u64;
            records += 1;
            wb.put_cf(tcf, key, value);
        }
        if records > 0 {
            inner.tmp_dirty.store(true, Ordering::Release);
            inner.db.write(&wb).map_err(|e| inner.err(e))?;
            staged.tmp_bytes.fetch_add(bytes, Ordering::Relaxed);
            staged.tmp_writes.fetch_add(records, Ordering::Relaxed);
        }
        // no version bump: secondary-store iterators read a snapshot and never re-seek
        Ok(())
    }

    /// Applies `writes` straight to committed data in one RocksDB write.
    fn write_direct<'a>(&self, writes: impl IntoIterator<Item = Write<'a>>) -> Result<()> {
        let inner = &*self.inner;
        inner.check_not_interrupted()?;
        let cf = inner.data_cf();
        let mut wb = WriteBatch::default();
        for w in writes {
            match w {
                Write::Put(k, v) => wb.put_cf(cf, k, v),
                Write::Delete(k) => wb.delete_cf(cf, k),
                Write::DeleteRange(from, to) => wb.delete_range_cf(cf, from, to),
            }
        }
        inner.db.write(&wb).map_err(|e| inner.err(e))
    }

    /// Writes `value` only if `key` has no visible value; returns the visible value.
    pub fn put_if_absent(&self, key: &[u8], value: &[u8]) -> Result<Option<Vec<u8>>> {
        let existing = self.get(key, false)?;
        if existing.is_none() {
            self.put(key, Some(value))?;
        }
        Ok(existing)
    }

    /// Deletes `key`, returning the value it hid. The delete is staged even when nothing was
    /// visible, as Kafka's store does, so it also hides a value restored later.
    pub fn delete(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let existing = self.get(key, false)?;
        self.put(key, None)?;
        Ok(existing)
    }

    /// An iterator over `range` (see [`Range`]).
    pub fn range(&self, range: Range) -> Result<RangeIter> {
        RangeIter::new(self.inner.clone(), range)
    }

    /// Writes the staged writes, the offset updates and (if given) the position blob in ONE
    /// atomic RocksDB write, then starts a new transaction.
    ///
    /// `updates` empty clears every committed offset; an update with `None` removes that
    /// partition's offset; other partitions keep theirs. Offsets are stored verbatim (-4 too).
    pub fn commit(&self, updates: &[OffsetUpdate], position: Option<&[u8]>) -> Result<()> {
        let inner = &*self.inner;
        let ocf = inner.offsets_cf();
        let mut offset_writes: Vec<(Vec<u8>, Option<Vec<u8>>)> = Vec::with_capacity(updates.len().max(1));
        if updates.is_empty() {
            for (tp, _) in self.committed_offsets()? {
                offset_writes.push((offsets::offset_key(&tp), None));
            }
        }
        for (tp, offset) in updates {
            offset_writes.push((offsets::offset_key(tp), offset.map(|o| o.to_be_bytes().to_vec())));
        }
        if let Some(p) = position {
            offset_writes.push((offsets::POSITION_KEY.to_vec(), Some(p.to_vec())));
        }
        let mut wo = WriteOptions::default();
        wo.set_sync(inner.options.sync_commit);

        if !inner.options.transactional {
            let mut wb = WriteBatch::default();
            for (k, v) in &offset_writes {
                match v {
                    Some(v) => wb.put_cf(ocf, k, v),
                    None => wb.delete_cf(ocf, k),
                }
            }
            return inner.db.write_opt(&wb, &wo).map_err(|e| inner.err(e));
        }

        let mut current = inner.lock_staged();
        inner.check_not_interrupted()?;
        fault::point("commit:begin")?;
        if inner.options.secondary() {
            return self.commit_secondary(&mut current, offset_writes);
        }
        {
            // One plain WriteBatch: the staged records (copied from the indexed batch, whose
            // record format is the same), then range deletes and offsets. The indexed batch is
            // not touched, so a failed write leaves the transaction as it was.
            let mut wb = WriteBatch::from_data(lock(&current.batch).data());
            let dcf = inner.data_cf();
            for (from, to) in lock(&current.range_deletes).iter() {
                wb.delete_range_cf(dcf, from, to);
            }
            for (k, v) in &offset_writes {
                match v {
                    Some(v) => wb.put_cf(ocf, k, v),
                    None => wb.delete_cf(ocf, k),
                }
            }
            inner.db.write_opt(&wb, &wo).map_err(|e| inner.err(e))?;
        }
        fault::point("commit:after-write")?;
        inner.next_transaction(&mut current);
        Ok(())
    }

    /// KIP-844's commit protocol (see `secondary.rs`), with the caller holding the `staged` lock.
    fn commit_secondary(&self, current: &mut Arc<Staged>, offset_writes: Vec<(Vec<u8>, Option<Vec<u8>>)>) -> Result<()> {
        let inner = &*self.inner;
        let record = CommitRecord {
            generation: current.generation,
            offset_writes,
            range_deletes: lock(&current.range_deletes).clone(),
        };
        // 1. The temporary store is durable: its writes went through the WAL, which is in the OS
        //    once written (enough for a killed process); fsync it for power loss.
        if inner.options.sync_commit {
            inner.db.flush_wal(true).map_err(|e| inner.err(e))?;
        }
        fault::point("commit:before-commit-file")?;
        // Committed-view readers keep the pre-commit view until the offsets have landed.
        inner.freeze();
        // 2. The commit file: from here on, the commit happens (rolled forward after a crash).
        if let Err(e) = record.write(&inner.path, inner.options.sync_commit) {
            if secondary::commit_file_exists(inner) {
                inner.interrupted.store(true, Ordering::Release);
            } else {
                inner.thaw();
            }
            return Err(e);
        }
        // 3-6. Copy, offsets, truncate, delete the commit file.
        let rolled = fault::point("commit:after-commit-file").and_then(|_| secondary::roll_forward(inner, &record, Phase::Commit));
        if let Err(e) = rolled {
            inner.interrupted.store(true, Ordering::Release);
            return Err(e);
        }
        inner.thaw();
        inner.next_transaction(current);
        Ok(())
    }

    /// The committed changelog offsets.
    pub fn committed_offsets(&self) -> Result<Vec<(TopicPartition, i64)>> {
        let inner = &*self.inner;
        let mut out = Vec::new();
        let mut it = inner.db.raw_iterator_cf(inner.offsets_cf());
        it.seek_to_first();
        while let (Some(k), Some(v)) = (it.key(), it.value()) {
            if offsets::is_offset_key(k) {
                out.push(offsets::decode_offset(k, v)?);
            }
            it.next();
        }
        it.status().map_err(|e| inner.err(e))?;
        Ok(out)
    }

    /// The position blob written by the last commit that carried one.
    pub fn committed_position(&self) -> Result<Option<Vec<u8>>> {
        let inner = &*self.inner;
        inner.db.get_cf(inner.offsets_cf(), offsets::POSITION_KEY).map_err(|e| inner.err(e))
    }

    /// Applies a batch of changelog records (a `None` value deletes) straight to committed data,
    /// in one RocksDB write. Staged writes, if any, still shadow the restored keys.
    pub fn restore<'a>(&self, records: impl IntoIterator<Item = (&'a [u8], Option<&'a [u8]>)>) -> Result<()> {
        self.restore_writes(records.into_iter().map(Write::from))
    }

    /// As [`Self::restore`], for callers that also drop ranges (expired segments).
    pub fn restore_writes<'a>(&self, writes: impl IntoIterator<Item = Write<'a>>) -> Result<()> {
        self.write_direct(writes)?;
        fault::point("restore:after-batch")?;
        Ok(())
    }

    /// Drops every uncommitted write. If a secondary-store commit failed after its commit file
    /// was written, rolls that commit forward instead (it was decided; KIP-844's `recover`).
    pub fn rollback(&self) -> Result<()> {
        let inner = &*self.inner;
        let mut current = inner.lock_staged();
        if inner.interrupted.load(Ordering::Acquire) {
            if let Some(record) = CommitRecord::read(&inner.path)? {
                secondary::roll_forward(inner, &record, Phase::Recovery)?;
            }
            inner.interrupted.store(false, Ordering::Release);
            inner.thaw();
        } else if inner.options.secondary() {
            let bytes = current.tmp_bytes.load(Ordering::Relaxed);
            secondary::truncate_generation(inner, current.generation, bytes)?;
        }
        inner.next_transaction(&mut current);
        Ok(())
    }

    /// Bytes held by the uncommitted writes.
    pub fn approximate_uncommitted_bytes(&self) -> u64 {
        if !self.inner.options.transactional {
            return 0;
        }
        let staged = self.inner.lock_staged();
        if self.inner.options.secondary() {
            return staged.tmp_bytes.load(Ordering::Relaxed);
        }
        let batch = lock(&staged.batch);
        // An empty batch still holds RocksDB's 12-byte header.
        if batch.is_empty() {
            0
        } else {
            batch.size_in_bytes() as u64
        }
    }

    /// RocksDB's estimate of the committed keys plus the number of staged writes.
    pub fn approximate_num_entries(&self) -> Result<u64> {
        let inner = &*self.inner;
        let committed = inner
            .db
            .property_int_value_cf(inner.data_cf(), rust_rocksdb::properties::ESTIMATE_NUM_KEYS)
            .map_err(|e| inner.err(e))?
            .unwrap_or(0);
        let staged = match (inner.options.transactional, inner.options.secondary()) {
            (false, _) => 0,
            (true, true) => inner.lock_staged().tmp_writes.load(Ordering::Relaxed),
            (true, false) => lock(&inner.lock_staged().batch).len() as u64,
        };
        Ok(committed.saturating_add(staged))
    }
}
