//! Exported functions of `NativeStoreInspection.java`: what the operators' tool reads from a
//! store's directory without opening the store (the engine's `inspect` module), answered as the
//! format crate's `inspection` records. No handle: each call opens a read-only view of the files
//! and drops it before it returns.

use crate::ffi::run;
use crate::handles::{optional_bytes, required_string, size, to_java};
use jni::objects::{JByteArray, JClass, JString};
use jni::sys::jint;
use jni::EnvUnowned;
use std::path::Path;
use txn_rocksdb::inspect;

/// The facts of the store in `store_dir` (a `StoreFacts` record).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeStoreInspection_facts0<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    store_dir: JString<'l>,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let dir = required_string(env, &store_dir, "store directory")?;
        to_java(env, Some(inspect::facts(Path::new(&dir))?.encode()))
    })
}

/// The check of every file of the store in `store_dir` (a `Verification` record).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeStoreInspection_verify0<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    store_dir: JString<'l>,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let dir = required_string(env, &store_dir, "store directory")?;
        to_java(env, Some(inspect::verify(Path::new(&dir))?.encode()))
    })
}

/// Committed entries of the store in `store_dir` (a `DumpChunk` record): keys from `from` to `to`
/// (null: unbounded), from `resume` (null: the start), at most `max_entries`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeStoreInspection_dump0<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    store_dir: JString<'l>,
    from: JByteArray<'l>,
    to: JByteArray<'l>,
    resume: JByteArray<'l>,
    max_entries: jint,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let dir = required_string(env, &store_dir, "store directory")?;
        let (from, to, resume) =
            (optional_bytes(env, &from)?, optional_bytes(env, &to)?, optional_bytes(env, &resume)?);
        let max_entries = size(i64::from(max_entries), "maxEntries")?;
        let chunk = inspect::dump(Path::new(&dir), from.as_deref(), to.as_deref(), resume.as_deref(), max_entries)?;
        to_java(env, Some(chunk.encode()))
    })
}
