//! A key-value store whose keys expire a time-to-live after their last write, on one
//! [`KeyValueStore`] in the format crate's [`txn_rocksdb_format::ttl`] layout: each key's data row
//! carries its write time, an expiry index orders keys by write time, and the store's time is a
//! row of its own. All three are ordinary rows of the transaction: staged, committed with the
//! changelog offsets and rolled back together, whatever the strategy.
//!
//! - **Time.** A key's write time is the timestamp of its value for the formats that carry one
//!   (what Kafka's changelog layer logs, so that a restore finds the same time), else the time the
//!   caller gives with the write (the record's timestamp, or the wall clock's time under
//!   [`TimeBasis::WallClock`]); a time below 0 counts as the store's time. The store's time is the
//!   largest time it has seen (writes, restores, [`TtlStore::advance_time`]): it never goes back
//!   while the store is open, and it is committed with the offsets, so that a crash or a rollback
//!   returns to the time of the last commit with its data.
//! - **Reads.** A key is live while its write time is above the store's time minus the TTL:
//!   every read (`get`, ranges, reverse, prefix) skips the others, with the transaction's time for
//!   the stream thread's reads and the last commit's time for committed-only reads. An expired
//!   key is invisible before it is removed.
//! - **Removal.** [`TtlStore::expire`] walks the index up to the expired times, at most a given
//!   number of rows (bounded work per call), and stages the delete of every key whose data row
//!   still has that write time; an index row whose key was written again or deleted since is
//!   dropped on the way. It starts where the index has rows left, not at its start: the rows
//!   earlier passes deleted stay in RocksDB as tombstones until a compaction drops them, and a walk
//!   over them would cost more with every pass (a queue's classic cost in an LSM tree). It returns the keys it removed, which the caller sends to the
//!   changelog as tombstones in the transaction that commits the deletes.
//! - **Restore** writes each changelog record's data and index rows (with the record's timestamp
//!   as its time, as above) and moves the store's time, so restored keys that expired while the
//!   task was away are invisible from the first read, and the next expiry pass removes them.
//!
//! A put reads the key's data row first, to drop the index row of its previous write: the index
//! holds about one row per live key. The read is skipped when the same key was the last read or
//! written (Kafka's read-modify-writes: an aggregation's get then put, a putIfAbsent), see
//! `LastKey`. A write or an expiry pass holds the store's write lock, so the read and the write it
//! decides on see no other writer in between.

use crate::db::Write;
use crate::error::{Error, Result};
use crate::iter::{Chunks, Range, RangeIter, Step};
use crate::offsets::OffsetUpdate;
use crate::staging::lock;
use crate::store::{KeyValueStore, StoreOptions};
use crate::value_format::ValueFormat;
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Mutex;
pub use txn_rocksdb_format::open_options::{TimeBasis, TtlOptions};
use txn_rocksdb_format::ttl::{
    data_key, data_value, decode_time, index_end, index_key, split_data_key, split_data_value, split_index_key,
    time_value, DATA_END, DATA_START, INDEX_START, TIME_KEY,
};
use txn_rocksdb_format::wire::TimestampedEntry;
use txn_rocksdb_format::Malformed;

/// No time seen yet: nothing has expired.
const NO_TIME: i64 = -1;

/// What one expiry pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expired {
    /// The keys whose deletes it staged, in the order of their write times.
    pub keys: Vec<Vec<u8>>,
    /// The bytes of those keys' data rows (keys and values, as stored): what their removal frees
    /// once compaction drops them.
    pub bytes: u64,
    /// Whether expired index rows remain beyond the pass's limit (another pass has work).
    pub more: bool,
}

/// A transactional key-value store whose keys expire (see the module's documentation). Cloning is
/// not offered: the store's time lives here, once per open store.
pub struct TtlStore {
    kv: KeyValueStore,
    ttl: TtlOptions,
    format: ValueFormat,
    /// The store's time as the open transaction sees it.
    staged_time: AtomicI64,
    /// The store's time as of the last commit (what committed-only reads filter with).
    committed_time: AtomicI64,
    /// Held by every write, expiry pass, commit, rollback and restore.
    writes: Mutex<()>,
    /// The write time of the key last read or written (see [`LastKey`]).
    last_key: Mutex<LastKey>,
    /// In the transaction's view, no index row sorts below this key: an expiry pass walks the
    /// index from here. Raised by a pass past the rows it deleted; lowered by an index row written
    /// below it (a late record); back to the index's start at open, after a rollback (which brings
    /// back the rows a pass deleted) and after a restore.
    index_from: Mutex<Vec<u8>>,
}

/// The write time of the key last read (in the transaction's view) or written: a put reads its
/// key's previous write time to delete that write's index row, and Kafka's read-modify-writes (an
/// aggregation's get then put, a putIfAbsent) would read the same row twice. Whatever it holds is
/// safe to use: a put deletes the index row of the time it names and writes the new one, so a
/// stale time can only leave an index row behind (which the expiry pass drops), never remove the
/// index row of the key's current write.
#[derive(Default)]
struct LastKey {
    key: Vec<u8>,
    /// `None` when the key had no data row.
    write_time: Option<i64>,
    valid: bool,
}

impl LastKey {
    fn set(&mut self, key: &[u8], write_time: Option<i64>) {
        self.key.clear();
        self.key.extend_from_slice(key);
        self.write_time = write_time;
        self.valid = true;
    }

    /// The write time it holds for `key`, taken out.
    fn take(&mut self, key: &[u8]) -> Option<Option<i64>> {
        let hit = self.valid && self.key == key;
        self.valid = false;
        hit.then_some(self.write_time)
    }
}

impl TtlStore {
    /// Opens (creating if needed) the store in `path`; `options.ttl` must be set. A store written
    /// without a time-to-live is refused (see `store.rs`), as is a TTL below 1 ms.
    pub fn open(path: impl AsRef<Path>, options: StoreOptions) -> Result<TtlStore> {
        let Some(ttl) = options.ttl else {
            return Err(Error::InvalidArgument("a store with a time-to-live needs one in its options".into()));
        };
        if ttl.ttl_ms < 1 {
            return Err(Error::InvalidArgument(format!(
                "a time-to-live must be at least 1 ms, not {} ms (txn.rocksdb.ttl.ms)",
                ttl.ttl_ms
            )));
        }
        let format = options.value_format;
        let kv = KeyValueStore::open(path, options)?;
        let store = TtlStore {
            kv,
            ttl,
            format,
            staged_time: AtomicI64::new(NO_TIME),
            committed_time: AtomicI64::new(NO_TIME),
            writes: Mutex::new(()),
            last_key: Mutex::new(LastKey::default()),
            index_from: Mutex::new(INDEX_START.to_vec()),
        };
        store.reload_time()?;
        Ok(store)
    }

    /// The key-value store underneath, in the TTL layout: offsets, sizes, statistics, snapshots.
    pub fn key_value(&self) -> &KeyValueStore {
        &self.kv
    }

    /// The time-to-live the store opened with.
    pub fn ttl(&self) -> TtlOptions {
        self.ttl
    }

    /// The store's time: the open transaction's, or the last commit's when `committed_only`
    /// (-1 before any).
    pub fn time(&self, committed_only: bool) -> i64 {
        self.time_cell(committed_only).load(Ordering::Acquire)
    }

    /// The value of `key` if it is live (see [`KeyValueStore::get`] for `committed_only`).
    pub fn get(&self, key: &[u8], committed_only: bool) -> Result<Option<Vec<u8>>> {
        self.get_with(key, committed_only, |value| value.map(<[u8]>::to_vec))
    }

    /// Passes the value of `key`, if it is live, to `f` without copying it out of RocksDB.
    pub fn get_with<R>(&self, key: &[u8], committed_only: bool, f: impl FnOnce(Option<&[u8]>) -> R) -> Result<R> {
        let cutoff = self.cutoff(committed_only);
        let (result, write_time) = self.kv.get_with(&data_key(key), committed_only, |row| match row {
            None => Ok((f(None), None)),
            Some(row) => {
                let (value, write_time) = split_data_value(row).map_err(|why| self.malformed(key, why))?;
                Ok((f((write_time > cutoff).then_some(value)), Some(write_time)))
            }
        })??;
        if !committed_only {
            lock(&self.last_key).set(key, write_time);
        }
        Ok(result)
    }

    /// Writes `key` = `value` at `time` (see the module's documentation for the write time), or
    /// deletes `key` when `value` is `None`.
    pub fn put(&self, key: &[u8], value: Option<&[u8]>, time: i64) -> Result<()> {
        let _writes = lock(&self.writes);
        self.put_locked(key, value, time)
    }

    /// Writes several entries (a `None` value deletes) at `time`, in order.
    pub fn put_all<'a>(
        &self,
        entries: impl IntoIterator<Item = (&'a [u8], Option<&'a [u8]>)>,
        time: i64,
    ) -> Result<()> {
        let _writes = lock(&self.writes);
        entries.into_iter().try_for_each(|(key, value)| self.put_locked(key, value, time))
    }

    /// Writes `value` at `time` only if `key` has no live value; returns the live value.
    pub fn put_if_absent(&self, key: &[u8], value: &[u8], time: i64) -> Result<Option<Vec<u8>>> {
        let _writes = lock(&self.writes);
        let existing = self.get(key, false)?;
        if existing.is_none() {
            self.put_locked(key, Some(value), time)?;
        }
        Ok(existing)
    }

    /// Deletes `key`, returning the live value it hid (an expired one is not returned).
    pub fn delete(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let _writes = lock(&self.writes);
        let existing = self.get(key, false)?;
        self.put_locked(key, None, NO_TIME)?;
        Ok(existing)
    }

    fn put_locked(&self, key: &[u8], value: Option<&[u8]>, time: i64) -> Result<()> {
        let data_key = data_key(key);
        let last = lock(&self.last_key).take(key);
        let previous = match last {
            Some(write_time) => Ok(write_time),
            None => self.kv.get_with(&data_key, false, |row| {
                row.map(|row| split_data_value(row).map(|(_, write_time)| write_time)).transpose()
            })?,
        };
        let previous_index = match previous {
            Ok(previous) => previous.map(|write_time| index_key(write_time, key)),
            // a damaged row is overwritten; its index row, if any, is dropped by an expiry pass
            Err(why) => {
                log::warn!("store {}: {}", self.kv.path().display(), self.malformed(key, why));
                None
            }
        };
        let (row, index);
        let mut writes = Vec::with_capacity(3);
        if let Some(previous_index) = &previous_index {
            writes.push(Write::Delete(previous_index));
        }
        let written = match value {
            Some(value) => {
                let write_time = self.write_time(value, time)?;
                row = data_value(value, write_time);
                index = index_key(write_time, key);
                writes.push(Write::Put(&data_key, &row));
                writes.push(Write::Put(&index, &[]));
                let mut from = lock(&self.index_from);
                if index < *from {
                    from.clone_from(&index);
                }
                Some(write_time)
            }
            None => {
                writes.push(Write::Delete(&data_key));
                None
            }
        };
        self.kv.write_all(writes)?;
        if let Some(write_time) = written {
            self.observe(write_time);
        }
        lock(&self.last_key).set(key, written);
        Ok(())
    }

    /// Makes the next expiry pass walk the index from its start (see `index_from`).
    fn walk_index_from_start(&self) {
        let mut from = lock(&self.index_from);
        from.clear();
        from.extend_from_slice(INDEX_START);
    }

    /// Forgets the last key's write time (after writes that did not go through [`Self::put_locked`]).
    fn forget_last_key(&self) {
        lock(&self.last_key).valid = false;
    }

    /// The write time of `value` written at `time`.
    fn write_time(&self, value: &[u8], time: i64) -> Result<i64> {
        let from_value = match self.ttl.basis {
            TimeBasis::Stream => self.format.timestamp(value).map_err(|why| {
                Error::InvalidArgument(format!("a {} value does not decode: {why}", self.format.name()))
            })?,
            TimeBasis::WallClock => None,
        };
        let time = from_value.filter(|t| *t >= 0).unwrap_or(time);
        Ok(if time >= 0 { time } else { self.time(false).max(0) })
    }

    /// Moves the store's time to `time` if that is later (wall-clock time at a commit). The move
    /// is committed with the next commit.
    pub fn advance_time(&self, time: i64) {
        let _writes = lock(&self.writes);
        self.observe(time);
    }

    fn observe(&self, time: i64) {
        self.staged_time.fetch_max(time, Ordering::AcqRel);
    }

    /// A write-through store's reads all see its writes: they filter with the time of the writes.
    fn time_cell(&self, committed_only: bool) -> &AtomicI64 {
        if committed_only && self.kv.options().transactional {
            &self.committed_time
        } else {
            &self.staged_time
        }
    }

    /// The largest write time that has expired: a key is live while its write time is above it.
    fn cutoff(&self, committed_only: bool) -> i64 {
        let time = self.time(committed_only);
        if time == NO_TIME {
            return i64::MIN;
        }
        time.saturating_sub(self.ttl.ttl_ms)
    }

    /// An iterator over the live keys of `range` (see [`KeyValueStore::range`]); what is live is
    /// decided by the store's time when it opens.
    pub fn range(&self, range: Range) -> Result<RangeIter> {
        let cutoff = self.cutoff(range.committed_only);
        let (to, to_inclusive) = match &range.to {
            Some(to) => (data_key(to), range.to_inclusive),
            None => (DATA_END.to_vec(), false),
        };
        let rows = self.kv.range(Range {
            from: Some(range.from.as_deref().map_or_else(|| DATA_START.to_vec(), data_key)),
            to: Some(to),
            to_inclusive,
            reverse: range.reverse,
            committed_only: range.committed_only,
        })?;
        Ok(RangeIter::new(Live { rows, cutoff, path: self.kv.path().display().to_string() }))
    }

    /// Stages the delete of up to `max_rows` expired keys (index rows visited, stale ones
    /// included): see the module's documentation. Nothing expires before the store has a time.
    pub fn expire(&self, max_rows: usize) -> Result<Expired> {
        let _writes = lock(&self.writes);
        self.forget_last_key();
        let cutoff = self.cutoff(false);
        if cutoff == i64::MIN || max_rows == 0 {
            return Ok(Expired::default());
        }
        let end = index_end(cutoff);
        let mut rows = self.kv.range(Range {
            from: Some(lock(&self.index_from).clone()),
            to: Some(end.clone()),
            ..Range::default()
        })?;
        let mut index = Vec::new();
        rows.next_chunk(max_rows + 1, usize::MAX, |row_key, _| index.push(row_key.to_vec()))?;
        let more = index.len() > max_rows;
        index.truncate(max_rows);
        // once the pass's deletes are staged, no index row sorts below this key: just past the last
        // row deleted, or the end of the expired times when none is left
        let emptied_to = match index.last() {
            Some(last) if more => [last.as_slice(), &[0]].concat(),
            _ => end,
        };
        let mut expired = Expired { keys: Vec::new(), bytes: 0, more };
        let mut deletes = Vec::with_capacity(index.len() * 2);
        for row in &index {
            let (write_time, key) = split_index_key(row).map_err(|why| self.malformed(row, why))?;
            let data_key = data_key(key);
            let current = self.kv.get_with(&data_key, false, |row| {
                row.and_then(|row| Some((split_data_value(row).ok()?.1, row.len())))
            })?;
            if let Some((_, row_bytes)) = current.filter(|(time, _)| *time == write_time) {
                expired.bytes += (data_key.len() + row_bytes) as u64;
                expired.keys.push(key.to_vec());
                deletes.push(data_key);
            }
        }
        self.kv.write_all(index.iter().chain(&deletes).map(|key| Write::Delete(key)))?;
        let mut from = lock(&self.index_from);
        if emptied_to > *from {
            *from = emptied_to;
        }
        Ok(expired)
    }

    /// Commits the transaction with the store's time (see [`KeyValueStore::commit`]).
    pub fn commit(&self, updates: &[OffsetUpdate], position: Option<&[u8]>) -> Result<()> {
        let _writes = lock(&self.writes);
        let time = self.staged_time.load(Ordering::Acquire);
        if time != self.committed_time.load(Ordering::Acquire) {
            self.kv.put(TIME_KEY, Some(&time_value(time)))?;
        }
        self.kv.commit(updates, position)?;
        self.committed_time.fetch_max(time, Ordering::AcqRel);
        Ok(())
    }

    /// Drops the transaction (see [`KeyValueStore::rollback`]); the store's time returns to the
    /// last commit's.
    pub fn rollback(&self) -> Result<()> {
        let _writes = lock(&self.writes);
        self.forget_last_key();
        self.walk_index_from_start();
        self.kv.rollback()?;
        match self.kv.options().transactional {
            true => self.reload_time(),
            // write-through: nothing was staged, the time stays
            false => Ok(()),
        }
    }

    fn reload_time(&self) -> Result<()> {
        let stored = self.kv.get_with(TIME_KEY, true, |row| row.map(decode_time).transpose())?;
        let time = stored.map_err(|why| self.malformed(TIME_KEY, why))?.unwrap_or(NO_TIME);
        self.committed_time.store(time, Ordering::Release);
        self.staged_time.store(time, Ordering::Release);
        Ok(())
    }

    /// Applies a batch of changelog records with their timestamps to committed data: each record's
    /// data and index rows, and the store's time moved to the latest write time.
    pub fn restore(&self, records: &[TimestampedEntry<'_>]) -> Result<()> {
        let _writes = lock(&self.writes);
        self.forget_last_key();
        let mut rows: Vec<(Vec<u8>, Option<Vec<u8>>)> = Vec::with_capacity(records.len() * 2 + 1);
        let committed = self.committed_time.load(Ordering::Acquire);
        let mut latest = committed;
        for &(key, value, timestamp) in records {
            match value {
                Some(value) => {
                    let write_time = self.write_time(value, timestamp)?;
                    latest = latest.max(write_time);
                    rows.push((data_key(key), Some(data_value(value, write_time))));
                    rows.push((index_key(write_time, key), Some(Vec::new())));
                }
                None => rows.push((data_key(key), None)),
            }
        }
        if latest != committed {
            rows.push((TIME_KEY.to_vec(), Some(time_value(latest).to_vec())));
        }
        self.kv.restore(rows.iter().map(|(key, value)| (key.as_slice(), value.as_deref())))?;
        self.walk_index_from_start();
        self.committed_time.fetch_max(latest, Ordering::AcqRel);
        self.staged_time.fetch_max(latest, Ordering::AcqRel);
        Ok(())
    }

    /// RocksDB's estimate of the keys (each key has a data and an index row) plus the staged writes.
    pub fn approximate_num_entries(&self) -> Result<u64> {
        Ok(self.kv.approximate_num_entries()? / 2)
    }

    fn malformed(&self, row: &[u8], why: Malformed) -> Error {
        malformed(&self.kv.path().display().to_string(), row, why)
    }
}

fn malformed(path: &str, row: &[u8], why: Malformed) -> Error {
    Error::Storage {
        path: path.to_string(),
        message: format!("a time-to-live row (key {row:02x?}) is malformed: {why}"),
        source: None,
    }
}

/// Refuses a time-to-live on a store kind that has retention of its own (`kind`: window, session
/// or versioned), whose records expire by it.
pub(crate) fn refuse_on(kind: &str, options: &StoreOptions) -> Result<()> {
    match options.ttl {
        None => Ok(()),
        Some(_) => Err(Error::InvalidArgument(format!(
            "a {kind} store has a retention period, which expires its records: a time-to-live applies to \
             key-value stores only"
        ))),
    }
}

/// The live entries of a range of data rows, their keys and values without the layout's bytes.
struct Live {
    rows: RangeIter,
    cutoff: i64,
    path: String,
}

impl Chunks for Live {
    fn next_chunk(
        &mut self,
        max_entries: usize,
        max_bytes: usize,
        emit: &mut dyn FnMut(&[u8], &[u8]) -> Step,
    ) -> Result<usize> {
        let (cutoff, mut damaged) = (self.cutoff, None);
        let count = self.rows.next_chunk_until(max_entries, max_bytes, |row_key, row_value| {
            let Some(key) = split_data_key(row_key) else { return Step::Skip };
            match split_data_value(row_value) {
                Ok((value, write_time)) if write_time > cutoff => emit(key, value),
                Ok(_) => Step::Skip,
                Err(why) => {
                    damaged = Some(malformed(&self.path, row_key, why));
                    Step::Stop
                }
            }
        })?;
        match damaged {
            Some(e) => Err(e),
            None => Ok(count),
        }
    }

    fn seek(&mut self, target: &[u8]) {
        self.rows.seek(&data_key(target))
    }
}
