//! Taking a snapshot: a checkpoint between two commits, its offsets read from it, its files sent
//! (those an earlier snapshot sent are referenced), the manifest written last, the checkpoint
//! deleted.

use super::location::Location;
use super::{file_checksum, local_err, manifest_name, manifest_seq, object_name, FILES, SNAPSHOTS};
use crate::error::{Error, Result};
use crate::fault;
use crate::offsets::{self, TopicPartition};
use crate::options::Opening;
use crate::store::KeyValueStore;
use rust_rocksdb::DBRecoveryMode;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};
use txn_rocksdb_format::offsets::COMMIT_RECORD_KEY;
use txn_rocksdb_format::open_options::Strategy as StrategyCode;
use txn_rocksdb_format::snapshot_manifest::{Manifest, SnapshotFile};
use txn_rocksdb_format::value_format::{ValueFormat, UPGRADE_KEY, VALUE_FORMAT_KEY};

/// Checkpoint directories live in the store's directory under this prefix (same file system, so
/// SST files are hard linked); one left by a process that died is deleted by the next snapshot.
const CHECKPOINT_PREFIX: &str = "snapshot-checkpoint-";

/// What [`take`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    /// The snapshot's number (its manifest `snapshots/<seq>.manifest`).
    pub seq: u64,
    /// The changelog offsets the snapshot holds.
    pub offsets: Vec<(TopicPartition, i64)>,
    /// Files in the snapshot.
    pub files: usize,
    /// Files sent by this snapshot (the others were already there).
    pub files_uploaded: usize,
    /// Bytes sent by this snapshot (the manifest not counted).
    pub bytes_uploaded: u64,
}

/// A checkpoint of a store taken between two commits by [`prepare`], waiting for [`upload`] to
/// send it. It needs nothing of the store any more (the checkpoint's files are hard links, its
/// offsets and position are read from the checkpoint itself), so the store may commit, and even
/// close, while it is sent. Dropping it deletes the checkpoint.
#[derive(Debug)]
pub struct Prepared {
    checkpoint: Checkpoint,
    store_dir: PathBuf,
    options: crate::StoreOptions,
    /// The store's RocksDB identity (its `IDENTITY` file: a new one for every new database, a
    /// wiped and recreated store included), which keys the checksum cache; None: nothing cached.
    identity: Option<String>,
}

/// Checksums of SST files already read, by (RocksDB identity, file name, size). RocksDB never
/// reuses an SST file's number within a database and never changes an SST file, so within one
/// identity the name and size name the bytes; a store wiped and recreated (numbers start again)
/// has a new identity. Only the files of the last snapshot of each identity are kept.
#[derive(Debug, Default)]
pub(crate) struct ChecksumCache(std::sync::Mutex<HashMap<String, FileChecksums>>);

/// The crc32c of each file, by name and size.
type FileChecksums = HashMap<(String, u64), u32>;

impl ChecksumCache {
    fn get(&self, identity: &str, name: &str, size: u64) -> Option<u32> {
        let cache = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        cache.get(identity)?.get(&(name.to_string(), size)).copied()
    }

    fn replace(&self, identity: &str, files: FileChecksums) {
        let mut cache = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        cache.insert(identity.to_string(), files);
    }
}

/// Takes a snapshot of `store` at `location` under `store_id`: [`prepare`] then [`upload`].
pub fn take(store: &KeyValueStore, location: &Location, store_id: &str) -> Result<Taken> {
    upload(prepare(store)?, location, store_id, &AtomicBool::new(false))
}

/// The part of a snapshot that runs on the committing thread: a RocksDB checkpoint of `store`
/// (a flush of the memtables and hard links; commits wait only while it is taken). Take one
/// snapshot of a store at a time: this deletes the checkpoints a process that died left in the
/// store's directory, which would include one a concurrent snapshot is still sending.
pub fn prepare(store: &KeyValueStore) -> Result<Prepared> {
    remove_leftover_checkpoints(store.path())?;
    let stamp = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let checkpoint = Checkpoint(store.path().join(format!("{CHECKPOINT_PREFIX}{stamp}")));
    store.checkpoint(&checkpoint.0)?;
    let identity = std::fs::read_to_string(store.path().join("IDENTITY")).ok().map(|id| id.trim().to_string());
    let identity = identity.filter(|id| !id.is_empty());
    Ok(Prepared { checkpoint, store_dir: store.path().to_path_buf(), options: store.options().clone(), identity })
}

/// The part of a snapshot that may run on any thread, off the committing one: the checkpoint's
/// offsets, position and value format read from it, its files sent (those an earlier snapshot
/// sent are referenced), the manifest written last, the checkpoint deleted. Setting `cancel`
/// (the store is closing) stops it between two parts of a file, before any manifest is written:
/// the files sent stay for the next snapshot, no snapshot exists. A checkpoint holding a
/// secondary-store commit that failed half-way, or values being upgraded, is refused
/// ([`Error::InvalidArgument`]).
pub fn upload(prepared: Prepared, location: &Location, store_id: &str, cancel: &AtomicBool) -> Result<Taken> {
    let Prepared { checkpoint, store_dir, options, identity } = prepared;
    let image = read_image(&store_dir, &options, &checkpoint.0)?;
    let snapshots = location.path(store_id, SNAPSHOTS)?;
    let seq = location
        .list(&snapshots)?
        .iter()
        .filter_map(|object| object.location.filename().and_then(manifest_seq))
        .max()
        .unwrap_or(0)
        + 1;

    let existing: HashMap<String, u64> = location
        .list(&location.path(store_id, FILES)?)?
        .into_iter()
        .filter_map(|object| Some((object.location.filename()?.to_string(), object.size)))
        .collect();
    let (mut files, mut files_uploaded, mut bytes_uploaded) = (Vec::new(), 0, 0);
    let mut checksums = HashMap::new();
    for name in file_names(&checkpoint.0)? {
        let path = checkpoint.0.join(&name);
        let immutable = name.ends_with(".sst") || name.ends_with(".blob");
        let size = std::fs::metadata(&path).map_err(|e| local_err(&path, "reading a checkpoint file", e))?.len();
        let cached = identity.as_deref().filter(|_| immutable).and_then(|id| location.checksums.get(id, &name, size));
        let crc32c = match cached {
            Some(crc32c) => crc32c,
            None => {
                let (read, crc32c) = file_checksum(&path).map_err(|e| local_err(&path, "reading a checkpoint file", e))?;
                if read != size {
                    return Err(local_err(&path, "reading a checkpoint file", format!("{read} bytes read, {size} expected")));
                }
                crc32c
            }
        };
        if immutable {
            checksums.insert((name.clone(), size), crc32c);
        }
        let object = object_name(&name, size, crc32c);
        if existing.get(&object) != Some(&size) {
            let sent = location.put_file(&location.path(store_id, &format!("{FILES}/{object}"))?, &path, cancel)?;
            if sent != size {
                return Err(local_err(&path, "sending a checkpoint file", format!("{sent} bytes read, {size} expected")));
            }
            files_uploaded += 1;
            bytes_uploaded += size;
        }
        files.push(SnapshotFile { name, object, size, crc32c });
    }
    fault::point("snapshot:before-manifest")?;
    if cancel.load(Ordering::Acquire) {
        return Err(cancelled(location));
    }

    let manifest = Manifest {
        seq,
        created_ms: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64),
        store_id: store_id.to_string(),
        value_format: image.value_format.unwrap_or(options.value_format),
        transactional: options.transactional,
        strategy: match options.strategy {
            crate::Strategy::IndexedBatch => StrategyCode::IndexedBatch,
            crate::Strategy::SecondaryStore => StrategyCode::SecondaryStore,
        },
        offsets: image.offsets.clone(),
        position: image.position,
        files,
    };
    if let Some(identity) = &identity {
        location.checksums.replace(identity, checksums);
    }
    let file_count = manifest.files.len();
    let manifest_path = location.path(store_id, &format!("{SNAPSHOTS}/{}", manifest_name(seq)))?;
    if !location.put_new(&manifest_path, manifest.encode())? {
        return Err(location.err(
            &manifest_path,
            "another snapshot of this store wrote this manifest meanwhile: take one snapshot of a store at a time",
        ));
    }
    log::info!(
        "store {}: snapshot {seq} written to {}/{store_id} ({file_count} files, {files_uploaded} sent, {bytes_uploaded} bytes)",
        store_dir.display(),
        location.uri()
    );
    Ok(Taken { seq, offsets: image.offsets, files: file_count, files_uploaded, bytes_uploaded })
}

/// The error of an upload stopped by its `cancel` flag.
pub(crate) fn cancelled(location: &Location) -> Error {
    Error::Snapshot { location: location.uri().to_string(), message: "snapshot cancelled: the store is closing".into() }
}

/// A checkpoint directory, deleted when dropped (after the upload, or when it failed).
#[derive(Debug)]
struct Checkpoint(PathBuf);

impl Drop for Checkpoint {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.0) {
            if e.kind() != std::io::ErrorKind::NotFound {
                log::warn!("snapshot: deleting the checkpoint {} failed: {e}", self.0.display());
            }
        }
    }
}

/// Deletes the checkpoints a process that died left in the store's directory. One that cannot be
/// deleted yet is left for the next snapshot with a WARN, never failing this one: its name is
/// unique, and its files are hard links, costing disk only once the store has compacted their
/// data away. (Windows keeps the name of a deleted file that another handle holds open until that
/// handle closes: under Wine, a link to a file the store itself has open stays listed, so its
/// directory cannot be removed while the store is open.)
fn remove_leftover_checkpoints(store_dir: &Path) -> Result<()> {
    let entries = std::fs::read_dir(store_dir).map_err(|e| local_err(store_dir, "listing the store's directory", e))?;
    for entry in entries {
        let entry = entry.map_err(|e| local_err(store_dir, "listing the store's directory", e))?;
        if entry.file_name().to_string_lossy().starts_with(CHECKPOINT_PREFIX) {
            if let Err(e) = std::fs::remove_dir_all(entry.path()) {
                log::warn!("snapshot: deleting the leftover checkpoint {} failed (tried again at the next snapshot): {e}", entry.path().display());
            }
        }
    }
    Ok(())
}

/// The checkpoint's files, by name (RocksDB's info logs left out).
fn file_names(dir: &Path) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| local_err(dir, "listing the checkpoint", e))? {
        let entry = entry.map_err(|e| local_err(dir, "listing the checkpoint", e))?;
        let is_file = entry.file_type().map_err(|e| local_err(dir, "listing the checkpoint", e))?.is_file();
        let name = entry.file_name().into_string().map_err(|name| local_err(dir, "a checkpoint file name", format!("{name:?} is not UTF-8")))?;
        if is_file && !name.starts_with("LOG") {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// What the checkpoint holds besides its data.
struct Image {
    offsets: Vec<(TopicPartition, i64)>,
    position: Option<Vec<u8>>,
    value_format: Option<ValueFormat>,
}

/// Reads the offsets, position and value format from the checkpoint in `dir` (opened read-only):
/// they are those of the data beside them, as every commit writes them in the same atomic write.
fn read_image(store_dir: &Path, options: &crate::StoreOptions, dir: &Path) -> Result<Image> {
    let opening = Opening { path: dir, statistics: false, tuning: &options.tuning };
    let rocks = opening
        .open_read_only(DBRecoveryMode::TolerateCorruptedTailRecords)
        .map_err(|e| local_err(dir, "opening the checkpoint", e))?;
    let read = |e: rust_rocksdb::Error| local_err(dir, "reading the checkpoint", e);
    let family = rocks.cf_handle(crate::options::OFFSETS_CF).expect("offsets column family is created at open");
    for (key, what) in [(COMMIT_RECORD_KEY, "its last commit failed half-way"), (UPGRADE_KEY, "its values are being upgraded")] {
        if rocks.get_pinned_cf(family, key).map_err(read)?.is_some() {
            return Err(Error::InvalidArgument(format!(
                "store {}: no snapshot while {what}; roll it back or reopen it first",
                store_dir.display()
            )));
        }
    }
    let offsets = offsets::decode_offsets(&offsets::offset_entries(&rocks).map_err(read)?, dir)?;
    let position = offsets::position(&rocks).map_err(read)?;
    let value_format = match rocks.get_pinned_cf(family, VALUE_FORMAT_KEY).map_err(read)? {
        Some(bytes) => Some(ValueFormat::decode(&bytes).map_err(|e| local_err(dir, "reading the checkpoint's value format", e))?),
        None => None,
    };
    Ok(Image { offsets, position, value_format })
}
