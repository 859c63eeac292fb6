//! Any bytes as what Java passes across JNI: a write batch (puts, restores) and a commit's
//! offset updates.
//! The property: `txn_rocksdb_format::properties::jni_wire`.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| txn_rocksdb_format::properties::jni_wire(bytes));
