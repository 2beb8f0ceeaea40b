//! Value codes: one small integer per position.
//!
//! A win or loss is known by its depth alone: the winner makes the last
//! move, so a win takes an odd number of plies and a loss an even number
//! (loss in 0: the side to move is blocked). The code is `depth + 1`; 0 is
//! a draw (during the solve: not decided yet); [`UNUSED`] marks a slot that
//! stands for no position.

/// A draw (or, while solving, a position not decided yet).
pub const DRAW: u16 = 0;
/// A slot that stands for no position (a non-canonical duplicate).
pub const UNUSED: u16 = u16::MAX;
/// The deepest depth a code can hold.
pub const MAX_DEPTH: u32 = UNUSED as u32 - 2;

/// The value of a position for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum Value {
    /// The side to move loses in this many plies.
    Loss(u32),
    /// Neither side can force a win.
    Draw,
    /// The side to move wins in this many plies.
    Win(u32),
}

impl Value {
    /// The code of a win or loss `depth` plies from the end. Panics if the
    /// depth does not fit, which no rule set here comes near.
    #[inline]
    pub fn code_of_depth(depth: u32) -> u16 {
        assert!(depth <= MAX_DEPTH, "depth {depth} overflows the value code");
        (depth + 1) as u16
    }

    /// The value of a code; `None` for [`UNUSED`].
    #[inline]
    pub fn from_code(code: u16) -> Option<Value> {
        match code {
            DRAW => Some(Value::Draw),
            UNUSED => None,
            c => {
                let d = c as u32 - 1;
                Some(if d % 2 == 1 {
                    Value::Win(d)
                } else {
                    Value::Loss(d)
                })
            }
        }
    }

    /// The code of this value.
    pub fn code(self) -> u16 {
        match self {
            Value::Draw => DRAW,
            Value::Win(d) | Value::Loss(d) => Value::code_of_depth(d),
        }
    }

    /// Plies to the end, if decided.
    pub fn plies(self) -> Option<u32> {
        match self {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        }
    }

    /// `win`, `draw` or `loss`.
    pub fn name(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Draw => "draw",
            Value::Loss(_) => "loss",
        }
    }

    /// The value one ply earlier, seen by the side that moved into a
    /// position of this value.
    pub fn parent(self) -> Value {
        match self {
            Value::Loss(d) => Value::Win(d + 1),
            Value::Win(d) => Value::Loss(d + 1),
            Value::Draw => Value::Draw,
        }
    }
}

/// Whether a code is a decided win (odd depth).
#[inline]
pub fn is_win(code: u16) -> bool {
    code != DRAW && code != UNUSED && code.is_multiple_of(2)
}

/// Whether a code is a decided loss (even depth).
#[inline]
pub fn is_loss(code: u16) -> bool {
    code != UNUSED && code % 2 == 1
}

/// How the codes of a table read: the pure game's plies, or the N-move
/// rule's distance to the next mill.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Encoding {
    /// `code = plies + 1`, 0 draw: the parity of the plies tells a win
    /// (odd) from a loss (even).
    Plies,
    /// The N-move rule with `N` plies (docs/RULES.md 5): `code = 2 Z + 1` for a
    /// loss and `2 Z + 2` for a win, where `Z` is the plies to the next mill
    /// or the end of the game under best play (a mill by the loser can come
    /// after an odd number of plies, so the parity of `Z` tells nothing);
    /// `Z = N + 1` marks a cursed win or a blessed loss: won or lost in the
    /// pure game, drawn at every counter. 0 is a draw.
    NMove(u16),
    /// The placing phase under the N-move rule: `2 d + 1` for a loss,
    /// `2 d + 2` for a win, `d` the plies to the first mill or end of the
    /// moving phase (whose positions are read at counter 0); no counter
    /// runs, so nothing is cursed.
    Signed,
}

impl Encoding {
    /// The encoding of the tables of `rules`, for the moving phase
    /// (`moving`) or the placing phase.
    pub fn of(rules: &crate::rules::Rules, moving: bool) -> Encoding {
        match rules.nmove {
            None => Encoding::Plies,
            Some(n) if moving => Encoding::NMove(n),
            Some(_) => Encoding::Signed,
        }
    }

    /// The code of a win (`win`) or loss at depth `d` (plies, or `Z`).
    #[inline]
    pub fn code_of(self, win: bool, d: u32) -> u16 {
        match self {
            Encoding::Plies => Value::code_of_depth(d),
            Encoding::NMove(_) | Encoding::Signed => {
                assert!(
                    2 * d + 2 < UNUSED as u32,
                    "depth {d} overflows the value code"
                );
                (2 * d + 1 + win as u32) as u16
            }
        }
    }

    /// The depth (plies, or `Z`) of a decided code.
    #[inline]
    pub fn depth(self, code: u16) -> u32 {
        match self {
            Encoding::Plies => code as u32 - 1,
            Encoding::NMove(_) | Encoding::Signed => (code as u32 - 1) / 2,
        }
    }

    /// The value of a code at counter 0 (a cursed win or blessed loss is a
    /// draw); `None` for [`UNUSED`].
    #[inline]
    pub fn value(self, code: u16) -> Option<Value> {
        match self {
            Encoding::Plies => Value::from_code(code),
            Encoding::NMove(_) | Encoding::Signed => match code {
                DRAW => Some(Value::Draw),
                UNUSED => None,
                c => {
                    let z = self.depth(c);
                    let limit = match self {
                        Encoding::NMove(n) => n as u32,
                        _ => u32::MAX,
                    };
                    Some(if z > limit {
                        Value::Draw
                    } else if is_win(c) {
                        Value::Win(z)
                    } else {
                        Value::Loss(z)
                    })
                }
            },
        }
    }

    /// The code of a value (`Z` for the N-move rule).
    #[inline]
    pub fn code(self, v: Value) -> u16 {
        match v {
            Value::Draw => DRAW,
            Value::Win(d) => self.code_of(true, d),
            Value::Loss(d) => self.code_of(false, d),
        }
    }

    /// Under the N-move rule, whether a code is a cursed win (`Some(true)`)
    /// or a blessed loss (`Some(false)`).
    #[inline]
    pub fn cursed(self, code: u16) -> Option<bool> {
        match self {
            Encoding::NMove(n) if code != DRAW && code != UNUSED && self.depth(code) > n as u32 => {
                Some(is_win(code))
            }
            _ => None,
        }
    }

    /// The code marking a cursed win (`true`) or blessed loss.
    pub fn cursed_code(self, win: bool) -> u16 {
        match self {
            Encoding::NMove(n) => self.code_of(win, n as u32 + 1),
            _ => panic!("only the N-move rule's moving phase has cursed wins"),
        }
    }

    /// The value for its mover of a move from a moving-phase position, seen
    /// from the child: `child` is the child's value at counter 0. Under
    /// the N-move rule a quiet move reaches the child at counter 1 (it is
    /// decided there only if its `Z` is at most `N - 1`) and a mill resets
    /// the counter, so only whether the child is decided matters (`Z` 0).
    #[inline]
    pub fn after_move(self, child: Value, mill: bool) -> Value {
        match self {
            Encoding::Plies | Encoding::Signed => child,
            Encoding::NMove(n) => match child {
                Value::Draw => Value::Draw,
                Value::Win(_) if mill => Value::Win(0),
                Value::Loss(_) if mill => Value::Loss(0),
                Value::Win(z) | Value::Loss(z) if z >= n as u32 => Value::Draw,
                v => v,
            },
        }
    }

    /// The number written in the table header (byte 21).
    pub fn id(self) -> u8 {
        match self {
            Encoding::Plies => 1,
            Encoding::NMove(_) => 2,
            Encoding::Signed => 3,
        }
    }

    /// The parameter written in the header (bytes 22-23): `N`, or 0.
    pub fn parameter(self) -> u16 {
        match self {
            Encoding::Plies | Encoding::Signed => 0,
            Encoding::NMove(n) => n,
        }
    }
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

impl From<Value> for Wdl {
    fn from(v: Value) -> Wdl {
        match v {
            Value::Win(_) => Wdl::Win,
            Value::Draw => Wdl::Draw,
            Value::Loss(_) => Wdl::Loss,
        }
    }
}

/// Win, draw or loss for the side to move, without the plies.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Wdl {
    /// The side to move wins.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The side to move loses.
    Loss,
}

impl Wdl {
    /// `"win"`, `"draw"` or `"loss"`.
    pub fn name(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }

    /// The value for the side that moved into this position.
    pub fn parent(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for v in [
            Value::Loss(0),
            Value::Win(1),
            Value::Loss(26),
            Value::Draw,
            Value::Win(203),
        ] {
            assert_eq!(Value::from_code(v.code()), Some(v));
        }
        assert!(is_loss(Value::Loss(0).code()) && !is_win(Value::Loss(0).code()));
        assert!(is_win(Value::Win(1).code()) && !is_loss(Value::Win(1).code()));
        assert!(!is_win(DRAW) && !is_loss(DRAW) && !is_win(UNUSED) && !is_loss(UNUSED));
        assert_eq!(Value::from_code(UNUSED), None);
        assert_eq!(Value::Loss(4).parent(), Value::Win(5));
    }

    #[test]
    fn nmove_codes_tell_wins_from_losses_whatever_the_parity() {
        let e = Encoding::NMove(10);
        for v in [
            Value::Loss(0),
            Value::Loss(1),
            Value::Win(1),
            Value::Win(2),
            Value::Draw,
        ] {
            assert_eq!(e.value(e.code(v)), Some(v));
            assert_eq!(e.cursed(e.code(v)), None);
        }
        let cursed = e.cursed_code(true);
        assert_eq!(
            (e.value(cursed), e.cursed(cursed)),
            (Some(Value::Draw), Some(true))
        );
        let blessed = e.cursed_code(false);
        assert_eq!(
            (e.value(blessed), e.cursed(blessed)),
            (Some(Value::Draw), Some(false))
        );
        assert_eq!(e.value(e.code_of(true, 10)), Some(Value::Win(10)));
        assert!(is_win(e.code(Value::Win(3))) && is_loss(e.code(Value::Loss(1))));
    }
}
