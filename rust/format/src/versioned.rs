//! The versioned key-value store's values, in the layouts of Kafka's `RocksDBVersionedStore`
//! (KIP-889), so both stores hold the same rows for the same history.
//!
//! - **latest value** (one per key, never expires): `[validFrom: i64][value]`.
//! - **segment row** (the older versions of one key whose validTo falls in one segment):
//!   `[next: i64][min: i64]` then one `[validFrom: i64][size: i32]` per version, newest first
//!   (`size` -1 is a tombstone), then the values, oldest first. `next` is the validTo of the
//!   newest version in the row, `min` the validFrom of the oldest; a version's validTo is the
//!   validFrom of the one after it. One row is *degenerate*: a single tombstone with
//!   `min == next`, which a delete of a key without versions in reach leaves behind.
//!
//! All integers big-endian. Decoders never panic and reject rows whose timestamps or sizes do not
//! add up.

use crate::reader::Reader;
use crate::{Decoded, Malformed};

const TIMESTAMP_LEN: usize = 8;
const HEADER_LEN: usize = 2 * TIMESTAMP_LEN;
const VERSION_LEN: usize = TIMESTAMP_LEN + 4;

/// `[validFrom][value]`: the latest value of a key.
pub fn latest_value(value: &[u8], valid_from: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(TIMESTAMP_LEN + value.len());
    out.extend_from_slice(&valid_from.to_be_bytes());
    out.extend_from_slice(value);
    out
}

/// The validFrom and value of a latest value.
pub fn split_latest_value(bytes: &[u8]) -> Decoded<(i64, &[u8])> {
    let mut reader = Reader::new(bytes, "latest value of a versioned store");
    let valid_from = reader.i64()?;
    Ok((valid_from, reader.take(reader.remaining())?))
}

/// The `next` timestamp (validTo of the newest version) of an encoded segment row.
pub fn row_next(bytes: &[u8]) -> Decoded<i64> {
    Reader::new(bytes, "segment row of a versioned store").i64()
}

/// The `min` timestamp (validFrom of the oldest version) of an encoded segment row.
pub fn row_min(bytes: &[u8]) -> Decoded<i64> {
    let mut reader = Reader::new(bytes, "segment row of a versioned store");
    reader.i64()?;
    reader.i64()
}

/// One version in a segment row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub valid_from: i64,
    /// `None`: a tombstone (the key had no value from `valid_from` on).
    pub value: Option<Vec<u8>>,
}

/// A found version: its position in the row (0 = newest), validity interval and value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found<'a> {
    pub index: usize,
    pub valid_from: i64,
    pub valid_to: i64,
    pub value: Option<&'a [u8]>,
}

/// A decoded segment row: never empty; versions newest first with strictly decreasing validFrom,
/// all below `next` (except in the degenerate row, whose one tombstone sits at `next`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentRow {
    next: i64,
    versions: Vec<Version>,
}

impl SegmentRow {
    /// A row holding one version valid in `[valid_from, valid_to)`; with `valid_from == valid_to`
    /// and no value, the degenerate row.
    pub fn single(value: Option<&[u8]>, valid_from: i64, valid_to: i64) -> SegmentRow {
        SegmentRow { next: valid_to, versions: vec![Version { valid_from, value: value.map(<[u8]>::to_vec) }] }
    }

    /// Decodes an encoded row, checking that timestamps and sizes add up.
    pub fn decode(bytes: &[u8]) -> Decoded<SegmentRow> {
        let mut reader = Reader::new(bytes, "segment row of a versioned store");
        let next = reader.i64()?;
        let min = reader.i64()?;
        let mut headers: Vec<(i64, i32)> = Vec::new();
        let mut newer = next;
        loop {
            let valid_from = reader.i64()?;
            let size = reader.i32()?;
            if size < -1 {
                // Kafka reads any negative size as a tombstone but writes only -1; so do we
                return Err(Malformed(format!("segment row of a versioned store: value size {size}")));
            }
            let degenerate = headers.is_empty() && valid_from == next && valid_from == min && size < 0;
            if !(valid_from < newer || degenerate) || valid_from < min {
                return Err(Malformed(format!(
                    "segment row of a versioned store: version at {valid_from} out of order (newer {newer}, min {min})"
                )));
            }
            headers.push((valid_from, size));
            newer = valid_from;
            if valid_from == min {
                break;
            }
            if reader.remaining() < VERSION_LEN {
                return Err(Malformed(format!("segment row of a versioned store: no version at its min {min}")));
            }
        }
        let values_len: usize = headers.iter().map(|&(_, size)| size.max(0) as usize).sum();
        if reader.remaining() != values_len {
            return Err(Malformed(format!(
                "segment row of a versioned store: {} value bytes where its versions declare {values_len}",
                reader.remaining()
            )));
        }
        let mut versions: Vec<Version> =
            headers.iter().map(|&(valid_from, _)| Version { valid_from, value: None }).collect();
        // values are stored oldest first, versions newest first
        for (version, &(_, size)) in versions.iter_mut().zip(&headers).rev() {
            if size >= 0 {
                version.value = Some(reader.take(size as usize)?.to_vec());
            }
        }
        Ok(SegmentRow { next, versions })
    }

    /// The encoding [`Self::decode`] reads.
    pub fn encode(&self) -> Vec<u8> {
        let values_len: usize = self.versions.iter().filter_map(|v| v.value.as_ref()).map(Vec::len).sum();
        let mut out = Vec::with_capacity(HEADER_LEN + self.versions.len() * VERSION_LEN + values_len);
        out.extend_from_slice(&self.next.to_be_bytes());
        out.extend_from_slice(&self.min().to_be_bytes());
        for version in &self.versions {
            out.extend_from_slice(&version.valid_from.to_be_bytes());
            let size = version.value.as_ref().map_or(-1, |value| value.len() as i32);
            out.extend_from_slice(&size.to_be_bytes());
        }
        for version in self.versions.iter().rev() {
            if let Some(value) = &version.value {
                out.extend_from_slice(value);
            }
        }
        out
    }

    /// The validTo of the newest version.
    pub fn next(&self) -> i64 {
        self.next
    }

    /// The validFrom of the oldest version.
    pub fn min(&self) -> i64 {
        self.versions.last().map_or(self.next, |v| v.valid_from)
    }

    /// The versions, newest first.
    pub fn versions(&self) -> &[Version] {
        &self.versions
    }

    fn is_degenerate(&self) -> bool {
        self.next == self.min()
    }

    fn valid_to(&self, index: usize) -> i64 {
        if index == 0 {
            self.next
        } else {
            self.versions[index - 1].valid_from
        }
    }

    fn found(&self, index: usize) -> Found<'_> {
        let version = &self.versions[index];
        Found { index, valid_from: version.valid_from, valid_to: self.valid_to(index), value: version.value.as_deref() }
    }

    /// The newest version with validFrom at most `timestamp`, for `min <= timestamp < next`
    /// (`None` outside that interval, and always for the degenerate row).
    pub fn find(&self, timestamp: i64) -> Option<Found<'_>> {
        if timestamp < self.min() || timestamp >= self.next {
            return None;
        }
        let index = self.versions.iter().position(|v| v.valid_from <= timestamp)?;
        Some(self.found(index))
    }

    /// The versions with a value whose validity interval meets `[from, to]`
    /// (`validFrom <= to && validTo > from`), newest first.
    pub fn overlapping(&self, from: i64, to: i64) -> Vec<Found<'_>> {
        (0..self.versions.len())
            .map(|index| self.found(index))
            .filter(|found| found.value.is_some() && found.valid_from <= to && found.valid_to > from)
            .collect()
    }

    /// Adds a version valid in `[valid_from, valid_to)` as the newest. A gap after `next` becomes
    /// a tombstone at `next`. Versions at or after `valid_from` are dropped first (they cannot be
    /// there unless an earlier write to two rows was cut short; Kafka reconciles the same way).
    pub fn insert_as_latest(&mut self, valid_from: i64, valid_to: i64, value: Option<&[u8]>) {
        if valid_from < self.next {
            self.truncate_to(valid_from);
        }
        let value = value.map(<[u8]>::to_vec);
        if self.is_degenerate() {
            // the degenerate row's tombstone sits at `next`: replace it, or keep it before a gap
            if self.next == valid_from {
                self.versions.clear();
            }
        } else if self.next != valid_from {
            self.versions.insert(0, Version { valid_from: self.next, value: None });
        }
        self.versions.insert(0, Version { valid_from, value });
        self.next = valid_to;
    }

    /// Adds a version at `timestamp` (below `min`) as the oldest; its validTo is the old `min`
    /// (for the degenerate row, its `next`).
    pub fn insert_as_earliest(&mut self, timestamp: i64, value: Option<&[u8]>) {
        if self.is_degenerate() {
            self.versions.clear();
        }
        self.versions.push(Version { valid_from: timestamp, value: value.map(<[u8]>::to_vec) });
    }

    /// Inserts a version at `index` (the position [`Self::find`] returned for its timestamp: it
    /// becomes newer than the version found there).
    pub fn insert(&mut self, index: usize, timestamp: i64, value: Option<&[u8]>) {
        self.versions.insert(index, Version { valid_from: timestamp, value: value.map(<[u8]>::to_vec) });
    }

    /// Replaces the version at `index` (from [`Self::find`]).
    pub fn update(&mut self, index: usize, timestamp: i64, value: Option<&[u8]>) {
        self.versions[index] = Version { valid_from: timestamp, value: value.map(<[u8]>::to_vec) };
    }

    /// Drops every version from `timestamp` on and makes `timestamp` the row's `next`; a row left
    /// without versions becomes the degenerate tombstone at `timestamp`.
    fn truncate_to(&mut self, timestamp: i64) {
        self.versions.retain(|v| v.valid_from < timestamp);
        if self.versions.is_empty() {
            self.versions.push(Version { valid_from: timestamp, value: None });
        }
        self.next = timestamp;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latest_value_round_trip() {
        let bytes = latest_value(b"v", 42);
        assert_eq!(split_latest_value(&bytes), Ok((42, &b"v"[..])));
        assert!(split_latest_value(&[1, 2]).is_err());
    }

    /// Kafka's layout, byte for byte: two versions (a at 10, b at 20), next 30.
    #[test]
    fn encodes_kafkas_layout() {
        let mut row = SegmentRow::single(Some(b"a"), 10, 20);
        row.insert_as_latest(20, 30, Some(b"bb"));
        let mut expected = Vec::new();
        for part in [
            &30i64.to_be_bytes()[..],
            &10i64.to_be_bytes(),
            &20i64.to_be_bytes(),
            &2i32.to_be_bytes(),
            &10i64.to_be_bytes(),
            &1i32.to_be_bytes(),
            b"a",
            b"bb",
        ] {
            expected.extend_from_slice(part);
        }
        assert_eq!(row.encode(), expected);
        assert_eq!(SegmentRow::decode(&expected), Ok(row.clone()));
        assert_eq!((row_next(&expected), row_min(&expected)), (Ok(30), Ok(10)));
        assert_eq!(row.find(15).map(|f| (f.valid_from, f.valid_to, f.value)), Some((10, 20, Some(&b"a"[..]))));
        assert_eq!(row.find(30), None);
        assert_eq!(row.find(9), None);
    }

    #[test]
    fn a_gap_before_a_new_latest_version_is_a_tombstone() {
        let mut row = SegmentRow::single(Some(b"a"), 10, 20);
        row.insert_as_latest(25, 30, Some(b"b"));
        assert_eq!(row.find(22).map(|f| f.value), Some(None));
        assert_eq!(row.overlapping(i64::MIN, i64::MAX).len(), 2);
    }

    #[test]
    fn the_degenerate_row() {
        let row = SegmentRow::single(None, 10, 10);
        let bytes = row.encode();
        assert_eq!(SegmentRow::decode(&bytes), Ok(row.clone()));
        assert_eq!(row.find(10), None);
        let mut earlier = row.clone();
        earlier.insert_as_earliest(5, Some(b"x"));
        assert_eq!((earlier.min(), earlier.next()), (5, 10));
        let mut later = row;
        later.insert_as_latest(12, 15, Some(b"y"));
        assert_eq!(later.versions().len(), 2);
        assert_eq!(later.find(11).map(|f| f.value), Some(None));
    }

    #[test]
    fn rejects_rows_that_do_not_add_up() {
        let good = SegmentRow::single(Some(b"abc"), 1, 5).encode();
        assert!(SegmentRow::decode(&good[..good.len() - 1]).is_err());
        let mut longer = good.clone();
        longer.push(0);
        assert!(SegmentRow::decode(&longer).is_err());
        assert!(SegmentRow::decode(&[0; 3]).is_err());
        let mut bad_min = good;
        bad_min[8..16].copy_from_slice(&7i64.to_be_bytes());
        assert!(SegmentRow::decode(&bad_min).is_err());
    }
}
