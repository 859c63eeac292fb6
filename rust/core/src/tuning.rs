//! RocksDB options a user tunes (`txn.rocksdb.options`): RocksDB's own option-string syntax
//! (`key=value;key={nested=value}`), applied by RocksDB's parser to a store's DB and column-family
//! options when it opens, after the engine's. What correctness or the shared memory budget depends
//! on is refused ([`FORBIDDEN`]), with the reason.
//!
//! Each store opens with its own strings ([`Tuning`], in its `StoreOptions`), as Kafka calls its
//! `RocksDBConfigSetter` per store: two applications in one JVM each get their own.

use crate::error::{Error, Result};
use rust_rocksdb::Options;
use std::path::Path;
use std::sync::Arc;

/// Options that cannot be tuned, and why.
const FORBIDDEN: [(&str, &str); 23] = [
    ("atomic_flush", "restored records and their offsets are flushed together (atomic flush), which crash safety relies on"),
    ("manual_wal_flush", "commits write the WAL themselves (manual WAL flush), which durability relies on"),
    ("wal_recovery_mode", "recovery must replay the WAL up to the last complete commit"),
    ("best_efforts_recovery", "recovery must replay the WAL up to the last complete commit"),
    ("track_and_verify_wals", "recovery must find WAL files missing before newer ones (a hole in the store's writes, e.g. behind a damaged MANIFEST)"),
    ("unordered_write", "readers rely on snapshots seeing whole commits"),
    ("two_write_queues", "commits rely on one ordered write path"),
    ("allow_2pc", "commits are single atomic writes"),
    ("inplace_update_support", "iterators and snapshots rely on immutable memtable entries"),
    ("create_if_missing", "the store creates its own directory and column families"),
    ("create_missing_column_families", "the store creates its own directory and column families"),
    ("error_if_exists", "a store reopens its directory after every restart"),
    ("db_write_buffer_size", "memtables are bounded by the process-wide budget (txn.rocksdb.memory.write.buffer.bytes)"),
    ("comparator", "keys (offsets, segments, the temporary store) are ordered bytewise"),
    ("merge_operator", "the store never writes merge operands"),
    ("compaction_filter", "compaction must never drop committed data"),
    ("compaction_filter_factory", "compaction must never drop committed data"),
    ("prefix_extractor", "range scans read in total order"),
    ("memtable_factory", "iterators need an ordered memtable"),
    ("table_factory", "tables share the process-wide block cache; tune block_based_table_factory={...} instead"),
    ("block_cache", "every store shares one block cache (txn.rocksdb.memory.block.cache.bytes)"),
    ("no_block_cache", "every store shares one block cache (txn.rocksdb.memory.block.cache.bytes)"),
    ("cache_index_and_filter_blocks", "index and filter blocks count against the shared block cache"),
];

/// Keys whose value is a nested `{...}` list that is checked too.
const NESTED: [&str; 1] = ["block_based_table_factory"];

/// The top-level `key=value` pairs of an option string (values may be `{...}`).
fn pairs(options: &str) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    let mut push = |part: &str| -> Result<()> {
        let part = part.trim();
        if part.is_empty() {
            return Ok(());
        }
        let (key, value) = part.split_once('=').ok_or_else(|| {
            Error::InvalidArgument(format!("'{part}' is not key=value in RocksDB options '{options}'"))
        })?;
        out.push((key.trim().to_string(), value.trim().to_string()));
        Ok(())
    };
    for (i, c) in options.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| Error::InvalidArgument(format!("unbalanced '}}' in RocksDB options '{options}'")))?
            }
            ';' if depth == 0 => {
                push(&options[start..i])?;
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(Error::InvalidArgument(format!("unbalanced '{{' in RocksDB options '{options}'")));
    }
    push(&options[start..])?;
    Ok(out)
}

fn check_keys(options: &str) -> Result<()> {
    for (key, value) in pairs(options)? {
        if let Some((_, why)) = FORBIDDEN.iter().find(|(forbidden, _)| *forbidden == key) {
            return Err(Error::InvalidArgument(format!(
                "RocksDB option '{key}' cannot be changed for txn-rocksdb stores: {why}"
            )));
        }
        if NESTED.contains(&key.as_str()) {
            let inner = value.strip_prefix('{').and_then(|v| v.strip_suffix('}')).unwrap_or(&value);
            check_keys(inner)?;
        }
    }
    Ok(())
}

/// Applies `options` (RocksDB's option-string syntax) to `base` with RocksDB's parser.
fn parse_onto(base: &mut Options, options: &str) -> Result<Options> {
    check_keys(options)?;
    base.get_options_from_string(options)
        .map_err(|e| Error::InvalidArgument(format!("invalid RocksDB options '{options}': {}", e.into_string())))
}

/// Checks `options` as the store's open would: its keys, then RocksDB's parser.
pub fn validate(options: &str) -> Result<()> {
    parse_onto(&mut Options::default(), options).map(drop)
}

/// A store's RocksDB option strings, each checked ([`validate`]), applied in order when it opens,
/// after the engine's own options. Cloning shares them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tuning(Arc<[String]>);

impl Tuning {
    /// The option strings (empty ones are skipped), each checked as the store's open would.
    pub fn new(options: &[&str]) -> Result<Tuning> {
        for one in options {
            validate(one)?;
        }
        Ok(Tuning(options.iter().filter(|o| !o.trim().is_empty()).map(|o| o.to_string()).collect()))
    }

    /// `base` with these option strings applied; `base` itself when there are none. They were
    /// checked when made ([`Tuning::new`]); should RocksDB still refuse one here, it is skipped
    /// with a warning naming the store in `path`.
    pub(crate) fn apply(&self, path: &Path, mut base: Options) -> Options {
        for options in self.0.iter() {
            match parse_onto(&mut base, options) {
                Ok(tuned) => base = tuned,
                Err(e) => log::warn!("store {}: RocksDB options not applied: {e}", path.display()),
            }
        }
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tunable_options_pass_rocksdbs_parser() {
        validate("write_buffer_size=67108864;max_write_buffer_number=4;max_background_jobs=4").unwrap();
        validate("block_based_table_factory={block_size=16384;filter_policy=bloomfilter:16:false};level0_file_num_compaction_trigger=8").unwrap();
        validate("").unwrap();
        // The README's two examples.
        validate("write_buffer_size=67108864;max_write_buffer_number=4;level0_file_num_compaction_trigger=8").unwrap();
        validate("block_based_table_factory={filter_policy=bloomfilter:16:false;block_size=16384}").unwrap();
    }

    #[test]
    fn what_correctness_depends_on_is_refused_with_the_reason() {
        let e = validate("write_buffer_size=1048576;atomic_flush=false").unwrap_err().to_string();
        assert!(e.contains("'atomic_flush' cannot be changed") && e.contains("crash safety"), "{e}");
        let e = validate("block_based_table_factory={block_cache=1073741824}").unwrap_err().to_string();
        assert!(
            e.contains("'block_cache' cannot be changed") && e.contains("txn.rocksdb.memory.block.cache.bytes"),
            "{e}"
        );
        assert!(validate("manual_wal_flush=false").is_err());
    }

    #[test]
    fn rocksdbs_own_message_names_a_bad_option() {
        let e = validate("write_bufer_size=1").unwrap_err().to_string();
        assert!(e.contains("invalid RocksDB options 'write_bufer_size=1'") && e.contains("write_bufer_size"), "{e}");
        let e = validate("write_buffer_size=lots").unwrap_err().to_string();
        assert!(e.contains("write_buffer_size"), "{e}");
        assert!(validate("block_based_table_factory={block_size=1").is_err());
        assert!(validate("novalue").unwrap_err().to_string().contains("not key=value"));
    }
}
