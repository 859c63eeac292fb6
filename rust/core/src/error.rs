//! The engine's error: a variant per way of failing that a caller handles differently, its coarse
//! [`ErrorKind`] (what the JNI chooses the Java exception by, never the text), and the error it
//! came from, if any, as its [`std::error::Error::source`].
//!
//! `Display` prints the engine's own words; the causes follow through `source()`, as the Rust
//! convention wants, so that a report shows each once. [`Error::report`] prints both, for a
//! message that goes to a person (a Java exception, a log line).

use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// The error an engine error came from (a RocksDB, I/O or object store error). Shared, so that an
/// error can be cloned.
pub type Cause = Arc<dyn std::error::Error + Send + Sync + 'static>;

/// What went wrong, coarsely: one kind per reaction a caller may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// RocksDB or the file system failed.
    Storage,
    /// The caller passed something malformed or out of range.
    InvalidArgument,
    /// The store, iterator or location was already closed.
    Closed,
    /// The write-ahead log is damaged before its end, and the policy refuses to drop what follows.
    CorruptedWal,
    /// The store's files are damaged so that it cannot prove it holds a commit's exact state.
    Damaged,
    /// A snapshot location failed, refused or did not answer.
    Snapshot,
}

/// Everything that can go wrong in the engine. The JNI layer maps each [`ErrorKind`] to its own
/// Java exception class, so callers can react by kind, never by message text.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Error {
    /// RocksDB or the file system failed; `path` is the store directory (or the file), `message`
    /// what was being done (may be empty when `source` says it all).
    Storage { path: String, message: String, source: Option<Cause> },
    /// The caller passed something malformed (e.g. a truncated batch encoding); the message names
    /// what was wrong.
    InvalidArgument(String),
    /// The store or iterator was already closed.
    Closed(String),
    /// The store's write-ahead log is damaged before its end, and its [`crate::CorruptionPolicy`]
    /// refuses to open it at the last consistent commit: that would silently drop the commits
    /// after the damage. `last_consistent_offsets` describes the commit it could open at.
    CorruptedWal { path: String, message: String, last_consistent_offsets: String },
    /// The store's files are damaged so that it cannot prove it holds a commit's exact state (an
    /// SST file or the MANIFEST, a commit record that does not decode), and its
    /// [`crate::CorruptionPolicy`] does not let it rebuild from the changelog. `message` names
    /// what was found.
    Damaged { path: String, message: String },
    /// A snapshot location (object storage) failed or refused: `location` is its URI (never with
    /// credentials), `message` what failed. Snapshots are an optimisation of restore: this never
    /// means committed data was lost.
    Snapshot { location: String, message: String, source: Option<Cause> },
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A storage failure caused by `source` (an I/O or RocksDB error) while doing `context` (empty:
    /// the source says it all).
    pub(crate) fn storage(path: &Path, context: &str, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        Error::Storage {
            path: path.display().to_string(),
            message: context.to_string(),
            source: Some(Arc::new(source)),
        }
    }

    /// A storage failure the engine found itself (no error underneath).
    pub(crate) fn storage_found(path: &Path, message: impl Into<String>) -> Self {
        Error::Storage { path: path.display().to_string(), message: message.into(), source: None }
    }

    /// A snapshot location's failure caused by `source` while doing `context`.
    pub(crate) fn snapshot(
        location: &str,
        context: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Error::Snapshot { location: location.to_string(), message: context.into(), source: Some(Arc::new(source)) }
    }

    /// A snapshot location's failure the engine found itself.
    pub(crate) fn snapshot_found(location: &str, message: impl Into<String>) -> Self {
        Error::Snapshot { location: location.to_string(), message: message.into(), source: None }
    }

    /// What went wrong, coarsely.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Storage { .. } => ErrorKind::Storage,
            Error::InvalidArgument(_) => ErrorKind::InvalidArgument,
            Error::Closed(_) => ErrorKind::Closed,
            Error::CorruptedWal { .. } => ErrorKind::CorruptedWal,
            Error::Damaged { .. } => ErrorKind::Damaged,
            Error::Snapshot { .. } => ErrorKind::Snapshot,
        }
    }

    /// The error and each of its causes, `: `-separated: the whole message, for a person.
    pub fn report(&self) -> Report<'_> {
        Report(self)
    }
}

/// [`Error::report`]'s display.
pub struct Report<'a>(&'a Error);

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut cause = std::error::Error::source(self.0);
        while let Some(e) = cause {
            write!(f, ": {e}")?;
            cause = e.source();
        }
        Ok(())
    }
}

/// `prefix`, then `: message` unless the message is empty.
fn with_message(f: &mut fmt::Formatter<'_>, prefix: fmt::Arguments<'_>, message: &str) -> fmt::Result {
    f.write_fmt(prefix)?;
    if message.is_empty() {
        Ok(())
    } else {
        write!(f, ": {message}")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Storage { path, message, .. } => {
                with_message(f, format_args!("RocksDB error in store {path}"), message)
            }
            Error::InvalidArgument(m) => f.write_str(m),
            Error::Closed(m) => f.write_str(m),
            Error::CorruptedWal { path, message, last_consistent_offsets } => write!(
                f,
                "the write-ahead log of store {path} is damaged before its end ({message}): the commits after \
                 the damage cannot be read back, so the store refuses to open rather than drop them \
                 silently. Its last consistent commit has changelog offsets {last_consistent_offsets}; opening \
                 it there loses every later commit (a store with a changelog restores them from it)"
            ),
            Error::Snapshot { location, message, .. } => {
                with_message(f, format_args!("snapshot location {location}"), message)
            }
            Error::Damaged { path, message } => write!(
                f,
                "store {path} is damaged ({message}): it cannot prove that it holds the state of a commit, so it \
                 refuses to open rather than show part of one. A store with a changelog rebuilds itself from it; \
                 this one was opened without (or with the policy 'fail')"
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Storage { source, .. } | Error::Snapshot { source, .. } => {
                source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_follows_the_causes_and_display_does_not() {
        let io = std::io::Error::other("disk full");
        let e = Error::storage(Path::new("/s"), "writing the commit file", io);
        assert_eq!(e.to_string(), "RocksDB error in store /s: writing the commit file");
        assert_eq!(e.report().to_string(), "RocksDB error in store /s: writing the commit file: disk full");
        assert_eq!(std::error::Error::source(&e).map(|s| s.to_string()), Some("disk full".into()));
        assert_eq!(e.kind(), ErrorKind::Storage);
        let bare = Error::storage(Path::new("/s"), "", std::io::Error::other("gone"));
        assert_eq!(bare.report().to_string(), "RocksDB error in store /s: gone");
        let found = Error::snapshot_found("s3://b", "it did not answer");
        assert_eq!(found.report().to_string(), "snapshot location s3://b: it did not answer");
        assert_eq!(found.kind(), ErrorKind::Snapshot);
    }

    #[test]
    fn an_invalid_argument_says_only_what_was_wrong() {
        let e = Error::InvalidArgument("spill size must be at least 0".into());
        assert_eq!(e.report().to_string(), "spill size must be at least 0");
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    }
}
