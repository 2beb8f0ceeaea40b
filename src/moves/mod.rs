//! Move and unmove generation, and perft.
//!
//! A move is a placement or a step (slide or fly) plus the removals it
//! earns. Moves that differ only in the order of two removals are one move:
//! a move is identified by its origin, its target and the *set* of removed
//! stones.

mod unmoves;

use crate::rules::mill_ended;
pub use unmoves::unmoves;

use crate::geometry::{Board, Point, PointSet};
use crate::position::Position;
use crate::rules::{DoubleMill, FullBoard, Protection, Rules};
#[cfg(feature = "tables")]
use rayon::prelude::*;

/// A move: where the stone comes from (`None` for a placement), where it
/// goes, and the opponent stones it removes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Move {
    /// Origin of a slide or fly; `None` for a placement.
    pub from: Option<Point>,
    /// Target point.
    pub to: Point,
    /// Removed opponent stones (empty if no mill was closed).
    pub removed: PointSet,
}

/// The opponent stones a removal may take under `rules`.
#[inline]
pub fn removable(board: &Board, rules: &Rules, theirs: PointSet) -> PointSet {
    match rules.protection {
        Protection::None => theirs,
        Protection::Standard => {
            let free = theirs.minus(board.in_mills(theirs));
            if free.is_empty() { theirs } else { free }
        }
        Protection::Strict => theirs.minus(board.in_mills(theirs)),
    }
}

/// Number of removals earned by closing `mills` mills (0 if none, and
/// always 0 under `mill=wins`, where a mill ends the game instead).
#[inline]
pub fn removals_earned(rules: &Rules, mills: u32) -> u32 {
    if mills == 0 || rules.mill_wins() {
        0
    } else {
        rules.removals_per_mill as u32
            * match rules.double_mill {
                DoubleMill::One => 1,
                DoubleMill::PerMill => mills,
            }
    }
}

/// Most stones one move can remove under `rules`: one move closes at most
/// as many mills as the most lines through one point (two on the
/// standard board, three at a corner of the diagonals board).
pub fn most_removals(rules: &Rules) -> u8 {
    let mills = match rules.double_mill {
        DoubleMill::One => 1,
        DoubleMill::PerMill => rules
            .board()
            .lines_through
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(0) as u32,
    };
    removals_earned(rules, mills) as u8
}

/// The N-move counter after `mv` from `pos` at `counter`: reset by a move
/// that closes a mill (with a removal, or under `mill=wins` without one)
/// and during the placing phase, else one more (`docs/RULES.md` section 5).
pub fn next_counter(board: &Board, pos: &Position, mv: &Move, counter: u16) -> u16 {
    let mine = pos.stones[pos.to_move];
    let after = match mv.from {
        Some(from) => mine.without(from),
        None => mine,
    }
    .with(mv.to);
    if !pos.is_moving_phase() || !mv.removed.is_empty() || board.mills_through(mv.to, after) > 0 {
        0
    } else {
        counter + 1
    }
}

/// Whether a side to move without a legal move draws instead of losing:
/// the placing phase ended with every point occupied under
/// `full-board=draw`. (A full board only arises from the last placement:
/// a slide leaves a point empty, a removal empties one.) A last placement
/// that also closed a line under `mill=wins` has won at once: the rule
/// only applies when the game did not already end that way.
#[inline]
pub fn blocked_draws(
    board: &Board,
    rules: &Rules,
    to_move: PointSet,
    last_mover: PointSet,
) -> bool {
    rules.full_board == FullBoard::Draw
        && to_move.union(last_mover) == board.all
        && !mill_ended(board, rules, last_mover)
}

/// Whether a position in which the side to move has no legal move is a
/// draw (`blocked_draws`: the last placement filled the board under
/// `full-board=draw`) rather than a loss for the side to move.
pub fn no_moves_draws(pos: &Position, rules: &Rules) -> bool {
    let us = pos.to_move;
    pos.total(us) >= 3 && blocked_draws(rules.board(), rules, pos.stones[us], pos.stones[!us])
}

/// Every distinct set of stones that `k` sequential removals may take from
/// `theirs` (with `their_hand` stones in hand), each legal on the board as it
/// is then. Removals lapse when nothing may be taken and stop once the
/// opponent has fewer than 3 stones.
pub(crate) fn removal_sets(
    board: &Board,
    rules: &Rules,
    theirs: PointSet,
    their_hand: u32,
    k: u32,
    out: &mut Vec<PointSet>,
) {
    fn go(
        board: &Board,
        rules: &Rules,
        theirs: PointSet,
        hand: u32,
        k: u32,
        taken: PointSet,
        out: &mut Vec<PointSet>,
    ) {
        let targets = if k == 0 || theirs.len() + hand < 3 {
            PointSet::EMPTY
        } else {
            removable(board, rules, theirs)
        };
        if targets.is_empty() {
            if !out.contains(&taken) {
                out.push(taken);
            }
            return;
        }
        for t in targets {
            go(
                board,
                rules,
                theirs.without(t),
                hand,
                k - 1,
                taken.with(t),
                out,
            );
        }
    }
    go(board, rules, theirs, their_hand, k, PointSet::EMPTY, out);
}

impl Position {
    /// Plays a move; the caller guarantees it is legal here.
    #[must_use]
    pub fn play(&self, mv: &Move) -> Position {
        let us = self.to_move;
        let mut next = *self;
        let mine = match mv.from {
            Some(f) => self.stones[us].without(f),
            None => {
                next.hand[us] -= 1;
                self.stones[us]
            }
        };
        next.stones[us] = mine.with(mv.to);
        next.stones[!us] = self.stones[!us].minus(mv.removed);
        next.to_move = !us;
        next
    }
}

/// Every (from, to) step of a stone of `mine` to an adjacent point of `empty`.
pub fn slides(
    board: &Board,
    mine: PointSet,
    empty: PointSet,
) -> impl Iterator<Item = (Point, Point)> + '_ {
    mine.iter().flat_map(move |f| {
        board.neighbours[f.index()]
            .intersect(empty)
            .iter()
            .map(move |t| (f, t))
    })
}

/// All legal moves of the side to move, into `out` (cleared first). A side
/// that has lost (fewer than 3 stones, or under `mill=wins` the opponent
/// has a line) has none.
pub fn legal_moves(pos: &Position, rules: &Rules, out: &mut Vec<Move>) {
    // The removal sets' buffer outlives the call: allocating it afresh
    // was a twentieth of `check`.
    out.clear();
    REMOVAL_SETS.with_borrow_mut(|sets| {
        sets.forget();
        for_each_move_family(pos, rules, sets, |from, to, removed| {
            out.extend(removed.iter().map(|&removed| Move { from, to, removed }));
        })
    });
}

thread_local! {
    static REMOVAL_SETS: std::cell::RefCell<RemovalSets> =
        const { std::cell::RefCell::new(RemovalSets::new()) };
}

/// The removal sets of the last opponent a move generator met, kept for
/// the next position with the same opponent ([`for_each_move_family`]):
/// a caller that visits many positions with the same opponent (and the
/// same rules, for as long as it keeps the memo) makes those sets once.
#[derive(Default)]
pub struct RemovalSets {
    /// The opponent's stones, stones in hand and removals earned.
    key: Option<(PointSet, u32, u32)>,
    sets: Vec<PointSet>,
}

impl RemovalSets {
    /// An empty memo.
    pub const fn new() -> RemovalSets {
        RemovalSets {
            key: None,
            sets: Vec::new(),
        }
    }

    /// Forgets the sets held (before a position of other rules).
    pub fn forget(&mut self) {
        self.key = None;
    }

    /// The sets of `k` removals from `theirs` with `their_hand` in hand.
    fn of(
        &mut self,
        board: &Board,
        rules: &Rules,
        theirs: PointSet,
        their_hand: u32,
        k: u32,
    ) -> &[PointSet] {
        if self.key != Some((theirs, their_hand, k)) {
            self.sets.clear();
            removal_sets(board, rules, theirs, their_hand, k, &mut self.sets);
            self.key = Some((theirs, their_hand, k));
        }
        &self.sets
    }
}

/// Calls `f(from, to, removed)` for each step of the side to move (`from`
/// `None`: a placement) with the stone sets each of its legal moves
/// removes (`[PointSet::EMPTY]` alone when it removes none): the moves of
/// [`legal_moves`], in the same order, a step's together.
pub fn for_each_move_family(
    pos: &Position,
    rules: &Rules,
    sets: &mut RemovalSets,
    mut f: impl FnMut(Option<Point>, Point, &[PointSet]),
) {
    let board = rules.board();
    let us = pos.to_move;
    if pos.total(us) < 3 || mill_ended(board, rules, pos.stones[!us]) {
        return;
    }
    let mine = pos.stones[us];
    let theirs = pos.stones[!us];
    let their_hand = pos.hand[!us] as u32;
    let empty = board.all.minus(mine.union(theirs));
    let mut push = |from: Option<Point>, to: Point| {
        let after = match from {
            Some(f) => mine.without(f).with(to),
            None => mine.with(to),
        };
        let k = removals_earned(rules, board.mills_through(to, after));
        if k == 0 {
            f(from, to, &[PointSet::EMPTY]);
        } else {
            f(from, to, sets.of(board, rules, theirs, their_hand, k));
        }
    };
    if pos.hand[us] > 0 {
        for to in empty {
            push(None, to);
        }
        if rules.lasker {
            for (from, to) in slides(board, mine, empty) {
                push(Some(from), to);
            }
        }
    } else if rules.flies(mine.len()) {
        for from in mine {
            for to in empty {
                push(Some(from), to);
            }
        }
    } else {
        for (from, to) in slides(board, mine, empty) {
            push(Some(from), to);
        }
    }
}

/// Number of move sequences of length `depth` from `pos`.
pub fn perft(pos: &Position, rules: &Rules, depth: u32) -> u64 {
    fn go(pos: &Position, rules: &Rules, depth: u32, buf: &mut Vec<Vec<Move>>) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut moves = buf.pop().unwrap_or_default();
        legal_moves(pos, rules, &mut moves);
        let n = if depth == 1 {
            moves.len() as u64
        } else {
            moves
                .iter()
                .map(|m| go(&pos.play(m), rules, depth - 1, buf))
                .sum()
        };
        buf.push(moves);
        n
    }
    if depth <= 2 {
        return go(pos, rules, depth, &mut Vec::new());
    }
    let mut moves = Vec::new();
    legal_moves(pos, rules, &mut moves);
    // On every core where rayon is built in; the pack reader's core
    // build counts on one.
    #[cfg(feature = "tables")]
    let first = moves.par_iter();
    #[cfg(not(feature = "tables"))]
    let first = moves.iter();
    first
        .map(|m| go(&pos.play(m), rules, depth - 1, &mut Vec::new()))
        .sum()
}

/// Perft split by first move.
pub fn perft_divide(pos: &Position, rules: &Rules, depth: u32) -> Vec<(Move, u64)> {
    let mut moves = Vec::new();
    legal_moves(pos, rules, &mut moves);
    #[cfg(feature = "tables")]
    let first = moves.par_iter();
    #[cfg(not(feature = "tables"))]
    let first = moves.iter();
    first
        .map(|m| (*m, perft(&pos.play(m), rules, depth.saturating_sub(1))))
        .collect()
}
