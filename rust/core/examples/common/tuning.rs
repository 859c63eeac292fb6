//! What the examples share: RocksDB options from the environment.

use txn_rocksdb::tuning::Tuning;

/// The RocksDB options in `TXN_TUNING` (as `txn.rocksdb.options` takes them; none when unset),
/// checked as a store's open would check them, with their text for the example's report line.
pub fn tuning_from_env() -> (String, Tuning) {
    let text = std::env::var("TXN_TUNING").unwrap_or_default();
    let tuning = Tuning::new(&[text.as_str()]).unwrap_or_else(|e| panic!("TXN_TUNING='{text}': {e}"));
    (text, tuning)
}
