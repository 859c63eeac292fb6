//! Exported functions of `NativeWindowStore.java` and `NativeSessionStore.java`. Commit, offsets,
//! rollback and sizes go through `NativeKeyValueStore`'s functions on the store's engine, whose
//! borrowed pointer `txnDb` returns; iterators use `NativeKeyValueStore.iteratorNext/Close`.

use crate::codec;
use crate::ffi::{invalid, run, NativeResult};
use crate::handles::{borrow, flag, free, into_handle, iter_handle, jbool, optional_bytes, required_bytes, to_java};
use jni::objects::{JByteArray, JClass, JString};
use jni::sys::{jboolean, jint, jlong};
use jni::{Env, EnvUnowned};
use txn_rocksdb::segmented::{PutOutcome, SegmentOptions, SegmentedStore};
use txn_rocksdb::session::{self, SessionStore, SessionQuery};
use txn_rocksdb::window::{self, WindowStore, WindowQuery};
use txn_rocksdb::{StoreOptions, KeyValueStore};

fn window_store<'a>(handle: jlong) -> NativeResult<&'a WindowStore> {
    borrow(handle, "window store")
}

fn session_store<'a>(handle: jlong) -> NativeResult<&'a SessionStore> {
    borrow(handle, "session store")
}

#[allow(clippy::too_many_arguments)]
fn open_args(
    env: &mut Env<'_>,
    path: &JString<'_>,
    transactional: jboolean,
    sync_commit: jboolean,
    strategy: &JString<'_>,
    retention: jlong,
    interval: jlong,
) -> NativeResult<(String, StoreOptions, SegmentOptions)> {
    let (path, options) = crate::kv::open_args(env, path, transactional, sync_commit, strategy)?;
    Ok((path, options, SegmentOptions { retention_ms: retention, segment_interval_ms: interval }))
}

/// The engine of a segmented store, as a borrowed pointer for `NativeKeyValueStore`'s shared
/// functions. Valid until the owning store is closed; never passed to `NativeKeyValueStore.close`.
fn engine(seg: &SegmentedStore) -> jlong {
    seg.key_value() as *const KeyValueStore as jlong
}

/// Decodes a restore batch of store keys and hands each record's segment timestamp along.
fn restore_with(seg: &SegmentedStore, batch: &[u8], segment_ts: impl Fn(&[u8]) -> Option<i64>) -> NativeResult<()> {
    let entries = codec::decode_batch(batch)?;
    let mut records = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        let ts = segment_ts(k).ok_or_else(|| invalid(format!("changelog key of {} bytes is too short for this store", k.len())))?;
        records.push((ts, k, v));
    }
    Ok(seg.restore(&records)?)
}

// ---- window store ----

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeWindowStore_open<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    path: JString<'l>,
    transactional: jboolean,
    sync_commit: jboolean,
    strategy: JString<'l>,
    retention_ms: jlong,
    segment_interval_ms: jlong,
) -> jlong {
    run(&mut env, |env| {
        let (path, options, geometry) =
            open_args(env, &path, transactional, sync_commit, &strategy, retention_ms, segment_interval_ms)?;
        Ok(into_handle(WindowStore::open(&path, options, geometry)?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeWindowStore_close<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    run(&mut env, |_| free::<WindowStore>(handle, "window store"))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeWindowStore_engine<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(&mut env, |_| Ok(engine(window_store(handle)?.segments())))
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
        let outcome = window_store(handle)?.put(&key, window_start, seq, value.as_deref())?;
        Ok(jbool(outcome == PutOutcome::Written))
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
        let value = window_store(handle)?.fetch(&key, window_start, seq, flag(committed_only))?;
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
        Ok(iter_handle(window_store(handle)?.fetch_range(query)))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeWindowStore_restore<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    batch: JByteArray<'l>,
) {
    run(&mut env, |env| {
        let batch = required_bytes(env, &batch, "batch")?;
        restore_with(window_store(handle)?.segments(), &batch, |k| window::split_store_key(k).map(|(_, start, _)| start))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeWindowStore_streamTime<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(&mut env, |_| Ok(window_store(handle)?.segments().stream_time()))
}

// ---- session store ----

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSessionStore_open<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    path: JString<'l>,
    transactional: jboolean,
    sync_commit: jboolean,
    strategy: JString<'l>,
    retention_ms: jlong,
    segment_interval_ms: jlong,
) -> jlong {
    run(&mut env, |env| {
        let (path, options, geometry) =
            open_args(env, &path, transactional, sync_commit, &strategy, retention_ms, segment_interval_ms)?;
        Ok(into_handle(SessionStore::open(&path, options, geometry)?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSessionStore_close<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    run(&mut env, |_| free::<SessionStore>(handle, "session store"))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSessionStore_engine<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(&mut env, |_| Ok(engine(session_store(handle)?.segments())))
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
        let outcome = session_store(handle)?.put(&key, start, end, value.as_deref())?;
        Ok(jbool(outcome == PutOutcome::Written))
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
        Ok(session_store(handle)?.remove(&key, start, end)?)
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
        let value = session_store(handle)?.fetch_session(&key, start, end, flag(committed_only))?;
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
        Ok(iter_handle(session_store(handle)?.find_sessions(query)))
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
    run(&mut env, |_| Ok(iter_handle(session_store(handle)?.find_by_end(earliest_end, latest_end, flag(committed_only)))))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSessionStore_streamTime<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(&mut env, |_| Ok(session_store(handle)?.segments().stream_time()))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSessionStore_restore<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    batch: JByteArray<'l>,
) {
    run(&mut env, |env| {
        let batch = required_bytes(env, &batch, "batch")?;
        restore_with(session_store(handle)?.segments(), &batch, |k| session::split_store_key(k).map(|(_, _, end)| end))
    })
}
