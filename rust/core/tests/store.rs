//! Behaviour of one store: offsets, position, iterators under writes and commits, crash recovery.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use txn_rocksdb::{KeyValueStore, Range, StoreOptions, Strategy, TopicPartition};

fn tp(p: i32) -> TopicPartition {
    TopicPartition { topic: "app-counts-changelog".into(), partition: p }
}

fn open(dir: &std::path::Path) -> KeyValueStore {
    open_with(dir, Strategy::IndexedBatch)
}

fn open_with(dir: &std::path::Path, strategy: Strategy) -> KeyValueStore {
    KeyValueStore::open(dir, StoreOptions { strategy, ..StoreOptions::default() }).unwrap()
}

/// Runs a test body once per transaction strategy.
macro_rules! both_strategies {
    ($(fn $name:ident($strategy:ident) $body:block)*) => {
        $(
            mod $name {
                use super::*;
                fn run($strategy: Strategy) $body
                #[test]
                fn indexed_batch() {
                    run(Strategy::IndexedBatch)
                }
                #[test]
                fn secondary_store() {
                    run(Strategy::SecondaryStore)
                }
            }
        )*
    };
}

fn offsets(db: &KeyValueStore) -> Vec<(TopicPartition, i64)> {
    let mut o = db.committed_offsets().unwrap();
    o.sort();
    o
}

#[test]
fn commit_offset_semantics() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    db.commit(&[(tp(0), Some(10)), (tp(1), Some(-4))], None).unwrap();
    assert_eq!(offsets(&db), vec![(tp(0), 10), (tp(1), -4)], "-4 is stored verbatim");
    db.commit(&[(tp(0), Some(11))], None).unwrap();
    assert_eq!(offsets(&db), vec![(tp(0), 11), (tp(1), -4)], "partitions not named keep their offset");
    db.commit(&[(tp(1), None)], None).unwrap();
    assert_eq!(offsets(&db), vec![(tp(0), 11)], "None removes one partition");
    db.commit(&[], None).unwrap();
    assert!(offsets(&db).is_empty(), "an empty map clears every offset");
}

#[test]
fn position_blob_is_committed_with_offsets() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = open(dir.path());
        assert_eq!(db.committed_position().unwrap(), None);
        db.commit(&[(tp(0), Some(1))], Some(b"pos-1")).unwrap();
        db.commit(&[(tp(0), Some(2))], None).unwrap();
    }
    let db = open(dir.path());
    assert_eq!(db.committed_position().unwrap().as_deref(), Some(&b"pos-1"[..]));
}

#[test]
fn uncommitted_writes_vanish_on_reopen_and_committed_survive() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = open(dir.path());
        db.put(b"a", Some(b"1")).unwrap();
        db.commit(&[(tp(0), Some(5))], None).unwrap();
        db.put(b"b", Some(b"2")).unwrap();
        db.put(b"a", None).unwrap();
        assert!(db.approximate_uncommitted_bytes() > 0);
        assert_eq!(db.get(b"a", false).unwrap(), None);
        assert_eq!(db.get(b"a", true).unwrap().as_deref(), Some(&b"1"[..]));
    }
    let db = open(dir.path());
    assert_eq!(db.get(b"a", false).unwrap().as_deref(), Some(&b"1"[..]));
    assert_eq!(db.get(b"b", false).unwrap(), None);
    assert_eq!(offsets(&db), vec![(tp(0), 5)]);
    assert_eq!(db.approximate_uncommitted_bytes(), 0);
}

both_strategies! {
fn iterating_while_deleting_every_key_sees_every_key_once(strategy) {
    let dir = tempfile::tempdir().unwrap();
    let db = open_with(dir.path(), strategy);
    for i in 0..500u32 {
        db.put(&i.to_be_bytes(), Some(b"committed")).unwrap();
    }
    db.commit(&[(tp(0), Some(1))], None).unwrap();
    for i in 500..1000u32 {
        db.put(&i.to_be_bytes(), Some(b"staged")).unwrap();
    }
    let mut it = db.range(Range::all()).unwrap();
    let mut seen = Vec::new();
    loop {
        let mut chunk = Vec::new();
        if it.next_chunk(7, usize::MAX, |k, _| chunk.push(k.to_vec())).unwrap() == 0 {
            break;
        }
        for k in chunk {
            db.delete(&k).unwrap(); // mutates the batch under the open iterator
            seen.push(u32::from_be_bytes(k.try_into().unwrap()));
        }
    }
    assert_eq!(seen, (0..1000).collect::<Vec<_>>());
    assert!(db.range(Range::all()).unwrap().collect_all().unwrap().is_empty());
}}

both_strategies! {
fn iterator_survives_commit_and_rollback(strategy) {
    let dir = tempfile::tempdir().unwrap();
    let db = open_with(dir.path(), strategy);
    for i in 0..100u8 {
        db.put(&[i], Some(&[i])).unwrap();
    }
    let mut it = db.range(Range { reverse: true, ..Range::all() }).unwrap();
    let mut got = Vec::new();
    it.next_chunk(10, usize::MAX, |k, _| got.push(k[0])).unwrap();
    db.commit(&[(tp(0), Some(1))], None).unwrap();
    db.put(&[200], Some(b"x")).unwrap();
    db.rollback().unwrap();
    while it.next_chunk(10, usize::MAX, |k, _| got.push(k[0])).unwrap() > 0 {}
    assert_eq!(got, (0..100u8).rev().collect::<Vec<_>>());
}}

both_strategies! {
fn committed_only_iterator_ignores_staged_writes(strategy) {
    let dir = tempfile::tempdir().unwrap();
    let db = open_with(dir.path(), strategy);
    db.put(b"a", Some(b"1")).unwrap();
    db.commit(&[], None).unwrap();
    db.put(b"b", Some(b"2")).unwrap();
    db.delete(b"a").unwrap();
    let committed = db.range(Range { committed_only: true, ..Range::all() }).unwrap().collect_all().unwrap();
    assert_eq!(committed, vec![(b"a".to_vec(), b"1".to_vec())]);
    let live = db.range(Range::all()).unwrap().collect_all().unwrap();
    assert_eq!(live, vec![(b"b".to_vec(), b"2".to_vec())]);
}}

#[test]
fn prefix_and_byte_budget() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    for k in [&b"ab"[..], b"ab\xff", b"abc", b"ac", b"a"] {
        db.put(k, Some(&[0u8; 100])).unwrap();
    }
    let keys: Vec<_> =
        db.range(Range::prefix(b"ab")).unwrap().collect_all().unwrap().into_iter().map(|e| e.0).collect();
    assert_eq!(keys, vec![b"ab".to_vec(), b"abc".to_vec(), b"ab\xff".to_vec()]);
    let mut it = db.range(Range::all()).unwrap();
    assert_eq!(it.next_chunk(100, 1, |_, _| {}).unwrap(), 1, "a byte budget still yields one entry");
}

/// Run by `crash_after_commit_keeps_exactly_the_commit` in a child process, which it kills.
#[test]
fn crash_child() {
    let Ok(dir) = std::env::var("TXN_ROCKSDB_CRASH_CHILD_DIR") else { return };
    let db = open(std::path::Path::new(&dir));
    for i in 0..1000u32 {
        db.put(format!("committed-{i}").as_bytes(), Some(b"v")).unwrap();
    }
    db.commit(&[(tp(0), Some(1000))], Some(b"pos")).unwrap();
    for i in 0..1000u32 {
        db.put(format!("uncommitted-{i}").as_bytes(), Some(b"v")).unwrap();
    }
    db.delete(b"committed-0").unwrap();
    println!("READY");
    std::thread::sleep(std::time::Duration::from_secs(600));
}

#[test]
fn crash_after_commit_keeps_exactly_the_commit() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "crash_child", "--nocapture", "--test-threads=1"])
        .env("TXN_ROCKSDB_CRASH_CHILD_DIR", dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    assert!(stdout.lines().map_while(|l| l.ok()).any(|l| l.contains("READY")), "child never got ready");
    child.kill().unwrap(); // SIGKILL on Unix: no destructors, no flush
    let status = child.wait().unwrap();
    assert!(txn_rocksdb::fault::killed(&status), "child must die by SIGKILL (TerminateProcess on Windows): {status:?}");

    let db = open(dir.path());
    assert_eq!(offsets(&db), vec![(tp(0), 1000)]);
    assert_eq!(db.committed_position().unwrap().as_deref(), Some(&b"pos"[..]));
    let all = db.range(Range::all()).unwrap().collect_all().unwrap();
    assert_eq!(all.len(), 1000);
    assert!(all.iter().all(|(k, _)| k.starts_with(b"committed-")));
    assert!(db.get(b"committed-0", false).unwrap().is_some());
}

#[test]
fn staged_range_delete_lands_with_the_commit() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    for k in [&b"a1"[..], b"a2", b"b1"] {
        db.put(k, Some(b"v")).unwrap();
    }
    db.commit(&[], None).unwrap();
    db.write_all([txn_rocksdb::Write::DeleteRange(b"a", b"b")]).unwrap();
    db.commit(&[(tp(0), Some(3))], None).unwrap();
    let keys: Vec<_> = db.range(Range::all()).unwrap().collect_all().unwrap().into_iter().map(|e| e.0).collect();
    assert_eq!(keys, vec![b"b1".to_vec()]);
}

#[test]
fn session_find_by_end_ignores_the_retention_filter_but_not_expired_segments() {
    use txn_rocksdb::segmented::SegmentOptions;
    use txn_rocksdb::session::{split_store_key, SessionStore};
    let dir = tempfile::tempdir().unwrap();
    let geometry = SegmentOptions { retention_ms: 60_000, segment_interval_ms: 60_000 };
    let db = SessionStore::open(dir.path(), StoreOptions::default(), geometry).unwrap();
    db.put(b"old", 0, 10, Some(b"x")).unwrap(); // segment 0, expires below
    db.put(b"a", 60_000, 70_000, Some(b"1")).unwrap(); // segment 1
    db.put(b"b", 100_000, 125_000, Some(b"2")).unwrap(); // segment 2: stream time 125000, segment 0 expired
    let ends: Vec<i64> = db
        .find_by_end(0, 200_000, false)
        .collect_all()
        .unwrap()
        .iter()
        .map(|(k, _)| split_store_key(k).unwrap().2)
        .collect();
    // Segment 0 expired (streamTime - retention = 65000 is in segment 1) and is not read.
    assert_eq!(ends, vec![70_000, 125_000]);
    assert_eq!(db.segments().stream_time(), 125_000);
}

/// Secondary-store iterators are snapshots of the transaction too, as Kafka's are: writes made
/// while one is open (in memory, spilled to the temporary store, or committed) stay invisible to
/// it, and the writer's own view moves on.
#[test]
fn secondary_store_iterators_are_snapshots_of_the_transaction() {
    for spill_bytes in [0, 64, 1 << 20] {
        let dir = tempfile::tempdir().unwrap();
        let options = StoreOptions { strategy: Strategy::SecondaryStore, spill_bytes, ..StoreOptions::default() };
        let db = KeyValueStore::open(dir.path(), options).unwrap();
        db.put(b"a", Some(b"committed")).unwrap();
        db.commit(&[(tp(0), Some(1))], None).unwrap();
        db.put(b"b", Some(b"staged")).unwrap();
        let mut open = db.range(Range::all()).unwrap();
        db.put(b"a", Some(b"overwritten")).unwrap();
        db.put(b"c", Some(&[7u8; 100])).unwrap();
        db.delete(b"b").unwrap();
        let expected = vec![(b"a".to_vec(), b"committed".to_vec()), (b"b".to_vec(), b"staged".to_vec())];
        assert_eq!(open.collect_all().unwrap(), expected, "spill_bytes {spill_bytes}");
        let now = db.range(Range::all()).unwrap().collect_all().unwrap();
        let keys: Vec<_> = now.iter().map(|(k, _)| k.as_slice()).collect();
        assert_eq!(keys, [&b"a"[..], b"c"], "spill_bytes {spill_bytes}");
        let mut open = db.range(Range::all()).unwrap();
        db.commit(&[(tp(0), Some(2))], None).unwrap();
        db.put(b"d", Some(b"next")).unwrap();
        assert_eq!(open.collect_all().unwrap(), now, "spill_bytes {spill_bytes}: a commit and a write after it");
    }
}

both_strategies! {
    // A key's scan with an open time range stops at the last segment written: the entries of
    // longer keys with it as a prefix (`k0`, `k\0`, `kk`, which sort between `k ++ t` and
    // `k ++ i64::MAX`) are never returned, in either direction, staged, committed and after a
    // reopen (stream time unknown again, the highest segment read back from disk), including a
    // session ending on the last millisecond of the highest segment.
    fn prefix_keys_with_open_time_ranges(strategy) {
        use txn_rocksdb::segmented::SegmentOptions;
        use txn_rocksdb::session::{split_store_key, SessionQuery, SessionStore};
        use txn_rocksdb::window::{self, WindowQuery, WindowStore};
        let dir = tempfile::tempdir().unwrap();
        let geometry = SegmentOptions { retention_ms: 1_000_000, segment_interval_ms: 60_000 };
        let options = StoreOptions { strategy, ..StoreOptions::default() };
        let keys: [&[u8]; 5] = [b"k", b"k0", b"k\x00", b"k\xff", b"kk"];
        // (start, end) per key; the last ends on the last millisecond of segment 2
        let sessions = [(1_000, 5_000), (61_000, 70_000), (130_000, 179_999)];
        let expected = |from: &[u8], to: &[u8]| -> Vec<(Vec<u8>, i64, i64)> {
            let mut all: Vec<(i64, Vec<u8>, i64, i64)> = keys
                .iter()
                .filter(|k| **k >= from && **k <= to)
                .flat_map(|k| sessions.iter().map(move |&(s, e)| (e / 60_000, txn_rocksdb::session::store_key(k, s, e), s, e)))
                .collect();
            all.sort();
            all.into_iter().map(|(_, sk, s, e)| (split_store_key(&sk).unwrap().0.to_vec(), s, e)).collect()
        };
        let find = |store: &SessionStore, from: &[u8], to: &[u8], reverse: bool| -> Vec<(Vec<u8>, i64, i64)> {
            let query = SessionQuery {
                key_from: Some(from.to_vec()),
                key_to: Some(to.to_vec()),
                earliest_end: 0,
                latest_start: i64::MAX,
                reverse,
                ..SessionQuery::default()
            };
            let found = store.find_sessions(query).collect_all().unwrap();
            found.iter().map(|(k, _)| split_store_key(k).map(|(k, s, e)| (k.to_vec(), s, e)).unwrap()).collect()
        };
        let fetch = |store: &WindowStore, key: &[u8]| -> Vec<(Vec<u8>, i64)> {
            let query = WindowQuery { key_from: Some(key.to_vec()), key_to: Some(key.to_vec()), time_from: 0, time_to: i64::MAX, ..WindowQuery::default() };
            let found = store.fetch_range(query).collect_all().unwrap();
            found.iter().map(|(k, _)| window::split_store_key(k).map(|(k, t, _)| (k.to_vec(), t)).unwrap()).collect()
        };
        let check = |session_store: &SessionStore, window_store: &WindowStore, when: &str| {
            let mut reversed = expected(b"k", b"k");
            assert_eq!(find(session_store, b"k", b"k", false), expected(b"k", b"k"), "{when}: findSessions(k)");
            reversed.reverse();
            assert_eq!(find(session_store, b"k", b"k", true), reversed, "{when}: backwardFindSessions(k)");
            assert_eq!(find(session_store, b"k", b"k0", false), expected(b"k", b"k0"), "{when}: findSessions(k, k0)");
            let starts: Vec<(Vec<u8>, i64)> = sessions.iter().map(|&(s, _)| (b"k".to_vec(), s)).collect();
            assert_eq!(fetch(window_store, b"k"), starts, "{when}: window fetch(k, 0, MAX)");
        };
        let open = || {
            (
                SessionStore::open(dir.path().join("session"), options.clone(), geometry).unwrap(),
                WindowStore::open(dir.path().join("window"), options.clone(), geometry).unwrap(),
            )
        };
        let (session_store, window_store) = open();
        for key in keys {
            for &(start, end) in &sessions {
                session_store.put(key, start, end, Some(b"v")).unwrap();
                window_store.put(key, start, 0, Some(b"v")).unwrap();
            }
        }
        check(&session_store, &window_store, "staged");
        session_store.segments().key_value().commit(&[(tp(0), Some(1))], None).unwrap();
        window_store.segments().key_value().commit(&[(tp(0), Some(1))], None).unwrap();
        check(&session_store, &window_store, "committed");
        drop((session_store, window_store));
        let (session_store, window_store) = open();
        assert_eq!(session_store.segments().stream_time(), -1);
        check(&session_store, &window_store, "reopened");
    }
}
