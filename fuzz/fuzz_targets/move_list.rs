//! Any text as a move list, from the start and from a position reached by
//! a few moves, in both notations: an error or a position, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use millbase::Rules;
use millbase::{parse_position, play_move_list, play_moves_from};

const RULES: &[&str] = &[
    "standard",
    "twelve",
    "six",
    "three",
    "lasker",
    "standard,nmove=4",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let rules: Rules = RULES[pick as usize % RULES.len()].parse().unwrap();
    let text = String::from_utf8_lossy(rest);
    if let Ok(played) = play_move_list(&text, &rules) {
        // Replaying the moves one list at a time reaches the same position.
        let from = parse_position("start", &rules).unwrap();
        let again = play_moves_from(&from, &text, &rules).expect("the same list again");
        assert_eq!(again.position, played.position);
    }
    if let Ok(from) = parse_position("-0 -1", &rules) {
        let _ = play_moves_from(&from, &text, &rules);
    }
});
