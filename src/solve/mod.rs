//! Retrograde analysis of the moving phase (no stones in hand).
//!
//! The twin subspaces `us-them` and `them-us` are solved together: a move that
//! removes nothing leads from one to the other; a move that removes stones
//! leaves the pair for a smaller subspace whose table is already finished
//! (an *exit*), or ends the game when the opponent falls below 3 stones.
//!
//! 1. **Initialise** every slot from its moves: blocked = loss in 0; an
//!    exit to a lost position = win (tentative depth, a shorter win may
//!    come); otherwise count the distinct child classes inside the pair.
//! 2. **Propagate** level by level, depth `d = 0, 1, 2, ...`: every position
//!    decided at depth `d` visits its predecessors inside the pair (quiet
//!    unmoves). Each decision is listed under its code when it is made, so a
//!    level reads its own list instead of scanning every slot again. A lost position makes them won at `d + 1`; a won position
//!    takes one off their count, and a count reaching zero makes a loss at
//!    `1 + max(d, deepest won exit)` unless an exit is drawn.
//! 3. What is undecided at the end is a draw.
//!
//! Levels are processed in depth order, so a position's first decision is
//! its final one (the winner shortens, the loser lengthens), except that a
//! tentative exit win is overwritten by a shorter one.

mod flying;
pub mod graph;
mod slot_order;

use crate::geometry::{Board, PointSet};
use crate::index::{Images, Indexer, Subspace, SubspaceIndex};
use crate::memory::{huge_vec_par, prefetch};
use crate::moves::blocked_draws;
use crate::rules::Rules;

use crate::table::{SubspaceStats, Table};
use crate::value::{self, DRAW, Encoding, UNUSED, Value, is_loss, is_win};
use graph::{Outcome, Removals, Slides, for_each_outcome, for_each_quiet_unmove};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};

thread_local! {
    /// The slides of the block a thread is initialising ([`Slides`]).
    static SLIDES: std::cell::RefCell<Slides> = std::cell::RefCell::new(Slides::default());
}

/// Why the moving-phase solver could not make a pair's tables.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SolveError {
    /// A subspace with stones in hand, which only moves under Lasker rules
    /// (the placing builder computes it otherwise).
    NotMoving {
        /// The subspace asked for.
        subspace: Subspace,
    },
    /// A subspace with more slots than the solver's 32-bit slot numbers.
    TooManySlots {
        /// The subspace.
        subspace: Subspace,
        /// Its slots.
        slots: u64,
    },
    /// A position with more in-pair child classes than its counter holds.
    CounterOverflow {
        /// The child classes.
        children: usize,
    },
    /// A game longer than the value codes can say.
    DepthOverflow {
        /// The depth reached.
        depth: u32,
    },
    /// A value under the N-move rule that the rule cannot give, against
    /// the pure game's (the rule only turns wins and losses into draws).
    RuleAgainstPure {
        /// The subspace.
        subspace: Subspace,
        /// The slot.
        slot: u64,
        /// The value under the rule.
        rule: Option<Value>,
        /// The value in the pure game.
        pure: Option<Value>,
    },
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveError::NotMoving { subspace } => write!(
                f,
                "subspace {subspace}: only Lasker rules move during placing; the placing builder \
                 computes it"
            ),
            SolveError::TooManySlots { subspace, slots } => write!(
                f,
                "subspace {subspace} has {slots} slots: the solver numbers slots with 32 bits"
            ),
            SolveError::CounterOverflow { children } => {
                write!(f, "{children} child classes overflow the counter")
            }
            SolveError::DepthOverflow { depth } => {
                write!(f, "depth {depth} overflows the value code")
            }
            SolveError::RuleAgainstPure {
                subspace,
                slot,
                rule,
                pure,
            } => write!(
                f,
                "{subspace} slot {slot}: {rule:?} under the N-move rule but {pure:?} in the pure game"
            ),
        }
    }
}

impl std::error::Error for SolveError {}

/// Receives progress reports; the solver never prints.
pub trait Progress: Sync {
    /// A phase of the build starts (its name; whether it builds placing
    /// tables).
    fn build_phase(&self, _name: &str, _placing: bool) {}
    /// A step of the build starts: a twin pair, or one placing subspace.
    fn step_started(&self, _name: &str, _slots: u64) {}
    /// A stage of the current step starts (the moving solver's
    /// `initialise` and `propagate`, the placing pass), with its amount of
    /// work.
    fn stage(&self, _name: &str, _work: u64) {}
    /// Work done in the current stage.
    fn advance(&self, _work: u64) {}
    /// A step is finished (`slots` of it were computed).
    fn step_finished(&self, _name: &str, _slots: u64, _stats: &[SubspaceStats], _seconds: f64) {}
    /// A step's tables were already on disk.
    fn step_skipped(&self, _name: &str, _slots: u64) {}
    /// A table found on disk failed its checks when a later step read it
    /// (`error`): it was removed and the build starts over, rebuilding it.
    fn table_damaged(&self, _error: &str) {}
    /// The current pair's memory-bound work, reported once before it
    /// finishes: moves followed and predecessors visited (random slot
    /// reads and updates), for comparing with the machine figure.
    fn visits(&self, _n: u64) {}
    /// Whether the build should stop before its next step (a user's
    /// interrupt, seen by a caller that cannot kill the process); the
    /// build then ends with `BuildError::Stopped`.
    fn stop_requested(&self) -> bool {
        false
    }
}

/// Progress that goes nowhere (tests).
pub struct NoProgress;
impl Progress for NoProgress {}

/// Finished tables that moves leaving a pair lead into: captures, and
/// under Lasker rules placements.
pub struct Exits {
    indexer: &'static Indexer,
    /// By [`exit_key`]; boxed, since most keys never hold a table.
    tables: Vec<Option<Box<(SubspaceIndex<'static>, Table)>>>,
}

/// Stones in hand a side may hold, plus one (no board has more than 12
/// stones a side).
const HANDS: usize = 13;

/// Where the table of the subspace with these counts is kept in [`Exits`].
#[inline]
fn exit_key(s: Subspace) -> usize {
    ((s.us_hand as usize * HANDS + s.them_hand as usize) * 25 + s.us as usize) * 25
        + s.them as usize
}

impl Exits {
    /// No tables yet.
    pub fn new(board: &'static Board) -> Exits {
        Exits {
            indexer: Indexer::for_board(board),
            tables: (0..HANDS * HANDS * 25 * 25).map(|_| None).collect(),
        }
    }

    fn key(s: Subspace) -> usize {
        exit_key(s)
    }

    /// Adds a finished table.
    pub fn insert(&mut self, table: Table) {
        let s = table.subspace;
        let idx = self.indexer.subspace(s.us, s.them);
        self.tables[Self::key(s)] = Some(Box::new((idx, table)));
    }

    /// Drops every table whose subspace `keep` refuses.
    pub fn retain(&mut self, keep: impl Fn(&Subspace) -> bool) {
        for entry in &mut self.tables {
            if entry.as_ref().is_some_and(|e| !keep(&e.1.subspace)) {
                *entry = None;
            }
        }
    }

    /// The table of `s`, when it is loaded.
    pub fn get(&self, s: Subspace) -> Option<&Table> {
        self.tables[Self::key(s)].as_deref().map(|e| &e.1)
    }

    /// Whether the table of `s` is loaded.
    pub fn has(&self, s: Subspace) -> bool {
        self.tables[Self::key(s)].is_some()
    }

    /// Where the value of position `(us, them)` (us to move, the hands
    /// `hands` of us and them) is: the table's number and the slot, asked
    /// into cache.
    #[inline]
    fn locate(&self, us: PointSet, them: PointSet, hands: (u8, u8)) -> (usize, u64) {
        let s = Subspace {
            us: us.len() as u8,
            them: them.len() as u8,
            us_hand: hands.0,
            them_hand: hands.1,
        };
        let k = exit_key(s);
        let (idx, table) = self.tables[k]
            .as_deref()
            .unwrap_or_else(|| panic!("exit table {s} is loaded before its pair is solved"));
        let slot = idx.slot(us, them);
        table.prefetch(slot);
        (k, slot)
    }

    /// The number, index and table of the subspace with these counts, if
    /// it is loaded.
    #[inline]
    fn entry(
        &self,
        us: u8,
        them: u8,
        hands: (u8, u8),
    ) -> Option<(usize, &SubspaceIndex<'static>, &Table)> {
        let k = exit_key(Subspace {
            us,
            them,
            us_hand: hands.0,
            them_hand: hands.1,
        });
        self.tables[k]
            .as_deref()
            .map(|(idx, table)| (k, idx, table))
    }

    /// The value at counter 0 in table `k` at `slot` (see [`Exits::locate`]);
    /// `None` for a slot marked unused.
    #[inline]
    fn value_at(&self, k: usize, slot: u64) -> Option<Value> {
        self.tables[k].as_deref().expect("located").1.value(slot)
    }
}

/// What the moves of a position show before propagation.
#[derive(Default)]
struct Outlook {
    moves: usize,
    /// Distinct in-pair child classes.
    in_pair: usize,
    /// Shallowest lost exit child (the game ending counts as loss in 0).
    min_exit_loss: Option<u32>,
    /// Deepest won exit child.
    max_exit_win: Option<u32>,
    exit_draw: bool,
}

impl Outlook {
    fn exit(&mut self, child: Option<Value>) {
        match child {
            Some(Value::Loss(d)) => {
                self.min_exit_loss = Some(self.min_exit_loss.map_or(d, |m| m.min(d)));
            }
            Some(Value::Win(d)) => self.max_exit_win = self.max_exit_win.max(Some(d)),
            Some(Value::Draw) | None => self.exit_draw = true,
        }
    }
}

struct Pair<'a> {
    board: &'static Board,
    /// The twin subspaces (one when they are the same).
    subs: Vec<Subspace>,
    rules: &'a Rules,
    encoding: Encoding,
    exits: &'a Exits,
    idx: Vec<SubspaceIndex<'static>>,
    values: Vec<Vec<AtomicU16>>,
    counts: Vec<Vec<AtomicU8>>,
    /// Per slot with in-pair children, what its exits say (see
    /// [`ExitSummary`]), so that a position whose last in-pair child is
    /// decided needs no second pass over its moves.
    exit_summary: Vec<Vec<AtomicU8>>,
    /// Per subspace, the slots decided with each code (`lists[code]`), for
    /// the level of that code to read. A slot whose tentative exit win is
    /// overwritten by a shorter one stays in its old list: readers skip a
    /// slot whose code is no longer the list's.
    decided: Vec<Mutex<Vec<Vec<u32>>>>,
    /// Puts each level's sources in slot order.
    slot_order: Mutex<slot_order::SlotOrder>,
    max_code: AtomicU16,
    /// The subspace whose mover flies while the other's does not, if any:
    /// it is initialised second, and reads its children's values from the
    /// first when most of those are decided by then ([`StartValue`]).
    informed: Option<usize>,
    /// The other subspace's positions decided for good by its
    /// initialisation, a byte each ([`StartValue`]), made before the
    /// informed subspace is initialised; unset when it is not read.
    start: OnceLock<Vec<u8>>,
    /// [`INFORMED_SHARE`], or another share in tests.
    informed_share: f64,
    /// Moves followed (initialisation) and predecessors visited
    /// (propagation), for [`Progress::visits`].
    visits: AtomicU64,
}

/// Decisions of one task, `(code, slot)`, before they join the lists.
type Decisions = Vec<(u16, u32)>;

impl Pair<'_> {
    fn other(&self, i: usize) -> usize {
        if self.idx.len() == 1 { 0 } else { 1 - i }
    }

    /// Moves a task's decisions in subspace `i` to the shared lists.
    fn enlist(&self, i: usize, local: &mut Decisions) {
        if local.is_empty() {
            return;
        }
        let mut lists = self.decided[i]
            .lock()
            .expect("no task panics holding the lists");
        for &(code, slot) in local.iter() {
            let c = code as usize;
            if lists.len() <= c {
                lists.resize_with(c + 1, Vec::new);
            }
            lists[c].push(slot);
        }
        local.clear();
    }

    /// What an exit child's value means here: under the N-move rule the
    /// mill resets the counter, so only whether the child is decided
    /// counts, not how deep.
    #[inline]
    fn exit_value(&self, child: Option<Value>) -> Option<Value> {
        match (self.encoding, child) {
            (Encoding::NMove(_), Some(Value::Loss(_))) => Some(Value::Loss(0)),
            (Encoding::NMove(_), Some(Value::Win(_))) => Some(Value::Win(0)),
            _ => child,
        }
    }

    /// Moves of `(us, them)`: in-pair child classes counted, exits
    /// summarised.
    fn outlook(
        &self,
        i: usize,
        us: PointSet,
        them: PointSet,
        children: &mut Vec<u64>,
        removals: &mut Removals,
    ) -> Outlook {
        let mut lookups = Vec::new();
        let mut o = self.outlook_deferred(i, us, them, children, removals, &mut lookups);
        for (k, slot) in lookups {
            self.fold(&mut o, k, slot);
        }
        o
    }

    /// Folds a located child into a position's outlook: an exit table's
    /// value, or ([`IN_PAIR`]) an in-pair child of the informed subspace,
    /// an exit if decided for good, else counted.
    #[inline]
    fn fold(&self, o: &mut Outlook, k: usize, slot: u64) {
        if k == IN_PAIR {
            match StartValue(self.start()[slot as usize]).read() {
                Some(v) => o.exit(Some(v)),
                None => o.in_pair += 1,
            }
        } else {
            o.exit(self.exit_value(self.exits.value_at(k, slot)));
        }
    }

    /// Like [`Pair::outlook`], but the exits to read are only located (and
    /// asked into cache) into `lookups`, for the caller to fold in later:
    /// reading them at once would wait for memory at every one.
    fn outlook_deferred(
        &self,
        i: usize,
        us: PointSet,
        them: PointSet,
        children: &mut Vec<u64>,
        removals: &mut Removals,
        lookups: &mut Vec<(usize, u64)>,
    ) -> Outlook {
        let child_idx = &self.idx[self.other(i)];
        let side = child_idx.prepare(them);
        let mut o = Outlook::default();
        children.clear();
        // Two moves reach the same class only through a symmetry fixing
        // `them`: without one, every quiet move is a distinct child and
        // counting them needs no child slots.
        let symmetric = side.stabiliser != 0;
        let mut quiet = 0;
        // A placement (Lasker) leaves the pair: the mover has a stone more
        // on the board and one less in hand.
        let (us_hand, them_hand) = (self.subs[i].us_hand, self.subs[i].them_hand);
        let placed = |us2: PointSet| (us2.len() > us.len()) as u8;
        // Every placement that removes nothing leads to one exit table,
        // with `them` to move: that side of its index is prepared once.
        let placing = if us_hand > 0 {
            let counts = (them.len() as u8, us.len() as u8 + 1);
            self.exits
                .entry(counts.0, counts.1, (them_hand, us_hand - 1))
                .map(|(k, idx, table)| (k, idx, table, idx.prepare(them)))
        } else {
            None
        };
        // The placements' children differ from `us` by one stone each.
        let placements = placing
            .as_ref()
            .map(|(_, idx, _, side)| idx.placements(side, us));
        // Informed: every quiet child's slot, to read its value.
        let informed = self.informed == Some(i) && self.start.get().is_some();
        let mut moved = None;
        // Sliding without symmetry or reading, in a block whose side to
        // move the initialisation prepared: the slides that close no mill
        // are only counted ([`Slides`]). A lone position (in propagation)
        // would pay more to prepare than it saves.
        let counting = us_hand == 0
            && !symmetric
            && !informed
            && !self.rules.mill_wins()
            && !self.rules.flies(us.len())
            && SLIDES.with_borrow(|slides| slides.is_for(self.board, us));
        let mut on_step = |step| match step {
            Outcome::Quiet(us2) if placed(us2) == 1 => {
                let (k, _, table, _) = placing
                    .as_ref()
                    .expect("the placements' exit table is loaded");
                let slot = placements
                    .as_ref()
                    .expect("prepared with the table")
                    .slot(us2);
                table.prefetch(slot);
                lookups.push((*k, slot));
            }
            Outcome::Quiet(us2) if informed => {
                // The steps of one stone come together: the rank terms
                // of the others are prepared once for all its targets.
                let rest = us.intersect(us2);
                if moved.as_ref().is_none_or(|(r, _)| *r != rest) {
                    moved = Some((rest, child_idx.placements(&side, rest)));
                }
                let (_, targets) = moved.as_ref().expect("set above");
                children.push(targets.slot(us2));
            }
            Outcome::Quiet(us2) if symmetric => children.push(child_idx.slot_with(&side, us2)),
            Outcome::Quiet(_) => quiet += 1,
            Outcome::Wins => o.exit(Some(Value::Loss(0))),
            Outcome::Capture(us2, them2) => lookups.push(self.exits.locate(
                them2,
                us2,
                (them_hand, us_hand - placed(us2)),
            )),
        };
        let mut counted = 0;
        o.moves = if counting {
            SLIDES.with_borrow(|slides| {
                let (q, n) = slides.outcomes(
                    self.board,
                    self.rules,
                    them,
                    them_hand,
                    removals,
                    &mut on_step,
                );
                counted = q;
                q + n
            })
        } else {
            for_each_outcome(
                self.board,
                self.rules,
                us,
                them,
                us_hand,
                them_hand,
                removals,
                &mut on_step,
            )
        };
        quiet += counted;
        if symmetric {
            children.sort_unstable();
            children.dedup();
        }
        o.in_pair = if informed {
            // Read with the exits, a batch later ([`Pair::fold`]).
            let start = self.start();
            for &c in children.iter() {
                prefetch(&start[c as usize]);
                lookups.push((IN_PAIR, c));
            }
            0
        } else if symmetric {
            children.len()
        } else {
            quiet
        };
        o
    }

    /// The snapshot of [`Pair::start`]; made before it is read.
    #[inline]
    fn start(&self) -> &[u8] {
        self.start
            .get()
            .expect("the snapshot is made before the informed side starts")
    }

    /// The start values of subspace `k` after its initialisation.
    fn snapshot(&self, k: usize) -> Vec<u8> {
        let win_in_1 = self.encoding.code_of(true, 1);
        self.values[k]
            .par_iter()
            .zip(self.counts[k].par_iter())
            .map(|(v, c)| {
                let code = v.load(Relaxed);
                StartValue::of(self.encoding, code, win_in_1, c.load(Relaxed)).0
            })
            .collect()
    }

    fn initialise(&self, progress: &dyn Progress) -> Result<(), SolveError> {
        let order: Vec<usize> = match self.informed {
            Some(k) => vec![self.other(k), k],
            None => (0..self.idx.len()).collect(),
        };
        for i in order {
            if Some(i) == self.informed {
                // Reading every child costs more than pushing to the
                // predecessors of the few positions decided at the start,
                // unless most are: so in the larger flying pairs.
                let snapshot = self.snapshot(self.other(i));
                let decided = snapshot.par_iter().filter(|&&b| b != 0).count();
                if decided as f64 >= self.informed_share * snapshot.len() as f64 {
                    self.start.set(snapshot).expect("made once");
                }
            }
            let idx = &self.idx[i];
            let failure = std::sync::Mutex::new(None);
            if self.by_families(i) {
                self.initialise_by_families(i, progress, &failure);
                if let Some(e) = failure.into_inner().unwrap() {
                    return Err(e);
                }
                continue;
            }
            (0..idx.orbits()).into_par_iter().for_each_init(
                || {
                    (
                        Vec::new(),
                        Removals::default(),
                        Vec::new(),
                        Vec::new(),
                        Vec::new(),
                    )
                },
                |(children, removals, waiting, lookups, local), orbit| {
                    // One shared update per block: a shared maximum updated
                    // per slot makes the cores fight over its cache line.
                    let mut max_code = 0;
                    let mut moves = 0;
                    // The side to move is the block's representative.
                    let rep = idx.orbit_rep(orbit).0;
                    SLIDES.with_borrow_mut(|slides| slides.prepare(self.board, rep));
                    idx.for_each_in_block(orbit, |slot, us, them, canonical| {
                        if !canonical {
                            self.values[i][slot as usize].store(UNUSED, Relaxed);
                            return;
                        }
                        let first = lookups.len();
                        let o = self.outlook_deferred(i, us, them, children, removals, lookups);
                        moves += o.moves as u64;
                        waiting.push(Waiting {
                            slot,
                            blocked_draws: blocked_draws(self.board, self.rules, us, them),
                            outlook: o,
                            exits: first..lookups.len(),
                        });
                        // The exits are read a batch later, so that the
                        // prefetches have time to arrive.
                        if waiting.len() == EXIT_BATCH {
                            let m = self.settle(i, waiting, lookups, local, &failure);
                            max_code = max_code.max(m);
                        }
                    });
                    max_code = max_code.max(self.settle(i, waiting, lookups, local, &failure));
                    self.max_code.fetch_max(max_code, Relaxed);
                    self.visits.fetch_add(moves, Relaxed);
                    self.enlist(i, local);
                    progress.advance(idx.block_size());
                },
            );
            if let Some(e) = failure.into_inner().unwrap() {
                return Err(e);
            }
        }
        if let (Some(k), Some(start)) = (self.informed, self.start.get()) {
            // The informed side read these as exits: they must not count
            // down its positions a second time.
            let first = self.other(k);
            let mut lists = self.decided[first]
                .lock()
                .expect("no task panics holding the lists");
            for list in lists.iter_mut() {
                list.retain(|&slot| StartValue(start[slot as usize]).read().is_none());
            }
        }
        Ok(())
    }

    /// Reads the exits of the waiting positions and stores their first
    /// values (or their counts of in-pair children), noting the decided
    /// ones in `local`; returns the largest code stored.
    fn settle(
        &self,
        i: usize,
        waiting: &mut Vec<Waiting>,
        lookups: &mut Vec<(usize, u64)>,
        local: &mut Decisions,
        failure: &Mutex<Option<SolveError>>,
    ) -> u16 {
        let mut max_code = 0;
        for w in waiting.drain(..) {
            let mut o = w.outlook;
            for &(k, slot) in &lookups[w.exits] {
                self.fold(&mut o, k, slot);
            }
            let in_pair = o.in_pair;
            let code = if o.moves == 0 {
                if w.blocked_draws {
                    DRAW
                } else {
                    self.encoding.code_of(false, 0)
                }
            } else if let Some(m) = o.min_exit_loss {
                self.encoding.code_of(true, m + 1)
            } else if in_pair == 0 {
                if o.exit_draw {
                    DRAW
                } else {
                    self.encoding
                        .code_of(false, o.max_exit_win.unwrap_or(0) + 1)
                }
            } else {
                if in_pair > u8::MAX as usize {
                    *failure.lock().unwrap() =
                        Some(SolveError::CounterOverflow { children: in_pair });
                }
                self.counts[i][w.slot as usize].store(in_pair as u8, Relaxed);
                self.exit_summary[i][w.slot as usize].store(ExitSummary::of(&o).0, Relaxed);
                DRAW
            };
            self.values[i][w.slot as usize].store(code, Relaxed);
            if code != DRAW {
                local.push((code, w.slot as u32));
            }
            max_code = max_code.max(code);
        }
        lookups.clear();
        max_code
    }

    /// Processes every position decided at depth `d`; returns how many.
    ///
    /// Memory-bound work is ordered: predecessor slots are first gathered
    /// per batch of sources and sorted, then applied range by range, each
    /// range by one thread walking its slots in increasing order. Random
    /// read-modify-writes across gigabytes would cost a cache miss each.
    fn level(&self, d: u32) -> u64 {
        // The pure game's codes tell a win from a loss by the depth's
        // parity; the N-move rule's have both at each depth.
        let kinds: &[bool] = match self.encoding {
            Encoding::Plies => &[d.is_multiple_of(2)],
            Encoding::NMove(_) | Encoding::Signed => &[true, false],
        };
        let mut done = 0;
        for &lost in kinds {
            done += self.level_of(d, lost);
        }
        done
    }

    /// Processes the positions lost (`lost`) or won at depth `d`.
    fn level_of(&self, d: u32, lost: bool) -> u64 {
        let code_d = self.encoding.code_of(!lost, d);
        let mut done = 0;
        for i in 0..self.idx.len() {
            let mut sources = {
                let mut lists = self.decided[i]
                    .lock()
                    .expect("no task panics holding the lists");
                lists
                    .get_mut(code_d as usize)
                    .map(std::mem::take)
                    .unwrap_or_default()
            };
            // In slot order, the sources' values are read in one sweep
            // instead of a cache miss each, and the sources of one orbit
            // block share its stones.
            self.slot_order
                .lock()
                .expect("no task panics holding the bitmap")
                .sort(&mut sources, self.idx[i].slots());
            // Large batches give each destination part many updates, so
            // the cost of bringing the part into cache is shared.
            for batch in sources.chunks(1 << 23) {
                let (lists, n) = self.gather(i, code_d, batch);
                done += n;
                if n > 0 {
                    self.apply(self.other(i), d, lost, &lists);
                }
            }
        }
        done
    }

    /// The predecessor slots of the positions of subspace `i` among
    /// `sources` whose code is still `code_d`: one list per chunk of
    /// sources, grouped by destination part (slot >> PART_BITS) with the
    /// offsets of the groups (a counting sort, cheaper than sorting).
    fn gather(&self, i: usize, code_d: u16, sources: &[u32]) -> (Vec<Grouped>, u64) {
        let idx = &self.idx[i];
        let pred_idx = &self.idx[self.other(i)];
        let values = &self.values[i];
        let parts = (pred_idx.slots() >> PART_BITS) as usize + 1;
        let flying_three = pred_idx.us() == 3
            && self.subs[i].them_hand == 0
            && self.rules.flies(3)
            && !self.rules.mill_wins();
        let lists: Vec<(Grouped, u64)> = sources
            .par_chunks(1 << 13)
            .map_init(Vec::new, |preds, chunk| {
                let mut all = Vec::new();
                let mut n = 0;
                let mover_hand = self.subs[i].them_hand;
                // The orbit block of the last source: its stones and the
                // symmetries fixing them.
                let mut block = None;
                // Every predecessor has `us` as its other side: each of
                // their images is found once per block.
                let mut images = Images::new(PointSet(0));
                // The predecessor slots of the current block by the rank of
                // their mover's stones, when those are three that fly.
                let mut slots_of: Option<(u64, Vec<u32>)> = None;
                for (j, &slot) in chunk.iter().enumerate() {
                    // Sparse sources are a line each even in slot order.
                    if let Some(&ahead) = chunk.get(j + 16) {
                        prefetch(&values[ahead as usize]);
                    }
                    if values[slot as usize].load(Relaxed) != code_d {
                        continue;
                    }
                    n += 1;
                    let slot64 = slot as u64;
                    let (us, stabiliser) = match block {
                        Some((start, end, us, stab)) if (start..end).contains(&slot64) => {
                            (us, stab)
                        }
                        _ => {
                            let orbit = slot64 / idx.block_size();
                            let (us, stab) = idx.orbit_rep(orbit);
                            let start = orbit * idx.block_size();
                            block = Some((start, start + idx.block_size(), us, stab));
                            images = Images::new(us);
                            (us, stab)
                        }
                    };
                    let them = idx.other_side(us, slot64);
                    preds.clear();
                    if flying_three {
                        // Worth a table of the block's predecessor slots
                        // when enough of its sources come now.
                        let (start, end, ..) = block.expect("set above");
                        if slots_of.as_ref().is_none_or(|(s, _)| *s != start) {
                            let rest = &chunk[j..];
                            let here = rest.partition_point(|&x| (x as u64) < end);
                            if here >= FLYING_TABLE_SOURCES {
                                slots_of = Some((
                                    start,
                                    flying::predecessor_slots(
                                        pred_idx,
                                        self.board.all.minus(us),
                                        &mut images,
                                    ),
                                ));
                            }
                        }
                    }
                    match &slots_of {
                        Some((start, table)) if block.is_some_and(|b| b.0 == *start) => {
                            let free = self.board.all.minus(us);
                            for_each_quiet_unmove(
                                self.board,
                                self.rules,
                                us,
                                them,
                                mover_hand,
                                |mover| preds.push(table[flying::three_rank(mover, free)]),
                            );
                        }
                        _ => {
                            // The movers' orbits are looked up all at once,
                            // then each predecessor's slot found.
                            for_each_quiet_unmove(
                                self.board,
                                self.rules,
                                us,
                                them,
                                mover_hand,
                                |mover| preds.push(pred_idx.side_rank(mover)),
                            );
                            for p in preds.iter_mut() {
                                let side = pred_idx.prepare_ranked(*p);
                                *p = pred_idx.slot_with_images(&side, &mut images) as u32;
                            }
                        }
                    }
                    // As for children: repeats need a symmetry fixing `us`.
                    if stabiliser != 0 {
                        preds.sort_unstable();
                        preds.dedup();
                    }
                    all.extend_from_slice(preds);
                }
                self.visits.fetch_add(all.len() as u64, Relaxed);
                (Grouped::new(&all, parts), n)
            })
            .collect();
        let n = lists.iter().map(|l| l.1).sum();
        (lists.into_iter().map(|l| l.0).collect(), n)
    }

    /// Applies the news "a child is decided at depth `d`" to the listed
    /// predecessor slots of subspace `o`, one destination part per task so
    /// that each slot is touched by one thread and the part stays in cache.
    fn apply(&self, o: usize, d: u32, lost_child: bool, lists: &[Grouped]) {
        let won = self.encoding.code_of(true, d + 1);
        let parts = (self.idx[o].slots() >> PART_BITS) as usize + 1;
        (0..parts).into_par_iter().for_each_init(
            || (Vec::new(), Removals::default(), Vec::new(), Vec::new()),
            |(children, removals, local, slots), part| {
                let mut max_code = 0;
                // The part's updates from every list in one run, so that
                // the reads ahead reach across the lists' small groups.
                slots.clear();
                for list in lists {
                    slots.extend_from_slice(list.group(part));
                }
                for (j, &p) in slots.iter().enumerate() {
                    if let Some(&ahead) = slots.get(j + 16) {
                        prefetch(&self.values[o][ahead as usize]);
                        if !lost_child {
                            prefetch(&self.counts[o][ahead as usize]);
                            prefetch(&self.exit_summary[o][ahead as usize]);
                        }
                    }
                    let cell = &self.values[o][p as usize];
                    let v = cell.load(Relaxed);
                    if lost_child {
                        if v == DRAW || (is_win(v) && v > won) {
                            cell.store(won, Relaxed);
                            local.push((won, p));
                            max_code = max_code.max(won);
                        }
                        continue;
                    }
                    if v != DRAW {
                        continue;
                    }
                    let count = &self.counts[o][p as usize];
                    // A decrement below zero would mean the unmove and move
                    // generators disagree: a bug to stop at, never to hide.
                    let c = count
                        .load(Relaxed)
                        .checked_sub(1)
                        .expect("a predecessor without a matching move");
                    count.store(c, Relaxed);
                    if c == 0 {
                        // Every in-pair child is won: a loss unless an exit draws.
                        let summary = ExitSummary(self.exit_summary[o][p as usize].load(Relaxed));
                        let exits = summary.read().unwrap_or_else(|| {
                            let (us, them) = self.idx[o].position(p as u64).expect("slot in range");
                            let ex = self.outlook(o, us, them, children, removals);
                            (ex.exit_draw, ex.max_exit_win)
                        });
                        if let (false, max_exit_win) = exits {
                            let deepest = max_exit_win.map_or(d, |m| m.max(d));
                            let code = self.encoding.code_of(false, deepest + 1);
                            cell.store(code, Relaxed);
                            local.push((code, p));
                            max_code = max_code.max(code);
                        }
                    }
                }
                self.max_code.fetch_max(max_code, Relaxed);
                self.enlist(o, local);
            },
        );
    }
}

/// A position as its initialisation left it, in a byte: decided for good
/// (a loss: all its moves were exits, or none; a win in 1, than which no
/// win is shorter; a draw through an exit with no child to wait for), or
/// 0, a value that propagation may still set or change.
#[derive(Clone, Copy)]
struct StartValue(u8);

impl StartValue {
    const DRAW: u8 = 1;
    const WIN_IN_1: u8 = 2;
    /// `LOSS + d`: lost in `d`; deeper losses are left to propagation.
    const LOSS: u8 = 3;

    #[inline]
    fn of(encoding: Encoding, code: u16, win_in_1: u16, count: u8) -> StartValue {
        StartValue(match code {
            DRAW if count == 0 => Self::DRAW,
            c if c == win_in_1 => Self::WIN_IN_1,
            c if is_loss(c) => match encoding.value(c) {
                Some(Value::Loss(d)) if d <= (u8::MAX - Self::LOSS) as u32 => Self::LOSS + d as u8,
                _ => 0,
            },
            _ => 0,
        })
    }

    #[inline]
    fn read(self) -> Option<Value> {
        match self.0 {
            0 => None,
            Self::DRAW => Some(Value::Draw),
            Self::WIN_IN_1 => Some(Value::Win(1)),
            l => Some(Value::Loss((l - Self::LOSS) as u32)),
        }
    }
}

/// Of twin subspaces `subs`, the one to initialise second, reading the
/// first's values: one whose mover flies (many predecessors a position,
/// each a whole index computation to find) while the other's does not.
/// The first's positions decided for good at the start then never
/// propagate: their predecessors took them as exits.
fn informed_subspace(rules: &Rules, subs: &[Subspace]) -> Option<usize> {
    if subs.len() != 2 || subs.iter().any(|s| s.us_hand + s.them_hand > 0) {
        return None;
    }
    let flies = |i: usize| rules.flies(subs[i].us as u32);
    (0..2).find(|&i| flies(i) && !flies(1 - i))
}

/// The least share of the first subspace's slots decided for good at the
/// start for the informed subspace to read them. Reading one child at a
/// time, only the pairs with most decided gained (7-3 with 52 %; 6-3 with
/// 36 % broke even); summed by families ([`flying`]) every flying pair of
/// the standard game gains (4-3, 9 % decided, 1.8 times; 6-3 2 times),
/// since the positions decided at the start then need no propagation.
const INFORMED_SHARE: f64 = 0.0;

/// The table number of a located in-pair child ([`Pair::fold`]).
const IN_PAIR: usize = usize::MAX;

/// Sources of one block in a chunk from which gathering tabulates the
/// block's flying predecessors ([`flying::predecessor_slots`]): a source
/// has about 42, a table 680 on the standard board.
const FLYING_TABLE_SOURCES: usize = 16;

/// Positions whose exits are read together in the initialisation.
const EXIT_BATCH: usize = 32;

/// A position of the initialisation whose exits are located, not read.
struct Waiting {
    slot: u64,
    /// Without a move, a draw rather than a loss ([`blocked_draws`]).
    blocked_draws: bool,
    /// Its moves so far; the in-pair children of the informed subspace
    /// are counted with the exits.
    outlook: Outlook,
    /// Its exits in the batch's lookups.
    exits: std::ops::Range<usize>,
}

/// The exits of a position that waits for its in-pair children, in a
/// byte: 0 none won or drawn, `1 + d` the deepest won exit at depth `d`,
/// [`ExitSummary::DRAW`] an exit that draws, [`ExitSummary::DEEP`] too deep
/// to keep (read the moves again).
#[derive(Clone, Copy)]
struct ExitSummary(u8);

impl ExitSummary {
    const DRAW: u8 = 255;
    const DEEP: u8 = 254;

    fn of(o: &Outlook) -> ExitSummary {
        ExitSummary(if o.exit_draw {
            Self::DRAW
        } else {
            match o.max_exit_win {
                None => 0,
                Some(d) if d + 1 < Self::DEEP as u32 => d as u8 + 1,
                Some(_) => Self::DEEP,
            }
        })
    }

    /// (an exit draws, the deepest won exit), or `None` to read the moves.
    fn read(self) -> Option<(bool, Option<u32>)> {
        match self.0 {
            Self::DRAW => Some((true, None)),
            Self::DEEP => None,
            0 => Some((false, None)),
            d => Some((false, Some(d as u32 - 1))),
        }
    }
}

/// Destination parts of 2^18 slots: a part's values and counts (768 KB)
/// stay in a core's cache while its updates are applied.
const PART_BITS: u32 = 18;

/// Slots grouped by destination part.
struct Grouped {
    slots: Vec<u32>,
    /// `offsets[part]..offsets[part + 1]` is the group of `part`.
    offsets: Vec<u32>,
}

impl Grouped {
    fn new(all: &[u32], parts: usize) -> Grouped {
        let mut offsets = vec![0u32; parts + 1];
        for &p in all {
            offsets[(p >> PART_BITS) as usize + 1] += 1;
        }
        for k in 1..=parts {
            offsets[k] += offsets[k - 1];
        }
        let mut next = offsets.clone();
        let mut slots = vec![0u32; all.len()];
        for &p in all {
            let g = &mut next[(p >> PART_BITS) as usize];
            slots[*g as usize] = p;
            *g += 1;
        }
        Grouped { slots, offsets }
    }

    fn group(&self, part: usize) -> &[u32] {
        &self.slots[self.offsets[part] as usize..self.offsets[part + 1] as usize]
    }
}

/// Marks the draws of an N-move rule table that the pure game decides:
/// cursed wins and blessed losses. Checks on the way that the rule only
/// turns wins and losses into draws.
pub fn mark_cursed(table: Table, pure: &Table) -> Result<Table, SolveError> {
    let encoding = table.encoding();
    let s = table.subspace;
    let codes: Vec<u16> = (0..table.len())
        .map(|slot| match (table.value(slot), pure.value(slot)) {
            (Some(Value::Draw), Some(Value::Win(_))) => Ok(encoding.cursed_code(true)),
            (Some(Value::Draw), Some(Value::Loss(_))) => Ok(encoding.cursed_code(false)),
            (Some(Value::Win(_)), Some(Value::Win(_)))
            | (Some(Value::Loss(_)), Some(Value::Loss(_)))
            | (Some(Value::Draw), Some(Value::Draw))
            | (None, None) => Ok(table.code(slot)),
            (rule, pure) => Err(SolveError::RuleAgainstPure {
                subspace: s,
                slot,
                rule,
                pure,
            }),
        })
        .collect::<Result<_, SolveError>>()?;
    Ok(Table::from_codes(s, &codes).with_encoding(encoding))
}

/// Solves the subspace `s` with its twin ([`Subspace::twin`]; one subspace
/// when they are the same) and returns their tables, `s` first. Moves on
/// the board that remove nothing stay in the pair; every other move leads
/// to a table that must be in `exits`. A pair with stones in hand needs
/// Lasker rules (otherwise its positions only place, and
/// the placing builder computes them in one forward pass).
pub fn solve_twins(
    rules: &Rules,
    s: Subspace,
    exits: &Exits,
    progress: &dyn Progress,
) -> Result<Vec<Table>, SolveError> {
    solve_twins_sharing(rules, s, exits, progress, INFORMED_SHARE)
}

/// [`solve_twins`] with the informed subspace reading the other's start
/// values when at least `share` of them are decided ([`INFORMED_SHARE`]).
fn solve_twins_sharing(
    rules: &Rules,
    s: Subspace,
    exits: &Exits,
    progress: &dyn Progress,
    share: f64,
) -> Result<Vec<Table>, SolveError> {
    if !s.is_moving() && !rules.lasker {
        return Err(SolveError::NotMoving { subspace: s });
    }
    let board = rules.board();
    let indexer = Indexer::for_board(board);
    let subs: Vec<Subspace> = if s == s.twin() {
        vec![s]
    } else {
        vec![s, s.twin()]
    };
    let idx: Vec<SubspaceIndex<'static>> = subs
        .iter()
        .map(|s| indexer.subspace(s.us, s.them))
        .collect();
    let slots: u64 = idx.iter().map(|i| i.slots()).sum();
    if let Some(big) = idx.iter().find(|i| i.slots() > u32::MAX as u64) {
        return Err(SolveError::TooManySlots {
            subspace: Subspace::moving(big.us(), big.them()),
            slots: big.slots(),
        });
    }
    let encoding = Encoding::of(rules, s.is_moving());
    let pair = Pair {
        board,
        subs: subs.clone(),
        rules,
        encoding,
        exits,
        values: idx
            .iter()
            .map(|i| huge_vec_par(i.slots() as usize, || AtomicU16::new(DRAW)))
            .collect(),
        counts: idx
            .iter()
            .map(|i| huge_vec_par(i.slots() as usize, || AtomicU8::new(0)))
            .collect(),
        exit_summary: idx
            .iter()
            .map(|i| huge_vec_par(i.slots() as usize, || AtomicU8::new(0)))
            .collect(),
        decided: idx.iter().map(|_| Mutex::new(Vec::new())).collect(),
        slot_order: Mutex::default(),
        idx,
        max_code: AtomicU16::new(0),
        informed: informed_subspace(rules, &subs),
        informed_share: share,
        start: OnceLock::new(),
        visits: AtomicU64::new(0),
    };
    progress.stage("initialise", slots);
    pair.initialise(progress)?;
    // The bar counts decided positions against all slots: it ends below
    // full by the share of draws and unused slots.
    progress.stage("propagate", slots);
    // Under the N-move rule a position decided at depth N has predecessors
    // at N + 1, which no counter lets win: they stay drawn.
    let last = match encoding {
        Encoding::NMove(n) => n as u32,
        _ => value::MAX_DEPTH,
    };
    let mut d = 0u32;
    while d < last && encoding.code_of(false, d) <= pair.max_code.load(Relaxed) {
        progress.advance(pair.level(d));
        d += 1;
    }
    if d >= value::MAX_DEPTH {
        return Err(SolveError::DepthOverflow { depth: d });
    }
    progress.visits(pair.visits.load(Relaxed));
    let Pair { values, .. } = pair;
    Ok(subs
        .iter()
        .zip(values)
        .map(|(&s, v)| {
            let codes: Vec<u16> = v.into_iter().map(AtomicU16::into_inner).collect();
            Table::from_codes(s, &codes).with_encoding(encoding)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placing_subspace_is_refused_with_a_typed_error() {
        let rules = Rules::STANDARD;
        let s: Subspace = "3-3-1-1".parse().unwrap();
        let exits = Exits::new(rules.board());
        let Err(e) = solve_twins(&rules, s, &exits, &NoProgress) else {
            panic!("{s} solved as a moving pair");
        };
        assert_eq!(e, SolveError::NotMoving { subspace: s });
        assert!(
            e.to_string()
                .contains("only Lasker rules move during placing"),
            "{e}"
        );
    }

    use crate::index::moving_subspaces;

    /// A flying pair's informed side reading its children's start values
    /// gives the tables of the plain count-down, for rules that change
    /// what is decided at the start (mill wins, the N-move rule's depths,
    /// other boards).
    #[test]
    fn informed_initialisation_gives_the_same_tables() {
        for spec in [
            "standard,stones=4",
            "twelve,stones=4",
            "six,flying=on",
            "standard,stones=4,nmove=8",
            "standard,stones=4,mill=wins",
        ] {
            let rules: Rules = spec.parse().unwrap();
            let mut exits = Exits::new(rules.board());
            let mut pairs = moving_subspaces(&rules);
            pairs.sort_by_key(|s| s.us + s.them);
            let mut informed = 0;
            for s in pairs {
                if exits.has(s) {
                    continue;
                }
                let always = solve_twins_sharing(&rules, s, &exits, &NoProgress, 0.0).unwrap();
                let never = solve_twins_sharing(&rules, s, &exits, &NoProgress, 2.0).unwrap();
                for (a, b) in always.iter().zip(&never) {
                    let codes = |t: &Table| (0..t.len()).map(|i| t.code(i)).collect::<Vec<_>>();
                    assert!(
                        codes(a) == codes(b),
                        "{spec}, {}: the tables differ",
                        a.subspace
                    );
                }
                let flies = |n: u8| rules.flies(n as u32);
                informed += (s.us != s.them && flies(s.us) != flies(s.them)) as usize;
                for t in never {
                    exits.insert(t);
                }
            }
            assert!(informed > 0, "{spec}: no pair has an informed side");
        }
    }
}
