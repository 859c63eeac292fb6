//! Range iteration over committed data merged with the staged writes, in chunks.

use crate::error::Result;
use crate::secondary;
use crate::store::{lock, Frozen, Inner, Staged};
use rust_rocksdb::{DBRawIteratorWithThreadMode, ReadOptions, WriteBatchWithIndex, DB};
use std::sync::atomic::Ordering;
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
    let mut s = prefix.to_vec();
    while let Some(last) = s.pop() {
        if last < 0xFF {
            s.push(last + 1);
            return Some(s);
        }
    }
    None
}

/// An open iterator. It sees committed data as of its creation plus the writes of the transaction
/// that was current then (including writes made while it is open: it re-seeks after each
/// mutation, so it never touches a slice the batch has moved).
///
/// Keeps the store (`Arc<Inner>`) and the staged batch (`Arc<Staged>`) alive, so closing the store
/// or committing while it is open never frees memory it reads.
pub struct RangeIter {
    // Declared first: dropped before the owners of the memory it points into.
    it: Cursor,
    staged: Option<Arc<Staged>>,
    /// The snapshot the iterator reads, when it is not RocksDB's implicit one.
    _snapshot: Option<Arc<Frozen>>,
    _inner: Arc<Inner>,
    lower: Option<Vec<u8>>,
    upper_excl: Option<Vec<u8>>,
    reverse: bool,
    started: bool,
    done: bool,
    seen_version: u64,
    last_key: Vec<u8>,
}

impl RangeIter {
    pub(crate) fn new(inner: Arc<Inner>, range: Range) -> Result<RangeIter> {
        let upper_excl = match (range.to, range.to_inclusive) {
            (Some(mut to), true) => {
                to.push(0); // the smallest key greater than `to`
                Some(to)
            }
            (to, _) => to,
        };
        let empty = matches!((&range.from, &upper_excl), (Some(l), Some(u)) if l >= u);
        let bounded = || {
            let mut ro = ReadOptions::default();
            if !empty {
                if let Some(l) = &range.from {
                    ro.set_iterate_lower_bound(l.clone());
                }
                if let Some(u) = &upper_excl {
                    ro.set_iterate_upper_bound(u.clone());
                }
            }
            ro
        };
        // SAFETY: `db` lives inside `inner`, which this iterator keeps alive (`_inner`) and which is
        // dropped only after `it` (field order). The 'static lifetime never escapes this struct.
        let db: &'static DB = unsafe { &*(&inner.db as *const DB) };
        let cf = db.cf_handle(crate::store::DATA_CF).ok_or_else(|| inner.err("data column family missing"))?;
        let mut transactional = inner.options.transactional && !range.committed_only;
        if transactional && inner.options.secondary() {
            if inner.tmp_dirty.load(Ordering::Acquire) {
                let ro = bounded();
                return Self::merged(inner.clone(), range.from, range.reverse, upper_excl, empty, ro);
            }
            // nothing staged in the temporary store: the committed data is the whole view
            transactional = false;
        }
        let (it, staged, seen_version, snapshot) = if transactional {
            // Held while both halves are created, so a concurrent commit cannot fall between them.
            let current = inner.lock_staged();
            let base = db.raw_iterator_cf_opt(cf, bounded());
            let staged = current.clone();
            let batch = lock(&staged.batch);
            // SAFETY: the batch lives inside `staged` (an Arc this iterator keeps until `it` is
            // dropped); RocksDB only keeps the raw pointer, and every later use of `it` happens
            // with the batch's mutex held.
            let batch_ref: &'static WriteBatchWithIndex = unsafe { &*(&*batch as *const WriteBatchWithIndex) };
            let it = batch_ref.iterator_with_base_cf(base, cf);
            let version = staged.version.load(Ordering::Acquire);
            drop(batch);
            drop(current);
            (it, Some(staged), version, None)
        } else {
            // The committed view, never half of a secondary-store commit, without waiting for one.
            let (it, snapshot) = inner.committed_read(|frozen| {
                let mut ro = bounded();
                if let Some(f) = frozen {
                    ro.set_snapshot(&f.0);
                }
                db.raw_iterator_cf_opt(cf, ro)
            });
            (it, None, 0, snapshot)
        };
        Ok(RangeIter {
            it: Cursor::Raw(it),
            staged,
            _snapshot: snapshot,
            _inner: inner,
            lower: range.from,
            upper_excl,
            reverse: range.reverse,
            started: false,
            done: empty,
            seen_version,
            last_key: Vec::new(),
        })
    }

    /// Secondary-store strategy: the temporary store's current generation merged over the main
    /// store, both read at ONE snapshot, so a commit landing meanwhile is invisible to it.
    fn merged(
        inner: Arc<Inner>,
        from: Option<Vec<u8>>,
        reverse: bool,
        upper_excl: Option<Vec<u8>>,
        empty: bool,
        mut main_ro: ReadOptions,
    ) -> Result<RangeIter> {
        let snapshot = Frozen::new(&inner);
        // SAFETY: as in `new`; `db` outlives the iterators through `_inner`.
        let db: &'static DB = unsafe { &*(&inner.db as *const DB) };
        let generation = inner.generation.load(Ordering::Acquire);
        let (gen_lo, gen_hi) = secondary::generation_bounds(generation);
        let mut tmp_ro = ReadOptions::default();
        let prefixed = |k: &[u8]| secondary::tmp_key(generation, k);
        tmp_ro.set_iterate_lower_bound(from.as_deref().map_or(gen_lo, prefixed));
        tmp_ro.set_iterate_upper_bound(upper_excl.as_deref().map_or(gen_hi, prefixed));
        main_ro.set_snapshot(&snapshot.0);
        tmp_ro.set_snapshot(&snapshot.0);
        let main = db.raw_iterator_cf_opt(inner.data_cf(), main_ro);
        let tmp = db.raw_iterator_cf_opt(inner.txn_cf(), tmp_ro);
        let cursor = Merged { main, tmp, generation, reverse, side: Side::None };
        Ok(RangeIter {
            it: Cursor::Merged(Box::new(cursor)),
            staged: None,
            _snapshot: Some(snapshot),
            _inner: inner,
            lower: from,
            upper_excl,
            reverse,
            started: false,
            done: empty,
            seen_version: 0,
            last_key: Vec::new(),
        })
    }

    fn in_bounds(&self, key: &[u8]) -> bool {
        self.lower.as_deref().is_none_or(|l| key >= l) && self.upper_excl.as_deref().is_none_or(|u| key < u)
    }

    fn advance(&mut self) {
        if self.reverse {
            self.it.prev()
        } else {
            self.it.next()
        }
    }

    fn position(&mut self, version: u64) {
        if !self.started {
            self.started = true;
            match (self.reverse, &self.lower, &self.upper_excl) {
                (false, Some(l), _) => self.it.seek(l),
                (false, None, _) => self.it.seek_to_first(),
                (true, _, Some(u)) => self.it.seek_for_prev(u),
                (true, _, None) => self.it.seek_to_last(),
            }
        } else if version != self.seen_version {
            // The batch changed since the last chunk: re-seek past the last key we returned.
            if self.reverse {
                self.it.seek_for_prev(&self.last_key);
            } else {
                self.it.seek(&self.last_key);
            }
            if self.it.key() == Some(self.last_key.as_slice()) {
                self.advance();
            }
        }
        self.seen_version = version;
        // The upper bound is exclusive; seek_for_prev may land on it exactly.
        while self.reverse && self.it.key().is_some_and(|k| self.upper_excl.as_deref().is_some_and(|u| k >= u)) {
            self.it.prev();
        }
    }

    /// Calls `emit(key, value)` for up to `max_entries` further entries, stopping early once
    /// `max_bytes` of keys and values were emitted (but always emitting at least one entry if any
    /// is left). Returns how many were emitted; 0 means the iterator is exhausted.
    pub fn next_chunk(&mut self, max_entries: usize, max_bytes: usize, mut emit: impl FnMut(&[u8], &[u8])) -> Result<usize> {
        self.next_chunk_filtered(max_entries, max_bytes, |k, v| {
            emit(k, v);
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
        if self.done || max_entries == 0 {
            return Ok(0);
        }
        let staged = self.staged.clone();
        let _batch_guard = staged.as_ref().map(|s| lock(&s.batch));
        let version = staged.as_ref().map_or(0, |s| s.version.load(Ordering::Acquire));
        self.position(version);
        let (mut count, mut bytes) = (0usize, 0usize);
        while count < max_entries && bytes < max_bytes {
            let (key, value) = match self.it.entry() {
                Some(kv) => kv,
                None => {
                    self.it.status().map_err(|e| self._inner.err(e))?;
                    self.done = true;
                    break;
                }
            };
            if !self.in_bounds(key) {
                self.done = true;
                break;
            }
            let took = emit(key, value);
            if took {
                count += 1;
                bytes += key.len() + value.len();
            }
            if self.staged.is_some() {
                // only a live batch can move under us and need a re-seek past this key
                self.last_key.clear();
                self.last_key.extend_from_slice(key);
            }
            self.advance();
        }
        Ok(count)
    }

    /// Convenience for tests and small scans: every remaining entry.
    pub fn collect_all(&mut self) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut out = Vec::new();
        while self.next_chunk(1024, usize::MAX, |k, v| out.push((k.to_vec(), v.to_vec())))? > 0 {}
        Ok(out)
    }
}

/// What a [`RangeIter`] walks: RocksDB's iterator (committed data, or the indexed batch over it),
/// or the secondary-store strategy's merge of the temporary store over the main store.
enum Cursor {
    Raw(DBRawIteratorWithThreadMode<'static, DB>),
    Merged(Box<Merged>),
}

impl Cursor {
    fn entry(&self) -> Option<(&[u8], &[u8])> {
        match self {
            Cursor::Raw(it) => it.key().zip(it.value()),
            Cursor::Merged(m) => m.entry(),
        }
    }
    fn key(&self) -> Option<&[u8]> {
        self.entry().map(|(k, _)| k)
    }
    fn next(&mut self) {
        match self {
            Cursor::Raw(it) => it.next(),
            Cursor::Merged(m) => m.step(),
        }
    }
    fn prev(&mut self) {
        match self {
            Cursor::Raw(it) => it.prev(),
            Cursor::Merged(m) => m.step(),
        }
    }
    fn seek(&mut self, k: &[u8]) {
        match self {
            Cursor::Raw(it) => it.seek(k),
            Cursor::Merged(m) => m.position(|it, g| it.seek(secondary::tmp_key(g, k)), |it| it.seek(k)),
        }
    }
    fn seek_for_prev(&mut self, k: &[u8]) {
        match self {
            Cursor::Raw(it) => it.seek_for_prev(k),
            Cursor::Merged(m) => {
                m.position(|it, g| it.seek_for_prev(secondary::tmp_key(g, k)), |it| it.seek_for_prev(k))
            }
        }
    }
    fn seek_to_first(&mut self) {
        match self {
            Cursor::Raw(it) => it.seek_to_first(),
            // the temporary iterator's lower bound is its generation (or the range start)
            Cursor::Merged(m) => m.position(|it, _| it.seek_to_first(), |it| it.seek_to_first()),
        }
    }
    fn seek_to_last(&mut self) {
        match self {
            Cursor::Raw(it) => it.seek_to_last(),
            Cursor::Merged(m) => m.position(|it, _| it.seek_to_last(), |it| it.seek_to_last()),
        }
    }
    fn status(&self) -> std::result::Result<(), rust_rocksdb::Error> {
        match self {
            Cursor::Raw(it) => it.status(),
            Cursor::Merged(m) => m.main.status().and(m.tmp.status()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    None,
    Main,
    Tmp,
    /// Both have the key: the temporary store's entry wins.
    Both,
}

/// The merge of the temporary store (keys `generation ++ key`, marked values) over the main store,
/// in one direction; tombstones hide main entries and are never emitted.
struct Merged {
    main: DBRawIteratorWithThreadMode<'static, DB>,
    tmp: DBRawIteratorWithThreadMode<'static, DB>,
    generation: u64,
    reverse: bool,
    side: Side,
}

impl Merged {
    fn position(
        &mut self,
        tmp: impl FnOnce(&mut DBRawIteratorWithThreadMode<'static, DB>, u64),
        main: impl FnOnce(&mut DBRawIteratorWithThreadMode<'static, DB>),
    ) {
        tmp(&mut self.tmp, self.generation);
        main(&mut self.main);
        self.settle();
    }

    fn move_it(it: &mut DBRawIteratorWithThreadMode<'static, DB>, reverse: bool) {
        if reverse {
            it.prev()
        } else {
            it.next()
        }
    }

    /// Moves past the current entry.
    fn step(&mut self) {
        match self.side {
            Side::None => return,
            Side::Main => Self::move_it(&mut self.main, self.reverse),
            Side::Tmp => Self::move_it(&mut self.tmp, self.reverse),
            Side::Both => {
                Self::move_it(&mut self.main, self.reverse);
                Self::move_it(&mut self.tmp, self.reverse);
            }
        }
        self.settle();
    }

    /// Chooses the next entry in iteration order, skipping tombstones (and what they hide).
    fn settle(&mut self) {
        use std::cmp::Ordering::*;
        loop {
            let tmp = self.tmp.key().map(|k| (&k[8..], self.tmp.value().is_some_and(secondary::is_tombstone)));
            let main = self.main.key();
            let (side, tombstone) = match (main, tmp) {
                (None, None) => (Side::None, false),
                (Some(_), None) => (Side::Main, false),
                (None, Some((_, t))) => (Side::Tmp, t),
                (Some(m), Some((k, t))) => match (m.cmp(k), self.reverse) {
                    (Equal, _) => (Side::Both, t),
                    (Less, false) | (Greater, true) => (Side::Main, false),
                    _ => (Side::Tmp, t),
                },
            };
            self.side = side;
            if !tombstone {
                return;
            }
            self.step_raw();
        }
    }

    fn step_raw(&mut self) {
        match self.side {
            Side::Tmp => Self::move_it(&mut self.tmp, self.reverse),
            Side::Both => {
                Self::move_it(&mut self.main, self.reverse);
                Self::move_it(&mut self.tmp, self.reverse);
            }
            Side::None | Side::Main => {}
        }
    }

    fn entry(&self) -> Option<(&[u8], &[u8])> {
        match self.side {
            Side::None => None,
            Side::Main => self.main.key().zip(self.main.value()),
            Side::Tmp | Side::Both => {
                let (k, v) = self.tmp.key().zip(self.tmp.value())?;
                Some((&k[8..], secondary::decode_value(v)?))
            }
        }
    }
}

impl std::fmt::Debug for RangeIter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RangeIter").field("reverse", &self.reverse).field("done", &self.done).finish()
    }
}

// The JNI layer moves iterators between threads behind a mutex.
const _: fn() = || {
    fn assert_send<T: Send>() {}
    assert_send::<RangeIter>();
};

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
