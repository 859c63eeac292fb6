//! A big-endian cursor over an input buffer that reports truncation instead of panicking.

use crate::offsets::TopicPartition;
use crate::{Decoded, Malformed};

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

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len()
    }

    pub(crate) fn take(&mut self, n: usize) -> Decoded<&'a [u8]> {
        if self.buf.len() < n {
            return Err(Malformed(format!("truncated {}: needed {n} more bytes, {} left", self.what, self.buf.len())));
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Decoded<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub(crate) fn u8(&mut self) -> Decoded<u8> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn i32(&mut self) -> Decoded<i32> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    pub(crate) fn u32(&mut self) -> Decoded<u32> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    pub(crate) fn i64(&mut self) -> Decoded<i64> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    pub(crate) fn u64(&mut self) -> Decoded<u64> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    /// A byte string prefixed by its length as a signed `i32`; `None` for length -1 (only where
    /// `nullable`). The JNI wire format.
    pub(crate) fn i32_prefixed(&mut self, nullable: bool) -> Decoded<Option<&'a [u8]>> {
        match self.i32()? {
            -1 if nullable => Ok(None),
            n if n < 0 => Err(Malformed(format!("negative length {n} in {}", self.what))),
            n => Ok(Some(self.take(n as usize)?)),
        }
    }

    /// A byte string prefixed by its length as an unsigned `u32`. The commit file's format.
    pub(crate) fn u32_prefixed(&mut self) -> Decoded<&'a [u8]> {
        let len = self.u32()? as usize;
        self.take(len)
    }

    /// A UTF-8 string prefixed by its length as a signed `i32` ([`push_str`] writes it); `name`
    /// says which field in the message of one that is not UTF-8.
    pub(crate) fn str(&mut self, name: &str) -> Decoded<&'a str> {
        let bytes = self.i32_prefixed(false)?.unwrap_or_default();
        std::str::from_utf8(bytes).map_err(|_| Malformed(format!("{}: {name} is not UTF-8", self.what)))
    }

    /// A byte that is 0 (false) or 1 (true).
    pub(crate) fn flag(&mut self, name: &str) -> Decoded<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(Malformed(format!("{}: {name} is {other}, neither 0 nor 1", self.what))),
        }
    }

    /// The version byte a record starts with, refused unless it is `expected` (the Java classes
    /// and the native library then come from different builds).
    pub(crate) fn version(&mut self, expected: u8) -> Decoded<()> {
        match self.u8()? {
            version if version == expected => Ok(()),
            version => Err(Malformed(format!(
                "{}: version {version}, expected {expected} (the Java classes and the native library differ)",
                self.what
            ))),
        }
    }

    /// A count that prefixes a list, refused when negative or larger than the bytes left could hold
    /// (each entry takes at least `min_entry` bytes), so that no count allocates beyond its input.
    pub(crate) fn count(&mut self, min_entry: usize) -> Decoded<usize> {
        let count = self.i32()?;
        match usize::try_from(count) {
            Ok(n) if n.saturating_mul(min_entry) <= self.remaining() => Ok(n),
            _ => Err(Malformed(format!(
                "{}: {count} entries do not fit in the {} bytes left",
                self.what,
                self.remaining()
            ))),
        }
    }

    /// Changelog offsets as the JNI records carry them ([`push_offsets`] writes them).
    pub(crate) fn offsets(&mut self) -> Decoded<Vec<(TopicPartition, i64)>> {
        let n = self.count(16)?;
        let mut offsets = Vec::with_capacity(n);
        for _ in 0..n {
            let topic = self.str("a topic")?.to_owned();
            let partition = self.i32()?;
            offsets.push((TopicPartition { topic, partition }, self.i64()?));
        }
        Ok(offsets)
    }

    /// Fails when bytes follow the end of the record.
    pub(crate) fn end(&self) -> Decoded<()> {
        match self.remaining() {
            0 => Ok(()),
            left => Err(Malformed(format!("{}: {left} bytes after the record", self.what))),
        }
    }
}

/// Appends changelog offsets as [`Reader::offsets`] reads them: `[int32 count] count × ([str topic]
/// [int32 partition][int64 offset])`.
pub(crate) fn push_offsets(out: &mut Vec<u8>, offsets: &[(TopicPartition, i64)]) {
    out.extend_from_slice(&(offsets.len() as i32).to_be_bytes());
    for (partition, offset) in offsets {
        push_str(out, &partition.topic);
        out.extend_from_slice(&partition.partition.to_be_bytes());
        out.extend_from_slice(&offset.to_be_bytes());
    }
}

/// Appends `value` as [`Reader::str`] reads it.
pub(crate) fn push_str(out: &mut Vec<u8>, value: &str) {
    out.extend_from_slice(&(value.len() as i32).to_be_bytes());
    out.extend_from_slice(value.as_bytes());
}
