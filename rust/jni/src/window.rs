//! Exported functions of `NativeWindowStore.java`. What every store kind shares (commit, offsets,
//! restore, close) is in `store`; iterators are read through `iterator`.
//!
//! # Safety
//! Every `handle` is a store handle as described in `handles` (0 or live until `close`).

use crate::ffi::run;
use crate::handles::{flag, optional_bytes, required_bytes, to_java};
use crate::iterator::iter_handle;
use crate::store::{open_options, store, store_handle, written};
use jni::objects::{JByteArray, JClass, JString};
use jni::sys::{jboolean, jint, jlong};
use jni::EnvUnowned;
use txn_rocksdb::segmented::{RetentionEdge, SegmentOptions};
use txn_rocksdb::window::WindowQuery;
use txn_rocksdb::AnyStore;

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeWindowStore_open<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    path: JString<'l>,
    options: JByteArray<'l>,
    retention_ms: jlong,
    segment_interval_ms: jlong,
    retention_edge_included: jboolean,
) -> jlong {
    run(&mut env, |env| {
        let (path, options) = open_options(env, &path, &options)?;
        let geometry = SegmentOptions { retention_ms, segment_interval_ms };
        let edge = if flag(retention_edge_included) { RetentionEdge::Included } else { RetentionEdge::Excluded };
        Ok(store_handle(AnyStore::open_window(&path, options, geometry, edge)?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeWindowStore_put<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    window_start: jlong,
    seq: jint,
    value: JByteArray<'l>,
) -> jboolean {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        let value = optional_bytes(env, &value)?;
        Ok(written(store(handle)?.window()?.put(&key, window_start, seq, value.as_deref())?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeWindowStore_fetch<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    window_start: jlong,
    seq: jint,
    committed_only: jboolean,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        let value = store(handle)?.window()?.fetch(&key, window_start, seq, flag(committed_only))?;
        to_java(env, value)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeWindowStore_newIterator<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key_from: JByteArray<'l>,
    key_to: JByteArray<'l>,
    time_from: jlong,
    time_to: jlong,
    reverse: jboolean,
    committed_only: jboolean,
) -> jlong {
    run(&mut env, |env| {
        let query = WindowQuery {
            key_from: optional_bytes(env, &key_from)?,
            key_to: optional_bytes(env, &key_to)?,
            time_from,
            time_to,
            reverse: flag(reverse),
            committed_only: flag(committed_only),
        };
        Ok(iter_handle(store(handle)?.window()?.fetch_range(query)))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeWindowStore_streamTime<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(&mut env, |_| Ok(store(handle)?.window()?.segments().stream_time()))
}
