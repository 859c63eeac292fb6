//! Exported functions of `NativeSessionStore.java`. What every store kind shares (commit, offsets,
//! restore, close) is in `store`; iterators are read through `iterator`.
//!
//! # Safety
//! Every `handle` is a store handle as described in `handles` (0 or live until `close`).

use crate::ffi::run;
use crate::handles::{flag, optional_bytes, required_bytes, to_java};
use crate::iterator::iter_handle;
use crate::store::{open_options, store, store_handle, written};
use jni::objects::{JByteArray, JClass, JString};
use jni::sys::{jboolean, jlong};
use jni::EnvUnowned;
use txn_rocksdb::segmented::SegmentOptions;
use txn_rocksdb::session::SessionQuery;
use txn_rocksdb::AnyStore;

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSessionStore_open<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    path: JString<'l>,
    options: JByteArray<'l>,
    retention_ms: jlong,
    segment_interval_ms: jlong,
) -> jlong {
    run(&mut env, |env| {
        let (path, options) = open_options(env, &path, &options)?;
        let geometry = SegmentOptions { retention_ms, segment_interval_ms };
        Ok(store_handle(AnyStore::open_session(&path, options, geometry)?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSessionStore_put<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    start: jlong,
    end: jlong,
    value: JByteArray<'l>,
) -> jboolean {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        let value = optional_bytes(env, &value)?;
        Ok(written(store(handle)?.session()?.put(&key, start, end, value.as_deref())?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSessionStore_remove<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    start: jlong,
    end: jlong,
) {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        Ok(store(handle)?.session()?.remove(&key, start, end)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSessionStore_fetchSession<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    start: jlong,
    end: jlong,
    committed_only: jboolean,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        let value = store(handle)?.session()?.fetch_session(&key, start, end, flag(committed_only))?;
        to_java(env, value)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSessionStore_newIterator<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key_from: JByteArray<'l>,
    key_to: JByteArray<'l>,
    earliest_end: jlong,
    latest_start: jlong,
    reverse: jboolean,
    committed_only: jboolean,
) -> jlong {
    run(&mut env, |env| {
        let query = SessionQuery {
            key_from: optional_bytes(env, &key_from)?,
            key_to: optional_bytes(env, &key_to)?,
            earliest_end,
            latest_start,
            reverse: flag(reverse),
            committed_only: flag(committed_only),
        };
        Ok(iter_handle(store(handle)?.session()?.find_sessions(query)))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSessionStore_newTimeRangeIterator<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    earliest_end: jlong,
    latest_end: jlong,
    committed_only: jboolean,
) -> jlong {
    run(&mut env, |_| {
        let sessions = store(handle)?.session()?.find_by_end(earliest_end, latest_end, flag(committed_only));
        Ok(iter_handle(sessions))
    })
}
