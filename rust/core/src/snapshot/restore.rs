//! Restoring a store's directory from its newest usable snapshot.

use super::location::Location;
use super::{local_err, manifest_seq, FILES, SNAPSHOTS};
use crate::error::{Error, Result};
use crate::offsets::TopicPartition;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use txn_rocksdb_format::snapshot_manifest::Manifest;
use txn_rocksdb_format::wal::crc32c;

/// The snapshot [`restore_newest`] put in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    /// The snapshot's number.
    pub seq: u64,
    /// The changelog offsets the restored directory holds: the changelog restores what follows.
    pub offsets: Vec<(TopicPartition, i64)>,
    /// Its manifest.
    pub manifest: Manifest,
    /// Newer snapshots passed over (damaged, incomplete or of another store), newest first, each
    /// with the reason.
    pub skipped: Vec<(u64, String)>,
}

/// Puts the newest usable snapshot of `store_id` at `location` into `dir`, which must be missing or
/// empty (a store without local state). A snapshot is usable when its manifest decodes and names
/// this store, and every object it names exists with the size and crc32c the manifest gives; a
/// snapshot without a manifest (one being written, or interrupted) does not exist. The files are
/// downloaded into a directory beside `dir`, synced, and renamed into place, so `dir` holds a
/// whole snapshot or nothing. A snapshot found unusable is logged at WARN and an older one tried.
/// `Ok(None)`: no usable snapshot (the caller restores from the changelog).
pub fn restore_newest(location: &Location, store_id: &str, dir: &Path) -> Result<Option<Restored>> {
    check_empty(dir)?;
    let snapshots = location.path(store_id, SNAPSHOTS)?;
    let mut seqs: Vec<(u64, object_store::path::Path)> = location
        .list(&snapshots)?
        .into_iter()
        .filter_map(|object| Some((object.location.filename().and_then(manifest_seq)?, object.location)))
        .collect();
    seqs.sort_by_key(|(seq, _)| std::cmp::Reverse(*seq));
    let staging = staging_dir(dir)?;
    let mut skipped = Vec::new();
    for (seq, path) in seqs {
        let manifest = match location.get(&path)? {
            None => Err("its manifest disappeared".to_string()),
            Some(bytes) => Manifest::decode(&bytes).map_err(|e| format!("its manifest does not decode ({e})")),
        };
        let fetched = manifest.and_then(|manifest| {
            if manifest.store_id != store_id || manifest.seq != seq {
                return Err(format!("its manifest is snapshot {} of store '{}'", manifest.seq, manifest.store_id));
            }
            fetch(location, store_id, &manifest, &staging)?;
            Ok(manifest)
        });
        match fetched {
            Ok(manifest) => {
                std::fs::rename(&staging, dir).map_err(|e| local_err(dir, "moving the restored snapshot into place", e))?;
                sync_dir(dir.parent().unwrap_or(Path::new(".")))?;
                log::info!(
                    "store {}: restored snapshot {seq} from {}/{store_id} ({} files), offsets {:?}",
                    dir.display(),
                    location.uri(),
                    manifest.files.len(),
                    manifest.offsets
                );
                return Ok(Some(Restored { seq, offsets: manifest.offsets.clone(), manifest, skipped }));
            }
            Err(why) => {
                log::warn!(
                    "store {}: snapshot {seq} at {}/{store_id} is not usable ({why}); trying an older one",
                    dir.display(),
                    location.uri()
                );
                remove_dir(&staging)?;
                skipped.push((seq, why));
            }
        }
    }
    remove_dir(&staging)?;
    if !skipped.is_empty() {
        log::warn!(
            "store {}: no usable snapshot at {}/{store_id}; it restores from its changelog",
            dir.display(),
            location.uri()
        );
    }
    Ok(None)
}

/// Downloads every file of `manifest` into `staging`, each checked against its size and checksum.
/// Any failure (a missing or damaged object, the object store or the local disk failing) makes the
/// snapshot unusable, so a location that is down falls back to the changelog.
fn fetch(location: &Location, store_id: &str, manifest: &Manifest, staging: &Path) -> std::result::Result<(), String> {
    let failed = |e: Error| e.to_string();
    std::fs::create_dir_all(staging).map_err(|e| format!("creating {}: {e}", staging.display()))?;
    for file in &manifest.files {
        let object = location.path(store_id, &format!("{FILES}/{}", file.object)).map_err(failed)?;
        let bytes = location.get(&object).map_err(failed)?.ok_or_else(|| format!("object {object} is missing"))?;
        if bytes.len() as u64 != file.size {
            return Err(format!("object {object} has {} bytes, the manifest says {}", bytes.len(), file.size));
        }
        if crc32c(&bytes) != file.crc32c {
            return Err(format!("object {object} does not match its checksum"));
        }
        let path = staging.join(&file.name);
        let written = std::fs::File::create(&path).and_then(|mut out| {
            out.write_all(&bytes)?;
            out.sync_all()
        });
        written.map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    sync_dir(staging).map_err(failed)
}

/// Fails unless `dir` is missing or an empty directory (which is then removed, for the rename).
fn check_empty(dir: &Path) -> Result<()> {
    match std::fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(local_err(dir, "reading the store's directory", e)),
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(Error::InvalidArgument(format!(
                    "store {}: a snapshot is restored only into a missing or empty directory, and this one holds files",
                    dir.display()
                )));
            }
            std::fs::remove_dir(dir).map_err(|e| local_err(dir, "removing the empty store directory", e))
        }
    }
}

/// The directory beside `dir` that a snapshot is downloaded into (left over by a restore that
/// died: deleted first).
fn staging_dir(dir: &Path) -> Result<PathBuf> {
    let name = dir.file_name().ok_or_else(|| Error::InvalidArgument(format!("{} names no directory", dir.display())))?;
    let staging = dir.with_file_name(format!(".{}.restoring", name.to_string_lossy()));
    remove_dir(&staging)?;
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).map_err(|e| local_err(parent, "creating the state directory", e))?;
    }
    Ok(staging)
}

fn remove_dir(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(local_err(dir, "deleting a partial restore", e)),
        _ => Ok(()),
    }
}

fn sync_dir(dir: &Path) -> Result<()> {
    crate::durable::sync_dir(dir).map_err(|e| local_err(dir, "syncing a directory", e))
}
