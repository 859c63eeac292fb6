//! A snapshot interrupted after sending its files and before its manifest (the crash point
//! `snapshot:before-manifest`, armed as an error) is never used, and the next one completes. Its
//! own binary: the armed point is process-wide.

use std::path::Path;
use txn_rocksdb::snapshot::{self, Changelog, Location, RestoreBudget};
use txn_rocksdb::RowLayout;
use txn_rocksdb::{fault, KeyValueStore, Range, StoreOptions, TopicPartition};

fn commit(store: &KeyValueStore, n: u32) {
    for i in 0..50 {
        store.put(format!("key-{i:03}").as_bytes(), Some(format!("value-{n}-{i}").as_bytes())).unwrap();
    }
    let partition = TopicPartition { topic: "app-store-changelog".into(), partition: 0 };
    store.commit(&[(partition, Some(i64::from(n) * 100))], None).unwrap();
}

fn changelog() -> Changelog {
    Changelog { partition: TopicPartition { topic: "app-store-changelog".into(), partition: 0 }, start: 0, end: 1_000 }
}

/// A store's entries and committed offsets.
type State = (Vec<(Vec<u8>, Vec<u8>)>, Vec<(TopicPartition, i64)>);

fn state(store: &KeyValueStore) -> State {
    (store.range(Range::all()).unwrap().collect_all().unwrap(), store.committed_offsets().unwrap())
}

fn contents(dir: &Path) -> State {
    state(&KeyValueStore::open(dir, StoreOptions::default()).unwrap())
}

#[test]
fn a_snapshot_interrupted_before_its_manifest_is_never_used_and_the_next_one_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let location = Location::parse(&format!("file://{}", tmp.path().join("objects").display()), &[]).unwrap();
    let dir = tmp.path().join("store");
    let store = KeyValueStore::open(&dir, StoreOptions::default()).unwrap();
    commit(&store, 1);
    snapshot::take(&store, &location, "s").unwrap();
    let first = state(&store);
    commit(&store, 2);

    fault::arm_error("snapshot:before-manifest", 1);
    let e = snapshot::take(&store, &location, "s").unwrap_err().to_string();
    assert!(e.contains("injected failure at snapshot:before-manifest"), "{e}");
    let sent = std::fs::read_dir(tmp.path().join("objects/s/files")).unwrap().count();
    assert!(sent > first_files(&tmp.path().join("objects/s/snapshots")), "the interrupted snapshot sent files");
    drop(store);

    // restored: the first snapshot, not the interrupted one
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        snapshot::restore_newest(&location, "s", &dir, &changelog(), RowLayout::Plain, RestoreBudget::default())
            .unwrap()
            .unwrap()
            .seq,
        1
    );
    assert_eq!(contents(&dir), first);

    // the next snapshot takes the interrupted one's number and completes
    let store = KeyValueStore::open(&dir, StoreOptions::default()).unwrap();
    commit(&store, 3);
    let taken = snapshot::take(&store, &location, "s").unwrap();
    assert_eq!(taken.seq, 2);
    let third = state(&store);
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        snapshot::restore_newest(&location, "s", &dir, &changelog(), RowLayout::Plain, RestoreBudget::default())
            .unwrap()
            .unwrap()
            .seq,
        2
    );
    assert_eq!(contents(&dir), third);
}

/// How many objects the one snapshot in `snapshots` references.
fn first_files(snapshots: &Path) -> usize {
    let mut manifests = std::fs::read_dir(snapshots).unwrap().map(|e| e.unwrap().path());
    let manifest = manifests.next().unwrap();
    assert!(manifests.next().is_none(), "one manifest only");
    snapshot::Manifest::decode(&std::fs::read(manifest).unwrap()).unwrap().files.len()
}
