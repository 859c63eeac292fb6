//! A snapshot location that accepts connections and never answers, or answers a byte at a time,
//! costs a restore its patience, not the request timeouts of every try of every request; a
//! deadline and a cancel end any wait at once; a location that went unanswered is skipped by the
//! next restores until its backoff passes; a location that goes silent in the middle of a file
//! holds a cancelled upload no longer than a silent one; and every location of the process shares
//! a few I/O threads, however many there are.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use txn_rocksdb::snapshot::{self, Changelog, Location, LocationSettings, RestoreBudget};
use txn_rocksdb::RowLayout;
use txn_rocksdb::{KeyValueStore, StoreOptions, TopicPartition};

/// How a test server treats a request.
#[derive(Clone, Copy)]
enum Server {
    /// Reads every request and never writes a byte.
    Silent,
    /// Answers with headers for a large body, then sends one byte of it every 300 ms: never silent
    /// for as long as a request timeout, never done.
    Trickling,
    /// Answers as an empty S3 bucket that takes uploads (lists, starts multipart uploads, stores
    /// small objects), then goes silent at a file's first part and at any abort: a location that
    /// stops answering in the middle of a file.
    SilentMidFile,
}

/// A server on a loopback port, serving until the test process ends.
fn serve(kind: Server) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for connection in listener.incoming() {
            let Ok(connection) = connection else { return };
            std::thread::spawn(move || handle(kind, connection));
        }
    });
    port
}

fn handle(kind: Server, mut connection: TcpStream) {
    let mut buffer = [0u8; 4096];
    match kind {
        Server::Silent => while matches!(connection.read(&mut buffer), Ok(n) if n > 0) {},
        Server::SilentMidFile => {
            let mut reader = BufReader::new(connection.try_clone().unwrap());
            loop {
                let mut head = Vec::new();
                loop {
                    let mut line = String::new();
                    match reader.read_line(&mut line) {
                        Ok(0) | Err(_) => return,
                        Ok(_) if line == "\r\n" => break,
                        Ok(_) => head.push(line),
                    }
                }
                let length: usize = head
                    .iter()
                    .find_map(|h| {
                        h.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap())
                    })
                    .unwrap_or(0);
                let request = head.first().cloned().unwrap_or_default();
                if request.contains("partNumber=") || request.starts_with("DELETE") {
                    // the file's part, or the abort of its upload: read on, never answer
                    while matches!(reader.read(&mut buffer), Ok(n) if n > 0) {}
                    return;
                }
                let mut body = vec![0u8; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let answer = if request.starts_with("POST") && request.contains("?uploads") {
                    "<InitiateMultipartUploadResult><Bucket>snapshots</Bucket><Key>k</Key>\
                     <UploadId>upload-1</UploadId></InitiateMultipartUploadResult>"
                } else if request.starts_with("GET") && request.contains("list-type=2") {
                    "<ListBucketResult><Name>snapshots</Name><KeyCount>0</KeyCount>\
                     <IsTruncated>false</IsTruncated></ListBucketResult>"
                } else {
                    ""
                };
                let status = if request.starts_with("GET") && answer.is_empty() { "404 Not Found" } else { "200 OK" };
                let reply = format!(
                    "HTTP/1.1 {status}\r\nETag: \"etag\"\r\nContent-Type: application/xml\r\nContent-Length: {}\r\n\r\n{answer}",
                    answer.len()
                );
                if connection.write_all(reply.as_bytes()).is_err() {
                    return;
                }
            }
        }
        Server::Trickling => {
            let _ = connection.read(&mut buffer);
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: 1000000\r\n\r\n<";
            if connection.write_all(head.as_bytes()).is_err() {
                return;
            }
            while connection.write_all(b" ").is_ok() {
                std::thread::sleep(Duration::from_millis(300));
            }
        }
    }
}

/// An S3 location at the server on `port`.
fn location(port: u16, settings: LocationSettings) -> Location {
    let options: Vec<(String, String)> = [
        ("aws_endpoint", format!("http://127.0.0.1:{port}")),
        ("aws_allow_http", "true".into()),
        ("aws_region", "us-east-1".into()),
        ("aws_access_key_id", "test-access-key".into()),
        ("aws_secret_access_key", "test-secret-key".into()),
    ]
    .into_iter()
    .map(|(key, value)| (key.to_string(), value))
    .collect();
    Location::open("s3://snapshots/prefix", &options, settings).unwrap()
}

fn quick(request_timeout_ms: u64) -> LocationSettings {
    LocationSettings { request_timeout: Duration::from_millis(request_timeout_ms), ..LocationSettings::default() }
}

fn changelog() -> Changelog {
    Changelog { partition: TopicPartition { topic: "app-store-changelog".into(), partition: 0 }, start: 0, end: 1_000 }
}

fn patience(ms: u64) -> RestoreBudget {
    RestoreBudget { patience: Duration::from_millis(ms), deadline: None }
}

/// Restores into `<tmp>/state/store` with `budget`; the error and how long it took. The store's
/// directory is never created and no download directory is left beside it.
fn failed_restore(location: &Location, tmp: &Path, budget: RestoreBudget) -> (String, Duration) {
    let dir = tmp.join("state").join("store");
    let started = Instant::now();
    let e =
        snapshot::restore_newest(location, "app/store/0", &dir, &changelog(), RowLayout::Plain, budget).unwrap_err();
    let took = started.elapsed();
    assert!(matches!(e, txn_rocksdb::Error::Snapshot { .. }), "{e:?}");
    assert!(!dir.exists(), "the store's directory is left as it was (missing)");
    let left: Vec<_> = std::fs::read_dir(tmp.join("state")).map_or(Vec::new(), |entries| entries.collect());
    assert!(left.is_empty(), "nothing left beside it: {left:?}");
    (e.to_string(), took)
}

#[test]
fn a_silent_location_costs_a_restore_its_patience_and_the_next_restores_nothing_until_its_backoff_passed() {
    let tmp = tempfile::tempdir().unwrap();
    let settings = LocationSettings { unanswered_backoff: Duration::from_secs(3), ..quick(1_000) };
    let silent = location(serve(Server::Silent), settings);

    // patience 2 s: well before the three tries of 1 s each and their backoffs
    let (e, took) = failed_restore(&silent, tmp.path(), patience(2_000));
    assert!(took >= Duration::from_millis(1_900) && took < Duration::from_millis(3_000), "{took:?}: {e}");
    assert!(e.contains("did not answer"), "{e}");

    // the next stores skip it at once
    for _ in 0..10 {
        let (e, took) = failed_restore(&silent, tmp.path(), patience(2_000));
        assert!(took < Duration::from_millis(100), "{took:?}: {e}");
        assert!(e.contains("did not answer") && e.contains("not asked again"), "{e}");
    }

    // once the backoff passed, it is asked again (and waited for again)
    std::thread::sleep(Duration::from_secs(3));
    let (e, took) = failed_restore(&silent, tmp.path(), patience(1_000));
    assert!(took >= Duration::from_millis(900), "asked again: {took:?}: {e}");

    // the patience given up, the request timeouts still bound a restore: 3 tries of 1 s
    std::thread::sleep(Duration::from_secs(3));
    let (e, took) = failed_restore(&silent, tmp.path(), patience(60_000));
    assert!(took >= Duration::from_millis(2_900) && took < Duration::from_secs(10), "{took:?}: {e}");
    assert!(!e.contains("not asked again"), "{e}");
}

#[test]
fn a_location_answering_a_byte_at_a_time_runs_out_the_patience_though_no_request_times_out() {
    let tmp = tempfile::tempdir().unwrap();
    let trickling = location(serve(Server::Trickling), quick(1_000));
    let (e, took) = failed_restore(&trickling, tmp.path(), patience(2_000));
    assert!(took >= Duration::from_millis(1_900) && took < Duration::from_millis(3_000), "{took:?}: {e}");
    assert!(e.contains("did not answer"), "{e}");
}

#[test]
fn a_deadline_ends_a_restore_whatever_the_timeouts_allow() {
    let tmp = tempfile::tempdir().unwrap();
    let silent = location(serve(Server::Silent), quick(30_000));
    let budget =
        RestoreBudget { patience: Duration::from_secs(60), deadline: Some(Instant::now() + Duration::from_secs(1)) };
    let (e, took) = failed_restore(&silent, tmp.path(), budget);
    assert!(took >= Duration::from_millis(950) && took < Duration::from_millis(1_500), "{took:?}: {e}");
    assert!(e.contains("ran out"), "{e}");
    // a deadline is the caller's limit, not the location's silence: the next restore asks it
    let budget = RestoreBudget {
        patience: Duration::from_secs(60),
        deadline: Some(Instant::now() + Duration::from_millis(500)),
    };
    let (e, took) = failed_restore(&silent, tmp.path(), budget);
    assert!(took >= Duration::from_millis(450), "{took:?}: {e}");
}

#[test]
fn a_cancel_stops_an_upload_to_a_silent_location_at_once_and_leaves_no_checkpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let store = store_with_one_commit(&dir);
    let silent = location(serve(Server::Silent), quick(30_000));
    let prepared = snapshot::prepare(&store).unwrap();
    assert_eq!(checkpoints(&dir), 1);
    let cancel = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let upload = scope.spawn(|| snapshot::upload(prepared, &silent, "app/store/0", &cancel));
        std::thread::sleep(Duration::from_millis(500));
        let cancelled_at = Instant::now();
        cancel.store(true, Ordering::Release);
        let e = upload.join().unwrap().unwrap_err().to_string();
        assert!(cancelled_at.elapsed() < Duration::from_millis(500), "the cancel took {:?}", cancelled_at.elapsed());
        assert!(e.contains("cancelled"), "{e}");
    });
    assert_eq!(checkpoints(&dir), 0, "the checkpoint is deleted as the upload returns");
}

#[test]
fn a_cancel_stops_an_upload_whose_location_went_silent_mid_file_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let store = store_with_one_commit(&dir);
    // a request timeout far beyond the cancel's bound: the abort of the file's upload must not wait it
    let location = location(serve(Server::SilentMidFile), quick(20_000));
    let prepared = snapshot::prepare(&store).unwrap();
    let cancel = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let upload = scope.spawn(|| snapshot::upload(prepared, &location, "app/store/0", &cancel));
        // the listing answered, the first file's upload started, its part unanswered
        std::thread::sleep(Duration::from_millis(1_000));
        let cancelled_at = Instant::now();
        cancel.store(true, Ordering::Release);
        let e = upload.join().unwrap().unwrap_err().to_string();
        let took = cancelled_at.elapsed();
        assert!(took < Duration::from_secs(1), "the cancel took {took:?}: {e}");
        assert!(e.contains("cancelled"), "{e}");
    });
    assert_eq!(checkpoints(&dir), 0, "the checkpoint is deleted as the upload returns");
}

/// A store at `dir` with one key committed at changelog offset 7.
fn store_with_one_commit(dir: &Path) -> KeyValueStore {
    let store = KeyValueStore::open(dir, StoreOptions::default()).unwrap();
    store.put(b"key", Some(b"value")).unwrap();
    store.commit(&[(changelog().partition, Some(7))], None).unwrap();
    store
}

/// The snapshot checkpoints in a store's directory (one while a snapshot is being sent).
fn checkpoints(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|entry| entry.as_ref().unwrap().file_name().to_string_lossy().starts_with("snapshot-checkpoint-"))
        .count()
}

/// The threads of this process whose name starts with `prefix` (Linux: /proc).
fn threads_named(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with(prefix))
        .count()
}

#[test]
fn every_location_of_the_process_shares_a_few_io_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let objects = tmp.path().join("objects");
    // 32 locations (one per store, as 32 stores would open them), each taking and restoring a
    // snapshot, 8 stores at a time (one snapshot of a store at a time)
    let locations: Vec<Location> =
        (0..32).map(|_| Location::parse(&format!("file://{}", objects.display()), &[]).unwrap()).collect();
    let most = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for (group, chunk) in locations.chunks(4).enumerate() {
            let (tmp, most) = (tmp.path(), &most);
            scope.spawn(move || {
                let store = KeyValueStore::open(tmp.join(format!("store-{group}")), StoreOptions::default()).unwrap();
                for i in 0..200u32 {
                    store.put(format!("key-{i:04}").as_bytes(), Some(&[i as u8; 1_000])).unwrap();
                }
                store.commit(&[(changelog().partition, Some(9))], None).unwrap();
                for (i, location) in chunk.iter().enumerate() {
                    let id = format!("app/store-{group}-{i}/0");
                    snapshot::take(&store, location, &id).unwrap();
                    let dir = tmp.join(format!("restored-{group}-{i}"));
                    snapshot::restore_newest(
                        location,
                        &id,
                        &dir,
                        &changelog(),
                        RowLayout::Plain,
                        RestoreBudget::default(),
                    )
                    .unwrap()
                    .unwrap();
                    most.fetch_max(threads_named("txn-rocksdb-sna"), Ordering::Relaxed);
                }
            });
        }
    });
    let most = most.into_inner();
    // its workers and at most as many for blocking work (the local file system's calls)
    assert!(most <= 2 * snapshot::io_threads(), "{most} snapshot I/O threads with {} set", snapshot::io_threads());
    assert!(most >= 1, "the snapshots ran on the shared runtime");
}
