//! Exported functions of `NativeSnapshotLocation.java`: a snapshot location (the engine's
//! [`Location`]) and the snapshots taken to it and restored from it (the engine's `snapshot`
//! module). A prepared snapshot (a checkpoint waiting to be sent) is a handle of its own, a
//! [`PreparedHandle`], so that it can be sent on another thread and cancelled from a third.
//!
//! # Safety
//! Every handle is as described in `handles` (0 or live until its `close`/`release`): the Java
//! owners (`NativeSnapshotLocation`, `PreparedSnapshot`) free each exactly once, after every call
//! on it returned; `cancel` may run while `upload` runs on another thread (both only borrow).

use crate::ffi::{invalid, run, NativeResult};
use crate::handles::{borrow, free, into_handle, to_java};
use crate::store::store;
use jni::objects::{JByteArray, JClass, JString};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use txn_rocksdb::snapshot::{self, Changelog, Location, LocationSettings, Prepared, RestoreBudget};
use txn_rocksdb::TopicPartition;

/// A prepared snapshot and the flag that cancels its upload.
pub(crate) struct PreparedHandle {
    prepared: Mutex<Option<Prepared>>,
    cancel: AtomicBool,
}

fn location<'a>(handle: jlong) -> NativeResult<&'a Location> {
    borrow(handle, "snapshot location")
}

fn string(env: &mut Env<'_>, value: &JString<'_>, what: &str) -> NativeResult<String> {
    if value.is_null() {
        return Err(invalid(format!("{what} must not be null")));
    }
    Ok(value.try_to_string(env)?)
}

/// `values` as Java reads them back (`NativeSnapshotLocation.longs`): big-endian 8-byte longs.
fn longs<'l>(env: &mut Env<'l>, values: &[i64]) -> NativeResult<JByteArray<'l>> {
    to_java(env, Some(values.iter().flat_map(|value| value.to_be_bytes()).collect()))
}

fn to_jlong(value: impl TryInto<i64>) -> i64 {
    value.try_into().unwrap_or(i64::MAX)
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_open0<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    uri: JString<'l>,
    options: JString<'l>,
    upload_bytes_per_second: jlong,
    request_timeout_ms: jlong,
    io_threads: jint,
) -> jlong {
    run(&mut env, |env| {
        let uri = string(env, &uri, "snapshot location")?;
        let options = string(env, &options, "snapshot location options")?;
        let upload_bytes_per_second = u64::try_from(upload_bytes_per_second)
            .map_err(|_| invalid(format!("the upload limit must be at least 0, not {upload_bytes_per_second}")))?;
        let request_timeout = millis(request_timeout_ms, "the request timeout")?;
        let threads = usize::try_from(io_threads).map_err(|_| invalid(format!("snapshot I/O threads: {io_threads}")))?;
        let in_force = snapshot::set_io_threads(threads)?;
        if in_force != threads {
            log::warn!("snapshot I/O threads: {threads} asked for, {in_force} in force (set once, by the first store to open)");
        }
        let settings = LocationSettings { request_timeout, upload_bytes_per_second, ..LocationSettings::default() };
        Ok(into_handle(Location::open(&uri, &location_options(&options)?, settings)?))
    })
}

/// A positive duration in milliseconds.
fn millis(ms: jlong, what: &str) -> NativeResult<Duration> {
    match u64::try_from(ms) {
        Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
        _ => Err(invalid(format!("{what} must be more than 0 ms, not {ms}"))),
    }
}

/// The options Java's `NativeSnapshotLocation.open` joined: `key=value` lines (a value may hold
/// `=`, never a line break).
fn location_options(joined: &str) -> NativeResult<Vec<(String, String)>> {
    joined
        .lines()
        .filter(|line| !line.is_empty())
        .map(|line| match line.split_once('=') {
            Some((key, value)) => Ok((key.to_string(), value.to_string())),
            None => Err(invalid("a snapshot location option is not key=value")),
        })
        .collect()
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_close<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    run(&mut env, |_| free::<Location>(handle, "snapshot location"))
}

/// `[seq, files, bytes, snapshots skipped, ms waited]` of the snapshot put into `dir`, or null when none is
/// usable; waiting `patience_ms` at most for the location in all, returning within `timeout_ms`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_restoreNewest<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    store_id: JString<'l>,
    dir: JString<'l>,
    topic: JString<'l>,
    partition: jint,
    start: jlong,
    end: jlong,
    patience_ms: jlong,
    timeout_ms: jlong,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let store_id = string(env, &store_id, "store id")?;
        let dir = string(env, &dir, "store directory")?;
        let topic = string(env, &topic, "changelog topic")?;
        let changelog = Changelog { partition: TopicPartition { topic, partition }, start, end };
        let budget = RestoreBudget {
            patience: millis(patience_ms, "a restore's patience")?,
            deadline: Some(Instant::now() + millis(timeout_ms, "a restore's time")?),
        };
        match snapshot::restore_newest(location(handle)?, &store_id, dir.as_ref(), &changelog, budget)? {
            None => Ok(JByteArray::default()),
            Some(restored) => longs(
                env,
                &[
                    to_jlong(restored.seq),
                    to_jlong(restored.manifest.files.len()),
                    to_jlong(restored.bytes),
                    to_jlong(restored.skipped.len()),
                    to_jlong(restored.waited.as_millis()),
                ],
            ),
        }
    })
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
/// `[seq, files, objects sent, bytes sent, changelog offset, objects verified, objects found
/// damaged, objects sent again]` (the offset of its one changelog partition, -1 where it holds none).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_upload<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    prepared_handle: jlong,
    store_id: JString<'l>,
) -> JByteArray<'l> {
    run(&mut env, |env| {
        let store_id = string(env, &store_id, "store id")?;
        let prepared: &PreparedHandle = borrow(prepared_handle, "prepared snapshot")?;
        let taken = prepared.prepared.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        let taken = taken.ok_or_else(|| invalid("this prepared snapshot was already sent"))?;
        let sent = snapshot::upload(taken, location(handle)?, &store_id, &prepared.cancel)?;
        longs(
            env,
            &[
                to_jlong(sent.seq),
                to_jlong(sent.files),
                to_jlong(sent.files_uploaded),
                to_jlong(sent.bytes_uploaded),
                sent.offsets.first().map_or(-1, |(_, offset)| *offset),
                to_jlong(sent.objects_verified),
                to_jlong(sent.objects_damaged),
                to_jlong(sent.objects_resent),
            ],
        )
    })
}

/// Makes a running or later `upload` of the prepared snapshot stop before it writes a manifest.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_cancel<'l>(
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
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeSnapshotLocation_release<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    prepared_handle: jlong,
) {
    run(&mut env, |_| free::<PreparedHandle>(prepared_handle, "prepared snapshot"))
}

/// Keeps the newest `keep` snapshots of the store (stopped by the prepared snapshot's cancel) and
/// returns `[manifests deleted, objects deleted]`.
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
        let store_id = string(env, &store_id, "store id")?;
        let keep = usize::try_from(keep).map_err(|_| invalid(format!("snapshots to keep is {keep}, not at least 1")))?;
        let prepared: &PreparedHandle = borrow(prepared_handle, "prepared snapshot")?;
        let retained = snapshot::retain(location(handle)?, &store_id, keep, &prepared.cancel)?;
        longs(env, &[to_jlong(retained.manifests_deleted.len()), to_jlong(retained.files_deleted.len())])
    })
}
