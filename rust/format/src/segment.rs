//! The segment prefix of window and session stores: every entry of segment `s` is kept under
//! `prefix(s) ++ store key`, the prefix being the id as 8 big-endian bytes with the sign bit
//! flipped, so prefixes sort like the signed ids.

/// Length of the segment prefix in front of every store key.
pub const PREFIX_LEN: usize = 8;

/// The prefix of segment `segment`.
pub fn prefix(segment: i64) -> [u8; PREFIX_LEN] {
    ((segment as u64) ^ (1 << 63)).to_be_bytes()
}

/// The key under which `store_key` of `segment` is kept: segment prefix ++ store key.
pub fn prefixed(segment: i64, store_key: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(PREFIX_LEN + store_key.len());
    key.extend_from_slice(&prefix(segment));
    key.extend_from_slice(store_key);
    key
}

/// The segment id and store key of a kept key, `None` if it is shorter than a segment prefix.
pub fn split(key: &[u8]) -> Option<(i64, &[u8])> {
    if key.len() < PREFIX_LEN {
        return None;
    }
    let (prefix, store_key) = key.split_at(PREFIX_LEN);
    let id = (u64::from_be_bytes(prefix.try_into().ok()?) ^ (1 << 63)) as i64;
    Some((id, store_key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_order_like_signed_ids() {
        let ids = [i64::MIN, -5, -2, -1, 0, 1, 2, 7, i64::MAX];
        for pair in ids.windows(2) {
            assert!(prefix(pair[0]) < prefix(pair[1]));
        }
        for id in ids {
            assert_eq!(split(&prefixed(id, b"k")), Some((id, &b"k"[..])));
        }
        assert_eq!(split(&[0; 7]), None);
    }
}
