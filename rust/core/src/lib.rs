//! The engine of txn-rocksdb: transactional stores over one RocksDB instance per store.
//!
//! Writes are staged in a RocksDB `WriteBatchWithIndex`; reads see them over the committed data;
//! [`TxnDb::commit`] writes the staged batch together with the changelog offsets in one atomic
//! RocksDB write, so after a crash the store holds exactly the last commit (uncommitted writes are
//! never in the database, so "recovery" is simply opening it).
//!
//! This crate has no JNI: everything is testable with `cargo test`.

mod error;
mod iter;
pub mod memory;
mod offsets;
pub mod segmented;
pub mod session;
mod store;
pub mod window;

pub use error::{Error, Result};
pub use iter::{Range, RangeIter};
pub use offsets::{OffsetUpdate, TopicPartition};
pub use store::{StoreOptions, TxnDb, Write};
