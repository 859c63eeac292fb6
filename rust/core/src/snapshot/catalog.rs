//! What a location holds: every snapshot of every store (or of one), as its manifest says, for the
//! operators' tool (`snapshots list`). Reads only: a listing, then each manifest. Given changelog
//! partitions as they are now, each usable snapshot also says whether a restore now would pass it
//! over ([`Changelog::refuses`], the rule the restore itself applies).

use super::io::{Patience, Stop};
use super::layout::{manifest_seq, SNAPSHOTS};
use super::location::Location;
use super::restore::Changelog;
use crate::error::Result;
use std::time::{Duration, Instant};
use txn_rocksdb_format::snapshot_calls::{ListAnswer, ListedSnapshot};
use txn_rocksdb_format::snapshot_manifest::Manifest;

/// Every snapshot at `location` (of `store_id` only, when given), by store id, then seq: what each
/// manifest says, or why it cannot be used, and why a restore now would pass it over for the one of
/// `changelogs` its offsets belong to. Waits at most `patience` in all for the location to answer,
/// and returns by `timeout`.
pub fn list(
    location: &Location,
    store_id: Option<&str>,
    changelogs: &[Changelog],
    patience: Duration,
    timeout: Duration,
) -> Result<ListAnswer> {
    location.check_answering()?;
    let patience = Patience::new(patience);
    let stop = Stop { deadline: Some(Instant::now() + timeout), cancel: None, patience: Some(&patience) };
    let prefix = match store_id {
        Some(store_id) => location.path(store_id, SNAPSHOTS)?,
        None => location.root(),
    };
    let mut manifests: Vec<(String, u64, object_store::ObjectMeta)> = location
        .list(&prefix, stop)?
        .into_iter()
        .filter_map(|object| {
            let seq = object.location.filename().and_then(manifest_seq)?;
            let store = location.store_id_of(&object.location, SNAPSHOTS)?;
            Some((store, seq, object))
        })
        .collect();
    manifests.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let mut snapshots = Vec::with_capacity(manifests.len());
    for (store_id, seq, object) in manifests {
        let read = location.get(&object.location, stop)?;
        let listed = match read.as_deref().map(Manifest::decode) {
            Some(Ok(manifest)) if manifest.store_id == store_id && manifest.seq == seq => {
                described(manifest, changelogs)
            }
            Some(Ok(manifest)) => unusable(
                &store_id,
                seq,
                object.size,
                format!("its manifest is snapshot {} of store '{}'", manifest.seq, manifest.store_id),
            ),
            Some(Err(why)) => unusable(&store_id, seq, object.size, format!("its manifest does not decode ({why})")),
            None => unusable(&store_id, seq, object.size, "its manifest disappeared".to_owned()),
        };
        snapshots.push(listed);
    }
    Ok(ListAnswer { snapshots })
}

fn described(manifest: Manifest, changelogs: &[Changelog]) -> ListedSnapshot {
    let changelog_refuses = changelogs
        .iter()
        .find(|changelog| manifest.offsets.iter().any(|(partition, _)| *partition == changelog.partition))
        .and_then(|changelog| changelog.refuses(&manifest))
        .unwrap_or_default();
    ListedSnapshot {
        seq: manifest.seq as i64,
        created_ms: manifest.created_ms,
        files: manifest.files.len() as i64,
        bytes: manifest.files.iter().map(|file| file.size as i64).sum(),
        transactional: manifest.transactional,
        strategy: manifest.strategy.code(),
        value_format: manifest.value_format.code(),
        ttl: manifest.ttl,
        problem: String::new(),
        changelog_refuses,
        offsets: manifest.offsets,
        store_id: manifest.store_id,
    }
}

fn unusable(store_id: &str, seq: u64, bytes: u64, problem: String) -> ListedSnapshot {
    ListedSnapshot {
        store_id: store_id.to_owned(),
        seq: seq as i64,
        created_ms: 0,
        files: 0,
        bytes: bytes as i64,
        transactional: false,
        strategy: 0,
        value_format: 0,
        ttl: false,
        problem,
        changelog_refuses: String::new(),
        offsets: Vec::new(),
    }
}
