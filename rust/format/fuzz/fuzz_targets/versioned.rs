//! Any bytes as a versioned store's segment row and latest value, and as its JNI records.
//! The property: `txn_rocksdb_format::properties::versioned`.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| txn_rocksdb_format::properties::versioned(bytes));
