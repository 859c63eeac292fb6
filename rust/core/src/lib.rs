//! The engine of txn-rocksdb: transactional stores over one RocksDB instance per store.
//!
//! Two transaction strategies ([`Strategy`]): writes are staged in a RocksDB `WriteBatchWithIndex`
//! and [`KeyValueStore::commit`] writes them together with the changelog offsets in one atomic RocksDB
//! write; or (KIP-844's reference design) they go to a temporary store on disk and a commit copies
//! them into the main store behind a commit file that recovery rolls forward. Either way, after a
//! crash the store holds exactly the last commit.
//!
//! This crate has no JNI: everything is testable with `cargo test`.

mod commit_file;
mod error;
pub mod fault;
mod iter;
pub mod memory;
mod offsets;
mod secondary;
pub mod segmented;
pub mod session;
mod store;
pub mod window;

pub use error::{Error, Result};
pub use iter::{Range, RangeIter};
pub use offsets::{OffsetUpdate, TopicPartition};
pub use store::{StoreOptions, Strategy, KeyValueStore, Write};
