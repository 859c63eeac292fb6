//! Changelog offsets and the committed position, kept in the `offsets` column family (key and
//! value layout: the format crate's [`txn_rocksdb_format::offsets`]).

use crate::db::{self, Db};
use crate::Result;
use rust_rocksdb::WriteBatch;
use txn_rocksdb_format::offsets::{offset_key, offset_value, POSITION_KEY};
pub use txn_rocksdb_format::offsets::{OffsetUpdate, TopicPartition};

/// A commit's writes to the `offsets` family: key, and value or `None` to delete.
pub(crate) type OffsetWrites = Vec<(Vec<u8>, Option<Vec<u8>>)>;

/// The writes a commit makes to the `offsets` family: `updates` (an empty list clears every
/// offset in `committed`, a `None` offset removes that partition's) and the position blob.
pub(crate) fn offset_writes(
    updates: &[OffsetUpdate],
    position: Option<&[u8]>,
    committed: impl FnOnce() -> Result<Vec<(TopicPartition, i64)>>,
) -> Result<OffsetWrites> {
    let mut writes: OffsetWrites = Vec::with_capacity(updates.len() + 1);
    if updates.is_empty() {
        for (partition, _) in committed()? {
            writes.push((offset_key(&partition), None));
        }
    }
    for (partition, offset) in updates {
        writes.push((offset_key(partition), offset.map(offset_value)));
    }
    if let Some(position) = position {
        writes.push((POSITION_KEY.to_vec(), Some(position.to_vec())));
    }
    Ok(writes)
}

/// Appends a commit's writes to the `offsets` family to `batch`.
pub(crate) fn append_writes(batch: &mut WriteBatch, db: &Db, writes: &OffsetWrites) {
    let offsets = db.offsets();
    for (key, value) in writes {
        match value {
            Some(value) => batch.put_cf(offsets, key, value),
            None => batch.delete_cf(offsets, key),
        }
    }
}

/// The committed changelog offsets.
pub(crate) fn committed_offsets(db: &Db) -> Result<Vec<(TopicPartition, i64)>> {
    db::offsets_in(&db.rocks, &db.path)
}

/// The position blob written by the last commit that carried one.
pub(crate) fn committed_position(db: &Db) -> Result<Option<Vec<u8>>> {
    db.rocks.get_cf(db.offsets(), POSITION_KEY).map_err(|e| db.rocks_err(e))
}
