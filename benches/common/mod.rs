//! Shared by the benchmarks: a small generator, random moving-phase
//! positions, percentiles.
#![allow(dead_code)]

use millbase::{ByColor, Color, Point, PointSet, Position, Rules};

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

/// A random moving-phase position with `w` white and `b` black stones,
/// White to move.
pub fn random_position(rng: &mut Rng, rules: &Rules, w: u8, b: u8) -> Position {
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
    let white = take(w, PointSet(0));
    let black = take(b, white);
    Position {
        stones: ByColor { white, black },
        hand: ByColor::default(),
        to_move: Color::White,
    }
}

/// The `p` quantile (0..1) of `v` (sorted in place).
pub fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() - 1) as f64 * p) as usize]
}
