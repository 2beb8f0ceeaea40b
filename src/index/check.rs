//! Exhaustive round-trip check of a subspace's index.

use super::SubspaceIndex;
use rayon::prelude::*;

/// What [`check_index`] found.
pub struct IndexCheck {
    /// Slots visited.
    pub slots: u64,
    /// Slots standing for a class.
    pub canonical: u64,
    /// Descriptions of the first failures.
    pub errors: Vec<String>,
}

/// Visits every slot: the canonical position of a used slot indexes back
/// to it from all of its symmetric images; an unused slot's position
/// indexes to a smaller, used slot.
pub fn check_index(idx: &SubspaceIndex<'_>) -> IndexCheck {
    let n_syms = idx.indexer.board.symmetries.len();
    let chunk = 1 << 16;
    let n = idx.slots();
    let results: Vec<(u64, Vec<String>)> = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut canonical = 0;
            let mut errors = Vec::new();
            for slot in c * chunk..((c + 1) * chunk).min(n) {
                let (us, them) = idx.position(slot).expect("slot in range");
                let back = idx.slot(us, them);
                if back == slot {
                    canonical += 1;
                    for s in 0..n_syms {
                        let sym = |x| idx.indexer.apply_symmetry(s, x);
                        let img = idx.slot(sym(us), sym(them));
                        if img != slot && errors.len() < 10 {
                            errors.push(format!("slot {slot}: a symmetric image indexes to {img}"));
                        }
                    }
                } else if (back > slot || !idx.is_canonical(back)) && errors.len() < 10 {
                    errors.push(format!(
                        "unused slot {slot} indexes to {back}, not a smaller used slot"
                    ));
                }
            }
            (canonical, errors)
        })
        .collect();
    let mut out = IndexCheck {
        slots: n,
        canonical: 0,
        errors: Vec::new(),
    };
    for (c, e) in results {
        out.canonical += c;
        out.errors.extend(e);
    }
    out
}
