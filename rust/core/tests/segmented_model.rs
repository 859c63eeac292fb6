//! Property tests: window and session stores against naive models of Kafka's segmented stores
//! (stream time, per-segment put drop, per-record read filter, segment-major order), through
//! random puts, deletes, fetches, commits and reopens without commit.

use proptest::prelude::*;
use std::collections::BTreeMap;
use txn_rocksdb::segmented::SegmentOptions;
use txn_rocksdb::session::{self, SessionQuery, SessionStore};
use txn_rocksdb::window::{self, WindowQuery, WindowStore};
use txn_rocksdb::{StoreOptions, Strategy as TxnStrategy};

const GEOMETRY: SegmentOptions = SegmentOptions { retention_ms: 120_000, segment_interval_ms: 60_000 };

fn key() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(vec![0u8, 1, b'a', 0xFF]), 1..3)
}

fn ts() -> impl Strategy<Value = i64> {
    prop_oneof![0i64..400_000, prop::sample::select(vec![0i64, 59_999, 60_000, 119_999, 120_000, 180_001])]
}

fn opt_key() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop::option::of(key())
}

/// Kafka's segmented store, naively: a map of store keys plus stream time.
#[derive(Default, Clone)]
struct Model {
    current: BTreeMap<Vec<u8>, (i64, Vec<u8>)>, // store key -> (segment ts, value)
    committed: BTreeMap<Vec<u8>, (i64, Vec<u8>)>,
    stream_time: i64,
}

impl Model {
    fn new() -> Model {
        Model { stream_time: -1, ..Model::default() }
    }
    fn seg(ts: i64) -> i64 {
        ts / GEOMETRY.segment_interval_ms
    }
    fn min_live(&self) -> i64 {
        Self::seg(self.stream_time - GEOMETRY.retention_ms)
    }
    fn earliest_visible(&self) -> i64 {
        self.stream_time - GEOMETRY.retention_ms + 1
    }
    fn put(&mut self, seg_ts: i64, sk: Vec<u8>, v: Option<Vec<u8>>) -> bool {
        self.stream_time = self.stream_time.max(seg_ts);
        if Self::seg(seg_ts) < self.min_live() {
            return false;
        }
        let min_live = self.min_live();
        self.current.retain(|_, (t, _)| Self::seg(*t) >= min_live);
        match v {
            Some(v) => self.current.insert(sk, (seg_ts, v)),
            None => self.current.remove(&sk),
        };
        true
    }
    fn commit(&mut self) {
        self.committed = self.current.clone();
    }
    fn reopen(&mut self) {
        self.current = self.committed.clone();
        self.stream_time = -1;
    }
    /// Entries accepted by `keep`, ordered by (segment, store key), reversed if asked.
    fn scan(&self, reverse: bool, keep: impl Fn(&[u8]) -> bool) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut v: Vec<_> = self
            .current
            .iter()
            .filter(|(k, (t, _))| Self::seg(*t) >= self.min_live() && keep(k))
            .map(|(k, (t, v))| (Self::seg(*t), k.clone(), v.clone()))
            .collect();
        v.sort();
        if reverse {
            v.reverse();
        }
        v.into_iter().map(|(_, k, v)| (k, v)).collect()
    }
}

#[derive(Debug, Clone)]
enum WinOp {
    Put(Vec<u8>, i64, i32, Option<Vec<u8>>),
    Fetch(Vec<u8>, i64, i32),
    Range(Option<Vec<u8>>, Option<Vec<u8>>, i64, i64, bool),
    All(bool),
    Commit,
    Reopen,
}

fn win_op() -> impl Strategy<Value = WinOp> {
    prop_oneof![
        8 => (key(), ts(), 0i32..2, prop::option::weighted(0.85, key())).prop_map(|(k, t, s, v)| WinOp::Put(k, t, s, v)),
        2 => (key(), ts(), 0i32..2).prop_map(|(k, t, s)| WinOp::Fetch(k, t, s)),
        4 => (opt_key(), opt_key(), ts(), ts(), any::<bool>()).prop_map(|(a, b, f, t, r)| WinOp::Range(a, b, f, t, r)),
        1 => any::<bool>().prop_map(WinOp::All),
        2 => Just(WinOp::Commit),
        1 => Just(WinOp::Reopen),
    ]
}

fn run_window(ops: Vec<WinOp>, strategy: TxnStrategy) {
    run_window_with(ops, StoreOptions { strategy, ..StoreOptions::default() });
}

fn run_window_with(ops: Vec<WinOp>, opts: StoreOptions) {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Some(WindowStore::open(dir.path(), opts.clone(), GEOMETRY).unwrap());
    let mut m = Model::new();
    for op in ops {
        let s = db.as_ref().unwrap();
        match op {
            WinOp::Put(k, t, seq, v) => {
                let written = s.put(&k, t, seq, v.as_deref()).unwrap();
                let expect = m.put(t, window::store_key(&k, t, seq), v);
                assert_eq!(written == txn_rocksdb::segmented::PutOutcome::Written, expect);
            }
            WinOp::Fetch(k, t, seq) => {
                let expect = if t < m.earliest_visible() {
                    None
                } else {
                    m.current.get(&window::store_key(&k, t, seq)).map(|e| e.1.clone())
                };
                assert_eq!(s.fetch(&k, t, seq, false).unwrap(), expect);
            }
            WinOp::Range(kf, kt, from, to, reverse) => {
                let af = from.max(m.earliest_visible());
                let expect = m.scan(reverse, |sk| {
                    let (k, start, _) = window::split_store_key(sk).unwrap();
                    start >= af
                        && start <= to
                        && kf.as_deref().is_none_or(|f| k >= f)
                        && kt.as_deref().is_none_or(|t| k <= t)
                });
                let q = WindowQuery {
                    key_from: kf,
                    key_to: kt,
                    time_from: from,
                    time_to: to,
                    reverse,
                    committed_only: false,
                };
                let mut it = s.fetch_range(q);
                let mut got = Vec::new();
                while it.next_chunk(3, usize::MAX, |k, v| got.push((k.to_vec(), v.to_vec()))).unwrap() > 0 {}
                assert_eq!(got, expect);
            }
            WinOp::All(reverse) => {
                let af = m.earliest_visible().max(0);
                let expect = m.scan(reverse, |sk| window::split_store_key(sk).unwrap().1 >= af);
                assert_eq!(s.all(reverse, false).collect_all().unwrap(), expect);
            }
            WinOp::Commit => {
                s.segments().key_value().commit(&[], None).unwrap();
                m.commit();
            }
            WinOp::Reopen => {
                drop(db.take());
                db = Some(WindowStore::open(dir.path(), opts.clone(), GEOMETRY).unwrap());
                m.reopen();
            }
        }
    }
}

#[derive(Debug, Clone)]
enum SessOp {
    Put(Vec<u8>, i64, i64, Option<Vec<u8>>),
    Remove(Vec<u8>, i64, i64),
    FetchSession(Vec<u8>, i64, i64),
    Find(Option<Vec<u8>>, Option<Vec<u8>>, i64, i64, bool),
    Commit,
    Reopen,
}

fn session() -> impl Strategy<Value = (i64, i64)> {
    (ts(), 0i64..100_000).prop_map(|(start, len)| (start, start + len))
}

fn sess_op() -> impl Strategy<Value = SessOp> {
    prop_oneof![
        8 => (key(), session(), prop::option::weighted(0.85, key())).prop_map(|(k, (s, e), v)| SessOp::Put(k, s, e, v)),
        2 => (key(), session()).prop_map(|(k, (s, e))| SessOp::Remove(k, s, e)),
        2 => (key(), session()).prop_map(|(k, (s, e))| SessOp::FetchSession(k, s, e)),
        4 => (opt_key(), opt_key(), ts(), ts(), any::<bool>()).prop_map(|(a, b, ee, ls, r)| SessOp::Find(a, b, ee, ls, r)),
        2 => Just(SessOp::Commit),
        1 => Just(SessOp::Reopen),
    ]
}

fn run_session(ops: Vec<SessOp>, strategy: TxnStrategy) {
    run_session_with(ops, StoreOptions { strategy, ..StoreOptions::default() });
}

fn run_session_with(ops: Vec<SessOp>, opts: StoreOptions) {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Some(SessionStore::open(dir.path(), opts.clone(), GEOMETRY).unwrap());
    let mut m = Model::new();
    for op in ops {
        let s = db.as_ref().unwrap();
        match op {
            SessOp::Put(k, start, end, v) => {
                s.put(&k, start, end, v.as_deref()).unwrap();
                m.put(end, session::store_key(&k, start, end), v);
            }
            SessOp::Remove(k, start, end) => {
                s.remove(&k, start, end).unwrap();
                m.stream_time = m.stream_time.max(end);
                m.current.remove(&session::store_key(&k, start, end));
            }
            SessOp::FetchSession(k, start, end) => {
                let expect = if end < m.earliest_visible() {
                    None
                } else {
                    m.current.get(&session::store_key(&k, start, end)).map(|e| e.1.clone())
                };
                assert_eq!(s.fetch_session(&k, start, end, false).unwrap(), expect);
            }
            SessOp::Find(kf, kt, earliest_end, latest_start, reverse) => {
                let af = earliest_end.max(m.earliest_visible());
                let expect = m.scan(reverse, |sk| {
                    let (k, start, end) = session::split_store_key(sk).unwrap();
                    end >= af
                        && start <= latest_start
                        && kf.as_deref().is_none_or(|f| k >= f)
                        && kt.as_deref().is_none_or(|t| k <= t)
                });
                let q = SessionQuery {
                    key_from: kf,
                    key_to: kt,
                    earliest_end,
                    latest_start,
                    reverse,
                    committed_only: false,
                };
                let mut it = s.find_sessions(q);
                let mut got = Vec::new();
                while it.next_chunk(3, usize::MAX, |k, v| got.push((k.to_vec(), v.to_vec()))).unwrap() > 0 {}
                assert_eq!(got, expect);
            }
            SessOp::Commit => {
                s.segments().key_value().commit(&[], None).unwrap();
                m.commit();
            }
            SessOp::Reopen => {
                drop(db.take());
                db = Some(SessionStore::open(dir.path(), opts.clone(), GEOMETRY).unwrap());
                m.reopen();
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, .. ProptestConfig::default() })]

    #[test]
    fn window_store_matches_kafka_model(ops in prop::collection::vec(win_op(), 1..50)) {
        run_window(ops, TxnStrategy::IndexedBatch);
    }

    #[test]
    fn session_store_matches_kafka_model(ops in prop::collection::vec(sess_op(), 1..50)) {
        run_session(ops, TxnStrategy::IndexedBatch);
    }

    #[test]
    fn secondary_strategy_window_store_matches_kafka_model(ops in prop::collection::vec(win_op(), 1..50)) {
        run_window(ops, TxnStrategy::SecondaryStore);
    }

    #[test]
    fn secondary_strategy_session_store_matches_kafka_model(ops in prop::collection::vec(sess_op(), 1..50)) {
        run_session(ops, TxnStrategy::SecondaryStore);
    }

    /// Secondary-store transactions that spill to the temporary store after every few writes (0:
    /// every write).
    #[test]
    fn secondary_strategy_spilling_window_store_matches_kafka_model(ops in prop::collection::vec(win_op(), 1..50), spill_bytes in 0usize..300) {
        run_window_with(ops, StoreOptions { strategy: TxnStrategy::SecondaryStore, spill_bytes, ..StoreOptions::default() });
    }

    #[test]
    fn secondary_strategy_spilling_session_store_matches_kafka_model(ops in prop::collection::vec(sess_op(), 1..50), spill_bytes in 0usize..300) {
        run_session_with(ops, StoreOptions { strategy: TxnStrategy::SecondaryStore, spill_bytes, ..StoreOptions::default() });
    }
}
