//! The commit file of the secondary-store strategy (KIP-844) on disk: while it exists, a commit is
//! in flight and must be rolled forward. Its bytes ([`CommitRecord`]: the transaction's
//! generation, the offset and position writes, the range deletes) are the format crate's.
//!
//! Written to a temporary name and renamed, so it is either absent or complete; a CRC-32 guards
//! its content against corruption (a corrupt file is an error, never silently ignored).

use crate::error::{Error, Result};
use std::fs::{self, File};
use std::io::Write as _;
use std::path::{Path, PathBuf};
pub(crate) use txn_rocksdb_format::commit_record::CommitRecord;

pub(crate) const FILE_NAME: &str = "TXN-COMMIT";
const TMP_NAME: &str = "TXN-COMMIT.tmp";

pub(crate) fn path(dir: &Path) -> PathBuf {
    dir.join(FILE_NAME)
}

/// Writes the file durably enough for `sync`: always complete or absent after a killed process
/// (rename); with `sync`, also fsynced with its directory, so it survives power loss. Without
/// `sync`, a power loss can keep the rename and lose the content: the next open then refuses,
/// naming the file (`tests/power_loss.rs`).
pub(crate) fn write(record: &CommitRecord, dir: &Path, sync: bool) -> Result<()> {
    let err = |e: std::io::Error| Error::storage(dir, format!("writing the commit file: {e}"));
    let tmp = dir.join(TMP_NAME);
    {
        let mut file = File::create(&tmp).map_err(err)?;
        file.write_all(&record.encode()).map_err(err)?;
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
    fn round_trips_and_rejects_corruption() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()).unwrap(), None);
        write(&sample(), dir.path(), true).unwrap();
        assert_eq!(read(dir.path()).unwrap(), Some(sample()));
        let mut bytes = fs::read(path(dir.path())).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 1;
        fs::write(path(dir.path()), &bytes).unwrap();
        let e = read(dir.path()).unwrap_err().to_string();
        assert!(e.contains("corrupt (checksum mismatch)"), "{e}");
        remove(dir.path(), false).unwrap();
        assert_eq!(read(dir.path()).unwrap(), None);
    }
}
