//! Verification: the tables against their children ([`check`]), and the
//! value of the starting position by two independent methods.
//!
//! Method 1 reads the start and every first move from the placing-phase
//! tables. Method 2 is Gasser's alpha-beta search over the placing phase
//! ([`OpeningSearch`]), which reads only the moving-phase tables at its
//! leaves (under Lasker rules a repetition on the path is a draw).
//! [`verify`] runs what is asked and compares the two: the start and every
//! first move (one per symmetry class) must agree.

pub mod check;
mod search;

pub use search::{OpeningSearch, distinct_first_moves, table_line, wdl_of};

use crate::moves::Move;
use crate::position::Position;
use crate::query::{ProbeError, TableSet};
use crate::table::{TableError, Wdl};
use crate::value::Value;
use std::fmt;
use std::time::Instant;

/// Which methods [`verify`] runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Method {
    /// Both, and they must agree.
    Both,
    /// The placing-phase tables only.
    Tables,
    /// The alpha-beta search over the placing phase only.
    Search,
}

/// What method 1 found: exact values, for White (to move at the start).
#[derive(Clone, Debug)]
pub struct TablesOutcome {
    /// The value of the start.
    pub start: Value,
    /// Each distinct first move and the value it leads to, for White.
    pub first_moves: Vec<(Move, Value)>,
    /// A principal line to the moving phase.
    pub line: Vec<Move>,
    /// Wall time.
    pub seconds: f64,
}

/// What method 2 found: win, draw or loss, for White.
#[derive(Clone, Debug)]
pub struct SearchOutcome {
    /// The value of the start.
    pub start: Wdl,
    /// Each distinct first move and the value it leads to, for White.
    pub first_moves: Vec<(Move, Wdl)>,
    /// A principal line to the moving phase.
    pub line: Vec<Move>,
    /// Whether the placing-phase tables ordered the moves (ordering only).
    pub hints: bool,
    /// Positions searched for the start's value (the counters below are
    /// of that search too).
    pub nodes: u64,
    /// Moving-phase table probes.
    pub probes: u64,
    /// Classes in the transposition table.
    pub classes: usize,
    /// Probes of the placing-phase tables made to order moves.
    pub hint_probes: u64,
    /// The longest path searched, in plies (Lasker rules).
    pub longest_path: u32,
    /// Wall time.
    pub seconds: f64,
}

/// What [`verify`] found.
#[derive(Clone, Debug)]
pub struct Verification {
    /// Method 1, when asked for and its tables are built.
    pub tables: Option<TablesOutcome>,
    /// Method 2, when asked for.
    pub search: Option<SearchOutcome>,
    /// The value of the start for White.
    pub verdict: Wdl,
}

/// Why verification failed.
#[derive(Debug)]
pub enum VerifyError {
    /// A table could not be read.
    Probe(ProbeError),
    /// Only the tables were asked for, and the placing phase is not built.
    NoPlacingTables,
    /// The two methods disagree: on the start or on these first moves.
    Disagree {
        /// The start by the tables and by the search.
        start: (Wdl, Wdl),
        /// First moves valued differently: the move, by the tables, by the
        /// search.
        first_moves: Vec<(Move, Wdl, Wdl)>,
    },
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::Probe(e) => write!(f, "{e}"),
            VerifyError::NoPlacingTables => f.write_str("the placing-phase tables are not built"),
            VerifyError::Disagree { start, first_moves } => write!(
                f,
                "the two methods disagree: start {} by the tables, {} by the search; {} first \
                 moves differ",
                start.0.name(),
                start.1.name(),
                first_moves.len()
            ),
        }
    }
}

impl std::error::Error for VerifyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            VerifyError::Probe(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ProbeError> for VerifyError {
    fn from(e: ProbeError) -> Self {
        VerifyError::Probe(e)
    }
}

/// Hears how verification goes; every method does nothing by default.
pub trait VerifyProgress: Sync {
    /// Method 1 is done (or not available: `None`).
    fn tables_done(&self, _outcome: Option<&TablesOutcome>) {}
    /// Method 2 starts; `hints`: the placing tables order its moves.
    fn search_started(&self, _hints: bool) {}
    /// Runs one search of method 2 (`what` names it); a caller may show
    /// `search`'s counters meanwhile. Must call `work` once.
    fn around(&self, _what: &str, _search: &OpeningSearch<'_>, work: &mut dyn FnMut()) {
        work()
    }
    /// Method 2 is done.
    fn search_done(&self, _outcome: &SearchOutcome) {}
}

/// Reports nothing.
pub struct Quiet;
impl VerifyProgress for Quiet {}

/// Win, draw or loss of an exact value.
pub fn wdl(v: Value) -> Wdl {
    match v {
        Value::Win(_) => Wdl::Win,
        Value::Draw => Wdl::Draw,
        Value::Loss(_) => Wdl::Loss,
    }
}

/// Method 1: the start and its first moves from the placing-phase tables;
/// `None` when they are not built.
pub fn by_tables(tables: &TableSet) -> Result<Option<TablesOutcome>, ProbeError> {
    let rules = tables.rules();
    let start_pos = Position::start(rules);
    let t = Instant::now();
    let start = match tables.probe(&start_pos) {
        Ok(v) => v,
        Err(ProbeError::Table(TableError::Missing(_))) => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut first_moves = Vec::new();
    for m in distinct_first_moves(&start_pos, rules) {
        let v = tables.probe(&start_pos.play(&m))?.parent();
        first_moves.push((m, v));
    }
    let line = table_line(tables, &start_pos)?
        .iter()
        .map(|m| m.mv)
        .collect();
    Ok(Some(TablesOutcome {
        start,
        first_moves,
        line,
        seconds: t.elapsed().as_secs_f64(),
    }))
}

/// Method 2: alpha-beta over the placing phase on the moving-phase tables.
/// With `hints`, the placing-phase tables (when built) order the moves.
pub fn by_search(
    tables: &TableSet,
    hints: bool,
    progress: &dyn VerifyProgress,
) -> Result<SearchOutcome, ProbeError> {
    let rules = tables.rules();
    let start_pos = Position::start(rules);
    let hints = hints && tables.probe_wdl(&start_pos).is_ok();
    progress.search_started(hints);
    let t = Instant::now();
    let mut search = OpeningSearch::new(tables);
    if hints {
        search = search.with_hints();
    }
    let run = |what: &str, pos: &Position| -> Result<Wdl, ProbeError> {
        let mut out = None;
        progress.around(what, &search, &mut || out = Some(search.value(pos)));
        out.expect("around runs the search")
    };
    let start = run("value of the start", &start_pos)?;
    // The counters of the start's search alone: the first moves' searches
    // reuse its transposition table.
    let (nodes, probes, classes) = (search.nodes(), search.probes(), search.table_len());
    let (hint_probes, longest_path) = (search.hint_probes(), search.longest_path());
    let mut first_moves = Vec::new();
    for m in distinct_first_moves(&start_pos, rules) {
        let what = format!(
            "value of {}",
            crate::notation::format_move(rules.board(), &m, crate::notation::Notation::Coords)
        );
        first_moves.push((m, run(&what, &start_pos.play(&m))?.parent()));
    }
    let mut line = None;
    progress.around("principal line", &search, &mut || {
        line = Some(search.principal_line(&start_pos))
    });
    let line = line.expect("around runs the search")?;
    let outcome = SearchOutcome {
        start,
        first_moves,
        line,
        hints,
        nodes,
        probes,
        classes,
        hint_probes,
        longest_path,
        seconds: t.elapsed().as_secs_f64(),
    };
    progress.search_done(&outcome);
    Ok(outcome)
}

/// The value both methods give, or how they differ.
pub fn compare(a: &TablesOutcome, b: &SearchOutcome) -> Result<Wdl, VerifyError> {
    let first_moves: Vec<(Move, Wdl, Wdl)> = a
        .first_moves
        .iter()
        .zip(&b.first_moves)
        .filter(|(x, y)| wdl(x.1) != y.1)
        .map(|(x, y)| (x.0, wdl(x.1), y.1))
        .collect();
    let start = (wdl(a.start), b.start);
    if start.0 != start.1 || !first_moves.is_empty() || a.first_moves.len() != b.first_moves.len() {
        return Err(VerifyError::Disagree { start, first_moves });
    }
    Ok(start.0)
}

/// The value of the start by the methods asked for; with both, they must
/// agree. Method 1 is skipped (`tables: None`) when its tables are not
/// built, unless it is the only one asked for.
pub fn verify(
    tables: &TableSet,
    method: Method,
    hints: bool,
    progress: &dyn VerifyProgress,
) -> Result<Verification, VerifyError> {
    let one = if method == Method::Search {
        None
    } else {
        let one = by_tables(tables)?;
        progress.tables_done(one.as_ref());
        one
    };
    let two = if method == Method::Tables {
        None
    } else {
        Some(by_search(tables, hints, progress)?)
    };
    let verdict = match (&one, &two) {
        (Some(a), Some(b)) => compare(a, b)?,
        (Some(a), None) => wdl(a.start),
        (None, Some(b)) => b.start,
        (None, None) => return Err(VerifyError::NoPlacingTables),
    };
    Ok(Verification {
        tables: one,
        search: two,
        verdict,
    })
}
