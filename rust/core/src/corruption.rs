//! What opening a store does with damaged files: the policy ([`CorruptionPolicy`]) and the one
//! drastic step it may take, deleting a damaged store's files so that its changelog restores it.
//! `db.rs` finds the damage (and opens at the last consistent commit when the WAL is damaged and
//! the policy allows); `store.rs` wipes when the policy says so.

use crate::error::{Error, Result};
use std::path::Path;

/// What opening a store does when it finds its files damaged: a write-ahead log damaged before its
/// end, or damage that leaves no commit the store can prove it holds (an SST file, the MANIFEST, a
/// commit record that does not decode). A torn last WAL record, as a power loss leaves, is not
/// damage: it was never acknowledged with `sync_commit`, and is dropped. Whatever the policy, a
/// store that opens holds exactly the state of the commit its offsets name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CorruptionPolicy {
    /// Refuse to open ([`Error::CorruptedWal`] naming the WAL files and the offsets of the last
    /// consistent commit, or [`Error::Damaged`]); the files stay untouched.
    #[default]
    Refuse,
    /// A damaged WAL: open at the last commit before the damage and log a warning naming the
    /// store, the WAL files and the offsets it opened at (every later commit is lost from the
    /// store). Other damage: refuse.
    OpenAtLastConsistentCommit,
    /// For a store with a changelog: a damaged WAL opens at the last commit before the damage (the
    /// changelog restores the later ones); damage that leaves no provable commit deletes the
    /// store's files and opens it empty, without offsets, so the changelog restores all of it.
    /// Logged at warn (store, damage, files) and counted ([`crate::stats::Stat::Wipes`]).
    RestoreFromChangelog,
}

impl CorruptionPolicy {
    /// The spelling across JNI: `refuse`, `open-at-last-consistent-commit`, `restore-from-changelog`.
    pub fn name(self) -> &'static str {
        match self {
            CorruptionPolicy::Refuse => "refuse",
            CorruptionPolicy::OpenAtLastConsistentCommit => "open-at-last-consistent-commit",
            CorruptionPolicy::RestoreFromChangelog => "restore-from-changelog",
        }
    }

    /// Parses [`Self::name`]'s spelling.
    pub fn parse(name: &str) -> Result<CorruptionPolicy> {
        [CorruptionPolicy::Refuse, CorruptionPolicy::OpenAtLastConsistentCommit, CorruptionPolicy::RestoreFromChangelog]
            .into_iter()
            .find(|policy| policy.name() == name)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown corruption policy '{name}': expected refuse, open-at-last-consistent-commit or \
                     restore-from-changelog"
                ))
            })
    }

    /// Whether a damaged WAL opens at the last commit before the damage.
    pub(crate) fn opens_at_last_consistent_commit(self) -> bool {
        self != CorruptionPolicy::Refuse
    }
}

/// Deletes everything in a damaged store's directory; returns the names it deleted, for the log.
pub(crate) fn wipe(path: &Path) -> Result<String> {
    let err = |e: std::io::Error| Error::storage(path, format!("deleting the damaged store's files: {e}"));
    let mut names = Vec::new();
    for entry in std::fs::read_dir(path).map_err(err)? {
        let entry = entry.map_err(err)?;
        names.push(entry.file_name().to_string_lossy().into_owned());
        if entry.file_type().map_err(err)?.is_dir() {
            std::fs::remove_dir_all(entry.path()).map_err(err)?;
        } else {
            std::fs::remove_file(entry.path()).map_err(err)?;
        }
    }
    std::fs::File::open(path).and_then(|directory| directory.sync_all()).map_err(err)?;
    names.sort();
    Ok(names.join(", "))
}


/// The file that marks a store whose data a read or a write found damaged after it opened.
pub(crate) const DAMAGED_FILE: &str = "DAMAGED";

/// Records in the store's directory that RocksDB found damaged data after the store opened (a
/// block whose checksum fails is only found when it is read), so that the next open handles the
/// store as damaged ([`check_not_marked`]) instead of opening it and failing again on the same
/// read: with a changelog it then heals. Best effort: the error that led here is returned anyway.
pub(crate) fn mark_damaged(path: &Path, message: &str) {
    let file = path.join(DAMAGED_FILE);
    let written = std::fs::write(&file, message.as_bytes())
        .and_then(|()| std::fs::File::open(&file)?.sync_all())
        .and_then(|()| std::fs::File::open(path)?.sync_all());
    match written {
        Ok(()) => log::error!(
            "store {}: RocksDB found damaged data ({message}); the store is marked damaged ({}) and is handled as \
             such when it opens next",
            path.display(),
            file.display()
        ),
        Err(e) => log::error!("store {}: RocksDB found damaged data ({message}); marking it failed: {e}", path.display()),
    }
}

/// Fails with [`Error::Damaged`] if an earlier run marked the store damaged ([`mark_damaged`]).
pub(crate) fn check_not_marked(path: &Path) -> Result<()> {
    let file = path.join(DAMAGED_FILE);
    match std::fs::read(&file) {
        Ok(message) => Err(Error::Damaged {
            path: path.display().to_string(),
            message: format!(
                "an earlier read or write found damaged data ({}); {} marks it: delete that file to open the store \
                 as it is",
                String::from_utf8_lossy(&message),
                file.display()
            ),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::storage(path, format!("reading {}: {e}", file.display()))),
    }
}
