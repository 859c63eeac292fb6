//! The byte layouts of txn-rocksdb, one module per format: every decoder of bytes that come from
//! disk, from a changelog or across the JNI boundary lives here, next to its encoder.
//!
//! Nothing here links RocksDB or the JVM, so the fuzz targets (`rust/format/fuzz`) and sanitizer
//! runs (`scripts/sanitize.sh`) build this crate in seconds on a nightly toolchain. Decoders never
//! panic and never allocate more than their input can describe: malformed bytes are a
//! [`Malformed`] error naming what was wrong.
//!
//! - [`commit_record`]: the secondary-store strategy's commit record.
//! - [`inspection`]: the records the operators' tool's natives return (a store's facts, a
//!   verification, committed entries).
//! - [`open_options`]: the options record every native store's `open` takes, and the codes of
//!   its enumerations (strategy, corruption policy, value format).
//! - [`offsets`]: changelog offsets, the position and the commit record's keys in the `offsets`
//!   column family.
//! - [`snapshot_calls`]: the records the snapshot natives take and return (location options, a
//!   restore's request and answer, a snapshot's and a retention's answers).
//! - [`snapshot_manifest`]: the manifest of a store's snapshot in object storage.
//! - [`store_kind`]: the kind of store a directory holds, recorded in its `offsets` family.
//! - [`segment`]: the segment prefix of window and session stores.
//! - [`window_key`], [`session_key`]: Kafka's window and session store keys (also the changelog keys
//!   restore decodes).
//! - [`temporary`]: the secondary-store strategy's temporary-store keys and values.
//! - [`ttl`]: the rows of a key-value store with a time-to-live (data with write times, the expiry
//!   index, the store's time).
//! - [`value_format`]: which of Kafka's value formats a store holds, and the upgrades between them.
//! - [`versioned`]: the versioned key-value store's latest values and segment rows (Kafka's layouts).
//! - [`wal`]: RocksDB's write-ahead log records, scanned for damage before RocksDB replays them.
//! - [`wire`]: what crosses JNI (write batches, offsets, iterator chunks, versioned reads).

pub mod commit_record;
pub mod inspection;
pub mod offsets;
pub mod open_options;
#[doc(hidden)]
pub mod properties;
mod reader;
pub mod segment;
pub mod session_key;
pub mod snapshot_calls;
pub mod snapshot_manifest;
pub mod store_kind;
pub mod temporary;
pub mod ttl;
pub mod value_format;
pub mod versioned;
pub mod wal;
pub mod window_key;
pub mod wire;

/// Bytes that do not follow their format; the message says what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed(pub String);

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Malformed {}

/// A decoder's result.
pub type Decoded<T> = std::result::Result<T, Malformed>;
