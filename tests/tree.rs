//! The tree speaks of the program, not of how it was made: no diary entry
//! (a numbered working session or sitting, an issue number) and no folder
//! of one machine, in any file a clone holds.

use std::path::{Path, PathBuf};

/// Every text file under the checkout's own folders, and the top files.
fn files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![
        root.join("README.md"),
        root.join("Cargo.toml"),
        root.join("build.rs"),
    ];
    let mut todo: Vec<PathBuf> = ["src", "tests", "tools", "docs", "benches", "db", ".ci"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    while let Some(dir) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                // Table fixtures are binary.
                if !p.ends_with("format2") {
                    todo.push(p);
                }
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// What gives a diary away, lower case. Built from pieces so that this
/// file does not match itself.
fn tells() -> Vec<String> {
    let mut t = Vec::new();
    for word in [
        "session", "sessions", "sitting", "sittings", "issue", "issues",
    ] {
        for d in 0..10 {
            t.push(format!("{word} {d}"));
        }
        t.push(format!("{word} #"));
    }
    for folder in ["work", "root", "home", "tmp"] {
        t.push(format!("/{folder}/"));
    }
    t.push(["shared", "rules.md"].join("/"));
    t
}

#[test]
fn no_diary_and_no_machine_paths_in_the_tree() {
    let tells = tells();
    let mut found = Vec::new();
    for path in files() {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            if let Some(t) = tells.iter().find(|t| lower.contains(t.as_str())) {
                found.push(format!("{}:{}: `{t}` in {line}", path.display(), n + 1));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_check_sees_a_tell() {
    // The test above can fail: a line with a tell is found.
    let line = format!("measured in {} 12", "session");
    assert!(tells().iter().any(|t| line.contains(t.as_str())));
    assert!(files().iter().any(|p| p.ends_with("README.md")));
}
