//! Any text as a position (board string, Sanmill line, move list) under a
//! rule set chosen by the first byte: an error or a position, never a
//! panic; a position read back from its board string is the same.
#![no_main]
use libfuzzer_sys::fuzz_target;
use millbase::Rules;
use millbase::parse_position;

const RULES: &[&str] = &[
    "standard",
    "standard,stones=5",
    "twelve",
    "six",
    "three",
    "lasker",
    "standard,nmove=20",
    "standard,mill=wins",
    "standard,stones=5/3",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let rules: Rules = RULES[pick as usize % RULES.len()].parse().unwrap();
    let text = String::from_utf8_lossy(rest);
    if let Ok(input) = parse_position(&text, &rules) {
        let board = input.position.board_string(&rules);
        let again = parse_position(&board, &rules).expect("a board string read back");
        assert_eq!(again.position, input.position, "{text:?} -> {board}");
        if rules.board().size == 24 {
            let line = millbase::to_sanmill(&input.position);
            let back = parse_position(&line, &rules).expect("a Sanmill line read back");
            assert_eq!(back.position, input.position, "{text:?} -> {line}");
        }
    }
});
