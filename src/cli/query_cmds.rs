//! `query`.

use super::CliError;
use clap::Args;
use millbase::Rules;
use millbase::notation::{PositionInput, format_move, parse_position};
use millbase::query::{MoveValue, TableSet};
use millbase::render::render_position;
use millbase::solve::value::Value;
use rayon::prelude::*;
use serde::Serialize;
use std::io::{BufRead, Write};
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
    /// The position (board string, move list, Sanmill line), or `-` with
    /// --json to read one position per line from standard input.
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

/// Probes one position: its input, value and move values.
fn probe(
    tables: &TableSet,
    rules: &Rules,
    text: &str,
) -> Result<(PositionInput, Value, Vec<MoveValue>), CliError> {
    let input = parse_position(text, rules).map_err(CliError::input)?;
    let fail = |e| CliError::probe(e, rules);
    let value = tables.probe(&input.position).map_err(fail)?;
    let moves = tables.probe_moves(&input.position).map_err(fail)?;
    Ok((input, value, moves))
}

fn json_answer(
    rules: &Rules,
    input: &PositionInput,
    value: Value,
    moves: &[MoveValue],
) -> JsonAnswer {
    JsonAnswer {
        position: input.position.board_string(rules),
        value: value.name(),
        plies: value.plies(),
        moves: moves
            .iter()
            .map(|m| JsonMove {
                mv: format_move(rules.board(), &m.mv, input.notation),
                value: m.value.name(),
                plies: m.value.plies(),
            })
            .collect(),
    }
}

/// Lines of standard input answered together (in parallel, output in
/// input order).
const BATCH_LINES: usize = 8192;

/// `millbase query --json -`: one position per line in, one JSON object per
/// line out; a line that fails gives `{"input": ..., "error": ...}` and the
/// exit status of the worst failure.
fn batch(tables: &TableSet, rules: &Rules) -> Result<(), CliError> {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut worst: Option<CliError> = None;
    let mut first_line = 1;
    loop {
        let chunk = lines
            .by_ref()
            .take(BATCH_LINES)
            .collect::<Result<Vec<String>, _>>()
            .map_err(|e| CliError::input(format!("reading standard input: {e}")))?;
        if chunk.is_empty() {
            break;
        }
        let answers: Vec<Option<Result<String, CliError>>> = chunk
            .par_iter()
            .map(|line| {
                if line.trim().is_empty() {
                    return None;
                }
                Some(match probe(tables, rules, line) {
                    Ok((input, value, moves)) => Ok(serde_json::to_string(&json_answer(
                        rules, &input, value, &moves,
                    ))
                    .expect("serialisable")),
                    Err(e) => Err(e),
                })
            })
            .collect();
        for (i, (line, answer)) in chunk.iter().zip(answers).enumerate() {
            let text = match answer {
                None => continue,
                Some(Ok(json)) => json,
                Some(Err(e)) => {
                    if worst.as_ref().is_none_or(|w| w.code < e.code) {
                        worst = Some(CliError {
                            code: e.code,
                            message: format!("line {}: {}", first_line + i, e.message),
                        });
                    }
                    serde_json::json!({"input": line, "error": e.message}).to_string()
                }
            };
            writeln!(out, "{text}").map_err(|e| CliError {
                code: 1,
                message: format!("writing standard output: {e}"),
            })?;
        }
        first_line += chunk.len();
    }
    out.flush().map_err(|e| CliError {
        code: 1,
        message: format!("writing standard output: {e}"),
    })?;
    worst.map_or(Ok(()), Err)
}

/// `millbase query`.
pub fn query(rules: &Rules, args: &QueryArgs) -> Result<(), CliError> {
    let tables = TableSet::open(&args.db, rules);
    if args.position == "-" {
        if !args.json {
            return Err(CliError::input(
                "`query -` (positions on standard input) needs --json",
            ));
        }
        return batch(&tables, rules);
    }
    let (input, value, moves) = probe(&tables, rules, &args.position)?;
    if args.json {
        let answer = json_answer(rules, &input, value, &moves);
        println!("{}", serde_json::to_string(&answer).expect("serialisable"));
        return Ok(());
    }
    let board = rules.board();
    print!("{}", render_position(board, &input.position));
    println!();
    println!(
        "{} to move: {}",
        input.position.to_move.name(),
        describe(value)
    );
    for m in &moves {
        println!(
            "  {:<12} {}",
            format_move(board, &m.mv, input.notation),
            describe(m.value)
        );
    }
    Ok(())
}
