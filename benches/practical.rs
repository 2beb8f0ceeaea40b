//! Time to rank a position's moves for practical play, on 2 cores (rayon's
//! pool): every move's replies probed. Positions: random moving-phase
//! positions of the subspaces present, and positions of random games in
//! the placing phase. First with the blocks as they come (mapped tables,
//! blocks mostly not cached), then the same positions again (cached).
//!
//! Then the alpha-beta player that matches set against it: nodes per
//! second and the depth it finishes at each budget, on one core, from the
//! placing-phase positions.
//!
//! `MILLBASE_DB=/path/to/db MILLBASE_RULES=standard,stones=6 cargo bench
//! --bench practical` (defaults `db`, `standard`).

use millbase::AlphaBeta;
use millbase::Position;
use millbase::TableSet;
use millbase::legal_moves;
use millbase::practical_moves;

mod common;
use common::{Rng, percentile, random_position};
use std::time::Instant;

fn main() {
    let Some((db, _, rules, subs)) = common::tables_from_env() else {
        return;
    };
    let tables = TableSet::open(&db, &rules);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut positions: Vec<Position> = Vec::new();
    let mut moves = Vec::new();
    while positions.len() < 300 {
        let s = subs[(rng.next() % subs.len() as u64) as usize];
        let p = random_position(&mut rng, &rules, s);
        legal_moves(&p, &rules, &mut moves);
        if !moves.is_empty() {
            positions.push(p);
        }
    }
    // Placing-phase positions: random games from the start.
    let placing_plies = (rules.stones.white + rules.stones.black) as u64;
    while positions.len() < 600 {
        let mut p = Position::start(&rules);
        for _ in 0..rng.next() % placing_plies {
            legal_moves(&p, &rules, &mut moves);
            if moves.is_empty() {
                break;
            }
            p = p.play(&moves[(rng.next() % moves.len() as u64) as usize]);
        }
        legal_moves(&p, &rules, &mut moves);
        if !moves.is_empty() && tables.probe(&p).is_ok() {
            positions.push(p);
        }
    }
    for pass in ["first", "again (cached)"] {
        let mut times: Vec<f64> = positions
            .iter()
            .map(|p| {
                let t = Instant::now();
                practical_moves(&tables, p, 0).expect("tables present");
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        println!(
            "practical ranking, {} positions, {pass}: mean {mean:.2} ms, median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            times.len(),
            percentile(&mut times, 0.5),
            percentile(&mut times, 0.99),
            percentile(&mut times, 1.0)
        );
    }
    let placing = &positions[300..];
    for budget in [150_000u64, 300_000, 600_000, 1_200_000] {
        let (mut nodes, mut seconds, mut depths) = (0u64, 0f64, Vec::new());
        for p in placing.iter().take(40) {
            // A fresh search each time: no table kept from an earlier move.
            let mut search = AlphaBeta::new(rules);
            let t = Instant::now();
            search.best_move(p, budget, |_| 0);
            seconds += t.elapsed().as_secs_f64();
            nodes += search.nodes();
            depths.push(search.depth() as f64);
        }
        let mean = depths.iter().sum::<f64>() / depths.len() as f64;
        println!(
            "alpha-beta {budget} nodes, {} placing-phase positions: {:.2} M nodes/s, depth finished mean {mean:.1}, min {:.0}, max {:.0}",
            depths.len(),
            nodes as f64 / seconds / 1e6,
            percentile(&mut depths, 0.0),
            percentile(&mut depths, 1.0)
        );
    }
}
