//! Native objects behind `jlong` handles, and the conversions every exported function shares.
//!
//! # Safety (for every handle argument)
//! A handle is 0 or a pointer returned by one of the `open`/`newIterator` functions and not yet
//! passed to the matching `close`; the Java owner (`NativeStore`, for a store and the iterators
//! opened on it) serializes close against every other call on the same handle, so the pointer is
//! live for the duration of a call.

use crate::ffi::{invalid, NativeError, NativeResult};
use jni::objects::JByteArray;
use jni::sys::{jboolean, jlong};
use jni::Env;
use txn_rocksdb::Error as CoreError;

/// Moves `value` to the heap and returns its handle.
pub(crate) fn into_handle<T>(value: T) -> jlong {
    Box::into_raw(Box::new(value)) as jlong
}

/// Borrows the object behind `handle` (see the module's safety note).
pub(crate) fn borrow<'a, T>(handle: jlong, what: &str) -> NativeResult<&'a T> {
    if handle == 0 {
        return Err(NativeError::Core(CoreError::Closed(format!("{what} is closed"))));
    }
    // SAFETY: see the module's safety note.
    Ok(unsafe { &*(handle as *const T) })
}

/// Frees the object behind `handle`; Java calls this exactly once per handle.
pub(crate) fn free<T>(handle: jlong, what: &str) -> NativeResult<()> {
    borrow::<T>(handle, what)?;
    // SAFETY: `handle` came from `into_handle::<T>` and is freed exactly once (module note).
    drop(unsafe { Box::from_raw(handle as *mut T) });
    Ok(())
}

pub(crate) fn flag(b: jboolean) -> bool {
    b != jboolean::default()
}

pub(crate) fn jbool(b: bool) -> jboolean {
    jboolean::from(b)
}

pub(crate) fn optional_bytes(env: &Env<'_>, array: &JByteArray<'_>) -> NativeResult<Option<Vec<u8>>> {
    if array.is_null() {
        return Ok(None);
    }
    Ok(Some(env.convert_byte_array(array)?))
}

pub(crate) fn required_bytes(env: &Env<'_>, array: &JByteArray<'_>, what: &str) -> NativeResult<Vec<u8>> {
    optional_bytes(env, array)?.ok_or_else(|| invalid(format!("{what} must not be null")))
}

pub(crate) fn to_java<'local>(env: &mut Env<'local>, value: Option<Vec<u8>>) -> NativeResult<JByteArray<'local>> {
    match value {
        Some(v) => Ok(env.byte_array_from_slice(&v)?),
        None => Ok(JByteArray::default()),
    }
}
