//! A snapshot manifest with a valid magic, version and checksum around arbitrary contents:
//! reaches the decoder past the checksum.
//! The property: `txn_rocksdb_format::properties::snapshot_manifest_sealed`.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| txn_rocksdb_format::properties::snapshot_manifest_sealed(bytes));
