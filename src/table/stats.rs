//! Counts of a table's values: wins, draws, losses and the longest of each.

use super::Table;
use crate::value::Value;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Counts of one finished subspace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubspaceStats {
    /// E.g. `4-3`.
    pub subspace: String,
    /// Positions, each symmetry class once.
    pub positions: u64,
    /// Won for the side to move.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost for the side to move.
    pub losses: u64,
    /// Longest win in plies, if any.
    pub longest_win: Option<u32>,
    /// Longest loss in plies, if any.
    pub longest_loss: Option<u32>,
    /// N-move rule: won in the pure game, drawn at every counter.
    #[serde(default)]
    pub cursed_wins: u64,
    /// N-move rule: lost in the pure game, drawn at every counter.
    #[serde(default)]
    pub blessed_losses: u64,
}

impl SubspaceStats {
    /// Whether the counts add up (a row read back from a stats file that
    /// does not is recounted from its table).
    pub fn adds_up(&self) -> bool {
        self.wins
            .checked_add(self.draws)
            .and_then(|n| n.checked_add(self.losses))
            == Some(self.positions)
            && self.cursed_wins.saturating_add(self.blessed_losses) <= self.draws
            && (self.wins > 0) == self.longest_win.is_some()
            && (self.losses > 0) == self.longest_loss.is_some()
    }

    /// A row with nothing counted yet.
    pub fn empty(name: &str) -> SubspaceStats {
        SubspaceStats {
            subspace: name.to_string(),
            positions: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            longest_win: None,
            longest_loss: None,
            cursed_wins: 0,
            blessed_losses: 0,
        }
    }

    /// Adds another row's counts to this one (for totals).
    pub fn add(&mut self, other: &SubspaceStats) {
        self.positions += other.positions;
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.longest_win = self.longest_win.max(other.longest_win);
        self.longest_loss = self.longest_loss.max(other.longest_loss);
        self.cursed_wins += other.cursed_wins;
        self.blessed_losses += other.blessed_losses;
    }

    /// Counts the codes of a table (under the N-move rule: values at
    /// counter 0, plies meaning `Z`, and the cursed wins and blessed
    /// losses among the draws).
    pub fn of_table(table: &Table) -> SubspaceStats {
        SubspaceStats::with_plies(table).0
    }

    /// [`SubspaceStats::of_table`] and how many wins and losses take each
    /// number of plies.
    pub fn with_plies(table: &Table) -> (SubspaceStats, PliesCounts) {
        let name = table.subspace.to_string();
        let chunk = 1u64 << 20;
        (0..table.len().div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let mut part = (SubspaceStats::empty(&name), PliesCounts::default());
                part.count(table, c * chunk..((c + 1) * chunk).min(table.len()));
                part
            })
            .reduce(
                || (SubspaceStats::empty(&name), PliesCounts::default()),
                |mut a, b| {
                    a.0.add(&b.0);
                    a.1.add(&b.1);
                    a
                },
            )
    }
}

/// Counting one range of a table's slots.
trait Count {
    fn count(&mut self, table: &Table, slots: std::ops::Range<u64>);
}

impl Count for (SubspaceStats, PliesCounts) {
    fn count(&mut self, table: &Table, slots: std::ops::Range<u64>) {
        let (s, plies) = self;
        // A histogram of the codes first: one increment per slot, and each
        // distinct code decoded once.
        // (Narrow tables read their unused byte as the wide unused code.)
        let mut histogram = vec![0u32; 1 << 16];
        for slot in slots {
            histogram[table.code(slot) as usize] += 1;
        }
        let count = |v: &mut Vec<u64>, d: u32, n: u64| {
            let d = d as usize;
            if v.len() <= d {
                v.resize(d + 1, 0);
            }
            v[d] += n;
        };
        let encoding = table.encoding();
        for (code, &n) in histogram.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let (code, n) = (code as u16, n as u64);
            match encoding.value(code) {
                None => continue,
                Some(Value::Draw) => {
                    s.draws += n;
                    match encoding.cursed(code) {
                        Some(true) => s.cursed_wins += n,
                        Some(false) => s.blessed_losses += n,
                        None => {}
                    }
                }
                Some(Value::Win(d)) => {
                    s.wins += n;
                    s.longest_win = s.longest_win.max(Some(d));
                    count(&mut plies.wins, d, n);
                }
                Some(Value::Loss(d)) => {
                    s.losses += n;
                    s.longest_loss = s.longest_loss.max(Some(d));
                    count(&mut plies.losses, d, n);
                }
            }
            s.positions += n;
        }
    }
}

/// Wins and losses of a table by plies to the end: `wins[d]` positions
/// are won in `d` plies (`Z` under the N-move rule).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PliesCounts {
    /// Wins by plies.
    pub wins: Vec<u64>,
    /// Losses by plies.
    pub losses: Vec<u64>,
}

impl PliesCounts {
    /// Adds another table's (or part's) counts.
    pub fn add(&mut self, other: &PliesCounts) {
        for (mine, theirs) in [
            (&mut self.wins, &other.wins),
            (&mut self.losses, &other.losses),
        ] {
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), 0);
            }
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m += t;
            }
        }
    }
}

/// The stats file written next to the moving-phase tables (`stats.json`).
#[derive(Serialize, Deserialize)]
pub struct StatsFile {
    /// Canonical text of the rule set.
    pub rules: String,
    /// One row per subspace present.
    pub subspaces: Vec<SubspaceStats>,
    /// The file checksum of each row's table when the row was counted: a
    /// row whose table has changed since is counted again.
    #[serde(default)]
    pub checksums: Vec<u64>,
    /// A seal of each row with its checksum ([`StatsFile::seal`]): a row
    /// whose seal does not match (edited, damaged, or from a version that
    /// wrote none) is counted again.
    #[serde(default)]
    pub seals: Vec<u64>,
}

impl StatsFile {
    /// The seal of a row counted from the table with file checksum
    /// `checksum`: a checksum of every field of the row and of `checksum`.
    pub fn seal(row: &SubspaceStats, checksum: u64) -> u64 {
        let mut bytes = serde_json::to_vec(row).expect("serialisable");
        bytes.extend_from_slice(&checksum.to_le_bytes());
        xxhash_rust::xxh3::xxh3_64(&bytes)
    }

    /// The row of table `name` whose table has file checksum `checksum`,
    /// if the file holds one and its seal matches.
    pub fn sealed_row(&self, name: &str, checksum: u64) -> Option<&SubspaceStats> {
        self.subspaces
            .iter()
            .zip(&self.checksums)
            .zip(&self.seals)
            .find(|((r, c), seal)| {
                r.subspace == name
                    && **c == checksum
                    && r.adds_up()
                    && **seal == StatsFile::seal(r, checksum)
            })
            .map(|((r, _), _)| r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Subspace;

    /// The counts slot by slot, the plain way.
    fn direct(table: &Table) -> (u64, u64, u64, u64, Option<u32>, Option<u32>) {
        let (mut n, mut w, mut d, mut l) = (0, 0, 0, 0);
        let (mut lw, mut ll) = (None, None);
        for slot in 0..table.len() {
            match table.value(slot) {
                None => continue,
                Some(Value::Win(p)) => (w, lw) = (w + 1, lw.max(Some(p))),
                Some(Value::Draw) => d += 1,
                Some(Value::Loss(p)) => (l, ll) = (l + 1, ll.max(Some(p))),
            }
            n += 1;
        }
        (n, w, d, l, lw, ll)
    }

    #[test]
    fn counts_match_a_slot_by_slot_count_for_narrow_and_wide_codes() {
        let mut x = 12345u64;
        for top in [200u16, 3000] {
            // More slots than one counting chunk, every kind of code.
            let codes: Vec<u16> = (0..(3 << 20) / 2)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    match x % 10 {
                        0 => crate::value::UNUSED,
                        _ => (x >> 8) as u16 % top,
                    }
                })
                .collect();
            let table = Table::from_codes(Subspace::moving(4, 4), &codes);
            let (s, plies) = SubspaceStats::with_plies(&table);
            let want = direct(&table);
            let got = (
                s.positions,
                s.wins,
                s.draws,
                s.losses,
                s.longest_win,
                s.longest_loss,
            );
            assert_eq!(got, want, "codes below {top}");
            assert_eq!(plies.wins.iter().sum::<u64>(), s.wins);
            assert_eq!(plies.losses.iter().sum::<u64>(), s.losses);
        }
    }
}
