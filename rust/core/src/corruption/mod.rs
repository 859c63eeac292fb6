//! What opening a store does with damaged files: the policy ([`CorruptionPolicy`], `policy.rs`),
//! the checks and the set-aside of a write-ahead log damaged before its end (`wal.rs`), and the
//! one drastic step the policy may take, deleting a damaged store's files so that its changelog
//! restores it, with the `DAMAGED` mark that a read or write finding damage leaves for the next
//! open (`damaged.rs`). [`open`] opens a store's RocksDB instance through all of it (`db.rs` keeps
//! what it opened); `store.rs` wipes when the policy says so.

mod damaged;
mod policy;
mod wal;

pub(crate) use damaged::{is_corruption, rocks_error, wipe, DAMAGED_FILE};
pub use policy::CorruptionPolicy;
pub(crate) use wal::{scan_wals, wal_hole, WalScan};

use crate::error::{Error, Result};
use crate::options::Opening;
use rust_rocksdb::{DBRecoveryMode, DB};

/// Opens the RocksDB instance of the store in `opening.path` (which exists). A write-ahead log
/// damaged before its end fails with [`Error::CorruptedWal`] unless `policy` opens it at the last
/// consistent commit; a store marked damaged, or other damage RocksDB finds at open, fails with
/// [`Error::Damaged`] (see [`CorruptionPolicy`]).
pub(crate) fn open(opening: &Opening<'_>, policy: CorruptionPolicy) -> Result<DB> {
    let path = opening.path;
    damaged::check_not_marked(path)?;
    if let Some(damage) = wal::damaged_wal(path)? {
        wal::set_aside_damaged_wal(opening, damage, policy)?;
    }
    Ok(match wal::wal_hole(opening) {
        Some(hole) => wal::open_after_corruption(opening, hole, policy)?,
        None => match opening.open(DBRecoveryMode::TolerateCorruptedTailRecords) {
            Err(e) if damaged::is_corruption(&e) => wal::open_after_corruption(opening, e.to_string(), policy)?,
            opened => opened.map_err(|e| Error::storage(path, "", e))?,
        },
    })
}
