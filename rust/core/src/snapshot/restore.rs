//! Restoring a store's directory from its newest usable snapshot.

use super::io::{Patience, Stop};
use super::layout::{manifest_seq, FILES, SNAPSHOTS};
use super::local::local_err;
use super::location::Location;
use super::progress::{DownloadWatch, Progress};
use crate::error::{Error, Result};
use crate::offsets::TopicPartition;
use crate::RowLayout;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use txn_rocksdb_format::snapshot_manifest::Manifest;

/// A store's changelog partition as it is now, which a snapshot must belong to: Kafka seeks to
/// the snapshot's offset + 1 (its offsets are those of the last record applied), so that offset
/// must be one the partition still has. A snapshot of a changelog that was deleted and recreated,
/// or truncated, or of an application that was reset, fails this (the topic's id in the store id
/// catches a recreated topic that grew past the snapshot).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changelog {
    /// The store's changelog partition.
    pub partition: TopicPartition,
    /// The partition's log start offset (its first record's).
    pub start: i64,
    /// The partition's log end offset (the offset its next record will get).
    pub end: i64,
}

impl Changelog {
    /// Why `manifest` does not belong to this changelog, if it does not.
    pub fn refuses(&self, manifest: &Manifest) -> Option<String> {
        let partition = &self.partition;
        if let Some((other, _)) = manifest.offsets.iter().find(|(tp, _)| tp != partition) {
            return Some(format!(
                "it holds offsets of {}-{}, not only of this store's changelog {}-{}",
                other.topic, other.partition, partition.topic, partition.partition
            ));
        }
        let Some(&(_, offset)) = manifest.offsets.iter().find(|(tp, _)| tp == partition) else {
            return Some(format!("it holds no offset of the changelog {}-{}", partition.topic, partition.partition));
        };
        let next = offset.checked_add(1).filter(|_| offset >= 0);
        match next {
            Some(next) if next >= self.start && next <= self.end => None,
            _ => Some(format!(
                "its changelog offset {offset} is not one the changelog {}-{} has now (offsets {} to {}): \
                 the topic was truncated, deleted and recreated, or the application reset",
                partition.topic, partition.partition, self.start, self.end
            )),
        }
    }
}

/// How long [`restore_newest`] may wait, so that a store opening never waits long for a location
/// that does not answer (the rest of its state comes from the changelog).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestoreBudget {
    /// The waiting it puts up with in all: time in which no byte arrived from the location. A
    /// location that answers never runs it out however large the snapshot; one that is silent,
    /// or answers each request late, does.
    pub patience: Duration,
    /// When it returns, done or not (the time its caller can give all its restores).
    pub deadline: Option<Instant>,
}

impl Default for RestoreBudget {
    fn default() -> RestoreBudget {
        RestoreBudget { patience: Duration::from_secs(10), deadline: None }
    }
}

/// The snapshot [`restore_newest`] put in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    /// The snapshot's number.
    pub seq: u64,
    /// The changelog offsets the restored directory holds: the changelog restores what follows.
    pub offsets: Vec<(TopicPartition, i64)>,
    /// Its manifest.
    pub manifest: Manifest,
    /// Newer snapshots passed over (damaged, incomplete, of another store or of another state of
    /// the changelog), newest first, each with the reason.
    pub skipped: Vec<(u64, String)>,
    /// Bytes downloaded (the snapshot's files).
    pub bytes: u64,
    /// The time it waited for the location with no byte arriving (what it took of its patience).
    pub waited: Duration,
}

/// Puts the newest usable snapshot of `store_id` at `location` into `dir`, which must be missing or
/// empty (a store without local state). A snapshot is usable when its manifest decodes, names
/// this store and belongs to `changelog` as it is now ([`Changelog::refuses`]), and every object it names exists with the size and crc32c the manifest gives; a
/// snapshot without a manifest (one being written, or interrupted) does not exist. The files are
/// downloaded into a directory beside `dir`, synced, and renamed into place, so `dir` holds a
/// whole snapshot or nothing. A snapshot found unusable is logged at WARN and an older one tried.
/// `Ok(None)`: no usable snapshot (the caller restores from the changelog).
///
/// It fails, leaving `dir` as it found it, once it waited for the location longer than `budget`
/// allows or past its deadline, and at once while the location went unanswered less than
/// its `unanswered_backoff` ago (`LocationSettings`).
pub fn restore_newest(
    location: &Location,
    store_id: &str,
    dir: &Path,
    changelog: &Changelog,
    rows: RowLayout,
    budget: RestoreBudget,
) -> Result<Option<Restored>> {
    restore_newest_watched(location, store_id, dir, changelog, rows, budget, &DownloadWatch::default())
}

/// [`restore_newest`], with how far its download has come in `watch` while it runs.
pub fn restore_newest_watched(
    location: &Location,
    store_id: &str,
    dir: &Path,
    changelog: &Changelog,
    rows: RowLayout,
    budget: RestoreBudget,
    watch: &DownloadWatch,
) -> Result<Option<Restored>> {
    check_empty(dir)?;
    location.check_answering()?;
    let patience = Patience::new(budget.patience);
    let stop = Stop { deadline: budget.deadline, cancel: None, patience: Some(&patience) };
    let staging = staging_dir(dir)?;
    let wanted = Wanted { changelog, rows };
    let restored = restore_into(location, store_id, dir, &staging, &wanted, stop, watch);
    if restored.is_err() {
        remove_dir(&staging)?;
    }
    restored
}

/// What a restore wants of a snapshot: that it belongs to the changelog as it is now, and holds
/// rows in the layout the store opens with.
struct Wanted<'a> {
    changelog: &'a Changelog,
    rows: RowLayout,
}

fn restore_into(
    location: &Location,
    store_id: &str,
    dir: &Path,
    staging: &Path,
    wanted: &Wanted<'_>,
    stop: Stop<'_>,
    watch: &DownloadWatch,
) -> Result<Option<Restored>> {
    let (changelog, rows) = (wanted.changelog, wanted.rows);
    let snapshots = location.path(store_id, SNAPSHOTS)?;
    let mut seqs: Vec<(u64, object_store::path::Path)> = location
        .list(&snapshots, stop)?
        .into_iter()
        .filter_map(|object| Some((object.location.filename().and_then(manifest_seq)?, object.location)))
        .collect();
    seqs.sort_by_key(|(seq, _)| std::cmp::Reverse(*seq));
    let mut skipped = Vec::new();
    for (seq, path) in seqs {
        let manifest = match location.get(&path, stop)? {
            None => Err(Unusable::Snapshot("its manifest disappeared".to_string())),
            Some(bytes) => {
                Manifest::decode(&bytes).map_err(|e| Unusable::Snapshot(format!("its manifest does not decode ({e})")))
            }
        };
        let fetched = manifest.and_then(|manifest| {
            if manifest.store_id != store_id || manifest.seq != seq {
                let why = format!("its manifest is snapshot {} of store '{}'", manifest.seq, manifest.store_id);
                return Err(Unusable::Snapshot(why));
            }
            if let Some(why) = changelog.refuses(&manifest) {
                return Err(Unusable::Snapshot(why));
            }
            if RowLayout::of(manifest.ttl) != rows {
                return Err(Unusable::Snapshot(match rows {
                    RowLayout::Plain => "it holds a store with a time-to-live; this one opens without one".to_string(),
                    RowLayout::TimeToLive => {
                        "it holds a store without a time-to-live; this one opens with one".to_string()
                    }
                }));
            }
            fetch(location, store_id, &manifest, dir, staging, stop, watch)?;
            Ok(manifest)
        });
        match fetched {
            Ok(manifest) => {
                std::fs::rename(staging, dir)
                    .map_err(|e| local_err(dir, "moving the restored snapshot into place", e))?;
                sync_dir(dir.parent().unwrap_or(Path::new(".")))?;
                log::info!(
                    "store {}: restored snapshot {seq} from {}/{store_id} ({} files), offsets {:?}",
                    dir.display(),
                    location.uri(),
                    manifest.files.len(),
                    manifest.offsets
                );
                let bytes = manifest.files.iter().map(|file| file.size).sum();
                let waited = stop.patience.map_or(Duration::ZERO, Patience::waited);
                return Ok(Some(Restored { seq, offsets: manifest.offsets.clone(), manifest, skipped, bytes, waited }));
            }
            Err(Unusable::Stopped(e)) => return Err(e),
            Err(Unusable::Snapshot(why)) => {
                log::warn!(
                    "store {}: snapshot {seq} at {}/{store_id} is not usable ({why}); trying an older one",
                    dir.display(),
                    location.uri()
                );
                remove_dir(staging)?;
                skipped.push((seq, why));
            }
        }
    }
    remove_dir(staging)?;
    if !skipped.is_empty() {
        log::warn!(
            "store {}: no usable snapshot at {}/{store_id}; it restores from its changelog",
            dir.display(),
            location.uri()
        );
    }
    Ok(None)
}

/// Files of a snapshot downloaded at once.
const DOWNLOADS_AT_ONCE: usize = 4;

/// Why a snapshot was not restored.
enum Unusable {
    /// This snapshot is not usable (the reason); an older one may be.
    Snapshot(String),
    /// The restore was stopped (its budget ran out): no older snapshot is tried.
    Stopped(Error),
}

/// Downloads every file of `manifest` into `staging` for the store in `dir` ([`DOWNLOADS_AT_ONCE`] at a time, each
/// streamed to disk), each checked against its size and checksum. Any failure (a missing or
/// damaged object, the object store or the local disk failing) makes the snapshot unusable, so a
/// location that is down falls back to the changelog.
fn fetch(
    location: &Location,
    store_id: &str,
    manifest: &Manifest,
    dir: &Path,
    staging: &Path,
    stop: Stop<'_>,
    watch: &DownloadWatch,
) -> std::result::Result<(), Unusable> {
    let failed = |e: Error| Unusable::Snapshot(e.report().to_string());
    std::fs::create_dir_all(staging).map_err(|e| Unusable::Snapshot(format!("creating {}: {e}", staging.display())))?;
    let mut objects = Vec::with_capacity(manifest.files.len());
    for file in &manifest.files {
        let mut parts = Vec::with_capacity(file.parts.len());
        for part in &file.parts {
            parts.push(location.path(store_id, &format!("{FILES}/{}", part.object)).map_err(failed)?);
        }
        objects.push((parts, staging.join(&file.name)));
    }
    let total = manifest.files.iter().map(|file| file.size).sum();
    let progress = Progress::new(dir, manifest.seq, total, watch);
    let fetched = location.get_files(&objects, DOWNLOADS_AT_ONCE, stop, &progress).map_err(Unusable::Stopped)?;
    progress.finish();
    for ((file, (parts, _)), result) in manifest.files.iter().zip(&objects).zip(fetched) {
        let unusable = |why: String| Unusable::Snapshot(why);
        let Some(fetched) = result.map_err(failed)? else {
            return Err(unusable(format!("an object of file {} is missing", file.name)));
        };
        for ((part, object), (size, crc)) in file.parts.iter().zip(parts).zip(fetched.parts) {
            if size != part.size || crc != part.crc32c {
                let why = match size != part.size {
                    true => format!("object {object} has {size} bytes, the manifest says {}", part.size),
                    false => format!("object {object} does not match its checksum"),
                };
                forget_damaged(location, object);
                return Err(unusable(why));
            }
        }
        if fetched.crc32c != file.crc32c {
            return Err(unusable(format!("file {} made of its parts does not match its checksum", file.name)));
        }
    }
    sync_dir(staging).map_err(failed)
}

/// Deletes an object whose bytes are not those its name says (size and crc32c): no snapshot can use
/// it, and a snapshot sends again what it references and the location lacks, so the next snapshot
/// of the store heals it. A failure to delete is only logged.
fn forget_damaged(location: &Location, object: &object_store::path::Path) {
    match location.delete(object, Stop::default()) {
        Ok(()) => log::warn!(
            "snapshot: deleted the damaged object {object} at {}; the next snapshot sends it again",
            location.uri()
        ),
        Err(e) => log::warn!("snapshot: the damaged object {object} could not be deleted ({})", e.report()),
    }
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
    let name =
        dir.file_name().ok_or_else(|| Error::InvalidArgument(format!("{} names no directory", dir.display())))?;
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
