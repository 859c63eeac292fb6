//! Gets on a large restored state, restored by ingestion or through the memtable (`bench/`'s
//! `LargeStateBenchmark` on the engine alone, to compare the two layouts):
//!
//!     target/release/examples/large_get <ingest|memtable> <dir> [keys] [rounds]
//!
//! Restores `keys` (3,000,000) keys of 16 B with 100 B random values in key order, in batches of
//! 1,000 with offsets committed every 10,000, closes and reopens the store, waits until its files
//! stop changing, then times rounds of 1,000,000 gets of random keys and prints each round's rate.

mod common;

use common::{key, Rng};
use std::time::{Duration, Instant};
use txn_rocksdb::{KeyValueStore, StoreOptions, TopicPartition};

fn files(dir: &std::path::Path) -> Vec<(String, u64)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.metadata().ok()?.len())))
        .filter(|(n, _)| n.ends_with(".sst"))
        .collect();
    files.sort();
    files
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map_or("ingest", String::as_str).to_owned();
    let dir = std::path::PathBuf::from(&args[2]);
    let keys: u64 = args.get(3).map_or(3_000_000, |n| n.parse().unwrap());
    let rounds: u64 = args.get(4).map_or(3, |n| n.parse().unwrap());
    let tp = TopicPartition { topic: "changelog".into(), partition: 0 };
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    if !dir.exists() {
        let store = KeyValueStore::open(&dir, StoreOptions::default()).unwrap();
        let started = Instant::now();
        let mut batch: Vec<([u8; 16], [u8; 100])> = Vec::with_capacity(1000);
        for i in 0..keys {
            let mut value = [0u8; 100];
            for chunk in value.chunks_mut(8) {
                chunk.copy_from_slice(&rng.next().to_le_bytes()[..chunk.len()]);
            }
            batch.push((key(i), value));
            if batch.len() == 1000 || i + 1 == keys {
                let records = batch.iter().map(|(k, v)| (&k[..], Some(&v[..])));
                if mode == "ingest" {
                    store.restore(records).unwrap();
                } else {
                    store.restore_writes(records.map(txn_rocksdb::Write::from)).unwrap();
                }
                batch.clear();
            }
            if (i + 1) % 10_000 == 0 || i + 1 == keys {
                store.commit(&[(tp.clone(), Some(i as i64))], None).unwrap();
            }
        }
        eprintln!("{mode}: restored {keys} keys in {:.1} s", started.elapsed().as_secs_f64());
        drop(store);
    }
    let store = KeyValueStore::open(&dir, StoreOptions::default()).unwrap();
    let mut last = files(&dir);
    let mut quiet = Instant::now();
    while quiet.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(500));
        let now = files(&dir);
        if now != last {
            last = now;
            quiet = Instant::now();
        }
    }
    let total: u64 = last.iter().map(|f| f.1).sum();
    eprintln!(
        "{mode}: {} sst files, {:.1} MB: {:?}",
        last.len(),
        total as f64 / 1e6,
        last.iter().map(|f| f.1 / 1_000_000).collect::<Vec<_>>()
    );
    for round in 0..rounds {
        let started = Instant::now();
        let mut found = 0u64;
        for _ in 0..1_000_000 {
            found += store.get(&key(rng.next() % keys), false).unwrap().map_or(0, |v| v.len() as u64);
        }
        assert_eq!(found, 100_000_000);
        eprintln!("{mode}: round {round}: {:.0} gets/s", 1e6 / started.elapsed().as_secs_f64());
    }
}
