//! Snapshots in object storage (the engine's `snapshot` module) on a `file://` location: a real
//! store of each kind and strategy, committed, snapshotted, wiped, restored and reopened.

mod common;

use common::{tp, Dump, Kind, Subject};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use txn_rocksdb::snapshot::{self, Changelog, Location, LocationSettings, Manifest, RestoreBudget, Restored};
use txn_rocksdb::RowLayout;
use txn_rocksdb::{StoreOptions, Strategy};

const STORE_ID: &str = "app/0_1/counts";

/// The store's changelog holding every offset the tests commit.
fn changelog() -> Changelog {
    Changelog { partition: tp(), start: 0, end: i64::MAX }
}

fn options(strategy: Strategy) -> StoreOptions {
    // secondary-store: 512-byte spills, so transactions spill into the temporary store
    StoreOptions { strategy, spill_bytes: 512, ..StoreOptions::default() }
}

fn open(kind: Kind, dir: &Path, strategy: Strategy) -> Subject {
    Subject::open_with(kind, dir, options(strategy)).unwrap()
}

struct Bench {
    _tmp: tempfile::TempDir,
    objects: PathBuf,
    store: PathBuf,
    location: Location,
}

impl Bench {
    fn new() -> Bench {
        let tmp = tempfile::tempdir().unwrap();
        let objects = tmp.path().join("objects");
        std::fs::create_dir_all(&objects).unwrap();
        let location = Location::parse(&format!("file://{}", objects.display()), &[]).unwrap();
        let store = tmp.path().join("state").join("counts");
        Bench { _tmp: tmp, objects, store, location }
    }

    fn files_dir(&self) -> PathBuf {
        self.objects.join(STORE_ID).join("files")
    }

    fn objects(&self) -> BTreeSet<String> {
        match std::fs::read_dir(self.files_dir()) {
            Err(_) => BTreeSet::new(),
            Ok(entries) => entries.map(|e| e.unwrap().file_name().into_string().unwrap()).collect(),
        }
    }

    fn manifest_path(&self, seq: u64) -> PathBuf {
        self.objects.join(STORE_ID).join("snapshots").join(format!("{seq:020}.manifest"))
    }

    fn manifest(&self, seq: u64) -> Manifest {
        Manifest::decode(&std::fs::read(self.manifest_path(seq)).unwrap()).unwrap()
    }

    fn referenced(&self, seq: u64) -> BTreeSet<String> {
        self.manifest(seq).files.into_iter().flat_map(|f| f.parts).map(|p| p.object).collect()
    }

    /// Restores the newest usable snapshot into a wiped store directory, opens the store on it and
    /// returns what it holds.
    fn restore(&self, kind: Kind, strategy: Strategy) -> (Option<Restored>, Dump) {
        self.restore_from(kind, strategy, &changelog())
    }

    /// [`Bench::restore`] against the changelog as `changelog` says it is now.
    fn restore_from(&self, kind: Kind, strategy: Strategy, changelog: &Changelog) -> (Option<Restored>, Dump) {
        if self.store.exists() {
            std::fs::remove_dir_all(&self.store).unwrap();
        }
        let restored = snapshot::restore_newest(
            &self.location,
            STORE_ID,
            &self.store,
            changelog,
            RowLayout::of(kind == Kind::Ttl),
            RestoreBudget::default(),
        )
        .unwrap();
        let dump = open(kind, &self.store, strategy).dump();
        (restored, dump)
    }
}

/// Commits transactions `from..to` of the deterministic program (offsets 10, 20, ...).
fn commit_range(store: &Subject, from: u64, to: u64) {
    for t in from..to {
        store.write_transaction(7, t);
        store.commit((t as i64 + 1) * 10);
    }
}

#[test]
fn a_restored_snapshot_holds_the_state_and_offsets_of_its_commit_and_sends_only_new_files() {
    for kind in Kind::ALL {
        for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
            let case = format!("{kind:?} {strategy:?}");
            let bench = Bench::new();
            let store = open(kind, &bench.store, strategy);
            commit_range(&store, 0, 6);
            let first = snapshot::take(store.db(), &bench.location, STORE_ID).unwrap();
            let first_state = store.dump();
            assert_eq!(first.seq, 1, "{case}");
            assert_eq!(first.offsets, first_state.1, "{case}");
            assert_eq!(first.files_uploaded, first.files, "{case}: the first snapshot sends every file");
            assert_eq!(bench.objects().len(), first.files, "{case}");

            commit_range(&store, 6, 12);
            // uncommitted writes are not in a snapshot
            store.write_transaction(7, 12);
            let before = bench.objects();
            let second = snapshot::take(store.db(), &bench.location, STORE_ID).unwrap();
            let second_state = store.dump();
            assert_eq!(second.seq, 2, "{case}");
            assert_eq!(second.offsets, second_state.1, "{case}");
            let sent: BTreeSet<String> = bench.objects().difference(&before).cloned().collect();
            assert_eq!(second.files_uploaded, sent.len(), "{case}: counted what it sent");
            let sent_bytes: u64 =
                sent.iter().map(|o| std::fs::metadata(bench.files_dir().join(o)).unwrap().len()).sum();
            assert_eq!(second.bytes_uploaded, sent_bytes, "{case}");
            let reused = bench.referenced(2).intersection(&bench.referenced(1)).count();
            let objects = bench.referenced(2).len();
            assert!(
                reused > 0 && reused + sent.len() == objects,
                "{case}: {reused} reused, {} sent of {objects}",
                sent.len()
            );
            assert!(objects >= second.files, "{case}: every file is one object or more");
            // the write-ahead log grew: only what was appended to it is sent, after the first's copy
            let wal =
                |seq: u64| bench.manifest(seq).files.into_iter().find(|f| f.name.ends_with(".log")).expect("a WAL");
            let (first_wal, second_wal) = (wal(1), wal(2));
            assert_eq!(
                second_wal.parts[..first_wal.parts.len()],
                first_wal.parts[..],
                "{case}: the first's parts reused"
            );
            assert_eq!(second_wal.parts.len(), first_wal.parts.len() + 1, "{case}");
            let appended = second_wal.parts.last().unwrap();
            assert!(sent.contains(&appended.object) && appended.size == second_wal.size - first_wal.size, "{case}");
            assert!(
                bench.referenced(1).iter().filter(|o| o.contains(".sst-")).all(|o| bench.referenced(2).contains(o)),
                "{case}: the first snapshot's SST files are still live, so the second references them"
            );
            // no checkpoint is left behind
            assert!(std::fs::read_dir(&bench.store).unwrap().all(|e| !e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("snapshot-")));
            drop(store);

            let (restored, dump) = bench.restore(kind, strategy);
            let restored = restored.expect("a usable snapshot");
            assert_eq!(restored.seq, 2, "{case}");
            assert!(restored.skipped.is_empty(), "{case}");
            assert_eq!(restored.offsets, second_state.1, "{case}: the manifest's offsets");
            assert_eq!(restored.manifest.position, second_state.2, "{case}");
            assert!(dump == second_state, "{case}: the restored store holds the second snapshot's commit");

            // the restored store goes on: a commit after it, another snapshot, restored again
            let store = open(kind, &bench.store, strategy);
            commit_range(&store, 12, 14);
            let third = snapshot::take(store.db(), &bench.location, STORE_ID).unwrap();
            let third_state = store.dump();
            drop(store);
            assert_eq!(third.seq, 3, "{case}");
            let (restored, dump) = bench.restore(kind, strategy);
            assert_eq!(restored.unwrap().seq, 3, "{case}");
            assert!(dump == third_state, "{case}");
        }
    }
}

/// A snapshot of a store with a time-to-live is never restored into one that opens without (nor
/// the reverse): its rows would be read in the other layout and the store refused at open. It is
/// passed over as unusable, and the changelog restores the store.
#[test]
fn a_snapshot_is_restored_only_into_a_store_of_its_row_layout() {
    for (taken, restoring) in [(Kind::Ttl, Kind::KeyValue), (Kind::KeyValue, Kind::Ttl)] {
        let case = format!("taken {taken:?}, restored as {restoring:?}");
        let bench = Bench::new();
        let store = open(taken, &bench.store, Strategy::IndexedBatch);
        commit_range(&store, 0, 4);
        let state = store.dump();
        snapshot::take(store.db(), &bench.location, STORE_ID).unwrap();
        drop(store);
        assert_eq!(bench.manifest(1).ttl, taken == Kind::Ttl, "{case}: the manifest names the layout");
        let (restored, dump) = bench.restore(restoring, Strategy::IndexedBatch);
        assert!(restored.is_none(), "{case}: {restored:?}");
        assert!(dump.0.is_empty() && dump.1.is_empty(), "{case}: the store opens empty, for the changelog");
        let (restored, dump) = bench.restore(taken, Strategy::IndexedBatch);
        assert_eq!(restored.map(|r| r.seq), Some(1), "{case}: a store of its own layout restores it");
        assert!(dump == state, "{case}");
    }
}

/// Two snapshots of a key-value store of `strategy`: their states, and the objects only the
/// second references.
fn two_snapshots(bench: &Bench, strategy: Strategy) -> (Dump, Dump, Vec<String>) {
    let store = open(Kind::KeyValue, &bench.store, strategy);
    commit_range(&store, 0, 5);
    snapshot::take(store.db(), &bench.location, STORE_ID).unwrap();
    let first = store.dump();
    commit_range(&store, 5, 10);
    snapshot::take(store.db(), &bench.location, STORE_ID).unwrap();
    let second = store.dump();
    let only_second: Vec<String> = bench.referenced(2).difference(&bench.referenced(1)).cloned().collect();
    assert!(!only_second.is_empty());
    (first, second, only_second)
}

#[test]
fn a_missing_or_damaged_object_falls_back_to_the_older_snapshot() {
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        for damage in ["missing", "corrupted", "cut short"] {
            let case = format!("{strategy:?}, an object {damage}");
            let bench = Bench::new();
            let (first, second, only_second) = two_snapshots(&bench, strategy);
            let (restored, dump) = bench.restore(Kind::KeyValue, strategy);
            assert_eq!(restored.unwrap().seq, 2);
            assert!(dump == second);

            // a data file only the second references: an SST file, else the WAL a checkpoint
            // copies when it did not flush
            let data = |kind: &str| only_second.iter().find(|o| o.contains(kind) && !o.contains("-0-")).cloned();
            let object =
                bench.files_dir().join(data(".sst-").or_else(|| data(".log-")).or_else(|| data(".log+")).unwrap());
            match damage {
                "missing" => std::fs::remove_file(&object).unwrap(),
                "corrupted" => {
                    let mut bytes = std::fs::read(&object).unwrap();
                    let middle = bytes.len() / 2;
                    bytes[middle] ^= 0x01;
                    std::fs::write(&object, bytes).unwrap();
                }
                _ => {
                    let bytes = std::fs::read(&object).unwrap();
                    std::fs::write(&object, &bytes[..bytes.len() - 1]).unwrap();
                }
            }
            let (restored, dump) = bench.restore(Kind::KeyValue, strategy);
            let restored = restored.expect("the older snapshot");
            assert_eq!(restored.seq, 1, "{case}");
            assert_eq!(restored.skipped.len(), 1, "{case}");
            assert_eq!(restored.skipped[0].0, 2, "{case}");
            assert!(dump == first, "{case}: the store holds the first snapshot's commit");
            assert_eq!(restored.offsets, first.1, "{case}");
            // nothing of the unusable snapshot is left beside the store
            let siblings: Vec<_> =
                std::fs::read_dir(bench.store.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert_eq!(siblings, vec![std::ffi::OsString::from("counts")], "{case}");

            // the first damaged too: no usable snapshot, the changelog restores everything
            std::fs::remove_file(
                bench.files_dir().join(bench.referenced(1).iter().find(|o| o.starts_with("MANIFEST")).unwrap()),
            )
            .unwrap();
            let (restored, dump) = bench.restore(Kind::KeyValue, strategy);
            assert!(restored.is_none(), "{case}");
            assert!(dump.0.is_empty() && dump.1.is_empty(), "{case}: an empty store");
        }
    }
}

#[test]
fn a_snapshot_without_its_manifest_is_never_used() {
    let bench = Bench::new();
    let (first, _second, _) = two_snapshots(&bench, Strategy::IndexedBatch);
    // the second's files are all there, its manifest is not (as when the process died before it)
    std::fs::remove_file(bench.manifest_path(2)).unwrap();
    let (restored, dump) = bench.restore(Kind::KeyValue, Strategy::IndexedBatch);
    let restored = restored.unwrap();
    assert_eq!(restored.seq, 1);
    assert!(restored.skipped.is_empty(), "a snapshot without a manifest does not exist");
    assert!(dump == first);

    // a damaged manifest is passed over too
    let bench = Bench::new();
    let (first, _, _) = two_snapshots(&bench, Strategy::SecondaryStore);
    let mut bytes = std::fs::read(bench.manifest_path(2)).unwrap();
    bytes[20] ^= 0xFF;
    std::fs::write(bench.manifest_path(2), bytes).unwrap();
    let (restored, dump) = bench.restore(Kind::KeyValue, Strategy::SecondaryStore);
    let restored = restored.unwrap();
    assert_eq!(restored.seq, 1);
    assert!(restored.skipped[0].1.contains("does not decode"), "{:?}", restored.skipped);
    assert!(dump == first);
}

#[test]
fn no_snapshot_and_a_store_with_state_are_told_apart() {
    let bench = Bench::new();
    assert_eq!(
        snapshot::restore_newest(
            &bench.location,
            STORE_ID,
            &bench.store,
            &changelog(),
            RowLayout::Plain,
            RestoreBudget::default()
        )
        .unwrap(),
        None
    );
    let store = open(Kind::KeyValue, &bench.store, Strategy::IndexedBatch);
    commit_range(&store, 0, 2);
    snapshot::take(store.db(), &bench.location, STORE_ID).unwrap();
    drop(store);
    let e = snapshot::restore_newest(
        &bench.location,
        STORE_ID,
        &bench.store,
        &changelog(),
        RowLayout::Plain,
        RestoreBudget::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("only into a missing or empty directory"), "{e}");
    // another store's id has no snapshot
    assert_eq!(
        snapshot::restore_newest(
            &bench.location,
            "app/0_2/counts",
            &bench.store.with_file_name("other"),
            &changelog(),
            RowLayout::Plain,
            RestoreBudget::default()
        )
        .unwrap(),
        None
    );
    for uri in [
        "gs://bucket/prefix",
        "not a uri",
        "s3://AKIAEXAMPLE:sup3r-secret@bucket/prefix",
        "az://account:sup3r-secret@container/prefix",
        "abfss://container:sup3r-secret@account.dfs.core.windows.net/prefix",
    ] {
        let e = Location::parse(uri, &[]).unwrap_err();
        assert!(matches!(e, txn_rocksdb::Error::InvalidArgument(_)), "{uri}: {e}");
        assert!(!e.to_string().contains("sup3r-secret"), "{e}");
    }
    let option = |key: &str, value: &str| vec![(key.to_string(), value.to_string())];
    let e = Location::parse("s3://bucket/prefix", &option("aws_secret_acces_key", "sup3r-secret")).unwrap_err();
    assert!(
        e.to_string().contains("unknown S3 option 'aws_secret_acces_key'") && !e.to_string().contains("sup3r-secret"),
        "{e}"
    );
    let e = Location::parse("az://container/prefix", &option("azure_storage_acount_key", "sup3r-secret")).unwrap_err();
    assert!(
        e.to_string().contains("unknown Azure option 'azure_storage_acount_key'")
            && !e.to_string().contains("sup3r-secret"),
        "{e}"
    );
    // the Hadoop form names the container before '@' (no request is made until a snapshot is taken)
    let account = option("azure_storage_account_key", "c2VjcmV0");
    Location::parse("abfss://container@account.dfs.core.windows.net/prefix", &account).unwrap();
    Location::parse("az://container/prefix", &[option("azure_storage_account_name", "account"), account].concat())
        .unwrap();
    let e = Location::parse(&format!("file://{}", bench.objects.display()), &option("aws_region", "eu-west-1"))
        .unwrap_err();
    assert!(e.to_string().contains("does not apply to a file:// location"), "{e}");
    Location::parse("s3://bucket/prefix", &option("aws_endpoint", "http://127.0.0.1:1")).unwrap();
    let other =
        txn_rocksdb::KeyValueStore::open(bench.store.with_file_name("other-store"), StoreOptions::default()).unwrap();
    let e = snapshot::take(&other, &bench.location, "a/../b").unwrap_err();
    assert!(matches!(e, txn_rocksdb::Error::InvalidArgument(_)), "{e}");
}

#[test]
fn retention_deletes_exactly_the_objects_no_kept_snapshot_references() {
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        let bench = Bench::new();
        let mut states = Vec::new();
        for round in 0..4 {
            // reopened every round: its write-ahead log flushed and replaced, so older snapshots
            // reference files the newer ones do not
            let store = open(Kind::Window, &bench.store, strategy);
            commit_range(&store, round * 4, round * 4 + 4);
            snapshot::take(store.db(), &bench.location, STORE_ID).unwrap();
            states.push(store.dump());
        }
        let all = bench.objects();
        let kept: BTreeSet<String> = bench.referenced(3).union(&bench.referenced(4)).cloned().collect();
        let expected_deleted: Vec<String> = all.difference(&kept).cloned().collect();
        assert!(!expected_deleted.is_empty(), "{strategy:?}: the older snapshots have files the newer ones dropped");

        assert!(snapshot::retain(&bench.location, STORE_ID, 0, &AtomicBool::new(false)).is_err());
        let retained = snapshot::retain(&bench.location, STORE_ID, 2, &AtomicBool::new(false)).unwrap();
        assert_eq!(retained.kept, vec![4, 3], "{strategy:?}");
        assert_eq!(retained.manifests_deleted, vec![1, 2], "{strategy:?}");
        assert_eq!(retained.files_deleted, expected_deleted, "{strategy:?}");
        assert_eq!(bench.objects(), kept, "{strategy:?}");
        assert!(!bench.manifest_path(1).exists() && !bench.manifest_path(2).exists());

        // nothing more to delete; both kept snapshots restore
        assert_eq!(
            snapshot::retain(&bench.location, STORE_ID, 2, &AtomicBool::new(false)).unwrap().files_deleted,
            Vec::<String>::new()
        );
        let (restored, dump) = bench.restore(Kind::Window, strategy);
        assert_eq!(restored.unwrap().seq, 4);
        assert!(dump == states[3]);
        std::fs::remove_file(bench.manifest_path(4)).unwrap();
        let (restored, dump) = bench.restore(Kind::Window, strategy);
        assert_eq!(restored.unwrap().seq, 3);
        assert!(dump == states[2]);
    }
}

#[test]
fn retention_keeps_the_objects_of_a_snapshot_being_written() {
    let bench = Bench::new();
    let (_, second, _) = two_snapshots(&bench, Strategy::IndexedBatch);
    // objects a snapshot in progress sent (its manifest not written yet) are newer than every
    // kept manifest
    std::thread::sleep(std::time::Duration::from_millis(20));
    let in_progress = bench.files_dir().join("000999.sst-3-00000000");
    std::fs::write(&in_progress, b"abc").unwrap();
    let retained = snapshot::retain(&bench.location, STORE_ID, 1, &AtomicBool::new(false)).unwrap();
    assert_eq!(retained.kept, vec![2]);
    assert!(in_progress.exists());
    assert!(!retained.files_deleted.iter().any(|o| bench.referenced(2).contains(o)));
    let (restored, dump) = bench.restore(Kind::KeyValue, Strategy::IndexedBatch);
    assert_eq!(restored.unwrap().seq, 2);
    assert!(dump == second);
}

#[test]
fn a_snapshot_is_used_only_while_the_changelog_still_has_its_offset() {
    let bench = Bench::new();
    // two snapshots: offsets 50 and 100 (the last record applied)
    let (first, second, _) = two_snapshots(&bench, Strategy::IndexedBatch);
    assert_eq!(first.1, vec![(tp(), 50)]);
    assert_eq!(second.1, vec![(tp(), 100)]);
    let at = |start, end| Changelog { partition: tp(), start, end };

    // the changelog as it is: its end just past the second's offset
    let (restored, dump) = bench.restore_from(Kind::KeyValue, Strategy::IndexedBatch, &at(0, 101));
    assert_eq!(restored.unwrap().seq, 2);
    assert!(dump == second);
    // Kafka seeks to offset + 1, which must exist: the log start at 51 still has record 51
    let (restored, _) = bench.restore_from(Kind::KeyValue, Strategy::IndexedBatch, &at(51, 200));
    assert_eq!(restored.unwrap().seq, 2);

    // the changelog recreated shorter (or the application reset): the second is ahead of it, the
    // first still fits
    let (restored, dump) = bench.restore_from(Kind::KeyValue, Strategy::IndexedBatch, &at(0, 60));
    let restored = restored.unwrap();
    assert_eq!(restored.seq, 1);
    assert!(restored.skipped[0].1.contains("not one the changelog"), "{:?}", restored.skipped);
    assert!(dump == first);

    // truncated past both: none is used, the store restores from the changelog alone
    let (restored, dump) = bench.restore_from(Kind::KeyValue, Strategy::IndexedBatch, &at(102, 300));
    assert!(restored.is_none());
    assert!(dump.0.is_empty() && dump.1.is_empty());
    // an empty topic of the same name
    assert!(bench.restore_from(Kind::KeyValue, Strategy::IndexedBatch, &at(0, 0)).0.is_none());

    // another partition or topic: never
    let other = Changelog {
        partition: txn_rocksdb::TopicPartition { topic: "app-other-changelog".into(), partition: 0 },
        start: 0,
        end: 1000,
    };
    assert!(bench.restore_from(Kind::KeyValue, Strategy::IndexedBatch, &other).0.is_none());
    let other =
        Changelog { partition: txn_rocksdb::TopicPartition { topic: tp().topic, partition: 1 }, start: 0, end: 1000 };
    assert!(bench.restore_from(Kind::KeyValue, Strategy::IndexedBatch, &other).0.is_none());
}

#[test]
fn a_prepared_snapshot_holds_its_commit_whatever_the_store_does_meanwhile() {
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        let bench = Bench::new();
        let store = open(Kind::KeyValue, &bench.store, strategy);
        commit_range(&store, 0, 4);
        let at_prepare = store.dump();
        let prepared = snapshot::prepare(store.db()).unwrap();
        // commits go on, then the store closes, before the upload runs
        commit_range(&store, 4, 8);
        let later = store.dump();
        drop(store);
        let taken = snapshot::upload(prepared, &bench.location, STORE_ID, &AtomicBool::new(false)).unwrap();
        assert_eq!(taken.offsets, at_prepare.1, "{strategy:?}");
        assert!(std::fs::read_dir(&bench.store).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("snapshot-")));
        let (restored, dump) = bench.restore(Kind::KeyValue, strategy);
        assert_eq!(restored.unwrap().seq, 1);
        assert!(dump == at_prepare, "{strategy:?}: the state at the checkpoint, not after");
        assert!(dump != later);
    }
}

#[test]
fn a_cancelled_upload_writes_no_snapshot_and_the_next_one_completes() {
    let bench = Bench::new();
    let store = open(Kind::KeyValue, &bench.store, Strategy::IndexedBatch);
    commit_range(&store, 0, 4);
    let prepared = snapshot::prepare(store.db()).unwrap();
    let e = snapshot::upload(prepared, &bench.location, STORE_ID, &AtomicBool::new(true)).unwrap_err();
    assert!(matches!(e, txn_rocksdb::Error::Snapshot { .. }), "{e:?}");
    assert!(e.to_string().contains("cancelled"), "{e}");
    assert!(!bench.manifest_path(1).exists(), "no manifest: no snapshot");
    assert!(std::fs::read_dir(&bench.store).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with("snapshot-")));
    let taken = snapshot::take(store.db(), &bench.location, STORE_ID).unwrap();
    assert_eq!(taken.seq, 1);
    let state = store.dump();
    drop(store);
    let (restored, dump) = bench.restore(Kind::KeyValue, Strategy::IndexedBatch);
    assert_eq!(restored.unwrap().seq, 1);
    assert!(dump == state);
}

#[test]
fn a_store_wiped_and_recreated_is_never_given_the_old_files_checksums() {
    use txn_rocksdb::{KeyValueStore, Range};
    let bench = Bench::new();
    // the data in the WAL only, then reopened: RocksDB flushes what it recovers into one SST file
    // at open, so both stores below have the same files, of the same sizes, with other bytes
    let fill = |byte: u8| {
        let store = KeyValueStore::open(&bench.store, StoreOptions::default()).unwrap();
        for i in 0..2_000u32 {
            store.put(format!("key-{i:05}").as_bytes(), Some(&[byte; 100])).unwrap();
        }
        store.commit(&[(tp(), Some(10))], None).unwrap();
        drop(store);
        KeyValueStore::open(&bench.store, StoreOptions::default()).unwrap()
    };
    let first = fill(b'a');
    snapshot::take(&first, &bench.location, STORE_ID).unwrap();
    drop(first);
    // wiped and recreated: RocksDB numbers its files from the start again, in a new identity
    std::fs::remove_dir_all(&bench.store).unwrap();
    let second = fill(b'b');
    snapshot::take(&second, &bench.location, STORE_ID).unwrap();
    let expected = second.range(Range::all()).unwrap().collect_all().unwrap();
    drop(second);
    let sst = |seq: u64| -> BTreeSet<(String, u64)> {
        bench.manifest(seq).files.into_iter().filter(|f| f.name.ends_with(".sst")).map(|f| (f.name, f.size)).collect()
    };
    assert!(!sst(1).is_empty() && sst(1) == sst(2), "the same SST names and sizes in both: {:?} {:?}", sst(1), sst(2));
    assert_ne!(bench.referenced(1), bench.referenced(2), "other bytes, other objects");

    std::fs::remove_dir_all(&bench.store).unwrap();
    let restored = snapshot::restore_newest(
        &bench.location,
        STORE_ID,
        &bench.store,
        &changelog(),
        RowLayout::Plain,
        RestoreBudget::default(),
    )
    .unwrap()
    .unwrap();
    assert_eq!(restored.seq, 2);
    let store = KeyValueStore::open(&bench.store, StoreOptions::default()).unwrap();
    assert_eq!(store.range(Range::all()).unwrap().collect_all().unwrap(), expected);
}

#[test]
fn a_later_snapshot_reuses_the_checksums_it_read_and_still_restores_exactly() {
    let bench = Bench::new();
    let store = open(Kind::KeyValue, &bench.store, Strategy::IndexedBatch);
    for round in 0..3 {
        commit_range(&store, round * 5, round * 5 + 5);
        snapshot::take(store.db(), &bench.location, STORE_ID).unwrap();
    }
    let state = store.dump();
    // a file of the store changed under the same name and size would be sent with its old
    // checksum; SST files never change, so the restored state is the store's
    drop(store);
    let (restored, dump) = bench.restore(Kind::KeyValue, Strategy::IndexedBatch);
    assert_eq!(restored.unwrap().seq, 3);
    assert!(dump == state);
}

/// A zombie: two instances of one store (the task's old owner, still snapshotting after the task
/// moved, and its new owner) send snapshots of the same store id at the same time, each also
/// running retention. Each manifest is written once (a second writer of the same number fails
/// instead), and whatever survives restores exactly one of the two committed images, never a mix.
#[test]
fn two_owners_snapshotting_one_store_at_once_never_make_a_mixed_image() {
    let bench = Bench::new();
    let zombie_dir = bench.store.with_file_name("zombie");
    let owner_dir = bench.store.with_file_name("owner");
    let zombie = open(Kind::KeyValue, &zombie_dir, Strategy::IndexedBatch);
    commit_range(&zombie, 0, 6);
    let owner = open(Kind::KeyValue, &owner_dir, Strategy::IndexedBatch);
    commit_range(&owner, 0, 12);
    let images = [zombie.dump(), owner.dump()];
    assert!(images[0] != images[1]);

    let run = |store: &Subject| {
        let (mut taken, mut refused) = (0, 0);
        for _ in 0..15 {
            match snapshot::take(store.db(), &bench.location, STORE_ID) {
                Ok(_) => taken += 1,
                Err(e) => {
                    // On Windows (under Wine) the two may also collide on a file both send: the
                    // replace of an object the other owner is replacing or deleting is refused
                    // (the local file system's rename fails). Either way the snapshot fails
                    // whole, as an upload failure does, and is retried.
                    let collided = cfg!(windows) && e.to_string().contains("rename");
                    assert!(
                        collided || e.to_string().contains("another snapshot of this store wrote this manifest"),
                        "{e}"
                    );
                    refused += 1;
                }
            }
            snapshot::retain(&bench.location, STORE_ID, 2, &AtomicBool::new(false)).unwrap();
        }
        (taken, refused)
    };
    let (taken, refused) = std::thread::scope(|scope| {
        let a = scope.spawn(|| run(&zombie));
        let b = scope.spawn(|| run(&owner));
        let (a, b) = (a.join().unwrap(), b.join().unwrap());
        (a.0 + b.0, a.1 + b.1)
    });
    assert!(taken > 0, "{taken} taken, {refused} refused");
    drop(zombie);
    drop(owner);

    // every manifest still there restores one whole image (the newest usable first, then each
    // older one with the newer removed)
    let mut restored_any = false;
    loop {
        let (restored, dump) = bench.restore(Kind::KeyValue, Strategy::IndexedBatch);
        let Some(restored) = restored else { break };
        restored_any = true;
        assert!(dump == images[0] || dump == images[1], "snapshot {} is a committed image of one owner", restored.seq);
        std::fs::remove_file(bench.manifest_path(restored.seq)).unwrap();
    }
    assert!(restored_any, "the newest snapshot restores");
}

/// Restored records skip the WAL, and so do the offsets of the commits that follow them until a
/// flush; a checkpoint that copies the WAL rather than flush holds neither or both, never an
/// offset past records it lacks.
#[test]
fn a_snapshot_right_after_a_restore_never_holds_offsets_past_its_records() {
    use txn_rocksdb::{KeyValueStore, Range};
    for flush_between in [false, true] {
        let bench = Bench::new();
        let store = KeyValueStore::open(&bench.store, StoreOptions::default()).unwrap();
        let records: Vec<(Vec<u8>, Vec<u8>)> =
            (0..500u32).map(|i| (format!("key-{i:04}").into_bytes(), format!("value-{i}").into_bytes())).collect();
        store.restore(records.iter().map(|(k, v)| (k.as_slice(), Some(v.as_slice())))).unwrap();
        // Kafka commits the restored offset with nothing staged
        store.commit(&[(tp(), Some(499))], None).unwrap();
        if flush_between {
            // a commit with data flushes the restored records first
            store.put(b"zzz", Some(b"written")).unwrap();
            store.commit(&[(tp(), Some(500))], None).unwrap();
        }
        let taken = snapshot::take(&store, &bench.location, STORE_ID).unwrap();
        drop(store);
        std::fs::remove_dir_all(&bench.store).unwrap();
        let Some(_) = snapshot::restore_newest(
            &bench.location,
            STORE_ID,
            &bench.store,
            &changelog(),
            RowLayout::Plain,
            RestoreBudget::default(),
        )
        .unwrap() else {
            // an image without an offset is never used: the changelog restores everything
            assert!(taken.offsets.is_empty() && !flush_between, "{:?}", taken.offsets);
            continue;
        };
        let restored = KeyValueStore::open(&bench.store, StoreOptions::default()).unwrap();
        let entries = restored.range(Range::all()).unwrap().collect_all().unwrap();
        let offsets = restored.committed_offsets().unwrap();
        assert_eq!(offsets, taken.offsets, "the manifest says what the image holds");
        let offset = offsets.first().map(|(_, o)| *o).expect("a used snapshot holds an offset");
        assert!(offset >= 499, "{offset}");
        assert!(entries.len() >= 500, "offset {offset} with {} of the 500 restored records", entries.len());
        if flush_between {
            assert_eq!(offsets, vec![(tp(), 500)], "a commit with data is in the image");
        }
    }
}

/// A store of about 3 MB of incompressible values, committed (at offset 10).
fn store_of_3_mb(dir: &Path) -> txn_rocksdb::KeyValueStore {
    let store = txn_rocksdb::KeyValueStore::open(dir, StoreOptions::default()).unwrap();
    let mut rng = common::Rng(0x5EED_1234_5678_9ABD);
    for i in 0..3_000u32 {
        let value: Vec<u8> = (0..125).flat_map(|_| rng.next().to_le_bytes()).collect();
        store.put(format!("key-{i:05}").as_bytes(), Some(&value)).unwrap();
    }
    store.commit(&[(tp(), Some(10))], None).unwrap();
    store
}

#[test]
fn an_upload_limit_holds_each_file_to_its_rate_and_a_cancel_still_stops_it_at_once() {
    let bench = Bench::new();
    let store = store_of_3_mb(&bench.store);
    let limit = 1_000_000;
    let limited = Location::open(
        &format!("file://{}", bench.objects.display()),
        &[],
        LocationSettings { upload_bytes_per_second: limit, ..LocationSettings::default() },
    )
    .unwrap();
    let started = std::time::Instant::now();
    let taken = snapshot::take(&store, &limited, STORE_ID).unwrap();
    let took = started.elapsed();
    assert!(taken.bytes_uploaded > 2_500_000, "{taken:?}");
    // each file waits before each piece (a tenth of a second's worth) but its first until the
    // bytes sent are those the rate allows: at least (bytes - one piece per file) / rate
    let floor = (taken.bytes_uploaded - taken.files_uploaded as u64 * (limit / 10)) as f64 / limit as f64;
    assert!(
        took.as_secs_f64() >= floor,
        "{} bytes in {took:?}, faster than {limit} bytes/s ({floor:.2} s)",
        taken.bytes_uploaded
    );
    let state =
        (store.range(txn_rocksdb::Range::all()).unwrap().collect_all().unwrap(), store.committed_offsets().unwrap());

    // a cancel while it waits for the rate: within a part of a second, not after the file
    store.put(b"one-more", Some(&[1u8; 3_000_000])).unwrap();
    store.commit(&[(tp(), Some(20))], None).unwrap();
    let prepared = snapshot::prepare(&store).unwrap();
    let slow = Location::open(
        &format!("file://{}", bench.objects.display()),
        &[],
        LocationSettings { upload_bytes_per_second: 100_000, ..LocationSettings::default() },
    )
    .unwrap();
    let cancel = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let upload = scope.spawn(|| snapshot::upload(prepared, &slow, STORE_ID, &cancel));
        std::thread::sleep(std::time::Duration::from_millis(500));
        let cancelled_at = std::time::Instant::now();
        cancel.store(true, std::sync::atomic::Ordering::Release);
        let e = upload.join().unwrap().unwrap_err();
        assert!(e.to_string().contains("cancelled"), "{e}");
        assert!(
            cancelled_at.elapsed() < std::time::Duration::from_secs(5),
            "the cancel took {:?}",
            cancelled_at.elapsed()
        );
    });
    drop(store);

    // the limited snapshot restores exactly its commit
    std::fs::remove_dir_all(&bench.store).unwrap();
    assert_eq!(
        snapshot::restore_newest(
            &bench.location,
            STORE_ID,
            &bench.store,
            &changelog(),
            RowLayout::Plain,
            RestoreBudget::default()
        )
        .unwrap()
        .unwrap()
        .seq,
        1
    );
    let restored = txn_rocksdb::KeyValueStore::open(&bench.store, StoreOptions::default()).unwrap();
    assert!(
        (
            restored.range(txn_rocksdb::Range::all()).unwrap().collect_all().unwrap(),
            restored.committed_offsets().unwrap()
        ) == state
    );
}

/// Under the same trickle of updates, each snapshot sends about what changed, whether the state
/// sits entirely in the memtable (its data only in the write-ahead log, which a snapshot once sent
/// whole every time) or in SST files: here within 3x the bytes of the keys and values written since
/// the last snapshot, plus 4 KiB.
#[test]
fn each_snapshot_sends_what_changed_for_a_small_and_a_large_state() {
    use txn_rocksdb::KeyValueStore;
    let value = |i: u32, round: u32| format!("{i:08}-{round:04}-").repeat(7).into_bytes(); // 98 bytes
    for (state, keys) in [("small, in the memtable", 2_000u32), ("large, in SST files", 200_000)] {
        let bench = Bench::new();
        let mut store = KeyValueStore::open(&bench.store, StoreOptions::default()).unwrap();
        for chunk in (0..keys).collect::<Vec<_>>().chunks(10_000) {
            for &i in chunk {
                store.put(format!("key-{i:08}").as_bytes(), Some(&value(i, 0))).unwrap();
            }
            store.commit(&[(tp(), Some(i64::from(chunk[0])))], None).unwrap();
        }
        if keys > 100_000 {
            // reopened: the memtable flushed into SST files, a new write-ahead log
            drop(store);
            store = KeyValueStore::open(&bench.store, StoreOptions::default()).unwrap();
        }
        let first = snapshot::take(&store, &bench.location, STORE_ID).unwrap();
        let mut sent = Vec::new();
        for round in 1..=10u32 {
            let mut changed = 0;
            for j in 0..20 {
                let i = (round * 7_919 + j * 104_729) % keys;
                let (key, value) = (format!("key-{i:08}"), value(i, round));
                changed += key.len() + value.len();
                store.put(key.as_bytes(), Some(&value)).unwrap();
            }
            store.commit(&[(tp(), Some(1_000_000 + i64::from(round)))], None).unwrap();
            let taken = snapshot::take(&store, &bench.location, STORE_ID).unwrap();
            sent.push(taken.bytes_uploaded);
            assert!(
                taken.bytes_uploaded <= 3 * changed as u64 + 4_096,
                "{state}: snapshot {} sent {} bytes for {changed} bytes changed (the first sent {})",
                taken.seq,
                taken.bytes_uploaded,
                first.bytes_uploaded
            );
        }
        eprintln!(
            "{state}: {keys} keys, first snapshot {} bytes, then per snapshot {sent:?} for 2,200 bytes changed",
            first.bytes_uploaded
        );
        let state_now = (
            store.range(txn_rocksdb::Range::all()).unwrap().collect_all().unwrap(),
            store.committed_offsets().unwrap(),
        );
        drop(store);
        std::fs::remove_dir_all(&bench.store).unwrap();
        let restored = snapshot::restore_newest(
            &bench.location,
            STORE_ID,
            &bench.store,
            &changelog(),
            RowLayout::Plain,
            RestoreBudget::default(),
        )
        .unwrap();
        assert_eq!(restored.unwrap().seq, 11, "{state}");
        let store = KeyValueStore::open(&bench.store, StoreOptions::default()).unwrap();
        let restored_state = (
            store.range(txn_rocksdb::Range::all()).unwrap().collect_all().unwrap(),
            store.committed_offsets().unwrap(),
        );
        assert!(
            restored_state == state_now,
            "{state}: the newest snapshot, its parts put together, is the store's commit"
        );
    }
}

/// An object every snapshot shares (an SST file of the store's state), damaged in place: each
/// snapshot reads back two of the objects it references, so within 2 x (objects / 2) snapshots one
/// finds it damaged and sends it again, and the newest snapshot restores; damaged again, a restore
/// that finds it deletes it (falling back to the changelog, every snapshot sharing it), and the
/// next snapshot sends it again at once.
#[test]
fn a_damaged_object_every_snapshot_shares_is_sent_again() {
    use txn_rocksdb::KeyValueStore;
    let bench = Bench::new();
    let mut store = KeyValueStore::open(&bench.store, StoreOptions::default()).unwrap();
    for i in 0..20_000u32 {
        store.put(format!("key-{i:08}").as_bytes(), Some(&[i as u8; 100])).unwrap();
    }
    store.commit(&[(tp(), Some(1))], None).unwrap();
    drop(store);
    store = KeyValueStore::open(&bench.store, StoreOptions::default()).unwrap(); // flushed into SST files
    let mut offset = 1;
    let mut snapshot = |store: &KeyValueStore| {
        offset += 1;
        store.put(format!("trickle-{offset}").as_bytes(), Some(b"x")).unwrap();
        store.commit(&[(tp(), Some(offset))], None).unwrap();
        snapshot::take(store, &bench.location, STORE_ID).unwrap()
    };
    let first = snapshot(&store);
    let sst = bench.referenced(first.seq).into_iter().find(|o| o.contains(".sst-")).expect("an SST file");
    let damage = || {
        let path = bench.files_dir().join(&sst);
        let mut bytes = std::fs::read(&path).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x10;
        std::fs::write(&path, bytes).unwrap();
    };
    snapshot(&store);
    damage();
    let objects = bench.referenced(first.seq).len();
    let bound = 2 * objects.div_ceil(2) + 1;
    let mut healed_after = None;
    for n in 1..=bound {
        let taken = snapshot(&store);
        assert!(bench.referenced(taken.seq).contains(&sst), "every snapshot shares it");
        if taken.objects_damaged > 0 {
            assert_eq!((taken.objects_damaged, taken.objects_resent), (1, 1), "{taken:?}");
            healed_after = Some(n);
            break;
        }
    }
    let healed_after =
        healed_after.unwrap_or_else(|| panic!("not found damaged within {bound} snapshots of {objects} objects"));
    eprintln!(
        "found damaged and sent again by snapshot {healed_after} after the damage ({objects} objects, bound {bound})"
    );
    let newest = snapshot(&store);
    let state =
        (store.range(txn_rocksdb::Range::all()).unwrap().collect_all().unwrap(), store.committed_offsets().unwrap());
    let restore_into = |dir: &Path| {
        snapshot::restore_newest(
            &bench.location,
            STORE_ID,
            dir,
            &changelog(),
            RowLayout::Plain,
            RestoreBudget::default(),
        )
        .unwrap()
    };
    let host = bench.store.with_file_name("host-2");
    assert_eq!(restore_into(&host).map(|r| r.seq), Some(newest.seq), "the newest snapshot restores");
    let restored = KeyValueStore::open(&host, StoreOptions::default()).unwrap();
    assert!(
        (
            restored.range(txn_rocksdb::Range::all()).unwrap().collect_all().unwrap(),
            restored.committed_offsets().unwrap()
        ) == state
    );
    drop(restored);

    // damaged again: a restore finds it in every snapshot, deletes it, restores nothing; the next
    // snapshot sends it again, and the restore after it uses that snapshot
    damage();
    assert_eq!(restore_into(&bench.store.with_file_name("host-3")), None, "every snapshot shares the damaged object");
    assert!(!bench.files_dir().join(&sst).exists(), "the restore deleted it");
    let taken = snapshot(&store);
    assert_eq!(taken.objects_resent, 1, "{taken:?}");
    assert!(bench.files_dir().join(&sst).exists());
    assert_eq!(restore_into(&bench.store.with_file_name("host-4")).map(|r| r.seq), Some(taken.seq));
}
