//! The moving-phase game graph on bare point sets, for the solver.
//!
//! Kept apart from [`crate::moves`] on purpose: the solver walks this
//! graph, and the independent checks walk the other one.

use crate::geometry::{Board, PointSet};
use crate::moves::{removable, removal_sets, removals_earned};
use crate::rules::Rules;

/// Calls `f(us_after, them_after)` for every move of `us` (to move, no
/// stones in hand) against `them`. `them_after == them` for a move that
/// removes nothing. Returns the number of moves.
#[inline]
pub fn for_each_move(
    board: &Board,
    rules: &Rules,
    us: PointSet,
    them: PointSet,
    sets: &mut Vec<PointSet>,
    mut f: impl FnMut(PointSet, PointSet),
) -> usize {
    let empty = board.all.minus(us.union(them));
    let flies = rules.flies(us.len());
    let mut n = 0;
    for from in us {
        let targets = if flies {
            empty
        } else {
            board.neighbours[from.index()].intersect(empty)
        };
        let rest = us.without(from);
        for to in targets {
            let after = rest.with(to);
            let k = removals_earned(rules, board.mills_through(to, after));
            if k == 0 {
                f(after, them);
                n += 1;
                continue;
            }
            sets.clear();
            removal_sets(board, rules, them, 0, k, sets);
            for &r in sets.iter() {
                f(after, them.minus(r));
                n += 1;
            }
        }
    }
    n
}

/// Calls `f(mover_before)` for every way the side that just moved (`them`,
/// not to move) could have reached this position from the same pair of
/// stone counts: a step that removed nothing. The predecessor has `them`'s
/// stones `mover_before` to move against `us`.
#[inline]
pub fn for_each_quiet_unmove(
    board: &Board,
    rules: &Rules,
    us: PointSet,
    them: PointSet,
    mut f: impl FnMut(PointSet),
) {
    let empty = board.all.minus(us.union(them));
    let flies = rules.flies(them.len());
    // A step that closed a mill removed a stone, unless nothing could be
    // taken (strict protection with every stone of `us` in a mill).
    let lapse = removable(board, rules, us).is_empty();
    for to in them {
        if !lapse && board.mills_through(to, them) > 0 {
            continue;
        }
        let origins = if flies {
            empty
        } else {
            board.neighbours[to.index()].intersect(empty)
        };
        let rest = them.without(to);
        for from in origins {
            f(rest.with(from));
        }
    }
}
