//! Exported functions of `NativeKeyValueStore.java`: each converts arguments, calls the engine and
//! converts the result. No storage logic lives here.
//!
//! # Safety
//! Every `handle` is a store handle as described in `handles` (0 or live until `close`).

use crate::codec;
use crate::ffi::{run, run_raw};
use crate::handles::{flag, optional_bytes, required_bytes, to_java};
use crate::iterator::iter_handle;
use crate::store::{open_options, store, store_handle};
use jni::objects::{JByteArray, JClass, JString};
use jni::sys::{jboolean, jbyteArray, jlong};
use jni::EnvUnowned;
use txn_rocksdb::{AnyStore, KeyValueStore, Range};

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_open<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    path: JString<'l>,
    options: JByteArray<'l>,
) -> jlong {
    run(&mut env, |env| {
        let (path, options) = open_options(env, &path, &options)?;
        Ok(store_handle(AnyStore::KeyValue(KeyValueStore::open(&path, options)?)))
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
        store(handle)?.key_value().get_with(&key, flag(committed_only), |v| match v {
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
) {
    run_raw(&mut env, (), |env| {
        let key = env.required_bytes(&key, "key")?;
        let value = env.optional_bytes(&value);
        Ok(store(handle)?.key_value().put_owned(key, value)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_putIfAbsent<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    value: JByteArray<'l>,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        let value = required_bytes(env, &value, "value")?;
        let existing = store(handle)?.key_value().put_if_absent(&key, &value)?;
        to_java(env, existing)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_putAll<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    batch: JByteArray<'l>,
) {
    run(&mut env, |env| {
        let batch = required_bytes(env, &batch, "batch")?;
        Ok(store(handle)?.key_value().put_all(codec::decode_batch(&batch)?)?)
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
        let old = store(handle)?.key_value().delete(&key)?;
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
        Ok(iter_handle(store(handle)?.key_value().range(range)?))
    })
}
