//! What the operators' tool reads from a store's directory (`inspect`): the facts of a store of
//! every kind, a secondary-store commit left half-copied and an uncommitted transaction left in the
//! temporary store, committed entries in pages, a store opened as another kind; and none of it
//! writes a byte to the store's directory.

use std::path::Path;
use txn_rocksdb::segmented::{RetentionEdge, SegmentOptions};
use txn_rocksdb::ttl::{TimeBasis, TtlOptions};
use txn_rocksdb::versioned::VersionedOptions;
use txn_rocksdb::{fault, inspect, AnyStore, StoreKind, StoreOptions, Strategy, TopicPartition};
use txn_rocksdb_format::inspection::{DumpEntry, Outcome, Severity, NO_TIME};
use txn_rocksdb_format::open_options::CorruptionPolicy;

mod common;
use common::fingerprint;

/// The tests run one at a time: one arms an injected failure, which is process-wide.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

const GEOMETRY: SegmentOptions = SegmentOptions { retention_ms: 60_000, segment_interval_ms: 10_000 };

fn tp(partition: i32) -> TopicPartition {
    TopicPartition { topic: "app-store-changelog".into(), partition }
}

/// `call`'s answer, checking that it wrote nothing in `dir`.
fn without_writing<T>(dir: &Path, call: impl FnOnce() -> T) -> T {
    let before = fingerprint(dir);
    let out = call();
    assert!(fingerprint(dir) == before, "{} was written to", dir.display());
    out
}

#[test]
fn the_facts_of_a_store_of_every_kind() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let root = tempfile::tempdir().unwrap();
    let options = StoreOptions::default();
    let kv = root.path().join("kv");
    let store = AnyStore::open_key_value(&kv, options.clone()).unwrap();
    for i in 0..100u32 {
        store.key_values().put_owned(format!("k{i:03}").into_bytes(), Some(b"v".to_vec()), 0).unwrap();
    }
    store.commit(&[(tp(0), Some(41)), (tp(3), Some(7))], None).unwrap();
    drop(store);
    let facts = without_writing(&kv, || inspect::facts(&kv).unwrap());
    assert_eq!(facts.kind, Some(StoreKind::KeyValue));
    assert_eq!(facts.offsets, vec![(tp(0), 41), (tp(3), 7)]);
    assert_eq!(facts.value_format, Some(0), "plain");
    assert!(!facts.time_to_live && !facts.commit_pending && !facts.uncommitted_pending && !facts.upgrade_pending);
    assert_eq!(facts.estimated_keys, 100, "counted: {facts:?}");
    assert!(facts.live_data_bytes + facts.wal_bytes > 1_000, "{facts:?}");
    assert!(facts.findings.is_empty(), "{facts:?}");

    let ttl = root.path().join("ttl");
    let ttl_options =
        StoreOptions { ttl: Some(TtlOptions { ttl_ms: 60_000, basis: TimeBasis::Stream }), ..options.clone() };
    let store = AnyStore::open_key_value(&ttl, ttl_options).unwrap();
    store.key_values().put_owned(b"a".to_vec(), Some(b"1".to_vec()), 1_000).unwrap();
    store.key_values().put_owned(b"b".to_vec(), Some(b"2".to_vec()), 5_000).unwrap();
    store.commit(&[(tp(1), Some(2))], None).unwrap();
    drop(store);
    let facts = without_writing(&ttl, || inspect::facts(&ttl).unwrap());
    assert_eq!(
        (facts.kind, facts.time_to_live, facts.store_time),
        (Some(StoreKind::KeyValue), true, 5_000),
        "{facts:?}"
    );
    let chunk = without_writing(&ttl, || inspect::dump(&ttl, None, None, None, 10).unwrap());
    assert_eq!(
        chunk.entries,
        vec![
            DumpEntry { key: b"a".to_vec(), value: b"1".to_vec(), first: 1_000, second: NO_TIME },
            DumpEntry { key: b"b".to_vec(), value: b"2".to_vec(), first: 5_000, second: NO_TIME },
        ]
    );

    let window = root.path().join("window");
    let store = AnyStore::open_window(&window, options.clone(), GEOMETRY, RetentionEdge::Excluded).unwrap();
    let w = store.window().unwrap();
    w.put(b"w1", 20_000, 0, Some(b"x")).unwrap();
    w.put(b"w0", 35_000, 0, Some(b"y")).unwrap();
    w.put(b"w2", 1_000, 0, Some(b"z")).unwrap();
    store.commit(&[(tp(0), Some(3))], None).unwrap();
    drop(store);
    let facts = without_writing(&window, || inspect::facts(&window).unwrap());
    assert_eq!((facts.kind, facts.estimated_keys), (Some(StoreKind::Window), 3));
    // segment by segment, then key, window start
    let chunk = inspect::dump(&window, None, None, None, 10).unwrap();
    let got: Vec<_> = chunk.entries.iter().map(|e| (e.key.as_slice(), e.first, e.second)).collect();
    assert_eq!(got, vec![(&b"w2"[..], 1_000, 0), (&b"w1"[..], 20_000, 0), (&b"w0"[..], 35_000, 0)]);
    let only = inspect::dump(&window, Some(b"w1"), Some(b"w2"), None, 10).unwrap();
    assert_eq!(only.entries.iter().map(|e| e.key.as_slice()).collect::<Vec<_>>(), vec![&b"w2"[..], b"w1"]);

    let session = root.path().join("session");
    let store = AnyStore::open_session(&session, options.clone(), GEOMETRY).unwrap();
    store.session().unwrap().put(b"s", 100, 2_000, Some(b"agg")).unwrap();
    store.commit(&[(tp(0), Some(1))], None).unwrap();
    drop(store);
    assert_eq!(inspect::facts(&session).unwrap().kind, Some(StoreKind::Session));
    let chunk = inspect::dump(&session, None, None, None, 10).unwrap();
    assert_eq!(
        chunk.entries,
        vec![DumpEntry { key: b"s".to_vec(), value: b"agg".to_vec(), first: 100, second: 2_000 }]
    );

    let versioned = root.path().join("versioned");
    let geometry = VersionedOptions { history_retention_ms: 60_000, segment_interval_ms: 10_000 };
    let store = AnyStore::open_versioned(&versioned, options.clone(), geometry).unwrap();
    store.versioned().unwrap().put(b"v", Some(b"old"), 10).unwrap();
    store.versioned().unwrap().put(b"v", Some(b"new"), 20).unwrap();
    store.commit(&[(tp(0), Some(2))], None).unwrap();
    drop(store);
    assert_eq!(inspect::facts(&versioned).unwrap().kind, Some(StoreKind::Versioned));
    let chunk = inspect::dump(&versioned, None, None, None, 10).unwrap();
    assert_eq!(
        chunk.entries,
        vec![DumpEntry { key: b"v".to_vec(), value: b"new".to_vec(), first: 20, second: NO_TIME }]
    );

    // a store is never opened as another kind
    let e = AnyStore::open_key_value(&window, options).err().expect("a window store opened as key-value");
    assert!(e.to_string().contains("holds a window store and is opened as a key-value store"), "{e}");
}

#[test]
fn a_dump_pages_through_committed_entries_only() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("kv");
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        let _ = std::fs::remove_dir_all(&dir);
        let options = StoreOptions { strategy, spill_bytes: 0, ..StoreOptions::default() };
        let store = AnyStore::open_key_value(&dir, options).unwrap();
        for i in 0..2_500u32 {
            store.key_values().put_owned(format!("k{i:05}").into_bytes(), Some(vec![b'c'; 10]), 0).unwrap();
        }
        store.commit(&[(tp(0), Some(1))], None).unwrap();
        store.key_values().put_owned(b"k00007".to_vec(), Some(b"uncommitted".to_vec()), 0).unwrap();
        store.key_values().put_owned(b"zz".to_vec(), Some(b"uncommitted".to_vec()), 0).unwrap();
        drop(store);
        let mut keys = Vec::new();
        let mut resume = None;
        let mut chunks = 0;
        loop {
            let chunk = without_writing(&dir, || {
                inspect::dump(&dir, Some(b"k00010"), Some(b"k02009"), resume.as_deref(), 700).unwrap()
            });
            chunks += 1;
            assert!(chunk.entries.len() <= 700);
            assert!(chunk.entries.iter().all(|e| e.value == [b'c'; 10]), "{strategy:?}: an uncommitted value");
            keys.extend(chunk.entries.into_iter().map(|e| String::from_utf8(e.key).unwrap()));
            resume = chunk.resume;
            if resume.is_none() {
                break;
            }
        }
        assert_eq!(chunks, 3, "{strategy:?}");
        assert_eq!(keys, (10..=2009).map(|i| format!("k{i:05}")).collect::<Vec<_>>(), "{strategy:?}");
    }
}

#[test]
fn a_half_copied_commit_and_an_uncommitted_transaction_are_reported_and_left_alone() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let root = tempfile::tempdir().unwrap();
    let options = StoreOptions { strategy: Strategy::SecondaryStore, spill_bytes: 0, ..StoreOptions::default() };

    // writes that spilled to the temporary store and were never committed
    let uncommitted = root.path().join("uncommitted");
    let store = AnyStore::open_key_value(&uncommitted, options.clone()).unwrap();
    store.key_values().put_owned(b"a".to_vec(), Some(b"1".to_vec()), 0).unwrap();
    store.commit(&[(tp(0), Some(10))], None).unwrap();
    store.key_values().put_owned(b"b".to_vec(), Some(b"2".to_vec()), 0).unwrap();
    drop(store);
    let facts = without_writing(&uncommitted, || inspect::facts(&uncommitted).unwrap());
    assert!(facts.uncommitted_pending && !facts.commit_pending, "{facts:?}");
    assert_eq!(facts.offsets, vec![(tp(0), 10)]);
    let chunk = inspect::dump(&uncommitted, None, None, None, 10).unwrap();
    assert_eq!(chunk.entries.iter().map(|e| e.key.as_slice()).collect::<Vec<_>>(), vec![&b"a"[..]]);

    // a commit whose copy failed after its commit record landed (its first copy write)
    let copying = root.path().join("copying");
    let store = AnyStore::open_key_value(&copying, options.clone()).unwrap();
    store.key_values().put_owned(b"a".to_vec(), Some(b"1".to_vec()), 0).unwrap();
    store.commit(&[(tp(0), Some(10))], None).unwrap();
    for i in 0..40_000u32 {
        store.key_values().put_owned(format!("big{i:06}").into_bytes(), Some(vec![1; 200]), 0).unwrap();
    }
    fault::arm_error("commit:mid-copy", 1);
    assert!(store.commit(&[(tp(0), Some(20))], None).is_err());
    drop(store);
    let facts = without_writing(&copying, || inspect::facts(&copying).unwrap());
    assert!(facts.commit_pending, "{facts:?}");
    assert_eq!(facts.offsets, vec![(tp(0), 20)], "the offsets the roll-forward reaches");
    let verified = without_writing(&copying, || inspect::verify(&copying).unwrap());
    assert!(verified.findings.iter().all(|f| f.severity != Severity::Damage), "{verified:?}");
    for (policy, outcome, detail) in &verified.next_open {
        assert_eq!(*outcome, Outcome::RollsForward, "{policy:?}: {detail}");
        assert!(detail.contains("app-store-changelog-0: 20"), "{detail}");
    }
    let refused = inspect::dump(&copying, None, None, None, 10).unwrap_err().to_string();
    assert!(refused.contains("being copied"), "{refused}");
    // and the store then opens at the commit that was rolled forward
    let store = AnyStore::open_key_value(&copying, options).unwrap();
    assert_eq!(store.key_value().committed_offsets().unwrap(), vec![(tp(0), 20)]);
    assert_eq!(verified.next_open.len(), CorruptionPolicy::ALL.len());
}

#[test]
fn a_directory_that_holds_no_store_is_refused_and_not_created() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let root = tempfile::tempdir().unwrap();
    let missing = root.path().join("missing");
    let e = inspect::facts(&missing).unwrap_err().to_string();
    assert!(e.contains("is not a store's directory"), "{e}");
    assert!(!missing.exists());
    std::fs::create_dir(&missing).unwrap();
    assert!(inspect::verify(&missing).is_err() && inspect::dump(&missing, None, None, None, 1).is_err());
    assert_eq!(std::fs::read_dir(&missing).unwrap().count(), 0);
}
