//! A secondary-store commit that fails after its copy began (an I/O error, injected here, after
//! the first copy write, which stores the commit record) leaves the store interrupted: writes and commits are refused, committed-only readers keep
//! the pre-commit view, and `rollback` (Kafka's `recover`) rolls the decided commit forward.
//!
//! One test per binary: the injected error is process-wide.

use txn_rocksdb::{fault, KeyValueStore, Range, StoreOptions, Strategy, TopicPartition};

fn tp() -> TopicPartition {
    TopicPartition { topic: "app-store-changelog".into(), partition: 0 }
}

#[test]
fn a_failed_commit_is_refused_until_recovery_rolls_it_forward() {
    // (point, whether the transaction is copied in several writes)
    let cases = [
        ("commit:mid-copy", true),
        ("commit:after-copy", false),
        ("commit:after-copy", true),
        ("commit:after-truncate", false),
        ("commit:after-truncate", true),
    ];
    for (point, several_writes) in cases {
        let dir = tempfile::tempdir().unwrap();
        // spill_bytes 0: every write goes to the temporary store, so every commit copies
        let options = StoreOptions { strategy: Strategy::SecondaryStore, spill_bytes: 0, ..StoreOptions::default() };
        let db = KeyValueStore::open(dir.path(), options.clone()).unwrap();
        for i in 0..200u32 {
            db.put(format!("k{i:03}").as_bytes(), Some(b"first")).unwrap();
        }
        db.commit(&[(tp(), Some(10))], None).unwrap();
        for i in 0..200u32 {
            db.put(format!("k{i:03}").as_bytes(), Some(b"second")).unwrap();
        }
        db.delete(b"k000").unwrap();

        // 4 MiB copy batches: a 200-record transaction has one, so several writes need a large one
        let hit = 1;
        if several_writes {
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
        let landed = matches!(point, "commit:after-copy" | "commit:after-truncate");
        assert_eq!(db.committed_offsets().unwrap()[0].1, if landed { 20 } else { 10 }, "{point}");
        // committed-only readers see exactly the commit the offsets name: the last complete one
        // while the copy is unfinished, the failed one once all of it has landed
        let (k000, value) = if landed { (None, &b"second"[..]) } else { (Some(&b"first"[..]), &b"first"[..]) };
        assert_eq!(db.get(b"k000", true).unwrap().as_deref(), k000, "{point}");
        let committed = db.range(Range { committed_only: true, ..Range::all() }).unwrap().collect_all().unwrap();
        let small: Vec<_> = committed.iter().filter(|(k, _)| k.starts_with(b"k")).collect();
        assert_eq!(small.len(), if landed { 199 } else { 200 }, "{point}");
        assert!(small.iter().all(|(_, v)| v == value), "{point}: half a commit is visible");
        assert_eq!(committed.len() - small.len(), if landed && several_writes { 40_000 } else { 0 }, "{point}");

        // recover: the commit was decided (its record, or all of it, landed), so it rolls forward
        db.rollback().unwrap();
        assert_eq!(db.committed_offsets().unwrap(), vec![(tp(), 20)], "{point}");
        assert_eq!(db.get(b"k000", true).unwrap(), None, "{point}");
        assert_eq!(db.get(b"k001", true).unwrap().as_deref(), Some(&b"second"[..]), "{point}");
        assert!(!dir.path().join("TXN-COMMIT").exists());
        db.put(b"k001", Some(b"third")).unwrap();
        db.commit(&[(tp(), Some(30))], None).unwrap();
        drop(db);
        let db = KeyValueStore::open(dir.path(), options).unwrap();
        assert_eq!(db.get(b"k001", false).unwrap().as_deref(), Some(&b"third"[..]), "{point}");
        assert_eq!(db.get(b"k002", false).unwrap().as_deref(), Some(&b"second"[..]), "{point}");
    }
}
