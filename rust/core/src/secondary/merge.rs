//! Reads of a transaction that spilled: the temporary store's current generation merged over the
//! main store, both read at ONE snapshot, so a commit landing meanwhile is invisible to the
//! iterator (a snapshot, as Kafka's RocksDB iterators are). Tombstones hide main entries and are
//! never emitted. The transaction's unspilled writes are merged over this cursor in turn
//! (`batch.rs`).

use super::keys::{decode_value, generation_bounds, is_tombstone, store_key, temporary_key};
use crate::db::{Db, RawIterator, Snapshot};
use crate::iter::{Cursor, Walk};
use crate::options::{DATA_CF, TXN_CF};
use rust_rocksdb::ReadOptions;
use std::sync::Arc;

/// A cursor over `walk`'s range with the writes of `generation` over committed data, both read at
/// `snapshot`, which must pair with `generation` (see `CommittedView::staged_read_point`). The
/// caller keeps `snapshot` alive as long as the cursor.
pub(crate) fn cursor(db: &Arc<Db>, walk: &Walk, generation: u64, snapshot: &Snapshot) -> Merged {
    let (generation_lower, generation_upper) = generation_bounds(generation);
    let mut temporary_options = ReadOptions::default();
    temporary_options.set_iterate_lower_bound(walk.lower().map_or(generation_lower, |k| temporary_key(generation, k)));
    temporary_options
        .set_iterate_upper_bound(walk.upper_excl().map_or(generation_upper, |k| temporary_key(generation, k)));
    temporary_options.set_snapshot(&snapshot.rocks);
    let mut main_options = walk.read_options();
    main_options.set_snapshot(&snapshot.rocks);
    Merged {
        main: Db::raw_iterator(db, DATA_CF, main_options),
        temporary: Db::raw_iterator(db, TXN_CF, temporary_options),
        generation,
        reverse: walk.reverse(),
        side: Side::None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    None,
    Main,
    Temporary,
    /// Both have the key: the temporary store's entry wins.
    Both,
}

/// The merge of the temporary store (keys `generation ++ key`, marked values) over the main store,
/// in one direction.
pub(crate) struct Merged {
    main: RawIterator,
    temporary: RawIterator,
    generation: u64,
    reverse: bool,
    side: Side,
}

impl Merged {
    fn position(&mut self, temporary: impl FnOnce(&mut RawIterator, u64), main: impl FnOnce(&mut RawIterator)) {
        temporary(&mut self.temporary, self.generation);
        main(&mut self.main);
        self.settle();
    }

    fn move_iterator(iterator: &mut RawIterator, reverse: bool) {
        if reverse {
            iterator.prev()
        } else {
            iterator.next()
        }
    }

    /// Moves past the current entry.
    fn step(&mut self) {
        match self.side {
            Side::None => return,
            Side::Main => Self::move_iterator(&mut self.main, self.reverse),
            Side::Temporary => Self::move_iterator(&mut self.temporary, self.reverse),
            Side::Both => {
                Self::move_iterator(&mut self.main, self.reverse);
                Self::move_iterator(&mut self.temporary, self.reverse);
            }
        }
        self.settle();
    }

    /// Chooses the next entry in iteration order, skipping tombstones (and what they hide).
    fn settle(&mut self) {
        use std::cmp::Ordering::*;
        loop {
            let temporary =
                self.temporary.key().map(|key| (store_key(key), self.temporary.value().is_some_and(is_tombstone)));
            let main = self.main.key();
            let (side, tombstone) = match (main, temporary) {
                (None, None) => (Side::None, false),
                (Some(_), None) => (Side::Main, false),
                (None, Some((_, tombstone))) => (Side::Temporary, tombstone),
                (Some(main_key), Some((key, tombstone))) => match (main_key.cmp(key), self.reverse) {
                    (Equal, _) => (Side::Both, tombstone),
                    (Less, false) | (Greater, true) => (Side::Main, false),
                    _ => (Side::Temporary, tombstone),
                },
            };
            self.side = side;
            if !tombstone {
                return;
            }
            self.skip_tombstone();
        }
    }

    fn skip_tombstone(&mut self) {
        match self.side {
            Side::Temporary => Self::move_iterator(&mut self.temporary, self.reverse),
            Side::Both => {
                Self::move_iterator(&mut self.main, self.reverse);
                Self::move_iterator(&mut self.temporary, self.reverse);
            }
            Side::None | Side::Main => {}
        }
    }
}

impl Cursor for Merged {
    fn seek(&mut self, key: &[u8]) {
        self.position(|temporary, generation| temporary.seek(temporary_key(generation, key)), |main| main.seek(key))
    }
    fn seek_for_prev(&mut self, key: &[u8]) {
        self.position(
            |temporary, generation| temporary.seek_for_prev(temporary_key(generation, key)),
            |main| main.seek_for_prev(key),
        )
    }
    fn seek_to_first(&mut self) {
        // the temporary iterator's lower bound is its generation (or the range start)
        self.position(|temporary, _| temporary.seek_to_first(), |main| main.seek_to_first())
    }
    fn seek_to_last(&mut self) {
        self.position(|temporary, _| temporary.seek_to_last(), |main| main.seek_to_last())
    }
    fn next(&mut self) {
        self.step()
    }
    fn prev(&mut self) {
        self.step()
    }
    fn entry(&self) -> Option<(&[u8], &[u8])> {
        match self.side {
            Side::None => None,
            Side::Main => self.main.key().zip(self.main.value()),
            Side::Temporary | Side::Both => {
                let (key, raw) = self.temporary.key().zip(self.temporary.value())?;
                Some((store_key(key), decode_value(raw)?))
            }
        }
    }
    fn status(&self) -> std::result::Result<(), rust_rocksdb::Error> {
        self.main.status().and(self.temporary.status())
    }
}
