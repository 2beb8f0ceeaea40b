//! Playing games: the practical move ranking, players (perfect, practical,
//! a heuristic alpha-beta searcher, random) and matches between them.

pub mod alphabeta;
pub mod game_match;
pub mod practical;
pub mod uci;

use crate::moves::{Move, legal_moves};
use crate::position::Position;
use crate::query::{ProbeError, TableSet};
use crate::value::Value;
use alphabeta::AlphaBeta;
use std::fmt;
use std::str::FromStr;

/// Who chooses the moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerKind {
    /// A random move among the optimal ones (the tables' best value and
    /// plies).
    Perfect,
    /// The practical choice ([`practical::practical_moves`]).
    Practical,
    /// The heuristic alpha-beta search, with this many nodes a move.
    AlphaBeta(u64),
    /// A random legal move.
    Random,
    /// Another program: an engine speaking Sanmill's protocol, started
    /// with this command.
    Uci(String),
}

impl PlayerKind {
    /// Whether the player reads the tables.
    pub fn needs_tables(&self) -> bool {
        matches!(self, PlayerKind::Perfect | PlayerKind::Practical)
    }
}

impl fmt::Display for PlayerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerKind::Perfect => f.write_str("perfect"),
            PlayerKind::Practical => f.write_str("practical"),
            PlayerKind::AlphaBeta(n) => write!(f, "alphabeta:{n}"),
            PlayerKind::Random => f.write_str("random"),
            PlayerKind::Uci(command) => write!(f, "uci:{command}"),
        }
    }
}

impl FromStr for PlayerKind {
    type Err = String;

    /// `perfect`, `practical`, `random` or `alphabeta:NODES` (NODES a whole
    /// number, optionally with a `k` or `M` suffix: `alphabeta:200k`).
    fn from_str(s: &str) -> Result<PlayerKind, String> {
        let known = "known players: perfect, practical, alphabeta:NODES (e.g. alphabeta:200k), \
             random, uci:COMMAND";
        match s {
            "perfect" => return Ok(PlayerKind::Perfect),
            "practical" => return Ok(PlayerKind::Practical),
            "random" => return Ok(PlayerKind::Random),
            _ => {}
        }
        if let Some(command) = s.strip_prefix("uci:") {
            return match command.trim() {
                "" => Err(format!("player `{s}`: give the engine's command ({known})")),
                c => Ok(PlayerKind::Uci(c.to_string())),
            };
        }
        let Some(nodes) = s.strip_prefix("alphabeta:") else {
            return Err(format!("unknown player `{s}` ({known})"));
        };
        let (digits, scale) = match nodes.strip_suffix(['k', 'K']) {
            Some(d) => (d, 1_000),
            None => match nodes.strip_suffix('M') {
                Some(d) => (d, 1_000_000),
                None => (nodes, 1),
            },
        };
        match digits.parse::<u64>() {
            Ok(n) if n > 0 && n.checked_mul(scale).is_some() => {
                Ok(PlayerKind::AlphaBeta(n * scale))
            }
            _ => Err(format!(
                "player `{s}`: NODES must be a whole number above 0 ({known})"
            )),
        }
    }
}

/// A seeded generator (splitmix64), so that a match can be replayed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// A player in a game: its kind, its randomness and its search.
pub struct Player {
    kind: PlayerKind,
    rules: crate::rules::Rules,
    rng: Rng,
    search: Option<AlphaBeta>,
    /// The engine of a `uci:` player, started at its first move.
    engine: Option<uci::UciEngine>,
    /// Positions of this game (with their counters) and how often each
    /// came up: the practical player steers clear of a third repetition,
    /// which would end the game in a draw before the opponent could err.
    seen: std::collections::HashMap<(Position, u16), u32>,
}

impl Player {
    /// A player of `kind` for games of `rules`, seeded.
    pub fn new(kind: PlayerKind, rules: crate::rules::Rules, seed: u64) -> Player {
        Player {
            search: match kind {
                PlayerKind::AlphaBeta(_) => Some(AlphaBeta::new(rules)),
                _ => None,
            },
            kind,
            rules,
            rng: Rng::new(seed),
            engine: None,
            seen: std::collections::HashMap::new(),
        }
    }

    /// The player's kind.
    pub fn kind(&self) -> &PlayerKind {
        &self.kind
    }

    /// The move to play at `pos` (N-move counter `counter`); `None` when the
    /// side to move has no move. Table players need `tables`.
    pub fn choose(
        &mut self,
        tables: Option<&TableSet>,
        pos: &Position,
        counter: u16,
    ) -> Result<Option<Move>, ProbeError> {
        let need = || tables.ok_or(ProbeError::NoTables);
        Ok(match &self.kind {
            PlayerKind::Uci(command) => {
                if self.engine.is_none() {
                    self.engine = Some(uci::UciEngine::start(command, &self.rules)?);
                }
                let engine = self.engine.as_mut().expect("started");
                engine.choose(&self.rules, pos, counter)?
            }
            PlayerKind::Perfect => {
                let moves = need()?.probe_moves_at(pos, counter)?;
                let Some(best) = moves.first().map(|m| m.value) else {
                    return Ok(None);
                };
                let optimal: Vec<Move> = moves
                    .iter()
                    .filter(|m| m.value == best)
                    .map(|m| m.mv)
                    .collect();
                Some(optimal[self.rng.below(optimal.len())])
            }
            PlayerKind::Practical => {
                *self.seen.entry((*pos, counter)).or_insert(0) += 1;
                let ranked = practical::practical_moves(need()?, pos, counter)?;
                let next = |mv: &Move| {
                    let c = match self.rules.nmove {
                        Some(_) => crate::moves::next_counter(self.rules.board(), pos, mv, counter),
                        None => 0,
                    };
                    (pos.play(mv), c)
                };
                let times = |m: &practical::PracticalMove| {
                    self.seen.get(&next(&m.mv)).copied().unwrap_or(0)
                };
                // The candidates, without those that would bring a position
                // up a third time (a draw) while others remain.
                let mut pool: Vec<&practical::PracticalMove> =
                    ranked.iter().filter(|m| m.rank.is_some()).collect();
                if pool.iter().any(|m| times(m) < 2) {
                    pool.retain(|m| times(m) < 2);
                }
                // The best-scoring ones (within a tenth); with no trap to
                // set, any candidate, new positions first: a varied game
                // gives the opponent more decisions to get wrong.
                let top = pool.iter().map(|m| m.score).max().unwrap_or(0);
                if top > 0 {
                    pool.retain(|m| m.score * 10 >= top * 9);
                } else if pool.iter().any(|m| times(m) == 0) {
                    pool.retain(|m| times(m) == 0);
                }
                let choice = (!pool.is_empty()).then(|| pool[self.rng.below(pool.len())].mv);
                if let Some(mv) = choice {
                    *self.seen.entry(next(&mv)).or_insert(0) += 1;
                }
                choice
            }
            PlayerKind::AlphaBeta(nodes) => {
                let rng = &mut self.rng;
                self.search
                    .as_mut()
                    .expect("made with the player")
                    .best_move(pos, *nodes, |n| rng.below(n))
            }
            PlayerKind::Random => {
                let mut moves = Vec::new();
                legal_moves(pos, &self.rules, &mut moves);
                if moves.is_empty() {
                    None
                } else {
                    Some(moves[self.rng.below(moves.len())])
                }
            }
        })
    }
}

/// A value's class for the side it belongs to: 2 win, 1 draw, 0 loss.
pub(crate) fn outcome(v: Value) -> u8 {
    match v {
        Value::Win(_) => 2,
        Value::Draw => 1,
        Value::Loss(_) => 0,
    }
}
