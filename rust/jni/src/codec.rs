//! The wire formats shared with the Java classes of `internals.nativeapi`: the format crate's
//! [`txn_rocksdb_format::wire`] and its options record, [`txn_rocksdb_format::open_options`]
//! (fuzzed there; a malformed input is an `IllegalArgumentException`).

pub(crate) use txn_rocksdb_format::open_options;
pub(crate) use txn_rocksdb_format::wire::{
    decode_batch, decode_offset_updates, encode_expired, encode_offsets, push_entry, push_versioned_record,
};
