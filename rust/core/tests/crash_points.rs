//! Crash-point proofs (KIP-844): a child process runs a store to a crash point, where the
//! fault-injection build kills it with SIGKILL; the parent reopens the store and asserts it holds
//! exactly the state of the last commit that had to survive (rolled forward when the crash came
//! after the first write of a secondary-store copy, which stores the commit record), with
//! matching committed offsets. Each crash is also reopened on a copy of its files with the WAL's
//! tail cut or garbled, as a power loss or a bad disk leaves it: the store then opens at a commit
//! boundary (whichever one its offsets name), or refuses, never with part of a commit.
//!
//! Every crash point x {key-value, window, session} x {indexed-batch, secondary-store}; a crash
//! during restore; a second crash during the roll-forward of the first; and a randomized run that
//! interleaves writes, commits and crashes at random points against a reference store that never
//! crashes.
//!
//! The child is this test binary itself, run with `--exact child` and the scenario in its
//! environment. The reference states come from running the same deterministic program in-process.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use txn_rocksdb::{CorruptionPolicy, Range, StoreOptions, Strategy};

mod common;
use common::{copy_dir, newest_wal, reference, tp, Dump, Kind, Rng, Subject};

/// The programs the child runs.
#[derive(Debug, Clone, Copy)]
enum Program {
    /// `commits` transactions of program `seed`, each committed with offset `(first + t) * 10`,
    /// then one more transaction left uncommitted.
    Commits { seed: u64, first: u64, commits: u64 },
    /// 5 restore batches, then a commit of offset 1000 (as Kafka commits at the end of a restore).
    Restore { seed: u64 },
    /// [`Program::Restore`], then one transaction of program `seed` committed with offset 1010
    /// (the first commit of the task's processing).
    RestoreThenCommit { seed: u64 },
    /// Only opens the store (recovery) and closes it.
    Open,
}

impl Program {
    fn encode(self) -> String {
        match self {
            Program::Commits { seed, first, commits } => format!("commits:{seed}:{first}:{commits}"),
            Program::Restore { seed } => format!("restore:{seed}"),
            Program::RestoreThenCommit { seed } => format!("restore-commit:{seed}"),
            Program::Open => "open".into(),
        }
    }

    fn decode(s: &str) -> Program {
        let p: Vec<&str> = s.split(':').collect();
        match p[0] {
            "commits" => Program::Commits {
                seed: p[1].parse().unwrap(),
                first: p[2].parse().unwrap(),
                commits: p[3].parse().unwrap(),
            },
            "restore" => Program::Restore { seed: p[1].parse().unwrap() },
            "restore-commit" => Program::RestoreThenCommit { seed: p[1].parse().unwrap() },
            _ => Program::Open,
        }
    }

    /// Runs the program; `on_commit(t)` is told before transaction `t` commits.
    fn run(self, s: &Subject, mut on_commit: impl FnMut(u64)) {
        match self {
            Program::Commits { seed, first, commits } => {
                for t in first..first + commits {
                    s.write_transaction(seed, t);
                    on_commit(t);
                    s.commit((t as i64 + 1) * 10);
                }
                s.write_transaction(seed, first + commits);
            }
            Program::Restore { seed } => {
                s.restore_batches(seed, 5);
                s.commit(1000);
            }
            Program::RestoreThenCommit { seed } => {
                s.restore_batches(seed, 5);
                s.commit(1000);
                s.write_transaction(seed, 0);
                on_commit(0);
                s.commit(1010);
            }
            Program::Open => {}
        }
    }
}

/// Child entry point: does nothing unless the parent set the scenario.
#[test]
fn child() {
    let Ok(spec) = std::env::var("CRASH_CHILD") else { return };
    let [dir, kind, strategy, program]: [&str; 4] = spec.split('|').collect::<Vec<_>>().try_into().unwrap();
    let s = Subject::open(Kind::parse(kind), Path::new(dir), Strategy::parse(strategy).unwrap());
    println!("OPENED");
    Program::decode(program).run(&s, |t| println!("COMMIT {t}"));
    println!("DONE");
}

struct ChildRun {
    killed: bool,
    /// The transaction whose commit was last started (`COMMIT t` lines).
    last_commit_started: Option<u64>,
    opened: bool,
}

/// How a secondary-store transaction that spilled commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Commit {
    /// Copied through the memtable (`secondary/roll_forward.rs`).
    Copy,
    /// Ingested as SST files (`secondary/ingest.rs`), forced for any size.
    Ingest,
}

fn run_child(dir: &Path, kind: Kind, strategy: Strategy, program: Program, fault: &str) -> ChildRun {
    run_child_committing(dir, kind, strategy, program, fault, Commit::Copy)
}

fn run_child_committing(
    dir: &Path,
    kind: Kind,
    strategy: Strategy,
    program: Program,
    fault: &str,
    commit: Commit,
) -> ChildRun {
    // small copy batches (and secondary-store spills), so that even small transactions spill to
    // the temporary store and are copied in several batches
    run_child_with(dir, kind, strategy, program, fault, 512, commit)
}

fn run_child_with(
    dir: &Path,
    kind: Kind,
    strategy: Strategy,
    program: Program,
    fault: &str,
    copy_batch: usize,
    commit: Commit,
) -> ChildRun {
    let spec = format!("{}|{}|{}|{}", dir.display(), kind.name(), strategy.name(), program.encode());
    let ingest_bytes = match commit {
        Commit::Copy => u64::MAX,
        Commit::Ingest => 1,
    };
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env("CRASH_CHILD", spec)
        .env("TXN_ROCKSDB_FAULT", fault)
        .env("TXN_ROCKSDB_COPY_BATCH_BYTES", copy_batch.to_string())
        .env("TXN_ROCKSDB_INGEST_BYTES", ingest_bytes.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut run = ChildRun { killed: false, last_commit_started: None, opened: false };
    for line in BufReader::new(child.stdout.take().unwrap()).lines().map_while(|l| l.ok()) {
        if line == "OPENED" {
            run.opened = true;
        } else if let Some(t) = line.strip_prefix("COMMIT ") {
            run.last_commit_started = Some(t.parse().unwrap());
        }
    }
    let status = child.wait().unwrap();
    run.killed = txn_rocksdb::fault::killed(&status);
    assert!(run.killed || status.success(), "child failed: {status:?} ({kind:?}, {strategy:?}, {fault})");
    run
}

/// Whether a crash at `point` happens after the commit has become durable (it then survives, by
/// the one atomic write or by rolling forward).
fn commit_survives(point: &str) -> bool {
    matches!(
        point,
        "commit:after-write"
            | "commit:mid-copy"
            | "commit:before-ingest"
            | "commit:after-ingest"
            | "commit:after-copy"
            | "commit:after-truncate"
    )
}

/// The crash points of a secondary-store commit by ingestion, in order.
const INGEST_POINTS: &[&str] = &[
    "commit:begin",
    "commit:after-files",
    "commit:before-ingest",
    "commit:after-ingest",
    "commit:after-copy",
    "commit:after-truncate",
];

fn commit_points(strategy: Strategy) -> &'static [&'static str] {
    match strategy {
        Strategy::IndexedBatch => &["commit:begin", "commit:after-write"],
        Strategy::SecondaryStore => &["commit:begin", "commit:mid-copy", "commit:after-copy", "commit:after-truncate"],
    }
}

fn assert_state(dir: &Path, kind: Kind, strategy: Strategy, expected: &Dump, what: &str) {
    let s = Subject::open(kind, dir, strategy);
    let got = s.dump();
    assert_eq!(got.1, expected.1, "{what}: committed offsets");
    assert_eq!(got.2, expected.2, "{what}: committed position");
    assert!(
        got.0 == expected.0,
        "{what}: committed data differs ({} entries, expected {})",
        got.0.len(),
        expected.0.len()
    );
    // the uncommitted view after recovery is the committed one: nothing uncommitted survived
    let all = s.db().range(Range::all()).unwrap().collect_all().unwrap();
    assert!(all == expected.0, "{what}: uncommitted writes survived the crash");
    assert!(!dir.join("TXN-COMMIT").exists(), "{what}: commit file left behind");
    drop(s);
    // recovery left nothing to do for the next open
    let again = Subject::open(kind, dir, strategy);
    assert!(again.dump() == *expected, "{what}: a second open changed the state");
    let stats = again.db().stats();
    let roll_forwards = stats[txn_rocksdb::stats::Stat::RollForwards as usize];
    assert_eq!(roll_forwards, 0, "{what}: the first open left a commit to roll forward");
}

const SEED: u64 = 17;
const COMMITS: u64 = 3;

#[test]
fn every_crash_point_leaves_exactly_the_committed_or_rolled_forward_state() {
    let mut cases = 0;
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        for kind in Kind::ALL {
            let states = reference(kind, strategy, SEED, COMMITS);
            for point in commit_points(strategy) {
                // the crash hits the first, then the second commit
                for hit in 1..=2u64 {
                    let dir = tempfile::tempdir().unwrap();
                    let program = Program::Commits { seed: SEED, first: 0, commits: COMMITS };
                    let run = run_child(dir.path(), kind, strategy, program, &format!("{point}@{hit}"));
                    let what = format!("{kind:?} {strategy:?} crash at {point}@{hit}");
                    assert!(run.killed, "{what}: the crash point was never reached");
                    let started = run.last_commit_started.expect("a commit started");
                    // mid-copy hits once per copy batch: the hit may fall in a later commit
                    if *point != "commit:mid-copy" {
                        assert_eq!(started, hit - 1, "{what}: crashed in the wrong commit");
                    }
                    let landed = started as usize + usize::from(commit_survives(point));
                    assert_state(dir.path(), kind, strategy, &states[landed], &what);
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 2 * Kind::ALL.len() * (2 + 4));
}

/// Runs [`SEED`]'s program of [`COMMITS`] commits in a fresh directory until a kill at the
/// `hit`-th pass of `point`, which must fall in commit `hit - 1`; returns the directory and the
/// number of commits that must have landed.
fn crash_in_commit(
    kind: Kind,
    strategy: Strategy,
    point: &str,
    hit: u64,
    copy_batch: usize,
    commit: Commit,
    what: &str,
) -> (tempfile::TempDir, usize) {
    let dir = tempfile::tempdir().unwrap();
    let program = Program::Commits { seed: SEED, first: 0, commits: COMMITS };
    let run = run_child_with(dir.path(), kind, strategy, program, &format!("{point}@{hit}"), copy_batch, commit);
    assert!(run.killed, "{what}: the crash point was never reached");
    let started = run.last_commit_started.expect("a commit started");
    assert_eq!(started, hit - 1, "{what}: crashed in the wrong commit");
    (dir, started as usize + usize::from(commit_survives(point)))
}

/// Secondary-store transactions that never spilled to the temporary store commit in one atomic
/// write, as under indexed-batch: a crash before it loses the transaction, one after it keeps it.
#[test]
fn secondary_store_commits_that_never_spilled_are_all_or_nothing() {
    let strategy = Strategy::SecondaryStore;
    let mut cases = 0;
    for kind in Kind::ALL {
        let states = reference(kind, strategy, SEED, COMMITS);
        for point in ["commit:begin", "commit:after-write"] {
            for hit in 1..=2u64 {
                let what = format!("{kind:?} {strategy:?} (in memory) crash at {point}@{hit}");
                let (dir, landed) = crash_in_commit(kind, strategy, point, hit, 64 << 20, Commit::Copy, &what);
                assert_state(dir.path(), kind, strategy, &states[landed], &what);
                cases += 1;
            }
        }
    }
    assert_eq!(cases, Kind::ALL.len() * 2 * 2);
}

/// Secondary-store commits by ingestion (forced for every transaction that spilled): a kill at
/// each of their steps, in the first and in the second commit, leaves exactly the committed or
/// rolled-forward state and no leftover files; after a kill in the second commit, copies with the
/// WAL damaged open at a commit boundary.
#[test]
fn commits_by_ingestion_are_all_or_nothing_at_every_step() {
    let strategy = Strategy::SecondaryStore;
    let mut cases = 0;
    for kind in Kind::ALL {
        let states = reference(kind, strategy, SEED, COMMITS);
        for point in INGEST_POINTS {
            for hit in 1..=2u64 {
                let what = format!("{kind:?} (ingestion) crash at {point}@{hit}");
                let (dir, landed) = crash_in_commit(kind, strategy, point, hit, 512, Commit::Ingest, &what);
                if hit == 2 {
                    for damage in WAL_DAMAGES {
                        open_damaged_copy(
                            dir.path(),
                            kind,
                            strategy,
                            damage,
                            &states,
                            landed,
                            &format!("{what}, WAL {damage:?}"),
                        );
                    }
                }
                assert_state(dir.path(), kind, strategy, &states[landed], &what);
                assert!(
                    !dir.path().join("ingest").exists(),
                    "{what}: the files of the interrupted ingestion are left behind"
                );
                cases += 1;
            }
        }
    }
    assert_eq!(cases, Kind::ALL.len() * INGEST_POINTS.len() * 2);
}

/// A kill after the files of the second commit were ingested, then a second kill while the
/// reopened store copies that commit again (recovery copies, whatever the commit did).
#[test]
fn a_crash_after_an_ingestion_then_during_its_roll_forward_still_rolls_forward() {
    let strategy = Strategy::SecondaryStore;
    for kind in Kind::ALL {
        let states = reference(kind, strategy, SEED, COMMITS);
        let dir = tempfile::tempdir().unwrap();
        let what = format!("{kind:?} crash after the ingestion of commit 2, then during recovery");
        let program = Program::Commits { seed: SEED, first: 0, commits: COMMITS };
        let run = run_child_committing(dir.path(), kind, strategy, program, "commit:after-ingest@2", Commit::Ingest);
        assert!(run.killed && run.last_commit_started == Some(1), "{what}: first crash");
        let run = run_child(dir.path(), kind, strategy, Program::Open, "recover:mid-copy");
        assert!(run.killed && !run.opened, "{what}: the recovery crash point was never reached");
        assert_state(dir.path(), kind, strategy, &states[2], &what);
    }
}

#[test]
fn a_second_crash_during_roll_forward_still_rolls_forward() {
    for kind in Kind::ALL {
        let strategy = Strategy::SecondaryStore;
        let states = reference(kind, strategy, SEED, COMMITS);
        for recovery_point in ["recover:mid-copy", "recover:after-copy"] {
            let dir = tempfile::tempdir().unwrap();
            let what = format!("{kind:?} crash after the first copy write of commit 2, then at {recovery_point}");
            // the first commit lands; the first crash comes right after the second commit's first
            // copy write (the one that stores its commit record)
            let run = run_child(
                dir.path(),
                kind,
                strategy,
                Program::Commits { seed: SEED, first: 0, commits: 1 },
                "commit:begin@99",
            );
            assert!(!run.killed, "{what}: the first commit");
            let program = Program::Commits { seed: SEED, first: 1, commits: COMMITS - 1 };
            let run = run_child(dir.path(), kind, strategy, program, "commit:mid-copy@1");
            assert!(run.killed && run.last_commit_started == Some(1), "{what}: first crash");
            // second crash: while the reopened store rolls that commit forward
            let run = run_child(dir.path(), kind, strategy, Program::Open, recovery_point);
            assert!(run.killed && !run.opened, "{what}: the recovery crash point was never reached");
            assert_state(dir.path(), kind, strategy, &states[2], &what);
        }
    }
}

#[test]
fn a_crash_during_restore_keeps_the_old_offset_and_restoring_again_converges() {
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        for kind in Kind::ALL {
            let what = format!("{kind:?} {strategy:?} crash after restore batch 3 of 5");
            // the restored store, without crashes
            let reference_dir = tempfile::tempdir().unwrap();
            {
                let s = Subject::open(kind, reference_dir.path(), strategy);
                Program::Commits { seed: SEED, first: 0, commits: 1 }.run(&s, |_| {});
            }
            let committed = Subject::open(kind, reference_dir.path(), strategy).dump();
            {
                let s = Subject::open(kind, reference_dir.path(), strategy);
                Program::Restore { seed: 5 }.run(&s, |_| {});
            }
            let restored = Subject::open(kind, reference_dir.path(), strategy).dump();

            let dir = tempfile::tempdir().unwrap();
            let run = run_child(
                dir.path(),
                kind,
                strategy,
                Program::Commits { seed: SEED, first: 0, commits: 1 },
                "commit:begin@99",
            );
            assert!(!run.killed);
            let run = run_child(dir.path(), kind, strategy, Program::Restore { seed: 5 }, "restore:after-batch@3");
            assert!(run.killed, "{what}: never reached");
            {
                // the offsets are still the ones before the restore: Kafka restores again from there
                let s = Subject::open(kind, dir.path(), strategy);
                let (_, offsets, position) = s.dump();
                assert_eq!((offsets, position), (committed.1.clone(), committed.2.clone()), "{what}");
                Program::Restore { seed: 5 }.run(&s, |_| {});
            }
            assert_state(dir.path(), kind, strategy, &restored, &what);
        }
    }
}

/// Restored records skip the WAL, and so does the offsets-only commit that ends a restore: a
/// kill right after it keeps either the restored records with the new offset or the old offset
/// (with any part of the records), never the new offset without them; restoring again from the
/// stored offset then completes the store.
#[test]
fn a_kill_right_after_the_commit_that_ends_a_restore_never_keeps_the_offset_without_the_records() {
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        // the offsets-only commit's one write (under secondary-store too: no copy)
        let after_commit = "commit:after-write@1";
        for kind in Kind::ALL {
            let what = format!("{kind:?} {strategy:?} killed at {after_commit} after a restore");
            let restored = reference_run(kind, strategy, Program::Restore { seed: 7 });
            assert_eq!(restored.1, vec![(tp(), 1000)], "{what}: reference offsets");

            let dir = tempfile::tempdir().unwrap();
            let run = run_child(dir.path(), kind, strategy, Program::Restore { seed: 7 }, after_commit);
            assert!(run.killed, "{what}: never reached");
            {
                let s = Subject::open(kind, dir.path(), strategy);
                let (data, offsets, _) = s.dump();
                if offsets == restored.1 {
                    assert!(data == restored.0, "{what}: the offset survived without the restored records");
                } else {
                    assert!(offsets.is_empty(), "{what}: offsets {offsets:?}");
                    // Kafka restores again from the stored (older) offset
                    Program::Restore { seed: 7 }.run(&s, |_| {});
                }
            }
            assert_state(dir.path(), kind, strategy, &restored, &what);
        }
    }
}

/// The first commit that carries data after a restore flushes the restored records first: a
/// kill right after it keeps the restored records, the transaction and its offset.
#[test]
fn a_kill_right_after_the_first_commit_with_writes_after_a_restore_keeps_everything() {
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        // after the second commit has become durable
        let after_commit = match strategy {
            Strategy::IndexedBatch => "commit:after-write@2",
            Strategy::SecondaryStore => "commit:mid-copy@1",
        };
        for kind in Kind::ALL {
            let what = format!("{kind:?} {strategy:?} killed at {after_commit} after a restore and a transaction");
            let expected = reference_run(kind, strategy, Program::RestoreThenCommit { seed: 7 });
            assert_eq!(expected.1, vec![(tp(), 1010)], "{what}: reference offsets");

            let dir = tempfile::tempdir().unwrap();
            let run = run_child(dir.path(), kind, strategy, Program::RestoreThenCommit { seed: 7 }, after_commit);
            assert!(run.killed, "{what}: never reached");
            assert_state(dir.path(), kind, strategy, &expected, &what);
        }
    }
}

/// The committed dump after running `program` in-process, without faults.
fn reference_run(kind: Kind, strategy: Strategy, program: Program) -> Dump {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = Subject::open(kind, dir.path(), strategy);
        program.run(&s, |_| {});
    }
    let dump = Subject::open(kind, dir.path(), strategy).dump();
    dump
}

#[test]
fn random_writes_commits_and_crashes_match_a_store_that_never_crashed() {
    let seed0: u64 = std::env::var("CRASH_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(2026);
    let cycles: u64 = std::env::var("CRASH_CYCLES").ok().and_then(|s| s.parse().ok()).unwrap_or(12);
    // secondary-store twice: commits by copy, and by ingestion (forced for every size)
    for (strategy, commit) in [
        (Strategy::IndexedBatch, Commit::Copy),
        (Strategy::SecondaryStore, Commit::Copy),
        (Strategy::SecondaryStore, Commit::Ingest),
    ] {
        for kind in Kind::ALL {
            let variant = if commit == Commit::Ingest { 0x1_0000_0000 } else { 0 };
            let mut rng = Rng((seed0 ^ ((kind as u64 + 1) * 77) ^ ((strategy as u64 + 1) * 1_000_003) ^ variant) | 1);
            let dir = tempfile::tempdir().unwrap();
            let mirror_dir = tempfile::tempdir().unwrap();
            let points = if commit == Commit::Ingest { INGEST_POINTS } else { commit_points(strategy) };
            let mut first = 0u64;
            for cycle in 0..cycles {
                let commits = 1 + rng.below(4);
                let seed = rng.next() % 1_000_000;
                let point = points[rng.below(points.len() as u64) as usize];
                let hit = 1 + rng.below(commits + 1);
                let program = Program::Commits { seed, first, commits };
                let what =
                    format!("{kind:?} {strategy:?} ({commit:?}) cycle {cycle}: {program:?}, crash at {point}@{hit}");
                let run = run_child_committing(dir.path(), kind, strategy, program, &format!("{point}@{hit}"), commit);
                // which transactions must have landed
                let landed = match (run.killed, run.last_commit_started) {
                    (false, _) => first + commits,
                    (true, None) => first,
                    (true, Some(t)) => t + u64::from(commit_survives(point)),
                };
                // the mirror: the same program without crashes, committing only what landed
                {
                    let mirror = Subject::open(kind, mirror_dir.path(), strategy);
                    for t in first..landed {
                        mirror.write_transaction(seed, t);
                        mirror.commit((t as i64 + 1) * 10);
                    }
                }
                let expected = Subject::open(kind, mirror_dir.path(), strategy).dump();
                assert_state(dir.path(), kind, strategy, &expected, &what);
                first = landed;
            }
        }
    }
}

#[test]
fn a_commit_interrupted_under_secondary_store_rolls_forward_when_reopened_with_indexed_batch() {
    for kind in Kind::ALL {
        let states = reference(kind, Strategy::SecondaryStore, SEED, COMMITS);
        let dir = tempfile::tempdir().unwrap();
        let program = Program::Commits { seed: SEED, first: 0, commits: COMMITS };
        let run = run_child(dir.path(), kind, Strategy::SecondaryStore, program, "commit:mid-copy@1");
        assert!(run.killed && run.last_commit_started == Some(0));
        // recovery does not depend on the strategy the store is reopened with
        assert_state(
            dir.path(),
            kind,
            Strategy::IndexedBatch,
            &states[1],
            &format!("{kind:?} switched to indexed-batch"),
        );
    }
}

/// How a copy of a crashed store's newest WAL file is damaged before it is reopened: cut to a
/// fraction of its length (a power loss without `sync_commit` leaves such a tail), or 64 bytes
/// garbled at a fraction of it (a bad disk).
#[derive(Debug, Clone, Copy)]
enum WalDamage {
    Cut(f64),
    Garble(f64),
}

const WAL_DAMAGES: [WalDamage; 8] = [
    WalDamage::Cut(0.2),
    WalDamage::Cut(0.5),
    WalDamage::Cut(0.8),
    WalDamage::Cut(0.97),
    WalDamage::Garble(0.2),
    WalDamage::Garble(0.5),
    WalDamage::Garble(0.8),
    WalDamage::Garble(0.97),
];

fn damage_newest_wal(dir: &Path, damage: WalDamage) {
    let wal = newest_wal(dir);
    let mut bytes = std::fs::read(&wal).unwrap();
    match damage {
        WalDamage::Cut(fraction) => bytes.truncate((bytes.len() as f64 * fraction) as usize),
        WalDamage::Garble(fraction) => {
            let len = bytes.len();
            let at = ((len as f64 * fraction) as usize).min(len.saturating_sub(64));
            for b in &mut bytes[at..(at + 64).min(len)] {
                *b ^= 0x5A;
            }
        }
    }
    std::fs::write(&wal, bytes).unwrap();
}

/// Opens a copy of the store in `dir` with its newest WAL damaged and asserts that it holds exactly
/// the state of the commit its offsets name, at most `landed`, and nothing uncommitted; returns
/// that commit.
fn open_damaged_copy(
    dir: &Path,
    kind: Kind,
    strategy: Strategy,
    damage: WalDamage,
    states: &[Dump],
    landed: usize,
    what: &str,
) -> usize {
    let copy = tempfile::tempdir().unwrap();
    copy_dir(dir, copy.path());
    damage_newest_wal(copy.path(), damage);
    let options =
        StoreOptions { strategy, corruption: CorruptionPolicy::OpenAtLastConsistentCommit, ..StoreOptions::default() };
    let s = Subject::open_with(kind, copy.path(), options).unwrap_or_else(|e| panic!("{what}: refused: {e}"));
    let got = s.dump();
    let commit = match got.1.as_slice() {
        [] => 0,
        [(_, offset)] => (*offset / 10) as usize,
        more => panic!("{what}: offsets {more:?}"),
    };
    assert!(commit <= landed, "{what}: opened at commit {commit}, after the {landed} that landed");
    assert!(got == states[commit], "{what}: opened at commit {commit} with content that is not that commit's");
    let all = s.db().range(Range::all()).unwrap().collect_all().unwrap();
    assert!(all == states[commit].0, "{what}: uncommitted writes are visible");
    commit
}

/// A kill at every crash point of the second commit, then the WAL's tail damaged: whatever the
/// store opens at, its content is exactly that of the commit its offsets name, and nothing
/// uncommitted. (Before 2026-12 the secondary-store strategy failed this: a commit file outlived
/// the copy writes a damaged WAL lost, or the temporary-store writes a cut WAL lost, and the
/// store opened with part of a commit.)
#[test]
fn a_crash_then_a_damaged_wal_opens_at_a_commit_boundary() {
    let (mut cases, mut earlier) = (0, 0);
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        for kind in Kind::ALL {
            let states = reference(kind, strategy, SEED, COMMITS);
            for point in commit_points(strategy) {
                let dir = tempfile::tempdir().unwrap();
                let program = Program::Commits { seed: SEED, first: 0, commits: COMMITS };
                let run = run_child(dir.path(), kind, strategy, program, &format!("{point}@2"));
                assert!(run.killed, "{kind:?} {strategy:?} {point}@2: never reached");
                let landed = run.last_commit_started.unwrap() as usize + usize::from(commit_survives(point));
                for damage in WAL_DAMAGES {
                    let what = format!("{kind:?} {strategy:?} killed at {point}@2, WAL {damage:?}");
                    let commit = open_damaged_copy(dir.path(), kind, strategy, damage, &states, landed, &what);
                    earlier += usize::from(commit < landed);
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, Kind::ALL.len() * (2 + 4) * WAL_DAMAGES.len());
    assert!(earlier > cases / 4, "the damage removed commits in only {earlier} of {cases} cases: it hardly bites");
}

/// Batches of [`restore_by_ingestion`]'s changelog, each committed with offset `(b + 1) * 100`.
const INGESTED_BATCHES: u64 = 30;

/// Restores batches `from..` of [`INGESTED_BATCHES`] into a key-value store, committing the
/// offset after each (as Kafka commits a restoring store), mostly distinct keys (so a record lost
/// behind its offset shows), a sixth of them deletes.
fn restore_from(store: &txn_rocksdb::KeyValueStore, from: u64) {
    for b in from..INGESTED_BATCHES {
        let mut rng = Rng(0x1A2B_3C4D ^ (b + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let records: Vec<(Vec<u8>, Option<Vec<u8>>)> = (0..50)
            .map(|i| {
                let key = format!("key-{:04}", rng.below(3_000)).into_bytes();
                let value = (rng.below(6) != 0)
                    .then(|| format!("b{b}-r{i}-{}", "v".repeat(rng.below(50) as usize)).into_bytes());
                (key, value)
            })
            .collect();
        store.restore(records.iter().map(|(k, v)| (k.as_slice(), v.as_deref()))).unwrap();
        store.commit(&[(tp(), Some((b as i64 + 1) * 100))], None).unwrap();
    }
}

/// Child entry point of [`restore_by_ingestion`]: restores the whole changelog.
#[test]
fn restoring_child() {
    let Ok(spec) = std::env::var("RESTORE_CHILD") else { return };
    let [dir, strategy]: [&str; 2] = spec.split('|').collect::<Vec<_>>().try_into().unwrap();
    let options = StoreOptions { strategy: Strategy::parse(strategy).unwrap(), ..StoreOptions::default() };
    let store = txn_rocksdb::KeyValueStore::open(dir, options).unwrap();
    restore_from(&store, 0);
}

/// A restore by ingestion (restore buffers small enough that the changelog goes in as about ten
/// files, the commits between them deferred until their records are in) killed with SIGKILL
/// while it builds a file, right after an ingestion, or between batches: the store reopens with
/// the offsets of one of its commits (or none), holding at least that commit's records, and
/// Kafka restoring the rest from there gives exactly the state of a restore never killed. Once a
/// file was ingested, the commits it covers survive.
#[test]
fn a_kill_during_a_restore_by_ingestion_reopens_at_a_commit_and_restoring_the_rest_converges() {
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        let reference_dir = tempfile::tempdir().unwrap();
        let expected = {
            let store = txn_rocksdb::KeyValueStore::open(
                reference_dir.path(),
                StoreOptions { strategy, ..StoreOptions::default() },
            )
            .unwrap();
            restore_from(&store, 0);
            let dump = Subject::KeyValue(store).dump();
            assert_eq!(dump.1, vec![(tp(), INGESTED_BATCHES as i64 * 100)]);
            dump
        };
        let faults = [
            "restore:before-ingest@1",
            "restore:before-ingest@3",
            "restore:after-ingest@1",
            "restore:after-ingest@2",
            "restore:after-ingest@4",
            "restore:after-batch@7",
            "restore:after-batch@20",
        ];
        for fault in faults {
            let what = format!("{strategy:?} killed at {fault}");
            let dir = tempfile::tempdir().unwrap();
            let status = Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "restoring_child", "--nocapture", "--test-threads=1"])
                .env("RESTORE_CHILD", format!("{}|{}", dir.path().display(), strategy.name()))
                .env("TXN_ROCKSDB_FAULT", fault)
                .env("TXN_ROCKSDB_RESTORE_BUFFER_BYTES", "8000")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert!(txn_rocksdb::fault::killed(&status), "{what}: the crash point was never reached");
            let store =
                txn_rocksdb::KeyValueStore::open(dir.path(), StoreOptions { strategy, ..StoreOptions::default() })
                    .unwrap();
            let offsets = store.committed_offsets().unwrap();
            let done = match offsets.as_slice() {
                [] => 0,
                [(partition, offset)] if *partition == tp() && offset % 100 == 0 => (*offset / 100) as u64,
                other => panic!("{what}: offsets {other:?} are no commit's"),
            };
            if fault.starts_with("restore:after-ingest") && fault != "restore:after-ingest@1" {
                assert!(done > 0, "{what}: the commits covered by the files ingested before were lost");
            }
            // Kafka restores the rest from the stored offset
            restore_from(&store, done);
            drop(store);
            assert_state(
                dir.path(),
                Kind::KeyValue,
                strategy,
                &expected,
                &format!("{what}, restored again from batch {done}"),
            );
        }
    }
}
