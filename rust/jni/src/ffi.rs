//! One wrapper for every native call: panics are caught, errors become Java exceptions chosen by
//! the error's kind (never by its text).

use jni::errors::ErrorPolicy;
use jni::strings::JNIString;
use jni::{jni_str, Env, EnvUnowned};
use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use txn_rocksdb::{Error as CoreError, ErrorKind};

const STORAGE_EXCEPTION: &jni::strings::JNIStr = jni_str!("org/apache/kafka/streams/errors/ProcessorStateException");
const CLOSED_EXCEPTION: &jni::strings::JNIStr = jni_str!("org/apache/kafka/streams/errors/InvalidStateStoreException");
const ARGUMENT_EXCEPTION: &jni::strings::JNIStr = jni_str!("java/lang/IllegalArgumentException");

/// An error inside a native call: from the engine, or from JNI itself.
#[derive(Debug)]
pub(crate) enum NativeError {
    Core(CoreError),
    Jni(jni::errors::Error),
}

impl From<CoreError> for NativeError {
    fn from(e: CoreError) -> Self {
        NativeError::Core(e)
    }
}

impl From<txn_rocksdb_format::Malformed> for NativeError {
    fn from(e: txn_rocksdb_format::Malformed) -> Self {
        invalid(e.0)
    }
}

impl From<jni::errors::Error> for NativeError {
    fn from(e: jni::errors::Error) -> Self {
        NativeError::Jni(e)
    }
}

pub(crate) type NativeResult<T> = Result<T, NativeError>;

pub(crate) fn invalid(msg: impl Into<String>) -> NativeError {
    NativeError::Core(CoreError::InvalidArgument(msg.into()))
}

/// Throws the Java exception for each kind of error, returns `T::default()` to the JVM.
pub(crate) struct ThrowJava;

fn throw(env: &mut Env<'_>, class: &jni::strings::JNIStr, msg: String) -> jni::errors::Result<()> {
    match env.throw((class, JNIString::from(msg))) {
        Err(jni::errors::Error::JavaException) | Ok(()) => Ok(()),
        Err(e) => Err(e),
    }
}

impl<T: Default> ErrorPolicy<T, NativeError> for ThrowJava {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        err: NativeError,
    ) -> jni::errors::Result<T> {
        if env.exception_check() {
            return Ok(T::default()); // a Java exception is already on its way
        }
        match err {
            NativeError::Core(e) => {
                let message = e.report().to_string();
                match e.kind() {
                    ErrorKind::InvalidArgument => throw(env, ARGUMENT_EXCEPTION, message)?,
                    ErrorKind::Closed => throw(env, CLOSED_EXCEPTION, message)?,
                    ErrorKind::CorruptedWal => throw(
                        env,
                        STORAGE_EXCEPTION,
                        format!("{message}. To open it there, set txn.rocksdb.wal.corruption=recover; or restore the directory from a backup"),
                    )?,
                    ErrorKind::Damaged => throw(
                        env,
                        STORAGE_EXCEPTION,
                        format!(
                            "{message}. txn.rocksdb.wal.corruption=recover-if-changelogged (the default) or recover rebuilds a \
                             store with a changelog from it; without one, restore the directory from a backup, or delete it to \
                             start the store empty"
                        ),
                    )?,
                    // Storage, Snapshot, and any kind added later: Kafka's exception for a failed store.
                    _ => throw(env, STORAGE_EXCEPTION, message)?,
                }
            }
            NativeError::Jni(e) => throw(env, STORAGE_EXCEPTION, format!("JNI failure in txn-rocksdb: {e}"))?,
        }
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        payload: Box<dyn Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".into());
        if env.exception_check() {
            env.exception_clear();
        }
        throw(env, STORAGE_EXCEPTION, format!("native panic in txn-rocksdb (this is a bug): {msg}"))?;
        Ok(T::default())
    }
}

/// Runs `f` with panics caught and errors thrown as Java exceptions.
pub(crate) fn run<'local, T: Default + 'local>(
    env: &mut EnvUnowned<'local>,
    f: impl FnOnce(&mut Env<'local>) -> NativeResult<T>,
) -> T {
    env.with_env(f).resolve::<ThrowJava>()
}

/// A native method's own `JNIEnv`, for the calls made per record (get, put), which use it through
/// the raw helpers in `handles` only.
#[derive(Clone, Copy)]
pub(crate) struct RawEnv(pub(crate) *mut jni::sys::JNIEnv);

/// Runs `f` as [`run`] does (panics caught, errors thrown as the same Java exceptions), but hands
/// it the raw `JNIEnv` instead of going through `jni`'s per-call attachment bookkeeping (a
/// thread-local guard level, pushed, checked and popped around every call), a measurable part of
/// a get served from the memtable. Only an error or a panic takes the `jni` path, to throw.
/// Returns `on_error` to the JVM when it threw.
pub(crate) fn run_raw<'local, T>(
    env: &mut EnvUnowned<'local>,
    on_error: T,
    f: impl FnOnce(RawEnv) -> NativeResult<T>,
) -> T {
    let raw = RawEnv(env.as_raw());
    match catch_unwind(AssertUnwindSafe(|| f(raw))) {
        Ok(Ok(value)) => value,
        Ok(Err(e)) => {
            run(env, |_| Err::<(), _>(e));
            on_error
        }
        Err(payload) => {
            // `run` catches the panic again and throws as for any other panic.
            run(env, |_| -> NativeResult<()> { resume_unwind(payload) });
            on_error
        }
    }
}
