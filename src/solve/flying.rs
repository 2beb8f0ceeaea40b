//! The initialisation of a flying side of three stones that reads its
//! children's start values (the informed subspace of a flying pair, see
//! [`Pair::initialise`]), by blocks of the other side's stones.
//!
//! A position `(us, them)` whose three stones fly has about 42 quiet
//! children `(them, us - a + b)`, each a read of the other subspace's start
//! values. With `them` fixed those children all lie in one orbit block of
//! the other subspace (the three-stone sets on the points `them` leaves
//! free), and every child shares two of its stones with its parent. So the
//! children are summed once per block by the two stones they keep (a
//! [`Family`] each), and a position adds up its three families, taking out
//! itself, which each family counts: three reads instead of 42. Blocks whose
//! `them` a symmetry fixes (children of one position may then be one class)
//! take the per-position path.
//!
//! Propagation meets the same sets from the other end: a source of the
//! non-flying side has about 42 predecessors whose three stones fly, each
//! an orbit lookup and a rank. When enough sources of one block come in a
//! level, the slots of all the block's possible predecessors are tabulated
//! once ([`predecessor_slots`]).

use super::*;
use crate::index::pack;
use graph::outcomes_to;

/// The quiet children `P + b` of a two-stone set `P`: what their start
/// values say.
#[derive(Clone, Copy)]
struct Family {
    /// Children that are not lines (a line closes a mill: an exit).
    quiet: u8,
    undecided: u8,
    wins: u8,
    draws: u8,
    /// The two smallest loss bytes ([`StartValue::LOSS`] `+ d`), smallest
    /// first; [`Family::NO_LOSS`] when missing.
    losses: [u16; 2],
}

impl Family {
    const NO_LOSS: u16 = u16::MAX;
    const EMPTY: Family = Family {
        quiet: 0,
        undecided: 0,
        wins: 0,
        draws: 0,
        losses: [Self::NO_LOSS; 2],
    };

    #[inline]
    fn add(&mut self, start: u8) {
        self.quiet += 1;
        match start {
            0 => self.undecided += 1,
            StartValue::DRAW => self.draws += 1,
            StartValue::WIN_IN_1 => self.wins += 1,
            l => {
                let l = l as u16;
                if l < self.losses[0] {
                    self.losses = [l, self.losses[0]];
                } else if l < self.losses[1] {
                    self.losses[1] = l;
                }
            }
        }
    }

    /// The smallest loss byte of the family without one child of start
    /// value `own` (when `own` is a loss).
    #[inline]
    fn least_loss_without(&self, own: Option<u8>) -> u16 {
        match own {
            Some(l) if l as u16 == self.losses[0] => self.losses[1],
            _ => self.losses[0],
        }
    }
}

/// The colex rank of the two-stone set of packed positions `p < q`.
#[inline]
fn pair_rank(p: usize, q: usize) -> usize {
    q * (q - 1) / 2 + p
}

/// The colex rank of a packed three-stone set.
#[inline]
fn triple_rank(packed: u32) -> usize {
    let x = packed.trailing_zeros() as usize;
    let rest = packed & (packed - 1);
    let y = rest.trailing_zeros() as usize;
    let z = 31 - packed.leading_zeros() as usize;
    z * (z - 1) * (z - 2) / 6 + pair_rank(x, y)
}

/// The colex rank of the three stones `mover` among the points of `free`.
#[inline]
pub(super) fn three_rank(mover: PointSet, free: PointSet) -> usize {
    triple_rank(pack(mover, free))
}

/// The slots in `pred` of the positions `(mover, stones)`, `stones` the
/// set of `images`, for every set of three stones `mover` on the points
/// `free` (those `stones` leave), by the colex rank of `mover` among them:
/// the predecessors of a block's sources whose mover flies with three
/// stones, each otherwise an orbit lookup and a rank.
pub(super) fn predecessor_slots(
    pred: &SubspaceIndex<'_>,
    free: PointSet,
    images: &mut Images,
) -> Vec<u32> {
    let mut points = Vec::with_capacity(free.len() as usize);
    let mut bits = free.0;
    while bits != 0 {
        points.push(bits.trailing_zeros());
        bits &= bits - 1;
    }
    let n = points.len();
    let mut out = Vec::with_capacity(n * n.saturating_sub(1) * n.saturating_sub(2) / 6);
    for z in 2..n {
        for y in 1..z {
            for x in 0..y {
                let mover = PointSet((1 << points[x]) | (1 << points[y]) | (1 << points[z]));
                out.push(pred.slot_with_images(&pred.prepare(mover), images) as u32);
            }
        }
    }
    out
}

/// Per-thread buffers.
#[derive(Default)]
pub(super) struct FamilyScratch {
    families: Vec<Family>,
    /// By the rank of a three-stone set on the block's free points: whether
    /// it is a line.
    lines: Vec<bool>,
    children: Vec<u64>,
    removals: Removals,
    waiting: Vec<Waiting>,
    lookups: Vec<(usize, u64)>,
    local: Decisions,
}

impl Pair<'_> {
    /// Whether subspace `i` is initialised by blocks of the other side's
    /// stones: its three stones fly and read the other subspace's start
    /// values.
    pub(super) fn by_families(&self, i: usize) -> bool {
        self.informed == Some(i)
            && self.start.get().is_some()
            && self.subs[i].us == 3
            && !self.rules.mill_wins()
    }

    /// Initialises subspace `i` ([`Self::by_families`]).
    pub(super) fn initialise_by_families(
        &self,
        i: usize,
        progress: &dyn Progress,
        failure: &Mutex<Option<SolveError>>,
    ) {
        let own = &self.idx[i];
        let mirror = &self.idx[self.other(i)];
        // The positions are visited by class, so the duplicate slots of
        // the subspace's own blocks are marked apart.
        (0..own.orbits())
            .into_par_iter()
            .filter(|&o| own.orbit_rep(o).1 != 0)
            .for_each(|o| {
                own.for_each_in_block(o, |slot, _, _, canonical| {
                    if !canonical {
                        self.values[i][slot as usize].store(UNUSED, Relaxed);
                    }
                })
            });
        let (blocks, work) = (mirror.orbits(), own.slots());
        (0..blocks)
            .into_par_iter()
            .for_each_init(FamilyScratch::default, |scratch, orbit| {
                let (moves, max_code) = if mirror.orbit_rep(orbit).1 == 0 {
                    self.families_block(i, orbit, scratch, failure)
                } else {
                    self.symmetric_block(i, orbit, scratch, failure)
                };
                self.max_code.fetch_max(max_code, Relaxed);
                self.visits.fetch_add(moves, Relaxed);
                self.enlist(i, &mut scratch.local);
                progress.advance((orbit + 1) * work / blocks - orbit * work / blocks);
            });
    }

    /// The positions of a block of the other subspace whose representative
    /// a symmetry fixes, one at a time. Returns (moves, largest code).
    fn symmetric_block(
        &self,
        i: usize,
        orbit: u64,
        s: &mut FamilyScratch,
        failure: &Mutex<Option<SolveError>>,
    ) -> (u64, u16) {
        let (mut moves, mut max_code) = (0, 0);
        self.idx[self.other(i)].for_each_in_block(orbit, |_, them, us, canonical| {
            if !canonical {
                return;
            }
            let first = s.lookups.len();
            let o = self.outlook_deferred(
                i,
                us,
                them,
                &mut s.children,
                &mut s.removals,
                &mut s.lookups,
            );
            moves += o.moves as u64;
            self.wait(i, us, them, o, first, s, failure, &mut max_code);
        });
        max_code =
            max_code.max(self.settle(i, &mut s.waiting, &mut s.lookups, &mut s.local, failure));
        (moves, max_code)
    }

    /// Queues position `(us, them)` of subspace `i` with its outlook, its
    /// exits from `first` on in the lookups; settles a full batch.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn wait(
        &self,
        i: usize,
        us: PointSet,
        them: PointSet,
        outlook: Outlook,
        first: usize,
        s: &mut FamilyScratch,
        failure: &Mutex<Option<SolveError>>,
        max_code: &mut u16,
    ) {
        s.waiting.push(Waiting {
            slot: self.idx[i].slot(us, them),
            blocked_draws: blocked_draws(self.board, self.rules, us, them),
            outlook,
            exits: first..s.lookups.len(),
        });
        // The exits are read a batch later, so that the prefetches have
        // time to arrive.
        if s.waiting.len() == EXIT_BATCH {
            let m = self.settle(i, &mut s.waiting, &mut s.lookups, &mut s.local, failure);
            *max_code = (*max_code).max(m);
        }
    }

    /// The positions `(us, them)` of subspace `i` whose `them` is the
    /// representative of `orbit` of the other subspace, no symmetry fixing
    /// it: the children's start values are that block, by rank. Returns
    /// (moves, largest code).
    fn families_block(
        &self,
        i: usize,
        orbit: u64,
        s: &mut FamilyScratch,
        failure: &Mutex<Option<SolveError>>,
    ) -> (u64, u16) {
        let (board, rules) = (self.board, self.rules);
        let mirror = &self.idx[self.other(i)];
        let (them, _) = mirror.orbit_rep(orbit);
        let free = board.all.minus(them);
        let mut points = Vec::with_capacity(free.len() as usize);
        let mut bits = free.0;
        while bits != 0 {
            points.push(bits.trailing_zeros() as u8);
            bits &= bits - 1;
        }
        let n = points.len();
        let block = mirror.block_size() as usize;
        let base = orbit as usize * block;
        let start = &self.start()[base..base + block];
        s.lines.clear();
        s.lines.resize(block, false);
        for &line in &board.lines {
            if line.intersect(them).is_empty() {
                s.lines[triple_rank(pack(line, free))] = true;
            }
        }
        s.families.clear();
        s.families
            .resize(n * n.saturating_sub(1) / 2, Family::EMPTY);
        // Three-stone sets in colex order: by the highest point, then the
        // next, then the lowest.
        let mut r = 0;
        for z in 2..n {
            for y in 1..z {
                for x in 0..y {
                    if !s.lines[r] {
                        let v = start[r];
                        s.families[pair_rank(x, y)].add(v);
                        s.families[pair_rank(x, z)].add(v);
                        s.families[pair_rank(y, z)].add(v);
                    }
                    r += 1;
                }
            }
        }
        let (mut moves, mut max_code) = (0u64, 0u16);
        let mut r = 0;
        for z in 2..n {
            for y in 1..z {
                for x in 0..y {
                    let us = PointSet((1 << points[x]) | (1 << points[y]) | (1 << points[z]));
                    let first = s.lookups.len();
                    let mut o = Outlook::default();
                    // Each family counts the position itself (moving a
                    // stone back where it stands), unless it is a line.
                    let own = (!s.lines[r]).then_some(start[r]);
                    let keep = [(x, y, z), (x, z, y), (y, z, x)];
                    let (mut undecided, mut wins, mut draws, mut quiet) = (0, 0, 0, 0);
                    let mut least = Family::NO_LOSS;
                    for &(p, q, _) in &keep {
                        let f = &s.families[pair_rank(p, q)];
                        quiet += f.quiet as usize;
                        undecided += f.undecided as usize;
                        wins += f.wins as usize;
                        draws += f.draws as usize;
                        let own_loss = own.filter(|&v| v >= StartValue::LOSS);
                        least = least.min(f.least_loss_without(own_loss));
                    }
                    if let Some(v) = own {
                        quiet -= 3;
                        match v {
                            0 => undecided -= 3,
                            StartValue::DRAW => draws -= 3,
                            StartValue::WIN_IN_1 => wins -= 3,
                            _ => {}
                        }
                    }
                    o.moves = quiet;
                    o.in_pair = undecided;
                    if wins > 0 {
                        o.exit(Some(Value::Win(1)));
                    }
                    if draws > 0 {
                        o.exit(Some(Value::Draw));
                    }
                    if least != Family::NO_LOSS {
                        o.exit(StartValue(least as u8).read());
                    }
                    // Moves that complete a line close a mill.
                    for &(p, q, moved) in &keep {
                        let two = PointSet((1 << points[p]) | (1 << points[q]));
                        for &line in &board.lines {
                            if !two.is_subset(line) {
                                continue;
                            }
                            let to = line.minus(two);
                            let to_point = to.0.trailing_zeros();
                            if to_point == points[moved] as u32 || !to.intersect(them).is_empty() {
                                continue;
                            }
                            let after = two.union(to);
                            let to = crate::geometry::Point::new_unchecked(to_point as u8);
                            o.moves += outcomes_to(
                                board,
                                rules,
                                after,
                                to,
                                them,
                                0,
                                &mut s.removals,
                                &mut |step| match step {
                                    Outcome::Capture(us2, them2) => {
                                        s.lookups.push(self.exits.locate(them2, us2, (0, 0)))
                                    }
                                    Outcome::Wins => o.exit(Some(Value::Loss(0))),
                                    // A mill with nothing to remove: a
                                    // child in the pair.
                                    Outcome::Quiet(_) => {
                                        let c = triple_rank(pack(after, free));
                                        match StartValue(start[c]).read() {
                                            Some(v) => o.exit(Some(v)),
                                            None => o.in_pair += 1,
                                        }
                                    }
                                },
                            );
                        }
                    }
                    moves += o.moves as u64;
                    self.wait(i, us, them, o, first, s, failure, &mut max_code);
                    r += 1;
                }
            }
        }
        max_code =
            max_code.max(self.settle(i, &mut s.waiting, &mut s.lookups, &mut s.local, failure));
        (moves, max_code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_takes_out_one_child_of_the_position_s_value() {
        let loss = |d: u8| StartValue::LOSS + d;
        let mut f = Family::EMPTY;
        for v in [
            0,
            loss(5),
            StartValue::DRAW,
            loss(2),
            StartValue::WIN_IN_1,
            loss(2),
            0,
        ] {
            f.add(v);
        }
        assert_eq!((f.quiet, f.undecided, f.draws, f.wins), (7, 2, 1, 1));
        // Two children lost in 2: without one of them, the other is left.
        assert_eq!(f.least_loss_without(Some(loss(2))), loss(2) as u16);
        assert_eq!(f.least_loss_without(None), loss(2) as u16);
        let mut g = Family::EMPTY;
        for v in [loss(7), loss(2), loss(9)] {
            g.add(v);
        }
        assert_eq!(g.least_loss_without(Some(loss(2))), loss(7) as u16);
        assert_eq!(g.least_loss_without(Some(loss(7))), loss(2) as u16);
        let mut h = Family::EMPTY;
        h.add(loss(4));
        assert_eq!(h.least_loss_without(Some(loss(4))), Family::NO_LOSS);
    }

    #[test]
    fn three_stone_ranks_are_colex() {
        let mut r = 0;
        for z in 2..20u32 {
            for y in 1..z {
                for x in 0..y {
                    assert_eq!(triple_rank((1 << x) | (1 << y) | (1 << z)), r);
                    r += 1;
                }
            }
        }
    }
}
