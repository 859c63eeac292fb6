//! The policy: what opening a store does when it finds its files damaged.

use crate::error::{Error, Result};

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
