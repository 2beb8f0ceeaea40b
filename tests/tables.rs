//! Damaged, foreign and future table files give clear errors, never values.

use std::path::{Path, PathBuf};
use std::process::Command;

fn millbase(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_millbase"))
        .args(args)
        .output()
        .unwrap()
}

fn fresh_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("millbase-tables-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = millbase(&["build", "--db", dir.to_str().unwrap(), "--subspaces", "3-3"]);
    assert!(out.status.success());
    dir
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
            "expected 210140 slots",
        ),
        (
            "flipped data byte",
            Box::new(|b: &mut Vec<u8>| {
                let i = b.len() / 2;
                b[i] ^= 1
            }),
            "checksum",
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
            "flipped subspace",
            Box::new(|b: &mut Vec<u8>| b[13] = 4),
            "holds subspace 4-3",
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
        let _ = std::fs::remove_dir_all(db);
    }
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
    let _ = std::fs::remove_dir_all(db);
}
