//! Exported functions of `NativeStore.java`, what every store kind shares (close, commit, offsets,
//! position, restore, rollback, sizes). The one native object behind a store handle is the
//! engine's [`AnyStore`], which decides where each of them goes for the store's kind.
//!
//! # Safety
//! Every `handle` is a store handle as described in `handles` (0 or live until `close`).

use crate::codec;
use crate::ffi::{invalid, run, NativeResult};
use crate::handles::{borrow, flag, free, into_handle, jbool, optional_bytes, required_bytes, to_java};
use jni::objects::{JByteArray, JClass, JString};
use jni::sys::{jboolean, jlong};
use jni::{Env, EnvUnowned};
use txn_rocksdb::segmented::PutOutcome;
use txn_rocksdb::tuning::Tuning;
use txn_rocksdb::{AnyStore, CorruptionPolicy, StoreOptions, Strategy, ValueFormat, DEFAULT_SPILL_BYTES};

/// Borrows the store behind `handle` (see `handles` for the safety contract).
pub(crate) fn store<'a>(handle: jlong) -> NativeResult<&'a AnyStore> {
    borrow(handle, "store")
}

/// Moves an opened store to the heap and returns its handle.
pub(crate) fn store_handle(store: AnyStore) -> jlong {
    into_handle(store)
}

/// The Java arguments every kind's `open` takes (`OpenOptions` on the Java side).
pub(crate) struct OpenArguments<'a, 'l> {
    pub(crate) path: &'a JString<'l>,
    pub(crate) transactional: jboolean,
    pub(crate) sync_commit: jboolean,
    pub(crate) strategy: &'a JString<'l>,
    pub(crate) corruption: &'a JString<'l>,
    pub(crate) value_format: &'a JString<'l>,
    pub(crate) statistics: jboolean,
    /// The RocksDB options for every store, then this store's own (`txn.rocksdb.options`).
    pub(crate) rocksdb_options: &'a JString<'l>,
    pub(crate) store_rocksdb_options: &'a JString<'l>,
    /// Bytes of a secondary-store transaction kept in memory before they spill to the temporary
    /// store (`txn.rocksdb.secondary.store.spill.bytes`, `StoreOptions::spill_bytes`); >= 0.
    pub(crate) spill_bytes: jlong,
}

/// The directory and options every kind's `open` takes, from its Java arguments.
pub(crate) fn open_options(env: &mut Env<'_>, arguments: OpenArguments<'_, '_>) -> NativeResult<(String, StoreOptions)> {
    let named = |env: &mut Env<'_>, value: &JString<'_>, what: &str| -> NativeResult<String> {
        if value.is_null() {
            return Err(invalid(format!("{what} must not be null")));
        }
        Ok(value.try_to_string(env)?)
    };
    let path = named(env, arguments.path, "store path")?;
    let strategy = Strategy::parse(&named(env, arguments.strategy, "transaction strategy")?)?;
    let corruption = CorruptionPolicy::parse(&named(env, arguments.corruption, "corruption policy")?)?;
    let value_format = named(env, arguments.value_format, "value format")?;
    let value_format = ValueFormat::parse(&value_format).ok_or_else(|| invalid(format!("unknown value format '{value_format}'")))?;
    let every_store = named(env, arguments.rocksdb_options, "RocksDB options")?;
    let this_store = named(env, arguments.store_rocksdb_options, "RocksDB options")?;
    let tuning = Tuning::new(&[&every_store, &this_store])?;
    let spill_bytes = spill_bytes(arguments.spill_bytes)?;
    Ok((
        path,
        StoreOptions {
            transactional: flag(arguments.transactional),
            sync_commit: flag(arguments.sync_commit),
            strategy,
            corruption,
            value_format,
            statistics: flag(arguments.statistics),
            tuning,
            spill_bytes,
        },
    ))
}

/// The spill size Java passed, refused when negative (Java's configuration refuses it first).
fn spill_bytes(value: jlong) -> NativeResult<usize> {
    usize::try_from(value).map_err(|_| {
        invalid(format!(
            "the secondary-store spill size (txn.rocksdb.secondary.store.spill.bytes) must be at least 0 bytes, not {value}"
        ))
    })
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
    run(&mut env, |_| Ok(store(handle)?.key_value().approximate_num_entries()?.min(i64::MAX as u64) as jlong))
}
