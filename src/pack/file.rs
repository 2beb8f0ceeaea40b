//! The pack file format (docs/FORMAT.md, "Pack files"): one file per
//! subspace with the win/draw/loss of every slot and, where the game can
//! cycle, the depth of every lost slot.

use super::PackError;
use crate::index::Subspace;
use crate::rules::Rules;
use std::fs::File;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

/// The first bytes of every pack file.
pub const MAGIC: &[u8; 8] = b"MILLPACK";
/// The format version written and read.
pub const VERSION: u32 = 1;
/// Slots per block as written: 8 KiB of win/draw/loss fields, which
/// compress about a seventh better than the tables' 2 KiB blocks; twice
/// as large compress 4 % better but cost an uncached probe 1.6 times.
pub const BLOCK_SLOTS: u32 = 32_768;
/// Bytes of the fixed part of the header, before the rule text.
pub(super) const FIXED: usize = 60;
/// Bytes of one block index entry.
pub(super) const ENTRY: usize = 24;
/// The largest block a reader accepts (slots), against forged headers.
const MAX_BLOCK_SLOTS: u32 = 1 << 22;

/// The fingerprint of a rule text: the XXH3-64 of its bytes. A pack file
/// carries its rules' text and this number; apps can compare the number.
pub fn rules_fingerprint(text: &str) -> u64 {
    xxh3_64(text.as_bytes())
}

/// Whether a subspace's pack file carries the depths of its lost slots:
/// wherever a game can come back to a position (the moving phase, and the
/// placing phase under Lasker rules). Elsewhere every move takes a stone
/// from a hand, so any move that keeps a win makes progress.
pub fn carries_depths(rules: &Rules, s: Subspace) -> bool {
    s.is_moving() || rules.lasker
}

/// One entry of the block index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub offset: u64,
    pub len: u32,
    /// For a depth block: the lost slots of its block; 0 otherwise.
    pub count: u32,
    pub sum: u64,
}

impl Entry {
    pub(super) fn to_bytes(self) -> [u8; ENTRY] {
        let mut b = [0u8; ENTRY];
        b[0..8].copy_from_slice(&self.offset.to_le_bytes());
        b[8..12].copy_from_slice(&self.len.to_le_bytes());
        b[12..16].copy_from_slice(&self.count.to_le_bytes());
        b[16..24].copy_from_slice(&self.sum.to_le_bytes());
        b
    }

    fn from_bytes(b: &[u8]) -> Entry {
        Entry {
            offset: u64::from_le_bytes(b[0..8].try_into().expect("8 bytes")),
            len: u32::from_le_bytes(b[8..12].try_into().expect("4 bytes")),
            count: u32::from_le_bytes(b[12..16].try_into().expect("4 bytes")),
            sum: u64::from_le_bytes(b[16..24].try_into().expect("8 bytes")),
        }
    }
}

/// The checksum over a file's block checksums, in index order.
pub(super) fn file_checksum(sums: impl Iterator<Item = u64>) -> u64 {
    let bytes: Vec<u8> = sums.flat_map(|s| s.to_le_bytes()).collect();
    xxh3_64(&bytes)
}

/// What a pack file's header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackInfo {
    /// The subspace, side to move first.
    pub subspace: Subspace,
    /// Slots of the subspace.
    pub slots: u64,
    /// Slots per block.
    pub block_slots: u32,
    /// Blocks per section.
    pub blocks: u32,
    /// Bytes per halved loss depth: 1 or 2, or 0 when the file carries no
    /// depths.
    pub depth_width: u8,
    /// The canonical text of the rules the file was made for.
    pub rules: String,
    /// The fingerprint of that text ([`rules_fingerprint`]).
    pub fingerprint: u64,
    /// The checksum over every block checksum.
    pub file_checksum: u64,
}

/// The header of a pack file, ready to write: its bytes up to the index.
pub(super) fn header_bytes(info: &PackInfo, index_len: usize) -> Vec<u8> {
    let text = info.rules.as_bytes();
    let mut h = Vec::with_capacity(FIXED + text.len() + 8);
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&VERSION.to_le_bytes());
    let header_len = FIXED + text.len() + 8 + index_len;
    h.extend_from_slice(&(header_len as u32).to_le_bytes());
    let s = info.subspace;
    h.extend_from_slice(&[s.us, s.them, s.us_hand, s.them_hand]);
    h.push(u8::from(info.depth_width > 0));
    h.push(info.depth_width);
    h.extend_from_slice(&[0, 0]);
    h.extend_from_slice(&info.slots.to_le_bytes());
    h.extend_from_slice(&info.block_slots.to_le_bytes());
    h.extend_from_slice(&info.blocks.to_le_bytes());
    h.extend_from_slice(&info.file_checksum.to_le_bytes());
    h.extend_from_slice(&info.fingerprint.to_le_bytes());
    h.extend_from_slice(&(text.len() as u32).to_le_bytes());
    h.extend_from_slice(text);
    let sum = xxh3_64(&h);
    h.extend_from_slice(&sum.to_le_bytes());
    h
}

/// Where a pack file's bytes are: a file read with positioned reads, or
/// bytes in memory (an app that ships the pack inside itself, or a
/// WebAssembly build without files).
enum Source {
    File(File),
    Bytes(Vec<u8>),
}

/// One opened pack file: its header and block index in memory, blocks
/// read, checked and decompressed on demand.
pub struct PackFile {
    path: PathBuf,
    info: PackInfo,
    source: Source,
    /// The win/draw/loss entries, then the depth entries if any.
    index: Vec<Entry>,
    /// The file's length when it was opened.
    len: u64,
}

impl PackFile {
    /// Opens a pack file and checks its header and block index, refusing
    /// one made for other rules, another subspace or another slot count.
    pub fn open(
        path: &Path,
        rules: &Rules,
        subspace: Subspace,
        slots: u64,
    ) -> Result<PackFile, PackError> {
        let io = |e| PackError::Io(path.to_path_buf(), e);
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(PackError::Damaged(
                path.to_path_buf(),
                "is not a regular file".into(),
            ));
        }
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let mut head = vec![0u8; (len as usize).min(1 << 16)];
        read_at(&file, &mut head, 0).map_err(io)?;
        let (info, header_len, mut index) = parse(path, &head, len)?;
        if index.is_none() {
            // A header longer than the first 64 KiB: read it whole.
            let mut whole = vec![0u8; header_len];
            read_at(&file, &mut whole, 0).map_err(io)?;
            index = parse(path, &whole, len)?.2;
        }
        let f = PackFile {
            path: path.to_path_buf(),
            info,
            source: Source::File(file),
            index: index.expect("the whole header was read"),
            len,
        };
        f.check_against(rules, subspace, slots)?;
        Ok(f)
    }

    /// A pack file held in memory, with the same checks as
    /// [`PackFile::open`]; `name` names it in errors.
    pub fn from_bytes(
        name: &Path,
        bytes: Vec<u8>,
        rules: &Rules,
        subspace: Subspace,
        slots: u64,
    ) -> Result<PackFile, PackError> {
        let len = bytes.len() as u64;
        let (info, _, index) = parse(name, &bytes, len)?;
        let f = PackFile {
            path: name.to_path_buf(),
            info,
            index: index.expect("the whole file is the header's source"),
            source: Source::Bytes(bytes),
            len,
        };
        f.check_against(rules, subspace, slots)?;
        Ok(f)
    }

    fn check_against(
        &self,
        rules: &Rules,
        subspace: Subspace,
        slots: u64,
    ) -> Result<(), PackError> {
        if !rules.takes_tables_of(&self.info.rules) {
            return Err(PackError::Rules {
                path: self.path.clone(),
                built: self.info.rules.clone(),
                wanted: rules.canonical(),
            });
        }
        if self.info.subspace != subspace {
            return Err(PackError::Damaged(
                self.path.clone(),
                format!("holds subspace {}, not {subspace}", self.info.subspace),
            ));
        }
        if self.info.slots != slots {
            return Err(PackError::Damaged(
                self.path.clone(),
                format!("{} slots, not the subspace's {slots}", self.info.slots),
            ));
        }
        if carries_depths(rules, subspace) != (self.info.depth_width > 0) {
            return Err(PackError::Damaged(
                self.path.clone(),
                "depths present where none belong, or missing".into(),
            ));
        }
        Ok(())
    }

    /// What the header says.
    pub fn info(&self) -> &PackInfo {
        &self.info
    }

    /// The file's name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes of the file.
    pub fn file_bytes(&self) -> u64 {
        self.len
    }

    /// Compressed bytes of the win/draw/loss blocks and of the depth blocks.
    pub fn section_bytes(&self) -> (u64, u64) {
        let n = self.info.blocks as usize;
        let sum = |es: &[Entry]| es.iter().map(|e| e.len as u64).sum();
        (sum(&self.index[..n]), sum(&self.index[n..]))
    }

    fn slots_in(&self, block: u32) -> usize {
        let first = block as u64 * self.info.block_slots as u64;
        (self.info.slots - first).min(self.info.block_slots as u64) as usize
    }

    /// The checked, compressed bytes of index entry `e`.
    fn block_bytes(&self, e: usize) -> Result<Vec<u8>, PackError> {
        let entry = self.index[e];
        let end = entry.offset + entry.len as u64;
        if end > self.len {
            return Err(self.damaged(e, "lies past the end of the file"));
        }
        let bytes = match &self.source {
            Source::Bytes(b) => b[entry.offset as usize..end as usize].to_vec(),
            Source::File(f) => {
                let mut buf = vec![0u8; entry.len as usize];
                let n = read_at(f, &mut buf, entry.offset)
                    .map_err(|err| PackError::Io(self.path.clone(), err))?;
                if n != buf.len() {
                    return Err(self.damaged(e, "ends early: the file was cut short"));
                }
                buf
            }
        };
        if xxh3_64(&bytes) != entry.sum {
            return Err(self.damaged(
                e,
                "fails its checksum: the file is damaged, or was rewritten after it was opened",
            ));
        }
        Ok(bytes)
    }

    fn damaged(&self, e: usize, what: &str) -> PackError {
        let n = self.info.blocks as usize;
        let (section, block) = if e < n {
            ("win/draw/loss", e)
        } else {
            ("depth", e - n)
        };
        PackError::Damaged(self.path.clone(), format!("{section} block {block} {what}"))
    }

    fn decompress(&self, e: usize, want: usize) -> Result<Vec<u8>, PackError> {
        let bytes = self.block_bytes(e)?;
        let mut out = vec![0u8; want];
        // One decompression context per thread: a fresh one for each block
        // cost more than decompressing it.
        let n = DECOMPRESSOR.with(|d| {
            let mut d = d.borrow_mut();
            if d.is_none() {
                *d = Some(zstd::bulk::Decompressor::new()?);
            }
            d.as_mut()
                .expect("made above")
                .decompress_to_buffer(&bytes, &mut out)
        });
        match n {
            Ok(n) if n == want => Ok(out),
            _ => Err(self.damaged(e, "does not decompress to its length")),
        }
    }

    /// The win/draw/loss fields of one block, 32 slots to a word from the
    /// low bits up (0 draw, 1 win, 2 loss).
    pub fn wdl_block(&self, block: u32) -> Result<Vec<u64>, PackError> {
        let want = self.slots_in(block).div_ceil(4);
        let bytes = self.decompress(block as usize, want)?;
        let mut words = vec![0u64; want.div_ceil(8)];
        for (w, chunk) in words.iter_mut().zip(bytes.chunks(8)) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            *w = u64::from_le_bytes(b);
        }
        Ok(words)
    }

    /// The halved depths of the lost slots of one block, in slot order,
    /// as `u16`s; empty when the file carries no depths.
    pub fn depth_block(&self, block: u32) -> Result<Vec<u16>, PackError> {
        let w = self.info.depth_width as usize;
        if w == 0 {
            return Ok(Vec::new());
        }
        let e = self.info.blocks as usize + block as usize;
        let count = self.index[e].count as usize;
        if count > self.slots_in(block) {
            return Err(self.damaged(e, "claims more lost slots than it has slots"));
        }
        let bytes = self.decompress(e, count * w)?;
        Ok(if w == 1 {
            bytes.iter().map(|&b| b as u16).collect()
        } else {
            bytes
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect()
        })
    }

    /// The lost slots the index gives block `block` (0 without depths).
    pub(super) fn losses_in(&self, block: u32) -> usize {
        match self.info.depth_width {
            0 => 0,
            _ => self.index[self.info.blocks as usize + block as usize].count as usize,
        }
    }

    /// Checks every block's checksum and the file checksum (nothing is
    /// decompressed).
    pub fn verify(&self) -> Result<(), PackError> {
        for e in 0..self.index.len() {
            self.block_bytes(e)?;
        }
        Ok(())
    }
}

/// Reads a pack file's header and, if `head` holds it, its block index
/// (`None` if not), with the header's length.
fn parse(
    path: &Path,
    head: &[u8],
    len: u64,
) -> Result<(PackInfo, usize, Option<Vec<Entry>>), PackError> {
    let bad = |what: &str| PackError::Damaged(path.to_path_buf(), what.to_string());
    if head.len() < 8 || &head[..8] != MAGIC {
        return Err(PackError::NotAPack(path.to_path_buf()));
    }
    if head.len() < FIXED {
        return Err(bad("header cut short"));
    }
    let u32_at = |o: usize| u32::from_le_bytes(head[o..o + 4].try_into().expect("4 bytes"));
    let u64_at = |o: usize| u64::from_le_bytes(head[o..o + 8].try_into().expect("8 bytes"));
    let version = u32_at(8);
    if version != VERSION {
        return Err(PackError::Version(path.to_path_buf(), version));
    }
    let header_len = u32_at(12) as usize;
    let subspace = Subspace {
        us: head[16],
        them: head[17],
        us_hand: head[18],
        them_hand: head[19],
    };
    let (flags, depth_width) = (head[20], head[21]);
    let slots = u64_at(24);
    let block_slots = u32_at(32);
    let blocks = u32_at(36);
    let checksum = u64_at(40);
    let fingerprint = u64_at(48);
    let text_len = u32_at(56) as usize;
    if text_len > 4096 || head.len() < FIXED + text_len + 8 {
        return Err(bad("header cut short or rule text too long"));
    }
    let text = &head[FIXED..FIXED + text_len];
    let sum = u64_at(FIXED + text_len);
    if xxh3_64(&head[..FIXED + text_len]) != sum {
        return Err(bad("header checksum does not match"));
    }
    let rules = String::from_utf8(text.to_vec()).map_err(|_| bad("rule text not text"))?;
    if rules_fingerprint(&rules) != fingerprint {
        return Err(bad("rule fingerprint does not match its text"));
    }
    if flags > 1 || (flags == 1) != (depth_width > 0) || depth_width > 2 {
        return Err(bad("unknown flags or depth width"));
    }
    if block_slots == 0 || block_slots > MAX_BLOCK_SLOTS {
        return Err(bad("block size out of range"));
    }
    if slots.div_ceil(block_slots as u64) != blocks as u64 {
        return Err(bad("block count does not match the slot count"));
    }
    let sections = 1 + usize::from(depth_width > 0);
    let entries = blocks as usize * sections;
    let index_at = FIXED + text_len + 8;
    if header_len != index_at + entries * ENTRY {
        return Err(bad("header length does not match its block index"));
    }
    if header_len as u64 > len {
        return Err(bad("file shorter than its header (cut short?)"));
    }
    let info = PackInfo {
        subspace,
        slots,
        block_slots,
        blocks,
        depth_width,
        rules,
        fingerprint,
        file_checksum: checksum,
    };
    if head.len() < header_len {
        return Ok((info, header_len, None));
    }
    let index: Vec<Entry> = head[index_at..header_len]
        .chunks_exact(ENTRY)
        .map(Entry::from_bytes)
        .collect();
    {
        if file_checksum(index.iter().map(|e| e.sum)) != info.file_checksum {
            return Err(bad("block index does not match the file checksum"));
        }
        let mut end = header_len as u64;
        for e in &index {
            if e.offset != end {
                return Err(bad("blocks not back to back"));
            }
            end += e.len as u64;
        }
        if end != len {
            return Err(bad("file length does not match its blocks (cut short?)"));
        }
    }
    Ok((info, header_len, Some(index)))
}

thread_local! {
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut done = 0;
    while done < buf.len() {
        match f.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

#[cfg(not(unix))]
fn read_at(f: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = f;
    f.seek(SeekFrom::Start(offset))?;
    let mut done = 0;
    while done < buf.len() {
        match f.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}
