//! Time segments inside ONE RocksDB instance, shared by the window and session stores.
//!
//! Kafka's segmented stores keep one RocksDB per time segment, so a commit is not atomic across
//! segments. Here every entry of segment `s` is stored under `enc(s) ++ store key` in the single
//! `data` family, so one commit covers all segments, iteration is segment-major exactly as in
//! Kafka (which its caching layer relies on), and an expired segment is dropped with one range
//! delete that lands atomically with the commit.
//!
//! Stream time is tracked as Kafka does (max segment timestamp seen by put, remove and restore,
//! starting at -1 on every open, not persisted), and so is expiry: a put into a segment older than
//! `segId(streamTime - retention)` is dropped; reads only see entries whose timestamp is at least
//! `streamTime - retention + 1` (the caller applies that per-record filter).

use crate::db::Write;
use crate::error::{Error, Result};
use crate::iter::{Range, RangeIter, Step};
use crate::store::{KeyValueStore, StoreOptions};
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
// Key layout (segment prefix ++ store key): the format crate's `segment`.
use txn_rocksdb_format::segment::{self, prefix as segment_prefix, prefixed};

/// Kafka's `NO_TIMESTAMP`: stream time before any record was seen.
pub const NO_TIMESTAMP: i64 = -1;

/// The segment geometry of a window or session store. Kafka's default interval for a retention is
/// computed once, in Java (the suppliers' `segmentIntervalMs()`), and arrives here with the open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentOptions {
    pub retention_ms: i64,
    pub segment_interval_ms: i64,
}

/// Which timestamps at the retention edge reads still return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RetentionEdge {
    /// `ts > streamTime - retention` (Kafka's key-first window and session stores).
    #[default]
    Excluded,
    /// `ts >= streamTime - retention` (Kafka's time-ordered window stores, emit-final).
    Included,
}

/// A transactional store whose entries are grouped into time segments.
pub struct SegmentedStore {
    store: KeyValueStore,
    geometry: SegmentOptions,
    edge: RetentionEdge,
    stream_time: AtomicI64,
    /// Segments below this id have had their range delete issued (staged or applied).
    dropped_below: AtomicI64,
    /// No segment above this id holds anything: the highest segment found at open, raised by
    /// every put and restore (never lowered: a rolled-back or expired segment only makes a scan
    /// look one segment further). Kafka keeps the set of segments that exist; scans here end at
    /// this one instead of seeking into segments that cannot hold data.
    highest_segment: Arc<AtomicI64>,
}

/// One changelog record of a window or session store to restore, with its segment: (segment
/// timestamp, store key, value or `None` to delete).
pub type SegmentedChangelogRecord<'a> = (i64, &'a [u8], Option<&'a [u8]>);

/// The highest segment id among the store's committed keys (`i64::MIN` when it has none).
fn highest_committed_segment(store: &KeyValueStore) -> Result<i64> {
    let mut highest = i64::MIN;
    let last = Range { reverse: true, committed_only: true, ..Range::all() };
    store.range(last)?.next_chunk(1, usize::MAX, |key, _| {
        if let Some((segment, _)) = segment::split(key) {
            highest = segment;
        }
    })?;
    Ok(highest)
}

/// Pairs each changelog record with the segment timestamp `timestamp_of` reads from its key.
pub(crate) fn with_segment_timestamps<'a>(
    records: &[(&'a [u8], Option<&'a [u8]>)],
    timestamp_of: impl Fn(&[u8]) -> Option<i64>,
) -> Result<Vec<SegmentedChangelogRecord<'a>>> {
    records
        .iter()
        .map(|&(key, value)| {
            let timestamp = timestamp_of(key).ok_or_else(|| {
                Error::InvalidArgument(format!("changelog key of {} bytes is too short for this store", key.len()))
            })?;
            Ok((timestamp, key, value))
        })
        .collect()
}

/// What a put did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PutOutcome {
    Written,
    /// The record's segment had already expired; nothing was written (Kafka counts these in
    /// the `dropped-records` metric).
    DroppedExpired,
}

impl SegmentedStore {
    /// Opens the store with Kafka's key-first visibility ([`RetentionEdge::Excluded`]).
    pub fn open(path: impl AsRef<Path>, options: StoreOptions, geometry: SegmentOptions) -> Result<SegmentedStore> {
        Self::open_with_edge(path, options, geometry, RetentionEdge::Excluded)
    }

    /// Opens the store; `edge` says whether reads return timestamps exactly at the retention edge.
    pub fn open_with_edge(
        path: impl AsRef<Path>,
        options: StoreOptions,
        geometry: SegmentOptions,
        edge: RetentionEdge,
    ) -> Result<SegmentedStore> {
        crate::ttl::refuse_on("window or session", &options)?;
        if geometry.retention_ms < 0 || geometry.segment_interval_ms <= 0 {
            return Err(Error::InvalidArgument(format!(
                "retention must be >= 0 and segment interval > 0, got {geometry:?}"
            )));
        }
        let store = KeyValueStore::open(path, options)?;
        let highest_segment = highest_committed_segment(&store)?;
        Ok(SegmentedStore {
            store,
            geometry,
            edge,
            stream_time: AtomicI64::new(NO_TIMESTAMP),
            dropped_below: AtomicI64::new(i64::MIN),
            highest_segment: Arc::new(AtomicI64::new(highest_segment)),
        })
    }

    /// The key-value store underneath (commit, offsets, rollback, sizes).
    pub fn key_value(&self) -> &KeyValueStore {
        &self.store
    }

    pub fn geometry(&self) -> SegmentOptions {
        self.geometry
    }

    /// Kafka's segment id: `ts / interval`, truncating toward zero as Java's `/` does.
    pub fn segment_id(&self, ts: i64) -> i64 {
        segment_of(ts, self.geometry.segment_interval_ms)
    }

    pub fn stream_time(&self) -> i64 {
        self.stream_time.load(Ordering::Acquire)
    }

    /// The lowest timestamp a read may return: `streamTime - retention + 1`, or
    /// `streamTime - retention` when the retention edge is included.
    pub fn earliest_visible(&self) -> i64 {
        let edge = self.stream_time().saturating_sub(self.geometry.retention_ms);
        match self.edge {
            RetentionEdge::Excluded => edge.saturating_add(1),
            RetentionEdge::Included => edge,
        }
    }

    fn min_live_segment(&self, stream_time: i64) -> i64 {
        self.segment_id(stream_time.saturating_sub(self.geometry.retention_ms))
    }

    /// Notes that `segment` may hold data from now on.
    fn written(&self, segment: i64) {
        self.highest_segment.fetch_max(segment, Ordering::AcqRel);
    }

    fn observe(&self, ts: i64) -> i64 {
        let prev = self.stream_time.fetch_max(ts, Ordering::AcqRel);
        prev.max(ts)
    }

    /// The range delete for segments that expired since the last one, if any.
    fn expiry(&self, stream_time: i64) -> Option<([u8; 8], [u8; 8])> {
        let min_live = self.min_live_segment(stream_time);
        let before = self.dropped_below.fetch_max(min_live, Ordering::AcqRel);
        (min_live > before).then(|| (segment_prefix(i64::MIN), segment_prefix(min_live)))
    }

    /// Writes (or with `None` deletes) `store_key`, whose segment is picked by `segment_ts`.
    /// Advances stream time first, as Kafka does.
    pub fn put(&self, segment_ts: i64, store_key: &[u8], value: Option<&[u8]>) -> Result<PutOutcome> {
        let stream_time = self.observe(segment_ts);
        let segment = self.segment_id(segment_ts);
        if segment < self.min_live_segment(stream_time) {
            return Ok(PutOutcome::DroppedExpired);
        }
        let key = prefixed(segment, store_key);
        self.written(segment);
        let expiry = self.expiry(stream_time);
        let write = match value {
            Some(value) => Write::Put(&key, value),
            None => Write::Delete(&key),
        };
        match &expiry {
            Some((from, to)) => self.store.write_all([Write::DeleteRange(from, to), write])?,
            None => self.store.write_all([write])?,
        }
        Ok(PutOutcome::Written)
    }

    /// Deletes `store_key` (Kafka's `remove`: advances stream time, no liveness check).
    pub fn remove(&self, segment_ts: i64, store_key: &[u8]) -> Result<()> {
        self.observe(segment_ts);
        let key = prefixed(self.segment_id(segment_ts), store_key);
        self.store.write_all([Write::Delete(&key)])
    }

    /// The value stored under `store_key` in the segment of `segment_ts` (no visibility filter).
    pub fn get(&self, segment_ts: i64, store_key: &[u8], committed_only: bool) -> Result<Option<Vec<u8>>> {
        self.store.get(&prefixed(self.segment_id(segment_ts), store_key), committed_only)
    }

    /// Applies changelog records `(segment_ts, store_key, value)` straight to committed data:
    /// stream time first advances to the batch's newest timestamp, then records of expired
    /// segments are skipped (Kafka's restore rule). One RocksDB write.
    pub fn restore(&self, records: &[SegmentedChangelogRecord<'_>]) -> Result<()> {
        let Some(max_ts) = records.iter().map(|record| record.0).max() else { return Ok(()) };
        let stream_time = self.observe(max_ts);
        let min_live = self.min_live_segment(stream_time);
        self.written(self.segment_id(max_ts));
        let keys: Vec<Option<Vec<u8>>> = records
            .iter()
            .map(|(timestamp, store_key, _)| {
                let segment = self.segment_id(*timestamp);
                (segment >= min_live).then(|| prefixed(segment, store_key))
            })
            .collect();
        let expiry = self.expiry(stream_time);
        let writes = expiry.iter().map(|(from, to)| Write::DeleteRange(from, to)).chain(
            records.iter().zip(&keys).filter_map(|((_, _, value), key)| {
                let key = key.as_deref()?;
                Some(match value {
                    Some(value) => Write::Put(key, value),
                    None => Write::Delete(key),
                })
            }),
        );
        self.store.restore_writes(writes)
    }

    /// Iterates the live segments whose ids lie in `[segment_id(from_ts), segment_id(to_ts)]`
    /// (newest first when `reverse`), each over store keys in `[lower, upper]` (inclusive; `None`
    /// is open), in Kafka's order: segment by segment, then store-key bytes. One RocksDB iterator
    /// covers every segment; a seek moves it from one segment's key range to the next, landing on
    /// the next segment that holds anything, so empty segments cost nothing.
    ///
    /// `scan_at(latest)` gives the scan knowing that no entry has a timestamp above `latest` (the
    /// last of the highest segment written): window and session keys are `key ++ timestamp ++ ...`,
    /// so a key bound with its timestamp capped there keeps a scan of `k` off the entries of longer
    /// keys `k ++ ...` (which sort between `k ++ timestamp` and `k ++ i64::MAX`), and the scan ends
    /// at that segment instead of seeking into ones that cannot hold data. The RocksDB iterator is
    /// bounded by the scan's own bounds at both ends, so RocksDB stops there instead of reading on
    /// through the next key's entries and deleted ones.
    pub fn iter(&self, scan_at: impl Fn(i64) -> SegmentScan + Send + 'static) -> SegmentIter {
        let min_live = self.min_live_segment(self.stream_time()).max(0);
        let mut iter = SegmentIter {
            store: self.store.clone(),
            highest_segment: self.highest_segment.clone(),
            interval: self.geometry.segment_interval_ms,
            min_live,
            scan_at: Box::new(scan_at),
            planned_highest: i64::MIN,
            entries: None,
            first: 0,
            last: -1,
            segment: None,
            positioned: false,
            scan: SegmentScan::default(),
        };
        iter.plan(iter.highest_segment.load(Ordering::Acquire));
        iter
    }
}

/// Kafka's segment id of `ts`: `ts / interval`, truncating toward zero as Java's `/` does.
fn segment_of(ts: i64, interval: i64) -> i64 {
    ts / interval
}

/// The last timestamp of `segment` (`ts / interval` truncates toward zero: segment `s >= 0` ends
/// at `(s + 1) * interval - 1`, `s < 0` at `s * interval`); `i64::MAX` on overflow.
fn last_timestamp_of(segment: i64, interval: i64) -> i64 {
    let last = if segment >= 0 {
        segment.checked_add(1).and_then(|above| above.checked_mul(interval)).map(|start| start - 1)
    } else {
        segment.checked_mul(interval)
    };
    last.unwrap_or(i64::MAX)
}

/// What a [`SegmentedStore::iter`] covers.
#[derive(Debug, Clone, Default)]
pub struct SegmentScan {
    pub from_ts: i64,
    pub to_ts: i64,
    /// Inclusive store-key bounds inside each segment.
    pub lower: Option<Vec<u8>>,
    pub upper: Option<Vec<u8>>,
    pub reverse: bool,
    pub committed_only: bool,
}

/// Iterator over several segments; yields unprefixed store keys.
pub struct SegmentIter {
    store: KeyValueStore,
    /// The store's highest segment written (see [`SegmentedStore::iter`]).
    highest_segment: Arc<AtomicI64>,
    interval: i64,
    /// The lowest live segment when the iterator was made.
    min_live: i64,
    scan_at: Box<dyn Fn(i64) -> SegmentScan + Send>,
    /// The highest segment `scan` was planned with (`i64::MIN` before any).
    planned_highest: i64,
    /// One iterator over every segment of the scan, opened at the first chunk.
    entries: Option<RangeIter>,
    /// The lowest and highest segment ids the scan covers.
    first: i64,
    last: i64,
    /// The segment being read; `None` when done.
    segment: Option<i64>,
    /// Whether `entries` has been moved to `segment`'s key range.
    positioned: bool,
    scan: SegmentScan,
}

impl SegmentIter {
    /// Sets the scan, its segments and where it starts for a store whose highest segment is
    /// `highest`.
    fn plan(&mut self, highest: i64) {
        self.scan = (self.scan_at)(last_timestamp_of(highest, self.interval));
        self.planned_highest = highest;
        self.first = segment_of(self.scan.from_ts, self.interval).max(self.min_live);
        self.last = segment_of(self.scan.to_ts, self.interval).min(highest);
        self.segment = (self.first <= self.last).then_some(if self.scan.reverse { self.last } else { self.first });
        self.positioned = false;
    }

    /// Opens the RocksDB iterator. What it sees is fixed when it opens, so the plan must hold for
    /// that moment: a segment a concurrent writer started (and committed) after the plan was made
    /// is planned for and the iterator opened again. Every put raises the highest segment before
    /// writing, so an unchanged highest segment after the open covers everything the open sees.
    fn open_entries(&mut self) -> Result<()> {
        loop {
            let entries = self.store.range(self.range())?;
            let highest = self.highest_segment.load(Ordering::Acquire);
            if highest == self.planned_highest {
                self.entries = Some(entries);
                return Ok(());
            }
            self.plan(highest);
            if self.segment.is_none() {
                return Ok(());
            }
        }
    }

    /// Where reading `segment` starts: its lowest key in range (its highest when reversed; the
    /// next segment's prefix, excluded, when the range has no upper bound).
    fn start_of(&self, segment: i64) -> Vec<u8> {
        let (bound, edge) = if self.scan.reverse {
            (&self.scan.upper, segment.checked_add(1))
        } else {
            (&self.scan.lower, Some(segment))
        };
        match (bound, edge) {
            (Some(bound), _) => prefixed(segment, bound),
            (None, Some(edge)) => segment_prefix(edge).to_vec(),
            (None, None) => vec![0xFF; segment::PREFIX_LEN + 1],
        }
    }

    /// The keys the scan can return, from the first segment's `lower` (or start) to the last
    /// segment's `upper` (or end).
    fn range(&self) -> Range {
        let from = match &self.scan.lower {
            Some(lower) => prefixed(self.first, lower),
            None => segment_prefix(self.first).to_vec(),
        };
        let (to, to_inclusive) = match &self.scan.upper {
            Some(upper) => (Some(prefixed(self.last, upper)), true),
            None => (self.last.checked_add(1).map(|above| segment_prefix(above).to_vec()), false),
        };
        Range {
            from: Some(from),
            to,
            to_inclusive,
            reverse: self.scan.reverse,
            committed_only: self.scan.committed_only,
        }
    }

    /// The segment to read after `segment` given the key the iterator stopped at (in the next
    /// segment that holds anything, or further in the current one), if the scan covers it.
    fn next_segment(&self, segment: i64, stopped_in: i64) -> Option<i64> {
        let next = if self.scan.reverse {
            if stopped_in < segment {
                stopped_in
            } else {
                segment.checked_sub(1)?
            }
        } else if stopped_in > segment {
            stopped_in
        } else {
            segment.checked_add(1)?
        };
        (self.first..=self.last).contains(&next).then_some(next)
    }

    /// As [`RangeIter::next_chunk_filtered`], over unprefixed store keys; 0 means exhausted.
    pub fn next_chunk(
        &mut self,
        max_entries: usize,
        max_bytes: usize,
        mut emit: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<usize> {
        loop {
            let Some(segment) = self.segment else { return Ok(0) };
            if self.entries.is_none() {
                self.open_entries()?;
                continue;
            }
            if !self.positioned {
                let start = self.start_of(segment);
                if let Some(entries) = self.entries.as_mut() {
                    entries.seek(&start);
                }
                self.positioned = true;
            }
            let Some(entries) = self.entries.as_mut() else { return Ok(0) };
            let (lower, upper, reverse) = (self.scan.lower.as_deref(), self.scan.upper.as_deref(), self.scan.reverse);
            let mut stopped_in = None;
            let count = entries.next_chunk_until(max_entries, max_bytes, |key, value| {
                let Some((key_segment, store_key)) = segment::split(key) else { return Step::Skip };
                if key_segment == segment {
                    let below = lower.is_some_and(|lower| store_key < lower);
                    let above = upper.is_some_and(|upper| store_key > upper);
                    if !below && !above {
                        return Step::from(emit(store_key, value));
                    }
                    if (above && !reverse) || (below && reverse) {
                        stopped_in = Some(key_segment);
                        return Step::Stop;
                    }
                    return Step::Skip;
                }
                // another segment: stop at one ahead in the scan's direction, pass over one behind
                if (key_segment > segment) != reverse {
                    stopped_in = Some(key_segment);
                    return Step::Stop;
                }
                Step::Skip
            })?;
            match stopped_in {
                Some(stopped_in) => {
                    self.segment = self.next_segment(segment, stopped_in);
                    self.positioned = false;
                    if count > 0 {
                        return Ok(count);
                    }
                }
                None if count > 0 => return Ok(count),
                None => {
                    self.segment = None;
                    return Ok(0);
                }
            }
        }
    }
}

/// A [`SegmentIter`] that only yields the store keys `keep` accepts (Kafka's per-record
/// predicates of fetch and findSessions); `None` inside means an empty result.
pub struct FilteredIter {
    segments: Option<SegmentIter>,
    keep: KeyPredicate,
}

/// Decides from a store key whether an entry belongs to a result.
type KeyPredicate = Box<dyn Fn(&[u8]) -> bool + Send>;

impl FilteredIter {
    pub(crate) fn new(segments: Option<SegmentIter>, keep: impl Fn(&[u8]) -> bool + Send + 'static) -> Self {
        FilteredIter { segments, keep: Box::new(keep) }
    }

    /// Emits up to `max_entries` entries (roughly `max_bytes`) as `(store key, value)`; 0 means
    /// exhausted.
    pub fn next_chunk(
        &mut self,
        max_entries: usize,
        max_bytes: usize,
        mut emit: impl FnMut(&[u8], &[u8]),
    ) -> Result<usize> {
        let Some(segments) = self.segments.as_mut() else { return Ok(0) };
        let keep = &self.keep;
        segments.next_chunk(max_entries, max_bytes, |store_key, value| {
            let kept = keep(store_key);
            if kept {
                emit(store_key, value);
            }
            kept
        })
    }

    /// Every remaining entry (tests, small scans).
    pub fn collect_all(&mut self) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut out = Vec::new();
        while self.next_chunk(1024, usize::MAX, |key, value| out.push((key.to_vec(), value.to_vec())))? > 0 {}
        Ok(out)
    }
}
