//! The indexed-batch transaction strategy: a transaction's writes wait in memory, in an ordered
//! map, and a commit writes them with the offsets in ONE atomic RocksDB write.
//!
//! Reads see the map over committed data: `get` looks in the map first; iterators merge the map
//! with a RocksDB iterator over committed data (our own merge, which is 3x faster than RocksDB's
//! base-delta iterator over a `WriteBatchWithIndex`). Every transaction has its own [`Batch`],
//! shared (`Arc`) with the iterators opened during it: a commit swaps in a fresh batch instead of
//! clearing this one. An iterator reads the map under its mutex, one chunk at a time, resuming
//! after the last key it returned, so it also sees writes made while it is open.

use crate::db::{Db, RawIterator, Write, DATA_CF};
use crate::error::Result;
use crate::fault;
use crate::iter::{self, Chunks, Range, RangeIter, Step, Walk};
use crate::offsets::{self, OffsetWrites};
use crate::staging::{lock, Staging};
use rust_rocksdb::WriteBatch;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The writes of one transaction: key → value, or `None` for a delete.
#[derive(Default)]
struct Writes {
    entries: BTreeMap<Vec<u8>, Option<Vec<u8>>>,
    /// Key and value bytes of `entries`.
    bytes: u64,
    /// Range deletes, applied after the records at commit; reads never look at the ranges they
    /// cover (callers use them only for expired segments).
    range_deletes: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Writes {
    /// Stages `value` (or a delete) for `key`, taking ownership of both.
    fn stage_owned(&mut self, key: Vec<u8>, value: Option<Vec<u8>>) {
        let key_len = key.len() as u64;
        let added = key_len + value.as_ref().map_or(0, Vec::len) as u64;
        let removed = match self.entries.insert(key, value) {
            Some(old) => key_len + old.map_or(0, |old| old.len()) as u64,
            None => 0,
        };
        self.bytes = self.bytes + added - removed;
    }

    fn stage(&mut self, key: &[u8], value: Option<&[u8]>) {
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
}

/// One transaction, shared with the iterators opened during it.
#[derive(Default)]
struct Batch {
    writes: Mutex<Writes>,
}

/// The staging of the indexed-batch strategy.
pub(crate) struct IndexedBatch {
    db: Arc<Db>,
    /// The current transaction. Held while a commit writes, so a new iterator never pairs a
    /// pre-commit snapshot with the post-commit (empty) batch.
    current: Mutex<Arc<Batch>>,
}

impl IndexedBatch {
    pub(crate) fn new(db: Arc<Db>) -> IndexedBatch {
        IndexedBatch { db, current: Mutex::new(Arc::default()) }
    }

    fn batch(&self) -> Arc<Batch> {
        lock(&self.current).clone()
    }
}

impl Staging for IndexedBatch {
    fn get_with<R>(&self, key: &[u8], committed_only: bool, f: impl FnOnce(Option<&[u8]>) -> R) -> Result<R> {
        if !committed_only {
            let batch = self.batch();
            let writes = lock(&batch.writes);
            if let Some(staged) = writes.entries.get(key) {
                return Ok(f(staged.as_deref()));
            }
        }
        // Not staged: the committed value (a commit landing meanwhile only makes it newer).
        Ok(f(self.db.get_committed(key, None)?.as_deref()))
    }

    fn write_all<'a>(&self, writes: impl IntoIterator<Item = Write<'a>>) -> Result<()> {
        let batch = self.batch();
        let mut staged = lock(&batch.writes);
        for write in writes {
            match write {
                Write::Put(key, value) => staged.stage(key, Some(value)),
                Write::Delete(key) => staged.stage(key, None),
                // A later put into the range must survive the commit, so the range delete applies
                // to the puts staged so far only: callers never put into a range they deleted
                // (expired segments), which keeps "after the records" correct.
                Write::DeleteRange(from, to) => staged.range_deletes.push((from.to_vec(), to.to_vec())),
            }
        }
        Ok(())
    }

    fn put_owned(&self, key: Vec<u8>, value: Option<Vec<u8>>) -> Result<()> {
        lock(&self.batch().writes).stage_owned(key, value);
        Ok(())
    }

    fn range(&self, range: Range) -> Result<RangeIter> {
        if range.committed_only {
            return Ok(iter::committed(&self.db, &range, None));
        }
        let walk = Walk::new(&range);
        // Held while both halves are taken, so a concurrent commit cannot fall between them.
        let current = lock(&self.current);
        let base = Db::raw_iterator(&self.db, DATA_CF, walk.read_options());
        let batch = current.clone();
        drop(current);
        Ok(RangeIter::new(BatchChunks { base, walk, batch, db: self.db.clone() }))
    }

    fn commit(&self, offset_writes: OffsetWrites) -> Result<()> {
        let mut current = lock(&self.current);
        fault::point("commit:begin")?;
        {
            // One WriteBatch: the staged records in key order, then range deletes and offsets.
            // The staged writes are not touched, so a failed write leaves the transaction as it was.
            let staged = lock(&current.writes);
            let data = self.db.data();
            let mut batch = WriteBatch::default();
            for (key, value) in &staged.entries {
                match value {
                    Some(value) => batch.put_cf(data, key, value),
                    None => batch.delete_cf(data, key),
                }
            }
            for (from, to) in &staged.range_deletes {
                batch.delete_range_cf(data, from, to);
            }
            offsets::append_writes(&mut batch, &self.db, &offset_writes);
            self.db.write_commit(&batch, staged.entries.is_empty() && staged.range_deletes.is_empty())?;
        }
        fault::point("commit:after-write")?;
        *current = Arc::default();
        Ok(())
    }

    fn rollback(&self) -> Result<()> {
        *lock(&self.current) = Arc::default();
        Ok(())
    }

    fn check_writable(&self) -> Result<()> {
        Ok(())
    }

    fn uncommitted_bytes(&self) -> u64 {
        lock(&self.batch().writes).bytes
    }

    fn staged_writes(&self) -> u64 {
        lock(&self.batch().writes).entries.len() as u64
    }
}

/// The writes of one transaction merged over committed data. It sees committed data as of its
/// creation plus the writes of that transaction, including writes made while it is open: each
/// chunk looks up the map again after the last key returned.
struct BatchChunks {
    // Declared first: dropped before the Db it reads.
    base: RawIterator,
    walk: Walk,
    batch: Arc<Batch>,
    db: Arc<Db>,
}

impl Chunks for BatchChunks {
    fn next_chunk(
        &mut self,
        max_entries: usize,
        max_bytes: usize,
        emit: &mut dyn FnMut(&[u8], &[u8]) -> Step,
    ) -> Result<usize> {
        if self.walk.is_done() || max_entries == 0 {
            return Ok(0);
        }
        let writes = lock(&self.batch.writes);
        let Some(bounds) = self.walk.remaining_bounds() else { return Ok(0) };
        let staged = writes.entries.range::<[u8], _>(bounds);
        if self.walk.reverse() {
            merge(&mut self.walk, &self.db, &mut self.base, staged.rev(), max_entries, max_bytes, emit)
        } else {
            merge(&mut self.walk, &self.db, &mut self.base, staged, max_entries, max_bytes, emit)
        }
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
/// the walk's remaining range) merged over `base`, as [`RangeIter::next_chunk_filtered`]
/// describes; staged deletes hide base entries and are never emitted.
fn merge<'m>(
    walk: &mut Walk,
    db: &Db,
    base: &mut RawIterator,
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
        let next = match (base.key(), staged.peek()) {
            (None, None) => {
                base.status().map_err(|e| db.rocks_err(e))?;
                walk.finish();
                break;
            }
            (Some(_), None) => Next::Base,
            (None, Some(_)) => Next::Staged,
            (Some(base_key), Some((staged_key, _))) => match (base_key.cmp(staged_key.as_slice()), reverse) {
                (Equal, _) => Next::Both,
                (Less, false) | (Greater, true) => Next::Base,
                _ => Next::Staged,
            },
        };
        match next {
            Next::Base => {
                let (key, value) = base.key().zip(base.value()).expect("base entry checked above");
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

fn advance(base: &mut RawIterator, reverse: bool) {
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
