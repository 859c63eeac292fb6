//! How long an expiry pass of a store with a time-to-live takes as the deletes of earlier passes
//! pile up in RocksDB (as tombstones, until a compaction drops them): N keys one ms apart with a
//! TTL of N ms, then N / 10,000 commits each writing 10,000 new keys and expiring 10,000 old ones.
//! A pass that walked the index from its start would slow down pass after pass (measured before
//! the index walk started past its deleted rows: 63 ms for the first pass of 10,000 keys, 181 ms
//! for the 200th, at N = 2x10^6); it should stay flat.
//!
//!     cargo run --release -p txn-rocksdb --example expiry_passes [N, default 2000000]
use std::time::Instant;
use txn_rocksdb::ttl::{TimeBasis, TtlOptions, TtlStore};
use txn_rocksdb::{StoreOptions, TopicPartition};

fn main() {
    let n: i64 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(2_000_000);
    let dir = tempfile::tempdir().unwrap();
    let ttl = TtlOptions { ttl_ms: n, basis: TimeBasis::Stream };
    let store = TtlStore::open(dir.path(), StoreOptions { ttl: Some(ttl), ..StoreOptions::default() }).unwrap();
    let tp = TopicPartition { topic: "c".into(), partition: 0 };
    let value = [7u8; 8];
    let mut offset = 0i64;
    // fill: one key per ms of time
    for i in 0..n {
        store.put(format!("id-{i}").as_bytes(), Some(&value), i).unwrap();
        if i % 10_000 == 9_999 {
            offset += 1;
            store.commit(&[(tp.clone(), Some(offset))], None).unwrap();
        }
    }
    // steady: each commit writes 10,000 new keys and expires what fell out
    let t0 = Instant::now();
    let mut pass_ms = Vec::new();
    for round in 0..(n / 10_000) {
        for j in 0..10_000 {
            let i = n + round * 10_000 + j;
            store.put(format!("id-{i}").as_bytes(), Some(&value), i).unwrap();
        }
        let t = Instant::now();
        let expired = store.expire(10_000).unwrap();
        pass_ms.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(expired.keys.len() >= 9_999, "{}", expired.keys.len());
        offset += 1;
        store.commit(&[(tp.clone(), Some(offset))], None).unwrap();
    }
    let k = pass_ms.len();
    println!(
        "{n} keys: {} steady rounds in {:.1} s; expiry pass ms: first {:.1}, at 25% {:.1}, 50% {:.1}, 75% {:.1}, last {:.1}",
        k,
        t0.elapsed().as_secs_f64(),
        pass_ms[0],
        pass_ms[k / 4],
        pass_ms[k / 2],
        pass_ms[3 * k / 4],
        pass_ms[k - 1]
    );
}
