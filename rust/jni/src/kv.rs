//! Exported functions of `NativeKeyValueStore.java`: each converts arguments, calls the core and
//! converts the result. No storage logic lives here.

use crate::codec;
use crate::ffi::{invalid, run, NativeResult};
use crate::handles::{
    borrow, flag, free, into_handle, iter_handle, jbool, optional_bytes, required_bytes, to_java, IterHandle,
};
use jni::objects::{JByteArray, JClass, JString};
use jni::sys::{jboolean, jint, jlong};
use jni::EnvUnowned;
use txn_rocksdb::{Range, StoreOptions, Strategy, KeyValueStore};

fn store<'a>(handle: jlong) -> NativeResult<&'a KeyValueStore> {
    borrow(handle, "store")
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_open<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    path: JString<'l>,
    transactional: jboolean,
    sync_commit: jboolean,
    strategy: JString<'l>,
) -> jlong {
    run(&mut env, |env| {
        let (path, options) = open_args(env, &path, transactional, sync_commit, &strategy)?;
        Ok(into_handle(KeyValueStore::open(&path, options)?))
    })
}

/// The directory and options of a store to open, from `open`'s Java arguments.
pub(crate) fn open_args(
    env: &mut jni::Env<'_>,
    path: &JString<'_>,
    transactional: jboolean,
    sync_commit: jboolean,
    strategy: &JString<'_>,
) -> NativeResult<(String, StoreOptions)> {
    if path.is_null() {
        return Err(invalid("store path must not be null"));
    }
    if strategy.is_null() {
        return Err(invalid("transaction strategy must not be null"));
    }
    let path = path.try_to_string(env)?;
    let strategy = Strategy::parse(&strategy.try_to_string(env)?)?;
    Ok((path, StoreOptions { transactional: flag(transactional), sync_commit: flag(sync_commit), strategy }))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_close<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    run(&mut env, |_| free::<KeyValueStore>(handle, "store"))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_configureMemory<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    block_cache_bytes: jlong,
    write_buffer_bytes: jlong,
) -> jboolean {
    run(&mut env, |_| {
        if block_cache_bytes <= 0 || write_buffer_bytes <= 0 {
            return Err(invalid(format!(
                "memory budgets must be positive, got block cache {block_cache_bytes} and write buffers {write_buffer_bytes}"
            )));
        }
        Ok(jbool(txn_rocksdb::memory::configure(block_cache_bytes as usize, write_buffer_bytes as usize)))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_get<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    committed_only: jboolean,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        store(handle)?.get_with(&key, flag(committed_only), |v| match v {
            Some(v) => Ok(env.byte_array_from_slice(v)?),
            None => Ok(JByteArray::default()),
        })?
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_put<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
    value: JByteArray<'l>,
) {
    run(&mut env, |env| {
        let key = required_bytes(env, &key, "key")?;
        let value = optional_bytes(env, &value)?;
        Ok(store(handle)?.put(&key, value.as_deref())?)
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
        let existing = store(handle)?.put_if_absent(&key, &value)?;
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
        let buf = required_bytes(env, &batch, "batch")?;
        Ok(store(handle)?.put_all(codec::decode_batch(&buf)?)?)
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
        let old = store(handle)?.delete(&key)?;
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
        Ok(iter_handle(store(handle)?.range(range)?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_iteratorNext<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    max_entries: jint,
    max_bytes: jint,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        if max_entries <= 0 || max_bytes <= 0 {
            return Err(invalid(format!("chunk limits must be positive, got {max_entries} entries / {max_bytes} bytes")));
        }
        let mut it = borrow::<IterHandle>(handle, "iterator")?.lock().unwrap_or_else(|e| e.into_inner());
        let mut chunk = Vec::new();
        let n = it.next_chunk(max_entries as usize, max_bytes as usize, &mut |k, v| codec::push_entry(&mut chunk, k, v))?;
        to_java(env, (n > 0).then_some(chunk))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_iteratorClose<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    run(&mut env, |_| free::<IterHandle>(handle, "iterator"))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_commit<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    offsets: JByteArray<'l>,
    position: JByteArray<'l>,
) {
    run(&mut env, |env| {
        let offsets = required_bytes(env, &offsets, "offsets")?;
        let updates = codec::decode_offset_updates(&offsets)?;
        let position = optional_bytes(env, &position)?;
        Ok(store(handle)?.commit(&updates, position.as_deref())?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_committedOffsets<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let offsets = store(handle)?.committed_offsets()?;
        to_java(env, Some(codec::encode_offsets(&offsets)))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_committedPosition<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let position = store(handle)?.committed_position()?;
        to_java(env, position)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_restore<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    batch: JByteArray<'l>,
) {
    run(&mut env, |env| {
        let buf = required_bytes(env, &batch, "batch")?;
        Ok(store(handle)?.restore(codec::decode_batch(&buf)?)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_rollback<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    run(&mut env, |_| Ok(store(handle)?.rollback()?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_approximateUncommittedBytes<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(&mut env, |_| Ok(store(handle)?.approximate_uncommitted_bytes() as jlong))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeKeyValueStore_approximateNumEntries<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(&mut env, |_| Ok(store(handle)?.approximate_num_entries()?.min(i64::MAX as u64) as jlong))
}
