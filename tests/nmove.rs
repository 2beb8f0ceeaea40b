//! The N-move rule's tables against a naive solver that models the counter
//! explicitly: state = (position, counter); a move that closes no mill goes
//! to counter + 1, a mill to counter 0; reaching counter N without the game
//! ending is a draw. Computed layer by layer from counter N - 1 down to 0
//! (the counter only grows between mills). It shares no code with the
//! builder: forward moves (`legal_moves`) and brute-force symmetry only.

use crate::common;

use millbase::RuleDraw;
use millbase::TableFolder;
use millbase::legal_moves;
use millbase::{ByColor, Color, PointSet, Position, Rules};
use millbase::{Encoding, Value};
use millbase::{Indexer, Subspace};
use rayon::prelude::*;
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Wdl {
    Win,
    Draw,
    Loss,
}

use common::Images;

/// A move: whether it closes a mill, and the child's class (`None` when
/// the opponent is left below 3 stones).
type Edge = (bool, Option<(u32, u32)>);

/// The classes of a group of subspaces and their moves.
struct Graph {
    nodes: Vec<(u32, u32)>,
    children: Vec<Vec<Edge>>,
    index: HashMap<(u32, u32), usize>,
}

fn graph(rules: &Rules, group: &[(u32, u32)]) -> Graph {
    let images = Images::new(rules.board());
    let mut nodes: Vec<(u32, u32)> = Vec::new();
    for &(us, them) in group {
        nodes.extend(images.classes(rules.board(), us, them));
    }
    let children = nodes
        .par_iter()
        .map(|&(us, them)| {
            let pos = common::moving_position(us, them);
            let mut moves = Vec::new();
            legal_moves(&pos, rules, &mut moves);
            moves
                .iter()
                .map(|m| {
                    let c = pos.play(m);
                    let child = (c.stones.black.len() >= 3)
                        .then(|| images.canonical(c.stones.black.0, c.stones.white.0));
                    (!m.removed.is_empty(), child)
                })
                .collect()
        })
        .collect();
    let index = nodes.iter().enumerate().map(|(i, &k)| (k, i)).collect();
    Graph {
        nodes,
        children,
        index,
    }
}

/// Value at every counter `0..n` of every class of the groups (closed
/// under captures, listed so that captures lead to earlier groups).
fn naive(n: u32, groups: &[Graph]) -> HashMap<(u32, u32), Vec<Wdl>> {
    let mut known: HashMap<(u32, u32), Vec<Wdl>> = HashMap::new();
    for g in groups {
        let blocked = |i: usize| g.children[i].is_empty();
        // Counter n: a draw, unless the move that got there ended the game.
        let mut next: Vec<Wdl> = (0..g.nodes.len())
            .map(|i| if blocked(i) { Wdl::Loss } else { Wdl::Draw })
            .collect();
        let mut layers: Vec<Vec<Wdl>> = Vec::new();
        for _c in (0..n).rev() {
            let layer: Vec<Wdl> = (0..g.nodes.len())
                .into_par_iter()
                .map(|i| {
                    if blocked(i) {
                        return Wdl::Loss;
                    }
                    let mut all_won = true;
                    for &(mill, child) in &g.children[i] {
                        let v = match child {
                            None => Wdl::Loss,
                            // A mill leaves the group: counter 0 there.
                            Some(k) if mill => known[&k][0],
                            Some(k) => next[g.index[&k]],
                        };
                        match v {
                            Wdl::Loss => return Wdl::Win,
                            Wdl::Draw => all_won = false,
                            Wdl::Win => {}
                        }
                    }
                    if all_won { Wdl::Loss } else { Wdl::Draw }
                })
                .collect();
            layers.push(layer.clone());
            next = layer;
        }
        layers.reverse();
        for (i, &k) in g.nodes.iter().enumerate() {
            known.insert(k, layers.iter().map(|l| l[i]).collect());
        }
    }
    known
}

/// Builds the moving-phase tables 3-3, 4-3 and 3-4 of `rules` into a
/// fresh folder, removed when the handle is dropped.
fn build_4_3(rules: &Rules, name: &str) -> common::TempDir {
    let db = common::TempDir::new(name);
    common::build_tables(&db, rules, &["4-3"]);
    db
}

/// Compares the tables of `base` under the rule with N in `ns` with the
/// naive counter solver; the first N is short enough for cursed wins.
fn compare(base: &str, ns: &[u32]) {
    let rules: Rules = base.parse().unwrap();
    // Built once per rule set: the moves do not depend on N.
    let groups = [graph(&rules, &[(3, 3)]), graph(&rules, &[(4, 3), (3, 4)])];
    for (i, &n) in ns.iter().enumerate() {
        let spec = format!("{base},nmove={n}");
        let rules: Rules = spec.parse().unwrap();
        let want = naive(n, &groups);
        check_tables(&spec, &rules, n, &want, i == 0);
    }
}

fn check_tables(
    spec: &str,
    rules: &Rules,
    n: u32,
    want: &HashMap<(u32, u32), Vec<Wdl>>,
    cursed_wins: bool,
) {
    let db = build_4_3(rules, &format!("nmove-{spec}"));
    let folder = TableFolder::new(&db, rules);
    let pure = TableFolder::new(&db, &rules.pure());
    let indexer = Indexer::for_board(rules.board());
    let encoding = Encoding::of(rules, true);
    let (mut cursed, mut checked) = (0, 0);
    for name in ["3-3", "4-3", "3-4"] {
        let s: Subspace = name.parse().unwrap();
        let table = folder.load(s).unwrap();
        let pure_table = pure.load(s).unwrap();
        let idx = indexer.subspace(s.us, s.them);
        for (&(us, them), values) in want
            .iter()
            .filter(|((u, t), _)| u.count_ones() == s.us as u32 && t.count_ones() == s.them as u32)
        {
            let slot = idx.slot(PointSet(us), PointSet(them));
            let code = table.code(slot);
            for (c, &v) in values.iter().enumerate() {
                let got = match encoding.value(code).unwrap() {
                    Value::Win(z) if z as usize <= n as usize - c => Wdl::Win,
                    Value::Loss(z) if z as usize <= n as usize - c => Wdl::Loss,
                    _ => Wdl::Draw,
                };
                assert_eq!(got, v, "{spec} {s} us={us:#x} them={them:#x} counter {c}");
                checked += 1;
            }
            // A cursed win: won in the pure game, drawn at counter 0.
            if values[0] == Wdl::Draw && matches!(pure_table.value(slot), Some(Value::Win(_))) {
                assert_eq!(
                    encoding.cursed(code),
                    Some(true),
                    "{spec} {s} {us:#x} {them:#x}"
                );
                cursed += 1;
            }
        }
    }
    assert!(checked > 100_000, "{spec}: {checked}");
    if cursed_wins {
        assert!(cursed > 0, "{spec}: cursed wins exist for N = {n}");
    }
}

/// On the 16-point board (the rule's code does not depend on the board),
/// with and without flying.
#[test]
fn tables_match_a_naive_counter_solver() {
    compare("six,flying=3", &[4, 10]);
    compare("six", &[4, 10]);
}

/// The same on the 24-point board (minutes:
/// `cargo test --release --test nmove -- --ignored`).
#[test]
#[ignore]
fn tables_match_a_naive_counter_solver_on_the_standard_board() {
    compare("standard", &[10, 20]);
    compare("standard,flying=off", &[10, 20]);
}

#[test]
fn the_last_ply_before_the_counter_runs_out() {
    // At counter N - 1: a mill wins, a quiet move that leaves the opponent
    // without a move wins, any other quiet move reaches N and draws.
    let spec = "standard,flying=off,nmove=10";
    let rules: Rules = spec.parse().unwrap();
    let db = build_4_3(&rules, "nmove-boundary");
    let tables = millbase::TableSet::open(&db, &rules);
    let idx = Indexer::for_board(rules.board()).subspace(4, 3);
    let (mut mills, mut blocks, mut quiet, mut by_counter) = (0, 0, 0, 0);
    let mut moves = Vec::new();
    let mut replies = Vec::new();
    for slot in (0..idx.slots()).step_by(7) {
        if !idx.is_canonical(slot) {
            continue;
        }
        let (us, them) = idx.position(slot).unwrap();
        let pos = Position {
            stones: ByColor {
                white: us,
                black: them,
            },
            hand: ByColor::default(),
            to_move: Color::White,
        };
        legal_moves(&pos, &rules, &mut moves);
        if moves.is_empty() {
            continue;
        }
        let valued = tables.probe_moves_at(&pos, 9).unwrap();
        for m in &valued {
            let child = pos.play(&m.mv);
            legal_moves(&child, &rules, &mut replies);
            if !m.mv.removed.is_empty() {
                // A mill from 4-3 leaves Black two stones: the game ends.
                assert_eq!(m.value, Value::Win(1), "{}", pos.board_string(&rules));
                mills += 1;
            } else if replies.is_empty() {
                assert_eq!(m.value, Value::Win(1), "{}", pos.board_string(&rules));
                blocks += 1;
            } else {
                assert_eq!(m.value, Value::Draw, "{}", pos.board_string(&rules));
                quiet += 1;
            }
        }
        // The position's own value at counter 9 is its best move's.
        assert_eq!(tables.probe_at(&pos, 9).unwrap().value, valued[0].value);
        // Cursed wins and blessed losses (Z > N) are draws at every
        // counter; a position decided at counter 0 whose Z no longer fits
        // is a draw by the counter, not a cursed win (docs/RULES.md 5).
        let zero = tables.probe_at(&pos, 0).unwrap();
        assert!(
            matches!(
                zero.rule_draw,
                None | Some(RuleDraw::CursedWin | RuleDraw::BlessedLoss)
            ),
            "{zero:?}"
        );
        for c in [1u16, 5, 9] {
            let want = match zero.value {
                Value::Win(z) if z > 10 - c as u32 => Some(RuleDraw::WinByCounter),
                Value::Loss(z) if z > 10 - c as u32 => Some(RuleDraw::LossByCounter),
                _ => zero.rule_draw,
            };
            assert_eq!(
                tables.probe_at(&pos, c).unwrap().rule_draw,
                want,
                "counter {c}"
            );
            by_counter +=
                matches!(want, Some(RuleDraw::WinByCounter | RuleDraw::LossByCounter)) as u32;
        }
    }
    assert!(
        mills > 100 && blocks > 0 && quiet > 100 && by_counter > 100,
        "{mills} {blocks} {quiet} {by_counter}"
    );
}

#[test]
fn every_command_under_the_rule() {
    let spec = "standard,stones=3,nmove=10";
    let db = common::build_db("nmove-cli", spec);
    let d = db.to_str().unwrap();
    let run = |args: &[&str]| {
        let mut all = vec![args[0], "--rules", spec, "--db", d];
        all.extend_from_slice(&args[1..]);
        common::run(&all)
    };
    let text = |o: &std::process::Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    let o = run(&["check"]);
    assert!(text(&o).contains("all consistent"), "{}", text(&o));
    let o = run(&["verify"]);
    assert!(text(&o).contains("both methods agree"), "{}", text(&o));
    // Gasser's longest 3-3 loss (26 plies) is a blessed loss under nmove=10.
    let gasser = ".WWBW..B/......../.B...... b 0 0";
    let o = run(&["query", "--json", gasser, "--counter", "3"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (j["value"].as_str(), j["counter"].as_u64()),
        (Some("draw"), Some(3)),
        "{j}"
    );
    assert_eq!(j["rule_draw"], "blessed loss", "{j}");
    assert_eq!(j["pure"]["plies"], 26, "{j}");
    // The counter as a fifth field of the board string, and in a batch.
    let o = run(&["query", "--json", &format!("{gasser} 3")]);
    let k: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j, k);
    // At counter N the game is over: drawn, with no move listed.
    let o = run(&["query", "--json", gasser, "--counter", "10"]);
    let over: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(over["value"], "draw", "{over}");
    assert_eq!(over["over"], "nmove", "{over}");
    assert_eq!(over["moves"].as_array().map(Vec::len), Some(0), "{over}");
    for bad in ["x", "-1", "11", "1.5"] {
        let o = run(&["query", gasser, "--counter", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", text(&o));
        assert!(text(&o).contains("counter"), "{}", text(&o));
    }
    // A counter while stones are in hand, and under rules without the rule.
    let o = run(&["query", "--counter", "2", "start"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = common::run(&[
        "query",
        "--rules",
        "standard,stones=3",
        "--db",
        d,
        &format!("{gasser} 3"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("no N-move rule"), "{}", text(&o));
    // stats count the cursed wins and blessed losses.
    let o = run(&["stats", "--json"]);
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(s["total"]["blessed_losses"].as_u64().unwrap() > 0, "{s}");
    assert!(s["total"]["cursed_wins"].as_u64().unwrap() > 0, "{s}");
    // A cursed win marked as a plain draw: `check` names the slot.
    let rules: Rules = spec.parse().unwrap();
    let s: Subspace = "3-3".parse().unwrap();
    let folder = TableFolder::new(&db, &rules);
    let table = folder.load(s).unwrap();
    let e = table.encoding();
    let slot = (0..table.len())
        .find(|&i| e.cursed(table.code(i)) == Some(true))
        .unwrap();
    let codes: Vec<u16> = (0..table.len())
        .map(|i| if i == slot { 0 } else { table.code(i) })
        .collect();
    common::rewrite_table(&db, &rules, s, &codes);
    let o = run(&["check", "--subspaces", "3-3"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains(&format!("slot {slot} ")), "{}", text(&o));
    // A damaged pure table is an error, not "pure tables not built".
    let pure = db.join("standard").join("3-3.mbt");
    let mut bytes = std::fs::read(&pure).unwrap();
    bytes[30] ^= 0xff;
    std::fs::write(&pure, bytes).unwrap();
    let o = run(&["query", "--json", &format!("{gasser} 3")]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("3-3.mbt"), "{}", text(&o));
    std::fs::remove_file(&pure).unwrap();
    let o = run(&["query", "--json", &format!("{gasser} 3")]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(o.status.success() && j["pure"].is_null(), "{}", text(&o));
}

/// Completing a line resets the counter under `mill=wins` too, where no
/// stone is removed: the position after it carries counter 0.
#[test]
fn a_move_that_completes_a_line_resets_the_counter_without_a_removal() {
    let spec = "three,nmove=10";
    let db = common::shared_db(spec);
    let rules: Rules = spec.parse().unwrap();
    let tables = millbase::TableSet::open(db, &rules);
    // White slides c2-c1 and completes a1-b1-c1; the other moves do not.
    let probed = tables.probe_text("BB.W.WW./B w 0 0", Some("3")).unwrap();
    let answer = probed.to_answer(&rules);
    let mut seen = 0;
    for m in &answer.moves {
        let counter = m.after.rsplit(' ').next().unwrap();
        let want = if m.mv == "c2-c1" { "0" } else { "4" };
        assert_eq!(counter, want, "{} -> {}", m.mv, m.after);
        seen += 1;
    }
    assert_eq!(seen, 4);
}
