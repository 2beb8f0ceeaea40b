//! Colours, positions and their validation.
//!
//! A [`Position`] is always legal for its rule set: it is only made through
//! [`Position::new`], which says why it refuses, or by playing legal moves.

mod text;

pub use text::{
    SanmillLine, parse_board_string, parse_sanmill, read_sanmill, to_sanmill, write_sanmill,
};

pub use crate::color::{ByColor, Color};
use crate::error::ParseError;
use crate::geometry::{Point, PointSet};
use crate::rules::Rules;
use std::fmt;

/// A position: stones on the board, stones in hand, side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    /// Stones on the board per colour.
    pub stones: ByColor<PointSet>,
    /// Stones in hand per colour.
    pub hand: ByColor<u8>,
    /// The side to move.
    pub to_move: Color,
}

/// Why a position was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PositionError(pub String);

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "impossible position: {}", self.0)
    }
}

impl std::error::Error for PositionError {}

impl From<PositionError> for ParseError {
    fn from(e: PositionError) -> Self {
        ParseError::Position(e.to_string())
    }
}

/// Whether stones in hand `hand` with `to_move` to move arise from the
/// start by alternate moves, White first: each side places while it has
/// stones in hand (and moves on the board after), so after `k` plies White
/// has placed `min(W, ceil(k/2))` stones and Black `min(B, floor(k/2))`.
fn hands_fit_turns(rules: &Rules, hand: ByColor<u8>, to_move: Color) -> bool {
    let (w, b) = (rules.stones.white, rules.stones.black);
    if hand.white > w || hand.black > b {
        return false;
    }
    (0..=w.max(b) + 1).any(|m| {
        let white_moves = m + (to_move == Color::Black) as u8;
        w - hand.white == white_moves.min(w) && b - hand.black == m.min(b)
    })
}

impl Position {
    /// The start: empty board, every stone in hand, White to move.
    pub fn start(rules: &Rules) -> Position {
        Position {
            stones: ByColor::default(),
            hand: rules.stones,
            to_move: Color::White,
        }
    }

    /// The position as one integer, for arrays and files: White's points
    /// in bits 0-23 and Black's in bits 24-47 (bit `n - 1` for point number
    /// `n`), White's stones in hand in bits 48-51, Black's in bits 52-55,
    /// and bit 56 set when Black is to move.
    pub fn code(&self) -> u64 {
        self.stones.white.0 as u64
            | (self.stones.black.0 as u64) << 24
            | (self.hand.white as u64) << 48
            | (self.hand.black as u64) << 52
            | ((self.to_move == Color::Black) as u64) << 56
    }

    /// The position of a [`Position::code`], checked like
    /// [`Position::new`].
    pub fn from_code(code: u64, rules: &Rules) -> Result<Position, PositionError> {
        if code >> 57 != 0 {
            return Err(PositionError(format!(
                "position code {code:#x} has bits above bit 56"
            )));
        }
        let field = |at: u32, bits: u32| (code >> at) & ((1 << bits) - 1);
        let to_move = if field(56, 1) == 1 {
            Color::Black
        } else {
            Color::White
        };
        let stones = ByColor {
            white: PointSet(field(0, 24) as u32),
            black: PointSet(field(24, 24) as u32),
        };
        let hand = ByColor {
            white: field(48, 4) as u8,
            black: field(52, 4) as u8,
        };
        Position::new(stones, hand, to_move, rules)
            .map_err(|e| PositionError(format!("position code {code:#x}: {}", e.0)))
    }

    /// Checks that the position can arise under `rules`, saying why not.
    pub fn new(
        stones: ByColor<PointSet>,
        hand: ByColor<u8>,
        to_move: Color,
        rules: &Rules,
    ) -> Result<Position, PositionError> {
        let board = rules.board();
        let err = |s: String| Err(PositionError(s));
        if !stones.white.intersect(stones.black).is_empty() {
            return err("a point holds stones of both colours".into());
        }
        for c in [Color::White, Color::Black] {
            if !stones[c].is_subset(board.all) {
                return err(format!("{} has a stone off the board", c.name()));
            }
            let total = stones[c].len() + hand[c] as u32;
            if total > rules.stones[c] as u32 {
                return err(format!(
                    "{} has {} stones on the board and {} in hand, more than the {} of these rules",
                    c.name(),
                    stones[c].len(),
                    hand[c],
                    rules.stones[c]
                ));
            }
        }
        if !rules.lasker && !hands_fit_turns(rules, hand, to_move) {
            let (w, b) = (hand.white, hand.black);
            return err(format!(
                "{} to move with {w} white and {b} black stones in hand: no game of alternate \
                 moves from {} and {} stones in hand, White first, gets there{}",
                to_move.name(),
                rules.stones.white,
                rules.stones.black,
                if rules.stones.white == rules.stones.black {
                    match to_move {
                        Color::White => " (both hands must be equal)",
                        Color::Black => {
                            " (Black must hold one stone more than White, or both none)"
                        }
                    }
                } else {
                    ""
                }
            ));
        }
        if crate::rules::mill_ended(board, rules, stones[to_move]) {
            return err(format!(
                "{} is to move with a line of its own: under mill=wins the game ended when it was closed",
                to_move.name()
            ));
        }
        let pos = Position {
            stones,
            hand,
            to_move,
        };
        if pos.total(!to_move) < 3 {
            return err(format!(
                "{} is not to move but has fewer than 3 stones: the game ended before this position",
                (!to_move).name()
            ));
        }
        // Removals stop once a side is down to fewer than 3 stones, so the
        // side that lost that way keeps 2.
        if pos.total(to_move) < 2 {
            return err(format!(
                "{} is to move with fewer than 2 stones: no game reaches this (removals stop when a side is down to 2)",
                to_move.name()
            ));
        }
        Ok(pos)
    }

    /// Stones on the board plus in hand of `c`.
    #[inline]
    pub fn total(&self, c: Color) -> u32 {
        self.stones[c].len() + self.hand[c] as u32
    }

    /// The empty points.
    #[inline]
    pub fn empty(&self, rules: &Rules) -> PointSet {
        rules
            .board()
            .all
            .minus(self.stones.white.union(self.stones.black))
    }

    /// The colour of the stone on `p`, if any.
    pub fn color_at(&self, p: Point) -> Option<Color> {
        if self.stones.white.contains(p) {
            Some(Color::White)
        } else if self.stones.black.contains(p) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// Whether both sides have placed all their stones.
    pub fn is_moving_phase(&self) -> bool {
        self.hand.white == 0 && self.hand.black == 0
    }

    /// The board string: one character `W`/`B`/`.` per point in point order
    /// with a `/` after every 8, the side to move, and the stones in hand.
    pub fn board_string(&self, rules: &Rules) -> String {
        let board = rules.board();
        let mut s = String::new();
        for p in board.points() {
            if p.index() > 0 && p.index() % 8 == 0 {
                s.push('/');
            }
            s.push(match self.color_at(p) {
                Some(Color::White) => 'W',
                Some(Color::Black) => 'B',
                None => '.',
            });
        }
        format!(
            "{s} {} {} {}",
            self.to_move.letter(),
            self.hand.white,
            self.hand.black
        )
    }
}
