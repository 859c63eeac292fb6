//! Exported functions of `NativeLibrary.java`: settings of the whole process.

use crate::ffi::{invalid, run};
use crate::handles::jbool;
use jni::objects::{JClass, JString};
use jni::sys::{jboolean, jlong};
use jni::EnvUnowned;

/// Sets the memory budget every store shares; false (nothing changed) once a store has opened.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeLibrary_setMemoryBudget<'l>(
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

/// The library's version, the crate's: `NativeLibrary` refuses a library whose version is not its jar's.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeLibrary_nativeVersion<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
) -> JString<'l> {
    run(&mut env, |env| Ok(env.new_string(env!("CARGO_PKG_VERSION"))?))
}
