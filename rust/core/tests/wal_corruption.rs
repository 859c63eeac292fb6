//! A write-ahead log garbled in its middle (not a torn tail): the store must not reopen silently
//! without the commits after the damage.

use std::path::Path;
use txn_rocksdb::{CorruptionPolicy, Error, KeyValueStore, Range, StoreOptions, Strategy, TopicPartition};

fn tp() -> TopicPartition {
    TopicPartition { topic: "wal-changelog".into(), partition: 0 }
}

mod common;
use common::newest_wal as wal_file;

/// Five commits of 20 KiB each, then the store is closed (its data only in the WAL).
fn five_commits(dir: &Path, strategy: Strategy) {
    let store = KeyValueStore::open(dir, StoreOptions { strategy, ..StoreOptions::default() }).unwrap();
    for commit in 0..5u8 {
        for i in 0..20u8 {
            store.put(&[commit, i], Some(&[commit; 1000])).unwrap();
        }
        store.commit(&[(tp(), Some(commit as i64 * 100))], None).unwrap();
    }
}

/// Garbles 64 bytes in the middle of the store's WAL (commit 3 of 5 or so: after commit 2).
fn damage_the_middle(dir: &Path) {
    let wal = wal_file(dir);
    let mut bytes = std::fs::read(&wal).unwrap();
    let middle = bytes.len() / 2;
    for b in &mut bytes[middle..middle + 64] {
        *b ^= 0x5A;
    }
    std::fs::write(&wal, bytes).unwrap();
}

fn options(strategy: Strategy, open_at_last_consistent_commit: bool) -> StoreOptions {
    let corruption = if open_at_last_consistent_commit {
        CorruptionPolicy::OpenAtLastConsistentCommit
    } else {
        CorruptionPolicy::Refuse
    };
    StoreOptions { strategy, corruption, ..StoreOptions::default() }
}

fn committed_keys(store: &KeyValueStore) -> Vec<Vec<u8>> {
    store
        .range(Range { committed_only: true, ..Range::all() })
        .unwrap()
        .collect_all()
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect()
}

#[test]
fn a_wal_damaged_in_its_middle_refuses_to_open_by_default_and_names_what_was_lost() {
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        let dir = tempfile::tempdir().unwrap();
        five_commits(dir.path(), strategy);
        damage_the_middle(dir.path());
        for attempt in 0..2 {
            // refusing leaves the files as they were: a second open refuses the same way
            let Err(e) = KeyValueStore::open(dir.path(), options(strategy, false)) else {
                panic!("{strategy:?}: opened a store whose WAL is damaged (attempt {attempt})");
            };
            assert!(matches!(e, Error::CorruptedWal { .. }), "{strategy:?}: {e:?}");
            let message = e.to_string();
            assert!(message.contains(&dir.path().display().to_string()), "{message}");
            assert!(message.contains("refuses to open"), "{message}");
            assert!(message.contains(".log"), "names the WAL file: {message}");
            // the last consistent commit is the second one (offset 100)
            assert!(message.contains("partition: 0 }, 100)"), "{message}");
        }
    }
}

#[test]
fn with_recovery_allowed_a_damaged_wal_opens_at_the_last_consistent_commit() {
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        let dir = tempfile::tempdir().unwrap();
        five_commits(dir.path(), strategy);
        damage_the_middle(dir.path());
        {
            let store = KeyValueStore::open(dir.path(), options(strategy, true)).unwrap();
            assert_eq!(store.committed_offsets().unwrap(), vec![(tp(), 100)], "{strategy:?}");
            let keys = committed_keys(&store);
            assert_eq!(
                keys,
                (0..2u8).flat_map(|c| (0..20u8).map(move |i| vec![c, i])).collect::<Vec<_>>(),
                "{strategy:?}"
            );
            // the store goes on: a changelog restore and new commits land as usual
            store.put(&[9, 9], Some(b"after")).unwrap();
            store.commit(&[(tp(), Some(500))], None).unwrap();
        }
        let store = KeyValueStore::open(dir.path(), options(strategy, false)).unwrap();
        assert_eq!(store.committed_offsets().unwrap(), vec![(tp(), 500)], "{strategy:?}");
        assert_eq!(store.get(&[9, 9], true).unwrap().as_deref(), Some(&b"after"[..]));
    }
}

#[test]
fn a_torn_last_record_is_tolerated_without_recovery_allowed() {
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        let dir = tempfile::tempdir().unwrap();
        five_commits(dir.path(), strategy);
        // a power loss can leave the last record half-written: cut the file inside it
        let wal = wal_file(dir.path());
        let length = std::fs::metadata(&wal).unwrap().len();
        std::fs::OpenOptions::new().write(true).open(&wal).unwrap().set_len(length - 100).unwrap();
        let store = KeyValueStore::open(dir.path(), options(strategy, false)).unwrap();
        let offsets = store.committed_offsets().unwrap();
        assert_eq!(offsets.len(), 1, "{strategy:?}");
        assert!(offsets[0].1 < 400, "{strategy:?}: the torn last commit cannot have landed: {offsets:?}");
    }
}

/// Opens the store in `path` on another thread; `None` if the open has not returned within a minute.
fn open_with_watchdog(path: &Path, open_at_last: bool) -> Option<txn_rocksdb::Result<(i64, Vec<Vec<u8>>)>> {
    let (done, outcome) = std::sync::mpsc::channel();
    let opening = path.to_path_buf();
    std::thread::spawn(move || {
        let result = KeyValueStore::open(&opening, options(Strategy::IndexedBatch, open_at_last)).map(|store| {
            let committed = store.committed_offsets().unwrap().first().map_or(0, |(_, o)| *o);
            (committed, committed_keys(&store))
        });
        let _ = done.send(result);
    });
    outcome.recv_timeout(std::time::Duration::from_secs(60)).ok()
}

/// Two WAL blocks on which RocksDB 11.12's log reader loops forever, in every recovery mode,
/// read-only or not (`tests/fixtures/rocksdb-11.12-wal-reader-loop.bin`: cut from the store on
/// which `DamagedWalReproductionTest`, issue 18's reproduction, hung in CI: 4 KiB garbled in the
/// middle of an older WAL file). Put into a store's WAL after two commits, as its end (a garbled
/// tail) or followed by intact records (damage), they must not hang the open: the store checks its
/// WAL before RocksDB replays it, cuts a garbled tail, and handles damage by its policy.
#[test]
fn a_wal_record_rocksdb_would_loop_on_never_hangs_the_open() {
    let fixture =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/rocksdb-11.12-wal-reader-loop.bin"))
            .unwrap();
    for intact_after in [false, true] {
        for open_at_last in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            {
                let store = KeyValueStore::open(dir.path(), StoreOptions::default()).unwrap();
                for commit in 1..=2u8 {
                    store.put(&[commit], Some(&[commit; 100])).unwrap();
                    store.commit(&[(tp(), Some(i64::from(commit)))], None).unwrap();
                }
            }
            let wal = wal_file(dir.path());
            let mut first_block = std::fs::read(&wal).unwrap();
            first_block.resize(32 * 1024, 0);
            let mut bytes = first_block.clone();
            bytes.extend_from_slice(&fixture);
            if intact_after {
                bytes.extend_from_slice(&first_block);
            }
            std::fs::write(&wal, bytes).unwrap();
            let what = format!("intact records after it: {intact_after}, open at the last commit: {open_at_last}");
            // the operators' tool reads the same WAL first: it must return, and find the damage
            let (done, outcome) = std::sync::mpsc::channel();
            let verifying = dir.path().to_path_buf();
            std::thread::spawn(move || {
                let _ = done.send(txn_rocksdb::inspect::verify(&verifying).map_err(|e| e.to_string()));
            });
            let verified = outcome
                .recv_timeout(std::time::Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("{what}: verify did not return within a minute"))
                .unwrap_or_else(|e| panic!("{what}: verify failed: {e}"));
            assert!(!verified.findings.is_empty(), "{what}: verify found nothing: {verified:?}");
            match open_with_watchdog(dir.path(), open_at_last)
                .unwrap_or_else(|| panic!("{what}: the open did not return within a minute"))
            {
                Ok((committed, keys)) => {
                    assert!(open_at_last || !intact_after, "{what}: opened by default with a damaged WAL");
                    assert_eq!((committed, keys), (2, vec![vec![1], vec![2]]), "{what}");
                }
                Err(e) => {
                    assert!(!open_at_last && intact_after, "{what}: {e}");
                    assert!(matches!(e, Error::CorruptedWal { .. }), "{what}: {e:?}");
                    assert!(e.to_string().contains(".log"), "{what}: names the WAL file: {e}");
                }
            }
        }
    }
}

/// Issue 18's reproduction in the engine: large commits (the store rolls over to a second WAL
/// file as its memtables flush), then 4 KiB garbled in the middle of the larger, older WAL file,
/// for several garblings: every open returns (under a watchdog) at a commit boundary, keeping the
/// damaged files aside, or refuses.
#[test]
fn an_older_wal_garbled_in_its_middle_opens_at_a_commit_or_refuses() {
    for seed in 0..6u64 {
        for open_at_last in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().to_path_buf();
            {
                let store = KeyValueStore::open(&path, StoreOptions::default()).unwrap();
                for commit in 1..=5u64 {
                    for i in 0..1_200u32 {
                        store.put(format!("c{commit}-{i:05}").as_bytes(), Some(&[commit as u8; 4096])).unwrap();
                    }
                    store.commit(&[(tp(), Some(commit as i64))], None).unwrap();
                }
            }
            let mut wals: Vec<_> = std::fs::read_dir(&path)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "log"))
                .collect();
            wals.sort_by_key(|p| std::fs::metadata(p).unwrap().len());
            assert!(wals.len() >= 2, "the store rolled over to a second WAL file: {wals:?}");
            let largest = wals.last().unwrap().clone();
            let mut bytes = std::fs::read(&largest).unwrap();
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let at = bytes.len() / 2 - 2048 + (x % 4096) as usize;
            for b in bytes.iter_mut().skip(at).take(4096) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = x as u8;
            }
            std::fs::write(&largest, bytes).unwrap();

            let result = open_with_watchdog(&path, open_at_last).unwrap_or_else(|| {
                panic!("seed {seed}: the open did not return within a minute ({} WAL files)", wals.len())
            });
            match result {
                Ok((committed, keys)) => {
                    assert!(open_at_last, "seed {seed}: opened by default with a damaged WAL");
                    let aside = std::fs::read_dir(&path)
                        .unwrap()
                        .any(|e| e.unwrap().file_name().to_string_lossy().starts_with("damaged-wal-"));
                    assert!(aside, "seed {seed}: the damaged WAL files were kept aside");
                    for commit in 1..=5i64 {
                        let held = keys.iter().filter(|k| k.starts_with(format!("c{commit}-").as_bytes())).count();
                        assert_eq!(
                            held,
                            if commit <= committed { 1_200 } else { 0 },
                            "seed {seed}: offset {committed}, commit {commit}"
                        );
                    }
                }
                Err(e) => {
                    assert!(!open_at_last || !matches!(e, Error::CorruptedWal { .. }), "seed {seed}: {e}");
                    assert!(matches!(e, Error::CorruptedWal { .. } | Error::Damaged { .. }), "seed {seed}: {e:?}");
                }
            }
        }
    }
}
