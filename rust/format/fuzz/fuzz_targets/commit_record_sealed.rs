//! A commit file with a valid magic and checksum around arbitrary contents (what a bug or a
//! hostile writer could leave): reaches the decoder past the checksum.
//! The property: `txn_rocksdb_format::properties::commit_record_sealed`.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| txn_rocksdb_format::properties::commit_record_sealed(bytes));
