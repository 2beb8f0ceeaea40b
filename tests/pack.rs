//! The table pack: its win/draw/loss equals the tables' on every slot and
//! its depths every lost slot's; a player with only the pack converts
//! random won positions against perfect defence from the tables and never
//! loses a drawn one; damaged, cut and foreign pack files are refused;
//! `pack` resumes; `query --pack` agrees with the library; the reader
//! builds without the solver's crates.

use crate::common::{Rng, TempDir, random_position, run, run_ok, shared_db};
use millbase::{
    PACK_LEVEL, Pack, PackError, Position, ProbeError, Rules, TableFolder, TableSet, Value, Wdl,
    built_subspaces, legal_moves, write_pack,
};
use std::collections::HashMap;
use std::path::Path;

/// Writes the pack of every built table of `rules` under `db`.
fn pack_of(db: &Path, rules: &Rules) -> TempDir {
    // A folder of its own per call: tests packing the same rules run at once.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = TempDir::new(&format!("pack-{}-{n}", rules.short_name()));
    let (subspaces, placing) = built_subspaces(&TableFolder::new(db, rules));
    assert!(placing, "the whole game is built");
    write_pack(db, rules, &out, &subspaces, PACK_LEVEL, |_| {}).unwrap();
    out
}

/// Every used slot's field and every lost slot's depth, read from the
/// pack's blocks, against the decoded tables.
fn every_slot_equal(db: &Path, pack_dir: &Path, rules: &Rules) {
    let folder = TableFolder::new(db, rules);
    let pack = Pack::open(pack_dir, rules).unwrap();
    let (mut slots, mut losses_with_depth) = (0u64, 0u64);
    for s in built_subspaces(&folder).0 {
        let table = folder.load(s).unwrap();
        let file = pack.file(s).unwrap();
        let info = file.info().clone();
        assert_eq!(info.slots, table.len());
        for b in 0..info.blocks {
            let words = file.wdl_block(b).unwrap();
            let depths = file.depth_block(b).unwrap();
            let first = b as u64 * info.block_slots as u64;
            let mut lost = 0usize;
            for j in 0..(info.slots - first).min(info.block_slots as u64) as usize {
                let field = (words[j / 32] >> (2 * (j % 32))) & 3;
                if field == 2 && info.depth_width > 0 {
                    lost += 1;
                }
                let slot = first + j as u64;
                let Some(value) = table.value(slot) else {
                    continue;
                };
                let want = match value {
                    Value::Draw => 0,
                    Value::Win(_) => 1,
                    Value::Loss(_) => 2,
                };
                assert_eq!(field, want, "{s} slot {slot}");
                slots += 1;
                if let (Value::Loss(d), true) = (value, info.depth_width > 0) {
                    assert_eq!(2 * depths[lost - 1] as u32, d, "{s} slot {slot}: depth");
                    losses_with_depth += 1;
                }
            }
            assert_eq!(lost, depths.len(), "{s} block {b}: a depth per lost field");
        }
    }
    assert!(slots > 1_000_000 && losses_with_depth > 1000);
}

/// The value of `pos` from the tables, `None` where no table covers it
/// (a placing subspace no game reaches).
fn table_value(tables: &TableSet, pos: &Position) -> Option<Value> {
    match tables.probe(pos) {
        Ok(v) => Some(v),
        Err(ProbeError::NotCovered { .. }) => None,
        Err(e) => panic!("{e}"),
    }
}

/// From `wins` random won positions the pack player, against the tables'
/// slowest defence, wins every game (from a moving-phase position in
/// exactly the plies the tables give); from `draws` random drawn positions
/// it never moves into a lost position, for 120 plies or to the end.
fn pack_player_converts(db: &Path, pack_dir: &Path, rules: &Rules, wins: usize, draws: usize) {
    let tables = TableSet::open(db, rules);
    let pack = Pack::open(pack_dir, rules).unwrap();
    let mut rng = Rng(0x9ac4 + rules.max_stones() as u64);
    let (mut won, mut held, mut from_placing) = (0, 0, 0);
    let mut moves = Vec::new();
    while won < wins || held < draws {
        let start = random_position(&mut rng, rules);
        let Some(value) = table_value(&tables, &start) else {
            continue;
        };
        legal_moves(&start, rules, &mut moves);
        if moves.is_empty() {
            continue;
        }
        let me = start.to_move;
        let (want_win, plies) = match value {
            Value::Win(d) if won < wins => (true, d),
            Value::Draw if held < draws => (false, 120),
            _ => continue,
        };
        let (mut pos, mut ply) = (start, 0);
        let mut seen: HashMap<Position, u32> = HashMap::new();
        loop {
            legal_moves(&pos, rules, &mut moves);
            if moves.is_empty() {
                assert!(
                    pos.to_move != me,
                    "{}: the pack player lost from {start:?}",
                    rules.short_name()
                );
                break;
            }
            let times = seen.entry(pos).or_default();
            *times += 1;
            if !want_win && (ply >= plies || *times >= 3) {
                break;
            }
            assert!(
                ply < 4 * plies + 200,
                "{}: no win after {ply} plies from {start:?} ({value:?})",
                rules.short_name()
            );
            let mv = if pos.to_move == me {
                let m = pack.best_move(&pos).unwrap().expect("a legal move");
                let after = tables.probe(&pos.play(&m.mv)).unwrap().parent();
                match want_win {
                    true => assert!(matches!(after, Value::Win(_)), "let a win go: {pos:?}"),
                    false => assert!(after != Value::Loss(0) && !matches!(after, Value::Loss(_))),
                }
                m.mv
            } else {
                tables.probe_moves(&pos).unwrap()[0].mv
            };
            pos = pos.play(&mv);
            ply += 1;
        }
        if want_win {
            if start.is_moving_phase() {
                assert_eq!(ply, plies, "the shortest win from {start:?}");
            } else {
                from_placing += 1;
            }
            won += 1;
        } else {
            held += 1;
        }
    }
    assert!(
        from_placing > 0,
        "some won positions are in the placing phase"
    );
}

#[test]
fn standard_six_pack_equals_the_tables_and_converts() {
    let rules: Rules = "standard,stones=6".parse().unwrap();
    let db = shared_db("standard,stones=6");
    let pack = pack_of(db, &rules);
    every_slot_equal(db, &pack, &rules);
    pack_player_converts(db, &pack, &rules, 1000, 200);
    // The start from the pack is the tables' value.
    let start = Position::start(&rules);
    let from_pack = Pack::open(&pack, &rules).unwrap().probe(&start).unwrap();
    let from_tables = TableSet::open(db, &rules).probe_wdl(&start).unwrap();
    assert_eq!(from_pack.wdl, from_tables);
    // `verify --pack` gives the start the tables' verify gives.
    let verdict = |args: &[&str]| -> String {
        let out = run_ok(args);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text
            .lines()
            .find(|l| l.starts_with("verdict: "))
            .unwrap_or_else(|| panic!("{text}"));
        line["verdict: ".len()..]
            .split_whitespace()
            .next()
            .unwrap()
            .to_string()
    };
    let spec = "standard,stones=6";
    let packed = verdict(&["verify", "--rules", spec, "--pack", pack.to_str().unwrap()]);
    assert_eq!(packed, from_tables.name());
    let out = run_ok(&[
        "verify",
        "--rules",
        spec,
        "--db",
        db.to_str().unwrap(),
        "--method",
        "tables",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("is a {packed}")), "{text}");
}

#[test]
fn twelve_five_pack_equals_the_tables_and_converts() {
    let rules: Rules = "twelve,stones=5".parse().unwrap();
    let db = shared_db("twelve,stones=5");
    let pack = pack_of(db, &rules);
    every_slot_equal(db, &pack, &rules);
    pack_player_converts(db, &pack, &rules, 1000, 200);
}

#[test]
fn bad_pack_files_are_refused_never_read() {
    let rules: Rules = "standard,stones=4".parse().unwrap();
    let db = shared_db("standard,stones=4");
    let out = pack_of(db, &rules);
    let moving = millbase::Subspace::moving(4, 4);
    let path = Pack::open(&out, &rules).unwrap().path(moving);
    let sound = std::fs::read(&path).unwrap();
    // A spread of 4-4 positions, to reach every block.
    let mut rng = Rng(7);
    let positions: Vec<Position> = (0..400)
        .map(|_| {
            let white = rng.points(rules.board().all, 4);
            let black = rng.points(rules.board().all.minus(white), 4);
            let stones = millbase::ByColor { white, black };
            let hand = millbase::ByColor { white: 0, black: 0 };
            Position::new(stones, hand, millbase::Color::White, &rules).unwrap()
        })
        .collect();
    let probe = || {
        let pack = Pack::open(&out, &rules).unwrap();
        let whole = pack.file(moving).and_then(|f| f.verify());
        let probes: Vec<_> = positions.iter().map(|p| pack.probe_wdl(p)).collect();
        (whole, probes)
    };
    let (whole, right) = probe();
    whole.unwrap();
    let right: Vec<Wdl> = right.into_iter().map(Result::unwrap).collect();
    // Flipped bytes in the header, the rule text, the index and the blocks:
    // the file is refused whole, and a probe gives an error naming it or
    // the sound value, never another.
    for at in [3usize, 20, 70, 300, sound.len() / 2, sound.len() - 1] {
        let mut bad = sound.clone();
        bad[at] ^= 0x20;
        std::fs::write(&path, &bad).unwrap();
        let (whole, probes) = probe();
        assert!(whole.is_err(), "a flipped byte at {at} went unnoticed");
        for (p, want) in probes.iter().zip(&right) {
            match p {
                Ok(v) => assert_eq!(v, want, "byte {at}: a wrong value"),
                Err(e) => assert!(e.to_string().contains("4-4.mbp"), "{e}"),
            }
        }
    }
    // Cut short.
    std::fs::write(&path, &sound[..sound.len() - 10]).unwrap();
    assert!(matches!(probe().0, Err(PackError::Damaged(..))));
    // Not a pack.
    std::fs::write(&path, b"not a pack at all").unwrap();
    assert!(matches!(probe().0, Err(PackError::NotAPack(_))));
    std::fs::write(&path, &sound).unwrap();
    assert!(probe().0.is_ok());
    // Foreign rules: a flying=off pack read as the standard game.
    let other: Rules = "standard,stones=4,flying=off".parse().unwrap();
    let other_db = shared_db("standard,stones=4,flying=off");
    let other_pack = pack_of(other_db, &other);
    let theirs = Pack::open(&other_pack, &other).unwrap().path(moving);
    std::fs::copy(&theirs, &path).unwrap();
    match Pack::open(&out, &rules).unwrap().file(moving) {
        Err(PackError::Rules { built, .. }) => assert!(built.contains("flying=off")),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("a pack of other rules was read"),
    }
    // The N-move rule is refused.
    let nmove: Rules = "standard,stones=4,nmove=20".parse().unwrap();
    assert!(matches!(Pack::open(&out, &nmove), Err(PackError::NMove(_))));
    // A subspace without a file is not covered.
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(
        Pack::open(&out, &rules).unwrap().probe_wdl(&positions[0]),
        Err(PackError::NotCovered { .. })
    ));
}

#[test]
fn pack_command_resumes_and_query_reads_the_pack() {
    let rules = "standard,stones=4";
    let db = shared_db(rules);
    let out = TempDir::new("pack-cli");
    let pack = || {
        run_ok(&[
            "pack",
            "--rules",
            rules,
            "--db",
            db.to_str().unwrap(),
            "--out",
            out.arg(),
        ])
    };
    let first = pack();
    let text = String::from_utf8_lossy(&first.stdout);
    assert!(
        text.contains("packed") && text.contains("rules fingerprint"),
        "{text}"
    );
    assert!(!text.contains("found"), "{text}");
    let again = pack();
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(
        text.lines().filter(|l| l.contains("found")).count() > 10,
        "{text}"
    );
    // query --pack against the library and the tables.
    let r: Rules = rules.parse().unwrap();
    let tables = TableSet::open(db, &r);
    for position in ["start", "d6 d5 b4 f4", "a7 d7 g7 a4 g4 a1 d1 g1"] {
        let out_json = run_ok(&[
            "query",
            "--rules",
            rules,
            "--pack",
            out.arg(),
            "--json",
            position,
        ]);
        let v: serde_json::Value = serde_json::from_slice(&out_json.stdout).unwrap();
        let pos = millbase::parse_position(position, &r).unwrap().position;
        let want = tables.probe_wdl(&pos).unwrap();
        assert_eq!(v["value"], want.name(), "{position}");
        let moves = tables.probe_moves(&pos).unwrap();
        assert_eq!(v["moves"].as_array().unwrap().len(), moves.len());
        let best = v["best"].as_str().unwrap();
        let best_value = moves
            .iter()
            .find(|m| millbase::format_move(r.board(), &m.mv, millbase::Notation::Coords) == best)
            .unwrap()
            .value;
        assert_eq!(
            Wdl::from(best_value),
            want,
            "{position}: the pack's move keeps the value"
        );
    }
    // A pack given as bytes (an app without files) answers as the folder.
    let moving = millbase::Subspace::moving(4, 4);
    let from_folder = Pack::open(&out, &r).unwrap();
    let bytes = std::fs::read(from_folder.path(moving)).unwrap();
    let slots = from_folder.file(moving).unwrap().info().slots;
    let file = millbase::PackFile::from_bytes(
        Path::new("4-4.mbp"),
        bytes,
        &r.moving_rules(),
        moving,
        slots,
    )
    .unwrap();
    let in_memory = Pack::open(Path::new("/nonexistent"), &r)
        .unwrap()
        .with_file(file)
        .unwrap();
    let mut rng = Rng(11);
    for _ in 0..200 {
        let white = rng.points(r.board().all, 4);
        let black = rng.points(r.board().all.minus(white), 4);
        let stones = millbase::ByColor { white, black };
        let hand = millbase::ByColor { white: 0, black: 0 };
        let p = Position::new(stones, hand, millbase::Color::Black, &r).unwrap();
        assert_eq!(
            in_memory.probe_wdl(&p).unwrap(),
            from_folder.probe_wdl(&p).unwrap()
        );
    }
    // Bad input: an N-move rule, a missing pack, a position the pack does
    // not cover.
    let refused = run(&[
        "pack",
        "--rules",
        "standard,stones=4,nmove=20",
        "--db",
        db.to_str().unwrap(),
        "--out",
        out.arg(),
    ]);
    assert_eq!(refused.status.code(), Some(2));
    let missing = run(&[
        "query",
        "--rules",
        rules,
        "--pack",
        "/nonexistent/pack",
        "start",
    ]);
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(stderr.contains("not a folder"), "{stderr}");
    let uncovered = run(&[
        "query",
        "--rules",
        "standard,stones=5",
        "--pack",
        out.arg(),
        "start",
    ]);
    assert_eq!(uncovered.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&uncovered.stderr);
    assert!(stderr.contains("no file for subspace"), "{stderr}");
}

#[test]
fn the_pack_reader_builds_without_the_solvers_crates() {
    let tree = std::process::Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--no-default-features",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--manifest-path",
        ])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .output()
        .expect("runs cargo tree");
    assert!(
        tree.status.success(),
        "{}",
        String::from_utf8_lossy(&tree.stderr)
    );
    let text = String::from_utf8_lossy(&tree.stdout);
    for name in [
        "rayon ",
        "indicatif ",
        "clap ",
        "hyper ",
        "axum ",
        "tokio ",
        "serde ",
    ] {
        assert!(
            !text.lines().any(|l| l.starts_with(name)),
            "{name}in the core build:\n{text}"
        );
    }
    assert!(text.lines().any(|l| l.starts_with("zstd ")), "{text}");
}

/// `millbase uci --pack` through `match`: the pack's engine, which reads
/// no table, never loses to the tables' perfect player nor to random play,
/// and beats random play in most games.
#[test]
fn the_engine_plays_from_the_pack() {
    let rules = "standard,stones=4";
    let db = shared_db(rules);
    let r: Rules = rules.parse().unwrap();
    let out = pack_of(db, &r);
    // The engine gets an empty table folder: every answer is the pack's.
    let empty = TempDir::new("pack-engine-no-tables");
    let engine = format!(
        "uci:{} uci --db {} --pack {}",
        env!("CARGO_BIN_EXE_millbase"),
        empty.arg(),
        out.arg()
    );
    let start = TableSet::open(db, &r).probe(&Position::start(&r)).unwrap();
    for (opponent, games) in [("random", "6"), ("perfect", "4")] {
        let played = run_ok(&[
            "match",
            opponent,
            &engine,
            "--rules",
            rules,
            "--games",
            games,
            "--db",
            db.to_str().unwrap(),
            "--json",
        ]);
        let v: serde_json::Value = serde_json::from_slice(&played.stdout).unwrap();
        let (wins, losses) = (v["wins"].as_u64().unwrap(), v["losses"].as_u64().unwrap());
        assert_eq!(wins, 0, "{opponent} beat the pack's engine: {v}");
        if opponent == "random" {
            assert!(losses >= 4, "{v}");
        } else if start == Value::Draw {
            assert_eq!(losses, 0, "{v}");
        }
    }
}
