//! A snapshot location: an object store (the `object_store` crate's trait; `file://` in this build)
//! and the prefix under it, with the few blocking calls snapshots make. `object_store` is async:
//! each location runs its calls on a current-thread runtime of its own (no process-wide state).

use crate::error::{Error, Result};
use bytes::Bytes;
use futures_util::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, WriteMultipart};
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Files are read and sent in parts of this size (one part of a multipart upload each).
const PART_BYTES: usize = 8 << 20;

/// Where a store's snapshots live: `<location>/<store id>/files/<object>` and
/// `<location>/<store id>/snapshots/<seq>.manifest`.
pub struct Location {
    uri: String,
    store: Arc<dyn ObjectStore>,
    root: ObjectPath,
    runtime: tokio::runtime::Runtime,
}

impl std::fmt::Debug for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Location").field("uri", &self.uri).finish()
    }
}

impl Location {
    /// The location a URI names: `file:///absolute/path` (S3, GCS and Azure come with the next
    /// increment, behind a cargo feature). A malformed or unsupported URI is
    /// [`Error::InvalidArgument`].
    pub fn parse(uri: &str) -> Result<Location> {
        let invalid = |why: String| Error::InvalidArgument(format!("snapshot location '{uri}': {why}"));
        let url = url::Url::parse(uri).map_err(|e| invalid(format!("not a URI ({e})")))?;
        if url.scheme() != "file" {
            return Err(invalid(format!(
                "scheme '{}' is not supported by this build (only file:// locations; object stores come later)",
                url.scheme()
            )));
        }
        let (store, root) = object_store::parse_url(&url).map_err(|e| invalid(e.to_string()))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .map_err(|e| invalid(format!("starting its I/O runtime failed: {e}")))?;
        Ok(Location { uri: uri.trim_end_matches('/').to_string(), store: Arc::from(store), root, runtime })
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

    /// Sends the local file `file` to `path` (in parts; the object appears whole or not at all).
    /// Returns the bytes sent. `cancel` set stops it between two parts (the upload aborted).
    pub(crate) fn put_file(&self, path: &ObjectPath, file: &Path, cancel: &AtomicBool) -> Result<u64> {
        let mut input = std::fs::File::open(file).map_err(|e| self.err(path, format!("reading {}: {e}", file.display())))?;
        self.runtime.block_on(async {
            let upload = self.store.put_multipart(path).await.map_err(|e| self.err(path, e))?;
            let mut writer = WriteMultipart::new_with_chunk_size(upload, PART_BYTES);
            let mut buffer = vec![0u8; PART_BYTES];
            let mut sent = 0u64;
            loop {
                if cancel.load(Ordering::Acquire) {
                    let _ = writer.abort().await;
                    return Err(super::take::cancelled(self));
                }
                let read = match input.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(read) => read,
                    Err(e) => {
                        let _ = writer.abort().await;
                        return Err(self.err(path, format!("reading {}: {e}", file.display())));
                    }
                };
                writer.wait_for_capacity(2).await.map_err(|e| self.err(path, e))?;
                writer.write(&buffer[..read]);
                sent += read as u64;
            }
            writer.finish().await.map_err(|e| self.err(path, e))?;
            Ok(sent)
        })
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
