//! What the crash, power-loss and damaged-file tests share: one store of any kind driven through
//! the same deterministic program, and its committed contents.
#![allow(dead_code)] // each test binary uses part of it

use std::path::{Path, PathBuf};
use txn_rocksdb::segmented::SegmentOptions;
use txn_rocksdb::session::SessionStore;
use txn_rocksdb::ttl::{TimeBasis, TtlOptions, TtlStore};
use txn_rocksdb::window::{self, WindowStore};
use txn_rocksdb::{session, KeyValueStore, Range, StoreOptions, Strategy, TopicPartition};

pub const GEOMETRY: SegmentOptions = SegmentOptions { retention_ms: 3_000, segment_interval_ms: 1_000 };
/// The time-to-live of the [`Kind::Ttl`] subject: keys written a few transactions back expire, and
/// the expiry passes of later transactions remove them (their deletes land with later commits).
pub const TTL: TtlOptions = TtlOptions { ttl_ms: 1_500, basis: TimeBasis::Stream };

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    KeyValue,
    Window,
    Session,
    /// A key-value store with a time-to-live ([`TTL`]).
    Ttl,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::KeyValue, Kind::Window, Kind::Session, Kind::Ttl];

    pub fn name(self) -> &'static str {
        match self {
            Kind::KeyValue => "kv",
            Kind::Window => "window",
            Kind::Session => "session",
            Kind::Ttl => "ttl",
        }
    }

    pub fn parse(s: &str) -> Kind {
        Kind::ALL.into_iter().find(|k| k.name() == s).expect("kind")
    }
}

/// One store of any kind, driven through the same deterministic program.
pub enum Subject {
    KeyValue(KeyValueStore),
    Window(WindowStore),
    Session(SessionStore),
    Ttl(TtlStore),
}

pub fn tp() -> TopicPartition {
    TopicPartition { topic: "app-store-changelog".into(), partition: 0 }
}

/// A tiny deterministic generator (the child and the reference must agree bit for bit).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

impl Subject {
    pub fn open(kind: Kind, dir: &Path, strategy: Strategy) -> Subject {
        Subject::open_with(kind, dir, StoreOptions { strategy, ..StoreOptions::default() }).unwrap()
    }

    pub fn open_with(kind: Kind, dir: &Path, options: StoreOptions) -> txn_rocksdb::Result<Subject> {
        Ok(match kind {
            Kind::KeyValue => Subject::KeyValue(KeyValueStore::open(dir, options)?),
            Kind::Window => Subject::Window(WindowStore::open(dir, options, GEOMETRY)?),
            Kind::Session => Subject::Session(SessionStore::open(dir, options, GEOMETRY)?),
            Kind::Ttl => Subject::Ttl(TtlStore::open(dir, StoreOptions { ttl: Some(TTL), ..options })?),
        })
    }

    pub fn db(&self) -> &KeyValueStore {
        match self {
            Subject::KeyValue(d) => d,
            Subject::Window(w) => w.segments().key_value(),
            Subject::Session(s) => s.segments().key_value(),
            Subject::Ttl(t) => t.key_value(),
        }
    }

    /// Transaction `txn` of program `seed`: puts, overwrites and deletes over a small key space;
    /// window and session timestamps advance with `txn`, so older segments expire (range deletes
    /// land with later commits).
    pub fn write_transaction(&self, seed: u64, txn: u64) {
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
                Subject::Ttl(t) => t.put(&key, v, ts).unwrap(),
            }
        }
        if let Subject::Ttl(t) = self {
            t.expire(10).unwrap();
        }
    }

    pub fn commit(&self, offset: i64) {
        let position = format!("position-{offset}");
        match self {
            Subject::Ttl(t) => t.commit(&[(tp(), Some(offset))], Some(position.as_bytes())).unwrap(),
            other => other.db().commit(&[(tp(), Some(offset))], Some(position.as_bytes())).unwrap(),
        }
    }

    /// The committed contents, raw (segment prefixes and all), plus offsets and position.
    pub fn dump(&self) -> Dump {
        self.try_dump().unwrap()
    }

    /// [`Self::dump`], with the error of a read that fails (damaged data).
    pub fn try_dump(&self) -> txn_rocksdb::Result<Dump> {
        let db = self.db();
        let data = db.range(Range { committed_only: true, ..Range::all() })?.collect_all()?;
        Ok((data, db.committed_offsets()?, db.committed_position()?))
    }

    /// Restores `batches` changelog batches derived from `seed` (for the restore crash test).
    pub fn restore_batches(&self, seed: u64, batches: u64) {
        for b in 0..batches {
            let mut rng = Rng(seed ^ (b + 1).wrapping_mul(0xA24B_AED4_963E_E407) | 1);
            let mut records: Vec<(i64, Vec<u8>, Option<Vec<u8>>)> = Vec::new();
            for i in 0..30 {
                let key = format!("key-{:03}", rng.below(60)).into_bytes();
                let value = (rng.below(4) != 0).then(|| format!("restored-b{b}-{i}").into_bytes());
                records.push(((b as i64) * 400 + rng.below(900) as i64, key, value));
            }
            match self {
                Subject::KeyValue(d) => {
                    d.restore(records.iter().map(|(_, k, v)| (k.as_slice(), v.as_deref()))).unwrap()
                }
                Subject::Window(w) => {
                    let keyed: Vec<_> =
                        records.iter().map(|(ts, k, v)| (*ts, window::store_key(k, *ts, 0), v.clone())).collect();
                    let refs: Vec<_> = keyed.iter().map(|(ts, k, v)| (*ts, k.as_slice(), v.as_deref())).collect();
                    w.segments().restore(&refs).unwrap();
                }
                Subject::Session(s) => {
                    let keyed: Vec<_> = records
                        .iter()
                        .map(|(ts, k, v)| (*ts, session::store_key(k, *ts - 10, *ts), v.clone()))
                        .collect();
                    let refs: Vec<_> = keyed.iter().map(|(ts, k, v)| (*ts, k.as_slice(), v.as_deref())).collect();
                    s.segments().restore(&refs).unwrap();
                }
                Subject::Ttl(t) => {
                    let refs: Vec<_> = records.iter().map(|(ts, k, v)| (k.as_slice(), v.as_deref(), *ts)).collect();
                    t.restore(&refs).unwrap();
                }
            }
        }
    }
}

/// The committed dump after each commit of a program, by running it in-process without faults;
/// index 0 is the state before the first commit of the program.
pub fn reference(kind: Kind, strategy: Strategy, seed: u64, commits: u64) -> Vec<Dump> {
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

pub type Dump = (Vec<(Vec<u8>, Vec<u8>)>, Vec<(TopicPartition, i64)>, Option<Vec<u8>>);

/// Copies a store directory into `to`, with its subdirectories (RocksDB keeps none, a secondary-store
/// commit by ingestion builds its files in `ingest/`).
pub fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The store's newest write-ahead log file.
pub fn newest_wal(dir: &Path) -> PathBuf {
    let mut logs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    logs.sort();
    logs.pop().expect("a WAL file")
}

/// Every file under `dir` (recursively) with its bytes and modification time: equal before and
/// after means nothing in the directory was written.
pub fn fingerprint(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(next) = dirs.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                dirs.push(entry.path());
            } else {
                out.push((entry.path(), std::fs::read(entry.path()).unwrap(), meta.modified().unwrap()));
            }
        }
    }
    out.sort();
    out
}
