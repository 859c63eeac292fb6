//! Exported functions of `NativeStoreStatistics.java`: a store's statistics in one call, and their
//! names. (Whether a store collects RocksDB statistics is an option of its `open`.)
//!
//! # Safety
//! Every `handle` is a store handle as described in `handles` (0 or live until `close`).

use crate::ffi::{invalid, run};
use crate::store::store;
use jni::objects::{JClass, JLongArray, JString};
use jni::sys::jlong;
use jni::EnvUnowned;
use txn_rocksdb::stats::Stat;

/// Every statistic of the store (`txn_rocksdb::stats::Stat`'s order), -1 where not collected.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeStoreStatistics_read<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JLongArray<'l> {
    run(&mut env, |env| {
        let values: Vec<jlong> = store(handle)?.key_value().stats();
        let array = env.new_long_array(values.len())?;
        array.set_region(env, 0, &values)?;
        Ok(array)
    })
}

/// The statistics' names in array order, separated by commas (the Java side checks its own list).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeStoreStatistics_names<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
) -> JString<'l> {
    run(&mut env, |env| {
        let names: Vec<&str> = Stat::ALL.iter().map(|stat| stat.name()).collect();
        env.new_string(names.join(",")).map_err(|e| invalid(format!("cannot return the statistics' names: {e}")))
    })
}
