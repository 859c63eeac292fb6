//! The process's snapshot I/O and what ends a wait on a location.
//!
//! Every [`super::Location`] of a process runs its requests on one async runtime (object_store is
//! async), with a bounded number of threads, as every store shares one block cache: the threads and
//! buffers of snapshots cost a constant per process, not one pool per store. [`set_io_threads`]
//! sizes it before the first location opens.
//!
//! A wait on a location ends at the location's own request timeouts (each request:
//! `LocationSettings::request_timeout`), and earlier at what its [`Stop`] says: a deadline, a
//! cancel flag (a store closing), or a [`Patience`] (the time in which no byte arrived, summed over
//! the calls of one restore).

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The threads of the process's snapshot I/O runtime unless [`set_io_threads`] said otherwise.
pub const DEFAULT_IO_THREADS: usize = 2;

static IO_THREADS: AtomicUsize = AtomicUsize::new(DEFAULT_IO_THREADS);
static RUNTIME: OnceLock<std::result::Result<tokio::runtime::Runtime, String>> = OnceLock::new();

/// Sizes the process's snapshot I/O runtime: `threads` worker threads (which drive every
/// connection and timer) and at most `threads` more for blocking work (the local file system's
/// calls, name lookups). It takes effect only before the first location opens; returns the number
/// in force, which differs from `threads` when the runtime had already started.
pub fn set_io_threads(threads: usize) -> Result<usize> {
    if threads == 0 || threads > 64 {
        return Err(Error::InvalidArgument(format!("snapshot I/O threads must be 1 to 64, not {threads}")));
    }
    if RUNTIME.get().is_none() {
        IO_THREADS.store(threads, Ordering::Release);
    }
    Ok(io_threads())
}

/// The threads of the process's snapshot I/O runtime (once started, the number it started with).
pub fn io_threads() -> usize {
    IO_THREADS.load(Ordering::Acquire)
}

/// The process's snapshot I/O runtime, started at the first call.
pub(crate) fn runtime() -> Result<tokio::runtime::Handle> {
    let started = RUNTIME.get_or_init(|| {
        let threads = io_threads();
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .max_blocking_threads(threads)
            .thread_name("txn-rocksdb-snapshot-io")
            .thread_keep_alive(Duration::from_secs(10))
            .enable_all()
            .build()
            .map_err(|e| e.to_string())
    });
    match started {
        Ok(runtime) => Ok(runtime.handle().clone()),
        Err(e) => Err(Error::InvalidArgument(format!("the snapshot I/O runtime could not start: {e}"))),
    }
}

/// How much waiting a restore puts up with: the time in which no byte arrived from the location,
/// summed over its calls. A location that answers, however large the snapshot, never runs it out;
/// one that stays silent or answers each request late does, whatever its request timeouts.
#[derive(Debug)]
pub struct Patience {
    budget: Duration,
    /// Bytes (and answers: a listing counts one) received so far.
    progress: AtomicU64,
    /// Nanoseconds waited with nothing arriving.
    waited_ns: AtomicU64,
}

impl Patience {
    /// Patience for `budget` of waiting in total.
    pub fn new(budget: Duration) -> Patience {
        Patience { budget, progress: AtomicU64::new(0), waited_ns: AtomicU64::new(0) }
    }

    /// Something arrived: `amount` bytes (or one answer).
    pub(crate) fn received(&self, amount: u64) {
        self.progress.fetch_add(amount.max(1), Ordering::Relaxed);
    }

    /// The time waited so far with nothing arriving.
    pub fn waited(&self) -> Duration {
        Duration::from_nanos(self.waited_ns.load(Ordering::Relaxed))
    }

    fn add_wait(&self, waited: Duration) -> bool {
        let total = self.waited_ns.fetch_add(waited.as_nanos() as u64, Ordering::Relaxed) + waited.as_nanos() as u64;
        Duration::from_nanos(total) >= self.budget
    }
}

/// What ends a wait on a location before its request timeouts do.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stop<'a> {
    /// The time by which the call returns, done or not.
    pub deadline: Option<Instant>,
    /// Set: the call returns within [`CHECK_EVERY`] (the store is closing).
    pub cancel: Option<&'a AtomicBool>,
    /// The waiting the call may still do.
    pub patience: Option<&'a Patience>,
}

/// How often a wait looks at its cancel flag and patience.
pub const CHECK_EVERY: Duration = Duration::from_millis(50);

/// Why a [`Stop`] ended a wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// Its deadline passed.
    Deadline,
    /// Its cancel flag was set.
    Cancelled,
    /// Its patience ran out: the location did not answer.
    Unanswered,
}

impl Stop<'_> {
    /// Resolves when the wait must end, never when nothing can end it.
    pub(crate) async fn reached(self) -> Stopped {
        if self.deadline.is_none() && self.cancel.is_none() && self.patience.is_none() {
            return std::future::pending().await;
        }
        let mut seen = self.patience.map(|p| p.progress.load(Ordering::Relaxed));
        loop {
            let now = Instant::now();
            if self.cancel.is_some_and(|cancel| cancel.load(Ordering::Acquire)) {
                return Stopped::Cancelled;
            }
            let Some(deadline) = self.deadline else {
                tokio::time::sleep(CHECK_EVERY).await;
                if self.waited_out(&mut seen, now) {
                    return Stopped::Unanswered;
                }
                continue;
            };
            let Some(left) = deadline.checked_duration_since(now).filter(|left| !left.is_zero()) else {
                return Stopped::Deadline;
            };
            tokio::time::sleep(left.min(CHECK_EVERY)).await;
            if self.waited_out(&mut seen, now) {
                return Stopped::Unanswered;
            }
        }
    }

    /// Counts the time since `since` as waited when nothing arrived meanwhile; whether the patience
    /// ran out.
    fn waited_out(&self, seen: &mut Option<u64>, since: Instant) -> bool {
        let (Some(patience), Some(last)) = (self.patience, seen.as_mut()) else { return false };
        let progress = patience.progress.load(Ordering::Relaxed);
        if progress != *last {
            *last = progress;
            return false;
        }
        patience.add_wait(since.elapsed())
    }
}
