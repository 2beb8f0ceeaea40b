//! Slots of every table a rule set's build makes, per phase, for planning
//! a long build (e.g. Lasker morris with 10 stones) before starting it.
//!
//! Usage: `cargo run --release --example phase_sizes -- RULES`

use millbase::Rules;
use millbase::placing_subspaces;
use millbase::{Indexer, moving_subspaces};

fn main() {
    let spec = std::env::args().nth(1).unwrap_or_else(|| "standard".into());
    let rules: Rules = match spec.parse() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let indexer = Indexer::for_board(rules.board());
    let slots = |s: &millbase::Subspace| indexer.subspace(s.us, s.them).slots();
    let moving = moving_subspaces(&rules);
    let placing = placing_subspaces(&rules);
    let largest = placing.iter().max_by_key(|s| slots(s));
    println!("rules: {}", rules.canonical());
    println!(
        "moving phase: {} subspaces, {} slots",
        moving.len(),
        moving.iter().map(slots).sum::<u64>()
    );
    println!(
        "placing phase: {} subspaces, {} slots{}",
        placing.len(),
        placing.iter().map(slots).sum::<u64>(),
        largest.map_or(String::new(), |s| format!(
            ", largest {s} ({} slots)",
            slots(s)
        ))
    );
}
