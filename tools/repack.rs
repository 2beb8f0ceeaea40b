//! Rewrites the tables of a rule set in the current format (version 3),
//! from a database folder written by an older millbase (format 2) into
//! another database folder, and prints the sizes before and after. Every
//! table is read (every block checked), written under a temporary name,
//! read back, compared and renamed, as `build` does. Tables already in
//! the output folder are skipped, so an interrupted run resumes.
//!
//! `cargo run --release --example repack -- FROM_DB TO_DB [RULES] [--moving]`
//! (`--moving`: the moving-phase tables only)

use millbase::Rules;
use millbase::Subspace;
use millbase::{DEFAULT_LEVEL, Section, TableFolder};
use std::process::exit;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let moving_only = args.iter().any(|a| a == "--moving");
    args.retain(|a| a != "--moving");
    if args.len() < 2 || args.len() > 3 {
        eprintln!("usage: repack FROM_DB TO_DB [RULES] [--moving]");
        exit(2);
    }
    let rules: Rules = match args.get(2).map_or(Ok(Rules::STANDARD), |r| r.parse()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            exit(2);
        }
    };
    let from = TableFolder::new(std::path::Path::new(&args[0]), &rules);
    let to = TableFolder::new(std::path::Path::new(&args[1]), &rules);
    let mut names: Vec<Subspace> = Vec::new();
    for dir in [from.moving_dir(), from.dir()] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(s) = name
                .strip_suffix(".mbt")
                .and_then(|s| s.parse::<Subspace>().ok())
                && !names.contains(&s)
                && (s.is_moving() || !moving_only)
            {
                names.push(s);
            }
        }
    }
    names.sort_by_key(|s| (s.us_hand + s.them_hand == 0, from.slots(*s)));
    let (mut before, mut after) = ([0u64; 2], [0u64; 2]);
    for s in names {
        let old = from.open(s).unwrap_or_else(|e| fail(e));
        if !to.is_finished(s) {
            let table = from.load(s).unwrap_or_else(|e| fail(e));
            to.write(&table, DEFAULT_LEVEL).unwrap_or_else(|e| fail(e));
        }
        let new = to.open(s).unwrap_or_else(|e| fail(e));
        let sections = [Section::Wdl, Section::Codes];
        let b = sections.map(|x| old.section_bytes(x));
        let a = sections.map(|x| new.section_bytes(x));
        println!(
            "{s}: {} slots; format {} -> {} ({:?}); win/draw/loss {} -> {} bytes, codes {} -> {} bytes",
            old.info().slots,
            old.info().version,
            new.info().version,
            new.info().layout,
            b[0],
            a[0],
            b[1],
            a[1]
        );
        for i in 0..2 {
            before[i] += b[i];
            after[i] += a[i];
        }
    }
    println!(
        "total: win/draw/loss {} -> {} bytes, codes {} -> {} bytes",
        before[0], after[0], before[1], after[1]
    );
}

fn fail(e: impl std::fmt::Display) -> ! {
    eprintln!("error: {e}");
    exit(1);
}
