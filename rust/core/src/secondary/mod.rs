//! The secondary-store transaction strategy (KIP-844's reference design).
//!
//! Uncommitted writes go to a temporary store, the `txn` column family of the same RocksDB
//! (`keys.rs` has its layout). The temporary store spills to disk like any column family
//! (memtables are flushed under the shared write-buffer budget), so a transaction may be larger
//! than memory.
//!
//! Commit ([`TempStore::commit`]): `roll_forward.rs` copies the generation into the main store,
//! in one atomic write with the offsets when it fits one (4 MiB), else in bounded writes, the
//! first of which stores the commit record (offsets, position, range deletes) in the `offsets`
//! family and the last of which writes the offsets and deletes the record. All of it goes through
//! RocksDB's WAL in order, so recovery finds the record exactly when a copy was cut short, with
//! the whole generation still in the temporary store, and runs the (idempotent) copy again.
//! A transaction without writes commits its offsets in one write.
//!
//! Each transaction uses a fresh generation, so the range delete that truncates one never overlaps
//! the next one's keys (overlapping range tombstones would pile up in the memtable).
//!
//! Committed-view readers (`READ_COMMITTED`, and every reader while nothing is staged) never wait
//! for a commit and never see half of one ([`CommittedView`]).

mod commit_file;
mod keys;
mod merge;
mod roll_forward;

use crate::db::{Db, Snapshot, Write};
use crate::error::Result;
use crate::fault;
use crate::iter::{self, Range, RangeIter};
use crate::offsets::{self, OffsetWrites};
use crate::staging::{lock, Staging};
use roll_forward::{commit_in_progress, roll_forward, truncate_generation, Phase};
use txn_rocksdb_format::commit_record::CommitRecord;
use rust_rocksdb::WriteBatch;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

pub(crate) use roll_forward::recover_at_open;

/// The transaction in progress.
struct Transaction {
    /// The temporary store's generation holding this transaction.
    generation: u64,
    /// Key and value bytes, and records, written to the temporary store.
    bytes: u64,
    records: u64,
    /// Range deletes (expired segments), applied after the records at commit.
    range_deletes: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Transaction {
    fn new(generation: u64) -> Transaction {
        Transaction { generation, bytes: 0, records: 0, range_deletes: Vec::new() }
    }
}

/// The staging of the secondary-store strategy.
pub(crate) struct TempStore {
    db: Arc<Db>,
    /// Held by writes and for a whole commit, so no write lands mid-commit.
    current: Mutex<Transaction>,
    /// The current transaction's generation, readable without waiting for a commit in progress.
    generation: AtomicU64,
    /// The current generation has writes (set before the first one lands). Until then reads skip
    /// the temporary store.
    dirty: AtomicBool,
    /// A commit failed: whether its copy began is in the store (its commit record), so
    /// [`Staging::rollback`] or reopening finishes it or drops it before anything else is written.
    interrupted: AtomicBool,
    committed: CommittedView,
}

impl TempStore {
    pub(crate) fn new(db: Arc<Db>) -> TempStore {
        TempStore {
            db,
            current: Mutex::new(Transaction::new(1)),
            generation: AtomicU64::new(1),
            dirty: AtomicBool::new(false),
            interrupted: AtomicBool::new(false),
            committed: CommittedView::default(),
        }
    }

    /// Starts a new transaction (caller holds the `current` lock).
    fn next_transaction(&self, current: &mut Transaction) {
        let generation = current.generation + 1;
        *current = Transaction::new(generation);
        self.generation.store(generation, Ordering::Release);
        self.dirty.store(false, Ordering::Release);
    }

    /// Whether reads must look at the temporary store.
    fn reads_staged(&self, committed_only: bool) -> bool {
        !committed_only && self.dirty.load(Ordering::Acquire)
    }
}

impl Staging for TempStore {
    fn get_with<R>(&self, key: &[u8], committed_only: bool, f: impl FnOnce(Option<&[u8]>) -> R) -> Result<R> {
        if !self.reads_staged(committed_only) {
            let (value, _) = self.committed.read(|snapshot| self.db.get_committed(key, snapshot.map(|s| &**s)));
            return Ok(f(value?.as_deref()));
        }
        // The temporary store first; a commit finishing meanwhile only moves the value to the
        // main store, so reading the main store after a miss is still right.
        let generation = self.generation.load(Ordering::Acquire);
        let temporary = self
            .db
            .rocks
            .get_pinned_cf(self.db.txn(), keys::temporary_key(generation, key))
            .map_err(|e| self.db.rocks_err(e))?;
        if let Some(raw) = temporary {
            return Ok(f(keys::decode_value(&raw)));
        }
        Ok(f(self.db.get_committed(key, None)?.as_deref()))
    }

    fn write_all<'a>(&self, writes: impl IntoIterator<Item = Write<'a>>) -> Result<()> {
        let mut current = lock(&self.current);
        self.check_writable()?;
        let txn = self.db.txn();
        let mut batch = WriteBatch::default();
        let (mut bytes, mut records) = (0u64, 0u64);
        for write in writes {
            let (key, value) = match write {
                Write::Put(key, value) => (key, Some(value)),
                Write::Delete(key) => (key, None),
                Write::DeleteRange(from, to) => {
                    current.range_deletes.push((from.to_vec(), to.to_vec()));
                    continue;
                }
            };
            let value = keys::encode_value(value);
            let key = keys::temporary_key(current.generation, key);
            bytes += (key.len() + value.len()) as u64;
            records += 1;
            batch.put_cf(txn, key, value);
        }
        if records > 0 {
            // One RocksDB write, logged in the WAL, so a commit only has to make the WAL durable.
            self.dirty.store(true, Ordering::Release);
            self.db.rocks.write(&batch).map_err(|e| self.db.rocks_err(e))?;
            current.bytes += bytes;
            current.records += records;
        }
        Ok(())
    }

    fn range(&self, range: Range) -> Result<RangeIter> {
        if self.reads_staged(range.committed_only) {
            let (generation, snapshot) = self.committed.staged_read_point(&self.db, &self.generation);
            return Ok(merge::open(&self.db, &range, generation, snapshot));
        }
        // The committed view, never half of a commit, without waiting for one.
        let (iterator, _) = self.committed.read(|snapshot| iter::committed(&self.db, &range, snapshot.cloned()));
        Ok(iterator)
    }

    /// KIP-844's commit protocol, with the `current` lock held throughout.
    fn commit(&self, offset_writes: OffsetWrites) -> Result<()> {
        let mut current = lock(&self.current);
        self.check_writable()?;
        fault::point("commit:begin")?;
        if current.records == 0 && current.range_deletes.is_empty() {
            // Nothing staged (a restoring or standby task's commit): the offsets alone, in one
            // atomic write.
            let mut batch = WriteBatch::default();
            offsets::append_writes(&mut batch, &self.db, &offset_writes);
            self.db.write_commit(&batch, true)?;
            fault::point("commit:after-write")?;
            self.next_transaction(&mut current);
            return Ok(());
        }
        let record = CommitRecord {
            generation: current.generation,
            offset_writes,
            range_deletes: current.range_deletes.clone(),
        };
        // Records restored without the WAL are flushed first (see `Db::write_commit`): the copy
        // writes this transaction's records through the WAL, and they must not outlive them.
        self.db.flush_restored()?;
        // The copy (`roll_forward.rs`): one atomic write when it fits, else bounded writes behind
        // the commit record, with committed-view readers on a snapshot frozen before the first.
        let copied = roll_forward(&self.db, &record, Phase::Commit, || self.committed.freeze(&self.db));
        if let Err(e) = copied {
            // Whether the copy began is in the store (the commit record): `rollback` or a reopen
            // finishes it or drops the transaction accordingly. Without a record the copy landed
            // whole or not at all, so committed-view readers may read the live data again.
            self.interrupted.store(true, Ordering::Release);
            if matches!(commit_in_progress(&self.db), Ok(None)) {
                self.committed.thaw();
            }
            return Err(e);
        }
        self.committed.thaw();
        self.next_transaction(&mut current);
        Ok(())
    }

    /// Drops the transaction's writes; if a commit failed after its copy began (its commit record
    /// is in the store), rolls that commit forward instead (it was decided; KIP-844's `recover`).
    fn rollback(&self) -> Result<()> {
        let mut current = lock(&self.current);
        if self.interrupted.load(Ordering::Acquire) {
            match commit_in_progress(&self.db)? {
                Some(record) => {
                    roll_forward(&self.db, &record, Phase::Recovery, || {})?;
                }
                // The failed commit either landed in one write or left nothing behind.
                None => truncate_generation(&self.db, current.generation, current.bytes)?,
            }
            self.interrupted.store(false, Ordering::Release);
            self.committed.thaw();
        } else {
            truncate_generation(&self.db, current.generation, current.bytes)?;
        }
        self.next_transaction(&mut current);
        Ok(())
    }

    fn check_writable(&self) -> Result<()> {
        if self.interrupted.load(Ordering::Acquire) {
            return Err(self.db.err(
                "an earlier commit failed half-way and must be completed first: recover the store \
                 (rollback) or reopen it",
            ));
        }
        Ok(())
    }

    fn uncommitted_bytes(&self) -> u64 {
        lock(&self.current).bytes
    }

    fn staged_writes(&self) -> u64 {
        lock(&self.current).records
    }
}

/// The committed view while a commit copies (it is not one atomic write): a seqlock over a
/// snapshot frozen before a copy's first write. The epoch is odd while a commit copies; a reader that
/// finds it odd reads the frozen snapshot, one that finds it changed after reading retries.
#[derive(Default)]
struct CommittedView {
    frozen: Mutex<Option<Arc<Snapshot>>>,
    epoch: AtomicU64,
}

impl CommittedView {
    /// Runs `read` against a consistent committed view and returns its result with the snapshot it
    /// used (if any): the frozen snapshot while a commit copies, else the live data (retried if a
    /// commit started meanwhile). Never blocks on a commit.
    fn read<R>(&self, mut read: impl FnMut(Option<&Arc<Snapshot>>) -> R) -> (R, Option<Arc<Snapshot>>) {
        loop {
            let epoch = self.epoch.load(Ordering::SeqCst);
            if epoch % 2 == 1 {
                // `frozen` is set before the epoch turns odd and cleared after it turns even
                if let Some(frozen) = lock(&self.frozen).clone() {
                    return (read(Some(&frozen)), Some(frozen));
                }
                std::hint::spin_loop();
                continue;
            }
            let result = read(None);
            if self.epoch.load(Ordering::SeqCst) == epoch {
                return (result, None);
            }
        }
    }

    /// A generation and a snapshot that pair up for reading the transaction in progress over
    /// committed data: the snapshot frozen before the first write while a commit copies (the
    /// temporary store still holds the whole generation then, the main store none of it), else a
    /// new snapshot taken with no commit starting between it and the generation read (a commit
    /// that started and copied part of the next generation in between would show half of it).
    /// Never blocks on a commit.
    fn staged_read_point(&self, db: &Arc<Db>, generation: &AtomicU64) -> (u64, Arc<Snapshot>) {
        loop {
            let epoch = self.epoch.load(Ordering::SeqCst);
            let current = generation.load(Ordering::SeqCst);
            let snapshot = if epoch % 2 == 1 {
                // `frozen` is set before the epoch turns odd and cleared after it turns even
                match lock(&self.frozen).clone() {
                    Some(frozen) => frozen,
                    None => {
                        std::hint::spin_loop();
                        continue;
                    }
                }
            } else {
                Snapshot::new(db)
            };
            if self.epoch.load(Ordering::SeqCst) == epoch {
                return (current, snapshot);
            }
        }
    }

    /// A commit starts copying: committed-view readers switch to a snapshot taken now.
    fn freeze(&self, db: &Arc<Db>) {
        *lock(&self.frozen) = Some(Snapshot::new(db));
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// The copy is complete (or abandoned before it began): readers see the live data again.
    fn thaw(&self) {
        if self.epoch.load(Ordering::SeqCst) % 2 == 1 {
            self.epoch.fetch_add(1, Ordering::SeqCst);
        }
        *lock(&self.frozen) = None;
    }
}
