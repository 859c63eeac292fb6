use std::fmt;

/// Everything that can go wrong in the engine. The JNI layer maps each variant to its own Java
/// exception class, so callers can react by kind, never by message text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// RocksDB or the file system failed; `path` is the store directory.
    Storage { path: String, message: String },
    /// The caller passed something malformed (e.g. a truncated batch encoding).
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
    Snapshot { location: String, message: String },
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub(crate) fn storage(path: &std::path::Path, e: impl fmt::Display) -> Self {
        Error::Storage { path: path.display().to_string(), message: e.to_string() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Storage { path, message } => write!(f, "RocksDB error in store {path}: {message}"),
            Error::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
            Error::Closed(m) => write!(f, "{m}"),
            Error::CorruptedWal { path, message, last_consistent_offsets } => write!(
                f,
                "the write-ahead log of store {path} is damaged before its end ({message}): the commits after \
                 the damage cannot be read back, so the store refuses to open rather than drop them \
                 silently. Its last consistent commit has changelog offsets {last_consistent_offsets}; opening \
                 it there loses every later commit (a store with a changelog restores them from it)"
            ),
            Error::Snapshot { location, message } => write!(f, "snapshot location {location}: {message}"),
            Error::Damaged { path, message } => write!(
                f,
                "store {path} is damaged ({message}): it cannot prove that it holds the state of a commit, so it \
                 refuses to open rather than show part of one. A store with a changelog rebuilds itself from it; \
                 this one was opened without (or with the policy 'fail')"
            ),
        }
    }
}

impl std::error::Error for Error {}
