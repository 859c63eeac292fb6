//! The manifest of a store's snapshot in object storage (the engine's `snapshot/`): which files
//! make the snapshot, under which object names, with their sizes and checksums, and the
//! changelog offsets and position the snapshot holds. A snapshot exists exactly when its manifest
//! does: the manifest is written last, after every file it names.
//!
//! Layout (integers big-endian): `MAGIC` (8 bytes), format version (u32, [`VERSION`]), sequence
//! number (u64), creation time (i64, milliseconds since the epoch), store id (u32-prefixed UTF-8),
//! value format (u8, [`ValueFormat::code`]), transactional (u8: 0 or 1), strategy (u8,
//! [`Strategy::code`]), time-to-live rows (u8: 0 or 1, whether the rows are in the layout of a store
//! with a time-to-live, [`crate::ttl`]), offsets (u32 count, then per partition: topic (u32-prefixed UTF-8),
//! partition (i32), offset (i64)), position (u8 0 = none, 1 = a u32-prefixed blob follows), files
//! (u32 count, then per file: local name (u32-prefixed UTF-8), size (u64), crc32c of the file's
//! bytes (u32), parts (u32 count, at least 1, then per part: object name (u32-prefixed UTF-8), size
//! (u64), crc32c (u32))), and last the crc32c of every preceding byte (u32).
//!
//! A file is the concatenation of its parts, each an object: one part for a file sent whole; a file
//! that grows by appends (RocksDB's write-ahead log) is sent as the parts an earlier snapshot sent
//! and a part with what was appended since. Version 2 (still read) had no time-to-live flag (read
//! as plain rows: a snapshot of a store with a time-to-live taken then is refused when its store
//! opens, by the layout it records in its offsets family). Version 1 (still read) had, in addition,
//! one object per file: local name, object name, size, crc32c.
//!
//! A file's local name is a plain RocksDB file name (no path separator, not `.` or `..`): restore
//! writes it into a directory, so a manifest cannot name a file outside it. Names are unique. The
//! sizes of a file's parts add up to its size.

use crate::offsets::TopicPartition;
use crate::open_options::Strategy;
use crate::reader::Reader;
use crate::value_format::ValueFormat;
use crate::wal::crc32c;
use crate::{Decoded, Malformed};

const MAGIC: &[u8; 8] = b"TXNSNAP\x01";
/// The manifest format this code writes (and the newest it reads).
pub const VERSION: u32 = 3;
/// The manifest format before the time-to-live flag.
pub const VERSION_NO_TTL_FLAG: u32 = 2;
/// The oldest manifest format this code reads: one object per file.
pub const VERSION_ONE_OBJECT_PER_FILE: u32 = 1;
const CRC_LEN: usize = 4;

/// One file of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotFile {
    /// Its name in the store's directory (`000012.sst`, `MANIFEST-000005`, `CURRENT`, ...).
    pub name: String,
    pub size: u64,
    /// crc32c (Castagnoli) of its bytes.
    pub crc32c: u32,
    /// The objects whose bytes, one after another, are the file's (at least one).
    pub parts: Vec<FilePart>,
}

/// A run of a file's bytes, stored as one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePart {
    /// The object's name under the store's `files/` (unique per content: see the engine's
    /// `snapshot::object_name`).
    pub object: String,
    pub size: u64,
    /// crc32c of the part's bytes.
    pub crc32c: u32,
}

/// A snapshot's manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The snapshot's number among the store's snapshots (newest highest).
    pub seq: u64,
    /// When it was taken, in milliseconds since the epoch (for operators; never compared).
    pub created_ms: i64,
    /// The store it belongs to.
    pub store_id: String,
    pub value_format: ValueFormat,
    /// false: a write-through store (its strategy is then meaningless).
    pub transactional: bool,
    pub strategy: Strategy,
    /// Whether its rows are in the layout of a store with a time-to-live (data rows with their
    /// write times, the expiry index, the store's time): only such a store may restore it.
    pub ttl: bool,
    /// The changelog offsets committed with the data the snapshot holds.
    pub offsets: Vec<(TopicPartition, i64)>,
    /// The position blob committed with it.
    pub position: Option<Vec<u8>>,
    pub files: Vec<SnapshotFile>,
}

fn push_str(out: &mut Vec<u8>, s: &[u8]) {
    out.extend_from_slice(&(s.len() as u32).to_be_bytes());
    out.extend_from_slice(s);
}

fn read_str(reader: &mut Reader<'_>, what: &str) -> Decoded<String> {
    let bytes = reader.u32_prefixed()?;
    String::from_utf8(bytes.to_vec()).map_err(|_| Malformed(format!("{what} is not UTF-8")))
}

/// Whether `name` is a plain file name a restore may create in a store's directory.
pub fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0'])
}

impl Manifest {
    /// The manifest's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128 + self.files.len() * 64);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_be_bytes());
        out.extend_from_slice(&self.seq.to_be_bytes());
        out.extend_from_slice(&self.created_ms.to_be_bytes());
        push_str(&mut out, self.store_id.as_bytes());
        out.push(self.value_format.code());
        out.push(u8::from(self.transactional));
        out.push(self.strategy.code());
        out.push(u8::from(self.ttl));
        out.extend_from_slice(&(self.offsets.len() as u32).to_be_bytes());
        for (partition, offset) in &self.offsets {
            push_str(&mut out, partition.topic.as_bytes());
            out.extend_from_slice(&partition.partition.to_be_bytes());
            out.extend_from_slice(&offset.to_be_bytes());
        }
        match &self.position {
            None => out.push(0),
            Some(position) => {
                out.push(1);
                push_str(&mut out, position);
            }
        }
        out.extend_from_slice(&(self.files.len() as u32).to_be_bytes());
        for file in &self.files {
            push_str(&mut out, file.name.as_bytes());
            out.extend_from_slice(&file.size.to_be_bytes());
            out.extend_from_slice(&file.crc32c.to_be_bytes());
            out.extend_from_slice(&(file.parts.len() as u32).to_be_bytes());
            for part in &file.parts {
                push_str(&mut out, part.object.as_bytes());
                out.extend_from_slice(&part.size.to_be_bytes());
                out.extend_from_slice(&part.crc32c.to_be_bytes());
            }
        }
        let crc = crc32c(&out);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }

    /// Decodes a manifest of this version or version 1; the error says why the bytes are not one
    /// (not a manifest, a newer format version, checksum mismatch, truncation, an unknown code, a
    /// file or object name that is not a plain file name, a file name that comes twice, a file
    /// without parts or whose parts do not add up to its size, trailing bytes).
    pub fn decode(bytes: &[u8]) -> Decoded<Manifest> {
        if bytes.len() < MAGIC.len() + 4 + CRC_LEN || &bytes[..MAGIC.len()] != MAGIC {
            return Err(Malformed("not a txn-rocksdb snapshot manifest".into()));
        }
        let (body, crc) = bytes.split_at(bytes.len() - CRC_LEN);
        if crc32c(body).to_be_bytes() != crc {
            return Err(Malformed("checksum mismatch".into()));
        }
        let mut reader = Reader::new(&body[MAGIC.len()..], "snapshot manifest");
        let version = reader.u32()?;
        if !(VERSION_ONE_OBJECT_PER_FILE..=VERSION).contains(&version) {
            return Err(Malformed(format!(
                "manifest format version {version}; this build reads versions {VERSION_ONE_OBJECT_PER_FILE} to {VERSION}"
            )));
        }
        let seq = reader.u64()?;
        let created_ms = reader.i64()?;
        let store_id = read_str(&mut reader, "the store id")?;
        let value_format = ValueFormat::decode(&[reader.u8()?])?;
        let transactional = match reader.u8()? {
            0 => false,
            1 => true,
            other => return Err(Malformed(format!("transactional flag {other} is neither 0 nor 1"))),
        };
        let strategy_code = reader.u8()?;
        let strategy = Strategy::ALL
            .into_iter()
            .find(|s| s.code() == strategy_code)
            .ok_or_else(|| Malformed(format!("unknown transaction strategy code {strategy_code}")))?;
        let ttl = match version {
            VERSION_ONE_OBJECT_PER_FILE | VERSION_NO_TTL_FLAG => false,
            _ => match reader.u8()? {
                0 => false,
                1 => true,
                other => return Err(Malformed(format!("time-to-live flag {other} is neither 0 nor 1"))),
            },
        };
        // Every entry takes at least 16 bytes, so the loops end with the input.
        let mut offsets = Vec::new();
        for _ in 0..reader.u32()? {
            let topic = read_str(&mut reader, "a topic")?;
            let partition = reader.i32()?;
            offsets.push((TopicPartition { topic, partition }, reader.i64()?));
        }
        let position = match reader.u8()? {
            0 => None,
            1 => Some(reader.u32_prefixed()?.to_vec()),
            other => return Err(Malformed(format!("position flag {other} is neither 0 nor 1"))),
        };
        let mut files: Vec<SnapshotFile> = Vec::new();
        for _ in 0..reader.u32()? {
            let name = read_str(&mut reader, "a file name")?;
            if !is_plain_file_name(&name) {
                return Err(Malformed(format!("file name {name:?} is not a plain file name")));
            }
            let file = if version == VERSION_ONE_OBJECT_PER_FILE {
                let part = read_part(&mut reader)?;
                SnapshotFile { name, size: part.size, crc32c: part.crc32c, parts: vec![part] }
            } else {
                let (size, crc32c) = (reader.u64()?, reader.u32()?);
                let mut parts = Vec::new();
                for _ in 0..reader.u32()? {
                    parts.push(read_part(&mut reader)?);
                }
                let total = parts.iter().try_fold(0u64, |total, part| total.checked_add(part.size));
                if parts.is_empty() || total != Some(size) {
                    return Err(Malformed(format!("the parts of file {name:?} do not make its {size} bytes")));
                }
                SnapshotFile { name, size, crc32c, parts }
            };
            files.push(file);
        }
        let mut names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        names.sort_unstable();
        if let Some(twice) = names.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(Malformed(format!("file name {:?} comes twice", twice[0])));
        }
        if !reader.is_empty() {
            return Err(Malformed(format!("{} trailing bytes", reader.remaining())));
        }
        Ok(Manifest { seq, created_ms, store_id, value_format, transactional, strategy, ttl, offsets, position, files })
    }
}

/// A part: object name, size, crc32c (version 1's file entry after its name).
fn read_part(reader: &mut Reader<'_>) -> Decoded<FilePart> {
    let object = read_str(reader, "an object name")?;
    if !is_plain_file_name(&object) {
        return Err(Malformed(format!("object name {object:?} is not a plain file name")));
    }
    Ok(FilePart { object, size: reader.u64()?, crc32c: reader.u32()? })
}

/// Wraps `body` (everything after the magic and version, before the checksum) into a manifest
/// with a valid magic, version and checksum: lets tests and fuzzers reach the decoder past its
/// checksum.
pub fn seal(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + body.len() + CRC_LEN);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_be_bytes());
    out.extend_from_slice(body);
    let crc = crc32c(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        Manifest {
            seq: 7,
            created_ms: 1_700_000_000_000,
            store_id: "app/0_1/counts".into(),
            value_format: ValueFormat::ALL[1],
            transactional: true,
            strategy: Strategy::SecondaryStore,
            ttl: false,
            offsets: vec![(TopicPartition { topic: "app-counts-changelog".into(), partition: 1 }, 42)],
            position: Some(b"position".to_vec()),
            files: vec![
                whole("000012.sst", "000012.sst-100-0a0b0c0d", 100, 0x0a0b_0c0d),
                whole("CURRENT", "CURRENT-16-01020304", 16, 0x0102_0304),
            ],
        }
    }

    fn whole(name: &str, object: &str, size: u64, crc32c: u32) -> SnapshotFile {
        SnapshotFile { name: name.into(), size, crc32c, parts: vec![FilePart { object: object.into(), size, crc32c }] }
    }

    /// A write-ahead log sent in two snapshots: the part the first sent and what was appended.
    fn appended() -> SnapshotFile {
        SnapshotFile {
            name: "000009.log".into(),
            size: 150,
            crc32c: 0x1111_2222,
            parts: vec![
                FilePart { object: "000009.log-100-0a0b0c0d".into(), size: 100, crc32c: 0x0a0b_0c0d },
                FilePart { object: "000009.log+100-50-05060708".into(), size: 50, crc32c: 0x0506_0708 },
            ],
        }
    }

    #[test]
    fn a_manifest_decodes_to_itself() {
        let mut manifest = manifest();
        manifest.files.push(appended());
        assert_eq!(Manifest::decode(&manifest.encode()), Ok(manifest.clone()));
        let ttl = Manifest { ttl: true, ..manifest.clone() };
        assert_eq!(Manifest::decode(&ttl.encode()), Ok(ttl));
        let bare = Manifest { position: None, offsets: vec![], files: vec![], ..manifest };
        assert_eq!(Manifest::decode(&bare.encode()), Ok(bare));
    }

    #[test]
    fn parts_that_do_not_make_their_file_are_refused() {
        for parts in [vec![], appended().parts[..1].to_vec()] {
            let mut bad = manifest();
            bad.files.push(SnapshotFile { parts, ..appended() });
            let why = Manifest::decode(&bad.encode()).unwrap_err().0;
            assert!(why.contains("do not make its 150 bytes"), "{why}");
        }
        let mut overflow = manifest();
        let part = FilePart { object: "x".into(), size: u64::MAX, crc32c: 0 };
        overflow.files.push(SnapshotFile { name: "big".into(), size: 1, crc32c: 0, parts: vec![part.clone(), part] });
        assert!(Manifest::decode(&overflow.encode()).is_err());
        let mut escaping = manifest();
        escaping.files[0].parts[0].object = "../x".into();
        assert!(Manifest::decode(&escaping.encode()).unwrap_err().0.contains("not a plain file name"));
    }

    #[test]
    fn any_damage_is_found() {
        let bytes = manifest().encode();
        for i in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0x40;
            assert!(Manifest::decode(&damaged).is_err(), "byte {i}");
            assert!(Manifest::decode(&bytes[..i]).is_err(), "cut at {i}");
        }
    }

    #[test]
    fn a_file_name_that_leaves_the_directory_is_refused() {
        for name in ["../CURRENT", "/etc/passwd", "..", "", "a\\b"] {
            let mut bad = manifest();
            bad.files[0].name = name.into();
            let why = Manifest::decode(&bad.encode()).unwrap_err().0;
            assert!(why.contains("not a plain file name"), "{name}: {why}");
        }
        let mut twice = manifest();
        twice.files[1].name = "000012.sst".into();
        assert!(Manifest::decode(&twice.encode()).unwrap_err().0.contains("comes twice"));
    }

    /// The fuzzers' seeds: a manifest of this version (with the time-to-live flag set), and ones of
    /// version 2 (no flag) and version 1 (one object per file), which decode to the same manifest
    /// without the flag, each file one part.
    #[test]
    fn the_fuzzers_seeds_are_manifests() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
        let expected = Manifest { seq: 3, strategy: Strategy::IndexedBatch, ..manifest() };
        let seed = std::fs::read(dir.join("snapshot_manifest/seed-valid")).unwrap();
        let with_ttl = Manifest { ttl: true, ..expected.clone() };
        assert_eq!(Manifest::decode(&seed).unwrap(), with_ttl);
        assert_eq!(seed, with_ttl.encode(), "the seed is this version's encoding");
        let version_two = std::fs::read(dir.join("snapshot_manifest/seed-version-2")).unwrap();
        assert_eq!(&version_two[MAGIC.len()..MAGIC.len() + 4], &VERSION_NO_TTL_FLAG.to_be_bytes());
        assert_eq!(Manifest::decode(&version_two).unwrap(), expected);
        let version_one = std::fs::read(dir.join("snapshot_manifest/seed-version-1")).unwrap();
        assert_eq!(&version_one[MAGIC.len()..MAGIC.len() + 4], &VERSION_ONE_OBJECT_PER_FILE.to_be_bytes());
        assert_eq!(Manifest::decode(&version_one).unwrap(), expected);
        let body = std::fs::read(dir.join("snapshot_manifest_sealed/seed-valid")).unwrap();
        assert_eq!(seal(&body), seed);
    }

    #[test]
    fn a_newer_format_version_is_named() {
        let mut bytes = manifest().encode();
        bytes[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&(VERSION + 1).to_be_bytes());
        let body_len = bytes.len() - CRC_LEN;
        let crc = crc32c(&bytes[..body_len]);
        bytes[body_len..].copy_from_slice(&crc.to_be_bytes());
        assert!(Manifest::decode(&bytes).unwrap_err().0.contains(&format!("version {}", VERSION + 1)));
    }
}
