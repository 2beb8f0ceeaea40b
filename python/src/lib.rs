//! Python bindings of the millbase library (`import millbase`): rules,
//! positions and moves, and the tables' values. A thin layer: every answer
//! comes from the Rust library, and probes run without the GIL.

use indicatif::{ProgressBar, ProgressStyle};
use millbase::{
    Build, BuildError, BuildOptions, Color, GameOver, Method, Move, Notation, PositionInput,
    ProbeError, Progress, SubspaceStats, TableFolder, TableSet, Value, Wdl, built_subspaces,
    check_subspaces, format_move, legal_moves, parse_position, play_moves_from, practical_moves,
    verify as verify_tables,
};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use rayon::prelude::*;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

create_exception!(
    millbase,
    TableError,
    PyOSError,
    "A table is missing or damaged; the message names the file and the `millbase build` command that makes it."
);

/// A rule set, read from its text (`"standard"`, `"standard,stones=5"`,
/// `"twelve,nmove=50"`; see the README's rule sets).
#[pyclass(name = "Rules", module = "millbase", frozen, from_py_object)]
#[derive(Clone)]
struct PyRules {
    rules: millbase::Rules,
}

#[pymethods]
impl PyRules {
    #[new]
    fn new(spec: &str) -> PyResult<PyRules> {
        spec.parse()
            .map(|rules| PyRules { rules })
            .map_err(|e: millbase::RulesError| PyValueError::new_err(e.to_string()))
    }

    /// The canonical text: every option spelled out, in a fixed order.
    fn canonical(&self) -> String {
        self.rules.canonical()
    }

    /// The shortest text that names these rules.
    #[getter]
    fn short_name(&self) -> String {
        self.rules.short_name()
    }

    /// The board's name (`"standard"`, `"twelve"`, `"six"`, `"three"`).
    #[getter]
    fn board(&self) -> &'static str {
        self.rules.board().name
    }

    /// N of the N-move rule, or None.
    #[getter]
    fn nmove(&self) -> Option<u16> {
        self.rules.nmove
    }

    fn __str__(&self) -> String {
        self.rules.short_name()
    }

    fn __repr__(&self) -> String {
        format!("Rules('{}')", self.rules.short_name())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .extract::<PyRules>()
            .is_ok_and(|o| o.rules == self.rules)
    }

    fn __hash__(&self) -> u64 {
        hash_of(&self.rules)
    }
}

/// Rules given as a `Rules` or as their text.
fn rules_of(arg: &Bound<'_, PyAny>) -> PyResult<millbase::Rules> {
    if let Ok(r) = arg.extract::<PyRules>() {
        return Ok(r.rules);
    }
    match arg.extract::<String>() {
        Ok(text) => PyRules::new(&text).map(|r| r.rules),
        Err(_) => Err(PyValueError::new_err(
            "rules must be a millbase.Rules or a rule text such as \"standard\"",
        )),
    }
}

fn hash_of(x: &impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

/// A position of a game under its rules, with its N-move counter.
#[pyclass(name = "Position", module = "millbase", frozen, from_py_object)]
#[derive(Clone)]
struct PyPosition {
    pos: millbase::Position,
    rules: millbase::Rules,
    counter: u16,
    notation: Notation,
}

impl PyPosition {
    fn input(&self) -> PositionInput {
        PositionInput {
            position: self.pos,
            moves: Vec::new(),
            notation: self.notation,
            counter: self.rules.nmove.map(|_| self.counter),
        }
    }

    fn from_input(input: PositionInput, rules: millbase::Rules) -> PyPosition {
        PyPosition {
            pos: input.position,
            rules,
            counter: input.counter.unwrap_or(0),
            notation: input.notation,
        }
    }

    /// The position of a code, checked against `rules`.
    fn of_code(code: u64, rules: millbase::Rules) -> PyResult<PyPosition> {
        let pos = millbase::Position::from_code(code, &rules)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyPosition {
            pos,
            rules,
            counter: 0,
            notation: Notation::Coords,
        })
    }

    fn moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        legal_moves(&self.pos, &self.rules, &mut out);
        out
    }

    fn py_move(&self, mv: Move) -> PyMove {
        PyMove {
            mv,
            text: format_move(self.rules.board(), &mv, self.notation),
            board: self.rules.board(),
        }
    }
}

#[pymethods]
impl PyPosition {
    /// Reads a position in any form the command line takes: `start`, a
    /// move list from the start, a board string, or a Sanmill FEN.
    #[staticmethod]
    fn parse(text: &str, rules: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        let rules = rules_of(rules)?;
        let input =
            parse_position(text, &rules).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyPosition::from_input(input, rules))
    }

    /// The start of a game under `rules`.
    #[staticmethod]
    fn start(rules: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        PyPosition::parse("start", rules)
    }

    /// The position as one integer, for arrays: White's points in bits
    /// 0-23 and Black's in bits 24-47 (bit `n - 1` for point number `n`),
    /// White's stones in hand in bits 48-51, Black's in 52-55, and bit 56
    /// set when Black is to move. The N-move counter is not in it.
    #[getter(code)]
    fn code_py(&self) -> u64 {
        self.pos.code()
    }

    /// The position of a `code` under `rules` (counter 0).
    #[staticmethod]
    fn from_code(code: u64, rules: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        PyPosition::of_code(code, rules_of(rules)?)
    }

    /// The rules the position is played under.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules { rules: self.rules }
    }

    /// `"white"` or `"black"`.
    #[getter]
    fn to_move(&self) -> &'static str {
        match self.pos.to_move {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// Stones in hand: (white, black).
    #[getter]
    fn hands(&self) -> (u8, u8) {
        (self.pos.hand.white, self.pos.hand.black)
    }

    /// The N-move counter (0 without the rule).
    #[getter]
    fn counter(&self) -> u16 {
        self.counter
    }

    /// Every legal move, in the notation the position was read in.
    fn legal_moves(&self) -> Vec<PyMove> {
        self.moves().into_iter().map(|m| self.py_move(m)).collect()
    }

    /// The position after `mv`: a `Move` of this position, or move text
    /// (one move or several, as a move list reads them).
    fn play(&self, mv: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        let text = match mv.extract::<PyMove>() {
            Ok(m) => {
                if !self.moves().contains(&m.mv) {
                    return Err(PyValueError::new_err(format!(
                        "{} is not a legal move here",
                        m.text
                    )));
                }
                format_move(self.rules.board(), &m.mv, Notation::Coords)
            }
            Err(_) => mv.extract::<String>().map_err(|_| {
                PyValueError::new_err("a move must be a millbase.Move or move text")
            })?,
        };
        let next = play_moves_from(&self.input(), &text, &self.rules)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let mut next = PyPosition::from_input(next, self.rules);
        next.notation = self.notation;
        Ok(next)
    }

    /// Why the game is over here (`"stones"`, `"blocked"`, `"line"`,
    /// `"nmove"`, ...), or None while it goes on.
    fn is_game_over(&self) -> Option<&'static str> {
        GameOver::of(&self.pos, &self.rules, self.counter).map(GameOver::name)
    }

    fn __str__(&self) -> String {
        let board = self.pos.board_string(&self.rules);
        match self.rules.nmove {
            Some(_) => format!("{board} {}", self.counter),
            None => board,
        }
    }

    fn __repr__(&self) -> String {
        format!("Position('{}')", self.__str__())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .extract::<PyPosition>()
            .is_ok_and(|o| o.pos == self.pos && o.rules == self.rules && o.counter == self.counter)
    }

    fn __hash__(&self) -> u64 {
        hash_of(&(self.pos, self.rules, self.counter))
    }
}

/// A legal move of a position.
#[pyclass(name = "Move", module = "millbase", frozen, from_py_object)]
#[derive(Clone)]
struct PyMove {
    mv: Move,
    text: String,
    board: &'static millbase::Board,
}

#[pymethods]
impl PyMove {
    /// The point a stone leaves (a coordinate such as `"d7"`), or None for
    /// a placement.
    #[getter]
    fn from_(&self) -> Option<&'static str> {
        self.mv.from.map(|p| self.board.coord(p))
    }

    /// The point a stone arrives at.
    #[getter]
    fn to(&self) -> &'static str {
        self.board.coord(self.mv.to)
    }

    /// The opponent's stones it removes.
    #[getter]
    fn removes(&self) -> Vec<&'static str> {
        self.mv
            .removed
            .into_iter()
            .map(|p| self.board.coord(p))
            .collect()
    }

    fn __str__(&self) -> String {
        self.text.clone()
    }

    fn __repr__(&self) -> String {
        format!("Move('{}')", self.text)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.extract::<PyMove>().is_ok_and(|o| o.mv == self.mv)
    }

    fn __hash__(&self) -> u64 {
        hash_of(&self.mv)
    }
}

/// A value for the side to move: `kind` is `"win"`, `"draw"` or `"loss"`,
/// `plies` the plies to the end with best play (None for a draw).
#[pyclass(name = "Value", module = "millbase", frozen, from_py_object)]
#[derive(Clone)]
struct PyValue {
    value: Value,
}

#[pymethods]
impl PyValue {
    #[getter]
    fn kind(&self) -> &'static str {
        self.value.name()
    }

    #[getter]
    fn plies(&self) -> Option<u32> {
        self.value.plies()
    }

    fn __repr__(&self) -> String {
        match self.value.plies() {
            Some(n) => format!("Value('{}', {n})", self.value.name()),
            None => format!("Value('{}')", self.value.name()),
        }
    }

    fn __str__(&self) -> String {
        match self.value.plies() {
            Some(n) => format!("{} in {n}", self.value.name()),
            None => self.value.name().to_string(),
        }
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .extract::<PyValue>()
            .is_ok_and(|o| o.value == self.value)
    }

    fn __hash__(&self) -> u64 {
        hash_of(&self.value.code())
    }
}

/// A move's practical standing: its value, its rank among the moves that
/// keep the value (1 is the practical choice; None for a move that gives
/// value away), and the share of the opponent's replies that err after it.
#[pyclass(name = "PracticalMove", module = "millbase", frozen, get_all)]
struct PyPracticalMove {
    #[pyo3(name = "move")]
    mv: PyMove,
    value: PyValue,
    rank: Option<u32>,
    replies: u32,
    errors: u32,
    score: u32,
}

#[pymethods]
impl PyPracticalMove {
    fn __repr__(&self) -> String {
        format!(
            "PracticalMove('{}', {}, rank={}, errors={}/{})",
            self.mv.text,
            self.value.__repr__(),
            self.rank.map_or("None".to_string(), |r| r.to_string()),
            self.errors,
            self.replies
        )
    }
}

/// `probe_many`'s answer: win/draw/loss and plies, one element a position.
type WdlAndPlies<'py> = (Bound<'py, PyArray1<i8>>, Bound<'py, PyArray1<i32>>);

/// A rule set's table folder, opened once (tables are read on first use);
/// safe to probe from several threads at once.
#[pyclass(name = "Tables", module = "millbase", frozen)]
struct PyTables {
    tables: Arc<TableSet>,
}

impl PyTables {
    /// The position, checked to be of these tables' rules.
    fn position<'a>(&self, pos: &'a PyPosition) -> PyResult<&'a PyPosition> {
        if pos.rules != *self.tables.rules() {
            return Err(PyValueError::new_err(format!(
                "the position is of rules {}, these tables of {}",
                pos.rules.short_name(),
                self.tables.rules().short_name()
            )));
        }
        Ok(pos)
    }

    fn error(&self, e: ProbeError) -> PyErr {
        match e {
            ProbeError::Table(t) => TableError::new_err(t.with_remedy(self.tables.rules())),
            e => PyValueError::new_err(e.to_string()),
        }
    }
}

#[pymethods]
impl PyTables {
    /// The rules of these tables.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules {
            rules: *self.tables.rules(),
        }
    }

    /// The value of `pos` for the side to move (under the N-move rule, at
    /// the position's counter).
    fn probe(&self, py: Python<'_>, pos: &PyPosition) -> PyResult<PyValue> {
        let pos = self.position(pos)?;
        let tables = &self.tables;
        let (p, counter) = (pos.pos, pos.counter);
        py.detach(|| tables.probe_at(&p, counter))
            .map(|v| PyValue { value: v.value })
            .map_err(|e| self.error(e))
    }

    /// `"win"`, `"draw"` or `"loss"` for the side to move; reads less of
    /// the tables than `probe`.
    fn probe_wdl(&self, py: Python<'_>, pos: &PyPosition) -> PyResult<&'static str> {
        let pos = self.position(pos)?;
        if pos.rules.nmove.is_some() {
            return self.probe(py, pos).map(|v| v.value.name());
        }
        let tables = &self.tables;
        let p = pos.pos;
        py.detach(|| tables.probe_wdl(&p))
            .map(|w| w.name())
            .map_err(|e| self.error(e))
    }

    /// The value of `pos` at N-move counter `counter`.
    fn probe_at(&self, py: Python<'_>, pos: &PyPosition, counter: u16) -> PyResult<PyValue> {
        let mut at = self.position(pos)?.clone();
        at.counter = counter;
        self.probe(py, &at)
    }

    /// Every legal move with its value for the mover, best first.
    fn probe_moves(&self, py: Python<'_>, pos: &PyPosition) -> PyResult<Vec<(PyMove, PyValue)>> {
        let pos = self.position(pos)?;
        let tables = &self.tables;
        let (p, counter) = (pos.pos, pos.counter);
        let moves = py
            .detach(|| tables.probe_moves_at(&p, counter))
            .map_err(|e| self.error(e))?;
        Ok(moves
            .into_iter()
            .map(|m| (pos.py_move(m.mv), PyValue { value: m.value }))
            .collect())
    }

    /// The moves ranked for practical play (see the README's
    /// `query --practical`), in the order of `probe_moves`.
    fn practical(&self, py: Python<'_>, pos: &PyPosition) -> PyResult<Vec<PyPracticalMove>> {
        let pos = self.position(pos)?;
        let tables = &self.tables;
        let (p, counter) = (pos.pos, pos.counter);
        let moves = py
            .detach(|| practical_moves(tables, &p, counter))
            .map_err(|e| self.error(e))?;
        Ok(moves
            .into_iter()
            .map(|m| PyPracticalMove {
                mv: pos.py_move(m.mv),
                value: PyValue { value: m.value },
                rank: m.rank,
                replies: m.replies,
                errors: m.errors,
                score: m.score,
            })
            .collect())
    }

    /// Probes many positions at once, on every core and without the GIL:
    /// `positions` is a list of `Position`s or a numpy array of position
    /// codes (`Position.code`, `uint64`). Returns two numpy arrays, the
    /// win/draw/loss for the side to move (`int8`: 1, 0, -1) and the plies
    /// (`int32`, -1 for a draw). Positions are probed at counter 0 under the
    /// N-move rule.
    fn probe_many<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
    ) -> PyResult<WdlAndPlies<'py>> {
        let rules = *self.tables.rules();
        let list: Vec<millbase::Position> =
            if let Ok(codes) = positions.extract::<PyReadonlyArray1<'py, u64>>() {
                let codes = codes.as_slice()?.to_vec();
                py.detach(|| {
                    codes
                        .par_iter()
                        .map(|&c| PyPosition::of_code(c, rules).map(|p| p.pos))
                        .collect::<PyResult<Vec<_>>>()
                })?
            } else {
                let mut out = Vec::new();
                for item in positions.try_iter()? {
                    let p: PyPosition = item?.extract().map_err(|_| {
                        PyValueError::new_err(
                            "probe_many takes a list of Positions or a numpy uint64 array of codes",
                        )
                    })?;
                    out.push(self.position(&p)?.pos);
                }
                out
            };
        let tables = &self.tables;
        let values = py
            .detach(|| {
                list.par_iter()
                    .map(|p| tables.probe_at(p, 0).map(|v| v.value))
                    .collect::<Result<Vec<Value>, ProbeError>>()
            })
            .map_err(|e| self.error(e))?;
        let wdl: Vec<i8> = values
            .iter()
            .map(|v| match v {
                Value::Win(_) => 1,
                Value::Draw => 0,
                Value::Loss(_) => -1,
            })
            .collect();
        let plies: Vec<i32> = values
            .iter()
            .map(|v| v.plies().map_or(-1, |n| n as i32))
            .collect();
        Ok((wdl.into_pyarray(py), plies.into_pyarray(py)))
    }

    fn __repr__(&self) -> String {
        format!("Tables(rules='{}')", self.tables.rules().short_name())
    }
}

/// Opens the tables of `rules` (a `Rules` or its text) under the folder
/// `db`. Nothing is read yet: a missing table raises `TableError` when a
/// probe needs it.
#[pyfunction]
fn open_tables(db: PathBuf, rules: &Bound<'_, PyAny>) -> PyResult<PyTables> {
    let rules = rules_of(rules)?;
    if !db.is_dir() {
        return Err(TableError::new_err(format!(
            "{} is not a table folder (make one with `millbase build --rules {} --db {}`)",
            db.display(),
            rules.short_name(),
            db.display()
        )));
    }
    Ok(PyTables {
        tables: Arc::new(TableSet::open(&db, &rules)),
    })
}

/// Build progress: a bar on the terminal, a Python callback, and the
/// interrupt that stops the build before its next step. Signals are looked
/// for after each step, on the calling thread: Python runs its signal
/// handlers on its main thread only, so the solver's worker threads could
/// not see them.
struct PyProgress {
    bar: Option<ProgressBar>,
    callback: Option<Py<PyAny>>,
    done: AtomicU64,
    total: u64,
    stop: AtomicBool,
    /// The callback's exception or the interrupt, raised when the build
    /// has stopped.
    raised: Mutex<Option<PyErr>>,
}

impl PyProgress {
    /// Runs the callback and looks for Ctrl-C, under the GIL; either one's
    /// exception stops the build.
    fn poll(&self, step: Option<&str>) {
        Python::attach(|py| {
            let mut result = py.check_signals();
            if let (Ok(()), Some(f), Some(step)) = (&result, &self.callback, step) {
                let done = self.done.load(Ordering::Relaxed);
                result = f.call1(py, (step, done, self.total)).map(drop);
            }
            if let Err(e) = result {
                self.stop.store(true, Ordering::Relaxed);
                self.raised
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_or_insert(e);
            }
        });
    }

    fn step_done(&self, name: &str, slots: u64) {
        self.done.fetch_add(slots, Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.inc(slots);
            bar.set_message(name.to_string());
        }
        self.poll(Some(name));
    }
}

impl Progress for PyProgress {
    fn step_started(&self, name: &str, _slots: u64) {
        if let Some(bar) = &self.bar {
            bar.set_message(name.to_string());
        }
    }

    fn step_finished(&self, name: &str, slots: u64, _stats: &[SubspaceStats], _seconds: f64) {
        self.step_done(name, slots);
    }

    fn step_skipped(&self, name: &str, slots: u64) {
        self.step_done(name, slots);
    }

    fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Runs `f` on `threads` threads (every core when None).
fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    match threads {
        None => Ok(f()),
        Some(0) => Err(PyValueError::new_err("threads must be at least 1")),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map(|pool| pool.install(f))
            .map_err(|e| PyValueError::new_err(e.to_string())),
    }
}

/// Builds every table of `rules` into the folder `db`, resuming after the
/// tables already there, like `millbase build`. Shows a progress bar on a
/// terminal when `progress` is true; calls `callback(step, done_slots,
/// total_slots)` after each step. Ctrl-C (or an exception from the
/// callback) stops the build before its next step and is raised; calling
/// `build` again resumes. Returns what each phase did.
#[pyfunction]
#[pyo3(signature = (rules, db, threads=None, progress=true, callback=None))]
fn build(
    py: Python<'_>,
    rules: &Bound<'_, PyAny>,
    db: PathBuf,
    threads: Option<usize>,
    progress: bool,
    callback: Option<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    let rules = rules_of(rules)?;
    let folder = TableFolder::new(&db, &rules);
    let plan =
        Build::plan(&folder, &BuildOptions::default()).map_err(|e| build_error(e, &rules))?;
    let total = plan.slots();
    let bar = (progress && std::io::IsTerminal::is_terminal(&std::io::stderr())).then(|| {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {percent:>3}% {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let progress = PyProgress {
        bar,
        callback,
        done: AtomicU64::new(0),
        total,
        stop: AtomicBool::new(false),
        raised: Mutex::new(None),
    };
    let report = py.detach(|| with_threads(threads, || plan.run(&progress)))?;
    if let Some(bar) = &progress.bar {
        bar.finish_and_clear();
    }
    if let Some(e) = progress
        .raised
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
    {
        return Err(e);
    }
    let report = report.map_err(|e| build_error(e, &rules))?;
    let phase = |p: millbase::PhaseReport| {
        let d = pyo3::types::PyDict::new(py);
        d.set_item("computed", p.computed)?;
        d.set_item("skipped", p.skipped)?;
        d.set_item("seconds", p.seconds)?;
        Ok::<_, PyErr>(d)
    };
    let out = pyo3::types::PyDict::new(py);
    out.set_item("moving", phase(report.moving)?)?;
    if let Some(p) = report.placing {
        out.set_item("placing", phase(p)?)?;
    }
    Ok(out.into_any().unbind())
}

fn build_error(e: BuildError, rules: &millbase::Rules) -> PyErr {
    match e {
        BuildError::Table(t) => TableError::new_err(t.with_remedy(rules)),
        BuildError::Io(..) => PyOSError::new_err(e.to_string()),
        BuildError::Request(_) => PyValueError::new_err(e.to_string()),
        e => pyo3::exceptions::PyRuntimeError::new_err(e.to_string()),
    }
}

/// What `check` found: `ok` when every slot of every table agrees with
/// its children.
#[pyclass(name = "CheckResult", module = "millbase", frozen, get_all)]
struct PyCheckResult {
    /// Whether every slot agrees with its children.
    ok: bool,
    /// Tables checked.
    tables: usize,
    /// Slots checked.
    slots: u64,
    /// Slots whose value disagrees with their children.
    bad: u64,
    /// Whether the placing phase was checked (it is not when not built).
    placing: bool,
    /// The subspaces with wrong slots, by name.
    failed: Vec<String>,
}

#[pymethods]
impl PyCheckResult {
    fn __bool__(&self) -> bool {
        self.ok
    }

    fn __repr__(&self) -> String {
        format!(
            "CheckResult(ok={}, tables={}, slots={}, bad={})",
            if self.ok { "True" } else { "False" },
            self.tables,
            self.slots,
            self.bad
        )
    }
}

/// Checks every table of `rules` under `db` (checksums, and every slot
/// against its children) like `millbase check`, without the GIL.
#[pyfunction]
#[pyo3(signature = (rules, db, threads=None))]
fn check(
    py: Python<'_>,
    rules: &Bound<'_, PyAny>,
    db: PathBuf,
    threads: Option<usize>,
) -> PyResult<PyCheckResult> {
    let rules = rules_of(rules)?;
    let folder = TableFolder::new(&db, &rules);
    let (subspaces, placing) = built_subspaces(&folder);
    let results = py
        .detach(|| with_threads(threads, || check_subspaces(&folder, &subspaces, |_| {})))?
        .map_err(|e| TableError::new_err(e.with_remedy(&rules)))?;
    let bad: u64 = results.iter().map(|r| r.bad).sum();
    Ok(PyCheckResult {
        ok: bad == 0,
        tables: results.len(),
        slots: results.iter().map(|r| r.slots).sum(),
        bad,
        placing,
        failed: results
            .iter()
            .filter(|r| r.bad > 0)
            .map(|r| r.subspace.to_string())
            .collect(),
    })
}

/// What `verify` found: the value of the start for White, and the
/// methods that gave it.
#[pyclass(name = "VerifyResult", module = "millbase", frozen, get_all)]
struct PyVerifyResult {
    /// `"win"`, `"draw"` or `"loss"` for White.
    verdict: &'static str,
    /// Whether the tables' method (every first move from the tables) ran.
    by_tables: bool,
    /// Whether the search's method ran.
    by_search: bool,
}

#[pymethods]
impl PyVerifyResult {
    fn __repr__(&self) -> String {
        format!(
            "VerifyResult(verdict='{}', by_tables={}, by_search={})",
            self.verdict,
            if self.by_tables { "True" } else { "False" },
            if self.by_search { "True" } else { "False" }
        )
    }
}

/// The value of the start of `rules` from the tables under `db`, like
/// `millbase verify`: by the tables (`method="tables"`), by a search that
/// reads only the moving phase's tables (`"search"`), or by both, which
/// must agree (`"both"`; a disagreement raises RuntimeError).
#[pyfunction]
#[pyo3(signature = (rules, db, method="both", threads=None))]
fn verify(
    py: Python<'_>,
    rules: &Bound<'_, PyAny>,
    db: PathBuf,
    method: &str,
    threads: Option<usize>,
) -> PyResult<PyVerifyResult> {
    let rules = rules_of(rules)?;
    let method = match method {
        "both" => Method::Both,
        "tables" => Method::Tables,
        "search" => Method::Search,
        m => {
            return Err(PyValueError::new_err(format!(
                "method `{m}`: use \"both\", \"tables\" or \"search\""
            )));
        }
    };
    let tables = TableSet::with_cache(&db, &rules, 1 << 18);
    let found = py.detach(|| {
        with_threads(threads, || {
            verify_tables(&tables, method, true, &millbase::Quiet)
        })
    })?;
    match found {
        Ok(v) => Ok(PyVerifyResult {
            verdict: match v.verdict {
                Wdl::Win => "win",
                Wdl::Draw => "draw",
                Wdl::Loss => "loss",
            },
            by_tables: v.tables.is_some(),
            by_search: v.search.is_some(),
        }),
        Err(millbase::VerifyError::Probe(ProbeError::Table(t))) => {
            Err(TableError::new_err(t.with_remedy(&rules)))
        }
        Err(e @ millbase::VerifyError::NoPlacingTables) => Err(TableError::new_err(format!(
            "{e} (build them with `millbase build --rules {}`)",
            rules.short_name()
        ))),
        Err(e) => Err(pyo3::exceptions::PyRuntimeError::new_err(e.to_string())),
    }
}

#[pymodule]
fn _millbase(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRules>()?;
    m.add_class::<PyPosition>()?;
    m.add_class::<PyMove>()?;
    m.add_class::<PyValue>()?;
    m.add_class::<PyPracticalMove>()?;
    m.add_class::<PyTables>()?;
    m.add_function(wrap_pyfunction!(open_tables, m)?)?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_class::<PyCheckResult>()?;
    m.add_class::<PyVerifyResult>()?;
    m.add("TableError", m.py().get_type::<TableError>())?;
    m.add(
        "__version__",
        PyString::new(m.py(), env!("CARGO_PKG_VERSION")),
    )?;
    Ok(())
}
