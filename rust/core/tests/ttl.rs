//! A store whose keys expire, against a reference model of the semantics (`ttl.rs`): random
//! puts, deletes, reads, range scans, advances of time, expiry passes, commits, rollbacks, reopens
//! and restores, both strategies and write-through, plain and timestamped values, stream and
//! wall-clock time. Then what the model does not cover: layouts refused at open, an upgrade of the
//! value format, bounded expiry passes over a mass expiry.

use proptest::prelude::*;
use std::collections::BTreeMap;
use txn_rocksdb::ttl::{TimeBasis, TtlOptions, TtlStore};
use txn_rocksdb::versioned::{VersionedOptions, VersionedStore};
use txn_rocksdb::window::WindowStore;
use txn_rocksdb::{
    AnyStore, ErrorKind, KeyValueStore, Range, StoreOptions, Strategy as TxnStrategy, TopicPartition, ValueFormat,
};
use txn_rocksdb_format::wire::TimestampedEntry;

#[derive(Debug, Clone)]
enum Op {
    Put(Vec<u8>, Value, i64),
    Delete(Vec<u8>),
    PutIfAbsent(Vec<u8>, Value, i64),
    Get(Vec<u8>, bool),
    Scan { from: Option<Vec<u8>>, to: Option<Vec<u8>>, inclusive: bool, reverse: bool, committed: bool },
    Advance(i64),
    Expire(usize),
    Commit(i64),
    Rollback,
    Reopen,
    Restore(Vec<(Vec<u8>, Option<Value>, i64)>),
}

/// A value: its payload and, for timestamped stores, the timestamp it carries.
#[derive(Debug, Clone)]
struct Value {
    timestamp: i64,
    payload: Vec<u8>,
}

impl Value {
    fn bytes(&self, format: ValueFormat) -> Vec<u8> {
        match format {
            ValueFormat::Timestamped => [&self.timestamp.to_be_bytes()[..], &self.payload].concat(),
            _ => self.payload.clone(),
        }
    }
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(vec![0u8, 1, b'a', 0xFF]), 0..3)
}

fn time() -> impl Strategy<Value = i64> {
    prop_oneof![1 => Just(-1i64), 10 => 0i64..60]
}

fn value() -> impl Strategy<Value = Value> {
    (time(), prop::collection::vec(any::<u8>(), 0..3)).prop_map(|(timestamp, payload)| Value { timestamp, payload })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (key(), value(), time()).prop_map(|(k, v, t)| Op::Put(k, v, t)),
        2 => key().prop_map(Op::Delete),
        1 => (key(), value(), time()).prop_map(|(k, v, t)| Op::PutIfAbsent(k, v, t)),
        3 => (key(), any::<bool>()).prop_map(|(k, c)| Op::Get(k, c)),
        3 => (prop::option::of(key()), prop::option::of(key()), any::<bool>(), any::<bool>(), any::<bool>())
            .prop_map(|(from, to, inclusive, reverse, committed)| Op::Scan { from, to, inclusive, reverse, committed }),
        2 => (0i64..80).prop_map(Op::Advance),
        2 => (1usize..4).prop_map(Op::Expire),
        2 => (0i64..1000).prop_map(Op::Commit),
        1 => Just(Op::Rollback),
        1 => Just(Op::Reopen),
        1 => prop::collection::vec((key(), prop::option::of(value()), time()), 0..4).prop_map(Op::Restore),
    ]
}

/// A key's value and write time.
type Entry = (Vec<u8>, i64);

struct Model {
    ttl: i64,
    basis: TimeBasis,
    format: ValueFormat,
    transactional: bool,
    committed: BTreeMap<Vec<u8>, Entry>,
    committed_time: i64,
    staged: BTreeMap<Vec<u8>, Option<Entry>>,
    staged_time: i64,
    offset: Option<i64>,
}

impl Model {
    fn time(&self, committed_only: bool) -> i64 {
        if committed_only && self.transactional {
            self.committed_time
        } else {
            self.staged_time
        }
    }

    fn live(&self, write_time: i64, committed_only: bool) -> bool {
        let time = self.time(committed_only);
        time == -1 || write_time > time - self.ttl
    }

    fn entry(&self, k: &[u8], committed_only: bool) -> Option<Entry> {
        if !committed_only || !self.transactional {
            if let Some(e) = self.staged.get(k) {
                return e.clone();
            }
        }
        self.committed.get(k).cloned()
    }

    fn get(&self, k: &[u8], committed_only: bool) -> Option<Vec<u8>> {
        self.entry(k, committed_only).filter(|(_, t)| self.live(*t, committed_only)).map(|(v, _)| v)
    }

    fn view(&self, committed_only: bool) -> BTreeMap<Vec<u8>, Entry> {
        let mut m = self.committed.clone();
        if !committed_only || !self.transactional {
            for (k, e) in &self.staged {
                match e {
                    Some(e) => m.insert(k.clone(), e.clone()),
                    None => m.remove(k),
                };
            }
        }
        m
    }

    fn write_time(&self, value: &Value, time: i64) -> i64 {
        let from_value = match (self.basis, self.format) {
            (TimeBasis::Stream, ValueFormat::Timestamped) if value.timestamp >= 0 => Some(value.timestamp),
            _ => None,
        };
        let t = from_value.unwrap_or(time);
        if t >= 0 {
            t
        } else {
            self.staged_time.max(0)
        }
    }

    fn put(&mut self, k: Vec<u8>, value: &Value, time: i64) {
        let t = self.write_time(value, time);
        self.staged.insert(k, Some((value.bytes(self.format), t)));
        self.staged_time = self.staged_time.max(t);
    }

    /// Write-through: what is staged is committed at once.
    fn settle(&mut self) {
        if !self.transactional {
            self.committed = self.view(false);
            self.staged.clear();
            self.committed_time = self.staged_time;
        }
    }
}

fn tp() -> TopicPartition {
    TopicPartition { topic: "app-store-changelog".into(), partition: 0 }
}

fn options(transactional: bool, strategy: TxnStrategy, format: ValueFormat, ttl: TtlOptions) -> StoreOptions {
    StoreOptions { transactional, strategy, value_format: format, ttl: Some(ttl), ..StoreOptions::default() }
}

fn run(ops: Vec<Op>, opts: StoreOptions) {
    let ttl = opts.ttl.unwrap();
    let format = opts.value_format;
    let dir = tempfile::tempdir().unwrap();
    let mut store = Some(TtlStore::open(dir.path(), opts.clone()).unwrap());
    let mut m = Model {
        ttl: ttl.ttl_ms,
        basis: ttl.basis,
        format,
        transactional: opts.transactional,
        committed: BTreeMap::new(),
        committed_time: -1,
        staged: BTreeMap::new(),
        staged_time: -1,
        offset: None,
    };
    for op in ops {
        let s = store.as_ref().unwrap();
        match op {
            Op::Put(k, v, t) => {
                s.put(&k, Some(&v.bytes(format)), t).unwrap();
                m.put(k, &v, t);
            }
            Op::Delete(k) => {
                assert_eq!(s.delete(&k).unwrap(), m.get(&k, false), "delete of {k:?}");
                m.staged.insert(k, None);
            }
            Op::PutIfAbsent(k, v, t) => {
                let old = s.put_if_absent(&k, &v.bytes(format), t).unwrap();
                assert_eq!(old, m.get(&k, false), "putIfAbsent of {k:?}");
                if old.is_none() {
                    m.put(k, &v, t);
                }
            }
            Op::Get(k, committed) => {
                assert_eq!(s.get(&k, committed).unwrap(), m.get(&k, committed), "get of {k:?} (committed {committed})");
            }
            Op::Scan { from, to, inclusive, reverse, committed } => {
                let mut expect: Vec<_> = m
                    .view(committed)
                    .into_iter()
                    .filter(|(_, (_, t))| m.live(*t, committed))
                    .filter(|(k, _)| from.as_ref().is_none_or(|f| k >= f))
                    .filter(|(k, _)| to.as_ref().is_none_or(|t| if inclusive { k <= t } else { k < t }))
                    .map(|(k, (v, _))| (k, v))
                    .collect();
                if reverse {
                    expect.reverse();
                }
                let range = Range { from, to, to_inclusive: inclusive, reverse, committed_only: committed };
                let mut it = s.range(range.clone()).unwrap();
                let mut got = Vec::new();
                while it.next_chunk(2, usize::MAX, |k, v| got.push((k.to_vec(), v.to_vec()))).unwrap() > 0 {}
                assert_eq!(got, expect, "scan {range:?}");
            }
            Op::Advance(t) => {
                s.advance_time(t);
                m.staged_time = m.staged_time.max(t);
            }
            Op::Expire(max) => {
                let expired = s.expire(max).unwrap();
                assert!(expired.keys.len() <= max);
                for k in &expired.keys {
                    let (_, t) = m.entry(k, false).unwrap_or_else(|| panic!("expired {k:?}, which the model lacks"));
                    assert!(!m.live(t, false), "expired {k:?}, which is live");
                    m.staged.insert(k.clone(), None);
                }
                if !expired.more {
                    // a pass that says it is done has left no expired key behind
                    let left: Vec<_> = m.view(false).into_iter().filter(|(_, (_, t))| !m.live(*t, false)).collect();
                    assert_eq!(left, vec![], "expired keys left after a pass that said it was done");
                }
            }
            Op::Commit(o) => {
                s.commit(&[(tp(), Some(o))], None).unwrap();
                m.committed = m.view(false);
                m.staged.clear();
                m.committed_time = m.staged_time;
                m.offset = Some(o);
            }
            Op::Rollback => {
                s.rollback().unwrap();
                if m.transactional {
                    m.staged.clear();
                    m.staged_time = m.committed_time;
                }
            }
            Op::Reopen => {
                drop(store.take());
                store = Some(TtlStore::open(dir.path(), opts.clone()).unwrap());
                if m.transactional {
                    m.staged.clear();
                }
                let time = store.as_ref().unwrap().time(false);
                if m.transactional {
                    assert_eq!(time, m.committed_time, "the store's time after a reopen is the last commit's");
                } else {
                    // write-through: the time as of the last commit or restore, never later
                    assert!(time <= m.staged_time);
                    m.committed_time = time;
                }
                m.staged_time = m.committed_time;
                let offsets = store.as_ref().unwrap().key_value().committed_offsets().unwrap();
                assert_eq!(offsets.first().map(|(_, o)| *o), m.offset);
            }
            Op::Restore(records) => {
                let bytes: Vec<(Vec<u8>, Option<Vec<u8>>, i64)> =
                    records.iter().map(|(k, v, t)| (k.clone(), v.as_ref().map(|v| v.bytes(format)), *t)).collect();
                let batch: Vec<TimestampedEntry<'_>> =
                    bytes.iter().map(|(k, v, t)| (k.as_slice(), v.as_deref(), *t)).collect();
                s.restore(&batch).unwrap();
                let mut latest = m.committed_time;
                for (k, v, t) in records {
                    match v {
                        Some(v) => {
                            let wt = m.write_time(&v, t);
                            latest = latest.max(wt);
                            m.committed.insert(k, (v.bytes(format), wt));
                        }
                        None => {
                            m.committed.remove(&k);
                        }
                    }
                }
                m.committed_time = m.committed_time.max(latest);
                m.staged_time = m.staged_time.max(latest);
            }
        }
        m.settle();
        let s = store.as_ref().unwrap();
        assert_eq!(s.time(false), m.staged_time, "the store's time");
        if m.transactional {
            assert_eq!(s.time(true), m.committed_time, "the committed time");
        }
    }
}

fn ttl(ttl_ms: i64, basis: TimeBasis) -> TtlOptions {
    TtlOptions { ttl_ms, basis }
}

fn basis() -> impl Strategy<Value = TimeBasis> {
    prop::sample::select(vec![TimeBasis::Stream, TimeBasis::WallClock])
}

fn format() -> impl Strategy<Value = ValueFormat> {
    prop::sample::select(vec![ValueFormat::Plain, ValueFormat::Timestamped])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, .. ProptestConfig::default() })]

    #[test]
    fn indexed_batch_matches_the_model(
        ops in prop::collection::vec(op(), 1..60), ttl_ms in 1i64..25, basis in basis(), format in format()
    ) {
        run(ops, options(true, TxnStrategy::IndexedBatch, format, ttl(ttl_ms, basis)));
    }

    #[test]
    fn secondary_store_matches_the_model(
        ops in prop::collection::vec(op(), 1..60), ttl_ms in 1i64..25, basis in basis(), format in format(),
        spill_bytes in prop::sample::select(vec![0usize, 40, 16 << 20])
    ) {
        run(ops, StoreOptions { spill_bytes, ..options(true, TxnStrategy::SecondaryStore, format, ttl(ttl_ms, basis)) });
    }

    #[test]
    fn write_through_matches_the_model(
        ops in prop::collection::vec(op(), 1..60), ttl_ms in 1i64..25, basis in basis(), format in format()
    ) {
        run(ops, options(false, TxnStrategy::IndexedBatch, format, ttl(ttl_ms, basis)));
    }
}

fn stream(ttl_ms: i64) -> StoreOptions {
    options(true, TxnStrategy::IndexedBatch, ValueFormat::Plain, ttl(ttl_ms, TimeBasis::Stream))
}

#[test]
fn a_key_expires_ttl_after_its_last_write_and_a_put_starts_it_afresh() {
    let dir = tempfile::tempdir().unwrap();
    let s = TtlStore::open(dir.path(), stream(10)).unwrap();
    s.put(b"a", Some(b"1"), 100).unwrap();
    s.put(b"b", Some(b"2"), 105).unwrap();
    s.advance_time(109);
    assert_eq!(s.get(b"a", false).unwrap(), Some(b"1".to_vec()));
    s.advance_time(110);
    assert_eq!(s.get(b"a", false).unwrap(), None, "expired at write time + ttl");
    assert_eq!(s.get(b"b", false).unwrap(), Some(b"2".to_vec()));
    assert_eq!(s.range(Range::all()).unwrap().collect_all().unwrap(), vec![(b"b".to_vec(), b"2".to_vec())]);
    // committed reads filter with the committed time: nothing committed yet
    assert_eq!(s.get(b"a", true).unwrap(), None);
    s.commit(&[(tp(), Some(1))], None).unwrap();
    assert_eq!(s.get(b"b", true).unwrap(), Some(b"2".to_vec()));
    // the index still has a, until a pass removes it
    let expired = s.expire(100).unwrap();
    assert_eq!(expired.keys, vec![b"a".to_vec()]);
    assert!(!expired.more);
    // a put after expiry starts afresh
    s.put(b"a", Some(b"3"), 111).unwrap();
    assert_eq!(s.get(b"a", false).unwrap(), Some(b"3".to_vec()));
    s.commit(&[(tp(), Some(2))], None).unwrap();
    drop(s);
    let s = TtlStore::open(dir.path(), stream(10)).unwrap();
    assert_eq!(s.time(true), 111, "the store's time is committed with the offsets");
    assert_eq!(s.get(b"a", true).unwrap(), Some(b"3".to_vec()));
    assert_eq!(s.get(b"b", true).unwrap(), Some(b"2".to_vec()));
    s.advance_time(115);
    assert_eq!(s.get(b"b", false).unwrap(), None);
    assert_eq!(s.expire(100).unwrap().keys, vec![b"b".to_vec()]);
}

#[test]
fn time_going_backwards_does_not_revive_keys() {
    let dir = tempfile::tempdir().unwrap();
    let s = TtlStore::open(dir.path(), stream(10)).unwrap();
    s.put(b"a", Some(b"1"), 100).unwrap();
    s.put(b"late", Some(b"2"), 200).unwrap();
    assert_eq!(s.get(b"a", false).unwrap(), None);
    s.advance_time(50);
    assert_eq!(s.time(false), 200);
    assert_eq!(s.get(b"a", false).unwrap(), None);
    // a write with an old timestamp is expired at once: its last write is old
    s.put(b"old", Some(b"3"), 150).unwrap();
    assert_eq!(s.get(b"old", false).unwrap(), None);
    // a negative time counts as the store's time
    s.put(b"unknown", Some(b"4"), -1).unwrap();
    assert_eq!(s.get(b"unknown", false).unwrap(), Some(b"4".to_vec()));
}

#[test]
fn a_mass_expiry_is_removed_in_bounded_passes_and_is_invisible_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    let s = TtlStore::open(dir.path(), stream(1_000)).unwrap();
    let n = 20_000u32;
    for i in 0..n {
        s.put(&i.to_be_bytes(), Some(b"v"), i64::from(i % 100)).unwrap();
    }
    s.put(b"live", Some(b"v"), 5_000).unwrap();
    s.commit(&[(tp(), Some(1))], None).unwrap();
    assert_eq!(s.range(Range::all()).unwrap().collect_all().unwrap().len(), 1);
    let (mut passes, mut removed) = (0, 0);
    loop {
        let expired = s.expire(3_000).unwrap();
        assert!(expired.keys.len() <= 3_000);
        // each key's data row: 0x00, 4 key bytes; "v" and the 8-byte write time
        assert_eq!(expired.bytes, expired.keys.len() as u64 * (5 + 9));
        removed += expired.keys.len();
        passes += 1;
        assert_eq!(s.get(&7u32.to_be_bytes(), false).unwrap(), None);
        s.commit(&[(tp(), Some(1 + passes))], None).unwrap();
        if !expired.more {
            break;
        }
    }
    assert_eq!(removed, n as usize);
    assert_eq!(passes, 7);
    assert_eq!(s.expire(3_000).unwrap(), Default::default());
    // what is left: the live key's data and index rows and the time row
    let rows = s.key_value().range(Range::all()).unwrap().collect_all().unwrap();
    assert_eq!(rows.len(), 3, "{rows:?}");
}

#[test]
fn rewritten_and_deleted_keys_leave_no_index_behind() {
    let dir = tempfile::tempdir().unwrap();
    let s = TtlStore::open(dir.path(), stream(10)).unwrap();
    for t in 0..5 {
        s.put(b"a", Some(b"v"), t).unwrap();
    }
    s.put(b"b", Some(b"v"), 1).unwrap();
    s.delete(b"b").unwrap();
    // read-modify-writes (an aggregation's get then put), with reads of other keys between
    for t in 5..10 {
        s.get(b"c", false).unwrap();
        s.get(b"zz", false).unwrap();
        s.get(b"c", false).unwrap();
        s.put(b"c", Some(b"w"), t).unwrap();
    }
    s.put_if_absent(b"d", b"x", 3).unwrap();
    s.put_if_absent(b"d", b"y", 4).unwrap();
    s.commit(&[(tp(), Some(1))], None).unwrap();
    let rows = s.key_value().range(Range::all()).unwrap().collect_all().unwrap();
    assert_eq!(rows.len(), 7, "a's, c's and d's data and index rows and the time row: {rows:?}");
    // every key still expires through its index row
    s.advance_time(100);
    let mut expired = s.expire(100).unwrap().keys;
    expired.sort();
    assert_eq!(expired, vec![b"a".to_vec(), b"c".to_vec(), b"d".to_vec()]);
}

#[test]
fn a_rollback_returns_the_store_time_and_the_removed_keys() {
    let dir = tempfile::tempdir().unwrap();
    let s = TtlStore::open(dir.path(), stream(10)).unwrap();
    s.put(b"a", Some(b"1"), 100).unwrap();
    s.commit(&[(tp(), Some(1))], None).unwrap();
    s.put(b"b", Some(b"2"), 120).unwrap();
    assert_eq!(s.expire(10).unwrap().keys, vec![b"a".to_vec()]);
    s.rollback().unwrap();
    assert_eq!(s.time(false), 100);
    assert_eq!(s.get(b"a", false).unwrap(), Some(b"1".to_vec()));
    assert_eq!(s.get(b"b", false).unwrap(), None);
}

#[test]
fn a_restore_hides_what_expired_while_the_task_was_away() {
    let dir = tempfile::tempdir().unwrap();
    let s = TtlStore::open(dir.path(), stream(10)).unwrap();
    s.restore(&[(b"a", Some(b"1"), 100), (b"b", Some(b"2"), 105), (b"c", Some(b"3"), 120), (b"b", None, 121)]).unwrap();
    assert_eq!(s.time(true), 120);
    assert_eq!(s.range(Range::all()).unwrap().collect_all().unwrap(), vec![(b"c".to_vec(), b"3".to_vec())]);
    assert_eq!(s.get(b"a", true).unwrap(), None);
    assert_eq!(s.expire(10).unwrap().keys, vec![b"a".to_vec()], "b's index row is dropped without a tombstone");
    s.commit(&[(tp(), Some(4))], None).unwrap();
    let rows = s.key_value().range(Range::all()).unwrap().collect_all().unwrap();
    assert_eq!(rows.len(), 3, "c's data and index rows and the time row: {rows:?}");
}

#[test]
fn timestamped_values_are_written_at_their_own_timestamp() {
    let dir = tempfile::tempdir().unwrap();
    let opts = options(true, TxnStrategy::IndexedBatch, ValueFormat::Timestamped, ttl(10, TimeBasis::Stream));
    let s = TtlStore::open(dir.path(), opts).unwrap();
    let value = |ts: i64| [&ts.to_be_bytes()[..], b"v"].concat();
    s.put(b"a", Some(&value(100)), 500).unwrap();
    assert_eq!(s.time(false), 100, "the value's timestamp, not the given time");
    s.put(b"b", Some(&value(-1)), 105).unwrap();
    assert_eq!(s.time(false), 105, "a value without a timestamp: the given time");
    assert!(s.put(b"c", Some(b"short"), 1).unwrap_err().to_string().contains("timestamped"));
    // wall-clock time ignores the value's timestamp
    let dir = tempfile::tempdir().unwrap();
    let opts = options(true, TxnStrategy::IndexedBatch, ValueFormat::Timestamped, ttl(10, TimeBasis::WallClock));
    let s = TtlStore::open(dir.path(), opts).unwrap();
    s.put(b"a", Some(&value(100)), 500).unwrap();
    assert_eq!(s.time(false), 500);
}

#[test]
fn a_store_is_refused_in_the_other_layout() {
    let dir = tempfile::tempdir().unwrap();
    let plain = StoreOptions::default();
    let kv = KeyValueStore::open(dir.path(), plain.clone()).unwrap();
    kv.put(b"k", Some(b"v")).unwrap();
    kv.commit(&[(tp(), Some(1))], None).unwrap();
    drop(kv);
    let e = TtlStore::open(dir.path(), stream(10)).err().unwrap();
    assert!(e.to_string().contains("written without a time-to-live"), "{e}");
    KeyValueStore::open(dir.path(), plain.clone()).unwrap();

    let dir = tempfile::tempdir().unwrap();
    drop(TtlStore::open(dir.path(), stream(10)).unwrap());
    let e = KeyValueStore::open(dir.path(), plain.clone()).err().unwrap();
    assert!(e.to_string().contains("written with a time-to-live"), "{e}");
    // an empty store without the layout takes it
    let dir = tempfile::tempdir().unwrap();
    drop(KeyValueStore::open(dir.path(), plain).unwrap());
    TtlStore::open(dir.path(), stream(10)).unwrap();
}

#[test]
fn kinds_with_retention_and_bad_ttls_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let geometry = txn_rocksdb::segmented::SegmentOptions { retention_ms: 100, segment_interval_ms: 10 };
    let e = WindowStore::open(dir.path(), stream(10), geometry).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("retention"), "{e}");
    let versioned = VersionedOptions { history_retention_ms: 100, segment_interval_ms: 10 };
    assert_eq!(
        VersionedStore::open(dir.path(), stream(10), versioned).err().unwrap().kind(),
        ErrorKind::InvalidArgument
    );
    for bad in [0, -5] {
        let e = TtlStore::open(dir.path(), stream(bad)).err().unwrap();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.to_string().contains("at least 1 ms"), "{e}");
    }
    match AnyStore::open_key_value(dir.path(), stream(10)).unwrap() {
        AnyStore::Ttl(_) => {}
        _ => panic!("a key-value store with a time-to-live opens as one"),
    }
}

#[test]
fn a_value_format_upgrade_keeps_write_times_and_the_store_time() {
    let dir = tempfile::tempdir().unwrap();
    let s = TtlStore::open(dir.path(), stream(10)).unwrap();
    s.put(b"a", Some(b"1"), 100).unwrap();
    s.put(b"b", Some(b"2"), 95).unwrap();
    s.commit(&[(tp(), Some(1))], None).unwrap();
    drop(s);
    let opts = options(true, TxnStrategy::IndexedBatch, ValueFormat::Timestamped, ttl(10, TimeBasis::Stream));
    let s = TtlStore::open(dir.path(), opts).unwrap();
    assert_eq!(s.time(true), 100);
    let upgraded = [&(-1i64).to_be_bytes()[..], b"1"].concat();
    assert_eq!(s.get(b"a", true).unwrap(), Some(upgraded));
    s.advance_time(105);
    assert_eq!(s.get(b"b", false).unwrap(), None, "b keeps its write time 95");
    assert_eq!(s.expire(10).unwrap().keys, vec![b"b".to_vec()]);
}
