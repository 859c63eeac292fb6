//! A store's statistics (`KeyValueStore::stats`): plausible values, RocksDB statistics only when
//! turned on, recovery counted.

use txn_rocksdb::stats::{Stat, UNAVAILABLE};
use txn_rocksdb::{KeyValueStore, StoreOptions, Strategy, TopicPartition};

fn value(store: &KeyValueStore, stat: Stat) -> i64 {
    store.stats()[stat as usize]
}

fn commit(store: &KeyValueStore, offset: i64) {
    let tp = TopicPartition { topic: "stats-changelog".into(), partition: 0 };
    store.commit(&[(tp, Some(offset))], None).unwrap();
}

// RocksDB statistics are a per-store option, fixed when the store opens.
#[test]
fn statistics_follow_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let plain = KeyValueStore::open(dir.path().join("plain"), StoreOptions::default()).unwrap();
    assert_eq!(plain.stats().len(), Stat::ALL.len());
    assert_eq!(value(&plain, Stat::BytesWritten), UNAVAILABLE, "RocksDB statistics are off unless turned on");

    // spill_bytes 0: every write goes to the temporary store (its statistics are counted below)
    let options = StoreOptions {
        strategy: Strategy::SecondaryStore,
        statistics: true,
        spill_bytes: 0,
        ..StoreOptions::default()
    };
    let store = KeyValueStore::open(dir.path().join("counted"), options.clone()).unwrap();
    // a new store writes one record at open, its value format (`value_format.rs`), and nothing else
    let at_open = value(&store, Stat::BytesWritten);
    assert!((1..64).contains(&at_open), "{at_open} bytes written at open");
    for i in 0..1000u32 {
        store.put(format!("key-{i:05}").as_bytes(), Some(&[7u8; 100])).unwrap();
    }
    assert!(value(&store, Stat::UncommittedBytes) >= 100_000, "{:?}", store.stats());
    assert!(value(&store, Stat::TemporaryStoreBytes) > 0, "secondary-store writes go to the temporary store");
    commit(&store, 1);
    assert_eq!(value(&store, Stat::UncommittedBytes), 0);
    assert!(
        value(&store, Stat::BytesWritten) >= at_open + 200_000,
        "written twice under secondary-store: {:?}",
        store.stats()
    );
    assert!(value(&store, Stat::CurSizeAllMemTables) > 0);
    assert!(value(&store, Stat::EstimateNumKeys) > 0);
    store.get(b"key-00001", true).unwrap();
    assert!(value(&store, Stat::BytesRead) > 0);
    let (capacity, usage) = (value(&store, Stat::BlockCacheCapacity), value(&store, Stat::BlockCacheUsage));
    assert!(capacity > 0 && usage <= capacity, "usage {usage} of {capacity}");
    assert_eq!((value(&store, Stat::RollForwards), value(&store, Stat::Rollbacks)), (0, 0));

    // Uncommitted temporary-store writes left at close are thrown away when the store reopens.
    store.put(b"uncommitted", Some(b"v")).unwrap();
    drop(store);
    let reopened = KeyValueStore::open(dir.path().join("counted"), options).unwrap();
    assert_eq!(value(&reopened, Stat::Rollbacks), 1);
    assert_eq!(reopened.get(b"uncommitted", false).unwrap(), None);
    // the store opened without statistics beside it still has none
    assert_eq!(value(&plain, Stat::BytesWritten), UNAVAILABLE);
}
