//! Puts of 1 KiB values on the engine alone, as `bench/`'s JMH `PutBenchmark` does them (random keys
//! among 1,000,000, a commit every 100 puts, into a fresh store): puts per second over the run and
//! in each second, the bytes the process had written to disk per put (`/proc/self/io`), and why
//! RocksDB held writes back (its LOG's "Stalling/Stopping writes because ..." lines, counted).
//! For comparing compaction styles and other RocksDB options (`docs/profiles.md`, "Puts of 1 KiB
//! values").
//!
//!     cargo run --release --example put_rate -- [seconds] [value bytes] [commit every]
//!
//! `TXN_TUNING` adds RocksDB options to the store, as `txn.rocksdb.options` would, e.g.
//! `TXN_TUNING='compaction_style=kCompactionStyleLevel'` (the engine's default before 2026-12-02).

#[path = "common/tuning.rs"]
mod tuning;

use std::collections::BTreeMap;
use std::time::Instant;
use tuning::tuning_from_env;
use txn_rocksdb::stats::Stat;
use txn_rocksdb::{KeyValueStore, StoreOptions, TopicPartition};

const KEYS: u64 = 1_000_000;

/// Bytes this process has caused to be written to storage (Linux), or 0 where unknown.
fn disk_bytes_written() -> u64 {
    let io = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
    io.lines().find_map(|line| line.strip_prefix("write_bytes: ")).and_then(|n| n.trim().parse().ok()).unwrap_or(0)
}

/// Counts the reasons in RocksDB's LOG files for holding writes back.
fn stalls(dir: &std::path::Path) -> BTreeMap<String, u32> {
    let mut reasons = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.file_name().unwrap().to_string_lossy().starts_with("LOG") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap_or_default().lines() {
            if let Some(at) = line.find("writes because") {
                // "... because we have 3 immutable memtables ...": the reason without its count.
                let reason: String = line[at..].chars().filter(|c| !c.is_ascii_digit()).take(70).collect();
                *reasons.entry(reason).or_insert(0) += 1;
            }
        }
    }
    reasons
}

fn main() {
    let arg = |i: usize, default: u64| std::env::args().nth(i).map(|s| s.parse().expect("a number")).unwrap_or(default);
    let (seconds, value_bytes, commit_every) = (arg(1, 12), arg(2, 1024), arg(3, 100));
    let (tuning_text, tuning) = tuning_from_env();
    let dir = tempfile::tempdir().unwrap();
    let store = KeyValueStore::open(dir.path(), StoreOptions { tuning, ..StoreOptions::default() }).unwrap();
    let tp = TopicPartition { topic: "put-rate-changelog".into(), partition: 0 };
    let mut random = 42u64;
    let mut next = || {
        random = random.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        random >> 33
    };
    // One value of random bytes for every put, as the JMH benchmark's.
    let value: Vec<u8> = (0..value_bytes).map(|_| next() as u8).collect();
    let disk_before = disk_bytes_written();
    let start = Instant::now();
    let (mut second, mut puts, mut puts_this_second, mut per_second) = (Instant::now(), 0u64, 0u64, Vec::new());
    while start.elapsed().as_secs() < seconds {
        let mut key = [0u8; 16];
        key[8..].copy_from_slice(&(next() % KEYS).to_be_bytes());
        store.put(&key, Some(&value)).unwrap();
        puts += 1;
        puts_this_second += 1;
        if puts % commit_every == 0 {
            store.commit(&[(tp.clone(), Some(puts as i64))], None).unwrap();
        }
        if second.elapsed().as_secs_f64() >= 1.0 {
            per_second.push(format!("{:.0}", puts_this_second as f64 / second.elapsed().as_secs_f64()));
            (second, puts_this_second) = (Instant::now(), 0);
        }
    }
    let rate = puts as f64 / start.elapsed().as_secs_f64();
    let disk = disk_bytes_written().saturating_sub(disk_before);
    let sst_bytes = store.stats()[Stat::LiveSstFilesSize as usize];
    let distinct = KEYS.min(puts);
    drop(store);
    println!(
        "tuning='{tuning_text}' puts/s={rate:.0} disk-bytes/put={:.0} SST MiB at the end={} (keys written {:.0}%) per second: {}",
        disk as f64 / puts as f64,
        sst_bytes >> 20,
        100.0 * (1.0 - (-(puts as f64) / distinct as f64).exp()),
        per_second.join(" ")
    );
    println!("  writes held back: {:?}", stalls(dir.path()));
}
