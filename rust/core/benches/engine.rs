//! The engine alone, without a JVM: the operations of `bench/` (JMH) on the Rust API, for both
//! transaction strategies, so the cost of the Java path (JNI, Kafka's store interfaces) shows as
//! the ratio between the two reports.
//!
//! Run: `cargo bench --workspace --bench engine` (criterion's report in
//! `$CARGO_TARGET_DIR/criterion`; `bench/run.sh` puts the ratios in docs/benchmarks.md).
//! Keys and values as in `bench/`: 16-byte keys that sort by index, 100-byte values,
//! 100,000 committed keys, "staged" = 5,000 uncommitted overwrites of every second key among the
//! first 10,000.

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use txn_rocksdb::{KeyValueStore, Range, StoreOptions, Strategy, TopicPartition};

const KEYS: u64 = 100_000;
const STAGED: u64 = 5_000;
const VALUE: [u8; 100] = [7; 100];
const STRATEGIES: [Strategy; 2] = [Strategy::IndexedBatch, Strategy::SecondaryStore];

fn key(i: u64) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&i.to_be_bytes());
    key[8..].copy_from_slice(&0x5EED_5EED_5EED_5EEDu64.to_be_bytes());
    key
}

fn missing(i: u64) -> [u8; 16] {
    let mut key = key(i);
    key[8..].copy_from_slice(&0x0BAD_0BAD_0BAD_0BADu64.to_be_bytes());
    key
}

fn changelog() -> TopicPartition {
    TopicPartition { topic: "bench-changelog".into(), partition: 0 }
}

/// A pseudo-random sequence (xorshift), the same for every strategy.
struct Sequence(u64);

impl Sequence {
    fn next_below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

/// A store in a temporary directory with `KEYS` committed keys and `staged` uncommitted overwrites.
fn loaded(strategy: Strategy, staged: u64) -> (tempfile::TempDir, KeyValueStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = KeyValueStore::open(dir.path(), StoreOptions { strategy, ..StoreOptions::default() }).unwrap();
    for i in 0..KEYS {
        store.put(&key(i), Some(&VALUE)).unwrap();
        if (i + 1) % 10_000 == 0 {
            store.commit(&[(changelog(), Some(i as i64))], None).unwrap();
        }
    }
    for i in 0..staged {
        store.put(&key(2 * i), Some(&[8; 100])).unwrap();
    }
    (dir, store)
}

fn put(c: &mut Criterion) {
    let mut group = c.benchmark_group("put");
    group.throughput(Throughput::Elements(1));
    for strategy in STRATEGIES {
        for commit_every in [100u64, 10_000] {
            let dir = tempfile::tempdir().unwrap();
            let store = KeyValueStore::open(dir.path(), StoreOptions { strategy, ..StoreOptions::default() }).unwrap();
            let (mut sequence, mut puts) = (Sequence(42), 0u64);
            let id = BenchmarkId::new(strategy.name(), format!("commit every {commit_every}"));
            group.bench_function(id, |b| {
                b.iter(|| {
                    store.put(&key(sequence.next_below(1_000_000)), Some(&VALUE)).unwrap();
                    puts += 1;
                    if puts % commit_every == 0 {
                        store.commit(&[(changelog(), Some(puts as i64))], None).unwrap();
                    }
                })
            });
        }
    }
    group.finish();
}

fn get(c: &mut Criterion) {
    let mut group = c.benchmark_group("get");
    group.throughput(Throughput::Elements(1));
    for strategy in STRATEGIES {
        for staged in [0, STAGED] {
            let (_dir, store) = loaded(strategy, staged);
            let mut sequence = Sequence(7);
            group.bench_function(BenchmarkId::new(strategy.name(), format!("hit, {staged} staged")), |b| {
                b.iter(|| store.get_with(&key(sequence.next_below(KEYS)), false, |v| black_box(v.is_some())).unwrap())
            });
            if staged == 0 {
                group.bench_function(BenchmarkId::new(strategy.name(), "miss"), |b| {
                    b.iter(|| store.get_with(&missing(sequence.next_below(KEYS)), false, |v| black_box(v.is_some())).unwrap())
                });
            }
        }
    }
    group.finish();
}

fn range(c: &mut Criterion) {
    let mut group = c.benchmark_group("range");
    for strategy in STRATEGIES {
        for staged in [0, STAGED] {
            let (_dir, store) = loaded(strategy, staged);
            let mut sequence = Sequence(11);
            for length in [100u64, 10_000, KEYS] {
                group.throughput(Throughput::Elements(length));
                let name = if length == KEYS { format!("full scan, {staged} staged") } else { format!("{length}, {staged} staged") };
                group.bench_function(BenchmarkId::new(strategy.name(), name), |b| {
                    b.iter(|| {
                        let from = if length == KEYS { 0 } else { sequence.next_below(10_000) };
                        let range = Range { from: Some(key(from).to_vec()), ..Range::all() };
                        let mut iterator = store.range(range).unwrap();
                        let mut left = length as usize;
                        while left > 0 {
                            let got = iterator.next_chunk(left.min(1024), 1 << 20, |k, v| {
                                black_box((k, v));
                            });
                            let got = got.unwrap();
                            if got == 0 {
                                break;
                            }
                            left -= got;
                        }
                    })
                });
            }
        }
    }
    group.finish();
}

fn restore(c: &mut Criterion) {
    let mut group = c.benchmark_group("restore");
    group.throughput(Throughput::Elements(1_000));
    for strategy in STRATEGIES {
        let dir = tempfile::tempdir().unwrap();
        let store = KeyValueStore::open(dir.path(), StoreOptions { strategy, ..StoreOptions::default() }).unwrap();
        let (mut sequence, mut batches) = (Sequence(3), 0u64);
        group.bench_function(BenchmarkId::new(strategy.name(), "batch of 1,000"), |b| {
            b.iter_batched(
                // a new batch of keys drawn from 1,000,000 each time, as the JMH benchmark does
                || (0..1_000).map(|_| key(sequence.next_below(1_000_000))).collect::<Vec<_>>(),
                |keys| {
                    store.restore(keys.iter().map(|k| (&k[..], Some(&VALUE[..])))).unwrap();
                    batches += 1;
                    if batches % 10 == 0 {
                        store.commit(&[(changelog(), Some(batches as i64 * 1_000))], None).unwrap();
                    }
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

fn commit(c: &mut Criterion) {
    let mut group = c.benchmark_group("commit");
    group.sample_size(20);
    for strategy in STRATEGIES {
        for dirty in [10u64, 1_000, 10_000] {
            let dir = tempfile::tempdir().unwrap();
            let store = KeyValueStore::open(dir.path(), StoreOptions { strategy, ..StoreOptions::default() }).unwrap();
            let mut sequence = Sequence(5);
            let mut offset = 0i64;
            group.bench_function(BenchmarkId::new(strategy.name(), format!("{dirty} dirty keys")), |b| {
                b.iter_batched(
                    || {
                        for _ in 0..dirty {
                            store.put(&key(sequence.next_below(1_000_000)), Some(&VALUE)).unwrap();
                        }
                    },
                    |()| {
                        offset += 1;
                        store.commit(&[(changelog(), Some(offset))], None).unwrap()
                    },
                    BatchSize::PerIteration,
                )
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = put, get, range, restore, commit
}
criterion_main!(benches);
