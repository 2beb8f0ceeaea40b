//! The value of a placing-phase position when that phase has cycles
//! (Lasker rules: a side with stones in hand may move a stone instead of
//! placing one, and such moves can come back to a position).
//!
//! Alpha-beta with "a repetition on the path is a draw" gives the right
//! value, but its results depend on the path, so the transposition table
//! may keep only few of them: on `lasker,stones=4/3` the search had not
//! finished after 5 minutes. Instead, the positions reachable from the
//! root are generated forward up to symmetry (the forward move generator,
//! the moving-phase tables at the leaves) and the finite graph is solved
//! by retrograde analysis of its own: a position with a lost child is won,
//! one whose children are all won is lost, and what is still open at the
//! end is a draw (neither side can force the game to end: endless play,
//! with or without a repetition rule). Nothing is shared with the table
//! builder (no index, no unmove generator, no placing-phase table).

use super::{OpeningSearch, score, wdl_of};
use crate::moves::{legal_moves, no_moves_draws};
use crate::position::Position;
use crate::query::ProbeError;
use crate::table::Wdl;
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// Memory a class of the graph takes, about (its key, position, value,
/// counts and edges; measured: 0.81 GB for 3.59 M classes).
pub const GRAPH_BYTES_PER_CLASS: u64 = 250;

/// Values found so far, by class key.
#[derive(Default)]
pub(super) struct Solved(HashMap<u64, Wdl>);

impl OpeningSearch<'_> {
    /// The win/draw/loss of `pos` for the side to move, from the graph of
    /// the positions it reaches (see the module's notes). Every class of
    /// the graph is remembered, so that later calls below the first root
    /// are lookups.
    pub(super) fn cyclic_value(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        if pos.is_moving_phase() {
            return self.tables.probe_wdl(pos);
        }
        if let Some(&w) = self
            .solved
            .lock()
            .expect("no panic holding it")
            .0
            .get(&self.key(pos))
        {
            return Ok(w);
        }
        let values = self.solve_graph(pos)?;
        let mut solved = self.solved.lock().expect("no panic holding it");
        solved.0.extend(values);
        Ok(solved.0[&self.key(pos)])
    }

    /// Lets the graph of [`OpeningSearch::cyclic_value`] hold at most
    /// `classes` classes: beyond them it stops with an error, and
    /// [`OpeningSearch::graph_too_large`] says why.
    pub fn with_graph_limit(mut self, classes: u64) -> Self {
        self.graph_limit = classes;
        self
    }

    /// Whether a graph passed the limit of
    /// [`OpeningSearch::with_graph_limit`].
    pub fn graph_too_large(&self) -> bool {
        self.graph_too_large.load(Ordering::Relaxed)
    }

    /// Generates the graph below `root` and solves it.
    fn solve_graph(&self, root: &Position) -> Result<HashMap<u64, Wdl>, ProbeError> {
        let mut ids: HashMap<u64, u32> = HashMap::new();
        let mut nodes: Vec<Position> = vec![*root];
        ids.insert(self.key(root), 0);
        // Per node: its best leaf for the side to move (-1 loss, 0 draw,
        // 1 win; `None` without leaves), and its distinct inner children.
        let mut best_leaf: Vec<Option<i8>> = Vec::new();
        let mut open_children: Vec<u32> = Vec::new();
        let mut parents: Vec<Vec<u32>> = vec![Vec::new()];
        let mut moves = Vec::new();
        let mut children = Vec::new();
        let mut i = 0;
        while i < nodes.len() {
            if nodes.len() as u64 > self.graph_limit {
                self.graph_too_large.store(true, Ordering::Relaxed);
                return Err(ProbeError::NotCovered(format!(
                    "the placing phase's graph passed {} classes, more than fits in memory",
                    self.graph_limit
                )));
            }
            let pos = nodes[i];
            self.nodes.add();
            legal_moves(&pos, &self.rules, &mut moves);
            let mut leaf: Option<i8> = None;
            children.clear();
            for m in &moves {
                let child = pos.play(m);
                let mover = child.to_move;
                let v = if child.stones[mover].len() + (child.hand[mover] as u32) < 3 {
                    Some(-1)
                } else if child.is_moving_phase() {
                    self.probes.add();
                    Some(score(self.tables.probe_wdl(&child)?))
                } else {
                    None
                };
                match v {
                    Some(v) => leaf = leaf.max(Some(-v)),
                    None => {
                        let next = nodes.len() as u32;
                        let id = *ids.entry(self.key(&child)).or_insert(next);
                        if id == next {
                            nodes.push(child);
                            parents.push(Vec::new());
                        }
                        children.push(id);
                    }
                }
            }
            if moves.is_empty() {
                leaf = Some(if no_moves_draws(&pos, &self.rules) {
                    0
                } else {
                    -1
                });
            }
            children.sort_unstable();
            children.dedup();
            for &c in &children {
                parents[c as usize].push(i as u32);
            }
            best_leaf.push(leaf);
            open_children.push(children.len() as u32);
            i += 1;
        }
        // Retrograde analysis: decided positions tell their parents.
        let mut value: Vec<Option<i8>> = vec![None; nodes.len()];
        let mut queue: Vec<u32> = Vec::new();
        for n in 0..nodes.len() {
            let v = match (best_leaf[n], open_children[n]) {
                (Some(1), _) => Some(1),
                (leaf, 0) => Some(leaf.expect("a position without children has a leaf")),
                _ => None,
            };
            if let Some(v) = v {
                value[n] = Some(v);
                queue.push(n as u32);
            }
        }
        while let Some(c) = queue.pop() {
            let v = value[c as usize].expect("queued when decided");
            for &p in &parents[c as usize] {
                let p = p as usize;
                if value[p].is_some() {
                    continue;
                }
                match v {
                    -1 => {
                        value[p] = Some(1);
                        queue.push(p as u32);
                    }
                    1 => {
                        open_children[p] -= 1;
                        if open_children[p] == 0 {
                            value[p] = Some(best_leaf[p].unwrap_or(-1));
                            queue.push(p as u32);
                        }
                    }
                    // A drawn child keeps its parents open: at the end they
                    // are drawn or better.
                    _ => {}
                }
            }
        }
        Ok(ids
            .into_iter()
            .map(|(key, id)| (key, wdl_of(value[id as usize].unwrap_or(0))))
            .collect())
    }
}
