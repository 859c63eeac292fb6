//! Native objects behind `jlong` handles, and the conversions every exported function shares.
//!
//! # Safety (for every handle argument)
//! A handle is 0 or a pointer returned by one of the `open`/`newIterator` functions and not yet
//! passed to the matching `close`; the Java owner (`NativeStoreHandle`) serializes close against
//! every other call on the same handle, so the pointer is live for the duration of a call.

use crate::ffi::{invalid, NativeError, NativeResult};
use jni::objects::JByteArray;
use jni::sys::{jboolean, jlong};
use jni::Env;
use std::sync::Mutex;
use txn_rocksdb::segmented::FilteredIter;
use txn_rocksdb::{Error as CoreError, RangeIter};

/// Any iterator that hands out entries in chunks; every iterator handle is a
/// `Box<Mutex<Box<dyn Chunked>>>`, so one `iteratorNext`/`iteratorClose` serves all stores.
pub(crate) trait Chunked: Send {
    fn next_chunk(&mut self, max_entries: usize, max_bytes: usize, emit: &mut dyn FnMut(&[u8], &[u8])) -> txn_rocksdb::Result<usize>;
}

impl Chunked for RangeIter {
    fn next_chunk(&mut self, n: usize, b: usize, emit: &mut dyn FnMut(&[u8], &[u8])) -> txn_rocksdb::Result<usize> {
        RangeIter::next_chunk(self, n, b, emit)
    }
}

/// Window and session iterators (`WindowIter` and `SessionIter` are this type).
impl Chunked for FilteredIter {
    fn next_chunk(&mut self, n: usize, b: usize, emit: &mut dyn FnMut(&[u8], &[u8])) -> txn_rocksdb::Result<usize> {
        FilteredIter::next_chunk(self, n, b, emit)
    }
}

pub(crate) type IterHandle = Mutex<Box<dyn Chunked>>;

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

pub(crate) fn iter_handle(it: impl Chunked + 'static) -> jlong {
    into_handle::<IterHandle>(Mutex::new(Box::new(it)))
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
