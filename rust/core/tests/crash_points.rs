//! Crash-point proofs (KIP-844): a child process runs a store to a crash point, where the
//! fault-injection build kills it with SIGKILL; the parent reopens the store and asserts it holds
//! exactly the state of the last commit that had to survive (rolled forward when the crash came
//! after the commit file), with matching committed offsets.
//!
//! Every crash point x {key-value, window, session} x {indexed-batch, secondary-store}; a crash
//! during restore; a second crash during the roll-forward of the first; and a randomized run that
//! interleaves writes, commits and crashes at random points against a reference store that never
//! crashes.
//!
//! The child is this test binary itself, run with `--exact child` and the scenario in its
//! environment. The reference states come from running the same deterministic program in-process.

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use txn_rocksdb::segmented::SegmentOptions;
use txn_rocksdb::session::SessionStore;
use txn_rocksdb::window::{self, WindowStore};
use txn_rocksdb::{session, Range, StoreOptions, Strategy, TopicPartition, KeyValueStore};

const GEOMETRY: SegmentOptions = SegmentOptions { retention_ms: 3_000, segment_interval_ms: 1_000 };

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    KeyValue,
    Window,
    Session,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::KeyValue, Kind::Window, Kind::Session];

    fn name(self) -> &'static str {
        match self {
            Kind::KeyValue => "kv",
            Kind::Window => "window",
            Kind::Session => "session",
        }
    }

    fn parse(s: &str) -> Kind {
        Kind::ALL.into_iter().find(|k| k.name() == s).expect("kind")
    }
}

/// One store of any kind, driven through the same deterministic program.
enum Subject {
    KeyValue(KeyValueStore),
    Window(WindowStore),
    Session(SessionStore),
}

fn tp() -> TopicPartition {
    TopicPartition { topic: "app-store-changelog".into(), partition: 0 }
}

/// A tiny deterministic generator (the child and the reference must agree bit for bit).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

impl Subject {
    fn open(kind: Kind, dir: &Path, strategy: Strategy) -> Subject {
        let o = StoreOptions { strategy, ..StoreOptions::default() };
        match kind {
            Kind::KeyValue => Subject::KeyValue(KeyValueStore::open(dir, o).unwrap()),
            Kind::Window => Subject::Window(WindowStore::open(dir, o, GEOMETRY).unwrap()),
            Kind::Session => Subject::Session(SessionStore::open(dir, o, GEOMETRY).unwrap()),
        }
    }

    fn db(&self) -> &KeyValueStore {
        match self {
            Subject::KeyValue(d) => d,
            Subject::Window(w) => w.segments().key_value(),
            Subject::Session(s) => s.segments().key_value(),
        }
    }

    /// Transaction `txn` of program `seed`: puts, overwrites and deletes over a small key space;
    /// window and session timestamps advance with `txn`, so older segments expire (range deletes
    /// land with later commits).
    fn write_transaction(&self, seed: u64, txn: u64) {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (txn + 1).wrapping_mul(0xD1B5_4A32_D192_ED03) | 1);
        let n = 20 + rng.below(40);
        for i in 0..n {
            let key = format!("key-{:03}", rng.below(60)).into_bytes();
            let value = format!("s{seed}-t{txn}-w{i}-{}", "x".repeat(rng.below(200) as usize)).into_bytes();
            let delete = rng.below(5) == 0;
            let v = if delete { None } else { Some(value.as_slice()) };
            let ts = (txn as i64) * 700 + rng.below(1_500) as i64;
            match self {
                Subject::KeyValue(d) => d.put(&key, v).unwrap(),
                Subject::Window(w) => {
                    w.put(&key, ts, 0, v).unwrap();
                }
                Subject::Session(s) => {
                    s.put(&key, ts, ts + rng.below(500) as i64, v).unwrap();
                }
            }
        }
    }

    fn commit(&self, offset: i64) {
        self.db().commit(&[(tp(), Some(offset))], Some(format!("position-{offset}").as_bytes())).unwrap();
    }

    /// The committed contents, raw (segment prefixes and all), plus offsets and position.
    fn dump(&self) -> Dump {
        let db = self.db();
        let data = db.range(Range { committed_only: true, ..Range::all() }).unwrap().collect_all().unwrap();
        (data, db.committed_offsets().unwrap(), db.committed_position().unwrap())
    }

    /// Restores `batches` changelog batches derived from `seed` (for the restore crash test).
    fn restore_batches(&self, seed: u64, batches: u64) {
        for b in 0..batches {
            let mut rng = Rng(seed ^ (b + 1).wrapping_mul(0xA24B_AED4_963E_E407) | 1);
            let mut records: Vec<(i64, Vec<u8>, Option<Vec<u8>>)> = Vec::new();
            for i in 0..30 {
                let key = format!("key-{:03}", rng.below(60)).into_bytes();
                let value = (rng.below(4) != 0).then(|| format!("restored-b{b}-{i}").into_bytes());
                records.push(((b as i64) * 400 + rng.below(900) as i64, key, value));
            }
            match self {
                Subject::KeyValue(d) => d.restore(records.iter().map(|(_, k, v)| (k.as_slice(), v.as_deref()))).unwrap(),
                Subject::Window(w) => {
                    let keyed: Vec<_> = records.iter().map(|(ts, k, v)| (*ts, window::store_key(k, *ts, 0), v.clone())).collect();
                    let refs: Vec<_> = keyed.iter().map(|(ts, k, v)| (*ts, k.as_slice(), v.as_deref())).collect();
                    w.segments().restore(&refs).unwrap();
                }
                Subject::Session(s) => {
                    let keyed: Vec<_> =
                        records.iter().map(|(ts, k, v)| (*ts, session::store_key(k, *ts - 10, *ts), v.clone())).collect();
                    let refs: Vec<_> = keyed.iter().map(|(ts, k, v)| (*ts, k.as_slice(), v.as_deref())).collect();
                    s.segments().restore(&refs).unwrap();
                }
            }
        }
    }
}

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
            "commits" => Program::Commits { seed: p[1].parse().unwrap(), first: p[2].parse().unwrap(), commits: p[3].parse().unwrap() },
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

fn run_child(dir: &Path, kind: Kind, strategy: Strategy, program: Program, fault: &str) -> ChildRun {
    let spec = format!("{}|{}|{}|{}", dir.display(), kind.name(), strategy.name(), program.encode());
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env("CRASH_CHILD", spec)
        .env("TXN_ROCKSDB_FAULT", fault)
        // small copy batches, so that even small transactions are copied in several batches
        .env("TXN_ROCKSDB_COPY_BATCH_BYTES", "512")
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
    run.killed = status.signal() == Some(9);
    assert!(run.killed || status.success(), "child failed: {status:?} ({kind:?}, {strategy:?}, {fault})");
    run
}

/// The committed dump after each commit of a program, by running it in-process without faults;
/// index 0 is the state before the first commit of the program.
fn reference(kind: Kind, strategy: Strategy, seed: u64, commits: u64) -> Vec<Dump> {
    let dir = tempfile::tempdir().unwrap();
    let s = Subject::open(kind, dir.path(), strategy);
    let mut states = vec![s.dump()];
    for t in 0..commits {
        s.write_transaction(seed, t);
        s.commit((t as i64 + 1) * 10);
        states.push(s.dump());
    }
    states
}

type Dump = (Vec<(Vec<u8>, Vec<u8>)>, Vec<(TopicPartition, i64)>, Option<Vec<u8>>);

/// Whether a crash at `point` happens after the commit has become durable (it then survives, by
/// the one atomic write or by rolling forward).
fn commit_survives(point: &str) -> bool {
    matches!(
        point,
        "commit:after-write"
            | "commit:after-commit-file"
            | "commit:mid-copy"
            | "commit:after-copy"
            | "commit:before-delete-commit-file"
    )
}

fn commit_points(strategy: Strategy) -> &'static [&'static str] {
    match strategy {
        Strategy::IndexedBatch => &["commit:begin", "commit:after-write"],
        Strategy::SecondaryStore => &[
            "commit:begin",
            "commit:before-commit-file",
            "commit:after-commit-file",
            "commit:mid-copy",
            "commit:after-copy",
            "commit:before-delete-commit-file",
        ],
    }
}

fn assert_state(dir: &Path, kind: Kind, strategy: Strategy, expected: &Dump, what: &str) {
    let s = Subject::open(kind, dir, strategy);
    let got = s.dump();
    assert_eq!(got.1, expected.1, "{what}: committed offsets");
    assert_eq!(got.2, expected.2, "{what}: committed position");
    assert!(got.0 == expected.0, "{what}: committed data differs ({} entries, expected {})", got.0.len(), expected.0.len());
    // the uncommitted view after recovery is the committed one: nothing uncommitted survived
    let all = s.db().range(Range::all()).unwrap().collect_all().unwrap();
    assert!(all == expected.0, "{what}: uncommitted writes survived the crash");
    assert!(!dir.join("TXN-COMMIT").exists(), "{what}: commit file left behind");
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
    assert_eq!(cases, 2 * 3 * (2 + 6));
}

#[test]
fn a_second_crash_during_roll_forward_still_rolls_forward() {
    for kind in Kind::ALL {
        let strategy = Strategy::SecondaryStore;
        let states = reference(kind, strategy, SEED, COMMITS);
        for recovery_point in ["recover:mid-copy", "recover:after-copy"] {
            let dir = tempfile::tempdir().unwrap();
            let what = format!("{kind:?} crash after the commit file of commit 2, then at {recovery_point}");
            let program = Program::Commits { seed: SEED, first: 0, commits: COMMITS };
            // first crash: right after the second commit wrote its commit file
            let run = run_child(dir.path(), kind, strategy, program, "commit:after-commit-file@2");
            assert!(run.killed && run.last_commit_started == Some(1), "{what}: first crash");
            assert!(dir.path().join("TXN-COMMIT").exists(), "{what}: the commit file must be left by the crash");
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
            let run = run_child(dir.path(), kind, strategy, Program::Commits { seed: SEED, first: 0, commits: 1 }, "commit:begin@99");
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
        // the offsets-only commit's one write (under secondary-store too: no commit file)
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
            Strategy::SecondaryStore => "commit:after-commit-file@1",
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
    for strategy in [Strategy::IndexedBatch, Strategy::SecondaryStore] {
        for kind in Kind::ALL {
            let mut rng = Rng((seed0 ^ ((kind as u64 + 1) * 77) ^ ((strategy as u64 + 1) * 1_000_003)) | 1);
            let dir = tempfile::tempdir().unwrap();
            let mirror_dir = tempfile::tempdir().unwrap();
            let points = commit_points(strategy);
            let mut first = 0u64;
            for cycle in 0..cycles {
                let commits = 1 + rng.below(4);
                let seed = rng.next() % 1_000_000;
                let point = points[rng.below(points.len() as u64) as usize];
                let hit = 1 + rng.below(commits + 1);
                let program = Program::Commits { seed, first, commits };
                let what = format!("{kind:?} {strategy:?} cycle {cycle}: {program:?}, crash at {point}@{hit}");
                let run = run_child(dir.path(), kind, strategy, program, &format!("{point}@{hit}"));
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
        let run = run_child(dir.path(), kind, Strategy::SecondaryStore, program, "commit:after-commit-file@1");
        assert!(run.killed && run.last_commit_started == Some(0));
        // recovery does not depend on the strategy the store is reopened with
        assert_state(dir.path(), kind, Strategy::IndexedBatch, &states[1], &format!("{kind:?} switched to indexed-batch"));
    }
}
