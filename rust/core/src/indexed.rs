//! The indexed-batch transaction strategy: a transaction's writes wait in memory, in a RocksDB
//! `WriteBatchWithIndex`, and a commit writes them with the offsets in ONE atomic RocksDB write.
//!
//! Reads see the batch over committed data (`GetFromBatchAndDB`, RocksDB's base-delta iterator).
//! Every transaction has its own [`Batch`], shared (`Arc`) with the iterators opened during it: a
//! commit swaps in a fresh batch instead of clearing this one, so an iterator never reads freed
//! memory. Writes and chunk reads hold the batch's mutex; each write bumps its version, and an
//! iterator that sees a new version re-seeks past the last key it returned, so it never reads a
//! slice the batch has moved.

use crate::db::{Db, RawIterator, Write, DATA_CF};
use crate::error::Result;
use crate::fault;
use crate::iter::{Chunks, CommittedChunks, Range, RangeIter, Walk};
use crate::offsets::{self, OffsetWrites};
use crate::staging::{lock, Staging};
use rust_rocksdb::{ReadOptions, WriteBatch, WriteBatchWithIndex};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The writes of one transaction.
struct Batch {
    writes: Mutex<WriteBatchWithIndex>,
    /// Counts mutations of `writes`, so live iterators know to re-seek.
    version: AtomicU64,
    /// Range deletes, applied after the records at commit. RocksDB's `WriteBatchWithIndex` drops
    /// range deletes silently, so they are kept here; reads never look at the ranges they cover.
    range_deletes: Mutex<Vec<(Vec<u8>, Vec<u8>)>>,
}

impl Batch {
    fn new() -> Arc<Batch> {
        Arc::new(Batch {
            writes: Mutex::new(WriteBatchWithIndex::new(0, true)),
            version: AtomicU64::new(0),
            range_deletes: Mutex::new(Vec::new()),
        })
    }
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
        IndexedBatch { db, current: Mutex::new(Batch::new()) }
    }
}

impl Staging for IndexedBatch {
    fn get_with<R>(&self, key: &[u8], committed_only: bool, f: impl FnOnce(Option<&[u8]>) -> R) -> Result<R> {
        if committed_only {
            return Ok(f(self.db.get_committed(key, None)?.as_deref()));
        }
        let current = lock(&self.current);
        let writes = lock(&current.writes);
        if writes.is_empty() {
            return Ok(f(self.db.get_committed(key, None)?.as_deref()));
        }
        let value = writes
            .get_pinned_from_batch_and_db_cf(&self.db.rocks, self.db.data(), key, &ReadOptions::default())
            .map_err(|e| self.db.err(e))?;
        Ok(f(value.as_deref()))
    }

    fn write_all<'a>(&self, writes: impl IntoIterator<Item = Write<'a>>) -> Result<()> {
        let data = self.db.data();
        let current = lock(&self.current);
        let mut batch = lock(&current.writes);
        for write in writes {
            match write {
                Write::Put(key, value) => batch.put_cf(data, key, value),
                Write::Delete(key) => batch.delete_cf(data, key),
                // A later put into the range must survive the commit, so the range delete applies
                // to the puts staged so far only: callers never put into a range they deleted
                // (expired segments), which keeps "after the batch" correct.
                Write::DeleteRange(from, to) => lock(&current.range_deletes).push((from.to_vec(), to.to_vec())),
            }
        }
        current.version.fetch_add(1, Ordering::Release);
        Ok(())
    }

    fn range(&self, range: Range) -> Result<RangeIter> {
        if range.committed_only {
            return Ok(CommittedChunks::open(&self.db, &range, None));
        }
        let walk = Walk::new(&range, true);
        // Held while both halves are created, so a concurrent commit cannot fall between them.
        let current = lock(&self.current);
        let base = Db::raw_iterator(&self.db, DATA_CF, walk.read_options());
        let batch = current.clone();
        let writes = lock(&batch.writes);
        // SAFETY: the indexed batch lives inside `batch`, an Arc the iterator keeps until its
        // cursor is dropped (field order); RocksDB keeps only the raw pointer, and every later use
        // of the cursor happens with the batch's mutex held.
        let indexed: &'static WriteBatchWithIndex = unsafe { &*(&*writes as *const WriteBatchWithIndex) };
        let cursor = indexed.iterator_with_base_cf(base, self.db.data());
        let seen_version = batch.version.load(Ordering::Acquire);
        drop(writes);
        drop(current);
        Ok(RangeIter::new(BatchChunks { cursor, walk, batch, seen_version, db: self.db.clone() }))
    }

    fn commit(&self, offset_writes: OffsetWrites) -> Result<()> {
        let mut current = lock(&self.current);
        fault::point("commit:begin")?;
        {
            // One plain WriteBatch: the staged records (copied from the indexed batch, whose
            // record format is the same), then range deletes and offsets. The indexed batch is
            // not touched, so a failed write leaves the transaction as it was.
            let mut batch = WriteBatch::from_data(lock(&current.writes).data());
            let data = self.db.data();
            for (from, to) in lock(&current.range_deletes).iter() {
                batch.delete_range_cf(data, from, to);
            }
            offsets::append_writes(&mut batch, &self.db, &offset_writes);
            self.db.rocks.write_opt(&batch, &self.db.commit_write_options()).map_err(|e| self.db.err(e))?;
        }
        fault::point("commit:after-write")?;
        *current = Batch::new();
        Ok(())
    }

    fn rollback(&self) -> Result<()> {
        *lock(&self.current) = Batch::new();
        Ok(())
    }

    fn check_writable(&self) -> Result<()> {
        Ok(())
    }

    fn uncommitted_bytes(&self) -> u64 {
        let current = lock(&self.current);
        let writes = lock(&current.writes);
        // An empty batch still holds RocksDB's 12-byte header.
        if writes.is_empty() {
            0
        } else {
            writes.size_in_bytes() as u64
        }
    }

    fn staged_writes(&self) -> u64 {
        lock(&lock(&self.current).writes).len() as u64
    }
}

/// The batch of one transaction over committed data (RocksDB's base-delta iterator). It sees
/// committed data as of its creation plus the writes of that transaction, including writes made
/// while it is open.
struct BatchChunks {
    // Declared first: dropped before the batch and the Db it points into.
    cursor: RawIterator,
    walk: Walk,
    batch: Arc<Batch>,
    seen_version: u64,
    db: Arc<Db>,
}

impl Chunks for BatchChunks {
    fn next_chunk(
        &mut self,
        max_entries: usize,
        max_bytes: usize,
        emit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<usize> {
        let _writes = lock(&self.batch.writes);
        let version = self.batch.version.load(Ordering::Acquire);
        let moved = version != self.seen_version;
        self.seen_version = version;
        self.walk.chunk(&self.db, &mut self.cursor, moved, max_entries, max_bytes, emit)
    }
}
