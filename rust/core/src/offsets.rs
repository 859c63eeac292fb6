//! Changelog offsets and the committed position, kept in the `offsets` column family (key and
//! value layout: the format crate's [`txn_rocksdb_format::offsets`]). It works on a bare RocksDB
//! instance, a store's own (`db.rs`) or a read-only view of its files (`corruption/wal.rs`), so it
//! returns RocksDB's own read errors: the caller names the store in them and marks it damaged
//! where they say so (`corruption::rocks_error`).

use crate::error::{Error, Result};
use crate::options::OFFSETS_CF;
use rust_rocksdb::{ColumnFamily, WriteBatch, DB};
use std::collections::BTreeMap;
use std::path::Path;
use txn_rocksdb_format::offsets::{decode_offset, is_offset_key, offset_key, offset_value, POSITION_KEY};
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

/// Appends a commit's writes to the `offsets` family (`offsets`, the instance's handle) to `batch`.
pub(crate) fn append_writes(batch: &mut WriteBatch, offsets: &ColumnFamily, writes: &OffsetWrites) {
    for (key, value) in writes {
        match value {
            Some(value) => batch.put_cf(offsets, key, value),
            None => batch.delete_cf(offsets, key),
        }
    }
}

/// The offset entries of the `offsets` family in `rocks`, raw, in key order.
pub(crate) fn offset_entries(rocks: &DB) -> std::result::Result<BTreeMap<Vec<u8>, Vec<u8>>, rust_rocksdb::Error> {
    let family = rocks.cf_handle(OFFSETS_CF).expect("offsets column family is created at open");
    let mut entries = BTreeMap::new();
    let mut iterator = rocks.raw_iterator_cf(family);
    iterator.seek_to_first();
    while let (Some(key), Some(value)) = (iterator.key(), iterator.value()) {
        if is_offset_key(key) {
            entries.insert(key.to_vec(), value.to_vec());
        }
        iterator.next();
    }
    iterator.status()?;
    Ok(entries)
}

/// `entries` ([`offset_entries`]) once a secondary-store commit's record has been rolled forward:
/// the offsets its copy reaches.
pub(crate) fn after_commit(
    mut entries: BTreeMap<Vec<u8>, Vec<u8>>,
    record: &txn_rocksdb_format::commit_record::CommitRecord,
) -> BTreeMap<Vec<u8>, Vec<u8>> {
    for (key, value) in record.offset_writes.iter().filter(|(key, _)| is_offset_key(key)) {
        match value {
            Some(value) => entries.insert(key.clone(), value.clone()),
            None => entries.remove(key),
        };
    }
    entries
}

/// The changelog offsets that `entries` ([`offset_entries`]) hold; one that does not decode is a
/// storage error of the store in `path`.
pub(crate) fn decode_offsets(entries: &BTreeMap<Vec<u8>, Vec<u8>>, path: &Path) -> Result<Vec<(TopicPartition, i64)>> {
    entries.iter().map(|(key, value)| decode_offset(key, value).map_err(|why| Error::storage(path, "", why))).collect()
}

/// The position blob in `rocks`, written by the last commit that carried one.
pub(crate) fn position(rocks: &DB) -> std::result::Result<Option<Vec<u8>>, rust_rocksdb::Error> {
    let family = rocks.cf_handle(OFFSETS_CF).expect("offsets column family is created at open");
    rocks.get_cf(family, POSITION_KEY)
}
