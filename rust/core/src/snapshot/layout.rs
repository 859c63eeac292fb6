//! Where things are at a location, per store id: the folders, the manifests' names (their
//! snapshot's seq, zero-padded) and the objects' names (a file's name, part offset, size and
//! crc32c, so that equal names mean equal bytes).

/// The folder of a store's objects, under its store id.
pub(super) const FILES: &str = "files";
/// The folder of a store's manifests, under its store id.
pub(super) const SNAPSHOTS: &str = "snapshots";
const MANIFEST_SUFFIX: &str = ".manifest";

/// The manifest's name of snapshot `seq` under `snapshots/`.
pub(super) fn manifest_name(seq: u64) -> String {
    format!("{seq:020}{MANIFEST_SUFFIX}")
}

/// The seq of a manifest's object name (its last path segment), if it is one.
pub(super) fn manifest_seq(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(MANIFEST_SUFFIX)?;
    (digits.len() == 20 && digits.bytes().all(|b| b.is_ascii_digit())).then(|| digits.parse().ok())?
}

/// The object name of the part of file `name` starting at `offset`: the file's name, the part's
/// offset (left out at 0, where a part is usually the whole file), size and crc32c, so that equal
/// names mean equal bytes.
pub(super) fn object_name(name: &str, offset: u64, size: u64, crc32c: u32) -> String {
    match offset {
        0 => format!("{name}-{size}-{crc32c:08x}"),
        offset => format!("{name}+{offset}-{size}-{crc32c:08x}"),
    }
}
