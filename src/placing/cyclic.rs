//! The placing phase under Lasker rules, where a side with stones in hand
//! may move a stone on the board instead of placing one.
//!
//! Moves on the board keep the stones in hand, so the placing phase has
//! cycles and no forward pass can label it. Each subspace `w-b-wh-bh` is
//! solved with its twin `b-w-bh-wh` by the moving phase's backward
//! induction ([`crate::solve::solve_twins`]): moves on the board that
//! remove nothing stay in the pair; placements (one stone fewer in hand)
//! and captures (fewer on the board) leave it for tables finished before.
//! Pairs are built in order of stones in hand, then of stones on the
//! board, so every exit is on disk when its pair starts; the moving-phase
//! tables, where every game ends up, come first.

use crate::index::{child_subspaces, placing_subspaces};
use crate::index::{Indexer, Subspace};
use crate::rules::Rules;
use crate::solve::build::{BuildError, describe_pair};
use crate::solve::{Exits, Progress, SubspaceStats, solve_twins};
use crate::table::TableFolder;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use super::PlacingReport;

/// The twin pairs of the placing phase of `rules` (Lasker), each with its
/// subspaces (one when a subspace is its own twin), in build order.
pub fn placing_pairs(rules: &Rules) -> Vec<Vec<Subspace>> {
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
fn pair_exits(rules: &Rules, pair: &[Subspace]) -> BTreeSet<Subspace> {
    pair.iter()
        .flat_map(|&s| child_subspaces(rules, s))
        .filter(|c| !pair.contains(c))
        .collect()
}

/// Builds the Lasker placing-phase tables of `rules` (resuming what is on
/// disk). The moving-phase tables must be built already.
pub fn build_cyclic(
    rules: &Rules,
    db: &Path,
    level: i32,
    progress: &dyn Progress,
) -> Result<PlacingReport, BuildError> {
    let indexer = Indexer::for_board(rules.board());
    let folder = TableFolder::new(db, rules);
    let dir = folder.dir();
    std::fs::create_dir_all(&dir).map_err(|e| BuildError::Io(dir.clone(), e))?;
    let mut report = PlacingReport {
        computed: 0,
        skipped: 0,
    };
    let mut exits = Exits::new(rules.board());
    for pair in placing_pairs(rules) {
        let (name, slots) = describe_pair(indexer, &pair);
        if pair.iter().all(|&s| folder.is_finished(s)) {
            report.skipped += pair.len();
            progress.pair_skipped(&name, slots);
            continue;
        }
        // Consecutive pairs share most exits: keep those, load the rest.
        let need = pair_exits(rules, &pair);
        exits.retain(|s| need.contains(s));
        for &s in &need {
            if !exits.has(s) {
                exits.insert(folder.load(s)?);
            }
        }
        progress.pair_started(&name, slots);
        let start = Instant::now();
        let tables = solve_twins(rules, pair[0], &exits, progress).map_err(BuildError::Solve)?;
        for t in &tables {
            folder.write(t, level)?;
        }
        let stats: Vec<SubspaceStats> = tables.iter().map(SubspaceStats::of_table).collect();
        progress.pair_finished(&name, slots, &stats, start.elapsed().as_secs_f64());
        report.computed += tables.len();
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_come_after_their_exits() {
        let rules: Rules = "lasker,stones=4/3".parse().unwrap();
        let pairs = placing_pairs(&rules);
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
