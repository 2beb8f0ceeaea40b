//! `query`.

use super::CliError;
use clap::Args;
use millbase::Rules;
use millbase::notation::{format_move, parse_position};
use millbase::query::{ProbeError, TableSet};
use millbase::render::render_position;
use millbase::solve::value::Value;
use serde::Serialize;
use std::path::PathBuf;

/// Arguments of `query`.
#[derive(Args)]
pub struct QueryArgs {
    /// Table folder.
    #[arg(long, default_value = "db")]
    db: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// The position (board string, move list, Sanmill line).
    #[arg(value_name = "POSITION", allow_hyphen_values = true)]
    position: String,
}

#[derive(Serialize)]
struct JsonMove {
    #[serde(rename = "move")]
    mv: String,
    value: &'static str,
    plies: Option<u32>,
}

#[derive(Serialize)]
struct JsonAnswer {
    position: String,
    value: &'static str,
    plies: Option<u32>,
    moves: Vec<JsonMove>,
}

fn describe(v: Value) -> String {
    match v {
        Value::Win(d) => format!("win in {d} plies"),
        Value::Loss(d) => format!("loss in {d} plies"),
        Value::Draw => "draw".into(),
    }
}

/// `millbase query`.
pub fn query(rules: &Rules, args: &QueryArgs) -> Result<(), CliError> {
    let input = parse_position(&args.position, rules).map_err(CliError::input)?;
    let pos = input.position;
    let tables = TableSet::open(&args.db, rules);
    let fail = |e: ProbeError| match e {
        ProbeError::NotCovered(s) => CliError::input(s),
        ProbeError::Table(t) => CliError {
            code: 1,
            message: format!(
                "{t} (make it with `millbase build --rules {}`)",
                rules.short_name()
            ),
        },
    };
    let value = tables.probe(&pos).map_err(fail)?;
    let moves = tables.probe_moves(&pos).map_err(fail)?;
    let board = rules.board();
    if args.json {
        let answer = JsonAnswer {
            position: pos.board_string(rules),
            value: value.name(),
            plies: value.plies(),
            moves: moves
                .iter()
                .map(|m| JsonMove {
                    mv: format_move(board, &m.mv, input.notation),
                    value: m.value.name(),
                    plies: m.value.plies(),
                })
                .collect(),
        };
        println!("{}", serde_json::to_string(&answer).expect("serialisable"));
        return Ok(());
    }
    print!("{}", render_position(board, &pos));
    println!();
    println!("{} to move: {}", pos.to_move.name(), describe(value));
    for m in &moves {
        println!(
            "  {:<12} {}",
            format_move(board, &m.mv, input.notation),
            describe(m.value)
        );
    }
    Ok(())
}
