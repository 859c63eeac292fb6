//! Random point gets (hits) on a store of N committed keys (16 B keys, 100 B values), all in SST
//! files (the store is reopened after loading, which flushes what the WAL recovered, and the
//! compactions are let settle), with the default memory budget: the engine's point reads at any
//! state size, for comparing table layouts (`docs/profiles.md`, "Point gets at every state size").
//!
//!     cargo run --release --example point_gets -- <keys> [seconds per round] [as-loaded]
//!
//! `as-loaded` reads the store as the load left it (the last keys still in memtables, no reopen, no
//! settling), as a benchmark that loads then reads does (`bench/`'s JMH gets).
//!
//! `POINT_GETS_LOAD=restore` loads as a changelog restore does (`KeyValueStore::restore`, batches of
//! 1,000 of `bench/`'s keys in key order, pseudo-random values, offsets committed every 10,000), as `bench/`'s
//! `LargeStateBenchmark` does; the default loads with puts of random keys and constant values.
//!
//! `TXN_TUNING` adds RocksDB options to the store, as `txn.rocksdb.options` would, e.g.
//! `TXN_TUNING='block_based_table_factory={index_type=kBinarySearch;partition_filters=false}'`.

#[path = "common/cpu.rs"]
mod cpu;
#[path = "common/tuning.rs"]
mod tuning;

use cpu::thread_cpu_ticks;
use std::time::{Duration, Instant};
use tuning::tuning_from_env;
use txn_rocksdb::{KeyValueStore, StoreOptions, TopicPartition};

fn key(i: u64) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_be_bytes());
    key[8..].copy_from_slice(&i.to_be_bytes());
    key
}

/// The keys of `bench/` (`Keys.java`): a big-endian index then 8 fixed bytes, so they sort by index.
fn ordered_key(i: u64) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&i.to_be_bytes());
    key[8..].copy_from_slice(&0x5EED_5EED_5EED_5EEDu64.to_be_bytes());
    key
}

fn main() {
    env_logger::init(); // RUST_LOG=debug shows what the engine logs
    let args: Vec<String> = std::env::args().collect();
    let keys: u64 = args.get(1).map_or(100_000, |a| a.parse().unwrap());
    let seconds: u64 = args.get(2).map_or(5, |a| a.parse().unwrap());
    let as_loaded = match args.get(3).map(String::as_str) {
        None | Some("settled") => false,
        Some("as-loaded") => true,
        Some(other) => panic!("layout '{other}': expected settled or as-loaded"),
    };
    let restore = std::env::var("POINT_GETS_LOAD").as_deref() == Ok("restore");
    let key: fn(u64) -> [u8; 16] = if restore { ordered_key } else { key };
    let (tuning_text, tuning) = tuning_from_env();
    let dir = tempfile::tempdir().unwrap();
    let options = StoreOptions { tuning, ..StoreOptions::default() };
    let tp = TopicPartition { topic: "c".into(), partition: 0 };
    let loaded = {
        let store = KeyValueStore::open(dir.path(), options.clone()).unwrap();
        let started = Instant::now();
        if restore {
            let mut sequence = 0x2545_F491_4F6C_DD1Du64;
            let mut value = [0u8; 100];
            for first in (0..keys).step_by(1_000) {
                let batch: Vec<([u8; 16], [u8; 100])> = (first..(first + 1_000).min(keys))
                    .map(|i| {
                        for chunk in value.chunks_mut(8) {
                            sequence ^= sequence << 13;
                            sequence ^= sequence >> 7;
                            sequence ^= sequence << 17;
                            chunk.copy_from_slice(&sequence.to_le_bytes()[..chunk.len()]);
                        }
                        (key(i), value)
                    })
                    .collect();
                store.restore(batch.iter().map(|(k, v)| (&k[..], Some(&v[..])))).unwrap();
                if (first + 1_000) % 10_000 == 0 {
                    store.commit(&[(tp.clone(), Some(first as i64))], None).unwrap();
                }
            }
        } else {
            for i in 0..keys {
                store.put(&key(i), Some(&[7u8; 100])).unwrap();
                if (i + 1) % 10_000 == 0 {
                    store.commit(&[(tp.clone(), Some(i as i64))], None).unwrap();
                }
            }
        }
        store.commit(&[(tp.clone(), Some(keys as i64))], None).unwrap();
        eprintln!("loaded {keys} keys in {:?}", started.elapsed());
        store
    };
    let store = if as_loaded {
        loaded
    } else {
        drop(loaded);
        KeyValueStore::open(dir.path(), options).unwrap()
    };
    let mut x = 88172645463325252u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % keys
    };
    // let the compactions the load started settle, so every variant reads the same shape of tree
    // (as loaded: read the tree as the load left it)
    let settle = Instant::now();
    let settled = |store: &KeyValueStore| {
        let stats = store.stats();
        let busy = stats[txn_rocksdb::stats::Stat::NumRunningCompactions as usize] > 0
            || stats[txn_rocksdb::stats::Stat::NumRunningFlushes as usize] > 0
            || stats[txn_rocksdb::stats::Stat::EstimatePendingCompactionBytes as usize] > 0;
        !busy || settle.elapsed() > Duration::from_secs(120)
    };
    while !as_loaded && !settled(&store) {
        std::thread::sleep(Duration::from_millis(200));
    }
    let ssts: Vec<u64> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "sst"))
        .map(|e| e.metadata().unwrap().len())
        .collect();
    eprintln!("settled in {:?}: {} SST files, {} MB", settle.elapsed(), ssts.len(), ssts.iter().sum::<u64>() >> 20);
    // warm up
    let warm = Instant::now();
    while warm.elapsed() < Duration::from_secs(2) {
        for _ in 0..1000 {
            store.get_with(&key(next()), false, |v| assert!(v.is_some())).unwrap();
        }
    }
    for round in 0..4 {
        let started = Instant::now();
        let cpu_started = thread_cpu_ticks();
        let mut gets = 0u64;
        while started.elapsed() < Duration::from_secs(seconds) {
            for _ in 0..1000 {
                store.get_with(&key(next()), false, |v| assert!(v.is_some())).unwrap();
            }
            gets += 1000;
        }
        let rate = gets as f64 / started.elapsed().as_secs_f64();
        let cpu_seconds = (thread_cpu_ticks() - cpu_started) as f64 / 100.0; // USER_HZ
        let cpu_rate = gets as f64 / cpu_seconds.max(0.01);
        let layout = if as_loaded { "as-loaded" } else { "settled" };
        println!("keys={keys} layout={layout} round={round} gets/s={rate:.0} gets/cpu-s={cpu_rate:.0} tuning='{tuning_text}'");
    }
    let stats = store.stats();
    let mib = |stat: txn_rocksdb::stats::Stat| stats[stat as usize] as f64 / (1 << 20) as f64;
    eprintln!(
        "block cache: {:.1} MiB in use, {:.1} MiB of it pinned (index and filter blocks), capacity {:.0} MiB",
        mib(txn_rocksdb::stats::Stat::BlockCacheUsage),
        mib(txn_rocksdb::stats::Stat::BlockCachePinnedUsage),
        mib(txn_rocksdb::stats::Stat::BlockCacheCapacity)
    );
}
