//! Measures the two ways to keep time segments inside ONE RocksDB instance (issue 3's choice):
//!
//! - `prefix`: one column family, keys `segment ++ key`, an expired segment dropped by one range
//!   delete written in the same atomic batch as a commit (what `segmented.rs` does);
//! - `cf`: one column family per segment, an expired segment dropped with `drop_cf` (a DDL call
//!   that cannot be part of a write batch).
//!
//! Run: `cargo run --release --example segment_layouts [entries_per_segment]`. Prints, per layout:
//! load time, the time to drop the oldest segment, then a full scan and random gets of the live
//! segments right after the drop (range tombstones not yet compacted away), and the same after a
//! manual compaction.

use rust_rocksdb::{ColumnFamilyDescriptor, Options, WriteBatch, DB};
use std::time::{Duration, Instant};

const SEGMENTS: u64 = 4;
const VALUE: [u8; 100] = [7; 100];

fn key(segment: u64, i: u64) -> Vec<u8> {
    // A 16-byte record key followed by a window suffix, as a window store writes.
    let mut k = Vec::with_capacity(36);
    k.extend_from_slice(&segment.to_be_bytes());
    k.extend_from_slice(&(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_be_bytes());
    k.extend_from_slice(&i.to_be_bytes());
    k.extend_from_slice(&(segment * 60_000).to_be_bytes());
    k.extend_from_slice(&0u32.to_be_bytes());
    k
}

/// Table settings as the engine's (`store.rs`): bloom filters, index/filter blocks in ONE block
/// cache shared by every column family (per-family caches would favour the `cf` layout).
fn opts() -> Options {
    static CACHE: std::sync::OnceLock<rust_rocksdb::Cache> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(|| rust_rocksdb::Cache::new_lru_cache(64 << 20));
    let mut table = rust_rocksdb::BlockBasedOptions::default();
    table.set_block_cache(cache);
    table.set_bloom_filter(10.0, false);
    table.set_cache_index_and_filter_blocks(true);
    table.set_pin_l0_filter_and_index_blocks_in_cache(true);
    let mut o = Options::default();
    o.set_block_based_table_factory(&table);
    o.create_if_missing(true);
    o.create_missing_column_families(true);
    o.set_compression_type(rust_rocksdb::DBCompressionType::Lz4);
    o
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

struct Reads {
    scan: Duration,
    scanned: u64,
    gets: Duration,
}

fn reads<'a>(
    db: &'a DB,
    cf: &dyn Fn(u64) -> Option<&'a rust_rocksdb::ColumnFamily>,
    per_segment: u64,
    prefixed: bool,
) -> Reads {
    let start = Instant::now();
    let mut scanned = 0;
    for s in 1..SEGMENTS {
        let mut it = match cf(s) {
            Some(h) => db.raw_iterator_cf(h),
            None => db.raw_iterator(),
        };
        if prefixed {
            it.seek(s.to_be_bytes());
        } else {
            it.seek_to_first();
        }
        while let Some(k) = it.key() {
            if prefixed && k[..8] != s.to_be_bytes() {
                break;
            }
            scanned += 1;
            it.next();
        }
    }
    let scan = start.elapsed();
    let start = Instant::now();
    let mut x = 12345u64;
    for _ in 0..100_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let s = 1 + x % (SEGMENTS - 1);
        let i = (x >> 20) % per_segment;
        let v = match cf(s) {
            Some(h) => db.get_pinned_cf(h, key(s, i)),
            None => db.get_pinned(key(s, i)),
        };
        assert!(v.unwrap().is_some());
    }
    Reads { scan, scanned, gets: start.elapsed() }
}

fn load<'a>(db: &'a DB, cf: &dyn Fn(u64) -> Option<&'a rust_rocksdb::ColumnFamily>, per_segment: u64) -> Duration {
    let start = Instant::now();
    for s in 0..SEGMENTS {
        let mut wb = WriteBatch::default();
        for i in 0..per_segment {
            match cf(s) {
                Some(h) => wb.put_cf(h, key(s, i), VALUE),
                None => wb.put(key(s, i), VALUE),
            }
            if wb.len() == 10_000 {
                db.write(&wb).unwrap();
                wb = WriteBatch::default();
            }
        }
        db.write(&wb).unwrap();
    }
    start.elapsed()
}

fn report(layout: &str, load: Duration, drop: Duration, after: Reads, compacted: Reads) {
    println!(
        "{layout:>6}: load {:>10}  drop oldest segment {:>9}  | right after: scan {} entries {:>9}, 100k gets {:>9} | after compaction: scan {:>9}, gets {:>9}",
        ms(load), ms(drop), after.scanned, ms(after.scan), ms(after.gets), ms(compacted.scan), ms(compacted.gets)
    );
}

fn main() {
    env_logger::init(); // RUST_LOG=debug shows what the engine logs
    let per_segment: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200_000);
    println!("{SEGMENTS} segments x {per_segment} entries (36-byte keys, 100-byte values)");

    let dir = tempfile::tempdir().unwrap();
    let db = DB::open(&opts(), dir.path()).unwrap();
    let none = |_: u64| None;
    let loaded = load(&db, &none, per_segment);
    db.flush().unwrap();
    let start = Instant::now();
    let mut wb = WriteBatch::default();
    wb.delete_range(0u64.to_be_bytes(), 1u64.to_be_bytes());
    wb.put(b"commit-marker", b"offset");
    db.write(&wb).unwrap();
    let dropped = start.elapsed();
    let after = reads(&db, &none, per_segment, true);
    db.compact_range::<&[u8], &[u8]>(None, None);
    let compacted = reads(&db, &none, per_segment, true);
    report("prefix", loaded, dropped, after, compacted);
    drop(db);

    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..SEGMENTS).map(|s| format!("segment-{s}")).collect();
    let cfs = names.iter().map(|n| ColumnFamilyDescriptor::new(n, opts()));
    let mut db = DB::open_cf_descriptors(&opts(), dir.path(), cfs).unwrap();
    let loaded = {
        let handle = |s: u64| db.cf_handle(&format!("segment-{s}"));
        load(&db, &handle, per_segment)
    };
    for n in &names {
        db.flush_cf(db.cf_handle(n).unwrap()).unwrap();
    }
    let start = Instant::now();
    db.drop_cf("segment-0").unwrap();
    db.put(b"commit-marker", b"offset").unwrap();
    let dropped = start.elapsed();
    let handle = |s: u64| db.cf_handle(&format!("segment-{s}"));
    let after = reads(&db, &handle, per_segment, false);
    for n in &names[1..] {
        db.compact_range_cf::<&[u8], &[u8]>(db.cf_handle(n).unwrap(), None, None);
    }
    let compacted = reads(&db, &handle, per_segment, false);
    report("cf", loaded, dropped, after, compacted);
}
