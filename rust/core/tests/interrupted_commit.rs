//! A secondary-store commit that fails after its commit file was written (an I/O error, injected
//! here) leaves the store interrupted: writes and commits are refused, committed-only readers keep
//! the pre-commit view, and `rollback` (Kafka's `recover`) rolls the decided commit forward.
//!
//! One test per binary: the injected error is process-wide.

use txn_rocksdb::{fault, Range, StoreOptions, Strategy, TopicPartition, KeyValueStore};

fn tp() -> TopicPartition {
    TopicPartition { topic: "app-store-changelog".into(), partition: 0 }
}

#[test]
fn a_failed_commit_is_refused_until_recovery_rolls_it_forward() {
    for point in ["commit:after-commit-file", "commit:mid-copy", "commit:after-copy", "commit:before-delete-commit-file"] {
        let dir = tempfile::tempdir().unwrap();
        let db = KeyValueStore::open(dir.path(), StoreOptions { strategy: Strategy::SecondaryStore, ..StoreOptions::default() }).unwrap();
        for i in 0..200u32 {
            db.put(format!("k{i:03}").as_bytes(), Some(b"first")).unwrap();
        }
        db.commit(&[(tp(), Some(10))], None).unwrap();
        for i in 0..200u32 {
            db.put(format!("k{i:03}").as_bytes(), Some(b"second")).unwrap();
        }
        db.delete(b"k000").unwrap();

        // 4 MiB copy batches: a 200-record transaction has one, so mid-copy needs a large one
        let hit = 1;
        if point == "commit:mid-copy" {
            for i in 0..40_000u32 {
                db.put(format!("big{i:06}").as_bytes(), Some(&[1u8; 200])).unwrap();
            }
        }
        fault::arm_error(point, hit);
        let e = db.commit(&[(tp(), Some(20))], None).unwrap_err().to_string();
        assert!(e.contains(&format!("injected failure at {point}")), "{point}: {e}");

        let refused = db.put(b"k001", Some(b"third")).unwrap_err().to_string();
        assert!(refused.contains("an earlier commit failed half-way"), "{point}: {refused}");
        assert!(db.commit(&[(tp(), Some(30))], None).is_err(), "{point}: a commit must be refused too");
        // the offsets land with the last copied records
        let landed = matches!(point, "commit:after-copy" | "commit:before-delete-commit-file");
        assert_eq!(db.committed_offsets().unwrap()[0].1, if landed { 20 } else { 10 }, "{point}");
        // committed-only readers still see the last complete commit
        assert_eq!(db.get(b"k000", true).unwrap().as_deref(), Some(&b"first"[..]), "{point}");
        let committed = db.range(Range { committed_only: true, ..Range::all() }).unwrap().collect_all().unwrap();
        assert!(committed.iter().all(|(_, v)| v == b"first"), "{point}: half a commit is visible");

        // recover: the commit was decided (commit file written), so it rolls forward
        db.rollback().unwrap();
        assert_eq!(db.committed_offsets().unwrap(), vec![(tp(), 20)], "{point}");
        assert_eq!(db.get(b"k000", true).unwrap(), None, "{point}");
        assert_eq!(db.get(b"k001", true).unwrap().as_deref(), Some(&b"second"[..]), "{point}");
        assert!(!dir.path().join("TXN-COMMIT").exists());
        db.put(b"k001", Some(b"third")).unwrap();
        db.commit(&[(tp(), Some(30))], None).unwrap();
        drop(db);
        let db = KeyValueStore::open(dir.path(), StoreOptions { strategy: Strategy::SecondaryStore, ..StoreOptions::default() }).unwrap();
        assert_eq!(db.get(b"k001", false).unwrap().as_deref(), Some(&b"third"[..]), "{point}");
        assert_eq!(db.get(b"k002", false).unwrap().as_deref(), Some(&b"second"[..]), "{point}");
    }
}
