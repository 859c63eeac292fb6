//! Compares the two transaction strategies on a Kafka-like workload, in one run:
//!
//! - `load+commit`: 200,000 puts (16-byte keys, 100-byte values), a commit every 1,000 writes (the
//!   size of a busy task's 100 ms exactly-once commit), so most of the time a small transaction
//!   is staged over a growing committed store;
//! - `get`: 200,000 random gets with 500 writes staged;
//! - `range`: 2,000 scans of 1,000 consecutive entries with 500 writes staged;
//! - `full scan`: every entry, with 500 writes staged;
//! - `big commit`: one transaction of 200,000 puts, then its commit.
//!
//! Run: `cargo run --release --example strategies [entries]`. Prints operations per second per
//! strategy and the ratio secondary-store / indexed-batch.

use std::time::Instant;
use txn_rocksdb::{KeyValueStore, Range, StoreOptions, Strategy, TopicPartition};

const VALUE: [u8; 100] = [7; 100];
const COMMIT_EVERY: u64 = 1_000;

fn key(i: u64) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_be_bytes());
    k[8..].copy_from_slice(&i.to_be_bytes());
    k
}

fn tp() -> TopicPartition {
    TopicPartition { topic: "bench-changelog".into(), partition: 0 }
}

fn rate(ops: u64, since: Instant) -> f64 {
    ops as f64 / since.elapsed().as_secs_f64()
}

fn stage_some(db: &KeyValueStore, n: u64, base: u64) {
    for i in 0..500 {
        db.put(&key(base + i * 7 % n), Some(&VALUE)).unwrap();
    }
}

fn measure(strategy: Strategy, n: u64) -> Vec<(&'static str, f64)> {
    let dir = tempfile::tempdir().unwrap();
    let db = KeyValueStore::open(dir.path(), StoreOptions { strategy, ..StoreOptions::default() }).unwrap();
    let mut out = Vec::new();

    let t = Instant::now();
    for i in 0..n {
        db.put(&key(i), Some(&VALUE)).unwrap();
        if (i + 1) % COMMIT_EVERY == 0 {
            db.commit(&[(tp(), Some(i as i64))], None).unwrap();
        }
    }
    db.commit(&[(tp(), Some(n as i64))], None).unwrap();
    out.push(("load+commit (puts/s)", rate(n, t)));

    stage_some(&db, n, 0);
    let t = Instant::now();
    let mut found = 0u64;
    for i in 0..n {
        let k = key(i.wrapping_mul(7919) % n);
        found += db.get_with(&k, false, |v| v.is_some() as u64).unwrap();
    }
    assert_eq!(found, n);
    out.push(("get (gets/s)", rate(n, t)));

    // scans over the sorted key space: start at the i-th smallest key's neighbourhood
    let t = Instant::now();
    let scans = 2_000u64;
    for s in 0..scans {
        let from = key(s * 97 % n).to_vec();
        let mut it = db.range(Range { from: Some(from), ..Range::all() }).unwrap();
        let mut left = 1_000usize;
        while left > 0 {
            let got = it.next_chunk(left.min(256), usize::MAX, |_, _| {}).unwrap();
            if got == 0 {
                break;
            }
            left -= got;
        }
    }
    out.push(("range of 1,000 (scans/s)", rate(scans, t)));

    let t = Instant::now();
    let mut count = 0u64;
    let mut it = db.range(Range::all()).unwrap();
    while it.next_chunk(256, 1 << 20, |_, _| count += 1).unwrap() > 0 {}
    assert_eq!(count, n);
    out.push(("full scan (entries/s)", rate(count, t)));
    db.rollback().unwrap();

    let t = Instant::now();
    for i in 0..n {
        db.put(&key(n + i), Some(&VALUE)).unwrap();
    }
    let staged = t.elapsed();
    let c = Instant::now();
    db.commit(&[(tp(), Some(2 * n as i64))], None).unwrap();
    out.push(("big txn: puts/s", n as f64 / staged.as_secs_f64()));
    out.push(("big txn: commit ms", c.elapsed().as_secs_f64() * 1000.0));
    out
}

fn main() {
    env_logger::init(); // RUST_LOG=debug shows what the engine logs
    let n: u64 = std::env::args().nth(1).map(|s| s.parse().expect("entries")).unwrap_or(200_000);
    let indexed = measure(Strategy::IndexedBatch, n);
    let secondary = measure(Strategy::SecondaryStore, n);
    println!("{n} entries, 16-byte keys, 100-byte values, commit every {COMMIT_EVERY} writes");
    println!("{:<28} {:>16} {:>16} {:>10}", "", "indexed-batch", "secondary-store", "ratio");
    for ((name, a), (_, b)) in indexed.iter().zip(&secondary) {
        println!("{name:<28} {a:>16.0} {b:>16.0} {:>9.2}x", b / a);
    }
}
