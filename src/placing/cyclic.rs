//! The placing phase under Lasker rules, where a side with stones in hand
//! may move a stone on the board instead of placing one.
//!
//! Moves on the board keep the stones in hand, so the placing phase has
//! cycles and no forward pass can label it. Each subspace `us-them-us_hand-them_hand` is
//! solved with its twin `them-us-them_hand-us_hand` by the moving phase's backward
//! induction ([`crate::solve::solve_twins`]): moves on the board that
//! remove nothing stay in the pair; placements (one stone fewer in hand)
//! and captures (fewer on the board) leave it for tables finished before.
//! Pairs are built in order of stones in hand, then of stones on the
//! board, so every exit is on disk when its pair starts; the moving-phase
//! tables, where every game ends up, come first.

use crate::index::{Subspace, child_subspaces, placing_subspaces};
use crate::rules::Rules;
use std::collections::BTreeSet;

/// The twin pairs of the placing phase of `rules` (Lasker), each with its
/// subspaces (one when a subspace is its own twin), in build order.
pub fn cyclic_pairs(rules: &Rules) -> Vec<Vec<Subspace>> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for s in placing_subspaces(rules) {
        if seen.insert(s) {
            let t = s.twin();
            if seen.insert(t) {
                out.push(vec![s, t]);
            } else {
                out.push(vec![s]);
            }
        }
    }
    out
}

/// The tables the moves leaving a pair lead to.
pub fn pair_exits(rules: &Rules, pair: &[Subspace]) -> BTreeSet<Subspace> {
    pair.iter()
        .flat_map(|&s| child_subspaces(rules, s))
        .filter(|c| !pair.contains(c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::child_subspaces;

    #[test]
    fn pairs_come_after_their_exits() {
        let rules: Rules = "lasker,stones=4/3".parse().unwrap();
        let pairs = cyclic_pairs(&rules);
        let mut done: BTreeSet<Subspace> = BTreeSet::new();
        for pair in &pairs {
            for e in pair_exits(&rules, pair) {
                assert!(e.is_moving() || done.contains(&e), "{e} before {pair:?}");
            }
            done.extend(pair.iter().copied());
        }
        let start: Subspace = "0-0-4-3".parse().unwrap();
        assert!(done.contains(&start) && done.contains(&start.twin()));
        // A slide keeps the hands: 3-1-1-2 moves to 1-3-2-1 and back.
        let s: Subspace = "3-1-1-2".parse().unwrap();
        assert!(child_subspaces(&rules, s).contains(&s.twin()));
    }
}
