//! Restore from the changelog by ingestion: restored records wait in a bounded buffer, in changelog
//! order, and go into RocksDB as a sorted SST file that RocksDB ingests, instead of one by one
//! through the memtable, whose skip-list insert dominates a restore written that way
//! (`docs/profiles.md`).
//!
//! - [`RestoreBuffer::restore`] appends a batch of records (a `None` value deletes) to the buffer.
//!   When the buffer holds [`RESTORE_BUFFER_BYTES`] (the size of one memtable of `data`, so memory
//!   stays bounded whatever the changelog's size), it is written: sorted by key (stably: a key
//!   restored twice keeps its last value), one SST file holding each key's last write (deletes as
//!   tombstones, which delete the keys already in the store), fsynced, then ingested into `data`
//!   in one atomic RocksDB call, with a sequence number above every earlier write.
//! - A commit that carries only offsets (Kafka commits a restoring task's store every 10,000
//!   records or so) while at least [`MIN_INGEST_BYTES`] of records wait in the buffer is deferred ([`RestoreBuffer::defer`]): its
//!   offsets are written only after the records they cover, when the buffer is next written. So
//!   the stored offsets never run ahead of the stored records, at every commit: a crash loses the
//!   buffer and the deferred offsets together, the store reopens at an earlier commit (offsets of
//!   a commit, with at least its records) and Kafka restores the rest again (restoring the same
//!   records in the same order is idempotent).
//! - The deferred offsets are written without the WAL and flushed with `data` in one atomic flush
//!   (`Db::write_restored_offsets`): their MANIFEST edit then follows those of the ingested files,
//!   so no surviving part of the MANIFEST (after a crash, or a damaged file cut short) holds the
//!   offsets without the files, and a killed restore keeps its progress up to the last file.
//! - Anything else that needs the restored records in RocksDB first writes the buffer and its
//!   deferred offsets ([`RestoreBuffer::settle`]): reads (a standby's store may be queried),
//!   commits with writes, write-through writes, restores of other kinds, checkpoints, closing.
//!   Fewer than [`MIN_INGEST_BYTES`] are then written through the memtable
//!   (`Db::write_restored`): ingesting a small file costs more than it saves.
//!
//! Files are built in the store's `restore/` directory; one left by a crash before its ingestion
//! is deleted at open ([`remove_leftovers`]).

use crate::db::{Db, Write};
use crate::error::Result;
use crate::fault;
use crate::offsets::{self, OffsetWrites};
use crate::staging::lock;
use rust_rocksdb::{SstFileWriter, WriteBatch};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The buffer is written when its records (keys, values and an index entry each) reach this many
/// bytes: the write buffer size of the `data` family (`options.rs`), so a restore holds no more
/// memory than one memtable would.
pub(crate) const RESTORE_BUFFER_BYTES: usize = 16 << 20;
/// A buffer written before it is full (a read, a commit, closing) goes through the memtable below
/// this size, by ingestion from it; a commit of offsets only is deferred from it on.
pub(crate) const MIN_INGEST_BYTES: usize = 256 << 10;
/// Where the files are built, inside the store's directory.
const RESTORE_DIR: &str = "restore";
/// A buffered record's index entry: its key's first 8 bytes as a number (zero-padded, so numbers
/// order as the keys do, unless equal: the sort compares them first, which is most of its work),
/// where its key starts in the arena, the key's length, the value's length ([`DELETE`] for a
/// delete; the value follows the key).
type Entry = (u64, usize, u32, u32);
const DELETE: u32 = u32::MAX;
/// Bytes of an index entry, counted against the buffer's size.
const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

#[derive(Default)]
struct Buffered {
    /// Keys and values, one record after the other, in changelog order.
    arena: Vec<u8>,
    entries: Vec<Entry>,
    /// The offset writes of the commits deferred since the buffer was last written, in order.
    offsets: Vec<OffsetWrites>,
}

impl Buffered {
    fn bytes(&self) -> usize {
        self.arena.len() + self.entries.len() * ENTRY_BYTES
    }

    fn key(&self, &(_, start, key_len, _): &Entry) -> &[u8] {
        &self.arena[start..start + key_len as usize]
    }

    fn value(&self, &(_, start, key_len, value_len): &Entry) -> Option<&[u8]> {
        let from = start + key_len as usize;
        (value_len != DELETE).then(|| &self.arena[from..from + value_len as usize])
    }

    /// The index entries in key order, each key once, with its last write.
    fn last_writes(&self) -> Vec<Entry> {
        let mut sorted = self.entries.clone();
        // stable: equal keys keep changelog order
        sorted.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| self.key(a).cmp(self.key(b))));
        let mut last: Vec<Entry> = Vec::with_capacity(sorted.len());
        for entry in sorted {
            match last.last_mut() {
                // equal prefixes first: the keys are read from the arena only when they may be equal
                Some(previous) if previous.0 == entry.0 && self.key(previous) == self.key(&entry) => *previous = entry,
                _ => last.push(entry),
            }
        }
        last
    }
}

/// One store's buffer of restored records (see the module's documentation).
pub(crate) struct RestoreBuffer {
    buffered: Mutex<Buffered>,
    /// Records or deferred offsets wait in the buffer (read without the lock by every read).
    pending: AtomicBool,
    limit: usize,
    files: AtomicU64,
}

impl RestoreBuffer {
    /// A buffer written at [`RESTORE_BUFFER_BYTES`] (in the crate's tests,
    /// `TXN_ROCKSDB_RESTORE_BUFFER_BYTES`, see `fault.rs`).
    pub(crate) fn new() -> RestoreBuffer {
        RestoreBuffer {
            buffered: Mutex::default(),
            pending: AtomicBool::new(false),
            limit: fault::restore_buffer_bytes(RESTORE_BUFFER_BYTES),
            files: AtomicU64::new(0),
        }
    }

    /// Appends restored records to the buffer, and writes it if it is full.
    pub(crate) fn restore<'a>(
        &self,
        db: &Db,
        records: impl IntoIterator<Item = (&'a [u8], Option<&'a [u8]>)>,
    ) -> Result<()> {
        let mut buffered = lock(&self.buffered);
        if buffered.arena.capacity() == 0 {
            // once, so the arena never grows past the limit by doubling (pages are taken as used)
            buffered.arena.reserve_exact(self.limit);
        }
        for (key, value) in records {
            let start = buffered.arena.len();
            buffered.arena.extend_from_slice(key);
            let value_len = match value {
                Some(value) => {
                    buffered.arena.extend_from_slice(value);
                    value.len() as u32
                }
                None => DELETE,
            };
            buffered.entries.push((prefix(key), start, key.len() as u32, value_len));
        }
        self.pending.store(true, Ordering::Release);
        if buffered.bytes() >= self.limit {
            self.write(db, &mut buffered)?;
        }
        Ok(())
    }

    /// Defers a commit of `offset_writes` only (nothing staged) while at least a file's worth of
    /// records ([`MIN_INGEST_BYTES`]) waits in the buffer: its offsets are written after those
    /// records, when the buffer is written. Fewer are written now, through the memtable, and the
    /// writes come back: the commit then goes on as usual (as it does when nothing waits).
    pub(crate) fn defer(&self, db: &Db, offset_writes: OffsetWrites) -> Result<Option<OffsetWrites>> {
        if !self.pending.load(Ordering::Acquire) {
            return Ok(Some(offset_writes));
        }
        let mut buffered = lock(&self.buffered);
        if buffered.bytes() < self.min_ingest() {
            self.write(db, &mut buffered)?;
            return Ok(Some(offset_writes));
        }
        buffered.offsets.push(offset_writes);
        Ok(None)
    }

    /// The bytes from which the buffer is ingested rather than written through the memtable (a
    /// quarter of the buffer when tests shrink it, so commits are deferred there too).
    fn min_ingest(&self) -> usize {
        MIN_INGEST_BYTES.min(self.limit / 4)
    }

    /// Writes whatever waits in the buffer (records, then deferred offsets), so RocksDB holds
    /// everything restored and committed so far. One atomic load when nothing waits.
    pub(crate) fn settle(&self, db: &Db) -> Result<()> {
        if !self.pending.load(Ordering::Acquire) {
            return Ok(());
        }
        self.write(db, &mut lock(&self.buffered))
    }

    /// Writes the buffered records (by ingestion, or through the memtable when few), then the
    /// deferred offsets. On failure the buffer keeps what was not written, to be written again.
    fn write(&self, db: &Db, buffered: &mut Buffered) -> Result<()> {
        if !buffered.entries.is_empty() {
            let last = buffered.last_writes();
            if buffered.bytes() >= self.min_ingest() {
                self.ingest(db, buffered, &last)?;
            } else {
                db.write_restored(last.iter().map(|entry| match buffered.value(entry) {
                    Some(value) => Write::Put(buffered.key(entry), value),
                    None => Write::Delete(buffered.key(entry)),
                }))?;
            }
            buffered.arena = Vec::new();
            buffered.entries = Vec::new();
        }
        if !buffered.offsets.is_empty() {
            let mut batch = WriteBatch::default();
            for writes in &buffered.offsets {
                offsets::append_writes(&mut batch, db.offsets(), writes);
            }
            db.write_restored_offsets(&batch)?;
            buffered.offsets.clear();
        }
        self.pending.store(false, Ordering::Release);
        Ok(())
    }

    /// Writes `last` (the buffer's last writes, in key order) into an SST file and ingests it.
    fn ingest(&self, db: &Db, buffered: &Buffered, last: &[Entry]) -> Result<()> {
        let dir = db.path.join(RESTORE_DIR);
        std::fs::create_dir_all(&dir).map_err(|e| db.err_from(&format!("creating {}", dir.display()), e))?;
        let path = dir.join(format!("{:06}.sst", self.files.fetch_add(1, Ordering::Relaxed)));
        let file_options = db.file_options();
        let mut file = SstFileWriter::create(&file_options);
        file.open(&path).map_err(|e| db.rocks_err(e))?;
        for (i, entry) in last.iter().enumerate() {
            // The records sit in the arena in changelog order, so reading them in key order
            // misses the CPU caches once per record (most of the file's time, without this):
            // fetch those a few places ahead meanwhile.
            if let Some(ahead) = last.get(i + PREFETCH_AHEAD) {
                prefetch(&buffered.arena, ahead.1);
                prefetch(&buffered.arena, ahead.1 + 64);
            }
            match buffered.value(entry) {
                Some(value) => file.put(buffered.key(entry), value),
                None => file.delete(buffered.key(entry)),
            }
            .map_err(|e| db.rocks_err(e))?;
        }
        file.finish().map_err(|e| db.rocks_err(e))?;
        fault::point("restore:before-ingest")?;
        db.ingest(vec![path.clone()])?;
        fault::point("restore:after-ingest")?;
        // moved into RocksDB's directory: nothing is left but a file that failed before
        remove_file(db, &path)
    }
}

/// How many records ahead of the one written [`RestoreBuffer::ingest`] fetches into the caches.
const PREFETCH_AHEAD: usize = 8;

/// Asks the CPU to bring the cache line of `arena[at]` in (a hint: nothing if out of bounds).
#[inline(always)]
fn prefetch(arena: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if at < arena.len() {
        // SAFETY: a prefetch is a hint that never faults, and the address is inside the arena.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(arena.as_ptr().add(at).cast()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (arena, at);
}

/// The first 8 bytes of `key` as a big-endian number, zero-padded: a smaller number means a
/// smaller key, an equal one says nothing.
fn prefix(key: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    let len = key.len().min(8);
    bytes[..len].copy_from_slice(&key[..len]);
    u64::from_be_bytes(bytes)
}

/// Deletes the files a restore left behind when it was killed before their ingestion (at open).
pub(crate) fn remove_leftovers(db: &Arc<Db>) -> Result<()> {
    let dir = db.path.join(RESTORE_DIR);
    match std::fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(db.err_from(&format!("deleting {}", dir.display()), e))
        }
        _ => Ok(()),
    }
}

fn remove_file(db: &Db, path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(db.err_from(&format!("deleting {}", path.display()), e))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::Buffered;

    #[test]
    fn the_last_write_of_each_key_in_key_order() {
        let mut buffered = Buffered::default();
        for (key, value) in
            [(&b"b"[..], Some(&b"1"[..])), (b"a", Some(b"2")), (b"b", None), (b"c", Some(b"3")), (b"a", Some(b"4"))]
        {
            let start = buffered.arena.len();
            buffered.arena.extend_from_slice(key);
            buffered.arena.extend_from_slice(value.unwrap_or_default());
            buffered.entries.push((
                super::prefix(key),
                start,
                key.len() as u32,
                value.map_or(super::DELETE, |v| v.len() as u32),
            ));
        }
        let last: Vec<(&[u8], Option<&[u8]>)> =
            buffered.last_writes().iter().map(|entry| (buffered.key(entry), buffered.value(entry))).collect();
        assert_eq!(last, vec![(&b"a"[..], Some(&b"4"[..])), (b"b", None), (b"c", Some(b"3"))]);
    }

    #[test]
    fn key_prefixes_order_as_their_keys_unless_equal() {
        let keys: [&[u8]; 8] = [b"", b"\0", b"a", b"a\0", b"a\0\0\0\0\0\0\0\x01", b"ab", b"abcdefgh", b"abcdefghi"];
        for a in keys {
            for b in keys {
                let (pa, pb) = (super::prefix(a), super::prefix(b));
                assert!(pa == pb || pa.cmp(&pb) == a.cmp(b), "{a:?} {b:?}");
            }
        }
    }
}
