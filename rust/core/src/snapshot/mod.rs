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

mod location;
mod restore;
mod retention;
mod take;

pub use location::Location;
pub use restore::{restore_newest, Changelog, Restored};
pub use retention::{retain, Retained};
pub use take::{prepare, take, upload, Prepared, Taken};
pub use txn_rocksdb_format::snapshot_manifest::{Manifest, SnapshotFile};

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

/// The object name of a file: its name, size and crc32c, so that equal names mean equal bytes.
fn object_name(name: &str, size: u64, crc32c: u32) -> String {
    format!("{name}-{size}-{crc32c:08x}")
}

/// The size and crc32c of a local file.
fn file_checksum(path: &Path) -> std::io::Result<(u64, u32)> {
    let mut file = std::fs::File::open(path)?;
    let mut buffer = vec![0u8; 1 << 20];
    let (mut size, mut crc) = (0u64, 0u32);
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            return Ok((size, crc));
        }
        crc = crc32c_extend(crc, &buffer[..read]);
        size += read as u64;
    }
}

/// A storage error about a local path.
fn local_err(path: &Path, what: &str, e: impl std::fmt::Display) -> Error {
    Error::storage(path, format!("snapshot: {what}: {e}"))
}
