//! Python bindings of the millbase library (`import millbase`): rules,
//! positions and moves, and the tables' values. A thin layer: every answer
//! comes from the Rust library, and probes run without the GIL.

use millbase::{
    Color, GameOver, Move, Notation, PositionInput, ProbeError, TableSet, Value, format_move,
    legal_moves, parse_position, play_moves_from, practical_moves,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::Arc;

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

#[pymodule]
fn _millbase(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRules>()?;
    m.add_class::<PyPosition>()?;
    m.add_class::<PyMove>()?;
    m.add_class::<PyValue>()?;
    m.add_class::<PyPracticalMove>()?;
    m.add_class::<PyTables>()?;
    m.add_function(wrap_pyfunction!(open_tables, m)?)?;
    m.add("TableError", m.py().get_type::<TableError>())?;
    m.add(
        "__version__",
        PyString::new(m.py(), env!("CARGO_PKG_VERSION")),
    )?;
    Ok(())
}
