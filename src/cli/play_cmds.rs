//! `match`.

use super::CliError;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use millbase::PlayerKind;
use millbase::Position;
use millbase::Rules;
use millbase::TableSet;
use millbase::parse_position;
use millbase::{Ending, MatchOptions, play_match};
use std::io::IsTerminal;
use std::path::PathBuf;

/// Arguments of `match`.
#[derive(Args)]
pub struct MatchArgs {
    /// The first player: perfect, practical, alphabeta:NODES (e.g.
    /// alphabeta:200k) or random. The results are given for it.
    #[arg(value_name = "FIRST", value_parser = parse_player)]
    first: PlayerKind,
    /// The second player (the same choices).
    #[arg(value_name = "SECOND", value_parser = parse_player)]
    second: PlayerKind,
    /// Games; the first player has White in the first, third, ... game.
    #[arg(long, default_value_t = 100)]
    games: u32,
    /// Seed of the players' randomness (a match is replayed exactly from it).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Table folder (for perfect and practical players).
    #[arg(long, default_value = "db")]
    db: PathBuf,
    /// A file of start positions, one per line (any position form); each is
    /// played twice in a row, once with each colour. Default: the start.
    #[arg(long, value_name = "FILE")]
    positions: Option<PathBuf>,
    /// Plies after which a game is drawn.
    #[arg(long, default_value_t = 600)]
    max_plies: u32,
    /// Worker threads: games are played in parallel (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

fn parse_player(s: &str) -> Result<PlayerKind, String> {
    s.parse()
}

fn read_starts(file: &PathBuf, rules: &Rules) -> Result<Vec<(Position, u16)>, CliError> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| CliError::input(format!("--positions {}: {e}", file.display())))?;
    let mut starts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let input = parse_position(line, rules).map_err(|e| {
            CliError::input(format!(
                "--positions {} line {}: {e}",
                file.display(),
                i + 1
            ))
        })?;
        starts.push((input.position, input.counter.unwrap_or(0)));
    }
    if starts.is_empty() {
        return Err(CliError::input(format!(
            "--positions {}: no positions in the file",
            file.display()
        )));
    }
    Ok(starts)
}

/// `millbase match`.
pub fn match_cmd(rules: &Rules, args: &MatchArgs) -> Result<(), CliError> {
    super::db_folder(&args.db)?;
    super::use_threads(args.threads)?;
    if args.games == 0 {
        return Err(CliError::input(
            "--games 0: a match needs at least one game",
        ));
    }
    if args.max_plies == 0 {
        return Err(CliError::input(
            "--max-plies 0: a game needs at least one ply",
        ));
    }
    let starts = match &args.positions {
        Some(f) => read_starts(f, rules)?,
        None => Vec::new(),
    };
    let needs_tables = args.first.needs_tables() || args.second.needs_tables();
    let tables = needs_tables.then(|| TableSet::open(&args.db, rules));
    if let Some(t) = &tables {
        // Every start must be in the tables: a missing table is said now,
        // not after games were played.
        let probe = |p: &Position| t.probe(p).map_err(|e| CliError::probe(e, rules));
        match starts.is_empty() {
            true => drop(probe(&Position::start(rules))?),
            false => {
                for (p, _) in &starts {
                    probe(p)?;
                }
            }
        }
    }
    let options = MatchOptions {
        first: args.first.clone(),
        second: args.second.clone(),
        games: args.games,
        seed: args.seed,
        starts,
        max_plies: args.max_plies,
    };
    let bar = ProgressBar::new(args.games as u64);
    if std::io::stderr().is_terminal() {
        bar.set_style(
            ProgressStyle::with_template(
                "{msg} [{bar:30}] {pos}/{len} games, {elapsed} (ETA {eta})",
            )
            .expect("a valid template"),
        );
        bar.set_message(format!("{} vs {}", args.first, args.second));
    } else {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let result = play_match(tables.as_ref(), rules, &options, &|_| bar.inc(1))
        .map_err(|e| CliError::probe(e, rules))?;
    bar.finish_and_clear();
    let (w, d, l) = result.counts();
    let (score, half) = result.score();
    let ending = |e: Ending| result.games.iter().filter(|g| g.ending == e).count();
    let plies: u64 = result.games.iter().map(|g| g.plies as u64).sum();
    let let_go: u32 = result.games.iter().map(|g| g.wins_let_go).sum();
    let lost: u32 = result.games.iter().map(|g| g.draws_lost).sum();
    if args.json {
        let j = serde_json::json!({
            "rules": rules.short_name(),
            "first": args.first.to_string(),
            "second": args.second.to_string(),
            "games": args.games,
            "seed": args.seed,
            "wins": w, "draws": d, "losses": l,
            "score": score, "score_95": half,
            "endings": {
                "no_move": ending(Ending::NoMove), "nmove": ending(Ending::NMove),
                "repetition": ending(Ending::Repetition), "ply_limit": ending(Ending::PlyLimit),
            },
            "plies": plies,
            "table_wins_let_go": let_go,
            "table_holds_lost": lost,
        });
        println!("{j}");
        return Ok(());
    }
    println!(
        "{} vs {} on {}: {} games, colours alternating, seed {}",
        args.first,
        args.second,
        rules.short_name(),
        args.games,
        args.seed
    );
    println!(
        "{}: {w} wins, {d} draws, {l} losses; score {:.1} % ± {:.1} % (95 % confidence)",
        args.first,
        100.0 * score,
        100.0 * half
    );
    println!(
        "endings: {} without a move, {} by the N-move rule, {} by repetition, {} at {} plies; {:.1} plies a game",
        ending(Ending::NoMove),
        ending(Ending::NMove),
        ending(Ending::Repetition),
        ending(Ending::PlyLimit),
        args.max_plies,
        plies as f64 / args.games as f64
    );
    if needs_tables {
        println!(
            "table players: {let_go} won positions not won, {lost} games lost from a position that was not lost"
        );
    }
    Ok(())
}
