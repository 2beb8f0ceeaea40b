//! `build` and `stats`.

use super::CliError;
use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use millbase::Progress;
use millbase::Rules;
use millbase::Subspace;
use millbase::SubspaceStats;
use millbase::TableFolder;
use millbase::all_subspaces;
use millbase::{Build, BuildOptions};
use serde::Serialize;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Mutex;

/// Arguments of `build`.
#[derive(Args)]
pub struct BuildArgs {
    /// Table folder; tables go in a subfolder named by the rule set.
    #[arg(long, default_value = "db")]
    db: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Only these moving-phase subspaces (comma-separated, e.g. `4-4,5-3`)
    /// and what they need; no placing-phase tables.
    #[arg(long, value_delimiter = ',')]
    subspaces: Vec<String>,
    /// Build only the moving-phase tables, not the placing phase.
    #[arg(long)]
    no_placing: bool,
    /// zstd compression level of the tables' code sections (1..=22; the
    /// win/draw/loss sections use at least 15).
    #[arg(long, default_value_t = millbase::DEFAULT_LEVEL, value_parser = clap::value_parser!(i32).range(1..=22))]
    zstd_level: i32,
    /// After the build, measure the machine figure of `bench-machine`
    /// (about 4 s and 1 GiB of memory) and give each phase's rate as a
    /// share of it, so that builds on different machines compare.
    #[arg(long)]
    machine_figure: bool,
}

/// Arguments of `stats`.
#[derive(Args)]
pub struct StatsArgs {
    /// Table folder.
    #[arg(long, default_value = "db")]
    db: PathBuf,
    /// Print JSON (the schema of `stats.json`).
    #[arg(long)]
    json: bool,
}

fn parse_subspaces(list: &[String]) -> Result<Vec<Subspace>, CliError> {
    list.iter()
        .map(|s| s.parse::<Subspace>().map_err(CliError::input))
        .collect()
}

/// Progress bars on a terminal; one line per step otherwise.
struct CliProgress {
    tty: bool,
    overall: ProgressBar,
    stage: ProgressBar,
    _multi: MultiProgress,
    /// Slots computed (not found on disk) and the time they took.
    computed: Mutex<(u64, f64)>,
    /// Name and start of the current stage, for the plain log.
    current: Mutex<Option<(String, std::time::Instant)>>,
    /// Per build phase (moving, placing): visits reported, seconds of
    /// solving, slots computed.
    work: Mutex<[PhaseWork; 2]>,
    /// Visits reported for the step in progress.
    pending_visits: Mutex<u64>,
    /// The phase being built: 0 moving, 1 placing (set by `build_phase`).
    placing: std::sync::atomic::AtomicBool,
}

/// The memory-bound work of one build phase.
#[derive(Clone, Copy, Default)]
struct PhaseWork {
    visits: u64,
    seconds: f64,
    slots: u64,
}

impl CliProgress {
    fn new(total: u64) -> CliProgress {
        let tty = std::io::stderr().is_terminal();
        let multi = MultiProgress::with_draw_target(if tty {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        });
        let overall = multi.add(ProgressBar::new(total));
        overall.set_style(
            ProgressStyle::with_template(
                "{prefix:>9} [{bar:40}] {human_pos}/{human_len} positions  {msg}  ETA {eta}",
            )
            .expect("template")
            .progress_chars("=> "),
        );
        overall.set_prefix("overall");
        let stage = multi.add(ProgressBar::new(0));
        stage.set_style(
            ProgressStyle::with_template("{prefix:>9} {msg} [{bar:40}] {percent}%")
                .expect("template")
                .progress_chars("=> "),
        );
        CliProgress {
            tty,
            overall,
            stage,
            _multi: multi,
            current: Mutex::new(None),
            computed: Mutex::new((0, 0.0)),
            work: Mutex::new([PhaseWork::default(); 2]),
            pending_visits: Mutex::new(0),
            placing: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

impl CliProgress {
    /// Logs how long the stage that just ended took (plain log only).
    fn log_stage_end(&self) {
        if let Some((name, start)) = self.current.lock().unwrap().take()
            && !self.tty
        {
            eprintln!("  {name}: {:.1} s", start.elapsed().as_secs_f64());
        }
    }
}

impl Progress for CliProgress {
    fn build_phase(&self, _name: &str, placing: bool) {
        self.placing
            .store(placing, std::sync::atomic::Ordering::Relaxed);
    }
    fn step_started(&self, name: &str, _slots: u64) {
        self.stage.set_prefix(name.to_string());
    }
    fn stage(&self, name: &str, work: u64) {
        self.log_stage_end();
        *self.current.lock().unwrap() = Some((name.to_string(), std::time::Instant::now()));
        self.stage.set_message(name.to_string());
        self.stage.set_length(work.max(1));
        self.stage.set_position(0);
    }
    fn advance(&self, work: u64) {
        self.stage.inc(work);
    }
    fn visits(&self, n: u64) {
        *self.pending_visits.lock().unwrap() += n;
    }
    fn step_finished(&self, name: &str, slots: u64, stats: &[SubspaceStats], seconds: f64) {
        self.log_stage_end();
        self.overall.inc(slots);
        {
            let phase = self.placing.load(std::sync::atomic::Ordering::Relaxed) as usize;
            let w = &mut self.work.lock().unwrap()[phase];
            w.visits += std::mem::take(&mut *self.pending_visits.lock().unwrap());
            w.seconds += seconds;
            w.slots += slots;
        }
        let rate = {
            let mut c = self.computed.lock().unwrap();
            *c = (c.0 + slots, c.1 + seconds);
            c.0 as f64 / c.1.max(1e-9) / 1e6
        };
        self.overall.set_message(format!("{rate:.2} M/s"));
        let summary: Vec<String> = stats
            .iter()
            .map(|s| {
                format!(
                    "{}: {} wins {} draws {} losses",
                    s.subspace, s.wins, s.draws, s.losses
                )
            })
            .collect();
        let line = format!(
            "solved {name} ({slots} slots) in {seconds:.1} s, {:.2} M slots/s; {}",
            slots as f64 / seconds.max(1e-9) / 1e6,
            summary.join("; ")
        );
        if self.tty {
            self.overall.println(line);
        } else {
            eprintln!("{line}");
        }
    }
    fn step_skipped(&self, name: &str, slots: u64) {
        self.overall.inc(slots);
        if !self.tty {
            eprintln!("found {name} on disk, not recomputed");
        }
    }
    fn table_damaged(&self, error: &str) {
        let line = format!("{error}: removed; starting over to rebuild it");
        if self.tty {
            self.overall.println(line);
        } else {
            eprintln!("{line}");
        }
    }
}

/// `millbase build`.
pub fn build_cmd(rules: &Rules, args: &BuildArgs) -> Result<(), CliError> {
    super::db_folder(&args.db)?;
    let subspaces = parse_subspaces(&args.subspaces)?;
    super::use_threads(args.threads)?;
    let folder = TableFolder::new(&args.db, rules);
    let options = BuildOptions {
        placing: subspaces.is_empty() && !args.no_placing,
        subspaces,
        level: args.zstd_level,
    };
    let build = Build::plan(&folder, &options).map_err(CliError::input)?;
    let progress = CliProgress::new(build.slots());
    let report = build.run(&progress).map_err(|e| CliError {
        code: 1,
        message: e.to_string(),
    })?;
    progress.overall.finish_and_clear();
    progress.stage.finish_and_clear();
    eprintln!(
        "moving phase: built {} pairs, {} found on disk, in {:.1} s; tables in {}",
        report.moving.computed,
        report.moving.skipped,
        report.moving.seconds,
        folder.moving_dir().display()
    );
    if let Some(p) = report.placing {
        eprintln!(
            "placing phase: built {} subspaces, {} found on disk, in {:.1} s; tables in {}",
            p.computed,
            p.skipped,
            p.seconds,
            folder.dir().display()
        );
    }
    log_rates(&progress.work.lock().unwrap(), args.machine_figure);
    Ok(())
}

/// The last lines of a build log: each phase's rate of visits (random slot
/// reads and updates), and with `measure` the machine figure of
/// `bench-machine`, measured now, so that builds on different machines
/// compare.
fn log_rates(work: &[PhaseWork; 2], measure: bool) {
    let solving: f64 = work.iter().map(|w| w.seconds).sum();
    if solving == 0.0 {
        eprintln!("rate: nothing computed");
        return;
    }
    let figure = measure.then(|| millbase::measure_machine(std::time::Duration::from_secs(2)));
    for (name, w) in ["moving phase", "placing phase"].iter().zip(work) {
        if w.seconds == 0.0 {
            continue;
        }
        let rate = w.visits as f64 / w.seconds;
        let share = figure.as_ref().map_or(String::new(), |f| {
            format!(
                ", {:.1} % of the machine figure",
                100.0 * rate / f.updates_per_second
            )
        });
        eprintln!(
            "rate, {name}: {} visits in {:.1} s of solving: {:.2} M visits/s{share}; {:.2} M slots/s",
            w.visits,
            w.seconds,
            rate / 1e6,
            w.slots as f64 / w.seconds / 1e6
        );
    }
    match figure {
        Some(f) => eprintln!("machine figure: {}", f.describe()),
        None => eprintln!(
            "machine figure: not measured (build with --machine-figure, or run `millbase \
             bench-machine`)"
        ),
    }
}

#[derive(Serialize)]
struct StatsReport {
    rules: String,
    subspaces: Vec<SubspaceStats>,
    total: SubspaceStats,
}

/// `millbase stats`.
pub fn stats_cmd(rules: &Rules, args: &StatsArgs) -> Result<(), CliError> {
    super::db_folder(&args.db)?;
    let folder = TableFolder::new(&args.db, rules);
    let dir = folder.moving_dir();
    let present: Vec<Subspace> = all_subspaces(rules)
        .into_iter()
        .filter(|&s| folder.exists(s))
        .collect();
    if present.is_empty() {
        return Err(CliError {
            code: 1,
            message: format!(
                "no tables for rules {} in {}: run `millbase build --rules {}` first",
                rules.short_name(),
                dir.display(),
                rules.short_name()
            ),
        });
    }
    let rows = folder.stats_of(&present).map_err(|e| CliError {
        code: 1,
        message: e.to_string(),
    })?;
    let mut total = SubspaceStats::empty("total");
    for r in &rows {
        total.add(r);
    }
    if args.json {
        let report = StatsReport {
            rules: rules.canonical(),
            subspaces: rows,
            total,
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("serialisable")
        );
        return Ok(());
    }
    let opt = |o: Option<u32>| o.map_or("-".to_string(), |d| d.to_string());
    // Under the N-move rule: values at counter 0, the longest `Z`, and the
    // draws the pure game decides.
    let nmove = rules.nmove.is_some();
    let (max_win, max_loss) = if nmove {
        ("max Z win", "max Z loss")
    } else {
        ("max win", "max loss")
    };
    let mut head = format!(
        "{:<10} {:>13} {:>13} {:>13} {:>13} {:>10} {:>10}",
        "subspace", "positions", "wins", "draws", "losses", max_win, max_loss
    );
    if nmove {
        head.push_str(&format!(" {:>13} {:>13}", "cursed wins", "blessed losses"));
    }
    println!("{head}");
    for r in rows.iter().chain(std::iter::once(&total)) {
        let mut line = format!(
            "{:<10} {:>13} {:>13} {:>13} {:>13} {:>10} {:>10}",
            r.subspace,
            r.positions,
            r.wins,
            r.draws,
            r.losses,
            opt(r.longest_win),
            opt(r.longest_loss)
        );
        if nmove {
            line.push_str(&format!(" {:>13} {:>13}", r.cursed_wins, r.blessed_losses));
        }
        println!("{line}");
    }
    Ok(())
}
