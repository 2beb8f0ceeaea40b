//! Damaged, foreign and future table files give clear errors, never values.

use crate::common;

use std::path::Path;

use common::run as millbase;

fn fresh_db(name: &str) -> common::TempDir {
    let dir = common::TempDir::new(&format!("tables-{name}"));
    let out = millbase(&["build", "--db", dir.to_str().unwrap(), "--subspaces", "4-3"]);
    assert!(out.status.success());
    dir
}

/// Positions in a format-3 file: (block count, start of the block index).
fn layout(bytes: &[u8]) -> (usize, usize) {
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap()) as usize;
    assert_eq!(u32_at(8), 3, "format version");
    (u32_at(36), 64 + u32_at(52))
}

/// (offset, length) of every block of the code section.
fn code_blocks(bytes: &[u8]) -> Vec<(usize, usize)> {
    let (n, index) = layout(bytes);
    (n..2 * n)
        .map(|i| {
            let e = &bytes[index + 24 * i..index + 24 * i + 24];
            (
                u64::from_le_bytes(e[..8].try_into().unwrap()) as usize,
                u32::from_le_bytes(e[8..12].try_into().unwrap()) as usize,
            )
        })
        .collect()
}

const GASSER: &str = ".WWBW..B/......../.B...... b 0 0";

fn query_error(db: &Path, rules: &str) -> String {
    let out = millbase(&[
        "query",
        "--rules",
        rules,
        "--db",
        db.to_str().unwrap(),
        GASSER,
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(out.stdout.is_empty(), "no value is printed");
    let e = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!e.contains("panicked"), "{e}");
    e
}

fn damage(db: &Path, f: impl FnOnce(&mut Vec<u8>)) {
    let path = db.join("standard").join("3-3.mbt");
    let mut bytes = std::fs::read(&path).unwrap();
    f(&mut bytes);
    std::fs::write(&path, bytes).unwrap();
}

/// A way to damage a table file's bytes.
type Damage = Box<dyn FnOnce(&mut Vec<u8>)>;

#[test]
fn every_kind_of_bad_table_is_refused() {
    let cases: Vec<(&str, Damage, &str)> = vec![
        (
            "truncated",
            Box::new(|b: &mut Vec<u8>| b.truncate(b.len() - 100)),
            "last block ends at",
        ),
        (
            "flipped byte in every code block",
            Box::new(|b: &mut Vec<u8>| {
                for (off, len) in code_blocks(b) {
                    b[off + len / 2] ^= 1;
                }
            }),
            "fails its checksum",
        ),
        (
            "flipped byte in the block index",
            Box::new(|b: &mut Vec<u8>| {
                let (n, index) = layout(b);
                for i in n..2 * n {
                    b[index + 24 * i] ^= 4;
                }
            }),
            "is corrupt",
        ),
        (
            "flipped header byte",
            Box::new(|b: &mut Vec<u8>| b[25] ^= 1),
            "header checksum mismatch",
        ),
        (
            "flipped magic",
            Box::new(|b: &mut Vec<u8>| b[0] ^= 0x20),
            "not a millbase table",
        ),
        (
            "newer version",
            Box::new(|b: &mut Vec<u8>| b[8] = 9),
            "format version 9",
        ),
        (
            "empty file",
            Box::new(|b: &mut Vec<u8>| b.clear()),
            "not a millbase table",
        ),
    ];
    for (what, f, needle) in cases {
        let db = fresh_db(&what.replace(' ', "-"));
        damage(&db, f);
        let e = query_error(&db, "standard");
        assert!(e.contains(needle) && e.contains("3-3.mbt"), "{what}: {e}");
    }
}

#[test]
fn a_table_of_another_subspace_is_refused() {
    let db = fresh_db("subspace");
    let dir = db.join("standard");
    std::fs::copy(dir.join("3-4.mbt"), dir.join("3-3.mbt")).unwrap();
    let e = query_error(&db, "standard");
    assert!(e.contains("holds subspace 3-4"), "{e}");
}

#[test]
fn a_missing_table_names_the_file_and_the_build_command() {
    let db = fresh_db("missing");
    std::fs::remove_file(db.join("standard").join("3-3.mbt")).unwrap();
    let e = query_error(&db, "standard");
    assert!(
        e.contains("3-3.mbt is missing") && e.contains("millbase build --rules standard"),
        "{e}"
    );
}

#[test]
fn a_table_of_other_rules_is_refused() {
    let db = fresh_db("rules");
    // Put the standard table where the flying=off tables belong.
    let other = db.join("standard,flying=off");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(db.join("standard").join("3-3.mbt"), other.join("3-3.mbt")).unwrap();
    let e = query_error(&db, "standard,flying=off");
    assert!(
        e.contains("built for rules") && e.contains("flying=3"),
        "{e}"
    );
}

#[test]
fn a_ten_stone_build_reuses_the_nine_stone_tables() {
    // The values of a subspace do not depend on the stones the game
    // started with: `standard,stones=10` takes the tables of `standard`
    // (linked, not recomputed) and reads them despite their headers.
    let db = fresh_db("ten");
    let d = db.to_str().unwrap();
    let out = millbase(&[
        "build",
        "--rules",
        "standard,stones=10",
        "--db",
        d,
        "--subspaces",
        "4-3",
    ]);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(log.contains("built 0 pairs, 2 found on disk"), "{log}");
    let ten = db.join("standard,stones=10");
    for t in ["3-3.mbt", "4-3.mbt", "3-4.mbt"] {
        assert_eq!(
            std::fs::read(ten.join(t)).unwrap(),
            std::fs::read(db.join("standard").join(t)).unwrap(),
            "{t}"
        );
    }
    let out = millbase(&[
        "query",
        "--rules",
        "standard,stones=10",
        "--db",
        d,
        "WWW...../BBB...../W....... b 0 0",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = millbase(&[
        "check",
        "--rules",
        "standard,stones=10",
        "--db",
        d,
        "--subspaces",
        "4-3",
    ]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("all consistent"));
}
