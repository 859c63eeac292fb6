//! How the secondary-store strategy's temporary store keeps a transaction's writes: key
//! `generation (u64 BE) ++ key`, value `1 ++ value` for a put or the tombstone `0` for a delete
//! (a delete must hide the main store's value, so it is a value, not a RocksDB delete).

/// Length of the generation prefix in front of every temporary-store key.
pub const GENERATION_PREFIX_LEN: usize = 8;

const PUT: u8 = 1;
const TOMBSTONE: u8 = 0;

pub fn generation_prefix(generation: u64) -> [u8; GENERATION_PREFIX_LEN] {
    generation.to_be_bytes()
}

/// The largest generation a store uses (generations count a store's transactions since it
/// opened, so no store comes near it; a commit file naming a larger one is corrupt).
pub const MAX_GENERATION: u64 = u64::MAX - 1;

/// `[generation, generation + 1)` as key bounds; `generation` is at most [`MAX_GENERATION`].
pub fn generation_bounds(generation: u64) -> (Vec<u8>, Vec<u8>) {
    (generation_prefix(generation).to_vec(), generation_prefix(generation + 1).to_vec())
}

/// The temporary-store key of `key` in `generation`.
pub fn temporary_key(generation: u64, key: &[u8]) -> Vec<u8> {
    let mut temporary = Vec::with_capacity(GENERATION_PREFIX_LEN + key.len());
    temporary.extend_from_slice(&generation_prefix(generation));
    temporary.extend_from_slice(key);
    temporary
}

/// The store key of a temporary-store key (its generation prefix removed; empty if the key is
/// shorter than a prefix, which the strategy never writes).
pub fn store_key(temporary_key: &[u8]) -> &[u8] {
    temporary_key.get(GENERATION_PREFIX_LEN..).unwrap_or_default()
}

pub fn encode_value(value: Option<&[u8]>) -> Vec<u8> {
    match value {
        Some(value) => {
            let mut out = Vec::with_capacity(1 + value.len());
            out.push(PUT);
            out.extend_from_slice(value);
            out
        }
        None => vec![TOMBSTONE],
    }
}

/// The value a temporary-store entry stands for: `None` = deleted.
pub fn decode_value(raw: &[u8]) -> Option<&[u8]> {
    match raw.split_first() {
        Some((&PUT, value)) => Some(value),
        _ => None,
    }
}

pub fn is_tombstone(raw: &[u8]) -> bool {
    decode_value(raw).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        assert_eq!(decode_value(&encode_value(Some(b"v"))), Some(&b"v"[..]));
        assert_eq!(decode_value(&encode_value(Some(b""))), Some(&b""[..]));
        assert_eq!(decode_value(&encode_value(None)), None);
        assert!(is_tombstone(&encode_value(None)));
    }

    #[test]
    fn generations_are_disjoint_and_ordered() {
        let (lo, hi) = generation_bounds(3);
        let key = temporary_key(3, &[0xFF; 20]);
        assert!(lo <= key && key < hi);
        assert!(temporary_key(4, b"") >= hi);
        assert_eq!(store_key(&key), &[0xFF; 20][..]);
        assert_eq!(store_key(&[1, 2]), b"");
    }
}
