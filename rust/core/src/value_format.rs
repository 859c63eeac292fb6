//! The value format a store is opened in, recorded in the store, and the one-time upgrade of its
//! entries when it is opened in a newer one (a timestamped store reopened as a store with headers,
//! as an application that turns on `dsl.store.format=headers` does). Layouts and prefixes: the
//! format crate's [`txn_rocksdb_format::value_format`].
//!
//! The upgrade runs at open, after recovery, in bounded writes through the WAL: each one rewrites a
//! run of entries with the prefix and records, in the same write, the first key not yet converted
//! ([`UPGRADE_KEY`]); the last one records the new format and deletes that record. A crash in
//! between resumes at the recorded key, so every entry is converted exactly once. (Kafka's own
//! stores convert lazily, entry by entry as they are read, behind a second column family; the
//! result is the same bytes.)

use crate::db::Db;
use crate::error::{Error, Result};
use crate::fault;
use rust_rocksdb::{ReadOptions, WriteBatch};
pub use txn_rocksdb_format::value_format::ValueFormat;
use txn_rocksdb_format::value_format::{upgrade_prefix, Upgrade, UPGRADE_KEY, VALUE_FORMAT_KEY};

/// Entries are upgraded in writes of about this many bytes.
const UPGRADE_BATCH_BYTES: usize = 4 << 20;

/// Brings the store's entries to `format`, recording it: resumes an upgrade a crash interrupted,
/// upgrades a store recorded (or, without a record, known) to be in an older format, and refuses a
/// store in a format `format` cannot be reached from. Returns the format the store was in.
pub(crate) fn open_in(db: &Db, format: ValueFormat) -> Result<ValueFormat> {
    if let Some(upgrade) = upgrade_in_progress(db)? {
        if upgrade.to != format {
            return Err(db.err(format!(
                "its values were being upgraded from the {} format to the {} format when it stopped; open it as a store \
                 of the {} format to finish the upgrade, or delete it to restore it from its changelog",
                upgrade.from.name(),
                upgrade.to.name(),
                upgrade.to.name()
            )));
        }
        let from = upgrade.from;
        upgrade_from(db, upgrade)?;
        return Ok(from);
    }
    let recorded = recorded_format(db)?;
    let from = match recorded {
        Some(recorded) => recorded,
        None if is_empty(db)? => format,
        None => format.unrecorded_predecessor(),
    };
    if from == format {
        if recorded.is_none() {
            db.rocks.put_cf(db.offsets(), VALUE_FORMAT_KEY, [format.code()]).map_err(|e| db.rocks_err(e))?;
        }
        return Ok(from);
    }
    if upgrade_prefix(from, format).is_none() {
        return Err(db.err(format!(
            "its values are in the {} format, which a store of the {} format cannot read (Kafka Streams has no \
             conversion between them): open it as a store of the {} format, or delete it to restore it from its \
             changelog in the new format",
            from.name(),
            format.name(),
            from.name()
        )));
    }
    log::info!(
        "store {}: upgrading its values from the {} format to the {} format",
        db.path.display(),
        from.name(),
        format.name()
    );
    upgrade_from(db, Upgrade { from, to: format, next_key: Vec::new() })?;
    Ok(from)
}

fn recorded_format(db: &Db) -> Result<Option<ValueFormat>> {
    let Some(bytes) = db.rocks.get_pinned_cf(db.offsets(), VALUE_FORMAT_KEY).map_err(|e| db.rocks_err(e))? else {
        return Ok(None);
    };
    ValueFormat::decode(&bytes).map(Some).map_err(|why| Error::Damaged {
        path: db.path.display().to_string(),
        message: format!("its recorded value format does not decode ({why})"),
    })
}

fn upgrade_in_progress(db: &Db) -> Result<Option<Upgrade>> {
    let Some(bytes) = db.rocks.get_pinned_cf(db.offsets(), UPGRADE_KEY).map_err(|e| db.rocks_err(e))? else {
        return Ok(None);
    };
    Upgrade::decode(&bytes).map(Some).map_err(|why| Error::Damaged {
        path: db.path.display().to_string(),
        message: format!("the record of its value format upgrade does not decode ({why})"),
    })
}

/// Whether the `data` family holds no row.
pub(crate) fn is_empty(db: &Db) -> Result<bool> {
    let mut entries = db.rocks.raw_iterator_cf(db.data());
    entries.seek_to_first();
    entries.status().map_err(|e| db.rocks_err(e))?;
    Ok(!entries.valid())
}

/// Rewrites every entry from `upgrade.next_key` on with the upgrade's prefix.
fn upgrade_from(db: &Db, upgrade: Upgrade) -> Result<()> {
    let prefix = upgrade_prefix(upgrade.from, upgrade.to).expect("checked before the upgrade started");
    let (data, offsets) = (db.data(), db.offsets());
    let mut read_options = ReadOptions::default();
    read_options.fill_cache(false);
    // A RocksDB iterator reads the state as of its creation: it never sees the rewritten entries.
    let mut entries = db.rocks.raw_iterator_cf_opt(data, read_options);
    entries.seek(&upgrade.next_key);
    let batch_limit = fault::copy_batch_bytes(UPGRADE_BATCH_BYTES);
    let (mut batch, mut batch_bytes, mut upgraded) = (WriteBatch::default(), 0usize, 0u64);
    while let (Some(key), Some(value)) = (entries.key(), entries.value()) {
        batch.put_cf(data, key, [&prefix[..], value].concat());
        batch_bytes += key.len() + value.len();
        upgraded += 1;
        entries.next();
        if batch_bytes >= batch_limit {
            if let Some(next_key) = entries.key() {
                let progress = Upgrade { next_key: next_key.to_vec(), ..upgrade.clone() };
                batch.put_cf(offsets, UPGRADE_KEY, progress.encode());
                db.rocks.write(&batch).map_err(|e| db.rocks_err(e))?;
                fault::point("upgrade:after-batch")?;
                batch = WriteBatch::default();
                batch_bytes = 0;
            }
        }
    }
    entries.status().map_err(|e| db.rocks_err(e))?;
    batch.put_cf(offsets, VALUE_FORMAT_KEY, [upgrade.to.code()]);
    batch.delete_cf(offsets, UPGRADE_KEY);
    db.rocks.write(&batch).map_err(|e| db.rocks_err(e))?;
    db.flush_wal()?;
    log::info!(
        "store {}: upgraded {upgraded} values from the {} format to the {} format",
        db.path.display(),
        upgrade.from.name(),
        upgrade.to.name()
    );
    Ok(())
}
