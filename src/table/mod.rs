//! Table files: one per subspace, a header and the value code of every slot.
//!
//! Format version 1 (all integers little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `MILLBASE` |
//! | 8 | 4 | format version (1) |
//! | 12 | 1 | value width in bytes (1 or 2) |
//! | 13 | 4 | subspace: stones and hands `w b wh bh` |
//! | 17 | 3 | reserved (0) |
//! | 20 | 8 | slot count |
//! | 28 | 8 | FNV-1a 64 checksum of the data |
//! | 36 | 4 | length `L` of the rule set's canonical text |
//! | 40 | L | the rule set's canonical text |
//! | 40+L | slots x width | value codes (see [`crate::solve::value`]); with width 1, 255 is unused |
//!
//! Files are written under a temporary name and renamed when complete, so
//! a file with the final name is whole unless damaged later; the reader
//! checks everything and refuses what it does not understand.

use crate::index::Subspace;
use crate::rules::Rules;
use crate::solve::value::UNUSED;
use std::fmt;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"MILLBASE";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// What went wrong with a table file.
#[derive(Debug)]
pub enum TableError {
    /// The file is not there.
    Missing(PathBuf),
    /// Reading or writing failed.
    Io(PathBuf, std::io::Error),
    /// The file is damaged, truncated, or not a table.
    Corrupt(PathBuf, String),
    /// The file is a table for other rules or another subspace.
    Mismatch(PathBuf, String),
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Missing(p) => write!(f, "table {} is missing", p.display()),
            TableError::Io(p, e) => write!(f, "table {}: {e}", p.display()),
            TableError::Corrupt(p, why) => write!(f, "table {} is corrupt: {why}", p.display()),
            TableError::Mismatch(p, why) => write!(f, "table {} does not fit: {why}", p.display()),
        }
    }
}

impl std::error::Error for TableError {}

/// The value codes of one subspace, in memory.
#[derive(Clone)]
pub struct Table {
    /// The subspace.
    pub subspace: Subspace,
    width: u8,
    data: Vec<u8>,
}

/// FNV-1a 64 over bytes.
pub fn fnv1a64(data: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Table {
    /// A table from value codes, stored one byte wide when they fit.
    pub fn from_codes(subspace: Subspace, codes: &[u16]) -> Table {
        let narrow = codes.iter().all(|&c| c < 255 || c == UNUSED);
        let data = if narrow {
            codes
                .iter()
                .map(|&c| if c == UNUSED { 255 } else { c as u8 })
                .collect()
        } else {
            codes.iter().flat_map(|c| c.to_le_bytes()).collect()
        };
        Table {
            subspace,
            width: if narrow { 1 } else { 2 },
            data,
        }
    }

    /// Number of slots.
    pub fn len(&self) -> u64 {
        (self.data.len() / self.width as usize) as u64
    }

    /// Whether the table has no slots.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The code of a slot.
    #[inline]
    pub fn code(&self, slot: u64) -> u16 {
        if self.width == 1 {
            match self.data[slot as usize] {
                255 => UNUSED,
                c => c as u16,
            }
        } else {
            let i = 2 * slot as usize;
            u16::from_le_bytes([self.data[i], self.data[i + 1]])
        }
    }

    /// Writes the table to `path` (through a temporary file and a rename).
    pub fn write(&self, path: &Path, rules: &Rules) -> Result<(), TableError> {
        let io = |e| TableError::Io(path.to_path_buf(), e);
        let tmp = path.with_extension("tmp");
        let rules_text = rules.canonical();
        let mut header = Vec::with_capacity(40 + rules_text.len());
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        let s = self.subspace;
        header.extend_from_slice(&[self.width, s.w, s.b, s.wh, s.bh, 0, 0, 0]);
        header.extend_from_slice(&self.len().to_le_bytes());
        header.extend_from_slice(&fnv1a64(&self.data).to_le_bytes());
        header.extend_from_slice(&(rules_text.len() as u32).to_le_bytes());
        header.extend_from_slice(rules_text.as_bytes());
        let mut f = fs::File::create(&tmp).map_err(io)?;
        f.write_all(&header).map_err(io)?;
        f.write_all(&self.data).map_err(io)?;
        f.sync_all().map_err(io)?;
        drop(f);
        // Read back what reached the disk before it takes the final name.
        let back = Table::read(&tmp, rules, self.subspace, self.len())?;
        if back.data != self.data {
            return Err(TableError::Corrupt(
                tmp,
                "read back differs from what was written".into(),
            ));
        }
        fs::rename(&tmp, path).map_err(io)?;
        if let Some(dir) = path.parent() {
            fs::File::open(dir).and_then(|d| d.sync_all()).map_err(io)?;
        }
        Ok(())
    }

    /// Reads and checks the table of `subspace` for `rules` at `path`.
    pub fn read(
        path: &Path,
        rules: &Rules,
        subspace: Subspace,
        slots: u64,
    ) -> Result<Table, TableError> {
        let bytes = match fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(TableError::Missing(path.to_path_buf()));
            }
            Err(e) => return Err(TableError::Io(path.to_path_buf(), e)),
        };
        let corrupt = |why: &str| TableError::Corrupt(path.to_path_buf(), why.to_string());
        if bytes.len() < 40 || &bytes[..8] != MAGIC {
            return Err(corrupt("not a millbase table (bad magic or too short)"));
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap());
        let version = u32_at(8);
        if version != FORMAT_VERSION {
            return Err(corrupt(&format!(
                "format version {version}, this millbase reads version {FORMAT_VERSION}"
            )));
        }
        let width = bytes[12];
        if width != 1 && width != 2 {
            return Err(corrupt(&format!("value width {width}")));
        }
        let found = Subspace {
            w: bytes[13],
            b: bytes[14],
            wh: bytes[15],
            bh: bytes[16],
        };
        let len = u32_at(36) as usize;
        if bytes.len() < 40 + len {
            return Err(corrupt("truncated header"));
        }
        let text = String::from_utf8_lossy(&bytes[40..40 + len]);
        if text != rules.canonical() {
            return Err(TableError::Mismatch(
                path.to_path_buf(),
                format!("built for rules `{text}`, not `{}`", rules.canonical()),
            ));
        }
        if found != subspace {
            return Err(TableError::Mismatch(
                path.to_path_buf(),
                format!("holds subspace {found}, not {subspace}"),
            ));
        }
        let count = u64_at(20);
        let data = &bytes[40 + len..];
        if count != slots || data.len() as u64 != count * width as u64 {
            return Err(corrupt(&format!(
                "expected {slots} slots, header says {count}, data holds {} bytes",
                data.len()
            )));
        }
        if fnv1a64(data) != u64_at(28) {
            return Err(corrupt("checksum mismatch"));
        }
        Ok(Table {
            subspace,
            width,
            data: data.to_vec(),
        })
    }
}

/// The folder of a rule set's tables under `db`.
pub fn rules_dir(db: &Path, rules: &Rules) -> PathBuf {
    db.join(rules.short_name())
}

/// The file of one subspace's table.
pub fn table_path(db: &Path, rules: &Rules, subspace: Subspace) -> PathBuf {
    rules_dir(db, rules).join(format!("{subspace}.mbt"))
}
