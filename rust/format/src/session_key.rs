//! Kafka's `SessionKeySchema` store keys: `[key][end: i64 BE][start: i64 BE]`. The session
//! store's changelog carries the same bytes, so restore decodes a record's segment (the session
//! end) from them.

/// Length of the `[end][start]` suffix.
pub const SUFFIX_LEN: usize = 16;

/// `[key][end][start]`.
pub fn store_key(key: &[u8], start: i64, end: i64) -> Vec<u8> {
    let mut store_key = Vec::with_capacity(key.len() + SUFFIX_LEN);
    store_key.extend_from_slice(key);
    store_key.extend_from_slice(&end.to_be_bytes());
    store_key.extend_from_slice(&start.to_be_bytes());
    store_key
}

/// Splits a store key into (key, start, end); `None` if it is too short.
pub fn split_store_key(store_key: &[u8]) -> Option<(&[u8], i64, i64)> {
    let key_len = store_key.len().checked_sub(SUFFIX_LEN)?;
    let (key, suffix) = store_key.split_at(key_len);
    let end = i64::from_be_bytes(suffix[..8].try_into().ok()?);
    let start = i64::from_be_bytes(suffix[8..].try_into().ok()?);
    Some((key, start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_key_round_trips() {
        let key = store_key(b"k", -3, 9);
        assert_eq!(split_store_key(&key), Some((&b"k"[..], -3, 9)));
        assert_eq!(split_store_key(&key[..15]), None);
    }
}
