//! `query`.

use super::CliError;
use clap::Args;
use millbase::Rules;
use millbase::Value;
use millbase::format_move;
use millbase::render_position;
use millbase::{Probed, QueryError, TableSet};
use rayon::prelude::*;
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
    /// Rank the moves for practical play: among the moves that keep the
    /// value, those after which most of the opponent's replies go wrong
    /// first (text: the practical choice marked `*`; JSON: a `practical`
    /// field per move).
    #[arg(long)]
    practical: bool,
    /// Read a table pack (`millbase pack`) instead of the tables: win, draw
    /// or loss, the plies where the pack knows them, and the pack player's
    /// move.
    #[arg(long, value_name = "DIR")]
    pack: Option<PathBuf>,
}

fn describe(v: Value) -> String {
    match v {
        Value::Win(d) => format!("win in {d} plies"),
        Value::Loss(d) => format!("loss in {d} plies"),
        Value::Draw => "draw".into(),
    }
}

/// A failed query: bad input exit 2, a missing or damaged table exit 1.
fn query_error(e: QueryError, rules: &Rules) -> CliError {
    match e {
        QueryError::Input(e) => CliError::input(e),
        QueryError::Probe(e) => CliError::probe(e, rules),
    }
}

/// Probes one position given as text.
fn probe(
    tables: &TableSet,
    rules: &Rules,
    text: &str,
    counter: Option<&str>,
) -> Result<Probed, CliError> {
    tables
        .probe_text(text, counter)
        .map_err(|e| query_error(e, rules))
}

/// Most lines of standard input answered together (in parallel, output in
/// input order).
const BATCH_LINES: usize = 8192;

/// A line of standard input: its text, or (not UTF-8) its lossy text.
type InputLine = Result<String, String>;

/// Reads standard input on a thread of its own, line by line, into a
/// channel: the answering loop then takes whatever lines have arrived, so
/// a file or a fast pipe is answered in large parallel batches while a
/// program that writes one line and waits for its answer gets it at once.
fn stdin_lines() -> std::sync::mpsc::Receiver<std::io::Result<InputLine>> {
    let (send, receive) = std::sync::mpsc::sync_channel(2 * BATCH_LINES);
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().split(b'\n') {
            // Lines as bytes: one that is not UTF-8 fails alone, like any
            // bad line.
            let line = line.map(|mut bytes| {
                if bytes.last() == Some(&b'\r') {
                    bytes.pop();
                }
                String::from_utf8(bytes)
                    .map_err(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
            });
            let failed = line.is_err();
            if send.send(line).is_err() || failed {
                break;
            }
        }
    });
    receive
}

/// `millbase query --json -`: one position per line in, one JSON object per
/// line out; a line that fails gives `{"input": ..., "error": ...}` and the
/// exit status of the worst failure. Each batch is written and flushed as
/// soon as it is answered.
fn batch(tables: &TableSet, rules: &Rules) -> Result<(), CliError> {
    let lines = stdin_lines();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut worst: Option<CliError> = None;
    let mut first_line = 1;
    let read_error = |e: std::io::Error| CliError::input(format!("reading standard input: {e}"));
    let write_error = |e: std::io::Error| CliError {
        code: 1,
        message: format!("writing standard output: {e}"),
    };
    // Blocks for the first line of a batch, then takes the lines already
    // read; ends when standard input does.
    while let Ok(first) = lines.recv() {
        let mut chunk: Vec<InputLine> = vec![first.map_err(read_error)?];
        while chunk.len() < BATCH_LINES {
            match lines.try_recv() {
                Ok(line) => chunk.push(line.map_err(read_error)?),
                Err(_) => break,
            }
        }
        let answers: Vec<Option<Result<String, CliError>>> = chunk
            .par_iter()
            .map(|line| match line {
                Err(_) => Some(Err(CliError::input("the line is not UTF-8 text"))),
                Ok(line) if line.trim().is_empty() => None,
                Ok(line) => Some(
                    probe(tables, rules, line, None)
                        .map(|a| serde_json::to_string(&a.to_answer(rules)).expect("serialisable")),
                ),
            })
            .collect();
        for (i, (line, answer)) in chunk.iter().zip(answers).enumerate() {
            let line = match line {
                Ok(text) | Err(text) => text,
            };
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
            writeln!(out, "{text}").map_err(write_error)?;
        }
        out.flush().map_err(write_error)?;
        first_line += chunk.len();
    }
    worst.map_or(Ok(()), Err)
}

/// `millbase query`.
pub fn query(rules: &Rules, args: &QueryArgs) -> Result<(), CliError> {
    if let Some(pack) = &args.pack {
        if args.position == "-" || args.practical || args.counter.is_some() {
            return Err(CliError::input(
                "--pack answers one position, without --practical or --counter",
            ));
        }
        return super::pack_cmds::query_pack(rules, pack, &args.position, args.json);
    }
    super::db_folder(&args.db)?;
    let tables = TableSet::open(&args.db, rules);
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
    let mut a = probe(&tables, rules, &args.position, args.counter.as_deref())?;
    if args.practical {
        tables
            .add_practical(&mut a)
            .map_err(|e| query_error(e, rules))?;
    }
    if args.json {
        let answer = a.to_answer(rules);
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
        if let Some(d) = a.value.rule_draw.map(|d| d.name()) {
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
    if args.practical {
        println!(
            "  practical order (* the practical choice; the opponent's replies that go wrong):"
        );
        for p in &a.practical {
            let mark = if p.rank == Some(1) { "*" } else { " " };
            let standing = match p.rank {
                Some(_) if p.replies > 0 => format!(
                    "{} of {} replies go wrong, weighted {:.1} %",
                    p.errors,
                    p.replies,
                    p.score as f64 / 10.0
                ),
                Some(_) => "the game ends".to_string(),
                None => "gives value away".to_string(),
            };
            println!(
                "{mark} {:<12} {:<18} {standing}",
                format_move(board, &p.mv, input.notation),
                describe(p.value)
            );
        }
        return Ok(());
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
