//! Game-theoretic value of placing-phase positions by alpha-beta search
//! (Gasser's method): a search over the placing phase that reads only the
//! moving-phase tables at its leaves, with a transposition table keyed by
//! the symmetry class of the position.
//!
//! The search works with win/draw/loss only (no plies): that is all a
//! proof of the value of the start needs, and it lets alpha-beta cut far
//! more than a search for exact plies would.

mod repetition;

mod tt;

pub use tt::{Bounds, TranspositionTable, class_key};

use crate::index::Indexer;
use crate::moves::{Move, legal_moves};
use crate::position::{Color, Position};
use crate::query::{MoveValue, ProbeError, TableSet};
use crate::rules::Rules;
use crate::table::Wdl;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// Positions with at least this many plies left in the placing phase
/// search their children in parallel (below it a subtree is too small to
/// pay for handing it to another thread).
const PARALLEL_PLIES: u32 = 5;

/// An alpha-beta search over the placing phase. Under Lasker rules the
/// placing phase has cycles, and a position repeated on the path scores a
/// draw (see `repetition.rs`).
///
/// The search runs on the rayon thread pool: at positions near the root,
/// after the first move (the one most likely to cut) has been searched
/// alone, the other moves are searched in parallel, all threads sharing
/// one lock-free transposition table. Every window is a null window, so the
/// moves of a position are searched with the same window whatever order
/// they finish in: the value found does not depend on the threads.
pub struct OpeningSearch<'a> {
    tables: &'a TableSet,
    rules: Rules,
    indexer: &'static Indexer,
    tt: TranspositionTable,
    nodes: Counter,
    probes: Counter,
    /// Whether placing-phase tables order the moves (never decide values).
    hints: bool,
    hint_probes: Counter,
    /// The longest path the search followed (under Lasker rules).
    longest_path: AtomicU32,
}

fn score(w: Wdl) -> i8 {
    match w {
        Wdl::Win => 1,
        Wdl::Draw => 0,
        Wdl::Loss => -1,
    }
}

/// Win/draw/loss of a score.
pub fn wdl_of(score: i8) -> Wdl {
    match score {
        1 => Wdl::Win,
        0 => Wdl::Draw,
        _ => Wdl::Loss,
    }
}

/// A statistics counter with one cache line per thread, so that threads
/// counting at every node do not pass one line back and forth.
#[derive(Default)]
struct Counter([PaddedCount; 8]);

#[derive(Default)]
#[repr(align(128))]
struct PaddedCount(AtomicU64);

impl Counter {
    fn add(&self) {
        let i = rayon::current_thread_index().unwrap_or(0) % self.0.len();
        self.0[i].0.fetch_add(1, Ordering::Relaxed);
    }

    fn total(&self) -> u64 {
        self.0.iter().map(|c| c.0.load(Ordering::Relaxed)).sum()
    }
}

impl<'a> OpeningSearch<'a> {
    /// A search reading the moving-phase tables of `tables`, with a
    /// transposition table sized for the rule set's stone count
    /// (`8 << (11 + 2 N)` bytes, 16 times that under Lasker rules, at most
    /// 4 GiB).
    pub fn new(tables: &'a TableSet) -> OpeningSearch<'a> {
        let stones = tables.rules().max_stones() as u32;
        // Slides during a Lasker placing phase reach far more classes.
        let lasker = if tables.rules().lasker { 4 } else { 0 };
        OpeningSearch::with_table_bits(tables, (11 + 2 * stones + lasker).min(29))
    }

    /// A search with a transposition table of `2^bits` slots of 8 bytes.
    pub fn with_table_bits(tables: &'a TableSet, bits: u32) -> OpeningSearch<'a> {
        let rules = *tables.rules();
        OpeningSearch {
            tables,
            rules,
            indexer: Indexer::for_board(rules.board()),
            tt: TranspositionTable::new(bits.max(1)),
            nodes: Counter::default(),
            probes: Counter::default(),
            hints: false,
            hint_probes: Counter::default(),
            longest_path: AtomicU32::new(0),
        }
    }

    /// Lets the placing-phase tables order the moves: at each position the
    /// move they call best is searched first. The value found still comes
    /// from the moving-phase tables alone (alpha-beta's result does not
    /// depend on the move order), so wrong hints could only slow the
    /// search, never change its answer. Positions whose table is missing
    /// are searched in the plain order.
    pub fn with_hints(mut self) -> Self {
        self.hints = true;
        self
    }

    /// The longest path from a root that the search followed under Lasker
    /// rules (cycles: slides during the placing phase), in plies.
    pub fn longest_path(&self) -> u32 {
        self.longest_path.load(Ordering::Relaxed)
    }

    /// Positions searched (interior nodes and leaves).
    pub fn nodes(&self) -> u64 {
        self.nodes.total()
    }

    /// Leaves read from the moving-phase tables.
    pub fn probes(&self) -> u64 {
        self.probes.total()
    }

    /// Placing-phase table reads made for move ordering.
    pub fn hint_probes(&self) -> u64 {
        self.hint_probes.total()
    }

    /// Moves to the front the first move that the placing tables say makes
    /// the search of `pos` with the null window below `beta` cut (a move
    /// worth at least `beta` to the mover). When the tables say no move
    /// does, the order is left alone: every move will be searched anyway.
    fn order_by_hint(&self, pos: &Position, moves: &mut [Move], beta: i8) {
        self.hint_probes.add();
        match self.tables.probe_wdl(pos) {
            Ok(w) if score(w) >= beta => {}
            // Expected to fail low, or no table: keep the order.
            _ => return,
        }
        for i in 0..moves.len() {
            self.hint_probes.add();
            match self.tables.probe_wdl(&pos.play(&moves[i])) {
                Ok(w) if -score(w) >= beta => {
                    moves[..=i].rotate_right(1);
                    return;
                }
                Ok(_) => {}
                Err(_) => return,
            }
        }
    }

    /// The symmetry class of a position as one number: the smallest image
    /// of (side to move's stones, other stones) under the board's
    /// symmetries, with both hands.
    fn key(&self, pos: &Position) -> u64 {
        let us = pos.stones[pos.to_move];
        let them = pos.stones[!pos.to_move];
        let n = self.rules.board().symmetries.len();
        let best = (0..n)
            .map(|s| {
                let a = self.indexer.apply_symmetry(s, us).0 as u64;
                let b = self.indexer.apply_symmetry(s, them).0 as u64;
                (a << 24) | b
            })
            .min()
            .expect("the identity is a symmetry");
        class_key(best, pos.hand[pos.to_move], pos.hand[!pos.to_move])
    }

    /// Win (1), draw (0) or loss (-1) for the side to move, searched with
    /// the null window `beta - 1..beta`: a result below `beta` is an upper
    /// bound, one at or above it a lower bound.
    fn search(&self, pos: &Position, beta: i8) -> Result<i8, ProbeError> {
        self.nodes.add();
        if pos.is_moving_phase() {
            self.probes.add();
            return Ok(score(self.tables.probe_wdl(pos)?));
        }
        let mover = pos.to_move;
        if pos.stones[mover].len() + (pos.hand[mover] as u32) < 3 {
            return Ok(-1);
        }
        let key = self.key(pos);
        let known = self.tt.get(key);
        if let Some(v) = known.decides(beta) {
            return Ok(v);
        }
        let mut moves = Vec::with_capacity(32);
        legal_moves(pos, &self.rules, &mut moves);
        // Closing a mill first, then blocking the opponent's, then making
        // two in a line: the moves most often best.
        let board = self.rules.board();
        moves.sort_by_cached_key(|m: &Move| std::cmp::Reverse(move_promise(board, pos, m)));
        if self.hints {
            self.order_by_hint(pos, &mut moves, beta);
        }
        let child = |m: &Move| self.search(&pos.play(m), 1 - beta).map(|v| -v);
        let plies_left = pos.hand.white as u32 + pos.hand.black as u32;
        let best = if plies_left >= PARALLEL_PLIES && moves.len() > 1 {
            let first = child(&moves[0])?;
            if first >= beta {
                first
            } else {
                let cut = AtomicBool::new(false);
                moves[1..]
                    .par_iter()
                    .map(|m| {
                        if cut.load(Ordering::Relaxed) {
                            return Ok::<i8, ProbeError>(-1);
                        }
                        let v = child(m)?;
                        if v >= beta {
                            cut.store(true, Ordering::Relaxed);
                        }
                        Ok(v)
                    })
                    .try_reduce(|| first, |a, b| Ok(a.max(b)))?
            }
        } else {
            let mut best = -1;
            for m in &moves {
                best = best.max(child(m)?);
                if best >= beta {
                    break;
                }
            }
            best
        };
        self.tt.put(key, known.with_result(best, beta));
        Ok(best)
    }

    /// The exact win/draw/loss of `pos` for the side to move.
    ///
    /// Two null-window searches: "is it better than a loss?", then "is it
    /// a win?". Each needs only one good move where the side it favours is
    /// to move, which prunes far more than one search with the full window.
    pub fn value(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        if self.rules.lasker {
            return self.repetition_value(pos);
        }
        if self.search(pos, 0)? < 0 {
            return Ok(Wdl::Loss);
        }
        Ok(if self.search(pos, 1)? >= 1 {
            Wdl::Win
        } else {
            Wdl::Draw
        })
    }

    /// A principal line from `pos` to the moving phase: at each step the
    /// first move that keeps the value. A line that comes back to a
    /// position (Lasker rules, a draw) ends there.
    pub fn principal_line(&self, pos: &Position) -> Result<Vec<Move>, ProbeError> {
        let mut line = Vec::new();
        let mut pos = *pos;
        // Under Lasker rules a drawn line may go round: it stops where a
        // position comes again.
        let mut seen = std::collections::HashSet::new();
        while !pos.is_moving_phase() && seen.insert(pos) {
            let v = score(self.value(&pos)?);
            let mut moves = Vec::new();
            legal_moves(&pos, &self.rules, &mut moves);
            let mut next = None;
            for m in moves {
                if -score(self.value(&pos.play(&m))?) == v {
                    next = Some(m);
                    break;
                }
            }
            match next {
                Some(m) => {
                    pos = pos.play(&m);
                    line.push(m);
                }
                None => break,
            }
        }
        Ok(line)
    }

    /// Classes in the transposition table (a scan of the whole table).
    pub fn table_len(&self) -> usize {
        self.tt.len()
    }
}

/// How promising a move looks before it is searched, for move ordering:
/// stones removed first, then the opponent's open mills it blocks, then the
/// lines it makes two of the mover's with the third point empty.
fn move_promise(board: &crate::geometry::Board, pos: &Position, m: &Move) -> u32 {
    let ours = match m.from {
        Some(f) => pos.stones[pos.to_move].without(f),
        None => pos.stones[pos.to_move],
    };
    let theirs = pos.stones[!pos.to_move];
    let empty = board.all.minus(ours.union(theirs));
    let (mut blocks, mut twos) = (0, 0);
    for line in &board.lines_through[m.to.index()] {
        let rest = line.without(m.to);
        if rest.is_subset(theirs) {
            blocks += 1;
        } else if rest.intersect(ours).len() == 1 && rest.intersect(empty).len() == 1 {
            twos += 1;
        }
    }
    (m.removed.len() << 8) | (blocks << 4) | twos
}

/// The first moves of `pos` up to symmetry: one move per class of the
/// resulting position, in move order.
pub fn distinct_first_moves(pos: &Position, rules: &Rules) -> Vec<Move> {
    let indexer = Indexer::for_board(rules.board());
    let mut seen = std::collections::HashSet::new();
    let mut moves = Vec::new();
    legal_moves(pos, rules, &mut moves);
    moves
        .into_iter()
        .filter(|m| {
            let c = pos.play(m);
            let n = rules.board().symmetries.len();
            let key = (0..n)
                .map(|s| {
                    (
                        indexer.apply_symmetry(s, c.stones[Color::White]).0,
                        indexer.apply_symmetry(s, c.stones[Color::Black]).0,
                    )
                })
                .min();
            seen.insert(key)
        })
        .collect()
}

/// A principal line from `pos` to the moving phase read from the tables
/// alone (placing-phase tables needed): at each step the best move by
/// [`TableSet::probe_moves`], with its value for the side that makes it.
/// A line that comes back to a position (Lasker rules, a draw) ends there.
pub fn table_line(tables: &TableSet, pos: &Position) -> Result<Vec<MoveValue>, ProbeError> {
    let mut line = Vec::new();
    let mut pos = *pos;
    // A drawn line may go round (Lasker rules): it stops at a repetition.
    let mut seen = std::collections::HashSet::new();
    while !pos.is_moving_phase() && seen.insert(pos) {
        let Some(best) = tables.probe_moves(&pos)?.into_iter().next() else {
            break;
        };
        pos = pos.play(&best.mv);
        line.push(best);
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_board_string;

    #[test]
    fn promising_moves_come_first() {
        let rules: Rules = "standard".parse().unwrap();
        // White holds points 0 and 1 (line 0-1-2), Black 4 and 5 (line 4-5-6).
        let pos = parse_board_string("WW..BB.................. w 7 7", &rules).unwrap();
        let mut moves = Vec::new();
        legal_moves(&pos, &rules, &mut moves);
        let board = rules.board();
        moves.sort_by_cached_key(|m| std::cmp::Reverse(move_promise(board, &pos, m)));
        // Closing the mill at 2 (one move per removal), then blocking at 6.
        assert!(
            moves[..2]
                .iter()
                .all(|m| m.to.index() == 2 && m.removed.len() == 1)
        );
        assert_eq!(moves[2].to.index(), 6);
        assert!(moves[2].removed.is_empty());
        // Making two in a line (3 next to nothing of White's does not).
        let at = |i: usize| moves.iter().position(|m| m.to.index() == i).unwrap();
        assert!(at(7) < at(3), "7 makes 0-7 on line 6-7-0; 3 makes nothing");
    }
}
