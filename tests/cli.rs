//! Runs the real `millbase` binary.

use crate::common;

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
        (vec!["show", "a7 b6 d7 d6 g7 xzz"], "token 6: move `xzz`"),
        (vec!["show", "--rules", "three", "zz"], "(a3, b3, c3, ...)"),
        (vec!["show", "a7 start d7"], "`start`"),
        (
            vec![
                "show",
                "O*******/********/******** b m p 1 8 0 9 0 0 0 0 0 0 0 0 1",
            ],
            "phase `m`",
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
fn bench_machine_prints_its_figure_last() {
    let o = millbase(&["bench-machine", "--seconds", "0.2", "--threads", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let last = out.lines().last().unwrap();
    let rate: f64 = last
        .strip_prefix("machine figure: ")
        .and_then(|r| r.strip_suffix(" M random byte updates/s"))
        .unwrap_or_else(|| panic!("{out}"))
        .parse()
        .unwrap();
    assert!(rate > 0.0, "{out}");
    assert!(
        out.contains("processor: ") && out.contains("caches: "),
        "{out}"
    );
    let o = millbase(&["bench-machine", "--seconds", "0.1", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["updates_per_second"].as_f64().unwrap() > 0.0);
    assert_eq!(v["array_bytes"], 1u64 << 30);
    for bad in ["0", "-1", "x", "601"] {
        let o = millbase(&["bench-machine", "--seconds", bad]);
        assert_eq!(o.status.code(), Some(2), "--seconds {bad}");
        assert!(!stderr(&o).contains("panicked"));
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

#[test]
fn every_board_in_every_position_command() {
    // (rules, a position on its board, its points, a coordinate of it)
    for (rules, pos, points, coord) in [
        ("three", "W.B.W.B.. w 1 1", 9, "b2"),
        ("six", "W.B.W.B./........ w 4 4", 16, "d4"),
        ("twelve", "W.B.W.B./......../........ w 10 10", 24, "c5"),
    ] {
        let o = millbase(&["show", "--rules", rules, pos]);
        assert!(o.status.success(), "{rules}: {}", stderr(&o));
        let s = stdout(&o);
        assert!(
            s.contains(&format!("point numbers 0-{}", points - 1)),
            "{s}"
        );
        assert_eq!(s.contains("Sanmill:"), points == 24, "{rules}: {s}");
        let o = millbase(&["moves", "--rules", rules, pos]);
        assert!(
            stdout(&o).lines().any(|l| l == coord),
            "{rules}: {}",
            stdout(&o)
        );
        let o = millbase(&["perft", "--rules", rules, "--depth", "2", pos]);
        assert!(o.status.success(), "{rules}: {}", stderr(&o));
        let o = millbase(&["index-info", "--rules", rules]);
        assert!(o.status.success() && stdout(&o).contains("3-3"), "{rules}");
        let o = millbase(&["check-index", "--rules", rules, "3-3"]);
        assert!(o.status.success(), "{rules}: {}", stderr(&o));
    }
    // A board string of another board's length is refused, naming both.
    let o = millbase(&["show", "--rules", "three", "W.B.W.B./........ w 4 4"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("expected 9"), "{}", stderr(&o));
    let o = millbase(&[
        "query",
        "--rules",
        "six",
        "......../......../........ w 6 6",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("expected 16"), "{}", stderr(&o));
    // Sanmill lines only describe 24-point boards.
    let sanmill = "********/********/******** w p p 0 6 0 6 0 0 -1 -1 -1 -1 0 0 1";
    let o = millbase(&["show", "--rules", "six", sanmill]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("24-point boards"), "{}", stderr(&o));
    let o = millbase(&["show", "--rules", "twelve", sanmill]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Unknown boards and hands that do not fit are rule-set errors.
    for bad in [
        "standard,board=hex",
        "three,stones=5/5",
        "standard,stones=9/2",
    ] {
        let o = millbase(&["show", "--rules", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(
            stderr(&o).contains("invalid rule set"),
            "{bad}: {}",
            stderr(&o)
        );
    }
    // Three men's: a line ends the game; the side to move has lost.
    let o = millbase(&["moves", "--rules", "three", "WWW.BB.B. b 0 0"]);
    assert!(
        o.status.success() && stdout(&o).trim().is_empty(),
        "{}",
        stdout(&o)
    );
}

#[test]
fn three_mens_morris_through_every_table_command() {
    let db = common::build_db("cli-three", "three");
    let d = db.to_str().unwrap();
    let o = millbase(&["query", "--rules", "three", "--db", d, "--json", "start"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["moves"].as_array().unwrap().len(), 9);
    // The value is the best move's, for the side to move.
    assert_eq!(json["value"], json["moves"][0]["value"], "{json}");
    let o = millbase(&["query", "--rules", "three", "--db", d, "b2 a3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = millbase(&["stats", "--rules", "three", "--db", d]);
    assert!(
        stdout(&o).contains("0-0-3-3") && stdout(&o).contains("3-3"),
        "{}",
        stdout(&o)
    );
    let o = millbase(&["check", "--rules", "three", "--db", d]);
    assert!(stdout(&o).contains("all consistent"), "{}", stdout(&o));
    let o = millbase(&["info", "--db", d]);
    assert!(
        o.status.success() && stdout(&o).contains("board=three"),
        "{}",
        stdout(&o)
    );
    let o = millbase(&["verify", "--rules", "three", "--db", d]);
    assert!(stdout(&o).contains("both methods agree"), "{}", stdout(&o));
    // The tables of one board are refused for another.
    let six = db.join("six");
    std::fs::create_dir_all(&six).unwrap();
    std::fs::copy(db.join("three").join("3-3.mbt"), six.join("3-3.mbt")).unwrap();
    let o = millbase(&[
        "query",
        "--rules",
        "six",
        "--db",
        d,
        "WWW...../BBB..... w 0 0",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("board=three"), "{}", stderr(&o));
}

#[test]
fn argument_limits_are_errors_not_crashes() {
    // Deep perft recursed until the stack overflowed; many threads took
    // minutes to make.
    for args in [
        vec!["perft", "--rules", "three", "--depth", "20000"],
        vec!["perft", "--depth", "1001"],
        vec![
            "build",
            "--rules",
            "three",
            "--db=/nonexistent",
            "--threads",
            "100000",
        ],
        vec![
            "build",
            "--rules",
            "three",
            "--db=/nonexistent",
            "--threads",
            "0",
        ],
        vec!["check-index", "3-3-255-255"],
        // An overflowing time limit made every query panic.
        vec!["serve", "--db", ".", "--timeout", "9223372036854775807"],
        vec!["serve", "--db", ".", "--timeout", "0"],
        vec!["serve", "--db", ".", "--header-timeout", "3601"],
        vec!["serve", "--db", ".", "--body-timeout", "0"],
        vec!["serve", "--db", ".", "--max-connections", "0"],
        vec!["serve", "--db", ".", "--max-batch", "100001"],
        vec!["serve", "--db", ".", "--cache-blocks", "0"],
        // Commands that read every rule set, or none, refuse one.
        vec!["serve", "--rules", "three", "--db", "."],
        vec!["info", "--rules", "three", "--db", "."],
        vec!["bench-machine", "--rules", "three", "--seconds", "0.1"],
    ] {
        let o = millbase(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}");
    }
}

#[test]
fn a_full_board_under_full_board_draw_is_shown_as_a_draw() {
    let full = "WBWBWBWBBWBWBWBW w 0 0";
    let o = millbase(&["show", "--rules", "six,stones=8,full-board=draw", full]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Game over:  draw"), "{}", stdout(&o));
    let o = millbase(&["show", "--rules", "six,stones=8", full]);
    assert!(stdout(&o).contains("White has lost"), "{}", stdout(&o));
}

#[test]
fn unequal_hands_that_fill_the_board_build_and_query() {
    // 5 + 4 stones on the 9 points of three men's morris: the table
    // family is `stones=5` (both sides), which alone would not fit.
    let db = common::build_db("cli-hands", "three,stones=5/4");
    let d = db.to_str().unwrap();
    let o = millbase(&[
        "query",
        "--rules",
        "three,stones=5/4",
        "--db",
        d,
        "--json",
        "start",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["moves"].as_array().unwrap().len(), 9, "{json}");
    let o = millbase(&["check", "--rules", "three,stones=5/4", "--db", d]);
    assert!(stdout(&o).contains("all consistent"), "{}", stdout(&o));
    let o = millbase(&["info", "--db", d]);
    assert!(o.status.success(), "{}", stdout(&o));
}

#[test]
fn info_finds_tables_in_the_wrong_place() {
    let db = common::build_db("cli-misplaced", "standard,stones=4");
    let d = db.to_str().unwrap();
    assert!(millbase(&["info", "--db", d]).status.success());
    let std = db.join("standard");
    // A table under another subspace's name.
    std::fs::copy(std.join("4-3.mbt"), std.join("3-4.mbt")).unwrap();
    let o = millbase(&["info", "--db", d]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("MISPLACED: holds the table of 4-3"),
        "{}",
        stdout(&o)
    );
    std::fs::remove_file(std.join("3-4.mbt")).unwrap();
    // A table of other rules in a folder whose name says which rules.
    let other = db.join("standard,flying=off");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(std.join("3-3.mbt"), other.join("3-3.mbt")).unwrap();
    let o = millbase(&["info", "--db", d]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("not this folder's"), "{}", stdout(&o));
}

#[test]
fn a_batch_line_that_is_not_utf8_fails_alone() {
    let db = common::build_db("cli-utf8", "three");
    let d = db.to_str().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_millbase"))
        .args(["query", "--rules", "three", "--db", d, "--json", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"start\nb2\n\xff\nstart\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "{}", stdout(&o));
    assert!(lines[2]["error"].as_str().unwrap().contains("UTF-8"));
    assert_eq!(lines[0], lines[3]);
    assert!(stderr(&o).contains("line 3"), "{}", stderr(&o));
}

/// A program that writes one position and waits for its answer before
/// writing the next (a game loop driving an engine over a pipe) gets each
/// answer while standard input is still open. The reader fails the test
/// when an answer has not come after a minute: a hang detector, not a speed
/// figure (an answer takes milliseconds).
#[test]
fn a_batch_over_a_pipe_answers_each_line_as_it_comes() {
    use std::io::{BufRead, Write};
    let db = common::build_db("cli-pipe", "three");
    let d = db.to_str().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_millbase"))
        .args(["query", "--rules", "three", "--db", d, "--json", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (send, answers) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if send.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    // Play a game: each position is the previous answer's best move's.
    let mut position = "start".to_string();
    for ply in 0..6 {
        writeln!(stdin, "{position}").unwrap();
        stdin.flush().unwrap();
        let answer = answers
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("ply {ply}: no answer while the pipe stays open"));
        let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
        let Some(best) = v["moves"].as_array().and_then(|m| m.first()) else {
            break;
        };
        position = best["after"].as_str().unwrap().to_string();
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// Names of tables taken by things that are not files, and a `--db` that
/// is a file: a clear message at once (a FIFO made `query` and `info`
/// wait forever; a folder said "No such device").
#[test]
fn what_is_not_a_table_is_refused_at_once() {
    let db = common::build_db("cli-not-a-table", "three");
    let d = db.to_str().unwrap();
    let table = db.join("three").join("3-3.mbt");
    let moving = "WW.B..BB/W b 0 0";
    for (kind, make) in [("named pipe", "mkfifo"), ("folder", "mkdir")] {
        std::fs::remove_file(&table).ok();
        std::fs::remove_dir(&table).ok();
        let made = std::process::Command::new(make)
            .arg(&table)
            .status()
            .unwrap();
        assert!(made.success());
        for args in [
            vec!["query", "--rules", "three", "--db", d, moving],
            vec!["info", "--db", d],
            vec!["check", "--rules", "three", "--db", d],
            vec!["stats", "--rules", "three", "--db", d],
        ] {
            let o = common::run_unless_stuck(&args);
            // `info` lists each table on stdout, errors included.
            let said = format!("{}{}", stdout(&o), stderr(&o));
            assert_eq!(o.status.code(), Some(1), "{args:?}: {said}");
            assert!(
                said.contains(kind) && said.contains("3-3.mbt"),
                "{args:?}: {said}"
            );
        }
    }
    let file = db.join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let f = file.to_str().unwrap();
    for cmd in [
        "build", "query", "stats", "check", "info", "verify", "serve", "match",
    ] {
        // `info` and `serve` read every rule set in the folder.
        let mut args = match cmd {
            "info" | "serve" => vec![cmd, "--db", f],
            _ => vec![cmd, "--rules", "three", "--db", f],
        };
        match cmd {
            "query" => args.push("start"),
            "match" => args.extend(["perfect", "random"]),
            _ => {}
        }
        let o = millbase(&args);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {}", stderr(&o));
        assert!(stderr(&o).contains("not a folder"), "{cmd}: {}", stderr(&o));
    }
}

/// `stats` checks every field of a cached row: an edited row, or a table
/// whose block index was zeroed, is not trusted.
#[test]
fn stats_does_not_trust_an_edited_cache_or_a_damaged_index() {
    let db = common::build_db("cli-stats-cache", "standard,stones=4");
    let d = db.to_str().unwrap();
    let args = ["stats", "--rules", "standard,stones=4", "--db", d, "--json"];
    let o = millbase(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let want: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let cache = db.join("standard").join("stats.json");
    let text = std::fs::read_to_string(&cache).unwrap();
    let longest = want["subspaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["subspace"] == "4-4")
        .unwrap()["longest_win"]
        .as_u64()
        .unwrap();
    // One field of the 4-4 row changed (the counts still add up).
    let mut cached: serde_json::Value = serde_json::from_str(&text).unwrap();
    let rows = cached["subspaces"].as_array_mut().unwrap();
    let row = rows.iter_mut().find(|r| r["subspace"] == "4-4").unwrap();
    row["longest_win"] = serde_json::json!(longest + 2);
    std::fs::write(&cache, serde_json::to_string(&cached).unwrap()).unwrap();
    let o = millbase(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let got: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(got, want, "an edited cache row was believed");
    // A zeroed page of a table's block index.
    let table = db.join("standard").join("4-4.mbt");
    let mut bytes = std::fs::read(&table).unwrap();
    let len = u32::from_le_bytes(bytes[52..56].try_into().unwrap()) as usize;
    let index_at = 64 + len;
    bytes[index_at..index_at + 4096].fill(0);
    std::fs::write(&table, &bytes).unwrap();
    let o = millbase(&args);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("4-4.mbt") && stderr(&o).contains("block index"),
        "{}",
        stderr(&o)
    );
}

/// A stats file that cannot be written leaves no temporary file behind.
#[test]
fn a_stats_file_that_cannot_be_written_leaves_nothing_behind() {
    let db = common::build_db("cli-stats-write", "three");
    let folder = millbase::TableFolder::new(&db, &"three".parse().unwrap());
    let path = folder.stats_path();
    std::fs::remove_file(&path).unwrap();
    // A folder in its place: the rename fails.
    std::fs::create_dir(&path).unwrap();
    assert!(folder.write_stats(&[]).is_err());
    assert!(
        !path.with_extension("tmp").exists(),
        "stats.tmp left behind"
    );
}
