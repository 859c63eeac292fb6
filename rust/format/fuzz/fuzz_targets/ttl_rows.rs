//! Any bytes as the rows of a store with a time-to-live, and as values that carry a timestamp.
//! The property: `txn_rocksdb_format::properties::ttl_rows`.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| txn_rocksdb_format::properties::ttl_rows(bytes));
