//! Matches: games between two players, colours alternating, played to
//! their end (a side without a move or down to two stones, the N-move
//! rule, the third repetition of a position, or a ply limit).

use super::{Player, PlayerKind, outcome};
use crate::moves::{legal_moves, next_counter, no_moves_draws};
use crate::position::{Color, Position};
use crate::query::{ProbeError, TableSet};
use crate::rules::Rules;
use rayon::prelude::*;
use std::collections::HashMap;

/// What a match plays.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// The first player (its results are the match's).
    pub first: PlayerKind,
    /// The second player.
    pub second: PlayerKind,
    /// Games; the first player has White in the even-numbered ones.
    pub games: u32,
    /// Seed of every player's randomness (each game its own stream).
    pub seed: u64,
    /// Positions the games start at, in turn (the start when empty); each
    /// with its N-move counter.
    pub starts: Vec<(Position, u16)>,
    /// Plies after which a game is a draw.
    pub max_plies: u32,
}

/// How one game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The side to move had no move, or was down to two stones: it lost
    /// (or, for a full board under `full-board=draw`, drew).
    NoMove,
    /// The N-move counter reached N: a draw.
    NMove,
    /// A position came up the third time: a draw.
    Repetition,
    /// The ply limit: a draw.
    PlyLimit,
}

/// One game's result.
#[derive(Clone, Debug)]
pub struct GameResult {
    /// Whether the first player had White.
    pub first_white: bool,
    /// 2 win, 1 draw, 0 loss, for the first player.
    pub outcome: u8,
    /// Plies played.
    pub plies: u32,
    /// How it ended.
    pub ending: Ending,
    /// Times a player that reads the tables stood on a won position and
    /// did not win the game (always 0 for sound play: a test checks it).
    pub wins_let_go: u32,
    /// Times such a player lost from a position the tables did not call
    /// lost.
    pub draws_lost: u32,
}

/// A match's results.
#[derive(Clone, Debug, Default)]
pub struct MatchResult {
    /// Every game, in order.
    pub games: Vec<GameResult>,
}

impl MatchResult {
    /// Wins, draws and losses of the first player.
    pub fn counts(&self) -> (u32, u32, u32) {
        let n = |o| self.games.iter().filter(|g| g.outcome == o).count() as u32;
        (n(2), n(1), n(0))
    }

    /// The first player's score (a win 1, a draw 1/2) as a share, and the
    /// half width of its 95 % confidence interval (normal approximation).
    pub fn score(&self) -> (f64, f64) {
        let n = self.games.len() as f64;
        if n == 0.0 {
            return (0.0, 0.0);
        }
        let points: Vec<f64> = self.games.iter().map(|g| g.outcome as f64 / 2.0).collect();
        let mean = points.iter().sum::<f64>() / n;
        let var = points.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        (mean, 1.96 * (var / n).sqrt())
    }
}

/// Plays one game from `start` between `white` and `black`.
fn play_game(
    tables: Option<&TableSet>,
    rules: &Rules,
    (white, black): (&mut Player, &mut Player),
    start: (Position, u16),
    max_plies: u32,
) -> Result<Played, ProbeError> {
    let (mut pos, mut counter) = start;
    let mut seen: HashMap<(Position, u16), u8> = HashMap::new();
    let mut moves = Vec::new();
    let mut plies = 0;
    // Per colour: whether a table player stood on a won position, and on a
    // position that was not lost.
    let mut had_win = [false; 2];
    let mut had_hold = [false; 2];
    let idx = |c: Color| (c == Color::Black) as usize;
    let (winner, ending) = loop {
        legal_moves(&pos, rules, &mut moves);
        if moves.is_empty() {
            let w = if no_moves_draws(&pos, rules) {
                None
            } else {
                Some(!pos.to_move)
            };
            break (w, Ending::NoMove);
        }
        if rules.nmove.is_some_and(|n| counter >= n) {
            break (None, Ending::NMove);
        }
        // Under the N-move rule the counter is part of the position.
        let times = seen.entry((pos, counter)).or_insert(0);
        *times += 1;
        if *times >= 3 {
            break (None, Ending::Repetition);
        }
        if plies >= max_plies {
            break (None, Ending::PlyLimit);
        }
        let player = if pos.to_move == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        if let (true, Some(t)) = (player.kind().needs_tables(), tables) {
            let v = t.probe_at(&pos, counter)?.value;
            had_win[idx(pos.to_move)] |= outcome(v) == 2;
            had_hold[idx(pos.to_move)] |= outcome(v) >= 1;
        }
        let Some(mv) = player.choose(tables, &pos, counter)? else {
            unreachable!("a position with legal moves has a choice");
        };
        debug_assert!(moves.contains(&mv));
        if rules.nmove.is_some() {
            counter = next_counter(rules.board(), &pos, &mv, counter);
        }
        pos = pos.play(&mv);
        plies += 1;
    };
    let mut let_go = 0;
    let mut lost = 0;
    for c in [Color::White, Color::Black] {
        if had_win[idx(c)] && winner != Some(c) {
            let_go += 1;
        }
        if had_hold[idx(c)] && winner == Some(!c) {
            lost += 1;
        }
    }
    Ok(Played {
        winner,
        plies,
        ending,
        let_go,
        lost,
    })
}

/// What [`play_game`] reports.
struct Played {
    winner: Option<Color>,
    plies: u32,
    ending: Ending,
    let_go: u32,
    lost: u32,
}

/// Plays a match (games in parallel); `done` is called after each game.
pub fn play_match(
    tables: Option<&TableSet>,
    rules: &Rules,
    options: &MatchOptions,
    done: &(dyn Fn(&GameResult) + Sync),
) -> Result<MatchResult, ProbeError> {
    let games = (0..options.games)
        .into_par_iter()
        .map(|i| {
            let first_white = i % 2 == 0;
            let seed = options
                .seed
                .wrapping_add((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut first = Player::new(options.first.clone(), *rules, seed);
            let mut second =
                Player::new(options.second.clone(), *rules, seed ^ 0x5555_5555_5555_5555);
            // Each start is played twice in a row, once with each colour.
            let start = match options.starts.len() {
                0 => (Position::start(rules), 0),
                n => options.starts[(i as usize / 2) % n],
            };
            let players = if first_white {
                (&mut first, &mut second)
            } else {
                (&mut second, &mut first)
            };
            let played = play_game(tables, rules, players, start, options.max_plies)?;
            let first_colour = if first_white {
                Color::White
            } else {
                Color::Black
            };
            let result = GameResult {
                first_white,
                outcome: match played.winner {
                    None => 1,
                    Some(c) if c == first_colour => 2,
                    Some(_) => 0,
                },
                plies: played.plies,
                ending: played.ending,
                wins_let_go: played.let_go,
                draws_lost: played.lost,
            };
            done(&result);
            Ok(result)
        })
        .collect::<Result<Vec<_>, ProbeError>>()?;
    Ok(MatchResult { games })
}
