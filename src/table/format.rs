//! Table file format version 3: compressed blocks, read on demand.
//!
//! The format (header fields, byte order, blocks, value codes, checksums,
//! what a reader refuses) is written down once, in `docs/FORMAT.md`; this
//! module is its implementation. Every reader refuses what it does not
//! understand: it checks the header, the rules, the checksums, the block
//! index and the file length when it opens a table, and each block's
//! checksum (as the index had it at open) before it decompresses it.

use super::{Table, TableError, code_at};
use crate::index::Subspace;
use crate::rules::Rules;
use crate::value::{DRAW, Encoding, UNUSED, Value};
use rayon::prelude::*;
use std::cell::RefCell;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

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

/// How a table's code section holds the codes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum CodeLayout {
    /// Every slot's code, `width` bytes each.
    Codes,
    /// Only the slots the win/draw/loss section marks won or lost: their
    /// codes' halved depths, this many bytes each (1 or 2).
    DecisiveHalves(u8),
}

impl CodeLayout {
    fn header_bytes(self) -> [u8; 2] {
        match self {
            CodeLayout::Codes => [1, 0],
            CodeLayout::DecisiveHalves(w) => [2, w],
        }
    }

    /// Chooses the layout for `raw` codes of `width` bytes: decisive
    /// halves unless a draw at counter 0 has a code of its own.
    fn choose(raw: &[u8], width: u8, encoding: Encoding) -> CodeLayout {
        let n = raw.len() / width as usize;
        let widest = (0..n)
            .into_par_iter()
            .with_min_len(1 << 16)
            .map(|i| {
                let code = code_at(raw, width, i);
                match wdl_bits(code, encoding) {
                    1 | 2 => Some((code - 1) / 2),
                    0 if code != DRAW => None,
                    _ => Some(0),
                }
            })
            .try_reduce(|| 0, |a, b| Some(a.max(b)));
        match widest {
            None => CodeLayout::Codes,
            Some(h) if h < 256 => CodeLayout::DecisiveHalves(1),
            Some(_) => CodeLayout::DecisiveHalves(2),
        }
    }

    /// The bytes of one code block in this layout.
    fn encode(self, raw: &[u8], width: u8, encoding: Encoding) -> Vec<u8> {
        match self {
            CodeLayout::Codes => raw.to_vec(),
            CodeLayout::DecisiveHalves(hw) => {
                let mut out = Vec::new();
                for i in 0..raw.len() / width as usize {
                    let code = code_at(raw, width, i);
                    if let 1 | 2 = wdl_bits(code, encoding) {
                        let h = (code - 1) / 2;
                        if hw == 1 {
                            out.push(h as u8);
                        } else {
                            out.extend_from_slice(&h.to_le_bytes());
                        }
                    }
                }
                out
            }
        }
    }
}

/// Bits 0, 2, 4, ... of a word of 2-bit win/draw/loss fields.
const LOW_BITS: u64 = 0x5555_5555_5555_5555;

/// One bit per field of a word of win/draw/loss fields (its low bit):
/// set for a win (1) or loss (2), clear for a draw (0) or unused slot (3).
#[inline]
fn decisive_bits(word: u64) -> u64 {
    (word ^ (word >> 1)) & LOW_BITS
}

/// A decompressed win/draw/loss block, with what a probe of layout 2
/// needs to find a decisive slot's halved depth: the number of decisive
/// slots before each word of fields.
pub struct WdlBlock {
    /// The fields, 32 slots to a word from the low bits up.
    words: Vec<u64>,
    /// Decisive slots in the words before each word.
    ranks: Vec<u32>,
    /// Decisive slots in the block.
    decisive: usize,
}

impl WdlBlock {
    /// A block from its fields, 32 slots to a word from the low bits up
    /// (the last word padded with draws).
    fn from_words(words: Vec<u64>) -> WdlBlock {
        let mut ranks = Vec::with_capacity(words.len());
        let mut decisive = 0u32;
        for &w in &words {
            ranks.push(decisive);
            decisive += decisive_bits(w).count_ones();
        }
        WdlBlock {
            words,
            ranks,
            decisive: decisive as usize,
        }
    }

    /// The 2-bit field of the `i`-th slot of the block.
    #[inline]
    fn field(&self, i: usize) -> u8 {
        ((self.words[i / 32] >> (2 * (i % 32))) & 3) as u8
    }

    /// Win, draw or loss of the `i`-th slot; `None` for an unused slot.
    #[inline]
    pub fn wdl(&self, i: usize) -> Option<Wdl> {
        match self.field(i) {
            0 => Some(Wdl::Draw),
            1 => Some(Wdl::Win),
            2 => Some(Wdl::Loss),
            _ => None,
        }
    }

    /// The number of decisive slots in the block before the `i`-th.
    #[inline]
    fn rank(&self, i: usize) -> usize {
        let below = decisive_bits(self.words[i / 32]) & ((1u64 << (2 * (i % 32))) - 1);
        self.ranks[i / 32] as usize + below.count_ones() as usize
    }

    /// Writes the codes of the block's slots into `out` (`width` bytes
    /// each), from its decisive slots' halved depths, in one pass; false
    /// if a code does not fit `width` (a header that does not match its
    /// blocks).
    fn expand(&self, halves: &Halves, width: u8, out: &mut [u8]) -> bool {
        let mut rank = 0;
        for (j, slot) in out.chunks_exact_mut(width as usize).enumerate() {
            let code = match self.field(j) {
                0 => DRAW,
                3 => UNUSED,
                field => {
                    let code = halves.code(rank, field == 1);
                    rank += 1;
                    code
                }
            };
            if width == 1 {
                if code >= 255 && code != UNUSED {
                    return false;
                }
                slot[0] = if code == UNUSED { 255 } else { code as u8 };
            } else {
                slot.copy_from_slice(&code.to_le_bytes());
            }
        }
        true
    }

    /// What the field of the `i`-th slot tells of its code in layout 2.
    #[inline]
    pub fn field_code(&self, i: usize) -> FieldCode {
        match self.field(i) {
            0 => FieldCode::Code(DRAW),
            3 => FieldCode::Code(UNUSED),
            field => FieldCode::Decisive {
                rank: self.rank(i),
                win: field == 1,
                count: self.decisive,
            },
        }
    }
}

/// What a slot's win/draw/loss field tells of its code in layout 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldCode {
    /// The code itself (a draw or an unused slot).
    Code(u16),
    /// A win or loss: its halved depth is the `rank`-th of the `count` in
    /// the block's code block.
    Decisive {
        /// Decisive slots before it in the block.
        rank: usize,
        /// Whether it is a win.
        win: bool,
        /// Decisive slots in the block.
        count: usize,
    },
}

/// A decompressed code block of layout 2: the halved depths of the
/// block's decisive slots, in slot order.
pub struct Halves {
    bytes: Vec<u8>,
    /// Bytes per halved depth.
    width: u8,
}

impl Halves {
    /// The code of the decisive slot with `rank` decisive slots before it
    /// in the block (see [`WdlBlock::field_code`]), a win or a loss.
    #[inline]
    pub fn code(&self, rank: usize, win: bool) -> u16 {
        let h = if self.width == 1 {
            self.bytes[rank] as u16
        } else {
            u16::from_le_bytes([self.bytes[2 * rank], self.bytes[2 * rank + 1]])
        };
        // Only a damaged (or forged) block holds a depth past the codes:
        // it reads as an unused slot, which every reader reports.
        (2 * h as u32 + 1 + win as u32).min(crate::value::UNUSED as u32) as u16
    }
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
    fn name(self) -> &'static str {
        match self {
            Section::Wdl => "win/draw/loss",
            Section::Codes => "value-code",
        }
    }
}

/// Win, draw or loss for the side to move, without the plies.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Wdl {
    /// The side to move wins.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The side to move loses.
    Loss,
}

impl Wdl {
    /// `"win"`, `"draw"` or `"loss"`.
    pub fn name(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }

    /// The value for the side that moved into this position.
    pub fn parent(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        }
    }
}

/// The 2-bit win/draw/loss field of a value code: the value at counter 0
/// (a cursed win or blessed loss of the N-move rule is a draw).
#[inline]
fn wdl_bits(code: u16, encoding: Encoding) -> u8 {
    match encoding.value(code) {
        Some(Value::Draw) => 0,
        None => 3,
        Some(Value::Win(_)) => 1,
        Some(Value::Loss(_)) => 2,
    }
}

fn pack_wdl(raw: &[u8], width: u8, encoding: Encoding) -> Vec<u8> {
    let n = raw.len() / width as usize;
    let mut out = vec![0u8; n.div_ceil(4)];
    for i in 0..n {
        out[i / 4] |= wdl_bits(code_at(raw, width, i), encoding) << (2 * (i % 4));
    }
    out
}

/// What a table file's header says.
#[derive(Clone, Debug)]
pub struct TableInfo {
    /// The subspace.
    pub subspace: Subspace,
    /// The canonical text of the rule set it was built for.
    pub rules: String,
    /// Number of slots.
    pub slots: u64,
    /// Bytes per value code.
    pub width: u8,
    /// How the codes read.
    pub encoding: Encoding,
    /// Slots per block.
    pub block_slots: u32,
    /// Blocks per section.
    pub blocks: u32,
    /// Checksum over all block checksums.
    pub file_checksum: u64,
    /// The file's format version.
    pub version: u32,
    /// How the code section holds the codes.
    pub layout: CodeLayout,
}

/// A table file, opened: its header and block index are read into memory
/// and checked once; blocks are read from the file with positioned reads
/// (`pread`), checked against the index as it was at open, and
/// decompressed on demand.
///
/// Blocks are not read through a memory map: a mapped file that another
/// process truncates kills the reader with `SIGBUS`, and one rewritten in
/// place would be read as found. Read this way, a table is the file it was
/// when it was opened, or an error naming the file: another file's bytes
/// fail the block checksums kept from the open, and a shorter file ends a
/// read early.
pub struct TableFile {
    path: PathBuf,
    file: fs::File,
    info: TableInfo,
    /// The block index as read at open: `info.blocks` win/draw/loss
    /// entries, then as many code entries, [`ENTRY`] bytes each (kept as
    /// read: decoding every entry at open would cost more than the few
    /// that a probe reads).
    index: Box<[u8]>,
    data_at: u64,
    /// The file's length at open.
    len: u64,
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

/// `data` compressed at `level` as one zstd frame, exactly as
/// `zstd::bulk::compress` makes it.
fn compress_block(data: &[u8], level: i32) -> std::io::Result<Vec<u8>> {
    COMPRESSORS.with(|c| {
        let mut c = c.borrow_mut();
        let i = match c.iter().position(|(l, ..)| *l == level) {
            Some(i) => i,
            None => {
                c.push((level, zstd::bulk::Compressor::new(level)?, Vec::new()));
                c.len() - 1
            }
        };
        let (_, compressor, buffer) = &mut c[i];
        buffer.clear();
        buffer.reserve(zstd::zstd_safe::compress_bound(data.len()));
        compressor.compress_to_buffer(data, buffer)?;
        Ok(buffer.to_vec())
    })
}

/// Reads exactly `buf.len()` bytes at `offset`.
fn read_at(file: &fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, offset)
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt;
        let mut done = 0;
        while done < buf.len() {
            match file.seek_read(&mut buf[done..], offset + done as u64)? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => done += n,
            }
        }
        Ok(())
    }
}

/// What kind of file system object `t` is, for a message refusing it.
fn kind_of(t: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading if it is a regular file. A FIFO is refused
/// before it is opened (opening one waits for a writer), and the opened
/// file is checked again (the name may have changed hands in between).
fn open_regular(path: &Path) -> Result<fs::File, TableError> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(TableError::Missing(path.to_path_buf()));
        }
        Err(e) => return Err(TableError::Io(path.to_path_buf(), e)),
    };
    let not_a_file = |t: fs::FileType| TableError::NotAFile(path.to_path_buf(), kind_of(t));
    if !meta.is_file() {
        return Err(not_a_file(meta.file_type()));
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Never wait in `open`, whatever the name has become meanwhile.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = match options.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(TableError::Missing(path.to_path_buf()));
        }
        Err(e) => return Err(TableError::Io(path.to_path_buf(), e)),
    };
    let meta = file
        .metadata()
        .map_err(|e| TableError::Io(path.to_path_buf(), e))?;
    if !meta.is_file() {
        return Err(not_a_file(meta.file_type()));
    }
    Ok(file)
}

impl TableFile {
    /// Opens any table file and checks its header and block index, without
    /// asking which rules or subspace it is for.
    pub fn open_any(path: &Path) -> Result<TableFile, TableError> {
        let file = open_regular(path)?;
        let io = |e| TableError::Io(path.to_path_buf(), e);
        let corrupt = |why: String| TableError::Corrupt(path.to_path_buf(), why);
        let file_len = file.metadata().map_err(io)?.len();
        // The fixed fields, the rule text and its checksum first; then the
        // index, whose length the header gives.
        let mut b = vec![0u8; file_len.min(56) as usize];
        let read = |b: &mut [u8], at: u64| match read_at(&file, b, at) {
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                Err(corrupt("the file ended while its header was read".into()))
            }
            r => r.map_err(io),
        };
        read(&mut b, 0)?;
        if b.len() < 12 || &b[..8] != MAGIC {
            return Err(corrupt(
                "not a millbase table (bad magic or too short)".into(),
            ));
        }
        let u32_at = |b: &[u8], i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let version = u32_at(&b, 8);
        if version != FORMAT_VERSION && version != 2 {
            return Err(corrupt(format!(
                "format version {version}, this millbase reads versions 2 and {FORMAT_VERSION}"
            )));
        }
        let fixed = fixed_len(version);
        if (b.len() as u64) < fixed as u64 || file_len < fixed as u64 + 8 {
            return Err(corrupt("truncated header".into()));
        }
        let len = u32_at(&b, fixed - 4) as u64;
        if file_len < fixed as u64 + len + 8 {
            return Err(corrupt("truncated header".into()));
        }
        let (fixed, len) = (fixed, len as usize);
        b.resize(fixed + len + 8, 0);
        read(&mut b[fixed..], fixed as u64)?;
        if xxh3_64(&b[..fixed + len]) != u64_at(&b, fixed + len) {
            return Err(corrupt("header checksum mismatch".into()));
        }
        let layout = match (version, b[48], b[49]) {
            (2, _, _) | (_, 1, 0) => CodeLayout::Codes,
            (_, 2, w @ (1 | 2)) => CodeLayout::DecisiveHalves(w),
            (_, l, w) => {
                return Err(corrupt(format!(
                    "code layout {l} with {w} bytes per value not understood"
                )));
            }
        };
        let info = TableInfo {
            subspace: Subspace {
                us: b[16],
                them: b[17],
                us_hand: b[18],
                them_hand: b[19],
            },
            rules: String::from_utf8_lossy(&b[fixed..fixed + len]).into_owned(),
            slots: u64_at(&b, 24),
            width: b[20],
            encoding: match (b[21], u16::from_le_bytes([b[22], b[23]])) {
                (1, 0) => Encoding::Plies,
                (2, n) if (1..=Rules::MAX_NMOVE).contains(&n) => Encoding::NMove(n),
                (3, 0) => Encoding::Signed,
                (e, p) => {
                    return Err(corrupt(format!(
                        "value encoding {e} with parameter {p} not understood"
                    )));
                }
            },
            block_slots: u32_at(&b, 32),
            blocks: u32_at(&b, 36),
            file_checksum: u64_at(&b, 40),
            version,
            layout,
        };
        if info.width != 1 && info.width != 2 {
            return Err(corrupt(format!(
                "value width {} not understood",
                info.width
            )));
        }
        // Blocks of at most a million slots: a damaged header must not make
        // a reader allocate gigabytes for one block.
        if info.block_slots == 0
            || info.block_slots > MAX_BLOCK_SLOTS
            || info.slots.div_ceil(info.block_slots as u64) != info.blocks as u64
        {
            return Err(corrupt("block count does not match the slot count".into()));
        }
        let index_at = (fixed + len + 8) as u64;
        let data_at = index_at + 2 * info.blocks as u64 * ENTRY as u64;
        // Checked against the file's length before the index is allocated.
        if u32_at(&b, 12) as u64 != data_at || file_len < data_at {
            return Err(corrupt("truncated block index".into()));
        }
        let mut index = vec![0u8; (data_at - index_at) as usize].into_boxed_slice();
        read(&mut index, index_at)?;
        // The header's file checksum covers the index's block checksums: a
        // damaged index is found here, not at the first probe of a block.
        if index_checksum(&index) != info.file_checksum {
            return Err(corrupt(
                "the block index does not match the header's file checksum".into(),
            ));
        }
        // The blocks run back to back to the end of the file: a shorter or
        // longer file is damaged.
        if let Some(last) = index.rchunks_exact(ENTRY).next().map(entry_of)
            && last.offset.checked_add(last.len as u64) != Some(file_len)
        {
            return Err(corrupt(format!(
                "the file is {file_len} bytes, its last block ends at {}",
                last.offset.saturating_add(last.len as u64)
            )));
        }
        Ok(TableFile {
            path: path.to_path_buf(),
            file,
            info,
            index,
            data_at,
            len: file_len,
        })
    }

    /// Opens the table of `subspace` for `rules` with `slots` slots,
    /// refusing a file made for anything else.
    pub fn open(
        path: &Path,
        rules: &Rules,
        subspace: Subspace,
        slots: u64,
    ) -> Result<TableFile, TableError> {
        let t = TableFile::open_any(path)?;
        let mismatch = |why: String| TableError::Mismatch(path.to_path_buf(), why);
        if !rules.takes_tables_of(&t.info.rules) {
            return Err(mismatch(format!(
                "built for rules `{}`, not `{}`",
                t.info.rules,
                rules.canonical()
            )));
        }
        let want = Encoding::of(rules, subspace.is_moving());
        if t.info.encoding != want {
            return Err(mismatch(format!(
                "its values are encoded as {:?}, the rules need {want:?}",
                t.info.encoding
            )));
        }
        if t.info.subspace != subspace {
            return Err(mismatch(format!(
                "holds subspace {}, not {subspace}",
                t.info.subspace
            )));
        }
        if t.info.slots != slots {
            return Err(TableError::Corrupt(
                path.to_path_buf(),
                format!("expected {slots} slots, header says {}", t.info.slots),
            ));
        }
        Ok(t)
    }

    /// What the header says.
    pub fn info(&self) -> &TableInfo {
        &self.info
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Size of the file in bytes.
    pub fn file_bytes(&self) -> u64 {
        self.len
    }

    /// Compressed bytes of one section.
    pub fn section_bytes(&self, section: Section) -> u64 {
        (0..self.info.blocks)
            .map(|i| self.entry(section, i).len as u64)
            .sum()
    }

    /// Slots per block.
    pub fn block_slots(&self) -> u64 {
        self.info.block_slots as u64
    }

    fn entry(&self, section: Section, block: u32) -> BlockEntry {
        let i = (section as usize * self.info.blocks as usize + block as usize) * ENTRY;
        entry_of(&self.index[i..i + ENTRY])
    }

    /// Reads one block's compressed bytes and checks them against the
    /// checksum the index had at open, then hands them to `f`.
    fn with_block_bytes<R>(
        &self,
        section: Section,
        block: u32,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, TableError> {
        if block >= self.info.blocks {
            return Err(self.block_error(section, block, "does not exist"));
        }
        let e = self.entry(section, block);
        let end = e.offset.saturating_add(e.len as u64);
        // A block never compresses to much more than its raw size; a
        // damaged length must not make a reader allocate the whole file.
        let most = 4 * self.info.block_slots as u64 + 4096;
        if e.offset < self.data_at || end > self.len || e.len as u64 > most {
            return Err(self.block_error(section, block, "points outside the file"));
        }
        READ_BUFFER.with(|buf| {
            let mut buf = buf.borrow_mut();
            if buf.len() < e.len as usize {
                buf.resize(e.len as usize, 0);
            }
            let buf = &mut buf[..e.len as usize];
            match read_at(&self.file, buf, e.offset) {
                Ok(()) => {}
                Err(err) if err.kind() == std::io::ErrorKind::UnexpectedEof => {
                    return Err(self.block_error(
                        section,
                        block,
                        &format!(
                            "lies past the end of the file, which was {} bytes when it was \
                             opened: it was truncated or rewritten since (a table replaced \
                             while open is read after a restart)",
                            self.len
                        ),
                    ));
                }
                Err(err) => return Err(TableError::Io(self.path.clone(), err)),
            }
            if xxh3_64(buf) != e.sum {
                return Err(self.block_error(
                    section,
                    block,
                    "fails its checksum: the file is damaged, or was rewritten after it was \
                     opened (a table replaced while open is read after a restart)",
                ));
            }
            Ok(f(buf))
        })
    }

    fn block_error(&self, section: Section, block: u32, why: &str) -> TableError {
        TableError::Corrupt(
            self.path.clone(),
            format!("block {block} of the {} section {why}", section.name()),
        )
    }

    /// Slots in a block.
    fn slots_in(&self, block: u32) -> usize {
        let first = block as u64 * self.info.block_slots as u64;
        self.info
            .slots
            .saturating_sub(first)
            .min(self.info.block_slots as u64) as usize
    }

    /// Checks and decompresses one block of `section`, which must hold
    /// `want` bytes.
    fn decompress(&self, section: Section, block: u32, want: usize) -> Result<Vec<u8>, TableError> {
        let mut out = vec![0u8; want];
        self.decompress_into(section, block, &mut out)?;
        Ok(out)
    }

    /// Checks and decompresses one block of `section` into `out`, which it
    /// must fill exactly.
    fn decompress_into(
        &self,
        section: Section,
        block: u32,
        out: &mut [u8],
    ) -> Result<(), TableError> {
        let n = self.with_block_bytes(section, block, |bytes| {
            DECOMPRESSOR.with(|d| {
                let mut d = d.borrow_mut();
                if d.is_none() {
                    *d = Some(zstd::bulk::Decompressor::new()?);
                }
                d.as_mut().unwrap().decompress_to_buffer(bytes, out)
            })
        })?;
        match n {
            Ok(n) if n == out.len() => Ok(()),
            Ok(_) => Err(self.block_error(section, block, "has the wrong length")),
            Err(e) => Err(self.block_error(section, block, &format!("does not decompress: {e}"))),
        }
    }

    /// Checks and decompresses one block of the win/draw/loss section.
    pub fn wdl_block(&self, block: u32) -> Result<WdlBlock, TableError> {
        let want = self.slots_in(block).div_ceil(4);
        // Straight into the words the block is read as.
        let mut words = vec![0u64; want.div_ceil(8)];
        // SAFETY: the bytes of a `[u64]` are a valid `[u8]` of 8 times its
        // length (any bit pattern is a u64, a byte has no alignment), and
        // `words` is not used otherwise while `bytes` lives.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), words.len() * 8)
        };
        self.decompress_into(Section::Wdl, block, &mut bytes[..want])?;
        for w in &mut words {
            *w = u64::from_le(*w);
        }
        Ok(WdlBlock::from_words(words))
    }

    /// Checks and decompresses one block of the code section of layout 1:
    /// every slot's code.
    pub fn code_block(&self, block: u32) -> Result<Vec<u8>, TableError> {
        let want = self.slots_in(block) * self.info.width as usize;
        self.decompress(Section::Codes, block, want)
    }

    /// Checks and decompresses one block of the code section of layout 2,
    /// which holds the halved depths of `count` decisive slots (see
    /// [`WdlBlock::field_code`]).
    pub fn halves_block(&self, block: u32, count: usize) -> Result<Halves, TableError> {
        let CodeLayout::DecisiveHalves(width) = self.info.layout else {
            return Err(self.block_error(Section::Codes, block, "holds codes, not halved depths"));
        };
        let bytes = self.decompress(Section::Codes, block, count * width as usize)?;
        Ok(Halves { bytes, width })
    }

    /// The index of `slot` in its block.
    #[inline]
    pub fn in_block(&self, slot: u64) -> usize {
        (slot % self.info.block_slots as u64) as usize
    }

    /// The code of the `i`-th slot of a block from its code block of
    /// layout 1.
    #[inline]
    pub fn code_in(&self, codes: &[u8], i: usize) -> u16 {
        code_at(codes, self.info.width, i)
    }

    /// Checks every block checksum and the file checksum (nothing is
    /// decompressed).
    pub fn verify(&self) -> Result<(), TableError> {
        let n = self.info.blocks;
        let sums = [Section::Wdl, Section::Codes]
            .into_iter()
            .flat_map(|s| (0..n).map(move |i| (s, i)))
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|(s, i)| self.with_block_bytes(s, i, |_| self.entry(s, i).sum))
            .collect::<Result<Vec<u64>, TableError>>()?;
        if file_checksum(&sums) != self.info.file_checksum {
            return Err(TableError::Corrupt(
                self.path.clone(),
                "file checksum mismatch".into(),
            ));
        }
        Ok(())
    }

    /// Decompresses the whole code section into memory (every block
    /// checked).
    pub fn decode(&self) -> Result<Table, TableError> {
        let width = self.info.width as usize;
        let len = self.info.slots as usize * width;
        let mut data = crate::memory::huge_capacity(len);
        data.resize(len, 0);
        // Each block decodes into its own part of the table.
        data.par_chunks_mut(self.info.block_slots as usize * width)
            .enumerate()
            .try_for_each(|(i, out)| {
                let i = i as u32;
                match self.info.layout {
                    CodeLayout::Codes => out.copy_from_slice(&self.code_block(i)?),
                    CodeLayout::DecisiveHalves(_) => {
                        let wdl = self.wdl_block(i)?;
                        let halves = self.halves_block(i, wdl.decisive)?;
                        if !wdl.expand(&halves, width as u8, out) {
                            return Err(self.block_error(
                                Section::Codes,
                                i,
                                "holds a depth too deep for the header's code width",
                            ));
                        }
                    }
                }
                Ok::<(), TableError>(())
            })?;
        Ok(Table::from_raw(self.info.subspace, self.info.width, data)
            .with_encoding(self.info.encoding))
    }
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

/// Writes `table` in format 3 through a temporary file, reads it back and
/// checks it, then renames it to `path`.
pub(super) fn write(
    table: &Table,
    path: &Path,
    rules: &Rules,
    level: i32,
) -> Result<(), TableError> {
    let io = |e| TableError::Io(path.to_path_buf(), e);
    let width = table.width();
    let raw = table.raw();
    let block_bytes = BLOCK_SLOTS as usize * width as usize;
    let chunks: Vec<&[u8]> = raw.chunks(block_bytes).collect();
    let layout = CodeLayout::choose(raw, width, table.encoding());
    let compressed = chunks
        .par_iter()
        .map(|c| {
            Ok((
                compress_block(&pack_wdl(c, width, table.encoding()), level.max(WDL_LEVEL))?,
                compress_block(&layout.encode(c, width, table.encoding()), level)?,
            ))
        })
        .collect::<std::io::Result<Vec<(Vec<u8>, Vec<u8>)>>>()
        .map_err(io)?;
    let n = compressed.len();
    let blocks: Vec<&[u8]> = compressed
        .iter()
        .map(|c| c.0.as_slice())
        .chain(compressed.iter().map(|c| c.1.as_slice()))
        .collect();
    let sums: Vec<u64> = blocks.par_iter().map(|b| xxh3_64(b)).collect();

    let rules_text = rules.canonical();
    let index_at = fixed_len(FORMAT_VERSION) + rules_text.len() + 8;
    let data_at = index_at + 2 * n * ENTRY;
    let s = table.subspace;
    let mut header = Vec::with_capacity(data_at);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    header.extend_from_slice(&(data_at as u32).to_le_bytes());
    let encoding = table.encoding();
    if encoding != Encoding::of(rules, table.subspace.is_moving()) {
        return Err(TableError::Mismatch(
            path.to_path_buf(),
            format!(
                "codes encoded as {encoding:?} written for rules `{}`",
                rules.canonical()
            ),
        ));
    }
    let [p0, p1] = encoding.parameter().to_le_bytes();
    header.extend_from_slice(&[
        s.us,
        s.them,
        s.us_hand,
        s.them_hand,
        width,
        encoding.id(),
        p0,
        p1,
    ]);
    header.extend_from_slice(&table.len().to_le_bytes());
    header.extend_from_slice(&BLOCK_SLOTS.to_le_bytes());
    header.extend_from_slice(&(n as u32).to_le_bytes());
    header.extend_from_slice(&file_checksum(&sums).to_le_bytes());
    header.extend_from_slice(&layout.header_bytes());
    header.extend_from_slice(&[0, 0]);
    header.extend_from_slice(&(rules_text.len() as u32).to_le_bytes());
    header.extend_from_slice(rules_text.as_bytes());
    header.extend_from_slice(&xxh3_64(&header).to_le_bytes());
    let mut offset = data_at as u64;
    for (b, sum) in blocks.iter().zip(&sums) {
        header.extend_from_slice(&offset.to_le_bytes());
        header.extend_from_slice(&(b.len() as u32).to_le_bytes());
        header.extend_from_slice(&0u32.to_le_bytes());
        header.extend_from_slice(&sum.to_le_bytes());
        offset += b.len() as u64;
    }
    debug_assert_eq!(header.len(), data_at);

    let tmp = path.with_extension("tmp");
    let written = (|| {
        let mut f = std::io::BufWriter::new(fs::File::create(&tmp).map_err(io)?);
        f.write_all(&header).map_err(io)?;
        for b in &blocks {
            f.write_all(b).map_err(io)?;
        }
        let f = f.into_inner().map_err(|e| io(e.into_error()))?;
        f.sync_all().map_err(io)?;
        drop(f);
        // Read back what reached the file before it takes the final name.
        let back = TableFile::open(&tmp, rules, table.subspace, table.len())?;
        back.verify()?;
        if back.decode()?.raw() != raw {
            return Err(TableError::Corrupt(
                tmp.clone(),
                "read back differs from what was written".into(),
            ));
        }
        Ok(())
    })();
    if let Err(e) = written {
        // A failed write (a full disk) leaves no temporary file behind.
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    fs::rename(&tmp, path).map_err(io)?;
    if let Some(dir) = path.parent() {
        fs::File::open(dir).and_then(|d| d.sync_all()).map_err(io)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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
