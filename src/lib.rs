//! millbase: solves mill games (Nine Men's Morris and its variants) by
//! retrograde analysis.
//!
//! Data flows one way through the modules: [`geometry`] (points, lines,
//! symmetries) -> [`rules`] (rule options) -> [`position`] (positions and
//! their text forms) -> [`moves`] (move and unmove generation, perft) ->
//! [`notation`] (move text, position input) -> [`index`] (the perfect hash
//! of each stone-count subspace).
//!
//! ```
//! use millbase::{Rules, Position, moves::perft};
//! let rules = Rules::STANDARD;
//! assert_eq!(perft(&Position::start(&rules), &rules, 2), 24 * 23);
//! ```

pub mod build;
pub mod color;
pub mod error;
pub mod geometry;
pub mod index;
pub mod machine;
pub mod memory;
pub mod moves;
pub mod notation;
pub mod placing;
pub mod position;
pub mod query;
pub mod render;
pub mod rules;
pub mod serve;
pub mod solve;
pub mod table;
pub mod verify;

pub use error::ParseError;
pub use geometry::{Board, Point, PointSet};
pub use moves::Move;
pub use position::{ByColor, Color, Position};
pub use rules::Rules;
