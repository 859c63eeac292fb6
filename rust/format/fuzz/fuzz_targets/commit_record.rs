//! Any bytes as a commit file. What decodes re-encodes to a file that decodes to the same record
//! (not always to the same bytes: offset writes and range deletes may come in any order in a
//! file, and their order carries no meaning, as they go to different column families; the
//! order within each kind is kept).
//! The property: `txn_rocksdb_format::properties::commit_record`.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| txn_rocksdb_format::properties::commit_record(bytes));
