//! `verify`: the value of the starting position, by two independent methods.

use super::CliError;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use millbase::Move;
use millbase::Rules;
use millbase::TableSet;
use millbase::Value;
use millbase::Wdl;
use millbase::{
    Method, OpeningSearch, SearchOutcome, TablesOutcome, VerifyError, VerifyProgress, verify,
};
use millbase::{Notation, format_move};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

/// Which methods `verify` runs.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
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
    #[arg(long, value_enum, default_value_t = MethodArg::Both)]
    method: MethodArg,
    /// Do not let the placing-phase tables order the search's moves.
    #[arg(long)]
    no_hints: bool,
    /// Search threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Verify a table pack (`millbase pack`) instead: the start's value and
    /// every first move's from the pack, and the pack player's line from the
    /// start with every position on it checked against its moves.
    #[arg(long, value_name = "DIR")]
    pack: Option<PathBuf>,
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

/// Seconds between the progress lines a search writes to a log (stderr
/// not a terminal).
const LOG_EVERY: u64 = 60;

/// Runs `work` with a spinner on a terminal that shows how many positions
/// the search has visited (the 9-stone search takes minutes); when stderr
/// is a log instead, a line every [`LOG_EVERY`] seconds says the same.
fn with_spinner(search: &OpeningSearch, what: &str, work: &mut dyn FnMut()) {
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
    std::thread::scope(|scope| {
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
        work();
        drop(stop);
    });
    bar.finish_and_clear();
}

/// Prints each method's findings as it ends, with a spinner (or a log
/// line a minute) while the search runs.
struct Printer<'a> {
    rules: &'a Rules,
}

impl VerifyProgress for Printer<'_> {
    fn tables_done(&self, outcome: Option<&TablesOutcome>) {
        let rules = self.rules;
        println!("method 1: the placing-phase tables");
        let Some(o) = outcome else {
            println!(
                "  not available: the placing-phase tables are missing (build them with \
                 `millbase build --rules {}`)",
                rules.short_name()
            );
            return;
        };
        println!(
            "  value of the start for White (to move): {}",
            show_value(o.start).to_uppercase()
        );
        println!("  first moves (one per symmetry class), value for White:");
        for (m, v) in &o.first_moves {
            println!(
                "    {:<6} {}",
                format_move(rules.board(), m, Notation::Coords),
                show_value(*v)
            );
        }
        println!(
            "  a principal line to the moving phase: {}",
            line_text(rules, &o.line)
        );
        println!("  time: {:.3} s", o.seconds);
    }

    fn search_started(&self, hints: bool) {
        if self.rules.lasker {
            println!(
                "method 2: alpha-beta search over the placing phase, moving-phase tables at the \
                 leaves; its cycles (Lasker rules): a position repeated on the path is a draw"
            );
        } else {
            println!(
                "method 2: alpha-beta search over the placing phase, moving-phase tables at the \
                 leaves (Gasser)"
            );
        }
        println!(
            "  move order: {}",
            if hints {
                "a move the placing-phase tables say cuts, first (ordering only: values come \
                 from the search)"
            } else {
                "mills closed, then mills blocked, then twos made"
            }
        );
    }

    fn around(&self, what: &str, search: &OpeningSearch<'_>, work: &mut dyn FnMut()) {
        with_spinner(search, what, work)
    }

    fn search_done(&self, o: &SearchOutcome) {
        let rules = self.rules;
        let counts = if rules.lasker {
            format!(
                "{} positions searched, {} moving-phase table probes, {} classes in the \
                 transposition table, longest path {} plies",
                o.nodes, o.probes, o.classes, o.longest_path
            )
        } else {
            format!(
                "{} positions searched, {} moving-phase table probes, {} classes in the \
                 transposition table, {} ordering probes",
                o.nodes, o.probes, o.classes, o.hint_probes
            )
        };
        println!(
            "  value of the start for White (to move): {}  ({counts})",
            o.start.name().to_uppercase()
        );
        println!("  first moves (one per symmetry class), value for White:");
        for (m, v) in &o.first_moves {
            println!(
                "    {:<6} {}",
                format_move(rules.board(), m, Notation::Coords),
                v.name()
            );
        }
        println!(
            "  a principal line to the moving phase: {}",
            line_text(rules, &o.line)
        );
        println!("  time: {:.3} s", o.seconds);
    }
}

/// `millbase verify`.
pub fn verify_cmd(rules: &Rules, args: &VerifyArgs) -> Result<(), CliError> {
    if let Some(pack) = &args.pack {
        return super::pack_cmds::verify_pack_cmd(rules, pack);
    }
    super::db_folder(&args.db)?;
    super::use_threads(args.threads)?;
    // Searches read many scattered blocks again and again: keep up to
    // 1 GiB of decompressed win/draw/loss blocks.
    let tables = TableSet::with_cache(&args.db, rules, 1 << 18);
    println!("rules: {}", rules.canonical());
    let t = Instant::now();
    let method = match args.method {
        MethodArg::Both => Method::Both,
        MethodArg::Tables => Method::Tables,
        MethodArg::Search => Method::Search,
    };
    let found = verify(&tables, method, !args.no_hints, &Printer { rules });
    let verdict = |w: Wdl| match w {
        Wdl::Win => "a win for White",
        Wdl::Draw => "a draw",
        Wdl::Loss => "a win for Black",
    };
    match found {
        Ok(v) => match (&v.tables, &v.search) {
            (Some(_), Some(_)) => println!(
                "both methods agree: the game is {} (start and every first move)",
                verdict(v.verdict)
            ),
            (Some(_), None) => println!(
                "the game is {} (by the tables alone, as asked)",
                verdict(v.verdict)
            ),
            (None, Some(_)) if method == Method::Search => println!(
                "the game is {} (by the search alone, as asked)",
                verdict(v.verdict)
            ),
            _ => println!(
                "the game is {} by the search alone: the tables' method was not available",
                verdict(v.verdict)
            ),
        },
        Err(VerifyError::Probe(e)) => return Err(CliError::probe(e, rules)),
        Err(VerifyError::NoPlacingTables) => {
            return Err(CliError {
                code: 1,
                message: format!(
                    "no placing-phase tables for rules {} in {}: build them with `millbase build \
                     --rules {}`",
                    rules.short_name(),
                    args.db.display(),
                    rules.short_name()
                ),
            });
        }
        Err(VerifyError::Disagree { start, first_moves }) => {
            let differ: Vec<String> = first_moves
                .iter()
                .map(|(m, a, b)| {
                    format!(
                        "{}: tables {}, search {}",
                        format_move(rules.board(), m, Notation::Coords),
                        a.name(),
                        b.name()
                    )
                })
                .collect();
            return Err(CliError {
                code: 1,
                message: format!(
                    "the two methods disagree: start {} by the tables, {} by the search; {}",
                    start.0.name(),
                    start.1.name(),
                    differ.join("; ")
                ),
            });
        }
    }
    println!("total {:.1} s", t.elapsed().as_secs_f64());
    Ok(())
}
