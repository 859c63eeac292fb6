//! What a transaction strategy does: where a transaction's writes wait until the commit, how
//! reads see them over committed data, and how a commit makes them durable together with the
//! changelog offsets. Each strategy implements [`Staging`] in its own module (`direct.rs`,
//! `indexed.rs`, `secondary/`); the store chooses one when it opens (`store.rs`).

use crate::db::Write;
use crate::error::Result;
use crate::iter::{Range, RangeIter};
use crate::offsets::OffsetWrites;
use std::sync::{Mutex, MutexGuard};

pub(crate) trait Staging {
    /// Passes the value of `key` to `f`: the transaction's own write if it has one (unless
    /// `committed_only`), else the committed value.
    fn get_with<R>(&self, key: &[u8], committed_only: bool, f: impl FnOnce(Option<&[u8]>) -> R) -> Result<R>;

    /// Stages `writes` in the current transaction. A [`Write::DeleteRange`] is not visible to
    /// reads before the commit; callers use it only for data their reads already exclude.
    fn write_all<'a>(&self, writes: impl IntoIterator<Item = Write<'a>>) -> Result<()>;

    /// Stages one put (a `None` value deletes), taking ownership of the bytes; strategies that keep
    /// the bytes as they are (indexed-batch) store them without copying.
    fn put_owned(&self, key: Vec<u8>, value: Option<Vec<u8>>) -> Result<()> {
        self.write_all([Write::from((key.as_slice(), value.as_deref()))])
    }

    /// An iterator over `range`: committed data with the transaction's writes over it (or
    /// committed data only, when `range.committed_only`).
    fn range(&self, range: Range) -> Result<RangeIter>;

    /// Makes the transaction's writes durable together with `offset_writes`, all or nothing
    /// after a crash, then starts a new transaction.
    fn commit(&self, offset_writes: OffsetWrites) -> Result<()>;

    /// Drops the transaction's writes (or completes a commit that failed half-way, where the
    /// strategy can leave one).
    fn rollback(&self) -> Result<()>;

    /// Fails if the store must not take writes now (a commit failed half-way).
    fn check_writable(&self) -> Result<()>;

    /// Bytes held by the transaction's writes.
    fn uncommitted_bytes(&self) -> u64;

    /// Number of writes staged in the transaction.
    fn staged_writes(&self) -> u64;

    /// Whether the transaction has staged anything (records or range deletes): a commit of it
    /// would write more than offsets.
    fn has_writes(&self) -> bool;
}

/// Locks `mutex`, ignoring poisoning: every critical section leaves its data consistent.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
