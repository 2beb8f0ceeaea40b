//! Reading values of positions from the tables: the library API.
//!
//! Open a table folder once with [`TableSet::open`], then probe from as
//! many threads as you like: tables are opened on first use and
//! decompressed blocks are kept in a bounded cache shared by all threads.

use crate::cache::{BlockCache, FastMap};
use crate::index::{Indexer, Subspace};
use crate::position::Position;
use crate::rules::Rules;
use crate::table::{
    CodeLayout, Damage, FieldCode, Halves, TableError, TableFile, TableFolder, Wdl, WdlBlock,
};
use crate::value::{Encoding, Value, best_first};
use std::path::Path;
use std::sync::OnceLock;

/// Decompressed blocks kept by default, of each kind: a win/draw/loss
/// block (3 KiB in memory) with, once needed, its code block of layout 2
/// (at most 8 KiB of halved depths, 16 for 2-byte ones), and code blocks
/// of layout 1 (8 or 16 KiB): about 100 MiB at most.
pub const DEFAULT_CACHE_BLOCKS: usize = 4096;

/// A rule set's table folder, opened once; tables are opened on first use.
///
/// An opened table stays the file it was when it was opened: a table
/// replaced under it (renamed over) is still read from the old file, and
/// one rewritten in place gives errors naming it, never its new values
/// (see [`TableFile`]). A new `TableSet` reads the replaced tables.
/// Safe to share between threads.
///
/// ```no_run
/// use millbase::{Position, Rules, TableSet};
/// let rules = Rules::STANDARD;
/// let tables = TableSet::open(std::path::Path::new("db"), &rules);
/// let pos: Position = millbase::parse_position(
///     ".WWBW..B/......../.B...... b 0 0", &rules).unwrap().position;
/// println!("{:?}", tables.probe(&pos));
/// ```
pub struct TableSet {
    folder: TableFolder,
    rules: Rules,
    indexer: &'static Indexer,
    /// Tables opened so far, by table number (see [`TableSet::number`]):
    /// reading one is a single atomic load, so threads do not contend.
    tables: Vec<OnceLock<TableFile>>,
    /// Win/draw/loss blocks, each with its code block once a probe of a
    /// decisive slot of layout 2 has needed it.
    wdl_cache: BlockCache<(WdlBlock, Option<Halves>)>,
    /// Code blocks of layout 1.
    code_cache: BlockCache<Vec<u8>>,
    /// The placing-phase subspaces a game from the start reaches, with
    /// their table numbers.
    placing: FastMap<Subspace, usize>,
    /// The pure game's tables, under the N-move rule only.
    pure: Option<Box<TableSet>>,
}

/// Why a probe failed.
#[derive(Debug)]
pub enum ProbeError {
    /// No table of the rule set covers the position: no game from the
    /// start reaches its stone counts (side to move first).
    NotCovered {
        /// The rule set's short name.
        rules: String,
        /// The position's subspace.
        subspace: Subspace,
    },
    /// A player that reads the tables was given none.
    NoTables,
    /// An engine playing through its protocol (`uci:COMMAND`) failed.
    Engine {
        /// Its command.
        command: String,
        /// What went wrong.
        problem: String,
    },
    /// `verify`'s repetition search followed a path of this many plies
    /// without a repetition, more than it follows.
    SearchTooDeep(u32),
    /// A table is missing or damaged.
    Table(TableError),
}

impl std::fmt::Display for ProbeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProbeError::NotCovered { rules, subspace: s } => write!(
                f,
                "no game from the start under rules {rules} reaches a position with {} and {} \
                 stones on the board and {} and {} in hand (side to move first)",
                s.us, s.them, s.us_hand, s.them_hand
            ),
            ProbeError::NoTables => f.write_str("this player needs the tables"),
            ProbeError::Engine { command, problem } => {
                write!(f, "the engine `{command}`: {problem}")
            }
            ProbeError::SearchTooDeep(plies) => write!(
                f,
                "the search's path passed {plies} plies without a repetition, more than it follows"
            ),
            ProbeError::Table(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ProbeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProbeError::Table(e) => Some(e),
            _ => None,
        }
    }
}

impl From<TableError> for ProbeError {
    fn from(e: TableError) -> Self {
        ProbeError::Table(e)
    }
}

/// Stone counts a side may have on the board: 0 to the board's size.
/// Moving-phase tables are numbered by (side to move's, other side's).
fn stone_counts(rules: &Rules) -> usize {
    rules.board().size as usize + 1
}

/// Where a position's value is stored.
enum Lookup {
    /// Decided without a table (the side to move has fewer than 3 stones).
    Known(Value),
    /// In this slot of this subspace's table (with the table's number).
    Slot(Subspace, usize, u64),
}

impl TableSet {
    /// Opens the tables of `rules` under `db`, and under the N-move rule the
    /// pure game's beside them (nothing is read yet).
    pub fn open(db: &Path, rules: &Rules) -> TableSet {
        TableSet::with_cache(db, rules, DEFAULT_CACHE_BLOCKS)
    }

    /// Like [`TableSet::open`], keeping at most `blocks` decompressed blocks.
    pub fn with_cache(db: &Path, rules: &Rules, blocks: usize) -> TableSet {
        let moving = stone_counts(rules) * stone_counts(rules);
        let placing: FastMap<Subspace, usize> = crate::index::placing_subspaces(rules)
            .into_iter()
            .enumerate()
            .map(|(i, s)| (s, moving + i))
            .collect();
        TableSet {
            folder: TableFolder::new(db, rules),
            rules: *rules,
            indexer: Indexer::for_board(rules.board()),
            tables: (0..moving + placing.len())
                .map(|_| OnceLock::new())
                .collect(),
            wdl_cache: BlockCache::new(blocks),
            code_cache: BlockCache::new(blocks),
            placing,
            pure: rules
                .nmove
                .map(|_| Box::new(TableSet::with_cache(db, &rules.pure(), blocks))),
        }
    }

    /// Under the N-move rule, the pure game's tables (same folder, same
    /// cache size), which give a position's value without the rule when
    /// they are built; `None` without the rule.
    pub fn pure(&self) -> Option<&TableSet> {
        self.pure.as_deref()
    }

    /// The rule set.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The table of subspace `s` with its number (see [`TableSet::number`]),
    /// opened on first use. A table that fails to open is not remembered:
    /// the next probe tries again and reports the error again.
    fn table(&self, s: Subspace, number: usize) -> Result<&TableFile, ProbeError> {
        let cell = &self.tables[number];
        if let Some(t) = cell.get() {
            return Ok(t);
        }
        let t = self.folder.open(s)?;
        // Another thread may have opened it meanwhile: either copy will do.
        let _ = cell.set(t);
        Ok(cell.get().expect("set above"))
    }

    /// The number of subspace `s`'s table: moving-phase tables first (by
    /// stones on the board), then the placing-phase tables a game reaches.
    /// `None` for a placing subspace no game reaches.
    fn number(&self, s: Subspace) -> Option<usize> {
        if s.is_moving() {
            Some(s.us as usize * stone_counts(&self.rules) + s.them as usize)
        } else {
            self.placing.get(&s).copied()
        }
    }

    fn locate(&self, pos: &Position) -> Result<Lookup, ProbeError> {
        let us = pos.stones[pos.to_move];
        let them = pos.stones[!pos.to_move];
        if pos.total(pos.to_move) < 3 {
            return Ok(Lookup::Known(Value::Loss(0)));
        }
        let s = Subspace {
            us: us.len() as u8,
            them: them.len() as u8,
            us_hand: pos.hand[pos.to_move],
            them_hand: pos.hand[!pos.to_move],
        };
        let Some(number) = self.number(s) else {
            return Err(ProbeError::NotCovered {
                rules: self.rules.short_name(),
                subspace: s,
            });
        };
        Ok(Lookup::Slot(
            s,
            number,
            self.indexer.subspace(s.us, s.them).slot(us, them),
        ))
    }

    /// The code of `slot`, from its (cached) decompressed blocks. In
    /// layout 2 the win/draw/loss block comes first: a draw needs no more.
    fn code(&self, table: &TableFile, s: Subspace, slot: u64) -> Result<u16, ProbeError> {
        let block = (slot / table.block_slots()) as u32;
        let i = table.in_block(slot);
        let key = (s, block);
        if table.info().layout == CodeLayout::Codes {
            let code = self.code_cache.with_block(
                key,
                || table.code_block(block),
                |c| table.code_in(c, i),
            )?;
            return Ok(code);
        }
        let code = self.wdl_cache.with_block(
            key,
            || Ok::<_, TableError>((table.wdl_block(block)?, None)),
            |(wdl, halves)| match wdl.field_code(i) {
                FieldCode::Code(code) => Ok(code),
                FieldCode::Decisive { rank, win, count } => {
                    let halves = match halves {
                        Some(h) => h,
                        None => halves.insert(table.halves_block(block, count)?),
                    };
                    Ok::<u16, TableError>(halves.code(rank, win))
                }
            },
        )??;
        Ok(code)
    }

    /// The win/draw/loss of `slot`, from its (cached) decompressed
    /// win/draw/loss block.
    fn wdl(&self, table: &TableFile, s: Subspace, slot: u64) -> Result<Option<Wdl>, ProbeError> {
        let block = (slot / table.block_slots()) as u32;
        let i = table.in_block(slot);
        Ok(self.wdl_cache.with_block(
            (s, block),
            || Ok::<_, TableError>((table.wdl_block(block)?, None)),
            |(w, _)| w.wdl(i),
        )?)
    }

    fn unused(&self, s: Subspace, slot: u64) -> ProbeError {
        ProbeError::Table(TableError::Corrupt(
            self.folder.path(s),
            Damage::UnusedSlot { subspace: s, slot },
        ))
    }

    /// The raw code of a position's slot and how it reads.
    fn probe_code(&self, pos: &Position) -> Result<(u16, Encoding), ProbeError> {
        match self.locate(pos)? {
            Lookup::Known(v) => {
                let e = Encoding::of(&self.rules, pos.is_moving_phase());
                Ok((e.code(v), e))
            }
            Lookup::Slot(s, number, slot) => {
                let table = self.table(s, number)?;
                let code = self.code(table, s, slot)?;
                if code == crate::value::UNUSED {
                    return Err(self.unused(s, slot));
                }
                Ok((code, table.info().encoding))
            }
        }
    }

    /// The value of a position for the side to move at N-move counter
    /// `counter` (0 without the rule, and always 0 while stones are in
    /// hand): decided when its `Z` is at most `N - counter`.
    pub fn probe_at(&self, pos: &Position, counter: u16) -> Result<CounterValue, ProbeError> {
        let (code, encoding) = self.probe_code(pos)?;
        let at_zero = encoding.value(code).expect("used slot");
        let limit = match encoding {
            Encoding::NMove(n) => n.saturating_sub(counter) as u32,
            _ => u32::MAX,
        };
        let value = match at_zero {
            Value::Win(z) | Value::Loss(z) if z > limit => Value::Draw,
            v => v,
        };
        let rule_draw = match (value, at_zero) {
            (Value::Draw, Value::Win(_)) => Some(RuleDraw::WinByCounter),
            (Value::Draw, Value::Loss(_)) => Some(RuleDraw::LossByCounter),
            _ => encoding.cursed(code).map(|win| {
                if win {
                    RuleDraw::CursedWin
                } else {
                    RuleDraw::BlessedLoss
                }
            }),
        };
        Ok(CounterValue {
            value,
            z: at_zero.plies(),
            rule_draw,
        })
    }

    /// The value of every legal move of `pos` at N-move counter `counter`,
    /// best first: a quiet move of the moving phase advances the counter
    /// (reaching N draws, unless the move ends the game), a mill resets it.
    pub fn probe_moves_at(
        &self,
        pos: &Position,
        counter: u16,
    ) -> Result<Vec<MoveValue>, ProbeError> {
        let Some(n) = self.rules.nmove else {
            return self.probe_moves(pos);
        };
        let mut moves = Vec::new();
        crate::moves::legal_moves(pos, &self.rules, &mut moves);
        let mut replies = Vec::new();
        let mut out = moves
            .into_iter()
            .map(|mv| {
                let child = pos.play(&mv);
                let next = crate::moves::next_counter(self.rules.board(), pos, &mv, counter);
                let value = if next >= n {
                    crate::moves::legal_moves(&child, &self.rules, &mut replies);
                    if replies.is_empty() {
                        self.probe(&child)?
                    } else {
                        Value::Draw
                    }
                } else {
                    self.probe_at(&child, next)?.value
                };
                Ok(MoveValue {
                    mv,
                    value: value.parent(),
                })
            })
            .collect::<Result<Vec<_>, ProbeError>>()?;
        out.sort_by_key(|m| best_first(&m.value));
        Ok(out)
    }

    /// The value of a position for the side to move, with the plies to the
    /// end (under the N-move rule: at counter 0, the plies being `Z`).
    pub fn probe(&self, pos: &Position) -> Result<Value, ProbeError> {
        match self.locate(pos)? {
            Lookup::Known(v) => Ok(v),
            Lookup::Slot(s, number, slot) => {
                let table = self.table(s, number)?;
                let code = self.code(table, s, slot)?;
                table
                    .info()
                    .encoding
                    .value(code)
                    .ok_or_else(|| self.unused(s, slot))
            }
        }
    }

    /// Win, draw or loss of a position for the side to move,
    /// reading only the (smaller) win/draw/loss section.
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        match self.locate(pos)? {
            Lookup::Known(_) => Ok(Wdl::Loss),
            Lookup::Slot(s, number, slot) => {
                let table = self.table(s, number)?;
                self.wdl(table, s, slot)?
                    .ok_or_else(|| self.unused(s, slot))
            }
        }
    }
}

/// A position's value at an N-move counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterValue {
    /// Win, draw or loss at the counter (the plies of a win or loss: `Z`
    /// under the N-move rule, else to the end of the game).
    pub value: Value,
    /// The plies stored for the position: `Z` (at most `N`) where the rule
    /// decides it at counter 0, the plies to the end in the pure game;
    /// `None` for a draw at counter 0.
    pub z: Option<u32>,
    /// For a draw under the N-move rule that the pure game decides, which
    /// kind it is; `None` otherwise.
    pub rule_draw: Option<RuleDraw>,
}

/// A draw under the N-move rule of a position the pure game decides
/// (`docs/RULES.md` section 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleDraw {
    /// A pure win with `Z > N`: a draw at every counter.
    CursedWin,
    /// A pure loss with `Z > N`: a draw at every counter.
    BlessedLoss,
    /// Won at counter 0 (`Z <= N`), drawn at this counter (`Z > N - c`).
    WinByCounter,
    /// Lost at counter 0 (`Z <= N`), drawn at this counter (`Z > N - c`).
    LossByCounter,
}

impl RuleDraw {
    /// The name `query` prints and JSON carries.
    pub fn name(self) -> &'static str {
        match self {
            RuleDraw::CursedWin => "cursed win",
            RuleDraw::BlessedLoss => "blessed loss",
            RuleDraw::WinByCounter => "win drawn by the counter",
            RuleDraw::LossByCounter => "loss drawn by the counter",
        }
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
