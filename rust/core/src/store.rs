//! One transactional key-value store: a RocksDB instance (`db.rs`) and the staging of the
//! transaction strategy chosen when it opens (`direct.rs`, `indexed.rs`, `secondary/`). What every
//! strategy shares lives here: opening (which is recovery), committed offsets and position,
//! restore from the changelog, and the read-modify-write operations built on get and put.

use crate::changelog_restore::{self, RestoreBuffer};
use crate::corruption::{self, CorruptionPolicy};
use crate::db::{Db, Write};
use crate::direct::Direct;
use crate::error::{Error, Result};
use crate::fault;
use crate::indexed::IndexedBatch;
use crate::iter::{Range, RangeIter};
use crate::offsets::{self, OffsetUpdate, TopicPartition};
use crate::row_layout;
pub use crate::secondary::DEFAULT_SPILL_BYTES;
use crate::secondary::{self, TempStore};
use crate::staging::{lock, Staging};
use crate::value_format::{self, ValueFormat};
use std::path::Path;
use std::sync::{Arc, Mutex};
use txn_rocksdb_format::open_options::{OpenOptions, TtlOptions};

/// Opens the RocksDB instance, runs the secondary-store recovery on it and brings its values to
/// the store's format.
fn open_and_recover(path: &Path, options: &StoreOptions) -> Result<Arc<Db>> {
    let db = Arc::new(Db::open(path, options.sync_commit, options.corruption, options.statistics, &options.tuning)?);
    secondary::recover_at_open(&db)?;
    changelog_restore::remove_leftovers(&db)?;
    value_format::open_in(&db, options.value_format)?;
    row_layout::open_in(&db, options.ttl.is_some())?;
    Ok(db)
}

pub use txn_rocksdb_format::open_options::Strategy;

/// How a store behaves; fixed when it opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreOptions {
    /// true: writes are staged until [`KeyValueStore::commit`]; false: every write goes straight to
    /// RocksDB (write-through, as Kafka's non-transactional stores) and commit only records offsets.
    pub transactional: bool,
    /// true: fsync the write-ahead log at every commit (survives power loss). false: the commit is
    /// in the OS page cache when `commit` returns, which survives the process being killed.
    pub sync_commit: bool,
    /// Where uncommitted writes live (ignored when not transactional).
    pub strategy: Strategy,
    /// What opening does when it finds the store's files damaged.
    pub corruption: CorruptionPolicy,
    /// The format of the values Kafka Streams stores (opaque to the engine): recorded in the
    /// store, and a store recorded in an older format is upgraded at open (see `ValueFormat`).
    pub value_format: ValueFormat,
    /// Whether RocksDB collects its statistics for this store ([`crate::stats::Stat::BytesWritten`]
    /// and the block cache hits; without, they read [`crate::stats::UNAVAILABLE`]). They cost a little
    /// on every operation; Kafka's RocksDB stores collect them only under
    /// `metrics.recording.level=DEBUG`.
    pub statistics: bool,
    /// The RocksDB options the user tuned for this store (`txn.rocksdb.options`).
    pub tuning: crate::tuning::Tuning,
    /// Secondary-store strategy: the bytes of writes a transaction keeps in memory before they
    /// spill to the temporary store (in one write, in key order). A transaction that never spilled
    /// commits in one atomic write; one that spilled is copied into the main store at its commit.
    /// 0 spills every write. Default [`DEFAULT_SPILL_BYTES`].
    pub spill_bytes: usize,
    /// A key-value store's time-to-live, if its keys expire: the store is then a
    /// [`crate::ttl::TtlStore`], whose rows are in their own layout (recorded in the store; a store
    /// is refused when opened in the other one).
    pub ttl: Option<TtlOptions>,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            transactional: true,
            sync_commit: false,
            strategy: Strategy::IndexedBatch,
            corruption: CorruptionPolicy::Refuse,
            value_format: ValueFormat::Plain,
            statistics: false,
            tuning: crate::tuning::Tuning::default(),
            spill_bytes: DEFAULT_SPILL_BYTES,
            ttl: None,
        }
    }
}

impl StoreOptions {
    /// The options Java sent in the open options record (the format crate's `open_options`): the
    /// RocksDB option strings parsed and checked ([`crate::tuning::Tuning::new`]), a negative
    /// spill size refused naming its setting.
    pub fn from_record(record: &OpenOptions<'_>) -> Result<StoreOptions> {
        let spill_bytes = usize::try_from(record.spill_bytes).map_err(|_| {
            Error::InvalidArgument(format!(
                "the secondary-store spill size (txn.rocksdb.secondary.store.spill.bytes) must be at least 0 bytes, \
                 not {}",
                record.spill_bytes
            ))
        })?;
        Ok(StoreOptions {
            transactional: record.transactional,
            sync_commit: record.sync_commit,
            strategy: record.strategy,
            corruption: record.corruption,
            value_format: record.value_format,
            statistics: record.statistics,
            tuning: crate::tuning::Tuning::new(&[record.rocksdb_options, record.store_rocksdb_options])?,
            spill_bytes,
            ttl: record.ttl,
        })
    }
}

/// The staging of the strategy a store opened with; chosen once, in [`KeyValueStore::open`].
enum ChosenStaging {
    Direct(Direct),
    Indexed(IndexedBatch),
    Secondary(TempStore),
}

/// Calls the same [`Staging`] method on whichever strategy the store opened with.
macro_rules! staging {
    ($store:expr, $staging:ident => $call:expr) => {
        match &$store.shared.staging {
            ChosenStaging::Direct($staging) => $call,
            ChosenStaging::Indexed($staging) => $call,
            ChosenStaging::Secondary($staging) => $call,
        }
    };
}

struct Shared {
    staging: ChosenStaging,
    db: Arc<Db>,
    options: StoreOptions,
    /// Held by every commit and rollback, and by [`KeyValueStore::checkpoint`]: a checkpoint is
    /// never taken in the middle of a commit (a secondary-store copy in several writes).
    commit_gate: Mutex<()>,
    /// Restored records not yet in RocksDB (`changelog_restore.rs`); every operation that needs them there
    /// settles it first.
    restore: RestoreBuffer,
}

impl Drop for Shared {
    fn drop(&mut self) {
        // What a restore buffered reaches RocksDB at close, as restored records always did.
        if let Err(e) = self.restore.settle(&self.db) {
            log::warn!(
                "store {}: writing the restored records at close failed: {}",
                self.db.path.display(),
                e.report()
            );
        }
    }
}

/// A transactional key-value store over one RocksDB instance. Cloning shares the same store.
#[derive(Clone)]
pub struct KeyValueStore {
    shared: Arc<Shared>,
}

impl KeyValueStore {
    /// Opens (creating if needed) the store in directory `path`.
    ///
    /// This is recovery: afterwards the store holds exactly the last commit. Under the
    /// indexed-batch strategy uncommitted writes were never written to RocksDB and a commit is one
    /// atomic write; under the secondary-store strategy a commit whose copy was cut short rolls
    /// forward, and the temporary store's uncommitted writes are thrown away (whatever the
    /// strategy now: a store may have been written with the other one). Damaged files are
    /// handled as `options.corruption` says.
    pub fn open(path: impl AsRef<Path>, options: StoreOptions) -> Result<KeyValueStore> {
        let path = path.as_ref();
        let db = match open_and_recover(path, &options) {
            Err(Error::Damaged { message, .. }) if options.corruption == CorruptionPolicy::RestoreFromChangelog => {
                let files = corruption::wipe(path)?;
                log::warn!(
                    "store {}: {message}. It cannot prove that it holds the state of a commit, so its files ({files}) \
                     were deleted: it opens empty, with no committed offset, and is restored from its changelog",
                    path.display()
                );
                let db = open_and_recover(path, &options)?;
                db.recovery.wiped.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                db
            }
            opened => opened?,
        };
        let staging = match (options.transactional, options.strategy) {
            (false, _) => ChosenStaging::Direct(Direct::new(db.clone())),
            (true, Strategy::IndexedBatch) => ChosenStaging::Indexed(IndexedBatch::new(db.clone())),
            (true, Strategy::SecondaryStore) => {
                ChosenStaging::Secondary(TempStore::new(db.clone(), options.spill_bytes))
            }
        };
        log::debug!("opened store {} ({options:?})", db.path.display());
        Ok(KeyValueStore {
            shared: Arc::new(Shared {
                staging,
                db,
                options,
                commit_gate: Mutex::new(()),
                restore: RestoreBuffer::new(),
            }),
        })
    }

    /// The options the store was opened with.
    pub fn options(&self) -> &StoreOptions {
        &self.shared.options
    }

    /// The RocksDB instance underneath.
    pub(crate) fn db(&self) -> &Arc<Db> {
        &self.shared.db
    }

    /// The directory this store lives in.
    pub fn path(&self) -> &Path {
        &self.shared.db.path
    }

    /// The value of `key`: the staged write if any (unless `committed_only`), else the committed value.
    pub fn get(&self, key: &[u8], committed_only: bool) -> Result<Option<Vec<u8>>> {
        self.get_with(key, committed_only, |value| value.map(<[u8]>::to_vec))
    }

    /// Passes the value of `key` to `f` without copying it out of RocksDB; sees what
    /// [`Self::get`] sees.
    pub fn get_with<R>(&self, key: &[u8], committed_only: bool, f: impl FnOnce(Option<&[u8]>) -> R) -> Result<R> {
        self.settle_restore()?;
        staging!(self, staging => staging.get_with(key, committed_only, f))
    }

    /// Writes `key` = `value`, or deletes `key` when `value` is `None`.
    pub fn put(&self, key: &[u8], value: Option<&[u8]>) -> Result<()> {
        self.put_all(std::iter::once((key, value)))
    }

    /// As [`Self::put`], taking ownership of the bytes (the indexed-batch strategy then stages them
    /// without copying).
    pub fn put_owned(&self, key: Vec<u8>, value: Option<Vec<u8>>) -> Result<()> {
        self.settle_restore()?;
        staging!(self, staging => staging.put_owned(key, value))
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
        self.settle_restore()?;
        staging!(self, staging => staging.write_all(writes))
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

    /// An iterator over `range` (see [`Range`]). Under indexed-batch it also sees writes staged
    /// after it was opened; under secondary-store it reads one snapshot, as Kafka's iterators do.
    pub fn range(&self, range: Range) -> Result<RangeIter> {
        self.settle_restore()?;
        staging!(self, staging => staging.range(range))
    }

    /// Makes the staged writes, the offset updates and (if given) the position blob durable
    /// together (all or nothing after a crash), then starts a new transaction.
    ///
    /// `updates` empty clears every committed offset; an update with `None` removes that
    /// partition's offset; other partitions keep theirs. Offsets are stored verbatim (-4 too).
    pub fn commit(&self, updates: &[OffsetUpdate], position: Option<&[u8]>) -> Result<()> {
        let _gate = lock(&self.shared.commit_gate);
        let offset_writes = offsets::offset_writes(updates, position, || self.committed_offsets())?;
        // Offsets only, while restored records wait in the buffer: written after them (`changelog_restore.rs`).
        let offset_writes = match staging!(self, staging => staging.has_writes()) {
            false => match self.shared.restore.defer(&self.shared.db, offset_writes)? {
                Some(offset_writes) => offset_writes,
                None => return Ok(()),
            },
            true => {
                self.settle_restore()?;
                offset_writes
            }
        };
        staging!(self, staging => staging.commit(offset_writes))
    }

    /// The committed changelog offsets.
    pub fn committed_offsets(&self) -> Result<Vec<(TopicPartition, i64)>> {
        self.settle_restore()?;
        self.shared.db.committed_offsets()
    }

    /// The position blob written by the last commit that carried one.
    pub fn committed_position(&self) -> Result<Option<Vec<u8>>> {
        self.settle_restore()?;
        self.shared.db.committed_position()
    }

    /// Applies a batch of changelog records (a `None` value deletes) to committed data: buffered,
    /// then ingested into RocksDB as a sorted file (`changelog_restore.rs`). Every read sees them. Staged
    /// writes, if any, still shadow the restored keys.
    pub fn restore<'a>(&self, records: impl IntoIterator<Item = (&'a [u8], Option<&'a [u8]>)>) -> Result<()> {
        staging!(self, staging => staging.check_writable())?;
        self.shared.restore.restore(&self.shared.db, records)?;
        fault::point("restore:after-batch")?;
        Ok(())
    }

    /// As [`Self::restore`], for callers that also drop ranges (expired segments): in one RocksDB
    /// write.
    pub fn restore_writes<'a>(&self, writes: impl IntoIterator<Item = Write<'a>>) -> Result<()> {
        staging!(self, staging => staging.check_writable())?;
        self.settle_restore()?;
        self.shared.db.write_restored(writes)?;
        fault::point("restore:after-batch")?;
        Ok(())
    }

    /// Drops every uncommitted write. If a secondary-store commit failed after its copy began,
    /// rolls that commit forward instead (it was decided; KIP-844's `recover`).
    ///
    /// A RocksDB that stopped writing after an I/O error (a full disk, a file it could not create)
    /// is resumed first, so a recovery from a passing failure works; one whose cause persists
    /// fails again here.
    pub fn rollback(&self) -> Result<()> {
        let _gate = lock(&self.shared.commit_gate);
        let db = &self.shared.db;
        db.rocks.resume().map_err(|e| db.rocks_err(e))?;
        staging!(self, staging => staging.rollback())
    }

    /// A RocksDB checkpoint of the store in `dir` (which must not exist): its SST files hard
    /// linked, the rest copied, after a flush of every family. Taken between two commits (it waits
    /// for a running one and holds the next one back while it runs), so it holds exactly the data
    /// and offsets of the last commit, plus what restore and write-through writes added since.
    pub(crate) fn checkpoint(&self, dir: &Path) -> Result<()> {
        let _gate = lock(&self.shared.commit_gate);
        self.settle_restore()?;
        self.shared.db.checkpoint(dir)
    }

    /// Writes what the restore buffer holds, so RocksDB has every restored record.
    fn settle_restore(&self) -> Result<()> {
        self.shared.restore.settle(&self.shared.db)
    }

    /// Bytes held by the uncommitted writes.
    pub fn approximate_uncommitted_bytes(&self) -> u64 {
        staging!(self, staging => staging.uncommitted_bytes())
    }

    /// Every [`crate::stats::Stat`], in its order, read in one go.
    pub fn stats(&self) -> Vec<i64> {
        crate::stats::read(&self.shared.db, self.approximate_uncommitted_bytes())
    }

    /// RocksDB's estimate of the committed keys plus the number of staged writes.
    pub fn approximate_num_entries(&self) -> Result<u64> {
        self.settle_restore()?;
        let db = &self.shared.db;
        let committed = db
            .rocks
            .property_int_value_cf(db.data(), rust_rocksdb::properties::ESTIMATE_NUM_KEYS)
            .map_err(|e| db.rocks_err(e))?
            .unwrap_or(0);
        let staged = staging!(self, staging => staging.staged_writes());
        Ok(committed.saturating_add(staged))
    }
}
