//! The rows of a key-value store with a time-to-live, all in the store's one `data` family, so that
//! every strategy stages, commits and rolls them back with the data as it does any write:
//!
//! ```text
//! data row:   [0x00][key]                      -> [value][int64 write time]
//! index row:  [0x01][int64 write time][key]    -> (empty)
//! time row:   [0x02]                           -> [int64 store time]
//! ```
//!
//! Integers are big-endian; write times are never below 0 (the engine stores a negative one as
//! the store's time), so index rows sort by write time, then key: the expiry pass reads the index
//! from its start up to a time and stops. The write time follows the value, and the store time is
//! read from the last 8 bytes of its row, because a value format upgrade (`value_format`)
//! prepends its bytes to every row of the family: after one, a data row's value and write time
//! still split the same way, and the other rows' values are not read past their last 8 bytes.
//!
//! A store in this layout records [`LAYOUT_KEY`] in its `offsets` family when it is created, so a
//! store written without a time-to-live is never read as one written with it, or the reverse.

use crate::{Decoded, Malformed};

/// The key in the `offsets` family that marks a store in this layout; its value is
/// [`LAYOUT_VERSION`].
pub const LAYOUT_KEY: &[u8] = b"t";
/// The one version of this layout.
pub const LAYOUT_VERSION: u8 = 1;

const DATA: u8 = 0x00;
const INDEX: u8 = 0x01;
const TIME: u8 = 0x02;
const TIME_BYTES: usize = 8;

/// The key of the time row.
pub const TIME_KEY: &[u8] = &[TIME];
/// The first key a data row can have.
pub const DATA_START: &[u8] = &[DATA];
/// The first key above every data row (the first index row's prefix).
pub const DATA_END: &[u8] = &[INDEX];
/// The first key an index row can have.
pub const INDEX_START: &[u8] = &[INDEX];

/// The data row's key of `key`.
pub fn data_key(key: &[u8]) -> Vec<u8> {
    [&[DATA][..], key].concat()
}

/// The user key of a data row's key, or `None` for a row of another kind.
pub fn split_data_key(row_key: &[u8]) -> Option<&[u8]> {
    match row_key {
        [DATA, key @ ..] => Some(key),
        _ => None,
    }
}

/// A data row's value: `value` and the key's write time.
pub fn data_value(value: &[u8], write_time: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len() + TIME_BYTES);
    out.extend_from_slice(value);
    out.extend_from_slice(&write_time.to_be_bytes());
    out
}

/// A data row's value split into the user's value and the key's write time.
pub fn split_data_value(row_value: &[u8]) -> Decoded<(&[u8], i64)> {
    let Some(at) = row_value.len().checked_sub(TIME_BYTES) else {
        return Err(Malformed(format!(
            "a time-to-live data row's value ends with its 8-byte write time, but is {} bytes",
            row_value.len()
        )));
    };
    let (value, time) = row_value.split_at(at);
    Ok((value, i64::from_be_bytes(time.try_into().expect("8 bytes"))))
}

/// The index row's key of `key` written at `write_time`.
pub fn index_key(write_time: i64, key: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + TIME_BYTES + key.len());
    out.push(INDEX);
    out.extend_from_slice(&write_time.to_be_bytes());
    out.extend_from_slice(key);
    out
}

/// An index row's key split into its write time and the user key.
pub fn split_index_key(row_key: &[u8]) -> Decoded<(i64, &[u8])> {
    match row_key {
        [INDEX, rest @ ..] if rest.len() >= TIME_BYTES => {
            let (time, key) = rest.split_at(TIME_BYTES);
            Ok((i64::from_be_bytes(time.try_into().expect("8 bytes")), key))
        }
        _ => Err(Malformed(format!(
            "a time-to-live index row's key is 0x01, an 8-byte write time and the key, not {} bytes starting {:?}",
            row_key.len(),
            row_key.first()
        ))),
    }
}

/// The first key above every index row of a write time up to `time` (inclusive); `time` is at
/// least -1 (nothing expired yet: the index's start).
pub fn index_end(time: i64) -> Vec<u8> {
    match time.checked_add(1) {
        Some(above) if above >= 0 => {
            let mut out = Vec::with_capacity(1 + TIME_BYTES);
            out.push(INDEX);
            out.extend_from_slice(&above.to_be_bytes());
            out
        }
        Some(_) => INDEX_START.to_vec(),
        None => vec![TIME],
    }
}

/// The time row's value.
pub fn time_value(store_time: i64) -> [u8; TIME_BYTES] {
    store_time.to_be_bytes()
}

/// The store time a time row's value holds (its last 8 bytes: see the module's note on upgrades).
pub fn decode_time(row_value: &[u8]) -> Decoded<i64> {
    match row_value.len().checked_sub(TIME_BYTES) {
        Some(at) => Ok(i64::from_be_bytes(row_value[at..].try_into().expect("8 bytes"))),
        None => Err(Malformed(format!("a time-to-live store's time row is at least 8 bytes, not {}", row_value.len()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip() {
        let key = b"k\x00\xff".as_slice();
        assert_eq!(split_data_key(&data_key(key)), Some(key));
        assert_eq!(split_data_key(&index_key(5, key)), None);
        assert_eq!(split_data_value(&data_value(b"v", 42)).unwrap(), (b"v".as_slice(), 42));
        assert_eq!(split_data_value(&data_value(b"", 0)).unwrap(), (b"".as_slice(), 0));
        assert_eq!(split_index_key(&index_key(7, key)).unwrap(), (7, key));
        assert_eq!(decode_time(&time_value(1234)).unwrap(), 1234);
    }

    #[test]
    fn upgraded_rows_keep_their_times() {
        // a value format upgrade prepends to every value of the family
        let prefix = [0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF];
        let row = [&prefix[..], &data_value(b"v", 9)].concat();
        assert_eq!(split_data_value(&row).unwrap(), ([&prefix[..], b"v"].concat().as_slice(), 9));
        assert_eq!(decode_time(&[&prefix[..], &time_value(77)].concat()).unwrap(), 77);
    }

    #[test]
    fn rows_sort_data_then_index_by_time_then_time_row() {
        let mut rows = vec![
            TIME_KEY.to_vec(),
            index_key(300, b"a"),
            data_key(b"\xff\xff"),
            index_key(2, b"z"),
            data_key(b""),
            index_key(2, b"b"),
        ];
        rows.sort();
        assert_eq!(
            rows,
            vec![
                data_key(b""),
                data_key(b"\xff\xff"),
                index_key(2, b"b"),
                index_key(2, b"z"),
                index_key(300, b"a"),
                TIME_KEY.to_vec()
            ]
        );
        assert!(data_key(b"\xff\xff\xff").as_slice() < DATA_END);
        assert!(DATA_END <= index_key(0, b"").as_slice());
    }

    #[test]
    fn index_end_bounds_rows_up_to_a_time() {
        assert!(index_key(10, b"\xff").as_slice() < index_end(10).as_slice());
        assert!(index_key(11, b"").as_slice() >= index_end(10).as_slice());
        assert_eq!(index_end(-1), index_key(0, b""));
        assert_eq!(index_end(i64::MIN), INDEX_START.to_vec());
        assert!(index_key(i64::MAX, b"\xff").as_slice() < index_end(i64::MAX).as_slice());
    }

    #[test]
    fn short_rows_are_malformed() {
        assert!(split_data_value(b"1234567").unwrap_err().0.contains("7 bytes"));
        assert!(split_index_key(&[INDEX, 1, 2]).is_err());
        assert!(split_index_key(&[DATA; 12]).is_err());
        assert!(decode_time(b"").is_err());
    }
}
