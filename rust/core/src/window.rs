//! Window store: Kafka's `RocksDBWindowStore` semantics on a [`SegmentedStore`].
//!
//! Store keys are Kafka's `WindowKeySchema` bytes `[key][start: i64 BE][seq: i32 BE]`, segmented
//! by window start, so iteration order, visibility and restore keys match the built-in store
//! byte for byte. Duplicate handling (the sequence number) is the caller's, as in Kafka.

use crate::error::Result;
use crate::segmented::{
    with_segment_timestamps, FilteredIter, PutOutcome, RetentionEdge, SegmentOptions, SegmentScan, SegmentedStore,
};
use crate::store::StoreOptions;
use std::path::Path;

pub const SUFFIX_LEN: usize = 12;

/// `[key][start][seq]`.
pub fn store_key(key: &[u8], start: i64, seq: i32) -> Vec<u8> {
    let mut store_key = Vec::with_capacity(key.len() + SUFFIX_LEN);
    store_key.extend_from_slice(key);
    store_key.extend_from_slice(&start.to_be_bytes());
    store_key.extend_from_slice(&seq.to_be_bytes());
    store_key
}

/// Splits a store key into (key, start, seq); `None` if it is too short.
pub fn split_store_key(store_key: &[u8]) -> Option<(&[u8], i64, i32)> {
    let key_len = store_key.len().checked_sub(SUFFIX_LEN)?;
    let start = i64::from_be_bytes(store_key[key_len..key_len + 8].try_into().ok()?);
    let seq = i32::from_be_bytes(store_key[key_len + 8..].try_into().ok()?);
    Some((&store_key[..key_len], start, seq))
}

/// The smallest inclusive upper scan bound covering every store key `k ++ suffix` with
/// `k <= key` and `suffix <= max_suffix` (suffixes of that fixed length).
///
/// A key that is a proper prefix of `key` sorts before it, yet its store keys can sort after
/// `key ++ max_suffix` (its suffix is compared with `key`'s later bytes), so the bound is the
/// largest `prefix ++ max_suffix` over every prefix of `key`. Kafka's `OrderedBytes.upperRange`
/// approximates this and can miss such entries; ours is exact, so results are a superset.
pub(crate) fn upper_range(key: &[u8], max_suffix: &[u8]) -> Vec<u8> {
    (0..=key.len()).map(|len| [&key[..len], max_suffix].concat()).max().unwrap_or_default()
}

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
        let max_suffix = [&query.time_to.to_be_bytes()[..], &i32::MAX.to_be_bytes()].concat();
        let (lower, upper) = match (&query.key_from, &query.key_to) {
            (Some(from), Some(to)) if from == to => (Some(store_key(from, earliest.max(0), 0)), Some(store_key(to, query.time_to, i32::MAX))),
            (from, to) => (
                from.as_ref().map(|from| [&from[..], &[0u8; SUFFIX_LEN]].concat()),
                to.as_ref().map(|to| upper_range(to, &max_suffix)),
            ),
        };
        let scan = SegmentScan {
            from_ts: earliest,
            to_ts: query.time_to,
            lower,
            upper,
            reverse: query.reverse,
            committed_only: query.committed_only,
        };
        FilteredIter::new(Some(self.seg.iter(scan)), keep)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upper_range_covers_keys_that_are_prefixes() {
        assert_eq!(upper_range(b"ab", &[0, 9]), b"ab\x00\x09".to_vec());
        assert_eq!(upper_range(&[5, 0, 7], &[1, 9]), vec![5, 1, 9]);
        // [255] ++ [0, 5] must be covered when the bound key is [255, 0] and suffixes go to [0, 9].
        let bound = upper_range(&[255, 0], &[0, 9]);
        assert!([&[255u8][..], &[0, 5]].concat() <= bound);
    }

    #[test]
    fn store_key_round_trips() {
        let key = store_key(b"k", 42, 7);
        assert_eq!(split_store_key(&key), Some((&b"k"[..], 42, 7)));
        assert_eq!(split_store_key(&key[..5]), None);
    }
}
