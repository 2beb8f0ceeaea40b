//! Reading values of positions from the tables.

use crate::index::{Indexer, Subspace};
use crate::position::Position;
use crate::rules::Rules;
use crate::solve::build::load_table;
use crate::solve::value::Value;
use crate::table::{Table, TableError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

/// A rule set's table folder, opened once; tables load on first use.
pub struct TableSet {
    db: PathBuf,
    rules: Rules,
    indexer: &'static Indexer,
    tables: RwLock<HashMap<Subspace, Arc<Table>>>,
}

/// Why a probe failed.
#[derive(Debug)]
pub enum ProbeError {
    /// The position is not covered by moving-phase tables.
    NotCovered(String),
    /// A table is missing or damaged.
    Table(TableError),
}

impl std::fmt::Display for ProbeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProbeError::NotCovered(s) => f.write_str(s),
            ProbeError::Table(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ProbeError {}

impl TableSet {
    /// Opens the tables of `rules` under `db` (nothing is read yet).
    pub fn open(db: &Path, rules: &Rules) -> TableSet {
        TableSet {
            db: db.to_path_buf(),
            rules: *rules,
            indexer: Indexer::for_board(rules.board()),
            tables: RwLock::new(HashMap::new()),
        }
    }

    fn table(&self, s: Subspace) -> Result<Arc<Table>, ProbeError> {
        if let Some(t) = self.tables.read().unwrap().get(&s) {
            return Ok(t.clone());
        }
        let t = Arc::new(load_table(&self.db, &self.rules, s).map_err(ProbeError::Table)?);
        self.tables.write().unwrap().insert(s, t.clone());
        Ok(t)
    }

    /// The value of a moving-phase position for the side to move.
    pub fn probe(&self, pos: &Position) -> Result<Value, ProbeError> {
        let us = pos.stones[pos.to_move];
        let them = pos.stones[!pos.to_move];
        if !pos.is_moving_phase() {
            return Err(ProbeError::NotCovered(
                "placing-phase positions (stones in hand) have no tables yet".into(),
            ));
        }
        if us.len() < 3 {
            return Ok(Value::Loss(0));
        }
        let s = Subspace::moving(us.len() as u8, them.len() as u8);
        let table = self.table(s)?;
        let slot = self.indexer.subspace(s.w, s.b).slot(us, them);
        Value::from_code(table.code(slot)).ok_or_else(|| {
            ProbeError::Table(TableError::Corrupt(
                self.db.clone(),
                format!("slot {slot} of {s} is marked unused"),
            ))
        })
    }
}

/// A move with its value for the side that makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The move.
    pub mv: crate::moves::Move,
    /// Its value for the mover.
    pub value: Value,
}

/// Orders values best first for the side to move: the fastest win, then
/// draws, then the slowest loss.
pub fn best_first(v: &Value) -> (u8, i64) {
    match *v {
        Value::Win(d) => (0, d as i64),
        Value::Draw => (1, 0),
        Value::Loss(d) => (2, -(d as i64)),
    }
}

impl TableSet {
    /// The value of every legal move of `pos`, best first.
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<MoveValue>, ProbeError> {
        let mut moves = Vec::new();
        crate::moves::legal_moves(pos, &self.rules, &mut moves);
        let mut out = moves
            .into_iter()
            .map(|mv| {
                let child = pos.play(&mv);
                Ok(MoveValue {
                    mv,
                    value: self.probe(&child)?.parent(),
                })
            })
            .collect::<Result<Vec<_>, ProbeError>>()?;
        out.sort_by_key(|m| best_first(&m.value));
        Ok(out)
    }
}
