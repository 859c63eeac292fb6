//! What the snapshot natives' records mean (their layouts: the format crate's `snapshot_calls`):
//! a location opened from its options, a restore and a listing run from their requests, and the
//! answers of a restore, a snapshot and a retention. The values Java sends as it holds them (`long`, `int`) are
//! checked here, each refusal naming the value.

use super::catalog::list;
use super::io::set_io_threads;
use super::location::{Location, LocationSettings};
use super::progress::DownloadFigures;
use super::progress::DownloadWatch;
use super::restore::{restore_newest_watched, Changelog, RestoreBudget, Restored};
use super::retention::{retain, Retained};
use super::take::Taken;
use crate::error::{Error, Result};
use crate::offsets::TopicPartition;
use crate::RowLayout;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use txn_rocksdb_format::snapshot_calls::{
    DownloadProgress, ListAnswer, ListRequest, LocationOptions, RestoreAnswer, RestoreRequest, RetainAnswer, TakeAnswer,
};

/// A positive duration in milliseconds.
fn millis(ms: i64, what: &str) -> Result<Duration> {
    match u64::try_from(ms) {
        Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
        _ => Err(Error::InvalidArgument(format!("{what} must be more than 0 ms, not {ms}"))),
    }
}

/// A count Java holds as `long` or `int`, saturated into Java's `long` on the way back.
fn to_long(value: impl TryInto<i64>) -> i64 {
    value.try_into().unwrap_or(i64::MAX)
}

/// Opens the location `options` describe, sizing the process's snapshot I/O runtime first (a
/// different size after it started is logged and ignored).
pub fn open_location(options: &LocationOptions<'_>) -> Result<Location> {
    let upload_bytes_per_second = u64::try_from(options.upload_bytes_per_second).map_err(|_| {
        Error::InvalidArgument(format!("the upload limit must be at least 0, not {}", options.upload_bytes_per_second))
    })?;
    let request_timeout = millis(options.request_timeout_ms, "the request timeout")?;
    let threads = usize::try_from(options.io_threads).map_err(|_| {
        Error::InvalidArgument(format!("snapshot I/O threads must be 1 to 64, not {}", options.io_threads))
    })?;
    let in_force = set_io_threads(threads)?;
    if in_force != threads {
        log::warn!(
            "snapshot I/O threads: {threads} asked for, {in_force} in force (set once, by the first store to open)"
        );
    }
    let settings = LocationSettings { request_timeout, upload_bytes_per_second, ..LocationSettings::default() };
    let store_options: Vec<(String, String)> =
        options.options.iter().map(|(key, value)| (key.to_string(), value.to_string())).collect();
    Location::open(options.uri, &store_options, settings)
}

/// Runs the restore `request` asks for ([`restore_newest_watched`]), how far its download came in
/// `watch`; its time counts from now.
pub fn restore_requested(
    location: &Location,
    request: &RestoreRequest<'_>,
    watch: &DownloadWatch,
) -> Result<Option<RestoreAnswer>> {
    let changelog = Changelog {
        partition: TopicPartition { topic: request.topic.to_string(), partition: request.partition },
        start: request.start,
        end: request.end,
    };
    let budget = RestoreBudget {
        patience: millis(request.patience_ms, "a restore's patience")?,
        deadline: Some(Instant::now() + millis(request.timeout_ms, "a restore's time")?),
    };
    let rows = RowLayout::of(request.ttl);
    let dir = Path::new(request.dir);
    let restored = restore_newest_watched(location, request.store_id, dir, &changelog, rows, budget, watch)?;
    Ok(restored.as_ref().map(Restored::answer))
}

/// Runs the listing `request` asks for ([`list`]): every store's snapshots when its store id is
/// empty; its time counts from now.
pub fn list_requested(location: &Location, request: &ListRequest<'_>) -> Result<ListAnswer> {
    let changelogs: Vec<Changelog> = request
        .changelogs
        .iter()
        .map(|(partition, start, end)| Changelog { partition: partition.clone(), start: *start, end: *end })
        .collect();
    let store_id = Some(request.store_id).filter(|id| !id.is_empty());
    let patience = millis(request.patience_ms, "a listing's patience")?;
    let timeout = millis(request.timeout_ms, "a listing's time")?;
    list(location, store_id, &changelogs, patience, timeout)
}

/// Keeps the newest `keep` snapshots of the store ([`retain`]); `keep` as Java holds it.
pub fn retain_requested(location: &Location, store_id: &str, keep: i32, cancel: &AtomicBool) -> Result<RetainAnswer> {
    let keep = usize::try_from(keep)
        .map_err(|_| Error::InvalidArgument(format!("snapshots to keep is {keep}, not at least 1")))?;
    Ok(retain(location, store_id, keep, cancel)?.answer())
}

impl DownloadFigures {
    /// The record Java reads.
    pub fn answer(&self) -> DownloadProgress {
        DownloadProgress {
            seq: self.seq,
            done_bytes: to_long(self.done),
            total_bytes: to_long(self.total),
            elapsed_ms: to_long(self.elapsed.as_millis()),
        }
    }
}

impl Restored {
    /// The answer Java reads.
    pub fn answer(&self) -> RestoreAnswer {
        RestoreAnswer {
            seq: to_long(self.seq),
            files: to_long(self.manifest.files.len()),
            bytes: to_long(self.bytes),
            skipped: to_long(self.skipped.len()),
            waited_ms: to_long(self.waited.as_millis()),
        }
    }
}

impl Taken {
    /// The answer Java reads.
    pub fn answer(&self) -> TakeAnswer {
        TakeAnswer {
            seq: to_long(self.seq),
            files: to_long(self.files),
            objects_sent: to_long(self.files_uploaded),
            bytes_sent: to_long(self.bytes_uploaded),
            objects_verified: to_long(self.objects_verified),
            objects_damaged: to_long(self.objects_damaged),
            objects_resent: to_long(self.objects_resent),
            offsets: self.offsets.clone(),
        }
    }
}

impl Retained {
    /// The answer Java reads.
    pub fn answer(&self) -> RetainAnswer {
        RetainAnswer {
            manifests_deleted: to_long(self.manifests_deleted.len()),
            objects_deleted: to_long(self.files_deleted.len()),
        }
    }
}
