//! `millbase uci`: Sanmill's protocol spoken line by line through the real
//! binary: the handshake, rule options, positions from `startpos` and from
//! FENs (a removal owed included), `go` answered from the tables, a whole
//! game played token by token with values that hold from ply to ply, bad
//! input refused without losing the position, and the alpha-beta fallback
//! where no table covers a position.

use crate::common;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// A running `millbase uci`, each command answered before the next is sent
/// (`isready` marks the end of an answer).
struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Session {
    fn start(db: &std::path::Path) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_millbase"))
            .args(["uci", "--db"])
            .arg(db)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if send.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        Session {
            child,
            stdin,
            lines,
        }
    }

    /// Sends `command` and returns its answer's lines. A reply that has
    /// not come after a minute fails the test: a hang detector, not a speed
    /// figure.
    fn send(&mut self, command: &str) -> Vec<String> {
        writeln!(self.stdin, "{command}\nisready").unwrap();
        self.stdin.flush().unwrap();
        let mut out = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no answer to `{command}`: {out:?}"));
            if line == "readyok" {
                return out;
            }
            out.push(line);
        }
    }

    /// The current FEN (`d`).
    fn fen(&mut self) -> String {
        let out = self.send("d");
        out.iter()
            .find_map(|l| l.strip_prefix("Fen: "))
            .unwrap_or_else(|| panic!("no FEN in {out:?}"))
            .to_string()
    }

    /// `go`'s move token and score.
    fn go(&mut self) -> (String, i32, Vec<String>) {
        let out = self.send("go");
        let last = out.last().cloned().unwrap_or_default();
        let rest = last
            .strip_prefix("info score ")
            .unwrap_or_else(|| panic!("no result line: {out:?}"));
        let (score, mv) = rest.split_once(" bestmove ").unwrap();
        let score = score.split_whitespace().next().unwrap().parse().unwrap();
        (mv.to_string(), score, out)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.child.wait();
    }
}

fn db() -> &'static std::path::Path {
    common::shared_db("standard,stones=4")
}

#[test]
fn the_handshake_options_and_positions() {
    let mut s = Session::start(db());
    let uci = s.send("uci");
    assert_eq!(
        uci[0],
        format!("id name millbase {}", env!("CARGO_PKG_VERSION"))
    );
    assert!(
        uci.iter()
            .any(|l| l.starts_with("option name PiecesCount type spin"))
    );
    assert_eq!(uci.last().unwrap(), "uciok");
    assert_eq!(
        s.send("setoption name PiecesCount value 4"),
        ["info string rules standard,stones=4"]
    );
    assert_eq!(
        s.fen(),
        "********/********/******** w p p 0 4 0 4 0 0 0 0 0 0 0 0 1"
    );
    // Rule options millbase represents change the rules; one it cannot is
    // refused and changes nothing.
    let out = s.send("setoption name NMoveRule value 30");
    assert_eq!(out, ["info string rules standard,stones=4,nmove=30"]);
    let out = s.send("setoption name StalemateAction value 2");
    assert!(
        out[0].starts_with("info string error: StalemateAction 2"),
        "{out:?}"
    );
    assert_eq!(
        s.send("rules"),
        ["info string rules standard,stones=4,nmove=30"]
    );
    s.send("setoption name NMoveRule value 0");
    // A mill splits the move: the FEN owes a removal, and reads back.
    s.send("position startpos moves a7 b6 d7 d6 g7");
    let owed = s.fen();
    assert_eq!(
        owed,
        "********/@******@/OO*****O w p r 3 1 2 2 1 0 0 0 0 0 0 0 3"
    );
    s.send(&format!("position fen {owed}"));
    assert_eq!(s.fen(), owed);
    let (token, _, _) = s.go();
    assert!(["xb6", "xd6"].contains(&token.as_str()), "{token}");
    s.send(&format!("position fen {owed} moves {token} a1"));
    assert!(s.fen().starts_with("********/"), "{}", s.fen());
    // Bad input: an error line, and the position stays as it was.
    let before = s.fen();
    for bad in [
        "position startpos moves a7 zz",
        "position startpos moves a7 a7",
        "position fen ********/********/******* w p p 0 4 0 4",
        "position sideways",
        "teleport d6",
    ] {
        let out = s.send(bad);
        assert_eq!(out.len(), 1, "{bad}: {out:?}");
        assert!(out[0].starts_with("info string error:"), "{bad}: {out:?}");
        assert_eq!(s.fen(), before, "{bad} changed the position");
    }
}

/// The engine plays both sides after Black left the mill a7-d7-g7 open:
/// every token it gives is accepted back, the mill is split into two
/// tokens, and the value it reports holds from ply to ply.
#[test]
fn a_game_against_itself_keeps_the_value() {
    let mut s = Session::start(db());
    s.send("setoption name PiecesCount value 4");
    let mut moves: Vec<String> = ["a7", "b6", "d7", "b4"].map(String::from).to_vec();
    let mut first: Option<i32> = None;
    for _ in 0..60 {
        let position = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        let out = s.send(&position);
        assert!(out.is_empty(), "{position}: {out:?}");
        let (token, score, out) = s.go();
        if token == "none" {
            break;
        }
        // Scores are White's, so with both sides perfect their sign never
        // changes: a won game stays won, a drawn one drawn.
        let sign = *first.get_or_insert(score.signum());
        assert_eq!(score.signum(), sign, "after {moves:?}: {out:?}");
        moves.push(token);
    }
    assert!(first.is_some());
    assert!(moves.iter().any(|m| m.starts_with('x')), "{moves:?}");
}

/// From a won endgame (Black to move loses in 26 plies), the engine
/// playing both sides reports White's win at every ply, the plies to it
/// falling by one a ply, until Black is down to two stones.
#[test]
fn a_won_endgame_is_converted_ply_by_ply() {
    let mut s = Session::start(db());
    s.send("setoption name PiecesCount value 4");
    let fen = "@*******/********/OO@O**@* b m s 3 0 3 0";
    let mut moves: Vec<String> = Vec::new();
    let mut plies = Vec::new();
    loop {
        let out = s.send(&format!("position fen {fen} moves {}", moves.join(" ")));
        assert!(out.is_empty(), "{out:?}");
        let (token, score, out) = s.go();
        if token == "none" {
            break;
        }
        assert!(score > 0, "White's win was lost after {moves:?}: {out:?}");
        let n: u32 = out
            .iter()
            .find_map(|l| l.split(" in ").nth(1)?.split(' ').next()?.parse().ok())
            .unwrap_or_else(|| panic!("no plies in {out:?}"));
        plies.push((token.starts_with('x'), n));
        moves.push(token);
        assert!(moves.len() < 60, "{moves:?}");
    }
    // 26 plies; a removal token finishes its move, so it shows the plies
    // of the move it ends.
    assert_eq!(plies[0], (false, 26), "{plies:?}");
    let whole: Vec<u32> = plies.iter().filter(|(x, _)| !x).map(|p| p.1).collect();
    assert_eq!(whole, (1..=26).rev().collect::<Vec<_>>(), "{moves:?}");
    assert!(
        s.fen().contains(" 2 0 ") || s.fen().contains(" o "),
        "{}",
        s.fen()
    );
}

#[test]
fn a_position_no_table_covers_falls_back_to_alpha_beta() {
    let mut s = Session::start(db());
    // The 9-stone tables are not in this folder.
    s.send("setoption name PiecesCount value 9");
    let (token, _, out) = s.go();
    assert!(
        out.iter()
            .any(|l| l.starts_with("info string no table answers here")),
        "{out:?}"
    );
    let board = millbase::Board::standard();
    assert!(board.point_by_coord(&token).is_some(), "{token}");
}

/// `millbase match` against `millbase uci` through the protocol: games
/// played to their end, the engine's mills asked for token by token. A
/// random player never beats the tables' engine, and loses most games.
#[test]
fn match_plays_whole_games_against_an_engine() {
    let db = db();
    let engine = format!(
        "uci:{} uci --db {}",
        env!("CARGO_BIN_EXE_millbase"),
        db.display()
    );
    let out = common::run_ok(&[
        "match",
        "random",
        &engine,
        "--rules",
        "standard,stones=4",
        "--games",
        "6",
        "--db",
        db.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let counts = text
        .lines()
        .find_map(|l| l.strip_prefix("random: "))
        .and_then(|l| l.split(';').next())
        .unwrap_or_else(|| panic!("{text}"));
    let n = |what: &str| -> u32 {
        counts
            .split(", ")
            .find_map(|p| p.strip_suffix(what)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("{what} in {counts}"))
    };
    assert_eq!(n(" wins"), 0, "{text}");
    assert!(n(" losses") >= 4, "{text}");
    // Rules a Sanmill engine cannot be told are refused before a game.
    let out = common::run(&[
        "match",
        "random",
        &engine,
        "--rules",
        "three",
        "--games",
        "1",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot be told"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
