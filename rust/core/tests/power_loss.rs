//! Power loss with `sync_commit`: every commit acknowledged before the power went is there after.
//!
//! A child process (this test binary, `--exact child`) commits transactions to a store with the
//! power-loss shim preloaded (`tests/power_loss/shim.c`, built here with the C compiler): the shim
//! records, at every fsync/fdatasync, what a power loss would leave of the store's directory (a
//! file's data as of its last sync, a directory's entries as of the directory's last sync). The
//! parent kills the child with SIGKILL mid-stream, builds that durable image (files never synced
//! into their directory are gone, data never synced is gone) and opens the store on it: its
//! committed offset is at least the last one the child acknowledged, and its content is exactly
//! that commit's. Small memtables (tuned per store) make the stores flush and compact while it
//! runs, so SST files, MANIFEST and WAL rotation are part of what must survive.
//!
//! The control: without `sync_commit` the same runs lose acknowledged commits on the image (the
//! shim really discards what was not synced). The store then opens at an earlier consistent
//! commit, under both strategies: it never refuses and never opens with a state that is not a
//! commit's. (Before 2026-12 the secondary-store strategy refused in about 2 of 20 runs: the
//! rename of its commit file was durable, its content was not.)
//!
//! The cuts also land at each step of a secondary-store commit, by crash point: before it, after
//! each write of its copy (copies of 512 bytes, so every commit takes several), after the last
//! one and after the truncation of the temporary store, with and without `sync_commit`; and at each
//! step of a commit by ingestion (`secondary/ingest.rs`).
//!
//! Linux only: the shim is an `LD_PRELOAD` library over glibc's fsync family, which macOS
//! (`DYLD_INSERT_LIBRARIES`, F_FULLFSYNC) and Windows (no preloading) do not have; there the crash
//! tests (`crash_points.rs`) still kill and reopen stores, without a power loss.
#![cfg(target_os = "linux")]

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use txn_rocksdb::stats::Stat;
use txn_rocksdb::tuning::Tuning;
use txn_rocksdb::{CorruptionPolicy, KeyValueStore, Range, StoreOptions, Strategy, TopicPartition};

const KEYS: u64 = 300;
const WRITES_PER_COMMIT: u64 = 12;
const STORE_NAME: &str = "power-loss-store";

fn tp() -> TopicPartition {
    TopicPartition { topic: "app-store-changelog".into(), partition: 0 }
}

/// Commit `i`'s writes: puts of ~200-byte values, every fifth commit also deletes a key.
fn writes(i: u64) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
    let mut out: Vec<_> = (0..WRITES_PER_COMMIT)
        .map(|j| {
            let key = format!("key-{:04}", (i * 7 + j * 31) % KEYS).into_bytes();
            let mut value = format!("value-{i}-{j}-").into_bytes();
            value.resize(200, b'x');
            (key, Some(value))
        })
        .collect();
    if i % 5 == 0 {
        out.push((format!("key-{:04}", (i * 13) % KEYS).into_bytes(), None));
    }
    out
}

/// The committed state after commits `1..=last`.
fn model(last: u64) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut state = BTreeMap::new();
    for i in 1..=last {
        for (key, value) in writes(i) {
            match value {
                Some(value) => state.insert(key, value),
                None => state.remove(&key),
            };
        }
    }
    state
}

fn strategy() -> Strategy {
    Strategy::parse(&std::env::var("TXN_POWERLOSS_STRATEGY").unwrap()).unwrap()
}

fn open(dir: &Path, strategy: Strategy, sync_commit: bool) -> txn_rocksdb::Result<KeyValueStore> {
    // 64 KiB memtables: the store flushes to SST files (and compacts) every few commits.
    let tuning = Tuning::new(&["write_buffer_size=65536", "level0_file_num_compaction_trigger=2"]).unwrap();
    // The store has a changelog: if it cannot prove a commit's state, it heals from it.
    let corruption = CorruptionPolicy::RestoreFromChangelog;
    KeyValueStore::open(dir, StoreOptions { strategy, sync_commit, corruption, tuning, ..StoreOptions::default() })
}

/// The child: commits until it is killed, acknowledging each commit on stdout once it returned.
#[test]
fn child() {
    let Ok(dir) = std::env::var("TXN_POWERLOSS_DIR") else { return };
    let sync_commit = std::env::var("TXN_POWERLOSS_SYNC").unwrap() == "true";
    let store = open(Path::new(&dir), strategy(), sync_commit).unwrap();
    let mut out = std::io::stdout().lock();
    for i in 1.. {
        for (key, value) in writes(i) {
            store.put(&key, value.as_deref()).unwrap();
        }
        store.commit(&[(tp(), Some(i as i64))], None).unwrap();
        writeln!(out, "acked {i}").unwrap();
        out.flush().unwrap();
    }
}

/// The shim, compiled once per test run.
fn shim() -> &'static Path {
    static SHIM: OnceLock<PathBuf> = OnceLock::new();
    SHIM.get_or_init(|| {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/power_loss/shim.c");
        let dir = std::env::temp_dir().join(format!("txn-rocksdb-power-loss-shim-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let library = dir.join("shim.so");
        // The shim is loaded into this test's own children, so it must be built for the machine the
        // test runs on: scripts/test-aarch64.sh names the cross compiler (CC is the host's there).
        let compiler =
            std::env::var("TXN_ROCKSDB_TEST_CC").or_else(|_| std::env::var("CC")).unwrap_or_else(|_| "cc".into());
        let status = Command::new(&compiler)
            .args(["-shared", "-fPIC", "-O1", "-o"])
            .arg(&library)
            .arg(&source)
            .arg("-ldl")
            .status()
            .unwrap_or_else(|e| panic!("running the C compiler '{compiler}' to build the power-loss shim: {e}"));
        assert!(status.success(), "building the power-loss shim failed");
        library
    })
}

/// How a secondary-store transaction that spilled commits: copied through the memtable
/// (`secondary/roll_forward.rs`), or ingested as SST files (`secondary/ingest.rs`, forced for
/// every size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Commit {
    Copy,
    Ingest,
}

/// Where the power goes: once the parent has read this many acknowledgements, or when the child
/// reaches a crash point (`TXN_ROCKSDB_FAULT`, copies of 512 bytes).
#[derive(Debug, Clone)]
enum Cut {
    AfterAcks(u64),
    At(String),
}

/// Runs the child until `cut` (the parent kills it with SIGKILL after the acknowledgements, or it
/// kills itself at the crash point) and returns the last commit it acknowledged.
fn run_and_cut_power(
    store_dir: &Path,
    durable: &Path,
    strategy: Strategy,
    sync_commit: bool,
    cut: &Cut,
    commit: Commit,
) -> u64 {
    let (acks, fault) = match cut {
        Cut::AfterAcks(acks) => (*acks, "commit:begin@1000000".to_string()),
        Cut::At(point) => (u64::MAX, point.clone()),
    };
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env("LD_PRELOAD", shim())
        .env("TXN_POWERLOSS_DIR", store_dir)
        .env("TXN_POWERLOSS_DURABLE", durable)
        .env("TXN_POWERLOSS_STRATEGY", strategy.name())
        .env("TXN_POWERLOSS_SYNC", sync_commit.to_string())
        .env("TXN_ROCKSDB_FAULT", fault)
        .env("TXN_ROCKSDB_COPY_BATCH_BYTES", "512")
        .env("TXN_ROCKSDB_INGEST_BYTES", if commit == Commit::Ingest { "1" } else { "18446744073709551615" })
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut last = 0;
    while last < acks {
        let Some(line) = lines.next() else {
            assert!(matches!(cut, Cut::At(_)), "the child stopped before it was killed");
            break; // it killed itself at the crash point
        };
        if let Some(i) = line.unwrap().strip_prefix("acked ") {
            last = i.parse().unwrap();
        }
    }
    let _ = child.kill(); // SIGKILL (at a crash point the child already sent it to itself)
    let status = child.wait().unwrap();
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(9), "the child ended by SIGKILL ({cut:?})");
    // Acknowledgements the child wrote before it died count too.
    for line in lines {
        if let Some(i) = line.unwrap().strip_prefix("acked ") {
            last = i.parse().unwrap();
        }
    }
    last
}

/// Builds what a power loss leaves of the watched directory from the shim's records.
fn durable_image(durable: &Path, relative: &str, image: &Path) {
    fs::create_dir_all(image).unwrap();
    let listing = durable.join("dirs").join(format!("dir%{}", relative.replace('/', "%")));
    let Ok(listing) = fs::read_to_string(listing) else { return }; // never synced: empty
    for line in listing.lines() {
        let mut parts = line.splitn(3, ' ');
        let (kind, id, name) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
        let path = image.join(name);
        if kind == "d" {
            let inner = if relative.is_empty() { name.to_string() } else { format!("{relative}/{name}") };
            durable_image(durable, &inner, &path);
        } else {
            match fs::read(durable.join("data").join(id)) {
                Ok(data) => fs::write(&path, data).unwrap(),
                Err(_) => fs::write(&path, b"").unwrap(), // the entry was synced, its data never
            }
        }
    }
}

struct Outcome {
    acknowledged: u64,
    /// The commit the store reopened at (0 after a wipe).
    recovered: u64,
    /// The store could not prove a commit's state and deleted its files (its changelog restores it).
    wiped: bool,
    /// SST files in the image: the memtables flushed before the cut.
    sst_files: usize,
}

/// One run: commits, a power cut at `cut`, the store opened on the durable image; it always opens
/// (it has a changelog to heal from), and holds exactly its committed offset's state.
fn power_cut(strategy: Strategy, sync_commit: bool, cut: Cut) -> Outcome {
    power_cut_committing(strategy, sync_commit, cut, Commit::Copy)
}

fn power_cut_committing(strategy: Strategy, sync_commit: bool, cut: Cut, commit: Commit) -> Outcome {
    let root = tempfile::tempdir().unwrap();
    let store_dir = root.path().join(STORE_NAME);
    fs::create_dir_all(&store_dir).unwrap();
    let store_dir = store_dir.canonicalize().unwrap();
    let durable = root.path().join("durable");
    fs::create_dir_all(durable.join("data")).unwrap();
    fs::create_dir_all(durable.join("dirs")).unwrap();
    let acknowledged = run_and_cut_power(&store_dir, &durable, strategy, sync_commit, &cut, commit);

    let image = root.path().join("image").join(STORE_NAME);
    durable_image(&durable, "", &image);
    let sst_files = fs::read_dir(&image)
        .unwrap()
        .filter(|entry| entry.as_ref().unwrap().path().extension().is_some_and(|ext| ext == "sst"))
        .count();
    let what = format!("{} (sync {sync_commit}, cut {cut:?}, {commit:?})", strategy.name());
    let store = open(&image, strategy, sync_commit).unwrap_or_else(|e| panic!("{what}: refused to open: {e}"));
    let wiped = store.stats()[Stat::Wipes as usize] == 1;
    let offsets = store.committed_offsets().unwrap();
    let recovered = offsets.iter().find(|(partition, _)| *partition == tp()).map_or(0, |(_, offset)| *offset as u64);
    let content: BTreeMap<_, _> = store
        .range(Range { committed_only: true, ..Range::all() })
        .unwrap()
        .collect_all()
        .unwrap()
        .into_iter()
        .collect();
    assert!(
        content == model(recovered),
        "{what}: the image opened at commit {recovered} with content that is not that commit's ({} keys, expected {})",
        content.len(),
        model(recovered).len()
    );
    let uncommitted = store.range(Range::all()).unwrap().collect_all().unwrap();
    assert_eq!(uncommitted.len(), content.len(), "{what}: uncommitted writes are visible");
    eprintln!(
        "{what}: acknowledged {acknowledged}, recovered {recovered}, wiped {wiped}, {sst_files} SST files in the image"
    );
    Outcome { acknowledged, recovered, wiped, sst_files }
}

fn every_acknowledged_commit_survives(strategy: Strategy) {
    // Cuts early (before the first flushes), amid flushes and after compactions.
    for acks in [3, 40, 160] {
        let outcome = power_cut(strategy, true, Cut::AfterAcks(acks));
        assert!(!outcome.wiped, "{}: wiped after a power cut with sync_commit", strategy.name());
        assert!(
            outcome.recovered >= outcome.acknowledged,
            "{}: commit {} was acknowledged with sync_commit, but the store came back at {}",
            strategy.name(),
            outcome.acknowledged,
            outcome.recovered
        );
        // A commit may be durable before the child could acknowledge it, never more than one.
        assert!(outcome.recovered <= outcome.acknowledged + 1);
        if acks == 160 {
            assert!(outcome.sst_files > 0, "{}: no memtable flush reached the image", strategy.name());
        }
    }
}

#[test]
fn indexed_batch_keeps_every_acknowledged_commit() {
    every_acknowledged_commit_survives(Strategy::IndexedBatch);
}

#[test]
fn secondary_store_keeps_every_acknowledged_commit() {
    every_acknowledged_commit_survives(Strategy::SecondaryStore);
}

/// The control: without `sync_commit`, acknowledged commits are not durable, and the image shows
/// it (otherwise the shim would not be discarding anything and the tests above would prove
/// nothing). Whatever the store reopens at is a commit's exact state (checked in `power_cut`), and
/// it always opens, under both strategies.
#[test]
fn without_sync_the_image_loses_acknowledged_commits() {
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        let mut lost = 0;
        for acks in [20, 40, 80, 160, 30, 60, 90, 120, 25, 50, 100, 140] {
            let outcome = power_cut(strategy, false, Cut::AfterAcks(acks));
            lost += outcome.acknowledged.saturating_sub(outcome.recovered);
        }
        assert!(
            lost > 0,
            "{}: without sync, every acknowledged commit survived: the shim kept unsynced data",
            strategy.name()
        );
    }
}

/// The power goes at each step of a secondary-store commit (commit 30 and on, after flushes):
/// before it, after each of its first copy writes, after the last one, after the truncation; with
/// `sync_commit` every acknowledged commit is there, without it the store opens at an earlier
/// commit; either way at a commit's exact state, never refusing.
#[test]
fn secondary_store_power_cuts_at_every_step_of_a_commit_open_at_a_commit() {
    // each commit copies ~2.5 KiB in 512-byte writes: about 5 per commit, 4 of them partial
    let points: Vec<String> = ["commit:begin@30", "commit:after-copy@30", "commit:after-truncate@30"]
        .into_iter()
        .map(String::from)
        .chain((0..5).map(|k| format!("commit:mid-copy@{}", 29 * 4 + 1 + k)))
        .collect();
    for sync_commit in [true, false] {
        for point in &points {
            let outcome = power_cut(Strategy::SecondaryStore, sync_commit, Cut::At(point.clone()));
            if sync_commit {
                assert!(!outcome.wiped, "{point}: wiped with sync_commit");
                assert!(
                    outcome.recovered >= outcome.acknowledged,
                    "{point}: lost acknowledged commit {}",
                    outcome.acknowledged
                );
            }
        }
    }
}

/// The same for commits by ingestion (forced for every commit): the power goes at each of their
/// steps (files built, the record written and every family flushed, files ingested, the last
/// write, the truncation) and after acknowledgements; with `sync_commit` every acknowledged commit
/// is there, and always the store opens at a commit's exact state, never refusing.
#[test]
fn secondary_store_power_cuts_at_every_step_of_a_commit_by_ingestion_open_at_a_commit() {
    let points = [
        "commit:after-files@30",
        "commit:before-ingest@30",
        "commit:after-ingest@30",
        "commit:after-copy@30",
        "commit:after-truncate@30",
    ];
    for sync_commit in [true, false] {
        for point in points {
            let outcome =
                power_cut_committing(Strategy::SecondaryStore, sync_commit, Cut::At(point.into()), Commit::Ingest);
            if sync_commit {
                assert!(!outcome.wiped, "{point}: wiped with sync_commit");
                assert!(
                    outcome.recovered >= outcome.acknowledged,
                    "{point}: lost acknowledged commit {}",
                    outcome.acknowledged
                );
            }
        }
    }
    for acks in [3, 40] {
        let outcome = power_cut_committing(Strategy::SecondaryStore, true, Cut::AfterAcks(acks), Commit::Ingest);
        assert!(!outcome.wiped, "ingestion, {acks} acknowledgements: wiped with sync_commit");
        assert!(
            outcome.recovered >= outcome.acknowledged,
            "ingestion: lost acknowledged commit {}",
            outcome.acknowledged
        );
    }
}
