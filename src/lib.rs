#![warn(missing_docs)]
//! millbase: solves mill games (Nine Men's Morris and its variants) by
//! retrograde analysis.
//!
//! Data flows one way through the modules: geometry (points, lines,
//! symmetries) -> [`rules`] (rule options) -> [`position`] (positions and
//! their text forms) -> [`moves`] (move and unmove generation, perft) ->
//! [`notation`] (move text, position input) -> [`index`] (the perfect hash
//! of each stone-count subspace, the subspace lists) -> [`solve`] (value
//! codes, backward induction) and placing (the placing phase) -> [`table`]
//! (the table files and their folder) -> [`build`] (the whole build, in
//! order) -> [`query`] (values of positions and moves) -> [`mod@verify`] (the
//! forward check of the tables, the value of the start by two methods) ->
//! [`serve`] (the HTTP API and the web board). The rules are described in
//! `docs/RULES.md`, the design in `docs/DESIGN.md`.
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

pub mod build;
mod color;
mod error;
mod geometry;
pub mod index;
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
pub mod verify;

pub use build::{Build, BuildError, BuildOptions, BuildReport};
pub use error::ParseError;
pub use geometry::{Board, Point, PointSet, PointSetIter};
pub use index::Subspace;
pub use moves::Move;
pub use position::{ByColor, Color, Position};
pub use query::{ProbeError, TableSet};
pub use rules::Rules;
pub use solve::value::Value;
pub use table::{TableError, TableFolder, Wdl};
pub use verify::{Method, Verification, VerifyError, verify};
