//! The secondary-store transaction strategy (KIP-844's reference design).
//!
//! A transaction's writes wait in memory, in an ordered map (`batch.rs`, as under indexed-batch),
//! until they exceed the store's spill size (`StoreOptions::spill_bytes`); then the map spills,
//! in key order and in one RocksDB write, to the temporary store, the `txn` column family of the
//! same RocksDB (`keys.rs` has its layout), and the transaction goes on in a fresh map. The
//! temporary store spills to disk like any column family (memtables are flushed under the shared
//! write-buffer budget), so a transaction may be far larger than memory, while memory holds at
//! most one spill's worth of it.
//!
//! Commit ([`TempStore::commit`]): a transaction that never spilled commits in one atomic write of
//! its records with the offsets, as under indexed-batch. One that spilled writes the rest of its
//! map to the temporary store, and `roll_forward.rs` copies the generation into the main store, in
//! one atomic write with the offsets when it fits one (4 MiB), else in bounded writes, the
//! first of which stores the commit record (offsets, position, range deletes) in the `offsets`
//! family and the last of which writes the offsets and deletes the record. All of it goes through
//! RocksDB's WAL in order, so recovery finds the record exactly when a copy was cut short, with
//! the whole generation still in the temporary store, and runs the (idempotent) copy again.
//!
//! Reads look at the map, then (once the transaction spilled) at the temporary store, then at
//! committed data. Each transaction uses a fresh generation, so the range delete that truncates
//! one never overlaps the next one's keys (overlapping range tombstones would pile up in the
//! memtable).
//!
//! Committed-view readers (`READ_COMMITTED`) never wait for a commit and never see half of one
//! ([`CommittedView`]).

mod commit_file;
pub(crate) use commit_file::{read as read_commit_file, FILE_NAME as COMMIT_FILE_NAME};
mod ingest;
mod keys;
mod merge;
mod roll_forward;

use crate::batch::{self, BatchChunks, Writes};
use crate::db::{Db, Snapshot, Write};
use crate::error::Result;
use crate::fault;
use crate::iter::{self, Range, RangeIter, Walk};
use crate::offsets::OffsetWrites;
use crate::options::DATA_CF;
use crate::staging::{lock, Staging};
use roll_forward::{commit_in_progress, roll_forward, truncate_generation, Phase, COPY_BATCH_BYTES};
use rust_rocksdb::WriteBatch;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use txn_rocksdb_format::commit_record::CommitRecord;

/// Recovery at open, whatever the strategy: the files of an interrupted ingestion are deleted
/// (`ingest.rs`), then a commit in progress rolls forward and the rest of the temporary store is
/// thrown away (`roll_forward.rs`).
pub(crate) fn recover_at_open(db: &Arc<Db>) -> Result<()> {
    ingest::remove_leftovers(db)?;
    roll_forward::recover_at_open(db)
}

/// The default of `StoreOptions::spill_bytes`: a transaction keeps this many bytes of writes in
/// memory before they spill to the temporary store.
pub const DEFAULT_SPILL_BYTES: usize = 16 << 20;

/// The transaction in progress (its writes since the last spill are in `TempStore::unspilled`).
struct Transaction {
    /// The temporary store's generation holding this transaction's spilled writes.
    generation: u64,
    /// Key and value bytes, and records, spilled to the temporary store.
    spilled_bytes: u64,
    spilled_records: u64,
    /// Range deletes (expired segments), applied after the records at commit.
    range_deletes: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Transaction {
    fn new(generation: u64) -> Transaction {
        Transaction { generation, spilled_bytes: 0, spilled_records: 0, range_deletes: Vec::new() }
    }
}

/// The staging of the secondary-store strategy.
pub(crate) struct TempStore {
    db: Arc<Db>,
    /// Held by writes and for a whole commit, so no write lands mid-commit.
    current: Mutex<Transaction>,
    /// The transaction's writes since its last spill. Iterators hold the map as it was when they
    /// opened (an `Arc` clone); a write copies the map first if an iterator still holds it
    /// (`Arc::make_mut`), so the copy is paid only by a write made while an iterator is open. A
    /// spill or a commit swaps in a fresh map.
    unspilled: Mutex<Arc<Writes>>,
    /// Counts the swaps of `unspilled`, so a reader can tell that its map and its view of the
    /// stores beneath were taken with no spill or commit between them.
    swaps: AtomicU64,
    /// Bytes of writes the map holds before it spills (`StoreOptions::spill_bytes`).
    spill_bytes: u64,
    /// A transaction that spilled this many bytes commits by ingestion (`ingest.rs`), a smaller
    /// one by a copy (`roll_forward.rs`).
    ingest_bytes: u64,
    /// The current transaction's generation, readable without waiting for a commit in progress.
    generation: AtomicU64,
    /// The current generation has writes in the temporary store (set before the first spill
    /// lands). Until then reads skip the temporary store.
    spilled: AtomicBool,
    /// A commit failed: whether its copy began is in the store (its commit record), so
    /// [`Staging::rollback`] or reopening finishes it or drops it before anything else is written.
    interrupted: AtomicBool,
    committed: CommittedView,
}

impl TempStore {
    /// The staging of a store whose transactions spill after `spill_bytes` (in the crate's tests,
    /// `TXN_ROCKSDB_COPY_BATCH_BYTES` shrinks it with the copy batches, see `fault.rs`).
    pub(crate) fn new(db: Arc<Db>, spill_bytes: usize) -> TempStore {
        TempStore {
            db,
            current: Mutex::new(Transaction::new(1)),
            unspilled: Mutex::default(),
            swaps: AtomicU64::new(0),
            spill_bytes: fault::copy_batch_bytes(spill_bytes) as u64,
            ingest_bytes: fault::ingest_bytes(ingest::INGEST_BYTES),
            generation: AtomicU64::new(1),
            spilled: AtomicBool::new(false),
            interrupted: AtomicBool::new(false),
            committed: CommittedView::default(),
        }
    }

    /// Swaps in a fresh map for the transaction's next writes.
    fn swap_unspilled(&self, unspilled: &mut Arc<Writes>) {
        *unspilled = Arc::default();
        self.swaps.fetch_add(1, Ordering::SeqCst);
    }

    /// Starts a new transaction (caller holds the `current` lock).
    fn next_transaction(&self, current: &mut Transaction) {
        let generation = current.generation + 1;
        *current = Transaction::new(generation);
        self.generation.store(generation, Ordering::Release);
        self.spilled.store(false, Ordering::Release);
        self.swap_unspilled(&mut lock(&self.unspilled));
    }

    /// Writes the map to the temporary store in key order, in writes of about 4 MiB, then swaps in a
    /// fresh map (caller holds the `current` lock and the map's). A failed write leaves the map
    /// and the transaction as they were.
    fn spill(&self, current: &mut Transaction, unspilled: &mut Arc<Writes>) -> Result<()> {
        if unspilled.entries.is_empty() {
            return Ok(());
        }
        let txn = self.db.txn();
        let (mut batch, mut batch_bytes, mut bytes) = (WriteBatch::default(), 0usize, 0u64);
        self.spilled.store(true, Ordering::Release);
        for (key, value) in &unspilled.entries {
            let key = keys::temporary_key(current.generation, key);
            let value = keys::encode_value(value.as_deref());
            batch_bytes += key.len() + value.len();
            batch.put_cf(txn, key, value);
            // In writes of at most a copy batch, so the batch adds little to the map's memory (a
            // spill cut short is harmless: the map stays until the spill is complete, and a crash
            // drops the uncommitted transaction anyway). Logged in the WAL, so a commit only has
            // to make the WAL durable.
            if batch_bytes >= COPY_BATCH_BYTES {
                self.db.rocks.write(&batch).map_err(|e| self.db.rocks_err(e))?;
                (batch, bytes) = (WriteBatch::default(), bytes + batch_bytes as u64);
                batch_bytes = 0;
            }
        }
        self.db.rocks.write(&batch).map_err(|e| self.db.rocks_err(e))?;
        bytes += batch_bytes as u64;
        current.spilled_bytes += bytes;
        current.spilled_records += unspilled.entries.len() as u64;
        self.swap_unspilled(unspilled);
        Ok(())
    }

    /// Stages writes in the map (`stage`, with the map copied first if an iterator holds it), then
    /// spills it if it grew past the spill size.
    fn stage(&self, stage: impl FnOnce(&mut Writes, &mut Transaction)) -> Result<()> {
        let mut current = lock(&self.current);
        self.check_writable()?;
        let mut unspilled = lock(&self.unspilled);
        stage(Arc::make_mut(&mut unspilled), &mut current);
        if unspilled.bytes > self.spill_bytes {
            self.spill(&mut current, &mut unspilled)?;
        }
        Ok(())
    }
}

impl Staging for TempStore {
    fn get_with<R>(&self, key: &[u8], committed_only: bool, f: impl FnOnce(Option<&[u8]>) -> R) -> Result<R> {
        if committed_only {
            let (value, _) = self.committed.read(|snapshot| self.db.get_committed(key, snapshot.map(|s| &**s)));
            return Ok(f(value?.as_deref()));
        }
        {
            let unspilled = lock(&self.unspilled);
            if let Some(staged) = unspilled.entries.get(key) {
                return Ok(f(staged.as_deref()));
            }
        }
        // Earlier spills are in the temporary store (a spill lands before its map is swapped out).
        // A commit finishing meanwhile only moves the value to the main store, so reading the
        // main store after a miss is still right.
        if self.spilled.load(Ordering::Acquire) {
            let generation = self.generation.load(Ordering::Acquire);
            let temporary = self
                .db
                .rocks
                .get_pinned_cf(self.db.txn(), keys::temporary_key(generation, key))
                .map_err(|e| self.db.rocks_err(e))?;
            if let Some(raw) = temporary {
                return Ok(f(keys::decode_value(&raw)));
            }
        }
        Ok(f(self.db.get_committed(key, None)?.as_deref()))
    }

    fn write_all<'a>(&self, writes: impl IntoIterator<Item = Write<'a>>) -> Result<()> {
        self.stage(|staged, current| {
            for write in writes {
                match write {
                    Write::Put(key, value) => staged.stage(key, Some(value)),
                    Write::Delete(key) => staged.stage(key, None),
                    // applied after the records at commit: callers never put into a range they
                    // deleted (expired segments)
                    Write::DeleteRange(from, to) => current.range_deletes.push((from.to_vec(), to.to_vec())),
                }
            }
        })
    }

    fn put_owned(&self, key: Vec<u8>, value: Option<Vec<u8>>) -> Result<()> {
        self.stage(|staged, _| staged.stage_owned(key, value))
    }

    fn range(&self, range: Range) -> Result<RangeIter> {
        if range.committed_only {
            // The committed view, never half of a commit, without waiting for one.
            let (iterator, _) = self.committed.read(|snapshot| iter::committed(&self.db, &range, snapshot.cloned()));
            return Ok(iterator);
        }
        loop {
            // The map first, then what lies beneath it, with no spill or commit in between (the
            // map would then pair with stores that hold newer writes of the same keys).
            // The map as it is now: the iterator is a snapshot, as Kafka's RocksDB iterators are
            // (and as its transactional stores copy their staged entries per iterator).
            let swaps = self.swaps.load(Ordering::SeqCst);
            let walk = Walk::new(&range);
            let batch = lock(&self.unspilled).clone();
            let db = self.db.clone();
            let iterator = if self.spilled.load(Ordering::SeqCst) {
                let (generation, snapshot) = self.committed.staged_read_point(&self.db, &self.generation);
                let cursor = merge::cursor(&self.db, &walk, generation, &snapshot);
                RangeIter::new(BatchChunks::new(cursor, walk, batch, Some(snapshot), db))
            } else {
                let base = Db::raw_iterator(&self.db, DATA_CF, walk.read_options());
                RangeIter::new(BatchChunks::new(base, walk, batch, None, db))
            };
            if self.swaps.load(Ordering::SeqCst) == swaps {
                return Ok(iterator);
            }
        }
    }

    /// KIP-844's commit protocol, with the `current` lock held throughout.
    fn commit(&self, offset_writes: OffsetWrites) -> Result<()> {
        let mut current = lock(&self.current);
        self.check_writable()?;
        fault::point("commit:begin")?;
        let mut writes = lock(&self.unspilled);
        if !self.spilled.load(Ordering::Acquire) {
            // Never spilled: the records, the range deletes and the offsets in one atomic write,
            // as under indexed-batch.
            batch::commit_in_one_write(&self.db, &writes, &current.range_deletes, &offset_writes)?;
            drop(writes);
            fault::point("commit:after-write")?;
            self.next_transaction(&mut current);
            return Ok(());
        }
        // The rest of the map joins the spilled writes, then the copy. A failed spill fails the
        // commit as a copy failing before its first write does: the store refuses writes until
        // `rollback` (or a reopen) drops the transaction.
        if let Err(e) = self.spill(&mut current, &mut writes) {
            self.interrupted.store(true, Ordering::Release);
            return Err(e);
        }
        drop(writes);
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
        let freeze = || self.committed.freeze(&self.db);
        let copied = if current.spilled_bytes >= self.ingest_bytes {
            ingest::ingest(&self.db, &record, freeze)
        } else {
            roll_forward(&self.db, &record, Phase::Commit, freeze)
        };
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
                None => truncate_generation(&self.db, current.generation, current.spilled_bytes)?,
            }
            self.interrupted.store(false, Ordering::Release);
            self.committed.thaw();
        } else if self.spilled.load(Ordering::Acquire) {
            truncate_generation(&self.db, current.generation, current.spilled_bytes)?;
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
        let current = lock(&self.current);
        current.spilled_bytes + lock(&self.unspilled).bytes
    }

    fn staged_writes(&self) -> u64 {
        let current = lock(&self.current);
        current.spilled_records + lock(&self.unspilled).entries.len() as u64
    }

    fn has_writes(&self) -> bool {
        let current = lock(&self.current);
        self.spilled.load(Ordering::Acquire)
            || !current.range_deletes.is_empty()
            || !lock(&self.unspilled).entries.is_empty()
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
