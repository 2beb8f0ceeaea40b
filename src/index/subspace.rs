//! Subspace identifiers: stones on the board and in hand of each side.

use crate::error::ParseError;
use crate::rules::Rules;
use std::fmt;
use std::str::FromStr;

/// A stone-count subspace, always from the side to move's point of view:
/// `w` stones on the board for the side to move, `b` for the other, and
/// stones in hand `wh`, `bh` (both 0 in the moving phase).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Subspace {
    /// Stones on the board of the side to move.
    pub w: u8,
    /// Stones on the board of the other side.
    pub b: u8,
    /// Stones in hand of the side to move.
    pub wh: u8,
    /// Stones in hand of the other side.
    pub bh: u8,
}

impl Subspace {
    /// The moving-phase subspace `w-b`.
    pub const fn moving(w: u8, b: u8) -> Subspace {
        Subspace { w, b, wh: 0, bh: 0 }
    }

    /// Whether both hands are empty.
    pub fn is_moving(&self) -> bool {
        self.wh == 0 && self.bh == 0
    }

    /// The subspace with the sides swapped (`w-b` -> `b-w`).
    pub fn twin(&self) -> Subspace {
        Subspace {
            w: self.b,
            b: self.w,
            wh: self.bh,
            bh: self.wh,
        }
    }
}

/// The moving-phase subspaces of a rule set: `w-b` (side to move first)
/// with at least 3 stones each and at most what each side has, White or
/// Black to move (`stones=W/B`: White at most W, Black at most B). Closed
/// under captures and under swapping the sides.
pub fn moving_subspaces(rules: &Rules) -> Vec<Subspace> {
    let (sw, sb) = (rules.stones.white, rules.stones.black);
    let n = rules.max_stones();
    let mut out = Vec::new();
    for w in 3..=n {
        for b in 3..=n {
            let fits = (w <= sw && b <= sb) || (w <= sb && b <= sw);
            if fits && w as u32 + b as u32 <= rules.board().size as u32 {
                out.push(Subspace::moving(w, b));
            }
        }
    }
    out
}

impl fmt::Display for Subspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_moving() {
            write!(f, "{}-{}", self.w, self.b)
        } else {
            write!(f, "{}-{}-{}-{}", self.w, self.b, self.wh, self.bh)
        }
    }
}

impl FromStr for Subspace {
    type Err = ParseError;

    /// Parses `W-B` or `W-B-WH-BH`.
    fn from_str(s: &str) -> Result<Subspace, ParseError> {
        let parts: Option<Vec<u8>> = s.split('-').map(|p| p.trim().parse().ok()).collect();
        let bad = || {
            ParseError::new(format!(
                "subspace `{s}`: expected W-B (e.g. 4-3) or W-B-WH-BH (e.g. 4-3-2-2)"
            ))
        };
        let parts = parts.ok_or_else(bad)?;
        let sub = match parts[..] {
            [w, b] => Subspace::moving(w, b),
            [w, b, wh, bh] => Subspace { w, b, wh, bh },
            _ => return Err(bad()),
        };
        let total = |a: u8, b: u8| a as u32 + b as u32;
        if total(sub.w, sub.b) > 24 || total(sub.w, sub.wh) > 12 || total(sub.b, sub.bh) > 12 {
            return Err(ParseError::new(format!(
                "subspace `{s}`: more stones than any supported rule set allows"
            )));
        }
        Ok(sub)
    }
}
