//! Subspace identifiers: stones on the board and in hand of each side.

use crate::error::ParseError;
use crate::moves::most_removals;
use crate::rules::Rules;
use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// A stone-count subspace, always from the side to move's point of view
/// (written `us-them-us_hand-them_hand`, or `us-them` in the moving phase,
/// where both hands are empty).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Subspace {
    /// Stones on the board of the side to move.
    pub us: u8,
    /// Stones on the board of the other side.
    pub them: u8,
    /// Stones in hand of the side to move.
    pub us_hand: u8,
    /// Stones in hand of the other side.
    pub them_hand: u8,
}

impl Subspace {
    /// The moving-phase subspace `us-them`.
    pub const fn moving(us: u8, them: u8) -> Subspace {
        Subspace {
            us,
            them,
            us_hand: 0,
            them_hand: 0,
        }
    }

    /// Whether both hands are empty.
    pub fn is_moving(&self) -> bool {
        self.us_hand == 0 && self.them_hand == 0
    }

    /// The subspace with the sides swapped (`us-them` -> `them-us`).
    pub fn twin(&self) -> Subspace {
        Subspace {
            us: self.them,
            them: self.us,
            us_hand: self.them_hand,
            them_hand: self.us_hand,
        }
    }
}

/// The moving-phase subspaces of a rule set: `us-them` (side to move first)
/// with at least 3 stones each and at most what each side has, White or
/// Black to move (`stones=W/B`: White at most W, Black at most B). Closed
/// under captures and under swapping the sides.
pub fn moving_subspaces(rules: &Rules) -> Vec<Subspace> {
    let (sw, sb) = (rules.stones.white, rules.stones.black);
    let n = rules.max_stones();
    let mut out = Vec::new();
    for us in 3..=n {
        for them in 3..=n {
            let fits = (us <= sw && them <= sb) || (us <= sb && them <= sw);
            if fits && us as u32 + them as u32 <= rules.board().size as u32 {
                out.push(Subspace::moving(us, them));
            }
        }
    }
    out
}

/// The subspaces a move from a position of `s` leads to, where the side
/// then to move has not lost (at least 3 stones on the board and in hand).
/// The first is the one without a removal. A side with stones in hand
/// places one (and under Lasker rules may instead move a stone on the
/// board: those children follow); a side without (unequal hands: the other
/// side still holds stones) moves a stone on the board.
pub fn child_subspaces(rules: &Rules, s: Subspace) -> Vec<Subspace> {
    let mut out = Vec::new();
    if s.is_moving() {
        return out;
    }
    let kinds: &[u8] = match (s.us_hand > 0, rules.lasker && s.us > 0) {
        (false, _) => &[0],
        (true, false) => &[1],
        (true, true) => &[1, 0],
    };
    for &placed in kinds {
        for k in 0..=most_removals(rules) {
            // A removal needs a mill: three of the mover's stones after the move.
            if k > s.them || (k > 0 && s.us + placed < 3) {
                break;
            }
            let c = Subspace {
                us: s.them - k,
                them: s.us + placed,
                us_hand: s.them_hand,
                them_hand: s.us_hand - placed,
            };
            if c.us + c.us_hand >= 3 {
                out.push(c);
            }
        }
    }
    out
}

/// Every placing-phase subspace that a game from the start reaches (both
/// sides with at least 3 stones, someone with stones in hand), children
/// before parents: the order in which they are built.
pub fn placing_subspaces(rules: &Rules) -> Vec<Subspace> {
    let start = Subspace {
        us: 0,
        them: 0,
        us_hand: rules.stones.white,
        them_hand: rules.stones.black,
    };
    let mut seen = BTreeSet::from([start]);
    let mut todo = vec![start];
    while let Some(s) = todo.pop() {
        // Under Lasker rules a subspace is solved with its twin, whose
        // table is made too.
        let twin = rules.lasker.then(|| s.twin());
        for c in child_subspaces(rules, s).into_iter().chain(twin) {
            if !c.is_moving() && seen.insert(c) {
                todo.push(c);
            }
        }
    }
    let mut out: Vec<Subspace> = seen.into_iter().collect();
    if rules.lasker {
        // Placements lower the stones in hand, captures the stones on the
        // board: a pair's exits come before it. Twins are neighbours.
        out.sort_by_key(|s| {
            (
                s.us_hand + s.them_hand,
                s.us + s.them,
                s.us.max(s.them),
                s.us_hand.max(s.them_hand),
                *s.max(&s.twin()),
            )
        });
        return out;
    }
    // Fewer stones in hand first; a side without stones in hand moves on
    // the board into the same layer, so it comes after that layer's
    // placements; within a layer neighbours share children.
    out.sort_by_key(|s| (s.us_hand + s.them_hand, s.us_hand == 0, s.us, s.them));
    out
}

/// Every subspace of `rules` that has a table: the moving phase's, then
/// the placing phase's in build order.
pub fn all_subspaces(rules: &Rules) -> Vec<Subspace> {
    let mut all = moving_subspaces(rules);
    all.extend(placing_subspaces(rules));
    all
}

impl fmt::Display for Subspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_moving() {
            write!(f, "{}-{}", self.us, self.them)
        } else {
            write!(
                f,
                "{}-{}-{}-{}",
                self.us, self.them, self.us_hand, self.them_hand
            )
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
            [us, them] => Subspace::moving(us, them),
            [us, them, us_hand, them_hand] => Subspace {
                us,
                them,
                us_hand,
                them_hand,
            },
            _ => return Err(bad()),
        };
        let total = |a: u8, b: u8| a as u32 + b as u32;
        if total(sub.us, sub.them) > 24
            || total(sub.us, sub.us_hand) > 12
            || total(sub.them, sub.them_hand) > 12
        {
            return Err(ParseError::new(format!(
                "subspace `{s}`: more stones than any supported rule set allows"
            )));
        }
        Ok(sub)
    }
}
