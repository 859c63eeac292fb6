//! The local side of a snapshot: the checksums of the store's files, and the errors about local
//! paths.

use crate::error::Error;
use std::io::Read;
use std::path::Path;
use txn_rocksdb_format::wal::crc32c_extend;

/// A local file's size and crc32c, and the crc32c of its bytes before and after `prefix` (a
/// prefix longer than the file is the whole file).
pub(super) fn file_checksum(path: &Path, prefix: u64) -> std::io::Result<FileChecksum> {
    let mut file = std::fs::File::open(path)?;
    let mut buffer = vec![0u8; 1 << 20];
    let mut sum = FileChecksum { size: 0, crc32c: 0, prefix_crc32c: 0, suffix_crc32c: 0 };
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            return Ok(sum);
        }
        let bytes = &buffer[..read];
        let within = usize::try_from(prefix.saturating_sub(sum.size)).map_or(read, |left| left.min(read));
        sum.prefix_crc32c = crc32c_extend(sum.prefix_crc32c, &bytes[..within]);
        sum.suffix_crc32c = crc32c_extend(sum.suffix_crc32c, &bytes[within..]);
        sum.crc32c = crc32c_extend(sum.crc32c, bytes);
        sum.size += read as u64;
    }
}

/// What [`file_checksum`] read.
pub(super) struct FileChecksum {
    pub(super) size: u64,
    pub(super) crc32c: u32,
    /// The crc32c of the bytes before the prefix's end, and of those after it.
    pub(super) prefix_crc32c: u32,
    pub(super) suffix_crc32c: u32,
}

/// A storage error about a local path.
pub(super) fn local_err(path: &Path, what: &str, source: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::storage(path, &format!("snapshot: {what}"), source)
}
