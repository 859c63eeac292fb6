//! Write-through (a store opened with `transactional: false`, as Kafka's non-transactional
//! stores): every write goes straight to committed data, and a commit records offsets only.

use crate::db::{Db, Write};
use crate::error::Result;
use crate::iter::{self, Range, RangeIter};
use crate::offsets::{self, OffsetWrites};
use crate::staging::Staging;
use rust_rocksdb::WriteBatch;
use std::sync::Arc;

pub(crate) struct Direct {
    db: Arc<Db>,
}

impl Direct {
    pub(crate) fn new(db: Arc<Db>) -> Direct {
        Direct { db }
    }
}

impl Staging for Direct {
    fn get_with<R>(&self, key: &[u8], _committed_only: bool, f: impl FnOnce(Option<&[u8]>) -> R) -> Result<R> {
        Ok(f(self.db.get_committed(key, None)?.as_deref()))
    }

    fn write_all<'a>(&self, writes: impl IntoIterator<Item = Write<'a>>) -> Result<()> {
        self.db.write_committed(writes)
    }

    fn range(&self, range: Range) -> Result<RangeIter> {
        Ok(iter::committed(&self.db, &range, None))
    }

    fn commit(&self, offset_writes: OffsetWrites) -> Result<()> {
        let mut batch = WriteBatch::default();
        offsets::append_writes(&mut batch, self.db.offsets(), &offset_writes);
        self.db.write_commit(&batch, true)
    }

    fn rollback(&self) -> Result<()> {
        Ok(())
    }

    fn check_writable(&self) -> Result<()> {
        Ok(())
    }

    fn uncommitted_bytes(&self) -> u64 {
        0
    }

    fn staged_writes(&self) -> u64 {
        0
    }

    fn has_writes(&self) -> bool {
        false
    }
}
