//! Exported functions of `NativeLibrary.java`: settings of the whole process.

use crate::ffi::run;
use crate::handles::{jbool, size};
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
        let block_cache = size(block_cache_bytes, "the block cache budget")?;
        let write_buffers = size(write_buffer_bytes, "the write buffer budget")?;
        Ok(jbool(txn_rocksdb::memory::configure(block_cache, write_buffers)?))
    })
}

/// The library's version, the crate's: `NativeLibrary` refuses a library whose version is not its jar's.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_LibraryVersion_nativeVersion<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
) -> JString<'l> {
    run(&mut env, |env| Ok(env.new_string(env!("CARGO_PKG_VERSION"))?))
}
