//! The steps of a secondary-store commit after its commit file, and recovery.
//!
//! [`roll_forward`] copies the generation into the main store in bounded batches, writes the range
//! deletes and offsets after the last record, deletes the generation and then the commit file.
//! Every step is idempotent, so recovery simply runs them again: present commit file = roll
//! forward, absent = throw the temporary store away ([`recover_at_open`]).

use super::commit_file::{self, CommitRecord};
use super::keys::{decode_value, generation_bounds, store_key};
use crate::db::{Db, TXN_CF};
use crate::error::Result;
use crate::fault;
use crate::offsets;
use rust_rocksdb::{ReadOptions, WriteBatch};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A commit copies the temporary store into the main store in batches of about this many bytes.
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
    fn point(self, step: &str) -> String {
        match self {
            Phase::Commit => format!("commit:{step}"),
            Phase::Recovery => format!("recover:{step}"),
        }
    }
}

/// Copies the generation of `record` into the main store (bounded batches), writes its range
/// deletes and offsets after the last record, deletes the generation and then the commit file.
/// Idempotent: a crash anywhere in here is repaired by running it again. Returns the bytes copied.
pub(crate) fn roll_forward(db: &Arc<Db>, record: &CommitRecord, phase: Phase) -> Result<u64> {
    let data = db.data();
    let batch_limit = fault::copy_batch_bytes(COPY_BATCH_BYTES);
    let (lower, upper) = generation_bounds(record.generation);
    let mut read_options = ReadOptions::default();
    read_options.set_iterate_lower_bound(lower);
    read_options.set_iterate_upper_bound(upper);
    read_options.fill_cache(false);
    let mut temporary = Db::raw_iterator(db, TXN_CF, read_options);
    temporary.seek_to_first();
    let (mut batch, mut batch_bytes, mut copied_bytes) = (WriteBatch::default(), 0usize, 0u64);
    while let (Some(key), Some(raw)) = (temporary.key(), temporary.value()) {
        match decode_value(raw) {
            Some(value) => batch.put_cf(data, store_key(key), value),
            None => batch.delete_cf(data, store_key(key)),
        }
        batch_bytes += key.len() + raw.len();
        temporary.next();
        if batch_bytes >= batch_limit {
            db.rocks.write(&batch).map_err(|e| db.err(e))?;
            copied_bytes += batch_bytes as u64;
            batch = WriteBatch::default();
            batch_bytes = 0;
            fault::point(&phase.point("mid-copy"))?;
        }
    }
    temporary.status().map_err(|e| db.err(e))?;
    drop(temporary);
    copied_bytes += batch_bytes as u64;
    // The last records, the range deletes and the offsets: the offsets land after every record.
    for (from, to) in &record.range_deletes {
        batch.delete_range_cf(data, from, to);
    }
    offsets::append_writes(&mut batch, db, &record.offset_writes);
    db.write_commit(&batch, copied_bytes == 0 && record.range_deletes.is_empty())?;
    fault::point(&phase.point("after-copy"))?;
    truncate_generation(db, record.generation, copied_bytes)?;
    if phase == Phase::Commit {
        fault::point("commit:before-delete-commit-file")?;
    }
    commit_file::remove(&db.path, db.sync_commit)?;
    if phase == Phase::Recovery {
        db.recovery.rolled_forward.fetch_add(1, Ordering::Relaxed);
    }
    Ok(copied_bytes)
}

/// Deletes one generation of the temporary store (a range tombstone; its SST files too when it
/// was big enough to have been flushed).
pub(crate) fn truncate_generation(db: &Db, generation: u64, bytes: u64) -> Result<()> {
    let (lower, upper) = generation_bounds(generation);
    delete_range(db, &lower, &upper, bytes >= FILE_DELETE_THRESHOLD)
}

/// Deletes everything in the temporary store (recovery without a commit file).
fn truncate_all(db: &Db) -> Result<()> {
    let mut temporary = db.rocks.raw_iterator_cf(db.txn());
    temporary.seek_to_last();
    let Some(last) = temporary.key() else {
        return temporary.status().map_err(|e| db.err(e));
    };
    let mut end = last.to_vec();
    end.push(0);
    drop(temporary);
    db.recovery.rolled_back.fetch_add(1, Ordering::Relaxed);
    delete_range(db, &[], &end, true)
}

fn delete_range(db: &Db, from: &[u8], to: &[u8], files_too: bool) -> Result<()> {
    let txn = db.txn();
    db.rocks.delete_range_cf(txn, from, to).map_err(|e| db.err(e))?;
    if files_too {
        db.rocks.delete_file_in_range_cf(txn, from, to).map_err(|e| db.err(e))?;
    }
    Ok(())
}

pub(crate) fn commit_file_exists(db: &Db) -> bool {
    commit_file::path(&db.path).exists()
}

/// Recovery at open, whatever the strategy (a store may have been written with the other one):
/// a commit file means a commit was in flight and rolls forward; then anything left in the
/// temporary store is uncommitted and is thrown away.
pub(crate) fn recover_at_open(db: &Arc<Db>) -> Result<()> {
    if let Some(record) = commit_file::read(&db.path)? {
        let bytes = roll_forward(db, &record, Phase::Recovery)?;
        log::info!("store {}: rolled forward a commit interrupted by a crash ({bytes} bytes of records)", db.path.display());
    }
    truncate_all(db)
}
