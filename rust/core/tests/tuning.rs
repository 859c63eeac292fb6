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

/// Waits up to 5 s for `done` to hold on the store's statistics (flushes and compactions run in the
/// background).
fn wait_until(store: &KeyValueStore, done: impl Fn(&[i64]) -> bool) {
    for _ in 0..200 {
        if done(&store.stats()) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
}

#[test]
fn a_small_write_buffer_for_one_store_makes_it_flush() {
    let dir = tempfile::tempdir().unwrap();
    let tuning = Tuning::new(&["write_buffer_size=262144", "max_write_buffer_number=2"]).unwrap();
    let tuned =
        KeyValueStore::open(dir.path().join("small-buffers"), StoreOptions { tuning, ..StoreOptions::default() })
            .unwrap();
    let untuned = KeyValueStore::open(dir.path().join("default-buffers"), StoreOptions::default()).unwrap();
    fill(&tuned);
    fill(&untuned);
    let sst = |store: &KeyValueStore| {
        wait_until(store, |stats| stats[Stat::LiveSstFilesSize as usize] > 0);
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

/// Stores before 2026-12-02 were written under leveled compaction, with files on several levels;
/// the engine's universal compaction opens them as they are (each level one sorted run), reads
/// every committed value, and compacts them further.
#[test]
fn a_store_written_under_leveled_compaction_opens_under_universal_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    let tp = TopicPartition { topic: "tuning-changelog".into(), partition: 0 };
    let write = |store: &KeyValueStore, round: u8| {
        for i in 0..3000u32 {
            store.put(format!("key-{:06}", i * 7 % 3000).as_bytes(), Some(&[round; 1000])).unwrap();
            if i % 100 == 99 {
                store.commit(&[(tp.clone(), Some(i64::from(round) * 10_000 + i64::from(i)))], None).unwrap();
            }
        }
    };
    let settle = |store: &KeyValueStore| {
        wait_until(store, |stats| {
            stats[Stat::NumRunningCompactions as usize] == 0 && stats[Stat::NumRunningFlushes as usize] == 0
        });
    };
    let small = ["write_buffer_size=262144", "max_write_buffer_number=2", "target_file_size_base=262144"];
    let leveled = Tuning::new(
        &[
            small.as_slice(),
            &[
                "compaction_style=kCompactionStyleLevel",
                "level0_file_num_compaction_trigger=2",
                "max_bytes_for_level_base=524288",
            ],
        ]
        .concat(),
    )
    .unwrap();
    {
        let store = KeyValueStore::open(&path, StoreOptions { tuning: leveled, ..StoreOptions::default() }).unwrap();
        write(&store, 1);
        settle(&store);
        assert!(store.stats()[Stat::NumberOpenFiles as usize] > 1, "the leveled store has SST files");
    }
    let check = |store: &KeyValueStore, round: u8, offset: i64| {
        for i in 0..3000u32 {
            let key = format!("key-{i:06}");
            assert_eq!(store.get(key.as_bytes(), true).unwrap().as_deref(), Some(&[round; 1000][..]), "{key}");
        }
        assert_eq!(store.committed_offsets().unwrap(), vec![(tp.clone(), offset)]);
    };
    let universal = Tuning::new(&small).unwrap();
    {
        let store =
            KeyValueStore::open(&path, StoreOptions { tuning: universal.clone(), ..StoreOptions::default() }).unwrap();
        check(&store, 1, 12_999);
        write(&store, 2);
        settle(&store);
        check(&store, 2, 22_999);
    }
    let store = KeyValueStore::open(&path, StoreOptions { tuning: universal, ..StoreOptions::default() }).unwrap();
    check(&store, 2, 22_999);
}
