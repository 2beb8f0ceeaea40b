//! A heuristic alpha-beta player, the kind of opponent Gévay and Danner
//! measured perfect play against: iterative deepening, a transposition
//! table, killer moves, and an evaluation from the stones on the board and
//! in hand, mobility and open mills. It knows nothing of the tables.
//!
//! It searches until a budget of nodes is spent and plays the best move of
//! the deepest search it finished; among root moves of equal score it
//! picks at random (seeded), so that games differ.

use crate::moves::{Move, legal_moves, no_moves_draws};
use crate::position::{Color, Position};
use crate::rules::Rules;

/// A won or lost end, less the plies to it.
const MATE: i32 = 1_000_000;
const INF: i32 = 2 * MATE;

/// Evaluation weights, in points (a stone is 100).
const STONE: i32 = 100;
/// Two stones of a line with its third point empty.
const OPEN_MILL: i32 = 16;
/// Per empty point next to a stone, in the moving phase (not flying).
const MOBILITY: i32 = 4;

#[derive(Clone, Copy, Default)]
struct Entry {
    /// The position's exact key (0: empty).
    key: u64,
    depth: i8,
    bound: Bound,
    score: i32,
    best: Option<Move>,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Exact,
    Lower,
    Upper,
}

/// The search, with its tables kept from move to move of one game.
pub struct AlphaBeta {
    rules: Rules,
    tt: Vec<Entry>,
    killers: Vec<[Option<Move>; 2]>,
    /// One move buffer per ply, reused.
    buffers: Vec<Vec<Move>>,
    nodes: u64,
    budget: u64,
    stopped: bool,
    /// The deepest iteration the last search finished.
    depth: i8,
}

/// The static value of `pos` for the side to move, in points (a stone is
/// 100): stones on the board and in hand, open mills (two stones of a line
/// with the third point empty), and in the moving phase the empty points
/// next to a side's stones.
pub fn evaluate(rules: &Rules, pos: &Position) -> i32 {
    let board = rules.board();
    let us = pos.to_move;
    let side = |c: Color| {
        let mine = pos.stones[c];
        let theirs = pos.stones[!c];
        let empty = board.all.minus(mine.union(theirs));
        let mut score = STONE * pos.total(c) as i32;
        for &l in &board.lines {
            if l.intersect(mine).len() == 2 && l.intersect(empty).len() == 1 {
                score += OPEN_MILL;
            }
        }
        if pos.hand[c] == 0 && !rules.flies(mine.len()) {
            let free: u32 = mine
                .iter()
                .map(|p| board.neighbours[p.index()].intersect(empty).len())
                .sum();
            score += MOBILITY * free as i32;
        }
        score
    };
    side(us) - side(!us)
}

/// Transposition table entries (a power of two).
const TT_ENTRIES: usize = 1 << 20;

/// The exact key of a position: both stone sets, the hands, the side.
fn key(p: &Position) -> u64 {
    (p.stones.white.0 as u64)
        | (p.stones.black.0 as u64) << 24
        | (p.hand.white as u64) << 48
        | (p.hand.black as u64) << 53
        | ((p.to_move == Color::Black) as u64) << 58
        | 1 << 59
}

fn slot(k: u64) -> usize {
    let mut z = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z ^= z >> 29;
    (z as usize) & (TT_ENTRIES - 1)
}

impl AlphaBeta {
    /// A search for `rules`.
    pub fn new(rules: Rules) -> AlphaBeta {
        AlphaBeta {
            rules,
            tt: vec![Entry::default(); TT_ENTRIES],
            killers: Vec::new(),
            buffers: Vec::new(),
            nodes: 0,
            budget: 0,
            stopped: false,
            depth: 0,
        }
    }

    /// The best move found within `budget` nodes, `pick` choosing among the
    /// root moves of equal best score (given their count); `None` when the
    /// side to move has no move.
    pub fn best_move(
        &mut self,
        pos: &Position,
        budget: u64,
        mut pick: impl FnMut(usize) -> usize,
    ) -> Option<Move> {
        let mut root = Vec::new();
        legal_moves(pos, &self.rules, &mut root);
        if root.len() <= 1 {
            return root.first().copied();
        }
        self.nodes = 0;
        self.budget = budget.max(1);
        self.stopped = false;
        self.depth = 0;
        let mut best: Vec<Move> = root.clone();
        for depth in 1..64i8 {
            let mut scores = Vec::with_capacity(root.len());
            let mut alpha = -INF;
            // Last iteration's best first.
            root.sort_by_key(|m| !best.contains(m));
            for mv in &root {
                let child = pos.play(mv);
                // A full window on the first move, then a null window that
                // still tells ties apart.
                let s = -self.negamax(&child, depth - 1, -INF, -(alpha - 1), 1);
                if self.stopped {
                    break;
                }
                alpha = alpha.max(s);
                scores.push((s, *mv));
            }
            if self.stopped && depth > 1 {
                break;
            }
            if !self.stopped {
                self.depth = depth;
            }
            let top = scores.iter().map(|s| s.0).max().unwrap_or(-INF);
            best = scores.iter().filter(|s| s.0 == top).map(|s| s.1).collect();
            if self.stopped || top.abs() >= MATE - 64 {
                break;
            }
        }
        best.sort();
        Some(best[pick(best.len()).min(best.len() - 1)])
    }

    fn negamax(&mut self, pos: &Position, depth: i8, alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if self.nodes >= self.budget {
            self.stopped = true;
            return 0;
        }
        if self.buffers.len() <= ply {
            self.buffers.resize_with(ply + 1, Vec::new);
            self.killers.resize(ply + 1, [None; 2]);
        }
        // The ply's move buffer, lent to the search of this node.
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        legal_moves(pos, &self.rules, &mut moves);
        let score = self.search_node(pos, &mut moves, depth, alpha, beta, ply);
        self.buffers[ply] = moves;
        score
    }

    /// [`Self::negamax`] for a node whose legal moves are `moves`.
    fn search_node(
        &mut self,
        pos: &Position,
        moves: &mut [Move],
        depth: i8,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        if moves.is_empty() {
            return if no_moves_draws(pos, &self.rules) {
                0
            } else {
                -(MATE - ply as i32)
            };
        }
        if depth <= 0 {
            return evaluate(&self.rules, pos);
        }
        let k = key(pos);
        let e = self.tt[slot(k)];
        let mut hint = None;
        if e.key == k {
            hint = e.best;
            if e.depth >= depth {
                match e.bound {
                    Bound::Exact => return e.score,
                    Bound::Lower if e.score >= beta => return e.score,
                    Bound::Upper if e.score <= alpha => return e.score,
                    _ => {}
                }
            }
        }
        // The table's move, then captures, then killers, then the rest.
        let killers = self.killers[ply];
        moves.sort_by_key(|m| {
            if Some(*m) == hint {
                0
            } else if !m.removed.is_empty() {
                1
            } else if killers.contains(&Some(*m)) {
                2
            } else {
                3
            }
        });
        let start_alpha = alpha;
        let mut best_score = -INF;
        let mut best = None;
        for mv in moves.iter() {
            let s = -self.negamax(&pos.play(mv), depth - 1, -beta, -alpha, ply + 1);
            if self.stopped {
                return 0;
            }
            if s > best_score {
                best_score = s;
                best = Some(*mv);
            }
            alpha = alpha.max(s);
            if alpha >= beta {
                if mv.removed.is_empty() && self.killers[ply][0] != Some(*mv) {
                    self.killers[ply] = [Some(*mv), self.killers[ply][0]];
                }
                break;
            }
        }
        let bound = if best_score <= start_alpha {
            Bound::Upper
        } else if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.tt[slot(k)] = Entry {
            key: k,
            depth,
            bound,
            score: best_score,
            best,
        };
        best_score
    }

    /// Nodes visited by the last search.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The deepest iteration (plies) the last search finished: its move
    /// stands on that depth and what the unfinished next one had seen.
    pub fn depth(&self) -> i8 {
        self.depth
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_position;

    #[test]
    fn it_closes_a_mill_that_wins_and_blocks_one_that_loses() {
        let rules: Rules = "standard,stones=4".parse().unwrap();
        // White to move: g4-g7 closes a7 d7 g7 and takes Black's third
        // stone but one: Black is down to two.
        let p = parse_position("WW.W..../B...B.../....WB.. w 0 0", &rules)
            .unwrap()
            .position;
        let mut s = AlphaBeta::new(rules);
        let mv = s.best_move(&p, 20_000, |_| 0).unwrap();
        assert_eq!(p.play(&mv).total(Color::Black), 2, "{mv:?}");
    }
}
