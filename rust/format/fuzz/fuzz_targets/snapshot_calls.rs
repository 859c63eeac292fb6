//! Any bytes as each record the snapshot natives take or return (`NativeSnapshotLocation.java`).
//! The property: `txn_rocksdb_format::properties::snapshot_calls`.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| txn_rocksdb_format::properties::snapshot_calls(bytes));
