//! The engine alone, without a JVM: the operations of `bench/` (JMH) on the Rust API, on the same
//! data, so the cost of the Java path (JNI, Kafka's store interfaces) shows as the ratio between
//! the two ("Java path vs the engine alone" in docs/benchmarks.md).
//!
//! Run: `cargo bench --workspace --bench engine` (criterion's report in
//! `$CARGO_TARGET_DIR/criterion`, or `$CRITERION_HOME`). `bench/run.sh` runs it after the JMH
//! benchmarks, on their data, and puts the ratios in the report.
//!
//! Benchmarks are named `<JMH method>/<strategy>/<JMH parameters>`, e.g. `get/indexed-batch/staged=5000`
//! for `ReadBenchmark.get` with `staged=5000`; one iteration is one JMH operation (a restore
//! iteration is one batch, its criterion throughput the records in it).
//!
//! The data are the JMH benchmarks' (`bench/src/main/java/dev/txnrocksdb/bench/{Sizes,Keys}.java`):
//! 16-byte keys that sort by index, pseudo-random (incompressible) 100-byte values, 100,000
//! committed keys loaded in order and committed every 10,000; "staged" = uncommitted overwrites
//! of evenly spaced keys among the first 10,000 (5,000: every second one); ranges of `length`
//! keys from a random start among those 10,000; puts, restores and commits of keys drawn from
//! 1,000,000; restores in batches of 1,000, offsets committed every 10,000 records. Environment
//! variables change them as the JMH run's system properties and parameters do (`bench/run.sh`
//! sets them from the JMH run it follows), a list being comma-separated:
//!
//! | variable | JMH | default |
//! | --- | --- | --- |
//! | `TXN_ROCKSDB_BENCH_KEYS` | `bench.keys` | 100000 |
//! | `TXN_ROCKSDB_BENCH_HOT_KEYS` | `bench.hotKeys` | 10000 |
//! | `TXN_ROCKSDB_BENCH_FULL_SCAN_KEYS` | `bench.fullScanKeys` | 100000 |
//! | `TXN_ROCKSDB_BENCH_PUT_KEYS` | `bench.putKeys` | 1000000 |
//! | `TXN_ROCKSDB_BENCH_STAGED` | `@Param staged` | 0,5000 |
//! | `TXN_ROCKSDB_BENCH_LENGTH` | `@Param length` | 100,10000 |
//! | `TXN_ROCKSDB_BENCH_VALUE_SIZE` | `@Param valueSize` | 100,1024 |
//! | `TXN_ROCKSDB_BENCH_COMMIT_EVERY` | `@Param commitEvery` | 100,10000 |
//! | `TXN_ROCKSDB_BENCH_DIRTY_KEYS` | `@Param dirtyKeys` | 1000,10000,100000 |
//! | `TXN_ROCKSDB_BENCH_STRATEGIES` | `@Param store` `txn`, `txn-secondary` | indexed-batch,secondary-store |
//! | `TXN_ROCKSDB_BENCH_OPERATIONS` | the benchmarks run | put,get,getMiss,range,prefixScan,fullScan,restore,commit |
//!
//! (`OPERATIONS` also skips loading the stores of the operations left out, which a criterion
//! filter would not.)

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BatchSize, BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Duration;
use txn_rocksdb::{KeyValueStore, Range, StoreOptions, Strategy, TopicPartition};

/// Records per restore batch: `RestoreBenchmark.BATCH` (Kafka's max.poll.records default).
const RESTORE_BATCH: u64 = 1_000;
/// Writes between commits while loading, and records between restore commits: `Sizes.LOAD_COMMIT_INTERVAL`.
const LOAD_COMMIT_INTERVAL: u64 = 10_000;
/// Entries a prefix scan returns: `Keys.PREFIX_SPAN` (the keys sharing the first 7 of 8 index bytes).
const PREFIX_SPAN: u64 = 256;
/// Most entries one `next_chunk` hands over: the Java iterator's `NativeIterator.CHUNK_MAX_ENTRIES`.
const CHUNK_ENTRIES: usize = 256;
/// Most bytes one `next_chunk` hands over: the Java iterator's `NativeIterator.CHUNK_MAX_BYTES`.
const CHUNK_BYTES: usize = 1 << 20;
/// Value size of every benchmark but the puts': `Keys.VALUE_SIZE`.
const VALUE_SIZE: usize = 100;

/// The data of the benchmarks: the JMH run's sizes and parameters (see the module docs).
struct Data {
    keys: u64,
    hot_keys: u64,
    full_scan_keys: u64,
    put_keys: u64,
    staged: Vec<u64>,
    lengths: Vec<u64>,
    value_sizes: Vec<u64>,
    commit_every: Vec<u64>,
    dirty_keys: Vec<u64>,
    strategies: Vec<Strategy>,
    operations: Vec<String>,
}

impl Data {
    /// Whether the operation (a criterion group name) is to run.
    fn runs(&self, operation: &str) -> bool {
        self.operations.iter().any(|o| o == operation)
    }
}

/// The data, read once from the environment.
fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        let keys = number("KEYS", 100_000);
        Data {
            keys,
            hot_keys: keys.min(number("HOT_KEYS", 10_000)),
            full_scan_keys: number("FULL_SCAN_KEYS", 100_000),
            put_keys: number("PUT_KEYS", 1_000_000),
            staged: list("STAGED", "0,5000").iter().map(|s| parse(s)).collect(),
            lengths: list("LENGTH", "100,10000").iter().map(|s| parse(s)).collect(),
            value_sizes: list("VALUE_SIZE", "100,1024").iter().map(|s| parse(s)).collect(),
            commit_every: list("COMMIT_EVERY", "100,10000").iter().map(|s| parse(s)).collect(),
            dirty_keys: list("DIRTY_KEYS", "1000,10000,100000").iter().map(|s| parse(s)).collect(),
            strategies: list("STRATEGIES", "indexed-batch,secondary-store")
                .iter()
                .map(|s| {
                    Strategy::parse(s).unwrap_or_else(|| {
                        panic!(
                            "TXN_ROCKSDB_BENCH_STRATEGIES: unknown strategy '{s}' (indexed-batch or secondary-store)"
                        )
                    })
                })
                .collect(),
            operations: list("OPERATIONS", "put,get,getMiss,range,prefixScan,fullScan,restore,commit"),
        }
    })
}

/// `TXN_ROCKSDB_BENCH_<name>` as a list (comma-separated), or `default`.
fn list(name: &str, default: &str) -> Vec<String> {
    let value = std::env::var(format!("TXN_ROCKSDB_BENCH_{name}")).unwrap_or_else(|_| default.to_string());
    value.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
}

/// `TXN_ROCKSDB_BENCH_<name>` as a number, or `default`.
fn number(name: &str, default: u64) -> u64 {
    std::env::var(format!("TXN_ROCKSDB_BENCH_{name}")).map_or(default, |s| parse(&s))
}

fn parse(number: &str) -> u64 {
    number.trim().parse().unwrap_or_else(|_| panic!("not a number: '{number}'"))
}

/// `Keys.sequential(i)`: a big-endian `i`, then 8 fixed bytes.
fn key(i: u64) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&i.to_be_bytes());
    key[8..].copy_from_slice(&0x5EED_5EED_5EED_5EEDu64.to_be_bytes());
    key
}

/// `Keys.missing(i)`: sorts just before `key(i)` and is never written.
fn missing(i: u64) -> [u8; 16] {
    let mut key = key(i);
    key[8..].copy_from_slice(&0x0BAD_0BAD_0BAD_0BADu64.to_be_bytes());
    key
}

/// `Keys.prefix(block)`: the first 7 bytes of `key(block * 256)`, shared by the 256 keys from there.
fn prefix(block: u64) -> [u8; 7] {
    let mut prefix = [0u8; 7];
    prefix.copy_from_slice(&key(block * PREFIX_SPAN)[..7]);
    prefix
}

fn changelog() -> TopicPartition {
    TopicPartition { topic: "bench-changelog".into(), partition: 0 }
}

/// A pseudo-random sequence (xorshift), the same for every strategy.
struct Sequence(u64);

impl Sequence {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn next_below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }

    /// A value of `size` pseudo-random bytes (`Keys.value`: incompressible, as the JMH values).
    fn value(&mut self, size: usize) -> Vec<u8> {
        let mut value = Vec::with_capacity(size + 8);
        while value.len() < size {
            value.extend_from_slice(&self.next().to_le_bytes());
        }
        value.truncate(size);
        value
    }
}

fn open(strategy: Strategy) -> (tempfile::TempDir, KeyValueStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = KeyValueStore::open(dir.path(), StoreOptions { strategy, ..StoreOptions::default() }).unwrap();
    (dir, store)
}

/// `ReadBenchmark.Loaded`: a store with `count` committed keys (in order, committed every 10,000)
/// and `staged` uncommitted overwrites of evenly spaced keys among the first `hot_keys`.
fn loaded(strategy: Strategy, count: u64, staged: u64) -> (tempfile::TempDir, KeyValueStore) {
    let (dir, store) = open(strategy);
    let mut values = Sequence(7);
    for i in 0..count {
        store.put(&key(i), Some(&values.value(VALUE_SIZE))).unwrap();
        if (i + 1) % LOAD_COMMIT_INTERVAL == 0 {
            store.commit(&[(changelog(), Some(i as i64 + 1))], None).unwrap();
        }
    }
    store.commit(&[(changelog(), Some(count as i64))], None).unwrap();
    if staged > 0 {
        let hot = data().hot_keys.min(count);
        assert!(staged <= hot, "{staged} staged writes > {hot} hot keys");
        let stride = hot / staged;
        for n in 0..staged {
            store.put(&key(n * stride), Some(&values.value(VALUE_SIZE))).unwrap();
        }
    }
    (dir, store)
}

/// Consumes the range `[key(from), key(from + length - 1)]` as the Java iterator does (chunks of
/// up to 256 entries); returns the entries seen.
fn scan(store: &KeyValueStore, range: Range) -> u64 {
    let mut iterator = store.range(range).unwrap();
    let mut seen = 0;
    loop {
        let got = iterator
            .next_chunk(CHUNK_ENTRIES, CHUNK_BYTES, |k, v| {
                black_box((k, v));
            })
            .unwrap();
        if got == 0 {
            return seen;
        }
        seen += got as u64;
    }
}

/// Kafka's `range(from, to)`: both ends inclusive.
fn key_range(from: u64, length: u64) -> Range {
    Range {
        from: Some(key(from).to_vec()),
        to: Some(key(from + length - 1).to_vec()),
        to_inclusive: true,
        ..Range::all()
    }
}

/// `name=value` pairs as the JMH row's parameters (its `params`, without the store).
fn params(pairs: &[(&str, u64)]) -> String {
    pairs.iter().map(|(name, value)| format!("{name}={value}")).collect::<Vec<_>>().join(",")
}

/// One op per iteration, as JMH counts them.
fn group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(1));
    group
}

/// `PutBenchmark.put`: a put into a fresh store of a key drawn from `put_keys`, one value for all,
/// the commit every `commitEvery` puts included.
fn put(c: &mut Criterion) {
    let data = data();
    if !data.runs("put") {
        return;
    }
    let mut group = group(c, "put");
    for &strategy in &data.strategies {
        for &value_size in &data.value_sizes {
            for &commit_every in &data.commit_every {
                let (_dir, store) = open(strategy);
                let mut sequence = Sequence(42);
                let value = sequence.value(value_size as usize);
                let mut puts = 0u64;
                let id = BenchmarkId::new(
                    strategy.name(),
                    params(&[("commitEvery", commit_every), ("valueSize", value_size)]),
                );
                group.bench_function(id, |b| {
                    b.iter(|| {
                        store.put(&key(sequence.next_below(data.put_keys)), Some(&value)).unwrap();
                        puts += 1;
                        if puts % commit_every == 0 {
                            store.commit(&[(changelog(), Some(puts as i64))], None).unwrap();
                        }
                    })
                });
            }
        }
    }
    group.finish();
}

/// `ReadBenchmark.get` (a random one of the committed keys, `staged` of them staged) and
/// `ReadBenchmark.getMiss` (a key never written, next to a random committed one).
fn get(c: &mut Criterion) {
    let data = data();
    for &strategy in &data.strategies {
        for &staged in &data.staged {
            let (hit, miss) = (data.runs("get"), data.runs("getMiss") && staged == 0);
            if !hit && !miss {
                continue;
            }
            let (_dir, store) = loaded(strategy, data.keys, staged);
            assert!(store.get(&key(data.keys - 1), false).unwrap().is_some(), "get missed the last key loaded");
            let mut sequence = Sequence(7);
            if hit {
                group(c, "get").bench_function(BenchmarkId::new(strategy.name(), params(&[("staged", staged)])), |b| {
                    b.iter(|| {
                        store.get_with(&key(sequence.next_below(data.keys)), false, |v| black_box(v.is_some())).unwrap()
                    })
                });
            }
            if miss {
                assert!(store.get(&missing(data.keys / 2), false).unwrap().is_none(), "a key never written was found");
                group(c, "getMiss").bench_function(strategy.name(), |b| {
                    b.iter(|| {
                        store
                            .get_with(&missing(sequence.next_below(data.keys)), false, |v| black_box(v.is_some()))
                            .unwrap()
                    })
                });
            }
        }
    }
}

/// `ReadBenchmark.range` (`length` keys from a random start among the first `hot_keys`),
/// `ReadBenchmark.fullScan` (every entry of a `full_scan_keys` store) and `ReadBenchmark.prefixScan`
/// (256 entries; nothing staged), every entry consumed.
fn range(c: &mut Criterion) {
    let data = data();
    for &strategy in &data.strategies {
        for &staged in &data.staged {
            let prefix_scan = data.runs("prefixScan") && staged == 0 && data.keys >= PREFIX_SPAN;
            if !data.runs("range") && !prefix_scan {
                continue;
            }
            let (_dir, store) = loaded(strategy, data.keys, staged);
            let mut sequence = Sequence(11);
            for &length in data.lengths.iter().filter(|_| data.runs("range")) {
                assert!(length <= data.hot_keys, "range length {length} > hot keys {}", data.hot_keys);
                assert_eq!(scan(&store, key_range(data.hot_keys - length, length)), length, "range of {length}");
                let id = BenchmarkId::new(strategy.name(), params(&[("length", length), ("staged", staged)]));
                group(c, "range").bench_function(id, |b| {
                    b.iter(|| scan(&store, key_range(sequence.next_below(data.hot_keys - length + 1), length)))
                });
            }
            if prefix_scan {
                assert_eq!(scan(&store, Range::prefix(&prefix(0))), PREFIX_SPAN, "prefix scan");
                let blocks = data.keys / PREFIX_SPAN;
                group(c, "prefixScan").bench_function(strategy.name(), |b| {
                    b.iter(|| scan(&store, Range::prefix(&prefix(sequence.next_below(blocks)))))
                });
            }
        }
        for &staged in data.staged.iter().filter(|_| data.runs("fullScan")) {
            let (_dir, store) = loaded(strategy, data.full_scan_keys, staged);
            assert_eq!(scan(&store, Range::all()), data.full_scan_keys, "full scan");
            let mut group = group(c, "fullScan");
            group.sampling_mode(SamplingMode::Flat);
            group.bench_function(BenchmarkId::new(strategy.name(), params(&[("staged", staged)])), |b| {
                b.iter(|| scan(&store, Range::all()))
            });
        }
    }
}

/// `RestoreBenchmark.restore`: batches of 1,000 records of keys drawn from `put_keys`, one value
/// for all, offsets committed every 10,000 records; criterion's throughput is in records.
fn restore(c: &mut Criterion) {
    let data = data();
    if !data.runs("restore") {
        return;
    }
    let mut group = c.benchmark_group("restore");
    group.throughput(Throughput::Elements(RESTORE_BATCH));
    for &strategy in &data.strategies {
        let (_dir, store) = open(strategy);
        let mut sequence = Sequence(3);
        let value = sequence.value(VALUE_SIZE);
        let mut records = 0u64;
        group.bench_function(strategy.name(), |b| {
            b.iter_batched(
                // a new batch of keys each time, as the JMH benchmark builds its records
                || (0..RESTORE_BATCH).map(|_| key(sequence.next_below(data.put_keys))).collect::<Vec<_>>(),
                |keys| {
                    store.restore(keys.iter().map(|k| (&k[..], Some(&value[..])))).unwrap();
                    records += RESTORE_BATCH;
                    if records % LOAD_COMMIT_INTERVAL == 0 {
                        store.commit(&[(changelog(), Some(records as i64))], None).unwrap();
                    }
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

/// `CommitBenchmark.commit`: one commit after `dirtyKeys` uncommitted puts of keys drawn from
/// `put_keys` (untimed), timed alone, in a fresh store: as JMH's single shots (3 warmup + 10
/// measured commits), one warmup commit and 10 measured ones, one per sample, whatever the
/// criterion times given (timed longer, the store would grow into the whole key space and
/// flush and compact meanwhile, which JMH's 13 commits never see).
fn commit(c: &mut Criterion) {
    let data = data();
    if !data.runs("commit") {
        return;
    }
    let mut group = c.benchmark_group("commit");
    let instant = Duration::from_nanos(1);
    group.sample_size(10).sampling_mode(SamplingMode::Flat).warm_up_time(instant).measurement_time(instant);
    for &strategy in &data.strategies {
        for &dirty in &data.dirty_keys {
            let (_dir, store) = open(strategy);
            let mut sequence = Sequence(5);
            let value = sequence.value(VALUE_SIZE);
            let mut offset = 0i64;
            group.bench_function(BenchmarkId::new(strategy.name(), params(&[("dirtyKeys", dirty)])), |b| {
                b.iter_batched(
                    || {
                        for _ in 0..dirty {
                            store.put(&key(sequence.next_below(data.put_keys)), Some(&value)).unwrap();
                        }
                        offset += dirty as i64;
                        offset
                    },
                    |offset| store.commit(&[(changelog(), Some(offset))], None).unwrap(),
                    BatchSize::PerIteration,
                )
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    // JMH's default times: 2 warmup iterations and 5 measured ones of 1 s each.
    config = Criterion::default().sample_size(30).warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(5));
    targets = put, get, range, restore, commit
}
criterion_main!(benches);
