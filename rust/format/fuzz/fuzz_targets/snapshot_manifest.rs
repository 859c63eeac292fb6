//! Any bytes as a snapshot manifest. What decodes re-encodes to the same bytes, and every file
//! name it accepts stays inside a directory.
//! The property: `txn_rocksdb_format::properties::snapshot_manifest`.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| txn_rocksdb_format::properties::snapshot_manifest(bytes));
