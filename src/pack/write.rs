//! Writing a pack from a built table folder: one file per subspace, each
//! written under a temporary name, read back through the pack reader and
//! compared with the table slot by slot, then renamed.

use super::file::{
    BLOCK_SLOTS, Entry, PackFile, PackInfo, carries_depths, file_checksum, header_bytes,
    rules_fingerprint,
};
use super::{PackError, pack_path};
use crate::index::Subspace;
use crate::rules::Rules;
use crate::table::{CodeLayout, FieldCode, TableError, TableFile, TableFolder};
use crate::value::Value;
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

/// The zstd level of a pack's blocks unless told otherwise: level 19 gives
/// the win/draw/loss blocks under 1 % more.
pub const PACK_LEVEL: i32 = 15;

/// Why writing a pack failed.
#[derive(Debug)]
pub enum PackWriteError {
    /// A table could not be read (missing, damaged, foreign).
    Table(TableError),
    /// A pack file written could not be read back.
    Pack(PackError),
    /// Writing failed.
    Io(PathBuf, std::io::Error),
    /// The file read back differs from its table (a bug, or failing
    /// hardware): the file is not kept.
    Differs(PathBuf, String),
    /// The N-move rule: a pack holds the pure game only.
    NMove(String),
}

impl std::fmt::Display for PackWriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PackWriteError::Table(e) => write!(f, "{e}"),
            PackWriteError::Pack(e) => write!(f, "{e}"),
            PackWriteError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            PackWriteError::Differs(p, what) => {
                write!(
                    f,
                    "{}: read back, differs from its table: {what}",
                    p.display()
                )
            }
            PackWriteError::NMove(r) => write!(f, "{}", PackError::NMove(r.clone())),
        }
    }
}

impl std::error::Error for PackWriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PackWriteError::Table(e) => Some(e),
            PackWriteError::Pack(e) => Some(e),
            PackWriteError::Io(_, e) => Some(e),
            _ => None,
        }
    }
}

impl From<TableError> for PackWriteError {
    fn from(e: TableError) -> Self {
        PackWriteError::Table(e)
    }
}

impl From<PackError> for PackWriteError {
    fn from(e: PackError) -> Self {
        PackWriteError::Pack(e)
    }
}

/// One subspace's pack file.
#[derive(Clone, Debug, PartialEq)]
pub struct PackedFile {
    /// The subspace.
    pub subspace: Subspace,
    /// Its slots.
    pub slots: u64,
    /// Compressed bytes of the win/draw/loss blocks.
    pub wdl_bytes: u64,
    /// Compressed bytes of the lost slots' depths (0 where none are kept).
    pub depth_bytes: u64,
    /// Bytes of the file.
    pub file_bytes: u64,
    /// Whether a sound file was found and kept (a resumed run).
    pub found: bool,
    /// Seconds it took.
    pub seconds: f64,
}

/// Writes the pack files of `subspaces` of `rules` from the tables under
/// `db` into `out`, each compressed at `level`; `done` is called after
/// each file. A sound file already there is kept, so an interrupted run
/// resumes where it stopped.
pub fn write_pack(
    db: &Path,
    rules: &Rules,
    out: &Path,
    subspaces: &[Subspace],
    level: i32,
    mut done: impl FnMut(&PackedFile),
) -> Result<Vec<PackedFile>, PackWriteError> {
    if rules.nmove.is_some() {
        return Err(PackWriteError::NMove(rules.short_name()));
    }
    let folder = TableFolder::new(db, rules);
    let mut written = Vec::new();
    for &s in subspaces {
        let start = std::time::Instant::now();
        let path = pack_path(out, rules, s);
        let slots = folder.slots(s);
        let file_rules = folder.table_rules(s);
        let found = PackFile::open(&path, &file_rules, s, slots).and_then(|f| {
            f.verify()?;
            Ok(f)
        });
        let file = match found {
            Ok(f) => {
                let (wdl_bytes, depth_bytes) = f.section_bytes();
                PackedFile {
                    subspace: s,
                    slots,
                    wdl_bytes,
                    depth_bytes,
                    file_bytes: f.file_bytes(),
                    found: true,
                    seconds: start.elapsed().as_secs_f64(),
                }
            }
            Err(_) => {
                let table = folder.open(s)?;
                let mut f =
                    write_file(&table, &path, &file_rules, carries_depths(rules, s), level)?;
                f.seconds = start.elapsed().as_secs_f64();
                f
            }
        };
        done(&file);
        written.push(file);
    }
    Ok(written)
}

/// The code of every slot of one table block.
fn block_codes(table: &TableFile, block: u32) -> Result<Vec<u16>, TableError> {
    let wdl = table.wdl_block(block)?;
    let n = table.slots_in(block);
    if table.info().layout == CodeLayout::Codes {
        let codes = table.code_block(block)?;
        return Ok((0..n).map(|i| table.code_in(&codes, i)).collect());
    }
    let mut halves = None;
    (0..n)
        .map(|i| match wdl.field_code(i) {
            FieldCode::Code(c) => Ok(c),
            FieldCode::Decisive { rank, win, count } => {
                let h = match &halves {
                    Some(h) => h,
                    None => halves.insert(table.halves_block(block, count)?),
                };
                Ok(h.code(rank, win))
            }
        })
        .collect()
}

/// The 2-bit fields and the halved loss depths of one pack block, from
/// the codes of its slots. An unused slot takes the field before it (no
/// reader asks for it, and runs compress best).
fn fields_of(codes: &[u16], depth_width: u8) -> (Vec<u8>, Vec<u8>) {
    let mut fields = vec![0u8; codes.len().div_ceil(4)];
    let mut depths = Vec::new();
    let (mut prev, mut last_half) = (0u8, 0u32);
    for (j, &c) in codes.iter().enumerate() {
        let (f, half) = match Value::from_code(c) {
            // A loss is followed by its depth: a filled-in one repeats the
            // last.
            None => (prev, last_half),
            Some(Value::Draw) => (0, 0),
            Some(Value::Win(_)) => (1, 0),
            Some(Value::Loss(d)) => (2, d / 2),
        };
        if f == 2 {
            match depth_width {
                0 => {}
                1 => depths.push(half as u8),
                _ => depths.extend_from_slice(&(half as u16).to_le_bytes()),
            }
            last_half = half;
        }
        fields[j / 4] |= f << (2 * (j % 4));
        prev = f;
    }
    (fields, depths)
}

/// The codes of pack block `b`: the table blocks it spans, in order.
fn pack_block_codes(table: &TableFile, b: u32) -> Result<Vec<u16>, TableError> {
    let per = (BLOCK_SLOTS as u64 / table.block_slots()) as u32;
    let first = b * per;
    let last = (first + per).min(table.info().blocks);
    let mut codes = Vec::with_capacity(BLOCK_SLOTS as usize);
    for tb in first..last {
        codes.extend(block_codes(table, tb)?);
    }
    Ok(codes)
}

fn write_file(
    table: &TableFile,
    path: &Path,
    rules: &Rules,
    depths: bool,
    level: i32,
) -> Result<PackedFile, PackWriteError> {
    let info = table.info();
    assert_eq!(
        BLOCK_SLOTS as u64 % table.block_slots(),
        0,
        "a pack block spans whole table blocks"
    );
    let depth_width = match (depths, info.layout) {
        (false, _) => 0,
        (true, CodeLayout::DecisiveHalves(w)) => w,
        (true, CodeLayout::Codes) => info.width,
    };
    let blocks = info.slots.div_ceil(BLOCK_SLOTS as u64) as u32;
    let compress = |raw: &[u8]| {
        compress_block(raw, level).map_err(|e| PackWriteError::Io(path.to_path_buf(), e))
    };
    type Packed = (Vec<u8>, Vec<u8>, u32);
    let parts: Vec<Packed> = (0..blocks)
        .into_par_iter()
        .map(|b| -> Result<Packed, PackWriteError> {
            let codes = pack_block_codes(table, b)?;
            let (fields, lost) = fields_of(&codes, depth_width);
            let losses = lost.len() / depth_width.max(1) as usize;
            let d = if depth_width > 0 {
                compress(&lost)?
            } else {
                Vec::new()
            };
            Ok((compress(&fields)?, d, losses as u32))
        })
        .collect::<Result<_, _>>()?;
    let text = rules.canonical();
    let sections = 1 + usize::from(depth_width > 0);
    let index_len = blocks as usize * sections * super::file::ENTRY;
    let header_len = super::file::FIXED + text.len() + 8 + index_len;
    let mut entries = Vec::with_capacity(blocks as usize * sections);
    let mut offset = header_len as u64;
    for (b, kind) in (0..sections).flat_map(|k| parts.iter().map(move |p| (p, k))) {
        let (bytes, count) = if kind == 0 { (&b.0, 0) } else { (&b.1, b.2) };
        entries.push(Entry {
            offset,
            len: bytes.len() as u32,
            count,
            sum: xxh3_64(bytes),
        });
        offset += bytes.len() as u64;
    }
    let pack_info = PackInfo {
        subspace: info.subspace,
        slots: info.slots,
        block_slots: BLOCK_SLOTS,
        blocks,
        depth_width,
        fingerprint: rules_fingerprint(&text),
        rules: text,
        file_checksum: file_checksum(entries.iter().map(|e| e.sum)),
    };
    let tmp = path.with_extension("mbp.tmp");
    let io = |e| PackWriteError::Io(tmp.clone(), e);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| PackWriteError::Io(dir.to_path_buf(), e))?;
    }
    let written = (|| -> Result<(), PackWriteError> {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(io)?);
        w.write_all(&header_bytes(&pack_info, index_len))
            .map_err(io)?;
        for e in &entries {
            w.write_all(&e.to_bytes()).map_err(io)?;
        }
        for kind in 0..sections {
            for p in &parts {
                w.write_all(if kind == 0 { &p.0 } else { &p.1 })
                    .map_err(io)?;
            }
        }
        let f = w.into_inner().map_err(|e| io(e.into_error()))?;
        f.sync_all().map_err(io)?;
        drop(f);
        check_against_table(&tmp, table, rules, depth_width)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path).map_err(|e| PackWriteError::Io(path.to_path_buf(), e))?;
    let (wdl_bytes, depth_bytes) = parts.iter().fold((0u64, 0u64), |(w, d), p| {
        (w + p.0.len() as u64, d + p.1.len() as u64)
    });
    Ok(PackedFile {
        subspace: info.subspace,
        slots: info.slots,
        wdl_bytes,
        depth_bytes,
        file_bytes: offset,
        found: false,
        seconds: 0.0,
    })
}

thread_local! {
    /// One compression context per thread and level: a fresh one per
    /// block allocates and zeroes its workspace each time.
    static COMPRESSOR: std::cell::RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> =
        const { std::cell::RefCell::new(None) };
}

fn compress_block(raw: &[u8], level: i32) -> std::io::Result<Vec<u8>> {
    COMPRESSOR.with(|c| {
        let mut c = c.borrow_mut();
        if c.as_ref().is_none_or(|(l, _)| *l != level) {
            *c = Some((level, zstd::bulk::Compressor::new(level)?));
        }
        c.as_mut().expect("made above").1.compress(raw)
    })
}

/// Opens the file just written with the reader and compares every used
/// slot's field, and every lost slot's depth, with its table.
fn check_against_table(
    path: &Path,
    table: &TableFile,
    rules: &Rules,
    depth_width: u8,
) -> Result<(), PackWriteError> {
    let info = table.info();
    let pack = PackFile::open(path, rules, info.subspace, info.slots)?;
    let differs = |what: String| PackWriteError::Differs(path.to_path_buf(), what);
    (0..pack.info().blocks).into_par_iter().try_for_each(|b| {
        let words = pack.wdl_block(b)?;
        let depths = pack.depth_block(b)?;
        let codes = pack_block_codes(table, b)?;
        let mut lost = 0;
        for (j, &c) in codes.iter().enumerate() {
            let field = ((words[j / 32] >> (2 * (j % 32))) & 3) as u8;
            if field == 2 {
                lost += 1;
            }
            let want = match Value::from_code(c) {
                None => continue,
                Some(Value::Draw) => 0,
                Some(Value::Win(_)) => 1,
                Some(Value::Loss(_)) => 2,
            };
            if field != want {
                let slot = b as u64 * BLOCK_SLOTS as u64 + j as u64;
                return Err(differs(format!("slot {slot}: field {field}, table {want}")));
            }
            if let (Some(Value::Loss(d)), true) = (Value::from_code(c), depth_width > 0) {
                let got = depths.get(lost - 1).copied().map(|h| 2 * h as u32);
                if got != Some(d) {
                    let slot = b as u64 * BLOCK_SLOTS as u64 + j as u64;
                    return Err(differs(format!("slot {slot}: depth {got:?}, table {d}")));
                }
            }
        }
        Ok(())
    })
}
