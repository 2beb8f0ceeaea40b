//! Table files: one per subspace, holding the value of every slot.
//!
//! The file format (version 3) is described in [`mod@format`]: a checked
//! header, a block index, and zstd-compressed blocks in two sections, a
//! win/draw/loss section and a value-code section, each block with its own
//! checksum. Files are read block by block ([`TableFile`]); the solver and
//! the checker decode whole tables into a [`Table`].
//!
//! Files are written under a temporary name, read back and checked, and
//! renamed when complete, so a file with the final name is whole unless
//! damaged later; the reader checks everything it uses and refuses what it
//! does not understand.

mod error;
pub mod folder;
pub mod format;
pub mod lock;
pub mod stats;

pub use error::{BlockFault, Damage, Mismatch, TableError};
pub use folder::TableFolder;
pub use format::{
    CodeLayout, DEFAULT_LEVEL, FieldCode, Halves, Section, TableFile, TableInfo, Wdl, WdlBlock,
};
pub use stats::{PliesCounts, StatsFile, SubspaceStats};

use crate::index::Subspace;
use crate::rules::Rules;
use crate::value::{Encoding, UNUSED, Value};
use std::path::Path;

/// Raises this process's limit of open files to its hard limit where the
/// system allows, and returns the limit now in force (`u64::MAX` where
/// there is none to read). Every open table holds a file descriptor (see
/// [`TableFile`]), and a whole game has hundreds of tables.
pub fn raise_open_file_limit() -> u64 {
    #[cfg(target_os = "linux")]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit only read and write the struct
        // passed, which lives on this stack frame.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return u64::MAX;
            }
            if limit.rlim_cur < limit.rlim_max {
                let raised = libc::rlimit {
                    rlim_cur: limit.rlim_max,
                    rlim_max: limit.rlim_max,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    limit = raised;
                }
            }
        }
        limit.rlim_cur
    }
    #[cfg(not(target_os = "linux"))]
    {
        u64::MAX
    }
}

/// The value codes of one subspace, in memory.
#[derive(Clone)]
pub struct Table {
    /// The subspace.
    pub subspace: Subspace,
    width: u8,
    encoding: Encoding,
    data: Vec<u8>,
}

impl Table {
    /// A table from value codes, stored one byte wide when they fit.
    pub fn from_codes(subspace: Subspace, codes: &[u16]) -> Table {
        use rayon::prelude::*;
        const CHUNK: usize = 1 << 16;
        let narrow = codes.par_iter().all(|&c| c < 255 || c == UNUSED);
        let width = if narrow { 1 } else { 2 };
        // Finished tables are read at random as exits of later pairs.
        let mut data = crate::memory::huge_vec_par(codes.len() * width, || 0u8);
        data.par_chunks_mut(CHUNK * width)
            .zip(codes.par_chunks(CHUNK))
            .for_each(|(out, codes)| {
                if narrow {
                    for (o, &c) in out.iter_mut().zip(codes) {
                        *o = if c == UNUSED { 255 } else { c as u8 };
                    }
                } else {
                    for (o, c) in out.chunks_exact_mut(2).zip(codes) {
                        o.copy_from_slice(&c.to_le_bytes());
                    }
                }
            });
        Table {
            subspace,
            width: width as u8,
            encoding: Encoding::Plies,
            data,
        }
    }

    /// The same table with its codes read as `encoding` (the pure game's
    /// plies unless set).
    #[must_use]
    pub fn with_encoding(mut self, encoding: Encoding) -> Table {
        self.encoding = encoding;
        self
    }

    /// How the codes read.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The value of a slot at counter 0 (`None`: unused).
    #[inline]
    pub fn value(&self, slot: u64) -> Option<Value> {
        self.encoding.value(self.code(slot))
    }

    /// A table from its raw little-endian codes of `width` bytes each.
    pub(crate) fn from_raw(subspace: Subspace, width: u8, data: Vec<u8>) -> Table {
        Table {
            subspace,
            width,
            encoding: Encoding::Plies,
            data,
        }
    }

    /// The raw codes, `width()` bytes each.
    pub(crate) fn raw(&self) -> &[u8] {
        &self.data
    }

    /// Bytes per code (1 or 2).
    pub fn width(&self) -> u8 {
        self.width
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
        code_at(&self.data, self.width, slot as usize)
    }

    /// Writes `f(code)` of the slots from `first` on into `out`, one per
    /// slot: a run of codes read at memory speed.
    #[inline]
    pub fn map_codes(&self, first: u64, out: &mut [u16], f: impl Fn(u16) -> u16) {
        let (i, n) = (first as usize, out.len());
        if self.width == 1 {
            for (o, &c) in out.iter_mut().zip(&self.data[i..i + n]) {
                *o = f(if c == 255 { UNUSED } else { c as u16 });
            }
        } else {
            let bytes = &self.data[2 * i..2 * (i + n)];
            for (o, c) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                *o = f(u16::from_le_bytes([c[0], c[1]]));
            }
        }
    }

    /// Asks the processor to bring the code of `slot` into cache.
    #[inline]
    pub fn prefetch(&self, slot: u64) {
        let i = slot as usize * self.width as usize;
        if i < self.data.len() {
            crate::memory::prefetch(&self.data[i]);
        }
    }

    /// Prefetches the codes of `count` slots from `first` on, a cache line
    /// at a time.
    pub fn prefetch_range(&self, first: u64, count: u64) {
        let w = self.width as usize;
        let end = ((first + count) as usize * w).min(self.data.len());
        for i in (first as usize * w..end).step_by(64) {
            crate::memory::prefetch(&self.data[i]);
        }
    }

    /// Writes the table to `path` in the current format (through a
    /// temporary file, read back and checked, then renamed), compressing
    /// with zstd at `level`.
    pub fn write(&self, path: &Path, rules: &Rules, level: i32) -> Result<(), TableError> {
        format::write(self, path, rules, level)
    }

    /// Reads, checks and decodes the table of `subspace` for `rules`.
    pub fn read(
        path: &Path,
        rules: &Rules,
        subspace: Subspace,
        slots: u64,
    ) -> Result<Table, TableError> {
        TableFile::open(path, rules, subspace, slots)?.decode()
    }
}

/// The code at index `i` of raw codes `width` bytes wide.
#[inline]
pub(crate) fn code_at(data: &[u8], width: u8, i: usize) -> u16 {
    if width == 1 {
        match data[i] {
            255 => UNUSED,
            c => c as u16,
        }
    } else {
        u16::from_le_bytes([data[2 * i], data[2 * i + 1]])
    }
}
