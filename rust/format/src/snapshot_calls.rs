//! The records the snapshot natives (`NativeSnapshotLocation.java`) take and return: what opening
//! a location takes, what a restore is asked and answers, what a snapshot taken and a retention
//! answer. Java writes the requests and reads the answers (`NativeSnapshotLocation`); the engine's
//! `snapshot` module says what they mean. `tests/golden/snapshot_calls.txt` holds records encoded
//! here (`tests/golden.rs`) that Java's `SnapshotCallsTest` encodes or decodes again.
//!
//! Every record starts with its version byte ([`VERSION`]); big-endian, strings as `[int32 len]
//! [UTF-8]`, like the rest of the JNI wire format ([`crate::wire`]); nothing may follow the last
//! field. Numbers are carried as Java holds them (`long`, `int`): whether a value is allowed (a
//! positive timeout, a thread count) is the engine's question.
//!
//! ```text
//! LocationOptions  [version][str uri][int64 uploadBytesPerSecond][int64 requestTimeoutMs][int32 ioThreads]
//!                  [int32 count] count × ([str key][str value])
//! RestoreRequest   [version][str storeId][str dir][str topic][int32 partition][int64 start][int64 end]
//!                  [int64 patienceMs][int64 timeoutMs][int8 ttl]
//! RestoreAnswer    [version][int64 seq][int64 files][int64 bytes][int64 skipped][int64 waitedMs]
//! DownloadProgress [version][int64 seq][int64 doneBytes][int64 totalBytes][int64 elapsedMs]
//! TakeAnswer       [version][int64 seq][int64 files][int64 objectsSent][int64 bytesSent]
//!                  [int64 objectsVerified][int64 objectsDamaged][int64 objectsResent]
//!                  [int32 count] count × ([str topic][int32 partition][int64 offset])
//! RetainAnswer     [version][int64 manifestsDeleted][int64 objectsDeleted]
//! ListRequest      [version][str storeId][int64 patienceMs][int64 timeoutMs]
//!                  [int32 count] count × ([str topic][int32 partition][int64 start][int64 end])
//! ListAnswer       [version][int32 count] count × ([str storeId][int64 seq][int64 createdMs]
//!                  [int64 files][int64 bytes][int8 transactional][int8 strategy][int8 valueFormat]
//!                  [int8 ttl][str problem][str changelogRefuses]
//!                  [int32 count] count × ([str topic][int32 partition][int64 offset]))
//! ```
//!
//! A list request's empty `storeId` asks for every store; its changelogs are partitions as they
//! are now (log start and end offsets), which a restore would check each snapshot against. A
//! listed snapshot whose manifest does not decode has the `problem` (and its object's size as
//! `bytes`, zeros elsewhere); a usable one an empty `problem`. `changelogRefuses` says why a
//! restore now would pass a usable snapshot over for one of the request's changelogs (empty: it
//! would not, or the request named none of its changelog partitions).
//!
//! A restore that found no usable snapshot answers no record at all (Java's null).

use crate::offsets::TopicPartition;
use crate::reader::{push_offsets, push_str, Reader};
use crate::Decoded;

/// The version byte every record starts with.
pub const VERSION: u8 = 2;

/// What opening a snapshot location takes (Java's `NativeSnapshotLocation.open`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocationOptions<'a> {
    /// `file:///path`, `s3://bucket/prefix`, `az://container/prefix`, `abfs[s]://...`.
    pub uri: &'a str,
    /// Each file sent at most this fast on average (0: no limit).
    pub upload_bytes_per_second: i64,
    /// How long a request waits to connect and for its answer or next bytes.
    pub request_timeout_ms: i64,
    /// The threads of the process's snapshot I/O runtime (fixed by the first location opened).
    pub io_threads: i32,
    /// The object store's own options (`aws_endpoint`, `azure_storage_account_name`, ...), in
    /// the order Java sent them.
    pub options: Vec<(&'a str, &'a str)>,
}

/// What a restore of the newest usable snapshot is asked (`NativeSnapshotLocation.restoreNewest`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreRequest<'a> {
    pub store_id: &'a str,
    /// The store's directory, missing or empty.
    pub dir: &'a str,
    /// The store's changelog partition, and its log start and end offsets now.
    pub topic: &'a str,
    pub partition: i32,
    pub start: i64,
    pub end: i64,
    /// How long in all it may wait for the location to answer (time with no byte arriving).
    pub patience_ms: i64,
    /// How long it may take at most.
    pub timeout_ms: i64,
    /// Whether the store opens with a time-to-live: only a snapshot whose rows are in the same
    /// layout can be restored into it.
    pub ttl: bool,
}

/// What a restore that put a snapshot in place answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestoreAnswer {
    pub seq: i64,
    pub files: i64,
    /// Bytes downloaded.
    pub bytes: i64,
    /// Newer snapshots passed over as unusable.
    pub skipped: i64,
    /// Milliseconds it waited with no byte arriving.
    pub waited_ms: i64,
}

/// How far a restore's download has come (`NativeSnapshotLocation.DownloadWatch`): the snapshot
/// being downloaded (-1 before any), bytes received of its total, milliseconds since it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DownloadProgress {
    pub seq: i64,
    pub done_bytes: i64,
    pub total_bytes: i64,
    pub elapsed_ms: i64,
}

/// What sending a snapshot answers (`NativeSnapshotLocation.upload`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TakeAnswer {
    pub seq: i64,
    pub files: i64,
    /// Objects sent: whole files, or what was appended to one since an earlier snapshot.
    pub objects_sent: i64,
    pub bytes_sent: i64,
    /// Objects an earlier snapshot sent that this one read back and checked.
    pub objects_verified: i64,
    /// Of those, the ones found missing or damaged.
    pub objects_damaged: i64,
    /// Objects sent again because they were missing or damaged.
    pub objects_resent: i64,
    /// The changelog offsets the snapshot holds.
    pub offsets: Vec<(TopicPartition, i64)>,
}

/// What keeping a store's newest snapshots answers (`NativeSnapshotLocation.retain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetainAnswer {
    pub manifests_deleted: i64,
    pub objects_deleted: i64,
}

/// What a listing of a location is asked (`NativeSnapshotLocation.list`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListRequest<'a> {
    /// The store whose snapshots are listed; empty: every store's.
    pub store_id: &'a str,
    /// How long in all it may wait for the location to answer (time with no byte arriving).
    pub patience_ms: i64,
    /// How long it may take at most.
    pub timeout_ms: i64,
    /// Changelog partitions as they are now: `(partition, log start offset, log end offset)`.
    pub changelogs: Vec<(TopicPartition, i64, i64)>,
}

/// One snapshot a listing of a location found (`NativeSnapshotLocation.list`): what its manifest
/// says, or why it cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedSnapshot {
    pub store_id: String,
    pub seq: i64,
    /// When it was taken, in milliseconds since the epoch.
    pub created_ms: i64,
    pub files: i64,
    /// The bytes of its files (the manifest's object where `problem` is set).
    pub bytes: i64,
    pub transactional: bool,
    /// The strategy's and the value format's codes (`open_options`).
    pub strategy: u8,
    pub value_format: u8,
    pub ttl: bool,
    /// Why the manifest cannot be used (empty: it can).
    pub problem: String,
    /// Why a restore now would pass it over for a changelog the request gave (empty: it would not,
    /// or the request gave none of its changelog partitions).
    pub changelog_refuses: String,
    /// The changelog offsets the snapshot holds.
    pub offsets: Vec<(TopicPartition, i64)>,
}

/// What listing the snapshots at a location answers: every snapshot, by store id and then seq.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListAnswer {
    pub snapshots: Vec<ListedSnapshot>,
}

impl<'a> LocationOptions<'a> {
    const WHAT: &'static str = "snapshot location options";

    /// Decodes a record; malformed bytes name what was wrong.
    pub fn decode(buf: &'a [u8]) -> Decoded<LocationOptions<'a>> {
        let mut reader = Reader::new(buf, Self::WHAT);
        reader.version(VERSION)?;
        let uri = reader.str("uri")?;
        let upload_bytes_per_second = reader.i64()?;
        let request_timeout_ms = reader.i64()?;
        let io_threads = reader.i32()?;
        let entries = reader.count(8)?;
        let mut options = Vec::with_capacity(entries);
        for _ in 0..entries {
            options.push((reader.str("an option's key")?, reader.str("an option's value")?));
        }
        reader.end()?;
        Ok(LocationOptions { uri, upload_bytes_per_second, request_timeout_ms, io_threads, options })
    }

    /// The bytes [`Self::decode`] reads (what Java's `NativeSnapshotLocation` writes).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION];
        push_str(&mut out, self.uri);
        out.extend_from_slice(&self.upload_bytes_per_second.to_be_bytes());
        out.extend_from_slice(&self.request_timeout_ms.to_be_bytes());
        out.extend_from_slice(&self.io_threads.to_be_bytes());
        out.extend_from_slice(&(self.options.len() as i32).to_be_bytes());
        for (key, value) in &self.options {
            push_str(&mut out, key);
            push_str(&mut out, value);
        }
        out
    }
}

impl<'a> RestoreRequest<'a> {
    const WHAT: &'static str = "snapshot restore request";

    /// Decodes a record; malformed bytes name what was wrong.
    pub fn decode(buf: &'a [u8]) -> Decoded<RestoreRequest<'a>> {
        let mut reader = Reader::new(buf, Self::WHAT);
        reader.version(VERSION)?;
        let request = RestoreRequest {
            store_id: reader.str("storeId")?,
            dir: reader.str("dir")?,
            topic: reader.str("topic")?,
            partition: reader.i32()?,
            start: reader.i64()?,
            end: reader.i64()?,
            patience_ms: reader.i64()?,
            timeout_ms: reader.i64()?,
            ttl: reader.flag("ttl")?,
        };
        reader.end()?;
        Ok(request)
    }

    /// The bytes [`Self::decode`] reads.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION];
        push_str(&mut out, self.store_id);
        push_str(&mut out, self.dir);
        push_str(&mut out, self.topic);
        out.extend_from_slice(&self.partition.to_be_bytes());
        for value in [self.start, self.end, self.patience_ms, self.timeout_ms] {
            out.extend_from_slice(&value.to_be_bytes());
        }
        out.push(u8::from(self.ttl));
        out
    }
}

/// `values` after the version byte.
fn encode_longs(values: &[i64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + 8 * values.len());
    out.push(VERSION);
    for value in values {
        out.extend_from_slice(&value.to_be_bytes());
    }
    out
}

/// `N` longs after the version byte, and nothing after them.
fn decode_longs<const N: usize>(buf: &[u8], what: &'static str) -> Decoded<[i64; N]> {
    let mut reader = Reader::new(buf, what);
    reader.version(VERSION)?;
    let mut values = [0i64; N];
    for value in &mut values {
        *value = reader.i64()?;
    }
    reader.end()?;
    Ok(values)
}

impl RestoreAnswer {
    const WHAT: &'static str = "snapshot restore answer";

    /// Decodes a record; malformed bytes name what was wrong.
    pub fn decode(buf: &[u8]) -> Decoded<RestoreAnswer> {
        let [seq, files, bytes, skipped, waited_ms] = decode_longs(buf, Self::WHAT)?;
        Ok(RestoreAnswer { seq, files, bytes, skipped, waited_ms })
    }

    /// The bytes [`Self::decode`] reads (what Java's `NativeSnapshotLocation.Restored` reads).
    pub fn encode(&self) -> Vec<u8> {
        encode_longs(&[self.seq, self.files, self.bytes, self.skipped, self.waited_ms])
    }
}

impl DownloadProgress {
    const WHAT: &'static str = "snapshot download progress";

    /// Decodes a record; malformed bytes name what was wrong.
    pub fn decode(buf: &[u8]) -> Decoded<DownloadProgress> {
        let [seq, done_bytes, total_bytes, elapsed_ms] = decode_longs(buf, Self::WHAT)?;
        Ok(DownloadProgress { seq, done_bytes, total_bytes, elapsed_ms })
    }

    /// The bytes [`Self::decode`] reads (what Java's `SnapshotCalls.Downloading` reads).
    pub fn encode(&self) -> Vec<u8> {
        encode_longs(&[self.seq, self.done_bytes, self.total_bytes, self.elapsed_ms])
    }
}

impl TakeAnswer {
    const WHAT: &'static str = "snapshot take answer";

    /// Decodes a record; malformed bytes name what was wrong.
    pub fn decode(buf: &[u8]) -> Decoded<TakeAnswer> {
        let mut reader = Reader::new(buf, Self::WHAT);
        reader.version(VERSION)?;
        let mut longs = [0i64; 7];
        for value in &mut longs {
            *value = reader.i64()?;
        }
        let [seq, files, objects_sent, bytes_sent, objects_verified, objects_damaged, objects_resent] = longs;
        let offsets = reader.offsets()?;
        reader.end()?;
        Ok(TakeAnswer {
            seq,
            files,
            objects_sent,
            bytes_sent,
            objects_verified,
            objects_damaged,
            objects_resent,
            offsets,
        })
    }

    /// The bytes [`Self::decode`] reads (what Java's `NativeSnapshotLocation.Taken` reads).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = encode_longs(&[
            self.seq,
            self.files,
            self.objects_sent,
            self.bytes_sent,
            self.objects_verified,
            self.objects_damaged,
            self.objects_resent,
        ]);
        push_offsets(&mut out, &self.offsets);
        out
    }
}

impl RetainAnswer {
    const WHAT: &'static str = "snapshot retain answer";

    /// Decodes a record; malformed bytes name what was wrong.
    pub fn decode(buf: &[u8]) -> Decoded<RetainAnswer> {
        let [manifests_deleted, objects_deleted] = decode_longs(buf, Self::WHAT)?;
        Ok(RetainAnswer { manifests_deleted, objects_deleted })
    }

    /// The bytes [`Self::decode`] reads.
    pub fn encode(&self) -> Vec<u8> {
        encode_longs(&[self.manifests_deleted, self.objects_deleted])
    }
}

impl<'a> ListRequest<'a> {
    const WHAT: &'static str = "snapshot list request";

    /// Decodes a record; malformed bytes name what was wrong.
    pub fn decode(buf: &'a [u8]) -> Decoded<ListRequest<'a>> {
        let mut reader = Reader::new(buf, Self::WHAT);
        reader.version(VERSION)?;
        let store_id = reader.str("storeId")?;
        let patience_ms = reader.i64()?;
        let timeout_ms = reader.i64()?;
        let n = reader.count(24)?;
        let mut changelogs = Vec::with_capacity(n);
        for _ in 0..n {
            let topic = reader.str("a changelog's topic")?.to_owned();
            let partition = reader.i32()?;
            changelogs.push((TopicPartition { topic, partition }, reader.i64()?, reader.i64()?));
        }
        reader.end()?;
        Ok(ListRequest { store_id, patience_ms, timeout_ms, changelogs })
    }

    /// The bytes [`Self::decode`] reads (what Java's `SnapshotCalls.ListRequest` writes).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION];
        push_str(&mut out, self.store_id);
        out.extend_from_slice(&self.patience_ms.to_be_bytes());
        out.extend_from_slice(&self.timeout_ms.to_be_bytes());
        out.extend_from_slice(&(self.changelogs.len() as i32).to_be_bytes());
        for (partition, start, end) in &self.changelogs {
            push_str(&mut out, &partition.topic);
            out.extend_from_slice(&partition.partition.to_be_bytes());
            out.extend_from_slice(&start.to_be_bytes());
            out.extend_from_slice(&end.to_be_bytes());
        }
        out
    }
}

impl ListAnswer {
    const WHAT: &'static str = "snapshot list answer";

    /// Decodes a record; malformed bytes name what was wrong.
    pub fn decode(buf: &[u8]) -> Decoded<ListAnswer> {
        let mut reader = Reader::new(buf, Self::WHAT);
        reader.version(VERSION)?;
        let n = reader.count(52)?;
        let mut snapshots = Vec::with_capacity(n);
        for _ in 0..n {
            let store_id = reader.str("a store id")?.to_owned();
            let [seq, created_ms, files, bytes] = [reader.i64()?, reader.i64()?, reader.i64()?, reader.i64()?];
            let transactional = reader.flag("transactional")?;
            let (strategy, value_format) = (reader.u8()?, reader.u8()?);
            let ttl = reader.flag("ttl")?;
            let problem = reader.str("a problem")?.to_owned();
            let changelog_refuses = reader.str("a changelog's refusal")?.to_owned();
            let offsets = reader.offsets()?;
            snapshots.push(ListedSnapshot {
                store_id,
                seq,
                created_ms,
                files,
                bytes,
                transactional,
                strategy,
                value_format,
                ttl,
                problem,
                changelog_refuses,
                offsets,
            });
        }
        reader.end()?;
        Ok(ListAnswer { snapshots })
    }

    /// The bytes [`Self::decode`] reads (what Java's `NativeSnapshotLocation.Listed` reads).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION];
        out.extend_from_slice(&(self.snapshots.len() as i32).to_be_bytes());
        for snapshot in &self.snapshots {
            push_str(&mut out, &snapshot.store_id);
            for value in [snapshot.seq, snapshot.created_ms, snapshot.files, snapshot.bytes] {
                out.extend_from_slice(&value.to_be_bytes());
            }
            out.extend_from_slice(&[
                u8::from(snapshot.transactional),
                snapshot.strategy,
                snapshot.value_format,
                u8::from(snapshot.ttl),
            ]);
            push_str(&mut out, &snapshot.problem);
            push_str(&mut out, &snapshot.changelog_refuses);
            push_offsets(&mut out, &snapshot.offsets);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn location() -> LocationOptions<'static> {
        LocationOptions {
            uri: "s3://bucket/prefix",
            upload_bytes_per_second: 1 << 20,
            request_timeout_ms: 5_000,
            io_threads: 2,
            options: vec![("aws_endpoint", "http://127.0.0.1:9000"), ("aws_region", "eu=west")],
        }
    }

    fn taken() -> TakeAnswer {
        TakeAnswer {
            seq: 7,
            files: 9,
            objects_sent: 3,
            bytes_sent: 4096,
            objects_verified: 2,
            objects_damaged: 1,
            objects_resent: 1,
            offsets: vec![(TopicPartition { topic: "app-store-changelog".into(), partition: 3 }, 42)],
        }
    }

    #[test]
    fn every_record_round_trips() {
        let location = location();
        assert_eq!(LocationOptions::decode(&location.encode()), Ok(location));
        let request = RestoreRequest {
            store_id: "app/0_1/store",
            dir: "/state/app/0_1/rocksdb/store",
            topic: "app-store-changelog",
            partition: 1,
            start: 0,
            end: 100,
            patience_ms: 10_000,
            timeout_ms: 150_000,
            ttl: true,
        };
        assert_eq!(RestoreRequest::decode(&request.encode()), Ok(request));
        let restored = RestoreAnswer { seq: 4, files: 6, bytes: 1 << 30, skipped: 1, waited_ms: 250 };
        assert_eq!(RestoreAnswer::decode(&restored.encode()), Ok(restored));
        let taken = taken();
        assert_eq!(TakeAnswer::decode(&taken.encode()), Ok(taken.clone()));
        let without = TakeAnswer { offsets: vec![], ..taken };
        assert_eq!(TakeAnswer::decode(&without.encode()), Ok(without));
        let retained = RetainAnswer { manifests_deleted: 2, objects_deleted: 5 };
        assert_eq!(RetainAnswer::decode(&retained.encode()), Ok(retained));
        let downloading = DownloadProgress { seq: 3, done_bytes: 1 << 20, total_bytes: 4 << 20, elapsed_ms: 12_000 };
        assert_eq!(DownloadProgress::decode(&downloading.encode()), Ok(downloading));
        let listing = ListRequest {
            store_id: "",
            patience_ms: 30_000,
            timeout_ms: 1_800_000,
            changelogs: vec![(TopicPartition { topic: "app-store-changelog".into(), partition: 2 }, 5, 900)],
        };
        assert_eq!(ListRequest::decode(&listing.encode()), Ok(listing));
    }

    #[test]
    fn malformed_records_say_what_was_wrong() {
        let good = location().encode();
        let mut wrong_version = good.clone();
        wrong_version[0] = 1;
        assert_eq!(
            LocationOptions::decode(&wrong_version).unwrap_err().0,
            "snapshot location options: version 1, expected 2 (the Java classes and the native library differ)"
        );
        let trailing = [&good[..], &[0]].concat();
        assert_eq!(
            LocationOptions::decode(&trailing).unwrap_err().0,
            "snapshot location options: 1 bytes after the record"
        );
        // the option count claims more entries than the bytes left can hold
        let count_at = 1 + 4 + "s3://bucket/prefix".len() + 8 + 8 + 4;
        let mut huge = good.clone();
        huge[count_at..count_at + 4].copy_from_slice(&i32::MAX.to_be_bytes());
        assert!(LocationOptions::decode(&huge).unwrap_err().0.contains("entries do not fit"));
        let mut negative = good;
        negative[count_at..count_at + 4].copy_from_slice(&(-1i32).to_be_bytes());
        assert!(LocationOptions::decode(&negative).unwrap_err().0.contains("-1 entries"));
        let answer = taken().encode();
        assert_eq!(
            TakeAnswer::decode(&answer[..answer.len() - 1]).unwrap_err().0,
            "truncated snapshot take answer: needed 8 more bytes, 7 left"
        );
        assert_eq!(
            RetainAnswer::decode(&[]).unwrap_err().0,
            "truncated snapshot retain answer: needed 1 more bytes, 0 left"
        );
    }
}
