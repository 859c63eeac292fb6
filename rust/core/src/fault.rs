//! Crash points for tests. With the `fault-injection` feature, [`point`] kills the process with
//! SIGKILL (TerminateProcess on Windows) when the environment names that point:
//!
//! `TXN_ROCKSDB_FAULT=<point>` kills at the first hit, `TXN_ROCKSDB_FAULT=<point>@<n>` at the n-th.
//! `TXN_ROCKSDB_COPY_BATCH_BYTES=<n>` shrinks the commit's copy batches so small transactions
//! still cross several of them (and the batches of a value format upgrade at open), and the
//! secondary-store spill size of the stores opened after it is set, so their transactions spill.
//! `TXN_ROCKSDB_INGEST_BYTES=<n>` makes the secondary-store stores opened after it commit
//! transactions that spilled at least `n` bytes by ingestion.
//! `TXN_ROCKSDB_RESTORE_BUFFER_BYTES=<n>` makes the stores opened after it write their restore
//! buffer (`changelog_restore.rs`) at `n` bytes, so small restores ingest several files.
//!
//! [`arm_error`] makes a point return an error instead, once (for in-process tests of failed
//! commits; a test binary using it must not run other tests concurrently).
//!
//! Without the feature (every release build) all of this compiles to nothing.

/// Every crash point, in the order a commit (and then a recovery) passes them.
pub const POINTS: &[&str] = &[
    // both strategies
    "commit:begin",
    // indexed-batch: the one atomic write has landed (secondary-store: that of a commit of offsets only)
    "commit:after-write",
    // secondary-store: after each write of a copy but the last (the first one stores the commit
    // record), after the last one (records, offsets, the record deleted), after the truncation of
    // the temporary store's generation
    "commit:mid-copy",
    // secondary-store, a commit by ingestion: its files are built (nothing decided yet); its
    // commit record is written and every family flushed in one atomic flush (decided); the files
    // are ingested
    "commit:after-files",
    "commit:before-ingest",
    "commit:after-ingest",
    "commit:after-copy",
    "commit:after-truncate",
    "recover:mid-copy",
    "recover:after-copy",
    // restoring from the changelog, after each applied batch; by ingestion (`changelog_restore.rs`): a
    // buffer's file is built, not yet ingested; it is ingested, its deferred offsets not yet written
    "restore:after-batch",
    "restore:before-ingest",
    "restore:after-ingest",
    // upgrading a store's values to a newer format at open, after each batch but the last
    "upgrade:after-batch",
    // taking a snapshot: after each part of a file handed to the upload (the object not yet
    // finished); its files are sent, its manifest not yet written
    "snapshot:mid-file",
    "snapshot:before-manifest",
];

/// The exit code of a process killed on Windows, where there are no signals: TerminateProcess's
/// code, 1 as std's `Child::kill` passes it (a crash point passes the same).
#[cfg(windows)]
pub const KILLED_EXIT_CODE: u32 = 1;

/// Whether a child process (a crash test's) ended killed: by SIGKILL on Unix; on Windows by
/// TerminateProcess with [`KILLED_EXIT_CODE`], what `Child::kill` and a crash point do.
pub fn killed(status: &std::process::ExitStatus) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.signal() == Some(9)
    }
    #[cfg(windows)]
    {
        status.code() == Some(KILLED_EXIT_CODE as i32)
    }
}

#[cfg(feature = "fault-injection")]
mod imp {
    use crate::error::{Error, Result};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Mutex, OnceLock};

    /// (point, hits left before the error)
    static ERROR_AT: Mutex<Option<(String, u64)>> = Mutex::new(None);

    pub fn arm_error(point: &str, hit: u64) {
        assert!(super::POINTS.contains(&point), "unknown crash point {point}");
        *ERROR_AT.lock().unwrap() = Some((point.to_owned(), hit));
    }

    struct Armed {
        point: String,
        hit: u64,
        seen: AtomicU64,
    }

    fn armed() -> Option<&'static Armed> {
        static ARMED: OnceLock<Option<Armed>> = OnceLock::new();
        ARMED
            .get_or_init(|| {
                let spec = std::env::var("TXN_ROCKSDB_FAULT").ok()?;
                let (point, hit) = match spec.split_once('@') {
                    Some((p, n)) => (p.to_owned(), n.parse().expect("TXN_ROCKSDB_FAULT=<point>@<n>")),
                    None => (spec, 1),
                };
                assert!(super::POINTS.contains(&point.as_str()), "unknown crash point {point}");
                Some(Armed { point, hit, seen: AtomicU64::new(0) })
            })
            .as_ref()
    }

    pub fn point(name: &str) -> Result<()> {
        {
            let mut armed_error = ERROR_AT.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((p, left)) = armed_error.as_mut() {
                if p == name {
                    *left -= 1;
                    if *left == 0 {
                        *armed_error = None;
                        return Err(Error::storage_found(
                            std::path::Path::new(""),
                            format!("injected failure at {name}"),
                        ));
                    }
                }
            }
        }
        if let Some(a) = armed() {
            if a.point == name && a.seen.fetch_add(1, Ordering::SeqCst) + 1 == a.hit {
                eprintln!("txn-rocksdb fault injection: SIGKILL at {name}");
                kill_self();
            }
        }
        Ok(())
    }

    /// Ends the process at once, as `kill -9` does: no destructors, no flush, no exit handlers.
    /// On Windows, TerminateProcess with [`super::KILLED_EXIT_CODE`], as std's `Child::kill` does.
    fn kill_self() -> ! {
        #[cfg(unix)]
        // SAFETY: plain libc calls; the process ends here.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
        #[cfg(windows)]
        {
            #[link(name = "kernel32")]
            extern "system" {
                fn GetCurrentProcess() -> *mut std::ffi::c_void;
                fn TerminateProcess(process: *mut std::ffi::c_void, exit_code: u32) -> i32;
            }
            // SAFETY: GetCurrentProcess returns this process's pseudo-handle; the process ends here.
            unsafe {
                TerminateProcess(GetCurrentProcess(), super::KILLED_EXIT_CODE);
            }
        }
        loop {
            std::thread::park();
        }
    }

    pub fn copy_batch_bytes(default: usize) -> usize {
        std::env::var("TXN_ROCKSDB_COPY_BATCH_BYTES").ok().and_then(|bytes| bytes.parse().ok()).unwrap_or(default)
    }

    pub fn ingest_bytes(default: u64) -> u64 {
        std::env::var("TXN_ROCKSDB_INGEST_BYTES").ok().and_then(|bytes| bytes.parse().ok()).unwrap_or(default)
    }

    pub fn restore_buffer_bytes(default: usize) -> usize {
        std::env::var("TXN_ROCKSDB_RESTORE_BUFFER_BYTES").ok().and_then(|bytes| bytes.parse().ok()).unwrap_or(default)
    }
}

#[cfg(not(feature = "fault-injection"))]
mod imp {
    #[inline(always)]
    pub fn point(_name: &str) -> crate::error::Result<()> {
        Ok(())
    }

    #[inline(always)]
    pub fn copy_batch_bytes(default: usize) -> usize {
        default
    }

    #[inline(always)]
    pub fn ingest_bytes(default: u64) -> u64 {
        default
    }

    #[inline(always)]
    pub fn restore_buffer_bytes(default: usize) -> usize {
        default
    }
}

#[cfg(feature = "fault-injection")]
pub use imp::arm_error;
pub(crate) use imp::{copy_batch_bytes, ingest_bytes, point, restore_buffer_bytes};
