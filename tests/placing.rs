//! Placing-phase tables against a naive search, and `verify`'s two methods
//! against each other.

use crate::common;

use millbase::Value;
use millbase::best_first;
use millbase::legal_moves;
use millbase::{ByColor, Color, PointSet, Position, Rules};
use millbase::{FullBoard, MillRule};
use millbase::{Indexer, Subspace};
use millbase::{ProbeError, TableSet};
use std::collections::HashMap;
use std::path::Path;

use common::run as millbase;

fn build(tag: &str, rules: &str) -> common::TempDir {
    common::build_db(&format!("placing-{tag}"), rules)
}

/// Plain minimax with plies over the exact positions (no symmetry, no
/// index), memoised; moving-phase positions are read from the tables, a
/// side with fewer than 3 stones or no move has lost, unless the board is
/// full under `full-board=draw`.
fn naive(
    pos: &Position,
    rules: &Rules,
    tables: &TableSet,
    memo: &mut HashMap<Position, Value>,
) -> Value {
    if pos.is_moving_phase() {
        return tables.probe(pos).unwrap();
    }
    if let Some(&v) = memo.get(pos) {
        return v;
    }
    let mut moves = Vec::new();
    legal_moves(pos, rules, &mut moves);
    let full = pos.stones.white.union(pos.stones.black) == rules.board().all;
    // A last placement that closed a line under `mill=wins` won at once.
    let last = pos.stones[!pos.to_move].0;
    let line_won =
        rules.mill == MillRule::Wins && rules.board().lines.iter().any(|l| last & l.0 == l.0);
    let blocked = if full && rules.full_board == FullBoard::Draw && !line_won {
        Value::Draw
    } else {
        Value::Loss(0)
    };
    let v = moves
        .iter()
        .map(|m| naive(&pos.play(m), rules, tables, memo).parent())
        .min_by_key(best_first)
        .unwrap_or(blocked);
    memo.insert(*pos, v);
    v
}

/// Compares every placing position the naive search visited with the table.
fn compare_memo(tables: &TableSet, memo: &HashMap<Position, Value>) -> usize {
    for (pos, want) in memo {
        assert_eq!(tables.probe(pos).unwrap(), *want, "{pos:?}");
    }
    memo.len()
}

#[test]
fn three_stones_every_placing_position_matches_naive_search() {
    let spec = "standard,stones=3";
    let rules: Rules = spec.parse().unwrap();
    let db = common::shared_db(spec);
    let tables = TableSet::open(db, &rules);
    let mut memo = HashMap::new();
    let start = naive(&Position::start(&rules), &rules, &tables, &mut memo);
    let n = compare_memo(&tables, &memo);
    assert!(n > 100_000, "the whole placing tree: {n} positions");
    assert!(matches!(start, Value::Win(_)), "{start:?}");
}

#[test]
fn four_stones_sampled_positions_match_naive_search() {
    // Rule options that change the placing phase's removals too.
    for spec in [
        "standard,stones=4",
        "standard,stones=4,protection=strict",
        "standard,stones=4,removals=2",
    ] {
        let rules: Rules = spec.parse().unwrap();
        let db = common::shared_db(spec);
        let tables = TableSet::open(db, &rules);
        let mut memo = HashMap::new();
        for seed in 1..=8u64 {
            naive(
                &common::walk(&rules, 3 + (seed as usize % 3), seed * 7919),
                &rules,
                &tables,
                &mut memo,
            );
        }
        let n = compare_memo(&tables, &memo);
        assert!(n > 1000, "{spec}: {n} positions");
        // The empty board, move by move.
        let moves = tables.probe_moves(&Position::start(&rules)).unwrap();
        assert_eq!(moves.len(), 24);
        assert_eq!(
            moves[0].value,
            tables.probe(&Position::start(&rules)).unwrap()
        );
    }
}

#[test]
fn other_boards_and_unequal_hands_match_naive_search() {
    // (rules, whole tree from the start, else positions below sampled ones)
    for (spec, whole) in [
        ("three", true),
        ("six,stones=3", true),
        ("six,stones=4", false),
        ("twelve,stones=3", true),
        ("twelve,stones=4/3", false),
        ("standard,stones=3/4", false),
        ("standard,stones=5/3", false),
        ("three,stones=4/3,mill=removes", true),
    ] {
        let rules: Rules = spec.parse().unwrap();
        let db = common::shared_db(spec);
        let tables = TableSet::open(db, &rules);
        let mut memo = HashMap::new();
        let start = Position::start(&rules);
        if whole {
            naive(&start, &rules, &tables, &mut memo);
        } else {
            for seed in 1..=8u64 {
                let plies = 3 + (seed as usize % 3);
                naive(
                    &common::walk(&rules, plies, seed * 7919),
                    &rules,
                    &tables,
                    &mut memo,
                );
            }
        }
        let n = compare_memo(&tables, &memo);
        assert!(n > 500, "{spec}: {n} positions");
        let moves = tables.probe_moves(&start).unwrap();
        assert_eq!(moves.len(), rules.board().size as usize, "{spec}");
        assert_eq!(moves[0].value, tables.probe(&start).unwrap(), "{spec}");
    }
}

#[test]
fn the_last_placement_filling_the_board_draws_or_wins_by_the_rule() {
    // Six men's morris with 8 stones each fills the 16 points.
    for (spec, want) in [
        ("six,stones=8", Value::Win(1)),
        ("six,stones=8,full-board=draw", Value::Draw),
    ] {
        let rules: Rules = spec.parse().unwrap();
        let db = common::shared_db(spec);
        let tables = TableSet::open(db, &rules);
        // Black's last stone goes on the last empty point without a mill:
        // White is then blocked on a full board.
        let mut found = 0;
        let mut memo = HashMap::new();
        for seed in 1..400u64 {
            let pos = common::walk(&rules, 15, seed * 104_729);
            if pos.hand.black != 1 || pos.total(Color::White) + pos.total(Color::Black) != 16 {
                continue;
            }
            let moves = tables.probe_moves(&pos).unwrap();
            if moves.len() == 1 && moves[0].mv.removed.is_empty() {
                assert_eq!(moves[0].value, want, "{spec}: {}", pos.board_string(&rules));
                found += 1;
            }
            naive(&pos, &rules, &tables, &mut memo);
        }
        assert!(found > 0, "{spec}: no position found");
        compare_memo(&tables, &memo);
    }
}

/// Builds `spec`, compares the given positions' values and runs `check`;
/// with `naive`, also every placing position against the naive search.
fn values_and_check(spec: &str, cases: &[(&str, Value)], naive_too: bool) {
    let rules: Rules = spec.parse().unwrap();
    let db = common::shared_db(spec);
    let tables = TableSet::open(db, &rules);
    for &(board, want) in cases {
        let pos = millbase::parse_position(board, &rules).unwrap().position;
        assert_eq!(tables.probe(&pos).unwrap(), want, "{spec}: {board}");
    }
    if naive_too {
        let mut memo = HashMap::new();
        let start = Position::start(&rules);
        assert_eq!(
            naive(&start, &rules, &tables, &mut memo),
            tables.probe(&start).unwrap()
        );
        let n = compare_memo(&tables, &memo);
        assert!(n > 1000, "{spec}: {n} positions");
    }
    let out = millbase(&["check", "--rules", spec, "--db", db.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{spec}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_line_closed_by_the_placement_that_fills_the_board_wins_under_mill_wins() {
    // Three men's morris with 5/4 stones: White's fifth stone fills the 9
    // points. `mill=wins` ends the game at once, before the full-board rule.
    let cases = [
        // a3 b3 c3 is White's line.
        ("WWWBBWBWB b 0 0", Value::Loss(0)),
        ("WW.BBWBWB w 1 0", Value::Win(1)),
        // No line on the full board.
        ("WWBWBWWBB b 0 0", Value::Draw),
        ("WWBWBW.BB w 1 0", Value::Draw),
    ];
    let spec = "three,stones=5/4,full-board=draw";
    values_and_check(spec, &cases, true);
    // Under Lasker rules too (no naive search: the phase has cycles; the
    // last case may slide instead): the builder of cyclic placing tables
    // and the checker once disagreed here.
    let lasker = format!("{spec},lasker=on");
    values_and_check(&lasker, &cases[..3], false);
}

#[test]
fn published_start_values() {
    // Gevay and Danner 2015, Table II-III (White to move, stones White/Black).
    let cases: &[(&str, Value)] = &[
        ("twelve,stones=3", Value::Win(9)),
        ("twelve,stones=4", Value::Draw),
        ("twelve,stones=5/3", Value::Win(9)),
        ("twelve,stones=3/5", Value::Loss(12)),
        ("standard,stones=5/3", Value::Win(9)),
        ("standard,stones=4/3", Value::Draw),
        ("standard,stones=3", Value::Win(23)),
    ];
    for (spec, want) in cases {
        let rules: Rules = spec.parse().unwrap();
        let db = common::shared_db(spec);
        let tables = TableSet::open(db, &rules);
        assert_eq!(
            tables.probe(&Position::start(&rules)).unwrap(),
            *want,
            "{spec}"
        );
    }
}

/// Rewrites one table with the value of `slot` replaced (valid checksums).
fn tamper(db: &Path, rules: &Rules, s: Subspace, slot: u64, to: Value) {
    let table = common::load_table(db, rules, s);
    let codes: Vec<u16> = (0..table.len())
        .map(|i| if i == slot { to.code() } else { table.code(i) })
        .collect();
    common::rewrite_table(db, rules, s, &codes);
}

#[test]
fn verify_methods_agree_and_a_tampered_table_is_caught() {
    let spec = "standard,stones=4";
    let rules: Rules = spec.parse().unwrap();
    let db = build("verify", spec);
    let d = db.to_str().unwrap();
    for threads in ["2", "1"] {
        let out = millbase(&["verify", "--rules", spec, "--db", d, "--threads", threads]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        assert!(
            text.contains("method 1: the placing-phase tables"),
            "{text}"
        );
        assert!(
            text.contains("both methods agree: the game is a draw"),
            "{text}"
        );
    }
    let out = millbase(&[
        "query",
        "--json",
        "--rules",
        spec,
        "--db",
        d,
        "......../......../........ w 4 4",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["value"], "draw", "{json}");
    assert_eq!(json["moves"].as_array().unwrap().len(), 24);

    // The start made a win for White: the tables' method now disagrees
    // with the search, and `check` names the slot.
    let start: Subspace = "0-0-4-4".parse().unwrap();
    tamper(&db, &rules, start, 0, Value::Win(9));
    let out = millbase(&["verify", "--rules", spec, "--db", d]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the two methods disagree"), "{err}");
    let out = millbase(&["check", "--rules", spec, "--db", d]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("0-0-4-4") && text.contains("slot 0"),
        "{text}"
    );

    // A placing position deep in the tree made a draw where it is not.
    let indexer = Indexer::for_board(rules.board());
    let s: Subspace = "3-4-1-0".parse().unwrap();
    let table = common::load_table(&db, &rules, s);
    let slot = (0..table.len())
        .find(|&i| {
            indexer.subspace(s.us, s.them).is_canonical(i)
                && !matches!(Value::from_code(table.code(i)), Some(Value::Draw))
        })
        .unwrap();
    tamper(&db, &rules, s, slot, Value::Draw);
    common::check_finds(&db, spec, "3-4-1-0", slot as usize);
}

#[test]
fn positions_no_game_reaches_get_a_clear_error() {
    let spec = "standard,stones=3";
    let rules: Rules = spec.parse().unwrap();
    let db = common::shared_db(spec);
    let tables = TableSet::open(db, &rules);
    // One stone placed each, but Black's is gone: no mill can have taken it.
    let p = rules.board().point(0).unwrap();
    let pos = Position {
        stones: ByColor {
            white: PointSet::single(p),
            black: PointSet::EMPTY,
        },
        hand: ByColor { white: 2, black: 2 },
        to_move: Color::White,
    };
    match tables.probe(&pos) {
        Err(e @ ProbeError::NotCovered { .. }) => {
            let why = e.to_string();
            assert!(why.contains("no game from the start"), "{why}")
        }
        other => panic!("{other:?}"),
    }
}

fn placing_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    // Placing-phase tables only: `w-b-wh-bh.mbt`.
    common::table_files(dir, |name| name.matches('-').count() == 3)
}

#[test]
fn placing_build_resumes_and_rebuilds_damaged_tables() {
    let spec = "standard,stones=4";
    let db = build("resume", spec);
    // Tables are shared by every stone count of the board.
    let dir = db.join("standard");
    let before = placing_files(&dir);
    assert_eq!(before.len(), 14);
    // One table gone (as if the run stopped there), one damaged.
    std::fs::remove_file(dir.join("2-3-2-1.mbt")).unwrap();
    let damaged = dir.join("3-3-1-1.mbt");
    let mut bytes = std::fs::read(&damaged).unwrap();
    let n = bytes.len();
    bytes[n - 10] ^= 0x55;
    std::fs::write(&damaged, bytes).unwrap();
    let out = millbase(&["build", "--rules", spec, "--db", db.to_str().unwrap()]);
    assert!(out.status.success());
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(
        log.contains("placing phase: built 2 subspaces, 12 found on disk"),
        "{log}"
    );
    assert_eq!(placing_files(&dir), before);
}

#[test]
fn placing_tables_are_shared_by_every_stone_count_of_a_board() {
    // A position's value does not depend on the stones the game started
    // with: a table built for 4/4 is the table 4/3 needs, byte for byte.
    let both = build("share", "standard,stones=4");
    let alone = build("share-alone", "standard,stones=4/3");
    let out = millbase(&[
        "build",
        "--rules",
        "standard,stones=4/3",
        "--db",
        both.to_str().unwrap(),
    ]);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    let four: Rules = "standard,stones=4".parse().unwrap();
    let four_three: Rules = "standard,stones=4/3".parse().unwrap();
    let shared: Vec<Subspace> = millbase::placing_subspaces(&four_three)
        .into_iter()
        .filter(|s| millbase::placing_subspaces(&four).contains(s))
        .collect();
    assert!(shared.len() >= 3, "{shared:?}");
    assert!(
        log.contains(&format!("{} found on disk", shared.len())),
        "{log}"
    );
    for s in shared {
        let name = format!("{s}.mbt");
        let a = std::fs::read(both.join("standard").join(&name)).unwrap();
        let b = std::fs::read(alone.join("standard").join(&name)).unwrap();
        assert!(a == b, "{name} differs");
    }
}
