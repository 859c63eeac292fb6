//! Making a directory's or a file's changes durable, the same way on every OS the library runs on.

use std::path::Path;

/// Makes the entries of `dir` durable (files created, renamed or deleted in it). On Unix, the
/// fsync of the directory. Windows cannot open a directory as a file (`File::open` fails with
/// "access denied") and has no directory sync: NTFS journals its metadata, and RocksDB's own
/// Windows environment does nothing for it either (`WinDirectory::Fsync` in `port/win/io_win.cc`).
/// There it only checks that `dir` is a directory, so that a missing one still fails.
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(not(windows))]
    {
        std::fs::File::open(dir)?.sync_all()
    }
    #[cfg(windows)]
    {
        if std::fs::metadata(dir)?.is_dir() {
            Ok(())
        } else {
            Err(std::io::Error::new(std::io::ErrorKind::NotADirectory, format!("{} is not a directory", dir.display())))
        }
    }
}

/// Flushes a written file's data to disk. Opened for writing: Windows' `FlushFileBuffers` refuses
/// a read-only handle.
pub(crate) fn sync_file(file: &Path) -> std::io::Result<()> {
    std::fs::OpenOptions::new().write(true).open(file)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syncs_a_directory_and_a_file_and_fails_on_a_missing_directory() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        sync_file(&file).unwrap();
        sync_dir(dir.path()).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"x", "syncing never changes a file");
        assert!(sync_dir(&dir.path().join("missing")).is_err());
    }
}
