//! Retention: the newest manifests of a store kept, the rest and the objects no kept manifest
//! references deleted.

use super::io::Stop;
use super::layout::{manifest_seq, FILES, SNAPSHOTS};
use super::location::Location;
use crate::error::{Error, Result};
use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use txn_rocksdb_format::snapshot_manifest::Manifest;

/// What [`retain`] deleted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Retained {
    /// The snapshots kept, newest first.
    pub kept: Vec<u64>,
    /// The manifests deleted, by seq.
    pub manifests_deleted: Vec<u64>,
    /// The objects deleted, by name, sorted.
    pub files_deleted: Vec<String>,
}

/// Keeps the newest `keep` snapshots of `store_id` (manifests that decode; one that does not is
/// deleted when older than the oldest kept) and deletes the other manifests, then every object no
/// kept manifest references and that is older than the oldest kept manifest: an object sent by a
/// snapshot still being written (its manifest not there yet) is newer, so it stays. `keep` must be
/// at least 1. A snapshot being written that references an object sent long ago by a snapshot this
/// deletes can lose that object to another writer's retention; restore then finds it incomplete
/// and falls back, never to wrong data.
///
/// Setting `cancel` (the store is closing) stops it at once; what it deleted stays deleted, and the
/// next retention deletes the rest.
pub fn retain(location: &Location, store_id: &str, keep: usize, cancel: &AtomicBool) -> Result<Retained> {
    if keep == 0 {
        return Err(Error::InvalidArgument("snapshot retention must keep at least one snapshot".into()));
    }
    let stop = Stop { cancel: Some(cancel), ..Stop::default() };
    let mut manifests: Vec<(u64, object_store::ObjectMeta)> = location
        .list(&location.path(store_id, SNAPSHOTS)?, stop)?
        .into_iter()
        .filter_map(|object| Some((object.location.filename().and_then(manifest_seq)?, object)))
        .collect();
    manifests.sort_by_key(|(seq, _)| std::cmp::Reverse(*seq));
    let mut retained = Retained::default();
    let mut referenced = HashSet::new();
    let mut oldest_kept = None;
    let mut deleting = Vec::new();
    for (seq, object) in manifests {
        if retained.kept.len() == keep {
            deleting.push((seq, object));
            continue;
        }
        let decoded = location.get(&object.location, stop)?.map(|bytes| Manifest::decode(&bytes));
        match decoded {
            Some(Ok(manifest)) => {
                referenced.extend(manifest.files.into_iter().flat_map(|file| file.parts).map(|part| part.object));
                retained.kept.push(seq);
                oldest_kept = Some(object.last_modified);
            }
            Some(Err(e)) => {
                log::warn!(
                    "snapshot {seq} of {}/{store_id}: its manifest does not decode ({e}); not counted as kept",
                    location.uri()
                );
                deleting.push((seq, object));
            }
            None => {}
        }
    }
    let Some(oldest_kept) = oldest_kept else {
        // Nothing usable to keep: leave everything as it is (a restore may still find something).
        return Ok(retained);
    };
    for (seq, object) in deleting {
        if object.last_modified <= oldest_kept {
            location.delete(&object.location, stop)?;
            retained.manifests_deleted.push(seq);
        }
    }
    for object in location.list(&location.path(store_id, FILES)?, stop)? {
        let Some(name) = object.location.filename() else { continue };
        if !referenced.contains(name) && object.last_modified < oldest_kept {
            location.delete(&object.location, stop)?;
            retained.files_deleted.push(name.to_string());
        }
    }
    retained.files_deleted.sort();
    retained.manifests_deleted.sort();
    Ok(retained)
}
