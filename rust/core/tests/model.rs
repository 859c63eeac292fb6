//! Property test: the store against a BTreeMap model, through random puts, deletes, reads, range
//! scans (both directions, every bound shape), commits, rollbacks and reopens without commit.

use proptest::prelude::*;
use std::collections::BTreeMap;
use txn_rocksdb::{KeyValueStore, Range, StoreOptions, Strategy as TxnStrategy, TopicPartition};

#[derive(Debug, Clone)]
enum Op {
    Put(Vec<u8>, Vec<u8>),
    Delete(Vec<u8>),
    PutIfAbsent(Vec<u8>, Vec<u8>),
    Get(Vec<u8>, bool),
    Scan { from: Option<Vec<u8>>, to: Option<Vec<u8>>, inclusive: bool, reverse: bool, committed: bool },
    Commit(i64),
    Rollback,
    Reopen,
    Restore(Vec<(Vec<u8>, Option<Vec<u8>>)>),
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(vec![0u8, 1, b'a', b'b', 0xFF]), 0..3)
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (key(), key()).prop_map(|(k, v)| Op::Put(k, v)),
        3 => key().prop_map(Op::Delete),
        1 => (key(), key()).prop_map(|(k, v)| Op::PutIfAbsent(k, v)),
        2 => (key(), any::<bool>()).prop_map(|(k, c)| Op::Get(k, c)),
        3 => (prop::option::of(key()), prop::option::of(key()), any::<bool>(), any::<bool>(), any::<bool>())
            .prop_map(|(from, to, inclusive, reverse, committed)| Op::Scan { from, to, inclusive, reverse, committed }),
        2 => (0i64..1000).prop_map(Op::Commit),
        1 => Just(Op::Rollback),
        1 => Just(Op::Reopen),
        1 => prop::collection::vec((key(), prop::option::of(key())), 0..4).prop_map(Op::Restore),
    ]
}

#[derive(Default)]
struct Model {
    committed: BTreeMap<Vec<u8>, Vec<u8>>,
    staged: BTreeMap<Vec<u8>, Option<Vec<u8>>>,
    offset: Option<i64>,
}

impl Model {
    fn get(&self, k: &[u8], committed_only: bool) -> Option<Vec<u8>> {
        if !committed_only {
            if let Some(v) = self.staged.get(k) {
                return v.clone();
            }
        }
        self.committed.get(k).cloned()
    }

    fn view(&self, committed_only: bool) -> BTreeMap<Vec<u8>, Vec<u8>> {
        let mut m = self.committed.clone();
        if !committed_only {
            for (k, v) in &self.staged {
                match v {
                    Some(v) => m.insert(k.clone(), v.clone()),
                    None => m.remove(k),
                };
            }
        }
        m
    }
}

fn tp() -> TopicPartition {
    TopicPartition { topic: "app-store-changelog".into(), partition: 0 }
}

fn run(ops: Vec<Op>, transactional: bool, strategy: TxnStrategy) {
    run_with(ops, StoreOptions { transactional, sync_commit: false, strategy, ..StoreOptions::default() });
}

fn run_with(ops: Vec<Op>, opts: StoreOptions) {
    let transactional = opts.transactional;
    let dir = tempfile::tempdir().unwrap();
    let mut db = Some(KeyValueStore::open(dir.path(), opts.clone()).unwrap());
    let mut m = Model::default();
    for op in ops {
        let s = db.as_ref().unwrap();
        match op {
            Op::Put(k, v) => {
                s.put(&k, Some(&v)).unwrap();
                m.staged.insert(k, Some(v));
            }
            Op::Delete(k) => {
                let old = s.delete(&k).unwrap();
                assert_eq!(old, m.get(&k, false));
                m.staged.insert(k, None);
            }
            Op::PutIfAbsent(k, v) => {
                let old = s.put_if_absent(&k, &v).unwrap();
                assert_eq!(old, m.get(&k, false));
                if old.is_none() {
                    m.staged.insert(k, Some(v));
                }
            }
            Op::Get(k, committed) => {
                let expect = if transactional { m.get(&k, committed) } else { m.get(&k, false) };
                assert_eq!(s.get(&k, committed).unwrap(), expect);
            }
            Op::Scan { from, to, inclusive, reverse, committed } => {
                let view = m.view(committed && transactional);
                let mut expect: Vec<_> = view
                    .into_iter()
                    .filter(|(k, _)| from.as_ref().is_none_or(|f| k >= f))
                    .filter(|(k, _)| to.as_ref().is_none_or(|t| if inclusive { k <= t } else { k < t }))
                    .collect();
                if reverse {
                    expect.reverse();
                }
                let range = Range { from, to, to_inclusive: inclusive, reverse, committed_only: committed };
                let mut it = s.range(range).unwrap();
                let mut got = Vec::new();
                // Small chunks so chunk boundaries are exercised.
                while it.next_chunk(2, usize::MAX, |k, v| got.push((k.to_vec(), v.to_vec()))).unwrap() > 0 {}
                assert_eq!(got, expect);
            }
            Op::Commit(o) => {
                s.commit(&[(tp(), Some(o))], None).unwrap();
                m.committed = m.view(false);
                m.staged.clear();
                m.offset = Some(o);
            }
            Op::Rollback => {
                s.rollback().unwrap();
                if transactional {
                    m.staged.clear();
                }
            }
            Op::Reopen => {
                drop(db.take());
                db = Some(KeyValueStore::open(dir.path(), opts.clone()).unwrap());
                if transactional {
                    m.staged.clear();
                }
                let offsets = db.as_ref().unwrap().committed_offsets().unwrap();
                assert_eq!(offsets.first().map(|(_, o)| *o), m.offset);
            }
            Op::Restore(records) => {
                s.restore(records.iter().map(|(k, v)| (k.as_slice(), v.as_deref()))).unwrap();
                for (k, v) in records {
                    match v {
                        Some(v) => m.committed.insert(k, v),
                        None => m.committed.remove(&k),
                    };
                }
            }
        }
        if !transactional {
            // Write-through: everything staged is committed at once.
            m.committed = m.view(false);
            m.staged.clear();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn transactional_store_matches_model(ops in prop::collection::vec(op(), 1..60)) {
        run(ops, true, TxnStrategy::IndexedBatch);
    }

    #[test]
    fn secondary_store_strategy_matches_model(ops in prop::collection::vec(op(), 1..60)) {
        run(ops, true, TxnStrategy::SecondaryStore);
    }

    /// Secondary-store transactions that spill to the temporary store after every few writes (0:
    /// every write), so reads merge the unspilled writes over the temporary store over committed
    /// data, and commits copy.
    #[test]
    fn secondary_store_strategy_spilling_matches_model(ops in prop::collection::vec(op(), 1..60), spill_bytes in 0usize..300) {
        run_with(ops, StoreOptions { strategy: TxnStrategy::SecondaryStore, spill_bytes, ..StoreOptions::default() });
    }

    #[test]
    fn write_through_store_matches_model(ops in prop::collection::vec(op(), 1..60)) {
        run(ops, false, TxnStrategy::IndexedBatch);
    }
}
