//! What the operators' tool reads from a store's directory without opening the store: its facts
//! ([`facts`]: kind, value format, committed offsets, what its next open finishes or throws away),
//! a check of every file and what the next open would do under each damage policy ([`verify`]),
//! and its committed entries ([`dump`]). Everything is read through a read-only view of the files
//! (`view.rs`) that writes nothing to the store's directory; the records are the format crate's
//! [`txn_rocksdb_format::inspection`]. Whether an application has the store open is the caller's
//! to check first (the tool holds the locks Kafka Streams and RocksDB take).

mod view;

use crate::corruption::DAMAGED_FILE;
use crate::error::{Error, Result};
use crate::offsets::TopicPartition;
use crate::options::{DATA_CF, OFFSETS_CF, TXN_CF};
use crate::secondary::COMMIT_FILE_NAME;
use crate::store_kind::StoreKind;
use crate::CorruptionPolicy;
use rust_rocksdb::DB;
use std::path::Path;
use txn_rocksdb_format::commit_record::CommitRecord;
use txn_rocksdb_format::inspection::{
    DumpChunk, DumpEntry, Finding, Outcome, Severity, StoreFacts, Verification, NO_TIME,
};
use txn_rocksdb_format::offsets::COMMIT_RECORD_KEY;
use txn_rocksdb_format::store_kind::KIND_KEY;
use txn_rocksdb_format::temporary::GENERATION_PREFIX_LEN;
use txn_rocksdb_format::value_format::{UPGRADE_KEY, VALUE_FORMAT_KEY};
use txn_rocksdb_format::{segment, session_key, ttl, versioned, window_key};
use view::{Damage, View};

/// What the files of the store in `path` say about it. Damage found on the way is in the
/// findings; facts the files could not give are left empty.
pub fn facts(path: &Path) -> Result<StoreFacts> {
    let look = view::look(path)?;
    let mut findings = look.findings;
    findings.extend(foreign_entries(path));
    let wal_bytes = wal_bytes(path);
    let mut facts = StoreFacts {
        kind: None,
        value_format: None,
        upgrade_pending: false,
        time_to_live: false,
        store_time: NO_TIME,
        commit_pending: false,
        uncommitted_pending: false,
        estimated_keys: 0,
        live_data_bytes: 0,
        wal_bytes,
        offsets: Vec::new(),
        findings: Vec::new(),
    };
    if let Some(view) = &look.view {
        let rocks = &view.rocks;
        let read = |e| Error::storage(path, "reading the store's files", e);
        let meta = |key: &[u8]| rocks.get_cf(family(rocks, OFFSETS_CF), key).map_err(read);
        match meta(KIND_KEY)?.map(|value| StoreKind::decode(&value)) {
            Some(Ok(kind)) => facts.kind = Some(kind),
            Some(Err(why)) => findings.push(damage(format!("its store kind record is damaged: {why}"))),
            None => {}
        }
        facts.value_format = meta(VALUE_FORMAT_KEY)?.and_then(|value| value.first().copied());
        facts.upgrade_pending = meta(UPGRADE_KEY)?.is_some();
        facts.time_to_live = meta(ttl::LAYOUT_KEY)?.is_some();
        if facts.time_to_live {
            if let Some(row) = rocks.get_cf(family(rocks, DATA_CF), ttl::TIME_KEY).map_err(read)? {
                facts.store_time = ttl::decode_time(&row).map_err(|why| Error::storage(path, "its store time", why))?;
            }
        }
        let committing = match meta(COMMIT_RECORD_KEY)?.map(|bytes| CommitRecord::decode(&bytes)) {
            Some(Ok(record)) => Some(record.generation),
            _ => None,
        };
        facts.uncommitted_pending = uncommitted_rows(rocks, committing).map_err(read)?;
        // counted up to a bound; RocksDB's estimate above it (which counts a delete against a put, so
        // it reads 0 for a session store whose merged sessions deleted as many as they wrote)
        let rows = if facts.time_to_live { Rows::TimeToLive } else { Rows::of(facts.kind) };
        facts.estimated_keys = match rows.count(view, path, COUNTED_ENTRIES)? {
            Some(counted) => counted as i64,
            None => {
                let estimate = rocks
                    .property_int_value_cf(family(rocks, DATA_CF), "rocksdb.estimate-num-keys")
                    .map_err(read)?
                    .unwrap_or(0);
                // a key with a time-to-live has two rows: its data and its index entry
                let estimate = if facts.time_to_live { estimate / 2 } else { estimate };
                estimate.max(COUNTED_ENTRIES) as i64
            }
        };
        facts.live_data_bytes = rocks.live_files().map_err(read)?.iter().map(|file| file.size as i64).sum();
        match view.commit_point(path)? {
            Ok(point) => {
                facts.offsets = point.offsets;
                facts.commit_pending = point.rolls_forward;
            }
            Err(what) => findings.push(damage(what)),
        }
    }
    facts.findings = findings;
    Ok(facts)
}

/// Checks every file of the store in `path` (the WAL records, RocksDB's checksums of every data
/// file, that every file RocksDB lists is there at its size) and says what its next open does under
/// each damage policy.
pub fn verify(path: &Path) -> Result<Verification> {
    let look = view::look(path)?;
    let mut findings = look.findings;
    findings.extend(foreign_entries(path));
    let mut worst = look.damage;
    let mut unread_damage = None;
    let mut reached = None;
    if let Some(view) = &look.view {
        let read = |e| Error::storage(path, "reading the store's files", e);
        for file in view.rocks.live_files().map_err(read)? {
            let name = file.name.trim_start_matches('/');
            let what = match std::fs::metadata(path.join(name)) {
                Ok(meta) if meta.len() == file.size as u64 => continue,
                Ok(meta) => format!("data file {name} has {} bytes; RocksDB recorded {}", meta.len(), file.size),
                Err(e) => format!("data file {name} cannot be read: {e}"),
            };
            findings.push(damage(what.clone()));
            unread_damage.get_or_insert(what);
        }
        if let Err(e) = view.rocks.verify_checksum() {
            let what = format!("a checksum of its data files fails: {e}");
            findings.push(damage(what.clone()));
            unread_damage.get_or_insert(what);
        }
        match view.commit_point(path)? {
            Ok(point) => reached = Some((point.offsets, point.rolls_forward)),
            Err(what) => {
                findings.push(damage(what.clone()));
                if worst == Damage::None {
                    worst = Damage::Files(what);
                }
            }
        }
    }
    let next_open = CorruptionPolicy::ALL
        .into_iter()
        .map(|policy| {
            let (outcome, detail) = next_open(policy, &worst, unread_damage.as_deref(), reached.as_ref());
            (policy, outcome, detail)
        })
        .collect();
    Ok(Verification { findings, next_open })
}

/// What the next open does under `policy`: `damage` found before RocksDB reads the data, damage
/// only a read finds (`unread`), and the commit the view reached (its offsets, and whether a
/// secondary-store commit rolls forward to them).
fn next_open(
    policy: CorruptionPolicy,
    damage: &Damage,
    unread: Option<&str>,
    reached: Option<&(Vec<(TopicPartition, i64)>, bool)>,
) -> (Outcome, String) {
    let offsets = reached.map_or_else(|| "unknown".to_owned(), |(offsets, _)| describe_offsets(offsets));
    let heals = policy == CorruptionPolicy::RestoreFromChangelog;
    match damage {
        Damage::Marked(what) | Damage::Files(what) if heals => (Outcome::Wipes, what.clone()),
        Damage::Marked(what) | Damage::Files(what) => (Outcome::Refuses, what.clone()),
        Damage::Wal(what) if policy == CorruptionPolicy::Refuse => {
            (Outcome::Refuses, format!("{what}; the last commit before the damage has changelog offsets {offsets}"))
        }
        Damage::Wal(_) => (Outcome::OpensBeforeDamage, format!("changelog offsets {offsets}")),
        Damage::None => match (unread, reached) {
            (Some(what), _) => (
                Outcome::Opens,
                format!(
                    "{what}; RocksDB checks a block only when it reads it, so the first read of the damaged data fails \
                     and marks the store damaged, and the open after that {}",
                    if heals { "deletes its files for its changelog to restore" } else { "refuses" }
                ),
            ),
            (None, Some((_, true))) => (Outcome::RollsForward, format!("changelog offsets {offsets}")),
            (None, _) => (Outcome::Opens, format!("changelog offsets {offsets}")),
        },
    }
}

/// Up to `max_entries` committed entries of the store in `path` (fewer where they pass a few MiB),
/// in the store's order, from `resume` (where the last chunk said to go on) or the start; only keys
/// from `from` to `to` (both inclusive; a window or session store compares the record's key, not
/// its window). A store with a secondary-store commit being copied is refused: its data is
/// between two commits until its next open rolls the commit forward.
pub fn dump(
    path: &Path,
    from: Option<&[u8]>,
    to: Option<&[u8]>,
    resume: Option<&[u8]>,
    max_entries: usize,
) -> Result<DumpChunk> {
    let look = view::look(path)?;
    let Some(view) = look.view else {
        return Err(Error::Damaged {
            path: path.display().to_string(),
            message: format!("its files cannot be read ({:?}): verify says more", look.damage),
        });
    };
    let read = |e| Error::storage(path, "reading the store's files", e);
    let meta = |key: &[u8]| view.rocks.get_cf(family(&view.rocks, OFFSETS_CF), key).map_err(read);
    if view.commit_point(path)?.is_ok_and(|point| point.rolls_forward) || meta(COMMIT_RECORD_KEY)?.is_some() {
        return Err(Error::InvalidArgument(format!(
            "store {}: a secondary-store commit is being copied into it, so its data is between two commits until \
             its next open rolls the commit forward: start the application (or open the store once), then dump it",
            path.display()
        )));
    }
    let kind = meta(KIND_KEY)?.and_then(|value| StoreKind::decode(&value).ok());
    let rows = if meta(ttl::LAYOUT_KEY)?.is_some() { Rows::TimeToLive } else { Rows::of(kind) };
    rows.chunk(&view, path, Bounds { from, to }, resume, max_entries.max(1))
}

/// The inclusive key bounds of a dump.
#[derive(Clone, Copy)]
struct Bounds<'a> {
    from: Option<&'a [u8]>,
    to: Option<&'a [u8]>,
}

impl Bounds<'_> {
    fn contain(&self, key: &[u8]) -> bool {
        self.from.is_none_or(|from| key >= from) && self.to.is_none_or(|to| key <= to)
    }
}

/// How a kind's rows in the `data` family hold its entries.
enum Rows {
    /// Each key a row (a key-value store; a store of unknown kind shows its raw rows).
    Plain,
    /// Data rows with their write times, then the expiry index and the store's time.
    TimeToLive,
    /// Kafka's window store keys under segment prefixes.
    Window,
    /// Kafka's session store keys under segment prefixes.
    Session,
    /// The latest values under the segment prefix -1, then the older versions' segments.
    Versioned,
}

/// The segment prefix of a versioned store's latest values (`versioned.rs`).
const VERSIONED_LATEST: i64 = -1;
/// Entries [`facts`] counts one by one before it takes RocksDB's estimate instead.
const COUNTED_ENTRIES: u64 = 1_000_000;
/// Bytes after which a chunk ends, whatever its entry count.
const CHUNK_BYTES: usize = 4 << 20;

impl Rows {
    fn of(kind: Option<StoreKind>) -> Rows {
        match kind {
            None | Some(StoreKind::KeyValue) => Rows::Plain,
            Some(StoreKind::Window) => Rows::Window,
            Some(StoreKind::Session) => Rows::Session,
            Some(StoreKind::Versioned) => Rows::Versioned,
        }
    }

    /// The first row key that can hold an entry within `bounds`.
    fn start(&self, bounds: Bounds<'_>) -> Vec<u8> {
        let from = bounds.from.unwrap_or_default();
        match self {
            Rows::Plain => from.to_vec(),
            Rows::TimeToLive => ttl::data_key(from),
            Rows::Window | Rows::Session => Vec::new(),
            Rows::Versioned => segment::prefixed(VERSIONED_LATEST, from),
        }
    }

    /// The entry a row holds: `Stop` past the last row that can hold one within `bounds`.
    fn entry(&self, key: &[u8], value: &[u8], bounds: Bounds<'_>) -> std::result::Result<Row, String> {
        let keyed = |user_key: &[u8], value: &[u8], first: i64, second: i64| {
            Row::Entry(DumpEntry { key: user_key.to_vec(), value: value.to_vec(), first, second })
        };
        Ok(match self {
            Rows::Plain if bounds.to.is_some_and(|to| key > to) => Row::Stop,
            Rows::Plain => keyed(key, value, NO_TIME, NO_TIME),
            Rows::TimeToLive => match ttl::split_data_key(key) {
                None => Row::Stop,
                Some(user_key) if bounds.to.is_some_and(|to| user_key > to) => Row::Stop,
                Some(user_key) => {
                    let (value, written) = ttl::split_data_value(value).map_err(|why| why.0)?;
                    keyed(user_key, value, written, NO_TIME)
                }
            },
            Rows::Window | Rows::Session => {
                let Some((_, store_key)) = segment::split(key) else { return Ok(Row::Skip) };
                let split = match self {
                    Rows::Window => {
                        window_key::split_store_key(store_key).map(|(k, start, seq)| (k, start, seq as i64))
                    }
                    _ => session_key::split_store_key(store_key),
                };
                match split {
                    Some((user_key, first, second)) if bounds.contain(user_key) => {
                        keyed(user_key, value, first, second)
                    }
                    Some(_) => Row::Skip,
                    None => return Err(format!("a row's key ({} bytes) is not a store key", store_key.len())),
                }
            }
            Rows::Versioned => match segment::split(key) {
                Some((VERSIONED_LATEST, user_key)) if bounds.to.is_none_or(|to| user_key <= to) => {
                    let (valid_from, value) = versioned::split_latest_value(value).map_err(|why| why.0)?;
                    keyed(user_key, value, valid_from, NO_TIME)
                }
                _ => Row::Stop,
            },
        })
    }

    /// The store's entries, counted; `None` past `bound`.
    fn count(&self, view: &View, path: &Path, bound: u64) -> Result<Option<u64>> {
        let everything = Bounds { from: None, to: None };
        let mut rows = view.rocks.raw_iterator_cf(family(&view.rocks, DATA_CF));
        rows.seek(self.start(everything));
        let mut counted = 0;
        while let (Some(key), Some(value)) = (rows.key(), rows.value()) {
            match self.entry(key, value, everything) {
                Ok(Row::Entry(_)) if counted == bound => return Ok(None),
                Ok(Row::Entry(_)) => counted += 1,
                Ok(Row::Skip) | Err(_) => {}
                Ok(Row::Stop) => break,
            }
            rows.next();
        }
        rows.status().map_err(|e| Error::storage(path, "reading the store's data", e))?;
        Ok(Some(counted))
    }

    fn chunk(
        &self,
        view: &View,
        path: &Path,
        bounds: Bounds<'_>,
        resume: Option<&[u8]>,
        max_entries: usize,
    ) -> Result<DumpChunk> {
        let mut rows = view.rocks.raw_iterator_cf(family(&view.rocks, DATA_CF));
        rows.seek(resume.map_or_else(|| self.start(bounds), <[u8]>::to_vec));
        let mut entries = Vec::new();
        let mut bytes = 0;
        let mut resume = None;
        while let (Some(key), Some(value)) = (rows.key(), rows.value()) {
            if entries.len() == max_entries || bytes >= CHUNK_BYTES {
                resume = Some(key.to_vec());
                break;
            }
            match self.entry(key, value, bounds) {
                Ok(Row::Entry(entry)) => {
                    bytes += entry.key.len() + entry.value.len() + 24;
                    entries.push(entry);
                }
                Ok(Row::Skip) => {}
                Ok(Row::Stop) => break,
                Err(why) => {
                    return Err(Error::storage_found(path, format!("a row (key {key:02x?}) is malformed: {why}")));
                }
            }
            rows.next();
        }
        rows.status().map_err(|e| Error::storage(path, "reading the store's data", e))?;
        Ok(DumpChunk { resume, entries })
    }
}

/// What one row of the `data` family holds for a dump.
enum Row {
    Entry(DumpEntry),
    /// Not an entry within the bounds; the next row may be.
    Skip,
    /// No later row holds an entry within the bounds.
    Stop,
}

fn family<'a>(rocks: &'a DB, name: &str) -> &'a rust_rocksdb::ColumnFamily {
    rocks.cf_handle(name).expect("every store's column family is opened")
}

fn damage(what: String) -> Finding {
    Finding { severity: Severity::Damage, what }
}

/// Whether the temporary store holds rows of a generation other than `committing` (the one a
/// secondary-store commit being copied holds): writes of a transaction never committed.
fn uncommitted_rows(rocks: &DB, committing: Option<u64>) -> std::result::Result<bool, rust_rocksdb::Error> {
    let mut rows = rocks.raw_iterator_cf(family(rocks, TXN_CF));
    rows.seek_to_first();
    while let Some(key) = rows.key() {
        let generation = key.get(..GENERATION_PREFIX_LEN).and_then(|p| p.try_into().ok()).map(u64::from_be_bytes);
        if generation != committing || committing.is_none() {
            return Ok(true);
        }
        rows.next();
    }
    rows.status().map(|()| false)
}

/// The bytes of the store's write-ahead log files.
fn wal_bytes(path: &Path) -> i64 {
    std::fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
                .filter_map(|e| e.metadata().ok())
                .map(|meta| meta.len() as i64)
                .sum()
        })
        .unwrap_or(0)
}

/// Entries of the store's directory that are neither RocksDB's nor the engine's marks: what a
/// killed process or a damaged WAL left behind (checkpoints of snapshots, restore buffers, WAL
/// files set aside as damaged).
fn foreign_entries(path: &Path) -> Option<Finding> {
    let rocksdb = |name: &str| {
        ["CURRENT", "IDENTITY", "LOCK", DAMAGED_FILE, COMMIT_FILE_NAME].contains(&name)
            || name.starts_with("LOG")
            || name.starts_with("MANIFEST-")
            || name.starts_with("OPTIONS-")
            || [".sst", ".log", ".blob", ".dbtmp"].iter().any(|ext| name.ends_with(ext))
    };
    let mut names: Vec<String> = std::fs::read_dir(path)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !rocksdb(name))
        .collect();
    names.sort();
    (!names.is_empty()).then(|| Finding {
        severity: Severity::Note,
        what: format!(
            "entries that are not RocksDB's: {} (WAL files set aside as damaged, or what a killed process left \
             behind)",
            names.join(", ")
        ),
    })
}

/// Changelog offsets as `topic-partition: offset, ...`.
fn describe_offsets(offsets: &[(TopicPartition, i64)]) -> String {
    if offsets.is_empty() {
        return "none".to_owned();
    }
    offsets.iter().map(|(tp, offset)| format!("{}-{}: {offset}", tp.topic, tp.partition)).collect::<Vec<_>>().join(", ")
}
