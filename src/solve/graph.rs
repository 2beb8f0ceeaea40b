//! The game graph on bare point sets, for the builders.
//!
//! Kept apart from [`crate::moves`] on purpose: the builders walk this
//! graph, and the independent checks walk the other one.

use crate::geometry::{Board, Point, PointSet};
use crate::moves::{removable, removal_sets, removals_earned};
use crate::rules::Rules;
use crate::rules::mill_ended;

/// Where one move leads, seen from the side that made it.
#[derive(Clone, Copy, Debug)]
pub enum Outcome {
    /// Nothing was removed: the mover's stones are now these, the
    /// opponent's are unchanged.
    Quiet(PointSet),
    /// Stones were removed: the mover's stones, then the opponent's.
    Capture(PointSet, PointSet),
    /// The move ends the game in the mover's favour: the opponent is left
    /// with fewer than 3 stones, or (`mill=wins`) the mover has a line.
    Wins,
}

/// The removal sets one mill earns against an opponent, by removals
/// earned, kept while the opponent (stones on the board and in hand) stays
/// the same: the placing phase visits a whole block of positions against
/// one opponent, so these are computed once per block instead of once per
/// mill closed.
#[derive(Default)]
pub struct Removals {
    them: PointSet,
    them_hand: u8,
    /// Bit `k`: `sets[k]` holds the sets for `k` removals.
    known: u8,
    sets: Vec<Vec<PointSet>>,
}

impl Removals {
    /// The distinct sets that `k` removals may take from `them`.
    #[inline]
    fn get(
        &mut self,
        board: &Board,
        rules: &Rules,
        them: PointSet,
        them_hand: u8,
        k: u32,
    ) -> &[PointSet] {
        if (them, them_hand) != (self.them, self.them_hand) {
            (self.them, self.them_hand, self.known) = (them, them_hand, 0);
        }
        let k = k as usize;
        if self.sets.len() <= k {
            self.sets.resize_with(k + 1, Vec::new);
        }
        if self.known & (1 << k) == 0 {
            self.sets[k].clear();
            removal_sets(
                board,
                rules,
                them,
                them_hand as u32,
                k as u32,
                &mut self.sets[k],
            );
            self.known |= 1 << k;
        }
        &self.sets[k]
    }
}

/// Calls `f` for every move of `us` (to move, `us_hand` stones in hand)
/// against `them` (`them_hand` in hand) and returns the number of moves. A
/// side with stones in hand places them (and slides under Lasker rules);
/// a side without slides, or flies when the rules let it. A position where
/// the game is over (`mill=wins` and `them` has a line) has no moves.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn for_each_outcome(
    board: &Board,
    rules: &Rules,
    us: PointSet,
    them: PointSet,
    us_hand: u8,
    them_hand: u8,
    removals: &mut Removals,
    mut f: impl FnMut(Outcome),
) -> usize {
    if mill_ended(board, rules, them) {
        return 0;
    }
    let empty = board.all.minus(us.union(them));
    let mut n = 0;
    if us_hand > 0 {
        for to in empty {
            n += outcomes_to(
                board,
                rules,
                us.with(to),
                to,
                them,
                them_hand,
                removals,
                &mut f,
            );
        }
        if !rules.lasker {
            return n;
        }
    }
    let flies = us_hand == 0 && rules.flies(us.len());
    for from in us {
        let targets = if flies {
            empty
        } else {
            board.neighbours[from.index()].intersect(empty)
        };
        let rest = us.without(from);
        for to in targets {
            n += outcomes_to(
                board,
                rules,
                rest.with(to),
                to,
                them,
                them_hand,
                removals,
                &mut f,
            );
        }
    }
    n
}

/// The slides of one side that neither places nor flies, prepared for its
/// stones `us`: from each stone, the points a slide closes a mill on. The
/// positions of one block of the solver share `us`, and most of their
/// slides close nothing: those are counted, not generated.
pub struct Slides {
    /// The board and stones prepared for (`None`: nothing yet).
    of: Option<(*const Board, PointSet)>,
    closing: [u32; crate::geometry::MAX_POINTS],
}

impl Default for Slides {
    fn default() -> Slides {
        Slides {
            of: None,
            closing: [0; crate::geometry::MAX_POINTS],
        }
    }
}

impl Slides {
    /// Whether prepared for `us` on `board`.
    #[inline]
    pub fn is_for(&self, board: &Board, us: PointSet) -> bool {
        self.of == Some((board as *const Board, us))
    }

    /// Prepared for `us` on `board`, unless it already is.
    pub fn prepare(&mut self, board: &Board, us: PointSet) {
        if self.is_for(board, us) {
            return;
        }
        self.of = Some((board as *const Board, us));
        for from in us {
            let rest = us.without(from);
            let mut closing = 0;
            for l in &board.lines {
                if l.intersect(rest).len() == 2 {
                    closing |= l.minus(rest).0;
                }
            }
            self.closing[from.index()] = closing;
        }
    }

    /// [`for_each_outcome`] for the prepared side sliding (no stones in
    /// hand, not flying, `mill=wins` off) against `them`, except that the
    /// quiet slides that close no mill are not passed to `f` but counted:
    /// returns that count and the number of outcomes passed to `f`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn outcomes(
        &self,
        board: &Board,
        rules: &Rules,
        them: PointSet,
        them_hand: u8,
        removals: &mut Removals,
        mut f: impl FnMut(Outcome),
    ) -> (usize, usize) {
        let (prepared, us) = self.of.expect("prepared");
        debug_assert!(!rules.mill_wins() && std::ptr::eq(prepared, board));
        let empty = board.all.minus(us.union(them));
        let (mut quiet, mut n) = (0, 0);
        for from in us {
            let targets = board.neighbours[from.index()].intersect(empty);
            let closing = PointSet(self.closing[from.index()]);
            quiet += targets.minus(closing).len() as usize;
            let rest = us.without(from);
            for to in targets.intersect(closing) {
                n += outcomes_to(
                    board,
                    rules,
                    rest.with(to),
                    to,
                    them,
                    them_hand,
                    removals,
                    &mut f,
                );
            }
        }
        (quiet, n)
    }
}

/// Calls `f` with the outcome of a move that ends on `to`, leaving the
/// mover with `after` (a placement or a stone moved) against `them`
/// (`them_hand` in hand): one quiet outcome, or one per removal set when
/// the move closes a mill. Returns the number of outcomes.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn outcomes_to(
    board: &Board,
    rules: &Rules,
    after: PointSet,
    to: Point,
    them: PointSet,
    them_hand: u8,
    removals: &mut Removals,
    f: &mut impl FnMut(Outcome),
) -> usize {
    if rules.mill_wins() {
        f(if board.has_mill(after) {
            Outcome::Wins
        } else {
            Outcome::Quiet(after)
        });
        return 1;
    }
    let k = removals_earned(rules, board.mills_through(to, after));
    if k == 0 {
        f(Outcome::Quiet(after));
        return 1;
    }
    let sets = removals.get(board, rules, them, them_hand, k);
    for &r in sets {
        let left = them.minus(r);
        f(if left.len() + (them_hand as u32) < 3 {
            Outcome::Wins
        } else if r.is_empty() {
            Outcome::Quiet(after)
        } else {
            Outcome::Capture(after, left)
        });
    }
    sets.len()
}

/// Calls `f(mover_before)` for every way the side that just moved (`them`,
/// not to move, `them_hand` stones in hand) could have reached this
/// position from the same stone counts: a step on the board that removed
/// nothing (in the moving phase, or under Lasker rules with stones in
/// hand). The predecessor has `them`'s stones `mover_before` to move
/// against `us`.
#[inline]
pub fn for_each_quiet_unmove(
    board: &Board,
    rules: &Rules,
    us: PointSet,
    them: PointSet,
    them_hand: u8,
    mut f: impl FnMut(PointSet),
) {
    let empty = board.all.minus(us.union(them));
    // A side with stones in hand never flies.
    let flies = them_hand == 0 && rules.flies(them.len());
    // Under `mill=wins` a step that made a line ended the game (it is no
    // quiet step), and a predecessor where `us` has a line had ended.
    let mill_wins = rules.mill_wins();
    if mill_wins && (board.has_mill(them) || board.has_mill(us)) {
        return;
    }
    // A step that closed a mill removed a stone, unless nothing could be
    // taken (strict protection with every stone of `us` in a mill).
    let lapse = mill_wins || removable(board, rules, us).is_empty();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The cache answers what a fresh computation answers, while the
    /// opponent, its hand and the removals earned change in every order.
    #[test]
    fn removals_match_fresh_sets() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for rules in [
            "standard",
            "twelve",
            "standard,protection=strict,removals=2",
        ] {
            let rules: Rules = rules.parse().unwrap();
            let board = rules.board();
            let mut cache = Removals::default();
            let mut seen: Vec<PointSet> = Vec::new();
            for _ in 0..4000 {
                // Mostly opponents seen before, each time with any hand, so
                // that hits, misses and returns to an earlier opponent or
                // hand all occur.
                let them = if seen.is_empty() || next() % 4 == 0 {
                    let mut them = PointSet(0);
                    while them.len() < 3 + (next() % 4) as u32 {
                        them = them.with(
                            board
                                .all
                                .iter()
                                .nth((next() % board.all.len() as u64) as usize)
                                .unwrap(),
                        );
                    }
                    seen.push(them);
                    them
                } else {
                    seen[(next() as usize) % seen.len()]
                };
                let hand = (next() % 3) as u8;
                let k = 1 + (next() % 3) as u32;
                let mut fresh = Vec::new();
                removal_sets(board, &rules, them, hand as u32, k, &mut fresh);
                assert_eq!(
                    cache.get(board, &rules, them, hand, k),
                    &fresh[..],
                    "{rules}: {them:?} hand {hand}, {k} removals"
                );
            }
        }
    }
}
