//! The commit record of the secondary-store strategy (KIP-844): what a commit writes besides the
//! temporary store's records, so that recovery can roll the commit forward. It lives in the
//! `offsets` family under [`crate::offsets::COMMIT_RECORD_KEY`] while a commit copies in several
//! writes; stores written by earlier versions may hold it in a file, `TXN-COMMIT`, which recovery
//! still reads.
//!
//! Layout: `MAGIC`, generation (u64 BE), entry count (u32 BE), entries, CRC-32 of all preceding
//! bytes (u32 BE). An entry is a kind byte and one or two length-prefixed (u32 BE) byte strings:
//! `PUT key value` and `DELETE key` on the `offsets` family, `RANGE_DELETE from to` on `data`.
//! The encoder writes the offset entries first; the decoder accepts the kinds in any order (they
//! touch different column families) and keeps the order within each kind.

use crate::reader::Reader;
use crate::temporary::MAX_GENERATION;
use crate::{Decoded, Malformed};

const MAGIC: &[u8; 8] = b"TXNCMT01";
const CRC_LEN: usize = 4;

/// What a commit writes besides the temporary store's records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommitRecord {
    /// The temporary store's generation holding the transaction's records.
    pub generation: u64,
    /// Writes to the `offsets` family: `None` deletes.
    pub offset_writes: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    /// Range deletes `[from, to)` on the `data` family, applied after the records.
    pub range_deletes: Vec<(Vec<u8>, Vec<u8>)>,
}

const PUT: u8 = 1;
const DELETE: u8 = 2;
const RANGE_DELETE: u8 = 3;

fn push_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_be_bytes());
    out.extend_from_slice(b);
}

impl CommitRecord {
    /// The file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.generation.to_be_bytes());
        let entries = self.offset_writes.len() + self.range_deletes.len();
        out.extend_from_slice(&(entries as u32).to_be_bytes());
        for (key, value) in &self.offset_writes {
            match value {
                Some(value) => {
                    out.push(PUT);
                    push_bytes(&mut out, key);
                    push_bytes(&mut out, value);
                }
                None => {
                    out.push(DELETE);
                    push_bytes(&mut out, key);
                }
            }
        }
        for (from, to) in &self.range_deletes {
            out.push(RANGE_DELETE);
            push_bytes(&mut out, from);
            push_bytes(&mut out, to);
        }
        let crc = crc32(&out);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }

    /// Decodes a file's bytes; the error says why they are not a commit record (wrong magic,
    /// checksum mismatch, truncation, an unknown entry kind, trailing bytes).
    pub fn decode(bytes: &[u8]) -> Decoded<CommitRecord> {
        if bytes.len() < MAGIC.len() + 8 + 4 + CRC_LEN || &bytes[..MAGIC.len()] != MAGIC {
            return Err(Malformed("not a txn-rocksdb commit file".into()));
        }
        let (body, crc) = bytes.split_at(bytes.len() - CRC_LEN);
        if crc32(body).to_be_bytes() != crc {
            return Err(Malformed("checksum mismatch".into()));
        }
        let mut reader = Reader::new(&body[MAGIC.len()..], "commit file");
        let generation = reader.u64()?;
        if generation > MAX_GENERATION {
            return Err(Malformed(format!("generation {generation} out of range")));
        }
        let entries = reader.u32()?;
        let mut record = CommitRecord { generation, ..CommitRecord::default() };
        // Every entry takes at least 5 bytes, so the loop ends with the input.
        for _ in 0..entries {
            match reader.u8()? {
                PUT => {
                    let key = reader.u32_prefixed()?.to_vec();
                    let value = reader.u32_prefixed()?.to_vec();
                    record.offset_writes.push((key, Some(value)));
                }
                DELETE => record.offset_writes.push((reader.u32_prefixed()?.to_vec(), None)),
                RANGE_DELETE => {
                    let from = reader.u32_prefixed()?.to_vec();
                    let to = reader.u32_prefixed()?.to_vec();
                    record.range_deletes.push((from, to));
                }
                kind => return Err(Malformed(format!("unknown entry kind {kind}"))),
            }
        }
        if !reader.is_empty() {
            return Err(Malformed(format!("{} trailing bytes", reader.remaining())));
        }
        Ok(record)
    }
}

/// Wraps `body` (everything after the magic, before the checksum) into a file with a valid
/// magic and checksum: lets tests and fuzzers reach the decoder past its checksum.
pub fn seal(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAGIC.len() + body.len() + CRC_LEN);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(body);
    let crc = crc32(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

/// CRC-32 (IEEE), bitwise: the file is a few hundred bytes.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> CommitRecord {
        CommitRecord {
            generation: 7,
            offset_writes: vec![(b"o-topic".to_vec(), Some(42i64.to_be_bytes().to_vec())), (b"p".to_vec(), None)],
            range_deletes: vec![(vec![0, 1], vec![0, 2])],
        }
    }

    #[test]
    fn crc32_matches_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn round_trips() {
        assert_eq!(CommitRecord::decode(&sample().encode()), Ok(sample()));
        assert_eq!(CommitRecord::decode(&CommitRecord::default().encode()), Ok(CommitRecord::default()));
    }

    #[test]
    fn rejects_every_damage() {
        let bytes = sample().encode();
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 1;
        assert_eq!(CommitRecord::decode(&flipped), Err(Malformed("checksum mismatch".into())));
        assert_eq!(CommitRecord::decode(&bytes[..10]), Err(Malformed("not a txn-rocksdb commit file".into())));
        assert!(CommitRecord::decode(b"").is_err());
        // Valid checksum, bogus contents.
        let body = &bytes[MAGIC.len()..bytes.len() - CRC_LEN];
        assert_eq!(CommitRecord::decode(&seal(body)), Ok(sample()));
        let mut more_entries = body.to_vec();
        more_entries[11] += 1;
        assert!(CommitRecord::decode(&seal(&more_entries)).unwrap_err().0.starts_with("truncated commit file"));
        let mut unknown = body.to_vec();
        unknown[12] = 9;
        assert_eq!(CommitRecord::decode(&seal(&unknown)), Err(Malformed("unknown entry kind 9".into())));
        let trailing = [body, &[0]].concat();
        assert_eq!(CommitRecord::decode(&seal(&trailing)), Err(Malformed("1 trailing bytes".into())));
        let mut bad_generation = body.to_vec();
        bad_generation[..8].copy_from_slice(&[0xFF; 8]);
        assert_eq!(
            CommitRecord::decode(&seal(&bad_generation)),
            Err(Malformed(format!("generation {} out of range", u64::MAX)))
        );
        let huge_length = [&body[..13], &[0xFF, 0xFF, 0xFF, 0xFF][..], &body[17..]].concat();
        assert!(CommitRecord::decode(&seal(&huge_length)).is_err());
    }
}
