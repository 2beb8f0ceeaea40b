#![warn(missing_docs)]
// The core build (`--no-default-features`, the pack reader alone) leaves out
// the callers of some shared helpers.
#![cfg_attr(not(feature = "tables"), allow(dead_code, unused_imports))]
//! millbase: solves mill games (Nine Men's Morris and its variants) by
//! retrograde analysis.
//!
//! The API is the flat list of items below, one path each; the modules
//! are private. Its entry points, from the bottom up:
//!
//! - [`Rules`] (a rule set, parsed from text such as `"standard,nmove=50"`),
//!   [`Position`] and [`Move`], with [`legal_moves`], [`perft`] and the text
//!   forms ([`parse_position`], [`format_move`]);
//! - [`Value`] (win or loss in so many plies, or draw) and [`Wdl`];
//! - [`Subspace`] and [`Indexer`]: the stone-count subspaces and the perfect
//!   hash that maps each position to its table slot;
//! - [`Build`]: the whole build of a rule set into a [`TableFolder`],
//!   resumable, reporting through a [`Progress`];
//! - [`TableSet`]: the one handle that reads a table folder: values of
//!   positions and moves, at an N-move counter, game records and the
//!   answers as JSON that `millbase query` and the server give;
//! - [`Pack`]: a table pack (`millbase pack`, [`write_pack`]): every
//!   position's win, draw or loss and what a player needs to convert every
//!   win, in files small enough to ship in an app. With
//!   `--no-default-features` the crate is this reader and the layers below
//!   it (no rayon, no HTTP, no command line);
//! - [`practical_moves`], [`AlphaBeta`] and [`play_match`]: choosing moves
//!   and playing matches;
//! - [`verify`] (the value of the start by two methods) and
//!   [`check_subspaces`] (every slot of the tables against its children;
//!   neither reads the builders' code; [`check_subspaces_recorded`] resumes
//!   a long check);
//! - [`spawn`] and [`serve_until_interrupted`]: the HTTP API and the web
//!   board.
//!
//! Inside, data flows one way through the modules, each importing only from
//! those before it (a test holds them to it): geometry, rules, value,
//! position, moves, notation, index, cache, table, pack, solve and placing (the two
//! phases' builders), build, query, play, answer, verify, render, machine,
//! serve. The rules are described in `docs/RULES.md`, the design in
//! `docs/DESIGN.md`.
//!
//! Build a small game and ask for the value of its start:
//!
//! ```
//! use millbase::{Build, BuildOptions, Method, Position, Rules, TableFolder, TableSet, Value, Wdl, verify};
//! let db = std::env::temp_dir().join(format!("millbase-doc-{}", std::process::id()));
//! let rules: Rules = "three".parse().unwrap();
//! let build = Build::plan(&TableFolder::new(&db, &rules), &BuildOptions::default()).unwrap();
//! build.run(&millbase::NoProgress).unwrap();
//! let tables = TableSet::open(&db, &rules);
//! let value = tables.probe(&Position::start(&rules)).unwrap();
//! assert_eq!(value, Value::Win(9)); // three men's morris: White wins in 9 plies
//! // Both methods of `verify` (the tables, and a search on the moving phase).
//! let found = verify(&tables, Method::Both, true, &millbase::Quiet).unwrap();
//! assert_eq!(found.verdict, Wdl::Win);
//! # std::fs::remove_dir_all(&db).unwrap();
//! ```
//!
//! Positions and moves need no tables:
//!
//! ```
//! use millbase::{Position, Rules, perft};
//! let rules = Rules::STANDARD;
//! assert_eq!(perft(&Position::start(&rules), &rules, 2), 24 * 23);
//! ```

#[cfg(feature = "tables")]
mod answer;
#[cfg(feature = "tables")]
mod build;
mod cache;
mod color;
#[cfg(feature = "tables")]
mod engine;
mod error;
mod geometry;
mod index;
#[cfg(test)]
mod layers;
#[cfg(feature = "tables")]
mod machine;
mod memory;
mod moves;
mod notation;
mod pack;
#[cfg(feature = "tables")]
mod placing;
#[cfg(feature = "tables")]
mod play;
mod position;
#[cfg(feature = "tables")]
mod query;
mod render;
mod rules;
#[cfg(feature = "serve")]
mod serve;
#[cfg(feature = "tables")]
mod solve;
#[cfg(feature = "tables")]
mod table;
mod value;
#[cfg(feature = "tables")]
mod verify;

// The public API, one path per item, grouped by layer.
#[cfg(feature = "tables")]
pub use answer::{
    Answer, GameAnswer, GameOver, MoveAnswer, PracticalAnswer, Probed, PureAnswer, QueryError,
    RuleAnswer,
};
#[cfg(feature = "tables")]
pub use build::{Build, BuildError, BuildOptions, BuildReport, PhaseReport};
#[cfg(feature = "tables")]
pub use engine::{Engine, run_engine};
pub use error::ParseError;
pub use geometry::{Board, Point, PointSet, PointSetIter};
#[cfg(feature = "tables")]
pub use index::check::{IndexCheck, check_index};
pub use index::{
    Indexer, Subspace, SubspaceIndex, all_subspaces, moving_subspaces, placing_subspaces,
};
#[cfg(feature = "tables")]
pub use machine::{MachineFigure, measure as measure_machine};
pub use moves::{Move, legal_moves, no_moves_draws, perft, perft_divide, unmoves};
pub use notation::{
    Notation, PositionInput, format_move, parse_position, play_move_list, play_moves_from,
};
pub use pack::file::{
    BLOCK_SLOTS as PACK_BLOCK_SLOTS, PackFile, PackInfo, carries_depths as pack_carries_depths,
    rules_fingerprint,
};
#[cfg(feature = "tables")]
pub use pack::write::{PACK_LEVEL, PackWriteError, PackedFile, write_pack};
pub use pack::{Pack, PackError, PackMove, PackValue, PackVerification, pack_path, verify_pack};
#[cfg(feature = "tables")]
pub use play::alphabeta::AlphaBeta;
#[cfg(feature = "tables")]
pub use play::game_match::{Ending, GameResult, MatchOptions, MatchResult, play_match};
#[cfg(feature = "tables")]
pub use play::practical::{PracticalMove, practical_moves};
#[cfg(feature = "tables")]
pub use play::{Player, PlayerKind};
pub use position::{ByColor, Color, Position, PositionError, parse_sanmill, to_sanmill};
#[cfg(feature = "tables")]
pub use query::{CounterValue, DEFAULT_CACHE_BLOCKS, MoveValue, ProbeError, RuleDraw, TableSet};
pub use render::render_position;
pub use rules::{DoubleMill, Flying, FullBoard, MillRule, PRESETS, Protection, Rules, RulesError};
#[cfg(feature = "serve")]
pub use serve::{
    BoardInfo, Catalog, Limits, RuleSetInfo, RunningServer, ServeOptions, router,
    serve_until_interrupted, spawn,
};
#[cfg(feature = "tables")]
pub use solve::{NoProgress, Progress};
#[cfg(feature = "tables")]
pub use table::format::reseal;
#[cfg(feature = "tables")]
pub use table::{
    BlockFault, CodeLayout, DEFAULT_LEVEL, Damage, Mismatch, PliesCounts, Section, StatsFile,
    SubspaceStats, Table, TableError, TableFile, TableFolder, TableInfo, raise_open_file_limit,
};
pub use value::{Encoding, UNUSED, Value, Wdl, best_first};
#[cfg(feature = "tables")]
pub use verify::check::{
    BadSlot, CheckRecord, SubspaceCheck, built_subspaces, check_subspaces,
    check_subspaces_in_slot_order, check_subspaces_recorded,
};
#[cfg(feature = "tables")]
pub use verify::{
    Method, OpeningSearch, Quiet, SearchOutcome, TablesOutcome, Verification, VerifyError,
    VerifyProgress, verify, wdl_of,
};
