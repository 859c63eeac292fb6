//! A store records the format of its values; reopened in a newer format it upgrades every entry
//! once, with Kafka's conversions (`HeadersBytesStore.convertToHeaderFormat`,
//! `convertFromPlainToHeaderFormat`, KIP-258's plain-to-timestamped), resuming after a failure
//! mid-way without converting anything twice; reopened in a format it cannot reach it refuses.
//!
//! One test per binary: the injected error is process-wide.

use std::path::Path;
use txn_rocksdb::segmented::SegmentOptions;
use txn_rocksdb::session::SessionStore;
use txn_rocksdb::{fault, KeyValueStore, Range, StoreOptions, Strategy, TopicPartition, ValueFormat};

fn tp() -> TopicPartition {
    TopicPartition { topic: "format-changelog".into(), partition: 0 }
}

fn open(dir: &Path, strategy: Strategy, value_format: ValueFormat) -> txn_rocksdb::Result<KeyValueStore> {
    KeyValueStore::open(dir, StoreOptions { strategy, value_format, ..StoreOptions::default() })
}

fn contents(store: &KeyValueStore) -> Vec<(Vec<u8>, Vec<u8>)> {
    store.range(Range { committed_only: true, ..Range::all() }).unwrap().collect_all().unwrap()
}

/// 3,000 entries of about 100 bytes, committed at offset 7.
fn written(dir: &Path, strategy: Strategy, format: ValueFormat) -> Vec<(Vec<u8>, Vec<u8>)> {
    let store = open(dir, strategy, format).unwrap();
    for i in 0..3_000u32 {
        store.put(format!("key-{i:05}").as_bytes(), Some(format!("value-{i}-{}", "x".repeat(90)).as_bytes())).unwrap();
    }
    store.commit(&[(tp(), Some(7))], None).unwrap();
    contents(&store)
}

fn prefixed(entries: &[(Vec<u8>, Vec<u8>)], prefix: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    entries.iter().map(|(k, v)| (k.clone(), [prefix, v].concat())).collect()
}

#[test]
fn stores_upgrade_their_values_once_resume_after_a_failure_and_refuse_a_downgrade() {
    use ValueFormat::*;
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        // timestamped -> with headers (the DSL's upgrade): empty headers in front of each value
        let dir = tempfile::tempdir().unwrap();
        let before = written(dir.path(), strategy, Timestamped);
        let store = open(dir.path(), strategy, TimestampedWithHeaders).unwrap();
        assert!(contents(&store) == prefixed(&before, &[0]), "{strategy:?}: timestamped -> headers");
        assert_eq!(store.committed_offsets().unwrap(), vec![(tp(), 7)], "{strategy:?}: offsets are kept");
        drop(store);
        // once: reopening converts nothing again
        let store = open(dir.path(), strategy, TimestampedWithHeaders).unwrap();
        assert!(contents(&store) == prefixed(&before, &[0]), "{strategy:?}: converted twice");
        drop(store);
        // no way back: Kafka has no conversion from headers to timestamped
        let e = open(dir.path(), strategy, Timestamped).err().expect("a downgrade must refuse").to_string();
        assert!(e.contains("timestamped-with-headers format") && e.contains("timestamped format"), "{e}");
        assert!(e.contains(&dir.path().display().to_string()), "{e}");

        // plain -> timestamped with headers: empty headers and the timestamp -1
        let dir = tempfile::tempdir().unwrap();
        let before = written(dir.path(), strategy, Plain);
        let store = open(dir.path(), strategy, TimestampedWithHeaders).unwrap();
        let plain_to_headers = [vec![0], vec![0xFF; 8]].concat();
        assert!(contents(&store) == prefixed(&before, &plain_to_headers), "{strategy:?}: plain -> headers");
        drop(store);

        // plain -> timestamped (KIP-258)
        let dir = tempfile::tempdir().unwrap();
        let before = written(dir.path(), strategy, Plain);
        let store = open(dir.path(), strategy, Timestamped).unwrap();
        assert!(contents(&store) == prefixed(&before, &[0xFF; 8]), "{strategy:?}: plain -> timestamped");
        drop(store);

        // a failure after the first of several upgrade writes: the next open resumes where it stopped
        let dir = tempfile::tempdir().unwrap();
        let before = written(dir.path(), strategy, Timestamped);
        // SAFETY: this binary runs one test, which sets the variable before any thread reads it.
        unsafe { std::env::set_var("TXN_ROCKSDB_COPY_BATCH_BYTES", "4096") };
        fault::arm_error("upgrade:after-batch", 3);
        let failed =
            open(dir.path(), strategy, TimestampedWithHeaders).err().expect("the injected failure").to_string();
        assert!(failed.contains("injected failure at upgrade:after-batch"), "{failed}");
        // half-way, a store of the old format must not open: it would read converted values
        let e = open(dir.path(), strategy, Timestamped).err().expect("the upgrade must be finished first").to_string();
        assert!(e.contains("were being upgraded"), "{e}");
        let store = open(dir.path(), strategy, TimestampedWithHeaders).unwrap();
        assert!(
            contents(&store) == prefixed(&before, &[0]),
            "{strategy:?}: resumed upgrade converted an entry twice or not at all"
        );
        drop(store);
        unsafe { std::env::remove_var("TXN_ROCKSDB_COPY_BATCH_BYTES") };
    }

    // session stores: plain -> with headers
    let geometry = SegmentOptions { retention_ms: 10_000, segment_interval_ms: 1_000 };
    let dir = tempfile::tempdir().unwrap();
    let options = |value_format| StoreOptions { value_format, ..StoreOptions::default() };
    {
        let sessions = SessionStore::open(dir.path(), options(Plain), geometry).unwrap();
        for i in 0..100i64 {
            sessions
                .put(format!("k{i:03}").as_bytes(), i * 10, i * 10 + 5, Some(format!("agg-{i}").as_bytes()))
                .unwrap();
        }
        sessions.segments().key_value().commit(&[(tp(), Some(3))], None).unwrap();
    }
    let before = contents(SessionStore::open(dir.path(), options(Plain), geometry).unwrap().segments().key_value());
    let sessions = SessionStore::open(dir.path(), options(WithHeaders), geometry).unwrap();
    assert!(contents(sessions.segments().key_value()) == prefixed(&before, &[0]), "session: plain -> with headers");
    drop(sessions);
    let e =
        SessionStore::open(dir.path(), options(TimestampedWithHeaders), geometry).err().expect("refused").to_string();
    assert!(e.contains("with-headers format"), "{e}");
}
