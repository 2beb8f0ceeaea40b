//! Table file format version 3: compressed blocks, read on demand.
//!
//! The format (header fields, byte order, blocks, value codes, checksums,
//! what a reader refuses) is written down once, in `docs/FORMAT.md`; this
//! module is its implementation. Every reader refuses what it does not
//! understand: it checks the header, the rules, the checksums, the block
//! index and the file length when it opens a table, and each block's
//! checksum (as the index had it at open) before it decompresses it.

use super::{BlockFault, Damage, Mismatch, Table, TableError, code_at};
use crate::index::Subspace;
use crate::rules::Rules;
use crate::value::{DRAW, Encoding, UNUSED, Value};
use rayon::prelude::*;
use std::cell::RefCell;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

mod codes;
mod read;
mod wdl;
mod write;

pub use crate::value::Wdl;
pub use codes::{CodeLayout, FieldCode, Halves};
pub use read::{TableFile, TableInfo};
pub use wdl::WdlBlock;
use wdl::{WdlOfStored, pack_wdl};
pub(super) use write::write;

const MAGIC: &[u8; 8] = b"MILLBASE";
/// The format version this build writes (it reads 2 as well).
pub const FORMAT_VERSION: u32 = 3;
/// The zstd level of the code section unless told otherwise: on the
/// halved depths level 1 compresses better than 3 (186 against 191 MB for
/// 8-8) and decompresses faster.
pub const DEFAULT_LEVEL: i32 = 1;
/// The lowest zstd level of the win/draw/loss section: its blocks are a
/// quarter of the code blocks' raw size, so a high level costs little
/// writing time (about 10 MB/s of raw fields) and keeps the section as
/// small as with blocks twice as large (78.9 MB for 8-8 at 8,192 slots a
/// block, against 79.1 at 16,384 and level 3).
pub const WDL_LEVEL: i32 = 15;
/// Slots per block: a probe whose blocks are not cached decompresses a
/// win/draw/loss block and, for a win or loss, a code block, so small
/// blocks keep it fast (the time grows with the block: on 8-8, 6 and 10 us
/// at 8,192 slots, 9 and 18 us at 16,384); the code section compresses
/// within 1 % at 8,192 to 16,384 slots. The quiet children of a position
/// lie in one orbit block of the index (at most 12,870 slots), so they
/// span a few blocks.
const BLOCK_SLOTS: u32 = 1 << 13;
const ENTRY: usize = 24;
/// The most slots a block may claim (every writer used 8,192 or 16,384).
const MAX_BLOCK_SLOTS: u32 = 1 << 20;

/// Recomputes every checksum of a table image (block sums, the file
/// checksum, the header checksum) wherever its header and block index can
/// be read, so that a fuzzer's changes reach the decoder instead of
/// failing a checksum. Returns whether it could. For tests and fuzzing.
#[doc(hidden)]
pub fn reseal(b: &mut [u8]) -> bool {
    let u32_at = |b: &[u8], i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
    if b.len() < 12 || &b[..8] != MAGIC {
        return false;
    }
    let fixed = fixed_len(u32_at(b, 8));
    if b.len() < fixed + 8 {
        return false;
    }
    let len = u32_at(b, fixed - 4) as usize;
    let blocks = u32_at(b, 36) as usize;
    let index_at = fixed + len + 8;
    let Some(data_at) = blocks
        .checked_mul(2 * ENTRY)
        .and_then(|n| n.checked_add(index_at))
    else {
        return false;
    };
    if b.len() < data_at {
        return false;
    }
    let mut sums = Vec::with_capacity(2 * blocks);
    for k in 0..2 * blocks {
        let e = index_at + k * ENTRY;
        let off = u64::from_le_bytes(b[e..e + 8].try_into().unwrap());
        let n = u32_at(b, e + 8) as u64;
        let end = off.saturating_add(n);
        let sum = if end <= b.len() as u64 {
            xxh3_64(&b[off as usize..end as usize])
        } else {
            0
        };
        b[e + 16..e + 24].copy_from_slice(&sum.to_le_bytes());
        sums.push(sum);
    }
    if fixed >= 48 {
        b[40..48].copy_from_slice(&file_checksum(&sums).to_le_bytes());
    }
    let sum = xxh3_64(&b[..fixed + len]);
    b[fixed + len..fixed + len + 8].copy_from_slice(&sum.to_le_bytes());
    true
}

/// Bytes of the fixed header fields, before the rules text, by version.
fn fixed_len(version: u32) -> usize {
    if version == 2 { 52 } else { 56 }
}

/// The two sections of a table file.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Section {
    /// Win, draw or loss, 2 bits per slot.
    Wdl = 0,
    /// The value code (with the plies), 1 or 2 bytes per slot.
    Codes = 1,
}

impl Section {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Section::Wdl => "win/draw/loss",
            Section::Codes => "value-code",
        }
    }
}

/// One entry of the block index.
#[derive(Clone, Copy, Debug)]
struct BlockEntry {
    offset: u64,
    len: u32,
    sum: u64,
}

/// The entry in `ENTRY` bytes of the index.
#[inline]
fn entry_of(e: &[u8]) -> BlockEntry {
    BlockEntry {
        offset: u64::from_le_bytes(e[..8].try_into().unwrap()),
        len: u32::from_le_bytes(e[8..12].try_into().unwrap()),
        sum: u64::from_le_bytes(e[16..24].try_into().unwrap()),
    }
}

thread_local! {
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
    /// The compressed bytes of the block being read.
    static READ_BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// One compressor per level with its output buffer: a fresh context
    /// per block cost about a tenth of compressing (its workspace
    /// allocated and zeroed each time).
    static COMPRESSORS: RefCell<Vec<(i32, zstd::bulk::Compressor<'static>, Vec<u8>)>> =
        const { RefCell::new(Vec::new()) };
}

/// The file checksum of a block index: [`file_checksum`] of its block
/// checksums, hashed a page of them at a time.
fn index_checksum(index: &[u8]) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut page = [0u8; 4096];
    for entries in index.chunks(ENTRY * (page.len() / 8)) {
        let mut n = 0;
        for e in entries.chunks_exact(ENTRY) {
            page[n..n + 8].copy_from_slice(&e[16..24]);
            n += 8;
        }
        hasher.update(&page[..n]);
    }
    hasher.digest()
}

fn file_checksum(block_sums: &[u64]) -> u64 {
    let bytes: Vec<u8> = block_sums.iter().flat_map(|s| s.to_le_bytes()).collect();
    xxh3_64(&bytes)
}

#[cfg(test)]
mod tests {
    use super::wdl::decisive_bits;
    use super::*;

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("millbase-format-{}-{name}.mbt", std::process::id()))
    }

    /// Writes `codes` as a table of `rules`, reads it back, and returns
    /// the layout it was written in.
    fn round_trip(name: &str, codes: &[u16], rules: &Rules, encoding: Encoding) -> CodeLayout {
        let s = Subspace::moving(3, 3);
        let table = Table::from_codes(s, codes).with_encoding(encoding);
        let path = temp(name);
        write(&table, &path, rules, DEFAULT_LEVEL).unwrap();
        let mapped = TableFile::open(&path, rules, s, codes.len() as u64).unwrap();
        mapped.verify().unwrap();
        let back = mapped.decode().unwrap();
        for (i, &c) in codes.iter().enumerate() {
            assert_eq!(back.code(i as u64), c, "{name}: slot {i}");
            let b = (i / BLOCK_SLOTS as usize) as u32;
            let j = mapped.in_block(i as u64);
            // As a probe reads it: layout 1 from the code block alone,
            // layout 2 from the fields, and the code block only for a
            // decisive slot.
            if layout_is_codes(&mapped) {
                let codes = mapped.code_block(b).unwrap();
                assert_eq!(mapped.code_in(&codes, j), c, "{name}: slot {i}");
                continue;
            }
            let wdl = mapped.wdl_block(b).unwrap();
            match wdl.field_code(j) {
                FieldCode::Code(code) => assert_eq!(code, c, "{name}: slot {i}"),
                FieldCode::Decisive { rank, win, count } => {
                    assert!(c != DRAW && c != UNUSED, "{name}: slot {i}");
                    let halves = mapped.halves_block(b, count).unwrap();
                    assert_eq!(halves.code(rank, win), c, "{name}: slot {i}");
                }
            }
        }
        let layout = mapped.info().layout;
        let _ = fs::remove_file(path);
        layout
    }

    /// Codes from a fixed pseudo-random sequence: draws, unused slots,
    /// wins and losses up to `deepest` plies.
    fn pseudo_random_codes(n: usize, deepest: u32, encoding: Encoding) -> Vec<u16> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match x % 5 {
                    0 | 1 => DRAW,
                    2 => UNUSED,
                    _ => encoding.code_of(x % 7 < 3, ((x >> 8) % (deepest as u64 + 1)) as u32),
                }
            })
            .collect()
    }

    fn layout_is_codes(t: &TableFile) -> bool {
        t.info().layout == CodeLayout::Codes
    }

    /// Decoding a block in one pass gives, slot by slot, what a probe
    /// reads (`field_code` and `Halves::code`), for every width of depths
    /// and codes; a depth too deep for one byte refuses the block, and a
    /// depth past every code (a damaged block) reads as an unused slot.
    #[test]
    fn a_block_decodes_as_its_slots_are_probed() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for (in_width, out_width, deepest) in [
            (1, 1, 200),
            (1, 1, 126),
            (1, 2, 255),
            (2, 2, 40_000),
            (2, 1, 126),
        ] {
            for slots in [1usize, 7, 8, 9, 31, 32, 33, 1000, 8192] {
                let words: Vec<u64> = (0..slots.div_ceil(32)).map(|_| next()).collect();
                let wdl = WdlBlock::from_words(words);
                let halves = Halves {
                    bytes: (0..wdl.decisive)
                        .flat_map(|_| {
                            let h = (next() % (deepest + 1)) as u16;
                            h.to_le_bytes()[..in_width].to_vec()
                        })
                        .collect(),
                    width: in_width as u8,
                };
                let mut out = vec![0xAAu8; slots * out_width];
                let mut fits = true;
                let want: Vec<u8> = (0..slots)
                    .flat_map(|i| {
                        let code = match wdl.field_code(i) {
                            FieldCode::Code(c) => c,
                            FieldCode::Decisive { rank, win, .. } => halves.code(rank, win),
                        };
                        if out_width == 2 {
                            code.to_le_bytes().to_vec()
                        } else {
                            fits &= code < 255 || code == UNUSED;
                            vec![if code == UNUSED { 255 } else { code as u8 }]
                        }
                    })
                    .collect();
                let ok = wdl.expand(&halves, out_width as u8, &mut out);
                assert_eq!(ok, fits, "{in_width}/{out_width} bytes, {slots} slots");
                if fits {
                    assert_eq!(out, want, "{in_width}/{out_width} bytes, {slots} slots");
                }
            }
        }
        // One byte of codes cannot hold a win in 255 plies (half 127).
        let wdl = WdlBlock::from_words(vec![1]);
        let deep = Halves {
            bytes: vec![127],
            width: 1,
        };
        assert!(!wdl.expand(&deep, 1, &mut [0]));
        // A half past every code reads as unused, in either width.
        let past = Halves {
            bytes: 40_000u16.to_le_bytes().to_vec(),
            width: 2,
        };
        let mut one = [0u8];
        assert!(wdl.expand(&past, 1, &mut one));
        assert_eq!(one, [255]);
        let mut two = [0u8; 2];
        assert!(wdl.expand(&past, 2, &mut two));
        assert_eq!(u16::from_le_bytes(two), UNUSED);
    }

    #[test]
    fn pure_tables_keep_only_the_decisive_slots_halved_depths() {
        let rules = Rules::STANDARD;
        // Longer than two blocks, the last one partial.
        let n = 2 * BLOCK_SLOTS as usize + 1234;
        let shallow = pseudo_random_codes(n, 300, Encoding::Plies);
        assert_eq!(
            round_trip("shallow", &shallow, &rules, Encoding::Plies),
            CodeLayout::DecisiveHalves(1)
        );
        // Depths of 512 plies and more need 2 bytes per half.
        let deep = pseudo_random_codes(n, 700, Encoding::Plies);
        assert_eq!(
            round_trip("deep", &deep, &rules, Encoding::Plies),
            CodeLayout::DecisiveHalves(2)
        );
        let draws = vec![DRAW; 100];
        assert_eq!(
            round_trip("draws", &draws, &rules, Encoding::Plies),
            CodeLayout::DecisiveHalves(1)
        );
    }

    #[test]
    fn cursed_wins_keep_every_code() {
        let rules: Rules = "standard,nmove=10".parse().unwrap();
        let e = Encoding::of(&rules, true);
        let mut codes = pseudo_random_codes(BLOCK_SLOTS as usize + 77, 10, e);
        assert_eq!(
            round_trip("nmove", &codes, &rules, e),
            CodeLayout::DecisiveHalves(1)
        );
        codes[5] = e.cursed_code(true);
        codes[BLOCK_SLOTS as usize + 3] = e.cursed_code(false);
        assert_eq!(round_trip("cursed", &codes, &rules, e), CodeLayout::Codes);
    }

    #[test]
    fn a_header_too_narrow_for_its_codes_is_refused() {
        let rules = Rules::STANDARD;
        let s = Subspace::moving(3, 3);
        // Depths up to 300: halved they fit a byte, the codes need two.
        let codes = pseudo_random_codes(5000, 300, Encoding::Plies);
        let table = Table::from_codes(s, &codes);
        assert_eq!(table.width(), 2);
        let path = temp("narrow");
        write(&table, &path, &rules, DEFAULT_LEVEL).unwrap();
        let mut bytes = fs::read(&path).unwrap();
        bytes[20] = 1;
        let len = u32::from_le_bytes(bytes[52..56].try_into().unwrap()) as usize;
        let sum = xxh3_64(&bytes[..56 + len]).to_le_bytes();
        bytes[56 + len..64 + len].copy_from_slice(&sum);
        fs::write(&path, &bytes).unwrap();
        let mapped = TableFile::open(&path, &rules, s, codes.len() as u64).unwrap();
        let e = mapped.decode().err().expect("refused").to_string();
        assert!(e.contains("too deep for the header's code width"), "{e}");
        let _ = fs::remove_file(path);
    }

    #[test]
    fn decisive_bits_mark_wins_and_losses() {
        // Fields from slot 0 up: draw, win, loss, unused, win.
        let word = 0b01_11_10_01_00u64;
        assert_eq!(decisive_bits(word), 0b01_00_01_01_00);
    }
}
