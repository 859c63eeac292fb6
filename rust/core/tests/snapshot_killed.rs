//! A process killed (SIGKILL; TerminateProcess on Windows) while it sends a snapshot, half-way
//! through a file or with every file sent and no manifest yet: the half-sent snapshot is never
//! restored (the one before it is), the checkpoint the dead process left in the store's directory
//! is deleted by the next snapshot (on Windows, the links to files the store has open once it
//! closes them), and the next snapshot completes and restores. Its own binary:
//! the child is this test executable, run again with the crash point in its environment.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use txn_rocksdb::snapshot::{self, Changelog, Location, RestoreBudget};
use txn_rocksdb::RowLayout;
use txn_rocksdb::{KeyValueStore, Range, StoreOptions, TopicPartition};

fn partition() -> TopicPartition {
    TopicPartition { topic: "app-store-changelog".into(), partition: 0 }
}

/// Commit `n`: 2,000 keys of 1 KiB (about 2 MB, so a snapshot sends several files), at offset `n * 100`.
fn commit(store: &KeyValueStore, n: u32) {
    for i in 0..2_000 {
        let value = format!("value-{n}-{i}-").repeat(70);
        store.put(format!("key-{i:05}").as_bytes(), Some(value.as_bytes())).unwrap();
    }
    store.commit(&[(partition(), Some(i64::from(n) * 100))], None).unwrap();
}

fn changelog() -> Changelog {
    Changelog { partition: partition(), start: 0, end: 10_000 }
}

type State = (Vec<(Vec<u8>, Vec<u8>)>, Vec<(TopicPartition, i64)>);

fn state(store: &KeyValueStore) -> State {
    (store.range(Range::all()).unwrap().collect_all().unwrap(), store.committed_offsets().unwrap())
}

fn contents(dir: &Path) -> State {
    state(&KeyValueStore::open(dir, StoreOptions::default()).unwrap())
}

fn location(root: &Path) -> Location {
    Location::parse(&format!("file://{}", root.join("objects").display()), &[]).unwrap()
}

/// The checkpoints (directories named `snapshot-checkpoint-...`) in a store's directory.
fn checkpoints(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with("snapshot-checkpoint-"))
        .collect()
}

/// The names of the files in the store's checkpoints.
fn checkpoint_files(dir: &Path) -> Vec<String> {
    checkpoints(dir)
        .iter()
        .flat_map(|c| {
            std::fs::read_dir(dir.join(c)).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        })
        .collect()
}

/// Child entry point: does nothing unless the parent set the scenario. Commits once more, then
/// snapshots, and is killed by the crash point on the way.
#[test]
fn child() {
    let Ok(root) = std::env::var("SNAPSHOT_CHILD") else { return };
    let root = Path::new(&root);
    let store = KeyValueStore::open(root.join("store"), StoreOptions::default()).unwrap();
    commit(&store, 3);
    println!("TAKING");
    snapshot::take(&store, &location(root), "s").unwrap();
    println!("TAKEN");
}

#[test]
fn a_process_killed_while_it_sends_a_snapshot_never_leaves_a_usable_half_snapshot() {
    for point in ["snapshot:mid-file@3", "snapshot:before-manifest"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("store");
        let store = KeyValueStore::open(&dir, StoreOptions::default()).unwrap();
        commit(&store, 1);
        assert_eq!(snapshot::take(&store, &location(tmp.path()), "s").unwrap().seq, 1);
        let first = state(&store);
        commit(&store, 2);
        drop(store);

        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "child", "--nocapture", "--test-threads=1"])
            .env("SNAPSHOT_CHILD", tmp.path())
            .env("TXN_ROCKSDB_FAULT", point)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let lines: Vec<String> = BufReader::new(child.stdout.take().unwrap()).lines().map_while(|l| l.ok()).collect();
        let status = child.wait().unwrap();
        assert!(txn_rocksdb::fault::killed(&status), "{point}: the child was not killed: {status:?}, {lines:?}");
        assert!(
            lines.iter().any(|l| l.ends_with("TAKING")) && !lines.iter().any(|l| l.ends_with("TAKEN")),
            "{point}: {lines:?}"
        );
        assert_eq!(
            checkpoints(&dir).len(),
            1,
            "{point}: the dead process's checkpoint is left in the store's directory"
        );
        let sent = std::fs::read_dir(tmp.path().join("objects/s/files")).unwrap().count();
        assert!(sent > 0, "{point}: the killed snapshot sent nothing");

        // a new host: the snapshot before the killed one, whatever the killed one sent
        let new_host = tmp.path().join("new-host");
        let restored = snapshot::restore_newest(
            &location(tmp.path()),
            "s",
            &new_host,
            &changelog(),
            RowLayout::Plain,
            RestoreBudget::default(),
        )
        .unwrap()
        .unwrap();
        assert_eq!(restored.seq, 1, "{point}");
        assert_eq!(contents(&new_host), first, "{point}");

        // the old host again: its store is at commit 3 (the child's), the next snapshot completes
        // and deletes the dead process's checkpoint
        let store = KeyValueStore::open(&dir, StoreOptions::default()).unwrap();
        let third = state(&store);
        assert_eq!(third.1, vec![(partition(), 300)], "{point}");
        let taken = snapshot::take(&store, &location(tmp.path()), "s").unwrap();
        assert_eq!(taken.seq, 2, "{point}");
        if cfg!(windows) {
            // Windows (as Wine runs it) keeps the name of a deleted link to a file another handle
            // holds open until that handle closes: the links to files the store has open stay
            // listed (nothing else does), and go when the store closes them
            for file in checkpoint_files(&dir) {
                assert!(file.ends_with(".sst") && dir.join(&file).exists(), "{point}: {file} left in a checkpoint");
            }
            drop(store);
            assert_eq!(checkpoint_files(&dir), Vec::<String>::new(), "{point}: the store closed");
        } else {
            assert!(checkpoints(&dir).is_empty(), "{point}: checkpoints left: {:?}", checkpoints(&dir));
            drop(store);
        }
        let newer_host = tmp.path().join("newer-host");
        assert_eq!(
            snapshot::restore_newest(
                &location(tmp.path()),
                "s",
                &newer_host,
                &changelog(),
                RowLayout::Plain,
                RestoreBudget::default()
            )
            .unwrap()
            .unwrap()
            .seq,
            2
        );
        assert_eq!(contents(&newer_host), third, "{point}");
    }
}
