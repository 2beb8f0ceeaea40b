//! The placing phase: positions with stones in hand, one table per
//! subspace `us-them-us_hand-them_hand` (side to move first).
//!
//! Every placing move puts a stone from the hand on the board, so the
//! stones in hand only shrink: the placing phase has no cycles (except
//! under Lasker rules, whose moves on the board keep the hands: see
//! [`cyclic`]). Each table
//! is therefore computed in one forward pass over its slots, from the
//! tables of its children (later placing tables, and the moving-phase
//! tables once both hands are empty), last placement first. The values are
//! the same as in the moving phase: win, draw or loss for the side to move
//! with the plies to the end of the game under best play.
//!
//! Only subspaces that a game from the start can reach are built
//! ([`placing_subspaces`]); within them every position gets its value.

mod cyclic;
mod preference;

pub use cyclic::{cyclic_pairs, pair_exits};

use crate::geometry::PointSet;
use crate::index::{
    Indexer, OneMore, PreparedSide, Subspace, SubspaceIndex, child_subspaces, pack,
};
use crate::moves::{blocked_draws, most_removals};
use crate::rules::{DoubleMill, Rules};
use crate::solve::graph::{Outcome, Removals, for_each_outcome, outcomes_to};
use crate::solve::{Exits, Progress};
use crate::table::Table;
use crate::value::{Encoding, UNUSED, Value, best_first};
use preference::Preferences;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU16, AtomicU64, Ordering::Relaxed};

/// The children's tables of one subspace, by the number of stones removed.
struct Children<'a> {
    by_removed: Vec<Option<(SubspaceIndex<'a>, &'a Table)>>,
    /// How the codes of the children (and of the table made) read.
    encoding: Encoding,
}

impl Children<'_> {
    /// The slot of the child where the side to move has `us` and the other
    /// side `them`, `removed` stones having been taken, prefetched.
    #[inline]
    fn slot(&self, removed: u32, us: PointSet, them: PointSet) -> Option<u64> {
        self.by_removed[removed as usize]
            .as_ref()
            .map(|(index, table)| {
                let slot = index.slot(us, them);
                table.prefetch(slot);
                slot
            })
    }

    /// [`Self::slot`] for one stone removed, with the side to move after
    /// it (`us`) prepared in `side` on first use.
    #[inline]
    fn slot_after_one(
        &self,
        side: &mut Option<PreparedSide>,
        us: PointSet,
        them: PointSet,
    ) -> Option<u64> {
        self.by_removed[1].as_ref().map(|(index, table)| {
            let side = side.get_or_insert_with(|| index.prepare(us));
            let slot = index.slot_with(side, them);
            table.prefetch(slot);
            slot
        })
    }

    /// The value at `slot` (counter 0) of the child table for `removed`
    /// stones taken; `None` for an unused slot or a missing table.
    #[inline]
    fn value_at(&self, removed: u8, slot: u64) -> Option<Value> {
        match &self.by_removed[removed as usize] {
            Some((_, table)) => table.value(slot),
            None => None,
        }
    }
}

/// Where the pass writes the codes of the table it makes.
trait Codes: Sync {
    fn store(&self, slot: u64, code: u16);
    fn prefetch(&self, slot: u64);
}

/// Two bytes a slot.
impl Codes for [AtomicU16] {
    #[inline]
    fn store(&self, slot: u64, code: u16) {
        self[slot as usize].store(code, Relaxed);
    }

    #[inline]
    fn prefetch(&self, slot: u64) {
        crate::memory::prefetch(&self[slot as usize]);
    }
}

/// One byte a slot, as [`Table`] keeps a table whose codes all fit one
/// (every table of the standard game), 255 standing for [`UNUSED`]; a
/// code that does not fit is noted in `wide`, and the table is then made
/// again two bytes wide.
struct Narrow<'a> {
    codes: &'a [AtomicU8],
    wide: &'a AtomicBool,
}

impl Codes for Narrow<'_> {
    #[inline]
    fn store(&self, slot: u64, code: u16) {
        if code >= 255 && code != UNUSED {
            self.wide.store(true, Relaxed);
        }
        self.codes[slot as usize].store(code as u8, Relaxed);
    }

    #[inline]
    fn prefetch(&self, slot: u64) {
        crate::memory::prefetch(&self.codes[slot as usize]);
    }
}

/// Positions whose quiet children are looked up together.
const BATCH: usize = 32;

/// A position waiting for its children's codes.
struct Pending {
    /// Its slot in the table made.
    slot: u64,
    best: Option<Value>,
    children: std::ops::Range<usize>,
}

/// Positions whose children's slots are known and prefetched, waiting to be
/// read: `(stones removed, slot)` per child.
#[derive(Default)]
struct Batch {
    pending: Vec<Pending>,
    lookups: Vec<(u8, u64)>,
    /// Children read so far.
    followed: u64,
}

impl Batch {
    /// Folds in the children and writes each pending position's code (a
    /// position without moves has lost).
    fn flush<C: Codes + ?Sized>(&mut self, children: &Children<'_>, out: &C, broken: &AtomicBool) {
        for p in self.pending.drain(..) {
            let mut best = p.best;
            for &(removed, slot) in &self.lookups[p.children] {
                fold(&mut best, children.value_at(removed, slot), broken);
            }
            let code = children.encoding.code(best.unwrap_or(Value::Loss(0)));
            out.store(p.slot, code);
        }
        self.followed += self.lookups.len() as u64;
        self.lookups.clear();
    }
}

/// Takes a child's value into the best value for the mover so far; an
/// unused child slot (`None`) marks the computation broken.
#[inline]
fn fold(best: &mut Option<Value>, child: Option<Value>, broken: &AtomicBool) {
    match child {
        None => broken.store(true, Relaxed),
        Some(v) => {
            let v = v.parent();
            if best.is_none_or(|b| best_first(&v) < best_first(&b)) {
                *best = Some(v);
            }
        }
    }
}

/// A child table read as the mover's preferences, one orbit block at a
/// time.
struct ChildPreferences<'a> {
    index: &'a SubspaceIndex<'a>,
    table: &'a Table,
    preferences: Preferences,
}

impl ChildPreferences<'_> {
    /// Fills `out` with the preferences of the moves into the child block
    /// of `orbit`, by rank, each duplicate slot taking its class's. `false`
    /// when a slot has no preference (an unused class slot in a damaged
    /// table, or a depth out of range): the block's moves then take the
    /// general path, which tells the two apart.
    fn fill(&self, orbit: u64, out: &mut Vec<u16>) -> bool {
        let n = self.index.block_size() as usize;
        let base = orbit * n as u64;
        out.resize(n, preference::NONE);
        let out = &mut out[..n];
        self.table
            .map_codes(base, out, |c| self.preferences.of_code(c));
        let (rep, stabiliser) = self.index.orbit_rep(orbit);
        if stabiliser != 0 {
            // A class's slot is the smallest of its ranks, so it comes
            // before its duplicates.
            let side = self.index.prepare(rep);
            for r in 0..n {
                if out[r] == preference::NONE && self.table.code(base + r as u64) == UNUSED {
                    let (_, them) = self
                        .index
                        .position(base + r as u64)
                        .expect("a slot of the block");
                    let class = (self.index.slot_with(&side, them) - base) as usize;
                    if class < r {
                        out[r] = out[class];
                    }
                }
            }
        }
        !out.contains(&preference::NONE)
    }
}

/// Per-thread buffers of the placing pass.
#[derive(Default)]
struct Scratch {
    removals: Removals,
    batch: Batch,
    /// The current block's quiet children's preferences, by rank.
    preferences: Vec<u16>,
    /// Lines free of the block's fixed side: the only ones a placement can
    /// close.
    open_lines: Vec<u32>,
    /// The block's captures by the point of the stone removed: the side to
    /// move after one (the block's fixed side less that stone), prepared
    /// when first met. All of one stone's captures lie in the orbit block
    /// of that side in the child table.
    captures: Vec<Option<PreparedSide>>,
    /// The worth of the placements that close a mill, by the rank of the
    /// stones after them ([`preference::NONE`]: not known yet).
    closing_memo: Vec<u16>,
}

/// Computes the table of placing subspace `s` from its children's tables.
/// `None` if a child's slot was marked unused (a damaged or wrong child).
///
/// Positions are visited grouped by the other side's stones (`them`): the
/// side that moves next in every quiet child. All quiet children of a
/// group then lie in one orbit block of the child table, which stays in
/// cache, and the one random access per position is the write of its
/// value, not a read per move. When the mover places a stone, that block
/// is first turned into the mover's preferences, so that a placement that
/// closes no mill costs a rank and a `max`; placements that close a mill
/// (a minority) go through the general step generator.
pub(crate) fn solve_subspace(
    rules: &Rules,
    s: Subspace,
    tables: &Exits,
    progress: &dyn Progress,
) -> Option<Table> {
    solve_subspace_by(rules, s, tables, progress, true, false)
}

/// [`solve_subspace`], reading children as preferences where it can
/// (`preferences`) or every move through the general step generator,
/// and writing two bytes a slot from the start if `two_bytes`.
fn solve_subspace_by(
    rules: &Rules,
    s: Subspace,
    tables: &Exits,
    progress: &dyn Progress,
    preferences: bool,
    two_bytes: bool,
) -> Option<Table> {
    let board = rules.board();
    let indexer = Indexer::for_board(board);
    let index = indexer.subspace(s.us, s.them);
    // Slots of `(them, us)`: by orbit of `them`, each class of `(us, them)`
    // once among the canonical ones.
    let mirror = indexer.subspace(s.them, s.us);
    let kids = child_subspaces(rules, s);
    let children = Children {
        by_removed: (0..=most_removals(rules))
            .map(|k| {
                kids.iter()
                    .find(|c| c.us + k == s.them)
                    .and_then(|&c| tables.get(c).map(|t| (indexer.subspace(c.us, c.them), t)))
            })
            .collect(),
        encoding: Encoding::of(rules, false),
    };
    // Under `mill=wins` a line anywhere ends the game, and under Lasker
    // rules stones also move: the general path does both.
    let placing = preferences && s.us_hand > 0 && !rules.mill_wins() && !rules.lasker;
    let preferences = |removed: usize| {
        // Rules without removals (three men's morris) have no capture tables.
        children
            .by_removed
            .get(removed)
            .and_then(Option::as_ref)
            .filter(|_| placing)
            .map(|(index, table)| ChildPreferences {
                index,
                table,
                preferences: Preferences::of(table),
            })
    };
    let fast = preferences(0);
    let broken = AtomicBool::new(false);
    let visits = AtomicU64::new(0);
    let slots = index.slots() as usize;
    // One byte a slot first: a table that needs two is made again.
    let narrow: Vec<AtomicU8> = crate::memory::huge_vec_par(slots, || AtomicU8::new(255));
    let wide = AtomicBool::new(two_bytes);
    if !two_bytes {
        let codes = Narrow {
            codes: &narrow,
            wide: &wide,
        };
        let ctx = Context {
            rules,
            s,
            index: &index,
            children: &children,
            codes: &codes,
            broken: &broken,
            captures: preferences(1),
        };
        run_pass(&ctx, &mirror, &fast, &visits, progress);
    }
    let table = if wide.into_inner() {
        drop(narrow);
        let codes: Vec<AtomicU16> = crate::memory::huge_vec_par(slots, || AtomicU16::new(UNUSED));
        let ctx = Context {
            rules,
            s,
            index: &index,
            children: &children,
            codes: codes.as_slice(),
            broken: &broken,
            captures: preferences(1),
        };
        run_pass(&ctx, &mirror, &fast, &visits, progress);
        let codes: Vec<u16> = codes.into_iter().map(AtomicU16::into_inner).collect();
        Table::from_codes(s, &codes)
    } else {
        let data: Vec<u8> = narrow.into_iter().map(AtomicU8::into_inner).collect();
        Table::from_raw(s, 1, data)
    };
    progress.visits(visits.into_inner());
    if broken.into_inner() {
        return None;
    }
    Some(table.with_encoding(children.encoding))
}

/// One pass over the blocks of `mirror`, writing into `ctx`'s codes.
fn run_pass<C: Codes + ?Sized>(
    ctx: &Context<'_, C>,
    mirror: &SubspaceIndex<'_>,
    fast: &Option<ChildPreferences<'_>>,
    visits: &AtomicU64,
    progress: &dyn Progress,
) {
    progress.stage("placing", mirror.orbits());
    (0..mirror.orbits())
        .into_par_iter()
        .for_each_init(Scratch::default, |scratch, orbit| {
            match fast {
                Some(f) if f.fill(orbit, &mut scratch.preferences) => {
                    ctx.placements_block(mirror, orbit, scratch)
                }
                _ => ctx.general_block(mirror, orbit, scratch),
            }
            let batch = &mut scratch.batch;
            batch.flush(ctx.children, ctx.codes, ctx.broken);
            visits.fetch_add(std::mem::take(&mut batch.followed), Relaxed);
            progress.advance(1);
        });
}

/// What every block of one placing subspace's pass shares.
struct Context<'a, C: ?Sized> {
    rules: &'a Rules,
    s: Subspace,
    index: &'a SubspaceIndex<'a>,
    children: &'a Children<'a>,
    codes: &'a C,
    broken: &'a AtomicBool,
    /// The children of one-stone captures as preferences, when the mover
    /// places.
    captures: Option<ChildPreferences<'a>>,
}

impl<C: Codes + ?Sized> Context<'_, C> {
    /// Queues the child of a capture: `after` the mover's stones, `left`
    /// the opponent's, the opponent being the block's `them` before it.
    #[inline]
    fn capture(
        &self,
        batch: &mut Batch,
        captured: &mut [Option<PreparedSide>; crate::geometry::MAX_POINTS],
        them: PointSet,
        after: PointSet,
        left: PointSet,
    ) {
        let removed = them.len() - left.len();
        // `them` is the same in the whole block, so the side to move after
        // one removal is one of |them| sets: prepared once per block.
        let slot = if removed == 1 {
            let r = them.minus(left).0.trailing_zeros() as usize;
            self.children.slot_after_one(&mut captured[r], left, after)
        } else {
            self.children.slot(removed, left, after)
        };
        match slot {
            Some(slot) => batch.lookups.push((removed as u8, slot)),
            None => self.broken.store(true, Relaxed),
        }
    }

    /// The preference of a capture of one stone from the block's `them`,
    /// read from the child block of that capture; `None` for the general
    /// path (several stones removed, or a child code without a preference:
    /// an unused slot, or too deep).
    #[inline]
    fn capture_preference(
        &self,
        captures: &mut [Option<PreparedSide>],
        them: PointSet,
        after: PointSet,
        left: PointSet,
    ) -> Option<u16> {
        let child = self.captures.as_ref()?;
        let removed = them.minus(left);
        if removed.len() != 1 {
            return None;
        }
        let side = captures[removed.0.trailing_zeros() as usize].get_or_insert_with(|| {
            let side = child.index.prepare(left);
            // The block's positions read a few thousand of its codes, each
            // a cache miss when met: fetched together at once.
            child
                .table
                .prefetch_range(side.base, child.index.block_size());
            side
        });
        // A block holds many more slots than a block's positions capture
        // from it, so its codes are read where needed rather than turned
        // whole into preferences (for a block that a symmetry fixes, that
        // had been a tenth of the pass: its duplicate slots each needed
        // their class found). Without such a symmetry every slot is a class
        // of its own and the image's rank is the child's slot.
        let slot = if side.stabiliser == 0 {
            side.base + child.index.image_rank(side, after)
        } else {
            child.index.slot_with(side, after)
        };
        Some(child.preferences.of_code(child.table.code(slot))).filter(|&p| p != preference::NONE)
    }

    /// Queues a position whose children from `first` on are in the batch,
    /// its quiet children folded into `best` already.
    #[inline]
    fn finish(
        &self,
        batch: &mut Batch,
        us: PointSet,
        them: PointSet,
        mut best: Option<Value>,
        moves: usize,
        first: usize,
    ) {
        let board = self.rules.board();
        if moves == 0 && blocked_draws(board, self.rules, us, them) {
            best = Some(Value::Draw);
        }
        let slot = self.index.slot(us, them);
        if first < batch.lookups.len() {
            // Without children to read, the writes of a batch measured
            // faster without this prefetch (about a tenth of a subspace).
            self.codes.prefetch(slot);
        }
        batch.pending.push(Pending {
            slot,
            best,
            children: first..batch.lookups.len(),
        });
        // The captures' codes and the values' places are cache misses:
        // they are read and written a batch later, so that the prefetches
        // have time to arrive.
        if batch.pending.len() == BATCH {
            batch.flush(self.children, self.codes, self.broken);
        }
    }

    /// The positions of block `orbit` of `mirror` whose mover places a
    /// stone, with the quiet children's preferences in `scratch`.
    fn placements_block(&self, mirror: &SubspaceIndex<'_>, orbit: u64, scratch: &mut Scratch) {
        let (rules, board) = (self.rules, self.rules.board());
        let (rep, _) = mirror.orbit_rep(orbit);
        let free = board.all.minus(rep);
        scratch.open_lines.clear();
        scratch.open_lines.extend(
            board
                .lines
                .iter()
                .filter(|l| l.intersect(rep).is_empty())
                .map(|l| l.0),
        );
        let Scratch {
            removals,
            batch,
            preferences,
            open_lines,
            captures,
            closing_memo,
        } = scratch;
        closing_memo.clear();
        closing_memo.resize(preferences.len(), preference::NONE);
        let memo = rules.double_mill == DoubleMill::One;
        captures.clear();
        captures.resize(crate::geometry::MAX_POINTS, None);
        let mut captured = [None; crate::geometry::MAX_POINTS];
        mirror.for_each_in_block(orbit, |_, them, us, canonical| {
            if !canonical {
                return;
            }
            let empty = board.all.minus(us.union(them));
            // The free point of each open line that holds two of ours.
            let mut closing = 0u32;
            for &line in open_lines.iter() {
                if (us.0 & line).count_ones() == 2 {
                    closing |= line;
                }
            }
            let closing = PointSet(closing).intersect(empty);
            let ranks = OneMore::new(pack(us, free));
            let mut best = preference::NONE;
            let quiet = pack(empty.minus(closing), free);
            let mut moves = quiet.count_ones() as usize;
            ranks.for_each_rank(quiet, |r| best = best.max(preferences[r as usize]));
            let first = batch.lookups.len();
            for to in closing {
                // What a placement that closes a mill is worth depends only
                // on the stones after it (the opponent is the block's), and
                // each such set is reached from up to three positions;
                // unless the removals earned depend on the mills closed.
                let rank = ranks.rank(pack(PointSet::single(to), free).trailing_zeros()) as usize;
                moves += 1;
                if memo && closing_memo[rank] != preference::NONE {
                    best = best.max(closing_memo[rank]);
                    continue;
                }
                let mut worth = preference::NONE;
                let mut general = false;
                outcomes_to(
                    board,
                    rules,
                    us.with(to),
                    to,
                    them,
                    self.s.them_hand,
                    removals,
                    &mut |step| match step {
                        // A mill with nothing to remove.
                        Outcome::Quiet(_) => worth = worth.max(preferences[rank]),
                        Outcome::Wins => {
                            worth = worth.max(preference::of_value(Value::Loss(0).parent()))
                        }
                        Outcome::Capture(after, left) => {
                            match self.capture_preference(captures, them, after, left) {
                                Some(p) => worth = worth.max(p),
                                None => {
                                    general = true;
                                    self.capture(batch, &mut captured, them, after, left)
                                }
                            }
                        }
                    },
                );
                if memo && !general {
                    closing_memo[rank] = worth;
                }
                best = best.max(worth);
            }
            // A placement that closes a mill counts once, whatever it removes.
            batch.followed += moves as u64;
            self.finish(batch, us, them, preference::value(best), moves, first);
        });
    }

    /// The positions of block `orbit` of `mirror`, every move through the
    /// general step generator.
    fn general_block(&self, mirror: &SubspaceIndex<'_>, orbit: u64, scratch: &mut Scratch) {
        let (rules, board, s) = (self.rules, self.rules.board(), self.s);
        let quiet = self.children.by_removed[0].as_ref();
        let Scratch {
            removals, batch, ..
        } = scratch;
        let mut prepared = None;
        let mut captured = [None; crate::geometry::MAX_POINTS];
        mirror.for_each_in_block(orbit, |_, them, us, canonical| {
            if !canonical {
                return;
            }
            // `them` is the block's representative throughout.
            let prepared = *prepared.get_or_insert_with(|| quiet.map(|(i, _)| i.prepare(them)));
            let mut best: Option<Value> = None;
            let first = batch.lookups.len();
            // Every quiet move places a stone while the mover has stones
            // in hand: the children's ranks differ by one stone.
            let placements = match (quiet, &prepared) {
                (Some((qi, _)), Some(side)) if s.us_hand > 0 => Some(qi.placements(side, us)),
                _ => None,
            };
            let moves = for_each_outcome(
                board,
                rules,
                us,
                them,
                s.us_hand,
                s.them_hand,
                removals,
                |step| match step {
                    Outcome::Quiet(after) => {
                        // The child (them to move) is in the quiet table,
                        // which exists: both sides keep their stones.
                        let (qi, _) = quiet.expect("a quiet child subspace");
                        let slot = match &placements {
                            Some(p) => p.slot(after),
                            None => qi.slot_with(prepared.as_ref().unwrap(), after),
                        };
                        batch.lookups.push((0, slot));
                    }
                    Outcome::Wins => fold(&mut best, Some(Value::Loss(0)), self.broken),
                    Outcome::Capture(after, left) => {
                        self.capture(batch, &mut captured, them, after, left)
                    }
                },
            );
            self.finish(batch, us, them, best, moves, first);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{child_subspaces, moving_subspaces, placing_subspaces};
    use crate::solve::{NoProgress, solve_twins};
    use std::collections::BTreeSet;

    /// The moving-phase subspaces the placing phase of `rules` ends in.
    fn moving_exits(rules: &Rules) -> Vec<Subspace> {
        let mut out = BTreeSet::new();
        for s in placing_subspaces(rules) {
            out.extend(
                child_subspaces(rules, s)
                    .into_iter()
                    .filter(|c| c.is_moving()),
            );
        }
        out.into_iter().collect()
    }

    /// The codes of a table, slot by slot.
    fn codes(t: &Table) -> Vec<u16> {
        (0..t.len()).map(|i| t.code(i)).collect()
    }

    #[test]
    fn preferences_give_the_general_path_s_values() {
        // Rule options that change which placements capture and what.
        for spec in [
            "standard,stones=5",
            "standard,stones=5,double-mill=per-mill",
            "standard,stones=5,removals=2",
            "standard,stones=4,protection=strict",
            "standard,stones=4,protection=none",
            "standard,stones=5/3",
            "twelve,stones=4",
            "six,stones=6,full-board=draw",
            "three",
            "three,mill=removes,stones=4/3",
        ] {
            let rules: Rules = spec.parse().unwrap();
            let mut exits = Exits::new(rules.board());
            let mut pairs = moving_subspaces(&rules);
            // A capture lowers the stones on the board.
            pairs.sort_by_key(|s| s.us + s.them);
            for s in pairs {
                if !exits.has(s) {
                    for t in solve_twins(&rules, s, &exits, &NoProgress).unwrap() {
                        exits.insert(t);
                    }
                }
            }
            for s in placing_subspaces(&rules) {
                let fast = solve_subspace_by(&rules, s, &exits, &NoProgress, true, false).unwrap();
                // The general path writing two bytes a slot, as for a
                // table whose codes do not all fit one.
                let general =
                    solve_subspace_by(&rules, s, &exits, &NoProgress, false, true).unwrap();
                assert!(
                    codes(&fast) == codes(&general),
                    "{spec}, {s}: the tables differ"
                );

                exits.insert(fast);
            }
        }
    }

    #[test]
    fn placing_subspaces_of_three_stones() {
        let rules: Rules = "standard,stones=3".parse().unwrap();
        let subs = placing_subspaces(&rules);
        let names: Vec<String> = subs.iter().map(|s| s.to_string()).collect();
        // No mill before the third stone, and any removal ends a 3-stone game.
        assert_eq!(
            names,
            [
                "2-3-1-0", "2-2-1-1", "1-2-2-1", "1-1-2-2", "0-1-3-2", "0-0-3-3"
            ]
        );
        assert_eq!(moving_exits(&rules), [Subspace::moving(3, 3)]);
    }

    #[test]
    fn a_placement_on_the_diagonals_board_may_close_three_mills() {
        // A corner of the diagonals board lies on three lines.
        let per_mill: Rules = "twelve,double-mill=per-mill".parse().unwrap();
        assert_eq!(most_removals(&per_mill), 3);
        let s = Subspace {
            us: 6,
            them: 6,
            us_hand: 1,
            them_hand: 0,
        };
        assert!(child_subspaces(&per_mill, s).contains(&Subspace::moving(3, 7)));
        let twice: Rules = "twelve,double-mill=per-mill,removals=2".parse().unwrap();
        assert_eq!(most_removals(&twice), 6);
        assert_eq!(most_removals(&"twelve".parse().unwrap()), 1);
        assert_eq!(
            most_removals(&"standard,double-mill=per-mill".parse().unwrap()),
            2
        );
        assert_eq!(most_removals(&"three".parse().unwrap()), 0);
    }

    #[test]
    fn nine_stones_reach_every_exit_and_start() {
        let rules = Rules::STANDARD;
        let subs = placing_subspaces(&rules);
        assert_eq!(subs.last().unwrap().to_string(), "0-0-9-9");
        // Black's last placement: at most 8 of its own, 9 of White's.
        assert!(subs.contains(&"8-9-1-0".parse().unwrap()));
        assert!(!subs.contains(&"9-9-1-0".parse().unwrap()));
        let exits = moving_exits(&rules);
        assert!(exits.contains(&Subspace::moving(9, 9)));
        assert!(exits.iter().all(|e| e.us >= 3 && e.them >= 3));
    }
}
