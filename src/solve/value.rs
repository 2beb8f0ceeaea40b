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

/// The depth of a decided code.
#[inline]
pub fn depth(code: u16) -> u32 {
    code as u32 - 1
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
}
