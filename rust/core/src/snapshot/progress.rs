//! How far a snapshot download has come, for the operator watching a slow restore: past its first
//! [`INTERVAL`] it is logged at INFO every [`INTERVAL`] (bytes done of the total, rate, time left),
//! and once more when it ends; a quick download logs nothing (the restore's own line says what it
//! restored). The same line for every store, so a log search finds them all: `downloading snapshot`.
//! The same figures reach a caller on another thread through a [`DownloadWatch`] (the store's
//! metrics while its stream thread waits for the download).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often a download that is still running logs how far it came.
pub(crate) const INTERVAL: Duration = Duration::from_secs(10);

/// How far a restore's download has come, read from another thread while it runs: the snapshot
/// being downloaded, its bytes received of the manifest's total, and for how long; and how often
/// the download logs its progress line. A restore that passes a snapshot over and tries an older
/// one starts its figures again.
#[derive(Debug)]
pub struct DownloadWatch {
    /// The snapshot and its total, and when its download started; `None` before the first.
    current: Mutex<Option<(u64, u64, Instant)>>,
    done: AtomicU64,
    interval: Duration,
}

impl Default for DownloadWatch {
    /// A watch whose download logs every [`INTERVAL`].
    fn default() -> Self {
        DownloadWatch::logged_every(INTERVAL)
    }
}

/// What a [`DownloadWatch`] read: `seq` -1 (and zeros) before any download started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DownloadFigures {
    pub seq: i64,
    pub done: u64,
    pub total: u64,
    pub elapsed: Duration,
}

impl DownloadWatch {
    /// A watch whose download logs its progress line every `interval` (not before the first).
    pub fn logged_every(interval: Duration) -> DownloadWatch {
        DownloadWatch { current: Mutex::new(None), done: AtomicU64::new(0), interval }
    }

    /// The figures now.
    pub fn figures(&self) -> DownloadFigures {
        let current = *self.current.lock().unwrap_or_else(|e| e.into_inner());
        match current {
            None => DownloadFigures { seq: -1, done: 0, total: 0, elapsed: Duration::ZERO },
            Some((seq, total, started)) => DownloadFigures {
                seq: i64::try_from(seq).unwrap_or(i64::MAX),
                done: self.done.load(Ordering::Relaxed).min(total),
                total,
                elapsed: started.elapsed(),
            },
        }
    }

    fn begin(&self, seq: u64, total: u64) {
        let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        self.done.store(0, Ordering::Relaxed);
        *current = Some((seq, total, Instant::now()));
    }
}

/// One snapshot's download: bytes received of the manifest's total.
pub(crate) struct Progress<'a> {
    /// What is downloaded, for the log: the store's directory and the snapshot.
    what: String,
    total: u64,
    done: AtomicU64,
    started: Instant,
    interval: Duration,
    /// When the next line is due; `None` once the download logged nothing and need not sum up.
    next: Mutex<Instant>,
    logged: AtomicU64,
    watch: &'a DownloadWatch,
}

impl<'a> Progress<'a> {
    /// The download of snapshot `seq` (of `total` bytes) into the store in `dir`, logged every
    /// `watch`'s interval, its figures in `watch` too.
    pub(crate) fn new(dir: &Path, seq: u64, total: u64, watch: &'a DownloadWatch) -> Progress<'a> {
        let started = Instant::now();
        let interval = watch.interval;
        watch.begin(seq, total);
        Progress {
            what: format!("store {}: downloading snapshot {seq}", dir.display()),
            total,
            done: AtomicU64::new(0),
            started,
            interval,
            next: Mutex::new(started + interval),
            logged: AtomicU64::new(0),
            watch,
        }
    }

    /// `amount` more bytes arrived; returns the line logged, if this was the time for one.
    pub(crate) fn received(&self, amount: u64) -> Option<String> {
        let done = self.done.fetch_add(amount, Ordering::Relaxed) + amount;
        self.watch.done.fetch_add(amount, Ordering::Relaxed);
        let now = Instant::now();
        let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
        if now < *next {
            return None;
        }
        *next = now + self.interval;
        drop(next);
        self.logged.fetch_add(1, Ordering::Relaxed);
        let line = self.line(done, now);
        log::info!("{line}");
        Some(line)
    }

    /// The download ended: a summary, when it logged on the way.
    pub(crate) fn finish(&self) -> Option<String> {
        if self.logged.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let done = self.done.load(Ordering::Relaxed);
        let elapsed = self.started.elapsed();
        let line = format!(
            "{}: done, {} in {:.1} s ({}/s)",
            self.what,
            bytes(done),
            elapsed.as_secs_f64(),
            bytes(rate(done, elapsed))
        );
        log::info!("{line}");
        Some(line)
    }

    fn line(&self, done: u64, now: Instant) -> String {
        let elapsed = now.duration_since(self.started);
        let rate = rate(done, elapsed);
        let left = self.total.saturating_sub(done);
        let eta = if rate == 0 { "unknown".to_owned() } else { format!("about {} s", left.div_ceil(rate)) };
        format!(
            "{}: {} of {} ({:.0}%), {}/s, {eta} left",
            self.what,
            bytes(done),
            bytes(self.total),
            if self.total == 0 { 100.0 } else { done as f64 * 100.0 / self.total as f64 },
            bytes(rate)
        )
    }
}

/// Bytes per second over `elapsed`.
fn rate(bytes: u64, elapsed: Duration) -> u64 {
    let ms = elapsed.as_millis().max(1) as u64;
    bytes.saturating_mul(1000) / ms
}

/// `bytes` in the unit that reads best.
fn bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_download_logs_its_figures_every_interval_and_sums_up() {
        let watch = DownloadWatch::logged_every(Duration::from_millis(30));
        assert_eq!(watch.figures().seq, -1, "no download yet");
        let progress = Progress::new(Path::new("/state/app/0_0/counts"), 7, 4 << 20, &watch);
        assert_eq!(progress.received(1 << 20), None, "not before the first interval");
        let figures = watch.figures();
        assert_eq!((figures.seq, figures.done, figures.total), (7, 1 << 20, 4 << 20), "the watch's figures");
        std::thread::sleep(Duration::from_millis(40));
        let line = progress.received(1 << 20).expect("a line after the interval");
        assert!(
            line.starts_with("store /state/app/0_0/counts: downloading snapshot 7: 2.0 MiB of 4.0 MiB (50%), "),
            "{line}"
        );
        assert!(line.ends_with(" left") && line.contains("/s, about "), "{line}");
        assert_eq!(progress.received(1), None, "not again within the interval");
        std::thread::sleep(Duration::from_millis(40));
        assert!(progress.received((2 << 20) - 1).expect("a second line").contains("4.0 MiB of 4.0 MiB (100%)"));
        let done = progress.finish().expect("a summary after lines");
        assert!(done.contains(": done, 4.0 MiB in "), "{done}");
        let figures = watch.figures();
        assert_eq!((figures.done, figures.total), (4 << 20, 4 << 20), "every byte counted, as in the lines");
        assert!(figures.elapsed >= Duration::from_millis(80), "{figures:?}");
        let quick_watch = DownloadWatch::default();
        let quick = Progress::new(Path::new("/s"), 1, 10, &quick_watch);
        assert_eq!((quick_watch.figures().seq, quick_watch.figures().done), (1, 0));
        let older = Progress::new(Path::new("/state/app/0_0/counts"), 6, 1 << 20, &watch);
        assert_eq!((watch.figures().seq, watch.figures().done), (6, 0), "an older snapshot starts the figures again");
        drop(older);
        assert_eq!(quick.received(10), None);
        assert_eq!(quick.finish(), None, "a quick download logs nothing");
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(3 << 30), "3.0 GiB");
    }
}
