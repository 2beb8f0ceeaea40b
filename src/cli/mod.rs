//! Command-line interface: one argument struct and one module per
//! subcommand. Exit status: 0 success, 2 bad input, 1 any other failure.

mod build_cmds;
mod engine_cmds;
mod index_cmds;
mod machine_cmds;
mod pack_cmds;
mod play_cmds;
mod position_cmds;
mod query_cmds;
mod serve_cmds;
mod table_cmds;
mod verify_cmds;

use clap::{Parser, Subcommand};
use millbase::Rules;
use std::fmt;

/// Solves mill games (Nine Men's Morris and variants) by retrograde analysis.
#[derive(Parser)]
#[command(name = "millbase", version, about)]
pub struct Cli {
    /// Rule set: a preset (`standard`, `lasker`, `twelve`, `six`, `three`)
    /// optionally followed by comma-separated overrides, e.g.
    /// `standard,flying=off`, `standard,stones=5/3`, `standard,nmove=50`.
    /// Options: board=standard|diagonals|six|three, stones=N|W/B (3..12),
    /// flying=3|4|off, protection=standard|none|strict, removals=1|2,
    /// double-mill=one|per-mill, lasker=on|off, full-board=loss|draw,
    /// mill=removes|wins, nmove=off|N (plies without a mill, 1..1000).
    /// [default: standard]; `info`, `serve` and `bench-machine` take none.
    #[arg(long, global = true, value_name = "SPEC")]
    pub rules: Option<String>,

    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Show a position: board, side to move, stones in hand, phases, legal moves.
    Show(position_cmds::ShowArgs),
    /// List the legal moves of a position, one per line.
    Moves(position_cmds::MovesArgs),
    /// Count move sequences of a given length (the count is the last line).
    Perft(position_cmds::PerftArgs),
    /// Build the tables of a rule set: the moving phase, then the placing
    /// phase (resumable).
    Build(build_cmds::BuildArgs),
    /// The value of a position and of each of its moves, from the tables.
    Query(query_cmds::QueryArgs),
    /// Write a table pack from built tables: every position's win, draw or
    /// loss and what a player needs to convert every win, small enough to
    /// ship in an app (docs/FORMAT.md).
    Pack(pack_cmds::PackArgs),
    /// Per-subspace counts of wins, draws and losses of the built tables.
    Stats(build_cmds::StatsArgs),
    /// Verify tables: every checksum, and every slot against its children
    /// by forward move generation (independent of the solver).
    Check(table_cmds::CheckArgs),
    /// The tables present under a folder: rule set, sizes, checksums.
    Info(table_cmds::InfoArgs),
    /// The value of the starting position by two methods (the placing-phase
    /// tables; alpha-beta over the placing phase on the moving-phase tables),
    /// first moves, a principal line; exit 1 if they disagree.
    Verify(verify_cmds::VerifyArgs),
    /// Play games between two players (perfect, practical, alphabeta:NODES,
    /// random) and give the first player's wins, draws, losses and score.
    Match(play_cmds::MatchArgs),
    /// Play as an engine over standard input and output in Sanmill's
    /// UCI-like protocol (docs/ENGINE.md); --rules sets the rule set to
    /// start with.
    Uci(engine_cmds::UciArgs),
    /// Serve the tables over HTTP: a JSON API and a web board (every rule
    /// set found under --db).
    Serve(serve_cmds::ServeArgs),
    /// One row per moving-phase subspace: slots, positions (symmetry classes), density.
    IndexInfo(index_cmds::IndexInfoArgs),
    /// Exhaustive round trip of a subspace's index over every slot.
    CheckIndex(index_cmds::CheckIndexArgs),
    /// This machine's random 1-byte read-modify-write rate over 1 GiB with
    /// all threads, with its processor and caches (the figure build rates
    /// are compared with; it is the last line).
    BenchMachine(machine_cmds::BenchMachineArgs),
}

/// A failure with its exit status.
pub struct CliError {
    /// Exit status.
    pub code: i32,
    /// Message for stderr.
    pub message: String,
}

/// The most worker threads `--threads` takes: far more than any machine
/// this runs on has cores, few enough that making them is quick.
const MAX_THREADS: usize = 1024;

/// Sizes rayon's thread pool (`--threads`); all cores when `None`.
pub fn use_threads(threads: Option<usize>) -> Result<(), CliError> {
    if let Some(n) = threads {
        if n == 0 || n > MAX_THREADS {
            return Err(CliError::input(format!(
                "--threads {n}: expected 1 to {MAX_THREADS}"
            )));
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| CliError::input(format!("--threads {n}: {e}")))?;
    }
    Ok(())
}

impl CliError {
    /// A failed probe: a position no table covers is bad input (exit 2), a
    /// missing or damaged table exit 1.
    pub fn probe(e: millbase::ProbeError, rules: &Rules) -> CliError {
        match e {
            millbase::ProbeError::Table(t) => CliError::table(&t, rules),
            e => CliError::input(e),
        }
    }

    /// A missing or damaged table: exit status 1, with the command that
    /// makes (or remakes) it.
    pub fn table(e: &millbase::TableError, rules: &Rules) -> CliError {
        CliError {
            code: 1,
            message: e.with_remedy(rules),
        }
    }

    /// Bad user input: exit status 2.
    pub fn input(e: impl fmt::Display) -> CliError {
        CliError {
            code: 2,
            message: e.to_string(),
        }
    }
}

/// Refuses a `--db` that names something other than a folder (a missing
/// one is for the command to report or make).
pub fn db_folder(db: &std::path::Path) -> Result<(), CliError> {
    match std::fs::metadata(db) {
        Ok(m) if !m.is_dir() => Err(CliError::input(format!(
            "--db {}: that is a file, not a folder; give the folder that holds \
             (or is to hold) the tables",
            db.display()
        ))),
        _ => Ok(()),
    }
}

/// Parses the command line, runs it, and returns the exit status.
pub fn run() -> i32 {
    let cli = Cli::parse();
    // Each open table holds a file descriptor; `verify` and `serve` open
    // hundreds.
    millbase::raise_open_file_limit();
    let ignored = match &cli.command {
        Command::Info(_) => Some("info reads every rule set in the folder"),
        Command::Serve(_) => Some("serve serves every rule set in the folder"),
        Command::BenchMachine(_) => Some("bench-machine measures the machine alone"),
        _ => None,
    };
    if let (Some(why), Some(_)) = (ignored, &cli.rules) {
        eprintln!("millbase: --rules means nothing here: {why}");
        return 2;
    }
    let result = cli
        .rules
        .as_deref()
        .unwrap_or("standard")
        .parse::<Rules>()
        .map_err(CliError::input)
        .and_then(|rules| match &cli.command {
            Command::Show(a) => position_cmds::show(&rules, a),
            Command::Moves(a) => position_cmds::moves(&rules, a),
            Command::Perft(a) => position_cmds::perft(&rules, a),
            Command::Build(a) => build_cmds::build_cmd(&rules, a),
            Command::Query(a) => query_cmds::query(&rules, a),
            Command::Pack(a) => pack_cmds::pack_cmd(&rules, a),
            Command::Stats(a) => build_cmds::stats_cmd(&rules, a),
            Command::Check(a) => table_cmds::check_cmd(&rules, a),
            Command::Info(a) => table_cmds::info_cmd(&rules, a),
            Command::Verify(a) => verify_cmds::verify_cmd(&rules, a),
            Command::Serve(a) => serve_cmds::serve_cmd(&rules, a),
            Command::Uci(a) => engine_cmds::uci_cmd(&rules, a),
            Command::Match(a) => play_cmds::match_cmd(&rules, a),
            Command::IndexInfo(a) => index_cmds::index_info(&rules, a),
            Command::CheckIndex(a) => index_cmds::check_index_cmd(&rules, a),
            Command::BenchMachine(a) => machine_cmds::bench_machine(a),
        });
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("millbase: {}", e.message);
            e.code
        }
    }
}
