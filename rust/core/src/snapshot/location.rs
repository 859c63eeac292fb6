//! A snapshot location: an object store (the `object_store` crate's trait: `file://`, `s3://` and
//! Azure's `az://` / `abfs[s]://` in this build) and the prefix under it, with the few blocking
//! calls snapshots make.
//! `object_store` is async: each location runs its calls on a current-thread runtime of its own.

use crate::error::{Error, Result};
use bytes::Bytes;
use futures_util::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::{ClientOptions, RetryConfig};
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// How long a request to a cloud object store is retried before it fails (object_store's default
/// is 3 minutes).
const RETRY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);
/// How long connecting to a cloud object store's endpoint may take.
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Files are read and sent in parts of this size (one part of a multipart upload each).
const PART_BYTES: usize = 8 << 20;

/// Where a store's snapshots live: `<location>/<store id>/files/<object>` and
/// `<location>/<store id>/snapshots/<seq>.manifest`.
pub struct Location {
    uri: String,
    store: Arc<dyn ObjectStore>,
    root: ObjectPath,
    runtime: tokio::runtime::Runtime,
    /// The most bytes per second a file is sent at ([`Location::with_upload_limit`]); none: 0.
    upload_limit: u64,
    /// The checksums of SST files earlier snapshots through this location read, so that a file
    /// is read for its checksum once, not at every snapshot (see [`super::take::upload`]).
    pub(crate) checksums: super::take::ChecksumCache,
}

impl std::fmt::Debug for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Location").field("uri", &self.uri).finish()
    }
}

/// A cloud object store's retries. A store waits for a restore when it opens: an object store
/// that is down must fail it in seconds, not after object_store's default 3 minutes of retries.
fn cloud_retry() -> RetryConfig {
    RetryConfig { max_retries: 3, retry_timeout: RETRY_TIMEOUT, ..RetryConfig::default() }
}

/// A cloud object store's HTTP client options. reqwest's rustls has no built-in crypto provider
/// here: ring, installed once for the process (a provider already installed, by this or anything
/// else, is kept).
fn cloud_client_options() -> ClientOptions {
    let _ = rustls::crypto::ring::default_provider().install_default();
    ClientOptions::new().with_connect_timeout(CONNECT_TIMEOUT)
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
                    .with_retry(cloud_retry())
                    .with_client_options(cloud_client_options());
                for (key, value) in options {
                    let config: AmazonS3ConfigKey = key.parse().map_err(|_| invalid(format!("unknown S3 option '{key}'")))?;
                    builder = builder.with_config(config, value);
                }
                let store = builder.build().map_err(|e| invalid(e.to_string()))?;
                let prefix = ObjectPath::parse(url.path()).map_err(|e| invalid(e.to_string()))?;
                (Box::new(store), prefix)
            }
            "az" | "abfs" | "abfss" => {
                let mut builder = MicrosoftAzureBuilder::from_env()
                    .with_url(uri)
                    .with_retry(cloud_retry())
                    .with_client_options(cloud_client_options());
                for (key, value) in options {
                    let config: AzureConfigKey = key.parse().map_err(|_| invalid(format!("unknown Azure option '{key}'")))?;
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
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| invalid(format!("starting its I/O runtime failed: {e}")))?;
        Ok(Location {
            uri: uri.trim_end_matches('/').to_string(),
            store: Arc::from(store),
            root,
            runtime,
            upload_limit: 0,
            checksums: Default::default(),
        })
    }

    /// The location sending each file at most `bytes_per_second` on average (0: as fast as it
    /// goes), so that snapshots leave the host's network to the application: it reads the file in
    /// pieces of a tenth of a second's worth (64 KiB to 8 MiB) and, once it got ahead of the limit,
    /// waits (a cancel still stops it within 100 ms). The object store receives the parts of
    /// 8 MiB (`PART_BYTES`) as they fill. Restores are never limited: a store waits for them.
    pub fn with_upload_limit(mut self, bytes_per_second: u64) -> Location {
        self.upload_limit = bytes_per_second;
        self
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

    /// An error of the object store about `path`.
    pub(crate) fn err(&self, path: &ObjectPath, e: impl std::fmt::Display) -> Error {
        Error::Snapshot { location: self.uri.clone(), message: format!("object {path}: {e}") }
    }

    /// Every object under `prefix` (none where it does not exist).
    pub(crate) fn list(&self, prefix: &ObjectPath) -> Result<Vec<ObjectMeta>> {
        self.runtime.block_on(async {
            match self.store.list(Some(prefix)).try_collect::<Vec<_>>().await {
                Err(object_store::Error::NotFound { .. }) => Ok(Vec::new()),
                listed => listed.map_err(|e| self.err(prefix, e)),
            }
        })
    }

    /// The object's bytes, or `None` where it does not exist.
    pub(crate) fn get(&self, path: &ObjectPath) -> Result<Option<Bytes>> {
        self.runtime.block_on(async {
            match self.store.get(path).await {
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(self.err(path, e)),
                Ok(object) => object.bytes().await.map(Some).map_err(|e| self.err(path, e)),
            }
        })
    }

    /// Downloads the objects at `objects` into new local files (each `(object, file)`), up to
    /// `concurrency` at a time, each streamed to disk (never held in memory whole) and synced.
    /// Returns, in order, each file's size and crc32c, or `None` where the object does not exist.
    pub(crate) fn get_files(
        &self,
        objects: &[(ObjectPath, std::path::PathBuf)],
        concurrency: usize,
    ) -> Vec<Result<Option<(u64, u32)>>> {
        use futures_util::StreamExt;
        self.runtime.block_on(async {
            futures_util::stream::iter(objects.iter().map(|(object, file)| self.get_file(object, file)))
                .buffered(concurrency.max(1))
                .collect()
                .await
        })
    }

    async fn get_file(&self, object: &ObjectPath, file: &Path) -> Result<Option<(u64, u32)>> {
        use std::io::Write;
        let result = match self.store.get(object).await {
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(self.err(object, e)),
            Ok(result) => result,
        };
        let local = |e: std::io::Error| self.err(object, format!("writing {}: {e}", file.display()));
        let mut out = std::fs::File::create(file).map_err(local)?;
        let mut stream = result.into_stream();
        let (mut size, mut crc) = (0u64, 0u32);
        while let Some(chunk) = stream.try_next().await.map_err(|e| self.err(object, e))? {
            crc = txn_rocksdb_format::wal::crc32c_extend(crc, &chunk);
            size += chunk.len() as u64;
            out.write_all(&chunk).map_err(local)?;
        }
        out.sync_all().map_err(local)?;
        Ok(Some((size, crc)))
    }

    /// Sends the local file `file` to `path` (in parts; the object appears whole or not at all).
    /// Returns the bytes sent. `cancel` set stops it between two parts (the upload aborted).
    ///
    /// The parts go straight to object_store's `MultipartUpload`, two at a time: its
    /// `WriteMultipart::finish` aborts the upload after a failed completion and returns the
    /// abort's error when that fails too, as it does on the local file system ("Upload aborted"
    /// in place of, say, the rename that failed). Here a failure is reported as itself and the
    /// abort's own result is only logged.
    pub(crate) fn put_file(&self, path: &ObjectPath, file: &Path, cancel: &AtomicBool) -> Result<u64> {
        use futures_util::stream::{FuturesUnordered, StreamExt};
        /// Parts in flight at once.
        const PARTS_AT_ONCE: usize = 2;
        let mut input = std::fs::File::open(file).map_err(|e| self.err(path, format!("reading {}: {e}", file.display())))?;
        let piece = match self.upload_limit {
            0 => PART_BYTES,
            limit => usize::try_from(limit / 10).unwrap_or(PART_BYTES).clamp(64 << 10, PART_BYTES),
        };
        let started = std::time::Instant::now();
        self.runtime.block_on(async {
            let mut upload = self.store.put_multipart(path).await.map_err(|e| self.err(path, e))?;
            let mut in_flight = FuturesUnordered::new();
            let mut part: Vec<u8> = Vec::with_capacity(PART_BYTES.min(piece * 2));
            let mut buffer = vec![0u8; piece];
            let mut sent = 0u64;
            let outcome: Result<()> = async {
                loop {
                    // ahead of the limit: wait until the bytes sent are those its rate allows
                    while let Some(ahead) = self.ahead_of_limit(sent, started.elapsed()) {
                        if cancel.load(Ordering::Acquire) {
                            break;
                        }
                        tokio::time::sleep(ahead.min(std::time::Duration::from_millis(100))).await;
                    }
                    if cancel.load(Ordering::Acquire) {
                        return Err(super::take::cancelled(self));
                    }
                    let read = match input.read(&mut buffer) {
                        Ok(0) => break,
                        Ok(read) => read,
                        Err(e) => return Err(self.err(path, format!("reading {}: {e}", file.display()))),
                    };
                    part.extend_from_slice(&buffer[..read]);
                    sent += read as u64;
                    if part.len() >= PART_BYTES {
                        while in_flight.len() >= PARTS_AT_ONCE {
                            if let Some(Err(e)) = in_flight.next().await {
                                return Err(self.err(path, e));
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
                    done.map_err(|e| self.err(path, e))?;
                }
                upload.complete().await.map_err(|e| self.err(path, e))?;
                Ok(())
            }
            .await;
            if let Err(e) = outcome {
                drop(in_flight);
                if let Err(abort) = upload.abort().await {
                    log::debug!("aborting the upload of {path} after it failed: {abort}");
                }
                return Err(e);
            }
            Ok(sent)
        })
    }

    /// How long sending `sent` bytes `elapsed` after the start is ahead of the upload limit
    /// (`None`: not ahead, or no limit).
    fn ahead_of_limit(&self, sent: u64, elapsed: std::time::Duration) -> Option<std::time::Duration> {
        if self.upload_limit == 0 {
            return None;
        }
        let allowed_at = std::time::Duration::from_secs_f64(sent as f64 / self.upload_limit as f64);
        allowed_at.checked_sub(elapsed).filter(|ahead| !ahead.is_zero())
    }

    /// Writes `bytes` to `path` unless an object is there already; returns whether it wrote.
    pub(crate) fn put_new(&self, path: &ObjectPath, bytes: Vec<u8>) -> Result<bool> {
        self.runtime.block_on(async {
            let options = PutOptions { mode: PutMode::Create, ..PutOptions::default() };
            match self.store.put_opts(path, PutPayload::from(bytes), options).await {
                Ok(_) => Ok(true),
                Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
                Err(e) => Err(self.err(path, e)),
            }
        })
    }

    /// Deletes the object at `path` (nothing where it does not exist).
    pub(crate) fn delete(&self, path: &ObjectPath) -> Result<()> {
        self.runtime.block_on(async {
            match self.store.delete(path).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(self.err(path, e)),
            }
        })
    }
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
        let sent = location.put_file(&path, &file, &AtomicBool::new(false)).unwrap();
        assert_eq!(sent, bytes.len() as u64);
        assert_eq!(location.get(&path).unwrap().unwrap().as_ref(), &bytes[..]);

        let taken = location.path("store", "files/taken").unwrap();
        let directory = root.path().join("snapshots/store/files/taken");
        std::fs::create_dir_all(directory.join("inside")).unwrap();
        let e = location.put_file(&taken, &file, &AtomicBool::new(false)).unwrap_err().to_string();
        assert!(!e.contains("Upload aborted"), "{e}");
        assert!(e.contains("store/files/taken") && e.contains("rename"), "names the object and the cause: {e}");
        assert!(directory.join("inside").is_dir(), "the directory in the way is left alone");
        eprintln!("{e}");
    }
}
