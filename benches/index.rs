//! Index speed: `cargo bench --bench index`. Prints ns per operation on one
//! core over random positions of 8-8 (and 9-9).

use millbase::Indexer;
use millbase::{Board, PointSet};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let board = Board::standard();
    let indexer = Indexer::for_board(board);
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut rand = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for (w, b) in [(8u8, 8u8), (9, 9), (5, 5)] {
        let idx = indexer.subspace(w, b);
        let n = 2_000_000;
        let mut pick = |from: PointSet, k: u8| {
            let mut out = PointSet::EMPTY;
            while out.len() < k as u32 {
                let p = board.point((rand() % 24) as u8).unwrap();
                if from.contains(p) {
                    out = out.with(p);
                }
            }
            out
        };
        let positions: Vec<(PointSet, PointSet)> = (0..n)
            .map(|_| {
                let us = pick(board.all, w);
                (us, pick(board.all.minus(us), b))
            })
            .collect();
        let t = Instant::now();
        let mut acc = 0u64;
        for &(us, them) in &positions {
            acc = acc.wrapping_add(idx.slot(black_box(us), black_box(them)));
        }
        let index_ns = t.elapsed().as_nanos() as f64 / n as f64;
        black_box(acc);
        let slots: Vec<u64> = (0..n).map(|_| rand() % idx.slots()).collect();
        let t = Instant::now();
        let mut acc = 0u32;
        for &s in &slots {
            let (u, v) = idx.position(black_box(s)).unwrap();
            acc = acc.wrapping_add(u.0 ^ v.0);
        }
        let position_ns = t.elapsed().as_nanos() as f64 / n as f64;
        black_box(acc);
        // Children-style use: one side prepared, the other ranked.
        let t = Instant::now();
        let mut acc = 0u64;
        for chunk in positions.chunks(8) {
            let side = idx.prepare(chunk[0].0);
            for &(_, them) in chunk {
                let them = them.minus(side.rep);
                if them.len() == b as u32 {
                    acc = acc.wrapping_add(idx.slot_with(&side, them));
                }
            }
        }
        let prepared_ns = t.elapsed().as_nanos() as f64 / n as f64;
        black_box(acc);
        println!(
            "{w}-{b}: index {index_ns:.1} ns/op, position {position_ns:.1} ns/op, slot with prepared side {prepared_ns:.1} ns/op"
        );
    }
}
