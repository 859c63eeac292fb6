//! Changelog offsets and the committed position, kept in the `offsets` column family.
//!
//! Key layout: `b'o' ++ topic ++ 0x00 ++ partition (i32 BE)` → offset (i64 BE); the opaque
//! position blob lives under `b"p"`. Topic names cannot contain 0x00, so keys never collide.

use crate::{Error, Result};

/// A changelog topic partition.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TopicPartition {
    pub topic: String,
    pub partition: i32,
}

/// One entry of a commit's offset map: `None` removes that partition's offset.
pub type OffsetUpdate = (TopicPartition, Option<i64>);

pub(crate) const POSITION_KEY: &[u8] = b"p";
const OFFSET_PREFIX: u8 = b'o';

pub(crate) fn offset_key(tp: &TopicPartition) -> Vec<u8> {
    let mut k = Vec::with_capacity(tp.topic.len() + 6);
    k.push(OFFSET_PREFIX);
    k.extend_from_slice(tp.topic.as_bytes());
    k.push(0);
    k.extend_from_slice(&tp.partition.to_be_bytes());
    k
}

pub(crate) fn is_offset_key(key: &[u8]) -> bool {
    key.first() == Some(&OFFSET_PREFIX)
}

pub(crate) fn decode_offset(key: &[u8], value: &[u8]) -> Result<(TopicPartition, i64)> {
    let bad = || Error::InvalidArgument(format!("corrupt offset entry (key {} bytes)", key.len()));
    if key.len() < 6 || key[key.len() - 5] != 0 || value.len() != 8 {
        return Err(bad());
    }
    let topic = std::str::from_utf8(&key[1..key.len() - 5]).map_err(|_| bad())?.to_owned();
    let partition = i32::from_be_bytes(key[key.len() - 4..].try_into().map_err(|_| bad())?);
    let offset = i64::from_be_bytes(value.try_into().map_err(|_| bad())?);
    Ok((TopicPartition { topic, partition }, offset))
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
