#![warn(missing_docs)]
//! millbase: solves mill games (Nine Men's Morris and its variants) by
//! retrograde analysis.
//!
//! Data flows one way through the modules, each importing only from those
//! before it (a test holds them to it): geometry (points, lines,
//! symmetries) -> [`rules`] (rule options) -> [`value`] (values and their
//! codes) -> [`position`] (positions and their text forms) -> [`moves`]
//! (move and unmove generation, perft) -> [`notation`] (move text, position
//! input) -> [`index`] (the perfect hash of each stone-count subspace, the
//! subspace lists) -> [`table`] (the table files and their folder) ->
//! [`solve`] (backward induction of the moving phase) and placing (the
//! placing phase) -> [`build`] (the whole build, in order) -> [`query`]
//! (values of positions and moves) -> [`play`] (choosing moves, matches) ->
//! [`answer`] (a query's answer as JSON) -> [`mod@verify`] (the forward
//! check of the tables, the value of the start by two methods; it reads
//! no builder) -> [`serve`] (the HTTP API and the web board). The rules
//! are described in `docs/RULES.md`, the design in `docs/DESIGN.md`.
//!
//! Build a small game and ask for the value of its start:
//!
//! ```
//! use millbase::{Build, BuildOptions, Method, Position, Rules, TableFolder, TableSet, Value, Wdl};
//! use millbase::verify;
//! let db = std::env::temp_dir().join(format!("millbase-doc-{}", std::process::id()));
//! let rules: Rules = "three".parse().unwrap();
//! let build = Build::plan(&TableFolder::new(&db, &rules), &BuildOptions::default()).unwrap();
//! build.run(&millbase::solve::NoProgress).unwrap();
//! let tables = TableSet::open(&db, &rules);
//! let value = tables.probe(&Position::start(&rules)).unwrap();
//! assert_eq!(value, Value::Win(9)); // three men's morris: White wins in 9 plies
//! // Both methods of `verify` (the tables, and a search on the moving phase).
//! let found = verify(&tables, Method::Both, true, &millbase::verify::Quiet).unwrap();
//! assert_eq!(found.verdict, Wdl::Win);
//! # std::fs::remove_dir_all(&db).unwrap();
//! ```
//!
//! Positions and moves need no tables:
//!
//! ```
//! use millbase::{Rules, Position, moves::perft};
//! let rules = Rules::STANDARD;
//! assert_eq!(perft(&Position::start(&rules), &rules, 2), 24 * 23);
//! ```

pub mod answer;
pub mod build;
mod color;
mod error;
mod geometry;
pub mod index;
#[cfg(test)]
mod layers;
pub mod machine;
mod memory;
pub mod moves;
pub mod notation;
mod placing;
pub mod play;
pub mod position;
pub mod query;
pub mod render;
pub mod rules;
pub mod serve;
pub mod solve;
pub mod table;
pub mod value;
pub mod verify;

pub use build::{Build, BuildError, BuildOptions, BuildReport};
pub use error::ParseError;
pub use geometry::{Board, Point, PointSet, PointSetIter};
pub use index::Subspace;
pub use moves::Move;
pub use position::{ByColor, Color, Position};
pub use query::{ProbeError, TableSet};
pub use rules::Rules;
pub use table::{TableError, TableFolder, Wdl};
pub use value::Value;
pub use verify::{Method, Verification, VerifyError, verify};
