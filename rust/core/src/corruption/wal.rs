//! A write-ahead log damaged before its end, found and set aside before RocksDB replays it
//! (RocksDB 11.12's log reader can loop forever on some garbled records), or found by RocksDB at
//! open; and a hole between WAL files. What follows is the policy's (`policy.rs`): refuse with the
//! offsets of the last consistent commit, or open there.

use super::damaged::{is_corruption, rocks_error};
use super::policy::{self, CorruptionPolicy};
use crate::error::{Error, Result};
use crate::offsets::{after_commit, decode_offsets, offset_entries};
use crate::options::{Opening, OFFSETS_CF};
use rust_rocksdb::{DBRecoveryMode, DB};
use std::path::{Path, PathBuf};
use txn_rocksdb_format::commit_record::CommitRecord;
use txn_rocksdb_format::offsets::{TopicPartition, COMMIT_RECORD_KEY};

/// The open failed with `corruption`. If the instance opens read-only at the point in time
/// before a damaged WAL record (so the damage is in the WAL, not in an SST file or the
/// manifest), either refuse, or open read-write in that mode as `policy` says: RocksDB then keeps
/// the commits before the damage and discards the rest of the log. What it keeps is a prefix of
/// the store's writes, so it is a commit's state, or a secondary-store copy cut short, which
/// recovery rolls forward from its commit record. Any other damage is [`Error::Damaged`].
pub(super) fn open_after_corruption(opening: &Opening<'_>, corruption: String, policy: CorruptionPolicy) -> Result<DB> {
    let path = opening.path;
    let damaged = |e: String| Error::Damaged {
        path: path.display().to_string(),
        message: format!("RocksDB found damaged files at open: {e}"),
    };
    let offsets = match opening.open_read_only(DBRecoveryMode::PointInTime) {
        Ok(rocks) => consistent_offsets(&rocks, path)?,
        // not (only) the WAL: nothing to decide
        Err(_) => return Err(damaged(corruption)),
    };
    let offsets = format!("{offsets:?}");
    let wal = wal_files(path);
    if !policy::opens_at_last_consistent_commit(policy) {
        return Err(Error::CorruptedWal {
            path: path.display().to_string(),
            message: format!("{corruption}; WAL files {wal}"),
            last_consistent_offsets: offsets,
        });
    }
    let rocks = opening.open(DBRecoveryMode::PointInTime).map_err(|e| {
        if is_corruption(&e) {
            damaged(e.to_string())
        } else {
            Error::storage(path, "", e)
        }
    })?;
    log::warn!(
        "store {}: the write-ahead log is damaged before its end ({corruption}; WAL files {wal}); opened at the \
         last consistent commit, changelog offsets {offsets}. Every commit after the damage is lost from this store \
         and is restored from the changelog",
        path.display()
    );
    Ok(rocks)
}

/// A WAL file damaged before its end (see `txn_rocksdb_format::wal`), found before RocksDB
/// replays it: RocksDB 11.12's log reader can loop forever on some garbled records, in every
/// recovery mode.
pub(crate) struct WalDamage {
    /// The WAL files in replay order: the damaged one first, then every newer one.
    pub(crate) files: Vec<PathBuf>,
    /// Where the intact records of the damaged file end.
    pub(crate) at: usize,
    pub(crate) message: String,
}

/// The store's WAL files, oldest first (RocksDB numbers them in creation order).
fn wal_paths(path: &Path) -> Vec<PathBuf> {
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let number = name.strip_suffix(".log")?.parse::<u64>().ok()?;
                    Some((number, e.path()))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files.into_iter().map(|(_, path)| path).collect()
}

/// What a scan of a store's WAL files found ([`scan_wals`]), before RocksDB reads any.
pub(crate) enum WalScan {
    Intact,
    /// The newest file ends in a record cut short or garbled, with nothing intact after it (a
    /// write cut short by a crash: no commit was acknowledged from it). RocksDB would drop it, but
    /// must not read a garbled record at all: it is cut off before RocksDB opens the store.
    TornTail {
        file: PathBuf,
        at: usize,
        message: String,
    },
    /// A file damaged before its end.
    Damaged(WalDamage),
}

/// The first WAL file whose records are damaged before its end: garbled records with intact ones
/// after them, or an older file cut short (RocksDB's tolerant mode would replay the newer files
/// around the gap); or the newest file's torn end. Reads only.
pub(crate) fn scan_wals(path: &Path) -> WalScan {
    use txn_rocksdb_format::wal::{scan, WalScan as Records};
    let files = wal_paths(path);
    for (i, file) in files.iter().enumerate() {
        let Ok(bytes) = std::fs::read(file) else { continue };
        let newest = i + 1 == files.len();
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let (at, what) = match scan(&bytes) {
            Records::Intact => continue,
            Records::TornTail { at } if newest => {
                let message = format!("WAL file {name} ends in a record cut short at byte {at}");
                return WalScan::TornTail { file: file.clone(), at, message };
            }
            Records::TornTail { at } => {
                (at, format!("it ends in a record cut short at byte {at}, before newer WAL files"))
            }
            Records::Damaged { at, reason } => (at, reason),
        };
        return WalScan::Damaged(WalDamage {
            files: files[i..].to_vec(),
            at,
            message: format!("WAL file {name} ({} bytes) is damaged: {what}", bytes.len()),
        });
    }
    WalScan::Intact
}

/// The first WAL file damaged before its end ([`scan_wals`]). The newest file's torn end is cut
/// off here, as RocksDB would drop it, because RocksDB must not read a garbled record at all.
pub(super) fn damaged_wal(path: &Path) -> Result<Option<WalDamage>> {
    match scan_wals(path) {
        WalScan::Intact => Ok(None),
        WalScan::TornTail { file, at, message } => {
            log::info!("store {}: {message}; cut there", path.display());
            let bytes = std::fs::read(&file).map_err(|e| Error::storage(path, "", e))?;
            write_synced(&file, &bytes[..at.min(bytes.len())]).map_err(|e| Error::storage(path, "", e))?;
            Ok(None)
        }
        WalScan::Damaged(damage) => Ok(Some(damage)),
    }
}

/// Handles a damaged WAL before RocksDB reads it. The commits before the damage are the intact
/// records of the damaged file (and every older file): a view of the store with that file cut at
/// the damage and the newer files left out is opened read-only to read their offsets. Then, as
/// `policy` says, the store refuses ([`Error::CorruptedWal`], naming those offsets), or the damaged
/// file and the newer ones are moved to `damaged-wal-<time>/` inside the store (kept for
/// inspection, never replayed) and the cut file takes the damaged one's place, so the open goes on
/// at the last commit before the damage.
pub(super) fn set_aside_damaged_wal(opening: &Opening<'_>, damage: WalDamage, policy: CorruptionPolicy) -> Result<()> {
    let path = opening.path;
    let io = |e: std::io::Error| Error::storage(path, "", e);
    let damaged = &damage.files[0];
    let bytes = std::fs::read(damaged).map_err(io)?;
    let kept = &bytes[..damage.at.min(bytes.len())];
    let offsets = offsets_before(opening, &damage, kept)
        .map_or_else(|e| format!("unknown ({})", e.report()), |o| format!("{o:?}"));
    if !policy::opens_at_last_consistent_commit(policy) {
        return Err(Error::CorruptedWal {
            path: path.display().to_string(),
            message: damage.message,
            last_consistent_offsets: offsets,
        });
    }
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let aside = path.join(format!("damaged-wal-{secs}"));
    std::fs::create_dir_all(&aside).map_err(io)?;
    for file in &damage.files {
        if let Some(name) = file.file_name() {
            std::fs::rename(file, aside.join(name)).map_err(io)?;
        }
    }
    write_synced(damaged, kept).map_err(io)?;
    crate::durable::sync_dir(path).map_err(io)?;
    log::warn!(
        "store {}: {}. The store opens at the last commit before the damage, changelog offsets {offsets}; every \
         commit after it is lost from this store and is restored from the changelog. The damaged WAL files were \
         moved to {}",
        path.display(),
        damage.message,
        aside.display()
    );
    Ok(())
}

fn write_synced(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut out = std::fs::File::create(file)?;
    out.write_all(bytes)?;
    out.sync_all()
}

/// The offsets of the commit a store reaches when its WAL stops where `kept` ends: read from a
/// sibling directory holding the store's files (hard links, copies where linking fails) with the
/// damaged WAL cut and the newer ones left out, opened read-only and then deleted.
fn offsets_before(opening: &Opening<'_>, damage: &WalDamage, kept: &[u8]) -> Result<Vec<(TopicPartition, i64)>> {
    let path = opening.path;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let view = path.with_file_name(format!(".{name}.wal-view-{}", std::process::id()));
    let io = |e: std::io::Error| Error::storage(path, "", e);
    let _ = std::fs::remove_dir_all(&view);
    std::fs::create_dir_all(&view).map_err(io)?;
    let result = (|| {
        for entry in std::fs::read_dir(path).map_err(io)? {
            let entry = entry.map_err(io)?;
            let from = entry.path();
            if !entry.file_type().map_err(io)?.is_file() || damage.files.contains(&from) || entry.file_name() == "LOCK"
            {
                continue;
            }
            let to = view.join(entry.file_name());
            if std::fs::hard_link(&from, &to).is_err() {
                std::fs::copy(&from, &to).map_err(io)?;
            }
        }
        write_synced(&view.join(damage.files[0].file_name().unwrap_or_default()), kept).map_err(io)?;
        let inside = Opening { path: &view, statistics: false, tuning: opening.tuning };
        let rocks = inside.open_read_only(DBRecoveryMode::PointInTime).map_err(|e| Error::storage(path, "", e))?;
        consistent_offsets(&rocks, path)
    })();
    let _ = std::fs::remove_dir_all(&view);
    result
}

/// A hole in the write-ahead log: with several WAL files, RocksDB's `TolerateCorruptedTailRecords`
/// drops the cut-short end of an older one and goes on replaying the newer ones, which would leave a
/// gap in the middle of the store's writes (`tests/damaged_files.rs` cuts an older live WAL). Opened
/// read-only in both modes, a hole shows as two different commits: `PointInTime` stops at the cut.
/// Then the damage is described (the open goes on as for a damaged WAL); else `None`. A single WAL
/// (the usual case) needs no check: its cut end is a torn tail.
pub(crate) fn wal_hole(opening: &Opening<'_>) -> Option<String> {
    let path = opening.path;
    let wals = wal_files(path);
    if wals.split(", ").filter(|name| !name.is_empty()).count() < 2 {
        return None;
    }
    let reached = |mode: DBRecoveryMode| {
        let rocks = opening.open_read_only(mode).ok()?;
        consistent_offsets(&rocks, path).ok()
    };
    let tolerant = reached(DBRecoveryMode::TolerateCorruptedTailRecords)?;
    let point_in_time = reached(DBRecoveryMode::PointInTime)?;
    (tolerant != point_in_time).then(|| {
        format!(
            "a WAL file ends before a newer one begins (WAL files {wals}): replaying past the gap would reach offsets \
             {tolerant:?} without the commits in it; the last commit before it has offsets {point_in_time:?}"
        )
    })
}

/// The changelog offsets of the commit `rocks` opens at: those of a secondary-store commit whose
/// copy was cut short (recovery completes it), else the committed ones.
pub(crate) fn consistent_offsets(rocks: &DB, path: &Path) -> Result<Vec<(TopicPartition, i64)>> {
    let family = rocks.cf_handle(OFFSETS_CF).expect("offsets column family is created at open");
    let in_progress = rocks.get_pinned_cf(family, COMMIT_RECORD_KEY).map_err(|e| rocks_error(path, e))?;
    let mut entries = offset_entries(rocks).map_err(|e| rocks_error(path, e))?;
    if let Some(Ok(record)) = in_progress.map(|bytes| CommitRecord::decode(&bytes)) {
        entries = after_commit(entries, &record);
    }
    decode_offsets(&entries, path)
}

/// The names of the WAL files in `path`, for messages.
fn wal_files(path: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(path)
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.retain(|name| name.ends_with(".log"));
    names.sort();
    names.join(", ")
}
