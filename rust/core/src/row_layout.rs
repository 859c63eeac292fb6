//! Which layout a key-value store's rows are in: plain (each key a row of its own), or the rows of a
//! store with a time-to-live (the format crate's [`txn_rocksdb_format::ttl`]: data rows with their
//! write times, the expiry index, the store's time). A store records the time-to-live layout in its
//! `offsets` family when it is created in it ([`LAYOUT_KEY`]), and is refused at open in the other
//! one: a plain store read as one with a time-to-live would find no data rows, and the reverse
//! would show the index.

use crate::db::Db;
use crate::error::{Error, Result};
use txn_rocksdb_format::ttl::{LAYOUT_KEY, LAYOUT_VERSION};

/// The layout of a key-value store's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowLayout {
    /// Each key a row of its own.
    Plain,
    /// A store with a time-to-live: data rows with their write times, the expiry index, the
    /// store's time.
    TimeToLive,
}

impl RowLayout {
    /// The layout of a store opened with (`true`) or without a time-to-live.
    pub fn of(ttl: bool) -> RowLayout {
        if ttl {
            RowLayout::TimeToLive
        } else {
            RowLayout::Plain
        }
    }
}

/// Checks at open that the store's rows are in the layout it opens in (`ttl`: the TTL layout, else
/// the plain one), recording the TTL layout in a new store; a store written in the other layout is
/// refused, naming the ways out.
pub(crate) fn open_in(db: &Db, ttl: bool) -> Result<()> {
    let marker = db.rocks.get_pinned_cf(db.offsets(), LAYOUT_KEY).map_err(|e| db.rocks_err(e))?;
    match (marker.as_deref(), ttl) {
        (Some(version), _) if version != [LAYOUT_VERSION] => Err(Error::Damaged {
            path: db.path.display().to_string(),
            message: format!("its time-to-live layout record is {version:02x?}, not [{LAYOUT_VERSION:02x}]"),
        }),
        (None, false) | (Some(_), true) => Ok(()),
        (None, true) if crate::value_format::is_empty(db)? => {
            db.rocks.put_cf(db.offsets(), LAYOUT_KEY, [LAYOUT_VERSION]).map_err(|e| db.rocks_err(e))
        }
        (None, true) => Err(db.err(
            "it was written without a time-to-live and is opened with one: delete the store's directory so that \
             it is restored from its changelog with the time-to-live, or open it without one",
        )),
        (Some(_), false) => Err(db.err(
            "it was written with a time-to-live and is opened without one: delete the store's directory so that \
             it is restored from its changelog without it, or open it with a time-to-live again",
        )),
    }
}
