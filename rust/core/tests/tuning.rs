//! RocksDB options tuned for one store (`StoreOptions::tuning`) reach that store's RocksDB, and only it.

use txn_rocksdb::stats::Stat;
use txn_rocksdb::tuning::Tuning;
use txn_rocksdb::{KeyValueStore, StoreOptions, TopicPartition};

fn fill(store: &KeyValueStore) {
    let tp = TopicPartition { topic: "tuning-changelog".into(), partition: 0 };
    for i in 0..3000u32 {
        store.put(format!("key-{i:06}").as_bytes(), Some(&[1u8; 1000])).unwrap();
        if i % 100 == 99 {
            store.commit(&[(tp.clone(), Some(i64::from(i)))], None).unwrap();
        }
    }
}

#[test]
fn a_small_write_buffer_for_one_store_makes_it_flush() {
    let dir = tempfile::tempdir().unwrap();
    let tuning = Tuning::new(&["write_buffer_size=262144", "max_write_buffer_number=2"]).unwrap();
    let tuned = KeyValueStore::open(dir.path().join("small-buffers"), StoreOptions { tuning, ..StoreOptions::default() }).unwrap();
    let untuned = KeyValueStore::open(dir.path().join("default-buffers"), StoreOptions::default()).unwrap();
    fill(&tuned);
    fill(&untuned);
    let sst = |store: &KeyValueStore| {
        // Flushes run in the background: wait for them a little.
        for _ in 0..100 {
            if store.stats()[Stat::LiveSstFilesSize as usize] > 0 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        store.stats()[Stat::LiveSstFilesSize as usize]
    };
    assert!(sst(&tuned) > 0, "3 MB through 256 KiB memtables reach SST files");
    assert_eq!(untuned.stats()[Stat::LiveSstFilesSize as usize], 0, "the other store keeps its 16 MiB memtables");
}

#[test]
fn a_forbidden_option_is_refused_before_any_store_opens() {
    let e = Tuning::new(&["write_buffer_size=262144", "atomic_flush=false"]).unwrap_err().to_string();
    assert!(e.contains("'atomic_flush' cannot be changed"), "{e}");
}
