//! Golden byte vectors that Java checks against: the Rust side of every layout Java encodes or
//! decodes itself. Each file under `tests/golden/` is what this test generates; Java's tests read
//! the same file (`OpenOptionsTest`, `SnapshotCallsTest`, `SegmentedKeysTest`, `ExpiredKeysTest`,
//! `StoreInspectionTest`), so a layout or code
//! changed on one side
//! only fails one of them. After a deliberate change, regenerate with
//! `TXN_BLESS_GOLDEN=1 cargo test -p txn-rocksdb-format --test golden` and change Java to match.

use std::fmt::Write;
use std::path::Path;
use txn_rocksdb_format::inspection::{
    DumpChunk, DumpEntry, Finding, Outcome, Severity, StoreFacts, StoreKind, Verification, NO_TIME,
};
use txn_rocksdb_format::offsets::TopicPartition;
use txn_rocksdb_format::open_options::{CorruptionPolicy, OpenOptions, Strategy, TimeBasis, TtlOptions};
use txn_rocksdb_format::snapshot_calls::{
    DownloadProgress, ListAnswer, ListRequest, ListedSnapshot, LocationOptions, RestoreAnswer, RestoreRequest,
    RetainAnswer, TakeAnswer,
};
use txn_rocksdb_format::value_format::ValueFormat;
use txn_rocksdb_format::wire::{decode_expired, encode_expired};
use txn_rocksdb_format::{session_key, window_key};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

/// Compares `generated` with the file (or writes it under `TXN_BLESS_GOLDEN`).
fn check(file: &str, generated: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(file);
    if std::env::var_os("TXN_BLESS_GOLDEN").is_some() {
        std::fs::write(&path, generated).unwrap();
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(kept, generated, "{} differs from what the format crate encodes", path.display());
}

/// One record per line, `name hex`: together they use every code of every enumeration. Java's
/// `OpenOptionsTest` builds the same records by name.
fn open_options_cases() -> Vec<(&'static str, OpenOptions<'static>)> {
    vec![
        (
            "defaults",
            OpenOptions {
                transactional: true,
                sync_commit: false,
                statistics: false,
                strategy: Strategy::IndexedBatch,
                corruption: CorruptionPolicy::Refuse,
                value_format: ValueFormat::Plain,
                spill_bytes: 16 << 20,
                ttl: None,
                rocksdb_options: "",
                store_rocksdb_options: "",
            },
        ),
        (
            "secondary-store",
            OpenOptions {
                transactional: true,
                sync_commit: true,
                statistics: true,
                strategy: Strategy::SecondaryStore,
                corruption: CorruptionPolicy::OpenAtLastConsistentCommit,
                value_format: ValueFormat::Timestamped,
                spill_bytes: 0,
                ttl: Some(TtlOptions { ttl_ms: 3_600_000, basis: TimeBasis::Stream }),
                rocksdb_options: "write_buffer_size=1048576",
                store_rocksdb_options: "max_write_buffer_number=3",
            },
        ),
        (
            "write-through",
            OpenOptions {
                transactional: false,
                sync_commit: false,
                statistics: false,
                strategy: Strategy::IndexedBatch,
                corruption: CorruptionPolicy::RestoreFromChangelog,
                value_format: ValueFormat::TimestampedWithHeaders,
                spill_bytes: -1,
                ttl: Some(TtlOptions { ttl_ms: i64::MAX, basis: TimeBasis::WallClock }),
                rocksdb_options: "",
                store_rocksdb_options: "caf\u{e9}=1",
            },
        ),
        (
            "with-headers",
            OpenOptions {
                transactional: true,
                sync_commit: false,
                statistics: true,
                strategy: Strategy::SecondaryStore,
                corruption: CorruptionPolicy::Refuse,
                value_format: ValueFormat::WithHeaders,
                spill_bytes: i64::MAX,
                ttl: None,
                rocksdb_options: "a=1;b=2",
                store_rocksdb_options: "",
            },
        ),
    ]
}

#[test]
fn open_options_records() {
    let mut generated = String::new();
    for (name, options) in open_options_cases() {
        let bytes = options.encode();
        assert_eq!(OpenOptions::decode(&bytes), Ok(options));
        writeln!(generated, "{name} {}", hex(&bytes)).unwrap();
    }
    check("open_options.txt", &generated);
}

/// The snapshot natives' records, one per line, `kind name hex`. Java's `SnapshotCallsTest`
/// encodes the requests (`location`, `restore-request`) from the same values and decodes the
/// answers (`restore-answer`, `take-answer`, `retain-answer`), expecting the same values.
#[test]
fn snapshot_calls_records() {
    let mut generated = String::new();
    let mut line =
        |kind: &str, name: &str, bytes: Vec<u8>| writeln!(generated, "{kind} {name} {}", hex(&bytes)).unwrap();
    for (name, options) in [
        (
            "s3",
            LocationOptions {
                uri: "s3://bucket/prefix",
                upload_bytes_per_second: 0,
                request_timeout_ms: 5_000,
                io_threads: 2,
                options: vec![("aws_endpoint", "http://127.0.0.1:9000"), ("aws_region", "eu=west-1")],
            },
        ),
        (
            "file",
            LocationOptions {
                uri: "file:///tmp/caf\u{e9}",
                upload_bytes_per_second: 1 << 20,
                request_timeout_ms: 1,
                io_threads: 64,
                options: vec![],
            },
        ),
    ] {
        assert_eq!(LocationOptions::decode(&options.encode()).as_ref(), Ok(&options));
        line("location", name, options.encode());
    }
    let request = RestoreRequest {
        store_id: "app/0_1/counts",
        dir: "/state/app/0_1/rocksdb/counts",
        topic: "app-counts-changelog",
        partition: 1,
        start: 0,
        end: 1_000_000_000_000,
        patience_ms: 10_000,
        timeout_ms: 150_000,
        ttl: true,
    };
    assert_eq!(RestoreRequest::decode(&request.encode()).as_ref(), Ok(&request));
    line("restore-request", "counts", request.encode());
    let restored = RestoreAnswer { seq: 12, files: 7, bytes: 5 << 30, skipped: 1, waited_ms: 250 };
    assert_eq!(RestoreAnswer::decode(&restored.encode()), Ok(restored));
    line("restore-answer", "counts", restored.encode());
    let taken = TakeAnswer {
        seq: 13,
        files: 9,
        objects_sent: 3,
        bytes_sent: 4_096,
        objects_verified: 2,
        objects_damaged: 1,
        objects_resent: 1,
        offsets: vec![(TopicPartition { topic: "app-counts-changelog".into(), partition: 1 }, 41)],
    };
    assert_eq!(TakeAnswer::decode(&taken.encode()).as_ref(), Ok(&taken));
    line("take-answer", "counts", taken.encode());
    let unchangelogged = TakeAnswer { offsets: vec![], ..taken };
    line("take-answer", "no-changelog", unchangelogged.encode());
    let retained = RetainAnswer { manifests_deleted: 2, objects_deleted: 5 };
    assert_eq!(RetainAnswer::decode(&retained.encode()), Ok(retained));
    line("retain-answer", "counts", retained.encode());
    let downloading = DownloadProgress { seq: 12, done_bytes: 3 << 20, total_bytes: 5 << 30, elapsed_ms: 20_000 };
    assert_eq!(DownloadProgress::decode(&downloading.encode()), Ok(downloading));
    line("download-progress", "counts", downloading.encode());
    let before = DownloadProgress { seq: -1, done_bytes: 0, total_bytes: 0, elapsed_ms: 0 };
    line("download-progress", "none-yet", before.encode());
    let listing = ListRequest {
        store_id: "app/counts/1-AAAAAAAAAAAAAAAAAAAAAA",
        patience_ms: 30_000,
        timeout_ms: 1_800_000,
        changelogs: vec![
            (TopicPartition { topic: "app-counts-changelog".into(), partition: 1 }, 0, 42),
            (TopicPartition { topic: "app-other-changelog".into(), partition: 0 }, 7, 7),
        ],
    };
    assert_eq!(ListRequest::decode(&listing.encode()).as_ref(), Ok(&listing));
    line("list-request", "changelogs", listing.encode());
    let every = ListRequest { store_id: "", patience_ms: 1, timeout_ms: 2, changelogs: vec![] };
    line("list-request", "every-store", every.encode());
    let listed = ListAnswer {
        snapshots: vec![
            ListedSnapshot {
                store_id: "app/counts/1-AAAAAAAAAAAAAAAAAAAAAA".into(),
                seq: 13,
                created_ms: 1_700_000_000_000,
                files: 9,
                bytes: 5 << 30,
                transactional: true,
                strategy: Strategy::SecondaryStore.code(),
                value_format: ValueFormat::Timestamped.code(),
                ttl: true,
                problem: String::new(),
                changelog_refuses: "its changelog offset 41 is not one the changelog has now".into(),
                offsets: vec![(TopicPartition { topic: "app-counts-changelog".into(), partition: 1 }, 41)],
            },
            ListedSnapshot {
                store_id: "app/counts/1-AAAAAAAAAAAAAAAAAAAAAA".into(),
                seq: 14,
                created_ms: 0,
                files: 0,
                bytes: 12,
                transactional: false,
                strategy: 0,
                value_format: 0,
                ttl: false,
                problem: "its manifest does not decode (caf\u{e9})".into(),
                changelog_refuses: String::new(),
                offsets: vec![],
            },
        ],
    };
    assert_eq!(ListAnswer::decode(&listed.encode()).as_ref(), Ok(&listed));
    line("list-answer", "counts", listed.encode());
    line("list-answer", "none", ListAnswer { snapshots: vec![] }.encode());
    check("snapshot_calls.txt", &generated);
}

/// Window keys as `window <key hex> <start> <seq> <store key hex>` and session keys as
/// `session <key hex> <start> <end> <store key hex>` (an empty key is `-`); Java's
/// `SegmentedKeysTest` splits each store key with `SegmentedKeys` and expects the fields.
#[test]
fn segmented_keys() {
    let key_hex = |key: &[u8]| if key.is_empty() { "-".to_owned() } else { hex(key) };
    let mut generated = String::new();
    for (key, start, seq) in [(&b"k"[..], 42, 7), (&b""[..], -1, i32::MIN), (&[0xFF, 0][..], i64::MIN, i32::MAX)] {
        let store_key = window_key::store_key(key, start, seq);
        assert_eq!(window_key::split_store_key(&store_key), Some((key, start, seq)));
        writeln!(generated, "window {} {start} {seq} {}", key_hex(key), hex(&store_key)).unwrap();
    }
    for (key, start, end) in [(&b"k"[..], -3, 9), (&b""[..], i64::MIN, i64::MAX), (&[0, 1, 2][..], 5, 5)] {
        let store_key = session_key::store_key(key, start, end);
        assert_eq!(session_key::split_store_key(&store_key), Some((key, start, end)));
        writeln!(generated, "session {} {start} {end} {}", key_hex(key), hex(&store_key)).unwrap();
    }
    check("segmented_keys.txt", &generated);
}

/// An expiry pass's answers as `<name> <keys> <bytes> <more> <record hex>`, the keys in hex joined
/// by `,` (`-` for none, `""` for an empty key); Java's `ExpiredKeysTest` decodes each record and
/// expects the fields.
#[test]
fn expired_keys_records() {
    let mut generated = String::new();
    let cases: [(&str, Vec<&[u8]>, u64, bool); 3] = [
        ("none", vec![], 0, false),
        ("two-more", vec![&b"id-1"[..], &[0xFF, 0x00][..]], 4_096, true),
        ("empty-key", vec![&b""[..]], u64::from(u32::MAX) + 1, false),
    ];
    for (name, keys, bytes, more) in cases {
        let record = encode_expired(&keys, bytes, more);
        assert_eq!(decode_expired(&record), Ok((keys.clone(), bytes, more)));
        let listed = if keys.is_empty() {
            "-".to_owned()
        } else {
            keys.iter().map(|k| if k.is_empty() { "\"\"".to_owned() } else { hex(k) }).collect::<Vec<_>>().join(",")
        };
        writeln!(generated, "{name} {listed} {bytes} {more} {}", hex(&record)).unwrap();
    }
    check("expired_keys.txt", &generated);
}

/// The operators' tool's records, one per line, `kind name hex`. Java's `StoreInspectionTest`
/// decodes each and expects the values built here.
#[test]
fn inspection_records() {
    let mut generated = String::new();
    let mut line =
        |kind: &str, name: &str, bytes: Vec<u8>| writeln!(generated, "{kind} {name} {}", hex(&bytes)).unwrap();
    let facts = StoreFacts {
        kind: Some(StoreKind::Window),
        value_format: Some(ValueFormat::Timestamped.code()),
        upgrade_pending: false,
        time_to_live: false,
        store_time: NO_TIME,
        commit_pending: true,
        uncommitted_pending: true,
        estimated_keys: 1_234,
        live_data_bytes: 5 << 30,
        wal_bytes: 4_096,
        offsets: vec![
            (TopicPartition { topic: "app-counts-changelog".into(), partition: 0 }, 41),
            (TopicPartition { topic: "caf\u{e9}".into(), partition: 7 }, -1),
        ],
        findings: vec![
            Finding { severity: Severity::Note, what: "a note".into() },
            Finding { severity: Severity::Damage, what: "damage".into() },
        ],
    };
    assert_eq!(StoreFacts::decode(&facts.encode()).as_ref(), Ok(&facts));
    line("facts", "window", facts.encode());
    let ttl = StoreFacts {
        kind: Some(StoreKind::KeyValue),
        value_format: Some(ValueFormat::Plain.code()),
        upgrade_pending: true,
        time_to_live: true,
        store_time: 1_700_000_000_000,
        commit_pending: false,
        uncommitted_pending: false,
        estimated_keys: 0,
        live_data_bytes: 0,
        wal_bytes: 0,
        offsets: vec![],
        findings: vec![],
    };
    line("facts", "ttl", ttl.encode());
    let unknown = StoreFacts {
        kind: None,
        value_format: None,
        upgrade_pending: false,
        time_to_live: false,
        store_time: NO_TIME,
        ..ttl
    };
    line("facts", "unknown", unknown.encode());
    let verification = Verification {
        findings: vec![Finding { severity: Severity::Damage, what: "checksum mismatch".into() }],
        next_open: vec![
            (CorruptionPolicy::Refuse, Outcome::Refuses, "damaged".into()),
            (CorruptionPolicy::OpenAtLastConsistentCommit, Outcome::OpensBeforeDamage, "offsets 3".into()),
            (CorruptionPolicy::RestoreFromChangelog, Outcome::Wipes, String::new()),
        ],
    };
    assert_eq!(Verification::decode(&verification.encode()).as_ref(), Ok(&verification));
    line("verification", "damaged", verification.encode());
    let fine = Verification {
        findings: vec![],
        next_open: vec![
            (CorruptionPolicy::Refuse, Outcome::Opens, String::new()),
            (CorruptionPolicy::OpenAtLastConsistentCommit, Outcome::RollsForward, String::new()),
            (CorruptionPolicy::RestoreFromChangelog, Outcome::Opens, String::new()),
        ],
    };
    line("verification", "fine", fine.encode());
    let chunk = DumpChunk {
        resume: Some(vec![0x00, 0xff]),
        entries: vec![
            DumpEntry { key: b"k1".to_vec(), value: b"v1".to_vec(), first: 10, second: 20 },
            DumpEntry { key: vec![], value: vec![0xff], first: NO_TIME, second: NO_TIME },
        ],
    };
    assert_eq!(DumpChunk::decode(&chunk.encode()).as_ref(), Ok(&chunk));
    line("dump", "more", chunk.encode());
    line("dump", "last", DumpChunk { resume: None, entries: vec![] }.encode());
    check("inspection.txt", &generated);
}
