//! Probe latency from built tables: cold (first probe after opening the
//! table folder) and warm (tables mapped; block cached, or not).
//!
//! `MILLBASE_DB=/path/to/db cargo bench --bench query` (default `db`),
//! `MILLBASE_RULES` (default `standard`). Needs the moving-phase tables;
//! with `MILLBASE_PHASE=placing`, positions of the placing phase instead.
//!
//! With `MILLBASE_CODES=FILE` (position codes, `Position::code`, as
//! little-endian `u64`s; `tools/bench_python.py` writes one) it measures
//! instead what the Python bindings are compared with: the positions
//! probed on every core, a second time with their blocks cached, and one
//! cached probe after another. With `MILLBASE_DECODE=6-5,5-5` it times
//! decoding those whole tables instead.

use millbase::Position;
use millbase::TableSet;
use rayon::prelude::*;

mod common;
use common::{Rng, percentile, random_position};
use std::time::Instant;

/// The Rust side of `tools/bench_python.py`: the same positions probed
/// as `Tables.probe_many` and `Tables.probe` probe them.
fn codes_bench(db: &std::path::Path, rules: &millbase::Rules, file: &str) {
    let bytes = std::fs::read(file).expect("MILLBASE_CODES: a file of u64 codes");
    let positions: Vec<Position> = bytes
        .chunks_exact(8)
        .map(|c| {
            Position::from_code(u64::from_le_bytes(c.try_into().unwrap()), rules)
                .expect("a position code of these rules")
        })
        .collect();
    let tables = TableSet::open(db, rules);
    let all = |tables: &TableSet| {
        let t = Instant::now();
        let n = positions
            .par_iter()
            .map(|p| tables.probe_at(p, 0).expect("probe").value)
            .filter(|v| *v == millbase::Value::Draw)
            .count();
        std::hint::black_box(n);
        positions.len() as f64 / t.elapsed().as_secs_f64()
    };
    let first = all(&tables);
    let cached = all(&tables);
    println!(
        "probe of {} positions on every core: {first:.0} probes/s, cached {cached:.0} probes/s",
        positions.len()
    );
    let one = &positions[0];
    let rounds = 200_000;
    let t = Instant::now();
    for _ in 0..rounds {
        std::hint::black_box(tables.probe_at(one, 0).expect("probe"));
    }
    println!(
        "one cached probe: {:.3} us",
        t.elapsed().as_secs_f64() * 1e6 / rounds as f64
    );
}

/// `MILLBASE_DECODE=6-5,5-5`: each listed table decoded whole into memory
/// (what a build does with the tables it reads, and with every table it
/// writes, block by block), the best of five, on every core.
fn decode_bench(db: &std::path::Path, rules: &millbase::Rules, list: &str) {
    let folder = millbase::TableFolder::new(db, rules);
    for name in list.split(',') {
        let s: millbase::Subspace = name.parse().expect("MILLBASE_DECODE: subspaces like 6-5");
        let file = folder.open(s).expect("the table is in the folder");
        let best = (0..5)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(file.decode().expect("a sound table"));
                t.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min);
        let slots = file.info().slots;
        println!(
            "decode {name}: {:.3} s, {slots} slots, {:.2} ns a slot",
            best,
            best * 1e9 / slots as f64
        );
    }
}

fn main() {
    let Some((db, _, rules, subs)) = common::tables_from_env() else {
        return;
    };
    if let Ok(file) = std::env::var("MILLBASE_CODES") {
        codes_bench(&db, &rules, &file);
        return;
    }
    if let Ok(list) = std::env::var("MILLBASE_DECODE") {
        decode_bench(&db, &rules, &list);
        return;
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let pick = |rng: &mut Rng| {
        let s = subs[(rng.next() % subs.len() as u64) as usize];
        random_position(rng, &rules, s)
    };

    // Cold: a fresh TableSet each time, first probe in a random subspace.
    let mut cold: Vec<f64> = (0..200)
        .map(|_| {
            let pos = pick(&mut rng);
            let t = Instant::now();
            let tables = TableSet::open(&db, &rules);
            tables.probe(&pos).expect("probe");
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    println!(
        "cold probe (open + first probe), 200 runs: median {:.0} us, p99 {:.0} us, max {:.0} us",
        percentile(&mut cold, 0.5),
        percentile(&mut cold, 0.99),
        percentile(&mut cold, 1.0)
    );

    let tables = TableSet::open(&db, &rules);
    let positions: Vec<Position> = (0..20_000).map(|_| pick(&mut rng)).collect();
    // Random positions, blocks mostly not cached: decompress one block each.
    let t = Instant::now();
    for p in &positions {
        tables.probe(p).expect("probe");
    }
    let miss = t.elapsed().as_secs_f64() * 1e6 / positions.len() as f64;
    // The same positions again, a few at a time: blocks cached.
    let few = &positions[..500];
    for p in few {
        tables.probe(p).expect("probe");
    }
    let rounds = 200;
    let t = Instant::now();
    for _ in 0..rounds {
        for p in few {
            tables.probe(p).expect("probe");
        }
    }
    let hit = t.elapsed().as_secs_f64() * 1e6 / (rounds * few.len()) as f64;
    // Win/draw/loss only, random positions, with a cache of its own (a
    // code probe may have read the win/draw/loss block already).
    let wdl_tables = TableSet::open(&db, &rules);
    let t = Instant::now();
    for p in &positions[..5000] {
        wdl_tables.probe_wdl(p).expect("probe");
    }
    let wdl = t.elapsed().as_secs_f64() * 1e6 / 5000.0;
    // A position and all its moves (what `query` does).
    let t = Instant::now();
    for p in &positions[5000..7000] {
        tables.probe_moves(p).expect("probe");
    }
    let moves = t.elapsed().as_secs_f64() * 1e6 / 2000.0;
    println!("warm probe, random position (block decompressed): {miss:.1} us");
    println!("warm probe, block cached: {hit:.2} us");
    println!("warm win/draw/loss probe, random position: {wdl:.1} us");
    println!("warm probe of every move of a random position: {moves:.0} us");
    if let Ok(dir) = std::env::var("MILLBASE_PACK") {
        pack_bench(std::path::Path::new(&dir), &db, &rules, &positions);
    }
}

/// `MILLBASE_PACK=DIR`: the pack's probes beside the tables' on the same
/// positions, each with a fresh cache: win/draw/loss of random positions
/// (blocks mostly decompressed), the same 500 positions over and over
/// (blocks cached), and every move of a position.
fn pack_bench(
    dir: &std::path::Path,
    db: &std::path::Path,
    rules: &millbase::Rules,
    positions: &[Position],
) {
    let pack = millbase::Pack::open(dir, rules).expect("MILLBASE_PACK: a pack of these rules");
    let tables = TableSet::open(db, rules);
    let time = |f: &dyn Fn(&Position), ps: &[Position], rounds: usize| {
        let t = Instant::now();
        for _ in 0..rounds {
            for p in ps {
                f(p);
            }
        }
        t.elapsed().as_secs_f64() * 1e6 / (rounds * ps.len()) as f64
    };
    let pack_wdl = |p: &Position| {
        pack.probe_wdl(p).expect("pack probe");
    };
    let table_wdl = |p: &Position| {
        tables.probe_wdl(p).expect("probe");
    };
    let uncached = (
        time(&pack_wdl, &positions[..5000], 1),
        time(&table_wdl, &positions[..5000], 1),
    );
    let few = &positions[7000..7500];
    time(&pack_wdl, few, 1);
    time(&table_wdl, few, 1);
    let cached = (time(&pack_wdl, few, 200), time(&table_wdl, few, 200));
    let pack_moves = |p: &Position| {
        pack.probe_moves(p).expect("pack probe");
    };
    let table_moves = |p: &Position| {
        tables.probe_moves(p).expect("probe");
    };
    let moves = (
        time(&pack_moves, &positions[8000..10_000], 1),
        time(&table_moves, &positions[8000..10_000], 1),
    );
    for (what, (p, t)) in [
        ("win/draw/loss, random position", uncached),
        ("win/draw/loss, block cached", cached),
        ("every move of a random position", moves),
    ] {
        println!(
            "pack against tables, {what}: {p:.2} us against {t:.2} us ({:.2} times)",
            p / t
        );
    }
}
