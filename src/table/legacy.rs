//! Format version 1 (uncompressed), read only so that `build` can convert
//! tables made by earlier millbase versions without solving them again.
//!
//! Layout: magic `MILLBASE`, version u32 = 1, width u8, `w b wh bh`, 3
//! reserved bytes, slot count u64, FNV-1a 64 checksum of the codes u64,
//! rules text length u32, rules text, then the raw codes.

use super::{Table, TableError};
use crate::index::Subspace;
use crate::rules::Rules;
use std::path::Path;

fn fnv1a64(data: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

pub(super) fn read_v1(
    path: &Path,
    rules: &Rules,
    subspace: Subspace,
    slots: u64,
) -> Result<Table, TableError> {
    let mut bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(TableError::Missing(path.to_path_buf()));
        }
        Err(e) => return Err(TableError::Io(path.to_path_buf(), e)),
    };
    let corrupt = |why: &str| TableError::Corrupt(path.to_path_buf(), why.to_string());
    if bytes.len() < 40 || &bytes[..8] != b"MILLBASE" || bytes[8..12] != 1u32.to_le_bytes() {
        return Err(corrupt("not a format-1 millbase table"));
    }
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap());
    let width = bytes[12];
    let found = Subspace {
        w: bytes[13],
        b: bytes[14],
        wh: bytes[15],
        bh: bytes[16],
    };
    let len = u32::from_le_bytes(bytes[36..40].try_into().unwrap()) as usize;
    if (width != 1 && width != 2) || bytes.len() < 40 + len {
        return Err(corrupt("bad header"));
    }
    let text = String::from_utf8_lossy(&bytes[40..40 + len]);
    if text != rules.canonical() || found != subspace {
        return Err(TableError::Mismatch(
            path.to_path_buf(),
            format!("holds {found} for rules `{text}`"),
        ));
    }
    let (count, sum) = (u64_at(20), u64_at(28));
    let data = bytes.split_off(40 + len);
    if count != slots || data.len() as u64 != count * width as u64 {
        return Err(corrupt("wrong size"));
    }
    if fnv1a64(&data) != sum {
        return Err(corrupt("checksum mismatch"));
    }
    Ok(Table::from_raw(subspace, width, data))
}
