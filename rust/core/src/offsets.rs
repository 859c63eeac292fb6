//! Changelog offsets and the committed position, kept in the `offsets` column family.
//!
//! Key layout: `b'o' ++ topic ++ 0x00 ++ partition (i32 BE)` → offset (i64 BE); the opaque
//! position blob lives under `b"p"`. Topic names cannot contain 0x00, so keys never collide.

use crate::db::{Db, OFFSETS_CF};
use crate::{Error, Result};
use rust_rocksdb::{WriteBatch, DB};
use std::path::Path;

/// A changelog topic partition.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TopicPartition {
    pub topic: String,
    pub partition: i32,
}

/// One entry of a commit's offset map: `None` removes that partition's offset.
pub type OffsetUpdate = (TopicPartition, Option<i64>);

/// A commit's writes to the `offsets` family: key, and value or `None` to delete.
pub(crate) type OffsetWrites = Vec<(Vec<u8>, Option<Vec<u8>>)>;

const POSITION_KEY: &[u8] = b"p";
const OFFSET_PREFIX: u8 = b'o';

fn offset_key(partition: &TopicPartition) -> Vec<u8> {
    let mut key = Vec::with_capacity(partition.topic.len() + 6);
    key.push(OFFSET_PREFIX);
    key.extend_from_slice(partition.topic.as_bytes());
    key.push(0);
    key.extend_from_slice(&partition.partition.to_be_bytes());
    key
}

fn is_offset_key(key: &[u8]) -> bool {
    key.first() == Some(&OFFSET_PREFIX)
}

fn decode_offset(key: &[u8], value: &[u8]) -> Result<(TopicPartition, i64)> {
    let bad = || Error::InvalidArgument(format!("corrupt offset entry (key {} bytes)", key.len()));
    if key.len() < 6 || key[key.len() - 5] != 0 || value.len() != 8 {
        return Err(bad());
    }
    let topic = std::str::from_utf8(&key[1..key.len() - 5]).map_err(|_| bad())?.to_owned();
    let partition = i32::from_be_bytes(key[key.len() - 4..].try_into().map_err(|_| bad())?);
    let offset = i64::from_be_bytes(value.try_into().map_err(|_| bad())?);
    Ok((TopicPartition { topic, partition }, offset))
}

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
        writes.push((offset_key(partition), offset.map(|offset| offset.to_be_bytes().to_vec())));
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
    offsets_in(&db.rocks, &db.path)
}

/// The committed changelog offsets in `rocks` (a store's instance, perhaps opened read-only).
pub(crate) fn offsets_in(rocks: &DB, path: &Path) -> Result<Vec<(TopicPartition, i64)>> {
    let mut out = Vec::new();
    let family = rocks.cf_handle(OFFSETS_CF).expect("offsets column family is created at open");
    let mut entries = rocks.raw_iterator_cf(family);
    entries.seek_to_first();
    while let (Some(key), Some(value)) = (entries.key(), entries.value()) {
        if is_offset_key(key) {
            out.push(decode_offset(key, value)?);
        }
        entries.next();
    }
    entries.status().map_err(|e| Error::storage(path, e))?;
    Ok(out)
}

/// The position blob written by the last commit that carried one.
pub(crate) fn committed_position(db: &Db) -> Result<Option<Vec<u8>>> {
    db.rocks.get_cf(db.offsets(), POSITION_KEY).map_err(|e| db.err(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_key_round_trips() {
        let tp = TopicPartition { topic: "app-store-changelog".into(), partition: 7 };
        let k = offset_key(&tp);
        assert!(is_offset_key(&k));
        assert_eq!(decode_offset(&k, &(-4i64).to_be_bytes()).unwrap(), (tp, -4));
        assert!(decode_offset(&k[..3], &[0; 8]).is_err());
    }
}
