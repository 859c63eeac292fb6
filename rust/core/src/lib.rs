//! The engine of txn-rocksdb: transactional stores over one RocksDB instance per store.
//!
//! Two transaction strategies ([`Strategy`]): writes are staged in memory, in an ordered map,
//! and [`KeyValueStore::commit`] writes them together with the changelog offsets in one atomic
//! RocksDB write; or (KIP-844's reference design) they go to a temporary store on disk and a
//! commit copies them into the main store behind a commit record that recovery rolls forward. Either
//! way, after a crash the store holds exactly the last commit.
//!
//! Modules, bottom up: `options` (the RocksDB options and column families a store opens with,
//! the user's `tuning` over them), `offsets` (the offsets family), `row_layout` (plain rows or a
//! time-to-live's), `corruption` (damaged files:
//! the policy, the write-ahead log's checks), `db` (the RocksDB instance), `iter` (chunked range
//! walks), the strategies behind `staging` (`direct`, `indexed`, `secondary`), `changelog_restore` (a changelog restore by
//! ingestion), `store` (the key-value store, which picks one at open), `segmented` with `window` and `session` on top of
//! it, `versioned` (Kafka's versioned key-value store) and `ttl` (a key-value store whose keys expire)
//! on the key-value store, and `any_store`
//! ([`AnyStore`]: any of those kinds, chosen at open, where commit, rollback and restore go), and
//! on top `snapshot` (a store's snapshots in object storage: taken from a checkpoint between two
//! commits, restored into an empty directory, retained).
//!
//! This crate has no JNI: everything is testable with `cargo test`.

mod any_store;
mod batch;
mod changelog_restore;
mod corruption;
mod db;
mod direct;
mod durable;
mod error;
pub mod fault;
mod indexed;
pub mod inspect;
mod iter;
pub mod memory;
mod offsets;
mod options;
mod row_layout;
mod secondary;
pub mod segmented;
pub mod session;
pub mod snapshot;
mod staging;
pub mod stats;
mod store;
mod store_kind;
pub mod ttl;
pub mod tuning;
mod value_format;
pub mod versioned;
pub mod window;

pub use any_store::{AnyStore, KeyValues};
pub use corruption::CorruptionPolicy;
pub use db::Write;
pub use error::{Cause, Error, ErrorKind, Report, Result};
pub use iter::{Range, RangeIter};
pub use offsets::{OffsetUpdate, TopicPartition};
pub use row_layout::RowLayout;
pub use store::{KeyValueStore, StoreOptions, Strategy, DEFAULT_SPILL_BYTES};
pub use store_kind::StoreKind;
pub use value_format::ValueFormat;
