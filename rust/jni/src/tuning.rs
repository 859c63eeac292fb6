//! Exported functions of `NativeTuning.java`: RocksDB option strings (`txn.rocksdb.options`),
//! checked by the engine (`txn_rocksdb::tuning`); each store's open then takes its own (`store.rs`).

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
