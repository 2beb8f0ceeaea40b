//! `verify`: the value of the starting position, by two independent methods.

use super::CliError;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use millbase::Rules;
use millbase::moves::Move;
use millbase::notation::{Notation, format_move};
use millbase::opening::{OpeningSearch, distinct_first_moves, table_line};
use millbase::position::Position;
use millbase::query::{ProbeError, TableSet};
use millbase::solve::value::Value;
use millbase::table::{TableError, Wdl};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

/// Which methods `verify` runs.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Method {
    /// Both, and they must agree.
    Both,
    /// The placing-phase tables only.
    Tables,
    /// The alpha-beta search over the placing phase only.
    Search,
}

/// Arguments of `verify`.
#[derive(Args)]
pub struct VerifyArgs {
    /// Table folder.
    #[arg(long, default_value = "db")]
    db: PathBuf,
    /// Which methods to run.
    #[arg(long, value_enum, default_value_t = Method::Both)]
    method: Method,
    /// Do not let the placing-phase tables order the search's moves.
    #[arg(long)]
    no_hints: bool,
    /// Search threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

fn wdl(v: Value) -> Wdl {
    match v {
        Value::Win(_) => Wdl::Win,
        Value::Draw => Wdl::Draw,
        Value::Loss(_) => Wdl::Loss,
    }
}

fn show_value(v: Value) -> String {
    match v.plies() {
        Some(p) => format!("{} in {p} plies", v.name()),
        None => v.name().to_string(),
    }
}

fn line_text(rules: &Rules, line: &[Move]) -> String {
    line.iter()
        .map(|m| format_move(rules.board(), m, Notation::Coords))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What one method found: the start's value and each first move's value
/// for White, all as win/draw/loss.
struct Outcome {
    start: Wdl,
    first_moves: Vec<(Move, Wdl)>,
}

/// Method 1: read everything from the placing-phase tables. `None` when
/// they are not built.
fn by_tables(
    tables: &TableSet,
    rules: &Rules,
    first: &[Move],
) -> Result<Option<Outcome>, CliError> {
    let start_pos = Position::start(rules);
    println!("method 1: the placing-phase tables");
    let t = Instant::now();
    let value = match tables.probe(&start_pos) {
        Ok(v) => v,
        Err(ProbeError::Table(TableError::Missing(p))) => {
            println!(
                "  not available: {} is missing (build the placing phase with `millbase build --rules {}`)",
                p.display(),
                rules.short_name()
            );
            return Ok(None);
        }
        Err(e) => return Err(CliError::probe(e, rules)),
    };
    println!(
        "  value of the start for White (to move): {}",
        show_value(value).to_uppercase()
    );
    println!("  first moves (one per symmetry class), value for White:");
    let mut first_moves = Vec::new();
    for m in first {
        let v = tables
            .probe(&start_pos.play(m))
            .map_err(|e| CliError::probe(e, rules))?
            .parent();
        println!(
            "    {:<6} {}",
            format_move(rules.board(), m, Notation::Coords),
            show_value(v)
        );
        first_moves.push((*m, wdl(v)));
    }
    let line = table_line(tables, &start_pos).map_err(|e| CliError::probe(e, rules))?;
    let moves: Vec<Move> = line.iter().map(|m| m.mv).collect();
    println!(
        "  a principal line to the moving phase: {}",
        line_text(rules, &moves)
    );
    println!("  time: {:.3} s", t.elapsed().as_secs_f64());
    Ok(Some(Outcome {
        start: wdl(value),
        first_moves,
    }))
}

/// Seconds between the progress lines a search writes to a log (stderr
/// not a terminal).
const LOG_EVERY: u64 = 60;

/// Runs `work` with a spinner on a terminal that shows how many positions
/// the search has visited (the 9-stone search takes minutes); when stderr
/// is a log instead, a line every [`LOG_EVERY`] seconds says the same.
fn with_spinner<T>(search: &OpeningSearch, what: &str, work: impl FnOnce() -> T) -> T {
    let terminal = std::io::stderr().is_terminal();
    let target = if terminal {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let started = Instant::now();
    let bar = ProgressBar::with_draw_target(None, target);
    bar.set_style(ProgressStyle::with_template("  {spinner} {elapsed} {msg}").expect("template"));
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    let out = std::thread::scope(|scope| {
        let bar = &bar;
        scope.spawn(move || {
            // Wakes every 200 ms, and at once when `stop` is dropped.
            let mut logged = 0;
            while let Err(RecvTimeoutError::Timeout) =
                stopped.recv_timeout(Duration::from_millis(200))
            {
                bar.set_message(format!("{what}: {} positions searched", search.nodes()));
                bar.tick();
                let secs = started.elapsed().as_secs();
                if !terminal && secs >= logged + LOG_EVERY {
                    logged = secs;
                    eprintln!(
                        "  {secs} s, {what}: {} positions searched, {} table probes",
                        search.nodes(),
                        search.probes()
                    );
                }
            }
        });
        let out = work();
        drop(stop);
        out
    });
    bar.finish_and_clear();
    out
}

/// Method 2: Gasser's alpha-beta search over the placing phase, reading
/// only the moving-phase tables at its leaves (under Lasker rules a
/// repetition on the path is a draw).
fn by_search(
    tables: &TableSet,
    rules: &Rules,
    first: &[Move],
    hints: bool,
) -> Result<Outcome, CliError> {
    let start_pos = Position::start(rules);
    if rules.lasker {
        println!(
            "method 2: alpha-beta search over the placing phase, moving-phase tables at the leaves; \
             its cycles (Lasker rules): a position repeated on the path is a draw"
        );
    } else {
        println!(
            "method 2: alpha-beta search over the placing phase, moving-phase tables at the leaves (Gasser)"
        );
    }
    let hints = hints && tables.probe_wdl(&start_pos).is_ok();
    println!(
        "  move order: {}",
        if hints {
            "a move the placing-phase tables say cuts, first (ordering only: values come from the search)"
        } else {
            "mills closed, then mills blocked, then twos made"
        }
    );
    let t = Instant::now();
    let mut search = OpeningSearch::new(tables);
    if hints {
        search = search.with_hints();
    }
    let value = with_spinner(&search, "value of the start", || search.value(&start_pos))
        .map_err(|e| CliError::probe(e, rules))?;
    if rules.lasker {
        println!(
            "  value of the start for White (to move): {}  ({} positions searched, {} moving-phase table probes, {} classes in the transposition table, longest path {} plies)",
            value.name().to_uppercase(),
            search.nodes(),
            search.probes(),
            search.table_len(),
            search.longest_path(),
        );
    } else {
        println!(
            "  value of the start for White (to move): {}  ({} positions searched, {} moving-phase table probes, {} classes in the transposition table, {} ordering probes)",
            value.name().to_uppercase(),
            search.nodes(),
            search.probes(),
            search.table_len(),
            search.hint_probes()
        );
    }

    println!("  first moves (one per symmetry class), value for White:");
    let mut first_moves = Vec::new();
    for m in first {
        let what = format!(
            "value of {}",
            format_move(rules.board(), m, Notation::Coords)
        );
        let v = with_spinner(&search, &what, || search.value(&start_pos.play(m)))
            .map_err(|e| CliError::probe(e, rules))?
            .parent();
        println!(
            "    {:<6} {}",
            format_move(rules.board(), m, Notation::Coords),
            v.name()
        );
        first_moves.push((*m, v));
    }
    let line = with_spinner(&search, "principal line", || {
        search.principal_line(&start_pos)
    })
    .map_err(|e| CliError::probe(e, rules))?;
    println!(
        "  a principal line to the moving phase: {}",
        line_text(rules, &line)
    );
    println!("  time: {:.3} s", t.elapsed().as_secs_f64());
    Ok(Outcome {
        start: value,
        first_moves,
    })
}

/// `millbase verify`.
pub fn verify_cmd(rules: &Rules, args: &VerifyArgs) -> Result<(), CliError> {
    super::use_threads(args.threads)?;
    // Searches read many scattered blocks again and again: keep up to
    // 1 GiB of decompressed win/draw/loss blocks.
    let tables = TableSet::with_cache(&args.db, rules, 1 << 18);
    let first = distinct_first_moves(&Position::start(rules), rules);
    println!("rules: {}", rules.canonical());
    let t = Instant::now();
    let one = if args.method == Method::Search {
        None
    } else {
        by_tables(&tables, rules, &first)?
    };
    let two = if args.method == Method::Tables {
        None
    } else {
        Some(by_search(&tables, rules, &first, !args.no_hints)?)
    };
    let verdict = |w: Wdl| match w {
        Wdl::Win => "a win for White",
        Wdl::Draw => "a draw",
        Wdl::Loss => "a win for Black",
    };
    match (one, two) {
        (Some(a), Some(b)) => {
            let differ: Vec<String> = a
                .first_moves
                .iter()
                .zip(&b.first_moves)
                .filter(|(x, y)| x.1 != y.1)
                .map(|(x, y)| {
                    format!(
                        "{}: tables {}, search {}",
                        format_move(rules.board(), &x.0, Notation::Coords),
                        x.1.name(),
                        y.1.name()
                    )
                })
                .collect();
            if a.start != b.start || !differ.is_empty() {
                return Err(CliError {
                    code: 1,
                    message: format!(
                        "the two methods disagree: start {} by the tables, {} by the search; {}",
                        a.start.name(),
                        b.start.name(),
                        differ.join("; ")
                    ),
                });
            }
            println!(
                "both methods agree: the game is {} (start and every first move)",
                verdict(a.start)
            );
        }
        (Some(a), None) => {
            println!(
                "the game is {} (by the tables alone, as asked)",
                verdict(a.start)
            );
        }
        (None, Some(b)) if args.method == Method::Search => {
            println!(
                "the game is {} (by the search alone, as asked)",
                verdict(b.start)
            );
        }
        (None, Some(b)) => {
            println!(
                "the game is {} by the search alone: the tables' method was not available",
                verdict(b.start)
            );
        }
        (None, None) => {
            return Err(CliError {
                code: 1,
                message: format!(
                    "no placing-phase tables for rules {} in {}: build them with `millbase build --rules {}`",
                    rules.short_name(),
                    args.db.display(),
                    rules.short_name()
                ),
            });
        }
    }
    println!("total {:.1} s", t.elapsed().as_secs_f64());
    Ok(())
}
