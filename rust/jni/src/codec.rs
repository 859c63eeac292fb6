//! The wire formats shared with the Java classes of `internals.nativeapi` (all integers big-endian).

use crate::ffi::{invalid, NativeResult};
use txn_rocksdb::{OffsetUpdate, TopicPartition};

/// Reads a big-endian cursor over an input buffer, reporting truncation as a clear error.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    what: &'static str,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8], what: &'static str) -> Self {
        Reader { buf, what }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    fn take(&mut self, n: usize) -> NativeResult<&'a [u8]> {
        if self.buf.len() < n {
            return Err(invalid(format!("truncated {}: needed {n} more bytes, {} left", self.what, self.buf.len())));
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    pub(crate) fn i32(&mut self) -> NativeResult<i32> {
        let b = self.take(4)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn i64(&mut self) -> NativeResult<i64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_be_bytes(a))
    }

    pub(crate) fn u8(&mut self) -> NativeResult<u8> {
        Ok(self.take(1)?[0])
    }

    /// A length-prefixed byte string; `None` for length -1 (only where `nullable`).
    pub(crate) fn bytes(&mut self, nullable: bool) -> NativeResult<Option<&'a [u8]>> {
        match self.i32()? {
            -1 if nullable => Ok(None),
            n if n < 0 => Err(invalid(format!("negative length {n} in {}", self.what))),
            n => Ok(Some(self.take(n as usize)?)),
        }
    }
}

/// One decoded write: key and value, `None` meaning delete.
pub(crate) type Entry<'a> = (&'a [u8], Option<&'a [u8]>);

/// `[int32 keyLen][key][int32 valueLen or -1][value]*` → entries (a `None` value deletes).
pub(crate) fn decode_batch(buf: &[u8]) -> NativeResult<Vec<Entry<'_>>> {
    let mut r = Reader::new(buf, "write batch");
    let mut out = Vec::new();
    while !r.is_empty() {
        let key = r.bytes(false)?.unwrap_or_default();
        let value = r.bytes(true)?;
        out.push((key, value));
    }
    Ok(out)
}

/// `[int32 count]([int32 topicLen][topic][int32 partition][byte hasOffset][int64 offset])*`.
pub(crate) fn decode_offset_updates(buf: &[u8]) -> NativeResult<Vec<OffsetUpdate>> {
    let mut r = Reader::new(buf, "offsets");
    let count = r.i32()?;
    if count < 0 {
        return Err(invalid(format!("negative offset count {count}")));
    }
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let topic = r.bytes(false)?.unwrap_or_default();
        let topic = std::str::from_utf8(topic).map_err(|_| invalid("topic name is not UTF-8"))?.to_owned();
        let partition = r.i32()?;
        let has_offset = r.u8()? != 0;
        let offset = r.i64()?;
        out.push((TopicPartition { topic, partition }, has_offset.then_some(offset)));
    }
    if !r.is_empty() {
        return Err(invalid("trailing bytes after offsets"));
    }
    Ok(out)
}

/// `[int32 count]([int32 topicLen][topic][int32 partition][int64 offset])*`.
pub(crate) fn encode_offsets(offsets: &[(TopicPartition, i64)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + offsets.len() * 48);
    out.extend_from_slice(&(offsets.len() as i32).to_be_bytes());
    for (tp, o) in offsets {
        out.extend_from_slice(&(tp.topic.len() as i32).to_be_bytes());
        out.extend_from_slice(tp.topic.as_bytes());
        out.extend_from_slice(&tp.partition.to_be_bytes());
        out.extend_from_slice(&o.to_be_bytes());
    }
    out
}

/// Appends one chunk entry `[int32 keyLen][key][int32 valueLen][value]`.
pub(crate) fn push_entry(out: &mut Vec<u8>, key: &[u8], value: &[u8]) {
    out.extend_from_slice(&(key.len() as i32).to_be_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(&(value.len() as i32).to_be_bytes());
    out.extend_from_slice(value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_round_trip_and_truncation() {
        let mut buf = Vec::new();
        buf.extend_from_slice(&1i32.to_be_bytes());
        buf.push(b'k');
        buf.extend_from_slice(&(-1i32).to_be_bytes());
        let entries = decode_batch(&buf).unwrap();
        assert_eq!(entries, vec![(&b"k"[..], None)]);
        assert!(decode_batch(&buf[..3]).is_err());
    }

    #[test]
    fn offsets_decode() {
        let mut buf = 1i32.to_be_bytes().to_vec();
        buf.extend_from_slice(&1i32.to_be_bytes());
        buf.push(b't');
        buf.extend_from_slice(&3i32.to_be_bytes());
        buf.push(1);
        buf.extend_from_slice(&(-4i64).to_be_bytes());
        let u = decode_offset_updates(&buf).unwrap();
        assert_eq!(u, vec![(TopicPartition { topic: "t".into(), partition: 3 }, Some(-4))]);
    }
}
