//! Range iteration in chunks, whatever a strategy merges underneath.
//!
//! A [`RangeIter`] hands out entries in chunks (one call per many entries, which is what crosses
//! JNI). Each strategy supplies its own [`Chunks`] (committed data only, the indexed batch over
//! it, or the temporary store merged over it); what they share lives here: the [`Range`] bounds,
//! the [`Cursor`] operations they walk, and the [`Walk`] that positions a cursor, keeps it inside
//! the bounds and resumes after the last key returned.

use crate::db::{Db, RawIterator, Snapshot};
use crate::error::{Error, Result};
use crate::options::DATA_CF;
use rust_rocksdb::ReadOptions;
use std::ops::Bound;
use std::sync::Arc;

/// What to iterate: keys in `[from, to]` (or `[from, to)` when `!to_inclusive`); `None` bounds are
/// open. `reverse` walks from the high end. `committed_only` ignores uncommitted writes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Range {
    pub from: Option<Vec<u8>>,
    pub to: Option<Vec<u8>>,
    pub to_inclusive: bool,
    pub reverse: bool,
    pub committed_only: bool,
}

impl Range {
    /// Every key, ascending, uncommitted writes included.
    pub fn all() -> Range {
        Range::default()
    }

    /// Keys starting with `prefix`, ascending.
    pub fn prefix(prefix: &[u8]) -> Range {
        Range { from: Some(prefix.to_vec()), to: prefix_successor(prefix), ..Range::default() }
    }
}

/// The smallest key greater than every key starting with `prefix`, or `None` if there is none.
pub(crate) fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut successor = prefix.to_vec();
    while let Some(last) = successor.pop() {
        if last < 0xFF {
            successor.push(last + 1);
            return Some(successor);
        }
    }
    None
}

/// What the receiver of an entry did with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Took it (it counts against the chunk's limits).
    Take,
    /// Passed over it.
    Skip,
    /// Ends the chunk before this entry, which stays next (unless the iterator is moved).
    Stop,
}

impl Step {
    /// Counts an entry taken into `count` and `bytes`; returns whether the chunk ends here.
    pub(crate) fn tally(self, key: &[u8], value: &[u8], count: &mut usize, bytes: &mut usize) -> bool {
        match self {
            Step::Take => {
                *count += 1;
                *bytes += key.len() + value.len();
                false
            }
            Step::Skip => false,
            Step::Stop => true,
        }
    }
}

impl From<bool> for Step {
    fn from(took: bool) -> Step {
        if took {
            Step::Take
        } else {
            Step::Skip
        }
    }
}

/// Hands out a strategy's entries in chunks.
pub(crate) trait Chunks: Send {
    fn next_chunk(
        &mut self,
        max_entries: usize,
        max_bytes: usize,
        emit: &mut dyn FnMut(&[u8], &[u8]) -> Step,
    ) -> Result<usize>;

    /// Moves to `target`: the next chunk starts at the first entry at or after it (at or before it
    /// when reversed), within the iterator's range.
    fn seek(&mut self, target: &[u8]);
}

/// An open iterator over a [`Range`]. What it sees depends on the store's strategy (see
/// [`crate::Strategy`]); every kind keeps the memory it reads alive, so closing the store or
/// committing while it is open never frees memory under it.
pub struct RangeIter(Box<dyn Chunks>);

impl RangeIter {
    pub(crate) fn new(chunks: impl Chunks + 'static) -> RangeIter {
        RangeIter(Box::new(chunks))
    }

    /// Calls `emit(key, value)` for up to `max_entries` further entries, stopping early once
    /// `max_bytes` of keys and values were emitted (but always emitting at least one entry if any
    /// is left). Returns how many were emitted; 0 means the iterator is exhausted.
    pub fn next_chunk(
        &mut self,
        max_entries: usize,
        max_bytes: usize,
        mut emit: impl FnMut(&[u8], &[u8]),
    ) -> Result<usize> {
        self.next_chunk_filtered(max_entries, max_bytes, |key, value| {
            emit(key, value);
            true
        })
    }

    /// As [`Self::next_chunk`], but `emit` returns whether it took the entry; entries it refuses
    /// are skipped and do not count against the limits (0 still means exhausted).
    pub fn next_chunk_filtered(
        &mut self,
        max_entries: usize,
        max_bytes: usize,
        mut emit: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<usize> {
        if max_entries == 0 || max_bytes == 0 {
            return Err(Error::InvalidArgument(format!(
                "chunk limits must be positive, got {max_entries} entries / {max_bytes} bytes"
            )));
        }
        self.0.next_chunk(max_entries, max_bytes, &mut |key, value| Step::from(emit(key, value)))
    }

    /// As [`Self::next_chunk_filtered`], where `emit` may also end the chunk before an entry.
    pub(crate) fn next_chunk_until(
        &mut self,
        max_entries: usize,
        max_bytes: usize,
        mut emit: impl FnMut(&[u8], &[u8]) -> Step,
    ) -> Result<usize> {
        self.0.next_chunk(max_entries, max_bytes, &mut emit)
    }

    /// Moves the iterator to `target` (see [`Chunks::seek`]).
    pub(crate) fn seek(&mut self, target: &[u8]) {
        self.0.seek(target)
    }

    /// Convenience for tests and small scans: every remaining entry.
    pub fn collect_all(&mut self) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut out = Vec::new();
        while self.next_chunk(1024, usize::MAX, |key, value| out.push((key.to_vec(), value.to_vec())))? > 0 {}
        Ok(out)
    }
}

impl std::fmt::Debug for RangeIter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RangeIter").finish_non_exhaustive()
    }
}

// The JNI layer moves iterators between threads behind a mutex.
const _: fn() = || {
    fn assert_send<T: Send>() {}
    assert_send::<RangeIter>();
};

/// A lower and an upper key bound.
pub(crate) type KeyBounds<'a> = (Bound<&'a [u8]>, Bound<&'a [u8]>);

/// The positioning operations a [`Walk`] needs, in RocksDB's iterator vocabulary.
pub(crate) trait Cursor {
    fn seek(&mut self, key: &[u8]);
    fn seek_for_prev(&mut self, key: &[u8]);
    fn seek_to_first(&mut self);
    fn seek_to_last(&mut self);
    fn next(&mut self);
    fn prev(&mut self);
    /// The current entry, `None` past either end.
    fn entry(&self) -> Option<(&[u8], &[u8])>;
    fn status(&self) -> std::result::Result<(), rust_rocksdb::Error>;
}

impl Cursor for RawIterator {
    fn seek(&mut self, key: &[u8]) {
        RawIterator::seek(self, key)
    }
    fn seek_for_prev(&mut self, key: &[u8]) {
        RawIterator::seek_for_prev(self, key)
    }
    fn seek_to_first(&mut self) {
        RawIterator::seek_to_first(self)
    }
    fn seek_to_last(&mut self) {
        RawIterator::seek_to_last(self)
    }
    fn next(&mut self) {
        RawIterator::next(self)
    }
    fn prev(&mut self) {
        RawIterator::prev(self)
    }
    fn entry(&self) -> Option<(&[u8], &[u8])> {
        self.key().zip(self.value())
    }
    fn status(&self) -> std::result::Result<(), rust_rocksdb::Error> {
        RawIterator::status(self)
    }
}

/// The bounds of one range walk and where it stands: started, done, and the last key returned
/// (for sources looked up afresh at every chunk, which resume after it).
pub(crate) struct Walk {
    lower: Option<Vec<u8>>,
    upper_excl: Option<Vec<u8>>,
    reverse: bool,
    started: bool,
    done: bool,
    last_key: Vec<u8>,
    /// Whether `last_key` holds a key (an empty key is a key too).
    returned: bool,
    /// Where the last [`Walk::seek`] moved to, until an entry is returned.
    sought: Option<Vec<u8>>,
}

impl Walk {
    /// A walk over `range`.
    pub(crate) fn new(range: &Range) -> Walk {
        let upper_excl = match (&range.to, range.to_inclusive) {
            (Some(to), true) => {
                let mut upper = to.clone();
                upper.push(0); // the smallest key greater than `to`
                Some(upper)
            }
            (to, _) => to.clone(),
        };
        let empty = matches!((&range.from, &upper_excl), (Some(lower), Some(upper)) if lower >= upper);
        Walk {
            lower: range.from.clone(),
            upper_excl,
            reverse: range.reverse,
            started: false,
            done: empty,
            last_key: Vec::new(),
            returned: false,
            sought: None,
        }
    }

    pub(crate) fn lower(&self) -> Option<&[u8]> {
        self.lower.as_deref()
    }

    pub(crate) fn upper_excl(&self) -> Option<&[u8]> {
        self.upper_excl.as_deref()
    }

    pub(crate) fn reverse(&self) -> bool {
        self.reverse
    }

    /// Read options bounding a RocksDB iterator to this walk's range (none for an empty range,
    /// whose bounds may be inverted).
    pub(crate) fn read_options(&self) -> ReadOptions {
        let mut read_options = ReadOptions::default();
        if !self.done {
            if let Some(lower) = &self.lower {
                read_options.set_iterate_lower_bound(lower.clone());
            }
            if let Some(upper) = &self.upper_excl {
                read_options.set_iterate_upper_bound(upper.clone());
            }
        }
        read_options
    }

    fn in_bounds(&self, key: &[u8]) -> bool {
        self.lower.as_deref().is_none_or(|lower| key >= lower)
            && self.upper_excl.as_deref().is_none_or(|upper| key < upper)
    }

    fn advance(&self, cursor: &mut (impl Cursor + ?Sized)) {
        if self.reverse {
            cursor.prev()
        } else {
            cursor.next()
        }
    }

    /// Puts `cursor` on the first entry of the range, once (later calls do nothing).
    pub(crate) fn start(&mut self, cursor: &mut (impl Cursor + ?Sized)) {
        if self.started {
            return;
        }
        self.started = true;
        match (self.reverse, &self.lower, &self.upper_excl) {
            (false, Some(lower), _) => cursor.seek(lower),
            (false, None, _) => cursor.seek_to_first(),
            (true, _, Some(upper)) => cursor.seek_for_prev(upper),
            (true, _, None) => cursor.seek_to_last(),
        }
        self.skip_upper_edge(cursor);
    }

    /// The upper bound is exclusive; seek_for_prev may land on it exactly.
    fn skip_upper_edge(&self, cursor: &mut (impl Cursor + ?Sized)) {
        while self.reverse
            && cursor.entry().is_some_and(|(key, _)| self.upper_excl.as_deref().is_some_and(|upper| key >= upper))
        {
            cursor.prev();
        }
    }

    /// Moves the walk and `cursor` to `target` (see [`Chunks::seek`]); a source looked up afresh
    /// at every chunk follows through [`Self::remaining_bounds`].
    pub(crate) fn seek(&mut self, cursor: &mut dyn Cursor, target: &[u8]) {
        self.started = true;
        self.returned = false;
        let outside = if self.reverse {
            self.lower.as_deref().is_some_and(|lower| target < lower)
        } else {
            self.upper_excl.as_deref().is_some_and(|upper| target >= upper)
        };
        self.done = outside;
        if outside {
            return;
        }
        // a target before the range starts it at its start (after its end, at its end)
        let target = match (self.reverse, &self.lower, &self.upper_excl) {
            (false, Some(lower), _) if target < lower.as_slice() => lower.clone(),
            // the upper bound itself is excluded: seek_for_prev then steps off it
            (true, _, Some(upper)) if target >= upper.as_slice() => upper.clone(),
            _ => target.to_vec(),
        };
        if self.reverse {
            cursor.seek_for_prev(&target);
        } else {
            cursor.seek(&target);
        }
        self.skip_upper_edge(cursor);
        self.sought = Some(target);
    }

    /// Whether the walk has reached the end of its range.
    pub(crate) fn is_done(&self) -> bool {
        self.done
    }

    /// The walk has reached the end of its range.
    pub(crate) fn finish(&mut self) {
        self.done = true;
    }

    /// Remembers `key` as the last one returned (resumable walks resume after it).
    pub(crate) fn remember(&mut self, key: &[u8]) {
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        self.returned = true;
        self.sought = None;
    }

    /// The bounds of the entries still ahead in the walk's direction, for a source that is looked
    /// up afresh at each chunk (the range, minus what was returned); `None` once done.
    pub(crate) fn remaining_bounds(&self) -> Option<KeyBounds<'_>> {
        if self.done {
            return None;
        }
        let lower = self.lower.as_deref().map_or(Bound::Unbounded, Bound::Included);
        let upper = self.upper_excl.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
        if self.returned {
            let last = Bound::Excluded(self.last_key.as_slice());
            return Some(if self.reverse { (lower, last) } else { (last, upper) });
        }
        Some(match (&self.sought, self.reverse) {
            (None, _) => (lower, upper),
            (Some(target), false) => (Bound::Included(target.as_slice()), upper),
            // a target at the range's upper bound is excluded, as the bound is
            (Some(target), true) if self.upper_excl.as_deref() == Some(target.as_slice()) => (lower, upper),
            (Some(target), true) => (lower, Bound::Included(target.as_slice())),
        })
    }

    /// Emits up to `max_entries` entries (about `max_bytes`) from `cursor`, which no one changes
    /// under it, as [`RangeIter::next_chunk_filtered`] describes.
    pub(crate) fn chunk(
        &mut self,
        db: &Db,
        cursor: &mut (impl Cursor + ?Sized),
        max_entries: usize,
        max_bytes: usize,
        emit: &mut dyn FnMut(&[u8], &[u8]) -> Step,
    ) -> Result<usize> {
        if self.done || max_entries == 0 {
            return Ok(0);
        }
        self.start(cursor);
        let (mut count, mut bytes) = (0usize, 0usize);
        while count < max_entries && bytes < max_bytes {
            let Some((key, value)) = cursor.entry() else {
                cursor.status().map_err(|e| db.rocks_err(e))?;
                self.done = true;
                break;
            };
            if !self.in_bounds(key) {
                self.done = true;
                break;
            }
            if emit(key, value).tally(key, value, &mut count, &mut bytes) {
                break;
            }
            self.advance(cursor);
        }
        Ok(count)
    }
}

/// A cursor no one changes under it (committed data, or a merge read at one snapshot), walked
/// in chunks. Keeps the snapshot it reads (if any) and the Db alive while it is open.
pub(crate) struct CursorChunks<C> {
    // Declared first: dropped before the snapshot and the Db it reads.
    cursor: C,
    walk: Walk,
    _snapshot: Option<Arc<Snapshot>>,
    db: Arc<Db>,
}

impl<C: Cursor + Send + 'static> CursorChunks<C> {
    /// An iterator walking `cursor` over `walk`'s range.
    pub(crate) fn open(cursor: C, walk: Walk, snapshot: Option<Arc<Snapshot>>, db: &Arc<Db>) -> RangeIter {
        RangeIter::new(CursorChunks { cursor, walk, _snapshot: snapshot, db: db.clone() })
    }
}

impl<C: Cursor + Send> Chunks for CursorChunks<C> {
    fn next_chunk(
        &mut self,
        max_entries: usize,
        max_bytes: usize,
        emit: &mut dyn FnMut(&[u8], &[u8]) -> Step,
    ) -> Result<usize> {
        self.walk.chunk(&self.db, &mut self.cursor, max_entries, max_bytes, emit)
    }

    fn seek(&mut self, target: &[u8]) {
        self.walk.seek(&mut self.cursor, target)
    }
}

/// Committed data only, as of the iterator's creation (or of `snapshot`), under any strategy.
pub(crate) fn committed(db: &Arc<Db>, range: &Range, snapshot: Option<Arc<Snapshot>>) -> RangeIter {
    let walk = Walk::new(range);
    let mut read_options = walk.read_options();
    if let Some(snapshot) = &snapshot {
        read_options.set_snapshot(&snapshot.rocks);
    }
    let cursor = Db::raw_iterator(db, DATA_CF, read_options);
    CursorChunks::open(cursor, walk, snapshot, db)
}

#[cfg(test)]
mod tests {
    use super::prefix_successor;

    #[test]
    fn successor_skips_trailing_ff() {
        assert_eq!(prefix_successor(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_successor(&[1, 0xFF]), Some(vec![2]));
        assert_eq!(prefix_successor(&[0xFF, 0xFF]), None);
        assert_eq!(prefix_successor(b""), None);
    }
}
