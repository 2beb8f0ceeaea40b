//! `millbase uci`: an engine that speaks Sanmill's UCI-like protocol, so
//! that a mill app or a match harness can play against the tables.
//!
//! Moves are Sanmill's atomic tokens: a placement `d6`, a slide or fly
//! `d6-d5`, a removal `xf4`. A move that closes a mill is two tokens, two
//! `bestmove`s: between them the side that closed the mill is still to
//! move and owes its removals ([`Engine`] keeps that state). Values come
//! from the tables; a position no table covers is played by the alpha-beta
//! player, said with `info string`. docs/ENGINE.md describes the protocol
//! as millbase speaks it.

mod options;

use options::{OptionEffect, RuleOptions};

use crate::geometry::{Point, PointSet};
use crate::moves::{Move, legal_moves, next_counter};
use crate::pack::Pack;
use crate::play::alphabeta::AlphaBeta;
use crate::play::practical::practical_moves;
use crate::position::{Color, Position, SanmillLine, read_sanmill, write_sanmill};
use crate::query::{ProbeError, TableSet};
use crate::rules::Rules;
use crate::value::Wdl;
use crate::value::{Value, best_first};
use std::io::Write;
use std::path::PathBuf;

/// A move in progress: the side that closed a mill still owes removals.
#[derive(Clone, Debug)]
struct Pending {
    /// The ways the move can end: the stones each removes (all of them)
    /// and the position it leads to with its counter.
    endings: Vec<(PointSet, Position, u16)>,
    /// Stones removed so far.
    removed: PointSet,
}

/// The game as the engine sees it.
#[derive(Clone, Debug)]
struct Game {
    /// The position; while a removal is owed, the board after the stone
    /// moved or was placed, the side that closed the mill to move.
    pos: Position,
    /// The N-move counter (plies without a removal in the moving phase).
    counter: u16,
    /// Plies played from the start (for the move number of the FEN).
    ply: u32,
    pending: Option<Pending>,
}

/// How `go` searches where the tables do not answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct GoLimits {
    /// Alpha-beta nodes.
    nodes: u64,
}

/// The engine: its table folder, rules, options and game.
pub struct Engine {
    db: PathBuf,
    options: RuleOptions,
    rules: Rules,
    tables: TableSet,
    /// A table pack to play from instead of the tables, when given: its
    /// folder, and the pack of the rules in use (`None` under rules a pack
    /// does not hold, the N-move rule).
    pack: Option<(PathBuf, Option<Pack>)>,
    practical: bool,
    game: Game,
    search: Option<AlphaBeta>,
}

/// Nodes of the alpha-beta fallback per millisecond of `movetime` (about a
/// million nodes a second on one core).
const NODES_PER_MS: u64 = 1_000;
/// Nodes of the fallback when `go` gives no limit.
const DEFAULT_NODES: u64 = 300_000;

impl Engine {
    /// An engine reading the tables under `db`, playing `rules` until a
    /// `setoption` changes them (the rule options start at Sanmill's
    /// defaults with the N-move rule off, the standard game).
    pub fn new(db: PathBuf, rules: Rules) -> Engine {
        let options = RuleOptions::default();
        Engine {
            tables: TableSet::open(&db, &rules),
            db,
            options,
            rules,
            pack: None,
            practical: false,
            game: Game::start(&rules),
            search: None,
        }
    }

    /// Plays from the table pack under `dir` (`millbase pack`) instead of
    /// the tables: a player with only the pack, which wins every won
    /// position; its scores give the plies where the pack knows them.
    pub fn with_pack(mut self, dir: PathBuf) -> Engine {
        let pack = Pack::open(&dir, &self.rules).ok();
        self.pack = Some((dir, pack));
        self
    }

    /// The rule set in use.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The current position as Sanmill's FEN.
    pub fn fen(&self) -> String {
        let g = &self.game;
        write_sanmill(&SanmillLine {
            position: g.pos,
            removals: g.pending.as_ref().map_or(0, |p| p.owed()),
            rule50: g.counter,
            fullmove: 1 + g.ply / 2,
        })
    }

    /// Handles one line of the protocol, writing its answer to `out`;
    /// returns false on `quit`. Bad input is answered with `info string`
    /// and changes nothing.
    pub fn handle(&mut self, line: &str, out: &mut dyn Write) -> std::io::Result<bool> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = words.split_first() else {
            return Ok(true);
        };
        match command {
            "uci" => {
                writeln!(out, "id name millbase {}", env!("CARGO_PKG_VERSION"))?;
                writeln!(out, "id author the millbase developers")?;
                for line in OPTION_LINES {
                    writeln!(out, "{line}")?;
                }
                writeln!(out, "uciok")?;
            }
            "isready" => writeln!(out, "readyok")?,
            "ucinewgame" => {
                self.game = Game::start(&self.rules);
                self.search = None;
            }
            "setoption" => self.setoption(args, out)?,
            "position" => {
                if let Err(e) = self.position(args) {
                    writeln!(out, "info string error: {e}")?;
                }
            }
            "go" => self.go(args, out)?,
            "stop" => {}
            "quit" => return Ok(false),
            "d" | "fen" => {
                writeln!(out, "Fen: {}", self.fen())?;
                writeln!(out, "info string rules {}", self.rules.short_name())?;
            }
            "rules" => writeln!(out, "info string rules {}", self.rules.short_name())?,
            _ => writeln!(out, "info string error: unknown command `{command}`")?,
        }
        Ok(true)
    }

    fn setoption(&mut self, args: &[&str], out: &mut dyn Write) -> std::io::Result<()> {
        let text = args.join(" ");
        let Some(rest) = text.strip_prefix("name ") else {
            return writeln!(out, "info string error: setoption name NAME value VALUE");
        };
        let (name, value) = match rest.split_once(" value ") {
            Some((n, v)) => (n.trim(), v.trim()),
            None => (rest.trim(), ""),
        };
        match name.to_ascii_lowercase().as_str() {
            "practical" => {
                return match value.to_ascii_lowercase().as_str() {
                    "true" => {
                        self.practical = true;
                        Ok(())
                    }
                    "false" => {
                        self.practical = false;
                        Ok(())
                    }
                    v => writeln!(
                        out,
                        "info string error: Practical `{v}` is not true or false"
                    ),
                };
            }
            "rules" => {
                return match value.parse::<Rules>() {
                    Ok(r) if r.board().size == 24 => {
                        self.set_rules(r);
                        writeln!(out, "info string rules {}", self.rules.short_name())
                    }
                    Ok(r) => writeln!(
                        out,
                        "info string error: rules {}: Sanmill's protocol describes 24-point boards",
                        r.short_name()
                    ),
                    Err(e) => writeln!(out, "info string error: {e}"),
                };
            }
            _ => {}
        }
        let mut options = self.options.clone();
        match options.set(name, value) {
            Ok(OptionEffect::Engine) => {
                self.options = options;
                if name.eq_ignore_ascii_case("ThreefoldRepetitionRule") {
                    writeln!(
                        out,
                        "info string the tables do not count repetitions; a harness that does \
                         ends such games itself"
                    )?;
                }
                Ok(())
            }
            Ok(OptionEffect::Rules) => match options.rules() {
                Ok(rules) => {
                    self.options = options;
                    self.set_rules(rules);
                    writeln!(out, "info string rules {}", self.rules.short_name())
                }
                Err(e) => writeln!(out, "info string error: {e}"),
            },
            Err(e) => writeln!(out, "info string error: {e}"),
        }
    }

    fn set_rules(&mut self, rules: Rules) {
        self.rules = rules;
        self.tables = TableSet::open(&self.db, &rules);
        if let Some((dir, pack)) = &mut self.pack {
            *pack = Pack::open(dir, &rules).ok();
        }
        self.game = Game::start(&rules);
        self.search = None;
    }

    /// `position startpos|fen FEN [moves ...]`: all or nothing.
    fn position(&mut self, args: &[&str]) -> Result<(), String> {
        let (mut game, rest) = match args.split_first() {
            Some((&"startpos", rest)) => (Game::start(&self.rules), rest),
            Some((&"fen", rest)) => {
                let end = rest
                    .iter()
                    .position(|w| *w == "moves")
                    .unwrap_or(rest.len());
                let line =
                    read_sanmill(&rest[..end].join(" "), &self.rules).map_err(|e| e.to_string())?;
                (Game::from_fen(&line, &self.rules)?, &rest[end..])
            }
            _ => return Err("position startpos|fen FEN [moves ...]".into()),
        };
        match rest.split_first() {
            None => {}
            Some((&"moves", moves)) => {
                for (i, token) in moves.iter().enumerate() {
                    game.play_token(token, &self.rules)
                        .map_err(|e| format!("move {} `{token}`: {e}", i + 1))?;
                }
            }
            Some((w, _)) => return Err(format!("`{w}`: expected `moves`")),
        }
        self.game = game;
        Ok(())
    }

    fn go(&mut self, args: &[&str], out: &mut dyn Write) -> std::io::Result<()> {
        let limits = go_limits(args);
        let board = self.rules.board();
        let g = self.game.clone();
        // The tables' choice, with the value for the side to move.
        let chosen: Result<Option<(Vec<Point>, Value)>, String> = match &g.pending {
            Some(p) => self.best_ending(p).map(|(set, v)| {
                let next = set.minus(p.removed).into_iter().next();
                next.map(|s| (vec![s], v))
            }),
            None => self.best_move(&g).map(|found| {
                found.map(|(m, v)| {
                    let mut points = m.from.into_iter().collect::<Vec<_>>();
                    points.push(m.to);
                    (points, v)
                })
            }),
        };
        let token = |points: &[Point], removal: bool| {
            let names: Vec<&str> = points.iter().map(|&p| board.coord(p)).collect();
            if removal {
                format!("x{}", names[0])
            } else {
                names.join("-")
            }
        };
        match chosen {
            Ok(Some((points, value))) => {
                let white = if g.pos.to_move == Color::White {
                    value
                } else {
                    other_side(value)
                };
                writeln!(
                    out,
                    "info string {} for the side to move ({})",
                    describe(value),
                    match (&self.pack, self.practical) {
                        (Some(_), _) => "play from the pack",
                        (None, true) => "practical play from the tables",
                        (None, false) => "perfect play from the tables",
                    }
                )?;
                writeln!(
                    out,
                    "info score {} aimovetype perfect bestmove {}",
                    sanmill_score(white),
                    token(&points, g.pending.is_some())
                )
            }
            Ok(None) => writeln!(out, "info score 0 bestmove none"),
            Err(e) => {
                writeln!(
                    out,
                    "info string no table answers here ({e}): alpha-beta search"
                )?;
                self.fallback(&g, limits, out)
            }
        }
    }

    /// The best move by the tables (perfect or practical), with its value
    /// for the side to move; `None` when there is none.
    fn best_move(&self, g: &Game) -> Result<Option<(Move, Value)>, String> {
        if let Some((_, pack)) = &self.pack {
            let pack = self.usable(pack)?;
            let best = pack.best_move(&g.pos).map_err(|e| e.to_string())?;
            return Ok(best.map(|m| (m.mv, pack_mover_value(m.wdl, m.plies))));
        }
        self.table_move(g).map_err(|e| e.to_string())
    }

    /// The pack, or why it cannot answer.
    fn usable<'p>(&self, pack: &'p Option<Pack>) -> Result<&'p Pack, String> {
        pack.as_ref().ok_or_else(|| {
            format!(
                "the pack holds no game under `{}` (the N-move rule)",
                self.rules.short_name()
            )
        })
    }

    fn table_move(&self, g: &Game) -> Result<Option<(Move, Value)>, ProbeError> {
        if self.practical {
            let ranked = practical_moves(&self.tables, &g.pos, g.counter)?;
            return Ok(ranked
                .iter()
                .find(|m| m.rank == Some(1))
                .or(ranked.first())
                .map(|m| (m.mv, m.value)));
        }
        let moves = self.tables.probe_moves_at(&g.pos, g.counter)?;
        Ok(moves.first().map(|m| (m.mv, m.value)))
    }

    /// The best way to end a move in progress, by the tables.
    fn best_ending(&self, p: &Pending) -> Result<(PointSet, Value), String> {
        let mut best: Option<(PointSet, Value)> = None;
        for (set, after, counter) in &p.endings {
            let v = match &self.pack {
                Some((_, pack)) => {
                    let child = self.usable(pack)?.probe(after).map_err(|e| e.to_string())?;
                    pack_mover_value(child.wdl.parent(), child.plies.map(|d| d + 1))
                }
                None => self
                    .tables
                    .probe_at(after, *counter)
                    .map_err(|e| e.to_string())?
                    .value
                    .parent(),
            };
            if best.is_none_or(|(_, b)| best_first(&v) < best_first(&b)) {
                best = Some((*set, v));
            }
        }
        Ok(best.expect("a pending move has an ending"))
    }

    /// `go` where no table answers: the alpha-beta player.
    fn fallback(&mut self, g: &Game, limits: GoLimits, out: &mut dyn Write) -> std::io::Result<()> {
        let board = self.rules.board();
        if let Some(p) = &g.pending {
            // Any ending of the move in progress; the search chose the move
            // when it was made.
            let set = p.endings[0].0;
            let next = set.minus(p.removed).into_iter().next().expect("owed");
            return writeln!(out, "info score 0 bestmove x{}", board.coord(next));
        }
        let rules = self.rules;
        let search = self.search.get_or_insert_with(|| AlphaBeta::new(rules));
        match search.best_move(&g.pos, limits.nodes, |_| 0) {
            Some(m) => {
                let text = match m.from {
                    Some(f) => format!("{}-{}", board.coord(f), board.coord(m.to)),
                    None => board.coord(m.to).to_string(),
                };
                writeln!(out, "info score 0 bestmove {text}")
            }
            None => writeln!(out, "info score 0 bestmove none"),
        }
    }
}

/// The `uci` command's option lines.
const OPTION_LINES: &[&str] = &[
    "option name Practical type check default false",
    "option name Rules type string default standard",
    "option name PiecesCount type spin default 9 min 3 max 12",
    "option name HasDiagonalLines type check default false",
    "option name MayFly type check default true",
    "option name FlyPieceCount type spin default 3 min 3 max 4",
    "option name MayRemoveFromMillsAlways type check default false",
    "option name MayRemoveMultiple type check default false",
    "option name MayMoveInPlacingPhase type check default false",
    "option name BoardFullAction type spin default 0 min 0 max 4",
    "option name NMoveRule type spin default 0 min 0 max 1000",
    "option name EndgameNMoveRule type spin default 100 min 1 max 1000",
    "option name ThreefoldRepetitionRule type check default true",
];

/// The limits of `go`'s arguments for the alpha-beta fallback.
fn go_limits(args: &[&str]) -> GoLimits {
    let arg = |name: &str| {
        args.iter()
            .position(|a| *a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse::<u64>().ok())
    };
    let nodes = arg("nodes")
        .or_else(|| arg("movetime").map(|ms| ms * NODES_PER_MS))
        .or_else(|| arg("depth").map(|d| 1000 << (2 * d.min(12))))
        .or_else(|| args.contains(&"infinite").then_some(20 * DEFAULT_NODES))
        .unwrap_or(DEFAULT_NODES);
    GoLimits { nodes }
}

/// A value in words.
/// Plies of a pack's win or loss that the pack does not know (the placing
/// phase): reported as a win or loss without its plies.
const UNKNOWN_PLIES: u32 = u32::MAX;

/// A pack's value for the side that moved, as a [`Value`].
fn pack_mover_value(wdl: Wdl, plies: Option<u32>) -> Value {
    let plies = plies.unwrap_or(UNKNOWN_PLIES);
    match wdl {
        Wdl::Win => Value::Win(plies),
        Wdl::Draw => Value::Draw,
        Wdl::Loss => Value::Loss(plies),
    }
}

fn describe(v: Value) -> String {
    match v {
        Value::Win(UNKNOWN_PLIES) => "win (plies not in the pack)".into(),
        Value::Loss(UNKNOWN_PLIES) => "loss (plies not in the pack)".into(),
        Value::Win(n) => format!("win in {n} plies"),
        Value::Loss(n) => format!("loss in {n} plies"),
        Value::Draw => "draw".into(),
    }
}

/// The score as Sanmill's engine gives it: from White's side, a win in
/// `n` plies as 80 - n (its mate value less the plies, not below 49 so
/// that it still reads as a mate), a draw as 0.
fn sanmill_score(white: Value) -> i32 {
    match white {
        Value::Win(n) => (80 - n.min(80) as i32).max(49),
        Value::Loss(n) => -(80 - n.min(80) as i32).max(49),
        Value::Draw => 0,
    }
}

/// The same outcome seen by the other side (no ply added).
fn other_side(v: Value) -> Value {
    match v {
        Value::Win(n) => Value::Loss(n),
        Value::Loss(n) => Value::Win(n),
        Value::Draw => Value::Draw,
    }
}

impl Pending {
    /// Removals still owed.
    fn owed(&self) -> u8 {
        (self.endings[0].0.len() - self.removed.len()) as u8
    }
}

impl Game {
    fn start(rules: &Rules) -> Game {
        Game {
            pos: Position::start(rules),
            counter: 0,
            ply: 0,
            pending: None,
        }
    }

    /// The game of a FEN; one that owes a removal may owe one only.
    fn from_fen(line: &SanmillLine, rules: &Rules) -> Result<Game, String> {
        let pos = line.position;
        let counter = if rules.nmove.is_some() {
            line.rule50
        } else {
            0
        };
        let ply = 2 * (line.fullmove - 1) + (pos.to_move == Color::Black) as u32;
        let pending = match line.removals {
            0 => None,
            1 => {
                let us = pos.to_move;
                let theirs = pos.stones[!us];
                let can = crate::moves::removable(rules.board(), rules, theirs);
                let endings = can
                    .into_iter()
                    .map(|s| {
                        let mut after = pos;
                        after.stones[!us] = theirs.without(s);
                        after.to_move = !us;
                        (PointSet::EMPTY.with(s), after, 0)
                    })
                    .collect::<Vec<_>>();
                if endings.is_empty() {
                    return Err("the FEN owes a removal, but there is no stone to remove".into());
                }
                Some(Pending {
                    endings,
                    removed: PointSet::EMPTY,
                })
            }
            n => {
                return Err(format!(
                    "the FEN owes {n} removals: give the position before the mill was closed"
                ));
            }
        };
        Ok(Game {
            pos,
            counter,
            ply,
            pending,
        })
    }

    /// Plays one of Sanmill's tokens: `d6`, `d6-d5`, `xf4`.
    fn play_token(&mut self, token: &str, rules: &Rules) -> Result<(), String> {
        let board = rules.board();
        let point = |s: &str| {
            board
                .point_by_coord(s)
                .ok_or_else(|| format!("`{s}` is not a point"))
        };
        if let Some(stone) = token.strip_prefix(['x', 'X']) {
            let s = point(stone)?;
            let p = self.pending.as_mut().ok_or("no removal is owed")?;
            let removed = p.removed;
            p.endings
                .retain(|(set, ..)| set.contains(s) && !removed.contains(s));
            if p.endings.is_empty() {
                return Err(format!("{stone} cannot be removed"));
            }
            p.removed = p.removed.with(s);
            if p.removed.len() == p.endings[0].0.len() {
                let (_, after, counter) = p.endings[0];
                self.pos = after;
                self.counter = counter;
                self.pending = None;
                self.ply += 1;
            }
            return Ok(());
        }
        if self.pending.is_some() {
            return Err("a removal is owed first".into());
        }
        let (from, to) = match token.split_once('-') {
            Some((f, t)) => (Some(point(f)?), point(t)?),
            None => (None, point(token)?),
        };
        let mut moves = Vec::new();
        legal_moves(&self.pos, rules, &mut moves);
        moves.retain(|m| m.from == from && m.to == to);
        let Some(first) = moves.first().copied() else {
            return Err("not a legal move here".into());
        };
        let ending = |m: &Move| {
            (
                m.removed,
                self.pos.play(m),
                next_counter(board, &self.pos, m, self.counter),
            )
        };
        if first.removed.is_empty() {
            let (_, after, counter) = ending(&first);
            self.pos = after;
            self.counter = counter;
            self.ply += 1;
            return Ok(());
        }
        // A mill: the same side stays to move and owes its removals.
        let endings: Vec<_> = moves.iter().map(ending).collect();
        let us = self.pos.to_move;
        let mut shown = self.pos;
        if let Some(f) = from {
            shown.stones[us] = shown.stones[us].without(f);
        } else {
            shown.hand[us] -= 1;
        }
        shown.stones[us] = shown.stones[us].with(to);
        self.pos = shown;
        self.pending = Some(Pending {
            endings,
            removed: PointSet::EMPTY,
        });
        Ok(())
    }
}

/// Runs the protocol over `input` and `output` until `quit` or the end of
/// the input, answering each line as soon as it is read.
pub fn run_engine(
    db: PathBuf,
    pack: Option<PathBuf>,
    rules: Rules,
    input: impl std::io::BufRead,
    output: &mut dyn Write,
) -> std::io::Result<()> {
    let mut engine = Engine::new(db, rules);
    if let Some(dir) = pack {
        engine = engine.with_pack(dir);
    }
    for line in input.lines() {
        let line = line?;
        let go_on = engine.handle(&line, output)?;
        output.flush()?;
        if !go_on {
            break;
        }
    }
    Ok(())
}
