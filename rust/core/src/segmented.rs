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

use crate::error::Result;
use crate::iter::{Range, RangeIter};
use crate::db::Write;
use crate::store::{KeyValueStore, StoreOptions};
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};

/// Kafka's `NO_TIMESTAMP`: stream time before any record was seen.
pub const NO_TIMESTAMP: i64 = -1;

/// The segment geometry of a window or session store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentOptions {
    pub retention_ms: i64,
    pub segment_interval_ms: i64,
}

impl SegmentOptions {
    /// Kafka's default for `Stores.persistent{Window,Session}Store`: `max(retention / 2, 60s)`.
    pub fn kafka_default(retention_ms: i64) -> SegmentOptions {
        SegmentOptions { retention_ms, segment_interval_ms: (retention_ms / 2).max(60_000) }
    }
}

/// Length of the segment prefix in front of every store key.
const SEGMENT_PREFIX_LEN: usize = 8;

/// The segment prefix of a segment: its id as 8 big-endian bytes with the sign bit flipped, so
/// prefixes sort like the signed ids.
fn segment_prefix(segment: i64) -> [u8; SEGMENT_PREFIX_LEN] {
    ((segment as u64) ^ (1 << 63)).to_be_bytes()
}

/// The key under which `store_key` of `segment` is kept: segment prefix ++ store key.
fn prefixed(segment: i64, store_key: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(SEGMENT_PREFIX_LEN + store_key.len());
    key.extend_from_slice(&segment_prefix(segment));
    key.extend_from_slice(store_key);
    key
}

/// The store key of a kept key (its segment prefix removed).
fn store_key_of(key: &[u8]) -> &[u8] {
    &key[SEGMENT_PREFIX_LEN..]
}

/// The segment id of a kept key, `None` if it is shorter than a segment prefix.
fn segment_of(key: &[u8]) -> Option<i64> {
    let prefix: [u8; SEGMENT_PREFIX_LEN] = key.get(..SEGMENT_PREFIX_LEN)?.try_into().ok()?;
    Some((u64::from_be_bytes(prefix) ^ (1 << 63)) as i64)
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
}

/// One changelog record to restore: (segment timestamp, store key, value or `None` to delete).
pub type RestoreRecord<'a> = (i64, &'a [u8], Option<&'a [u8]>);

/// Pairs each changelog record with the segment timestamp `timestamp_of` reads from its key.
pub(crate) fn with_segment_timestamps<'a>(
    records: &[(&'a [u8], Option<&'a [u8]>)],
    timestamp_of: impl Fn(&[u8]) -> Option<i64>,
) -> Result<Vec<RestoreRecord<'a>>> {
    records
        .iter()
        .map(|&(key, value)| {
            let ts = timestamp_of(key).ok_or_else(|| {
                crate::Error::InvalidArgument(format!("changelog key of {} bytes is too short for this store", key.len()))
            })?;
            Ok((ts, key, value))
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
        if geometry.retention_ms < 0 || geometry.segment_interval_ms <= 0 {
            return Err(crate::Error::InvalidArgument(format!(
                "retention must be >= 0 and segment interval > 0, got {geometry:?}"
            )));
        }
        Ok(SegmentedStore {
            store: KeyValueStore::open(path, options)?,
            geometry,
            edge,
            stream_time: AtomicI64::new(NO_TIMESTAMP),
            dropped_below: AtomicI64::new(i64::MIN),
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
        ts / self.geometry.segment_interval_ms
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
    pub fn restore(&self, records: &[RestoreRecord<'_>]) -> Result<()> {
        let Some(max_ts) = records.iter().map(|record| record.0).max() else { return Ok(()) };
        let stream_time = self.observe(max_ts);
        let min_live = self.min_live_segment(stream_time);
        let keys: Vec<Option<Vec<u8>>> = records
            .iter()
            .map(|(ts, store_key, _)| {
                let segment = self.segment_id(*ts);
                (segment >= min_live).then(|| prefixed(segment, store_key))
            })
            .collect();
        let expiry = self.expiry(stream_time);
        let writes = expiry
            .iter()
            .map(|(from, to)| Write::DeleteRange(from, to))
            .chain(records.iter().zip(&keys).filter_map(|((_, _, value), key)| {
                let key = key.as_deref()?;
                Some(match value {
                    Some(value) => Write::Put(key, value),
                    None => Write::Delete(key),
                })
            }));
        self.store.restore_writes(writes)
    }

    /// Iterates the live segments whose ids lie in `[segment_id(from_ts), segment_id(to_ts)]`
    /// (newest first when `reverse`), each over store keys in `[lower, upper]` (inclusive; `None`
    /// is open). Segments are found and opened lazily, one at a time, as in Kafka.
    pub fn iter(&self, scan: SegmentScan) -> SegmentIter {
        let first = self.segment_id(scan.from_ts).max(self.min_live_segment(self.stream_time())).max(0);
        let last = self.segment_id(scan.to_ts);
        let cursor = if scan.reverse { last } else { first };
        SegmentIter {
            store: self.store.clone(),
            first,
            last,
            cursor: (first <= last).then_some(cursor),
            current: None,
            scan,
        }
    }
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
    /// The lowest and highest segment ids the scan covers.
    first: i64,
    last: i64,
    /// The next segment id to look from (upward, or downward when reversed); `None` when done.
    cursor: Option<i64>,
    current: Option<RangeIter>,
    scan: SegmentScan,
}

impl SegmentIter {
    /// The nearest segment holding any entry, from the cursor toward the far end of the scan:
    /// one probe over `[prefix(from), prefix(to + 1))`, read one entry (from the top if reversed).
    fn find_segment(&mut self) -> Result<Option<i64>> {
        let Some(cursor) = self.cursor else { return Ok(None) };
        let (from, to) = if self.scan.reverse { (self.first, cursor) } else { (cursor, self.last) };
        let probe = Range {
            from: Some(segment_prefix(from).to_vec()),
            to: to.checked_add(1).map(|above| segment_prefix(above).to_vec()),
            to_inclusive: false,
            reverse: self.scan.reverse,
            committed_only: self.scan.committed_only,
        };
        let mut found = None;
        self.store.range(probe)?.next_chunk(1, usize::MAX, |key, _| found = segment_of(key))?;
        self.cursor = match found {
            Some(segment) if self.scan.reverse => segment.checked_sub(1).filter(|next| *next >= self.first),
            Some(segment) => segment.checked_add(1).filter(|next| *next <= self.last),
            None => None,
        };
        Ok(found)
    }

    fn open_next(&mut self) -> Result<bool> {
        let Some(segment) = self.find_segment()? else { return Ok(false) };
        let prefix = segment_prefix(segment);
        let with_prefix = |bound: &Option<Vec<u8>>| bound.as_ref().map(|bound| [&prefix[..], bound].concat());
        let range = Range {
            from: Some(with_prefix(&self.scan.lower).unwrap_or_else(|| prefix.to_vec())),
            to: Some(with_prefix(&self.scan.upper).unwrap_or_else(|| segment_prefix(segment.saturating_add(1)).to_vec())),
            to_inclusive: self.scan.upper.is_some(),
            reverse: self.scan.reverse,
            committed_only: self.scan.committed_only,
        };
        self.current = Some(self.store.range(range)?);
        Ok(true)
    }

    /// As [`RangeIter::next_chunk_filtered`], over unprefixed store keys; 0 means exhausted.
    pub fn next_chunk(
        &mut self,
        max_entries: usize,
        max_bytes: usize,
        mut emit: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<usize> {
        loop {
            if self.current.is_none() && !self.open_next()? {
                return Ok(0);
            }
            let Some(segment) = self.current.as_mut() else { return Ok(0) };
            let count = segment.next_chunk_filtered(max_entries, max_bytes, |key, value| emit(store_key_of(key), value))?;
            if count > 0 {
                return Ok(count);
            }
            self.current = None;
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
    pub fn next_chunk(&mut self, max_entries: usize, max_bytes: usize, mut emit: impl FnMut(&[u8], &[u8])) -> Result<usize> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_prefix_orders_like_signed_ids() {
        let ids = [i64::MIN, -2, -1, 0, 1, 2, i64::MAX];
        for pair in ids.windows(2) {
            assert!(segment_prefix(pair[0]) < segment_prefix(pair[1]));
        }
    }

    #[test]
    fn kafka_default_interval() {
        assert_eq!(SegmentOptions::kafka_default(10_000).segment_interval_ms, 60_000);
        assert_eq!(SegmentOptions::kafka_default(1_000_000).segment_interval_ms, 500_000);
    }
}
