//! Building every moving-phase table of a rule set, in dependency order,
//! resumable: a pair whose tables are on disk and sound is not recomputed.

use super::{Exits, Progress, SubspaceStats, solve_pair};
use crate::index::{Indexer, Subspace};
use crate::rules::Rules;
use crate::table::{MappedTable, Table, TableError, rules_dir, table_path, table_rules};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Why a build failed.
#[derive(Debug)]
pub enum BuildError {
    /// A table could not be read or written.
    Table(TableError),
    /// Bad request (e.g. a subspace the rules do not have).
    Request(String),
    /// The solver failed.
    Solve(String),
    /// Writing the stats file failed.
    Io(PathBuf, std::io::Error),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Table(e) => write!(f, "{e}"),
            BuildError::Request(s) | BuildError::Solve(s) => f.write_str(s),
            BuildError::Io(p, e) => write!(f, "{}: {e}", p.display()),
        }
    }
}

impl std::error::Error for BuildError {}

impl From<TableError> for BuildError {
    fn from(e: TableError) -> Self {
        BuildError::Table(e)
    }
}

/// A twin pair `{w-b, b-w}`, written with the larger count first.
pub type PairId = (u8, u8);

/// The moving-phase subspaces of a rule set: 3..N stones each.
pub fn moving_subspaces(rules: &Rules) -> Vec<Subspace> {
    let n = rules.stones.min(rules.board().size / 2);
    let mut out = Vec::new();
    for w in 3..=n {
        for b in 3..=n {
            out.push(Subspace::moving(w, b));
        }
    }
    out
}

fn pair_of(s: Subspace) -> PairId {
    (s.w.max(s.b), s.w.min(s.b))
}

/// The pairs whose tables a pair's captures read.
fn dependencies(rules: &Rules, (w, b): PairId) -> Vec<PairId> {
    let most = rules.removals_per_mill as u32 * 2;
    let mut out = Vec::new();
    for (x, y) in [(w, b), (b, w)] {
        for k in 1..=most as u8 {
            if y >= k + 3 {
                out.push(pair_of(Subspace::moving(y - k, x)));
            }
        }
    }
    out
}

/// Every pair needed for `wanted` (and what they capture into), in an
/// order where each pair comes after its dependencies.
pub fn plan(rules: &Rules, wanted: &[Subspace]) -> Result<Vec<PairId>, BuildError> {
    let all = moving_subspaces(rules);
    let mut need = BTreeSet::new();
    let mut todo: Vec<PairId> = Vec::new();
    for s in wanted {
        if !all.contains(s) {
            return Err(BuildError::Request(format!(
                "subspace {s} is not a moving-phase subspace of rules {} (3..{} stones each)",
                rules.short_name(),
                rules.stones
            )));
        }
        todo.push(pair_of(*s));
    }
    while let Some(p) = todo.pop() {
        if need.insert(p) {
            todo.extend(dependencies(rules, p));
        }
    }
    let mut order: Vec<PairId> = need.into_iter().collect();
    order.sort_by_key(|&(w, b)| (w + b, w, b));
    Ok(order)
}

fn pair_subspaces((w, b): PairId) -> Vec<Subspace> {
    if w == b {
        vec![Subspace::moving(w, b)]
    } else {
        vec![Subspace::moving(w, b), Subspace::moving(b, w)]
    }
}

fn slots_of(rules: &Rules, s: Subspace) -> u64 {
    Indexer::for_board(rules.board()).subspace(s.w, s.b).slots()
}

/// Reads and decodes a finished table, checking every block.
pub fn load_table(db: &Path, rules: &Rules, s: Subspace) -> Result<Table, TableError> {
    let owner = table_rules(rules, s);
    Table::read(&table_path(db, rules, s), &owner, s, slots_of(rules, s))
}

/// Opens a finished table through a memory map, checking its header only.
pub fn open_table(db: &Path, rules: &Rules, s: Subspace) -> Result<MappedTable, TableError> {
    let owner = table_rules(rules, s);
    MappedTable::open(&table_path(db, rules, s), &owner, s, slots_of(rules, s))
}

/// What is on disk for a pair.
enum OnDisk {
    /// Every table is there and every checksum holds.
    Sound,
    /// Every table is there in format 1 (decoded here, to be rewritten).
    OldFormat(Vec<Table>),
    /// Something is missing or damaged: solve the pair.
    Solve,
}

fn on_disk(db: &Path, rules: &Rules, subs: &[Subspace]) -> OnDisk {
    let sound = subs
        .iter()
        .all(|&s| open_table(db, rules, s).and_then(|t| t.verify()).is_ok());
    if sound {
        return OnDisk::Sound;
    }
    let old: Option<Vec<Table>> = subs
        .iter()
        .map(|&s| {
            Table::read_old_format(&table_path(db, rules, s), rules, s, slots_of(rules, s)).ok()
        })
        .collect();
    old.map_or(OnDisk::Solve, OnDisk::OldFormat)
}

/// Options of a build.
pub struct BuildOptions<'a> {
    /// The table folder (the rule set's folder is made inside it).
    pub db: &'a Path,
    /// Subspaces wanted (all moving-phase subspaces when empty).
    pub subspaces: Vec<Subspace>,
    /// zstd level of the table files ([`crate::table::DEFAULT_LEVEL`]).
    pub level: i32,
}

/// What a build did.
pub struct BuildReport {
    /// Pairs computed now.
    pub computed: usize,
    /// Pairs found finished on disk.
    pub skipped: usize,
    /// Pairs found in format 1 and rewritten in the current format.
    pub converted: usize,
    /// Stats of every wanted subspace's table.
    pub stats: Vec<SubspaceStats>,
}

/// The stats file written next to the tables.
#[derive(Serialize, Deserialize)]
pub struct StatsFile {
    /// Canonical text of the rule set.
    pub rules: String,
    /// One row per subspace present.
    pub subspaces: Vec<SubspaceStats>,
}

/// Builds the moving-phase tables (resuming what is on disk). They go to
/// the folder of [`Rules::moving_rules`], shared by every stone count.
pub fn build(
    rules: &Rules,
    opts: &BuildOptions<'_>,
    progress: &dyn Progress,
) -> Result<BuildReport, BuildError> {
    let wanted = if opts.subspaces.is_empty() {
        moving_subspaces(rules)
    } else {
        opts.subspaces.clone()
    };
    let rules = &rules.moving_rules();
    let order = plan(rules, &wanted)?;
    let dir = rules_dir(opts.db, rules);
    std::fs::create_dir_all(&dir).map_err(|e| BuildError::Io(dir.clone(), e))?;
    let indexer = Indexer::for_board(rules.board());
    let mut report = BuildReport {
        computed: 0,
        skipped: 0,
        converted: 0,
        stats: Vec::new(),
    };
    let mut exits = Exits::new(rules.board());
    for (n, &pair) in order.iter().enumerate() {
        let subs = pair_subspaces(pair);
        let name = subs
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(" + ");
        let slots: u64 = subs
            .iter()
            .map(|s| indexer.subspace(s.w, s.b).slots())
            .sum();
        // Only tables later pairs read stay in memory.
        let later: BTreeSet<PairId> = order[n..]
            .iter()
            .flat_map(|&p| dependencies(rules, p))
            .collect();
        for s in moving_subspaces(rules) {
            if exits.has(s.w, s.b) && !later.contains(&pair_of(s)) {
                exits.remove(s.w, s.b);
            }
        }
        let write = |tables: &[Table]| -> Result<(), TableError> {
            for t in tables {
                t.write(&table_path(opts.db, rules, t.subspace), rules, opts.level)?;
            }
            Ok(())
        };
        let tables = match on_disk(opts.db, rules, &subs) {
            OnDisk::Sound => {
                report.skipped += 1;
                progress.pair_skipped(&name, slots);
                None
            }
            OnDisk::OldFormat(tables) => {
                write(&tables)?;
                report.converted += 1;
                progress.pair_skipped(&name, slots);
                Some(tables)
            }
            OnDisk::Solve => {
                for dep in dependencies(rules, pair) {
                    for s in pair_subspaces(dep) {
                        if !exits.has(s.w, s.b) {
                            exits.insert(load_table(opts.db, rules, s)?);
                        }
                    }
                }
                progress.pair_started(&name, slots);
                let start = Instant::now();
                let tables = solve_pair(rules, pair.0, pair.1, &exits, progress)
                    .map_err(BuildError::Solve)?;
                write(&tables)?;
                let stats: Vec<SubspaceStats> =
                    tables.iter().map(SubspaceStats::of_table).collect();
                progress.pair_finished(&name, slots, &stats, start.elapsed().as_secs_f64());
                report.computed += 1;
                Some(tables)
            }
        };
        // Tables found on disk are loaded only when a pair to solve needs them.
        if later.contains(&pair)
            && let Some(tables) = tables
        {
            for t in tables {
                exits.insert(t);
            }
        }
    }
    // One read of every table serves both the report and stats.json; when
    // nothing changed, the stats file on disk already holds the rows.
    let on_file = (report.computed + report.converted == 0)
        .then(|| std::fs::read(rules_dir(opts.db, rules).join("stats.json")).ok())
        .flatten()
        .and_then(|b| serde_json::from_slice::<StatsFile>(&b).ok())
        .filter(|f| {
            f.rules == rules.canonical()
                && wanted
                    .iter()
                    .all(|s| f.subspaces.iter().any(|r| r.subspace == s.to_string()))
        });
    let all = match on_file {
        Some(f) => f.subspaces,
        None => write_stats(opts.db, rules)?,
    };
    report.stats = all
        .into_iter()
        .filter(|row| wanted.iter().any(|s| s.to_string() == row.subspace))
        .collect();
    Ok(report)
}

/// Stats of the given subspaces' tables (each read and checked).
pub fn stats_of_dir(
    db: &Path,
    rules: &Rules,
    subs: &[Subspace],
) -> Result<Vec<SubspaceStats>, BuildError> {
    subs.iter()
        .map(|&s| Ok(SubspaceStats::of_table(&load_table(db, rules, s)?)))
        .collect()
}

/// Writes `stats.json` for every moving-phase table present and returns
/// its rows.
pub fn write_stats(db: &Path, rules: &Rules) -> Result<Vec<SubspaceStats>, BuildError> {
    let rules = &rules.moving_rules();
    let present: Vec<Subspace> = moving_subspaces(rules)
        .into_iter()
        .filter(|&s| table_path(db, rules, s).exists())
        .collect();
    let file = StatsFile {
        rules: rules.canonical(),
        subspaces: stats_of_dir(db, rules, &present)?,
    };
    let path = rules_dir(db, rules).join("stats.json");
    let tmp = path.with_extension("tmp");
    std::fs::write(
        &tmp,
        serde_json::to_string_pretty(&file).expect("serialisable"),
    )
    .and_then(|_| std::fs::rename(&tmp, &path))
    .map_err(|e| BuildError::Io(path, e))?;
    Ok(file.subspaces)
}
