//! The placing phase: positions with stones in hand, one table per
//! subspace `w-b-wh-bh` (side to move first).
//!
//! Every placing move puts a stone from the hand on the board, so the
//! stones in hand only shrink: the placing phase has no cycles (except
//! under Lasker rules, whose moves on the board keep the hands: see
//! [`cyclic`]). Each table
//! is therefore computed in one forward pass over its slots, from the
//! tables of its children (later placing tables, and the moving-phase
//! tables once both hands are empty), last placement first. The values are
//! the same as in the moving phase: win, draw or loss for the side to move
//! with the plies to the end of the game under best play.
//!
//! Only subspaces that a game from the start can reach are built
//! ([`placing_subspaces`]); within them every position gets its value.

mod cyclic;

pub use cyclic::{cyclic_pairs, pair_exits};

use crate::geometry::PointSet;
use crate::index::{Indexer, PreparedSide, Subspace, SubspaceIndex, child_subspaces};
use crate::moves::{blocked_draws, most_removals};
use crate::rules::Rules;
use crate::solve::graph::{Removals, Step, for_each_step};
use crate::solve::value::{Encoding, UNUSED, Value, best_first};
use crate::solve::{Exits, Progress};
use crate::table::Table;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering::Relaxed};

/// The children's tables of one subspace, by the number of stones removed.
struct Children<'a> {
    by_removed: Vec<Option<(SubspaceIndex<'a>, &'a Table)>>,
    /// How the codes of the children (and of the table made) read.
    encoding: Encoding,
}

impl Children<'_> {
    /// The slot of the child where the side to move has `us` and the other
    /// side `them`, `removed` stones having been taken, prefetched.
    #[inline]
    fn slot(&self, removed: u32, us: PointSet, them: PointSet) -> Option<u64> {
        self.by_removed[removed as usize]
            .as_ref()
            .map(|(index, table)| {
                let slot = index.slot(us, them);
                table.prefetch(slot);
                slot
            })
    }

    /// [`Self::slot`] for one stone removed, with the side to move after
    /// it (`us`) prepared in `side` on first use.
    #[inline]
    fn slot_after_one(
        &self,
        side: &mut Option<PreparedSide>,
        us: PointSet,
        them: PointSet,
    ) -> Option<u64> {
        self.by_removed[1].as_ref().map(|(index, table)| {
            let side = side.get_or_insert_with(|| index.prepare(us));
            let slot = index.slot_with(side, them);
            table.prefetch(slot);
            slot
        })
    }

    /// The value at `slot` (counter 0) of the child table for `removed`
    /// stones taken; `None` for an unused slot or a missing table.
    #[inline]
    fn value_at(&self, removed: u8, slot: u64) -> Option<Value> {
        match &self.by_removed[removed as usize] {
            Some((_, table)) => table.value(slot),
            None => None,
        }
    }
}

/// Positions whose quiet children are looked up together.
const BATCH: usize = 32;

/// A position waiting for its children's codes.
struct Pending {
    /// Its slot in the table made.
    slot: u64,
    best: Option<Value>,
    children: std::ops::Range<usize>,
}

/// Positions whose children's slots are known and prefetched, waiting to be
/// read: `(stones removed, slot)` per child.
#[derive(Default)]
struct Batch {
    pending: Vec<Pending>,
    lookups: Vec<(u8, u64)>,
    /// Children read so far.
    followed: u64,
}

impl Batch {
    /// Folds in the children and writes each pending position's code (a
    /// position without moves has lost).
    fn flush(&mut self, children: &Children<'_>, out: &[AtomicU16], broken: &AtomicBool) {
        for p in self.pending.drain(..) {
            let mut best = p.best;
            for &(removed, slot) in &self.lookups[p.children] {
                fold(&mut best, children.value_at(removed, slot), broken);
            }
            let code = children.encoding.code(best.unwrap_or(Value::Loss(0)));
            out[p.slot as usize].store(code, Relaxed);
        }
        self.followed += self.lookups.len() as u64;
        self.lookups.clear();
    }
}

/// Takes a child's value into the best value for the mover so far; an
/// unused child slot (`None`) marks the computation broken.
#[inline]
fn fold(best: &mut Option<Value>, child: Option<Value>, broken: &AtomicBool) {
    match child {
        None => broken.store(true, Relaxed),
        Some(v) => {
            let v = v.parent();
            if best.is_none_or(|b| best_first(&v) < best_first(&b)) {
                *best = Some(v);
            }
        }
    }
}

/// Computes the table of placing subspace `s` from its children's tables.
/// `None` if a child's slot was marked unused (a damaged or wrong child).
///
/// Positions are visited grouped by the other side's stones (`them`): the
/// side that moves next in every quiet child. All quiet children of a
/// group then lie in one orbit block of the child table, which stays in
/// cache, and the one random access per position is the write of its
/// value, not a read per move.
pub(crate) fn solve_subspace(
    rules: &Rules,
    s: Subspace,
    tables: &Exits,
    progress: &dyn Progress,
) -> Option<Table> {
    let board = rules.board();
    let indexer = Indexer::for_board(board);
    let index = indexer.subspace(s.us, s.them);
    // Slots of `(them, us)`: by orbit of `them`, each class of `(us, them)`
    // once among the canonical ones.
    let mirror = indexer.subspace(s.them, s.us);
    let kids = child_subspaces(rules, s);
    let children = Children {
        by_removed: (0..=most_removals(rules))
            .map(|k| {
                kids.iter()
                    .find(|c| c.us + k == s.them)
                    .and_then(|&c| tables.get(c).map(|t| (indexer.subspace(c.us, c.them), t)))
            })
            .collect(),
        encoding: Encoding::of(rules, false),
    };
    let quiet = children.by_removed[0].as_ref();
    let broken = AtomicBool::new(false);
    let visits = AtomicU64::new(0);
    let codes: Vec<AtomicU16> =
        crate::memory::huge_vec_with(index.slots() as usize, || AtomicU16::new(UNUSED));
    progress.phase("placing", mirror.orbits());
    (0..mirror.orbits()).into_par_iter().for_each_init(
        || (Removals::default(), Batch::default()),
        |(removals, batch), orbit| {
            let mut prepared = None;
            let mut captured = [None; crate::geometry::MAX_POINTS];
            mirror.for_each_in_block(orbit, |_, them, us, canonical| {
                if !canonical {
                    return;
                }
                // `them` is the block's representative throughout.
                let prepared = *prepared.get_or_insert_with(|| quiet.map(|(i, _)| i.prepare(them)));
                let mut best: Option<Value> = None;
                let first = batch.lookups.len();
                // Every quiet move places a stone while the mover has stones
                // in hand: the children's ranks differ by one stone.
                let placements = match (quiet, &prepared) {
                    (Some((qi, _)), Some(side)) if s.us_hand > 0 => Some(qi.placements(side, us)),
                    _ => None,
                };
                let moves = for_each_step(
                    board,
                    rules,
                    us,
                    them,
                    s.us_hand,
                    s.them_hand,
                    removals,
                    |step| {
                        match step {
                            Step::Quiet(after) => {
                                // The child (them to move) is in the quiet table,
                                // which exists: both sides keep their stones.
                                let (qi, _) = quiet.expect("a quiet child subspace");
                                let slot = match &placements {
                                    Some(p) => p.slot(after),
                                    None => qi.slot_with(prepared.as_ref().unwrap(), after),
                                };
                                batch.lookups.push((0, slot));
                            }
                            Step::Wins => fold(&mut best, Some(Value::Loss(0)), &broken),
                            Step::Capture(after, left) => {
                                let removed = them.len() - left.len();
                                // `them` is the same in the whole block, so the
                                // side to move after one removal is one of
                                // |them| sets: prepared once per block.
                                let slot = if removed == 1 {
                                    let r = them.minus(left).0.trailing_zeros() as usize;
                                    children.slot_after_one(&mut captured[r], left, after)
                                } else {
                                    children.slot(removed, left, after)
                                };
                                match slot {
                                    Some(slot) => batch.lookups.push((removed as u8, slot)),
                                    None => broken.store(true, Relaxed),
                                }
                            }
                        }
                    },
                );
                if moves == 0 && blocked_draws(board, rules, us, them) {
                    best = Some(Value::Draw);
                }
                let slot = index.slot(us, them);
                crate::memory::prefetch(&codes[slot as usize]);
                batch.pending.push(Pending {
                    slot,
                    best,
                    children: first..batch.lookups.len(),
                });
                // The captures' codes and the values' places are cache
                // misses: they are read and written a batch later, so that
                // the prefetches have time to arrive.
                if batch.pending.len() == BATCH {
                    batch.flush(&children, &codes, &broken);
                }
            });
            batch.flush(&children, &codes, &broken);
            visits.fetch_add(std::mem::take(&mut batch.followed), Relaxed);
            progress.advance(1);
        },
    );
    progress.visits(visits.into_inner());
    if broken.into_inner() {
        return None;
    }
    let codes: Vec<u16> = codes.into_iter().map(AtomicU16::into_inner).collect();
    Some(Table::from_codes(s, &codes).with_encoding(children.encoding))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{moving_exits, placing_subspaces};

    #[test]
    fn placing_subspaces_of_three_stones() {
        let rules: Rules = "standard,stones=3".parse().unwrap();
        let subs = placing_subspaces(&rules);
        let names: Vec<String> = subs.iter().map(|s| s.to_string()).collect();
        // No mill before the third stone, and any removal ends a 3-stone game.
        assert_eq!(
            names,
            [
                "2-3-1-0", "2-2-1-1", "1-2-2-1", "1-1-2-2", "0-1-3-2", "0-0-3-3"
            ]
        );
        assert_eq!(moving_exits(&rules), [Subspace::moving(3, 3)]);
    }

    #[test]
    fn a_placement_on_the_diagonals_board_may_close_three_mills() {
        // A corner of the diagonals board lies on three lines.
        let per_mill: Rules = "twelve,double-mill=per-mill".parse().unwrap();
        assert_eq!(most_removals(&per_mill), 3);
        let s = Subspace {
            us: 6,
            them: 6,
            us_hand: 1,
            them_hand: 0,
        };
        assert!(child_subspaces(&per_mill, s).contains(&Subspace::moving(3, 7)));
        let twice: Rules = "twelve,double-mill=per-mill,removals=2".parse().unwrap();
        assert_eq!(most_removals(&twice), 6);
        assert_eq!(most_removals(&"twelve".parse().unwrap()), 1);
        assert_eq!(
            most_removals(&"standard,double-mill=per-mill".parse().unwrap()),
            2
        );
        assert_eq!(most_removals(&"three".parse().unwrap()), 0);
    }

    #[test]
    fn nine_stones_reach_every_exit_and_start() {
        let rules = Rules::STANDARD;
        let subs = placing_subspaces(&rules);
        assert_eq!(subs.last().unwrap().to_string(), "0-0-9-9");
        // Black's last placement: at most 8 of its own, 9 of White's.
        assert!(subs.contains(&"8-9-1-0".parse().unwrap()));
        assert!(!subs.contains(&"9-9-1-0".parse().unwrap()));
        let exits = moving_exits(&rules);
        assert!(exits.contains(&Subspace::moving(9, 9)));
        assert!(exits.iter().all(|e| e.us >= 3 && e.them >= 3));
    }
}
