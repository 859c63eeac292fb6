//! One operation of `bench/`'s JMH benchmarks, run a fixed number of times on the engine alone,
//! for an instruction-count profile under callgrind (repeatable on a busy machine, unlike time):
//!
//!     valgrind --tool=callgrind --toggle-collect='*op_profile*measure*' \
//!         target/release/examples/op_profile <indexed-batch|secondary-store> <put|get|get-staged|restore> [ops]
//!
//! Only `measure` is counted: the store's setup (100,000 committed keys of 16 B with 100 B values,
//! loaded by puts and commits of 10,000, and for `get-staged` 5,000 staged overwrites) is not.
//! `put` is a put of a key drawn from 1,000,000 into a fresh store with a commit every 100 puts,
//! `get` a get of a random committed key, `restore` a record restored in batches of 1,000 of
//! random keys with offsets committed every 10,000 records (`bench/`'s `RestoreBenchmark`), by
//! ingestion; `restore-memtable` the same through the memtable, one write per batch.
//! Divide the counted instructions by `ops` for a cost per operation.

mod common;

use common::{key, Rng};
use txn_rocksdb::{KeyValueStore, StoreOptions, Strategy, TopicPartition};

const KEYS: u64 = 100_000;

fn tp() -> TopicPartition {
    TopicPartition { topic: "changelog".into(), partition: 0 }
}

fn commit(store: &KeyValueStore, offset: i64) {
    store.commit(&[(tp(), Some(offset))], None).unwrap();
}

#[inline(never)]
fn measure(op: &str, store: &KeyValueStore, ops: u64, rng: &mut Rng) -> u64 {
    let mut found = 0u64;
    match op {
        "put" => {
            let value = [7u8; 100];
            for i in 0..ops {
                store.put_owned(key(rng.next_below(1_000_000)).to_vec(), Some(value.to_vec())).unwrap();
                if (i + 1) % 100 == 0 {
                    commit(store, i as i64);
                }
            }
        }
        "get" | "get-staged" => {
            for _ in 0..ops {
                found += store.get(&key(rng.next_below(KEYS)), false).unwrap().map_or(0, |v| v.len() as u64);
            }
        }
        "restore" | "restore-memtable" => {
            let value = [9u8; 100];
            let mut keys = Vec::with_capacity(1000);
            for batch in 0..ops / 1000 {
                keys.clear();
                keys.extend((0..1000).map(|_| key(rng.next_below(1_000_000))));
                let records = keys.iter().map(|k| (&k[..], Some(&value[..])));
                if op == "restore" {
                    store.restore(records).unwrap();
                } else {
                    // each batch through the memtable, in one write (the restore before ingestion)
                    store.restore_writes(records.map(txn_rocksdb::Write::from)).unwrap();
                }
                if (batch + 1) % 10 == 0 {
                    commit(store, ((batch + 1) * 1000) as i64);
                }
            }
            // every restored record in RocksDB (what the buffer holds is written)
            found = store.committed_offsets().unwrap().len() as u64;
        }
        other => panic!("unknown operation {other}"),
    }
    found
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let strategy = Strategy::parse(args.get(1).map_or("indexed-batch", String::as_str)).unwrap();
    let op = args.get(2).map_or("get", String::as_str).to_owned();
    let ops: u64 = args.get(3).map_or(200_000, |n| n.parse().unwrap());
    // `OP_PROFILE_DIR`: the store in that directory, kept (to look at its files afterwards)
    let dir = tempfile::tempdir().unwrap();
    let path = std::env::var_os("OP_PROFILE_DIR").map_or_else(|| dir.path().to_path_buf(), std::path::PathBuf::from);
    let store = KeyValueStore::open(&path, StoreOptions { strategy, ..StoreOptions::default() }).unwrap();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    if op.starts_with("get") {
        let value = [5u8; 100];
        for i in 0..KEYS {
            store.put(&key(i), Some(&value)).unwrap();
            if (i + 1) % 10_000 == 0 {
                commit(&store, i as i64);
            }
        }
        if op == "get-staged" {
            for i in (0..10_000).step_by(2) {
                store.put(&key(i), Some(&[6u8; 100])).unwrap();
            }
        }
    }
    let started = std::time::Instant::now();
    let found = measure(&op, &store, ops, &mut rng);
    eprintln!("{:.3} s", started.elapsed().as_secs_f64());
    println!("{} {op} x{ops}: {found}", strategy.name());
}
