//! The copy of a secondary-store commit into the main store, and recovery.
//!
//! [`roll_forward`] copies the generation into the main store in bounded writes. When the copy
//! takes more than one write, the first one also stores the [`CommitRecord`] in the `offsets`
//! family (`COMMIT_RECORD_KEY`), and the last one, which carries the range deletes and the
//! offsets, deletes it. Every write goes through the same WAL, in order, and whatever RocksDB
//! recovers after a crash, a power loss or a damaged WAL is a prefix of those writes, so:
//! the record is present exactly when the copy started and did not finish, and then the whole
//! generation is still in the temporary store (its writes came before the record, its truncation
//! comes after the last write). A copy that fits one write is atomic and needs no record. The
//! first write of a longer copy is flushed from RocksDB's WAL buffer at once: the commit is decided
//! there (a kill from then on rolls it forward), as it is by the one write of a short copy.
//!
//! Recovery ([`recover_at_open`], and `rollback` after a failed commit) therefore reads the record
//! from the store itself: present = run the copy again (every write is idempotent), absent = throw
//! the temporary store away. Nothing outside RocksDB's own files decides what a commit did.

use super::commit_file;
use super::keys::{decode_value, generation_bounds, store_key};
use crate::db::{Db, RawIterator};
use crate::error::{Error, Result};
use crate::fault;
use crate::offsets;
use crate::options::TXN_CF;
use rust_rocksdb::{ReadOptions, WriteBatch};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use txn_rocksdb_format::commit_record::CommitRecord;
use txn_rocksdb_format::offsets::COMMIT_RECORD_KEY;

/// A commit copies the temporary store into the main store in writes of about this many bytes.
pub(crate) const COPY_BATCH_BYTES: usize = 4 << 20;
/// A generation that wrote at least this much may have been flushed to SST files, which its
/// truncation then deletes at once instead of leaving them to compaction.
const FILE_DELETE_THRESHOLD: u64 = 8 << 20;

/// Where a roll-forward runs: in a commit, or in recovery (open or `recover`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Commit,
    Recovery,
}

impl Phase {
    pub(super) fn point(self, step: &str) -> String {
        match self {
            Phase::Commit => format!("commit:{step}"),
            Phase::Recovery => format!("recover:{step}"),
        }
    }
}

/// Copies the generation of `record` into the main store in bounded writes, the range deletes and
/// offsets landing with the last one, then truncates the generation. `before_first_partial_write`
/// runs before a copy that takes several writes lands its first one (the commit freezes the
/// committed view there). Idempotent: a crash anywhere in here is repaired by running it again
/// ([`recover_at_open`]). Returns the bytes copied.
pub(crate) fn roll_forward(
    db: &Arc<Db>,
    record: &CommitRecord,
    phase: Phase,
    mut before_first_partial_write: impl FnMut(),
) -> Result<u64> {
    let data = db.data();
    let batch_limit = fault::copy_batch_bytes(COPY_BATCH_BYTES);
    let mut temporary = generation_iterator(db, record.generation, None);
    // In recovery the record is in the store already (or in a legacy commit file): the last write
    // deletes it either way.
    let mut record_stored = phase == Phase::Recovery;
    let (mut batch, mut batch_bytes, mut copied_bytes) = (WriteBatch::default(), 0usize, 0u64);
    while let (Some(key), Some(raw)) = (temporary.key(), temporary.value()) {
        match decode_value(raw) {
            Some(value) => batch.put_cf(data, store_key(key), value),
            None => batch.delete_cf(data, store_key(key)),
        }
        batch_bytes += key.len() + raw.len();
        temporary.next();
        if batch_bytes >= batch_limit && temporary.valid() {
            let first = !record_stored;
            if first {
                before_first_partial_write();
                batch.put_cf(db.offsets(), COMMIT_RECORD_KEY, record.encode());
                record_stored = true;
            }
            db.rocks.write(&batch).map_err(|e| db.rocks_err(e))?;
            if first {
                // The commit is decided here: the record, and the transaction's writes before it,
                // are written to the OS (fsynced with `sync_commit`), so a kill from now on rolls
                // the commit forward.
                db.flush_wal()?;
            }
            copied_bytes += batch_bytes as u64;
            batch = WriteBatch::default();
            batch_bytes = 0;
            fault::point(&phase.point("mid-copy"))?;
        }
    }
    temporary.status().map_err(|e| db.rocks_err(e))?;
    drop(temporary);
    copied_bytes += batch_bytes as u64;
    finish(db, record, phase, batch, copied_bytes, record_stored)?;
    Ok(copied_bytes)
}

/// The last write of a commit whose records are in `data` or in `batch` (the last ones): the range
/// deletes and the offsets land after every record, and the commit record, if `record_stored`, is
/// deleted with them; then the generation is truncated.
pub(super) fn finish(
    db: &Db,
    record: &CommitRecord,
    phase: Phase,
    mut batch: WriteBatch,
    records_bytes: u64,
    record_stored: bool,
) -> Result<()> {
    for (from, to) in &record.range_deletes {
        batch.delete_range_cf(db.data(), from, to);
    }
    offsets::append_writes(&mut batch, db.offsets(), &record.offset_writes);
    if record_stored {
        batch.delete_cf(db.offsets(), COMMIT_RECORD_KEY);
    }
    db.write_commit(&batch, records_bytes == 0 && record.range_deletes.is_empty())?;
    fault::point(&phase.point("after-copy"))?;
    truncate_generation(db, record.generation, records_bytes)?;
    if phase == Phase::Commit {
        fault::point("commit:after-truncate")?;
    }
    if phase == Phase::Recovery {
        db.recovery.rolled_forward.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// The commit record of a copy in progress, if the store holds one.
pub(crate) fn commit_in_progress(db: &Db) -> Result<Option<CommitRecord>> {
    let Some(bytes) = db.rocks.get_pinned_cf(db.offsets(), COMMIT_RECORD_KEY).map_err(|e| db.rocks_err(e))? else {
        return Ok(None);
    };
    CommitRecord::decode(&bytes).map(Some).map_err(|why| Error::Damaged {
        path: db.path.display().to_string(),
        message: format!("the record of the commit in progress does not decode ({why})"),
    })
}

/// An iterator over one generation of the temporary store, at its first entry, not filling the
/// block cache (each entry is read once); `readahead` for a reader that wants large reads.
pub(super) fn generation_iterator(db: &Arc<Db>, generation: u64, readahead: Option<usize>) -> RawIterator {
    let (lower, upper) = generation_bounds(generation);
    let mut read_options = ReadOptions::default();
    read_options.set_iterate_lower_bound(lower);
    read_options.set_iterate_upper_bound(upper);
    read_options.fill_cache(false);
    if let Some(bytes) = readahead {
        read_options.set_readahead_size(bytes);
    }
    let mut temporary = Db::raw_iterator(db, TXN_CF, read_options);
    temporary.seek_to_first();
    temporary
}

/// Deletes one generation of the temporary store (a range tombstone; its SST files too when it
/// was big enough to have been flushed).
pub(crate) fn truncate_generation(db: &Db, generation: u64, bytes: u64) -> Result<()> {
    let (lower, upper) = generation_bounds(generation);
    delete_range(db, &lower, &upper, bytes >= FILE_DELETE_THRESHOLD)
}

/// Deletes everything in the temporary store (recovery without a commit in progress).
fn truncate_all(db: &Db) -> Result<()> {
    let mut temporary = db.rocks.raw_iterator_cf(db.txn());
    temporary.seek_to_last();
    let Some(last) = temporary.key() else {
        return temporary.status().map_err(|e| db.rocks_err(e));
    };
    let mut end = last.to_vec();
    end.push(0);
    drop(temporary);
    db.recovery.rolled_back.fetch_add(1, Ordering::Relaxed);
    delete_range(db, &[], &end, true)
}

fn delete_range(db: &Db, from: &[u8], to: &[u8], files_too: bool) -> Result<()> {
    let txn = db.txn();
    db.rocks.delete_range_cf(txn, from, to).map_err(|e| db.rocks_err(e))?;
    if files_too {
        db.rocks.delete_file_in_range_cf(txn, from, to).map_err(|e| db.rocks_err(e))?;
    }
    Ok(())
}

/// Recovery at open, whatever the strategy (a store may have been written with the other one):
/// a commit in progress (its record in the store, or a commit file left by an earlier version,
/// `commit_file.rs`) rolls forward; then anything left in the temporary store is uncommitted and
/// is thrown away.
pub(crate) fn recover_at_open(db: &Arc<Db>) -> Result<()> {
    let legacy = commit_file::read(&db.path)?;
    if let Some(record) = commit_in_progress(db)?.or(legacy) {
        let bytes = roll_forward(db, &record, Phase::Recovery, || {})?;
        log::info!(
            "store {}: rolled forward a commit interrupted by a crash ({bytes} bytes of records)",
            db.path.display()
        );
    }
    commit_file::remove(&db.path)?;
    truncate_all(db)
}
