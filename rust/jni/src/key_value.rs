//! Exported functions of `NativeKeyValueStore.java`: each converts arguments, calls the engine and
//! converts the result. No storage logic lives here. Reads and writes go through the store's
//! key-value face (`AnyStore::key_values`), which applies a time-to-live where the store has one;
//! writes carry their time, which a store without one ignores.
//!
//! # Safety
//! Every `handle` is a store handle as described in `handles` (0 or live until `close`).

use crate::codec;
use crate::ffi::{run, run_raw};
use crate::handles::{flag, new_array, optional_bytes, required_bytes, size, to_java};
use crate::iterator::iter_handle;
use crate::store::{open_options, store, store_handle};
use jni::objects::{JByteArray, JClass, JString};
use jni::sys::{jboolean, jbyteArray, jint, jlong};
use jni::EnvUnowned;
use txn_rocksdb::{AnyStore, Range};

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_open<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    path: JString<'l>,
    options: JByteArray<'l>,
) -> jlong {
    run(&mut env, |env| {
        let (path, options) = open_options(env, &path, &options)?;
        Ok(store_handle(AnyStore::open_key_value(&path, options)?))
    })
}

/// Per record, so through [`run_raw`] (as `put`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_get<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    committed_only: jboolean,
) -> jbyteArray {
    run_raw(&mut env, std::ptr::null_mut(), |env| {
        let key = env.required_bytes(&key, "key")?;
        store(handle)?.key_values().get_with(&key, flag(committed_only), |v| match v {
            Some(v) => env.new_array(v),
            None => Ok(std::ptr::null_mut()),
        })?
    })
}

/// Per record, so through [`run_raw`] (as `get`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_put<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    value: JByteArray<'l>,
    time: jlong,
) {
    run_raw(&mut env, (), |env| {
        let key = env.required_bytes(&key, "key")?;
        let value = env.optional_bytes(&value);
        Ok(store(handle)?.key_values().put_owned(key, value, time)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_putIfAbsent<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    value: JByteArray<'l>,
    time: jlong,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        let value = required_bytes(env, &value, "value")?;
        let existing = store(handle)?.key_values().put_if_absent(&key, &value, time)?;
        to_java(env, existing)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_putAll<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    batch: JByteArray<'l>,
    time: jlong,
) {
    run(&mut env, |env| {
        let batch = required_bytes(env, &batch, "batch")?;
        Ok(store(handle)?.key_values().put_all(codec::decode_batch(&batch)?, time)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_delete<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        let old = store(handle)?.key_values().delete(&key)?;
        to_java(env, old)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_newIterator<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    from: JByteArray<'l>,
    to: JByteArray<'l>,
    to_inclusive: jboolean,
    reverse: jboolean,
    committed_only: jboolean,
) -> jlong {
    run(&mut env, |env| {
        let range = Range {
            from: optional_bytes(env, &from)?,
            to: optional_bytes(env, &to)?,
            to_inclusive: flag(to_inclusive),
            reverse: flag(reverse),
            committed_only: flag(committed_only),
        };
        Ok(iter_handle(store(handle)?.key_values().range(range)?))
    })
}

/// An expiry pass of a store with a time-to-live: the keys it removed and whether more remain, in
/// the layout of the format crate's `wire::encode_expired`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_expire<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    max_rows: jint,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let expired = store(handle)?.ttl()?.expire(size(i64::from(max_rows), "maxRows")?)?;
        new_array(env, &codec::encode_expired(&expired.keys, expired.bytes, expired.more))
    })
}

/// Moves the time of a store with a time-to-live forward (wall-clock time at a commit).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_advanceTime<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    time: jlong,
) {
    run(&mut env, |_| {
        store(handle)?.ttl()?.advance_time(time);
        Ok(())
    })
}
