//! Interactive queries on window and session stores from other threads while the stream thread
//! writes, commits and drops expired segments (both strategies): a READ_COMMITTED reader sees
//! every committed window or session whole (all keys of a transaction, never some), never a
//! segment half-dropped, and never goes back in time; uncommitted readers may see the open
//! transaction but never fail.
//!
//! One test per binary: it shrinks the copy batches through the environment.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use txn_rocksdb::segmented::SegmentOptions;
use txn_rocksdb::session::{self, SessionQuery, SessionStore};
use txn_rocksdb::window::{self, WindowQuery, WindowStore};
use txn_rocksdb::{KeyValueStore, StoreOptions, Strategy, TopicPartition};

const KEYS: u32 = 100;
const TRANSACTIONS: i64 = 150;
/// Each transaction writes one window (or session) per key, starting `STEP` ms after the last.
const STEP: i64 = 1_000;
/// Retention of 8 transactions in segments of 2: segments expire and drop all the time.
const GEOMETRY: SegmentOptions = SegmentOptions { retention_ms: 8 * STEP, segment_interval_ms: 2 * STEP };

fn key(k: u32) -> Vec<u8> {
    format!("key-{k:04}").into_bytes()
}

fn tp() -> TopicPartition {
    TopicPartition { topic: "app-store-changelog".into(), partition: 0 }
}

/// The transactions a committed view holds: every one complete (all keys, its own value), and
/// consecutive (expiry drops the oldest first, whole segments at a time). Returns the newest.
fn check_committed(what: &str, entries: &BTreeMap<i64, Vec<(Vec<u8>, i64)>>) -> Result<i64, String> {
    let mut previous: Option<i64> = None;
    for (start, windows) in entries {
        let transaction = start / STEP;
        if windows.len() != KEYS as usize {
            return Err(format!("{what}: transaction {transaction} has {} of {KEYS} keys", windows.len()));
        }
        if let Some((key, value)) = windows.iter().find(|(_, value)| *value != transaction) {
            return Err(format!(
                "{what}: key {} of transaction {transaction} holds {value}",
                String::from_utf8_lossy(key)
            ));
        }
        if let Some(previous) = previous {
            if transaction != previous + 1 {
                return Err(format!("{what}: transactions {previous} and {transaction} with a hole between"));
            }
        }
        previous = Some(transaction);
    }
    Ok(previous.unwrap_or(0))
}

fn value_of(raw: &[u8]) -> i64 {
    std::str::from_utf8(raw).unwrap().parse().unwrap()
}

/// Runs `writer` on this thread while 3 readers run `read(committed_only)` in a loop (two
/// READ_COMMITTED, one uncommitted); a committed reader's newest transaction never goes back.
fn race(what: &str, writer: impl FnOnce(), read: impl Fn(bool) -> Result<i64, String> + Send + Sync + 'static) {
    let read = Arc::new(read);
    let stop = Arc::new(AtomicBool::new(false));
    let scans = Arc::new(AtomicU64::new(0));
    let readers: Vec<_> = [true, true, false]
        .into_iter()
        .map(|committed_only| {
            let (read, stop, scans, what) = (read.clone(), stop.clone(), scans.clone(), what.to_string());
            std::thread::spawn(move || {
                let mut newest = 0;
                while !stop.load(Ordering::Relaxed) {
                    let seen = read(committed_only).unwrap_or_else(|e| panic!("{what}: {e}"));
                    if committed_only {
                        assert!(seen >= newest, "{what}: the committed view went back from {newest} to {seen}");
                        newest = seen;
                    }
                    scans.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    writer();
    stop.store(true, Ordering::Relaxed);
    for reader in readers {
        reader.join().unwrap();
    }
    assert!(scans.load(Ordering::Relaxed) >= 3, "{what}: the readers hardly ran");
}

fn commit(store: &KeyValueStore, transaction: i64) {
    store.commit(&[(tp(), Some(transaction))], None).unwrap();
}

#[test]
fn committed_readers_never_see_a_torn_commit_or_a_half_dropped_segment() {
    std::env::set_var("TXN_ROCKSDB_COPY_BATCH_BYTES", "512");
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        let options = StoreOptions { strategy, ..StoreOptions::default() };

        let dir = tempfile::tempdir().unwrap();
        let windows = Arc::new(WindowStore::open(dir.path(), options.clone(), GEOMETRY).unwrap());
        let reader = windows.clone();
        race(
            &format!("window store, {strategy:?}"),
            || {
                for t in 1..=TRANSACTIONS {
                    for k in 0..KEYS {
                        windows.put(&key(k), t * STEP, 0, Some(t.to_string().as_bytes())).unwrap();
                    }
                    commit(windows.segments().key_value(), t);
                }
            },
            move |committed_only| {
                let mut by_start: BTreeMap<i64, Vec<(Vec<u8>, i64)>> = BTreeMap::new();
                for (store_key, value) in reader.all(false, committed_only).collect_all().map_err(|e| e.to_string())? {
                    let (key, start, _) = window::split_store_key(&store_key).ok_or("a malformed window key")?;
                    by_start.entry(start).or_default().push((key.to_vec(), value_of(&value)));
                }
                // one key's windows, as a fetch(key, from, to) sees them
                let one = reader
                    .fetch_range(WindowQuery {
                        key_from: Some(key(7)),
                        key_to: Some(key(7)),
                        time_from: 0,
                        time_to: i64::MAX,
                        committed_only,
                        ..WindowQuery::default()
                    })
                    .collect_all()
                    .map_err(|e| e.to_string())?;
                if !committed_only {
                    return Ok(0);
                }
                let newest = check_committed("window all()", &by_start)?;
                let starts: Vec<i64> = one.iter().map(|(k, _)| window::split_store_key(k).unwrap().1).collect();
                if starts.windows(2).any(|w| w[1] != w[0] + STEP) {
                    return Err(format!("window fetch of one key has a hole: {starts:?}"));
                }
                Ok(newest)
            },
        );

        let dir = tempfile::tempdir().unwrap();
        let sessions = Arc::new(SessionStore::open(dir.path(), options, GEOMETRY).unwrap());
        let reader = sessions.clone();
        race(
            &format!("session store, {strategy:?}"),
            || {
                for t in 1..=TRANSACTIONS {
                    for k in 0..KEYS {
                        // a session per transaction and key; the previous one is merged into it
                        if t > 1 {
                            sessions.remove(&key(k), (t - 1) * STEP, (t - 1) * STEP + STEP / 2).unwrap();
                        }
                        sessions.put(&key(k), t * STEP, t * STEP + STEP / 2, Some(t.to_string().as_bytes())).unwrap();
                    }
                    commit(sessions.segments().key_value(), t);
                }
            },
            move |committed_only| {
                let found = reader
                    .find_sessions(SessionQuery {
                        earliest_end: 0,
                        latest_start: i64::MAX,
                        committed_only,
                        ..SessionQuery::default()
                    })
                    .collect_all()
                    .map_err(|e| e.to_string())?;
                if !committed_only {
                    return Ok(0);
                }
                let mut by_start: BTreeMap<i64, Vec<(Vec<u8>, i64)>> = BTreeMap::new();
                for (store_key, value) in found {
                    let (key, start, _) = session::split_store_key(&store_key).ok_or("a malformed session key")?;
                    by_start.entry(start).or_default().push((key.to_vec(), value_of(&value)));
                }
                // each commit replaces every key's session by the next one: exactly one
                // transaction is visible at a time (none before the first commit)
                if by_start.len() > 1 {
                    return Err(format!(
                        "sessions of transactions {:?} visible together",
                        by_start.keys().collect::<Vec<_>>()
                    ));
                }
                check_committed("findSessions", &by_start)
            },
        );
    }
}
