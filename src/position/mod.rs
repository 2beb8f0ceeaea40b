//! Colours, positions and their validation.
//!
//! A [`Position`] is always legal for its rule set: it is only made through
//! [`Position::new`], which says why it refuses, or by playing legal moves.

mod text;

pub use text::{parse_board_string, parse_sanmill, to_sanmill};

use crate::geometry::{Point, PointSet};
use crate::rules::Rules;
use std::fmt;
use std::ops::{Index, IndexMut, Not};

/// A side.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Color {
    /// Moves first.
    White,
    /// Moves second.
    Black,
}

impl Color {
    /// `w` or `b`.
    pub fn letter(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// `White` or `Black`.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }
}

impl Not for Color {
    type Output = Color;
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

/// One value per colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct ByColor<T> {
    /// White's value.
    pub white: T,
    /// Black's value.
    pub black: T,
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;
    fn index(&self, c: Color) -> &T {
        match c {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    fn index_mut(&mut self, c: Color) -> &mut T {
        match c {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }
}

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

impl Position {
    /// The start: empty board, every stone in hand, White to move.
    pub fn start(rules: &Rules) -> Position {
        Position {
            stones: ByColor::default(),
            hand: ByColor {
                white: rules.stones,
                black: rules.stones,
            },
            to_move: Color::White,
        }
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
            if total > rules.stones as u32 {
                return err(format!(
                    "{} has {} stones on the board and {} in hand, more than the {} of these rules",
                    c.name(),
                    stones[c].len(),
                    hand[c],
                    rules.stones
                ));
            }
        }
        let (w, b) = (hand.white, hand.black);
        if !rules.lasker {
            let ok = match to_move {
                Color::White => w == b,
                Color::Black => b == w + 1 || (w == 0 && b == 0),
            };
            if !ok {
                return err(format!(
                    "{} to move with {w} white and {b} black stones in hand: sides place alternately, White first, so {}",
                    to_move.name(),
                    match to_move {
                        Color::White => "both hands must be equal",
                        Color::Black => "Black must hold one stone more than White (or both none)",
                    }
                ));
            }
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

    /// The board string: 24 characters `W`/`B`/`.` in point order with a
    /// `/` after every 8, the side to move, and the stones in hand.
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
