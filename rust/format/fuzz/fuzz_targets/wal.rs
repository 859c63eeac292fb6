//! Any bytes as a RocksDB WAL file, scanned for damage before RocksDB replays it.
//! The property: `txn_rocksdb_format::properties::wal`.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| txn_rocksdb_format::properties::wal(bytes));
