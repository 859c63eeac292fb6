//! Any bytes as a window or session changelog key (restore decodes a record's segment from
//! them), as a kept key (segment prefix ++ store key) and as a temporary-store entry.
//! The property: `txn_rocksdb_format::properties::changelog_keys`.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| txn_rocksdb_format::properties::changelog_keys(bytes));
