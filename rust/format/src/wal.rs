//! RocksDB's write-ahead log format (`db/log_format.h`), read only to find damage before RocksDB
//! replays a log: RocksDB 11.12's log reader can loop forever on some garbled records (in every
//! recovery mode, read-only or not), so the engine checks each WAL file first and never lets
//! RocksDB read past damage.
//!
//! A log is a sequence of 32 KiB blocks; each holds records (fragments) of
//! `[masked crc32c: u32 LE][length: u16 LE][type: u8]` (+ `[log number: u32 LE]` for the recyclable
//! types) and their payload; a block's last 0-6 bytes are zero padding. The checksum covers the
//! type byte, the log number if any, and the payload.

/// RocksDB's log block size.
pub const BLOCK_SIZE: usize = 32 * 1024;
const HEADER_LEN: usize = 7;
const RECYCLABLE_HEADER_LEN: usize = 11;

/// What a scan of one WAL file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WalScan {
    /// Every record is intact (trailing zeros, e.g. preallocated space, included).
    Intact,
    /// The records end with one cut short at the end of the file (a torn last write, which
    /// RocksDB's `TolerateCorruptedTailRecords` drops): the intact records end at `at`.
    TornTail { at: usize },
    /// A record at `at` is damaged and intact records follow it: everything from `at` on must not
    /// be replayed.
    Damaged { at: usize, reason: String },
}

/// crc32c (Castagnoli), as RocksDB computes it (also the checksum of snapshot files and manifests,
/// `snapshot_manifest.rs`).
pub fn crc32c(bytes: &[u8]) -> u32 {
    crc32c_extend(0, bytes)
}

/// The crc32c of the bytes checksummed into `crc` followed by `bytes` (`crc32c_extend(0, b)` is
/// `crc32c(b)`): a checksum of bytes that come in pieces.
pub fn crc32c_extend(crc: u32, bytes: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("sse4.2") {
            // SAFETY: this CPU has SSE4.2.
            return unsafe { crc32c_sse42(crc, bytes) };
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("crc") {
            // SAFETY: this CPU has the CRC32 instructions.
            return unsafe { crc32c_armv8(crc, bytes) };
        }
    }
    crc32c_sliced(crc, bytes)
}

/// The reflected Castagnoli polynomial.
const POLY: u32 = 0x82F6_3B78;

/// Slicing-by-8 tables: `TABLES[0]` is the bytewise table; `TABLES[k][b]` is byte `b`'s crc
/// followed by `k` zero bytes.
static TABLES: [[u32; 256]; 8] = tables();

const fn tables() -> [[u32; 256]; 8] {
    let mut tables = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ POLY } else { crc >> 1 };
            bit += 1;
        }
        tables[0][i] = crc;
        i += 1;
    }
    let mut k = 1;
    while k < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = tables[k - 1][i];
            tables[k][i] = (prev >> 8) ^ tables[0][(prev & 0xFF) as usize];
            i += 1;
        }
        k += 1;
    }
    tables
}

/// The bytewise table step over `bytes`, on the (inverted) crc register.
fn fold_bytes(crc: u32, bytes: &[u8]) -> u32 {
    bytes.iter().fold(crc, |crc, &b| TABLES[0][((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8))
}

/// `crc32c_extend` by slicing-by-8 tables, without special instructions.
fn crc32c_sliced(crc: u32, bytes: &[u8]) -> u32 {
    let mut crc = !crc;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let lo = crc ^ u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        let hi = u32::from_le_bytes([word[4], word[5], word[6], word[7]]);
        let t = &TABLES;
        crc = t[7][(lo & 0xFF) as usize]
            ^ t[6][(lo >> 8 & 0xFF) as usize]
            ^ t[5][(lo >> 16 & 0xFF) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][(hi & 0xFF) as usize]
            ^ t[2][(hi >> 8 & 0xFF) as usize]
            ^ t[1][(hi >> 16 & 0xFF) as usize]
            ^ t[0][(hi >> 24) as usize];
    }
    !fold_bytes(crc, words.remainder())
}

/// `bytes` split at its first 8-byte-aligned address (or its end).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn split_aligned(bytes: &[u8]) -> (&[u8], &[u8]) {
    bytes.split_at(bytes.as_ptr().align_offset(8).min(bytes.len()))
}

/// The little-endian `u64` of an 8-byte chunk.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn le_u64(w: &[u8]) -> u64 {
    u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]])
}

/// `crc32c_extend` by SSE4.2's `crc32` instruction: bytewise up to an aligned address, then 8
/// bytes at a time.
///
/// # Safety
/// The CPU must have SSE4.2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.2")]
unsafe fn crc32c_sse42(crc: u32, bytes: &[u8]) -> u32 {
    use std::arch::x86_64::{_mm_crc32_u64, _mm_crc32_u8};
    let (head, rest) = split_aligned(bytes);
    let mut words = rest.chunks_exact(8);
    let mut crc = !crc;
    for &b in head {
        crc = _mm_crc32_u8(crc, b);
    }
    let mut wide = u64::from(crc);
    for w in &mut words {
        wide = _mm_crc32_u64(wide, le_u64(w));
    }
    crc = wide as u32;
    for &b in words.remainder() {
        crc = _mm_crc32_u8(crc, b);
    }
    !crc
}

/// `crc32c_extend` by ARMv8's `crc32c` instructions: bytewise up to an aligned address, then 8
/// bytes at a time.
///
/// # Safety
/// The CPU must have the CRC32 instructions.
#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "crc")]
unsafe fn crc32c_armv8(crc: u32, bytes: &[u8]) -> u32 {
    use std::arch::aarch64::{__crc32cb, __crc32cd};
    let (head, rest) = split_aligned(bytes);
    let mut words = rest.chunks_exact(8);
    let mut crc = !crc;
    for &b in head {
        crc = __crc32cb(crc, b);
    }
    for w in &mut words {
        crc = __crc32cd(crc, le_u64(w));
    }
    for &b in words.remainder() {
        crc = __crc32cb(crc, b);
    }
    !crc
}

fn unmask(masked: u32) -> u32 {
    let rot = masked.wrapping_sub(0xa282_ead8);
    rot.rotate_left(15)
}

/// The record starting at `at`, if intact: its total length (header and payload).
fn record_at(bytes: &[u8], at: usize) -> Result<usize, String> {
    let block_left = BLOCK_SIZE - at % BLOCK_SIZE;
    let header = bytes.get(at..at + HEADER_LEN).ok_or("a record header cut short")?;
    let length = usize::from(u16::from_le_bytes([header[4], header[5]]));
    let kind = header[6];
    let header_len =
        if (5..=8).contains(&kind) || kind == 11 || kind == 131 { RECYCLABLE_HEADER_LEN } else { HEADER_LEN };
    if kind == 0 && length == 0 {
        return Err("a zero record".into());
    }
    if header_len + length > block_left {
        return Err(format!("a record of {length} bytes that would cross its block"));
    }
    let record = bytes.get(at..at + header_len + length).ok_or("a record cut short")?;
    let stored = u32::from_le_bytes([record[0], record[1], record[2], record[3]]);
    if unmask(stored) != crc32c(&record[6..]) {
        return Err(format!("a record of {length} bytes whose checksum does not match"));
    }
    Ok(header_len + length)
}

/// Whether some block after `from` starts with an intact record (so data follows a bad spot).
fn intact_record_after(bytes: &[u8], from: usize) -> bool {
    let mut block = (from / BLOCK_SIZE + 1) * BLOCK_SIZE;
    while block < bytes.len() {
        if record_at(bytes, block).is_ok() {
            return true;
        }
        block += BLOCK_SIZE;
    }
    false
}

/// Where each record of a log (a WAL or a MANIFEST: both are written in this format) begins, from
/// the file's start up to the first record that is not intact, padding skipped as [`scan`] skips
/// it. The places to damage a log at, one record at a time.
pub fn record_starts(bytes: &[u8]) -> Vec<usize> {
    let mut starts = Vec::new();
    walk(bytes, |at| starts.push(at));
    starts
}

/// Scans one WAL file's bytes.
pub fn scan(bytes: &[u8]) -> WalScan {
    walk(bytes, |_| ())
}

/// Walks a log's records from its start, calling `record` with the start of each intact one,
/// until the end or the first record that is not intact.
fn walk(bytes: &[u8], mut record: impl FnMut(usize)) -> WalScan {
    let mut at = 0;
    while at < bytes.len() {
        let block_left = BLOCK_SIZE - at % BLOCK_SIZE;
        if block_left < HEADER_LEN {
            // the block's trailer: padding
            at += block_left;
            continue;
        }
        let block_end = (at + block_left).min(bytes.len());
        match record_at(bytes, at) {
            Ok(length) => {
                record(at);
                at += length;
            }
            // zeros to the end of the block: padding (a writer pads a block too short for the
            // next header), or preallocated space
            Err(_) if bytes[at..block_end].iter().all(|&b| b == 0) && block_end < bytes.len() => at = block_end,
            Err(_) if bytes[at..].iter().all(|&b| b == 0) => return WalScan::Intact,
            Err(reason) => {
                if intact_record_after(bytes, at) {
                    return WalScan::Damaged { at, reason: format!("{reason} at byte {at}") };
                }
                return WalScan::TornTail { at };
            }
        }
    }
    WalScan::Intact
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(crc: u32) -> u32 {
        crc.rotate_right(15).wrapping_add(0xa282_ead8)
    }

    /// A log of `records` full records of `len` bytes each, as RocksDB writes it.
    fn log(records: usize, len: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for i in 0..records {
            let left = BLOCK_SIZE - out.len() % BLOCK_SIZE;
            if left < HEADER_LEN + len {
                out.extend(std::iter::repeat_n(0u8, left));
            }
            let payload: Vec<u8> = (0..len).map(|j| (i * 31 + j) as u8).collect();
            let mut checked = vec![1u8];
            checked.extend_from_slice(&payload);
            out.extend_from_slice(&mask(crc32c(&checked)).to_le_bytes());
            out.extend_from_slice(&(len as u16).to_le_bytes());
            out.push(1);
            out.extend_from_slice(&payload);
        }
        out
    }

    #[test]
    fn record_starts_are_every_intact_record_up_to_the_first_damaged_one() {
        let good = log(100, 1000);
        let starts = record_starts(&good);
        assert_eq!(starts.len(), 100);
        assert_eq!(starts[0], 0);
        // 32 records of 1,007 bytes fill a block's first 32,224 bytes; the 33rd starts the next block
        assert_eq!(starts[32], BLOCK_SIZE);
        assert!(starts.windows(2).all(|w| w[1] - w[0] == 1007 || w[1] % BLOCK_SIZE == 0), "{starts:?}");
        let mut garbled = good.clone();
        garbled[starts[50] + 10] ^= 0xFF;
        assert_eq!(record_starts(&garbled), starts[..50]);
        assert_eq!(record_starts(&good[..starts[70] + 3]), starts[..70]);
        assert!(record_starts(&[0; 100]).is_empty());
    }

    #[test]
    fn crc32c_matches_the_standard_check_value() {
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c_extend(crc32c(b"1234"), b"56789"), 0xE306_9283);
        assert_eq!(unmask(mask(0x1234_5678)), 0x1234_5678);
    }

    #[test]
    fn intact_torn_and_damaged_logs() {
        let good = log(100, 1000);
        assert!(good.len() > 2 * BLOCK_SIZE);
        assert_eq!(scan(&good), WalScan::Intact);
        let mut padded = good.clone();
        padded.extend_from_slice(&[0; 5000]);
        assert_eq!(scan(&padded), WalScan::Intact);
        // cut in the middle of the last record
        let cut = &good[..good.len() - 500];
        assert!(matches!(scan(cut), WalScan::TornTail { .. }));
        // garbled in the middle, intact records after
        let mut garbled = good.clone();
        for b in &mut garbled[40_000..44_096] {
            *b = b.wrapping_mul(7).wrapping_add(13);
        }
        match scan(&garbled) {
            WalScan::Damaged { at, .. } => assert!(at <= 40_000 && at > 39_000 - 1_100, "{at}"),
            other => panic!("{other:?}"),
        }
        // garbled at the very end: nothing intact after it, a torn tail
        let mut end = good;
        let n = end.len();
        end[n - 200] ^= 0xFF;
        assert!(matches!(scan(&end), WalScan::TornTail { .. }));
    }

    /// crc32c one bit at a time, from the polynomial alone.
    fn reference(crc: u32, bytes: &[u8]) -> u32 {
        let mut crc = !crc;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 { (crc >> 1) ^ 0x82F6_3B78 } else { crc >> 1 };
            }
        }
        !crc
    }

    /// A named `crc32c_extend` implementation.
    type Crc32c = (&'static str, fn(u32, &[u8]) -> u32);

    /// Every implementation this CPU can run, the dispatcher first.
    fn implementations() -> Vec<Crc32c> {
        let mut all: Vec<Crc32c> = vec![("dispatch", crc32c_extend), ("sliced", crc32c_sliced)];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("sse4.2") {
                // SAFETY: this CPU has SSE4.2.
                all.push(("sse4.2", |crc, bytes| unsafe { crc32c_sse42(crc, bytes) }));
            } else {
                eprintln!("no SSE4.2: crc32c_sse42 untested");
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            if std::arch::is_aarch64_feature_detected!("crc") {
                // SAFETY: this CPU has the CRC32 instructions.
                all.push(("armv8", |crc, bytes| unsafe { crc32c_armv8(crc, bytes) }));
            } else {
                eprintln!("no CRC32 instructions: crc32c_armv8 untested");
            }
        }
        all
    }

    /// A xorshift64 generator: reproducible random bytes without a dependency.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn bytes(&mut self, len: usize) -> Vec<u8> {
            (0..len).map(|_| self.next() as u8).collect()
        }
    }

    #[test]
    fn crc32c_implementations_match_the_check_value() {
        for (name, f) in implementations() {
            assert_eq!(f(0, b"123456789"), 0xE306_9283, "{name}");
            assert_eq!(f(f(0, b"1234"), b"56789"), 0xE306_9283, "{name}");
            assert_eq!(f(0, b""), 0, "{name}");
            assert_eq!(f(0x1234_5678, b""), 0x1234_5678, "{name}");
        }
        assert_eq!(reference(0, b"123456789"), 0xE306_9283);
    }

    #[test]
    fn crc32c_implementations_agree_at_every_length_and_offset() {
        let mut random = Random(0x9E37_79B9_7F4A_7C15);
        let buffer = random.bytes(300 + 8);
        let all = implementations();
        for len in 0..=300 {
            for offset in 0..8 {
                let bytes = &buffer[offset..offset + len];
                for crc in [0, random.next() as u32] {
                    let expected = reference(crc, bytes);
                    for (name, f) in &all {
                        let at = format!("{name} len {len} offset {offset} crc {crc:#x}");
                        assert_eq!(f(crc, bytes), expected, "{at}");
                    }
                }
            }
        }
        let long = random.bytes(100_003);
        let expected = reference(0, &long[3..]);
        for (name, f) in &all {
            assert_eq!(f(0, &long[3..]), expected, "{name}");
        }
    }

    #[test]
    fn crc32c_in_pieces_equals_crc32c_of_the_whole() {
        let mut random = Random(0x2545_F491_4F6C_DD1D);
        let all = implementations();
        for _ in 0..500 {
            let len = random.below(1000);
            let bytes = random.bytes(len);
            let expected = reference(0, &bytes);
            let mut cuts: Vec<usize> = (0..random.below(6)).map(|_| random.below(bytes.len() + 1)).collect();
            cuts.push(bytes.len());
            cuts.sort_unstable();
            for (name, f) in &all {
                let mut crc = 0;
                let mut from = 0;
                for &cut in &cuts {
                    crc = f(crc, &bytes[from..cut]);
                    from = cut;
                }
                assert_eq!(crc, expected, "{name} cuts {cuts:?} of {}", bytes.len());
            }
        }
    }

    /// MB/s of each crc32c implementation over 64 MiB (`cargo test --release -p
    /// txn-rocksdb-format -- --ignored --nocapture crc32c_throughput`).
    #[test]
    #[ignore]
    fn crc32c_throughput() {
        let data: Vec<u8> = (0..64u32 << 20).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let mut all = implementations();
        all.push(("bytewise", |crc, bytes| !fold_bytes(!crc, bytes)));
        for (name, f) in all {
            let mut best = f64::MAX;
            let mut crc = 0;
            for _ in 0..5 {
                let start = std::time::Instant::now();
                crc = std::hint::black_box(f(0, std::hint::black_box(&data)));
                best = best.min(start.elapsed().as_secs_f64());
            }
            println!("{name}: {:.0} MB/s ({crc:08x})", data.len() as f64 / best / 1e6);
        }
    }
}
