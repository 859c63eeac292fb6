//! Native objects behind `jlong` handles, and the conversions every exported function shares.
//!
//! # Safety (for every handle argument)
//! A handle is 0 or a pointer returned by one of the `open`/`newIterator` functions and not yet
//! passed to the matching `close`; the Java owner (`NativeStore`, for a store and the iterators
//! opened on it) serializes close against every other call on the same handle, so the pointer is
//! live for the duration of a call.

use crate::ffi::{invalid, NativeError, NativeResult, RawEnv};
use jni::objects::{JByteArray, JString};
use jni::sys::{jboolean, jbyte, jbyteArray, jlong, jsize};
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

/// A size or count Java holds as `int` or `long`, as Rust's `usize`; a negative one is an
/// `IllegalArgumentException` naming `what` (whether 0 is allowed is the engine's question).
pub(crate) fn size(value: i64, what: &str) -> NativeResult<usize> {
    usize::try_from(value).map_err(|_| invalid(format!("{what} must not be negative, not {value}")))
}

pub(crate) fn flag(b: jboolean) -> bool {
    b != jboolean::default()
}

pub(crate) fn jbool(b: bool) -> jboolean {
    jboolean::from(b)
}

pub(crate) fn optional_bytes(env: &Env<'_>, array: &JByteArray<'_>) -> NativeResult<Option<Vec<u8>>> {
    Ok(RawEnv(env.get_raw()).optional_bytes(array))
}

pub(crate) fn required_bytes(env: &Env<'_>, array: &JByteArray<'_>, what: &str) -> NativeResult<Vec<u8>> {
    RawEnv(env.get_raw()).required_bytes(array, what)
}

/// A Java string argument that must not be null (`what` names it in the error).
pub(crate) fn required_string(env: &mut Env<'_>, value: &JString<'_>, what: &str) -> NativeResult<String> {
    if value.is_null() {
        return Err(invalid(format!("{what} must not be null")));
    }
    Ok(value.try_to_string(env)?)
}

pub(crate) fn to_java<'local>(env: &mut Env<'local>, value: Option<Vec<u8>>) -> NativeResult<JByteArray<'local>> {
    match value {
        Some(value) => new_array(env, &value),
        None => Ok(JByteArray::default()),
    }
}

/// The bytes of a (non-null) Java `byte[]`, with two raw JNI calls. `jni`'s `convert_byte_array`
/// checks for a pending exception before and after each call, a measurable part of a get's time
/// (docs/profiles.md, "Costs behind choices in the code"); here
/// none can be pending (a native method starts without one), `GetArrayLength` never throws, and
/// `GetByteArrayRegion` over the array's own length cannot throw either.
///
/// # Safety
/// `env` is this thread's valid JNIEnv and `array` a valid, non-null reference to a byte[].
unsafe fn copy_raw_array(env: RawEnv, array: jbyteArray) -> Vec<u8> {
    let raw = env.0;
    // SAFETY: the region is exactly the array's length, and the vector has that capacity before
    // its length is set.
    unsafe {
        let interface = *raw;
        let length = ((*interface).v1_1.GetArrayLength)(raw, array);
        let mut bytes: Vec<u8> = Vec::with_capacity(length as usize);
        ((*interface).v1_1.GetByteArrayRegion)(raw, array, 0, length, bytes.as_mut_ptr() as *mut jbyte);
        bytes.set_len(length as usize);
        bytes
    }
}

impl RawEnv {
    /// [`optional_bytes`] for [`crate::ffi::run_raw`]: `array` is the native method's own argument.
    pub(crate) fn optional_bytes(self, array: &JByteArray<'_>) -> Option<Vec<u8>> {
        // SAFETY: `self` is the JNIEnv of the native call `array` was passed to.
        (!array.is_null()).then(|| unsafe { copy_raw_array(self, array.as_raw()) })
    }

    /// [`required_bytes`] for [`crate::ffi::run_raw`].
    pub(crate) fn required_bytes(self, array: &JByteArray<'_>, what: &str) -> NativeResult<Vec<u8>> {
        self.optional_bytes(array).ok_or_else(|| invalid(format!("{what} must not be null")))
    }

    /// [`new_array`] for [`crate::ffi::run_raw`]: a local reference the native method returns.
    pub(crate) fn new_array(self, bytes: &[u8]) -> NativeResult<jbyteArray> {
        let length = jsize::try_from(bytes.len())
            .map_err(|_| invalid(format!("{} bytes do not fit a Java array", bytes.len())))?;
        let raw = self.0;
        // SAFETY: `raw` is this native call's JNIEnv; the new array is `length` long, so the
        // region write cannot throw.
        unsafe {
            let interface = *raw;
            let array = ((*interface).v1_1.NewByteArray)(raw, length);
            if array.is_null() {
                return Err(NativeError::Jni(jni::errors::Error::JavaException));
            }
            ((*interface).v1_1.SetByteArrayRegion)(raw, array, 0, length, bytes.as_ptr() as *const jbyte);
            Ok(array)
        }
    }
}

/// The length of a (non-null) Java `byte[]` (raw JNI: `GetArrayLength` never throws).
pub(crate) fn array_length(env: &Env<'_>, array: &JByteArray<'_>) -> usize {
    let raw = env.get_raw();
    // SAFETY: `raw` is this thread's valid JNIEnv and `array` a valid, non-null local reference.
    unsafe { ((**raw).v1_1.GetArrayLength)(raw, array.as_raw()) as usize }
}

/// Copies `bytes` to the start of a (non-null) Java `byte[]` at least that long (raw JNI: the
/// region lies inside the array, so `SetByteArrayRegion` cannot throw).
pub(crate) fn fill_array(env: &Env<'_>, array: &JByteArray<'_>, bytes: &[u8]) {
    debug_assert!(bytes.len() <= array_length(env, array));
    let raw = env.get_raw();
    // SAFETY: as in `copy_raw_array`; the caller checked that the region fits the array.
    unsafe {
        ((**raw).v1_1.SetByteArrayRegion)(raw, array.as_raw(), 0, bytes.len() as jsize, bytes.as_ptr() as *const jbyte);
    }
}

/// A new Java `byte[]` holding `bytes`, with two raw JNI calls (see [`copy_raw_array`]): only
/// `NewByteArray` can fail (out of memory: it returns null with the exception pending).
pub(crate) fn new_array<'local>(env: &mut Env<'local>, bytes: &[u8]) -> NativeResult<JByteArray<'local>> {
    let array = RawEnv(env.get_raw()).new_array(bytes)?;
    // SAFETY: a new local reference to a byte[] of this env's frame.
    Ok(unsafe { JByteArray::from_raw(env, array) })
}
