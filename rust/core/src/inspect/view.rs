//! A read-only view of a store's files: RocksDB opened read-only over them, after the same WAL
//! checks an open makes, without writing a byte to the store's directory. A read-only open takes
//! no lock and writes no `LOG`; what an open would change first (a write-ahead log's torn end cut
//! off, a damaged one set aside) is done to a copy instead: a directory under the system's temporary
//! directory whose files link to the store's (symbolic links; copies on Windows), with the WAL files
//! as the open would leave them. RocksDB must not read a garbled WAL record (it can loop forever).

use crate::corruption::{is_corruption, scan_wals, wal_hole, WalScan, DAMAGED_FILE};
use crate::error::{Error, Result};
use crate::offsets::TopicPartition;
use crate::offsets::{after_commit, decode_offsets, offset_entries};
use crate::options::{Opening, OFFSETS_CF};
use crate::secondary::read_commit_file;
use crate::tuning::Tuning;
use rust_rocksdb::{DBRecoveryMode, DB};
use std::path::{Path, PathBuf};
use txn_rocksdb_format::commit_record::CommitRecord;
use txn_rocksdb_format::inspection::{Finding, Severity};
use txn_rocksdb_format::offsets::COMMIT_RECORD_KEY;

/// What a look at a store's files found: the read-only instance, unless its files cannot be
/// opened, and what was found on the way.
pub(crate) struct Look {
    pub(crate) view: Option<View>,
    pub(crate) findings: Vec<Finding>,
    pub(crate) damage: Damage,
}

/// The damage that decides what the store's next open does (`verify.rs`), the worst found first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Damage {
    None,
    /// A WAL damaged before its end, or a hole between WAL files: the view stops at the last
    /// commit before it.
    Wal(String),
    /// An earlier read or write found damaged data and left the `DAMAGED` mark.
    Marked(String),
    /// RocksDB cannot open the files (a damaged or missing MANIFEST, SST or CURRENT).
    Files(String),
}

/// RocksDB opened read-only over a store's files (or over a copy of them with the WAL as an open
/// would leave it).
pub(crate) struct View {
    pub(crate) rocks: DB,
    /// The copy, removed when the view is dropped (after `rocks`: fields drop in order).
    _copy: Option<Copy>,
}

/// The commit a store's next open reaches, as its recovery reads it first: the committed offsets,
/// and a secondary-store commit's record (in the store, or in the commit file of an older version)
/// that it rolls forward.
pub(crate) struct CommitPoint {
    pub(crate) offsets: Vec<(TopicPartition, i64)>,
    /// A secondary-store commit is rolled forward to these offsets.
    pub(crate) rolls_forward: bool,
}

impl View {
    /// The commit the store's next open reaches; `Err` names damage found reading it (the open
    /// finds it too, and handles the store as damaged).
    pub(crate) fn commit_point(&self, path: &Path) -> Result<std::result::Result<CommitPoint, String>> {
        let family = self.rocks.cf_handle(OFFSETS_CF).expect("every store's column family is opened");
        let read = |e: rust_rocksdb::Error| {
            if is_corruption(&e) {
                Ok(Err(format!("RocksDB found damaged data reading its committed offsets: {e}")))
            } else {
                Err(Error::storage(path, "reading the store's committed offsets", e))
            }
        };
        let stored = match self.rocks.get_cf(family, COMMIT_RECORD_KEY) {
            Ok(stored) => stored,
            Err(e) => return read(e),
        };
        let mut entries = match offset_entries(&self.rocks) {
            Ok(entries) => entries,
            Err(e) => return read(e),
        };
        let record = match (stored, read_commit_file(path)) {
            (Some(bytes), _) => match CommitRecord::decode(&bytes) {
                Ok(record) => Some(record),
                Err(why) => return Ok(Err(format!("the record of the commit in progress does not decode ({why})"))),
            },
            (None, Ok(legacy)) => legacy,
            (None, Err(e)) => return Ok(Err(e.to_string())),
        };
        let rolls_forward = record.is_some();
        if let Some(record) = record {
            entries = after_commit(entries, &record);
        }
        match decode_offsets(&entries, path) {
            Ok(offsets) => Ok(Ok(CommitPoint { offsets, rolls_forward })),
            Err(e) => Ok(Err(e.to_string())),
        }
    }
}

/// Looks at the store in `path`: its `DAMAGED` mark, its WAL files, then RocksDB opened read-only.
/// Fails only for what is not damage: no store there, or the files cannot be read.
pub(crate) fn look(path: &Path) -> Result<Look> {
    if !path.join("CURRENT").is_file() {
        return Err(Error::InvalidArgument(format!(
            "{} is not a store's directory: it has no RocksDB CURRENT file",
            path.display()
        )));
    }
    let mut findings = Vec::new();
    let mut damage = Damage::None;
    let damage_found = |findings: &mut Vec<Finding>, what: String| {
        findings.push(Finding { severity: Severity::Damage, what });
    };
    if let Ok(mark) = std::fs::read(path.join(DAMAGED_FILE)) {
        let what = format!(
            "marked damaged by an earlier read or write ({}): the {DAMAGED_FILE} file",
            String::from_utf8_lossy(&mark).trim()
        );
        damage_found(&mut findings, what.clone());
        damage = Damage::Marked(what);
    }
    let copy = match scan_wals(path) {
        WalScan::Intact => None,
        WalScan::TornTail { file, at, message } => {
            let dropped = std::fs::metadata(&file).map_or(0, |meta| meta.len().saturating_sub(at as u64));
            findings.push(Finding {
                severity: Severity::Note,
                what: format!(
                    "{message}: its last {dropped} bytes are no intact record (a write cut short by a power loss, or \
                     damage in the log's last block, which cannot be told apart); the next open drops them, and the \
                     changelog restores any commit they held"
                ),
            });
            Some(Copy::new(path, std::slice::from_ref(&file), Some((&file, at)))?)
        }
        WalScan::Damaged(wal) => {
            let what = format!("{}; the commits after the damage are not in the store", wal.message);
            damage_found(&mut findings, what.clone());
            if damage == Damage::None {
                damage = Damage::Wal(what);
            }
            Some(Copy::new(path, &wal.files, Some((&wal.files[0], wal.at)))?)
        }
    };
    let files = copy.as_ref().map_or(path, |c| c.path.as_path());
    let tuning = Tuning::default();
    let opening = Opening { path: files, statistics: false, tuning: &tuning };
    if let Some(hole) = wal_hole(&opening) {
        damage_found(&mut findings, hole.clone());
        if damage == Damage::None {
            damage = Damage::Wal(hole);
        }
    }
    let mode = match damage {
        Damage::Wal(_) => DBRecoveryMode::PointInTime,
        _ => DBRecoveryMode::TolerateCorruptedTailRecords,
    };
    let opened = match opening.open_read_only(mode) {
        // as an open does (`corruption::open`): damage that stops RocksDB at a point in time is
        // in the write-ahead log, and the store opens there or refuses, as the policy says
        Err(e) if is_corruption(&e) && mode != DBRecoveryMode::PointInTime => {
            match opening.open_read_only(DBRecoveryMode::PointInTime) {
                Ok(rocks) => {
                    let what = format!("RocksDB found the write-ahead log damaged: {e}");
                    damage_found(&mut findings, what.clone());
                    if damage == Damage::None {
                        damage = Damage::Wal(what);
                    }
                    Ok(rocks)
                }
                Err(_) => Err(e),
            }
        }
        opened => opened,
    };
    let view = match opened {
        Ok(rocks) => Some(View { rocks, _copy: copy }),
        Err(e) if is_corruption(&e) => {
            let what = format!("RocksDB cannot open the store's files: {e}");
            damage_found(&mut findings, what.clone());
            damage = Damage::Files(what);
            None
        }
        Err(e) => return Err(Error::storage(path, "opening the store read-only", e)),
    };
    Ok(Look { view, findings, damage })
}

/// A directory under the system's temporary directory holding the store's files (links; copies
/// where links cannot be made) with `wals` left out, except the first, cut at `cut`.
struct Copy {
    path: PathBuf,
}

impl Copy {
    fn new(store: &Path, wals: &[PathBuf], cut: Option<(&PathBuf, usize)>) -> Result<Copy> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "txn-rocksdb-view-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let copy = Copy { path };
        let io = |e: std::io::Error| Error::storage(store, "making a read-only view of the store's files", e);
        let _ = std::fs::remove_dir_all(&copy.path);
        std::fs::create_dir_all(&copy.path).map_err(io)?;
        // links name their target by absolute path, so that they resolve from the copy
        let store = std::fs::canonicalize(store).map_err(io)?;
        let left_out: Vec<_> = wals.iter().filter_map(|wal| wal.file_name()).collect();
        for entry in std::fs::read_dir(&store).map_err(io)? {
            let entry = entry.map_err(io)?;
            let from = entry.path();
            let name = entry.file_name();
            if !entry.file_type().map_err(io)?.is_file() || left_out.contains(&name.as_os_str()) || name == "LOCK" {
                continue;
            }
            link(&from, &copy.path.join(entry.file_name())).map_err(io)?;
        }
        if let Some((file, at)) = cut {
            let bytes = std::fs::read(file).map_err(io)?;
            std::fs::write(copy.path.join(file.file_name().unwrap_or_default()), &bytes[..at.min(bytes.len())])
                .map_err(io)?;
        }
        Ok(copy)
    }
}

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(unix)]
fn link(from: &Path, to: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(from, to)
}

#[cfg(not(unix))]
fn link(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::copy(from, to).map(|_| ())
}
