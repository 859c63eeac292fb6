//! Kafka's `WindowKeySchema` store keys: `[key][start: i64 BE][seq: i32 BE]`. The window
//! store's changelog carries the same bytes, so restore decodes a record's segment from them.

/// Length of the `[start][seq]` suffix.
pub const SUFFIX_LEN: usize = 12;

/// `[key][start][seq]`.
pub fn store_key(key: &[u8], start: i64, seq: i32) -> Vec<u8> {
    let mut store_key = Vec::with_capacity(key.len() + SUFFIX_LEN);
    store_key.extend_from_slice(key);
    store_key.extend_from_slice(&start.to_be_bytes());
    store_key.extend_from_slice(&seq.to_be_bytes());
    store_key
}

/// Splits a store key into (key, start, seq); `None` if it is too short.
pub fn split_store_key(store_key: &[u8]) -> Option<(&[u8], i64, i32)> {
    let key_len = store_key.len().checked_sub(SUFFIX_LEN)?;
    let (key, suffix) = store_key.split_at(key_len);
    let start = i64::from_be_bytes(suffix[..8].try_into().ok()?);
    let seq = i32::from_be_bytes(suffix[8..].try_into().ok()?);
    Some((key, start, seq))
}

/// The smallest inclusive upper scan bound covering every store key `k ++ suffix` with
/// `k <= key` and `suffix <= max_suffix` (suffixes of that fixed length).
///
/// A key that is a proper prefix of `key` sorts before it, yet its store keys can sort after
/// `key ++ max_suffix` (its suffix is compared with `key`'s later bytes), so the bound is the
/// largest `prefix ++ max_suffix` over every prefix of `key`. Kafka's `OrderedBytes.upperRange`
/// approximates this and can miss such entries; ours is exact, so results are a superset.
pub fn upper_range(key: &[u8], max_suffix: &[u8]) -> Vec<u8> {
    (0..=key.len()).map(|len| [&key[..len], max_suffix].concat()).max().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upper_range_covers_keys_that_are_prefixes() {
        assert_eq!(upper_range(b"ab", &[0, 9]), b"ab\x00\x09".to_vec());
        assert_eq!(upper_range(&[5, 0, 7], &[1, 9]), vec![5, 1, 9]);
        // [255] ++ [0, 5] must be covered when the bound key is [255, 0] and suffixes go to [0, 9].
        let bound = upper_range(&[255, 0], &[0, 9]);
        assert!([&[255u8][..], &[0, 5]].concat() <= bound);
    }

    #[test]
    fn store_key_round_trips() {
        let key = store_key(b"k", 42, 7);
        assert_eq!(split_store_key(&key), Some((&b"k"[..], 42, 7)));
        assert_eq!(split_store_key(&key[..5]), None);
        assert_eq!(split_store_key(&key[1..]), Some((&b""[..], 42, 7)));
    }
}
