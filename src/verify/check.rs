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
use crate::index::{Indexer, Subspace, SubspaceIndex};
use crate::moves::{blocked_draws, legal_moves};
use crate::position::{ByColor, Color, Position};
use crate::rules::Rules;
use crate::table::{Table, TableError, TableFolder};
use crate::value::best_first;
use crate::value::{Encoding, Value};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

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
}

const KEEP_BAD: usize = 5;

/// Positions whose children are located before any child is read.
const CHECK_BATCH: usize = 32;

/// Where a child's value is.
#[derive(Clone, Copy)]
enum Child<'t> {
    /// The mover took the opponent below 3 stones: a loss in 0 for the
    /// child's side to move.
    Lost,
    /// In this table at this slot.
    At(&'t Table, u64),
}

/// A slot waiting for its children's values.
struct Waiting {
    slot: u64,
    us: PointSet,
    them: PointSet,
    expect: Expect,
}

/// What a waiting slot should hold.
enum Expect {
    /// Marked unused: the position is not its class's canonical form.
    Unused,
    /// This value: the position has no moves.
    Known(Value),
    /// The best of its children, these in the batch's list.
    Children(std::ops::Range<usize>),
}

/// Checks the tables of `subspaces` (all checksums, then every slot
/// against its children). Table errors (missing, corrupt) stop the check.
pub fn check_subspaces(
    folder: &TableFolder,
    subspaces: &[Subspace],
    mut report: impl FnMut(&SubspaceCheck),
) -> Result<Vec<SubspaceCheck>, TableError> {
    let rules = folder.rules();
    let mut loaded: HashMap<Subspace, Table> = HashMap::new();
    let mut out = Vec::new();
    for &s in subspaces {
        let start = std::time::Instant::now();
        folder.open(s)?.verify()?;
        let needed = children_subspaces(rules, s);
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
        let mut result = check_one(rules, s, &loaded, pure.as_ref())?;
        result.seconds = start.elapsed().as_secs_f64();
        report(&result);
        out.push(result);
    }
    Ok(out)
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

fn check_one<'t>(
    rules: &Rules,
    s: Subspace,
    tables: &'t HashMap<Subspace, Table>,
    pure: Option<&Table>,
) -> Result<SubspaceCheck, TableError> {
    // How a child's value reaches its parent: in the moving phase under the
    // N-move rule it depends on the counter (see `Encoding::after_move`).
    let encoding = Encoding::of(rules, s.is_moving());
    let moving = s.is_moving();
    let after = |v: Value, mill: bool| {
        if moving {
            encoding.after_move(v, mill)
        } else {
            v
        }
    };
    let indexer = Indexer::for_board(rules.board());
    let index = indexer.subspace(s.us, s.them);
    let table = &tables[&s];
    let bad_count = AtomicU64::new(0);
    // The children's tables and indexes by stone counts, for cheap
    // lookups. A side with stones in hand places one (and under Lasker
    // rules may move a stone instead); without, it moves a stone. So a
    // child's stones in hand are those of `s` swapped, one fewer for the
    // mover if it placed: `by_counts[placed]`.
    let placed = (s.us_hand > 0) as u8;
    let child_hand = s.them_hand;
    let mut by_counts: [Vec<Option<(SubspaceIndex<'_>, &Table)>>; 2] =
        std::array::from_fn(|_| (0..25 * 25).map(|_| None).collect());
    for (t, table) in tables {
        for (p, counts) in by_counts.iter_mut().enumerate() {
            if t.us_hand == child_hand && p as u8 <= s.us_hand && t.them_hand == s.us_hand - p as u8
            {
                counts[t.us as usize * 25 + t.them as usize] =
                    Some((indexer.subspace(t.us, t.them), table));
            }
        }
    }
    // Children without a capture (by a placement when the mover has stones
    // in hand): the mover's stones stay `them`, so their side of the index
    // is prepared once per position.
    let mover_after = s.us as usize + placed as usize;
    let (quiet_index, quiet_table) = by_counts[placed as usize][s.them as usize * 25 + mover_after]
        .as_ref()
        .expect("the quiet child's table is loaded");
    let position = |us: PointSet, them: PointSet| Position {
        stones: ByColor {
            white: us,
            black: them,
        },
        hand: ByColor {
            white: s.us_hand,
            black: s.them_hand,
        },
        to_move: Color::White,
    };
    // Where each child's value is, found (and asked into cache) for a batch
    // of positions before any is read: the reads are cache misses, and
    // this lets them overlap.
    let locate =
        |pos: &Position, moves: &[crate::moves::Move], children: &mut Vec<(Child<'t>, bool)>| {
            let them = pos.stones.black;
            let prepared = quiet_index.prepare(them);
            for m in moves {
                let child = pos.play(m);
                // Black is to move in the child.
                let (cu, ct) = (child.stones.black, child.stones.white);
                let by_placing = m.from.is_none();
                let at = if cu == them && by_placing == (placed == 1) {
                    Child::At(quiet_table, quiet_index.slot_with(&prepared, ct))
                } else if cu.len() + (child_hand as u32) < 3 {
                    Child::Lost
                } else {
                    let (index, table) = by_counts[by_placing as usize]
                        [cu.len() as usize * 25 + ct.len() as usize]
                        .as_ref()
                        .expect("the tables of every child are loaded");
                    Child::At(table, index.slot(cu, ct))
                };
                if let Child::At(t, slot) = at {
                    t.prefetch(slot);
                }
                children.push((at, cu != them));
            }
        };
    // The best child value from the mover's side; `None` if a child's slot
    // is marked unused: then no stored value can be right.
    let best_of = |children: &[(Child<'_>, bool)]| -> Option<Value> {
        let mut best: Option<Value> = None;
        for &(at, mill) in children {
            let v = match at {
                Child::Lost => Value::Loss(0),
                Child::At(t, slot) => t.value(slot)?,
            };
            let v = after(v, mill).parent();
            if best.is_none_or(|b| best_first(&v) < best_first(&b)) {
                best = Some(v);
            }
        }
        best
    };
    // A draw is marked cursed or blessed exactly where the pure game
    // decides it.
    let cursed_right = |slot: u64| match pure {
        None => true,
        Some(p) => {
            encoding.cursed(table.code(slot))
                == match p.value(slot) {
                    Some(Value::Win(_)) => Some(true),
                    Some(Value::Loss(_)) => Some(false),
                    _ => None,
                }
        }
    };
    let judge = |waiting: &mut Vec<Waiting>,
                 children: &mut Vec<(Child<'t>, bool)>,
                 bad: &mut Vec<BadSlot>| {
        for w in waiting.drain(..) {
            let canonical = !matches!(w.expect, Expect::Unused);
            let expected = match w.expect {
                Expect::Unused => None,
                Expect::Known(v) => Some(v),
                Expect::Children(r) => best_of(&children[r]),
            };
            let stored = table.value(w.slot);
            let ok = match (canonical, stored) {
                (false, None) => true,
                (true, Some(Value::Draw)) => expected == Some(Value::Draw) && cursed_right(w.slot),
                (true, Some(v)) => expected == Some(v),
                _ => false,
            };
            if !ok {
                bad_count.fetch_add(1, Relaxed);
                if bad.len() < KEEP_BAD {
                    bad.push(BadSlot {
                        subspace: s,
                        slot: w.slot,
                        position: position(w.us, w.them).board_string(rules),
                        stored,
                        expected,
                    });
                }
            }
        }
        children.clear();
    };
    let mut first_bad: Vec<BadSlot> = (0..index.orbits())
        .into_par_iter()
        .fold(Vec::new, |mut bad: Vec<BadSlot>, orbit| {
            let mut moves = Vec::new();
            let mut waiting = Vec::with_capacity(CHECK_BATCH);
            let mut children = Vec::new();
            index.for_each_in_block(orbit, |slot, us, them, canonical| {
                let first = children.len();
                let expect = if !canonical {
                    Expect::Unused
                } else {
                    let pos = position(us, them);
                    legal_moves(&pos, rules, &mut moves);
                    if moves.is_empty() {
                        Expect::Known(if blocked_draws(rules.board(), rules, us, them) {
                            Value::Draw
                        } else {
                            Value::Loss(0)
                        })
                    } else {
                        locate(&pos, &moves, &mut children);
                        Expect::Children(first..children.len())
                    }
                };
                waiting.push(Waiting {
                    slot,
                    us,
                    them,
                    expect,
                });
                if waiting.len() == CHECK_BATCH {
                    judge(&mut waiting, &mut children, &mut bad);
                }
            });
            judge(&mut waiting, &mut children, &mut bad);
            bad
        })
        .reduce(Vec::new, |mut a, b| {
            a.extend(b);
            a
        });
    first_bad.sort_by_key(|b| b.slot);
    first_bad.truncate(KEEP_BAD);
    Ok(SubspaceCheck {
        subspace: s,
        slots: index.slots(),
        bad: bad_count.into_inner(),
        first_bad,
        seconds: 0.0,
    })
}
