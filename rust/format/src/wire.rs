//! The wire formats shared with the Java classes of `internals.nativeapi` (all integers
//! big-endian, lengths as Java's signed `int`).

use crate::offsets::{OffsetUpdate, TopicPartition};
use crate::reader::Reader;
use crate::{Decoded, Malformed};

/// One decoded write: key and value, `None` meaning delete.
pub type Entry<'a> = (&'a [u8], Option<&'a [u8]>);

/// `([int32 keyLen][key][int32 valueLen or -1][value])*` → entries (a `None` value deletes).
pub fn decode_batch(buf: &[u8]) -> Decoded<Vec<Entry<'_>>> {
    let mut reader = Reader::new(buf, "write batch");
    let mut out = Vec::new();
    while !reader.is_empty() {
        let key = reader.i32_prefixed(false)?.unwrap_or_default();
        let value = reader.i32_prefixed(true)?;
        out.push((key, value));
    }
    Ok(out)
}

/// `[int32 keyLen][key][int32 valueLen or -1][value]`: one entry of a write batch.
pub fn push_batch_entry(out: &mut Vec<u8>, key: &[u8], value: Option<&[u8]>) {
    out.extend_from_slice(&(key.len() as i32).to_be_bytes());
    out.extend_from_slice(key);
    match value {
        Some(value) => {
            out.extend_from_slice(&(value.len() as i32).to_be_bytes());
            out.extend_from_slice(value);
        }
        None => out.extend_from_slice(&(-1i32).to_be_bytes()),
    }
}

/// The smallest encoding of one offset update: empty topic, partition, flag, offset.
const MIN_OFFSET_UPDATE_LEN: usize = 4 + 4 + 1 + 8;

/// `[int32 count]([int32 topicLen][topic][int32 partition][byte hasOffset][int64 offset])*`.
pub fn decode_offset_updates(buf: &[u8]) -> Decoded<Vec<OffsetUpdate>> {
    let mut reader = Reader::new(buf, "offsets");
    let count = reader.i32()?;
    if count < 0 {
        return Err(Malformed(format!("negative offset count {count}")));
    }
    // The count is untrusted: never reserve more than the remaining bytes can hold.
    let mut out = Vec::with_capacity((count as usize).min(reader.remaining() / MIN_OFFSET_UPDATE_LEN));
    for _ in 0..count {
        let topic = reader.i32_prefixed(false)?.unwrap_or_default();
        let topic = std::str::from_utf8(topic).map_err(|_| Malformed("topic name is not UTF-8".into()))?.to_owned();
        let partition = reader.i32()?;
        let has_offset = reader.u8()? != 0;
        let offset = reader.i64()?;
        out.push((TopicPartition { topic, partition }, has_offset.then_some(offset)));
    }
    if !reader.is_empty() {
        return Err(Malformed("trailing bytes after offsets".into()));
    }
    Ok(out)
}

/// The encoding [`decode_offset_updates`] reads.
pub fn encode_offset_updates(updates: &[OffsetUpdate]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + updates.len() * 48);
    out.extend_from_slice(&(updates.len() as i32).to_be_bytes());
    for (tp, offset) in updates {
        out.extend_from_slice(&(tp.topic.len() as i32).to_be_bytes());
        out.extend_from_slice(tp.topic.as_bytes());
        out.extend_from_slice(&tp.partition.to_be_bytes());
        out.push(offset.is_some() as u8);
        out.extend_from_slice(&offset.unwrap_or(0).to_be_bytes());
    }
    out
}

/// `[int32 count]([int32 topicLen][topic][int32 partition][int64 offset])*`.
pub fn encode_offsets(offsets: &[(TopicPartition, i64)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + offsets.len() * 48);
    out.extend_from_slice(&(offsets.len() as i32).to_be_bytes());
    for (tp, offset) in offsets {
        out.extend_from_slice(&(tp.topic.len() as i32).to_be_bytes());
        out.extend_from_slice(tp.topic.as_bytes());
        out.extend_from_slice(&tp.partition.to_be_bytes());
        out.extend_from_slice(&offset.to_be_bytes());
    }
    out
}

/// Appends one iterator chunk entry `[int32 keyLen][key][int32 valueLen][value]`.
pub fn push_entry(out: &mut Vec<u8>, key: &[u8], value: &[u8]) {
    out.extend_from_slice(&(key.len() as i32).to_be_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(&(value.len() as i32).to_be_bytes());
    out.extend_from_slice(value);
}

/// One decoded changelog record of a versioned store: key, value (`None`: a tombstone) and the
/// record's timestamp, which is the version's validFrom.
pub type TimestampedEntry<'a> = (&'a [u8], Option<&'a [u8]>, i64);

/// `([int32 keyLen][key][int32 valueLen or -1][value][int64 timestamp])*`: the restore batch of a
/// versioned store.
pub fn decode_timestamped_batch(buf: &[u8]) -> Decoded<Vec<TimestampedEntry<'_>>> {
    let mut reader = Reader::new(buf, "timestamped write batch");
    let mut out = Vec::new();
    while !reader.is_empty() {
        let key = reader.i32_prefixed(false)?.unwrap_or_default();
        let value = reader.i32_prefixed(true)?;
        out.push((key, value, reader.i64()?));
    }
    Ok(out)
}

/// Appends one entry of a timestamped write batch (see [`decode_timestamped_batch`]).
pub fn push_timestamped_batch_entry(out: &mut Vec<u8>, key: &[u8], value: Option<&[u8]>, timestamp: i64) {
    push_batch_entry(out, key, value);
    out.extend_from_slice(&timestamp.to_be_bytes());
}

/// Appends one version of a versioned store's read: `[int64 validFrom][int8 bounded][int64 validTo]
/// [int32 valueLen][value]` (`bounded` 0: no validTo, the latest version; validTo then 0).
pub fn push_versioned_record(out: &mut Vec<u8>, value: &[u8], valid_from: i64, valid_to: Option<i64>) {
    out.extend_from_slice(&valid_from.to_be_bytes());
    out.push(u8::from(valid_to.is_some()));
    out.extend_from_slice(&valid_to.unwrap_or(0).to_be_bytes());
    out.extend_from_slice(&(value.len() as i32).to_be_bytes());
    out.extend_from_slice(value);
}

/// One decoded version: value, validFrom, validTo (`None`: the latest).
pub type VersionedEntry<'a> = (&'a [u8], i64, Option<i64>);

/// The records [`push_versioned_record`] appended, in order.
pub fn decode_versioned_records(buf: &[u8]) -> Decoded<Vec<VersionedEntry<'_>>> {
    let mut reader = Reader::new(buf, "versioned records");
    let mut out = Vec::new();
    while !reader.is_empty() {
        let valid_from = reader.i64()?;
        let bounded = match reader.u8()? {
            0 => false,
            1 => true,
            other => return Err(Malformed(format!("versioned records: flag {other} is neither 0 nor 1"))),
        };
        let valid_to = reader.i64()?;
        if !bounded && valid_to != 0 {
            return Err(Malformed("versioned records: a validTo without its flag".into()));
        }
        let value = reader.i32_prefixed(false)?.unwrap_or_default();
        out.push((value, valid_from, bounded.then_some(valid_to)));
    }
    Ok(out)
}

/// `[int8 more 0|1][int64 bytes]([int32 keyLen][key])*`: what an expiry pass of a store with a
/// time-to-live answers (the keys it removed, in order; the bytes of their keys and values; whether
/// expired keys remain for another pass).
pub fn encode_expired<K: AsRef<[u8]>>(keys: &[K], bytes: u64, more: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(9 + keys.iter().map(|key| 4 + key.as_ref().len()).sum::<usize>());
    out.push(u8::from(more));
    out.extend_from_slice(&bytes.to_be_bytes());
    for key in keys {
        let key = key.as_ref();
        out.extend_from_slice(&(key.len() as i32).to_be_bytes());
        out.extend_from_slice(key);
    }
    out
}

/// What [`encode_expired`] wrote: the keys, their bytes, whether more remain.
pub type Expired<'a> = (Vec<&'a [u8]>, u64, bool);

/// Decodes [`encode_expired`]'s bytes.
pub fn decode_expired(buf: &[u8]) -> Decoded<Expired<'_>> {
    let mut reader = Reader::new(buf, "expired keys");
    let more = reader.flag("more")?;
    let bytes = reader.u64()?;
    let mut keys = Vec::new();
    while !reader.is_empty() {
        keys.push(reader.i32_prefixed(false)?.unwrap_or_default());
    }
    Ok((keys, bytes, more))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_round_trip_and_truncation() {
        let mut buf = Vec::new();
        push_batch_entry(&mut buf, b"k", None);
        push_batch_entry(&mut buf, b"", Some(b"v"));
        assert_eq!(decode_batch(&buf).unwrap(), vec![(&b"k"[..], None), (&b""[..], Some(&b"v"[..]))]);
        assert_eq!(
            decode_batch(&buf[..3]),
            Err(Malformed("truncated write batch: needed 4 more bytes, 3 left".into()))
        );
        assert_eq!(decode_batch(&(-2i32).to_be_bytes()), Err(Malformed("negative length -2 in write batch".into())));
    }

    #[test]
    fn timestamped_batch_and_versioned_records_round_trip() {
        let mut buf = Vec::new();
        push_timestamped_batch_entry(&mut buf, b"k", None, -3);
        push_timestamped_batch_entry(&mut buf, b"", Some(b"v"), i64::MAX);
        assert_eq!(
            decode_timestamped_batch(&buf).unwrap(),
            vec![(&b"k"[..], None, -3), (&b""[..], Some(&b"v"[..]), i64::MAX)]
        );
        assert!(decode_timestamped_batch(&buf[..buf.len() - 1]).is_err());
        let mut records = Vec::new();
        push_versioned_record(&mut records, b"a", 1, Some(5));
        push_versioned_record(&mut records, b"", 5, None);
        assert_eq!(decode_versioned_records(&records).unwrap(), vec![(&b"a"[..], 1, Some(5)), (&b""[..], 5, None)]);
        records[8] = 2;
        assert!(decode_versioned_records(&records).is_err());
    }

    #[test]
    fn offsets_round_trip() {
        let updates = vec![
            (TopicPartition { topic: "t".into(), partition: 3 }, Some(-4)),
            (TopicPartition { topic: "".into(), partition: -1 }, None),
        ];
        assert_eq!(decode_offset_updates(&encode_offset_updates(&updates)).unwrap(), updates);
    }

    #[test]
    fn an_offset_count_larger_than_the_input_is_an_error_not_an_allocation() {
        let buf = i32::MAX.to_be_bytes();
        assert_eq!(
            decode_offset_updates(&buf),
            Err(Malformed("truncated offsets: needed 4 more bytes, 0 left".into()))
        );
        assert_eq!(decode_offset_updates(&(-1i32).to_be_bytes()), Err(Malformed("negative offset count -1".into())));
        let trailing = [&encode_offset_updates(&[])[..], &[0]].concat();
        assert_eq!(decode_offset_updates(&trailing), Err(Malformed("trailing bytes after offsets".into())));
    }

    #[test]
    fn expired_keys_round_trip() {
        let keys: Vec<&[u8]> = vec![b"a", b"", b"\xff\x00"];
        let bytes = encode_expired(&keys, 42, true);
        assert_eq!(decode_expired(&bytes), Ok((keys, 42, true)));
        assert_eq!(decode_expired(&[0; 9]), Ok((vec![], 0, false)));
        assert!(decode_expired(&[0]).is_err());
        assert!(decode_expired(&[2, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
        assert!(decode_expired(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 1]).is_err());
    }
}
