//! The indexed-batch transaction strategy: a transaction's writes wait in memory, in an ordered
//! map, and a commit writes them with the offsets in ONE atomic RocksDB write.
//!
//! Reads see the map over committed data: `get` looks in the map first; iterators merge the map
//! with a RocksDB iterator over committed data. The map and its merge live in `batch.rs` (the
//! secondary-store strategy keeps the unspilled part of its transactions there too).

use crate::batch::{self, Batch, BatchChunks};
use crate::db::{Db, Write};
use crate::error::Result;
use crate::fault;
use crate::iter::{self, Range, RangeIter, Walk};
use crate::offsets::OffsetWrites;
use crate::options::DATA_CF;
use crate::staging::{lock, Staging};
use std::sync::{Arc, Mutex};

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
        Ok(RangeIter::new(BatchChunks::new(base, walk, batch, None, self.db.clone())))
    }

    fn commit(&self, offset_writes: OffsetWrites) -> Result<()> {
        let mut current = lock(&self.current);
        fault::point("commit:begin")?;
        {
            let staged = lock(&current.writes);
            batch::commit_in_one_write(&self.db, &staged, &staged.range_deletes, &offset_writes)?;
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

    fn has_writes(&self) -> bool {
        let batch = self.batch();
        let writes = lock(&batch.writes);
        !writes.entries.is_empty() || !writes.range_deletes.is_empty()
    }
}
