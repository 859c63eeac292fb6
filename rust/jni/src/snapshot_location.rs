//! Exported functions of `NativeSnapshotLocation.java`: a snapshot location (the engine's
//! [`Location`]) and the snapshots taken to it and restored from it (the engine's `snapshot`
//! module). What opening a location and a restore take, and what a restore, a snapshot and a
//! retention answer, cross as records (the format crate's `snapshot_calls`); this file only
//! decodes, calls and encodes. A prepared snapshot (a checkpoint waiting to be sent) is a handle
//! of its own, a [`PreparedHandle`], so that it can be sent on another thread and cancelled from
//! a third; so is a restore's [`DownloadWatch`], read on another thread while the restore runs.
//!
//! # Safety
//! Every handle is as described in `handles` (0 or live until its `close`/`release`): the Java
//! owners (`NativeSnapshotLocation`, `PreparedSnapshot`, `DownloadWatch`) free each exactly once,
//! after every call on it returned; `cancel` may run while `upload` runs on another thread, and
//! `watchFigures` while `restoreNewest` runs (all only borrow).

use crate::ffi::{invalid, run, NativeResult};
use crate::handles::{borrow, free, into_handle, required_bytes, required_string, to_java};
use crate::store::store;
use jni::objects::{JByteArray, JClass, JString};
use jni::sys::{jint, jlong};
use jni::EnvUnowned;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;
use txn_rocksdb::snapshot::{self, DownloadWatch, Location, Prepared};
use txn_rocksdb_format::snapshot_calls::{ListRequest, LocationOptions, RestoreRequest};

/// A prepared snapshot and the flag that cancels its upload.
pub(crate) struct PreparedHandle {
    prepared: Mutex<Option<Prepared>>,
    cancel: AtomicBool,
}

fn location<'a>(handle: jlong) -> NativeResult<&'a Location> {
    borrow(handle, "snapshot location")
}

/// Opens the location the options record describes (the format crate's `LocationOptions`; what
/// it means: the engine's `snapshot::open_location`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_open0<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    options: JByteArray<'l>,
) -> jlong {
    run(&mut env, |env| {
        let bytes = required_bytes(env, &options, "snapshot location options")?;
        Ok(into_handle(snapshot::open_location(&LocationOptions::decode(&bytes)?)?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_close<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    run(&mut env, |_| free::<Location>(handle, "snapshot location"))
}

/// Runs the restore the request record asks for (`RestoreRequest`) and returns its answer record
/// (`RestoreAnswer`), or null when no snapshot is usable; how far its download came goes to the
/// watch behind `watch_handle`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_restoreNewest<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    request: JByteArray<'l>,
    watch_handle: jlong,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let bytes = required_bytes(env, &request, "snapshot restore request")?;
        let watch: &DownloadWatch = borrow(watch_handle, "snapshot download watch")?;
        let answer = snapshot::restore_requested(location(handle)?, &RestoreRequest::decode(&bytes)?, watch)?;
        to_java(env, answer.map(|answer| answer.encode()))
    })
}

/// A new watch of a restore's download, which logs its progress every `interval_ms` (0: the
/// engine's default, 10 s).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_newWatch<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    interval_ms: jlong,
) -> jlong {
    run(&mut env, |_| {
        let interval = u64::try_from(interval_ms)
            .map_err(|_| invalid(format!("a download's progress interval must be at least 0 ms, not {interval_ms}")))?;
        Ok(into_handle(match interval {
            0 => DownloadWatch::default(),
            ms => DownloadWatch::logged_every(Duration::from_millis(ms)),
        }))
    })
}

/// What the watch behind `watch_handle` reads now (`DownloadProgress`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_watchFigures<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    watch_handle: jlong,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let watch: &DownloadWatch = borrow(watch_handle, "snapshot download watch")?;
        to_java(env, Some(watch.figures().answer().encode()))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_freeWatch<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    watch_handle: jlong,
) {
    run(&mut env, |_| free::<DownloadWatch>(watch_handle, "snapshot download watch"))
}

/// Takes the checkpoint of the store behind `store_handle` and returns the prepared snapshot's
/// handle.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_prepare<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    store_handle: jlong,
) -> jlong {
    run(&mut env, |_| {
        let prepared = snapshot::prepare(store(store_handle)?.key_value())?;
        Ok(into_handle(PreparedHandle { prepared: Mutex::new(Some(prepared)), cancel: AtomicBool::new(false) }))
    })
}

/// Sends the prepared snapshot (once: a second call is an `IllegalArgumentException`) and returns
/// its answer record (`TakeAnswer`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_upload<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    prepared_handle: jlong,
    store_id: JString<'l>,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let store_id = required_string(env, &store_id, "store id")?;
        let prepared: &PreparedHandle = borrow(prepared_handle, "prepared snapshot")?;
        let taken = prepared.prepared.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        let taken = taken.ok_or_else(|| invalid("this prepared snapshot was already sent"))?;
        let sent = snapshot::upload(taken, location(handle)?, &store_id, &prepared.cancel)?;
        to_java(env, Some(sent.answer().encode()))
    })
}

/// Makes a running or later `upload` of the prepared snapshot stop before it writes a manifest.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_PreparedSnapshot_cancel0<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    prepared_handle: jlong,
) {
    run(&mut env, |_| {
        borrow::<PreparedHandle>(prepared_handle, "prepared snapshot")?.cancel.store(true, Ordering::Release);
        Ok(())
    })
}

/// Frees the prepared snapshot (deleting its checkpoint if it was never sent).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_PreparedSnapshot_free<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    prepared_handle: jlong,
) {
    run(&mut env, |_| free::<PreparedHandle>(prepared_handle, "prepared snapshot"))
}

/// Keeps the newest `keep` snapshots of the store (stopped by the prepared snapshot's cancel) and
/// returns its answer record (`RetainAnswer`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_retain<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    prepared_handle: jlong,
    store_id: JString<'l>,
    keep: jint,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let store_id = required_string(env, &store_id, "store id")?;
        let prepared: &PreparedHandle = borrow(prepared_handle, "prepared snapshot")?;
        let answer = snapshot::retain_requested(location(handle)?, &store_id, keep, &prepared.cancel)?;
        to_java(env, Some(answer.encode()))
    })
}

/// Runs the listing the request record asks for (`ListRequest`) and returns its answer record
/// (`ListAnswer`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_list0<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    request: JByteArray<'l>,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let bytes = required_bytes(env, &request, "snapshot list request")?;
        let answer = snapshot::list_requested(location(handle)?, &ListRequest::decode(&bytes)?)?;
        to_java(env, Some(answer.encode()))
    })
}
