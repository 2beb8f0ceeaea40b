//! `query`.

use super::CliError;
use clap::Args;
use millbase::Rules;
use millbase::notation::{PositionInput, format_move, parse_counter, parse_position};
use millbase::query::{CounterValue, MoveValue, TableSet};
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
    /// The N-move counter (plies since the last mill), for rules with
    /// nmove=N; a board string may give it as a fifth field instead.
    #[arg(long, value_name = "C", allow_hyphen_values = true)]
    counter: Option<String>,
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
    /// N-move rule only: the counter, `Z`, what a draw hides, the pure value.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    nmove: Option<JsonRule>,
    moves: Vec<JsonMove>,
}

#[derive(Serialize)]
struct JsonRule {
    counter: u16,
    z: Option<u32>,
    rule_draw: Option<&'static str>,
    pure: Option<JsonPure>,
}

#[derive(Serialize)]
struct JsonPure {
    value: &'static str,
    plies: Option<u32>,
}

/// What a probe found.
struct Answer {
    input: PositionInput,
    counter: u16,
    value: CounterValue,
    pure: Option<Value>,
    moves: Vec<MoveValue>,
}

fn rule_draw_name(d: Option<bool>) -> Option<&'static str> {
    d.map(|w| if w { "cursed win" } else { "blessed loss" })
}

fn describe(v: Value) -> String {
    match v {
        Value::Win(d) => format!("win in {d} plies"),
        Value::Loss(d) => format!("loss in {d} plies"),
        Value::Draw => "draw".into(),
    }
}

/// The tables of a query: the rule set's and, under the N-move rule, the
/// pure game's (for the pure value, when they are built).
struct Tables {
    rules: TableSet,
    pure: Option<TableSet>,
}

/// Probes one position: its input, value and move values.
fn probe(
    tables: &Tables,
    rules: &Rules,
    text: &str,
    counter: Option<&str>,
) -> Result<Answer, CliError> {
    let mut input = parse_position(text, rules).map_err(CliError::input)?;
    if let Some(c) = counter {
        input.counter = Some(parse_counter(c, &input.position, rules).map_err(CliError::input)?);
    }
    let counter = input.counter.unwrap_or(0);
    let fail = |e| CliError::probe(e, rules);
    let value = tables
        .rules
        .probe_at(&input.position, counter)
        .map_err(fail)?;
    let moves = tables
        .rules
        .probe_moves_at(&input.position, counter)
        .map_err(fail)?;
    let pure = tables
        .pure
        .as_ref()
        .and_then(|t| t.probe(&input.position).ok());
    Ok(Answer {
        input,
        counter,
        value,
        pure,
        moves,
    })
}

fn json_answer(rules: &Rules, a: &Answer) -> JsonAnswer {
    let (input, value, moves) = (&a.input, a.value.value, &a.moves);
    JsonAnswer {
        position: input.position.board_string(rules),
        value: value.name(),
        plies: value.plies(),
        nmove: rules.nmove.map(|_| JsonRule {
            counter: a.counter,
            z: a.value.z,
            rule_draw: rule_draw_name(a.value.rule_draw),
            pure: a.pure.map(|p| JsonPure {
                value: p.name(),
                plies: p.plies(),
            }),
        }),
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
fn batch(tables: &Tables, rules: &Rules) -> Result<(), CliError> {
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
        let answers: Vec<Option<Result<String, CliError>>> =
            chunk
                .par_iter()
                .map(|line| {
                    if line.trim().is_empty() {
                        return None;
                    }
                    Some(probe(tables, rules, line, None).map(|a| {
                        serde_json::to_string(&json_answer(rules, &a)).expect("serialisable")
                    }))
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
    let tables = Tables {
        rules: TableSet::open(&args.db, rules),
        pure: rules.nmove.map(|_| TableSet::open(&args.db, &rules.pure())),
    };
    if args.position == "-" {
        if !args.json {
            return Err(CliError::input(
                "`query -` (positions on standard input) needs --json",
            ));
        }
        if args.counter.is_some() {
            return Err(CliError::input(
                "`query -` reads the counter from each line (a fifth field), not --counter",
            ));
        }
        return batch(&tables, rules);
    }
    let a = probe(&tables, rules, &args.position, args.counter.as_deref())?;
    if args.json {
        let answer = json_answer(rules, &a);
        println!("{}", serde_json::to_string(&answer).expect("serialisable"));
        return Ok(());
    }
    let board = rules.board();
    let (input, moves) = (&a.input, &a.moves);
    print!("{}", render_position(board, &input.position));
    println!();
    println!(
        "{} to move: {}",
        input.position.to_move.name(),
        describe(a.value.value)
    );
    if let Some(n) = rules.nmove {
        let mut line = format!("  N-move rule: counter {} of {n}", a.counter);
        if let Some(d) = rule_draw_name(a.value.rule_draw) {
            line.push_str(&format!("; the draw is a {d}"));
        }
        match a.value.z {
            Some(z) if z <= n as u32 => line.push_str(&format!("; Z = {z}")),
            Some(_) => line.push_str(&format!("; Z > {n}")),
            None => {}
        }
        match a.pure {
            Some(p) => line.push_str(&format!("; pure game: {}", describe(p))),
            None => line.push_str("; pure game: tables not built"),
        }
        println!("{line}");
    }
    for m in moves {
        println!(
            "  {:<12} {}",
            format_move(board, &m.mv, input.notation),
            describe(m.value)
        );
    }
    Ok(())
}
