//! The format of a store's values, which Kafka Streams' layers above the store choose (the engine
//! stores values as opaque bytes), recorded in the `offsets` family under [`VALUE_FORMAT_KEY`] so
//! that a store reopened in a newer format can upgrade its entries once, as Kafka's own stores do:
//!
//! - `Plain`: the value as the serde wrote it (key-value, window and session stores);
//! - `Timestamped`: `[8-byte BE timestamp][value]` (Kafka's `TimestampedBytesStore`);
//! - `TimestampedWithHeaders`: `[varint size][headers][8-byte BE timestamp][value]` (KIP-1271's
//!   key-value and window stores, `HeadersBytesStore`);
//! - `WithHeaders`: `[varint size][headers][value]` (KIP-1271's session stores, whose value is the
//!   aggregation).
//!
//! An upgrade prepends the same bytes to every value ([`upgrade_prefix`]): empty headers (`0x00`,
//! a varint 0) and, from a plain value to a timestamped one, the timestamp -1, exactly as Kafka's
//! `HeadersBytesStore.convertToHeaderFormat` / `convertFromPlainToHeaderFormat` and KIP-258's
//! plain-to-timestamped upgrade do.

use crate::{Decoded, Malformed};

/// The key of the value format in the `offsets` family (one byte, [`ValueFormat::code`]).
pub const VALUE_FORMAT_KEY: &[u8] = b"f";
/// The key of an upgrade in progress in the `offsets` family: the source and target formats' codes,
/// then the first data key not yet converted (written with each converted batch).
pub const UPGRADE_KEY: &[u8] = b"u";

/// The format of a store's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueFormat {
    Plain,
    Timestamped,
    TimestampedWithHeaders,
    WithHeaders,
}

const TIMESTAMP_MINUS_ONE: [u8; 8] = [0xFF; 8];
const EMPTY_HEADERS: u8 = 0x00;

impl ValueFormat {
    pub const ALL: [ValueFormat; 4] =
        [ValueFormat::Plain, ValueFormat::Timestamped, ValueFormat::TimestampedWithHeaders, ValueFormat::WithHeaders];

    /// The byte stored under [`VALUE_FORMAT_KEY`].
    pub fn code(self) -> u8 {
        match self {
            ValueFormat::Plain => 0,
            ValueFormat::Timestamped => 1,
            ValueFormat::TimestampedWithHeaders => 2,
            ValueFormat::WithHeaders => 3,
        }
    }

    /// The format stored as `bytes` (the value under [`VALUE_FORMAT_KEY`]).
    pub fn decode(bytes: &[u8]) -> Decoded<ValueFormat> {
        match bytes {
            [code] => ValueFormat::ALL
                .into_iter()
                .find(|format| format.code() == *code)
                .ok_or_else(|| Malformed(format!("unknown value format {code}"))),
            _ => Err(Malformed(format!("a value format is one byte, not {}", bytes.len()))),
        }
    }

    /// The name in messages: `plain`, `timestamped`, `timestamped-with-headers`, `with-headers`
    /// (Java sends the format as its [`Self::code`], in the `open_options` record).
    pub fn name(self) -> &'static str {
        match self {
            ValueFormat::Plain => "plain",
            ValueFormat::Timestamped => "timestamped",
            ValueFormat::TimestampedWithHeaders => "timestamped-with-headers",
            ValueFormat::WithHeaders => "with-headers",
        }
    }

    /// Parses [`Self::name`]'s spelling.
    pub fn parse(name: &str) -> Option<ValueFormat> {
        ValueFormat::ALL.into_iter().find(|format| format.name() == name)
    }

    /// The timestamp a value in this format carries: the first 8 bytes of a timestamped value, the
    /// 8 bytes after the headers of a timestamped value with headers (their size a zig-zag varint,
    /// as Kafka's `ByteUtils.readVarint` reads it); `None` for the formats without one.
    pub fn timestamp(self, value: &[u8]) -> Decoded<Option<i64>> {
        let at = match self {
            ValueFormat::Plain | ValueFormat::WithHeaders => return Ok(None),
            ValueFormat::Timestamped => 0,
            ValueFormat::TimestampedWithHeaders => {
                let (headers, varint_bytes) = read_zigzag_varint(value)?;
                let headers = usize::try_from(headers)
                    .map_err(|_| Malformed(format!("a value's headers size is negative ({headers})")))?;
                varint_bytes.saturating_add(headers)
            }
        };
        match value.get(at..).and_then(|rest| rest.get(..8)) {
            Some(timestamp) => Ok(Some(i64::from_be_bytes(timestamp.try_into().expect("8 bytes")))),
            None => Err(Malformed(format!(
                "a {} value of {} bytes ends before its 8-byte timestamp at byte {at}",
                self.name(),
                value.len()
            ))),
        }
    }

    /// The format a store holding values without a recorded format is taken to be in when it is
    /// opened in `self`: the one it was written in before formats were recorded, which is `self`
    /// itself except for the headers formats, whose stores
    /// did not exist then: a key-value or window store with headers upgrades from a timestamped
    /// store (the DSL's format), a session store with headers from a plain one.
    pub fn unrecorded_predecessor(self) -> ValueFormat {
        match self {
            ValueFormat::TimestampedWithHeaders => ValueFormat::Timestamped,
            ValueFormat::WithHeaders => ValueFormat::Plain,
            other => other,
        }
    }
}

/// A zig-zag varint of at most 5 bytes (Kafka's `ByteUtils.readVarint`) at the start of `bytes`,
/// and how many bytes it took.
fn read_zigzag_varint(bytes: &[u8]) -> Decoded<(i32, usize)> {
    let mut raw: u32 = 0;
    for (i, &byte) in bytes.iter().enumerate().take(5) {
        raw |= u32::from(byte & 0x7F) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok((((raw >> 1) as i32) ^ -((raw & 1) as i32), i + 1));
        }
    }
    Err(Malformed(match bytes.len() {
        n if n < 5 => format!("a value's headers size (a varint) is cut short after {n} bytes"),
        _ => "a value's headers size (a varint) is longer than 5 bytes".to_string(),
    }))
}

/// The bytes prepended to every value of a store in `from` to bring it to `to`, or `None` where
/// Kafka has no such upgrade (a downgrade, or between the session and key-value families).
pub fn upgrade_prefix(from: ValueFormat, to: ValueFormat) -> Option<Vec<u8>> {
    use ValueFormat::*;
    match (from, to) {
        (a, b) if a == b => Some(Vec::new()),
        (Plain, Timestamped) => Some(TIMESTAMP_MINUS_ONE.to_vec()),
        (Timestamped, TimestampedWithHeaders) => Some(vec![EMPTY_HEADERS]),
        (Plain, TimestampedWithHeaders) => Some([&[EMPTY_HEADERS][..], &TIMESTAMP_MINUS_ONE].concat()),
        (Plain, WithHeaders) => Some(vec![EMPTY_HEADERS]),
        _ => None,
    }
}

/// An upgrade in progress: from and to which format, and the first key not yet converted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upgrade {
    pub from: ValueFormat,
    pub to: ValueFormat,
    pub next_key: Vec<u8>,
}

impl Upgrade {
    /// The value of [`UPGRADE_KEY`].
    pub fn encode(&self) -> Vec<u8> {
        [&[self.from.code(), self.to.code()][..], &self.next_key].concat()
    }

    /// Decodes [`Upgrade::encode`]'s bytes.
    pub fn decode(bytes: &[u8]) -> Decoded<Upgrade> {
        let [from, to, next_key @ ..] = bytes else {
            return Err(Malformed(format!("an upgrade record is at least two bytes, not {}", bytes.len())));
        };
        Ok(Upgrade {
            from: ValueFormat::decode(&[*from])?,
            to: ValueFormat::decode(&[*to])?,
            next_key: next_key.to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_read_where_each_format_keeps_them() {
        let ts = 1_700_000_000_123i64.to_be_bytes();
        assert_eq!(ValueFormat::Plain.timestamp(&ts).unwrap(), None);
        assert_eq!(ValueFormat::WithHeaders.timestamp(&[0]).unwrap(), None);
        assert_eq!(ValueFormat::Timestamped.timestamp(&[&ts[..], b"v"].concat()).unwrap(), Some(1_700_000_000_123));
        assert_eq!(ValueFormat::Timestamped.timestamp(&[0xFF; 8]).unwrap(), Some(-1));
        // empty headers: size 0
        assert_eq!(
            ValueFormat::TimestampedWithHeaders.timestamp(&[&[0][..], &ts, b"v"].concat()).unwrap(),
            Some(1_700_000_000_123)
        );
        // 3 bytes of headers: zig-zag 3 is 6
        let with_headers = [&[6, 1, 2, 3][..], &ts].concat();
        assert_eq!(ValueFormat::TimestampedWithHeaders.timestamp(&with_headers).unwrap(), Some(1_700_000_000_123));
        // 200 bytes of headers: zig-zag 400 is the two-byte varint 0x90 0x03
        let long = [&[0x90, 0x03][..], &[7; 200], &ts].concat();
        assert_eq!(ValueFormat::TimestampedWithHeaders.timestamp(&long).unwrap(), Some(1_700_000_000_123));
        // an upgrade's prefix yields the timestamp -1
        let upgraded =
            [&upgrade_prefix(ValueFormat::Plain, ValueFormat::TimestampedWithHeaders).unwrap()[..], b"v"].concat();
        assert_eq!(ValueFormat::TimestampedWithHeaders.timestamp(&upgraded).unwrap(), Some(-1));
    }

    #[test]
    fn values_too_short_for_their_timestamp_are_malformed() {
        assert!(ValueFormat::Timestamped.timestamp(&[1; 7]).is_err());
        assert!(ValueFormat::TimestampedWithHeaders.timestamp(&[]).is_err());
        assert!(ValueFormat::TimestampedWithHeaders.timestamp(&[0x80; 5]).is_err());
        assert!(ValueFormat::TimestampedWithHeaders.timestamp(&[0x80, 0x80]).is_err());
        assert!(ValueFormat::TimestampedWithHeaders.timestamp(&[1, 0, 0, 0, 0, 0, 0, 0, 0]).is_err()); // size -1
        assert!(ValueFormat::TimestampedWithHeaders.timestamp(&[0xFE, 0xFF, 0xFF, 0xFF, 0x0F]).is_err());
        // huge size
    }

    #[test]
    fn codes_and_names_round_trip() {
        for format in ValueFormat::ALL {
            assert_eq!(ValueFormat::decode(&[format.code()]), Ok(format));
            assert_eq!(ValueFormat::parse(format.name()), Some(format));
        }
        assert!(ValueFormat::decode(&[9]).is_err());
        assert!(ValueFormat::decode(&[]).is_err());
        assert!(ValueFormat::decode(&[1, 1]).is_err());
        assert_eq!(ValueFormat::parse("headers"), None);
    }

    #[test]
    fn prefixes_are_kafkas_conversions() {
        use ValueFormat::*;
        // HeadersBytesStore.convertToHeaderFormat: [0x00][timestamp][value]
        assert_eq!(upgrade_prefix(Timestamped, TimestampedWithHeaders), Some(vec![0]));
        // HeadersBytesStore.convertFromPlainToHeaderFormat: [0x00][-1][value]
        assert_eq!(upgrade_prefix(Plain, TimestampedWithHeaders), Some([vec![0], vec![0xFF; 8]].concat()));
        assert_eq!(upgrade_prefix(Plain, Timestamped), Some(vec![0xFF; 8]));
        assert_eq!(upgrade_prefix(Plain, WithHeaders), Some(vec![0]));
        assert_eq!(upgrade_prefix(Timestamped, Timestamped), Some(vec![]));
        assert_eq!(upgrade_prefix(TimestampedWithHeaders, Timestamped), None);
        assert_eq!(upgrade_prefix(WithHeaders, TimestampedWithHeaders), None);
    }

    #[test]
    fn upgrade_records_round_trip() {
        let upgrade = Upgrade { from: ValueFormat::Plain, to: ValueFormat::WithHeaders, next_key: b"next".to_vec() };
        assert_eq!(Upgrade::decode(&upgrade.encode()), Ok(upgrade));
        assert!(Upgrade::decode(&[]).is_err());
        assert!(Upgrade::decode(&[1]).is_err());
        assert!(Upgrade::decode(&[7, 1]).is_err());
    }
}
