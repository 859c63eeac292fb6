//! Snapshots of a store in object storage, restored as snapshot + changelog tail: the engine's
//! part (the settings, the schedule and Kafka's side are the JNI crate's and Java's
//! `StoreSnapshots`).
//!
//! Layout at a [`Location`], per store id:
//! - `<store id>/files/<object>`: the files of every snapshot, each object named after the file,
//!   its size and its crc32c (`000012.sst-40211-1a2b3c4d`), so an object never changes once
//!   written and a file a snapshot already sent (an SST file is immutable) is referenced, not sent
//!   again;
//! - `<store id>/snapshots/<seq>.manifest` (seq zero-padded to 20 digits): the manifest (the format
//!   crate's `snapshot_manifest.rs`), written LAST and only if no manifest of that seq exists, so
//!   a snapshot exists exactly when its manifest does.
//!
//! [`take`] = [`prepare`] (on the committing thread: a RocksDB checkpoint of the store taken
//! between two commits, `KeyValueStore::checkpoint`, the only moment that holds commits back) then
//! [`upload`] (on any thread: its offsets, position and value format read from the checkpoint
//! itself, exact since they commit atomically with the data; its files sent, the manifest written,
//! the checkpoint deleted; cancellable). [`restore_newest`]: the newest
//! snapshot that belongs to the changelog as it is now and whose every object exists and matches its size and checksum, downloaded into a
//! directory beside the store's and renamed into place; older snapshots where one is damaged or
//! incomplete; `None` where none is usable (the caller restores from the changelog).
//! [`retain`]: the newest N manifests kept, and the objects none of them references deleted once
//! they are older than the oldest kept manifest (so never an object a snapshot being written sent).
//!
//! Waiting is bounded everywhere (`io.rs`): each request by the location's request timeout, a
//! restore by its [`RestoreBudget`] (the waiting it puts up with, a deadline), an upload by its
//! cancel flag; a location that went unanswered is skipped for a while (`LocationSettings`). Every
//! location of a process shares one I/O runtime of [`io_threads`] threads.

mod calls;
mod io;
mod location;
mod restore;
mod retention;
mod sent;
mod take;

pub use calls::{open_location, restore_requested, retain_requested};
pub use io::{io_threads, set_io_threads, DEFAULT_IO_THREADS};
pub use location::{Location, LocationSettings};
pub use restore::{restore_newest, Changelog, RestoreBudget, Restored};
pub use retention::{retain, Retained};
pub use take::{prepare, take, upload, Prepared, Taken};
pub use txn_rocksdb_format::snapshot_manifest::{FilePart, Manifest, SnapshotFile};

use crate::error::Error;
use std::io::Read;
use std::path::Path;
use txn_rocksdb_format::wal::crc32c_extend;

/// The folder of a store's objects, under its store id.
const FILES: &str = "files";
/// The folder of a store's manifests, under its store id.
const SNAPSHOTS: &str = "snapshots";
const MANIFEST_SUFFIX: &str = ".manifest";

/// The manifest's name of snapshot `seq` under `snapshots/`.
fn manifest_name(seq: u64) -> String {
    format!("{seq:020}{MANIFEST_SUFFIX}")
}

/// The seq of a manifest's object name (its last path segment), if it is one.
fn manifest_seq(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(MANIFEST_SUFFIX)?;
    (digits.len() == 20 && digits.bytes().all(|b| b.is_ascii_digit())).then(|| digits.parse().ok())?
}

/// The object name of the part of file `name` starting at `offset`: the file's name, the part's
/// offset (left out at 0, where a part is usually the whole file), size and crc32c, so that equal
/// names mean equal bytes.
fn object_name(name: &str, offset: u64, size: u64, crc32c: u32) -> String {
    match offset {
        0 => format!("{name}-{size}-{crc32c:08x}"),
        offset => format!("{name}+{offset}-{size}-{crc32c:08x}"),
    }
}

/// A local file's size and crc32c, and the crc32c of its bytes before and after `prefix` (a
/// prefix longer than the file is the whole file).
fn file_checksum(path: &Path, prefix: u64) -> std::io::Result<FileChecksum> {
    let mut file = std::fs::File::open(path)?;
    let mut buffer = vec![0u8; 1 << 20];
    let mut sum = FileChecksum { size: 0, crc32c: 0, prefix_crc32c: 0, suffix_crc32c: 0 };
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            return Ok(sum);
        }
        let bytes = &buffer[..read];
        let within = usize::try_from(prefix.saturating_sub(sum.size)).map_or(read, |left| left.min(read));
        sum.prefix_crc32c = crc32c_extend(sum.prefix_crc32c, &bytes[..within]);
        sum.suffix_crc32c = crc32c_extend(sum.suffix_crc32c, &bytes[within..]);
        sum.crc32c = crc32c_extend(sum.crc32c, bytes);
        sum.size += read as u64;
    }
}

/// What [`file_checksum`] read.
struct FileChecksum {
    size: u64,
    crc32c: u32,
    /// The crc32c of the bytes before the prefix's end, and of those after it.
    prefix_crc32c: u32,
    suffix_crc32c: u32,
}

/// A storage error about a local path.
fn local_err(path: &Path, what: &str, source: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::storage(path, &format!("snapshot: {what}"), source)
}
