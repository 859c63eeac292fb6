//! Any bytes as an entry of the `offsets` column family: the first byte says where the key
//! ends and the value starts.
//! The property: `txn_rocksdb_format::properties::offsets`.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| txn_rocksdb_format::properties::offsets(bytes));
