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
//! [`list`]: every snapshot at a location, as its manifest says, and whether a restore now would
//! pass it over for its changelog as it is (the operators' tool).
//! [`retain`]: the newest N manifests kept, and the objects none of them references deleted once
//! they are older than the oldest kept manifest (so never an object a snapshot being written sent).
//!
//! Waiting is bounded everywhere (`io.rs`): each request by the location's request timeout, a
//! restore by its [`RestoreBudget`] (the waiting it puts up with, a deadline), an upload by its
//! cancel flag; a location that went unanswered is skipped for a while (`LocationSettings`). Every
//! location of a process shares one I/O runtime of [`io_threads`] threads. A download still running
//! after 10 s logs how far it came every 10 s, and a [`DownloadWatch`] gives the same figures to
//! another thread (`progress.rs`).

mod calls;
mod catalog;
mod io;
mod layout;
mod local;
mod location;
mod progress;
mod restore;
mod retention;
mod sent;
mod take;

pub use calls::{list_requested, open_location, restore_requested, retain_requested};
pub use catalog::list;
pub use io::{io_threads, set_io_threads, DEFAULT_IO_THREADS};
pub use location::{Location, LocationSettings};
pub use progress::{DownloadFigures, DownloadWatch};
pub use restore::{restore_newest, restore_newest_watched, Changelog, RestoreBudget, Restored};
pub use retention::{retain, Retained};
pub use take::{prepare, take, upload, Prepared, Taken};
pub use txn_rocksdb_format::snapshot_manifest::{FilePart, Manifest, SnapshotFile};
