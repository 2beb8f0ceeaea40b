//! A player that is another program: an engine speaking Sanmill's UCI-like
//! protocol (Sanmill's own engine, or `millbase uci`). It is told each
//! position as a FEN and answers with Sanmill's tokens; a move that closes
//! a mill comes as two tokens, asked for one after the other.

use crate::moves::{Move, legal_moves};
use crate::position::{Position, SanmillLine, write_sanmill};
use crate::query::ProbeError;
use crate::rules::{DoubleMill, Flying, FullBoard, MillRule, Protection, Rules};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A running engine.
pub struct UciEngine {
    command: String,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// The Sanmill options that describe `rules`, or why they cannot.
pub fn sanmill_options(rules: &Rules) -> Result<Vec<(&'static str, String)>, String> {
    let refuse = |what: &str| {
        Err(format!(
            "rules {}: {what} cannot be told to a Sanmill engine",
            rules.short_name()
        ))
    };
    let diagonals = match rules.board {
        "standard" => false,
        "diagonals" => true,
        _ => return refuse("a board other than the 24-point ones"),
    };
    if rules.stones.white != rules.stones.black {
        return refuse("unequal hands");
    }
    if rules.removals_per_mill != 1 {
        return refuse("two removals per mill");
    }
    if rules.mill == MillRule::Wins {
        return refuse("a mill that wins");
    }
    if rules.protection == Protection::Strict {
        return refuse("strict protection");
    }
    let (fly, count) = match rules.flying {
        Flying::Off => (false, 3),
        Flying::AtMost(n) => (true, n),
    };
    let flag = |b: bool| b.to_string();
    Ok(vec![
        ("PiecesCount", rules.stones.white.to_string()),
        ("HasDiagonalLines", flag(diagonals)),
        ("MayFly", flag(fly)),
        ("FlyPieceCount", count.to_string()),
        (
            "MayRemoveFromMillsAlways",
            flag(rules.protection == Protection::None),
        ),
        (
            "MayRemoveMultiple",
            flag(rules.double_mill == DoubleMill::PerMill),
        ),
        ("MayMoveInPlacingPhase", flag(rules.lasker)),
        (
            "BoardFullAction",
            if rules.full_board == FullBoard::Draw {
                "4"
            } else {
                "0"
            }
            .to_string(),
        ),
        ("NMoveRule", rules.nmove.unwrap_or(0).to_string()),
    ])
}

impl UciEngine {
    /// Starts `command` (split at spaces), shakes hands and sets the rules.
    pub fn start(command: &str, rules: &Rules) -> Result<UciEngine, ProbeError> {
        let mut words = command.split_whitespace();
        let program = words.next().unwrap_or("");
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| engine_error(command, &format!("cannot start it: {e}")))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut engine = UciEngine {
            command: command.to_string(),
            child,
            stdin,
            stdout,
        };
        engine.send("uci")?;
        engine.read_until(|l| l == "uciok")?;
        let options = sanmill_options(rules).map_err(|e| engine_error(command, &e))?;
        for (name, value) in options {
            engine.send(&format!("setoption name {name} value {value}"))?;
        }
        engine.send("isready")?;
        let answer = engine.read_until(|l| l == "readyok")?;
        if let Some(e) = answer.iter().find(|l| l.contains("error")) {
            return Err(engine_error(command, e));
        }
        Ok(engine)
    }

    fn send(&mut self, line: &str) -> Result<(), ProbeError> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| engine_error(&self.command, &format!("writing to it: {e}")))
    }

    /// Lines up to and including the first that `last` accepts.
    fn read_until(&mut self, last: impl Fn(&str) -> bool) -> Result<Vec<String>, ProbeError> {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            let n = self
                .stdout
                .read_line(&mut line)
                .map_err(|e| engine_error(&self.command, &format!("reading from it: {e}")))?;
            if n == 0 {
                return Err(engine_error(&self.command, "it ended"));
            }
            let line = line.trim_end().to_string();
            let done = last(&line);
            lines.push(line);
            if done {
                return Ok(lines);
            }
        }
    }

    /// The engine's `bestmove` token at `fen` after `moves`.
    fn token(&mut self, fen: &str, moves: &[String]) -> Result<String, ProbeError> {
        let position = if moves.is_empty() {
            format!("position fen {fen}")
        } else {
            format!("position fen {fen} moves {}", moves.join(" "))
        };
        self.send(&position)?;
        self.send("go")?;
        let lines = self.read_until(|l| l.contains("bestmove"))?;
        let last = lines.last().expect("read until bestmove");
        let token = last
            .split("bestmove")
            .nth(1)
            .and_then(|t| t.split_whitespace().next())
            .unwrap_or("")
            .to_string();
        Ok(token)
    }

    /// The engine's move at `pos` (N-move counter `counter`), its removals
    /// asked for token by token; `None` when it has none to give.
    pub fn choose(
        &mut self,
        rules: &Rules,
        pos: &Position,
        counter: u16,
    ) -> Result<Option<Move>, ProbeError> {
        let board = rules.board();
        let fen = write_sanmill(&SanmillLine {
            position: *pos,
            removals: 0,
            rule50: counter,
            fullmove: 1,
        });
        let mut moves = Vec::new();
        legal_moves(pos, rules, &mut moves);
        let first = self.token(&fen, &[])?;
        if matches!(first.as_str(), "none" | "draw" | "0000" | "") {
            return Ok(None);
        }
        let point = |s: &str| board.point_by_coord(s);
        let (from, to) = match first.split_once('-') {
            Some((f, t)) => (point(f), point(t)),
            None => (None, point(&first)),
        };
        let from_ok = first.contains('-') == from.is_some();
        moves.retain(|m| from_ok && Some(m.to) == to && m.from == from);
        let mut tokens = vec![first.clone()];
        let mut removed = crate::geometry::PointSet::EMPTY;
        loop {
            match moves.as_slice() {
                [] => {
                    return Err(engine_error(
                        &self.command,
                        &format!("`{}` is not a legal move at {fen}", tokens.join(" ")),
                    ));
                }
                [only] if only.removed == removed => return Ok(Some(*only)),
                _ => {}
            }
            // The move closed a mill: its removals come one token at a time.
            let next = self.token(&fen, &tokens)?;
            let stone = next.strip_prefix(['x', 'X']).and_then(point);
            match stone {
                Some(s) => {
                    removed = removed.with(s);
                    moves.retain(|m| m.removed.contains(s));
                    if let Some(done) = moves.iter().find(|m| m.removed == removed) {
                        return Ok(Some(*done));
                    }
                }
                None => moves.clear(),
            }
            tokens.push(next);
        }
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        // A second to end by itself, then it is stopped.
        for _ in 0..100 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn engine_error(command: &str, problem: &str) -> ProbeError {
    ProbeError::Engine {
        command: command.to_string(),
        problem: problem.to_string(),
    }
}
