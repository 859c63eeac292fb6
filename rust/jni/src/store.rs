//! Exported functions of `NativeStore.java`, what every store kind shares (close, commit, offsets,
//! position, restore, rollback, sizes). The one native object behind a store handle is the
//! engine's [`AnyStore`], which decides where each of them goes for the store's kind.
//!
//! # Safety
//! Every `handle` is a store handle as described in `handles` (0 or live until `close`).

use crate::codec;
use crate::codec::open_options::OpenOptions;
use crate::ffi::{invalid, run, NativeResult};
use crate::handles::{borrow, free, into_handle, jbool, optional_bytes, required_bytes, to_java};
use jni::objects::{JByteArray, JClass, JString};
use jni::sys::{jboolean, jlong};
use jni::{Env, EnvUnowned};
use txn_rocksdb::segmented::PutOutcome;
use txn_rocksdb::{AnyStore, StoreOptions, DEFAULT_SPILL_BYTES};

/// Borrows the store behind `handle` (see `handles` for the safety contract).
pub(crate) fn store<'a>(handle: jlong) -> NativeResult<&'a AnyStore> {
    borrow(handle, "store")
}

/// Moves an opened store to the heap and returns its handle.
pub(crate) fn store_handle(store: AnyStore) -> jlong {
    into_handle(store)
}

/// The directory and options every kind's `open` takes: the store's path and the options record
/// Java's `OpenOptions.encode` wrote (its layout: the format crate's `open_options`; what it
/// means: the engine's `StoreOptions::from_record`). A null argument or a malformed record is an
/// `IllegalArgumentException` naming what was wrong.
pub(crate) fn open_options(
    env: &mut Env<'_>,
    path: &JString<'_>,
    options: &JByteArray<'_>,
) -> NativeResult<(String, StoreOptions)> {
    if path.is_null() {
        return Err(invalid("store path must not be null"));
    }
    let path = path.try_to_string(env)?;
    let bytes = required_bytes(env, options, "open options")?;
    Ok((path, StoreOptions::from_record(&OpenOptions::decode(&bytes)?)?))
}

/// Whether a window or session put was written (false: its segment had expired).
pub(crate) fn written(outcome: PutOutcome) -> jboolean {
    jbool(outcome == PutOutcome::Written)
}

/// The engine's default spill size (`DEFAULT_SPILL_BYTES`), which Java's default of
/// `txn.rocksdb.secondary.store.spill.bytes` must equal (a Java test compares them).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeStore_defaultSpillBytes<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
) -> jlong {
    run(&mut env, |_| Ok(jlong::try_from(DEFAULT_SPILL_BYTES).unwrap_or(jlong::MAX)))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeStore_close<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    run(&mut env, |_| free::<AnyStore>(handle, "store"))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeStore_commit<'l>(
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
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeStore_committedOffsets<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let offsets = store(handle)?.key_value().committed_offsets()?;
        to_java(env, Some(codec::encode_offsets(&offsets)))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeStore_committedPosition<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let position = store(handle)?.key_value().committed_position()?;
        to_java(env, position)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeStore_restore<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    batch: JByteArray<'l>,
) {
    run(&mut env, |env| {
        let batch = required_bytes(env, &batch, "batch")?;
        Ok(store(handle)?.restore(&batch)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeStore_rollback<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    run(&mut env, |_| Ok(store(handle)?.rollback()?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeStore_approximateUncommittedBytes<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(&mut env, |_| Ok(store(handle)?.key_value().approximate_uncommitted_bytes() as jlong))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeStore_approximateNumEntries<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(&mut env, |_| Ok(store(handle)?.approximate_num_entries()?.min(i64::MAX as u64) as jlong))
}
