//! The kind of store a directory holds, recorded in its `offsets` family when a store of this
//! version first opens it (the format crate's [`txn_rocksdb_format::store_kind`]): the operators'
//! tool reads it to decode a store it did not open, and a store is refused when opened as another
//! kind (a window store's rows would read as key-value entries, and the reverse). Stores written
//! before kinds were recorded get theirs at their next open.

use crate::error::Result;
use crate::store::KeyValueStore;
pub use txn_rocksdb_format::store_kind::StoreKind;
use txn_rocksdb_format::store_kind::KIND_KEY;

/// Checks at open that `store` holds a store of `kind`, recording it where no kind is recorded yet.
pub(crate) fn open_in(store: &KeyValueStore, kind: StoreKind) -> Result<()> {
    let db = store.db();
    let recorded = db.rocks.get_pinned_cf(db.offsets(), KIND_KEY).map_err(|e| db.rocks_err(e))?;
    match recorded.as_deref().map(StoreKind::decode) {
        None => db.rocks.put_cf(db.offsets(), KIND_KEY, [kind.code()]).map_err(|e| db.rocks_err(e)),
        Some(Ok(recorded)) if recorded == kind => Ok(()),
        Some(Ok(recorded)) => Err(db.err(format!(
            "it holds a {} store and is opened as a {} store (a topology change gave the name to another kind of \
             store?): delete the store's directory so that it is restored from its changelog, or give the new store \
             a name of its own",
            recorded.name(),
            kind.name()
        ))),
        Some(Err(why)) => Err(crate::error::Error::Damaged {
            path: db.path.display().to_string(),
            message: format!("its store kind record is damaged: {why}"),
        }),
    }
}
