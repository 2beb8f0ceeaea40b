//! `pack` (write a table pack) and `query --pack` (read one).

use super::CliError;
use clap::Args;
use millbase::{
    PACK_LEVEL, Pack, PackError, PackWriteError, PackedFile, Rules, Subspace, TableFolder, Wdl,
    all_subspaces, built_subspaces, format_move, parse_position, render_position,
};
use std::path::{Path, PathBuf};

/// Arguments of `pack`.
#[derive(Args)]
pub struct PackArgs {
    /// Table folder to read.
    #[arg(long, default_value = "db")]
    db: PathBuf,
    /// Pack folder to write (laid out like a table folder).
    #[arg(long, default_value = "pack")]
    out: PathBuf,
    /// Only these subspaces (comma-separated, e.g. `3-3,4-3,3-4`); default:
    /// every table built.
    #[arg(long, value_delimiter = ',')]
    subspaces: Vec<String>,
    /// zstd level of the blocks (1 to 22).
    #[arg(long, default_value_t = PACK_LEVEL)]
    zstd_level: i32,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// A pack that cannot be read: a position it does not cover or rules it
/// does not hold are bad input (exit 2), a missing or damaged file exit 1.
pub fn pack_error(e: PackError) -> CliError {
    match e {
        PackError::NotCovered { .. } | PackError::NMove(_) => CliError::input(e),
        e => CliError {
            code: 1,
            message: e.to_string(),
        },
    }
}

fn write_error(e: PackWriteError, rules: &Rules) -> CliError {
    match e {
        PackWriteError::Table(t) => CliError::table(&t, rules),
        PackWriteError::NMove(_) => CliError::input(e),
        e => CliError {
            code: 1,
            message: e.to_string(),
        },
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// `millbase pack`.
pub fn pack_cmd(rules: &Rules, args: &PackArgs) -> Result<(), CliError> {
    super::db_folder(&args.db)?;
    super::use_threads(args.threads)?;
    if !(1..=22).contains(&args.zstd_level) {
        return Err(CliError::input(format!(
            "--zstd-level {}: expected 1 to 22",
            args.zstd_level
        )));
    }
    let subspaces: Vec<Subspace> = if args.subspaces.is_empty() {
        let folder = TableFolder::new(&args.db, rules);
        built_subspaces(&folder).0
    } else {
        let all = all_subspaces(rules);
        args.subspaces
            .iter()
            .map(|s| {
                let s: Subspace = s.parse().map_err(CliError::input)?;
                if all.contains(&s) {
                    Ok(s)
                } else {
                    Err(CliError::input(format!(
                        "--subspaces: {s} is not a subspace of `{}`",
                        rules.short_name()
                    )))
                }
            })
            .collect::<Result<_, _>>()?
    };
    let start = std::time::Instant::now();
    let print = |f: &PackedFile| {
        println!(
            "{:<10} {:>12} slots  {:>9.2} MiB (win/draw/loss {:.2}, depths {:.2}){}  {:.1} s",
            f.subspace.to_string(),
            f.slots,
            mib(f.file_bytes),
            mib(f.wdl_bytes),
            mib(f.depth_bytes),
            if f.found { "  found" } else { "" },
            f.seconds
        )
    };
    let files = millbase::write_pack(
        &args.db,
        rules,
        &args.out,
        &subspaces,
        args.zstd_level,
        print,
    )
    .map_err(|e| write_error(e, rules))?;
    if !args.subspaces.is_empty() || !built_subspaces(&TableFolder::new(&args.db, rules)).1 {
        println!("the placing phase is not in this pack: only the subspaces listed above");
    }
    let total = |f: fn(&PackedFile) -> u64| files.iter().map(f).sum::<u64>();
    let slots = total(|f| f.slots);
    let bytes = total(|f| f.file_bytes);
    println!(
        "packed {} subspaces, {slots} slots: {bytes} bytes ({:.1} MiB, win/draw/loss {:.1}, \
         depths {:.1}; {:.3} bits a slot) in {:.1} s; pack in {}",
        files.len(),
        mib(bytes),
        mib(total(|f| f.wdl_bytes)),
        mib(total(|f| f.depth_bytes)),
        bytes as f64 * 8.0 / slots.max(1) as f64,
        start.elapsed().as_secs_f64(),
        args.out.display()
    );
    println!(
        "rules fingerprint: {:016x} ({})",
        millbase::rules_fingerprint(&rules.family_rules().canonical()),
        rules.family_rules().canonical()
    );
    Ok(())
}

fn plies_text(wdl: Wdl, plies: Option<u32>) -> String {
    match (wdl, plies) {
        (Wdl::Draw, _) => "draw".into(),
        (w, Some(p)) => format!("{} in {p} plies", w.name()),
        (w, None) => w.name().into(),
    }
}

/// Plies of the pack player's line `verify --pack` plays and checks.
const VERIFY_LINE_PLIES: usize = 40;

/// `millbase verify --pack DIR`: exit 1 if a position on the line is not
/// worth the best of its moves.
pub fn verify_pack_cmd(rules: &Rules, dir: &Path) -> Result<(), CliError> {
    let pack = open_pack(rules, dir)?;
    let start = std::time::Instant::now();
    let found = millbase::verify_pack(&pack, VERIFY_LINE_PLIES).map_err(pack_error)?;
    let board = rules.board();
    let name = |m: &millbase::Move| format_move(board, m, millbase::Notation::Coords);
    println!("rules: {}", rules.canonical());
    println!(
        "start (from the pack): {}",
        plies_text(found.start.wdl, found.start.plies)
    );
    println!("first moves:");
    for m in &found.first_moves {
        println!("  {:<6} {}", name(&m.mv), plies_text(m.wdl, m.plies));
    }
    let line: Vec<String> = found.line.iter().map(name).collect();
    println!("pack player's line: {}", line.join(" "));
    println!("({:.1} s)", start.elapsed().as_secs_f64());
    if !found.inconsistent.is_empty() {
        return Err(CliError {
            code: 1,
            message: format!(
                "{} positions of the line are not worth the best of their moves: the pack is damaged",
                found.inconsistent.len()
            ),
        });
    }
    println!("verdict: {} (the line consistent)", found.start.wdl.name());
    Ok(())
}

fn open_pack(rules: &Rules, dir: &Path) -> Result<Pack, CliError> {
    if !dir.is_dir() {
        return Err(CliError::input(format!(
            "--pack {}: not a folder (write one with `millbase pack`)",
            dir.display()
        )));
    }
    Pack::open(dir, rules).map_err(pack_error)
}

/// `millbase query --pack DIR POSITION`: the value from the pack, every
/// move's, and the move a pack player makes.
pub fn query_pack(rules: &Rules, pack: &Path, text: &str, json: bool) -> Result<(), CliError> {
    let pack = open_pack(rules, pack)?;
    let input = parse_position(text, rules).map_err(CliError::input)?;
    let pos = input.position;
    let value = pack.probe(&pos).map_err(pack_error)?;
    let moves = pack.probe_moves(&pos).map_err(pack_error)?;
    let best = moves.first();
    let board = rules.board();
    let name = |m: &millbase::Move| format_move(board, m, input.notation);
    if json {
        let obj = serde_json::json!({
            "rules": rules.short_name(),
            "source": "pack",
            "to_move": pos.to_move.name(),
            "value": value.wdl.name(),
            "plies": value.plies,
            "best": best.map(|b| name(&b.mv)),
            "moves": moves.iter().map(|m| serde_json::json!({
                "move": name(&m.mv),
                "value": m.wdl.name(),
                "plies": m.plies,
            })).collect::<Vec<_>>(),
        });
        println!("{obj}");
        return Ok(());
    }
    print!("{}", render_position(board, &pos));
    println!();
    println!(
        "{} to move: {} (from the pack)",
        pos.to_move.name(),
        plies_text(value.wdl, value.plies)
    );
    if let Some(b) = best {
        println!("  pack player's move: {}", name(&b.mv));
    }
    for m in &moves {
        println!("  {:<12} {}", name(&m.mv), plies_text(m.wdl, m.plies));
    }
    Ok(())
}
