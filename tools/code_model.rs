//! Experiment for issue 15 (table size): how large would the code section
//! be if it stored only the decisive slots' plies halved (the win/draw/loss
//! section already tells draws, unused slots, and a win's odd plies from a
//! loss's even ones), compressed as today (zstd level 3, 16,384 slots a
//! block)? Reads built moving-phase tables of the standard board.
//!
//! `cargo run --release --example code_model -- DB SUBSPACE...`

use millbase::Rules;
use millbase::index::Subspace;
use millbase::solve::value::Value;
use millbase::table::{Section, TableFolder};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(db) = args.next() else {
        eprintln!("usage: code_model DB SUBSPACE...");
        std::process::exit(2);
    };
    let folder = TableFolder::new(std::path::Path::new(&db), &Rules::STANDARD);
    let (mut stored, mut halved) = (0u64, 0u64);
    for name in args {
        let s: Subspace = name.parse().unwrap_or_else(|e| panic!("{name}: {e}"));
        let stored_here = folder
            .open(s)
            .unwrap_or_else(|e| panic!("{e}"))
            .section_bytes(Section::Codes);
        let table = folder.load(s).unwrap_or_else(|e| panic!("{e}"));
        let mut halved_here = 0u64;
        let block = 16384u64;
        for first in (0..table.len()).step_by(block as usize) {
            let plies: Vec<u16> = (first..(first + block).min(table.len()))
                .filter_map(|slot| match table.value(slot) {
                    Some(Value::Win(d) | Value::Loss(d)) => Some((d / 2) as u16),
                    _ => None,
                })
                .collect();
            let bytes: Vec<u8> = if plies.iter().all(|&p| p < 256) {
                plies.iter().map(|&p| p as u8).collect()
            } else {
                plies.iter().flat_map(|p| p.to_le_bytes()).collect()
            };
            halved_here += zstd::bulk::compress(&bytes, 3).expect("zstd").len() as u64;
        }
        println!(
            "{name}: {} slots, code section {stored_here} bytes, decisive slots' plies halved {halved_here} bytes ({:.1} %)",
            table.len(),
            100.0 * halved_here as f64 / stored_here as f64
        );
        stored += stored_here;
        halved += halved_here;
    }
    println!(
        "total: code sections {stored} bytes, decisive only and halved {halved} bytes ({:.1} %)",
        100.0 * halved as f64 / stored.max(1) as f64
    );
}
