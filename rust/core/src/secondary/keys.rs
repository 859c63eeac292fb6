//! How the temporary store keeps a transaction's writes (`generation ++ key`, marked values):
//! the format crate's [`txn_rocksdb_format::temporary`] layout.

pub(crate) use txn_rocksdb_format::temporary::{
    decode_value, encode_value, generation_bounds, is_tombstone, store_key, temporary_key,
};
