//! Readers on other threads (Kafka's interactive queries) while the stream thread commits: a
//! secondary-store commit copies in several batches (or ingests files, then writes the offsets),
//! yet a READ_COMMITTED scan never sees half of it (both strategies), and a secondary-store scan of
//! the uncommitted view is a snapshot.
//!
//! One test per binary: it shrinks the copy batches through the environment.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use txn_rocksdb::{KeyValueStore, Range, StoreOptions, Strategy, TopicPartition};

const KEYS: u32 = 2_000;

fn tp() -> TopicPartition {
    TopicPartition { topic: "app-store-changelog".into(), partition: 0 }
}

/// Every value of a scan, which must all be the same transaction number.
fn uniform(entries: &[(Vec<u8>, Vec<u8>)]) -> Result<Option<u64>, String> {
    let mut seen = None;
    for (k, v) in entries {
        let n: u64 = std::str::from_utf8(v).unwrap().parse().unwrap();
        match seen {
            None => seen = Some(n),
            Some(s) if s != n => {
                return Err(format!("key {} holds transaction {n}, another key {s}", String::from_utf8_lossy(k)))
            }
            _ => {}
        }
    }
    Ok(seen)
}

#[test]
fn readers_never_see_half_a_commit() {
    // many copy batches per commit (2,000 records of ~20 bytes)
    std::env::set_var("TXN_ROCKSDB_COPY_BATCH_BYTES", "256");
    // secondary-store twice: commits by copy, then by ingestion (`secondary/ingest.rs`)
    for (strategy, ingest) in
        [(Strategy::IndexedBatch, false), (Strategy::SecondaryStore, false), (Strategy::SecondaryStore, true)]
    {
        if ingest {
            std::env::set_var("TXN_ROCKSDB_INGEST_BYTES", "1");
        }
        let dir = tempfile::tempdir().unwrap();
        let db = KeyValueStore::open(dir.path(), StoreOptions { strategy, ..StoreOptions::default() }).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let readers: Vec<_> = [true, false]
            .into_iter()
            .map(|committed_only| {
                let (db, stop) = (db.clone(), stop.clone());
                std::thread::spawn(move || {
                    let (mut scans, mut last) = (0u64, 0u64);
                    while !stop.load(Ordering::Relaxed) {
                        let range = Range { committed_only, ..Range::all() };
                        let all = db.range(range).unwrap().collect_all().unwrap();
                        if committed_only {
                            assert!(
                                all.is_empty() || all.len() == KEYS as usize,
                                "{strategy:?}: {} keys committed",
                                all.len()
                            );
                            let n = uniform(&all)
                                .unwrap_or_else(|e| panic!("{strategy:?} READ_COMMITTED scan: {e}"))
                                .unwrap_or(0);
                            assert!(n >= last, "{strategy:?}: committed state went back from {last} to {n}");
                            last = n;
                        } else if strategy == Strategy::SecondaryStore {
                            // a snapshot of (temporary over main): one put_all is one write to the
                            // temporary store, and a commit never shows through half-copied
                            assert!(all.is_empty() || all.len() == KEYS as usize, "{strategy:?}: {} keys", all.len());
                            uniform(&all).unwrap_or_else(|e| panic!("{strategy:?} uncommitted scan: {e}"));
                        } else {
                            // indexed-batch iterators are live over the batch (they re-seek after
                            // writes between chunks), so they may mix two put_alls; nothing to assert
                            // beyond not failing
                            assert!(all.len() <= KEYS as usize);
                        }
                        scans += 1;
                    }
                    scans
                })
            })
            .collect();
        for t in 1..=100u64 {
            let value = t.to_string();
            let entries: Vec<(Vec<u8>, Vec<u8>)> =
                (0..KEYS).map(|k| (format!("key-{k:04}").into_bytes(), value.clone().into_bytes())).collect();
            // one put_all: the uncommitted view changes in one step too
            db.put_all(entries.iter().map(|(k, v)| (k.as_slice(), Some(v.as_slice())))).unwrap();
            db.commit(&[(tp(), Some(t as i64))], None).unwrap();
        }
        stop.store(true, Ordering::Relaxed);
        let scans: Vec<u64> = readers.into_iter().map(|r| r.join().unwrap()).collect();
        assert!(scans.iter().all(|&s| s > 10), "{strategy:?}: readers hardly ran: {scans:?}");
        let all = db.range(Range { committed_only: true, ..Range::all() }).unwrap().collect_all().unwrap();
        assert_eq!(uniform(&all).unwrap(), Some(100));
    }
}
