//! `verify`: the value of the starting position, from the tables.

use super::CliError;
use clap::Args;
use millbase::Rules;
use millbase::notation::{Notation, format_move};
use millbase::opening::{OpeningSearch, distinct_first_moves};
use millbase::position::Position;
use millbase::query::TableSet;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `verify`.
#[derive(Args)]
pub struct VerifyArgs {
    /// Table folder.
    #[arg(long, default_value = "db")]
    db: PathBuf,
}

/// `millbase verify`.
pub fn verify_cmd(rules: &Rules, args: &VerifyArgs) -> Result<(), CliError> {
    let tables = TableSet::open(&args.db, rules);
    let start_pos = Position::start(rules);
    let board = rules.board();
    println!("rules: {}", rules.canonical());
    println!(
        "method: alpha-beta search over the placing phase, moving-phase tables at the leaves (Gasser)"
    );
    let t = Instant::now();
    let mut search = OpeningSearch::new(&tables);
    let value = search
        .value(&start_pos)
        .map_err(|e| CliError::probe(e, rules))?;
    println!(
        "value of the start for White (to move): {}  ({:.1} s, {} positions searched, {} table probes, {} classes in the transposition table)",
        value.name().to_uppercase(),
        t.elapsed().as_secs_f64(),
        search.nodes,
        search.probes,
        search.table_len()
    );
    println!("first moves (one per symmetry class), value for White:");
    for m in distinct_first_moves(&start_pos, rules) {
        let v = search
            .value(&start_pos.play(&m))
            .map_err(|e| CliError::probe(e, rules))?
            .parent();
        println!(
            "  {:<6} {}",
            format_move(board, &m, Notation::Coords),
            v.name()
        );
    }
    let line = search
        .principal_line(&start_pos)
        .map_err(|e| CliError::probe(e, rules))?;
    let text: Vec<String> = line
        .iter()
        .map(|m| format_move(board, m, Notation::Coords))
        .collect();
    println!("a principal line to the moving phase: {}", text.join(" "));
    println!("method 2 (placing-phase tables): not available yet; this is the search method alone");
    println!("total {:.1} s", t.elapsed().as_secs_f64());
    Ok(())
}
