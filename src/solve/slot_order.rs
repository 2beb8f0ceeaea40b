//! Putting a level's decided slots in slot order.
//!
//! Propagation reads a level's sources in slot order (their codes in one
//! sweep, consecutive sources sharing their orbit block). A comparison sort
//! of a list that holds a good share of a subspace costs `n log n`; marking
//! the slots in a bitmap and reading it back in order costs a pass over the
//! list and one over the bitmap: about as much for a list of a hundredth of
//! the slots, 2 to 4 times less from a thirtieth up.

use crate::memory::huge_vec_par;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Lists with at least one slot in this many of the subspace take the bitmap.
const DENSE: u64 = 64;

/// Words of the bitmap read back by one task.
const TASK_WORDS: usize = 1 << 14;

/// A bitmap of one bit per slot, all clear between calls, made on first need.
#[derive(Default)]
pub(super) struct SlotOrder {
    bits: Vec<AtomicU64>,
}

impl SlotOrder {
    /// Sorts `slots`, which are distinct and below `universe`.
    ///
    /// # Panics
    /// If a slot is listed twice: each slot joins a level's list once, and a
    /// repeat would notify its predecessors twice.
    pub(super) fn sort(&mut self, slots: &mut [u32], universe: u64) {
        if (slots.len() as u64).saturating_mul(DENSE) < universe {
            slots.par_sort_unstable();
            return;
        }
        let words = (universe as usize).div_ceil(64);
        if self.bits.len() < words {
            self.bits = huge_vec_par(words, || AtomicU64::new(0));
        }
        let bits = &self.bits[..words];
        slots.par_chunks(1 << 14).for_each(|chunk| {
            for &s in chunk {
                bits[(s >> 6) as usize].fetch_or(1 << (s & 63), Relaxed);
            }
        });
        let counts: Vec<usize> = bits
            .par_chunks(TASK_WORDS)
            .map(|ws| {
                ws.iter()
                    .map(|w| w.load(Relaxed).count_ones() as usize)
                    .sum()
            })
            .collect();
        assert_eq!(
            counts.iter().sum::<usize>(),
            slots.len(),
            "a slot listed twice among one level's decided positions"
        );
        let mut pieces = Vec::with_capacity(counts.len());
        let mut rest = slots;
        for &c in &counts {
            let (piece, after) = std::mem::take(&mut rest).split_at_mut(c);
            pieces.push(piece);
            rest = after;
        }
        // Reading a word back clears it for the next call.
        bits.par_chunks(TASK_WORDS)
            .zip(pieces)
            .enumerate()
            .for_each(|(k, (ws, out))| {
                let mut n = 0;
                for (j, w) in ws.iter().enumerate() {
                    let mut v = w.swap(0, Relaxed);
                    let base = ((k * TASK_WORDS + j) as u32) << 6;
                    while v != 0 {
                        out[n] = base + v.trailing_zeros();
                        n += 1;
                        v &= v - 1;
                    }
                }
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct pseudo-random slots below `universe`, in no order.
    fn scattered(universe: u64, one_in: u64, seed: u64) -> Vec<u32> {
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut v: Vec<u32> = (0..universe as u32)
            .filter(|_| next() % one_in == 0)
            .collect();
        for i in (1..v.len()).rev() {
            let j = (next() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
        v
    }

    #[test]
    fn dense_and_sparse_lists_come_out_sorted_and_the_bitmap_clear() {
        let mut order = SlotOrder::default();
        for (universe, one_in, seed) in [
            (1_000_003, 3, 1),
            (1_000_003, 1000, 2),
            (70_000, 1, 3),
            (64 * TASK_WORDS as u64 * 3 + 5, 2, 4),
            (130, 1, 5),
            (1, 1, 6),
        ] {
            let mut v = scattered(universe, one_in, seed);
            let mut expected = v.clone();
            expected.sort_unstable();
            order.sort(&mut v, universe);
            assert_eq!(v, expected, "universe {universe}, one in {one_in}");
            assert!(order.bits.iter().all(|w| w.load(Relaxed) == 0));
        }
    }

    #[test]
    #[should_panic(expected = "listed twice")]
    fn a_repeated_slot_is_a_bug_to_stop_at() {
        let mut v: Vec<u32> = (0..100).chain([7]).collect();
        SlotOrder::default().sort(&mut v, 100);
    }
}
