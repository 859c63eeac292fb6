//! Changelog offsets and the committed position in the `offsets` column family.
//!
//! Key layout: `b'o' ++ topic ++ 0x00 ++ partition (i32 BE)` → offset (i64 BE); the opaque
//! position blob lives under [`POSITION_KEY`]; while a secondary-store commit copies its records
//! in several writes, its [`crate::commit_record::CommitRecord`] lives under [`COMMIT_RECORD_KEY`].
//! The value format and an upgrade in progress have keys of their own (`value_format.rs`). Topic
//! names cannot contain 0x00, so keys never collide.

use crate::{Decoded, Malformed};

/// A changelog topic partition.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TopicPartition {
    pub topic: String,
    pub partition: i32,
}

/// One entry of a commit's offset map: `None` removes that partition's offset.
pub type OffsetUpdate = (TopicPartition, Option<i64>);

/// The key of the position blob.
pub const POSITION_KEY: &[u8] = b"p";
/// The key of the commit record of a secondary-store commit that is copying its records: written
/// with the first of several copy writes, deleted with the last (the one that writes the offsets).
pub const COMMIT_RECORD_KEY: &[u8] = b"c";
const OFFSET_PREFIX: u8 = b'o';

/// The key of a partition's offset.
pub fn offset_key(partition: &TopicPartition) -> Vec<u8> {
    let mut key = Vec::with_capacity(partition.topic.len() + 6);
    key.push(OFFSET_PREFIX);
    key.extend_from_slice(partition.topic.as_bytes());
    key.push(0);
    key.extend_from_slice(&partition.partition.to_be_bytes());
    key
}

/// An offset's value.
pub fn offset_value(offset: i64) -> Vec<u8> {
    offset.to_be_bytes().to_vec()
}

/// Whether a key of the `offsets` family holds an offset (not the position).
pub fn is_offset_key(key: &[u8]) -> bool {
    key.first() == Some(&OFFSET_PREFIX)
}

/// The partition and offset of an offset entry.
pub fn decode_offset(key: &[u8], value: &[u8]) -> Decoded<(TopicPartition, i64)> {
    let bad = || Malformed(format!("corrupt offset entry (key {} bytes, value {} bytes)", key.len(), value.len()));
    if key.len() < 6 || !is_offset_key(key) || key[key.len() - 5] != 0 {
        return Err(bad());
    }
    let value: [u8; 8] = value.try_into().map_err(|_| bad())?;
    let topic = std::str::from_utf8(&key[1..key.len() - 5]).map_err(|_| bad())?;
    if topic.contains('\0') {
        return Err(bad());
    }
    let partition = i32::from_be_bytes(key[key.len() - 4..].try_into().map_err(|_| bad())?);
    Ok((TopicPartition { topic: topic.to_owned(), partition }, i64::from_be_bytes(value)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_key_round_trips() {
        let tp = TopicPartition { topic: "app-store-changelog".into(), partition: 7 };
        let k = offset_key(&tp);
        assert!(is_offset_key(&k));
        assert_eq!(decode_offset(&k, &offset_value(-4)).unwrap(), (tp, -4));
        assert!(decode_offset(&k[..3], &[0; 8]).is_err());
        assert!(decode_offset(&k, &[0; 7]).is_err());
        assert!(decode_offset(POSITION_KEY, &[0; 8]).is_err());
        assert!(!is_offset_key(COMMIT_RECORD_KEY) && !is_offset_key(POSITION_KEY));
        assert!(decode_offset(b"o\xff\x00\x00\x00\x00\x01", &[0; 8]).is_err(), "topic not UTF-8");
    }
}
