//! The policy: what opening a store does when it finds its files damaged. The type is the format
//! crate's ([`CorruptionPolicy`], the code the open options record carries); what each policy
//! does is decided here and in `wal.rs` and `damaged.rs`.

pub use txn_rocksdb_format::open_options::CorruptionPolicy;

/// Whether a damaged WAL opens at the last commit before the damage.
pub(crate) fn opens_at_last_consistent_commit(policy: CorruptionPolicy) -> bool {
    policy != CorruptionPolicy::Refuse
}
