//! The answer to a query as `query --json` and the HTTP API give it: a
//! position read from text, its value (at its N-move counter), the pure
//! value where the rule has one, and every move's value with the position
//! it leads to. The CLI and the server both build it here, so their JSON is
//! the same object.

use crate::error::ParseError;
use crate::moves::{legal_moves, next_counter};
use crate::notation::{PositionInput, format_move, parse_counter, parse_position, play_moves_from};
use crate::play::practical::{PracticalMove, practical_moves};
use crate::position::Position;
use crate::query::{CounterValue, MoveValue, ProbeError, TableSet};
use crate::rules::Rules;
use crate::rules::mill_ended;
use crate::table::TableError;
use crate::value::Value;
use serde::{Deserialize, Serialize};

/// Why a query failed.
#[derive(Debug)]
pub enum QueryError {
    /// The position or counter text could not be read (or cannot arise).
    Input(ParseError),
    /// The tables could not answer: no table covers the position, or one
    /// is missing or damaged.
    Probe(ProbeError),
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueryError::Input(e) => write!(f, "{e}"),
            QueryError::Probe(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for QueryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            QueryError::Input(e) => Some(e),
            QueryError::Probe(e) => Some(e),
        }
    }
}

impl From<ProbeError> for QueryError {
    fn from(e: ProbeError) -> Self {
        QueryError::Probe(e)
    }
}

/// A probed position: what was read and what the tables say.
#[derive(Clone, Debug)]
pub struct Probed {
    /// The position as read, with its notation.
    pub input: PositionInput,
    /// Its N-move counter (0 without the rule).
    pub counter: u16,
    /// Its value at that counter.
    pub value: CounterValue,
    /// The pure game's value, under the N-move rule when those tables exist.
    pub pure: Option<Value>,
    /// Every legal move with its value for the mover, best first (none
    /// when the game is over).
    pub moves: Vec<MoveValue>,
    /// Why the game is over here, if it is.
    pub over: Option<GameOver>,
    /// The practical ranking of the moves, when asked for
    /// ([`TableSet::add_practical`]).
    pub practical: Vec<PracticalMove>,
}

/// Why the game is over at a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameOver {
    /// The side to move is down to two stones (on the board and in hand).
    Stones,
    /// The other side has a line (`mill=wins`).
    Line,
    /// The side to move has no legal move.
    Blocked,
    /// The N-move counter reached N: a draw.
    NMove,
}

impl GameOver {
    /// The reason as the JSON gives it: `stones`, `line`, `blocked` or
    /// `nmove`.
    pub fn name(self) -> &'static str {
        match self {
            GameOver::Stones => "stones",
            GameOver::Line => "line",
            GameOver::Blocked => "blocked",
            GameOver::NMove => "nmove",
        }
    }

    /// Whether, and why, the game is over at `pos` (at N-move counter
    /// `counter`).
    pub fn of(pos: &Position, rules: &Rules, counter: u16) -> Option<GameOver> {
        let us = pos.to_move;
        if mill_ended(rules.board(), rules, pos.stones[!us]) {
            return Some(GameOver::Line);
        }
        if pos.total(us) < 3 {
            return Some(GameOver::Stones);
        }
        let mut moves = Vec::new();
        legal_moves(pos, rules, &mut moves);
        if moves.is_empty() {
            return Some(GameOver::Blocked);
        }
        match rules.nmove {
            Some(n) if counter >= n => Some(GameOver::NMove),
            _ => None,
        }
    }
}

/// One move of an [`Answer`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveAnswer {
    /// The move in the notation of the input (`d7-d6xd2`, `1-9x13`).
    #[serde(rename = "move")]
    pub mv: String,
    /// `win`, `draw` or `loss` for the side making the move.
    pub value: String,
    /// Plies to the end (`Z` under the N-move rule), `null` for a draw.
    pub plies: Option<u32>,
    /// Point number the stone leaves, `null` for a placement.
    pub from: Option<u8>,
    /// Point number the stone goes to.
    pub to: u8,
    /// Point numbers of the removed stones.
    pub removes: Vec<u8>,
    /// The position after the move, as a board string (with the counter it
    /// leads to as a fifth field under the N-move rule).
    pub after: String,
    /// Its practical standing, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub practical: Option<PracticalAnswer>,
}

/// A move's practical standing in an [`Answer`]
/// ([`practical_moves`](crate::practical_moves)).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PracticalAnswer {
    /// Its place in the practical order, 1 for the practical choice;
    /// `null` for a move that would give value away.
    pub rank: Option<u32>,
    /// The weighted share of the opponent's replies that give their value
    /// away, in thousandths.
    pub score: u32,
    /// Those replies, unweighted.
    pub errors: u32,
    /// The opponent's replies.
    pub replies: u32,
}

/// The N-move details of an [`Answer`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleAnswer {
    /// The counter the value is given at.
    pub counter: u16,
    /// The stored `Z`; `null` for draws at counter 0.
    pub z: Option<u32>,
    /// Where the rule makes a pure win or loss a draw: `cursed win` or
    /// `blessed loss` (`Z > N`, a draw at every counter), `win drawn by the
    /// counter` or `loss drawn by the counter` (decided at counter 0, not at
    /// this one); else `null`.
    pub rule_draw: Option<String>,
    /// The pure game's value, when its tables are built.
    pub pure: Option<PureAnswer>,
}

/// A pure game's value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PureAnswer {
    /// `win`, `draw` or `loss`.
    pub value: String,
    /// Plies to the end, `null` for a draw.
    pub plies: Option<u32>,
}

/// The JSON object of `query --json` and of `GET /api/v1/query`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The position as a board string.
    pub position: String,
    /// `win`, `draw` or `loss` for the side to move.
    pub value: String,
    /// Plies to the end (`Z` under the N-move rule), `null` for a draw.
    pub plies: Option<u32>,
    /// N-move rule only (fields flattened into the object).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub nmove: Option<RuleAnswer>,
    /// Every legal move, best first for the side to move.
    pub moves: Vec<MoveAnswer>,
    /// Why the game is over (`stones`, `line`, `blocked`, `nmove`); absent
    /// while it goes on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over: Option<String>,
}

/// Queries that answer as `millbase query` and the HTTP API do: a position
/// read from text, its moves, the pure value, practical ranks, best lines
/// and game records.
impl TableSet {
    /// Reads a position (any form `parse_position` takes) and, if given, a
    /// counter that overrides one in the text, and probes it.
    pub fn probe_text(&self, text: &str, counter: Option<&str>) -> Result<Probed, QueryError> {
        let rules = *self.rules();
        let mut input = parse_position(text, &rules).map_err(QueryError::Input)?;
        if let Some(c) = counter {
            input.counter =
                Some(parse_counter(c, &input.position, &rules).map_err(QueryError::Input)?);
        }
        self.probe_input(input)
    }

    /// Probes a position already read.
    pub fn probe_input(&self, input: PositionInput) -> Result<Probed, QueryError> {
        let counter = input.counter.unwrap_or(0);
        let value = self.probe_at(&input.position, counter)?;
        let over = GameOver::of(&input.position, self.rules(), counter);
        let moves = match over {
            // The counter reached N: the game is drawn, whatever moves the
            // board still allows.
            Some(GameOver::NMove) => Vec::new(),
            _ => self.probe_moves_at(&input.position, counter)?,
        };
        // The pure tables are optional (not built is not an error), but a
        // damaged one is.
        let pure = match self.pure().map(|t| t.probe(&input.position)) {
            Some(Ok(v)) => Some(v),
            None | Some(Err(ProbeError::Table(TableError::Missing(_)))) => None,
            Some(Err(e)) => return Err(e.into()),
        };
        Ok(Probed {
            input,
            counter,
            value,
            pure,
            moves,
            over,
            practical: Vec::new(),
        })
    }

    /// Ranks the moves of a probed position for practical play
    /// ([`practical_moves`](crate::practical_moves)).
    pub fn add_practical(&self, probed: &mut Probed) -> Result<(), QueryError> {
        probed.practical = practical_moves(self, &probed.input.position, probed.counter)?;
        Ok(())
    }

    /// The best line from a position: at each step the first move of
    /// [`TableSet::probe_moves_at`], until the game ends (no legal move,
    /// the N-move counter reaching N) or `max` plies.
    pub fn best_line(&self, probed: &Probed, max: usize) -> Result<Vec<Probed>, QueryError> {
        let rules = *self.rules();
        let mut line = Vec::new();
        let mut here = probed.clone();
        while line.len() < max {
            let Some(best) = here.moves.first() else {
                break;
            };
            let counter = next_counter(rules.board(), &here.input.position, &best.mv, here.counter);
            let input = PositionInput {
                position: here.input.position.play(&best.mv),
                moves: Vec::new(),
                notation: here.input.notation,
                counter: rules.nmove.map(|_| counter),
            };
            let next = self.probe_input(input)?;
            line.push(here);
            here = next;
        }
        line.push(here);
        Ok(line)
    }
}

impl Probed {
    /// The JSON object for this probe.
    pub fn to_answer(&self, rules: &Rules) -> Answer {
        let (input, value) = (&self.input, self.value.value);
        Answer {
            position: input.position.board_string(rules),
            value: value.name().into(),
            plies: value.plies(),
            nmove: rules.nmove.map(|_| RuleAnswer {
                counter: self.counter,
                z: self.value.z,
                rule_draw: self.value.rule_draw.map(|d| d.name().to_string()),
                pure: self.pure.map(|p| PureAnswer {
                    value: p.name().into(),
                    plies: p.plies(),
                }),
            }),
            moves: self
                .moves
                .iter()
                .map(|m| self.move_answer(rules, m))
                .collect(),
            over: self.over.map(|o| o.name().to_string()),
        }
    }

    /// The JSON object of one of this position's moves.
    pub fn move_answer(&self, rules: &Rules, m: &MoveValue) -> MoveAnswer {
        let input = &self.input;
        let counter = next_counter(rules.board(), &input.position, &m.mv, self.counter);
        MoveAnswer {
            mv: format_move(rules.board(), &m.mv, input.notation),
            value: m.value.name().into(),
            plies: m.value.plies(),
            from: m.mv.from.map(|p| p.number()),
            to: m.mv.to.number(),
            removes: m.mv.removed.into_iter().map(|p| p.number()).collect(),
            after: position_text(rules, &input.position.play(&m.mv), counter),
            practical: self
                .practical
                .iter()
                .find(|p| p.mv == m.mv)
                .map(|p| PracticalAnswer {
                    rank: p.rank,
                    score: p.score,
                    errors: p.errors,
                    replies: p.replies,
                }),
        }
    }
}

/// A game record probed move by move: the JSON of `GET /api/v1/game`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameAnswer {
    /// The position the game opens at, then the position after each move.
    pub positions: Vec<Answer>,
    /// The moves played, each as it is listed among the moves of the
    /// position before it.
    pub played: Vec<MoveAnswer>,
}

impl TableSet {
    /// Probes a game: the position `start` (any form [`parse_position`]
    /// takes), then each move of `moves` (a move list, move numbers
    /// allowed) played from it in turn.
    pub fn game(&self, start: &str, moves: &str) -> Result<GameAnswer, QueryError> {
        let rules = *self.rules();
        let mut first = parse_position(start, &rules).map_err(QueryError::Input)?;
        let rest = play_moves_from(&first, moves, &rules).map_err(QueryError::Input)?;
        // Moves print in the notation of the input: the moves' own, if any.
        first.notation = rest.notation;
        let played = rest.moves;
        let mut here = self.probe_input(first)?;
        let mut game = GameAnswer {
            positions: Vec::new(),
            played: Vec::new(),
        };
        for mv in played {
            let listed = here.moves.iter().find(|m| m.mv == mv).ok_or_else(|| {
                QueryError::Input(ParseError::new(format!(
                    "ply {}: the move is not among the position's moves",
                    game.played.len() + 1
                )))
            })?;
            game.played.push(here.move_answer(&rules, listed));
            let counter = next_counter(rules.board(), &here.input.position, &mv, here.counter);
            let next = PositionInput {
                position: here.input.position.play(&mv),
                moves: Vec::new(),
                notation: here.input.notation,
                counter: rules.nmove.map(|_| counter),
            };
            let next = self.probe_input(next)?;
            game.positions.push(here.to_answer(&rules));
            here = next;
        }
        game.positions.push(here.to_answer(&rules));
        Ok(game)
    }
}

/// A board string, with the counter as a fifth field under the N-move rule.
fn position_text(rules: &Rules, pos: &Position, counter: u16) -> String {
    let s = pos.board_string(rules);
    match rules.nmove {
        Some(_) => format!("{s} {counter}"),
        None => s,
    }
}
