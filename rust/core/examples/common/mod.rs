//! What the profiling examples share: `bench/`'s key layout and a small deterministic generator.
#![allow(dead_code)] // each example uses part of it

/// Key `i`: 16 bytes, `i` big-endian then a constant (JMH's keys).
pub fn key(i: u64) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&i.to_be_bytes());
    key[8..].copy_from_slice(&0x5EED_5EED_5EED_5EEDu64.to_be_bytes());
    key
}

/// xorshift64: the same sequence on every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn next_below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
}
