//! Practical play: among the moves that keep a position's value, the ones
//! that give a fallible opponent the most chances to go wrong.
//!
//! The tables say what every move is worth against perfect play. Against
//! a player who errs, moves of equal value differ: after some, most of the
//! opponent's replies give their value away; after others, nearly every
//! reply holds. For each candidate move this looks one ply further, at
//! the opponent's replies in the tables, and counts the ones that worsen
//! the opponent's value (from a win to a draw or loss, from a draw to a
//! loss). A reply that loses at once is an error any searching opponent
//! sees and avoids; one whose loss lies many plies deep is an error a
//! searcher with a horizon makes. So each error counts by how deep its
//! punishment lies (see `error_weight`), and the move's score is the
//! weighted share of erring replies. docs/DESIGN.md gives the reasons.
//!
//! The candidates never change the value: in a won position only the
//! fastest wins (so a win is always converted), in a drawn one the drawing
//! moves, in a lost one every move (the longest losses first among equal
//! scores). Under the N-move rule every value is the one at the counter
//! the move leads to.

use crate::moves::{Move, next_counter};
use crate::position::Position;
use crate::query::{ProbeError, TableSet};
use crate::value::{Value, best_first};
use rayon::prelude::*;

/// A move with its practical standing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PracticalMove {
    /// The move.
    pub mv: Move,
    /// Its value for the mover, as the tables give it.
    pub value: Value,
    /// Its place in the practical order (1 = the practical choice), or
    /// `None` for a move outside the candidates (it would give value away).
    pub rank: Option<u32>,
    /// The opponent's replies after it.
    pub replies: u32,
    /// Replies that worsen the opponent's value.
    pub errors: u32,
    /// The weighted share of erring replies, in thousandths.
    pub score: u32,
}

/// Plies over which an error's weight grows: a loss deeper than this is
/// beyond the horizon of a typical heuristic search.
const HORIZON: u32 = 16;

/// How much an erring reply counts: a thrown-away win counts whole; a
/// reply that loses counts a quarter when the loss is immediate, rising to
/// whole when it lies [`HORIZON`] plies deep or more.
fn error_weight(reply: Value) -> f64 {
    match reply {
        Value::Loss(k) => 0.25 + 0.75 * f64::from(k.min(HORIZON)) / f64::from(HORIZON),
        _ => 1.0,
    }
}

fn class(v: Value) -> u8 {
    best_first(&v).0
}

/// Every legal move of `pos` (at N-move counter `counter`): the candidates
/// first, in practical order, then the other moves best first.
pub fn practical_moves(
    tables: &TableSet,
    pos: &Position,
    counter: u16,
) -> Result<Vec<PracticalMove>, ProbeError> {
    let moves = tables.probe_moves_at(pos, counter)?;
    let Some(best) = moves.first().map(|m| m.value) else {
        return Ok(Vec::new());
    };
    let candidate = |v: Value| match best {
        Value::Win(_) => v == best,
        Value::Draw => v == Value::Draw,
        Value::Loss(_) => true,
    };
    let rules = *tables.rules();
    let mut scored = moves
        .par_iter()
        .map(|m| {
            // Candidates get their place after the sort.
            let mut out = PracticalMove {
                mv: m.mv,
                value: m.value,
                rank: candidate(m.value).then_some(0),
                replies: 0,
                errors: 0,
                score: 0,
            };
            if out.rank.is_none() {
                return Ok(out);
            }
            let child = pos.play(&m.mv);
            let next = match rules.nmove {
                Some(_) => next_counter(rules.board(), pos, &m.mv, counter),
                None => 0,
            };
            if rules.nmove.is_some_and(|n| next >= n) {
                // The counter ran out: the game is over.
                return Ok(out);
            }
            let replies = tables.probe_moves_at(&child, next)?;
            let their_best = replies.first().map_or(0, |r| class(r.value));
            let mut weight = 0.0;
            for r in &replies {
                if class(r.value) > their_best {
                    out.errors += 1;
                    weight += error_weight(r.value);
                }
            }
            out.replies = replies.len() as u32;
            if !replies.is_empty() {
                out.score = (1000.0 * weight / replies.len() as f64).round() as u32;
            }
            Ok(out)
        })
        .collect::<Result<Vec<_>, ProbeError>>()?;
    // Stones on the board and in hand after the move, the mover's less the
    // opponent's: material breaks ties between equal scores.
    let material = |mv: &Move| {
        let after = pos.play(mv);
        after.total(pos.to_move) as i64 - after.total(!pos.to_move) as i64
    };
    // A stable sort keeps the tables' order among full ties.
    scored.sort_by_key(|m| {
        let candidate = m.rank.is_some();
        (
            !candidate,
            if candidate { u32::MAX - m.score } else { 0 },
            best_first(&m.value),
            -material(&m.mv),
        )
    });
    for (i, m) in scored.iter_mut().enumerate() {
        if m.rank.is_some() {
            m.rank = Some(i as u32 + 1);
        }
    }
    Ok(scored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deeper_errors_weigh_more_and_thrown_wins_most() {
        assert!(error_weight(Value::Loss(1)) < error_weight(Value::Loss(9)));
        assert_eq!(
            error_weight(Value::Loss(HORIZON)),
            error_weight(Value::Loss(99))
        );
        assert_eq!(error_weight(Value::Draw), 1.0);
        assert!(error_weight(Value::Loss(0)) > 0.0);
    }
}
