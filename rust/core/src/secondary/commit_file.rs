//! The commit file `TXN-COMMIT` of stores written by earlier versions (which ones:
//! docs/history.md), read by recovery only.
//!
//! Those versions wrote a secondary-store commit's [`CommitRecord`] to this file before copying,
//! and deleted it after. A store that crashed mid-commit under such a version still has it: the
//! next open rolls that commit forward from it and deletes it. Commits keep the record inside
//! RocksDB (`roll_forward.rs`), where it is ordered with the copy by the WAL: a file beside
//! RocksDB could survive a power loss without its content, or outlive a damaged WAL's commits.

use crate::error::{Error, Result};
use std::fs;
use std::path::{Path, PathBuf};
use txn_rocksdb_format::commit_record::CommitRecord;

pub(crate) const FILE_NAME: &str = "TXN-COMMIT";

fn path(dir: &Path) -> PathBuf {
    dir.join(FILE_NAME)
}

/// The commit file of `dir`, if one exists. One that does not decode is [`Error::Damaged`]: the
/// store cannot tell how far that commit got.
pub(crate) fn read(dir: &Path) -> Result<Option<CommitRecord>> {
    let bytes = match fs::read(path(dir)) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::storage(dir, "reading the commit file", e)),
    };
    CommitRecord::decode(&bytes).map(Some).map_err(|why| Error::Damaged {
        path: dir.display().to_string(),
        message: format!("commit file {} is corrupt ({why})", path(dir).display()),
    })
}

/// Removes the commit file if there is one, durably: a file that came back after a power loss
/// would roll its (complete) commit forward again over later ones.
pub(crate) fn remove(dir: &Path) -> Result<()> {
    let err = |e: std::io::Error| Error::storage(dir, "deleting the commit file", e);
    match fs::remove_file(path(dir)) {
        Ok(()) => crate::durable::sync_dir(dir).map_err(err),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(err(e)),
    }
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
    fn reads_a_legacy_file_and_rejects_corruption() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()).unwrap(), None);
        fs::write(path(dir.path()), sample().encode()).unwrap();
        assert_eq!(read(dir.path()).unwrap(), Some(sample()));
        let mut bytes = fs::read(path(dir.path())).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 1;
        fs::write(path(dir.path()), &bytes).unwrap();
        let e = read(dir.path()).unwrap_err();
        assert!(matches!(e, Error::Damaged { .. }), "{e:?}");
        assert!(e.to_string().contains("corrupt (checksum mismatch)"), "{e}");
        remove(dir.path()).unwrap();
        assert_eq!(read(dir.path()).unwrap(), None);
        remove(dir.path()).unwrap();
    }
}
