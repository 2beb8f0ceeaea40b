//! Alpha-beta over a placing phase with cycles (Lasker rules), a
//! repetition on the path scoring a draw, in the memory of its
//! transposition table and of the results still open on the path.
//!
//! Endless play is a draw, so scoring a position that comes again on the
//! path as a draw is sound for the side a draw satisfies: each null-window
//! test has one such side (the mover when testing "better than a loss?",
//! the other side when testing "a win?"), and its strategy can repeat what
//! it did the first time the position came. Such a result leans on that
//! earlier occurrence, still being searched, turning out as hoped; each
//! result carries the shallowest path depth it leans on, as in Tarjan's
//! strongly connected components. A result that leans on nothing above its
//! own position holds whatever the path and goes into the transposition
//! table. One that leans higher is kept aside as *provisional*, used again
//! below the position it leans on, and settled when that position is done:
//! into the table when it turned out as hoped (the positions and their
//! choices then form a closed strategy: endless play or a good end), thrown
//! away when it did not. A result against the side a draw satisfies (a
//! win for the other side) never leans on anything: repetitions, and
//! provisional results, only ever favour that side, so what it fails to
//! reach even so, it cannot reach.

use super::{Bounds, OpeningSearch, move_promise, score};
use crate::moves::{Move, legal_moves, no_moves_draws};
use crate::position::Position;
use crate::query::ProbeError;
use crate::table::Wdl;
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// Leans on no position of the path.
const FREE: u32 = u32::MAX;

/// Deepest path the search follows before it gives up with an error.
const MAX_PATH: u32 = 1_000_000;

/// Stack of the threads running the search: room for [`MAX_PATH`] frames
/// (a frame took 304 bytes in a release build; address space only, pages
/// are taken as the path grows).
const STACK_BYTES: usize = 2 << 30;

/// Results that lean on positions still on the path (see the module's
/// notes), for one null-window test.
#[derive(Default)]
struct Provisional {
    /// The class keys on the path from the root, with their depths.
    on_path: HashMap<u64, u32>,
    /// By class key: its bounds, the depth it leans on, and its serial
    /// number.
    entries: HashMap<u64, (Bounds, u32, u64)>,
    /// Per depth leaned on: the keys and serial numbers leaning there
    /// (an entry dropped or replaced since no longer matches: skipped).
    by_depth: Vec<Vec<(u64, u64)>>,
    /// Every entry in the order made (rising serial numbers), for
    /// dropping the newest.
    log: Vec<(u64, u64)>,
    /// Serial numbers given so far.
    made: u64,
}

impl Provisional {
    fn add(&mut self, key: u64, b: Bounds, low: u32) {
        self.made += 1;
        self.entries.insert(key, (b, low, self.made));
        self.log.push((key, self.made));
        self.lean(key, self.made, low);
        if self.log.len() > 1024 && self.log.len() > 2 * self.entries.len() {
            let entries = &self.entries;
            self.log
                .retain(|(k, serial)| entries.get(k).is_some_and(|e| e.2 == *serial));
        }
    }

    fn lean(&mut self, key: u64, serial: u64, low: u32) {
        let d = low as usize;
        if self.by_depth.len() <= d {
            self.by_depth.resize_with(d + 1, Vec::new);
        }
        self.by_depth[d].push((key, serial));
    }

    /// The entries still current that lean on `depth`, taken off the list.
    fn leaning_on(&mut self, depth: u32) -> Vec<(u64, u64, Bounds)> {
        let list = self
            .by_depth
            .get_mut(depth as usize)
            .map(std::mem::take)
            .unwrap_or_default();
        list.into_iter()
            .filter_map(|(key, serial)| match self.entries.get(&key) {
                Some(&(b, _, s)) if s == serial => Some((key, serial, b)),
                _ => None,
            })
            .collect()
    }

    /// The position begun at serial number `begun` turned out
    /// against the side a draw satisfies: every result made below it since
    /// may have leant on it, and goes.
    fn drop_since(&mut self, begun: u64) {
        while let Some(&(key, serial)) = self.log.last() {
            if serial <= begun {
                break;
            }
            self.log.pop();
            if self.entries.get(&key).is_some_and(|e| e.2 == serial) {
                self.entries.remove(&key);
            }
        }
    }
}

impl OpeningSearch<'_> {
    /// The win/draw/loss of `pos` for the side to move by the two
    /// null-window tests of [`OpeningSearch::value`], run side by side.
    pub(super) fn repetition_value(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        let test = |beta: i8| {
            let mut provisional = Provisional::default();
            self.search_with_repetitions(pos, beta, 0, &mut provisional)
                .map(|(v, _)| v)
        };
        let (lower, upper) = std::thread::scope(|s| {
            let spawn = |beta: i8| {
                std::thread::Builder::new()
                    .stack_size(STACK_BYTES)
                    .spawn_scoped(s, move || test(beta))
                    .expect("a thread for the search")
            };
            let (a, b) = (spawn(0), spawn(1));
            let join = |h: std::thread::ScopedJoinHandle<'_, _>| {
                h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
            };
            (join(a), join(b))
        });
        if lower? < 0 {
            return Ok(Wdl::Loss);
        }
        Ok(if upper? >= 1 { Wdl::Win } else { Wdl::Draw })
    }

    /// The null-window test of [`OpeningSearch::value`] for a placing
    /// phase with cycles: the result and the shallowest path depth it
    /// leans on ([`FREE`] for none).
    fn search_with_repetitions(
        &self,
        pos: &Position,
        beta: i8,
        depth: u32,
        provisional: &mut Provisional,
    ) -> Result<(i8, u32), ProbeError> {
        self.nodes.add();
        if pos.is_moving_phase() {
            self.probes.add();
            return Ok((score(self.tables.probe_wdl(pos)?), FREE));
        }
        let mover = pos.to_move;
        if pos.stones[mover].len() + (pos.hand[mover] as u32) < 3 {
            return Ok((-1, FREE));
        }
        let key = self.key(pos);
        let known = self.tt.get(key);
        if let Some(v) = known.decides(beta) {
            return Ok((v, FREE));
        }
        if let Some(&at) = provisional.on_path.get(&key) {
            return Ok((0, at));
        }
        if let Some(&(b, low, _)) = provisional.entries.get(&key)
            && let Some(v) = b.decides(beta)
        {
            return Ok((v, low));
        }
        if depth >= MAX_PATH {
            return Err(ProbeError::SearchTooDeep(MAX_PATH));
        }
        self.longest_path.fetch_max(depth, Ordering::Relaxed);
        let mut moves = Vec::with_capacity(32);
        legal_moves(pos, &self.rules, &mut moves);
        if moves.is_empty() {
            let v = if no_moves_draws(pos, &self.rules) {
                0
            } else {
                -1
            };
            self.tt.put(key, Bounds { lower: v, upper: v });
            return Ok((v, FREE));
        }
        // Placements before slides: they lead on towards the moving
        // phase, where slides may come round. Then as without cycles.
        let board = self.rules.board();
        moves.sort_by_cached_key(|m: &Move| {
            std::cmp::Reverse(((m.from.is_none() as u32) << 16) | move_promise(board, pos, m))
        });
        // Placing tables, when there are any, may put a better move first
        // (ordering only).
        if self.hints {
            self.order_by_hint(pos, &mut moves, beta);
        }
        // Where a draw is enough, a slide that brings back a position on
        // the path settles it at once (when the opponent took back its
        // slide, take back ours), instead of a path that may wander
        // through the whole phase.
        if beta <= 0
            && let Some(i) = moves.iter().position(|m| {
                m.from.is_some() && provisional.on_path.contains_key(&self.key(&pos.play(m)))
            })
        {
            moves[..=i].rotate_right(1);
        }
        provisional.on_path.insert(key, depth);
        let begun = provisional.made;
        // A cut leans on the move that made it, a failure on every move.
        let mut best = -1;
        let mut low = FREE;
        for m in &moves {
            // On an error the whole search stops: the path needs no mending.
            let (v, l) =
                self.search_with_repetitions(&pos.play(m), 1 - beta, depth + 1, provisional)?;
            let v = -v;
            if v >= beta {
                best = v;
                low = l;
                break;
            }
            best = best.max(v);
            low = low.min(l);
        }
        provisional.on_path.remove(&key);
        let b = known.with_result(best, beta);
        // The mover needs a draw when testing "better than a loss?" (beta
        // 0), the other side when testing "a win?" (beta 1).
        let for_draw_side = if beta <= 0 { best >= beta } else { best < beta };
        if !for_draw_side {
            provisional.drop_since(begun);
            self.tt.put(key, b);
            return Ok((best, FREE));
        }
        let leaning = provisional.leaning_on(depth);
        if low >= depth {
            // Settled: this position and everything that leant on it.
            for (k, _, kb) in leaning {
                provisional.entries.remove(&k);
                self.tt.put(k, kb);
            }
            self.tt.put(key, b);
            return Ok((best, FREE));
        }
        // Still leaning higher: so does everything that leant on it.
        for (k, serial, _) in leaning {
            if let Some(e) = provisional.entries.get_mut(&k) {
                e.1 = low;
            }
            provisional.lean(k, serial, low);
        }
        provisional.add(key, b, low);
        Ok((best, low))
    }
}
