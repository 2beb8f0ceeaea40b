//! A fixed-size, lock-free transposition table shared by the threads of
//! the opening search.
//!
//! Each slot is one `AtomicU64` holding a whole entry (the class key and its
//! bounds), so a reader sees either an old entry or a new one, never a mix,
//! and no lock is taken. The full key is stored: an entry is never used for
//! another class. When both slots of a bucket are taken, the entry with
//! fewer plies left in the placing phase (cheaper to search again) goes.

use std::sync::atomic::{AtomicU64, Ordering};

/// Bounds known for a class: the value lies in `lower..=upper`
/// (-1 loss, 0 draw, 1 win for the side to move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Lowest value the class may have.
    pub lower: i8,
    /// Highest value the class may have.
    pub upper: i8,
}

impl Bounds {
    /// Nothing known yet.
    pub const UNKNOWN: Bounds = Bounds {
        lower: -1,
        upper: 1,
    };

    /// The result of the null-window test below `beta` if these bounds
    /// already give it.
    pub fn decides(self, beta: i8) -> Option<i8> {
        if self.lower >= beta {
            Some(self.lower)
        } else if self.upper < beta {
            Some(self.upper)
        } else {
            None
        }
    }

    /// These bounds narrowed by `result` of the null-window test below
    /// `beta` (at or above it a lower bound, below it an upper bound).
    pub fn with_result(mut self, result: i8, beta: i8) -> Bounds {
        if result >= beta {
            self.lower = self.lower.max(result);
        } else {
            self.upper = self.upper.min(result);
        }
        self
    }
}

/// Keys use at most this many bits (the entry keeps 4 more for the bounds).
const KEY_BITS: u32 = 60;

/// The key of a position class: `stones` (below `2^52`) identifies the
/// stones on the board, then both hands (below 16 each) in the low byte,
/// where [`TranspositionTable::put`] reads the plies left.
pub fn class_key(stones: u64, mover_hand: u8, other_hand: u8) -> u64 {
    debug_assert!(stones >> (KEY_BITS - 8) == 0 && mover_hand < 16 && other_hand < 16);
    (stones << 8) | (mover_hand as u64) << 4 | other_hand as u64
}

/// The transposition table: `2^bits` slots of 8 bytes, in buckets of two.
pub struct TranspositionTable {
    slots: Box<[AtomicU64]>,
    mask: usize,
}

fn pack(key: u64, b: Bounds) -> u64 {
    (key << 4) | (((b.lower + 1) as u64) << 2) | (b.upper + 1) as u64
}

fn unpack(entry: u64) -> Bounds {
    Bounds {
        lower: ((entry >> 2) & 3) as i8 - 1,
        upper: (entry & 3) as i8 - 1,
    }
}

/// Plies left in the placing phase of an entry: both hands (see [`class_key`]).
fn plies_left(entry: u64) -> u64 {
    let hands = (entry >> 4) & 0xff;
    (hands >> 4) + (hands & 0xf)
}

impl TranspositionTable {
    /// A table of `2^bits` slots (`8 << bits` bytes; pages are only taken
    /// from the system as they are written).
    pub fn new(bits: u32) -> TranspositionTable {
        let n = 1usize << bits;
        let slots = Box::<[AtomicU64]>::new_zeroed_slice(n);
        // SAFETY: an all-zero AtomicU64 is a valid AtomicU64 (zero), and
        // new_zeroed_slice zeroed every byte of the n slots.
        let slots = unsafe { slots.assume_init() };
        TranspositionTable {
            slots,
            mask: (n - 1) & !1,
        }
    }

    fn bucket(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) as usize & self.mask
    }

    /// The bounds stored for `key` (made by [`class_key`]).
    pub fn get(&self, key: u64) -> Bounds {
        debug_assert!(key != 0 && key >> KEY_BITS == 0);
        let i = self.bucket(key);
        for slot in &self.slots[i..i + 2] {
            let e = slot.load(Ordering::Relaxed);
            if e >> 4 == key {
                return unpack(e);
            }
        }
        Bounds::UNKNOWN
    }

    /// Stores the bounds of `key` (made by [`class_key`]), replacing its old
    /// entry, or a free slot, or the entry of its bucket with fewer plies
    /// left.
    pub fn put(&self, key: u64, b: Bounds) {
        debug_assert!(key != 0 && key >> KEY_BITS == 0);
        let i = self.bucket(key);
        let new = pack(key, b);
        let (a, c) = (
            self.slots[i].load(Ordering::Relaxed),
            self.slots[i + 1].load(Ordering::Relaxed),
        );
        let j = if a >> 4 == key || a == 0 {
            i
        } else if c >> 4 == key || c == 0 || plies_left(c) <= plies_left(a) {
            i + 1
        } else {
            i
        };
        self.slots[j].store(new, Ordering::Relaxed);
    }

    /// Slots in use (a scan of the whole table).
    pub fn len(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.load(Ordering::Relaxed) != 0)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_replaces() {
        let tt = TranspositionTable::new(4);
        let key = |i: u64| class_key(i, 2, 1);
        assert_eq!(tt.get(key(5)), Bounds::UNKNOWN);
        let b = Bounds { lower: 0, upper: 1 };
        tt.put(key(5), b);
        assert_eq!(tt.get(key(5)), b);
        tt.put(key(5), Bounds { lower: 0, upper: 0 });
        assert_eq!(tt.get(key(5)), Bounds { lower: 0, upper: 0 });
        // Many keys in 16 slots: each one read back is what was stored
        // for it, never another key's bounds.
        for i in 1..200u64 {
            let b = Bounds {
                lower: -1 + (i % 2) as i8,
                upper: 1,
            };
            tt.put(key(i), b);
            assert_eq!(tt.get(key(i)), b);
        }
        assert!(tt.len() <= 16);
        for i in 1..200u64 {
            let got = tt.get(key(i));
            assert!(got == Bounds::UNKNOWN || got.lower == -1 + (i % 2) as i8);
        }
    }

    #[test]
    fn keeps_the_entry_with_more_plies_left() {
        let tt = TranspositionTable::new(1);
        let deep = class_key(1, 9, 9); // 18 plies left
        let b = Bounds { lower: 1, upper: 1 };
        tt.put(deep, b);
        for i in 2..50u64 {
            tt.put(class_key(i, 1, 0), Bounds::UNKNOWN);
        }
        assert_eq!(tt.get(deep), b);
    }
}
