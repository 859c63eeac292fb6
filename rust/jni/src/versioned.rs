//! Exported functions of `NativeVersionedStore.java`: each converts arguments, calls the engine's
//! versioned store and converts the result. No storage logic lives here.
//!
//! Reads return the versions found as `codec::push_versioned_record` entries (null for none); a
//! delete returns null when it was not put (older than the grace period), else the version it
//! ended (empty when none).
//!
//! # Safety
//! Every `handle` is a store handle as described in `handles` (0 or live until `close`).

use crate::codec;
use crate::ffi::run;
use crate::handles::{flag, optional_bytes, required_bytes, to_java};
use crate::store::{open_options, store, store_handle};
use jni::objects::{JByteArray, JClass, JString};
use jni::sys::{jboolean, jlong};
use jni::EnvUnowned;
use txn_rocksdb::versioned::{VersionedDelete, VersionedOptions, VersionedRecord};
use txn_rocksdb::AnyStore;

/// The records as `NativeVersionedStore` decodes them; `None` when there are none.
fn encode(records: impl IntoIterator<Item = VersionedRecord>) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut any = false;
    for record in records {
        codec::push_versioned_record(&mut out, &record.value, record.timestamp, record.valid_to);
        any = true;
    }
    any.then_some(out)
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeVersionedStore_open<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    path: JString<'l>,
    options: JByteArray<'l>,
    history_retention_ms: jlong,
    segment_interval_ms: jlong,
) -> jlong {
    run(&mut env, |env| {
        let (path, options) = open_options(env, &path, &options)?;
        let geometry = VersionedOptions { history_retention_ms, segment_interval_ms };
        Ok(store_handle(AnyStore::open_versioned(&path, options, geometry)?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeVersionedStore_put<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    value: JByteArray<'l>,
    timestamp: jlong,
) -> jlong {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        let value = optional_bytes(env, &value)?;
        Ok(store(handle)?.versioned()?.put(&key, value.as_deref(), timestamp)?.kafka_code())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeVersionedStore_delete<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    timestamp: jlong,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        // null: not put (older than the grace period); empty: put, nothing ended; else the version ended
        let deleted = match store(handle)?.versioned()?.delete(&key, timestamp)? {
            VersionedDelete::NotPut => None,
            VersionedDelete::Deleted(ended) => Some(encode(ended).unwrap_or_default()),
        };
        to_java(env, deleted)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeVersionedStore_get<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    committed_only: jboolean,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        let latest = store(handle)?.versioned()?.get(&key, flag(committed_only))?;
        to_java(env, encode(latest))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeVersionedStore_getAsOf<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    as_of: jlong,
    committed_only: jboolean,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        let found = store(handle)?.versioned()?.get_as_of(&key, as_of, flag(committed_only))?;
        to_java(env, encode(found))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeVersionedStore_versions<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    from: jlong,
    to: jlong,
    ascending: jboolean,
    committed_only: jboolean,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        let found = store(handle)?.versioned()?.versions(&key, from, to, flag(ascending), flag(committed_only))?;
        to_java(env, encode(found))
    })
}
