//! The build pipeline: every table of a rule set, in dependency order,
//! resumable.
//!
//! [`Build::plan`] turns a rule set's table folder into an ordered list of
//! [`Step`]s, and [`Build::run`] solves each step whose tables are not yet
//! on disk and sound, reading the finished tables its moves lead to. The
//! phases, in order:
//!
//! 1. under the N-move rule, the pure game's moving phase, which tells
//!    cursed wins and blessed losses from draws;
//! 2. the moving phase, by twin pairs, each after the pairs it captures
//!    into;
//! 3. the placing phase, one subspace at a time, children first; under
//!    Lasker rules, whose placing phase has cycles, by twin pairs.
//!
//! A step's tables are written to a temporary name, read back, checked and
//! renamed, so an interrupted build loses at most the step in progress.

use crate::index::{Indexer, Subspace, child_subspaces, moving_subspaces, placing_subspaces};
use crate::moves::most_removals;
use crate::placing::{cyclic_pairs, pair_exits, solve_subspace};
use crate::rules::Rules;
use crate::solve::{Exits, Progress, SolveError, mark_cursed, solve_twins};
use crate::table::lock::FolderLock;
use crate::table::{DEFAULT_LEVEL, SubspaceStats, Table, TableError, TableFolder};
use std::collections::BTreeSet;
use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

/// Why a build failed.
#[derive(Debug)]
pub enum BuildError {
    /// A table could not be read or written.
    Table(TableError),
    /// Bad request (e.g. a subspace the rules do not have).
    Request(String),
    /// The moving-phase solver failed.
    Solve(SolveError),
    /// A placing subspace's child position maps to a slot marked unused:
    /// a damaged or wrong child table.
    UnusedChild {
        /// The placing subspace.
        subspace: Subspace,
        /// The rules' short name, for the `check` command to suggest.
        rules: String,
    },
    /// A folder or the stats file could not be written.
    Io(PathBuf, std::io::Error),
    /// The [`Progress`] asked the build to stop; the tables finished so
    /// far are kept, and the same build resumes after them.
    Stopped,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Table(e) => write!(f, "{e}"),
            BuildError::Request(s) => f.write_str(s),
            BuildError::Solve(e) => write!(f, "{e}"),
            BuildError::UnusedChild { subspace, rules } => write!(
                f,
                "placing subspace {subspace}: a child position maps to a slot marked unused; \
                 check the tables it reads with `millbase check --rules {rules}`"
            ),
            BuildError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            BuildError::Stopped => {
                f.write_str("stopped before the next step; run the same build again to resume")
            }
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Table(e) => Some(e),
            BuildError::Solve(e) => Some(e),
            BuildError::Io(_, e) => Some(e),
            BuildError::Request(_) | BuildError::UnusedChild { .. } | BuildError::Stopped => None,
        }
    }
}

/// How one pass over the steps ended, when not with a report.
enum Attempt {
    /// A table on disk that a step read failed its checks: remove it and
    /// start over.
    Damaged(PathBuf, TableError),
    Failed(BuildError),
}

impl Attempt {
    /// The failure to read exit `s`: damage to be repaired by rebuilding,
    /// or an error (a table missing, unreadable, or of other rules).
    fn of_exit(folder: &TableFolder, s: Subspace, e: TableError) -> Attempt {
        match e {
            TableError::Corrupt(..) => Attempt::Damaged(folder.path(s), e),
            e => Attempt::Failed(BuildError::Table(e)),
        }
    }
}

impl<E: Into<BuildError>> From<E> for Attempt {
    fn from(e: E) -> Attempt {
        Attempt::Failed(e.into())
    }
}

impl From<TableError> for BuildError {
    fn from(e: TableError) -> Self {
        BuildError::Table(e)
    }
}

/// The phases of a build, in the order they run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Phase {
    /// The moving phase of the game without the N-move rule.
    PureMoving,
    /// The moving phase.
    Moving,
    /// The placing phase, one subspace per step (no cycles).
    Placing,
    /// The placing phase under Lasker rules, by twin pairs (cycles).
    CyclicPlacing,
}

impl Phase {
    /// Its name in progress reports.
    pub fn name(self) -> &'static str {
        match self {
            Phase::PureMoving => "pure moving phase",
            Phase::Moving => "moving phase",
            Phase::Placing => "placing phase",
            Phase::CyclicPlacing => "cyclic placing phase",
        }
    }

    /// Whether the phase builds moving-phase tables.
    pub fn is_moving(self) -> bool {
        matches!(self, Phase::PureMoving | Phase::Moving)
    }
}

/// One unit of work: the subspaces solved together (a twin pair, or one
/// subspace) and the finished tables their moves lead to.
#[derive(Clone, Debug)]
pub struct Step {
    /// The phase the step belongs to.
    pub phase: Phase,
    /// The rule set its tables are made for.
    pub rules: Rules,
    /// The subspaces solved together, the first one named first.
    pub subspaces: Vec<Subspace>,
    /// The tables the step reads: built by earlier steps.
    pub exits: Vec<Subspace>,
}

/// What to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Moving-phase subspaces wanted, with what they need; every one when
    /// empty.
    pub subspaces: Vec<Subspace>,
    /// Whether to build the placing phase too.
    pub placing: bool,
    /// zstd level of the tables' code sections.
    pub level: i32,
}

impl Default for BuildOptions {
    /// Every table of the rule set at the default compression level.
    fn default() -> Self {
        BuildOptions {
            subspaces: Vec::new(),
            placing: true,
            level: DEFAULT_LEVEL,
        }
    }
}

/// What one phase of a build did.
#[derive(Clone, Copy, Debug, Default)]
pub struct PhaseReport {
    /// Tables computed now (moving phase: twin pairs; placing: subspaces).
    pub computed: usize,
    /// Tables found finished on disk (counted as `computed` is).
    pub skipped: usize,
    /// Wall time of the phase.
    pub seconds: f64,
}

/// What a build did.
#[derive(Clone, Debug, Default)]
pub struct BuildReport {
    /// The moving phase of the rule set (not the pure pass under the
    /// N-move rule).
    pub moving: PhaseReport,
    /// The placing phase, when it was asked for.
    pub placing: Option<PhaseReport>,
    /// Stats of every wanted moving-phase subspace's table.
    pub stats: Vec<SubspaceStats>,
}

/// A twin pair of moving subspaces, `us-them` and `them-us`, named by its
/// stone counts: the larger first.
type PairId = (u8, u8);

fn pair_of(s: Subspace) -> PairId {
    (s.us.max(s.them), s.us.min(s.them))
}

fn pair_subspaces((more, fewer): PairId) -> Vec<Subspace> {
    if more == fewer {
        vec![Subspace::moving(more, fewer)]
    } else {
        vec![Subspace::moving(more, fewer), Subspace::moving(fewer, more)]
    }
}

/// The pairs whose tables a moving pair's captures read.
fn dependencies(rules: &Rules, (more, fewer): PairId) -> Vec<PairId> {
    let most = most_removals(rules);
    let mut out = Vec::new();
    for (us, them) in [(more, fewer), (fewer, more)] {
        for k in 1..=most {
            if them >= k + 3 {
                out.push(pair_of(Subspace::moving(them - k, us)));
            }
        }
    }
    out
}

/// Every moving pair needed for `wanted` (and what they capture into), each
/// after its dependencies.
fn moving_pairs(rules: &Rules, wanted: &[Subspace]) -> Result<Vec<PairId>, BuildError> {
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
    order.sort_by_key(|&(more, fewer)| (more + fewer, more, fewer));
    Ok(order)
}

fn moving_steps(phase: Phase, rules: &Rules, order: &[PairId]) -> Vec<Step> {
    order
        .iter()
        .map(|&pair| Step {
            phase,
            rules: *rules,
            subspaces: pair_subspaces(pair),
            exits: dependencies(rules, pair)
                .into_iter()
                .flat_map(pair_subspaces)
                .collect(),
        })
        .collect()
}

/// Whether the tables of `step` are finished on disk: opened (header and
/// block index against the file checksum), their blocks checked only when
/// a later step reads them; a moving table of the pure game may be
/// adopted.
fn step_on_disk(step: &Step, folder: &TableFolder) -> bool {
    step.subspaces
        .iter()
        .all(|&s| folder.open(s).is_ok() || (step.phase.is_moving() && folder.adopt(s)))
}

/// The tables of one step, its exits loaded; under the N-move rule's
/// moving pass, the draws the pure game decides marked cursed or blessed.
fn compute_step(
    step: &Step,
    exits: &Exits,
    pure: Option<&TableFolder>,
    progress: &dyn Progress,
) -> Result<Vec<Table>, BuildError> {
    let tables = match step.phase {
        Phase::Placing => {
            let s = step.subspaces[0];
            vec![
                solve_subspace(&step.rules, s, exits, progress).ok_or_else(|| {
                    BuildError::UnusedChild {
                        subspace: s,
                        rules: step.rules.short_name(),
                    }
                })?,
            ]
        }
        _ => solve_twins(&step.rules, step.subspaces[0], exits, progress)
            .map_err(BuildError::Solve)?,
    };
    match pure {
        None => Ok(tables),
        Some(pure) => tables
            .into_iter()
            .map(|t| {
                let p = pure.load(t.subspace)?;
                mark_cursed(t, &p).map_err(BuildError::Solve)
            })
            .collect(),
    }
}

/// A step's name for progress reports (`8-7 + 7-8`) and its slots.
fn describe(subs: &[Subspace], indexer: &Indexer) -> (String, u64) {
    let name = subs
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" + ");
    let slots = subs
        .iter()
        .map(|s| indexer.subspace(s.us, s.them).slots())
        .sum();
    (name, slots)
}

/// The ordered steps that build a rule set's tables into its folder.
#[derive(Clone, Debug)]
pub struct Build {
    folder: TableFolder,
    steps: Vec<Step>,
    /// Moving-phase subspaces whose stats the report gives.
    wanted: Vec<Subspace>,
    placing: bool,
    level: i32,
}

impl Build {
    /// The steps that build what `options` asks for into `folder`.
    pub fn plan(folder: &TableFolder, options: &BuildOptions) -> Result<Build, BuildError> {
        let rules = *folder.rules();
        let wanted = if options.subspaces.is_empty() {
            moving_subspaces(&rules)
        } else {
            options.subspaces.clone()
        };
        // Lasker moves only matter while stones are in hand.
        let moving = rules.moving_rules();
        let order = moving_pairs(&moving, &wanted)?;
        let mut steps = Vec::new();
        if moving.nmove.is_some() {
            let pure = moving.pure();
            steps.extend(moving_steps(
                Phase::PureMoving,
                &pure,
                &moving_pairs(&pure, &wanted)?,
            ));
        }
        steps.extend(moving_steps(Phase::Moving, &moving, &order));
        if options.placing {
            if rules.lasker {
                for pair in cyclic_pairs(&rules) {
                    let exits = pair_exits(&rules, &pair).into_iter().collect();
                    steps.push(Step {
                        phase: Phase::CyclicPlacing,
                        rules,
                        subspaces: pair,
                        exits,
                    });
                }
            } else {
                for s in placing_subspaces(&rules) {
                    steps.push(Step {
                        phase: Phase::Placing,
                        rules,
                        subspaces: vec![s],
                        exits: child_subspaces(&rules, s),
                    });
                }
            }
        }
        Ok(Build {
            folder: folder.clone(),
            steps,
            wanted,
            placing: options.placing,
            level: options.level,
        })
    }

    /// The steps, in the order they run.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Slots of every step: the whole work of a build from nothing.
    pub fn slots(&self) -> u64 {
        let indexer = Indexer::for_board(self.folder.rules().board());
        self.steps
            .iter()
            .map(|s| describe(&s.subspaces, indexer).1)
            .sum()
    }

    /// Runs every step whose tables are not finished on disk, holding the
    /// database folder's writer lock (`.millbase.lock`) throughout: a second
    /// build into the same folder is refused, not interleaved.
    ///
    /// A finished table is only opened when its own step is skipped
    /// (header and block index checked against the file checksum); its
    /// blocks are checked when a step to be computed reads them, and
    /// `check` reads them all. A table that fails when read is removed and
    /// the run starts over, so that it is rebuilt like a missing one.
    pub fn run(&self, progress: &dyn Progress) -> Result<BuildReport, BuildError> {
        let _lock = FolderLock::acquire(self.folder.db())?;
        // Each start over removes a damaged table; a table that fails again
        // after it was rebuilt is an error, not a loop.
        let mut removed = BTreeSet::new();
        loop {
            match self.run_once(progress) {
                Err(Attempt::Damaged(path, error)) if removed.insert(path.clone()) => {
                    progress.table_damaged(&error.to_string());
                    std::fs::remove_file(&path).map_err(|e| BuildError::Io(path, e))?;
                }
                Err(Attempt::Damaged(_, error)) => return Err(BuildError::Table(error)),
                Err(Attempt::Failed(e)) => return Err(e),
                Ok(report) => return Ok(report),
            }
        }
    }

    fn run_once(&self, progress: &dyn Progress) -> Result<BuildReport, Attempt> {
        let indexer = Indexer::for_board(self.folder.rules().board());
        let mut report = BuildReport {
            placing: self.placing.then(PhaseReport::default),
            ..BuildReport::default()
        };
        let mut exits = Exits::new(self.folder.rules().board());
        for steps in self.steps.chunk_by(|a, b| a.phase == b.phase) {
            let phase = steps[0].phase;
            progress.build_phase(phase.name(), !phase.is_moving());
            let started = Instant::now();
            let folder = self.folder.with_rules(&steps[0].rules);
            let dir = if phase.is_moving() {
                folder.moving_dir()
            } else {
                folder.dir()
            };
            std::fs::create_dir_all(&dir).map_err(|e| BuildError::Io(dir.clone(), e))?;
            // Exits of different rules share subspace names.
            exits.retain(|_| false);
            let pure = (phase == Phase::Moving && folder.rules().nmove.is_some())
                .then(|| folder.with_rules(&folder.rules().pure()));
            let mut done = PhaseReport::default();
            // Rows of the tables computed now: the stats file needs no
            // second read of them.
            let mut fresh = Vec::new();
            for (n, step) in steps.iter().enumerate() {
                let (name, slots) = describe(&step.subspaces, indexer);
                // The moving phase keeps the tables any later pair reads
                // (it made most of them); the placing phase only those the
                // step reads, as its neighbours share most of them.
                let keep: BTreeSet<Subspace> = if phase.is_moving() {
                    steps[n..].iter().flat_map(|s| s.exits.clone()).collect()
                } else {
                    step.exits.iter().copied().collect()
                };
                exits.retain(|s| keep.contains(s));
                let on_disk = step_on_disk(step, &folder);
                // The moving phase counts pairs, the placing phase subspaces.
                let units = if phase.is_moving() {
                    1
                } else {
                    step.subspaces.len()
                };
                if on_disk {
                    done.skipped += units;
                    progress.step_skipped(&name, slots);
                    continue;
                }
                if progress.stop_requested() {
                    return Err(BuildError::Stopped.into());
                }
                for &s in &step.exits {
                    if !exits.has(s) {
                        exits.insert(
                            folder
                                .load(s)
                                .map_err(|e| Attempt::of_exit(&folder, s, e))?,
                        );
                    }
                }
                progress.step_started(&name, slots);
                let start = Instant::now();
                let tables = compute_step(step, &exits, pure.as_ref(), progress)?;
                // Compressing and checking the tables is a stage of its
                // own, so that a log tells it from the solving.
                progress.stage("write", tables.len() as u64);
                for t in &tables {
                    folder.write(t, self.level)?;
                    progress.advance(1);
                }
                let stats: Vec<SubspaceStats> =
                    tables.iter().map(SubspaceStats::of_table).collect();
                progress.step_finished(&name, slots, &stats, start.elapsed().as_secs_f64());
                done.computed += units;
                if phase.is_moving() {
                    fresh.extend(stats);
                    for t in tables {
                        if keep.contains(&t.subspace) {
                            exits.insert(t);
                        }
                    }
                } else if let Some(next) = steps.get(n + 1) {
                    // The next subspace often reads the one just made: it
                    // was read back and compared when written, so it need
                    // not be read again.
                    for t in tables {
                        if next.exits.contains(&t.subspace) {
                            exits.insert(t);
                        }
                    }
                }
            }
            done.seconds = started.elapsed().as_secs_f64();
            if phase.is_moving() {
                let stats = self.moving_stats(&folder, done.computed, &fresh)?;
                if phase == Phase::Moving {
                    report.stats = stats;
                    report.moving = done;
                }
            } else {
                report.placing = Some(done);
            }
        }
        Ok(report)
    }

    /// Writes the stats file of a moving phase's folder and returns the
    /// rows of the wanted subspaces. The file keeps the rows of unchanged
    /// tables; when nothing changed, it already holds every row.
    fn moving_stats(
        &self,
        folder: &TableFolder,
        computed: usize,
        fresh: &[SubspaceStats],
    ) -> Result<Vec<SubspaceStats>, BuildError> {
        let wanted = &self.wanted;
        let on_file = (computed == 0)
            .then(|| folder.read_stats())
            .flatten()
            .filter(|rows| {
                wanted
                    .iter()
                    .all(|s| rows.iter().any(|r| r.subspace == s.to_string()))
            });
        let all = match on_file {
            Some(rows) => rows,
            None => folder.write_stats(fresh)?,
        };
        Ok(all
            .into_iter()
            .filter(|row| wanted.iter().any(|s| s.to_string() == row.subspace))
            .collect())
    }
}
