//! Snapshots in Azure Blob Storage (`az://container/prefix`), against a real Azure Storage server
//! on the loopback address: Azurite, Microsoft's own emulator (a Node.js program, installed by
//! `scripts/install-azurite.sh`; `./test.sh` runs it first). A store is snapshotted, restored
//! exactly (its files sent in parts: one is larger than a part), a second snapshot sends only the
//! files the first lacked, a damaged and a missing object each fall back to the older snapshot,
//! retention deletes what no kept snapshot references, and the server honours the create-only
//! write on which "one manifest per snapshot number" rests.
//!
//! Not on Windows: the server is a program of this Linux machine, which a test run by Wine cannot
//! start (the Windows build reaches Azure through the same code as here).
#![cfg(not(windows))]

use base64::Engine as _;
use futures_util::TryStreamExt;
use object_store::azure::MicrosoftAzureBuilder;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use txn_rocksdb::snapshot::{self, Changelog, Location, RestoreBudget};
use txn_rocksdb::RowLayout;
use txn_rocksdb::{KeyValueStore, Range, StoreOptions, TopicPartition};

/// Azurite's well-known development account and key (public: the emulator accepts only these).
const ACCOUNT: &str = "devstoreaccount1";
const ACCOUNT_KEY: &str = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const CONTAINER: &str = "snapshots";
const STORE_ID: &str = "app/counts/0";

/// The Azurite blob server: `TXN_ROCKSDB_AZURITE`, else where `scripts/install-azurite.sh` puts it.
fn azurite_program() -> PathBuf {
    let path = match std::env::var_os("TXN_ROCKSDB_AZURITE") {
        Some(path) => PathBuf::from(path),
        None => {
            let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
            home.join(".cache/txn-rocksdb/azurite/node_modules/.bin/azurite-blob")
        }
    };
    assert!(
        path.exists(),
        "Azurite (the Azure Storage emulator) is not at {}: run scripts/install-azurite.sh (./test.sh does), or set \
         TXN_ROCKSDB_AZURITE to its azurite-blob program",
        path.display()
    );
    path
}

/// An Azurite blob server on a free loopback port, with its data in memory; killed when dropped.
struct Azurite {
    child: Child,
    port: u16,
}

impl Azurite {
    fn start(dir: &Path) -> Azurite {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap().local_addr().unwrap().port();
        let log = std::fs::File::create(dir.join("azurite.log")).unwrap();
        let child = Command::new(azurite_program())
            .args(["--blobHost", "127.0.0.1", "--blobPort", &port.to_string(), "--inMemoryPersistence"])
            .args(["--skipApiVersionCheck", "--silent"])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut server = Azurite { child, port };
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
            let exited = server.child.try_wait().unwrap();
            assert!(
                exited.is_none() && Instant::now() < deadline,
                "Azurite did not start ({exited:?}): {}",
                std::fs::read_to_string(dir.join("azurite.log")).unwrap()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server.create_container(CONTAINER);
        server
    }

    /// The account's URL, path-style as Azurite serves it.
    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}/{ACCOUNT}", self.port)
    }

    /// The options that point a location at this server, as a user gives them
    /// (`txn.rocksdb.snapshot.option.<key>` in Kafka Streams).
    fn options(&self) -> Vec<(String, String)> {
        [
            ("azure_storage_account_name", ACCOUNT.to_string()),
            ("azure_storage_account_key", ACCOUNT_KEY.to_string()),
            ("azure_endpoint", self.endpoint()),
            ("azure_allow_http", "true".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    fn location(&self) -> Location {
        Location::parse(&format!("az://{CONTAINER}/prefix"), &self.options()).unwrap()
    }

    /// The container, through object_store directly: what the tests read and damage behind the
    /// snapshots' back.
    fn container(&self) -> impl ObjectStore {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = MicrosoftAzureBuilder::new().with_container_name(CONTAINER);
        for (key, value) in self.options() {
            builder = builder.with_config(key.parse().unwrap(), value);
        }
        builder.build().unwrap()
    }

    /// Creates a container: "Create Container", signed with the account's shared key (object_store
    /// has no call for it; a real account's containers are made by its owner).
    fn create_container(&self, name: &str) {
        let date = http_date(SystemTime::now());
        let version = "2021-08-06";
        let path = format!("/{ACCOUNT}/{name}");
        // VERB, then 11 standard headers (all empty here; a zero Content-Length is empty too),
        // then the x-ms- headers and the resource with its query
        let to_sign = format!(
            "PUT{}x-ms-date:{date}\nx-ms-version:{version}\n/{ACCOUNT}{path}\nrestype:container",
            "\n".repeat(12)
        );
        let key = base64::engine::general_purpose::STANDARD.decode(ACCOUNT_KEY).unwrap();
        let tag = ring::hmac::sign(&ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key), to_sign.as_bytes());
        let signature = base64::engine::general_purpose::STANDARD.encode(tag.as_ref());
        let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)).unwrap();
        write!(
            stream,
            "PUT {path}?restype=container HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nx-ms-date: {date}\r\nx-ms-version: {version}\r\n\
             Authorization: SharedKey {ACCOUNT}:{signature}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            self.port
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        assert!(response.starts_with("HTTP/1.1 201"), "creating the container: {response}");
    }
}

impl Drop for Azurite {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `time` as HTTP dates are written (RFC 1123, GMT).
fn http_date(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).unwrap().as_secs();
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    // civil from days (Howard Hinnant's algorithm)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][days.rem_euclid(7) as usize];
    let name =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][(month - 1) as usize];
    format!("{weekday}, {day:02} {name} {year} {:02}:{:02}:{:02} GMT", rest / 3_600, rest / 60 % 60, rest % 60)
}

fn partition() -> TopicPartition {
    TopicPartition { topic: "app-counts-changelog".into(), partition: 0 }
}

fn changelog() -> Changelog {
    Changelog { partition: partition(), start: 0, end: 1_000_000 }
}

/// Commit `n` at offset `n * 100`: `keys` keys of `value_bytes` each, incompressible (so that the
/// files are as large as the data).
fn commit(store: &KeyValueStore, n: u32, keys: u32, value_bytes: usize) {
    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ u64::from(n);
    for i in 0..keys {
        let value: Vec<u8> = (0..value_bytes)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        store.put(format!("key-{n}-{i:06}").as_bytes(), Some(&value)).unwrap();
    }
    store.commit(&[(partition(), Some(i64::from(n) * 100))], None).unwrap();
}

type State = (Vec<(Vec<u8>, Vec<u8>)>, Vec<(TopicPartition, i64)>);

fn state(store: &KeyValueStore) -> State {
    (store.range(Range::all()).unwrap().collect_all().unwrap(), store.committed_offsets().unwrap())
}

/// Restores the newest usable snapshot into a new directory; returns its number and what it holds.
fn restore(location: &Location, dir: &Path) -> (u64, State) {
    let restored =
        snapshot::restore_newest(location, STORE_ID, dir, &changelog(), RowLayout::Plain, RestoreBudget::default())
            .unwrap()
            .expect("a snapshot");
    (restored.seq, state(&KeyValueStore::open(dir, StoreOptions::default()).unwrap()))
}

/// The objects under `prefix` in the container, by name (their last segment).
fn names(container: &impl ObjectStore, runtime: &tokio::runtime::Runtime, prefix: &str) -> Vec<String> {
    let mut names: Vec<String> = runtime
        .block_on(container.list(Some(&ObjectPath::from(prefix))).try_collect::<Vec<_>>())
        .unwrap()
        .into_iter()
        .map(|o| o.location.filename().unwrap().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn snapshots_in_azure_blob_storage_restore_exactly_send_only_new_files_and_fall_back_past_damage() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Azurite::start(tmp.path());
    let location = server.location();
    let container = server.container();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let files = format!("prefix/{STORE_ID}/files");

    // snapshot 1: 12 MB of values, so a file (here the write-ahead log the checkpoint copies) is
    // larger than an upload part (8 MiB) and is sent in two
    let store = KeyValueStore::open(tmp.path().join("store"), StoreOptions::default()).unwrap();
    commit(&store, 1, 3_000, 4_096);
    let first = snapshot::take(&store, &location, STORE_ID).unwrap();
    assert_eq!(first.seq, 1);
    assert!(first.bytes_uploaded > 12_000_000, "{first:?}");
    let largest = manifest(&container, &runtime, 1).files.iter().map(|f| f.size).max().unwrap();
    assert!(largest > 8 << 20, "the largest file: {largest} bytes");
    let first_state = state(&store);
    let (seq, restored) = restore(&location, &tmp.path().join("host-1"));
    assert_eq!((seq, &restored), (1, &first_state));

    // snapshot 2: a little more; only the files snapshot 1 lacks are sent (here the grown
    // write-ahead log), the others referenced
    commit(&store, 2, 100, 1_000);
    let second = snapshot::take(&store, &location, STORE_ID).unwrap();
    assert_eq!(second.seq, 2);
    assert!(second.files_uploaded < second.files, "{second:?}");
    let second_state = state(&store);
    let (seq, restored) = restore(&location, &tmp.path().join("host-2"));
    assert_eq!((seq, &restored), (2, &second_state));

    // the objects only snapshot 2 references: each damaged, then missing, falls back to snapshot 1
    let only_second: Vec<String> = {
        let (one, two) = (manifest(&container, &runtime, 1), manifest(&container, &runtime, 2));
        objects(&two).into_iter().filter(|o| !objects(&one).contains(o)).collect()
    };
    assert!(!only_second.is_empty());
    let victim = ObjectPath::from(format!("{files}/{}", only_second[0]));
    let original = runtime.block_on(async { container.get(&victim).await.unwrap().bytes().await.unwrap() });
    let mut damaged = original.to_vec();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0x40;
    runtime.block_on(container.put(&victim, PutPayload::from(damaged))).unwrap();
    let (seq, restored) = restore(&location, &tmp.path().join("host-3"));
    assert_eq!((seq, &restored), (1, &first_state), "a damaged object");
    let head = runtime.block_on(container.head(&victim));
    assert!(
        matches!(head, Err(object_store::Error::NotFound { .. })),
        "the restore deleted the damaged object: {head:?}"
    );
    let (seq, restored) = restore(&location, &tmp.path().join("host-4"));
    assert_eq!((seq, &restored), (1, &first_state), "a missing object");
    runtime.block_on(container.put(&victim, PutPayload::from(original))).unwrap();

    // the create-only write "one manifest per number" rests on: a second writer is refused
    let manifest_path = ObjectPath::from(format!("prefix/{STORE_ID}/snapshots/{:020}.manifest", 2));
    let again = runtime.block_on(container.put_opts(
        &manifest_path,
        PutPayload::from_static(b"another owner's manifest"),
        PutOptions { mode: PutMode::Create, ..PutOptions::default() },
    ));
    assert!(matches!(again, Err(object_store::Error::AlreadyExists { .. })), "{again:?}");

    // retention: keeping snapshot 3 only deletes snapshots 1 and 2 and the objects only they
    // referenced. It deletes only objects older than the oldest manifest kept, and Azure's
    // Last-Modified counts seconds: the object put back above must be a second older than it.
    std::thread::sleep(Duration::from_millis(1_100));
    commit(&store, 3, 100, 1_000);
    assert_eq!(snapshot::take(&store, &location, STORE_ID).unwrap().seq, 3);
    let retained = snapshot::retain(&location, STORE_ID, 1, &std::sync::atomic::AtomicBool::new(false)).unwrap();
    assert_eq!((retained.kept, retained.manifests_deleted), (vec![3], vec![1, 2]));
    let three = manifest(&container, &runtime, 3);
    let mut referenced: Vec<String> = objects(&three);
    referenced.sort();
    assert_eq!(names(&container, &runtime, &files), referenced);
    let third_state = state(&store);
    drop(store);
    let (seq, restored) = restore(&location, &tmp.path().join("host-5"));
    assert_eq!((seq, &restored), (3, &third_state));
}

fn manifest(container: &impl ObjectStore, runtime: &tokio::runtime::Runtime, seq: u64) -> snapshot::Manifest {
    let path = ObjectPath::from(format!("prefix/{STORE_ID}/snapshots/{seq:020}.manifest"));
    let bytes = runtime.block_on(async { container.get(&path).await.unwrap().bytes().await.unwrap() });
    snapshot::Manifest::decode(&bytes).unwrap()
}

/// The objects a manifest references (every part of every file).
fn objects(manifest: &txn_rocksdb::snapshot::Manifest) -> Vec<String> {
    manifest.files.iter().flat_map(|f| &f.parts).map(|p| p.object.clone()).collect()
}
