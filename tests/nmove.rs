//! The N-move rule's tables against a naive solver that models the counter
//! explicitly: state = (position, counter); a move that closes no mill goes
//! to counter + 1, a mill to counter 0; reaching counter N without the game
//! ending is a draw. Computed layer by layer from counter N - 1 down to 0
//! (the counter only grows between mills). It shares no code with the
//! builder: forward moves (`legal_moves`) and brute-force symmetry only.

mod common;

use millbase::index::{Indexer, Subspace};
use millbase::moves::legal_moves;
use millbase::solve::NoProgress;
use millbase::solve::build::{BuildOptions, build};
use millbase::solve::value::{Encoding, Value};
use millbase::table::TableFolder;
use millbase::{ByColor, Color, PointSet, Position, Rules};
use rayon::prelude::*;
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Wdl {
    Win,
    Draw,
    Loss,
}

/// Each symmetry as three byte-indexed tables of images, for a fast
/// brute-force canonical form.
struct Images(Vec<[[u32; 256]; 3]>);

impl Images {
    fn new(rules: &Rules) -> Images {
        Images(
            rules
                .board()
                .symmetries
                .iter()
                .map(|s| {
                    let mut t = [[0u32; 256]; 3];
                    for (k, tk) in t.iter_mut().enumerate() {
                        for (v, out) in tk.iter_mut().enumerate() {
                            *out = s.apply_set(PointSet((v as u32) << (8 * k))).0;
                        }
                    }
                    t
                })
                .collect(),
        )
    }

    /// The smallest image of `(us, them)`.
    fn canonical(&self, us: u32, them: u32) -> (u32, u32) {
        let img = |t: &[[u32; 256]; 3], s: u32| {
            t[0][(s & 255) as usize] | t[1][(s >> 8 & 255) as usize] | t[2][(s >> 16) as usize]
        };
        self.0
            .iter()
            .map(|t| (img(t, us), img(t, them)))
            .min()
            .unwrap()
    }
}

fn sets(n: u8, k: u32) -> Vec<u32> {
    (0u32..1 << n).filter(|s| s.count_ones() == k).collect()
}

/// The classes of a group of subspaces and their moves: (closes a mill,
/// the child's class, or `None` when the opponent is left below 3 stones).
struct Graph {
    nodes: Vec<(u32, u32)>,
    children: Vec<Vec<(bool, Option<(u32, u32)>)>>,
    index: HashMap<(u32, u32), usize>,
}

fn graph(rules: &Rules, group: &[(u32, u32)]) -> Graph {
    let images = Images::new(rules);
    let size = rules.board().size;
    let mut nodes: Vec<(u32, u32)> = Vec::new();
    for &(w, b) in group {
        let them_sets = sets(size, b);
        let found: Vec<(u32, u32)> = sets(size, w)
            .par_iter()
            .flat_map_iter(|&us| {
                let images = &images;
                them_sets
                    .iter()
                    .filter(move |&&t| t & us == 0 && images.canonical(us, t) == (us, t))
                    .map(move |&t| (us, t))
            })
            .collect();
        nodes.extend(found);
    }
    let children = nodes
        .par_iter()
        .map(|&(us, them)| {
            let pos = Position {
                stones: ByColor {
                    white: PointSet(us),
                    black: PointSet(them),
                },
                hand: ByColor::default(),
                to_move: Color::White,
            };
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

fn compare(base: &str) {
    let rules: Rules = base.parse().unwrap();
    // Built once per rule set: the moves do not depend on N.
    let groups = [graph(&rules, &[(3, 3)]), graph(&rules, &[(4, 3), (3, 4)])];
    for n in [10u32, 20] {
        let spec = format!("{base},nmove={n}");
        let rules: Rules = spec.parse().unwrap();
        let want = naive(n, &groups);
        check_tables(&spec, &rules, n, &want);
    }
}

fn check_tables(spec: &str, rules: &Rules, n: u32, want: &HashMap<(u32, u32), Vec<Wdl>>) {
    let db = std::env::temp_dir().join(format!(
        "millbase-nmove-{}-{}",
        std::process::id(),
        spec.replace([',', '='], "-")
    ));
    let _ = std::fs::remove_dir_all(&db);
    build(
        rules,
        &BuildOptions {
            db: &db,
            subspaces: vec!["4-3".parse().unwrap()],
            level: millbase::table::DEFAULT_LEVEL,
        },
        &NoProgress,
    )
    .unwrap();
    let folder = TableFolder::new(&db, rules);
    let pure = TableFolder::new(&db, &rules.pure());
    let indexer = Indexer::for_board(rules.board());
    let encoding = Encoding::of(rules);
    let (mut cursed, mut checked) = (0, 0);
    for name in ["3-3", "4-3", "3-4"] {
        let s: Subspace = name.parse().unwrap();
        let table = folder.load(s).unwrap();
        let pure_table = pure.load(s).unwrap();
        let idx = indexer.subspace(s.w, s.b);
        for (&(us, them), values) in want
            .iter()
            .filter(|((u, t), _)| u.count_ones() == s.w as u32 && t.count_ones() == s.b as u32)
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
    assert!(checked > 1_000_000, "{spec}: {checked}");
    if n == 10 {
        assert!(cursed > 0, "{spec}: cursed wins exist for N = 10");
    }
    let _ = std::fs::remove_dir_all(&db);
}

#[test]
fn tables_match_a_naive_counter_solver() {
    compare("standard");
}

#[test]
fn tables_match_a_naive_counter_solver_without_flying() {
    compare("standard,flying=off");
}
