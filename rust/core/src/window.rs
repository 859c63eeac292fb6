//! Window store: Kafka's `RocksDBWindowStore` semantics on a [`SegmentedStore`].
//!
//! Store keys are Kafka's `WindowKeySchema` bytes `[key][start: i64 BE][seq: i32 BE]` (the format
//! crate's [`txn_rocksdb_format::window_key`]), segmented by window start, so iteration order,
//! visibility and restore keys match the built-in store byte for byte. Duplicate handling (the sequence number) is the caller's, as in Kafka.

use crate::error::Result;
use crate::segmented::{
    with_segment_timestamps, FilteredIter, PutOutcome, RetentionEdge, SegmentOptions, SegmentScan, SegmentedStore,
};
use crate::store::StoreOptions;
use std::path::Path;

use txn_rocksdb_format::window_key::upper_range;
pub use txn_rocksdb_format::window_key::{split_store_key, store_key, SUFFIX_LEN};

/// Which windows a fetch covers. Key bounds are inclusive; `None` is open.
#[derive(Debug, Clone, Default)]
pub struct WindowQuery {
    pub key_from: Option<Vec<u8>>,
    pub key_to: Option<Vec<u8>>,
    pub time_from: i64,
    pub time_to: i64,
    pub reverse: bool,
    pub committed_only: bool,
}

/// A transactional window store.
pub struct WindowStore {
    seg: SegmentedStore,
}

impl WindowStore {
    /// Opens a store with Kafka's `RocksDBWindowStore` visibility: windows with
    /// `start > streamTime - retention`.
    pub fn open(path: impl AsRef<Path>, options: StoreOptions, geometry: SegmentOptions) -> Result<WindowStore> {
        Self::open_with_edge(path, options, geometry, RetentionEdge::Excluded)
    }

    /// Opens a store; [`RetentionEdge::Included`] gives Kafka's `RocksDBTimeOrderedWindowStore`
    /// visibility (`start >= streamTime - retention`). Both drop a put into a segment older than
    /// `segmentId(streamTime - retention)`.
    pub fn open_with_edge(
        path: impl AsRef<Path>,
        options: StoreOptions,
        geometry: SegmentOptions,
        edge: RetentionEdge,
    ) -> Result<WindowStore> {
        Ok(WindowStore { seg: SegmentedStore::open_with_edge(path, options, geometry, edge)? })
    }

    /// Applies a batch of changelog records, keyed by Kafka's window store keys (a `None` value
    /// deletes); each record's segment comes from the window start in its key.
    pub fn restore(&self, records: &[(&[u8], Option<&[u8]>)]) -> Result<()> {
        self.seg.restore(&with_segment_timestamps(records, |key| split_store_key(key).map(|(_, start, _)| start))?)
    }

    pub fn segments(&self) -> &SegmentedStore {
        &self.seg
    }

    /// Puts (or with `None` deletes) the window `[key][start][seq]`.
    pub fn put(&self, key: &[u8], start: i64, seq: i32, value: Option<&[u8]>) -> Result<PutOutcome> {
        self.seg.put(start, &store_key(key, start, seq), value)
    }

    /// The value of one window, or `None` when absent or no longer visible.
    pub fn fetch(&self, key: &[u8], start: i64, seq: i32, committed_only: bool) -> Result<Option<Vec<u8>>> {
        if start < self.seg.earliest_visible() {
            return Ok(None);
        }
        self.seg.get(start, &store_key(key, start, seq), committed_only)
    }

    /// Windows of keys in `[key_from, key_to]` starting in `[time_from, time_to]`, segment by
    /// segment, each segment in store-key order (the reverse when `reverse`).
    pub fn fetch_range(&self, query: WindowQuery) -> WindowIter {
        let earliest = query.time_from.max(self.seg.earliest_visible());
        let (key_from, key_to, time_to) = (query.key_from.clone(), query.key_to.clone(), query.time_to);
        let keep = move |store_key: &[u8]| {
            split_store_key(store_key).is_some_and(|(key, start, _)| {
                start >= earliest
                    && start <= time_to
                    && key_from.as_deref().is_none_or(|from| key >= from)
                    && key_to.as_deref().is_none_or(|to| key <= to)
            })
        };
        if query.time_to < earliest {
            return FilteredIter::new(None, keep);
        }
        let (from, to, time_to, reverse, committed_only) =
            (query.key_from, query.key_to, query.time_to, query.reverse, query.committed_only);
        // no window starts after `latest`: the bound keeps the scan off longer keys
        let scan_at = move |latest: i64| {
            let latest_start = time_to.min(latest);
            let max_suffix = [&latest_start.to_be_bytes()[..], &i32::MAX.to_be_bytes()].concat();
            let (lower, upper) = match (&from, &to) {
                (Some(from), Some(to)) if from == to => {
                    (Some(store_key(from, earliest.max(0), 0)), Some(store_key(to, latest_start, i32::MAX)))
                }
                (from, to) => (
                    from.as_ref().map(|from| [&from[..], &[0u8; SUFFIX_LEN]].concat()),
                    to.as_ref().map(|to| upper_range(to, &max_suffix)),
                ),
            };
            SegmentScan { from_ts: earliest, to_ts: time_to, lower, upper, reverse, committed_only }
        };
        FilteredIter::new(Some(self.seg.iter(scan_at)), keep)
    }

    /// Every visible window (Kafka's `all()` / `backwardAll()`).
    pub fn all(&self, reverse: bool, committed_only: bool) -> WindowIter {
        self.fetch_range(WindowQuery {
            time_from: 0,
            time_to: i64::MAX,
            reverse,
            committed_only,
            ..WindowQuery::default()
        })
    }
}

/// Iterator over window entries; yields `(store key, value)`.
pub type WindowIter = FilteredIter;
