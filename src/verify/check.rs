//! Forward verification of finished tables, independent of the solver.
//!
//! Every slot of a table is checked against the tables of its children,
//! using only forward move generation ([`crate::moves::legal_moves`] and
//! [`Position::play`]) and the indexer; nothing from the solver's unmove
//! path or its propagation is used. A stored value is right when it equals
//! the best child value from the mover's side (the fastest win, else a
//! draw, else the slowest loss), a blocked position is a loss in 0, and an
//! unused slot is exactly a slot whose position is not its class's
//! canonical form. Together these local conditions pin down every win and
//! loss with its plies (induction on the plies), and leave draws exactly
//! where neither side can force a win.

use crate::geometry::PointSet;
use crate::index::{
    Indexer, PreparedSide, Subspace, SubspaceIndex, colex_rank, moving_subspaces, pack,
    placing_subspaces,
};
use crate::moves::{Move, RemovalSets, blocked_draws, for_each_move_family};
use crate::position::{ByColor, Color, Position};
use crate::rules::Rules;
use crate::table::{Table, TableError, TableFolder};
use crate::value::{Encoding, Value};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use xxhash_rust::xxh3::xxh3_64;

/// One slot whose stored value is wrong.
#[derive(Clone, Debug)]
pub struct BadSlot {
    /// The subspace.
    pub subspace: Subspace,
    /// The slot.
    pub slot: u64,
    /// The position (board string, White to move).
    pub position: String,
    /// What the table says (`None`: marked unused).
    pub stored: Option<Value>,
    /// What the children say (`None`: the slot should be unused).
    pub expected: Option<Value>,
}

/// The outcome of checking one subspace.
#[derive(Clone, Debug)]
pub struct SubspaceCheck {
    /// The subspace.
    pub subspace: Subspace,
    /// Slots checked.
    pub slots: u64,
    /// Slots whose value is wrong.
    pub bad: u64,
    /// The first few wrong slots, in slot order.
    pub first_bad: Vec<BadSlot>,
    /// Seconds taken.
    pub seconds: f64,
    /// Found consistent by an earlier recorded check against the same
    /// tables (see [`CheckRecord`]): only its checksums were checked now.
    pub earlier: bool,
}

const KEEP_BAD: usize = 5;

/// Positions whose children are located before any child is read.
const CHECK_BATCH: usize = 32;

/// Where a child's value is.
#[derive(Clone, Copy)]
enum Child {
    /// The mover took the opponent below 3 stones: a loss in 0 for the
    /// child's side to move.
    Lost,
    /// In the checker's child table with this number, at this slot.
    At(u32, u64),
}

/// Codes below this have their parent's preference in a child table's
/// [`Ranked`] arrays; higher ones (and unused slots) are computed.
const RANKED_CODES: usize = 1024;

/// A child table with, for each of its small codes, the preference of the
/// value it gives the parent ([`preference`]), by whether the move closed
/// a mill: the best child is then a maximum over integers, and one value
/// per table and code is decoded instead of one per child.
/// The order is check's own, not the placing builder's, so that a fault
/// in one cannot hide in the other.
struct Ranked<'t> {
    table: &'t Table,
    by_mill: [Vec<u32>; 2],
}

impl<'t> Ranked<'t> {
    /// The arrays of `table` for a parent whose codes read as `encoding`.
    fn new(table: &'t Table, encoding: Encoding, moving: bool) -> Ranked<'t> {
        let by_mill = [false, true].map(|mill| {
            (0..RANKED_CODES as u16)
                .map(|c| {
                    table
                        .encoding()
                        .value(c)
                        .map_or(0, |v| parent_preference(encoding, moving, v, mill))
                })
                .collect()
        });
        Ranked { table, by_mill }
    }
}

/// Depths a [`preference`] holds (more than any code can say).
const PREFERENCE_DEPTH: u32 = (1 << 30) - 1;

/// The parent's preference of a value (larger is better for the side to
/// move): the shortest win, then a draw, then the longest loss. 0 is kept
/// for a child slot marked unused.
#[inline]
fn preference(v: Value) -> u32 {
    const DEPTH: u32 = PREFERENCE_DEPTH;
    match v {
        Value::Win(d) => 3 << 30 | (DEPTH - d.min(DEPTH)),
        Value::Draw => 2 << 30,
        Value::Loss(d) => 1 << 30 | d.min(DEPTH),
    }
}

/// The preference of a child's value `v` for its parent, in a table of
/// `encoding` (under the N-move rule a moving-phase child is reached at
/// counter 1, or 0 after a mill: see `Encoding::after_move`).
#[inline]
fn parent_preference(encoding: Encoding, moving: bool, v: Value, mill: bool) -> u32 {
    let v = if moving {
        encoding.after_move(v, mill)
    } else {
        v
    };
    preference(v.parent())
}

/// The value of a [`preference`] (not 0).
#[inline]
fn preferred_value(p: u32) -> Value {
    const DEPTH: u32 = PREFERENCE_DEPTH;
    match p >> 30 {
        3 => Value::Win(DEPTH - (p & DEPTH)),
        2 => Value::Draw,
        _ => Value::Loss(p & DEPTH),
    }
}

/// A slot waiting for its children's values.
struct Waiting {
    slot: u64,
    expect: Expect,
}

/// What a waiting slot should hold.
enum Expect {
    /// Marked unused: the position is not its class's canonical form.
    Unused,
    /// This value: the position has no moves.
    Known(Value),
    /// The best of its children: these in the batch's list, and the
    /// best of those already read from a child block or a memo.
    Children(std::ops::Range<usize>, Best),
}

/// The best of some children's preferences for their parent: the
/// largest, and whether one was 0 (a child slot marked unused).
#[derive(Clone, Copy, Default)]
struct Best {
    best: u32,
    unused: bool,
}

/// The tables of `folder`'s rules there are to check: every moving and
/// placing table, or the moving ones alone when the placing phase is not
/// built (a `--no-placing` build), said by the flag.
pub fn built_subspaces(folder: &TableFolder) -> (Vec<Subspace>, bool) {
    let rules = folder.rules();
    let placing = placing_subspaces(rules);
    let mut all = moving_subspaces(rules);
    let built = placing.last().is_some_and(|&s| folder.exists(s));
    if built {
        all.extend(placing);
    }
    (all, built)
}

/// Checks the tables of `subspaces` (all checksums, then every slot
/// against its children). Table errors (missing, corrupt) stop the check.
pub fn check_subspaces(
    folder: &TableFolder,
    subspaces: &[Subspace],
    report: impl FnMut(&SubspaceCheck),
) -> Result<Vec<SubspaceCheck>, TableError> {
    check_with(folder, subspaces, None, true, report)
}

/// [`check_subspaces`] visiting every table's positions in slot order
/// instead of grouped by the other side's stones: for tests that compare
/// the two.
#[doc(hidden)]
pub fn check_subspaces_in_slot_order(
    folder: &TableFolder,
    subspaces: &[Subspace],
    report: impl FnMut(&SubspaceCheck),
) -> Result<Vec<SubspaceCheck>, TableError> {
    check_with(folder, subspaces, None, false, report)
}

/// [`check_subspaces`] that resumes: a table `record` holds as consistent
/// against the same tables (the same file checksums of it, its children
/// and, under the N-move rule, the pure game's table) has only its
/// checksums checked; every table found consistent is added to `record`
/// and the record written at once, so that a check of a whole game can be
/// stopped and run again.
pub fn check_subspaces_recorded(
    folder: &TableFolder,
    subspaces: &[Subspace],
    record: &mut CheckRecord,
    report: impl FnMut(&SubspaceCheck),
) -> Result<Vec<SubspaceCheck>, TableError> {
    check_with(folder, subspaces, Some(record), true, report)
}

fn check_with(
    folder: &TableFolder,
    subspaces: &[Subspace],
    mut record: Option<&mut CheckRecord>,
    by_them: bool,
    mut report: impl FnMut(&SubspaceCheck),
) -> Result<Vec<SubspaceCheck>, TableError> {
    let rules = folder.rules();
    let mut loaded: HashMap<Subspace, Table> = HashMap::new();
    let mut out = Vec::new();
    let mut sums = Checksums::default();
    for &s in subspaces {
        let start = std::time::Instant::now();
        folder.open(s)?.verify()?;
        let needed = children_subspaces(rules, s);
        let fingerprint = match record {
            Some(_) => Some(sums.fingerprint(folder, s, &needed)?),
            None => None,
        };
        if let (Some(r), Some(f)) = (record.as_deref(), fingerprint)
            && r.holds(s, f)
        {
            let result = SubspaceCheck {
                subspace: s,
                slots: folder.slots(s),
                bad: 0,
                first_bad: Vec::new(),
                seconds: start.elapsed().as_secs_f64(),
                earlier: true,
            };
            report(&result);
            out.push(result);
            continue;
        }
        loaded.retain(|k, _| needed.contains(k));
        for &n in &needed {
            if let std::collections::hash_map::Entry::Vacant(e) = loaded.entry(n) {
                e.insert(folder.load(n)?);
            }
        }
        // Under the N-move rule, the pure game's table tells which draws
        // are cursed wins and blessed losses.
        let pure = match rules.nmove {
            Some(_) if s.is_moving() => Some(folder.with_rules(&rules.pure()).load(s)?),
            _ => None,
        };
        let mut checker = SubspaceChecker::new(rules, s, &loaded, pure.as_ref());
        checker.by_them = by_them;
        let mut result = checker.run();
        result.seconds = start.elapsed().as_secs_f64();
        if let (Some(r), Some(f)) = (record.as_deref_mut(), fingerprint)
            && result.bad == 0
        {
            r.add(s, f)?;
        }
        report(&result);
        out.push(result);
    }
    Ok(out)
}

/// The file checksums of the tables met so far in one check.
#[derive(Default)]
struct Checksums(HashMap<(Subspace, bool), u64>);

impl Checksums {
    /// One number for the tables the check of `s` reads: `s`, `needed`
    /// and, under the N-move rule, the pure game's table of `s`.
    fn fingerprint(
        &mut self,
        folder: &TableFolder,
        s: Subspace,
        needed: &[Subspace],
    ) -> Result<u64, TableError> {
        let mut bytes = Vec::new();
        for &n in std::iter::once(&s).chain(needed) {
            bytes.extend_from_slice(&self.of(folder, n, false)?.to_le_bytes());
        }
        if folder.rules().nmove.is_some() && s.is_moving() {
            bytes.extend_from_slice(&self.of(folder, s, true)?.to_le_bytes());
        }
        Ok(xxh3_64(&bytes))
    }

    fn of(&mut self, folder: &TableFolder, s: Subspace, pure: bool) -> Result<u64, TableError> {
        if let Some(&sum) = self.0.get(&(s, pure)) {
            return Ok(sum);
        }
        let sum = if pure {
            folder.with_rules(&folder.rules().pure()).open(s)?
        } else {
            folder.open(s)?
        }
        .info()
        .file_checksum;
        self.0.insert((s, pure), sum);
        Ok(sum)
    }
}

/// The tables a recorded check ([`check_subspaces_recorded`]) found
/// consistent, by rule set: the file `checked.json` beside the moving-phase
/// tables of the rules checked (and their `stats.json`).
pub struct CheckRecord {
    path: PathBuf,
    rules: String,
    all: BTreeMap<String, BTreeMap<String, String>>,
}

impl CheckRecord {
    /// The record of `folder` (empty if there is none yet). A record that
    /// cannot be read is an error, not a reason to check everything again
    /// silently.
    pub fn open(folder: &TableFolder) -> Result<CheckRecord, TableError> {
        let path = folder.moving_dir().join("checked.json");
        let all = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                TableError::Io(
                    path.clone(),
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("not a record of checked tables ({e}); remove it to check anew"),
                    ),
                )
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(TableError::Io(path, e)),
        };
        Ok(CheckRecord {
            path,
            rules: folder.rules().canonical(),
            all,
        })
    }

    /// Where the record is kept.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Whether `s` was found consistent against the tables of `fingerprint`.
    fn holds(&self, s: Subspace, fingerprint: u64) -> bool {
        self.all
            .get(&self.rules)
            .and_then(|m| m.get(&s.to_string()))
            .is_some_and(|f| *f == format!("{fingerprint:016x}"))
    }

    /// Records `s` as consistent and writes the record (through a
    /// temporary file, so that a stop leaves the old one or the new one).
    fn add(&mut self, s: Subspace, fingerprint: u64) -> Result<(), TableError> {
        self.all
            .entry(self.rules.clone())
            .or_default()
            .insert(s.to_string(), format!("{fingerprint:016x}"));
        let tmp = self.path.with_extension("tmp");
        let text = serde_json::to_string_pretty(&self.all).expect("serialisable");
        std::fs::write(&tmp, text)
            .and_then(|_| std::fs::rename(&tmp, &self.path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                TableError::Io(self.path.clone(), e)
            })
    }
}

/// The tables a position of `s` (side to move first) and its children need.
fn children_subspaces(rules: &Rules, s: Subspace) -> Vec<Subspace> {
    let mut out = vec![s];
    if !s.is_moving() {
        out.extend(crate::index::child_subspaces(rules, s));
        return out;
    }
    // After a move the opponent is to move with `b` stones or fewer
    // (captures), against our `w`.
    for x in 3..=s.them {
        out.push(Subspace::moving(x, s.us));
    }
    out.sort_by_key(|t| (t.us, t.them));
    out.dedup();
    out
}

/// The check of one table: each position's value computed again from its
/// children's tables and compared with the stored one, a batch of
/// positions at a time.
struct SubspaceChecker<'t> {
    rules: &'t Rules,
    s: Subspace,
    /// How the codes read; under the N-move rule a child's value reaches
    /// its parent through the counter (see `Encoding::after_move`).
    encoding: Encoding,
    index: SubspaceIndex<'static>,
    table: &'t Table,
    /// The pure game's table under the N-move rule: it tells which draws
    /// are cursed wins and blessed losses.
    pure: Option<&'t Table>,
    /// The children's tables and indexes by stone counts, for cheap
    /// lookups. A side with stones in hand places one (and under Lasker
    /// rules may move a stone instead); without, it moves a stone. So a
    /// child's stones in hand are those of `s` swapped, one fewer for the
    /// mover if it placed: `by_counts[placed]`.
    by_counts: [Vec<Option<(SubspaceIndex<'static>, u32)>>; 2],
    /// The child tables, numbered as `by_counts` and [`Child::At`] give.
    ranked: Vec<Ranked<'t>>,
    /// The preference of [`Child::Lost`], by whether the move closed a mill.
    lost: [u32; 2],
    /// Whether the mover places (has stones in hand).
    placed: u8,
    /// The quiet children's table (no capture, by a placement when the
    /// mover has stones in hand): the mover's stones stay `them`, so their
    /// side of the index is prepared once per position.
    quiet: (SubspaceIndex<'static>, u32),
    /// Under Lasker rules, when the mover places: the table of the steps
    /// on the board that remove nothing (the hands stay), whose children
    /// also lie in one orbit block of it.
    slides: Option<(SubspaceIndex<'static>, u32)>,
    /// The index of the other side's stones first (`them`, `us`): its
    /// blocks group the positions by the quiet children's block.
    mirror: SubspaceIndex<'static>,
    /// Whether the table is checked from the other side's blocks
    /// ([`Self::check_by_them`]) rather than in slot order.
    by_them: bool,
    /// Whether a mill-closing move earns the same removals whatever mills
    /// it closes, so that its worth depends only on the stones after it
    /// (see `CheckScratch::closing`).
    closing_memo: bool,
    bad_count: AtomicU64,
}

/// One block's buffers.
#[derive(Default)]
struct CheckScratch {
    waiting: Vec<Waiting>,
    children: Vec<(Child, bool)>,
    bad: Vec<BadSlot>,
    /// The parent's preference of each slot of the current quiet child
    /// block, by rank ([`SubspaceChecker::check_by_them`]).
    block: Vec<u32>,
    /// The same for the block of the slides' table, under Lasker rules.
    slide_block: Vec<u32>,
    /// Removal sets, made once per opponent while it stays.
    removal_sets: RemovalSets,
    /// In a block of the other side's stones: the child tables' side to
    /// move after a move that removed one stone, by whether it placed and
    /// that stone's point, prepared when first met.
    captured: Vec<Option<PreparedSide>>,
    /// In a block of the other side's stones: what a move that closes a
    /// mill is worth to the parent, by the rank of the stones after it
    /// ([`NOT_KNOWN`]: not judged yet). Its captures depend on those
    /// stones alone (the opponent is the block's), and each such set is
    /// reached from several positions (a placement's from up to three).
    closing: Vec<u32>,
    /// The mill-closing moves of the batch whose worth goes into
    /// `closing` when judged: the rank, and their children in the list.
    groups: Vec<(usize, std::ops::Range<usize>)>,
}

/// The child blocks of one block of the other side's stones, as the
/// parent's preferences by rank ([`SubspaceChecker::check_by_them`]).
#[derive(Clone, Copy)]
struct Blocks<'a> {
    /// The points the other side's stones (the blocks' representative)
    /// leave free.
    free: PointSet,
    /// The quiet moves' child block.
    quiet: &'a [u32],
    /// Under Lasker rules, when the mover places: the slides' child block.
    slides: Option<&'a [u32]>,
}

/// A mill-closing move whose worth is not known yet.
const NOT_KNOWN: u32 = u32::MAX;

impl<'t> SubspaceChecker<'t> {
    fn new(
        rules: &'t Rules,
        s: Subspace,
        tables: &'t HashMap<Subspace, Table>,
        pure: Option<&'t Table>,
    ) -> SubspaceChecker<'t> {
        let indexer = Indexer::for_board(rules.board());
        let placed = (s.us_hand > 0) as u8;
        let child_hand = s.them_hand;
        let encoding = Encoding::of(rules, s.is_moving());
        let moving = s.is_moving();
        let mut by_counts: [Vec<Option<(SubspaceIndex<'static>, u32)>>; 2] =
            std::array::from_fn(|_| (0..25 * 25).map(|_| None).collect());
        let mut ranked = Vec::new();
        for (t, table) in tables {
            let mut id = None;
            for (p, counts) in by_counts.iter_mut().enumerate() {
                if t.us_hand == child_hand
                    && p as u8 <= s.us_hand
                    && t.them_hand == s.us_hand - p as u8
                {
                    let id = *id.get_or_insert_with(|| {
                        ranked.push(Ranked::new(table, encoding, moving));
                        ranked.len() as u32 - 1
                    });
                    counts[t.us as usize * 25 + t.them as usize] =
                        Some((indexer.subspace(t.us, t.them), id));
                }
            }
        }
        let lost =
            [false, true].map(|mill| parent_preference(encoding, moving, Value::Loss(0), mill));
        let mover_after = s.us as usize + placed as usize;
        let quiet = by_counts[placed as usize][s.them as usize * 25 + mover_after]
            .clone()
            .expect("the quiet child's table is loaded");
        let slides = (placed == 1 && rules.lasker)
            .then(|| by_counts[0][s.them as usize * 25 + s.us as usize].clone())
            .flatten();
        SubspaceChecker {
            rules,
            s,
            encoding,
            index: indexer.subspace(s.us, s.them),
            table: &tables[&s],
            pure,
            by_counts,
            ranked,
            lost,
            placed,
            quiet,
            slides,
            mirror: indexer.subspace(s.them, s.us),
            by_them: true,
            closing_memo: rules.double_mill == crate::rules::DoubleMill::One,
            bad_count: AtomicU64::new(0),
        }
    }

    fn run(self) -> SubspaceCheck {
        let mut first_bad = if self.by_them {
            // Every slot a class does not own must be marked unused; the
            // classes themselves are checked from the other side's blocks.
            let mut bad = self.blocks(self.index.orbits(), |orbit, scratch| {
                self.check_duplicates(orbit, scratch)
            });
            bad.extend(self.blocks(self.mirror.orbits(), |orbit, scratch| {
                self.check_by_them(orbit, scratch)
            }));
            bad
        } else {
            self.blocks(self.index.orbits(), |orbit, scratch| {
                self.check_block(orbit, scratch)
            })
        };
        first_bad.sort_by_key(|b| b.slot);
        first_bad.truncate(KEEP_BAD);
        SubspaceCheck {
            subspace: self.s,
            slots: self.index.slots(),
            bad: self.bad_count.into_inner(),
            first_bad,
            seconds: 0.0,
            earlier: false,
        }
    }

    /// Runs `check` on every block `0..blocks` in parallel; the first bad
    /// slots found.
    fn blocks(&self, blocks: u64, check: impl Fn(u64, &mut CheckScratch) + Sync) -> Vec<BadSlot> {
        (0..blocks)
            .into_par_iter()
            .fold(CheckScratch::default, |mut scratch, orbit| {
                check(orbit, &mut scratch);
                scratch
            })
            .map(|scratch| scratch.bad)
            .reduce(Vec::new, |mut a, b| {
                a.extend(b);
                a
            })
    }

    /// Checks the positions of one orbit block.
    fn check_block(&self, orbit: u64, scratch: &mut CheckScratch) {
        self.index
            .for_each_in_block(orbit, |slot, us, them, canonical| {
                let expect = if canonical {
                    self.expect(us, them, None, scratch)
                } else {
                    Expect::Unused
                };
                self.wait(slot, expect, scratch);
            });
        self.judge(scratch);
    }

    /// Checks that the slots of one orbit block that no class owns are
    /// marked unused (a block whose representative no symmetry fixes has
    /// none).
    fn check_duplicates(&self, orbit: u64, scratch: &mut CheckScratch) {
        if self.index.orbit_rep(orbit).1 == 0 {
            return;
        }
        self.index
            .for_each_in_block(orbit, |slot, _, _, canonical| {
                if !canonical {
                    self.wait(slot, Expect::Unused, scratch);
                }
            });
        self.judge(scratch);
    }

    /// Checks the classes of one orbit block of the other side's stones
    /// (`mirror`): the child of every quiet move (a placement while the
    /// mover has stones in hand, else a step or a flight, removing
    /// nothing) then lies
    /// in one orbit block of the quiet child table, which is read once
    /// into the parent's preferences, and a quiet child costs a rank and
    /// a `max`. The position's own slot is the random read.
    fn check_by_them(&self, orbit: u64, scratch: &mut CheckScratch) {
        let (rep, stabiliser) = self.mirror.orbit_rep(orbit);
        // A block whose representative a symmetry fixes holds duplicate
        // slots: its quiet children are located one by one.
        let block = (stabiliser == 0).then(|| self.rules.board().all.minus(rep));
        if block.is_some() {
            self.preferences_of_block(&self.quiet, rep, &mut scratch.block);
            if let Some(slides) = &self.slides {
                self.preferences_of_block(slides, rep, &mut scratch.slide_block);
            }
        }
        let mut prefs = std::mem::take(&mut scratch.block);
        let mut slide_prefs = std::mem::take(&mut scratch.slide_block);
        scratch.captured.clear();
        scratch
            .captured
            .resize(2 * crate::geometry::MAX_POINTS, None);
        scratch.closing.clear();
        if block.is_some() && self.closing_memo {
            scratch.closing.resize(prefs.len(), NOT_KNOWN);
        }
        self.mirror
            .for_each_in_block(orbit, |_, them, us, canonical| {
                if !canonical {
                    return;
                }
                let slot = self.index.slot(us, them);
                self.table.prefetch(slot);
                if let Some(pure) = self.pure {
                    pure.prefetch(slot);
                }
                let quiet = block.map(|free| Blocks {
                    free,
                    quiet: &prefs,
                    slides: self.slides.as_ref().map(|_| slide_prefs.as_slice()),
                });
                let expect = self.expect(us, them, quiet, scratch);
                self.wait(slot, expect, scratch);
            });
        self.judge(scratch);
        prefs.clear();
        scratch.block = prefs;
        slide_prefs.clear();
        scratch.slide_block = slide_prefs;
    }

    /// Fills `out` with the parent's preference of each slot of the orbit
    /// block of `rep` (which no symmetry fixes) in the child table `table`,
    /// by rank.
    fn preferences_of_block(
        &self,
        (index, table): &(SubspaceIndex<'static>, u32),
        rep: PointSet,
        out: &mut Vec<u32>,
    ) {
        let side = index.prepare(rep);
        // The child table's orbits are those of the same stone count.
        assert!(side.rep == rep && side.stabiliser == 0);
        let ranked = &self.ranked[*table as usize];
        out.clear();
        out.extend((0..index.block_size()).map(|r| {
            let code = ranked.table.code(side.base + r) as usize;
            match ranked.by_mill[0].get(code) {
                Some(&p) => p,
                None => self.preference_of(ranked.table, code as u16, false),
            }
        }));
    }

    /// What the position `(us, them)` should hold, its children located.
    /// With `quiet`, the child blocks of `them` (see [`Blocks`]), its
    /// quiet moves (and under Lasker rules its slides that remove nothing)
    /// are read from there, and the worth of its mill-closing moves kept
    /// in the block's memo.
    #[inline]
    fn expect(
        &self,
        us: PointSet,
        them: PointSet,
        quiet: Option<Blocks<'_>>,
        scratch: &mut CheckScratch,
    ) -> Expect {
        let pos = self.position(us, them);
        let CheckScratch {
            removal_sets,
            children,
            captured,
            closing,
            groups,
            ..
        } = scratch;
        let first = children.len();
        let mut best = Best::default();
        let mut fold = |p: u32| {
            best.unused |= p == 0;
            best.best = best.best.max(p);
        };
        let mut prepared = None;
        let mut moves = false;
        let packed = quiet.map_or(0, |b| pack(us, b.free));
        for_each_move_family(&pos, self.rules, removal_sets, |from, to, removed| {
            moves = true;
            let mut locate = |children: &mut Vec<(Child, bool)>, memo: bool| {
                for &removed in removed {
                    let m = Move { from, to, removed };
                    let captured = memo.then_some(captured.as_mut_slice());
                    self.locate(&pos, &m, &mut prepared, captured, children);
                }
            };
            let Some(blocks) = quiet else {
                return locate(children, false);
            };
            // The child (them to move, `us` after the move) is in the
            // block, at the colex rank of its stones packed onto the
            // block's free points.
            let bit = |p| pack(PointSet::single(p), blocks.free);
            let after = match from {
                Some(f) => packed & !bit(f) | bit(to),
                None => packed | bit(to),
            };
            let rank = colex_rank(PointSet(after)) as usize;
            // A placement while the mover has stones in hand, else a step:
            // without a capture, its child is in the quiet child table.
            if from.is_none() != (self.placed == 1) {
                // A step while the mover has stones in hand (Lasker): its
                // child keeps the hands, in the slides' table.
                match blocks.slides {
                    Some(slides) if removed == [PointSet::EMPTY] => fold(slides[rank]),
                    _ => locate(children, true),
                }
                return;
            }
            if removed == [PointSet::EMPTY] {
                fold(blocks.quiet[rank]);
            } else if closing.is_empty() {
                locate(children, true);
            } else if closing[rank] != NOT_KNOWN {
                fold(closing[rank]);
            } else {
                let at = children.len();
                locate(children, true);
                groups.push((rank, at..children.len()));
            }
        });
        if !moves {
            return Expect::Known(if blocked_draws(self.rules.board(), self.rules, us, them) {
                Value::Draw
            } else {
                Value::Loss(0)
            });
        }
        Expect::Children(first..children.len(), best)
    }

    /// Queues a slot; a full batch is judged.
    #[inline]
    fn wait(&self, slot: u64, expect: Expect, scratch: &mut CheckScratch) {
        scratch.waiting.push(Waiting { slot, expect });
        if scratch.waiting.len() == CHECK_BATCH {
            self.judge(scratch);
        }
    }

    /// The position with `us` (White here) to move against `them`.
    #[inline]
    fn position(&self, us: PointSet, them: PointSet) -> Position {
        Position {
            stones: ByColor {
                white: us,
                black: them,
            },
            hand: ByColor {
                white: self.s.us_hand,
                black: self.s.them_hand,
            },
            to_move: Color::White,
        }
    }

    /// Finds where the value of move `m`'s child is and asks it into
    /// cache: a batch of positions is located before any child is read,
    /// so that the cache misses overlap. `prepared`: the quiet child
    /// table's side for `pos`'s other side, made on first use;
    /// `captured`: the sides after moves that remove one stone, by
    /// its point, while the other side's stones stay.
    #[inline]
    fn locate(
        &self,
        pos: &Position,
        m: &Move,
        prepared: &mut Option<PreparedSide>,
        captured: Option<&mut [Option<PreparedSide>]>,
        children: &mut Vec<(Child, bool)>,
    ) {
        let (by_counts, child_hand, placed) = (&self.by_counts, self.s.them_hand, self.placed);
        let them = pos.stones.black;
        let child = pos.play(m);
        // Black is to move in the child.
        let (cu, ct) = (child.stones.black, child.stones.white);
        let by_placing = m.from.is_none();
        let at = if cu == them && by_placing == (placed == 1) {
            let side = prepared.get_or_insert_with(|| self.quiet.0.prepare(them));
            Child::At(self.quiet.1, self.quiet.0.slot_with(side, ct))
        } else if cu.len() + (child_hand as u32) < 3 {
            Child::Lost
        } else {
            let (index, table) = by_counts[by_placing as usize]
                [cu.len() as usize * 25 + ct.len() as usize]
                .as_ref()
                .expect("the tables of every child are loaded");
            let side = match captured {
                Some(memo) if m.removed.len() == 1 => *memo[by_placing as usize
                    * crate::geometry::MAX_POINTS
                    + m.removed.0.trailing_zeros() as usize]
                    .get_or_insert_with(|| index.prepare(cu)),
                _ => index.prepare(cu),
            };
            Child::At(*table, index.slot_with(&side, ct))
        };
        if let Child::At(t, slot) = at {
            self.ranked[t as usize].table.prefetch(slot);
        }
        children.push((at, cu != them));
    }

    /// The best child value from the mover's side, the children already
    /// read giving `read`; `None` if a child's slot is marked unused: then
    /// no stored value can be right.
    #[inline]
    fn best_of(&self, children: &[(Child, bool)], read: Best) -> Option<Value> {
        let children = self.worth(children);
        let best = read.best.max(children.best);
        (!read.unused && !children.unused && best != 0).then(|| preferred_value(best))
    }

    /// The best of some children's preferences for the parent, and
    /// whether one was 0.
    #[inline]
    fn worth(&self, children: &[(Child, bool)]) -> Best {
        let mut worth = Best::default();
        for &(at, mill) in children {
            let p = match at {
                Child::Lost => self.lost[mill as usize],
                Child::At(t, slot) => {
                    let ranked = &self.ranked[t as usize];
                    let code = ranked.table.code(slot) as usize;
                    match ranked.by_mill[mill as usize].get(code) {
                        Some(&p) => p,
                        None => self.preference_of(ranked.table, code as u16, mill),
                    }
                }
            };
            worth.unused |= p == 0;
            worth.best = worth.best.max(p);
        }
        worth
    }

    /// The parent's preference of a child's code beyond [`Ranked`]'s
    /// arrays (0 for a slot marked unused).
    #[cold]
    fn preference_of(&self, table: &Table, code: u16, mill: bool) -> u32 {
        table.encoding().value(code).map_or(0, |v| {
            parent_preference(self.encoding, self.s.is_moving(), v, mill)
        })
    }

    /// Whether a draw is marked cursed or blessed exactly where the pure
    /// game decides it.
    #[inline]
    fn cursed_right(&self, slot: u64) -> bool {
        match self.pure {
            None => true,
            Some(p) => {
                self.encoding.cursed(self.table.code(slot))
                    == match p.value(slot) {
                        Some(Value::Win(_)) => Some(true),
                        Some(Value::Loss(_)) => Some(false),
                        _ => None,
                    }
            }
        }
    }

    /// Compares the waiting positions' stored values with their children's.
    fn judge(&self, scratch: &mut CheckScratch) {
        for (rank, children) in scratch.groups.drain(..) {
            let w = self.worth(&scratch.children[children]);
            let p = if w.unused { 0 } else { w.best };
            if p != NOT_KNOWN {
                scratch.closing[rank] = p;
            }
        }
        for w in scratch.waiting.drain(..) {
            let canonical = !matches!(w.expect, Expect::Unused);
            let expected = match w.expect {
                Expect::Unused => None,
                Expect::Known(v) => Some(v),
                Expect::Children(r, read) => self.best_of(&scratch.children[r], read),
            };
            let stored = self.table.value(w.slot);
            let ok = match (canonical, stored) {
                (false, None) => true,
                (true, Some(Value::Draw)) => {
                    expected == Some(Value::Draw) && self.cursed_right(w.slot)
                }
                (true, Some(v)) => expected == Some(v),
                _ => false,
            };
            if !ok {
                self.bad_count.fetch_add(1, Relaxed);
                // The first in slot order are kept, whatever the order
                // of the visit.
                let last = scratch.bad.iter().map(|b| b.slot).max();
                if scratch.bad.len() < KEEP_BAD || last.is_some_and(|l| w.slot < l) {
                    let (us, them) = self.index.position(w.slot).expect("a slot of the table");
                    scratch.bad.push(BadSlot {
                        subspace: self.s,
                        slot: w.slot,
                        position: self.position(us, them).board_string(self.rules),
                        stored,
                        expected,
                    });
                    scratch.bad.sort_by_key(|b| b.slot);
                    scratch.bad.truncate(KEEP_BAD);
                }
            }
        }
        scratch.children.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::best_first;

    #[test]
    fn preferences_order_values_as_best_first_and_give_them_back() {
        let mut values = vec![Value::Draw];
        for d in [0, 1, 2, 3, 10, 99, 100, 255, 256, 1000, 65_535] {
            values.push(Value::Win(d));
            values.push(Value::Loss(d));
        }
        for &a in &values {
            assert_ne!(preference(a), 0, "{a:?}");
            assert_eq!(preferred_value(preference(a)), a);
            for &b in &values {
                // Larger preference: earlier in `best_first` order.
                assert_eq!(
                    preference(a).cmp(&preference(b)),
                    best_first(&b).cmp(&best_first(&a)),
                    "{a:?} against {b:?}"
                );
            }
        }
    }
}
