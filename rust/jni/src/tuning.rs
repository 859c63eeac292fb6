//! Exported functions of `NativeTuning.java`: RocksDB option strings (`txn.rocksdb.options`),
//! checked and registered by the engine (`txn_rocksdb::tuning`).

use crate::ffi::{invalid, run, NativeResult};
use jni::objects::{JClass, JString};
use jni::{Env, EnvUnowned};

fn text(env: &mut Env<'_>, value: &JString<'_>, what: &str) -> NativeResult<String> {
    if value.is_null() {
        return Err(invalid(format!("{what} must not be null")));
    }
    Ok(value.try_to_string(env)?)
}

/// Checks an option string as a store's open would (IllegalArgumentException with the reason).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeTuning_validate<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    options: JString<'l>,
) {
    run(&mut env, |env| {
        let options = text(env, &options, "RocksDB options")?;
        Ok(txn_rocksdb::tuning::validate(&options)?)
    })
}

/// Registers the option strings (all stores' first, then the store's own) for the stores named
/// `storeName` that open from now on.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeTuning_setForStore<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    store_name: JString<'l>,
    every_store: JString<'l>,
    this_store: JString<'l>,
) {
    run(&mut env, |env| {
        let name = text(env, &store_name, "store name")?;
        let every_store = text(env, &every_store, "RocksDB options")?;
        let this_store = text(env, &this_store, "RocksDB options")?;
        Ok(txn_rocksdb::tuning::set_for_store(&name, &[&every_store, &this_store])?)
    })
}
