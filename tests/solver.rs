//! The solver against a deliberately naive one: an explicit graph of the
//! symmetry classes, built with the forward move generator, solved by
//! plain fixed-point iteration. No solver code is shared.

use crate::common;

use millbase::NoProgress;
use millbase::TableSet;
use millbase::Value;
use millbase::legal_moves;
use millbase::parse_position;
use millbase::{FullBoard, MillRule};
use millbase::{Indexer, Subspace};
use millbase::{PointSet, Rules};
use rayon::prelude::*;
use std::collections::HashMap;

fn temp_db(name: &str) -> common::TempDir {
    common::TempDir::new(name)
}

/// Builds the moving-phase `subspaces` of `rules` (and what they need) into
/// `db` through the library.
fn build_moving(
    rules: &Rules,
    db: &std::path::Path,
    subspaces: Vec<Subspace>,
) -> millbase::BuildReport {
    let options = millbase::BuildOptions {
        subspaces,
        placing: false,
        ..Default::default()
    };
    millbase::Build::plan(&millbase::TableFolder::new(db, rules), &options)
        .and_then(|b| b.run(&NoProgress))
        .unwrap()
}

use common::Images;

/// A blocked side draws instead of losing: the board is full (only the
/// last placement fills it) under `full-board=draw`, unless that placement
/// closed a line under `mill=wins` and so won at once.
fn full_board_draws(rules: &Rules, us: u32, them: u32) -> bool {
    let line_won =
        rules.mill == MillRule::Wins && rules.board().lines.iter().any(|l| them & l.0 == l.0);
    rules.full_board == FullBoard::Draw && (us | them) == rules.board().all.0 && !line_won
}

/// Values of every class of the given moving-phase subspaces (closed under
/// captures), by Jacobi iteration: in round `r`, a position is won if a
/// child was lost by round `r - 1`, lost if every child was won by then.
fn naive_values(rules: &Rules, subspaces: &[(u32, u32)]) -> HashMap<(u32, u32), Value> {
    let images = Images::new(rules.board());
    let images = &images;
    let mut nodes: Vec<(u32, u32)> = Vec::new();
    for &(us, them) in subspaces {
        nodes.extend(images.classes(rules.board(), us, them));
    }
    nodes.sort_unstable();
    let id = |key: (u32, u32)| {
        nodes
            .binary_search(&key)
            .expect("subspace set closed under captures")
    };
    // Children: Some(node) or None for "the game is over, the child lost".
    let children: Vec<Vec<Option<usize>>> = nodes
        .par_iter()
        .map(|&(us, them)| {
            let pos = common::moving_position(us, them);
            let mut moves = Vec::new();
            legal_moves(&pos, rules, &mut moves);
            let mut out: Vec<Option<usize>> = moves
                .iter()
                .map(|m| {
                    let c = pos.play(m);
                    if c.stones.black.len() < 3 {
                        None
                    } else {
                        let key = images.canonical(c.stones.black.0, c.stones.white.0);
                        Some(id(key))
                    }
                })
                .collect();
            out.sort();
            out.dedup();
            out
        })
        .collect();
    let mut value: Vec<Option<Value>> = vec![None; nodes.len()];
    let mut round = 0;
    loop {
        let next: Vec<Option<Value>> = (0..nodes.len())
            .into_par_iter()
            .map(|i| {
                if value[i].is_some() {
                    return value[i];
                }
                let kids = &children[i];
                if kids.is_empty() && full_board_draws(rules, nodes[i].0, nodes[i].1) {
                    return None;
                }
                let child = |c: &Option<usize>| match c {
                    None => Some(Value::Loss(0)),
                    Some(j) => value[*j],
                };
                let best_loss = kids
                    .iter()
                    .filter_map(|c| match child(c) {
                        Some(Value::Loss(d)) => Some(d),
                        _ => None,
                    })
                    .min();
                if let Some(d) = best_loss {
                    return Some(Value::Win(d + 1));
                }
                let mut deepest = 0;
                for c in kids {
                    match child(c) {
                        Some(Value::Win(d)) => deepest = deepest.max(d + 1),
                        _ => return None,
                    }
                }
                Some(Value::Loss(deepest))
            })
            .collect();
        if next == value {
            break;
        }
        value = next;
        round += 1;
        assert!(round < 10_000);
    }
    nodes
        .into_iter()
        .zip(value)
        .map(|(n, v)| (n, v.unwrap_or(Value::Draw)))
        .collect()
}

/// Builds every subspace in `subspaces` (each is a target: under
/// `mill=wins` no capture links them, so 4-3 alone would not build 3-3)
/// and compares each slot with the naive solver.
fn compare(spec: &str, subspaces: &[(u32, u32)]) {
    let rules: Rules = spec.parse().unwrap();
    let db = temp_db(&spec.replace([',', '='], "_"));
    build_moving(
        &rules,
        &db,
        subspaces
            .iter()
            .map(|&(n_us, n_them)| Subspace::moving(n_us as u8, n_them as u8))
            .collect(),
    );
    let naive = naive_values(&rules, subspaces);
    let indexer = Indexer::for_board(rules.board());
    let mut per_sub: HashMap<(u32, u32), u64> = HashMap::new();
    for &(n_us, n_them) in subspaces {
        let s = Subspace::moving(n_us as u8, n_them as u8);
        let table = common::load_table(&db, &rules, s);
        let idx = indexer.subspace(s.us, s.them);
        for (&(us, them), &v) in naive
            .iter()
            .filter(|((u, t), _)| u.count_ones() == n_us && t.count_ones() == n_them)
        {
            let slot = idx.slot(PointSet(us), PointSet(them));
            let got = Value::from_code(table.code(slot));
            assert_eq!(
                got,
                Some(v),
                "{spec} {s}: position us={us:#x} them={them:#x}"
            );
            *per_sub.entry((n_us, n_them)).or_default() += 1;
        }
        assert_eq!(
            per_sub[&(n_us, n_them)],
            idx.class_count(),
            "{spec} {s}: class count"
        );
    }
}

const SMALL: &[(u32, u32)] = &[(3, 3), (4, 3), (3, 4)];

#[test]
fn standard_small_subspaces_match_naive() {
    compare("standard", SMALL);
}

/// The longer sweeps (minutes: `cargo test --release --test solver --
/// --ignored`): 4-4 and every rule option on the 24-point board.
#[test]
#[ignore]
fn standard_4_4_and_rule_options_match_naive() {
    compare("standard", &[(3, 3), (4, 3), (3, 4), (4, 4)]);
    for spec in [
        "standard,flying=off",
        "standard,flying=4",
        "standard,protection=none",
        "standard,protection=strict",
        "standard,removals=2",
    ] {
        compare(spec, SMALL);
    }
}

/// Every rule option, on the 16-point board (the options' code does not
/// depend on the board).
#[test]
fn rule_options_match_naive() {
    for spec in [
        "six,flying=3",
        "six,flying=4",
        "six,flying=3,protection=none",
        "six,flying=3,protection=strict",
        "six,flying=3,removals=2",
    ] {
        compare(spec, SMALL);
    }
}

#[test]
fn other_boards_match_naive() {
    // Three men's morris: the whole moving phase (a line wins).
    compare("three", &[(3, 3)]);
    compare("three,flying=3", &[(3, 3)]);
    // Six men's morris up to 4-4, with and without flying.
    compare("six", &[(3, 3), (4, 3), (3, 4), (4, 4)]);
    compare("six,flying=3", SMALL);
    // 9 stones fill the 9 points: a full board after a line closed by the
    // last placement is a loss, without one a draw.
    compare("three,stones=5/4,full-board=draw", &[(5, 4), (4, 5)]);
    // Twelve men's morris (diagonals); a line wins, on the 16-point board.
    compare("twelve", &[(3, 3)]);
    compare("six,flying=3,mill=wins", SMALL);
}

/// The same on the 24-point boards (minutes: `cargo test --release --test
/// solver -- --ignored`).
#[test]
#[ignore]
fn other_boards_match_naive_on_24_points() {
    compare("twelve", SMALL);
    compare("twelve,protection=strict", SMALL);
    compare("standard,mill=wins", SMALL);
}

#[test]
fn a_full_board_draws_or_loses_by_the_rule() {
    // 5 and 4 stones fill the 9 points of three men's morris: every 5-4
    // position is a full board, blocked for the side to move.
    full_board_by_the_rule(&[
        ("three,stones=5/4,mill=removes", "5-4", Value::Loss(0)),
        (
            "three,stones=5/4,mill=removes,full-board=draw",
            "5-4",
            Value::Draw,
        ),
    ]);
}

/// The same with six men's morris and 8 stones a side (its whole moving
/// phase: `cargo test --release --test solver -- --ignored`).
#[test]
#[ignore]
fn a_full_board_draws_or_loses_by_the_rule_on_six() {
    full_board_by_the_rule(&[
        ("six,stones=8", "8-8", Value::Loss(0)),
        ("six,stones=8,full-board=draw", "8-8", Value::Draw),
    ]);
}

fn full_board_by_the_rule(cases: &[(&str, &str, Value)]) {
    for &(spec, subspace, want) in cases {
        let rules: Rules = spec.parse().unwrap();
        let db = temp_db(&spec.replace([',', '='], "_"));
        let report = build_moving(&rules, &db, vec![subspace.parse().unwrap()]);
        let s = &report.stats[0];
        let n = s.positions;
        assert!(n > 10, "{spec}: {n}");
        match want {
            Value::Draw => assert_eq!(s.draws, n, "{spec}"),
            _ => assert_eq!((s.losses, s.longest_loss), (n, Some(0)), "{spec}"),
        }
    }
}

#[test]
fn twelve_mens_moving_phase_published_figures() {
    // Gevay and Danner 2015: the longest win or loss with White to move:
    // 16 plies in 3-3, 23 in 3-4, 22 in 4-3, 19 in 4-4; 3-3 has no draws.
    let rules = Rules::TWELVE;
    let db = temp_db("twelve-figures");
    let report = build_moving(&rules, &db, vec!["4-4".parse().unwrap()]);
    let stats = millbase::TableFolder::new(&db, &rules)
        .stats_of(&["3-3", "3-4", "4-3", "4-4"].map(|s| s.parse().unwrap()))
        .unwrap();
    let longest: Vec<u32> = stats
        .iter()
        .map(|s| s.longest_win.max(s.longest_loss).unwrap())
        .collect();
    assert_eq!(longest, [16, 23, 22, 19]);
    assert_eq!(stats[0].draws, 0);
    assert!(report.stats.iter().any(|s| s.subspace == "4-4"));
}

#[test]
fn gasser_example_and_3_3_figures() {
    let rules = Rules::STANDARD;
    let db = temp_db("gasser");
    let report = build_moving(&rules, &db, vec!["3-3".parse().unwrap()]);
    let s = &report.stats[0];
    // White d7 g7 g1, Black a4 g4 d5, Black to move: lost in 26, the longest.
    let pos = parse_position(".WWBW..B/......../.B...... b 0 0", &rules)
        .unwrap()
        .position;
    let value = TableSet::open(&db, &rules).probe(&pos).unwrap();
    assert_eq!(value, Value::Loss(26));
    assert_eq!(s.longest_loss, Some(26));
    let share = s.wins as f64 / s.positions as f64;
    assert!((0.825..0.835).contains(&share), "3-3 wins: {share}");
}
