//! Game-theoretic value of placing-phase positions by alpha-beta search
//! (Gasser's method): a search over the placing phase that reads only the
//! moving-phase tables at its leaves, with a transposition table keyed by
//! the symmetry class of the position.
//!
//! The search works with win/draw/loss only (no plies): that is all a
//! proof of the value of the start needs, and it lets alpha-beta cut far
//! more than a search for exact plies would.

use crate::index::Indexer;
use crate::moves::{Move, legal_moves};
use crate::position::{Color, Position};
use crate::query::FastHasher;
use crate::query::{MoveValue, ProbeError, TableSet};
use crate::rules::Rules;
use crate::table::Wdl;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// Most classes kept in the transposition table (about 4.5 GiB; it is
/// emptied when full).
const TT_LIMIT: usize = 1 << 27;

type Tt = HashMap<u64, Bounds, BuildHasherDefault<FastHasher>>;

/// Bounds known for a class: the value lies in `lower..=upper`
/// (-1 loss, 0 draw, 1 win for the side to move).
#[derive(Clone, Copy)]
struct Bounds {
    lower: i8,
    upper: i8,
}

/// An alpha-beta search over the placing phase. The placing phase must be
/// acyclic (no moving during placing: see
/// [`crate::placing::placing_supported`]).
pub struct OpeningSearch<'a> {
    tables: &'a TableSet,
    rules: Rules,
    indexer: &'static Indexer,
    tt: Tt,
    /// Move lists, one per ply of the current line (no allocation per node).
    move_lists: Vec<Vec<Move>>,
    ply: usize,
    /// Positions searched (interior nodes and leaves).
    pub nodes: u64,
    /// Leaves read from the moving-phase tables.
    pub probes: u64,
    /// Whether placing-phase tables order the moves (never decide values).
    hints: bool,
    /// Placing-phase table reads made for move ordering.
    pub hint_probes: u64,
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

impl<'a> OpeningSearch<'a> {
    /// A search reading the moving-phase tables of `tables`.
    pub fn new(tables: &'a TableSet) -> OpeningSearch<'a> {
        let rules = *tables.rules();
        OpeningSearch {
            tables,
            rules,
            indexer: Indexer::for_board(rules.board()),
            tt: Tt::default(),
            move_lists: Vec::new(),
            ply: 0,
            nodes: 0,
            probes: 0,
            hints: false,
            hint_probes: 0,
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

    /// Moves the first move that the placing tables call best to the front.
    fn order_by_hint(&mut self, pos: &Position, moves: &mut [Move]) {
        self.hint_probes += 1;
        let want = match self.tables.probe_wdl(pos) {
            Ok(Wdl::Win) => Wdl::Loss,
            Ok(Wdl::Draw) => Wdl::Draw,
            // Lost anyway (every move loses), or no table: keep the order.
            _ => return,
        };
        for i in 0..moves.len() {
            self.hint_probes += 1;
            match self.tables.probe_wdl(&pos.play(&moves[i])) {
                Ok(w) if w == want => {
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
        let hands = (pos.hand[pos.to_move] as u64) << 4 | pos.hand[!pos.to_move] as u64;
        (best << 8) | hands
    }

    /// Win (1), draw (0) or loss (-1) for the side to move, searched with
    /// the window `alpha..beta` (a result outside it is only a bound).
    fn search(&mut self, pos: &Position, mut alpha: i8, beta: i8) -> Result<i8, ProbeError> {
        self.nodes += 1;
        if pos.is_moving_phase() {
            self.probes += 1;
            return Ok(score(self.tables.probe_wdl(pos)?));
        }
        let mover = pos.to_move;
        if pos.stones[mover].len() + (pos.hand[mover] as u32) < 3 {
            return Ok(-1);
        }
        let key = self.key(pos);
        let known = self.tt.get(&key).copied().unwrap_or(Bounds {
            lower: -1,
            upper: 1,
        });
        if known.lower == known.upper || known.lower >= beta {
            return Ok(known.lower);
        }
        if known.upper <= alpha {
            return Ok(known.upper);
        }
        let alpha0 = alpha.max(known.lower);
        alpha = alpha0;
        let beta = beta.min(known.upper);
        if self.move_lists.len() <= self.ply {
            self.move_lists.push(Vec::new());
        }
        let mut moves = std::mem::take(&mut self.move_lists[self.ply]);
        legal_moves(pos, &self.rules, &mut moves);
        // Closing a mill first: it is the move most often best.
        moves.sort_by_key(|m: &Move| std::cmp::Reverse(m.removed.len()));
        if self.hints {
            self.order_by_hint(pos, &mut moves);
        }
        let mut best = -1i8;
        let mut failed = None;
        self.ply += 1;
        for m in &moves {
            let v = match self.search(&pos.play(m), -beta, -alpha) {
                Ok(v) => -v,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            };
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        self.ply -= 1;
        self.move_lists[self.ply] = moves;
        if let Some(e) = failed {
            return Err(e);
        }
        let mut b = known;
        if best <= alpha0 {
            b.upper = b.upper.min(best);
        }
        if best >= beta {
            b.lower = b.lower.max(best);
        }
        if best > alpha0 && best < beta {
            b = Bounds {
                lower: best,
                upper: best,
            };
        }
        if self.tt.len() >= TT_LIMIT {
            // A cache, not a proof: forgetting costs time, never truth.
            self.tt.clear();
        }
        self.tt.insert(key, b);
        Ok(best)
    }

    /// The exact win/draw/loss of `pos` for the side to move.
    ///
    /// Two null-window searches: "is it better than a loss?", then "is it
    /// a win?". Each needs only one good move where the side it favours is
    /// to move, which prunes far more than one search with the full window.
    pub fn value(&mut self, pos: &Position) -> Result<Wdl, ProbeError> {
        if self.search(pos, -1, 0)? < 0 {
            return Ok(Wdl::Loss);
        }
        Ok(if self.search(pos, 0, 1)? >= 1 {
            Wdl::Win
        } else {
            Wdl::Draw
        })
    }

    /// A principal line from `pos` to the moving phase: at each step the
    /// first move that keeps the value.
    pub fn principal_line(&mut self, pos: &Position) -> Result<Vec<Move>, ProbeError> {
        let mut line = Vec::new();
        let mut pos = *pos;
        while !pos.is_moving_phase() {
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

    /// Positions in the transposition table.
    pub fn table_len(&self) -> usize {
        self.tt.len()
    }
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
pub fn table_line(tables: &TableSet, pos: &Position) -> Result<Vec<MoveValue>, ProbeError> {
    let mut line = Vec::new();
    let mut pos = *pos;
    while !pos.is_moving_phase() {
        let Some(best) = tables.probe_moves(&pos)?.into_iter().next() else {
            break;
        };
        pos = pos.play(&best.mv);
        line.push(best);
    }
    Ok(line)
}
