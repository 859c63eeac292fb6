//! A transaction's writes in memory: an ordered map of key → value (or delete), and its merge over
//! a cursor of what lies beneath (committed data, or under secondary-store the temporary store
//! merged over it). The indexed-batch strategy keeps a whole transaction here; the secondary-store
//! strategy keeps the part of one that has not spilled to its temporary store.
//!
//! Iterators read the map one chunk at a time, resuming after the last key they returned. Under
//! indexed-batch every transaction has its own [`Batch`], shared (`Arc`) with the iterators opened
//! during it (a commit swaps in a fresh batch instead of clearing this one), which they read under
//! its mutex, so they also see writes made while they are open. Under secondary-store an iterator
//! holds the map as it was when it opened ([`Staged`]). The map and its merge are ours, not a
//! RocksDB `WriteBatchWithIndex`, because its base-delta iterator scans staged writes several
//! times slower (docs/profiles.md, "Costs behind choices in the code").

use crate::db::{Db, Snapshot};
use crate::error::Result;
use crate::iter::{Chunks, Cursor, Step, Walk};
use crate::offsets::{self, OffsetWrites};
use crate::staging::lock;
use rust_rocksdb::{AsColumnFamilyRef, WriteBatch};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The writes of one transaction: key → value, or `None` for a delete.
#[derive(Default, Clone)]
pub(crate) struct Writes {
    pub(crate) entries: BTreeMap<Vec<u8>, Option<Vec<u8>>>,
    /// Key and value bytes of `entries`.
    pub(crate) bytes: u64,
    /// Range deletes, applied after the records at commit; reads never look at the ranges they
    /// cover (callers use them only for expired segments).
    pub(crate) range_deletes: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Writes {
    /// Stages `value` (or a delete) for `key`, taking ownership of both.
    pub(crate) fn stage_owned(&mut self, key: Vec<u8>, value: Option<Vec<u8>>) {
        let key_len = key.len() as u64;
        let added = key_len + value.as_ref().map_or(0, Vec::len) as u64;
        let removed = match self.entries.insert(key, value) {
            Some(old) => key_len + old.map_or(0, |old| old.len()) as u64,
            None => 0,
        };
        self.bytes = self.bytes + added - removed;
    }

    pub(crate) fn stage(&mut self, key: &[u8], value: Option<&[u8]>) {
        let added = (key.len() + value.map_or(0, <[u8]>::len)) as u64;
        if let Some(existing) = self.entries.get_mut(key) {
            let removed = (key.len() + existing.as_ref().map_or(0, Vec::len)) as u64;
            match (existing.as_mut(), value) {
                // reuse the allocation when it fits
                (Some(old), Some(new)) => {
                    old.clear();
                    old.extend_from_slice(new);
                }
                (_, new) => *existing = new.map(<[u8]>::to_vec),
            }
            self.bytes = self.bytes - removed + added;
        } else {
            self.entries.insert(key.to_vec(), value.map(<[u8]>::to_vec));
            self.bytes += added;
        }
    }

    /// Adds the staged records, in key order, to `batch` as writes to `family`.
    pub(crate) fn append_records(&self, batch: &mut WriteBatch, family: &impl AsColumnFamilyRef) {
        for (key, value) in &self.entries {
            match value {
                Some(value) => batch.put_cf(family, key, value),
                None => batch.delete_cf(family, key),
            }
        }
    }
}

/// Commits `writes` in ONE atomic RocksDB write: the records in key order (RocksDB's memtable then
/// finds each insert position next to the previous one), then `range_deletes`, then the offsets
/// (see `Db::write_commit`). Nothing in `writes` is touched, so a failed write leaves the
/// transaction as it was.
pub(crate) fn commit_in_one_write(
    db: &Db,
    writes: &Writes,
    range_deletes: &[(Vec<u8>, Vec<u8>)],
    offset_writes: &OffsetWrites,
) -> Result<()> {
    let data = db.data();
    let mut batch = WriteBatch::default();
    writes.append_records(&mut batch, &data);
    for (from, to) in range_deletes {
        batch.delete_range_cf(data, from, to);
    }
    offsets::append_writes(&mut batch, db.offsets(), offset_writes);
    db.write_commit(&batch, writes.entries.is_empty() && range_deletes.is_empty())
}

/// One transaction's writes (or, under secondary-store, those since its last spill), shared with
/// the iterators opened during it.
#[derive(Default)]
pub(crate) struct Batch {
    pub(crate) writes: Mutex<Writes>,
}

/// Where a [`BatchChunks`] finds the writes it merges: a live [`Batch`] (indexed-batch: looked up
/// afresh at every chunk, so the iterator sees writes made while it is open), or writes frozen when
/// the iterator opened (secondary-store: an `Arc<Writes>` the writer copies before changing it
/// while an iterator holds it, so the iterator is a snapshot).
pub(crate) trait Staged: Send {
    fn read<R>(&self, f: impl FnOnce(&Writes) -> R) -> R;
}

impl Staged for Arc<Batch> {
    fn read<R>(&self, f: impl FnOnce(&Writes) -> R) -> R {
        f(&lock(&self.writes))
    }
}

impl Staged for Arc<Writes> {
    fn read<R>(&self, f: impl FnOnce(&Writes) -> R) -> R {
        f(self)
    }
}

/// Staged writes merged over `base`. It sees `base` as the cursor does (RocksDB iterators read at
/// their creation, or at `snapshot`) plus the writes of `staged` (see [`Staged`]): each chunk looks
/// up the map again after the last key returned.
pub(crate) struct BatchChunks<C, S> {
    // Declared first: dropped before the snapshot and the Db it reads.
    base: C,
    walk: Walk,
    staged: S,
    _snapshot: Option<Arc<Snapshot>>,
    db: Arc<Db>,
}

impl<C: Cursor + Send, S: Staged> BatchChunks<C, S> {
    /// `staged` merged over `base` in `walk`'s range; `snapshot` (if any) is the one `base` reads.
    pub(crate) fn new(base: C, walk: Walk, staged: S, snapshot: Option<Arc<Snapshot>>, db: Arc<Db>) -> Self {
        BatchChunks { base, walk, staged, _snapshot: snapshot, db }
    }
}

impl<C: Cursor + Send, S: Staged> Chunks for BatchChunks<C, S> {
    fn next_chunk(
        &mut self,
        max_entries: usize,
        max_bytes: usize,
        emit: &mut dyn FnMut(&[u8], &[u8]) -> Step,
    ) -> Result<usize> {
        if self.walk.is_done() || max_entries == 0 {
            return Ok(0);
        }
        let BatchChunks { base, walk, staged, db, .. } = self;
        staged.read(|writes| {
            let Some(bounds) = walk.remaining_bounds() else { return Ok(0) };
            let staged = writes.entries.range::<[u8], _>(bounds);
            if walk.reverse() {
                merge(walk, db, base, staged.rev(), max_entries, max_bytes, emit)
            } else {
                merge(walk, db, base, staged, max_entries, max_bytes, emit)
            }
        })
    }

    fn seek(&mut self, target: &[u8]) {
        // the map is looked up afresh at the next chunk, from the target on
        self.walk.seek(&mut self.base, target)
    }
}

/// Which side holds the next entry of a merge.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    Base,
    Staged,
    /// Both hold the key: the staged write wins.
    Both,
}

/// Emits up to `max_entries` entries (about `max_bytes`) of `staged` (in iteration order, inside
/// the walk's remaining range) merged over `base`, as [`crate::RangeIter::next_chunk_filtered`]
/// describes; staged deletes hide base entries and are never emitted.
fn merge<'m>(
    walk: &mut Walk,
    db: &Db,
    base: &mut impl Cursor,
    staged: impl Iterator<Item = (&'m Vec<u8>, &'m Option<Vec<u8>>)>,
    max_entries: usize,
    max_bytes: usize,
    emit: &mut dyn FnMut(&[u8], &[u8]) -> Step,
) -> Result<usize> {
    use std::cmp::Ordering::*;
    walk.start(base);
    let reverse = walk.reverse();
    let mut staged = staged.peekable();
    let (mut count, mut bytes) = (0usize, 0usize);
    while count < max_entries && bytes < max_bytes {
        let next = match (base.entry(), staged.peek()) {
            (None, None) => {
                base.status().map_err(|e| db.rocks_err(e))?;
                walk.finish();
                break;
            }
            (Some(_), None) => Next::Base,
            (None, Some(_)) => Next::Staged,
            (Some((base_key, _)), Some((staged_key, _))) => match (base_key.cmp(staged_key.as_slice()), reverse) {
                (Equal, _) => Next::Both,
                (Less, false) | (Greater, true) => Next::Base,
                _ => Next::Staged,
            },
        };
        match next {
            Next::Base => {
                let (key, value) = base.entry().expect("base entry checked above");
                if emit(key, value).tally(key, value, &mut count, &mut bytes) {
                    break;
                }
                walk.remember(key);
                advance(base, reverse);
            }
            Next::Staged | Next::Both => {
                let (key, value) = staged.next().expect("staged entry checked above");
                // a staged delete hides the base entry and is not returned
                if let Some(value) = value {
                    if emit(key, value).tally(key, value, &mut count, &mut bytes) {
                        break;
                    }
                    walk.remember(key);
                }
                if next == Next::Both {
                    advance(base, reverse);
                }
            }
        }
    }
    Ok(count)
}

fn advance(base: &mut impl Cursor, reverse: bool) {
    if reverse {
        base.prev()
    } else {
        base.next()
    }
}

#[cfg(test)]
mod tests {
    use super::Writes;

    #[test]
    fn owned_and_borrowed_staging_count_the_same_bytes() {
        let (mut borrowed, mut owned) = (Writes::default(), Writes::default());
        for (key, value) in [(&b"a"[..], Some(&b"12345"[..])), (b"b", None), (b"a", Some(b"1")), (b"a", None)] {
            borrowed.stage(key, value);
            owned.stage_owned(key.to_vec(), value.map(<[u8]>::to_vec));
            assert_eq!(borrowed.bytes, owned.bytes);
            assert_eq!(borrowed.entries, owned.entries);
        }
        assert_eq!(owned.bytes, 2); // "a" deleted, "b" deleted: two keys of one byte
    }
}
