//! The secondary-store transaction strategy (KIP-844's reference design).
//!
//! Uncommitted writes go to a temporary store, the `txn` column family of the same RocksDB, under
//! `generation (u64 BE) ++ key`, with a one-byte marker in front of the value (`1` = put, `0` =
//! delete: a tombstone must hide the main store's value, so it is a value, not a RocksDB delete).
//! The temporary store spills to disk like any column family (memtables are flushed under the
//! shared write-buffer budget), so a transaction may be larger than memory.
//!
//! Commit (see [`roll_forward`]): the temporary store is durable (its records are in the WAL; with
//! `sync_commit` the WAL is fsynced); the commit file records the offsets; the records are copied
//! into the main store in bounded batches; the offsets are written after the last record; the
//! generation is deleted; the commit file is deleted. Every step after the commit file is
//! idempotent, so recovery simply runs them again: present commit file = roll forward, absent =
//! throw the temporary store away.
//!
//! Each transaction uses a fresh generation, so the range delete that truncates one never overlaps
//! the next one's keys (overlapping range tombstones would pile up in the memtable).

use crate::commit_file::CommitRecord;
use crate::error::Result;
use crate::fault;
use crate::store::Inner;
use rust_rocksdb::{ColumnFamily, ReadOptions, WriteBatch, WriteOptions};

/// The temporary store's column family.
pub(crate) const TXN_CF: &str = "txn";
/// A commit copies the temporary store into the main store in batches of about this many bytes.
pub(crate) const COPY_BATCH_BYTES: usize = 4 << 20;
/// A generation that wrote at least this much may have been flushed to SST files, which its
/// truncation then deletes at once instead of leaving them to compaction.
const FILE_DELETE_THRESHOLD: u64 = 8 << 20;

const PUT: u8 = 1;
const TOMBSTONE: u8 = 0;

pub(crate) fn generation_prefix(generation: u64) -> [u8; 8] {
    generation.to_be_bytes()
}

/// `[generation, generation + 1)` as key bounds.
pub(crate) fn generation_bounds(generation: u64) -> (Vec<u8>, Vec<u8>) {
    (generation_prefix(generation).to_vec(), generation_prefix(generation + 1).to_vec())
}

pub(crate) fn tmp_key(generation: u64, key: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(8 + key.len());
    k.extend_from_slice(&generation_prefix(generation));
    k.extend_from_slice(key);
    k
}

pub(crate) fn encode_value(value: Option<&[u8]>) -> Vec<u8> {
    match value {
        Some(v) => {
            let mut out = Vec::with_capacity(1 + v.len());
            out.push(PUT);
            out.extend_from_slice(v);
            out
        }
        None => vec![TOMBSTONE],
    }
}

/// The value a temporary-store entry stands for: `None` = deleted.
pub(crate) fn decode_value(raw: &[u8]) -> Option<&[u8]> {
    match raw.split_first() {
        Some((&PUT, v)) => Some(v),
        _ => None,
    }
}

pub(crate) fn is_tombstone(raw: &[u8]) -> bool {
    decode_value(raw).is_none()
}

impl Inner {
    pub(crate) fn txn_cf(&self) -> &ColumnFamily {
        self.db.cf_handle(TXN_CF).expect("txn column family is created at open")
    }
}

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
/// Idempotent: a crash anywhere in here is repaired by running it again.
pub(crate) fn roll_forward(inner: &Inner, record: &CommitRecord, phase: Phase) -> Result<u64> {
    let db = &inner.db;
    let (dcf, tcf) = (inner.data_cf(), inner.txn_cf());
    let batch_limit = fault::copy_batch_bytes(COPY_BATCH_BYTES);
    let no_sync = WriteOptions::default();
    let (lo, hi) = generation_bounds(record.generation);
    let mut ro = ReadOptions::default();
    ro.set_iterate_lower_bound(lo.clone());
    ro.set_iterate_upper_bound(hi.clone());
    ro.fill_cache(false);
    let mut it = db.raw_iterator_cf_opt(tcf, ro);
    it.seek_to_first();
    let (mut wb, mut batch_bytes, mut copied_bytes) = (WriteBatch::default(), 0usize, 0u64);
    while let (Some(k), Some(v)) = (it.key(), it.value()) {
        let key = &k[8..];
        match decode_value(v) {
            Some(v) => wb.put_cf(dcf, key, v),
            None => wb.delete_cf(dcf, key),
        }
        batch_bytes += k.len() + v.len();
        it.next();
        if batch_bytes >= batch_limit {
            db.write_opt(&wb, &no_sync).map_err(|e| inner.err(e))?;
            copied_bytes += batch_bytes as u64;
            wb = WriteBatch::default();
            batch_bytes = 0;
            fault::point(&phase.point("mid-copy"))?;
        }
    }
    it.status().map_err(|e| inner.err(e))?;
    drop(it);
    copied_bytes += batch_bytes as u64;
    // The last records, the range deletes and the offsets: the offsets land after every record.
    for (from, to) in &record.range_deletes {
        wb.delete_range_cf(dcf, from, to);
    }
    let ocf = inner.offsets_cf();
    for (k, v) in &record.offset_writes {
        match v {
            Some(v) => wb.put_cf(ocf, k, v),
            None => wb.delete_cf(ocf, k),
        }
    }
    let mut last = WriteOptions::default();
    last.set_sync(inner.options.sync_commit);
    db.write_opt(&wb, &last).map_err(|e| inner.err(e))?;
    fault::point(&phase.point("after-copy"))?;
    truncate_generation(inner, record.generation, copied_bytes)?;
    if phase == Phase::Commit {
        fault::point("commit:before-delete-commit-file")?;
    }
    CommitRecord::remove(&inner.path, inner.options.sync_commit)?;
    Ok(copied_bytes)
}

/// Deletes one generation of the temporary store (a range tombstone; its SST files too when it
/// was big enough to have been flushed).
pub(crate) fn truncate_generation(inner: &Inner, generation: u64, bytes: u64) -> Result<()> {
    let (lo, hi) = generation_bounds(generation);
    delete_range(inner, &lo, &hi, bytes >= FILE_DELETE_THRESHOLD)
}

/// Deletes everything in the temporary store (recovery without a commit file).
pub(crate) fn truncate_all(inner: &Inner) -> Result<()> {
    let tcf = inner.txn_cf();
    let mut it = inner.db.raw_iterator_cf(tcf);
    it.seek_to_last();
    let Some(last) = it.key() else {
        return it.status().map_err(|e| inner.err(e));
    };
    let mut end = last.to_vec();
    end.push(0);
    drop(it);
    delete_range(inner, &[], &end, true)
}

fn delete_range(inner: &Inner, from: &[u8], to: &[u8], files_too: bool) -> Result<()> {
    let tcf = inner.txn_cf();
    inner.db.delete_range_cf(tcf, from, to).map_err(|e| inner.err(e))?;
    if files_too {
        inner.db.delete_file_in_range_cf(tcf, from, to).map_err(|e| inner.err(e))?;
    }
    Ok(())
}

pub(crate) fn commit_file_exists(inner: &Inner) -> bool {
    crate::commit_file::path(&inner.path).exists()
}

/// Recovery at open, whatever the strategy (a store may have been written with the other one):
/// a commit file means a commit was in flight and rolls forward; then anything left in the
/// temporary store is uncommitted and is thrown away.
pub(crate) fn recover_at_open(inner: &Inner) -> Result<()> {
    if let Some(record) = CommitRecord::read(&inner.path)? {
        let bytes = roll_forward(inner, &record, Phase::Recovery)?;
        log::info!(
            "store {}: rolled forward a commit interrupted by a crash ({bytes} bytes of records)",
            inner.path.display()
        );
    }
    truncate_all(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        assert_eq!(decode_value(&encode_value(Some(b"v"))), Some(&b"v"[..]));
        assert_eq!(decode_value(&encode_value(Some(b""))), Some(&b""[..]));
        assert_eq!(decode_value(&encode_value(None)), None);
        assert!(is_tombstone(&encode_value(None)));
    }

    #[test]
    fn generations_are_disjoint_and_ordered() {
        let (lo, hi) = generation_bounds(3);
        let k = tmp_key(3, &[0xFF; 20]);
        assert!(lo <= k && k < hi);
        assert!(tmp_key(4, b"") >= hi);
    }
}
