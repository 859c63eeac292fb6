//! The JNI boundary of txn-rocksdb: thin exported functions over the `txn-rocksdb` core.
//!
//! One module per Java class that declares natives, with matching names: `store` ↔
//! `NativeStore` (what every store kind shares), `key_value` ↔ `NativeKeyValueStore`, `window`
//! ↔ `NativeWindowStore`, `session` ↔ `NativeSessionStore`, `versioned` ↔ `NativeVersionedStore`, `iterator` ↔ `NativeIterator`,
//! `library` ↔ `NativeLibrary`, `logging` ↔ `NativeLogging`, `statistics` ↔ `NativeStoreStatistics`, `tuning` ↔ `NativeTuning`, `snapshot_location` ↔ `NativeSnapshotLocation`, `inspection` ↔ `NativeStoreInspection`. Every exported function (grep `Java_dev_txnrocksdb_`) converts its
//! arguments, calls the engine and converts the result, inside [`ffi::run`], which catches panics
//! and turns every error into a specific Java exception, so nothing unwinds into the JVM.
//!
//! An open store is ONE owned handle: a boxed [`txn_rocksdb::AnyStore`] in a `jlong`; an iterator is a
//! boxed [`iterator::IterHandle`]. The Java owner (`NativeStore`) guarantees that a handle is freed
//! exactly once and never used afterwards (see `handles` for the safety contract).

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod codec;
mod ffi;
mod handles;
mod inspection;
mod iterator;
mod key_value;
mod library;
mod logging;
mod session;
mod snapshot_location;
mod statistics;
mod store;
mod tuning;
mod versioned;
mod window;
