//! [`AnyStore`]: a store of any kind, chosen once when it opens, and where each operation every
//! kind shares goes for it. The caller (the JNI crate, one handle per store) converts arguments and
//! calls; it never reaches through a kind to the layers below.

use crate::error::{Error, Result};
use crate::iter::{Range, RangeIter};
use crate::offsets::OffsetUpdate;
use crate::segmented::{RetentionEdge, SegmentOptions};
use crate::session::SessionStore;
use crate::store::{KeyValueStore, StoreOptions};
use crate::store_kind::{self, StoreKind};
use crate::ttl::TtlStore;
use crate::versioned::{VersionedOptions, VersionedStore};
use crate::window::WindowStore;
use std::path::Path;
use txn_rocksdb_format::wire::{decode_batch, decode_timestamped_batch};
use txn_rocksdb_format::Malformed;

/// An open store of one kind. Offsets and sizes go to the key-value store every kind is built on;
/// restore goes to the kind's own method, which knows how to read its changelog records; commit and
/// rollback go to the versioned store's own (which hold its lock).
pub enum AnyStore {
    KeyValue(KeyValueStore),
    /// A key-value store whose keys expire.
    Ttl(TtlStore),
    Window(WindowStore),
    Session(SessionStore),
    Versioned(VersionedStore),
}

impl AnyStore {
    /// Opens a key-value store: one whose keys expire when `options.ttl` is set.
    pub fn open_key_value(path: impl AsRef<Path>, options: StoreOptions) -> Result<AnyStore> {
        AnyStore::of_kind(
            match options.ttl {
                Some(_) => AnyStore::Ttl(TtlStore::open(path, options)?),
                None => AnyStore::KeyValue(KeyValueStore::open(path, options)?),
            },
            StoreKind::KeyValue,
        )
    }

    /// Opens a window store (see [`WindowStore::open_with_edge`]).
    pub fn open_window(
        path: impl AsRef<Path>,
        options: StoreOptions,
        geometry: SegmentOptions,
        edge: RetentionEdge,
    ) -> Result<AnyStore> {
        AnyStore::of_kind(
            AnyStore::Window(WindowStore::open_with_edge(path, options, geometry, edge)?),
            StoreKind::Window,
        )
    }

    /// Opens a session store (see [`SessionStore::open`]).
    pub fn open_session(path: impl AsRef<Path>, options: StoreOptions, geometry: SegmentOptions) -> Result<AnyStore> {
        AnyStore::of_kind(AnyStore::Session(SessionStore::open(path, options, geometry)?), StoreKind::Session)
    }

    /// Opens a versioned store (see [`VersionedStore::open`]).
    pub fn open_versioned(
        path: impl AsRef<Path>,
        options: StoreOptions,
        geometry: VersionedOptions,
    ) -> Result<AnyStore> {
        AnyStore::of_kind(AnyStore::Versioned(VersionedStore::open(path, options, geometry)?), StoreKind::Versioned)
    }

    /// `store`, once its directory is known to hold a store of `kind` (recorded by its first open).
    fn of_kind(store: AnyStore, kind: StoreKind) -> Result<AnyStore> {
        store_kind::open_in(store.key_value(), kind)?;
        Ok(store)
    }

    /// The key-value store underneath (the store itself for the key-value kind): offsets, sizes,
    /// statistics and snapshots, and the rows of the other kinds. Key-value reads and writes go
    /// through [`Self::key_values`], which applies a time-to-live.
    pub fn key_value(&self) -> &KeyValueStore {
        match self {
            AnyStore::KeyValue(store) => store,
            AnyStore::Ttl(store) => store.key_value(),
            AnyStore::Window(store) => store.segments().key_value(),
            AnyStore::Session(store) => store.segments().key_value(),
            AnyStore::Versioned(store) => store.key_value(),
        }
    }

    /// Commits the transaction (see [`KeyValueStore::commit`]).
    pub fn commit(&self, updates: &[OffsetUpdate], position: Option<&[u8]>) -> Result<()> {
        match self {
            AnyStore::Versioned(store) => store.commit(updates, position),
            AnyStore::Ttl(store) => store.commit(updates, position),
            other => other.key_value().commit(updates, position),
        }
    }

    /// Drops the transaction (see [`KeyValueStore::rollback`]).
    pub fn rollback(&self) -> Result<()> {
        match self {
            AnyStore::Versioned(store) => store.rollback(),
            AnyStore::Ttl(store) => store.rollback(),
            other => other.key_value().rollback(),
        }
    }

    /// Applies a batch of changelog records straight to committed data: `batch` in the restore
    /// format of the format crate's `wire` for the kind (`decode_batch`; `decode_timestamped_batch`,
    /// with each record's timestamp, for the versioned store and a store whose keys expire). A
    /// malformed batch is
    /// [`Error::InvalidArgument`].
    pub fn restore(&self, batch: &[u8]) -> Result<()> {
        match self {
            AnyStore::KeyValue(store) => store.restore(decode_batch(batch).map_err(invalid)?.iter().copied()),
            AnyStore::Ttl(store) => store.restore(&decode_timestamped_batch(batch).map_err(invalid)?),
            AnyStore::Window(store) => store.restore(&decode_batch(batch).map_err(invalid)?),
            AnyStore::Session(store) => store.restore(&decode_batch(batch).map_err(invalid)?),
            AnyStore::Versioned(store) => store.restore(&decode_timestamped_batch(batch).map_err(invalid)?),
        }
    }

    /// RocksDB's estimate of the store's keys plus its staged writes.
    pub fn approximate_num_entries(&self) -> Result<u64> {
        match self {
            AnyStore::Ttl(store) => store.approximate_num_entries(),
            other => other.key_value().approximate_num_entries(),
        }
    }

    /// The key-value reads and writes of the store: through its time-to-live if it has one.
    pub fn key_values(&self) -> KeyValues<'_> {
        match self {
            AnyStore::Ttl(store) => KeyValues::Expiring(store),
            other => KeyValues::Plain(other.key_value()),
        }
    }

    /// The store whose keys expire, or [`Error::InvalidArgument`] for another kind.
    pub fn ttl(&self) -> Result<&TtlStore> {
        match self {
            AnyStore::Ttl(store) => Ok(store),
            _ => Err(not_a("time-to-live key-value")),
        }
    }

    /// The window store, or [`Error::InvalidArgument`] for another kind.
    pub fn window(&self) -> Result<&WindowStore> {
        match self {
            AnyStore::Window(store) => Ok(store),
            _ => Err(not_a("window")),
        }
    }

    /// The session store, or [`Error::InvalidArgument`] for another kind.
    pub fn session(&self) -> Result<&SessionStore> {
        match self {
            AnyStore::Session(store) => Ok(store),
            _ => Err(not_a("session")),
        }
    }

    /// The versioned store, or [`Error::InvalidArgument`] for another kind.
    pub fn versioned(&self) -> Result<&VersionedStore> {
        match self {
            AnyStore::Versioned(store) => Ok(store),
            _ => Err(not_a("versioned")),
        }
    }
}

/// A store's key-value face: the plain store's operations, or those of a store whose keys expire,
/// which take the write's time (ignored by a plain store) and filter every read.
#[derive(Clone, Copy)]
pub enum KeyValues<'a> {
    Plain(&'a KeyValueStore),
    Expiring(&'a TtlStore),
}

impl KeyValues<'_> {
    /// See [`KeyValueStore::get_with`].
    pub fn get_with<R>(&self, key: &[u8], committed_only: bool, f: impl FnOnce(Option<&[u8]>) -> R) -> Result<R> {
        match self {
            KeyValues::Plain(store) => store.get_with(key, committed_only, f),
            KeyValues::Expiring(store) => store.get_with(key, committed_only, f),
        }
    }

    /// See [`KeyValueStore::put_owned`]; `time` is the write's time.
    pub fn put_owned(&self, key: Vec<u8>, value: Option<Vec<u8>>, time: i64) -> Result<()> {
        match self {
            KeyValues::Plain(store) => store.put_owned(key, value),
            KeyValues::Expiring(store) => store.put(&key, value.as_deref(), time),
        }
    }

    /// See [`KeyValueStore::put_if_absent`].
    pub fn put_if_absent(&self, key: &[u8], value: &[u8], time: i64) -> Result<Option<Vec<u8>>> {
        match self {
            KeyValues::Plain(store) => store.put_if_absent(key, value),
            KeyValues::Expiring(store) => store.put_if_absent(key, value, time),
        }
    }

    /// See [`KeyValueStore::put_all`].
    pub fn put_all<'b>(
        &self,
        entries: impl IntoIterator<Item = (&'b [u8], Option<&'b [u8]>)>,
        time: i64,
    ) -> Result<()> {
        match self {
            KeyValues::Plain(store) => store.put_all(entries),
            KeyValues::Expiring(store) => store.put_all(entries, time),
        }
    }

    /// See [`KeyValueStore::delete`].
    pub fn delete(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        match self {
            KeyValues::Plain(store) => store.delete(key),
            KeyValues::Expiring(store) => store.delete(key),
        }
    }

    /// See [`KeyValueStore::range`].
    pub fn range(&self, range: Range) -> Result<RangeIter> {
        match self {
            KeyValues::Plain(store) => store.range(range),
            KeyValues::Expiring(store) => store.range(range),
        }
    }
}

fn invalid(e: Malformed) -> Error {
    Error::InvalidArgument(e.0)
}

/// A call for one kind on a store of another: the caller's store handle is the wrong one.
fn not_a(kind: &str) -> Error {
    Error::InvalidArgument(format!("the store handle is not a {kind} store"))
}
