//! Runs the real `millbase` binary.

mod common;

use std::process::Output;

use common::run as millbase;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn show_start() {
    let o = millbase(&["show"]);
    assert!(o.status.success());
    let s = stdout(&o);
    assert!(s.contains("To move:    White"), "{s}");
    assert!(s.contains("9 in hand, placing"), "{s}");
    assert!(s.contains("Moves (24): a7 d7 g7"), "{s}");
    assert!(
        s.contains("16--17--18"),
        "the point-number map is drawn: {s}"
    );
}

#[test]
fn moves_after_a_move_list_in_point_numbers() {
    let o = millbase(&["moves", "-0 -8 -1 -9"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(
        lines.len(),
        21,
        "19 quiet placements and -2 with two removals"
    );
    // Point notation is kept; -2 closes the mill and offers the removals.
    assert!(lines.contains(&"-2x8") && lines.contains(&"-2x9"), "{s}");
    let o = millbase(&["moves", "--notation", "coords", "-0 -8 -1 -9"]);
    assert!(stdout(&o).lines().any(|l| l == "g7xb6"));
}

#[test]
fn perft_prints_the_count_last() {
    let o = millbase(&["perft", "--depth", "3"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().last(), Some("12144"));
    let o = millbase(&["perft", "--depth", "2", "--divide", "a7"]);
    let s = stdout(&o);
    assert_eq!(s.lines().count(), 24);
    assert_eq!(s.lines().last(), Some(&*(23 * 22).to_string()));
}

#[test]
fn sanmill_and_board_strings_are_accepted() {
    let o = millbase(&[
        "moves",
        "O*******/********/******** b p p 1 8 0 9 0 0 0 0 0 0 0 0 1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 23);
    let o = millbase(&["show", "WW....W./BBB...../BBB..... w 0 0"]);
    assert!(stdout(&o).contains("flying"));
}

#[test]
fn bad_input_exits_2_with_one_clear_line() {
    for (args, needle) in [
        (vec!["show", "a7 a7"], "not legal"),
        (vec!["show", "......../......../.......Q w 9 9"], "`Q`"),
        (vec!["moves", "d7 zz"], "`zz`"),
        (vec!["show", "--rules", "standard,flying=7"], "flying"),
        (
            vec!["show", "********/********/******** w p r 0 9 0 9"],
            "removal",
        ),
        (
            vec!["perft", "--depth", "1", "WWWWWWWWWW.............. w 0 0"],
            "more than",
        ),
    ] {
        let o = millbase(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = stderr(&o);
        assert!(
            e.starts_with("millbase: ") && e.contains(needle),
            "{args:?}: {e}"
        );
        assert_eq!(e.trim_end().lines().count(), 1, "{args:?}: {e}");
        assert!(!e.contains("panicked"));
    }
}

#[test]
fn every_subcommand_has_help() {
    for sub in ["show", "moves", "perft"] {
        let o = millbase(&[sub, "--help"]);
        assert!(o.status.success(), "{sub}");
        assert!(stdout(&o).contains("Usage"));
    }
}
