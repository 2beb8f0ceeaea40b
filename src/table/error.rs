//! What can be wrong with a table file, as data: a caller can tell a
//! damaged file from one of other rules, and every message names the file.

use super::format::Section;
use crate::index::Subspace;
use crate::value::Encoding;
use std::fmt;
use std::path::PathBuf;

/// What went wrong with a table file.
#[derive(Debug)]
pub enum TableError {
    /// The file is not there.
    Missing(PathBuf),
    /// Reading or writing failed.
    Io(PathBuf, std::io::Error),
    /// The file is damaged, truncated, or not a table.
    Corrupt(PathBuf, Damage),
    /// The file is a table for other rules or another subspace.
    Mismatch(PathBuf, Mismatch),
    /// Another process is writing into the database folder.
    Locked {
        /// The database folder.
        folder: PathBuf,
        /// The process holding the lock, when its lock file names one.
        pid: Option<u32>,
    },
    /// The name of a table is taken by something that is not a file (a
    /// folder, a named pipe, a device), named here.
    NotAFile(PathBuf, &'static str),
}

/// How a table file is damaged.
#[derive(Debug)]
#[non_exhaustive]
pub enum Damage {
    /// The file ended while its fixed header was read.
    HeaderCut,
    /// Bad magic bytes, or too short to be a table.
    NotATable,
    /// A format version this program does not read.
    Version(u32),
    /// The rules text or its checksum runs past the end of the file.
    TruncatedHeader,
    /// The header does not match its checksum.
    HeaderChecksum,
    /// A code layout this program does not read.
    Layout {
        /// The layout byte.
        layout: u8,
        /// Bytes per value.
        width: u8,
    },
    /// A value encoding this program does not read.
    Encoding {
        /// The encoding byte.
        code: u8,
        /// Its parameter.
        parameter: u16,
    },
    /// A value width this program does not read.
    Width(u8),
    /// The header's block count does not fit its slot count.
    BlockCount,
    /// The block index runs past the end of the file.
    TruncatedIndex,
    /// The block index does not match the header's file checksum.
    IndexChecksum,
    /// The file is not as long as its blocks say.
    Length {
        /// The file's length in bytes.
        file: u64,
        /// Where its last block ends.
        last_block_end: u64,
    },
    /// The header's slot count is not the subspace's.
    SlotCount {
        /// The subspace's slots.
        expected: u64,
        /// The header's.
        header: u64,
    },
    /// The file's blocks do not match the header's file checksum.
    FileChecksum,
    /// A file read back after writing differs from what was written.
    ReadBack,
    /// A slot marked unused is where a position maps to.
    UnusedSlot {
        /// The subspace.
        subspace: Subspace,
        /// The slot.
        slot: u64,
    },
    /// One block is unreadable.
    Block {
        /// Its section.
        section: Section,
        /// Its number in the section.
        block: u32,
        /// What is wrong with it.
        fault: BlockFault,
    },
}

/// What is wrong with one block of a table file.
#[derive(Debug)]
#[non_exhaustive]
pub enum BlockFault {
    /// The index has no such block.
    Absent,
    /// Its index entry points outside the file.
    OutsideFile,
    /// It lies past the end of the file, which had this many bytes when
    /// opened.
    PastEnd(u64),
    /// It fails its checksum.
    Checksum,
    /// It decompresses to the wrong length.
    WrongLength,
    /// zstd refused it.
    Decompress(std::io::Error),
    /// A depth block was asked of a table that holds whole codes.
    NotHalves,
    /// It holds a depth too deep for the header's code width.
    TooDeep,
}

/// How a sound table file differs from the one wanted.
#[derive(Debug)]
#[non_exhaustive]
pub enum Mismatch {
    /// Built for other rules (canonical texts).
    Rules {
        /// The table's rules.
        built: String,
        /// The rules asked for.
        wanted: String,
    },
    /// Its values are encoded otherwise than the rules need.
    Encoding {
        /// The table's encoding.
        found: Encoding,
        /// The encoding the rules need.
        needed: Encoding,
    },
    /// It holds another subspace.
    Subspace {
        /// The table's subspace.
        found: Subspace,
        /// The subspace asked for.
        wanted: Subspace,
    },
    /// A writer was handed codes of an encoding its rules do not use.
    Written {
        /// The codes' encoding.
        encoding: Encoding,
        /// The rules (canonical text).
        rules: String,
    },
}

impl TableError {
    /// This error with the command that makes the table (missing) or
    /// remakes it (damaged, of other rules), for people to act on.
    pub fn with_remedy(&self, rules: &crate::rules::Rules) -> String {
        let verb = match self {
            TableError::Missing(_) => "make",
            _ => "rebuild",
        };
        format!(
            "{self} ({verb} it with `millbase build --rules {}`)",
            rules.short_name()
        )
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Missing(p) => write!(f, "table {} is missing", p.display()),
            TableError::Io(p, e) => write!(f, "table {}: {e}", p.display()),
            TableError::Corrupt(p, why) => write!(f, "table {} is corrupt: {why}", p.display()),
            TableError::Mismatch(p, why) => write!(f, "table {} does not fit: {why}", p.display()),
            TableError::Locked { folder, pid } => {
                match pid {
                    Some(pid) => write!(f, "another build (pid {pid})")?,
                    None => f.write_str("another build")?,
                }
                write!(
                    f,
                    " is writing {}; wait for it to end, or stop it",
                    folder.display()
                )
            }
            TableError::NotAFile(p, kind) => write!(
                f,
                "table {} is {kind}, not a table file: remove it",
                p.display()
            ),
        }
    }
}

impl std::error::Error for TableError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TableError::Io(_, e) => Some(e),
            TableError::Corrupt(_, why) => why.source(),
            _ => None,
        }
    }
}

impl fmt::Display for Damage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Damage::HeaderCut => f.write_str("the file ended while its header was read"),
            Damage::NotATable => f.write_str("not a millbase table (bad magic or too short)"),
            Damage::Version(v) => write!(
                f,
                "format version {v}, this millbase reads versions 2 and {}",
                super::format::FORMAT_VERSION
            ),
            Damage::TruncatedHeader => f.write_str("truncated header"),
            Damage::HeaderChecksum => f.write_str("header checksum mismatch"),
            Damage::Layout { layout, width } => write!(
                f,
                "code layout {layout} with {width} bytes per value not understood"
            ),
            Damage::Encoding { code, parameter } => write!(
                f,
                "value encoding {code} with parameter {parameter} not understood"
            ),
            Damage::Width(w) => write!(f, "value width {w} not understood"),
            Damage::BlockCount => f.write_str("block count does not match the slot count"),
            Damage::TruncatedIndex => f.write_str("truncated block index"),
            Damage::IndexChecksum => {
                f.write_str("the block index does not match the header's file checksum")
            }
            Damage::Length {
                file,
                last_block_end,
            } => write!(
                f,
                "the file is {file} bytes, its last block ends at {last_block_end}"
            ),
            Damage::SlotCount { expected, header } => {
                write!(f, "expected {expected} slots, header says {header}")
            }
            Damage::FileChecksum => f.write_str("file checksum mismatch"),
            Damage::ReadBack => f.write_str("read back differs from what was written"),
            Damage::UnusedSlot { subspace, slot } => write!(
                f,
                "slot {slot} of {subspace} is marked unused, but a position maps to it"
            ),
            Damage::Block {
                section,
                block,
                fault,
            } => write!(f, "block {block} of the {} section {fault}", section.name()),
        }
    }
}

impl Damage {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Damage::Block {
                fault: BlockFault::Decompress(e),
                ..
            } => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for BlockFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A table replaced while a server has it open is read after a
        // restart; the messages say so, since that is the usual cause.
        const REWRITTEN: &str = "(a table replaced while open is read after a restart)";
        match self {
            BlockFault::Absent => f.write_str("does not exist"),
            BlockFault::OutsideFile => f.write_str("points outside the file"),
            BlockFault::PastEnd(len) => write!(
                f,
                "lies past the end of the file, which was {len} bytes when it was opened: \
                 it was truncated or rewritten since {REWRITTEN}"
            ),
            BlockFault::Checksum => write!(
                f,
                "fails its checksum: the file is damaged, or was rewritten after it was \
                 opened {REWRITTEN}"
            ),
            BlockFault::WrongLength => f.write_str("has the wrong length"),
            BlockFault::Decompress(e) => write!(f, "does not decompress: {e}"),
            BlockFault::NotHalves => f.write_str("holds codes, not halved depths"),
            BlockFault::TooDeep => {
                f.write_str("holds a depth too deep for the header's code width")
            }
        }
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Rules { built, wanted } => {
                write!(f, "built for rules `{built}`, not `{wanted}`")
            }
            Mismatch::Encoding { found, needed } => write!(
                f,
                "its values are encoded as {found:?}, the rules need {needed:?}"
            ),
            Mismatch::Subspace { found, wanted } => {
                write!(f, "holds subspace {found}, not {wanted}")
            }
            Mismatch::Written { encoding, rules } => {
                write!(
                    f,
                    "codes encoded as {encoding:?} written for rules `{rules}`"
                )
            }
        }
    }
}
