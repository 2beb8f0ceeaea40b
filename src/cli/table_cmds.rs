//! `check` and `info`: what is on disk, and whether it is right.

use super::CliError;
use clap::Args;
use millbase::Rules;
use millbase::Subspace;
use millbase::moving_subspaces;
use millbase::{
    CheckRecord, SubspaceCheck, built_subspaces, check_subspaces, check_subspaces_recorded,
};
use millbase::{Section, TableFile};
use std::path::{Path, PathBuf};

/// Arguments of `check`.
#[derive(Args)]
pub struct CheckArgs {
    /// Table folder.
    #[arg(long, default_value = "db")]
    db: PathBuf,
    /// Only these subspaces (comma-separated, e.g. `4-4,5-3`); default: all.
    #[arg(long, value_delimiter = ',')]
    subspaces: Vec<String>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Resume a long check: skip the slot-by-slot check of the tables an
    /// earlier `check --resume` found consistent against the same tables
    /// (their checksums are still checked), and record each table found
    /// consistent in `checked.json` beside the tables.
    #[arg(long)]
    resume: bool,
}

/// Arguments of `info`.
#[derive(Args)]
pub struct InfoArgs {
    /// Table folder.
    #[arg(long, default_value = "db")]
    db: PathBuf,
}

fn show_value(v: Option<millbase::Value>) -> String {
    match v {
        None => "unused".into(),
        Some(v) => match v.plies() {
            Some(p) => format!("{} in {p}", v.name()),
            None => v.name().into(),
        },
    }
}

fn print_check(r: &SubspaceCheck) {
    if r.earlier {
        println!(
            "{:<6} {:>12} slots  consistent earlier, checksums now  ({:.1} s)",
            r.subspace.to_string(),
            r.slots,
            r.seconds
        );
        return;
    }
    if r.bad == 0 {
        println!(
            "{:<6} {:>12} slots  consistent  ({:.1} s)",
            r.subspace.to_string(),
            r.slots,
            r.seconds
        );
        return;
    }
    println!(
        "{:<6} {:>12} slots  {} INCONSISTENT  ({:.1} s)",
        r.subspace.to_string(),
        r.slots,
        r.bad,
        r.seconds
    );
    for b in &r.first_bad {
        println!(
            "    slot {} ({} w): table says {}, its children say {}",
            b.slot,
            b.position,
            show_value(b.stored),
            show_value(b.expected)
        );
    }
}

/// `millbase check`.
pub fn check_cmd(rules: &Rules, args: &CheckArgs) -> Result<(), CliError> {
    super::db_folder(&args.db)?;
    super::use_threads(args.threads)?;
    let folder = millbase::TableFolder::new(&args.db, rules);
    let placing = millbase::placing_subspaces(rules);
    let mut all = moving_subspaces(rules);
    all.extend(&placing);
    let subspaces: Vec<Subspace> = if args.subspaces.is_empty() {
        let (built, placing_built) = built_subspaces(&folder);
        if !placing_built {
            println!(
                "no placing-phase tables (built with --no-placing?): checking the moving phase"
            );
        }
        built
    } else {
        let list = args
            .subspaces
            .iter()
            .map(|s| s.parse::<Subspace>().map_err(CliError::input))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(s) = list.iter().find(|s| !all.contains(s)) {
            return Err(CliError::input(format!(
                "subspace {s} is not a subspace of rules {} (moving: W-B, placing: W-B-WH-BH \
                 as reached from the start)",
                rules.short_name()
            )));
        }
        list
    };
    let start = std::time::Instant::now();
    let results = if args.resume {
        let mut record = CheckRecord::open(&folder).map_err(|e| CliError::table(&e, rules))?;
        check_subspaces_recorded(&folder, &subspaces, &mut record, print_check)
    } else {
        check_subspaces(&folder, &subspaces, print_check)
    }
    .map_err(|e| CliError::table(&e, rules))?;
    let slots: u64 = results.iter().map(|r| r.slots).sum();
    let bad: u64 = results.iter().map(|r| r.bad).sum();
    let earlier = results.iter().filter(|r| r.earlier).count();
    let how = if earlier > 0 {
        format!(
            "every checksum, and every slot against its children ({earlier} tables in an \
             earlier run)"
        )
    } else {
        "every checksum and every slot against its children".to_string()
    };
    println!(
        "checked {} tables, {slots} slots, {how}, in {:.1} s",
        results.len(),
        start.elapsed().as_secs_f64()
    );
    if bad > 0 {
        return Err(CliError {
            code: 1,
            message: format!("{bad} slots disagree with their children (see above)"),
        });
    }
    println!("all consistent");
    Ok(())
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// `millbase info`.
pub fn info_cmd(_rules: &Rules, args: &InfoArgs) -> Result<(), CliError> {
    super::db_folder(&args.db)?;
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&args.db)
        .map_err(|e| CliError {
            code: 1,
            message: format!("cannot read table folder {}: {e}", args.db.display()),
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    let mut bad = 0usize;
    let mut any = false;
    for folder in folders {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .map(|d| {
                d.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "mbt"))
                    .collect()
            })
            .unwrap_or_default();
        if files.is_empty() {
            continue;
        }
        any = true;
        files.sort_by_key(|p| {
            p.file_stem()
                .and_then(|s| s.to_str())
                .and_then(|s| s.parse::<Subspace>().ok())
                .map(|s| (s.us + s.them, s.us, s.them))
        });
        bad += info_folder(&folder, &files);
    }
    if !any {
        return Err(CliError {
            code: 1,
            message: format!(
                "no tables in {} (make them with `millbase build`)",
                args.db.display()
            ),
        });
    }
    if bad > 0 {
        return Err(CliError {
            code: 1,
            message: format!("{bad} tables are damaged (see above)"),
        });
    }
    Ok(())
}

/// Prints one rule set's folder; returns the number of bad tables.
fn info_folder(folder: &Path, files: &[PathBuf]) -> usize {
    println!("{}", folder.display());
    let folder_rules = folder
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(rules_of_folder);
    let mut rules_text: Option<String> = None;
    let (mut total, mut wdl, mut codes, mut slots, mut bad) = (0u64, 0u64, 0u64, 0u64, 0usize);
    // Tables by format version and code layout.
    let mut formats: std::collections::BTreeMap<String, usize> = Default::default();
    println!(
        "  {:<8} {:>12} {:>12} {:>12} {:>12}  checksums",
        "table", "slots", "file", "wdl", "codes"
    );
    for path in files {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let table = match TableFile::open_any(path) {
            Ok(t) => t,
            Err(e) => {
                println!("  {name:<8} DAMAGED: {e}");
                bad += 1;
                continue;
            }
        };
        let info = table.info();
        let layout = match info.layout {
            millbase::CodeLayout::Codes => "every slot's code",
            millbase::CodeLayout::DecisiveHalves(_) => "decisive slots' halved depths",
        };
        *formats
            .entry(format!("format {}, {layout}", info.version))
            .or_default() += 1;
        let named = path
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.parse::<Subspace>().ok());
        if named != Some(info.subspace) {
            println!(
                "  {name:<8} MISPLACED: holds the table of {}",
                info.subspace
            );
            bad += 1;
        }
        match &folder_rules {
            Some(own) if !own.takes_tables_of(&info.rules) => {
                println!(
                    "  {name:<8} MISPLACED: built for rules `{}`, not this folder's",
                    info.rules
                );
                bad += 1;
            }
            None if rules_text.as_deref().is_some_and(|r| r != info.rules) => {
                println!("  {name:<8} built for other rules: {}", info.rules);
            }
            _ => {}
        }
        if rules_text.is_none() {
            rules_text = Some(info.rules.clone());
        }
        let verdict = match table.verify() {
            Ok(()) => "OK".to_string(),
            Err(e) => {
                bad += 1;
                format!("DAMAGED: {e}")
            }
        };
        let (w, c) = (
            table.section_bytes(Section::Wdl),
            table.section_bytes(Section::Codes),
        );
        println!(
            "  {:<8} {:>12} {:>12} {:>12} {:>12}  {verdict}",
            info.subspace.to_string(),
            info.slots,
            mib(table.file_bytes()),
            mib(w),
            mib(c)
        );
        total += table.file_bytes();
        wdl += w;
        codes += c;
        slots += info.slots;
    }
    println!(
        "  {:<8} {:>12} {:>12} {:>12} {:>12}  {} tables, {}",
        "total",
        slots,
        mib(total),
        mib(wdl),
        mib(codes),
        files.len(),
        if bad == 0 {
            "all checksums OK".to_string()
        } else {
            format!("{bad} damaged")
        }
    );
    if let Some(r) = rules_text {
        println!("  rules: {r}");
    }
    for (format, n) in formats {
        println!("  {format}: {n} tables");
    }
    bad
}

/// The rule set a table folder is named for ([`Rules::folder_name`], where
/// `stones=W/B` is written `W-B`), if the name is one.
fn rules_of_folder(name: &str) -> Option<Rules> {
    let text: Vec<String> = name
        .split(',')
        .map(|part| match part.strip_prefix("stones=") {
            Some(hands) => format!("stones={}", hands.replace('-', "/")),
            None => part.to_string(),
        })
        .collect();
    Rules::parse_family(&text.join(",")).ok()
}
