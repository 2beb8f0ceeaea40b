//! `index-info` and `check-index`.

use super::CliError;
use clap::Args;
use millbase::Rules;
use millbase::{IndexCheck, check_index};
use millbase::{Indexer, Subspace};
use serde::Serialize;

/// Arguments of `index-info`.
#[derive(Args)]
pub struct IndexInfoArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Arguments of `check-index`.
#[derive(Args)]
pub struct CheckIndexArgs {
    /// Subspace, e.g. `4-3` (stones of the side to move, of the other side).
    subspace: String,
}

#[derive(Serialize)]
struct Row {
    subspace: String,
    slots: u64,
    positions: u64,
    density: f64,
}

#[derive(Serialize)]
struct Report {
    rules: String,
    subspaces: Vec<Row>,
    total_slots: u64,
    total_positions: u64,
    density: f64,
    lookup_table_bytes: usize,
}

/// `millbase index-info`.
pub fn index_info(rules: &Rules, args: &IndexInfoArgs) -> Result<(), CliError> {
    let indexer = Indexer::for_board(rules.board());
    let mut rows = Vec::new();
    for us in 3..=rules.max_stones() {
        for them in 3..=rules.max_stones() {
            if us as u32 + them as u32 > rules.board().size as u32 {
                continue;
            }
            let idx = indexer.subspace(us, them);
            let (slots, positions) = (idx.slots(), idx.class_count());
            rows.push(Row {
                subspace: Subspace::moving(us, them).to_string(),
                slots,
                positions,
                density: positions as f64 / slots as f64,
            });
        }
    }
    let total_slots = rows.iter().map(|r| r.slots).sum();
    let total_positions = rows.iter().map(|r| r.positions).sum();
    let report = Report {
        rules: rules.short_name(),
        subspaces: rows,
        total_slots,
        total_positions,
        density: total_positions as f64 / total_slots as f64,
        lookup_table_bytes: indexer.memory_bytes(),
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("serialisable")
        );
        return Ok(());
    }
    println!(
        "{:<9} {:>15} {:>15} {:>8}",
        "subspace", "slots", "positions", "density"
    );
    for r in &report.subspaces {
        println!(
            "{:<9} {:>15} {:>15} {:>8.4}",
            r.subspace, r.slots, r.positions, r.density
        );
    }
    println!(
        "{:<9} {:>15} {:>15} {:>8.4}",
        "total", report.total_slots, report.total_positions, report.density
    );
    println!(
        "lookup tables: {:.1} MB",
        report.lookup_table_bytes as f64 / 1e6
    );
    Ok(())
}

/// `millbase check-index`.
pub fn check_index_cmd(rules: &Rules, args: &CheckIndexArgs) -> Result<(), CliError> {
    let sub: Subspace = args.subspace.parse().map_err(CliError::input)?;
    let n = rules.board().size as u32;
    if sub.us as u32 + sub.them as u32 > n {
        return Err(CliError::input(format!(
            "subspace {sub}: {} stones do not fit on {n} points",
            sub.us + sub.them
        )));
    }
    let indexer = Indexer::for_board(rules.board());
    let idx = indexer.subspace(sub.us, sub.them);
    let start = std::time::Instant::now();
    let IndexCheck {
        slots,
        canonical,
        errors,
    } = check_index(&idx);
    let expected = idx.class_count();
    println!(
        "{sub}: {slots} slots, {canonical} canonical (expected {expected}), {} errors, {:.1} s",
        errors.len(),
        start.elapsed().as_secs_f64()
    );
    for e in errors.iter().take(10) {
        println!("  {e}");
    }
    if !errors.is_empty() || canonical != expected {
        return Err(CliError {
            code: 1,
            message: format!("index check of {sub} failed"),
        });
    }
    println!("ok");
    Ok(())
}
