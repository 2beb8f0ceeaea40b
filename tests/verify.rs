//! The placing-phase search of `verify` against a naive minimax.

use crate::common;

use millbase::TableSet;
use millbase::Value;
use millbase::legal_moves;
use millbase::{OpeningSearch, wdl_of};
use millbase::{Position, Rules};
use std::collections::HashMap;

use std::process::Command;

type Key = (u32, u32, u8, u8, bool);

/// Plain minimax over every placing position (no symmetry, no pruning),
/// memoised on the exact position; leaves read the value-code section.
fn naive(pos: &Position, rules: &Rules, tables: &TableSet, memo: &mut HashMap<Key, i8>) -> i8 {
    if pos.is_moving_phase() {
        return match tables.probe(pos).unwrap() {
            Value::Win(_) => 1,
            Value::Draw => 0,
            Value::Loss(_) => -1,
        };
    }
    let key = (
        pos.stones.white.0,
        pos.stones.black.0,
        pos.hand.white,
        pos.hand.black,
        pos.to_move == millbase::Color::White,
    );
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let mover = pos.to_move;
    let v = if pos.stones[mover].len() + (pos.hand[mover] as u32) < 3 {
        -1
    } else {
        let mut moves = Vec::new();
        legal_moves(pos, rules, &mut moves);
        moves
            .iter()
            .map(|m| -naive(&pos.play(m), rules, tables, memo))
            .max()
            .unwrap_or(-1)
    };
    memo.insert(key, v);
    v
}

/// Checks the search against the naive minimax from `from` (and its
/// children, and along the search's principal line); returns the value.
fn agree(rules: &Rules, tables: &TableSet, from: &Position) -> i8 {
    let mut memo = HashMap::new();
    let search = OpeningSearch::new(tables);
    let mut moves = Vec::new();
    legal_moves(from, rules, &mut moves);
    for m in &moves {
        let child = from.play(m);
        let want = naive(&child, rules, tables, &mut memo);
        let got = search.value(&child).unwrap();
        assert_eq!(wdl_of(want), got, "after {m:?} from {from:?}");
    }
    let want = naive(from, rules, tables, &mut memo);
    assert_eq!(wdl_of(want), search.value(from).unwrap(), "{from:?}");
    // Ordered by the placing tables' hints: the same values.
    let hinted = OpeningSearch::new(tables).with_hints();
    for m in &moves {
        let child = from.play(m);
        let want = naive(&child, rules, tables, &mut memo);
        assert_eq!(
            wdl_of(want),
            hinted.value(&child).unwrap(),
            "hinted, after {m:?}"
        );
    }
    assert!(hinted.hint_probes() > 0);
    // A transposition table of 16 slots (entries replaced all the time),
    // searched by 4 threads: the same values.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let tiny = OpeningSearch::with_table_bits(tables, 4).with_hints();
    for m in &moves {
        let child = from.play(m);
        let want = naive(&child, rules, tables, &mut memo);
        let got = pool.install(|| tiny.value(&child)).unwrap();
        assert_eq!(wdl_of(want), got, "tiny table, 4 threads, after {m:?}");
    }
    // The principal line keeps the value to the moving phase.
    let line = search.principal_line(from).unwrap();
    let mut pos = *from;
    let mut sign = 1;
    for m in &line {
        pos = pos.play(m);
        sign = -sign;
        assert_eq!(
            sign * naive(&pos, rules, tables, &mut memo),
            want,
            "{line:?}"
        );
    }
    assert!(pos.is_moving_phase(), "the line ends in the moving phase");
    want
}

#[test]
fn search_agrees_with_naive_minimax() {
    // Three stones: the whole placing phase from the start.
    let rules: Rules = "standard,stones=3".parse().unwrap();
    let db = common::shared_db("standard,stones=3");
    let tables = TableSet::open(db, &rules);
    agree(&rules, &tables, &Position::start(&rules));
    // Four stones: from positions a few plies in (the naive search of the
    // whole tree would take minutes).
    for spec in ["standard,stones=4", "standard,stones=4,flying=off"] {
        let rules: Rules = spec.parse().unwrap();
        let db = common::shared_db(spec);
        let tables = TableSet::open(db, &rules);
        for seed in 1..=6 {
            agree(
                &rules,
                &tables,
                &common::walk(&rules, 3 + (seed as usize % 2), seed * 7919),
            );
        }
    }
}

#[test]
fn verify_prints_the_value_of_the_start() {
    let db = common::shared_db("standard,stones=3");
    let out = Command::new(env!("CARGO_BIN_EXE_millbase"))
        .args([
            "verify",
            "--rules",
            "standard,stones=3",
            "--db",
            db.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let rules: Rules = "standard,stones=3".parse().unwrap();
    let tables = TableSet::open(db, &rules);
    let mut memo = HashMap::new();
    let value = naive(&Position::start(&rules), &rules, &tables, &mut memo);
    let name = wdl_of(value).name().to_uppercase();
    assert!(
        text.contains(&format!("value of the start for White (to move): {name}")),
        "{text}"
    );
    assert!(
        text.contains("a principal line to the moving phase: "),
        "{text}"
    );
}
