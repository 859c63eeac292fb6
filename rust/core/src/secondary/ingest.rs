//! Large secondary-store commits by file ingestion instead of a copy through the memtable.
//!
//! A transaction that spilled at least [`INGEST_BYTES`] commits in four steps:
//! 1. its generation is written, in key order, into SST files in the store's `ingest/` directory
//!    (RocksDB's `SstFileWriter`, which fsyncs each file), the temporary store's tombstones as
//!    deletes (crash point `commit:after-files`: nothing is decided yet, recovery drops the
//!    transaction and the files);
//! 2. the commit record is written and **every family flushed** (one atomic flush, which syncs
//!    its SST files and the MANIFEST, whatever `sync_commit` says): the ingested files are durable
//!    the moment RocksDB takes them, so everything written before them (earlier commits, this
//!    transaction's spills, the record) must be durable first and must not depend on the WAL any
//!    more, or a power loss or a damaged WAL could keep this commit's records without an earlier
//!    commit's, or without the record that completes them (`commit:before-ingest`: decided);
//! 3. RocksDB ingests the files into `data` in one atomic call (moved, not copied), with a
//!    sequence number above every earlier write (a memtable they overlap is flushed first), so
//!    they shadow older values as the copy's writes would, and snapshots taken before (the frozen
//!    committed view) do not see them (`commit:after-ingest`);
//! 4. the last write, as for a copy (`roll_forward::finish`): the range deletes, the offsets, the
//!    record deleted; then the generation is truncated.
//!
//! Recovery needs nothing new: the record is present exactly from step 2 until step 4 landed, and
//! then the whole generation is still in the temporary store, so recovery copies it again
//! (`roll_forward`, idempotent: an ingestion that landed is overwritten with the same values).
//! Leftover files of an interrupted step 1 or 3 are deleted at open ([`remove_leftovers`], called
//! by `secondary::recover_at_open` before the roll-forward).
//!
//! Why: the copy writes every record through the WAL and the memtable (and then a flush writes
//! it again), in 4 MiB writes; the ingestion writes it once, straight into SST files, and keeps
//! the memtable, the write-buffer budget and the WAL out of it.

use super::keys::{decode_value, store_key};
use super::roll_forward::{finish, generation_iterator, Phase};
use crate::db::Db;
use crate::error::Result;
use crate::fault;
use rust_rocksdb::{SstFileWriter, WriteBatch};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use txn_rocksdb_format::commit_record::CommitRecord;
use txn_rocksdb_format::offsets::COMMIT_RECORD_KEY;

/// A spilled transaction of at least this many bytes of keys and values commits by ingestion;
/// a smaller one is copied (`roll_forward`). The default spill size: every transaction that
/// spilled under it ingests. From this size on ingestion commits faster than the copy
/// (docs/profiles.md, "Costs behind choices in the code"; docs/benchmarks.md, "Large
/// secondary-store transactions").
/// Below it (a spill size set lower) transactions may be small, and a commit by ingestion
/// flushes every family: the copy is cheaper there.
pub(crate) const INGEST_BYTES: u64 = 16 << 20;
/// Ingested files are cut at about this size (RocksDB's default target file size).
const FILE_BYTES: u64 = 64 << 20;
/// Where the files are built, inside the store's directory.
const INGEST_DIR: &str = "ingest";

/// Commits the generation of `record` by ingesting it (see the module's documentation);
/// `before_decision` runs before the record is written (the commit freezes the committed view
/// there). Returns the bytes of keys and values ingested.
pub(crate) fn ingest(db: &Arc<Db>, record: &CommitRecord, before_decision: impl FnOnce()) -> Result<u64> {
    let dir = db.path.join(INGEST_DIR);
    remove_dir(db, &dir)?;
    std::fs::create_dir_all(&dir).map_err(|e| db.err_from(&format!("creating {}", dir.display()), e))?;
    let (files, bytes) = write_files(db, record.generation, &dir)?;
    fault::point("commit:after-files")?;

    before_decision();
    let mut decision = WriteBatch::default();
    decision.put_cf(db.offsets(), COMMIT_RECORD_KEY, record.encode());
    db.rocks.write(&decision).map_err(|e| db.rocks_err(e))?;
    db.flush_all()?;
    fault::point("commit:before-ingest")?;

    if !files.is_empty() {
        db.ingest(files)?;
    }
    fault::point("commit:after-ingest")?;
    finish(db, record, Phase::Commit, WriteBatch::default(), bytes, true)?;
    remove_dir(db, &dir)?;
    Ok(bytes)
}

/// Writes the generation into SST files of about [`FILE_BYTES`] under `dir`, in key order;
/// returns their paths (none for an empty generation) and the bytes of keys and values read.
fn write_files(db: &Arc<Db>, generation: u64, dir: &Path) -> Result<(Vec<PathBuf>, u64)> {
    let mut temporary = generation_iterator(db, generation, Some(2 << 20));
    let file_options = db.file_options();
    let mut files = Vec::new();
    let mut writer: Option<SstFileWriter<'_>> = None;
    let mut bytes = 0u64;
    while let (Some(key), Some(raw)) = (temporary.key(), temporary.value()) {
        if writer.is_none() {
            let path = dir.join(format!("{:06}.sst", files.len()));
            let mut file = SstFileWriter::create(&file_options);
            file.open(&path).map_err(|e| db.rocks_err(e))?;
            files.push(path);
            writer = Some(file);
        }
        let file = writer.as_mut().expect("a file is open");
        match decode_value(raw) {
            Some(value) => file.put(store_key(key), value),
            None => file.delete(store_key(key)),
        }
        .map_err(|e| db.rocks_err(e))?;
        bytes += (key.len() + raw.len()) as u64;
        if file.file_size() >= FILE_BYTES {
            file.finish().map_err(|e| db.rocks_err(e))?;
            writer = None;
        }
        temporary.next();
    }
    temporary.status().map_err(|e| db.rocks_err(e))?;
    if let Some(mut file) = writer {
        file.finish().map_err(|e| db.rocks_err(e))?;
    }
    Ok((files, bytes))
}

/// Deletes the files an interrupted ingestion left behind (at open, before recovery).
pub(crate) fn remove_leftovers(db: &Db) -> Result<()> {
    remove_dir(db, &db.path.join(INGEST_DIR))
}

fn remove_dir(db: &Db, dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(db.err_from(&format!("deleting {}", dir.display()), e))
        }
        _ => Ok(()),
    }
}
