//! What a location holds, as the operators' tool lists it (`snapshot::list`): every snapshot of
//! every store with what its manifest says, one store's only, a damaged manifest named as such,
//! and the snapshots a restore now would pass over for their changelog as it is.

use std::time::Duration;
use txn_rocksdb::snapshot::{self, Changelog, Location};
use txn_rocksdb::{KeyValueStore, StoreOptions, TopicPartition};

fn tp(partition: i32) -> TopicPartition {
    TopicPartition { topic: "app-counts-changelog".into(), partition }
}

#[test]
fn a_listing_shows_every_snapshot_of_every_store_and_names_a_damaged_manifest() {
    let root = tempfile::tempdir().unwrap();
    let objects = root.path().join("objects");
    std::fs::create_dir_all(&objects).unwrap();
    let location = Location::parse(&format!("file://{}", objects.display()), &[]).unwrap();
    let stores = ["app/counts/0-AAAA", "app/counts/1-AAAA"];
    for (partition, store_id) in stores.iter().enumerate() {
        let store =
            KeyValueStore::open(root.path().join(format!("store-{partition}")), StoreOptions::default()).unwrap();
        for commit in 1..=2i64 {
            store.put(format!("k{commit}").as_bytes(), Some(b"v")).unwrap();
            store.commit(&[(tp(partition as i32), Some(commit * 10))], None).unwrap();
            snapshot::take(&store, &location, store_id).unwrap();
        }
    }
    let wait = Duration::from_secs(10);
    let listed = snapshot::list(&location, None, &[], wait, wait).unwrap().snapshots;
    let got: Vec<_> =
        listed.iter().map(|s| (s.store_id.as_str(), s.seq, s.offsets.clone(), s.problem.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (stores[0], 1, vec![(tp(0), 10)], ""),
            (stores[0], 2, vec![(tp(0), 20)], ""),
            (stores[1], 1, vec![(tp(1), 10)], ""),
            (stores[1], 2, vec![(tp(1), 20)], ""),
        ]
    );
    assert!(listed.iter().all(|s| s.files > 0 && s.bytes > 0 && s.created_ms > 0 && s.transactional), "{listed:?}");
    assert!(listed.iter().all(|s| s.changelog_refuses.is_empty()), "no changelog asked about: {listed:?}");

    // partition 0's changelog now ends at 15 (truncated, or recreated and refilled): a restore passes
    // its snapshot at offset 20 over, as restore_newest does; partition 1's is not asked about
    let truncated = Changelog { partition: tp(0), start: 0, end: 15 };
    let listed = snapshot::list(&location, None, std::slice::from_ref(&truncated), wait, wait).unwrap().snapshots;
    let refusals: Vec<_> =
        listed.iter().map(|s| (s.store_id.as_str(), s.seq, !s.changelog_refuses.is_empty())).collect();
    assert_eq!(
        refusals,
        vec![(stores[0], 1, false), (stores[0], 2, true), (stores[1], 1, false), (stores[1], 2, false)]
    );
    assert!(listed[1].changelog_refuses.contains("offset 20 is not one the changelog"), "{listed:?}");
    let dir = root.path().join("restored");
    let budget = snapshot::RestoreBudget { patience: wait, deadline: None };
    let restored =
        snapshot::restore_newest(&location, stores[0], &dir, &truncated, txn_rocksdb::RowLayout::Plain, budget)
            .unwrap()
            .expect("snapshot 1 is usable");
    assert_eq!(restored.seq, 1, "the restore takes the newest snapshot the listing did not refuse");

    // one store's only; a damaged manifest is listed with why it cannot be used
    let manifest = objects.join(stores[1]).join("snapshots").join(format!("{:020}.manifest", 2));
    let mut bytes = std::fs::read(&manifest).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xFF;
    std::fs::write(&manifest, bytes).unwrap();
    let listed = snapshot::list(&location, Some(stores[1]), &[], wait, wait).unwrap().snapshots;
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert_eq!((listed[0].seq, listed[0].problem.as_str()), (1, ""));
    assert_eq!(listed[1].seq, 2);
    assert!(listed[1].problem.contains("does not decode"), "{listed:?}");
    assert!(snapshot::list(&location, Some("app/other/0-AAAA"), &[], wait, wait).unwrap().snapshots.is_empty());
}
