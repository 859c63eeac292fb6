//! The versioned store against a model of KIP-889's semantics: per key, a timeline of versions
//! (timestamp -> value or tombstone). Random puts and deletes, in and out of order, within the
//! grace period; commits, rollbacks, reopens without commit and restores; after every step the
//! latest value, as-of reads at every time the history retention still covers, put return codes
//! (validTo) and multi-version reads must match the model. Also: a commit is one atomic write
//! across segments, and a restore of the changelog builds the same history as the puts did.

use proptest::prelude::*;
use std::collections::BTreeMap;
use txn_rocksdb::versioned::{VersionedDelete, VersionedOptions, VersionedPut, VersionedRecord, VersionedStore};
use txn_rocksdb::{StoreOptions, Strategy as TxnStrategy, TopicPartition};

const RETENTION: i64 = 100;
const INTERVAL: i64 = 20;

type Timeline = BTreeMap<i64, Option<Vec<u8>>>;
type Model = BTreeMap<Vec<u8>, Timeline>;
/// A changelog record as Kafka's changelogging layer writes it: key, value or tombstone, timestamp.
type LogRecord = (Vec<u8>, Option<Vec<u8>>, i64);

fn as_of(model: &Model, key: &[u8], t: i64) -> Option<VersionedRecord> {
    let timeline = model.get(key)?;
    let (&timestamp, value) = timeline.range(..=t).next_back()?;
    let valid_to = timeline.range(timestamp + 1..).next().map(|(&ts, _)| ts);
    value.clone().map(|value| VersionedRecord { value, timestamp, valid_to })
}

fn latest(model: &Model, key: &[u8]) -> Option<VersionedRecord> {
    let (&timestamp, value) = model.get(key)?.iter().next_back()?;
    value.clone().map(|value| VersionedRecord { value, timestamp, valid_to: None })
}

fn versions(model: &Model, key: &[u8], from: i64, to: i64) -> Vec<VersionedRecord> {
    let Some(timeline) = model.get(key) else { return Vec::new() };
    let entries: Vec<(i64, Option<Vec<u8>>)> = timeline.iter().map(|(&ts, v)| (ts, v.clone())).collect();
    entries
        .iter()
        .enumerate()
        .filter_map(|(i, (ts, value))| {
            let valid_to = entries.get(i + 1).map(|(next, _)| *next);
            let value = value.clone()?;
            (*ts <= to && valid_to.is_none_or(|vt| vt > from)).then_some(VersionedRecord {
                value,
                timestamp: *ts,
                valid_to,
            })
        })
        .collect()
}

#[derive(Debug, Clone)]
enum Op {
    /// Advance the clock, then put (value `None`: tombstone via put) `back` before it.
    Put {
        key: u8,
        value: Option<u8>,
        advance: i64,
        back: i64,
    },
    Delete {
        key: u8,
        advance: i64,
        back: i64,
    },
    Commit,
    Rollback,
    Reopen,
    /// Commit what is staged, then replay the whole changelog into a fresh store and compare.
    RestoreCheck,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0u8..3, prop::option::weighted(0.85, 0u8..4), 0i64..25, 0i64..RETENTION)
            .prop_map(|(key, value, advance, back)| Op::Put { key, value, advance, back }),
        2 => (0u8..3, 0i64..25, 0i64..RETENTION).prop_map(|(key, advance, back)| Op::Delete { key, advance, back }),
        2 => Just(Op::Commit),
        1 => Just(Op::Rollback),
        1 => Just(Op::Reopen),
        1 => Just(Op::RestoreCheck),
    ]
}

fn open(dir: &std::path::Path, strategy: TxnStrategy) -> VersionedStore {
    open_with(dir, &StoreOptions { strategy, ..StoreOptions::default() })
}

fn open_with(dir: &std::path::Path, options: &StoreOptions) -> VersionedStore {
    VersionedStore::open(
        dir,
        options.clone(),
        VersionedOptions { history_retention_ms: RETENTION, segment_interval_ms: INTERVAL },
    )
    .unwrap()
}

fn key_of(k: u8) -> Vec<u8> {
    vec![b'k', k]
}

fn check(store: &VersionedStore, model: &Model, clock: i64, committed_only: bool) {
    for k in 0u8..3 {
        let key = key_of(k);
        assert_eq!(store.get(&key, committed_only).unwrap(), latest(model, &key), "latest of {key:?}");
        for t in (clock - RETENTION).max(0)..=clock + 3 {
            assert_eq!(store.get_as_of(&key, t, committed_only).unwrap(), as_of(model, &key, t), "{key:?} as of {t}");
        }
        let from = (clock - RETENTION).max(0);
        for (lo, hi) in [(from, clock + 3), (from + 10, from + 40), (clock, clock)] {
            let mut expected = versions(model, &key, lo, hi);
            assert_eq!(
                store.versions(&key, lo, hi, true, committed_only).unwrap(),
                expected,
                "{key:?} in [{lo}, {hi}]"
            );
            expected.reverse();
            assert_eq!(
                store.versions(&key, lo, hi, false, committed_only).unwrap(),
                expected,
                "{key:?} in [{lo}, {hi}] desc"
            );
        }
    }
}

fn run(ops: Vec<Op>, strategy: TxnStrategy) {
    run_with(ops, StoreOptions { strategy, ..StoreOptions::default() });
}

fn run_with(ops: Vec<Op>, options: StoreOptions) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open_with(dir.path(), &options);
    let (mut committed, mut current): (Model, Model) = Default::default();
    // the changelog of committed puts, as Kafka's changelogging layer writes it
    let (mut log, mut staged_log): (Vec<LogRecord>, Vec<LogRecord>) = Default::default();
    let mut clock = 0i64;
    let mut offset = 0i64;
    let partition = TopicPartition { topic: "changelog".into(), partition: 0 };
    for op in ops {
        match op {
            Op::Put { key, value, advance, back } => {
                clock += advance;
                let ts = (clock - back).max(0);
                let key = key_of(key);
                let value = value.map(|v| vec![v; v as usize]);
                let timeline = current.entry(key.clone()).or_default();
                let valid_to = timeline.range(ts + 1..).next().map(|(&t, _)| t);
                timeline.insert(ts, value.clone());
                assert_eq!(
                    store.put(&key, value.as_deref(), ts).unwrap(),
                    VersionedPut::Put { valid_to },
                    "put {key:?}@{ts}"
                );
                staged_log.push((key, value, ts));
            }
            Op::Delete { key, advance, back } => {
                clock += advance;
                let ts = (clock - back).max(0);
                let key = key_of(key);
                let before = as_of(&current, &key, ts);
                current.entry(key.clone()).or_default().insert(ts, None);
                assert_eq!(store.delete(&key, ts).unwrap(), VersionedDelete::Deleted(before), "delete {key:?}@{ts}");
                staged_log.push((key, None, ts));
            }
            Op::Commit => {
                offset += 1;
                store.commit(&[(partition.clone(), Some(offset))], None).unwrap();
                committed = current.clone();
                log.append(&mut staged_log);
            }
            Op::Rollback => {
                store.rollback().unwrap();
                current = committed.clone();
                staged_log.clear();
            }
            Op::Reopen => {
                drop(store);
                store = open_with(dir.path(), &options);
                current = committed.clone();
                staged_log.clear();
            }
            Op::RestoreCheck => {
                let restored_dir = tempfile::tempdir().unwrap();
                let restored = open_with(restored_dir.path(), &options);
                for batch in log.chunks(7) {
                    let records: Vec<_> = batch.iter().map(|(k, v, ts)| (k.as_slice(), v.as_deref(), *ts)).collect();
                    restored.restore(&records).unwrap();
                }
                check(&restored, &committed, clock, true);
            }
        }
        check(&store, &current, clock, false);
        check(&store, &committed, clock, true);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn matches_the_model_indexed_batch(ops in prop::collection::vec(op(), 1..60)) {
        run(ops, TxnStrategy::IndexedBatch);
    }

    #[test]
    fn matches_the_model_secondary_store(ops in prop::collection::vec(op(), 1..40)) {
        run(ops, TxnStrategy::SecondaryStore);
    }

    /// Transactions that spill to the temporary store after every few writes (0: every write).
    #[test]
    fn matches_the_model_secondary_store_spilling(ops in prop::collection::vec(op(), 1..40), spill_bytes in 0usize..200) {
        run_with(ops, StoreOptions { strategy: TxnStrategy::SecondaryStore, spill_bytes, ..StoreOptions::default() });
    }
}

/// Kafka's rules at the edges: the grace period, reads past the history retention, and the put
/// return codes.
#[test]
fn grace_period_and_history_retention() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), TxnStrategy::IndexedBatch);
    assert_eq!(store.put(b"k", Some(b"a"), 10).unwrap().kafka_code(), -1);
    assert_eq!(store.put(b"k", Some(b"b"), 200).unwrap().kafka_code(), -1);
    // 10 < 200 - 100: older than the grace period
    assert_eq!(store.put(b"k", Some(b"x"), 50).unwrap(), VersionedPut::NotPut);
    assert_eq!(VersionedPut::NotPut.kafka_code(), i64::MIN);
    assert_eq!(store.delete(b"k", 50).unwrap(), VersionedDelete::NotPut);
    // as of 150: a ended at 200, still in the history
    assert_eq!(
        store.get_as_of(b"k", 150, false).unwrap().map(|r| (r.value, r.valid_to)),
        Some((b"a".to_vec(), Some(200)))
    );
    // as of 99 (< 200 - 100): only the latest version is ever returned
    assert_eq!(store.get_as_of(b"k", 99, false).unwrap(), None);
    assert_eq!(store.put(b"k", Some(b"c"), 150).unwrap().kafka_code(), 200);
    assert_eq!(store.versions(b"k", 0, 1000, true, false).unwrap().len(), 3);
    assert_eq!(store.versions(b"k", 0, 50, true, false).unwrap(), vec![]);
}

/// A commit lands every row a put touched, in every segment, or none of them: a version moved
/// from the latest value into a segment is never lost or duplicated by a rollback or a reopen.
#[test]
fn one_commit_covers_every_segment() {
    for strategy in [TxnStrategy::IndexedBatch, TxnStrategy::SecondaryStore] {
        let dir = tempfile::tempdir().unwrap();
        let partition = TopicPartition { topic: "c".into(), partition: 0 };
        {
            let store = open(dir.path(), strategy);
            store.put(b"k", Some(b"v1"), 5).unwrap();
            store.commit(&[(partition.clone(), Some(1))], None).unwrap();
            // moves v1 into segment 2 (validTo 45), v2 into segment 4 (validTo 85), v3 latest
            store.put(b"k", Some(b"v2"), 45).unwrap();
            store.put(b"k", Some(b"v3"), 85).unwrap();
            store.rollback().unwrap();
            assert_eq!(
                store.get_as_of(b"k", 50, false).unwrap().map(|r| (r.value, r.valid_to)),
                Some((b"v1".to_vec(), None))
            );
            store.put(b"k", Some(b"v2"), 45).unwrap();
            store.put(b"k", Some(b"v3"), 85).unwrap();
            store.commit(&[(partition.clone(), Some(2))], None).unwrap();
            store.put(b"k", Some(b"v4"), 99).unwrap();
        }
        let store = open(dir.path(), strategy);
        assert_eq!(store.key_value().committed_offsets().unwrap(), vec![(partition, 2)]);
        let history: Vec<_> = store
            .versions(b"k", 0, 1000, true, true)
            .unwrap()
            .into_iter()
            .map(|r| (r.value, r.timestamp, r.valid_to))
            .collect();
        assert_eq!(
            history,
            vec![(b"v1".to_vec(), 5, Some(45)), (b"v2".to_vec(), 45, Some(85)), (b"v3".to_vec(), 85, None)]
        );
    }
}

#[test]
fn rejects_bad_geometry_and_negative_segments() {
    let dir = tempfile::tempdir().unwrap();
    let bad = VersionedOptions { history_retention_ms: 10, segment_interval_ms: 0 };
    assert!(VersionedStore::open(dir.path(), StoreOptions::default(), bad).is_err());
    let store = open(dir.path(), TxnStrategy::IndexedBatch);
    // within the grace period of a fresh store (stream time -1), but in segment -3
    let error = store.delete(b"k", -50).unwrap_err().to_string();
    assert!(error.contains("below 0"), "{error}");
    // Kafka's default intervals (1000 ms -> 2000 ms, 1 day -> 1 hour) are Java's to compute:
    // SegmentIntervalDefaultsTest.
}
