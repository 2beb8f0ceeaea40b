//! Unmove generation: the positions from which one legal move leads here.
//!
//! Written as a checker rather than a mirror of the forward generator: it
//! proposes every way the last move could have gone (un-place, un-slide,
//! un-fly, and for a closed mill every set of empty points the removed
//! stones could have stood on) and keeps those whose removals were legal in
//! some order and whose predecessor is a legal position.

use super::{Move, removable, removals_earned};
use crate::geometry::{Board, Point, PointSet};
use crate::position::{Position, PositionError};
use crate::rules::Rules;

/// Every (move, predecessor) pair with `predecessor.play(move) == pos`,
/// into `out` (cleared first).
pub fn unmoves(pos: &Position, rules: &Rules, out: &mut Vec<(Move, Position)>) {
    out.clear();
    let board = rules.board();
    let mover = !pos.to_move;
    let victim = pos.to_move;
    let mine = pos.stones[mover];
    let theirs = pos.stones[victim];
    let empty = board.all.minus(mine.union(theirs));
    let hand = pos.hand[mover];
    for to in mine {
        let mut origins: Vec<Option<Point>> = Vec::new();
        if hand < rules.stones_of(mover) {
            origins.push(None);
        }
        let steps = if hand == 0 {
            if rules.flies(mine.len()) {
                empty
            } else {
                board.neighbours[to.index()].intersect(empty)
            }
        } else if rules.lasker {
            board.neighbours[to.index()].intersect(empty)
        } else {
            PointSet::EMPTY
        };
        origins.extend(steps.iter().map(Some));
        let k = removals_earned(rules, board.mills_through(to, mine));
        for from in origins {
            let mut before = *pos;
            before.to_move = mover;
            before.stones[mover] = match from {
                Some(f) => mine.without(to).with(f),
                None => {
                    before.hand[mover] += 1;
                    mine.without(to)
                }
            };
            let mv = |removed| Move { from, to, removed };
            if k == 0 {
                if is_legal(&before, rules) {
                    out.push((mv(PointSet::EMPTY), before));
                }
                continue;
            }
            let free = match from {
                Some(f) => empty.without(f),
                None => empty,
            };
            for removed in subsets_up_to(free, k) {
                let their_before = theirs.union(removed);
                if !removals_possible(
                    board,
                    rules,
                    their_before,
                    pos.hand[victim] as u32,
                    removed,
                    k,
                ) {
                    continue;
                }
                let mut p = before;
                p.stones[victim] = their_before;
                if is_legal(&p, rules) {
                    out.push((mv(removed), p));
                }
            }
        }
    }
}

/// Whether `p` is a legal position that has not ended: a predecessor had
/// a move to make.
fn is_legal(p: &Position, rules: &Rules) -> bool {
    let checked: Result<Position, PositionError> =
        Position::new(p.stones, p.hand, p.to_move, rules);
    checked.is_ok()
        && p.total(p.to_move) >= 3
        && !crate::rules::mill_ended(rules.board(), rules, p.stones[!p.to_move])
}

/// All subsets of `s` with at most `k` points.
fn subsets_up_to(s: PointSet, k: u32) -> Vec<PointSet> {
    let mut out = vec![PointSet::EMPTY];
    for p in s {
        let n = out.len();
        for i in 0..n {
            if out[i].len() < k {
                let with = out[i].with(p);
                out.push(with);
            }
        }
    }
    out
}

/// Whether removing exactly `removed` from `theirs` (in some order) is what
/// `k` earned removals may do: each removal legal when made, the process
/// not stopped early, and ending for a reason (all `k` made, the opponent
/// below 3 stones, or nothing left that may be taken).
fn removals_possible(
    board: &Board,
    rules: &Rules,
    theirs: PointSet,
    hand: u32,
    removed: PointSet,
    k: u32,
) -> bool {
    if removed.is_empty() {
        return removable(board, rules, theirs).is_empty() || theirs.len() + hand < 3;
    }
    if theirs.len() + hand < 3 || removed.len() > k {
        return false;
    }
    let allowed = removable(board, rules, theirs);
    removed.intersect(allowed).iter().any(|r| {
        let rest = removed.without(r);
        let after = theirs.without(r);
        if rest.is_empty() {
            k == 1 || after.len() + hand < 3 || removable(board, rules, after).is_empty()
        } else {
            removals_possible(board, rules, after, hand, rest, k - 1)
        }
    })
}
