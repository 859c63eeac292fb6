//! Session store: Kafka's `RocksDBSessionStore` semantics on a [`SegmentedStore`].
//!
//! Store keys are Kafka's `SessionKeySchema` bytes `[key][end: i64 BE][start: i64 BE]` (the format
//! crate's [`txn_rocksdb_format::session_key`]), segmented by session end, so order, visibility
//! and restore keys match the built-in store byte for byte.

use crate::error::Result;
use crate::segmented::{
    with_segment_timestamps, FilteredIter, PutOutcome, SegmentOptions, SegmentScan, SegmentedStore,
};
use crate::store::StoreOptions;
use std::path::Path;

pub use txn_rocksdb_format::session_key::{split_store_key, store_key, SUFFIX_LEN};
use txn_rocksdb_format::window_key::upper_range;

/// Which sessions a find covers: keys in `[key_from, key_to]` (inclusive, `None` open) whose
/// end is at least `earliest_end` and whose start is at most `latest_start`.
#[derive(Debug, Clone, Default)]
pub struct SessionQuery {
    pub key_from: Option<Vec<u8>>,
    pub key_to: Option<Vec<u8>>,
    pub earliest_end: i64,
    pub latest_start: i64,
    pub reverse: bool,
    pub committed_only: bool,
}

/// A transactional session store.
pub struct SessionStore {
    seg: SegmentedStore,
}

impl SessionStore {
    pub fn open(path: impl AsRef<Path>, options: StoreOptions, geometry: SegmentOptions) -> Result<SessionStore> {
        Ok(SessionStore { seg: SegmentedStore::open(path, options, geometry)? })
    }

    pub fn segments(&self) -> &SegmentedStore {
        &self.seg
    }

    /// Applies a batch of changelog records, keyed by Kafka's session store keys (a `None` value
    /// deletes); each record's segment comes from the session end in its key.
    pub fn restore(&self, records: &[(&[u8], Option<&[u8]>)]) -> Result<()> {
        self.seg.restore(&with_segment_timestamps(records, |key| split_store_key(key).map(|(_, _, end)| end))?)
    }

    /// Puts (or with `None` deletes) the session `[start, end]` of `key`.
    pub fn put(&self, key: &[u8], start: i64, end: i64, value: Option<&[u8]>) -> Result<PutOutcome> {
        self.seg.put(end, &store_key(key, start, end), value)
    }

    /// Kafka's `remove`: deletes the session, advancing stream time, with no liveness check.
    pub fn remove(&self, key: &[u8], start: i64, end: i64) -> Result<()> {
        self.seg.remove(end, &store_key(key, start, end))
    }

    /// The aggregate of exactly this session, or `None` when absent or no longer visible.
    pub fn fetch_session(&self, key: &[u8], start: i64, end: i64, committed_only: bool) -> Result<Option<Vec<u8>>> {
        if end < self.seg.earliest_visible() {
            return Ok(None);
        }
        self.seg.get(end, &store_key(key, start, end), committed_only)
    }

    /// Kafka's `findSessions` (and the key-range, backward and `fetch` forms built on it).
    pub fn find_sessions(&self, query: SessionQuery) -> SessionIter {
        let earliest = query.earliest_end.max(self.seg.earliest_visible());
        let (key_from, key_to, latest_start) = (query.key_from, query.key_to, query.latest_start);
        let (reverse, committed_only) = (query.reverse, query.committed_only);
        let (from, to) = (key_from.clone(), key_to.clone());
        // no session ends after `latest_end`: the bound keeps the scan off longer keys
        let scan_at = move |latest_end: i64| {
            let max_suffix = [&latest_end.to_be_bytes()[..], &latest_start.to_be_bytes()].concat();
            let (lower, upper) = match (&from, &to) {
                (Some(from), Some(to)) if from == to => {
                    (Some(store_key(from, 0, earliest.max(0))), Some(store_key(to, latest_start, latest_end)))
                }
                (from, to) => (
                    from.as_ref().map(|from| [&from[..], &[0u8; SUFFIX_LEN]].concat()),
                    to.as_ref().map(|to| upper_range(to, &max_suffix)),
                ),
            };
            SegmentScan { from_ts: earliest, to_ts: i64::MAX, lower, upper, reverse, committed_only }
        };
        let keep = move |store_key: &[u8]| {
            split_store_key(store_key).is_some_and(|(key, start, end)| {
                end >= earliest
                    && start <= latest_start
                    && key_from.as_deref().is_none_or(|from| key >= from)
                    && key_to.as_deref().is_none_or(|to| key <= to)
            })
        };
        FilteredIter::new(Some(self.seg.iter(scan_at)), keep)
    }
}

impl SessionStore {
    /// Sessions of any key whose end lies in `[earliest_end, latest_end]`, in live segments, with
    /// no per-record retention filter: Kafka's time-ordered (emit-final) session store's
    /// `findSessions(earliestEnd, latestEnd)`. Order is the engine's (segment, key, end, start);
    /// callers that need Kafka's (end, start, key) order sort the (bounded) result.
    pub fn find_by_end(&self, earliest_end: i64, latest_end: i64, committed_only: bool) -> SessionIter {
        let keep = move |store_key: &[u8]| {
            split_store_key(store_key).is_some_and(|(_, _, end)| end >= earliest_end && end <= latest_end)
        };
        if latest_end < earliest_end {
            return FilteredIter::new(None, keep);
        }
        let scan = SegmentScan { from_ts: earliest_end, to_ts: latest_end, committed_only, ..SegmentScan::default() };
        FilteredIter::new(Some(self.seg.iter(move |_| scan.clone())), keep)
    }
}

/// Iterator over sessions; yields `(store key, aggregate)`.
pub type SessionIter = FilteredIter;
