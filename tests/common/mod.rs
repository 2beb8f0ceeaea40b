//! Shared helpers for the integration tests.
#![allow(dead_code)]

pub mod http;

use millbase::{ByColor, Color, Point, PointSet, Position, Rules};

/// A small deterministic generator (splitmix64), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// `k` distinct random points of `from`.
    pub fn points(&mut self, from: PointSet, k: u32) -> PointSet {
        let mut pool: Vec<Point> = from.iter().collect();
        let mut out = PointSet::EMPTY;
        for _ in 0..k.min(pool.len() as u32) {
            let i = self.below(pool.len() as u64) as usize;
            out = out.with(pool.swap_remove(i));
        }
        out
    }
}

/// A random legal position of `rules`: any phase, hands consistent.
pub fn random_position(rng: &mut Rng, rules: &Rules) -> Position {
    let all = rules.board().all;
    let (sw, sb) = (rules.stones.white, rules.stones.black);
    loop {
        let placing = rng.below(3) == 0;
        // After `k` plies from the start, White has placed min(W, ceil(k/2)).
        let k = if placing {
            rng.below((sw.max(sb) as u64) * 2) as u8
        } else {
            2 * sw.max(sb) + rng.below(2) as u8
        };
        let to_move = if k % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let mut hand = ByColor {
            white: sw - sw.min(k.div_ceil(2)),
            black: sb - sb.min(k / 2),
        };
        if rules.lasker && placing {
            hand = ByColor {
                white: rng.below(sw as u64 + 1) as u8,
                black: rng.below(sb as u64 + 1) as u8,
            };
        }
        let w = rng.below((sw - hand.white) as u64 + 1) as u32;
        let b = rng.below((sb - hand.black) as u64 + 1) as u32;
        let white = rng.points(all, w);
        let black = rng.points(all.minus(white), b);
        let stones = ByColor { white, black };
        if let Ok(p) = Position::new(stones, hand, to_move, rules) {
            return p;
        }
    }
}

/// Each symmetry of a board as three byte-indexed tables of images: a
/// brute-force canonical form, independent of the indexer.
pub struct Images(Vec<[[u32; 256]; 3]>);

impl Images {
    pub fn new(board: &millbase::Board) -> Images {
        Images(
            board
                .symmetries
                .iter()
                .map(|s| {
                    let mut t = [[0u32; 256]; 3];
                    for (k, tk) in t.iter_mut().enumerate() {
                        for (v, out) in tk.iter_mut().enumerate() {
                            *out = s.apply_set(PointSet((v as u32) << (8 * k))).0;
                        }
                    }
                    t
                })
                .collect(),
        )
    }

    /// The smallest of the images of the position `(us, them)`.
    pub fn canonical(&self, us: u32, them: u32) -> (u32, u32) {
        let img = |t: &[[u32; 256]; 3], s: u32| {
            t[0][(s & 255) as usize] | t[1][(s >> 8 & 255) as usize] | t[2][(s >> 16) as usize]
        };
        self.0
            .iter()
            .map(|t| (img(t, us), img(t, them)))
            .min()
            .unwrap()
    }
}

impl Images {
    /// Every class of positions with `us` stones for the side to move and
    /// `them` for the other, as its canonical stone sets, by brute force.
    pub fn classes(&self, board: &millbase::Board, us: u32, them: u32) -> Vec<(u32, u32)> {
        use rayon::prelude::*;
        let sets = |k: u32| -> Vec<u32> {
            (0u32..1 << board.size)
                .filter(|s| s.count_ones() == k)
                .collect()
        };
        let them_sets = sets(them);
        sets(us)
            .par_iter()
            .flat_map_iter(|&u| {
                them_sets
                    .iter()
                    .filter(move |&&t| t & u == 0 && self.canonical(u, t) == (u, t))
                    .map(move |&t| (u, t))
            })
            .collect()
    }
}

/// The moving-phase position where White, to move, has `us` and Black
/// `them`.
pub fn moving_position(us: u32, them: u32) -> Position {
    Position {
        stones: ByColor {
            white: PointSet(us),
            black: PointSet(them),
        },
        hand: ByColor::default(),
        to_move: Color::White,
    }
}

/// The rule sets every rules-level property is checked under.
pub fn rule_variants() -> Vec<Rules> {
    [
        "standard",
        "standard,flying=off",
        "standard,flying=4",
        "standard,protection=none",
        "standard,protection=strict",
        "standard,removals=2",
        "standard,double-mill=per-mill",
        "standard,removals=2,double-mill=per-mill,protection=strict",
        "standard,lasker=on",
        "lasker",
        "standard,stones=3",
        "standard,stones=4",
        "standard,stones=12",
        "standard,stones=5/3",
        "standard,stones=3/6",
        "twelve",
        "twelve,stones=4/3",
        "six",
        "six,stones=3/5",
        "six,flying=3",
        "three",
        "three,mill=removes",
        "standard,mill=wins",
        "twelve,protection=strict,removals=2",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect()
}

/// The position `plies` placing moves into the game, chosen by a fixed
/// pseudo-random walk (xorshift from `seed`).
pub fn walk(rules: &Rules, plies: usize, seed: u64) -> Position {
    let mut x = seed;
    let mut pos = Position::start(rules);
    let mut moves = Vec::new();
    for _ in 0..plies {
        millbase::legal_moves(&pos, rules, &mut moves);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        pos = pos.play(&moves[(x % moves.len() as u64) as usize]);
    }
    pos
}

/// A folder under the temp directory, removed when dropped: also when the
/// test that made it fails (the panic unwinds through the drop).
pub struct TempDir(std::path::PathBuf);

impl TempDir {
    /// A fresh, empty folder named by the test binary's process, `name`
    /// and a number of its own: two tests that run at once with the same
    /// `name` must not share (one removing the folder the other reads).
    pub fn new(name: &str) -> TempDir {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "millbase-test-{}-{n}-{}",
            std::process::id(),
            name.replace([',', '=', '/'], "-")
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("makes a temp folder");
        TempDir(dir)
    }

    /// The folder.
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }

    /// The folder as a string, for command lines.
    pub fn arg(&self) -> &str {
        self.0.to_str().expect("temp paths are UTF-8")
    }
}

impl TempDir {
    /// Keeps the folder for the rest of the process (a folder shared by
    /// every test of a binary, in a static) and removes it when the
    /// process exits.
    pub fn leak(self) -> std::path::PathBuf {
        let dir = self.0.clone();
        std::mem::forget(self);
        remove_at_exit(&dir);
        dir
    }
}

/// Removes `dir` when the process exits: the test harness ends with
/// `exit`, which runs the handlers `atexit` registers.
fn remove_at_exit(dir: &std::path::Path) {
    static DIRS: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());
    extern "C" fn clean() {
        if let Ok(dirs) = DIRS.lock() {
            for d in dirs.iter() {
                let _ = std::fs::remove_dir_all(d);
            }
        }
    }
    let mut dirs = DIRS.lock().unwrap_or_else(|e| e.into_inner());
    if dirs.is_empty() {
        // SAFETY: `clean` is a plain function that lives as long as the
        // process; registering it has no other precondition.
        unsafe {
            libc::atexit(clean);
        }
    }
    dirs.push(dir.to_path_buf());
}

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for TempDir {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Builds the tables of `rules` into `db` through the library: every
/// table (`subspaces` empty) or those moving-phase subspaces and what they
/// need, without the placing phase.
pub fn build_tables(
    db: &std::path::Path,
    rules: &Rules,
    subspaces: &[&str],
) -> millbase::BuildReport {
    let folder = millbase::TableFolder::new(db, rules);
    let options = millbase::BuildOptions {
        subspaces: subspaces.iter().map(|s| s.parse().unwrap()).collect(),
        placing: subspaces.is_empty(),
        ..Default::default()
    };
    millbase::Build::plan(&folder, &options)
        .and_then(|b| b.run(&millbase::NoProgress))
        .unwrap_or_else(|e| panic!("build {}: {e}", rules.short_name()))
}

/// One table folder shared by the tests of a binary that only read tables,
/// with `rules` built in it (tables are shared by the stone counts of a
/// board, so a second game on the same board builds little). Builds run
/// one at a time; a table is renamed into place only when complete, so
/// readers never see a partial one. Removed when the process exits.
pub fn shared_db(rules: &str) -> &'static std::path::Path {
    static DB: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    static BUILDING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let db = DB.get_or_init(|| TempDir::new("shared").leak());
    let _one_at_a_time = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    build_tables(db, &rules.parse().unwrap(), &[]);
    db
}

/// Builds every table of `rules` into a fresh folder named by `tag` and the
/// rules, removed when the returned handle is dropped.
pub fn build_db(tag: &str, rules: &str) -> TempDir {
    let dir = TempDir::new(&format!("{tag}-{rules}"));
    build_tables(&dir, &rules.parse().unwrap(), &[]);
    dir
}

/// Reads a finished table of `rules` under `db`.
pub fn load_table(db: &std::path::Path, rules: &Rules, s: millbase::Subspace) -> millbase::Table {
    millbase::TableFolder::new(db, rules).load(s).unwrap()
}

/// Runs the millbase binary with `args`.
pub fn run(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_millbase"))
        .args(args)
        .output()
        .expect("runs millbase")
}

/// Runs the millbase binary with `args`, failing the test if it has not
/// ended after a minute: for input that must be refused, not waited on (a
/// named pipe read as a table would block forever). A hang detector, not
/// a speed figure: the commands it runs end in well under a second.
pub fn run_unless_stuck(args: &[&str]) -> std::process::Output {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_millbase"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs millbase");
    let start = Instant::now();
    while child.try_wait().expect("waits for millbase").is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            panic!("millbase {args:?} is stuck: still running after a minute");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("reads millbase's output")
}

/// Runs the millbase binary with `args` and checks that it succeeded.
pub fn run_ok(args: &[&str]) -> std::process::Output {
    let out = run(args);
    assert!(
        out.status.success(),
        "millbase {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Rewrites the table of subspace `s` with `codes` (valid checksums: only
/// a check of the values themselves can notice).
pub fn rewrite_table(db: &std::path::Path, rules: &Rules, s: millbase::Subspace, codes: &[u16]) {
    use millbase::Encoding;
    use millbase::{DEFAULT_LEVEL, Table, TableFolder};
    let folder = TableFolder::new(db, rules);
    let encoding = Encoding::of(&folder.table_rules(s), s.is_moving());
    folder
        .write(
            &Table::from_codes(s, codes).with_encoding(encoding),
            DEFAULT_LEVEL,
        )
        .unwrap();
}

/// `check` of subspace `s` fails (exit 1) and names slot `slot`: the one
/// a test changed behind the checksums' back.
pub fn check_finds(db: &std::path::Path, spec: &str, s: &str, slot: usize) {
    let d = db.to_str().unwrap();
    let out = run(&["check", "--rules", spec, "--db", d, "--subspaces", s]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&format!("slot {slot} ")), "{text}");
}

/// The table files (`*.mbt`) of a folder whose names pass `keep`, with
/// their bytes, by name.
pub fn table_files(dir: &std::path::Path, keep: impl Fn(&str) -> bool) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "mbt"))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|n| keep(n))
        .map(|n| {
            let bytes = std::fs::read(dir.join(&n)).unwrap();
            (n, bytes)
        })
        .collect();
    v.sort();
    v
}

/// Two folders asked for with one name by tests running at once are two.
#[test]
fn temp_folders_of_one_name_are_distinct() {
    let (a, b) = (TempDir::new("same"), TempDir::new("same"));
    assert_ne!(a.path(), b.path());
    std::fs::write(a.path().join("x"), b"a").unwrap();
    drop(b);
    assert!(a.path().join("x").exists());
}
