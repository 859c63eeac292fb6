//! Taking a snapshot: a checkpoint between two commits, its offsets read from it, its files sent
//! (those an earlier snapshot sent are referenced), the manifest written last, the checkpoint
//! deleted.

use super::io::Stop;
use super::layout::{manifest_name, manifest_seq, object_name, FILES, SNAPSHOTS};
use super::local::{file_checksum, local_err, FileChecksum};
use super::location::Location;
use super::sent::Sent;
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
use txn_rocksdb_format::snapshot_manifest::{FilePart, Manifest, SnapshotFile};
use txn_rocksdb_format::ttl::LAYOUT_KEY;
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
    /// Objects sent by this snapshot (files, or the parts of files appended to since an earlier
    /// snapshot; the others were already there).
    pub files_uploaded: usize,
    /// Bytes sent by this snapshot (the manifest not counted).
    pub bytes_uploaded: u64,
    /// Objects an earlier snapshot sent that this one read back and checked.
    pub objects_verified: usize,
    /// Of those, the objects found missing or damaged (and sent again).
    pub objects_damaged: usize,
    /// Objects sent again: an earlier snapshot had sent them, and they were missing (a restore
    /// deletes an object it found damaged) or found damaged.
    pub objects_resent: usize,
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
    /// The store's RocksDB identity (its `IDENTITY` file), which keys what the location remembers
    /// of the files it sent (`sent.rs`); None: nothing remembered.
    identity: Option<String>,
}

/// The most parts a file is sent in: past it, the next snapshot sends it whole again, so that a
/// restore downloads a bounded number of objects per file (a write-ahead log growing between two
/// memtable flushes is otherwise sent one part per snapshot: what was appended since the last).
const MAX_PARTS: usize = 32;

/// Objects an earlier snapshot sent that each snapshot reads back and checks against the size and
/// crc32c their names give, sending again any missing or damaged: in rounds in which each object
/// is checked once (objects sent meanwhile count as checked), so an object damaged at any moment is
/// found within two rounds, 2 x objects / this many snapshots, at the cost of reading this many
/// objects (at most an SST file's size each) per snapshot, whatever the state's size.
const VERIFIED_PER_SNAPSHOT: usize = 2;

/// Whether RocksDB never changes the file once written (SST and blob files).
fn is_immutable(name: &str) -> bool {
    name.ends_with(".sst") || name.ends_with(".blob")
}

/// Whether RocksDB only ever appends to the file (write-ahead logs and MANIFESTs): an earlier
/// snapshot's copy of it is a prefix of a later one's.
fn is_appendable(name: &str) -> bool {
    name.ends_with(".log") || name.starts_with("MANIFEST-")
}

/// A file sent as one part.
fn whole(name: &str, size: u64, crc32c: u32) -> SnapshotFile {
    let part = FilePart { object: object_name(name, 0, size, crc32c), size, crc32c };
    SnapshotFile { name: name.to_string(), size, crc32c, parts: vec![part] }
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
    // not skipped while the location went unanswered (as restores are): off the stream thread, an
    // upload only costs a sending thread its request timeouts, and the next one after the location
    // answers again must not wait for a backoff, or for a commit after it
    let stop = Stop { cancel: Some(cancel), ..Stop::default() };
    let image = read_image(&store_dir, &options, &checkpoint.0)?;
    let snapshots = location.path(store_id, SNAPSHOTS)?;
    let seq = location
        .list(&snapshots, stop)?
        .iter()
        .filter_map(|object| object.location.filename().and_then(manifest_seq))
        .max()
        .unwrap_or(0)
        + 1;

    let existing: HashMap<String, u64> = location
        .list(&location.path(store_id, FILES)?, stop)?
        .into_iter()
        .filter_map(|object| Some((object.location.filename()?.to_string(), object.size)))
        .collect();
    let before = identity.as_deref().map(|id| location.sent.get(id)).unwrap_or_default();
    let mut now = Sent::default();
    let (mut files, mut parts) = (Vec::new(), Vec::new());
    for name in file_names(&checkpoint.0)? {
        let path = checkpoint.0.join(&name);
        let file = describe(&name, &path, &before, &mut now)?;
        let mut offset = 0;
        for part in &file.parts {
            parts.push(LocalPart { part: part.clone(), path: path.clone(), range: offset..offset + part.size });
            offset += part.size;
        }
        files.push(file);
    }
    let counts = send(location, store_id, stop, parts, &existing, &before, &mut now)?;
    fault::point("snapshot:before-manifest")?;
    if cancel.load(Ordering::Acquire) {
        return Err(super::location::cancelled(location));
    }

    let manifest = Manifest {
        seq,
        created_ms: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64),
        store_id: store_id.to_string(),
        value_format: image.value_format.unwrap_or(options.value_format),
        transactional: options.transactional,
        strategy: options.strategy,
        ttl: image.ttl,
        offsets: image.offsets.clone(),
        position: image.position,
        files,
    };
    if let Some(identity) = &identity {
        location.sent.replace(identity, now);
    }
    let file_count = manifest.files.len();
    let manifest_path = location.path(store_id, &format!("{SNAPSHOTS}/{}", manifest_name(seq)))?;
    if !location.put_new(&manifest_path, manifest.encode(), stop)? {
        return Err(location.err_found(
            &manifest_path,
            "another snapshot of this store wrote this manifest meanwhile: take one snapshot of a store at a time",
        ));
    }
    log::info!(
        "store {}: snapshot {seq} written to {}/{store_id} ({file_count} files, {} objects sent, {} bytes)",
        store_dir.display(),
        location.uri(),
        counts.files_uploaded,
        counts.bytes_uploaded
    );
    Ok(Taken {
        seq,
        offsets: image.offsets,
        files: file_count,
        files_uploaded: counts.files_uploaded,
        bytes_uploaded: counts.bytes_uploaded,
        objects_verified: counts.objects_verified,
        objects_damaged: counts.objects_damaged,
        objects_resent: counts.objects_resent,
    })
}

/// A part of a checkpoint's file: the bytes `range` of the local file `path`.
struct LocalPart {
    part: FilePart,
    path: PathBuf,
    range: std::ops::Range<u64>,
}

/// What [`send`] did.
#[derive(Default)]
struct Counts {
    files_uploaded: usize,
    bytes_uploaded: u64,
    objects_verified: usize,
    objects_damaged: usize,
    objects_resent: usize,
}

/// The manifest entry of the checkpoint's file `name` at `path`: an immutable file whole (its
/// checksum read once per identity), an appendable one as the parts the last snapshot sent it as
/// and what was appended since when its bytes start with theirs, else whole. Records it in `now`.
fn describe(name: &str, path: &Path, before: &Sent, now: &mut Sent) -> Result<SnapshotFile> {
    let reading = |e: std::io::Error| local_err(path, "reading a checkpoint file", e);
    let size = std::fs::metadata(path).map_err(reading)?.len();
    let checksum = |prefix: u64| match file_checksum(path, prefix).map_err(reading)? {
        sum if sum.size == size => Ok(sum),
        sum => Err(Error::storage_found(
            path,
            format!("snapshot: reading a checkpoint file: {} bytes read, {size} expected", sum.size),
        )),
    };
    if is_immutable(name) {
        let crc32c = match before.immutable.get(&(name.to_string(), size)) {
            Some(crc32c) => *crc32c,
            None => checksum(0)?.crc32c,
        };
        now.immutable.insert((name.to_string(), size), crc32c);
        return Ok(whole(name, size, crc32c));
    }
    let earlier = before.appendable.get(name).filter(|_| is_appendable(name));
    let sum: FileChecksum = checksum(earlier.map_or(0, |file| file.size))?;
    let file = match earlier {
        Some(earlier)
            if size >= earlier.size && sum.prefix_crc32c == earlier.crc32c && earlier.parts.len() < MAX_PARTS =>
        {
            let mut parts = earlier.parts.clone();
            let appended = size - earlier.size;
            if appended > 0 {
                let object = object_name(name, earlier.size, appended, sum.suffix_crc32c);
                parts.push(FilePart { object, size: appended, crc32c: sum.suffix_crc32c });
            }
            SnapshotFile { name: name.to_string(), size, crc32c: sum.crc32c, parts }
        }
        _ => whole(name, size, sum.crc32c),
    };
    if is_appendable(name) {
        now.appendable.insert(name.to_string(), file.clone());
    }
    Ok(file)
}

/// Sends the parts the location lacks (`existing`: its objects' sizes by name), again where an
/// earlier snapshot had sent them; reads back a few of those it has ([`VERIFIED_PER_SNAPSHOT`], by rounds) and
/// sends again those missing or damaged.
fn send(
    location: &Location,
    store_id: &str,
    stop: Stop<'_>,
    parts: Vec<LocalPart>,
    existing: &HashMap<String, u64>,
    before: &Sent,
    now: &mut Sent,
) -> Result<Counts> {
    let mut counts = Counts::default();
    let (mut missing, mut present): (Vec<LocalPart>, Vec<LocalPart>) =
        parts.into_iter().partition(|local| existing.get(&local.part.object) != Some(&local.part.size));
    let sent_before = before.objects();
    counts.objects_resent = missing.iter().filter(|local| sent_before.contains(&local.part.object)).count();
    present.sort_by(|a, b| a.part.object.cmp(&b.part.object));
    now.verified = before.verified.clone();
    if present.iter().all(|local| now.verified.contains(&local.part.object)) {
        now.verified.clear(); // every object checked: a new round
    }
    let checking: Vec<&LocalPart> =
        present.iter().filter(|local| !now.verified.contains(&local.part.object)).take(VERIFIED_PER_SNAPSHOT).collect();
    now.verified.extend(checking.iter().map(|local| local.part.object.clone()));
    now.verified.extend(missing.iter().map(|local| local.part.object.clone()));
    for local in checking {
        let object = location.path(store_id, &format!("{FILES}/{}", local.part.object))?;
        counts.objects_verified += 1;
        if location.checksum(&object, stop)? != Some((local.part.size, local.part.crc32c)) {
            log::warn!("snapshot: object {object} at {} is missing or damaged; sending it again", location.uri());
            counts.objects_damaged += 1;
            counts.objects_resent += 1;
            missing.push(LocalPart { part: local.part.clone(), path: local.path.clone(), range: local.range.clone() });
        }
    }
    for local in missing {
        let object = location.path(store_id, &format!("{FILES}/{}", local.part.object))?;
        location.put_file(&object, &local.path, local.range, stop)?;
        counts.files_uploaded += 1;
        counts.bytes_uploaded += local.part.size;
    }
    Ok(counts)
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
/// handle closes: a link to a file the store itself has open stays listed, so its directory cannot
/// be removed while the store is open.)
fn remove_leftover_checkpoints(store_dir: &Path) -> Result<()> {
    let entries = std::fs::read_dir(store_dir).map_err(|e| local_err(store_dir, "listing the store's directory", e))?;
    for entry in entries {
        let entry = entry.map_err(|e| local_err(store_dir, "listing the store's directory", e))?;
        if entry.file_name().to_string_lossy().starts_with(CHECKPOINT_PREFIX) {
            if let Err(e) = std::fs::remove_dir_all(entry.path()) {
                log::warn!(
                    "snapshot: deleting the leftover checkpoint {} failed (tried again at the next snapshot): {e}",
                    entry.path().display()
                );
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
        let name = entry.file_name().into_string().map_err(|name| {
            Error::storage_found(dir, format!("snapshot: a checkpoint file name: {name:?} is not UTF-8"))
        })?;
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
    /// Whether its rows are in the time-to-live layout (recorded beside its offsets).
    ttl: bool,
}

/// Reads the offsets, position, value format and row layout from the checkpoint in `dir` (opened read-only):
/// they are those of the data beside them, as every commit writes them in the same atomic write.
fn read_image(store_dir: &Path, options: &crate::StoreOptions, dir: &Path) -> Result<Image> {
    let opening = Opening { path: dir, statistics: false, tuning: &options.tuning };
    let rocks = opening
        .open_read_only(DBRecoveryMode::TolerateCorruptedTailRecords)
        .map_err(|e| local_err(dir, "opening the checkpoint", e))?;
    let read = |e: rust_rocksdb::Error| local_err(dir, "reading the checkpoint", e);
    let family = rocks.cf_handle(crate::options::OFFSETS_CF).expect("offsets column family is created at open");
    for (key, what) in
        [(COMMIT_RECORD_KEY, "its last commit failed half-way"), (UPGRADE_KEY, "its values are being upgraded")]
    {
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
        Some(bytes) => {
            Some(ValueFormat::decode(&bytes).map_err(|e| local_err(dir, "reading the checkpoint's value format", e))?)
        }
        None => None,
    };
    let ttl = rocks.get_pinned_cf(family, LAYOUT_KEY).map_err(read)?.is_some();
    Ok(Image { offsets, position, value_format, ttl })
}
