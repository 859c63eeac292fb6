//! Versioned key-value store: Kafka's `RocksDBVersionedStore` (KIP-889) on one transactional
//! [`KeyValueStore`].
//!
//! As in Kafka, the newest version of each key lives in a *latest value* row (reserved segment
//! -1, never expires) and older versions in *segment rows*, one per key and segment, chosen by the
//! version's validTo (`validTo / segmentInterval`); both are the format crate's
//! [`txn_rocksdb_format::versioned`] layouts, under the segment prefix of
//! [`txn_rocksdb_format::segment`]. Unlike Kafka, whose segments are logical column ranges of one
//! RocksDB written one after another, a put that touches several rows (a version moving from the
//! latest value into a segment, or between segments) is staged in the store's transaction, so a
//! commit makes all of them durable together, with the changelog offset: there is no half-moved
//! version to reconcile after a crash.
//!
//! Semantics follow Kafka exactly (the differential test compares them): the grace period equals
//! the history retention; a put older than `observedStreamTime - grace` is not put; a read as of a
//! time older than `observedStreamTime - historyRetention` sees only the latest value; segments
//! whose versions all ended before that are dropped (one range delete, staged with the
//! transaction). Observed stream time starts at -1 at every open (Kafka does not persist it
//! either). Every operation holds the store's lock: the stream thread's read-modify-writes and
//! interactive queries never see one half-done.

use crate::db::Write;
use crate::error::{Error, Result};
use crate::iter::Range;
use crate::segmented::NO_TIMESTAMP;
use crate::store::{KeyValueStore, StoreOptions};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use txn_rocksdb_format::segment::{prefix as segment_prefix, prefixed, split};
use txn_rocksdb_format::versioned::{latest_value, row_min, row_next, split_latest_value, SegmentRow};
use txn_rocksdb_format::Malformed;

/// The reserved segment of latest values.
const LATEST: i64 = -1;

/// The history geometry of a versioned store. Kafka's default interval for a history retention is
/// computed once, in Java (`TxnStores.persistentVersionedKeyValueStore`), and arrives with the open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionedOptions {
    /// How long a version stays readable after it was superseded (also the grace period).
    pub history_retention_ms: i64,
    pub segment_interval_ms: i64,
}

/// One version of a key: valid from `timestamp` until `valid_to` (exclusive; `None` for the latest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionedRecord {
    pub value: Vec<u8>,
    pub timestamp: i64,
    pub valid_to: Option<i64>,
}

/// What a put did (Kafka's put return codes: [`VersionedPut::kafka_code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionedPut {
    /// Older than the grace period (or, in a restore, than the history retention): dropped.
    NotPut,
    /// Put; `valid_to` is the timestamp of the next version, `None` when it is the latest.
    Put { valid_to: Option<i64> },
}

impl VersionedPut {
    /// `VersionedKeyValueStore.PUT_RETURN_CODE_NOT_PUT` (`Long.MIN_VALUE`), the validTo, or
    /// `PUT_RETURN_CODE_VALID_TO_UNDEFINED` (-1; a validTo is never negative, as no version has a
    /// timestamp below 0 in a segment).
    pub fn kafka_code(self) -> i64 {
        match self {
            VersionedPut::NotPut => i64::MIN,
            VersionedPut::Put { valid_to } => valid_to.unwrap_or(-1),
        }
    }
}

/// What a delete did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionedDelete {
    /// Older than the grace period: nothing was written (Kafka counts it in `dropped-records`).
    NotPut,
    /// The tombstone was put; the version it ended, if one was valid at its time.
    Deleted(Option<VersionedRecord>),
}

impl VersionedDelete {
    /// The version the delete ended (Kafka's `delete` result): `None` also when not put.
    pub fn ended(self) -> Option<VersionedRecord> {
        match self {
            VersionedDelete::NotPut => None,
            VersionedDelete::Deleted(ended) => ended,
        }
    }
}

/// One changelog record of a versioned store to restore: key, value (`None`: a tombstone),
/// timestamp.
pub type VersionedChangelogRecord<'a> = (&'a [u8], Option<&'a [u8]>, i64);

struct State {
    observed_stream_time: i64,
    /// Ids of the segments that may hold rows (a superset: a get on one without the key is cheap).
    segments: BTreeSet<i64>,
    /// Segments below this id have had their range delete issued.
    dropped_below: i64,
}

/// A transactional versioned key-value store.
pub struct VersionedStore {
    store: KeyValueStore,
    options: VersionedOptions,
    state: Mutex<State>,
}

/// Where a put reads and writes rows: the transaction (puts, deletes) or a restore buffer.
trait Rows {
    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>>;
    fn put(&mut self, key: Vec<u8>, value: Option<Vec<u8>>) -> Result<()>;
    /// Drops the keys in `[from, to)` (expired segments, which reads already skip).
    fn drop_range(&mut self, from: &[u8], to: &[u8]) -> Result<()>;
}

/// The store's current transaction.
struct Staged<'a>(&'a KeyValueStore);

impl Rows for Staged<'_> {
    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.0.get(key, false)
    }

    fn put(&mut self, key: Vec<u8>, value: Option<Vec<u8>>) -> Result<()> {
        self.0.put_owned(key, value)
    }

    fn drop_range(&mut self, from: &[u8], to: &[u8]) -> Result<()> {
        self.0.write_all([Write::DeleteRange(from, to)])
    }
}

/// A restore batch's writes, read back by the batch's later records before they reach committed
/// data in one write (Kafka's `RocksDBVersionedStoreRestoreWriteBuffer`).
struct RestoreWriteBuffer<'a> {
    store: &'a KeyValueStore,
    rows: BTreeMap<Vec<u8>, Option<Vec<u8>>>,
    dropped: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Rows for RestoreWriteBuffer<'_> {
    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        if let Some(row) = self.rows.get(key) {
            return Ok(row.clone());
        }
        if self.dropped.iter().any(|(from, to)| key >= from.as_slice() && key < to.as_slice()) {
            return Ok(None);
        }
        self.store.get(key, true)
    }

    fn put(&mut self, key: Vec<u8>, value: Option<Vec<u8>>) -> Result<()> {
        self.rows.insert(key, value);
        Ok(())
    }

    fn drop_range(&mut self, from: &[u8], to: &[u8]) -> Result<()> {
        self.rows.retain(|key, _| key.as_slice() < from || key.as_slice() >= to);
        self.dropped.push((from.to_vec(), to.to_vec()));
        Ok(())
    }
}

fn malformed(e: Malformed) -> Error {
    Error::storage(std::path::Path::new(""), "versioned store row", e)
}

fn decode_row(bytes: &[u8]) -> Result<SegmentRow> {
    SegmentRow::decode(bytes).map_err(malformed)
}

/// A latest value row as a record.
fn latest_record(bytes: &[u8]) -> Result<VersionedRecord> {
    let (timestamp, value) = split_latest_value(bytes).map_err(malformed)?;
    Ok(VersionedRecord { value: value.to_vec(), timestamp, valid_to: None })
}

impl VersionedStore {
    /// Opens (creating if needed) the store in directory `path` (recovery, as [`KeyValueStore::open`]).
    pub fn open(path: impl AsRef<Path>, options: StoreOptions, geometry: VersionedOptions) -> Result<VersionedStore> {
        crate::ttl::refuse_on("versioned", &options)?;
        if geometry.history_retention_ms < 0 || geometry.segment_interval_ms <= 0 {
            return Err(Error::InvalidArgument(format!(
                "history retention must be >= 0 and segment interval > 0, got {geometry:?}"
            )));
        }
        let store = KeyValueStore::open(path, options)?;
        let segments = existing_segments(&store)?;
        Ok(VersionedStore {
            store,
            options: geometry,
            state: Mutex::new(State { observed_stream_time: NO_TIMESTAMP, segments, dropped_below: i64::MIN }),
        })
    }

    /// The key-value store underneath (offsets, sizes). Commit and roll back through
    /// [`Self::commit`] and [`Self::rollback`], which hold the store's lock.
    pub fn key_value(&self) -> &KeyValueStore {
        &self.store
    }

    pub fn options(&self) -> VersionedOptions {
        self.options
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Kafka's segment id: `ts / interval`, truncating toward zero as Java's `/` does.
    fn segment_id(&self, timestamp: i64) -> i64 {
        timestamp / self.options.segment_interval_ms
    }

    fn history_start(&self, stream_time: i64) -> i64 {
        stream_time.saturating_sub(self.options.history_retention_ms)
    }

    fn min_live_segment(&self, stream_time: i64) -> i64 {
        self.segment_id(self.history_start(stream_time))
    }

    /// The observed stream time (-1 before the first put since the store opened).
    pub fn observed_stream_time(&self) -> i64 {
        self.lock().observed_stream_time
    }

    /// Puts `value` (`None`: a tombstone) for `key` as of `timestamp`.
    pub fn put(&self, key: &[u8], value: Option<&[u8]>, timestamp: i64) -> Result<VersionedPut> {
        let mut state = self.lock();
        if timestamp < self.history_start(state.observed_stream_time) {
            return Ok(VersionedPut::NotPut);
        }
        state.observed_stream_time = state.observed_stream_time.max(timestamp);
        let stream_time = state.observed_stream_time;
        self.put_version(&mut state, &mut Staged(&self.store), stream_time, key, value, timestamp)
    }

    /// Deletes `key` as of `timestamp` (a tombstone version): the version it ended, if any, or
    /// [`VersionedDelete::NotPut`] without writing when `timestamp` is older than the grace period.
    pub fn delete(&self, key: &[u8], timestamp: i64) -> Result<VersionedDelete> {
        let mut state = self.lock();
        if timestamp < self.history_start(state.observed_stream_time) {
            return Ok(VersionedDelete::NotPut);
        }
        let existing = self.as_of(&state, key, timestamp, false)?;
        state.observed_stream_time = state.observed_stream_time.max(timestamp);
        let stream_time = state.observed_stream_time;
        self.put_version(&mut state, &mut Staged(&self.store), stream_time, key, None, timestamp)?;
        Ok(VersionedDelete::Deleted(existing))
    }

    /// The latest version of `key`.
    pub fn get(&self, key: &[u8], committed_only: bool) -> Result<Option<VersionedRecord>> {
        let _state = self.lock();
        self.latest(key, committed_only)
    }

    /// The version of `key` valid at `as_of` (the latest one with timestamp <= `as_of`).
    pub fn get_as_of(&self, key: &[u8], as_of: i64, committed_only: bool) -> Result<Option<VersionedRecord>> {
        let state = self.lock();
        self.as_of(&state, key, as_of, committed_only)
    }

    /// The versions of `key` valid at some time in `[from, to]` (`validFrom <= to` and
    /// `validTo > from`), oldest first when `ascending` (Kafka's `MultiVersionedKeyQuery`).
    pub fn versions(
        &self,
        key: &[u8],
        from: i64,
        to: i64,
        ascending: bool,
        committed_only: bool,
    ) -> Result<Vec<VersionedRecord>> {
        let state = self.lock();
        let latest = self.latest(key, committed_only)?.filter(|latest| latest.timestamp <= to);
        if to < self.history_start(state.observed_stream_time) {
            return Ok(latest.into_iter().collect());
        }
        let mut out = Vec::new();
        if !ascending {
            out.extend(latest.clone());
        }
        // Every segment from that of `from` on: a version valid at `to` may end (and so be kept)
        // in a later segment than `to`'s. (Kafka 4.4 reads only the segments up to `to`'s and
        // misses those versions.)
        let mut segments: Vec<i64> = state.segments.range(self.segment_id(from)..).copied().collect();
        if !ascending {
            segments.reverse();
        }
        for segment in segments {
            let Some(raw) = self.store.get(&prefixed(segment, key), committed_only)? else { continue };
            let row = decode_row(&raw)?;
            let mut found: Vec<VersionedRecord> = row
                .overlapping(from, to)
                .into_iter()
                .map(|f| VersionedRecord {
                    value: f.value.unwrap_or_default().to_vec(),
                    timestamp: f.valid_from,
                    valid_to: Some(f.valid_to),
                })
                .collect();
            if ascending {
                found.reverse();
            }
            out.extend(found);
        }
        if ascending {
            out.extend(latest);
        }
        Ok(out)
    }

    /// Applies a batch of changelog records straight to committed data: every record goes
    /// through the put procedure as it did when it was written (records older than the grace
    /// period are skipped again), and the batch lands in one write.
    ///
    /// Kafka's restore runs each record against the batch's final stream time instead, to skip
    /// versions that will have expired by its end; that also drops a tombstone whose segment will
    /// have expired while an older out-of-order version later in the batch still needs it to end,
    /// and the restored store then shows that version as valid until the next one (found by
    /// `rust/core/tests/versioned.rs`). Replaying at the running stream time restores exactly the
    /// history the puts built.
    pub fn restore(&self, records: &[VersionedChangelogRecord<'_>]) -> Result<()> {
        let mut state = self.lock();
        let mut buffer = RestoreWriteBuffer { store: &self.store, rows: BTreeMap::new(), dropped: Vec::new() };
        for &(key, value, timestamp) in records {
            if timestamp < self.history_start(state.observed_stream_time) {
                continue;
            }
            state.observed_stream_time = state.observed_stream_time.max(timestamp);
            let stream_time = state.observed_stream_time;
            self.put_version(&mut state, &mut buffer, stream_time, key, value, timestamp)?;
        }
        let dropped = buffer.dropped.iter().map(|(from, to)| Write::DeleteRange(from, to));
        let rows = buffer.rows.iter().map(|(key, row)| match row {
            Some(row) => Write::Put(key, row),
            None => Write::Delete(key),
        });
        self.store.restore_writes(dropped.chain(rows))
    }

    /// Commits the transaction (see [`KeyValueStore::commit`]).
    pub fn commit(&self, updates: &[crate::offsets::OffsetUpdate], position: Option<&[u8]>) -> Result<()> {
        let _state = self.lock();
        self.store.commit(updates, position)
    }

    /// Drops the transaction (see [`KeyValueStore::rollback`]); the segments it created or
    /// dropped are read back from committed data.
    pub fn rollback(&self) -> Result<()> {
        let mut state = self.lock();
        self.store.rollback()?;
        state.segments = existing_segments(&self.store)?;
        state.dropped_below = i64::MIN;
        Ok(())
    }

    fn latest(&self, key: &[u8], committed_only: bool) -> Result<Option<VersionedRecord>> {
        self.store.get(&prefixed(LATEST, key), committed_only)?.map(|raw| latest_record(&raw)).transpose()
    }

    fn as_of(&self, state: &State, key: &[u8], as_of: i64, committed_only: bool) -> Result<Option<VersionedRecord>> {
        let latest = self.latest(key, committed_only)?;
        if let Some(latest) = latest.filter(|latest| latest.timestamp <= as_of) {
            return Ok(Some(latest));
        }
        if as_of < self.history_start(state.observed_stream_time) {
            // past the history retention only the latest version (which never expires) is kept
            return Ok(None);
        }
        for &segment in state.segments.range(self.segment_id(as_of)..).rev() {
            let Some(raw) = self.store.get(&prefixed(segment, key), committed_only)? else { continue };
            if row_next(&raw).map_err(malformed)? <= as_of {
                // this row ends before `as_of`, and older segments end earlier still
                return Ok(None);
            }
            if row_min(&raw).map_err(malformed)? > as_of {
                continue;
            }
            let row = decode_row(&raw)?;
            return Ok(row.find(as_of).and_then(|found| {
                found.value.map(|value| VersionedRecord {
                    value: value.to_vec(),
                    timestamp: found.valid_from,
                    valid_to: Some(found.valid_to),
                })
            }));
        }
        Ok(None)
    }

    /// Drops the segments that expired by `stream_time` (Kafka's `cleanupExpiredSegments`).
    fn expire(&self, state: &mut State, rows: &mut impl Rows, stream_time: i64) -> Result<()> {
        let min_live = self.min_live_segment(stream_time);
        if min_live > state.dropped_below.max(0) {
            rows.drop_range(&segment_prefix(0), &segment_prefix(min_live))?;
        }
        state.dropped_below = state.dropped_below.max(min_live);
        state.segments = state.segments.split_off(&min_live);
        Ok(())
    }

    /// Whether `segment` still holds versions that matter at `stream_time` (Kafka's
    /// `getOrCreateSegmentIfLive`); a write there records it as existing.
    fn live(&self, state: &mut State, segment: i64, stream_time: i64) -> Result<bool> {
        if segment < 0 {
            return Err(Error::InvalidArgument(format!(
                "a versioned store keeps no version with a timestamp below 0 (segment {segment})"
            )));
        }
        if segment < self.min_live_segment(stream_time) {
            return Ok(false);
        }
        state.segments.insert(segment);
        Ok(true)
    }

    /// Kafka's `doPut`, shared by put, delete and restore: `stream_time` decides what has expired.
    fn put_version(
        &self,
        state: &mut State,
        rows: &mut impl Rows,
        stream_time: i64,
        key: &[u8],
        value: Option<&[u8]>,
        timestamp: i64,
    ) -> Result<VersionedPut> {
        self.expire(state, rows, stream_time)?;
        let latest_key = prefixed(LATEST, key);
        // the smallest timestamp seen so far above `timestamp`: the validTo of the new version
        let mut found: Option<i64> = None;

        // 1. the latest value
        if let Some(raw) = rows.get(&latest_key)? {
            let (latest_ts, latest_value_bytes) = split_latest_value(&raw).map_err(malformed)?;
            if timestamp >= latest_ts {
                if timestamp > latest_ts {
                    // the old latest version ends at `timestamp`: it moves into that segment
                    let segment = self.segment_id(timestamp);
                    if self.live(state, segment, stream_time)? {
                        let segment_key = prefixed(segment, key);
                        let row = match rows.get(&segment_key)? {
                            None => SegmentRow::single(Some(latest_value_bytes), latest_ts, timestamp),
                            Some(raw) => {
                                let mut row = decode_row(&raw)?;
                                row.insert_as_latest(latest_ts, timestamp, Some(latest_value_bytes));
                                row
                            }
                        };
                        rows.put(segment_key, Some(row.encode()))?;
                    }
                } else if value.is_none() {
                    // a tombstone replacing the latest version at the same time: it must stay on
                    // record for out-of-order puts before it (Kafka 4.4 drops it when no older
                    // version ends there, and such a put then becomes the latest version)
                    self.put_tombstone_row(state, rows, stream_time, key, timestamp)?;
                }
                rows.put(latest_key, value.map(|value| latest_value(value, timestamp)))?;
                return Ok(VersionedPut::Put { valid_to: None });
            }
            found = Some(latest_ts);
        }

        // 2. the segments, newest first, down to the one of `timestamp`
        let from = self.segment_id(timestamp).max(self.min_live_segment(stream_time));
        let candidates: Vec<i64> = state.segments.range(from..).rev().copied().collect();
        for segment in candidates {
            let segment_key = prefixed(segment, key);
            let Some(raw) = rows.get(&segment_key)? else { continue };
            if row_next(&raw).map_err(malformed)? <= timestamp {
                // this row and every older one end before `timestamp`
                break;
            }
            let min = row_min(&raw).map_err(malformed)?;
            if min <= timestamp {
                let valid_to = self.put_into_row(state, rows, stream_time, segment, &raw, key, value, timestamp)?;
                return Ok(VersionedPut::Put { valid_to: Some(valid_to) });
            }
            if min < self.history_start(stream_time) {
                // a restore's version older than the history that will be kept
                return Ok(VersionedPut::NotPut);
            }
            found = Some(min);
        }

        // 3. the new version is the oldest of its row, or the newest, or a tombstone
        match found {
            None => {
                if let Some(value) = value {
                    rows.put(latest_key, Some(latest_value(value, timestamp)))?;
                    return Ok(VersionedPut::Put { valid_to: None });
                }
                // a tombstone never goes to the latest values
                self.put_tombstone_row(state, rows, stream_time, key, timestamp)
            }
            Some(valid_to) => {
                let segment = self.segment_id(valid_to);
                if !self.live(state, segment, stream_time)? {
                    return Ok(VersionedPut::NotPut);
                }
                let segment_key = prefixed(segment, key);
                let row = match rows.get(&segment_key)? {
                    None => SegmentRow::single(value, timestamp, valid_to),
                    Some(raw) => {
                        let mut row = decode_row(&raw)?;
                        if row.next() <= timestamp {
                            // after a gap (older degenerate rows leave them)
                            row.insert_as_latest(timestamp, valid_to, value);
                        } else {
                            row.insert_as_earliest(timestamp, value);
                        }
                        row
                    }
                };
                rows.put(segment_key, Some(row.encode()))?;
                Ok(VersionedPut::Put { valid_to: Some(valid_to) })
            }
        }
    }

    /// Records a tombstone that ends the key's history at `timestamp` in the segment of its own
    /// timestamp: a degenerate row, or after the versions of an existing row.
    fn put_tombstone_row(
        &self,
        state: &mut State,
        rows: &mut impl Rows,
        stream_time: i64,
        key: &[u8],
        timestamp: i64,
    ) -> Result<VersionedPut> {
        let segment = self.segment_id(timestamp);
        if !self.live(state, segment, stream_time)? {
            return Ok(VersionedPut::NotPut);
        }
        let segment_key = prefixed(segment, key);
        let row = match rows.get(&segment_key)? {
            None => SegmentRow::single(None, timestamp, timestamp),
            Some(raw) => {
                let next = row_next(&raw).map_err(malformed)?;
                if next == timestamp {
                    // the row already ends at `timestamp`
                    return Ok(VersionedPut::Put { valid_to: None });
                }
                let mut row = decode_row(&raw)?;
                row.insert_as_latest(next, timestamp, None);
                row
            }
        };
        rows.put(segment_key, Some(row.encode()))?;
        Ok(VersionedPut::Put { valid_to: None })
    }

    /// Puts a version into the row of `segment`, whose versions span `timestamp`; returns its
    /// validTo. The version it splits may move to an older segment (its validTo becomes `timestamp`).
    #[allow(clippy::too_many_arguments)]
    fn put_into_row(
        &self,
        state: &mut State,
        rows: &mut impl Rows,
        stream_time: i64,
        segment: i64,
        raw: &[u8],
        key: &[u8],
        value: Option<&[u8]>,
        timestamp: i64,
    ) -> Result<i64> {
        let mut row = decode_row(raw)?;
        let found = row
            .find(timestamp)
            .ok_or_else(|| malformed(Malformed(format!("no version at {timestamp} in a row that spans it"))))?;
        let (index, valid_from, valid_to) = (found.index, found.valid_from, found.valid_to);
        let found_value = found.value.map(<[u8]>::to_vec);
        let segment_of_timestamp = self.segment_id(timestamp);
        if valid_from == timestamp {
            // replaces a version: nothing else changes
            row.update(index, timestamp, value);
        } else if segment_of_timestamp != segment {
            // the version found now ends at `timestamp`, in an older segment: move it there
            if self.live(state, segment_of_timestamp, stream_time)? {
                let older_key = prefixed(segment_of_timestamp, key);
                let older = match rows.get(&older_key)? {
                    None => SegmentRow::single(found_value.as_deref(), valid_from, timestamp),
                    Some(raw) => {
                        let mut older = decode_row(&raw)?;
                        older.insert_as_latest(valid_from, timestamp, found_value.as_deref());
                        older
                    }
                };
                rows.put(older_key, Some(older.encode()))?;
            }
            row.update(index, timestamp, value);
        } else {
            row.insert(index, timestamp, value);
        }
        rows.put(prefixed(segment, key), Some(row.encode()))?;
        Ok(valid_to)
    }
}

/// The ids of the segments holding rows in committed data: one seek per segment.
fn existing_segments(store: &KeyValueStore) -> Result<BTreeSet<i64>> {
    let mut segments = BTreeSet::new();
    let mut rows = store.range(Range {
        from: Some(segment_prefix(0).to_vec()),
        to: None,
        to_inclusive: false,
        reverse: false,
        committed_only: true,
    })?;
    loop {
        let mut segment = None;
        rows.next_chunk(1, usize::MAX, |key, _| segment = split(key).map(|(id, _)| id))?;
        let Some(id) = segment else { return Ok(segments) };
        segments.insert(id);
        let Some(next) = id.checked_add(1) else { return Ok(segments) };
        rows.seek(&segment_prefix(next));
    }
}
