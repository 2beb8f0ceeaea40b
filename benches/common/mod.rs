//! Shared by the benchmarks: a small generator, random positions of a
//! subspace, percentiles.
#![allow(dead_code)]

use millbase::Subspace;
use millbase::TableFolder;
use millbase::{ByColor, Color, Point, PointSet, Position, Rules};
use std::path::{Path, PathBuf};

/// The table folder and rule set named by `MILLBASE_DB` (default `db`)
/// and `MILLBASE_RULES` (default `standard`), with the moving-phase
/// subspaces whose tables are there (the placing phase's with
/// `MILLBASE_PHASE=placing`) (only those listed in
/// `MILLBASE_SUBSPACES`, e.g. `8-8,9-9`, if set); `None` (after saying so)
/// if none are.
pub fn tables_from_env() -> Option<(PathBuf, String, Rules, Vec<Subspace>)> {
    let db = PathBuf::from(std::env::var("MILLBASE_DB").unwrap_or_else(|_| "db".into()));
    let spec = std::env::var("MILLBASE_RULES").unwrap_or_else(|_| "standard".into());
    let rules: Rules = spec.parse().expect("rules");
    let mut subs = present(&db, &rules);
    if let Ok(only) = std::env::var("MILLBASE_SUBSPACES") {
        let only: Vec<Subspace> = only
            .split(',')
            .map(|s| {
                s.parse()
                    .expect("MILLBASE_SUBSPACES: subspaces like 8-8,9-9")
            })
            .collect();
        subs.retain(|s| only.contains(s));
    }
    if subs.is_empty() {
        eprintln!(
            "no tables in {} (set MILLBASE_DB); nothing to measure",
            db.display()
        );
        return None;
    }
    Some((db, spec, rules, subs))
}

fn present(db: &Path, rules: &Rules) -> Vec<Subspace> {
    let folder = TableFolder::new(db, rules);
    let subspaces = match std::env::var("MILLBASE_PHASE").as_deref() {
        Ok("placing") => millbase::placing_subspaces(rules),
        _ => millbase::moving_subspaces(rules),
    };
    subspaces
        .into_iter()
        .filter(|&s| folder.exists(s))
        .collect()
}

/// xorshift64: fixed seeds make runs comparable.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A random position of subspace `s`: White to move with its stones on the
/// board and in hand.
pub fn random_position(rng: &mut Rng, rules: &Rules, s: Subspace) -> Position {
    let size = rules.board().size as u64;
    let mut take = |n: u8, used: PointSet| {
        let mut s = PointSet(0);
        while s.len() < n as u32 {
            let p = Point::new((rng.next() % size) as u8).expect("on the board");
            if !used.contains(p) {
                s = s.with(p);
            }
        }
        s
    };
    let white = take(s.us, PointSet(0));
    let black = take(s.them, white);
    Position {
        stones: ByColor { white, black },
        hand: ByColor {
            white: s.us_hand,
            black: s.them_hand,
        },
        to_move: Color::White,
    }
}

/// The `p` quantile (0..1) of `v` (sorted in place).
pub fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() - 1) as f64 * p) as usize]
}
