//! The commit file of the secondary-store strategy (KIP-844): while it exists, a commit is in
//! flight and must be rolled forward; it holds everything that commit writes besides the
//! temporary store's records: the transaction's generation, the offset and position writes, and
//! the range deletes (expired segments).
//!
//! Written to a temporary name and renamed, so it is either absent or complete; a CRC-32 guards
//! its content against corruption (a corrupt file is an error, never silently ignored).
//!
//! Layout: `MAGIC`, generation (u64 BE), entry count (u32 BE), entries, CRC-32 of all preceding
//! bytes (u32 BE). An entry is a kind byte and one or two length-prefixed (u32 BE) byte strings.

use crate::error::{Error, Result};
use std::fs::{self, File};
use std::io::Write as _;
use std::path::{Path, PathBuf};

pub(crate) const FILE_NAME: &str = "TXN-COMMIT";
const TMP_NAME: &str = "TXN-COMMIT.tmp";
const MAGIC: &[u8; 8] = b"TXNCMT01";

/// What a commit writes besides the temporary store's records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CommitRecord {
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

pub(crate) fn path(dir: &Path) -> PathBuf {
    dir.join(FILE_NAME)
}

fn push_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_be_bytes());
    out.extend_from_slice(b);
}

impl CommitRecord {
    fn encode(&self) -> Vec<u8> {
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

    fn decode(bytes: &[u8]) -> std::result::Result<CommitRecord, &'static str> {
        if bytes.len() < MAGIC.len() + 16 || &bytes[..MAGIC.len()] != MAGIC {
            return Err("not a txn-rocksdb commit file");
        }
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        if crc32(body).to_be_bytes() != crc {
            return Err("checksum mismatch");
        }
        let mut reader = Reader { bytes: &body[MAGIC.len()..] };
        let generation = u64::from_be_bytes(reader.take(8)?.try_into().unwrap());
        let entries = u32::from_be_bytes(reader.take(4)?.try_into().unwrap());
        let mut record = CommitRecord { generation, ..CommitRecord::default() };
        for _ in 0..entries {
            match reader.take(1)?[0] {
                PUT => record.offset_writes.push((reader.bytes()?, Some(reader.bytes()?))),
                DELETE => record.offset_writes.push((reader.bytes()?, None)),
                RANGE_DELETE => record.range_deletes.push((reader.bytes()?, reader.bytes()?)),
                _ => return Err("unknown entry kind"),
            }
        }
        if !reader.bytes.is_empty() {
            return Err("trailing bytes");
        }
        Ok(record)
    }

    /// Writes the file durably enough for `sync`: always complete or absent (rename); with
    /// `sync`, also fsynced with its directory, so it survives power loss.
    pub(crate) fn write(&self, dir: &Path, sync: bool) -> Result<()> {
        let err = |e: std::io::Error| Error::storage(dir, format!("writing the commit file: {e}"));
        let tmp = dir.join(TMP_NAME);
        {
            let mut file = File::create(&tmp).map_err(err)?;
            file.write_all(&self.encode()).map_err(err)?;
            if sync {
                file.sync_all().map_err(err)?;
            }
        }
        fs::rename(&tmp, path(dir)).map_err(err)?;
        if sync {
            File::open(dir).and_then(|directory| directory.sync_all()).map_err(err)?;
        }
        Ok(())
    }

    /// The commit file of `dir`, if one exists.
    pub(crate) fn read(dir: &Path) -> Result<Option<CommitRecord>> {
        let bytes = match fs::read(path(dir)) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::storage(dir, format!("reading the commit file: {e}"))),
        };
        CommitRecord::decode(&bytes).map(Some).map_err(|why| {
            Error::storage(
                dir,
                format!(
                    "commit file {} is corrupt ({why}); the store cannot tell whether its last commit \
                     completed: delete the store directory to restore it from the changelog",
                    path(dir).display()
                ),
            )
        })
    }

    /// Removes the commit file (the commit is complete).
    pub(crate) fn remove(dir: &Path, sync: bool) -> Result<()> {
        let err = |e: std::io::Error| Error::storage(dir, format!("deleting the commit file: {e}"));
        match fs::remove_file(path(dir)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(err(e)),
        }
        if sync {
            File::open(dir).and_then(|directory| directory.sync_all()).map_err(err)?;
        }
        Ok(())
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, count: usize) -> std::result::Result<&'a [u8], &'static str> {
        if self.bytes.len() < count {
            return Err("truncated");
        }
        let (head, tail) = self.bytes.split_at(count);
        self.bytes = tail;
        Ok(head)
    }

    fn bytes(&mut self) -> std::result::Result<Vec<u8>, &'static str> {
        let len = u32::from_be_bytes(self.take(4)?.try_into().unwrap()) as usize;
        Ok(self.take(len)?.to_vec())
    }
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
    fn round_trips_and_rejects_corruption() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(CommitRecord::read(dir.path()).unwrap(), None);
        sample().write(dir.path(), true).unwrap();
        assert_eq!(CommitRecord::read(dir.path()).unwrap(), Some(sample()));
        let mut bytes = fs::read(path(dir.path())).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 1;
        fs::write(path(dir.path()), &bytes).unwrap();
        let e = CommitRecord::read(dir.path()).unwrap_err().to_string();
        assert!(e.contains("corrupt (checksum mismatch)"), "{e}");
        CommitRecord::remove(dir.path(), false).unwrap();
        assert_eq!(CommitRecord::read(dir.path()).unwrap(), None);
    }
}
