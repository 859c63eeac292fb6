//! Any bytes as the options record a native store's `open` takes (Java's `OpenOptions.encode`).
//! The property: `txn_rocksdb_format::properties::open_options`.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| txn_rocksdb_format::properties::open_options(bytes));
