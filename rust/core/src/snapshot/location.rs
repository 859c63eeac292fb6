//! A snapshot location: an object store (the `object_store` crate's trait: `file://`, `s3://` and
//! Azure's `az://` / `abfs[s]://` in this build) and the prefix under it, with the few blocking
//! calls snapshots make.
//! `object_store` is async: every location runs its calls on the process's snapshot I/O runtime
//! (`io.rs`), each bounded by the location's request timeout and by the caller's [`Stop`].

use super::io::{self, Stop, Stopped};
use super::progress::Progress;
use crate::error::{Error, Result};
use bytes::Bytes;
use futures_util::TryStreamExt;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::path::Path as ObjectPath;
use object_store::{ClientOptions, RetryConfig};
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How many times a request to a cloud object store that failed in a way worth retrying (no
/// connection, no answer in time, a 5xx) is sent again (object_store's default is 10, over up to
/// 3 minutes).
const RETRIES: usize = 2;
/// A cloud request's whole time, answer and body included (a backstop: a stalled transfer ends at
/// `LocationSettings::request_timeout` without bytes).
const TRANSFER_TIMEOUT: Duration = Duration::from_secs(300);

/// Files are read and sent in parts of this size (one part of a multipart upload each).
const PART_BYTES: usize = 8 << 20;

/// How long a failed or cancelled multipart upload waits for its abort: a location that went
/// silent in the middle of a file must not hold a closing store (which waits for its snapshot to
/// stop) for a request timeout. An abort cut short leaves the unfinished upload at the location,
/// as a killed process does; nothing references it.
const ABORT_WAIT: Duration = Duration::from_millis(500);

/// Where a store's snapshots live: `<location>/<store id>/files/<object>` and
/// `<location>/<store id>/snapshots/<seq>.manifest`.
pub struct Location {
    uri: String,
    store: Arc<dyn ObjectStore>,
    root: ObjectPath,
    /// The process's snapshot I/O runtime (`io.rs`).
    runtime: tokio::runtime::Handle,
    settings: LocationSettings,
    /// When a request last went unanswered (no connection, no answer in time), until one is
    /// answered again: restores skip the location for `unanswered_backoff` after.
    unanswered: Mutex<Option<Instant>>,
    /// What earlier snapshots through this location sent (see [`super::take::upload`]).
    pub(crate) sent: super::sent::SentFiles,
}

impl std::fmt::Debug for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Location").field("uri", &self.uri).finish()
    }
}

/// What [`Location::get_files`] downloaded of a file: each part's size and crc32c, and the crc32c
/// of the whole file.
pub(crate) struct Fetched {
    pub(crate) parts: Vec<(u64, u32)>,
    pub(crate) crc32c: u32,
}

/// How a location is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocationSettings {
    /// How long one request may wait to connect, and for its answer (or, once answering, for the
    /// next bytes of it): a location that stays silent fails a request in this, and a request so
    /// failed is sent again at most twice. An upload's part (8 MiB) must be sent within it.
    pub request_timeout: Duration,
    /// The most bytes per second a file is sent at (0: no limit): it reads the file in pieces of a
    /// tenth of a second's worth (64 KiB to 8 MiB) and, once it got ahead of the limit, waits. The
    /// object store receives the parts of 8 MiB (`PART_BYTES`) as they fill. Restores are never
    /// limited: a store waits for them.
    pub upload_bytes_per_second: u64,
    /// Once the location did not answer, how long restores skip it rather than wait for it again
    /// (the stores of one rebalance open within this of each other); after it, or once any call
    /// (a snapshot being sent, off the stream thread) is answered, the next one tries.
    pub unanswered_backoff: Duration,
}

impl Default for LocationSettings {
    fn default() -> LocationSettings {
        LocationSettings {
            request_timeout: Duration::from_secs(5),
            upload_bytes_per_second: 0,
            unanswered_backoff: Duration::from_secs(30),
        }
    }
}

/// A cloud object store's retries: a store waits for a restore when it opens, so an object store
/// that is down fails it in seconds, not after object_store's default 3 minutes of retries.
fn cloud_retry(settings: &LocationSettings) -> RetryConfig {
    RetryConfig { max_retries: RETRIES, retry_timeout: settings.request_timeout * 3, ..RetryConfig::default() }
}

/// A cloud object store's HTTP client options. reqwest's rustls has no built-in crypto provider
/// here: ring, installed once for the process (a provider already installed, by this or anything
/// else, is kept).
fn cloud_client_options(settings: &LocationSettings) -> ClientOptions {
    let _ = rustls::crypto::ring::default_provider().install_default();
    ClientOptions::new()
        .with_connect_timeout(settings.request_timeout)
        .with_read_timeout(settings.request_timeout)
        .with_timeout(TRANSFER_TIMEOUT.max(settings.request_timeout))
}

/// Whether an object store's error says the location did not answer (no connection, no answer in
/// time), as opposed to an answer that refused.
fn unanswered(e: &object_store::Error) -> bool {
    use object_store::client::{HttpError, HttpErrorKind};
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(error) = cause {
        if let Some(http) = error.downcast_ref::<HttpError>() {
            return matches!(http.kind(), HttpErrorKind::Connect | HttpErrorKind::Timeout | HttpErrorKind::Interrupted);
        }
        cause = error.source();
    }
    false
}

impl Location {
    /// The location a URI names: `file:///absolute/path`; `s3://bucket/prefix` with the
    /// credentials, region and endpoint of the standard AWS environment (`AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`, `AWS_ENDPOINT_URL`, web identity
    /// tokens, ECS and EC2 instance credentials), then `options` on top: `object_store`'s S3 keys
    /// (`aws_endpoint`, `aws_region`, `aws_allow_http`, `aws_access_key_id`, ...); or Azure Blob
    /// Storage, `az://container/prefix` (the account from the options or the environment) or
    /// `abfs[s]://container@account.dfs.core.windows.net/prefix`, with the standard Azure
    /// environment (`AZURE_STORAGE_ACCOUNT_NAME`, `AZURE_STORAGE_ACCOUNT_KEY`, a SAS, a service
    /// principal's `AZURE_CLIENT_ID`/`AZURE_CLIENT_SECRET`/`AZURE_TENANT_ID`, workload or managed
    /// identity) and `object_store`'s Azure keys on top (`azure_storage_account_name`,
    /// `azure_storage_account_key`, `azure_endpoint`, `azure_allow_http`, ...). A malformed URI,
    /// one with credentials in it, an unknown scheme or option is [`Error::InvalidArgument`]; no
    /// message ever carries an option's value.
    pub fn parse(uri: &str, options: &[(String, String)]) -> Result<Location> {
        Location::open(uri, options, LocationSettings::default())
    }

    /// The location a URI names, as [`Location::parse`], reached with `settings`.
    pub fn open(uri: &str, options: &[(String, String)], settings: LocationSettings) -> Result<Location> {
        if settings.request_timeout.is_zero() {
            return Err(Error::InvalidArgument("a snapshot location's request timeout must be more than 0".into()));
        }
        let invalid = |why: String| Error::InvalidArgument(format!("snapshot location '{uri}': {why}"));
        let url = url::Url::parse(uri).map_err(|e| invalid(format!("not a URI ({e})")))?;
        // abfs[s]://container@account.dfs.core.windows.net/...: the part before '@' is the container
        let container_at_account = matches!(url.scheme(), "abfs" | "abfss") && url.password().is_none();
        if (!url.username().is_empty() && !container_at_account) || url.password().is_some() {
            return Err(Error::InvalidArgument(
                "a snapshot location URI must not carry credentials: set them in the environment or as options".into(),
            ));
        }
        let (store, root): (Box<dyn ObjectStore>, ObjectPath) = match url.scheme() {
            "file" => {
                if let Some((key, _)) = options.first() {
                    return Err(invalid(format!("option '{key}' does not apply to a file:// location")));
                }
                object_store::parse_url(&url).map_err(|e| invalid(e.to_string()))?
            }
            "s3" => {
                let mut builder = AmazonS3Builder::from_env()
                    .with_url(uri)
                    .with_retry(cloud_retry(&settings))
                    .with_client_options(cloud_client_options(&settings));
                for (key, value) in options {
                    let config: AmazonS3ConfigKey =
                        key.parse().map_err(|_| invalid(format!("unknown S3 option '{key}'")))?;
                    builder = builder.with_config(config, value);
                }
                let store = builder.build().map_err(|e| invalid(e.to_string()))?;
                let prefix = ObjectPath::parse(url.path()).map_err(|e| invalid(e.to_string()))?;
                (Box::new(store), prefix)
            }
            "az" | "abfs" | "abfss" => {
                let mut builder = MicrosoftAzureBuilder::from_env()
                    .with_url(uri)
                    .with_retry(cloud_retry(&settings))
                    .with_client_options(cloud_client_options(&settings));
                for (key, value) in options {
                    let config: AzureConfigKey =
                        key.parse().map_err(|_| invalid(format!("unknown Azure option '{key}'")))?;
                    builder = builder.with_config(config, value);
                }
                let store = builder.build().map_err(|e| invalid(e.to_string()))?;
                let prefix = ObjectPath::parse(url.path()).map_err(|e| invalid(e.to_string()))?;
                (Box::new(store), prefix)
            }
            other => {
                return Err(invalid(format!(
                    "scheme '{other}' is not supported by this build (file://, s3://, az://, abfs:// and abfss://)"
                )));
            }
        };
        Ok(Location {
            uri: uri.trim_end_matches('/').to_string(),
            store: Arc::from(store),
            root,
            runtime: io::runtime()?,
            settings,
            unanswered: Mutex::new(None),
            sent: Default::default(),
        })
    }

    /// The URI the location was parsed from.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The object path `<root>/<store id>/<rest>`; a store id that is not a valid object path
    /// (empty segments, `.` or `..`) is [`Error::InvalidArgument`].
    pub(crate) fn path(&self, store_id: &str, rest: &str) -> Result<ObjectPath> {
        let relative = format!("{store_id}/{rest}");
        let full = if self.root.as_ref().is_empty() { relative } else { format!("{}/{relative}", self.root) };
        ObjectPath::parse(&full)
            .map_err(|e| Error::InvalidArgument(format!("store id '{store_id}' does not make an object path: {e}")))
    }

    /// The object path of the location's root, under which every store id's folders are.
    pub(crate) fn root(&self) -> ObjectPath {
        self.root.clone()
    }

    /// The store id of an object under `<root>/<store id>/<folder>/`, if `path` is one.
    pub(crate) fn store_id_of(&self, path: &ObjectPath, folder: &str) -> Option<String> {
        let full = path.as_ref();
        let relative = match self.root.as_ref() {
            "" => full,
            root => full.strip_prefix(root)?.strip_prefix('/')?,
        };
        let (store_id, _) = relative.rsplit_once(&format!("/{folder}/"))?;
        (!store_id.is_empty()).then(|| store_id.to_owned())
    }

    /// An error about `path` (the object store's answer, or a local file it was read from or
    /// written to).
    pub(crate) fn err(&self, path: &ObjectPath, source: impl std::error::Error + Send + Sync + 'static) -> Error {
        Error::snapshot(&self.uri, format!("object {path}"), source)
    }

    /// An error about `path` that the engine found itself.
    pub(crate) fn err_found(&self, path: &ObjectPath, message: &str) -> Error {
        Error::snapshot_found(&self.uri, format!("object {path}: {message}"))
    }

    /// An error about `path` caused by `source` while doing `context` with a local file.
    fn local_err(&self, path: &ObjectPath, context: String, source: std::io::Error) -> Error {
        Error::snapshot(&self.uri, format!("object {path}: {context}"), source)
    }

    /// The object store's error about `path`, noting when it says the location did not answer.
    fn failed(&self, path: &ObjectPath, e: object_store::Error) -> Error {
        if unanswered(&e) {
            self.note_unanswered();
        }
        self.err(path, e)
    }

    fn note_unanswered(&self) {
        *self.unanswered.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(Instant::now());
    }

    /// Fails at once while the location went unanswered less than its `unanswered_backoff` ago,
    /// so that the stores opening after one that waited for it in vain do not wait again.
    pub(crate) fn check_answering(&self) -> Result<()> {
        let since = *self.unanswered.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let backoff = self.settings.unanswered_backoff;
        match since.map(|at| at.elapsed()).filter(|ago| *ago < backoff) {
            None => Ok(()),
            Some(ago) => Err(Error::snapshot_found(
                &self.uri,
                format!(
                    "it did not answer {:.1} s ago; not asked again for another {:.1} s",
                    ago.as_secs_f64(),
                    (backoff - ago).as_secs_f64()
                ),
            )),
        }
    }

    /// Runs `call` on the I/O runtime until it ends or `stop` says so. A call that ends with an
    /// answer clears the location's unanswered mark; one whose patience ran out sets it.
    fn run<T>(&self, stop: Stop<'_>, call: impl std::future::Future<Output = Result<T>>) -> Result<T> {
        use futures_util::future::{select, Either};
        let ended = self.runtime.block_on(async {
            match select(std::pin::pin!(call), std::pin::pin!(stop.reached())).await {
                Either::Left((ended, _)) => Ok(ended),
                Either::Right((stopped, _)) => Err(stopped),
            }
        });
        match ended {
            Ok(ended) => {
                if ended.is_ok() {
                    *self.unanswered.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
                }
                ended
            }
            Err(stopped) => {
                let message = match stopped {
                    Stopped::Cancelled => return Err(cancelled(self)),
                    Stopped::Deadline => "gave up: the time it had ran out".to_string(),
                    Stopped::Unanswered => {
                        self.note_unanswered();
                        let waited = stop.patience.map_or(Duration::ZERO, |patience| patience.waited());
                        format!("it did not answer: waited {:.1} s in all with no byte arriving", waited.as_secs_f64())
                    }
                };
                Err(Error::snapshot_found(&self.uri, message))
            }
        }
    }

    /// Every object under `prefix` (none where it does not exist).
    pub(crate) fn list(&self, prefix: &ObjectPath, stop: Stop<'_>) -> Result<Vec<ObjectMeta>> {
        self.run(stop, async {
            let listed = match self.store.list(Some(prefix)).try_collect::<Vec<_>>().await {
                Err(object_store::Error::NotFound { .. }) => Ok(Vec::new()),
                listed => listed.map_err(|e| self.failed(prefix, e)),
            };
            if let (Ok(_), Some(patience)) = (&listed, stop.patience) {
                patience.received(1);
            }
            listed
        })
    }

    /// The object's bytes, or `None` where it does not exist.
    pub(crate) fn get(&self, path: &ObjectPath, stop: Stop<'_>) -> Result<Option<Bytes>> {
        self.run(stop, async {
            let bytes = match self.store.get(path).await {
                Err(object_store::Error::NotFound { .. }) => return Ok(None),
                Err(e) => return Err(self.failed(path, e)),
                Ok(object) => object.bytes().await.map_err(|e| self.failed(path, e))?,
            };
            if let Some(patience) = stop.patience {
                patience.received(bytes.len() as u64);
            }
            Ok(Some(bytes))
        })
    }

    /// The size and crc32c of the object at `path`, read whole (streamed, never held in memory),
    /// or `None` where it does not exist.
    pub(crate) fn checksum(&self, path: &ObjectPath, stop: Stop<'_>) -> Result<Option<(u64, u32)>> {
        self.run(stop, async {
            let result = match self.store.get(path).await {
                Err(object_store::Error::NotFound { .. }) => return Ok(None),
                Err(e) => return Err(self.failed(path, e)),
                Ok(result) => result,
            };
            let mut stream = result.into_stream();
            let (mut size, mut crc) = (0u64, 0u32);
            while let Some(chunk) = stream.try_next().await.map_err(|e| self.failed(path, e))? {
                crc = txn_rocksdb_format::wal::crc32c_extend(crc, &chunk);
                size += chunk.len() as u64;
            }
            Ok(Some((size, crc)))
        })
    }

    /// Downloads files into new local files (each the objects of its parts, in order, and the local
    /// file), up to `concurrency` files at a time, each streamed to disk (never held in memory
    /// whole) and synced, every byte counted in `progress`. Returns, in order, each file's parts' sizes and crc32c and the whole
    /// file's crc32c, or `None` where an object does not exist; fails as a whole when `stop` ends it.
    pub(crate) fn get_files(
        &self,
        files: &[(Vec<ObjectPath>, std::path::PathBuf)],
        concurrency: usize,
        stop: Stop<'_>,
        progress: &Progress,
    ) -> Result<Vec<Result<Option<Fetched>>>> {
        use futures_util::StreamExt;
        self.run(stop, async {
            Ok(futures_util::stream::iter(
                files.iter().map(|(objects, file)| self.get_file(objects, file, stop, progress)),
            )
            .buffered(concurrency.max(1))
            .collect()
            .await)
        })
    }

    async fn get_file(
        &self,
        objects: &[ObjectPath],
        file: &Path,
        stop: Stop<'_>,
        progress: &Progress<'_>,
    ) -> Result<Option<Fetched>> {
        use std::io::Write;
        let local =
            |object: &ObjectPath, e: std::io::Error| self.local_err(object, format!("writing {}", file.display()), e);
        let mut out = None;
        let mut fetched = Fetched { parts: Vec::with_capacity(objects.len()), crc32c: 0 };
        for object in objects {
            let result = match self.store.get(object).await {
                Err(object_store::Error::NotFound { .. }) => return Ok(None),
                Err(e) => return Err(self.failed(object, e)),
                Ok(result) => result,
            };
            let out = match &mut out {
                Some(out) => out,
                None => out.insert(std::fs::File::create(file).map_err(|e| local(object, e))?),
            };
            let mut stream = result.into_stream();
            let (mut size, mut crc) = (0u64, 0u32);
            while let Some(chunk) = stream.try_next().await.map_err(|e| self.failed(object, e))? {
                if let Some(patience) = stop.patience {
                    patience.received(chunk.len() as u64);
                }
                progress.received(chunk.len() as u64);
                crc = txn_rocksdb_format::wal::crc32c_extend(crc, &chunk);
                fetched.crc32c = txn_rocksdb_format::wal::crc32c_extend(fetched.crc32c, &chunk);
                size += chunk.len() as u64;
                out.write_all(&chunk).map_err(|e| local(object, e))?;
            }
            fetched.parts.push((size, crc));
        }
        if let (Some(out), Some(object)) = (out, objects.last()) {
            out.sync_all().map_err(|e| local(object, e))?;
        }
        Ok(Some(fetched))
    }

    /// Sends the bytes `range` of the local file `file` to `path` (in parts of a multipart upload;
    /// the object appears whole or not at all). `stop` ends it at once, even in the middle of a
    /// part (the upload aborted when the object store still answers). A file shorter than the
    /// range fails it.
    ///
    /// The parts go straight to object_store's `MultipartUpload`, two at a time: its
    /// `WriteMultipart::finish` aborts the upload after a failed completion and returns the
    /// abort's error when that fails too, as it does on the local file system ("Upload aborted"
    /// in place of, say, the rename that failed). Here a failure is reported as itself and the
    /// abort's own result is only logged.
    pub(crate) fn put_file(
        &self,
        path: &ObjectPath,
        file: &Path,
        range: std::ops::Range<u64>,
        stop: Stop<'_>,
    ) -> Result<()> {
        use futures_util::stream::{FuturesUnordered, StreamExt};
        use std::io::Seek;
        /// Parts in flight at once.
        const PARTS_AT_ONCE: usize = 2;
        let reading = |e: std::io::Error| self.local_err(path, format!("reading {}", file.display()), e);
        let mut input = std::fs::File::open(file).map_err(reading)?;
        input.seek(std::io::SeekFrom::Start(range.start)).map_err(reading)?;
        let mut input = input.take(range.end - range.start);
        let limit = self.settings.upload_bytes_per_second;
        let piece = match limit {
            0 => PART_BYTES,
            limit => usize::try_from(limit / 10).unwrap_or(PART_BYTES).clamp(64 << 10, PART_BYTES),
        };
        let started = Instant::now();
        let mut upload =
            self.run(stop, async { self.store.put_multipart(path).await.map_err(|e| self.failed(path, e)) })?;
        let sent = self.run(stop, async {
            let mut in_flight = FuturesUnordered::new();
            let mut part: Vec<u8> = Vec::with_capacity(PART_BYTES.min(piece * 2));
            let mut buffer = vec![0u8; piece];
            let mut sent = 0u64;
            loop {
                // ahead of the limit: wait until the bytes sent are those its rate allows
                if let Some(ahead) = self.ahead_of_limit(sent, started.elapsed()) {
                    tokio::time::sleep(ahead).await;
                }
                let read = match input.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(read) => read,
                    Err(e) => return Err(self.local_err(path, format!("reading {}", file.display()), e)),
                };
                part.extend_from_slice(&buffer[..read]);
                sent += read as u64;
                if part.len() >= PART_BYTES {
                    while in_flight.len() >= PARTS_AT_ONCE {
                        if let Some(Err(e)) = in_flight.next().await {
                            return Err(self.failed(path, e));
                        }
                    }
                    in_flight.push(upload.put_part(PutPayload::from(std::mem::take(&mut part))));
                }
                // a part handed to the upload, the object not finished (a kill here leaves it half-sent)
                crate::fault::point("snapshot:mid-file")?;
            }
            if !part.is_empty() {
                in_flight.push(upload.put_part(PutPayload::from(std::mem::take(&mut part))));
            }
            while let Some(done) = in_flight.next().await {
                done.map_err(|e| self.failed(path, e))?;
            }
            if sent != range.end - range.start {
                let short = format!("{} has {sent} of the bytes {range:?}", file.display());
                return Err(self.err_found(path, &format!("reading {short}")));
            }
            upload.complete().await.map_err(|e| self.failed(path, e))?;
            Ok(())
        });
        if sent.is_err() {
            // bounded by ABORT_WAIT: the upload may have been cancelled, the store closing
            let stop = Stop { deadline: Some(Instant::now() + ABORT_WAIT), ..Stop::default() };
            let aborted = self.run(stop, async { upload.abort().await.map_err(|e| self.err(path, e)) });
            if let Err(abort) = aborted {
                log::debug!("aborting the upload of {path} after it failed: {abort}");
            }
        }
        sent
    }

    /// How long sending `sent` bytes `elapsed` after the start is ahead of the upload limit
    /// (`None`: not ahead, or no limit).
    fn ahead_of_limit(&self, sent: u64, elapsed: Duration) -> Option<Duration> {
        let limit = self.settings.upload_bytes_per_second;
        if limit == 0 {
            return None;
        }
        let allowed_at = Duration::from_secs_f64(sent as f64 / limit as f64);
        allowed_at.checked_sub(elapsed).filter(|ahead| !ahead.is_zero())
    }

    /// Writes `bytes` to `path` unless an object is there already; returns whether it wrote.
    pub(crate) fn put_new(&self, path: &ObjectPath, bytes: Vec<u8>, stop: Stop<'_>) -> Result<bool> {
        self.run(stop, async {
            let options = PutOptions { mode: PutMode::Create, ..PutOptions::default() };
            match self.store.put_opts(path, PutPayload::from(bytes), options).await {
                Ok(_) => Ok(true),
                Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
                Err(e) => Err(self.failed(path, e)),
            }
        })
    }

    /// Deletes the object at `path` (nothing where it does not exist).
    pub(crate) fn delete(&self, path: &ObjectPath, stop: Stop<'_>) -> Result<()> {
        self.run(stop, async {
            match self.store.delete(path).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(self.failed(path, e)),
            }
        })
    }
}

/// The error of a call stopped by its cancel flag.
pub(crate) fn cancelled(location: &Location) -> Error {
    Error::snapshot_found(location.uri(), "snapshot cancelled: the store is closing")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file sent in several parts arrives whole; one whose completion fails (its name taken by a
    /// directory, so the local file system's final rename fails) fails with that cause, not with
    /// the "Upload aborted" object_store's `WriteMultipart::finish` reported for it.
    #[test]
    fn a_file_arrives_whole_and_a_failed_completion_says_why() {
        let root = tempfile::tempdir().unwrap();
        let location = Location::parse(&format!("file://{}", root.path().join("snapshots").display()), &[]).unwrap();
        let file = root.path().join("local");
        let bytes: Vec<u8> = (0..PART_BYTES * 2 + 12_345).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&file, &bytes).unwrap();

        let path = location.path("store", "files/whole").unwrap();
        let all = 0..bytes.len() as u64;
        location.put_file(&path, &file, all.clone(), Stop::default()).unwrap();
        assert_eq!(location.get(&path, Stop::default()).unwrap().unwrap().as_ref(), &bytes[..]);
        let middle = location.path("store", "files/middle").unwrap();
        location.put_file(&middle, &file, 1_000..(PART_BYTES as u64 + 5_000), Stop::default()).unwrap();
        assert_eq!(
            location.get(&middle, Stop::default()).unwrap().unwrap().as_ref(),
            &bytes[1_000..PART_BYTES + 5_000]
        );
        let past = location.path("store", "files/past").unwrap();
        let e = location.put_file(&past, &file, 0..bytes.len() as u64 + 1, Stop::default()).unwrap_err().to_string();
        assert!(e.contains("of the bytes"), "{e}");
        assert_eq!(location.get(&past, Stop::default()).unwrap(), None, "nothing written");

        let taken = location.path("store", "files/taken").unwrap();
        let directory = root.path().join("snapshots/store/files/taken");
        std::fs::create_dir_all(directory.join("inside")).unwrap();
        let e = location.put_file(&taken, &file, all, Stop::default()).unwrap_err().report().to_string();
        assert!(!e.contains("Upload aborted"), "{e}");
        assert!(e.contains("store/files/taken") && e.contains("rename"), "names the object and the cause: {e}");
        assert!(directory.join("inside").is_dir(), "the directory in the way is left alone");
        eprintln!("{e}");
    }
}
