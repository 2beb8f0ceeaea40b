//! Lookup tables of the indexer: binomials, set ranks, symmetry maps of
//! point sets, and the orbits of stone sets.

use crate::geometry::{Board, PointSet};

/// `BINOMIAL[n][k]` = C(n, k) for n, k <= 32.
pub static BINOMIAL: [[u64; 33]; 33] = {
    let mut t = [[0u64; 33]; 33];
    let mut n = 0;
    while n <= 32 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// C(n, k); 0 when k > n.
#[inline]
pub fn binomial(n: u32, k: u32) -> u64 {
    if k > n {
        0
    } else {
        BINOMIAL[n as usize][k as usize]
    }
}

/// `RANK_BYTES[k][j][v]`: the part of a colex rank contributed by byte `k`
/// of a set having value `v` when `j` elements lie below that byte.
static RANK_BYTES: [[[u32; 256]; 17]; 3] = {
    let mut t = [[[0u32; 256]; 17]; 3];
    let mut k = 0;
    while k < 3 {
        let mut j = 0;
        while j <= 8 * k {
            let mut v = 0;
            while v < 256 {
                let mut sum = 0u64;
                let mut i = j + 1;
                let mut bit = 0;
                while bit < 8 {
                    if v & (1 << bit) != 0 {
                        sum += BINOMIAL[8 * k + bit][i];
                        i += 1;
                    }
                    bit += 1;
                }
                t[k][j][v] = sum as u32;
                v += 1;
            }
            j += 1;
        }
        k += 1;
    }
    t
};

/// Bits of the low part of a set split for [`SPLIT_LOW`] and [`SPLIT_HIGH`].
pub const SPLIT_BITS: u32 = 12;
/// The low part's bits.
pub const SPLIT_MASK: u32 = (1 << SPLIT_BITS) - 1;

/// `SPLIT_LOW[v]`: the colex rank of the set `v` of points below
/// [`SPLIT_BITS`]: below `C(12, 6)`, so two bytes, which keeps the table
/// in the first-level cache beside the arrays it ranks into.
pub static SPLIT_LOW: [u16; 1 << SPLIT_BITS] = {
    let mut t = [0u16; 1 << SPLIT_BITS];
    let mut v = 0;
    while v < 1 << SPLIT_BITS {
        t[v] = split_terms(v as u32, 0, 0) as u16;
        v += 1;
    }
    t
};

/// `SPLIT_HIGH[j][v]`: the part of a colex rank contributed by the points
/// `SPLIT_BITS + b` for the bits `b` of `v`, when `j` elements of the set
/// lie below them. A set of up to 24 points of at most 13 elements is
/// `SPLIT_LOW[low] + SPLIT_HIGH[low's size][high]`.
pub static SPLIT_HIGH: [[u32; 1 << SPLIT_BITS]; 14] = {
    let mut t = [[0u32; 1 << SPLIT_BITS]; 14];
    let mut j = 0;
    while j < 14 {
        let mut v = 0;
        while v < 1 << SPLIT_BITS {
            t[j][v] = split_terms(v as u32, SPLIT_BITS as usize, j);
            v += 1;
        }
        j += 1;
    }
    t
};

/// The colex rank terms of the bits of `v` read as the points `offset + b`,
/// `below` elements of the set lying under them.
const fn split_terms(v: u32, offset: usize, below: usize) -> u32 {
    let mut sum = 0u64;
    let mut i = below + 1;
    let mut bit = 0;
    while bit < SPLIT_BITS as usize {
        if v & (1 << bit) != 0 {
            // Sets of more than 32 elements do not occur; their terms are 0.
            if i <= 32 {
                sum += BINOMIAL[offset + bit][i];
            }
            i += 1;
        }
        bit += 1;
    }
    sum as u32
}

/// Colex rank of a set (of at most 24 points) among the sets of its size.
#[inline]
pub fn colex_rank(s: PointSet) -> u64 {
    let v = s.0;
    let (b0, b1, b2) = (
        (v & 255) as usize,
        ((v >> 8) & 255) as usize,
        ((v >> 16) & 255) as usize,
    );
    let c0 = b0.count_ones() as usize;
    let c1 = c0 + b1.count_ones() as usize;
    (RANK_BYTES[0][0][b0] + RANK_BYTES[1][c0][b1] + RANK_BYTES[2][c1][b2]) as u64
}

/// The bits of `v` at the positions of `mask`, packed to the low end.
///
/// BMI2's `pext` where it is fast; on AMD processors before Zen 3 it is
/// microcoded (hundreds of cycles for a 24-point mask), so there (the cfg
/// `slow_bmi2`, set by the build script `build.rs`), and
/// without BMI2, byte tables do it.
#[inline]
pub fn pext(v: u32, mask: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2", not(slow_bmi2)))]
    {
        // SAFETY: the crate is compiled with BMI2 enabled (this cfg), so
        // the instruction exists on every processor this binary runs on.
        unsafe { core::arch::x86_64::_pext_u32(v, mask) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2", not(slow_bmi2))))]
    {
        pext_bytes(v, mask)
    }
}

/// [`pext`] by byte tables.
#[inline]
#[cfg_attr(
    not(any(test, slow_bmi2, not(target_feature = "bmi2"))),
    allow(dead_code)
)]
fn pext_bytes(v: u32, mask: u32) -> u32 {
    let t = &*BYTE_TABLES;
    let mut out = 0u32;
    let mut shift = 0;
    for k in 0..4 {
        let m = (mask >> (8 * k)) & 255;
        let x = (v >> (8 * k)) & 255;
        out |= (t.pext[(m << 8 | x) as usize] as u32) << shift;
        shift += m.count_ones();
    }
    out
}

/// The low bits of `v` spread to the positions of `mask` (inverse of
/// [`pext`]), by BMI2's `pdep` where it is fast, else by byte tables.
#[inline]
pub fn pdep(v: u32, mask: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2", not(slow_bmi2)))]
    {
        // SAFETY: as in `pext`, BMI2 is enabled for this compilation.
        unsafe { core::arch::x86_64::_pdep_u32(v, mask) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2", not(slow_bmi2))))]
    {
        pdep_bytes(v, mask)
    }
}

/// [`pdep`] by byte tables.
#[inline]
#[cfg_attr(
    not(any(test, slow_bmi2, not(target_feature = "bmi2"))),
    allow(dead_code)
)]
fn pdep_bytes(v: u32, mask: u32) -> u32 {
    let t = &*BYTE_TABLES;
    let mut out = 0u32;
    let mut rest = v;
    for k in 0..4 {
        let m = (mask >> (8 * k)) & 255;
        out |= (t.pdep[(m << 8 | (rest & 255)) as usize] as u32) << (8 * k);
        rest = rest.checked_shr(m.count_ones()).unwrap_or(0);
    }
    out
}

/// `pext` and `pdep` of one byte under one byte mask: index `mask << 8 | v`.
#[cfg_attr(
    not(any(test, slow_bmi2, not(target_feature = "bmi2"))),
    allow(dead_code)
)]
struct ByteTables {
    pext: Vec<u8>,
    pdep: Vec<u8>,
}

#[cfg_attr(
    not(any(test, slow_bmi2, not(target_feature = "bmi2"))),
    allow(dead_code)
)]
static BYTE_TABLES: std::sync::LazyLock<ByteTables> = std::sync::LazyLock::new(|| {
    let mut pext = vec![0u8; 1 << 16];
    let mut pdep = vec![0u8; 1 << 16];
    for m in 0..256u32 {
        for v in 0..256u32 {
            let (mut packed, mut spread, mut i) = (0u32, 0u32, 0);
            for bit in 0..8 {
                if m & (1 << bit) != 0 {
                    if v & (1 << bit) != 0 {
                        packed |= 1 << i;
                    }
                    if v & (1 << i) != 0 {
                        spread |= 1 << bit;
                    }
                    i += 1;
                }
            }
            pext[(m << 8 | v) as usize] = packed as u8;
            pdep[(m << 8 | v) as usize] = spread as u8;
        }
    }
    ByteTables { pext, pdep }
});

/// Tables to unrank byte by byte: sets of one size in colex order are in
/// numeric order, so all sets sharing their high byte form one block of
/// ranks, starting at the rank of that byte over the lowest possible rest.
struct UnrankTables {
    /// `high[k]`: the blocks of byte 2 of a `k`-set.
    high: Vec<Blocks>,
    /// `mid[k]`: the blocks of byte 1 of a `k`-set of the low 16 points.
    mid: Vec<Blocks>,
    /// `low[k]`: the bytes with `k` bits, in numeric (= colex) order.
    low: Vec<Vec<u8>>,
}

/// (first rank, byte) of each block, by rank, with a coarse index into
/// them: `hint[r >> shift]` is the block holding rank `r` or one before it,
/// so a lookup is a table read and a step or two instead of a binary search.
struct Blocks {
    blocks: Vec<(u32, u8)>,
    shift: u32,
    hint: Vec<u16>,
}

impl Blocks {
    fn new(blocks: Vec<(u32, u8)>, total: u64) -> Blocks {
        let bits = 64 - total.leading_zeros();
        let shift = bits.saturating_sub(10);
        let hint = (0..=(total >> shift))
            .map(|b| {
                let r = (b << shift) as u32;
                (blocks.partition_point(|e| e.0 <= r).max(1) - 1) as u16
            })
            .collect();
        Blocks {
            blocks,
            shift,
            hint,
        }
    }

    /// The block holding rank `r`.
    #[inline]
    fn find(&self, r: u32) -> (u32, u8) {
        let mut i = self.hint[(r >> self.shift) as usize] as usize;
        while i + 1 < self.blocks.len() && self.blocks[i + 1].0 <= r {
            i += 1;
        }
        self.blocks[i]
    }
}

static UNRANK: std::sync::LazyLock<UnrankTables> = std::sync::LazyLock::new(|| {
    let blocks = |byte: usize, below: u32, k: u32| -> Vec<(u32, u8)> {
        (0..256u32)
            .filter(|v| v.count_ones() <= k && k - v.count_ones() <= below)
            .map(|v| {
                (
                    RANK_BYTES[byte][(k - v.count_ones()) as usize][v as usize],
                    v as u8,
                )
            })
            .collect()
    };
    UnrankTables {
        high: (0..=24)
            .map(|k| Blocks::new(blocks(2, 16, k), BINOMIAL[24][k as usize]))
            .collect(),
        mid: (0..=16)
            .map(|k| Blocks::new(blocks(1, 8, k), BINOMIAL[16][k as usize]))
            .collect(),
        low: (0..=8)
            .map(|k| (0..=255u8).filter(|v| v.count_ones() == k).collect())
            .collect(),
    }
});

/// The `k`-set (of at most 24 points) with colex rank `rank`.
#[inline]
pub fn colex_unrank(k: u32, rank: u64) -> PointSet {
    let t = &*UNRANK;
    let mut r = rank as u32;
    let (h2, b2) = t.high[k as usize].find(r);
    r -= h2;
    let k1 = k - b2.count_ones();
    let (h1, b1) = t.mid[k1 as usize].find(r);
    r -= h1;
    let b0 = t.low[(k1 - b1.count_ones()) as usize][r as usize];
    PointSet(b0 as u32 | (b1 as u32) << 8 | (b2 as u32) << 16)
}

/// Each symmetry applied to a point set byte by byte.
pub struct SymTables {
    /// `bytes[s][k][v]`: image under symmetry `s` of byte `k` having value `v`.
    bytes: Vec<[[u32; 256]; 3]>,
    /// `inverse[s]`: the number of the symmetry undoing symmetry `s`.
    inverse: Vec<usize>,
}

impl SymTables {
    pub fn new(board: &Board) -> SymTables {
        let bytes = board
            .symmetries
            .iter()
            .map(|s| {
                let mut t = [[0u32; 256]; 3];
                for (k, tk) in t.iter_mut().enumerate() {
                    for (v, out) in tk.iter_mut().enumerate() {
                        *out = s
                            .apply_set(PointSet(((v as u32) << (8 * k)) & board.all.0))
                            .0;
                    }
                }
                t
            })
            .collect();
        let syms = &board.symmetries;
        let inverse = syms
            .iter()
            .map(|s| {
                syms.iter()
                    .position(|t| {
                        (0..board.size as usize).all(|p| t.map[s.map[p] as usize] as usize == p)
                    })
                    .expect("the symmetries form a group")
            })
            .collect();
        SymTables { bytes, inverse }
    }

    /// The number of the symmetry undoing symmetry `sym`.
    pub fn inverse(&self, sym: usize) -> usize {
        self.inverse[sym]
    }

    /// The image of `s` under symmetry `sym`.
    #[inline]
    pub fn apply(&self, sym: usize, s: PointSet) -> PointSet {
        let t = &self.bytes[sym];
        let v = s.0;
        PointSet(
            t[0][(v & 255) as usize]
                | t[1][((v >> 8) & 255) as usize]
                | t[2][(v >> 16) as usize & 255],
        )
    }

    pub fn count(&self) -> usize {
        self.bytes.len()
    }

    pub fn memory_bytes(&self) -> usize {
        self.bytes.len() * std::mem::size_of::<[[u32; 256]; 3]>()
    }
}

/// The orbits of the `w`-sets of points under the symmetries.
pub struct OrbitTable {
    /// Per set (by colex rank): orbit number << 4 | symmetry to the representative.
    pub entry: Vec<u32>,
    /// Representative (the numerically smallest image) of each orbit.
    pub reps: Vec<PointSet>,
    /// Per orbit: the symmetries other than the identity that fix the representative.
    pub stabiliser: Vec<u16>,
}

impl OrbitTable {
    pub fn build(board: &Board, syms: &SymTables, stones: u8) -> OrbitTable {
        assert!(syms.count() <= 16, "symmetry numbers must fit in 4 bits");
        let n = binomial(board.size as u32, stones as u32) as usize;
        const UNSEEN: u32 = u32::MAX;
        let mut entry = vec![UNSEEN; n];
        let mut reps = Vec::new();
        let mut stabiliser = Vec::new();
        // Sets of one size in colex order are in numeric order, so the first
        // set met of each orbit is its smallest member, the representative;
        // its images then get their entries at once (a symmetry per orbit
        // member, not one per member and symmetry).
        let mut s = colex_unrank(stones as u32, 0);
        for r in 0..n {
            debug_assert_eq!(colex_rank(s) as usize, r);
            if entry[r] == UNSEEN {
                let orbit = reps.len() as u32;
                let mut stab = 0u16;
                for g in 0..syms.count() {
                    let img = syms.apply(g, s);
                    if img == s {
                        stab |= ((g > 0) as u16) << g;
                    }
                    let k = colex_rank(img) as usize;
                    if entry[k] == UNSEEN {
                        entry[k] = orbit << 4 | syms.inverse(g) as u32;
                    }
                }
                reps.push(s);
                stabiliser.push(stab);
            }
            if r + 1 < n {
                s = next_same_size(s);
            }
        }
        OrbitTable {
            entry,
            reps,
            stabiliser,
        }
    }

    pub fn memory_bytes(&self) -> usize {
        self.entry.len() * 4 + self.reps.len() * 6
    }
}

/// The next larger integer with the same number of set bits (Gosper's hack).
#[inline]
pub fn next_same_size(s: PointSet) -> PointSet {
    let v = s.0;
    if v == 0 {
        return s;
    }
    let c = v & v.wrapping_neg();
    let r = v + c;
    PointSet((((r ^ v) >> 2) / c) | r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_tables_agree_with_bit_by_bit_pext_and_pdep() {
        let naive_pext = |v: u32, m: u32| {
            let (mut out, mut i) = (0, 0);
            for bit in 0..32 {
                if m >> bit & 1 == 1 {
                    out |= (v >> bit & 1) << i;
                    i += 1;
                }
            }
            out
        };
        let naive_pdep = |v: u32, m: u32| {
            let (mut out, mut i) = (0, 0);
            for bit in 0..32 {
                if m >> bit & 1 == 1 {
                    out |= (v >> i & 1) << bit;
                    i += 1;
                }
            }
            out
        };
        let mut x = 0x1234_5678_9abc_def1u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (v, m) = (x as u32, (x >> 32) as u32);
            assert_eq!(pext_bytes(v, m), naive_pext(v, m), "pext {v:#x} {m:#x}");
            assert_eq!(pdep_bytes(v, m), naive_pdep(v, m), "pdep {v:#x} {m:#x}");
            assert_eq!(pext(v, m), naive_pext(v, m));
            assert_eq!(pdep(v, m), naive_pdep(v, m));
        }
    }

    #[test]
    fn colex_rank_and_unrank_are_inverse_on_every_set() {
        let mut next_rank = [0u64; 25];
        for v in 0u32..1 << 24 {
            let k = v.count_ones() as usize;
            // Numeric order within a size is colex order.
            assert_eq!(colex_rank(PointSet(v)), next_rank[k]);
            if v % 7 == 0 || k <= 3 {
                assert_eq!(colex_unrank(k as u32, next_rank[k]), PointSet(v));
            }
            next_rank[k] += 1;
        }
        for (k, &n) in next_rank.iter().enumerate() {
            assert_eq!(n, binomial(24, k as u32));
        }
    }
}
