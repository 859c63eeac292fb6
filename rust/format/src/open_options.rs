//! The options record every `Native*Store.open` takes: what opening any store kind takes besides
//! its directory and its kind's geometry (Java's `OpenOptions`, encoded once by
//! `OpenOptions.encode`; the engine's `StoreOptions`, built from it once by the JNI crate).
//!
//! This module owns the record's layout and the codes of its enumerations. Java writes the same
//! numbers; `tests/golden/open_options.txt` holds records encoded here (`tests/golden.rs`) that
//! Java's `OpenOptionsTest` encodes again and compares byte for byte. Layout, big-endian like the
//! rest of the JNI wire format ([`crate::wire`]):
//!
//! ```text
//! [int8 version = 2]
//! [int8 transactional 0|1][int8 syncCommit 0|1][int8 statistics 0|1]
//! [int8 strategy code][int8 corruption policy code][int8 value format code]
//! [int64 spillBytes]
//! [int8 ttl 0|1][int64 ttlMs][int8 time basis code]
//! [int32 len][rocksDBOptions, UTF-8][int32 len][storeRocksDBOptions, UTF-8]
//! ```
//!
//! Codes: [`Strategy::code`], [`CorruptionPolicy::code`], [`TimeBasis::code`] and, for the value
//! format, the byte a store records on disk ([`ValueFormat::code`]). Without a time-to-live
//! (`ttl` 0) its two fields are 0. Nothing may follow the last field. The spill size and the
//! time-to-live are carried as Java's `long`; whether they are allowed (a spill size not negative,
//! a time-to-live of at least 1 ms) is the engine's question.

use crate::reader::{push_str, Reader};
use crate::value_format::ValueFormat;
use crate::{Decoded, Malformed};

/// The version byte the record starts with.
pub const VERSION: u8 = 2;

/// Where a transactional store keeps its uncommitted writes. One type for the record and the
/// engine (which re-exports it), as [`ValueFormat`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Strategy {
    /// In memory, in an ordered map; commit is ONE atomic RocksDB write. Fastest for transactions
    /// that fit in memory (Kafka commits every 100 ms under exactly-once).
    #[default]
    IndexedBatch,
    /// In a temporary store on disk (KIP-844's reference design): a transaction may be larger than
    /// memory; commit copies it into the main store in bounded batches behind a commit record.
    SecondaryStore,
}

impl Strategy {
    pub const ALL: [Strategy; 2] = [Strategy::IndexedBatch, Strategy::SecondaryStore];

    /// The record's byte for the strategy.
    pub fn code(self) -> u8 {
        match self {
            Strategy::IndexedBatch => 0,
            Strategy::SecondaryStore => 1,
        }
    }

    /// The configuration spelling (`txn.rocksdb.transaction.strategy`): `indexed-batch` or
    /// `secondary-store`; also the name benchmarks and messages use.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::IndexedBatch => "indexed-batch",
            Strategy::SecondaryStore => "secondary-store",
        }
    }

    /// The strategy [`Self::name`] spells `name` (benchmarks, examples and the crash tests' child
    /// processes take it by name).
    pub fn parse(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|strategy| strategy.name() == name)
    }
}

/// What opening a store does when it finds its files damaged: a write-ahead log damaged before its
/// end, or damage that leaves no commit the store can prove it holds (an SST file, the MANIFEST, a
/// commit record that does not decode). A torn last WAL record, as a power loss leaves, is not
/// damage: it was never acknowledged with `sync_commit`, and is dropped. Whatever the policy, a
/// store that opens holds exactly the state of the commit its offsets name. One type for the
/// record and the engine (which re-exports it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CorruptionPolicy {
    /// Refuse to open (the engine's `Error::CorruptedWal` naming the WAL files and the offsets of
    /// the last consistent commit, or `Error::Damaged`); the files stay untouched.
    #[default]
    Refuse,
    /// A damaged WAL: open at the last commit before the damage and log a warning naming the
    /// store, the WAL files and the offsets it opened at (every later commit is lost from the
    /// store). Other damage: refuse.
    OpenAtLastConsistentCommit,
    /// For a store with a changelog: a damaged WAL opens at the last commit before the damage (the
    /// changelog restores the later ones); damage that leaves no provable commit deletes the
    /// store's files and opens it empty, without offsets, so the changelog restores all of it.
    /// Logged at warn (store, damage, files) and counted (the engine's `Stat::Wipes`).
    RestoreFromChangelog,
}

impl CorruptionPolicy {
    pub const ALL: [CorruptionPolicy; 3] = [
        CorruptionPolicy::Refuse,
        CorruptionPolicy::OpenAtLastConsistentCommit,
        CorruptionPolicy::RestoreFromChangelog,
    ];

    /// The record's byte for the policy.
    pub fn code(self) -> u8 {
        match self {
            CorruptionPolicy::Refuse => 0,
            CorruptionPolicy::OpenAtLastConsistentCommit => 1,
            CorruptionPolicy::RestoreFromChangelog => 2,
        }
    }
}

/// What a key-value store's time-to-live counts in. One type for the record and the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimeBasis {
    /// Stream time: the timestamps of the records the store is written with (a replay expires the
    /// same keys as the original run).
    #[default]
    Stream,
    /// Wall-clock time, as the stream thread reads it at each write and each commit (a store
    /// shrinks while no records arrive).
    WallClock,
}

impl TimeBasis {
    pub const ALL: [TimeBasis; 2] = [TimeBasis::Stream, TimeBasis::WallClock];

    /// The record's byte for the basis.
    pub fn code(self) -> u8 {
        match self {
            TimeBasis::Stream => 0,
            TimeBasis::WallClock => 1,
        }
    }

    /// The configuration spelling (`txn.rocksdb.ttl.time`): `stream` or `wall-clock`.
    pub fn name(self) -> &'static str {
        match self {
            TimeBasis::Stream => "stream",
            TimeBasis::WallClock => "wall-clock",
        }
    }
}

/// A key-value store's time-to-live: how long a key stays after its last write, in what time. One
/// type for the record and the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TtlOptions {
    /// As Java sent it (below 1 is the engine's to refuse, naming the setting).
    pub ttl_ms: i64,
    pub basis: TimeBasis,
}

/// One decoded options record (the strings borrow the input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenOptions<'a> {
    pub transactional: bool,
    pub sync_commit: bool,
    pub statistics: bool,
    pub strategy: Strategy,
    pub corruption: CorruptionPolicy,
    pub value_format: ValueFormat,
    /// `txn.rocksdb.secondary.store.spill.bytes` as Java holds it (a negative value is the
    /// engine's to refuse, naming the setting).
    pub spill_bytes: i64,
    /// The store's time-to-live, if its keys expire (key-value stores only: the engine refuses it
    /// on the other kinds).
    pub ttl: Option<TtlOptions>,
    /// The RocksDB options for every store (`txn.rocksdb.options`).
    pub rocksdb_options: &'a str,
    /// This store's own RocksDB options, applied after them.
    pub store_rocksdb_options: &'a str,
}

const WHAT: &str = "open options";

fn code<T: Copy>(reader: &mut Reader<'_>, all: &[T], code_of: fn(T) -> u8, name: &str) -> Decoded<T> {
    let code = reader.u8()?;
    all.iter()
        .copied()
        .find(|value| code_of(*value) == code)
        .ok_or_else(|| Malformed(format!("{WHAT}: unknown {name} code {code} (known: 0 to {})", all.len() - 1)))
}

fn ttl(reader: &mut Reader<'_>) -> Decoded<Option<TtlOptions>> {
    let present = reader.flag("ttl")?;
    let ttl_ms = reader.i64()?;
    let basis = code(reader, &TimeBasis::ALL, TimeBasis::code, "time basis")?;
    match present {
        true => Ok(Some(TtlOptions { ttl_ms, basis })),
        false if ttl_ms == 0 && basis == TimeBasis::Stream => Ok(None),
        false => Err(Malformed(format!(
            "{WHAT}: no time-to-live, but its fields are {ttl_ms} ms and {} instead of 0",
            basis.name()
        ))),
    }
}

impl<'a> OpenOptions<'a> {
    /// Decodes a record; malformed bytes (a wrong version, an unknown code, a flag that is not 0
    /// or 1, a truncated record, bytes after it, a string that is not UTF-8) name what was wrong.
    pub fn decode(buf: &'a [u8]) -> Decoded<OpenOptions<'a>> {
        let mut reader = Reader::new(buf, WHAT);
        reader.version(VERSION)?;
        let options = OpenOptions {
            transactional: reader.flag("transactional")?,
            sync_commit: reader.flag("syncCommit")?,
            statistics: reader.flag("statistics")?,
            strategy: code(&mut reader, &Strategy::ALL, Strategy::code, "transaction strategy")?,
            corruption: code(&mut reader, &CorruptionPolicy::ALL, CorruptionPolicy::code, "corruption policy")?,
            value_format: code(&mut reader, &ValueFormat::ALL, ValueFormat::code, "value format")?,
            spill_bytes: reader.i64()?,
            ttl: ttl(&mut reader)?,
            rocksdb_options: reader.str("rocksDBOptions")?,
            store_rocksdb_options: reader.str("storeRocksDBOptions")?,
        };
        reader.end()?;
        Ok(options)
    }

    /// The bytes [`Self::decode`] reads (what Java's `OpenOptions.encode` writes).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(33 + self.rocksdb_options.len() + self.store_rocksdb_options.len());
        out.push(VERSION);
        out.extend_from_slice(&[u8::from(self.transactional), u8::from(self.sync_commit), u8::from(self.statistics)]);
        out.extend_from_slice(&[self.strategy.code(), self.corruption.code(), self.value_format.code()]);
        out.extend_from_slice(&self.spill_bytes.to_be_bytes());
        let ttl = self.ttl.unwrap_or(TtlOptions { ttl_ms: 0, basis: TimeBasis::Stream });
        out.push(u8::from(self.ttl.is_some()));
        out.extend_from_slice(&ttl.ttl_ms.to_be_bytes());
        out.push(ttl.basis.code());
        push_str(&mut out, self.rocksdb_options);
        push_str(&mut out, self.store_rocksdb_options);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> OpenOptions<'static> {
        OpenOptions {
            transactional: true,
            sync_commit: false,
            statistics: true,
            strategy: Strategy::SecondaryStore,
            corruption: CorruptionPolicy::RestoreFromChangelog,
            value_format: ValueFormat::TimestampedWithHeaders,
            spill_bytes: 16 << 20,
            ttl: Some(TtlOptions { ttl_ms: 3_600_000, basis: TimeBasis::WallClock }),
            rocksdb_options: "write_buffer_size=1048576",
            store_rocksdb_options: "",
        }
    }

    #[test]
    fn round_trips_every_code() {
        for strategy in Strategy::ALL {
            for corruption in CorruptionPolicy::ALL {
                for value_format in ValueFormat::ALL {
                    let options = OpenOptions { strategy, corruption, value_format, ..sample() };
                    assert_eq!(OpenOptions::decode(&options.encode()), Ok(options));
                }
            }
        }
        for ttl in [None, Some(TtlOptions { ttl_ms: -1, basis: TimeBasis::Stream })] {
            let options = OpenOptions { ttl, ..sample() };
            assert_eq!(OpenOptions::decode(&options.encode()), Ok(options));
        }
        for basis in TimeBasis::ALL {
            let options = OpenOptions { ttl: Some(TtlOptions { ttl_ms: 1, basis }), ..sample() };
            assert_eq!(OpenOptions::decode(&options.encode()), Ok(options));
        }
    }

    #[test]
    fn codes_are_distinct_and_dense() {
        let strategies: Vec<u8> = Strategy::ALL.iter().map(|s| s.code()).collect();
        let policies: Vec<u8> = CorruptionPolicy::ALL.iter().map(|p| p.code()).collect();
        let formats: Vec<u8> = ValueFormat::ALL.iter().map(|f| f.code()).collect();
        let bases: Vec<u8> = TimeBasis::ALL.iter().map(|b| b.code()).collect();
        assert_eq!(bases, [0, 1]);
        assert_eq!(strategies, [0, 1]);
        assert_eq!(policies, [0, 1, 2]);
        assert_eq!(formats, [0, 1, 2, 3]);
    }

    #[test]
    fn malformed_records_say_what_was_wrong() {
        let good = sample().encode();
        let with = |at: usize, byte: u8| {
            let mut bytes = good.clone();
            bytes[at] = byte;
            OpenOptions::decode(&bytes).unwrap_err().0
        };
        assert_eq!(with(0, 1), "open options: version 1, expected 2 (the Java classes and the native library differ)");
        assert_eq!(with(1, 2), "open options: transactional is 2, neither 0 nor 1");
        assert_eq!(with(4, 9), "open options: unknown transaction strategy code 9 (known: 0 to 1)");
        assert_eq!(with(5, 3), "open options: unknown corruption policy code 3 (known: 0 to 2)");
        assert_eq!(with(6, 4), "open options: unknown value format code 4 (known: 0 to 3)");
        assert_eq!(with(15, 2), "open options: ttl is 2, neither 0 nor 1");
        assert_eq!(with(24, 2), "open options: unknown time basis code 2 (known: 0 to 1)");
        let without = OpenOptions { ttl: None, ..sample() }.encode();
        let mut stray = without.clone();
        stray[23] = 5;
        assert_eq!(
            OpenOptions::decode(&stray).unwrap_err().0,
            "open options: no time-to-live, but its fields are 5 ms and stream instead of 0"
        );
        assert_eq!(
            OpenOptions::decode(&good[..10]).unwrap_err().0,
            "truncated open options: needed 8 more bytes, 3 left"
        );
        assert_eq!(OpenOptions::decode(&[]).unwrap_err().0, "truncated open options: needed 1 more bytes, 0 left");
        let trailing = [&good[..], &[0]].concat();
        assert_eq!(OpenOptions::decode(&trailing).unwrap_err().0, "open options: 1 bytes after the record");
        let mut not_utf8 = good[..25].to_vec();
        not_utf8.extend_from_slice(&[0, 0, 0, 1, 0xFF, 0, 0, 0, 0]);
        assert_eq!(OpenOptions::decode(&not_utf8).unwrap_err().0, "open options: rocksDBOptions is not UTF-8");
    }
}
