//! Building every moving-phase table of a rule set, in dependency order,
//! resumable: a pair whose tables are on disk and sound is not recomputed.

use super::{Exits, Progress, solve_pair};
pub use crate::index::moving_subspaces;
use crate::index::{Indexer, Subspace};
use crate::moves::most_removals;
use crate::rules::Rules;
use crate::table::{SubspaceStats, TableError, TableFolder};
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

fn pair_of(s: Subspace) -> PairId {
    (s.w.max(s.b), s.w.min(s.b))
}

/// The pairs whose tables a pair's captures read.
fn dependencies(rules: &Rules, (w, b): PairId) -> Vec<PairId> {
    let most = most_removals(rules);
    let mut out = Vec::new();
    for (x, y) in [(w, b), (b, w)] {
        for k in 1..=most {
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
                "subspace {s} is not a moving-phase subspace of rules {} (3..{} stones a side)",
                rules.short_name(),
                rules.max_stones()
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

/// A pair's name for progress reports (`8-7 + 7-8`) and its slots.
pub(crate) fn describe_pair(indexer: &Indexer, subs: &[Subspace]) -> (String, u64) {
    let name = subs
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" + ");
    let slots = subs
        .iter()
        .map(|s| indexer.subspace(s.w, s.b).slots())
        .sum();
    (name, slots)
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
    /// Stats of every wanted subspace's table.
    pub stats: Vec<SubspaceStats>,
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
    // The N-move rule's tables tell cursed wins and blessed losses from
    // draws by the pure game's tables: those come first.
    let pure = if rules.nmove.is_some() {
        let pure_opts = BuildOptions {
            db: opts.db,
            subspaces: wanted.clone(),
            level: opts.level,
        };
        build(&rules.pure(), &pure_opts, progress)?;
        Some(TableFolder::new(opts.db, &rules.pure()))
    } else {
        None
    };
    let folder = TableFolder::new(opts.db, rules);
    let dir = folder.moving_dir();
    std::fs::create_dir_all(&dir).map_err(|e| BuildError::Io(dir.clone(), e))?;
    let indexer = Indexer::for_board(rules.board());
    let mut report = BuildReport {
        computed: 0,
        skipped: 0,
        stats: Vec::new(),
    };
    let mut exits = Exits::new(rules.board());
    // Rows of the pairs computed now: the stats file needs no second read
    // of their tables.
    let mut fresh = Vec::new();
    for (n, &pair) in order.iter().enumerate() {
        let subs = pair_subspaces(pair);
        let (name, slots) = describe_pair(indexer, &subs);
        // Only tables later pairs read stay in memory.
        let later: BTreeSet<PairId> = order[n..]
            .iter()
            .flat_map(|&p| dependencies(rules, p))
            .collect();
        exits.retain(|s| later.contains(&pair_of(*s)));
        if subs
            .iter()
            .all(|&s| folder.is_finished(s) || folder.adopt(s))
        {
            report.skipped += 1;
            progress.pair_skipped(&name, slots);
            // Tables found on disk are loaded only when a pair to solve needs them.
            continue;
        }
        for dep in dependencies(rules, pair) {
            for s in pair_subspaces(dep) {
                if !exits.has(s) {
                    exits.insert(folder.load(s)?);
                }
            }
        }
        progress.pair_started(&name, slots);
        let start = Instant::now();
        let mut tables =
            solve_pair(rules, pair.0, pair.1, &exits, progress).map_err(BuildError::Solve)?;
        if let Some(pure) = &pure {
            tables = tables
                .into_iter()
                .map(|t| {
                    let p = pure.load(t.subspace)?;
                    super::mark_cursed(t, &p).map_err(BuildError::Solve)
                })
                .collect::<Result<_, BuildError>>()?;
        }
        for t in &tables {
            folder.write(t, opts.level)?;
        }
        let stats: Vec<SubspaceStats> = tables.iter().map(SubspaceStats::of_table).collect();
        progress.pair_finished(&name, slots, &stats, start.elapsed().as_secs_f64());
        fresh.extend(stats);
        report.computed += 1;
        if later.contains(&pair) {
            for t in tables {
                exits.insert(t);
            }
        }
    }
    // The stats file keeps the rows of unchanged tables; when nothing
    // changed, it already holds every row.
    let on_file = (report.computed == 0)
        .then(|| folder.read_stats())
        .flatten()
        .filter(|rows| {
            wanted
                .iter()
                .all(|s| rows.iter().any(|r| r.subspace == s.to_string()))
        });
    let all = match on_file {
        Some(rows) => rows,
        None => folder.write_stats(&fresh)?,
    };
    report.stats = all
        .into_iter()
        .filter(|row| wanted.iter().any(|s| s.to_string() == row.subspace))
        .collect();
    Ok(report)
}
