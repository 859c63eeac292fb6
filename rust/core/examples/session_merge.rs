//! Kafka's session aggregation (`KStreamSessionWindowAggregate`) on the engine's session store, as
//! `bench/e2e.sh`'s throughput app drives it: for each record, `findSessions(key, ts - gap,
//! ts + gap)`, every session found removed and the merged one put; a commit every
//! `records per commit` records. The input is `WordInput`'s: one record every 20 ms of event time,
//! a quarter of them on 10 hot words and the rest spread over 300, split by key over two stores (the
//! app's two partitions); gap 5 s, grace 5 min (retention 305 s, Kafka's default segments).
//!
//!     cargo run --release --example session_merge -- [records] [records per commit]
//!
//! Prints, per 100,000 records, the CPU time per record (this thread's), the sessions found per
//! record and RocksDB's perf counters (entries skipped, memtable seeks and nexts): the engine's part
//! of the e2e app's session aggregation (`docs/profiles.md`, "End to end").

#[path = "common/cpu.rs"]
mod cpu;

use cpu::thread_cpu_ticks;
use std::time::Instant;
use txn_rocksdb::segmented::SegmentOptions;
use txn_rocksdb::session::{split_store_key, SessionQuery, SessionStore};
use txn_rocksdb::{StoreOptions, TopicPartition};

const WORDS: u64 = 300;
const STEP_MS: i64 = 20;
const GAP_MS: i64 = 5_000;
const GRACE_MS: i64 = 300_000;

/// xorshift64*: the input only needs WordInput's distribution, not its exact sequence.
struct Rng(u64);
impl Rng {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) % bound
    }
}

fn main() {
    env_logger::init();
    let args: Vec<String> = std::env::args().collect();
    let records: u64 = args.get(1).map_or(1_000_000, |a| a.parse().unwrap());
    let per_commit: u64 = args.get(2).map_or(650, |a| a.parse().unwrap());
    let dir = tempfile_dir();
    let retention = GAP_MS + GRACE_MS;
    // Kafka's default interval for this retention, max(retention / 2, 60 s), as Java's supplier sets it
    let geometry = SegmentOptions { retention_ms: retention, segment_interval_ms: 152_500 };
    let stores: Vec<SessionStore> = (0..2)
        .map(|p| SessionStore::open(dir.join(format!("p{p}")), StoreOptions::default(), geometry).unwrap())
        .collect();
    let tp = TopicPartition { topic: "input".into(), partition: 0 };
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let t0: i64 = 1_700_000_000_000;
    let (mut ticks, mut wall, mut found) = (thread_cpu_ticks(), Instant::now(), 0u64);
    let tick_us = 1e6 / 100.0; // USER_HZ
    rust_rocksdb::perf::set_perf_stats(rust_rocksdb::perf::PerfStatsLevel::EnableCount);
    let mut perf = rust_rocksdb::perf::PerfContext::default();
    for i in 0..records {
        let word = if rng.next(4) == 0 { rng.next(10) } else { rng.next(WORDS) };
        let key = format!("word-{word}").into_bytes();
        let store = &stores[(word % 2) as usize];
        let ts = t0 + i as i64 * STEP_MS;
        let query = SessionQuery {
            key_from: Some(key.clone()),
            key_to: Some(key.clone()),
            earliest_end: ts - GAP_MS,
            latest_start: ts + GAP_MS,
            ..SessionQuery::default()
        };
        let sessions = store.find_sessions(query).collect_all().unwrap();
        found += sessions.len() as u64;
        let (mut start, mut end, mut count) = (ts, ts, 0u64);
        for (store_key, value) in &sessions {
            let (_, s, e) = split_store_key(store_key).unwrap();
            start = start.min(s);
            end = end.max(e);
            count += u64::from_be_bytes(value[..8].try_into().unwrap());
        }
        if (start, end) != (ts, ts) {
            for (store_key, _) in &sessions {
                let (_, s, e) = split_store_key(store_key).unwrap();
                store.remove(&key, s, e).unwrap();
            }
        }
        store.put(&key, start, end, Some(&(count + 1).to_be_bytes())).unwrap();
        if (i + 1) % per_commit == 0 {
            for store in &stores {
                store.segments().key_value().commit(&[(tp.clone(), Some(i as i64))], None).unwrap();
            }
        }
        if (i + 1) % 100_000 == 0 {
            let now = thread_cpu_ticks();
            println!(
                "records {:>9}: {:6.2} us CPU per record, {:6.2} us wall, {:.2} sessions found per record",
                i + 1,
                (now - ticks) as f64 * tick_us / 100_000.0,
                wall.elapsed().as_secs_f64() * 1e6 / 100_000.0,
                found as f64 / 100_000.0
            );
            (ticks, wall, found) = (now, Instant::now(), 0);
            use rust_rocksdb::perf::PerfMetric::*;
            let per_record = |metric| perf.metric(metric) as f64 / 100_000.0;
            println!(
                "    per record, RocksDB: {:.1} deleted and {:.1} overwritten entries skipped, {:.1} memtable seeks, {:.1} memtable nexts",
                per_record(InternalDeleteSkippedCount),
                per_record(InternalKeySkippedCount),
                per_record(SeekOnMemtableCount),
                per_record(NextOnMemtableCount)
            );
            perf.reset();
        }
    }
    drop(stores);
    let _ = std::fs::remove_dir_all(&dir);
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("session_merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
