//! The JNI boundary of txn-rocksdb: thin exported functions over the `txn-rocksdb` core.
//!
//! Every exported function (grep `Java_dev_txnrocksdb_`) runs its body through
//! [`ffi::run`], which catches panics and turns every error into a specific Java exception,
//! so nothing unwinds into the JVM. Handles are `Box` pointers passed as `jlong`; the Java side
//! (`NativeStoreHandle`) guarantees a handle is freed exactly once and never used afterwards.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod codec;
mod ffi;
mod handles;
mod kv;
mod segmented;
