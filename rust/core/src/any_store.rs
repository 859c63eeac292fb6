//! [`AnyStore`]: a store of any kind, chosen once when it opens, and where each operation every
//! kind shares goes for it. The caller (the JNI crate, one handle per store) converts arguments and
//! calls; it never reaches through a kind to the layers below.

use crate::error::{Error, Result};
use crate::offsets::OffsetUpdate;
use crate::session::SessionStore;
use crate::store::KeyValueStore;
use crate::versioned::VersionedStore;
use crate::window::WindowStore;
use txn_rocksdb_format::wire::{decode_batch, decode_timestamped_batch};
use txn_rocksdb_format::Malformed;

/// An open store of one kind. Offsets and sizes go to the key-value store every kind is built on;
/// restore goes to the kind's own method, which knows how to read its changelog records; commit and
/// rollback go to the versioned store's own (which hold its lock).
pub enum AnyStore {
    KeyValue(KeyValueStore),
    Window(WindowStore),
    Session(SessionStore),
    Versioned(VersionedStore),
}

impl AnyStore {
    /// The key-value store underneath (the store itself for the key-value kind): gets, puts,
    /// ranges, offsets, sizes and statistics.
    pub fn key_value(&self) -> &KeyValueStore {
        match self {
            AnyStore::KeyValue(store) => store,
            AnyStore::Window(store) => store.segments().key_value(),
            AnyStore::Session(store) => store.segments().key_value(),
            AnyStore::Versioned(store) => store.key_value(),
        }
    }

    /// Commits the transaction (see [`KeyValueStore::commit`]).
    pub fn commit(&self, updates: &[OffsetUpdate], position: Option<&[u8]>) -> Result<()> {
        match self {
            AnyStore::Versioned(store) => store.commit(updates, position),
            other => other.key_value().commit(updates, position),
        }
    }

    /// Drops the transaction (see [`KeyValueStore::rollback`]).
    pub fn rollback(&self) -> Result<()> {
        match self {
            AnyStore::Versioned(store) => store.rollback(),
            other => other.key_value().rollback(),
        }
    }

    /// Applies a batch of changelog records straight to committed data: `batch` in the restore
    /// format of the format crate's `wire` for the kind (`decode_batch`; `decode_timestamped_batch`,
    /// with each record's timestamp, for the versioned store). A malformed batch is
    /// [`Error::InvalidArgument`].
    pub fn restore(&self, batch: &[u8]) -> Result<()> {
        match self {
            AnyStore::KeyValue(store) => store.restore(decode_batch(batch).map_err(invalid)?.iter().copied()),
            AnyStore::Window(store) => store.restore(&decode_batch(batch).map_err(invalid)?),
            AnyStore::Session(store) => store.restore(&decode_batch(batch).map_err(invalid)?),
            AnyStore::Versioned(store) => store.restore(&decode_timestamped_batch(batch).map_err(invalid)?),
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

fn invalid(e: Malformed) -> Error {
    Error::InvalidArgument(e.0)
}

/// A call for one kind on a store of another: the caller's store handle is the wrong one.
fn not_a(kind: &str) -> Error {
    Error::InvalidArgument(format!("the store handle is not a {kind} store"))
}
