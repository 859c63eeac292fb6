//! What a location remembers of the files it sent, so that a snapshot neither reads every SST file
//! again for its checksum nor sends a whole write-ahead log again for what was appended to it.

use super::layout::object_name;
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use txn_rocksdb_format::snapshot_manifest::SnapshotFile;

/// Per RocksDB identity (a store's `IDENTITY` file: a new one for every new database, a wiped and
/// recreated store included): the checksums of the immutable files the last snapshot read, and the
/// appendable files it sent with their parts. RocksDB never reuses an SST file's number within a
/// database and never changes an SST file, so within one identity an SST file's name and size name
/// its bytes; a store wiped and recreated (numbers start again) has a new identity. Only the last
/// snapshot's files of each identity are kept.
#[derive(Debug, Default)]
pub(crate) struct SentFiles(Mutex<HashMap<String, Sent>>);

/// One identity's files as its last snapshot sent them.
#[derive(Debug, Default, Clone)]
pub(crate) struct Sent {
    /// The crc32c of each immutable file, by name and size.
    pub(crate) immutable: HashMap<(String, u64), u32>,
    /// Each appendable file (a write-ahead log, a MANIFEST) as its manifest entry described it.
    pub(crate) appendable: HashMap<String, SnapshotFile>,
    /// The objects checked (read back) or sent in this round of checks: each snapshot checks
    /// objects not in it, and once every object it references is, a new round starts. Objects a
    /// snapshot sends are in it, so new objects never hold the older ones' turn back.
    pub(crate) verified: HashSet<String>,
}

impl Sent {
    /// The names of the objects these files were sent as.
    pub(crate) fn objects(&self) -> HashSet<String> {
        let immutable = self.immutable.iter().map(|((name, size), crc32c)| object_name(name, 0, *size, *crc32c));
        let appended = self.appendable.values().flat_map(|file| file.parts.iter().map(|part| part.object.clone()));
        immutable.chain(appended).collect()
    }
}

impl SentFiles {
    /// What the last snapshot of `identity` sent (nothing for an identity not seen).
    pub(crate) fn get(&self, identity: &str) -> Sent {
        let sent = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        sent.get(identity).cloned().unwrap_or_default()
    }

    /// Records what the last snapshot of `identity` sent.
    pub(crate) fn replace(&self, identity: &str, files: Sent) {
        let mut sent = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        sent.insert(identity.to_string(), files);
    }
}
