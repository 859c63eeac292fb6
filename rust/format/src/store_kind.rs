//! The kind of store a directory holds (key-value, window, session, versioned), recorded in its
//! `offsets` family under [`KIND_KEY`] (one byte, [`StoreKind::code`]) when a store of this version
//! first opens it, so that the operators' tool can read a store it did not open, and a store is
//! never opened as another kind (a window store's rows read as key-value entries). A key-value
//! store with a time-to-live is a key-value store whose rows are in their own layout (`ttl.rs`).

use crate::{Decoded, Malformed};

/// The key of the store's kind in the `offsets` family.
pub const KIND_KEY: &[u8] = b"k";

/// The kind of a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StoreKind {
    KeyValue,
    Window,
    Session,
    Versioned,
}

impl StoreKind {
    pub const ALL: [StoreKind; 4] = [StoreKind::KeyValue, StoreKind::Window, StoreKind::Session, StoreKind::Versioned];

    /// The byte recorded for the kind (never 0, which records carry for "not recorded").
    pub fn code(self) -> u8 {
        match self {
            StoreKind::KeyValue => 1,
            StoreKind::Window => 2,
            StoreKind::Session => 3,
            StoreKind::Versioned => 4,
        }
    }

    /// The kind whose [`Self::code`] is `code`.
    pub fn from_code(code: u8) -> Decoded<StoreKind> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.code() == code)
            .ok_or_else(|| Malformed(format!("unknown store kind {code}")))
    }

    /// The kind recorded as `value` (the value of [`KIND_KEY`]).
    pub fn decode(value: &[u8]) -> Decoded<StoreKind> {
        match value {
            [code] => Self::from_code(*code),
            other => Err(Malformed(format!("a store kind of {} bytes, not 1", other.len()))),
        }
    }

    /// The kind in words, as messages and the tool name it.
    pub fn name(self) -> &'static str {
        match self {
            StoreKind::KeyValue => "key-value",
            StoreKind::Window => "window",
            StoreKind::Session => "session",
            StoreKind::Versioned => "versioned",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_are_never_zero() {
        for kind in StoreKind::ALL {
            assert_ne!(kind.code(), 0);
            assert_eq!(StoreKind::decode(&[kind.code()]).unwrap(), kind);
        }
        assert!(StoreKind::decode(&[0]).is_err());
        assert!(StoreKind::decode(&[1, 1]).is_err());
        assert!(StoreKind::decode(&[]).is_err());
    }
}
