//! Times a restore from a snapshot on a `file://` location (the engine's part of a task landing on
//! a new host, beside `bench/e2e.sh`'s new-host runs), to see where its time goes:
//!
//!     target/release/examples/snapshot_restore <dir> [keys] [rounds]
//!
//! Restores `keys` (10,000,000) keys of 16 B with 8 B values (the e2e word count's state) into a
//! store under `<dir>/store` and snapshots it to `<dir>/objects` (once; kept for later runs), then
//! restores the snapshot into a new directory `rounds` (3) times, dropping the page cache's copy of
//! nothing (the objects are as warm as a just-written location would be), and prints each round:
//! the download (files fetched, each checksummed and synced) and the store's open on it.

mod common;

use common::key;
use std::path::Path;
use std::time::Instant;
use txn_rocksdb::snapshot::{self, Changelog, Location, RestoreBudget};
use txn_rocksdb::RowLayout;
use txn_rocksdb::{KeyValueStore, StoreOptions, TopicPartition};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = Path::new(&args[1]);
    let keys: u64 = args.get(2).map_or(10_000_000, |n| n.parse().unwrap());
    let rounds: u64 = args.get(3).map_or(3, |n| n.parse().unwrap());
    let tp = TopicPartition { topic: "changelog".into(), partition: 0 };
    let objects = dir.join("objects");
    std::fs::create_dir_all(&objects).unwrap();
    let location = Location::parse(&format!("file://{}", objects.display()), &[]).unwrap();
    if !dir.join("store").exists() {
        let store = KeyValueStore::open(dir.join("store"), StoreOptions::default()).unwrap();
        let started = Instant::now();
        let mut batch: Vec<([u8; 16], [u8; 8])> = Vec::with_capacity(10_000);
        for i in 0..keys {
            batch.push((key(i), (i % 1000 + 1).to_be_bytes()));
            if batch.len() == 10_000 || i + 1 == keys {
                store.restore(batch.iter().map(|(k, v)| (&k[..], Some(&v[..])))).unwrap();
                batch.clear();
                store.commit(&[(tp.clone(), Some(i as i64))], None).unwrap();
            }
        }
        eprintln!("restored {keys} keys in {:.1} s", started.elapsed().as_secs_f64());
        let started = Instant::now();
        let taken = snapshot::take(&store, &location, "s").unwrap();
        eprintln!(
            "snapshot {} taken in {:.1} s: {} files, {:.1} MB",
            taken.seq,
            started.elapsed().as_secs_f64(),
            taken.files,
            taken.bytes_uploaded as f64 / 1e6
        );
    }
    let changelog = Changelog { partition: tp, start: 0, end: i64::MAX };
    for round in 0..rounds {
        let target = dir.join(format!("restored-{round}"));
        let _ = std::fs::remove_dir_all(&target);
        let started = Instant::now();
        let restored =
            snapshot::restore_newest(&location, "s", &target, &changelog, RowLayout::Plain, RestoreBudget::default())
                .unwrap()
                .unwrap();
        let download = started.elapsed();
        let bytes: u64 = restored.manifest.files.iter().map(|f| f.size).sum();
        let opened = Instant::now();
        let store = KeyValueStore::open(&target, StoreOptions::default()).unwrap();
        let open = opened.elapsed();
        assert_eq!(store.committed_offsets().unwrap(), restored.offsets);
        drop(store);
        eprintln!(
            "round {round}: downloaded {} files, {:.1} MB in {:.2} s ({:.0} MB/s), opened in {:.2} s",
            restored.manifest.files.len(),
            bytes as f64 / 1e6,
            download.as_secs_f64(),
            bytes as f64 / 1e6 / download.as_secs_f64(),
            open.as_secs_f64()
        );
        std::fs::remove_dir_all(&target).unwrap();
    }
}
