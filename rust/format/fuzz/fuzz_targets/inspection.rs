//! Any bytes as each record the operators' tool's natives return (`NativeStoreInspection.java`).
//! The property: `txn_rocksdb_format::properties::inspection`.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| txn_rocksdb_format::properties::inspection(bytes));
