//! The perfect hash: every position of a stone-count subspace to one slot,
//! the same slot for all symmetric images.
//!
//! Gasser's scheme. The stones of the side to move (`us` of them) are
//! brought to the smallest of their symmetric images (the orbit
//! representative, numbered among all orbits of `us`-sets); the same map is
//! applied to the other side's stones (`them` of them), which are then
//! ranked among the `n - us` points the representative leaves free (`n` the
//! board's points: 24, 16 or 9):
//!
//! `slot = orbit(us stones) * C(n - us, them) + rank(them stones among free points)`.
//!
//! When the representative is fixed by some symmetries (its stabiliser),
//! several slots stand for one class; the class takes the smallest of their
//! ranks and the other slots are unused ([`SubspaceIndex::is_canonical`]).

#[cfg(feature = "tables")]
pub mod check;
mod subspace;
mod tables;

pub use subspace::{Subspace, all_subspaces, child_subspaces, moving_subspaces, placing_subspaces};
pub use tables::{binomial, colex_rank};

use crate::geometry::{Board, PointSet};
use crate::memory::prefetch;
use std::sync::{Arc, OnceLock};
use tables::{OrbitTable, SymTables, colex_unrank, pdep, pext};

/// Symmetry tables and per-stone-count orbit tables of one board; the
/// orbit tables are built on first use and shared by every subspace.
pub struct Indexer {
    board: &'static Board,
    syms: SymTables,
    orbits: Vec<OnceLock<Arc<OrbitTable>>>,
}

static INDEXERS: [OnceLock<Indexer>; Board::NAMES.len()] =
    [const { OnceLock::new() }; Board::NAMES.len()];

impl Indexer {
    /// The indexer of `board`, made on first use and shared.
    pub fn for_board(board: &'static Board) -> &'static Indexer {
        let i = Board::NAMES
            .iter()
            .position(|n| *n == board.name)
            .expect("every board has a name in Board::NAMES");
        INDEXERS[i].get_or_init(|| Indexer::new(board))
    }

    fn new(board: &'static Board) -> Indexer {
        Indexer {
            board,
            syms: SymTables::new(board),
            orbits: (0..=board.size).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The board.
    pub fn board(&self) -> &'static Board {
        self.board
    }

    /// The orbit table of `stones`-stone sets.
    fn orbit_table(&self, stones: u8) -> &Arc<OrbitTable> {
        self.orbits[stones as usize]
            .get_or_init(|| Arc::new(OrbitTable::build(self.board, &self.syms, stones)))
    }

    /// Number of orbits of `stones`-stone sets under the symmetries.
    pub fn orbit_count(&self, stones: u8) -> u64 {
        self.orbit_table(stones).reps.len() as u64
    }

    /// The index of the positions with `us` stones on the board for the
    /// side to move and `them` for the other.
    pub fn subspace(&self, us: u8, them: u8) -> SubspaceIndex<'_> {
        assert!(us as u32 + them as u32 <= self.board.size as u32);
        let n_free = self.board.size - us;
        SubspaceIndex {
            indexer: self,
            orbits: self.orbit_table(us).clone(),
            us,
            them,
            block: binomial(n_free as u32, them as u32),
        }
    }

    /// The image of a point set under symmetry number `sym` of the board.
    #[inline]
    pub fn apply_symmetry(&self, sym: usize, s: PointSet) -> PointSet {
        self.syms.apply(sym, s)
    }

    /// Bytes held by the built lookup tables.
    pub fn memory_bytes(&self) -> usize {
        self.syms.memory_bytes()
            + self
                .orbits
                .iter()
                .filter_map(|o| o.get())
                .map(|t| t.memory_bytes())
                .sum::<usize>()
    }
}

/// The slots of one subspace (`us` stones for the side to move, `them` for
/// the other side).
#[derive(Clone)]
pub struct SubspaceIndex<'a> {
    indexer: &'a Indexer,
    orbits: Arc<OrbitTable>,
    us: u8,
    them: u8,
    /// Slots per orbit: `C(n - us, them)`.
    block: u64,
}

/// The side to move's stones brought to their orbit representative: what
/// all positions sharing these stones have in common.
#[derive(Clone, Copy, Debug)]
pub struct PreparedSide {
    /// First slot of the orbit's block.
    pub base: u64,
    /// Index of the symmetry that maps the stones to the representative.
    pub sym: u8,
    /// The representative.
    pub rep: PointSet,
    /// Symmetries (other than the identity) fixing the representative.
    pub stabiliser: u16,
}

/// A stone set with its images under the board's symmetries, each found
/// when first asked for ([`SubspaceIndex::slot_with_images`]).
pub struct Images {
    set: PointSet,
    /// The symmetries whose image is in `image`, as bits.
    known: u16,
    image: [PointSet; 16],
}

impl Images {
    pub fn new(set: PointSet) -> Images {
        Images {
            set,
            known: 0,
            image: [PointSet(0); 16],
        }
    }
}

/// Most stones one side has on any board (twelve men's morris).
const MAX_SIDE: usize = 12;

/// Colex ranks of a set packed onto some free points, with one free point
/// more: the ranks of all one-stone-larger sets at one table read each.
///
/// The set is split into its low 12 bits and the rest: a colex rank is the
/// low part's own rank plus the high part's terms, which depend only on
/// how many elements lie below them (tables `SPLIT_LOW` and
/// `SPLIT_HIGH`). Adding a point changes one part, so each
/// rank is the other part's term, found once per set, plus one read.
#[derive(Clone, Copy)]
pub struct OneMore {
    low: u32,
    high: u32,
    /// Elements in the low part.
    below: u32,
    /// The low part's term, for a point added above it.
    low_term: u32,
    /// The high part's term with one more element below it, for a point
    /// added in the low part.
    high_term: u32,
}

impl OneMore {
    /// Prepares the ranks of `packed` (at most 12 elements) with one more.
    #[inline]
    pub fn new(packed: u32) -> OneMore {
        debug_assert!(packed.count_ones() as usize <= MAX_SIDE);
        let low = packed & tables::SPLIT_MASK;
        let high = packed >> tables::SPLIT_BITS;
        let below = low.count_ones();
        OneMore {
            low,
            high,
            below,
            low_term: tables::SPLIT_LOW[low as usize] as u32,
            high_term: tables::SPLIT_HIGH[below as usize + 1][high as usize],
        }
    }

    /// The colex rank of the set with position `q` (not in it) added.
    #[inline]
    pub fn rank(&self, q: u32) -> u64 {
        (if q < tables::SPLIT_BITS {
            tables::SPLIT_LOW[(self.low | 1 << q) as usize] as u32 + self.high_term
        } else {
            self.low_term
                + tables::SPLIT_HIGH[self.below as usize]
                    [(self.high | 1 << (q - tables::SPLIT_BITS)) as usize]
        }) as u64
    }

    /// Calls `f` with [`Self::rank`] of every position of `add` (none in
    /// the set), the low part's first. Two loops without a branch on the
    /// part: which part a point falls in is as good as random, and each
    /// wrong guess cost the reads in flight.
    #[inline]
    pub fn for_each_rank(&self, add: u32, mut f: impl FnMut(u64)) {
        let mut low = add & tables::SPLIT_MASK;
        while low != 0 {
            let bit = low & low.wrapping_neg();
            f((tables::SPLIT_LOW[(self.low | bit) as usize] as u32 + self.high_term) as u64);
            low ^= bit;
        }
        let high_row = &tables::SPLIT_HIGH[self.below as usize];
        let mut high = add >> tables::SPLIT_BITS;
        while high != 0 {
            let bit = high & high.wrapping_neg();
            f((self.low_term + high_row[(self.high | bit) as usize]) as u64);
            high ^= bit;
        }
    }
}

/// The points of `set` that lie in `free`, packed to the low bits in the
/// order of `free`: the coordinates in which an orbit block ranks the other
/// side's stones.
#[inline]
pub fn pack(set: PointSet, free: PointSet) -> u32 {
    pext(set.0, free.0)
}

/// Slots of `(side, stones + p)` for one prepared side and stone set, by
/// the added point `p` ([`SubspaceIndex::with_added`]).
struct AddedStone<'a> {
    base: u64,
    /// Points the representative leaves free.
    free: u32,
    /// The symmetry to the representative, point by point.
    map: &'a [u8; crate::geometry::MAX_POINTS],
    /// The stones' image, packed onto the free points, with one more.
    ranks: OneMore,
}

impl AddedStone<'_> {
    /// The slot with the stone at `p` added (`p` free of both sides).
    #[inline]
    fn slot(&self, p: crate::geometry::Point) -> u64 {
        let x = self.map[p.index()] as u32;
        let q = (self.free & ((1u32 << x) - 1)).count_ones();
        self.base + self.ranks.rank(q)
    }
}

/// The slots of the children of one position's placements
/// ([`SubspaceIndex::placements`]).
pub struct Placements<'s> {
    index: &'s SubspaceIndex<'s>,
    side: PreparedSide,
    stones: PointSet,
    /// `None` when a symmetry fixes the side's representative.
    added: Option<AddedStone<'s>>,
}

impl Placements<'_> {
    /// The slot of `(side, after)`, `after` the stones with one placed.
    #[inline]
    pub fn slot(&self, after: PointSet) -> u64 {
        match &self.added {
            Some(a) => a.slot(crate::geometry::Point::new_unchecked(
                after.minus(self.stones).0.trailing_zeros() as u8,
            )),
            None => self.index.slot_with(&self.side, after),
        }
    }
}

impl SubspaceIndex<'_> {
    /// Stones of the side to move.
    pub fn us(&self) -> u8 {
        self.us
    }

    /// Stones of the other side.
    pub fn them(&self) -> u8 {
        self.them
    }

    /// Number of slots (orbits times the block size).
    pub fn slots(&self) -> u64 {
        self.orbits.reps.len() as u64 * self.block
    }

    /// Slots per orbit block.
    pub fn block_size(&self) -> u64 {
        self.block
    }

    /// Canonicalises the side to move's stones once, for many slots.
    #[inline]
    pub fn prepare(&self, us: PointSet) -> PreparedSide {
        self.prepare_ranked(self.side_rank(us))
    }

    /// The rank of the side to move's stones, by which
    /// [`Self::prepare_ranked`] finds their orbit, with that entry asked
    /// into cache: a caller that ranks many sides first and prepares them
    /// after waits for memory once, not at each.
    #[inline]
    pub fn side_rank(&self, us: PointSet) -> u32 {
        debug_assert_eq!(us.len(), self.us as u32);
        let rank = colex_rank(us) as u32;
        prefetch(&self.orbits.entry[rank as usize]);
        rank
    }

    /// [`Self::prepare`] of the stones of rank `rank` ([`Self::side_rank`]).
    #[inline]
    pub fn prepare_ranked(&self, rank: u32) -> PreparedSide {
        let e = self.orbits.entry[rank as usize];
        let orbit = e >> 4;
        PreparedSide {
            base: orbit as u64 * self.block,
            sym: (e & 15) as u8,
            rep: self.orbits.reps[orbit as usize],
            stabiliser: self.orbits.stabiliser[orbit as usize],
        }
    }

    /// The slot of the position `(us, them)` for prepared `us`.
    #[inline]
    pub fn slot_with(&self, side: &PreparedSide, them: PointSet) -> u64 {
        debug_assert_eq!(them.len(), self.them as u32);
        self.slot_of_image(side, self.indexer.syms.apply(side.sym as usize, them))
    }

    /// [`Self::slot_with`] for a set whose images are cached in `them`: the
    /// many positions that share the other side's stones (the predecessors
    /// of one position) need each image once.
    #[inline]
    pub fn slot_with_images(&self, side: &PreparedSide, them: &mut Images) -> u64 {
        debug_assert_eq!(them.set.len(), self.them as u32);
        let sym = side.sym as usize;
        let t = if them.known & (1 << sym) != 0 {
            them.image[sym]
        } else {
            let t = self.indexer.syms.apply(sym, them.set);
            them.image[sym] = t;
            them.known |= 1 << sym;
            t
        };
        self.slot_of_image(side, t)
    }

    /// The slot of the class of `(side's stones, them)` from `t`, the
    /// image of `them` under the symmetry that brings the side's stones
    /// to their representative.
    #[inline]
    fn slot_of_image(&self, side: &PreparedSide, t: PointSet) -> u64 {
        let syms = &self.indexer.syms;
        let mut rank = free_rank(side.rep, t);
        let mut stab = side.stabiliser;
        while stab != 0 {
            let s = stab.trailing_zeros() as usize;
            stab &= stab - 1;
            rank = rank.min(free_rank(side.rep, syms.apply(s, t)));
        }
        side.base + rank
    }

    /// The rank within `side`'s orbit block of the image of `them`, before
    /// the class takes the smallest of its ranks: the slot is `side.base`
    /// plus this when no symmetry fixes the representative, and otherwise
    /// a slot of the same class.
    #[inline]
    pub fn image_rank(&self, side: &PreparedSide, them: PointSet) -> u64 {
        free_rank(side.rep, self.indexer.syms.apply(side.sym as usize, them))
    }

    /// The slots of the positions `(side, stones + p)`, `p` a point free of
    /// both: the children of the other side's placements, `side` to move.
    /// Each is found from rank terms prepared once where it can be.
    #[inline]
    pub fn placements<'s>(&'s self, side: &PreparedSide, stones: PointSet) -> Placements<'s> {
        Placements {
            index: self,
            side: *side,
            stones,
            added: self.with_added(side, stones),
        }
    }

    /// Prepares the slots of the positions `(side, stones + p)` for the
    /// points `p` free of both: the children of the other side's placements
    /// with `side` to move, each then found without ranking a whole set.
    /// `None` when symmetries fix `side`'s representative (then the class
    /// takes the smallest of several ranks: use [`Self::slot_with`]).
    #[inline]
    fn with_added(&self, side: &PreparedSide, stones: PointSet) -> Option<AddedStone<'_>> {
        debug_assert_eq!(stones.len() + 1, self.them as u32);
        if side.stabiliser != 0 {
            return None;
        }
        let free = self.indexer.board.all.minus(side.rep).0;
        let packed = pext(self.indexer.syms.apply(side.sym as usize, stones).0, free);
        Some(AddedStone {
            base: side.base,
            free,
            map: &self.indexer.board.symmetries[side.sym as usize].map,
            ranks: OneMore::new(packed),
        })
    }

    /// The slot of the position where the side to move has `us` and the
    /// other side `them`.
    #[inline]
    pub fn slot(&self, us: PointSet, them: PointSet) -> u64 {
        self.slot_with(&self.prepare(us), them)
    }

    /// The canonical position `(us, them)` of a slot; `None` past the end.
    /// For an unused slot this is a position whose own slot is smaller.
    pub fn position(&self, slot: u64) -> Option<(PointSet, PointSet)> {
        if slot >= self.slots() {
            return None;
        }
        let us = self.orbits.reps[(slot / self.block) as usize];
        Some((us, self.other_side(us, slot)))
    }

    /// The other side's stones in `slot`, whose side to move has `us`, the
    /// representative of the slot's orbit ([`Self::orbit_rep`]).
    #[inline]
    pub fn other_side(&self, us: PointSet, slot: u64) -> PointSet {
        debug_assert_eq!(us, self.orbits.reps[(slot / self.block) as usize]);
        free_unrank(
            self.indexer.board.all,
            us,
            self.them as u32,
            slot % self.block,
        )
    }

    /// The representative of orbit `orbit` and its stabiliser (the
    /// symmetries other than the identity that fix it, as bits).
    pub fn orbit_rep(&self, orbit: u64) -> (PointSet, u16) {
        (
            self.orbits.reps[orbit as usize],
            self.orbits.stabiliser[orbit as usize],
        )
    }

    /// Number of orbits of the side to move's stones (blocks of slots).
    pub fn orbits(&self) -> u64 {
        self.orbits.reps.len() as u64
    }

    /// Calls `f(slot, us, them, canonical)` for every slot of orbit block
    /// `orbit`, in slot order, without unranking each slot.
    #[inline]
    pub fn for_each_in_block(&self, orbit: u64, mut f: impl FnMut(u64, PointSet, PointSet, bool)) {
        let us = self.orbits.reps[orbit as usize];
        let stab = self.orbits.stabiliser[orbit as usize];
        let free = self.indexer.board.all.minus(us);
        let base = orbit * self.block;
        let mut packed = (1u32 << self.them) - 1;
        for rank in 0..self.block {
            let them = PointSet(pdep(packed, free.0));
            let slot = base + rank;
            let canonical = stab == 0 || {
                let side = PreparedSide {
                    base,
                    sym: 0,
                    rep: us,
                    stabiliser: stab,
                };
                self.slot_with(&side, them) == slot
            };
            f(slot, us, them, canonical);
            packed = tables::next_same_size(PointSet(packed)).0;
        }
    }

    /// Whether the slot stands for a class (is not an unused duplicate).
    pub fn is_canonical(&self, slot: u64) -> bool {
        match self.position(slot) {
            Some((us, them)) => self.slot(us, them) == slot,
            None => false,
        }
    }

    /// Number of symmetry classes of positions: the used slots. Counted by
    /// Burnside's lemma over each orbit's stabiliser, without enumeration.
    pub fn class_count(&self) -> u64 {
        let syms = &self.indexer.board.symmetries;
        let n = self.indexer.board.size as u32;
        let mut total = 0u64;
        for (rep, &stab) in self.orbits.reps.iter().zip(&self.orbits.stabiliser) {
            if stab == 0 {
                total += self.block;
                continue;
            }
            let free = PointSet::first(n as u8).minus(*rep);
            let mut fixed = self.block; // the identity
            let mut group = 1u64;
            let mut s = stab;
            while s != 0 {
                let g = s.trailing_zeros() as usize;
                s &= s - 1;
                group += 1;
                fixed += fixed_subsets(&syms[g].map, free, self.them as usize);
            }
            total += fixed / group;
        }
        total
    }
}

/// Number of `k`-subsets of `free` fixed by the permutation `map` (which
/// maps `free` to itself): unions of whole cycles with `k` points in all.
fn fixed_subsets(map: &[u8], free: PointSet, k: usize) -> u64 {
    let mut seen = PointSet::EMPTY;
    let mut ways = vec![0u64; k + 1];
    ways[0] = 1;
    for p in free {
        if seen.contains(p) {
            continue;
        }
        let mut len = 0;
        let mut q = p;
        while !seen.contains(q) {
            seen = seen.with(q);
            len += 1;
            q = crate::geometry::Point::new_unchecked(map[q.index()]);
        }
        for j in (len..=k).rev() {
            ways[j] += ways[j - len];
        }
    }
    ways[k]
}

/// Colex rank of `them` among the points not in `us`.
#[inline]
fn free_rank(us: PointSet, them: PointSet) -> u64 {
    colex_rank(PointSet(pext(them.0, !us.0)))
}

/// The `k`-set among the points of `all` not in `us` with colex rank `rank`.
#[inline]
fn free_unrank(all: PointSet, us: PointSet, k: u32, rank: u64) -> PointSet {
    let free = all.minus(us);
    PointSet(pdep(colex_unrank(k, rank).0, free.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Point;

    #[test]
    fn rank_unrank_round_trip() {
        let us = PointSet(0b1011_0000_0000_0000_0001_0010);
        let mut seen = 0;
        for t in 0u32..(1 << 24) {
            if t & us.0 != 0 || t.count_ones() != 3 || t % 7 != 0 {
                continue;
            }
            let r = free_rank(us, PointSet(t));
            assert!(r < binomial(20, 3));
            assert_eq!(free_unrank(PointSet::first(24), us, 3, r), PointSet(t));
            seen += 1;
        }
        assert!(seen > 100);
    }

    #[test]
    fn one_more_ranks_match_whole_ranks() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut checked = 0;
        for k in 0..=MAX_SIDE as u32 {
            for _ in 0..2000 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                // A k-set of 24 points: keep k of the random bits' order.
                let mut set = 0u32;
                let mut bits = seed;
                while set.count_ones() < k {
                    set |= 1 << (bits % 24);
                    bits = bits.rotate_left(5) ^ 0x9E37;
                }
                let ranks = OneMore::new(set);
                let free = !set & ((1 << 24) - 1);
                let mut each = Vec::new();
                ranks.for_each_rank(free, |r| each.push(r));
                let mut whole: Vec<u64> = (0..24)
                    .filter(|q| set & 1 << q == 0)
                    .map(|q| colex_rank(PointSet(set | 1 << q)))
                    .collect();
                whole.sort_unstable();
                each.sort_unstable();
                assert_eq!(each, whole, "{set:#x}");
                for q in 0..24 {
                    if set & 1 << q == 0 {
                        assert_eq!(ranks.rank(q), colex_rank(PointSet(set | 1 << q)));
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    #[test]
    fn added_stone_slots_match_whole_ranks() {
        let mut checked = 0;
        for name in Board::NAMES {
            let board = Board::by_name(name).unwrap();
            let indexer = Indexer::for_board(board);
            let n = board.size;
            let pairs = [
                (1, 1),
                (3, 2),
                (4, 4),
                (n / 3, n / 3),
                (n / 2 - 1, n / 2 - 1),
            ];
            for (us, k) in pairs {
                if us == 0 || us + k + 1 > n || k as usize >= MAX_SIDE {
                    continue;
                }
                let index = indexer.subspace(us, k + 1);
                let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ (us as u64) << 8 ^ k as u64;
                let mut next = |m: u32| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed % m as u64) as u32
                };
                for _ in 0..300 {
                    let mut side = PointSet::EMPTY;
                    let mut stones = PointSet::EMPTY;
                    while side.len() < us as u32 {
                        side = side.with(Point::new_unchecked(next(n as u32) as u8));
                    }
                    while stones.len() < k as u32 {
                        let p = Point::new_unchecked(next(n as u32) as u8);
                        if !side.contains(p) {
                            stones = stones.with(p);
                        }
                    }
                    let prepared = index.prepare(side);
                    let Some(added) = index.with_added(&prepared, stones) else {
                        assert_ne!(prepared.stabiliser, 0);
                        continue;
                    };
                    for p in board.all.minus(side.union(stones)) {
                        assert_eq!(
                            added.slot(p),
                            index.slot_with(&prepared, stones.with(p)),
                            "{name} {us}-{}: {side:?} {stones:?} + {p:?}",
                            k + 1
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}
