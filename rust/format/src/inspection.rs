//! The records the operators' tool's natives (`NativeStoreInspection.java`) return: what a store's
//! files say about it ([`StoreFacts`]), what a check of every file found and what the next open
//! would do under each damage policy ([`Verification`]), and committed entries read out of a
//! store ([`DumpChunk`]). The engine's `inspect` module fills them from a read-only view of the
//! files; Java reads them. `tests/golden/inspection.txt` holds records encoded here
//! (`tests/golden.rs`) that Java's `StoreInspectionTest` decodes again.
//!
//! Every record starts with its version byte ([`VERSION`]); big-endian, strings as `[int32 len]
//! [UTF-8]`, byte strings as `[int32 len][bytes]`, as the rest of the JNI wire format; nothing may
//! follow the last field.
//!
//! ```text
//! StoreFacts    [version][int8 kind][int8 valueFormat or -1][int8 upgradePending][int8 timeToLive]
//!               [int64 storeTime][int8 commitPending][int8 uncommittedPending][int64 estimatedKeys]
//!               [int64 liveDataBytes][int64 walBytes]
//!               [int32 count] count × ([str topic][int32 partition][int64 offset])
//!               [int32 count] count × ([int8 severity][str what])
//! Verification  [version][int32 count] count × ([int8 severity][str what])
//!               [int32 count] count × ([int8 policy][int8 outcome][str detail])
//! DumpChunk     [version][int32 resumeLen or -1][resume]
//!               [int32 count] count × ([bytes key][bytes value][int64 first][int64 second])
//! ```

use crate::offsets::TopicPartition;
use crate::open_options::CorruptionPolicy;
use crate::reader::{push_offsets, push_str, Reader};
use crate::{Decoded, Malformed};

/// The version byte every record starts with.
pub const VERSION: u8 = 1;

/// "No such time" in [`StoreFacts::store_time`] and the times of a [`DumpEntry`] (Java's
/// `Long.MIN_VALUE`).
pub const NO_TIME: i64 = i64::MIN;

/// The kind of store a directory holds, as the store records it (`store_kind.rs`); [`StoreKind`]
/// codes, 0 for a store written before kinds were recorded.
pub use crate::store_kind::StoreKind;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Worth knowing, nothing lost: a write-ahead log's torn end (a write cut short by a crash,
    /// which no commit was acknowledged from), a snapshot checkpoint left behind.
    Note,
    /// Damage: files whose checksums fail, a write-ahead log damaged before its end, a store marked
    /// damaged, missing files. The store does not open as it was last committed.
    Damage,
}

impl Severity {
    fn code(self) -> u8 {
        match self {
            Severity::Note => 0,
            Severity::Damage => 1,
        }
    }

    fn from_code(code: u8) -> Decoded<Severity> {
        match code {
            0 => Ok(Severity::Note),
            1 => Ok(Severity::Damage),
            other => Err(Malformed(format!("unknown finding severity {other}"))),
        }
    }
}

/// One thing a look at a store's files found, in words an operator can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub severity: Severity,
    pub what: String,
}

/// What the files of one store say about it, read without writing to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreFacts {
    pub kind: Option<StoreKind>,
    /// The value format's code (`ValueFormat::code`); `None` when the store recorded none (empty).
    pub value_format: Option<u8>,
    /// A value format upgrade was cut short: the next open finishes it.
    pub upgrade_pending: bool,
    /// The store's rows are in the time-to-live layout.
    pub time_to_live: bool,
    /// A store with a time-to-live: its committed time ([`NO_TIME`]: none yet).
    pub store_time: i64,
    /// A secondary-store commit is being copied into the main store: the next open rolls it
    /// forward (the offsets below are the ones it reaches).
    pub commit_pending: bool,
    /// The temporary store holds writes of a secondary-store transaction that was never
    /// committed: the next open throws them away.
    pub uncommitted_pending: bool,
    /// RocksDB's estimate of the rows in the store's data.
    pub estimated_keys: i64,
    /// The bytes of the store's live data files (SST), and of its write-ahead log files.
    pub live_data_bytes: i64,
    pub wal_bytes: i64,
    /// The changelog offsets of the commit the store opens at.
    pub offsets: Vec<(TopicPartition, i64)>,
    pub findings: Vec<Finding>,
}

/// What the next open of a store does under a damage policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Opens at its last commit.
    Opens,
    /// Opens at its last commit after rolling a secondary-store commit's copy forward.
    RollsForward,
    /// Opens at the last commit before a damaged write-ahead log record; the changelog restores
    /// the later commits.
    OpensBeforeDamage,
    /// Refuses to open.
    Refuses,
    /// Deletes the store's files and opens empty; the changelog restores all of it.
    Wipes,
}

impl Outcome {
    pub const ALL: [Outcome; 5] =
        [Outcome::Opens, Outcome::RollsForward, Outcome::OpensBeforeDamage, Outcome::Refuses, Outcome::Wipes];

    fn code(self) -> u8 {
        match self {
            Outcome::Opens => 0,
            Outcome::RollsForward => 1,
            Outcome::OpensBeforeDamage => 2,
            Outcome::Refuses => 3,
            Outcome::Wipes => 4,
        }
    }
}

/// What a check of every file of a store found, and what its next open does under each policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    pub findings: Vec<Finding>,
    /// One per [`CorruptionPolicy`], in [`CorruptionPolicy::ALL`]'s order: the outcome and its
    /// detail (the offsets it opens at, the error it refuses with).
    pub next_open: Vec<(CorruptionPolicy, Outcome, String)>,
}

/// One committed entry of a store. `first` and `second` are the kind's times ([`NO_TIME`] where
/// the kind has none): a key-value store with a time-to-live, the key's write time; a window
/// store, the window's start and the entry's sequence number; a session store, the session's
/// start and end; a versioned store, the value's valid-from time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpEntry {
    pub key: Vec<u8>,
    pub value: Vec<u8>,
    pub first: i64,
    pub second: i64,
}

/// Some of a store's committed entries, in its order, and where the next chunk starts (`None`:
/// the entries end here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpChunk {
    pub resume: Option<Vec<u8>>,
    pub entries: Vec<DumpEntry>,
}

fn push_findings(out: &mut Vec<u8>, findings: &[Finding]) {
    out.extend_from_slice(&(findings.len() as i32).to_be_bytes());
    for finding in findings {
        out.push(finding.severity.code());
        push_str(out, &finding.what);
    }
}

fn read_findings(reader: &mut Reader<'_>) -> Decoded<Vec<Finding>> {
    let n = reader.count(5)?;
    let mut findings = Vec::with_capacity(n);
    for _ in 0..n {
        let severity = Severity::from_code(reader.u8()?)?;
        findings.push(Finding { severity, what: reader.str("a finding")?.to_owned() });
    }
    Ok(findings)
}

fn push_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
    out.extend_from_slice(bytes);
}

impl StoreFacts {
    const WHAT: &'static str = "store facts";

    /// The bytes [`Self::decode`] reads (what Java's `StoreFacts` reads).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION, self.kind.map_or(0, StoreKind::code)];
        out.push(self.value_format.map_or(0xFF, |code| code));
        out.push(u8::from(self.upgrade_pending));
        out.push(u8::from(self.time_to_live));
        out.extend_from_slice(&self.store_time.to_be_bytes());
        out.push(u8::from(self.commit_pending));
        out.push(u8::from(self.uncommitted_pending));
        for value in [self.estimated_keys, self.live_data_bytes, self.wal_bytes] {
            out.extend_from_slice(&value.to_be_bytes());
        }
        push_offsets(&mut out, &self.offsets);
        push_findings(&mut out, &self.findings);
        out
    }

    /// Decodes a record; malformed bytes name what was wrong.
    pub fn decode(buf: &[u8]) -> Decoded<StoreFacts> {
        let mut reader = Reader::new(buf, Self::WHAT);
        reader.version(VERSION)?;
        let kind = match reader.u8()? {
            0 => None,
            code => Some(StoreKind::from_code(code)?),
        };
        let value_format = match reader.u8()? {
            0xFF => None,
            code => Some(code),
        };
        let upgrade_pending = reader.flag("upgradePending")?;
        let time_to_live = reader.flag("timeToLive")?;
        let store_time = reader.i64()?;
        let commit_pending = reader.flag("commitPending")?;
        let uncommitted_pending = reader.flag("uncommittedPending")?;
        let estimated_keys = reader.i64()?;
        let live_data_bytes = reader.i64()?;
        let wal_bytes = reader.i64()?;
        let offsets = reader.offsets()?;
        let findings = read_findings(&mut reader)?;
        reader.end()?;
        Ok(StoreFacts {
            kind,
            value_format,
            upgrade_pending,
            time_to_live,
            store_time,
            commit_pending,
            uncommitted_pending,
            estimated_keys,
            live_data_bytes,
            wal_bytes,
            offsets,
            findings,
        })
    }
}

impl Verification {
    const WHAT: &'static str = "store verification";

    /// The bytes [`Self::decode`] reads (what Java's `Verification` reads).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION];
        push_findings(&mut out, &self.findings);
        out.extend_from_slice(&(self.next_open.len() as i32).to_be_bytes());
        for (policy, outcome, detail) in &self.next_open {
            out.push(policy.code());
            out.push(outcome.code());
            push_str(&mut out, detail);
        }
        out
    }

    /// Decodes a record; malformed bytes name what was wrong.
    pub fn decode(buf: &[u8]) -> Decoded<Verification> {
        let mut reader = Reader::new(buf, Self::WHAT);
        reader.version(VERSION)?;
        let findings = read_findings(&mut reader)?;
        let n = reader.count(6)?;
        let mut next_open = Vec::with_capacity(n);
        for _ in 0..n {
            let code = reader.u8()?;
            let policy = CorruptionPolicy::ALL
                .into_iter()
                .find(|p| p.code() == code)
                .ok_or_else(|| Malformed(format!("{}: unknown damage policy {code}", Self::WHAT)))?;
            let code = reader.u8()?;
            let outcome = Outcome::ALL
                .into_iter()
                .find(|o| o.code() == code)
                .ok_or_else(|| Malformed(format!("{}: unknown outcome {code}", Self::WHAT)))?;
            next_open.push((policy, outcome, reader.str("an outcome's detail")?.to_owned()));
        }
        reader.end()?;
        Ok(Verification { findings, next_open })
    }
}

impl DumpChunk {
    const WHAT: &'static str = "dump chunk";

    /// The bytes [`Self::decode`] reads (what Java's `NativeStoreInspection` reads).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION];
        match &self.resume {
            Some(resume) => push_bytes(&mut out, resume),
            None => out.extend_from_slice(&(-1i32).to_be_bytes()),
        }
        out.extend_from_slice(&(self.entries.len() as i32).to_be_bytes());
        for entry in &self.entries {
            push_bytes(&mut out, &entry.key);
            push_bytes(&mut out, &entry.value);
            out.extend_from_slice(&entry.first.to_be_bytes());
            out.extend_from_slice(&entry.second.to_be_bytes());
        }
        out
    }

    /// Decodes a record; malformed bytes name what was wrong.
    pub fn decode(buf: &[u8]) -> Decoded<DumpChunk> {
        let mut reader = Reader::new(buf, Self::WHAT);
        reader.version(VERSION)?;
        let resume = reader.i32_prefixed(true)?.map(<[u8]>::to_vec);
        let n = reader.count(24)?;
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            let key = reader.i32_prefixed(false)?.unwrap_or_default().to_vec();
            let value = reader.i32_prefixed(false)?.unwrap_or_default().to_vec();
            entries.push(DumpEntry { key, value, first: reader.i64()?, second: reader.i64()? });
        }
        reader.end()?;
        Ok(DumpChunk { resume, entries })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn facts() -> StoreFacts {
        StoreFacts {
            kind: Some(StoreKind::Window),
            value_format: Some(1),
            upgrade_pending: false,
            time_to_live: false,
            store_time: NO_TIME,
            commit_pending: true,
            uncommitted_pending: false,
            estimated_keys: 1234,
            live_data_bytes: 56789,
            wal_bytes: 4096,
            offsets: vec![(TopicPartition { topic: "app-counts-changelog".into(), partition: 3 }, 42)],
            findings: vec![Finding { severity: Severity::Note, what: "a torn tail".into() }],
        }
    }

    #[test]
    fn every_record_round_trips() {
        let facts = facts();
        assert_eq!(StoreFacts::decode(&facts.encode()).unwrap(), facts);
        let unknown = StoreFacts { kind: None, value_format: None, offsets: vec![], findings: vec![], ..facts };
        assert_eq!(StoreFacts::decode(&unknown.encode()).unwrap(), unknown);
        let verification = Verification {
            findings: vec![Finding { severity: Severity::Damage, what: "SST 000012.sst: checksum mismatch".into() }],
            next_open: vec![
                (CorruptionPolicy::Refuse, Outcome::Refuses, "damaged".into()),
                (CorruptionPolicy::OpenAtLastConsistentCommit, Outcome::Refuses, "damaged".into()),
                (CorruptionPolicy::RestoreFromChangelog, Outcome::Wipes, String::new()),
            ],
        };
        assert_eq!(Verification::decode(&verification.encode()).unwrap(), verification);
        let chunk = DumpChunk {
            resume: Some(vec![0, 1]),
            entries: vec![
                DumpEntry { key: b"k".to_vec(), value: vec![], first: 5, second: NO_TIME },
                DumpEntry { key: vec![], value: b"v".to_vec(), first: NO_TIME, second: NO_TIME },
            ],
        };
        assert_eq!(DumpChunk::decode(&chunk.encode()).unwrap(), chunk);
        let last = DumpChunk { resume: None, entries: vec![] };
        assert_eq!(DumpChunk::decode(&last.encode()).unwrap(), last);
    }

    #[test]
    fn malformed_records_say_what_was_wrong() {
        let bytes = facts().encode();
        for cut in 0..bytes.len() {
            assert!(StoreFacts::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(StoreFacts::decode(&extra).unwrap_err().0.contains("after the record"));
        let mut kind = bytes.clone();
        kind[1] = 9;
        assert!(StoreFacts::decode(&kind).is_err());
        let mut version = bytes;
        version[0] = 7;
        assert!(StoreFacts::decode(&version).unwrap_err().0.contains("version 7"));
        let mut huge = vec![VERSION];
        huge.extend_from_slice(&i32::MAX.to_be_bytes());
        assert!(Verification::decode(&huge).unwrap_err().0.contains("do not fit"));
        let mut outcome = Verification {
            findings: vec![],
            next_open: vec![(CorruptionPolicy::Refuse, Outcome::Opens, String::new())],
        }
        .encode();
        outcome[10] = 9; // after the version, no findings, one entry and its policy
        assert!(Verification::decode(&outcome).unwrap_err().0.contains("unknown outcome 9"));
    }
}
