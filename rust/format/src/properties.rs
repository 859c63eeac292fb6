//! The properties the fuzz targets check (`rust/format/fuzz`), one function per target, also run
//! over the kept corpora by `tests/fuzz_regressions.rs` on stable. Each takes any bytes and
//! panics only when a decoder breaks its contract: a decoder never panics, never reserves memory
//! for more than its input can describe, and what it accepts re-encodes to bytes that decode the
//! same (to the same bytes where the format has one encoding per value).
//! Not API.

use crate::commit_record::{seal, CommitRecord};
use crate::offsets::{decode_offset, offset_key, offset_value};
use crate::open_options::OpenOptions;
use crate::snapshot_manifest::{self, Manifest};
use crate::temporary::{self, generation_bounds};
use crate::ttl;
use crate::value_format::{Upgrade, ValueFormat};
use crate::versioned::{split_latest_value, SegmentRow};
use crate::wire::{
    decode_batch, decode_expired, decode_offset_updates, decode_timestamped_batch, decode_versioned_records,
    encode_expired, encode_offset_updates, push_batch_entry, push_timestamped_batch_entry, push_versioned_record,
};
use crate::{segment, session_key, window_key};

/// Any bytes as a commit file. What decodes re-encodes to a file that decodes to the same record
/// (not always to the same bytes: offset writes and range deletes may come in any order in a
/// file, and their order carries no meaning, as they go to different column families; the
/// order within each kind is kept).
pub fn commit_record(bytes: &[u8]) {
    if let Ok(record) = CommitRecord::decode(bytes) {
        assert_eq!(CommitRecord::decode(&record.encode()).as_ref(), Ok(&record));
        let (lower, upper) = generation_bounds(record.generation);
        assert!(lower < upper);
    }
}

/// A commit file with a valid magic and checksum around arbitrary contents (what a bug or a
/// hostile writer could leave): reaches the decoder past the checksum.
pub fn commit_record_sealed(body: &[u8]) {
    commit_record(&seal(body));
}

/// Any bytes as a window or session changelog key (restore decodes a record's segment from
/// them), as a kept key (segment prefix ++ store key) and as a temporary-store entry.
pub fn changelog_keys(bytes: &[u8]) {
    match window_key::split_store_key(bytes) {
        Some((key, start, seq)) => assert_eq!(window_key::store_key(key, start, seq), bytes),
        None => assert!(bytes.len() < window_key::SUFFIX_LEN),
    }
    match session_key::split_store_key(bytes) {
        Some((key, start, end)) => assert_eq!(session_key::store_key(key, start, end), bytes),
        None => assert!(bytes.len() < session_key::SUFFIX_LEN),
    }
    match segment::split(bytes) {
        Some((id, store_key)) => assert_eq!(segment::prefixed(id, store_key), bytes),
        None => assert!(bytes.len() < segment::PREFIX_LEN),
    }
    // The scan bound covers the key itself with any suffix up to the maximal one.
    let (key, suffix) = bytes.split_at(bytes.len() / 2);
    assert!([key, suffix].concat() <= window_key::upper_range(key, &vec![0xFF; suffix.len()]));
    if let Some(prefix) = bytes.get(..temporary::GENERATION_PREFIX_LEN) {
        let generation = u64::from_be_bytes(prefix.try_into().unwrap());
        assert_eq!(temporary::temporary_key(generation, temporary::store_key(bytes)), bytes);
    }
    if let Some(value) = temporary::decode_value(bytes) {
        assert_eq!(temporary::encode_value(Some(value)), bytes);
    }
}

/// Any bytes as an entry of the `offsets` column family (an offset, the value format, an upgrade in
/// progress): the first byte says where the key ends and the value starts.
pub fn offsets(bytes: &[u8]) {
    let Some((&split, rest)) = bytes.split_first() else { return };
    let (key, value) = rest.split_at((split as usize).min(rest.len()));
    if let Ok((partition, offset)) = decode_offset(key, value) {
        assert_eq!(offset_key(&partition), key);
        assert_eq!(offset_value(offset), value);
    }
    // the value format and an upgrade in progress live in the same family
    if let Ok(format) = ValueFormat::decode(value) {
        assert_eq!([format.code()], value);
    }
    if let Ok(upgrade) = Upgrade::decode(value) {
        assert_eq!(upgrade.encode(), value);
    }
}

/// Any bytes as what Java passes across JNI: a write batch (puts, restores) and a commit's
/// offset updates.
pub fn jni_wire(bytes: &[u8]) {
    if let Ok(entries) = decode_batch(bytes) {
        let mut encoded = Vec::with_capacity(bytes.len());
        for (key, value) in &entries {
            push_batch_entry(&mut encoded, key, *value);
        }
        assert_eq!(encoded, bytes);
    }
    if let Ok(updates) = decode_offset_updates(bytes) {
        // `hasOffset` is any non-zero byte and an absent offset's 8 bytes are ignored, so compare
        // decodings, not bytes.
        assert_eq!(decode_offset_updates(&encode_offset_updates(&updates)).as_ref(), Ok(&updates));
    }
    if let Ok((keys, expired_bytes, more)) = decode_expired(bytes) {
        assert_eq!(encode_expired(&keys, expired_bytes, more), bytes);
    }
}

/// Any bytes as the options record of a native store's `open`: the record has one encoding, so
/// what decodes re-encodes to the same bytes.
pub fn open_options(bytes: &[u8]) {
    if let Ok(options) = OpenOptions::decode(bytes) {
        assert_eq!(options.encode(), bytes);
    }
}

/// Any bytes as each record the snapshot natives take or return: what decodes re-encodes to the
/// same bytes (every layout has one encoding).
pub fn snapshot_calls(bytes: &[u8]) {
    use crate::snapshot_calls::{
        DownloadProgress, ListAnswer, ListRequest, LocationOptions, RestoreAnswer, RestoreRequest, RetainAnswer,
        TakeAnswer,
    };
    if let Ok(options) = LocationOptions::decode(bytes) {
        assert_eq!(options.encode(), bytes);
    }
    if let Ok(request) = RestoreRequest::decode(bytes) {
        assert_eq!(request.encode(), bytes);
    }
    if let Ok(answer) = RestoreAnswer::decode(bytes) {
        assert_eq!(answer.encode(), bytes);
    }
    if let Ok(answer) = TakeAnswer::decode(bytes) {
        assert_eq!(answer.encode(), bytes);
    }
    if let Ok(answer) = RetainAnswer::decode(bytes) {
        assert_eq!(answer.encode(), bytes);
    }
    if let Ok(answer) = DownloadProgress::decode(bytes) {
        assert_eq!(answer.encode(), bytes);
    }
    if let Ok(request) = ListRequest::decode(bytes) {
        assert_eq!(request.encode(), bytes);
    }
    if let Ok(answer) = ListAnswer::decode(bytes) {
        assert_eq!(answer.encode(), bytes);
    }
}

/// Any bytes as a versioned store's values (a segment row, a latest value) and as what crosses JNI
/// for it (a timestamped restore batch, the versions a read returns). A row that decodes re-encodes
/// to the same bytes, and every read of it answers within its bounds.
pub fn versioned(bytes: &[u8]) {
    if let Ok(row) = SegmentRow::decode(bytes) {
        assert_eq!(row.encode(), bytes);
        let (min, next) = (row.min(), row.next());
        assert!(min <= next);
        for found in row.overlapping(i64::MIN, i64::MAX) {
            assert!(found.valid_from < found.valid_to && found.valid_to <= next);
            assert_eq!(row.find(found.valid_from).map(|f| f.index), Some(found.index));
        }
    }
    if let Ok((_, value)) = split_latest_value(bytes) {
        assert_eq!(value.len() + 8, bytes.len());
    }
    if let Ok(entries) = decode_timestamped_batch(bytes) {
        let mut encoded = Vec::with_capacity(bytes.len());
        for (key, value, timestamp) in &entries {
            push_timestamped_batch_entry(&mut encoded, key, *value, *timestamp);
        }
        assert_eq!(encoded, bytes);
    }
    if let Ok(records) = decode_versioned_records(bytes) {
        let mut encoded = Vec::with_capacity(bytes.len());
        for (value, valid_from, valid_to) in &records {
            push_versioned_record(&mut encoded, value, *valid_from, *valid_to);
        }
        assert_eq!(encoded, bytes);
    }
}

/// Any bytes as the rows of a store with a time-to-live (a data row's key and value, an index
/// row's key, a time row) and as a value whose format carries a timestamp. What splits joins back
/// to the same bytes; a timestamp is read from inside the value.
pub fn ttl_rows(bytes: &[u8]) {
    if let Some(key) = ttl::split_data_key(bytes) {
        assert_eq!(ttl::data_key(key), bytes);
    }
    if let Ok((value, write_time)) = ttl::split_data_value(bytes) {
        assert_eq!(ttl::data_value(value, write_time), bytes);
    }
    if let Ok((write_time, key)) = ttl::split_index_key(bytes) {
        assert_eq!(ttl::index_key(write_time, key), bytes);
        // the engine writes no negative time (index_end's bounds are for times from -1 on)
        if write_time >= 0 {
            assert!(bytes < ttl::index_end(write_time).as_slice());
        }
    }
    if let Ok(time) = ttl::decode_time(bytes) {
        assert_eq!(ttl::time_value(time)[..], bytes[bytes.len() - 8..]);
    }
    for format in ValueFormat::ALL {
        if let Ok(Some(_)) = format.timestamp(bytes) {
            assert!(bytes.len() >= 8);
        }
    }
}

/// Any bytes as a WAL file: the scan never panics and any damage it reports lies inside the file.
pub fn wal(bytes: &[u8]) {
    use crate::wal::{scan, WalScan};
    match scan(bytes) {
        WalScan::Intact => {}
        WalScan::TornTail { at } | WalScan::Damaged { at, .. } => assert!(at < bytes.len()),
    }
}

/// A property: panics when a decoder breaks its contract on `bytes`.
pub type Property = fn(&[u8]);

/// Every target by name (the fuzz binaries' names).
/// Any bytes as a snapshot manifest. What decodes re-encodes to bytes that decode to it again, the
/// same bytes when they were of this version (the format has one encoding per manifest); every
/// file and object name it accepts stays inside a directory, and a file's parts make its size.
pub fn snapshot_manifest(bytes: &[u8]) {
    if let Ok(manifest) = Manifest::decode(bytes) {
        let encoded = manifest.encode();
        if bytes[8..12] == snapshot_manifest::VERSION.to_be_bytes() {
            assert_eq!(encoded, bytes);
        }
        assert_eq!(Manifest::decode(&encoded).as_ref(), Ok(&manifest));
        for file in &manifest.files {
            assert!(snapshot_manifest::is_plain_file_name(&file.name));
            assert!(file.parts.iter().all(|part| snapshot_manifest::is_plain_file_name(&part.object)));
            assert_eq!(file.parts.iter().map(|part| part.size).sum::<u64>(), file.size);
        }
    }
}

/// A manifest with a valid magic, version and checksum around arbitrary contents: reaches the
/// decoder past the checksum.
pub fn snapshot_manifest_sealed(body: &[u8]) {
    snapshot_manifest(&snapshot_manifest::seal(body));
}
/// Any bytes as each record the operators' tool's natives return (`NativeStoreInspection.java`):
/// what decodes re-encodes to the same bytes (every layout has one encoding).
pub fn inspection(bytes: &[u8]) {
    use crate::inspection::{DumpChunk, StoreFacts, Verification};
    if let Ok(facts) = StoreFacts::decode(bytes) {
        assert_eq!(facts.encode(), bytes);
    }
    if let Ok(verification) = Verification::decode(bytes) {
        assert_eq!(verification.encode(), bytes);
    }
    if let Ok(chunk) = DumpChunk::decode(bytes) {
        assert_eq!(chunk.encode(), bytes);
    }
}

pub const TARGETS: [(&str, Property); 13] = [
    ("commit_record", commit_record),
    ("commit_record_sealed", commit_record_sealed),
    ("changelog_keys", changelog_keys),
    ("offsets", offsets),
    ("jni_wire", jni_wire),
    ("open_options", open_options),
    ("snapshot_calls", snapshot_calls),
    ("inspection", inspection),
    ("ttl_rows", ttl_rows),
    ("versioned", versioned),
    ("wal", wal),
    ("snapshot_manifest", snapshot_manifest),
    ("snapshot_manifest_sealed", snapshot_manifest_sealed),
];
