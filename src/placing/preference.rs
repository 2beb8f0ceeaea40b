//! The mover's preference among its children as one integer: the larger
//! the better, so that the best of a position's placements is a `max` over
//! an array, with no value decoded per child.

use crate::table::Table;
use crate::value::{UNUSED, Value};

/// No child yet (the identity of `max`), or a code without a preference:
/// an unused slot, or a depth too deep for the range below.
pub const NONE: u16 = 0;
/// A draw: losses lie below it (the slowest highest), wins above it (the
/// fastest highest).
const DRAW: u16 = 0x8000;
/// Depths from here on have no preference (no game comes near).
const TOO_DEEP: u32 = 0x7FFF;

/// The preference of `v`, the value of a move for its mover.
#[inline]
pub fn of_value(v: Value) -> u16 {
    match v {
        Value::Loss(d) if d < TOO_DEEP => d as u16 + 1,
        Value::Draw => DRAW,
        Value::Win(d) if d < TOO_DEEP => 0xFFFF - d as u16,
        _ => NONE,
    }
}

/// The value of a preference; `None` for [`NONE`].
#[inline]
pub fn value(p: u16) -> Option<Value> {
    match p {
        NONE => None,
        DRAW => Some(Value::Draw),
        p if p < DRAW => Some(Value::Loss(p as u32 - 1)),
        p => Some(Value::Win((0xFFFF - p) as u32)),
    }
}

/// Preferences of the moves into one child table, by the child's code.
pub struct Preferences {
    of_code: Vec<u16>,
}

impl Preferences {
    /// The preference of a move into each code of `table` (read at
    /// counter 0, as its own encoding says).
    pub fn of(table: &Table) -> Preferences {
        let encoding = table.encoding();
        let of_code = (0..=u16::MAX)
            .map(|c| match c {
                UNUSED => NONE,
                c => encoding.value(c).map_or(NONE, |v| of_value(v.parent())),
            })
            .collect();
        Preferences { of_code }
    }

    /// The preference of a move into a position of code `code`.
    #[inline]
    pub fn of_code(&self, code: u16) -> u16 {
        self.of_code[code as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::best_first;

    #[test]
    fn preferences_order_values_as_the_mover_does() {
        let values = [
            Value::Loss(0),
            Value::Loss(1),
            Value::Loss(40),
            Value::Loss(TOO_DEEP - 1),
            Value::Draw,
            Value::Win(1),
            Value::Win(2),
            Value::Win(301),
            Value::Win(TOO_DEEP - 1),
        ];
        for a in values {
            assert_eq!(value(of_value(a)), Some(a));
            for b in values {
                assert_eq!(
                    of_value(a).cmp(&of_value(b)),
                    best_first(&b).cmp(&best_first(&a)),
                    "{a:?} against {b:?}"
                );
            }
        }
        assert_eq!(of_value(Value::Win(TOO_DEEP)), NONE);
        assert_eq!(of_value(Value::Loss(TOO_DEEP)), NONE);
        assert_eq!(value(NONE), None);
    }
}
