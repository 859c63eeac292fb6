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
    const fn table() -> [u32; 256] {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut crc = i as u32;
            let mut bit = 0;
            while bit < 8 {
                crc = if crc & 1 != 0 { (crc >> 1) ^ 0x82F6_3B78 } else { crc >> 1 };
                bit += 1;
            }
            table[i] = crc;
            i += 1;
        }
        table
    }
    static TABLE: [u32; 256] = table();
    !bytes.iter().fold(!crc, |crc, &b| TABLE[((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8))
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
    let header_len = if (5..=8).contains(&kind) || kind == 11 || kind == 131 { RECYCLABLE_HEADER_LEN } else { HEADER_LEN };
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

/// Scans one WAL file's bytes.
pub fn scan(bytes: &[u8]) -> WalScan {
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
            Ok(length) => at += length,
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
}
