//! Lasker morris (a side with stones in hand may slide instead of placing):
//! the cyclic placing phase against a naive solver, published start values,
//! resuming, `check` and `verify`.

use crate::common;

use common::{Images, run as millbase};
use millbase::Subspace;
use millbase::TableSet;
use millbase::Value;
use millbase::legal_moves;
use millbase::{Color, Position, Rules};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;

fn build(tag: &str, rules: &str) -> common::TempDir {
    common::build_db(&format!("lasker-{tag}"), rules)
}

/// A class key of a placing-phase position: the canonical stones of the
/// side to move and of the other, then both hands.
fn key(images: &Images, pos: &Position) -> (u32, u32, u8, u8) {
    let us = pos.stones[pos.to_move].0;
    let them = pos.stones[!pos.to_move].0;
    let (u, t) = images.canonical(us, them);
    (u, t, pos.hand[pos.to_move], pos.hand[!pos.to_move])
}

/// Values with plies of every placing-phase class reachable from `roots`:
/// the graph is generated with the forward move generator, moving-phase
/// positions are leaves read from the tables, and the values come from
/// rounds over every position (round `r`: won in `r` if a child is lost in
/// `r - 1`, lost in `r` if every child is won in fewer; open at the end:
/// drawn). Returns one position per class with its value.
fn naive(rules: &Rules, tables: &TableSet, roots: &[Position]) -> Vec<(Position, Value)> {
    let images = Images::new(rules.board());
    let mut ids: HashMap<(u32, u32, u8, u8), usize> = HashMap::new();
    let mut nodes: Vec<Position> = Vec::new();
    for r in roots {
        if !r.is_moving_phase() && !ids.contains_key(&key(&images, r)) {
            ids.insert(key(&images, r), nodes.len());
            nodes.push(*r);
        }
    }
    // A child: a leaf's value, or an inner node.
    enum Child {
        Leaf(Value),
        Node(usize),
    }
    let mut children: Vec<Vec<Child>> = Vec::new();
    let mut moves = Vec::new();
    let mut i = 0;
    while i < nodes.len() {
        let pos = nodes[i];
        legal_moves(&pos, rules, &mut moves);
        let mut out = Vec::new();
        for m in &moves {
            let c = pos.play(m);
            let mover = c.to_move;
            if c.stones[mover].len() + c.hand[mover] as u32 <= 2 {
                out.push(Child::Leaf(Value::Loss(0)));
            } else if c.is_moving_phase() {
                out.push(Child::Leaf(tables.probe(&c).unwrap()));
            } else {
                let k = key(&images, &c);
                let id = *ids.entry(k).or_insert_with(|| {
                    nodes.push(c);
                    nodes.len() - 1
                });
                out.push(Child::Node(id));
            }
        }
        children.push(out);
        i += 1;
    }
    // Leaves carry plies of their own, so decisions go by depth: round `r`
    // decides the positions won or lost in exactly `r` plies.
    let max_leaf = children
        .iter()
        .flatten()
        .filter_map(|c| match c {
            Child::Leaf(Value::Win(d) | Value::Loss(d)) => Some(*d),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let mut value: Vec<Option<Value>> = vec![None; nodes.len()];
    for r in 0u32.. {
        let child = |c: &Child| match c {
            Child::Leaf(v) => Some(*v),
            Child::Node(j) => value[*j],
        };
        let decided: Vec<(usize, Value)> = (0..nodes.len())
            .into_par_iter()
            .filter_map(|i| {
                let kids = &children[i];
                if value[i].is_some() {
                    None
                } else if kids.is_empty() {
                    (r == 0).then_some((i, Value::Loss(0)))
                } else if r == 0 {
                    None
                } else if kids.iter().any(|c| child(c) == Some(Value::Loss(r - 1))) {
                    Some((i, Value::Win(r)))
                } else if kids
                    .iter()
                    .all(|c| matches!(child(c), Some(Value::Win(d)) if d < r))
                {
                    Some((i, Value::Loss(r)))
                } else {
                    None
                }
            })
            .collect();
        // After the deepest leaf, a round that decides nothing is the last.
        if decided.is_empty() && r > max_leaf {
            break;
        }
        for (i, v) in decided {
            value[i] = Some(v);
        }
    }
    nodes
        .into_iter()
        .zip(value)
        .map(|(p, v)| (p, v.unwrap_or(Value::Draw)))
        .collect()
}

fn compare(rules: &Rules, tables: &TableSet, roots: &[Position]) -> usize {
    let values = naive(rules, tables, roots);
    let mut wrong: Vec<_> = values
        .par_iter()
        .filter(|(p, v)| tables.probe(p).ok() != Some(*v))
        .map(|(p, v)| (p.board_string(rules), *v, tables.probe(p).ok()))
        .collect();
    wrong.truncate(5);
    assert!(wrong.is_empty(), "{wrong:?}");
    values.len()
}

#[test]
fn every_position_matches_naive() {
    for (spec, at_least) in [
        ("lasker,stones=3", 50_000),
        ("lasker,stones=4/3", 500_000),
        // Other boards and options.
        ("three,lasker=on", 100),
        ("six,stones=4,lasker=on", 100),
        ("twelve,stones=3,lasker=on", 100),
        ("standard,stones=3,lasker=on,flying=off", 100),
    ] {
        let rules: Rules = spec.parse().unwrap();
        let db = common::shared_db(spec);
        let tables = TableSet::open(db, &rules);
        let n = compare(&rules, &tables, &[Position::start(&rules)]);
        assert!(n > at_least, "{spec}: {n} classes");
    }
}

#[test]
fn sampled_four_stone_positions_match_naive() {
    let spec = "lasker,stones=4";
    let rules: Rules = spec.parse().unwrap();
    let db = common::shared_db(spec);
    let tables = TableSet::open(db, &rules);
    // Positions a few placements from the end, and all they reach.
    let roots: Vec<Position> = (1..=3u64)
        .map(|seed| common::walk(&rules, 5 + seed as usize % 2, seed * 7919))
        .collect();
    let n = compare(&rules, &tables, &roots);
    assert!(n > 10_000, "{n} classes");
}

/// Gevay and Danner 2015, Table III (Lasker morris, White to move, stones
/// to place White/Black).
#[test]
fn published_start_values() {
    for (stones, want) in [
        ("3", Value::Win(23)),
        ("4/3", Value::Draw),
        ("4", Value::Draw),
        ("5/3", Value::Win(9)),
    ] {
        let spec = format!("lasker,stones={stones}");
        let rules: Rules = spec.parse().unwrap();
        let db = common::shared_db(&spec);
        let tables = TableSet::open(db, &rules);
        assert_eq!(
            tables.probe(&Position::start(&rules)).unwrap(),
            want,
            "{spec}"
        );
        // Both methods of `verify` agree (the smaller games: the search of
        // method 2 takes 17 s on 4/4).
        if !matches!(stones, "3" | "4/3") {
            continue;
        }
        let out = common::run_ok(&["verify", "--rules", &spec, "--db", db.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("both methods agree"), "{spec}: {text}");
    }
}

/// The search that scores a repetition on its path as a draw (`verify`'s
/// second method under Lasker rules) against the tables, on every class
/// reachable from the start (one search and its transposition table for
/// all of them, so that a result stored on one path and read on another
/// is tested too) and from the starts of larger games.
#[test]
fn repetition_search_matches_the_tables() {
    repetition_search_on(&[
        ("lasker,stones=3", 1),
        ("lasker,stones=4/3", 101),
        ("six,stones=4,lasker=on", 7),
        ("lasker,stones=5/3", 0),
    ]);
}

/// The same on larger cases: the 4/4 start, every class of the 16-point
/// board's 4/4 and every 13th class of 4/3
/// (minutes; `cargo test --release --test lasker -- --ignored`).
#[test]
#[ignore]
fn repetition_search_matches_the_tables_on_larger_cases() {
    repetition_search_on(&[
        ("lasker,stones=4/3", 13),
        ("six,stones=4,lasker=on", 1),
        ("lasker,stones=4", 0),
    ]);
}

/// Searches, with one transposition table per rule set, every `every`-th
/// class reachable from the start (only the start when `every` is 0).
fn repetition_search_on(cases: &[(&str, usize)]) {
    for &(spec, every) in cases {
        let rules: Rules = spec.parse().unwrap();
        let db = common::shared_db(spec);
        let tables = TableSet::open(db, &rules);
        let search = millbase::OpeningSearch::with_table_bits(&tables, 22);
        let start = Position::start(&rules);
        let positions: Vec<Position> = if every == 0 {
            vec![start]
        } else {
            naive(&rules, &tables, &[start])
                .into_iter()
                .step_by(every)
                .map(|(p, _)| p)
                .collect()
        };
        let mut wrong = Vec::new();
        for p in &positions {
            let want = tables.probe_wdl(p).unwrap();
            let got = search.value(p).unwrap();
            if got != want {
                wrong.push((p.board_string(&rules), want, got));
            }
        }
        wrong.truncate(5);
        assert!(wrong.is_empty(), "{spec}: {wrong:?}");
        eprintln!(
            "{spec}: {} positions, {} searched, longest path {}",
            positions.len(),
            search.nodes(),
            search.longest_path()
        );
        assert!(
            search.longest_path() > 0,
            "{spec}: the search went below its roots"
        );
    }
}

fn placing_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    common::table_files(dir, |_| true)
}

#[test]
fn a_killed_build_resumes_to_the_same_bytes() {
    let spec = "lasker,stones=4/3";
    let db = build("resume", spec);
    let dir = millbase::TableFolder::new(&db, &spec.parse().unwrap()).dir();
    let before = placing_files(&dir);
    // Kill a fresh build once it has written some placing tables.
    let again = common::TempDir::new("lasker-resume-again");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_millbase"))
        .args(["build", "--rules", spec, "--db", again.to_str().unwrap()])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let dir2 = millbase::TableFolder::new(&again, &spec.parse().unwrap()).dir();
    let t = std::time::Instant::now();
    while std::fs::read_dir(&dir2).map_or(0, |d| d.count()) < 6 && t.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let partial = std::fs::read_dir(&dir2).unwrap().count();
    let out = common::run_ok(&["build", "--rules", spec, "--db", again.to_str().unwrap()]);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("placing phase: built"), "{log}");
    // Leftover temporary files are never taken for tables.
    let after = placing_files(&dir2);
    assert_eq!(after, before, "after a kill with {partial} files written");
}

#[test]
fn check_passes_and_finds_a_planted_error() {
    let spec = "lasker,stones=4/3";
    let rules: Rules = spec.parse().unwrap();
    let db = build("check", spec);
    let d = db.to_str().unwrap();
    let out = millbase(&["check", "--rules", spec, "--db", d]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("all consistent"), "{text}");
    // A subspace where both sides may slide: a win turned into a draw.
    let s: Subspace = "3-2-1-1".parse().unwrap();
    let table = common::load_table(&db, &rules, s);
    let mut codes: Vec<u16> = (0..table.len()).map(|i| table.code(i)).collect();
    let slot = (0..codes.len())
        .find(|&i| matches!(Value::from_code(codes[i]), Some(Value::Win(_))))
        .unwrap();
    codes[slot] = Value::Draw.code();
    common::rewrite_table(&db, &rules, s, &codes);
    common::check_finds(&db, spec, "3-2-1-1", slot);
}

#[test]
fn query_lists_slides_during_placing() {
    let spec = "lasker,stones=3";
    let rules: Rules = spec.parse().unwrap();
    let db = common::shared_db(spec);
    let tables = TableSet::open(db, &rules);
    // White a7 d7, Black g1, White to move with one stone in hand each.
    let pos = millbase::parse_position("WW....B./......../........ w 1 2", &rules)
        .unwrap()
        .position;
    assert_eq!(pos.to_move, Color::White);
    let moves = tables.probe_moves(&pos).unwrap();
    assert!(moves.iter().any(|m| m.mv.from.is_some()), "slides listed");
    assert!(
        moves.iter().any(|m| m.mv.from.is_none()),
        "placements listed"
    );
    assert_eq!(moves[0].value, tables.probe(&pos).unwrap());
}

#[test]
fn the_n_move_rule_combines_with_lasker() {
    // Placing positions take the moving phase's values at counter 0: with
    // 10 plies the 3/3 start, a win in 23 without the rule, is a draw.
    let spec = "lasker,stones=3,nmove=10";
    let db = common::shared_db(spec);
    let d = db.to_str().unwrap();
    let out = common::run_ok(&["check", "--rules", spec, "--db", d]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("all consistent"));
    let out = common::run_ok(&["verify", "--rules", spec, "--db", d]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("both methods agree: the game is a draw"),
        "{text}"
    );
}
