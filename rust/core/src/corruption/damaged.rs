//! What is done to a damaged store's files outside RocksDB: the `DAMAGED` mark left by a read or
//! a write that found damaged data after the store opened, and the wipe the policy may order; and
//! telling RocksDB's corruption errors from its other failures.

use crate::error::{Error, Result};
use std::path::Path;

/// The error of a failed RocksDB call on the store in `path` (see `Db::rocks_err`).
pub(crate) fn rocks_error(path: &Path, e: rust_rocksdb::Error) -> Error {
    if !is_corruption(&e) {
        return Error::storage(path, "", e);
    }
    let message = format!("RocksDB found damaged data: {e}");
    mark_damaged(path, &message);
    Error::Damaged { path: path.display().to_string(), message }
}

/// Whether RocksDB found damaged data (checksums, sizes, formats), as opposed to failing to read
/// or write (an I/O error, a full disk), which deleting files would not cure.
pub(crate) fn is_corruption(e: &rust_rocksdb::Error) -> bool {
    e.kind() == rust_rocksdb::ErrorKind::Corruption
}

/// Deletes everything in a damaged store's directory; returns the names it deleted, for the log.
pub(crate) fn wipe(path: &Path) -> Result<String> {
    let err = |e: std::io::Error| Error::storage(path, "deleting the damaged store's files", e);
    let mut names = Vec::new();
    for entry in std::fs::read_dir(path).map_err(err)? {
        let entry = entry.map_err(err)?;
        names.push(entry.file_name().to_string_lossy().into_owned());
        if entry.file_type().map_err(err)?.is_dir() {
            std::fs::remove_dir_all(entry.path()).map_err(err)?;
        } else {
            std::fs::remove_file(entry.path()).map_err(err)?;
        }
    }
    crate::durable::sync_dir(path).map_err(err)?;
    names.sort();
    Ok(names.join(", "))
}

/// The file that marks a store whose data a read or a write found damaged after it opened.
pub(crate) const DAMAGED_FILE: &str = "DAMAGED";

/// Records in the store's directory that RocksDB found damaged data after the store opened (a
/// block whose checksum fails is only found when it is read), so that the next open handles the
/// store as damaged ([`check_not_marked`]) instead of opening it and failing again on the same
/// read: with a changelog it then heals. Best effort: the error that led here is returned anyway.
pub(crate) fn mark_damaged(path: &Path, message: &str) {
    let file = path.join(DAMAGED_FILE);
    let written = std::fs::write(&file, message.as_bytes())
        .and_then(|()| crate::durable::sync_file(&file))
        .and_then(|()| crate::durable::sync_dir(path));
    match written {
        Ok(()) => log::error!(
            "store {}: RocksDB found damaged data ({message}); the store is marked damaged ({}) and is handled as \
             such when it opens next",
            path.display(),
            file.display()
        ),
        Err(e) => {
            log::error!("store {}: RocksDB found damaged data ({message}); marking it failed: {e}", path.display())
        }
    }
}

/// Fails with [`Error::Damaged`] if an earlier run marked the store damaged ([`mark_damaged`]).
pub(crate) fn check_not_marked(path: &Path) -> Result<()> {
    let file = path.join(DAMAGED_FILE);
    match std::fs::read(&file) {
        Ok(message) => Err(Error::Damaged {
            path: path.display().to_string(),
            message: format!(
                "an earlier read or write found damaged data ({}); {} marks it: delete that file to open the store \
                 as it is",
                String::from_utf8_lossy(&message),
                file.display()
            ),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::storage(path, &format!("reading {}", file.display()), e)),
    }
}
