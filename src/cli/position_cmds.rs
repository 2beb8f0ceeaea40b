//! `show`, `moves` and `perft`.

use super::CliError;
use clap::{Args, ValueEnum};
use millbase::Rules;
use millbase::render_position;
use millbase::{Color, Position};
use millbase::{Notation, PositionInput, format_move, parse_position};
use millbase::{legal_moves, perft as count_perft, perft_divide};
use std::time::Instant;

/// Notation choice on the command line.
#[derive(Clone, Copy, ValueEnum)]
pub enum NotationArg {
    /// Coordinates (`d7-d6xd2`).
    Coords,
    /// Point numbers (`1-9x13`).
    Points,
}

/// Position argument shared by the position commands.
#[derive(Args)]
pub struct PositionArg {
    /// The position: a board string (`......../......../........ w 9 9`),
    /// a move list from the start (`d7 g7 d1`, `-1 -2 -5`), a Sanmill line,
    /// or `start`.
    #[arg(
        default_value = "start",
        value_name = "POSITION",
        allow_hyphen_values = true
    )]
    pub position: String,

    /// Notation for printed moves (default: the one the position was written in).
    #[arg(long, value_enum)]
    pub notation: Option<NotationArg>,
}

impl PositionArg {
    fn read(&self, rules: &Rules) -> Result<(PositionInput, Notation), CliError> {
        let input = parse_position(&self.position, rules).map_err(CliError::input)?;
        let notation = match self.notation {
            Some(NotationArg::Coords) => Notation::Coords,
            Some(NotationArg::Points) => Notation::Points,
            None => input.notation,
        };
        Ok((input, notation))
    }
}

/// Arguments of `show`.
#[derive(Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pos: PositionArg,
}

/// Arguments of `moves`.
#[derive(Args)]
pub struct MovesArgs {
    #[command(flatten)]
    pos: PositionArg,
}

/// Arguments of `perft`.
#[derive(Args)]
pub struct PerftArgs {
    /// Length of the move sequences (at most 1000: the count grows about
    /// tenfold a ply, so depths beyond 15 or so never finish anyway).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=1000))]
    depth: u32,
    /// Print the count below each first move.
    #[arg(long)]
    divide: bool,
    #[command(flatten)]
    pos: PositionArg,
}

fn phase(pos: &Position, rules: &Rules, c: Color) -> &'static str {
    if pos.total(c) < 3 {
        "lost (fewer than 3 stones)"
    } else if pos.hand[c] > 0 {
        if rules.lasker {
            "placing (or sliding)"
        } else {
            "placing"
        }
    } else if rules.flies(pos.stones[c].len()) {
        "flying"
    } else {
        "sliding"
    }
}

/// `millbase show`.
pub fn show(rules: &Rules, args: &ShowArgs) -> Result<(), CliError> {
    let (input, notation) = args.pos.read(rules)?;
    let pos = input.position;
    let board = rules.board();
    print!("{}", render_position(board, &pos));
    println!();
    println!("Rules:      {}", rules.short_name());
    println!("Position:   {}", pos.board_string(rules));
    if rules.board().size == 24 {
        println!("Sanmill:    {}", millbase::to_sanmill(&pos));
    }
    println!("To move:    {}", pos.to_move.name());
    for c in [Color::White, Color::Black] {
        println!(
            "{:<11} {} on the board, {} in hand, {}",
            format!("{}:", c.name()),
            pos.stones[c].len(),
            pos.hand[c],
            phase(&pos, rules, c)
        );
    }
    let mut moves = Vec::new();
    legal_moves(&pos, rules, &mut moves);
    if moves.is_empty() && millbase::no_moves_draws(&pos, rules) {
        println!("Game over:  draw (the board is full: full-board=draw)");
    } else if moves.is_empty() {
        println!("Game over:  {} has lost", pos.to_move.name());
    } else {
        let list: Vec<String> = moves
            .iter()
            .map(|m| format_move(board, m, notation))
            .collect();
        println!("Moves ({}): {}", moves.len(), list.join(" "));
    }
    Ok(())
}

/// `millbase moves`.
pub fn moves(rules: &Rules, args: &MovesArgs) -> Result<(), CliError> {
    let (input, notation) = args.pos.read(rules)?;
    let mut moves = Vec::new();
    legal_moves(&input.position, rules, &mut moves);
    for m in &moves {
        println!("{}", format_move(rules.board(), m, notation));
    }
    Ok(())
}

/// `millbase perft`.
pub fn perft(rules: &Rules, args: &PerftArgs) -> Result<(), CliError> {
    let (input, notation) = args.pos.read(rules)?;
    let start = Instant::now();
    let total = if args.divide && args.depth > 0 {
        let rows = perft_divide(&input.position, rules, args.depth);
        for (m, n) in &rows {
            println!("{} {n}", format_move(rules.board(), m, notation));
        }
        rows.iter().map(|(_, n)| n).sum()
    } else {
        count_perft(&input.position, rules, args.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "perft {}: {total} leaves in {secs:.3} s ({:.1} M leaves/s)",
        args.depth,
        total as f64 / secs.max(1e-9) / 1e6
    );
    println!("{total}");
    Ok(())
}
