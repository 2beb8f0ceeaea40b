//! Builds through the real binary: thread counts, interruption and resume.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn millbase() -> Command {
    Command::new(env!("CARGO_BIN_EXE_millbase"))
}

fn temp_db(name: &str) -> common::TempDir {
    common::TempDir::new(&format!("build-{name}"))
}

fn build(db: &Path, threads: &str, subspaces: &str) {
    let out = common::run_ok(&[
        "build",
        "--db",
        db.to_str().unwrap(),
        "--threads",
        threads,
        "--subspaces",
        subspaces,
    ]);
    // The log ends with the build's rate and the machine figure (not
    // measured unless asked, and said so).
    let log = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = log.lines().collect();
    let last = lines.last().copied().unwrap_or_default();
    assert!(
        last.starts_with("machine figure:") || last == "rate: nothing computed",
        "{log}"
    );
    if last.starts_with("machine figure:") {
        let rate = lines[lines.len() - 2];
        assert!(rate.starts_with("rate, moving phase: "), "{log}");
        let visits: u64 = rate["rate, moving phase: ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(visits > 0, "{rate}");
    }
}

/// Every file of the rule set's folder, by name, with its bytes.
fn files(db: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(db.join("standard"))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_second_build_into_the_same_folder_is_refused_while_the_first_runs() {
    let db = temp_db("locked");
    let d = db.to_str().unwrap();
    let mut first = millbase()
        .args(["build", "--db", d, "--subspaces", "5-4"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The lock file holds the writer's pid once the lock is taken.
    let lock = db.join(".millbase.lock");
    let start = Instant::now();
    while std::fs::read_to_string(&lock).map_or(true, |s| s.is_empty())
        && start.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    let second = common::run(&["build", "--db", d, "--subspaces", "5-4"]);
    // The second ran while the first held the lock (5-4 takes seconds).
    assert!(
        first.try_wait().unwrap().is_none(),
        "the first build ended too soon"
    );
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{err}");
    let want = format!("another build (pid {}) is writing {d}", first.id());
    assert!(err.contains(&want), "{err}");
    assert!(first.wait().unwrap().success());
    // The lock went with the first build: the same command now finds
    // everything on disk.
    let third = common::run_ok(&["build", "--db", d, "--subspaces", "5-4"]);
    let log = String::from_utf8_lossy(&third.stderr);
    assert!(log.contains("built 0 pairs"), "{log}");
}

#[test]
fn readers_never_see_a_half_written_table() {
    // Positions from every phase: the start, placing positions, moving ones.
    let spec = "standard,stones=4";
    let rules: millbase::Rules = spec.parse().unwrap();
    let positions: Vec<millbase::Position> = (0..40u64)
        .map(|seed| common::walk(&rules, (seed % 12) as usize, seed * 7919 + 1))
        .collect();
    let db = temp_db("readers");
    let mut build = millbase()
        .args(["build", "--rules", spec, "--db", db.to_str().unwrap()])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // While it runs: each probe gives a value or says a table is missing.
    let mut seen = Vec::new();
    let (mut values, mut missing) = (0, 0);
    while build.try_wait().unwrap().is_none() {
        let tables = millbase::TableSet::open(&db, &rules);
        for (i, p) in positions.iter().enumerate() {
            match tables.probe(p) {
                Ok(v) => {
                    seen.push((i, v));
                    values += 1;
                }
                Err(millbase::ProbeError::Table(millbase::TableError::Missing(_))) => missing += 1,
                Err(e) => panic!("during the build: {e}"),
            }
        }
    }
    assert!(build.wait().unwrap().success());
    // Every value read during the build is the finished table's.
    let tables = millbase::TableSet::open(&db, &rules);
    for (i, v) in seen {
        assert_eq!(tables.probe(&positions[i]).unwrap(), v, "position {i}");
    }
    assert!(
        values > 0 && missing > 0,
        "{values} values, {missing} missing"
    );
}

#[test]
fn the_machine_figure_is_measured_when_asked() {
    let db = temp_db("figure");
    let out = common::run_ok(&[
        "build",
        "--db",
        db.to_str().unwrap(),
        "--subspaces",
        "3-3",
        "--machine-figure",
    ]);
    let log = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = log.lines().collect();
    let figure = lines[lines.len() - 1]
        .strip_prefix("machine figure: ")
        .and_then(|l| l.split(" M random byte updates/s").next())
        .and_then(|r| r.parse::<f64>().ok());
    assert!(figure.is_some_and(|f| f > 0.0), "{log}");
    assert!(
        lines[lines.len() - 2].ends_with("M slots/s")
            && lines[lines.len() - 2].contains("% of the machine figure"),
        "{log}"
    );
}

#[test]
fn one_or_two_threads_and_an_interrupted_run_give_the_same_bytes() {
    let one = temp_db("t1");
    let two = temp_db("t2");
    build(&one, "1", "5-3");
    build(&two, "2", "5-3");
    let reference = files(&one);
    let names: Vec<&str> = reference.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "3-3.mbt",
            "3-4.mbt",
            "3-5.mbt",
            "4-3.mbt",
            "5-3.mbt",
            "stats.json"
        ]
    );
    assert_eq!(files(&two), reference, "--threads 1 and 2 differ");

    // Kill a run once it has finished some pairs but not all, then resume.
    let killed = temp_db("killed");
    let mut child = millbase()
        .args([
            "build",
            "--db",
            killed.to_str().unwrap(),
            "--subspaces",
            "5-3",
        ])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let marker = killed.join("standard").join("4-3.mbt");
    let start = Instant::now();
    while !marker.exists() && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !killed.join("standard").join("5-3.mbt").exists(),
        "the run finished before the kill"
    );
    // The same build again, its log returned.
    let resume = || {
        let out = common::run_ok(&["build", "--db", killed.arg(), "--subspaces", "5-3"]);
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let log = resume();
    assert!(log.contains("found 3-3 on disk, not recomputed"), "{log}");
    let resumed: Vec<_> = files(&killed)
        .into_iter()
        .filter(|(n, _)| !n.ends_with(".tmp"))
        .collect();
    assert_eq!(resumed, reference, "resumed build differs");

    // A damaged table that a step reads is rebuilt, not trusted. A
    // resumed build reads a skipped table's header and block index only;
    // its blocks are checked when a step reads them.
    let t = killed.join("standard").join("4-3.mbt");
    let mut bytes = std::fs::read(&t).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(&t, bytes).unwrap();
    std::fs::remove_file(killed.join("standard").join("5-3.mbt")).unwrap();
    let log = resume();
    assert!(
        log.contains("4-3.mbt"),
        "the damaged table is not named: {log}"
    );
    let repaired: Vec<_> = files(&killed)
        .into_iter()
        .filter(|(n, _)| !n.ends_with(".tmp"))
        .collect();
    assert_eq!(repaired, reference);
}

/// The output of `stats --json` for the standard tables under `db`.
fn stats_json(db: &Path) -> serde_json::Value {
    let out = millbase()
        .args(["stats", "--json", "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn stats_json_has_the_documented_fields() {
    let db = temp_db("stats");
    build(&db, "2", "4-3");
    let v = stats_json(&db);
    let rows = v["subspaces"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    let r33 = rows.iter().find(|r| r["subspace"] == "3-3").unwrap();
    assert_eq!(r33["positions"], 169626);
    assert_eq!(r33["longest_loss"], 26);
    let r34 = rows.iter().find(|r| r["subspace"] == "3-4").unwrap();
    assert!(r34["longest_loss"].is_null(), "no loss in 3-4: null");
    for key in [
        "positions",
        "wins",
        "draws",
        "losses",
        "longest_win",
        "longest_loss",
    ] {
        assert!(r33.get(key).is_some(), "{key}");
    }
    let total = r33["wins"].as_u64().unwrap()
        + r33["draws"].as_u64().unwrap()
        + r33["losses"].as_u64().unwrap();
    assert_eq!(total, 169626);
    // The same schema is written next to the tables.
    let file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(db.join("standard").join("stats.json")).unwrap())
            .unwrap();
    assert_eq!(file["subspaces"].as_array().unwrap().len(), 3);
    assert_eq!(file["checksums"].as_array().unwrap().len(), 3);
    // A row is taken from the file only for the table it counted: with a
    // wrong count and another checksum, 3-3 is counted again; with the
    // same checksum the file's row stands (so the file is what is read).
    let path = db.join("standard").join("stats.json");
    let stats_33 = || {
        stats_json(&db)["subspaces"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["subspace"] == "3-3")
            .unwrap()["wins"]
            .as_u64()
            .unwrap()
    };
    let true_wins = r33["wins"].as_u64().unwrap();
    let k = file["subspaces"]
        .as_array()
        .unwrap()
        .iter()
        .position(|r| r["subspace"] == "3-3")
        .unwrap();
    let mut edited = file.clone();
    edited["subspaces"][k]["wins"] = serde_json::json!(7);
    std::fs::write(&path, serde_json::to_vec(&edited).unwrap()).unwrap();
    assert_eq!(
        stats_33(),
        true_wins,
        "a row whose counts do not add up is counted again"
    );
    let draws = r33["draws"].as_u64().unwrap() + true_wins - 7;
    edited["subspaces"][k]["draws"] = serde_json::json!(draws);
    std::fs::write(&path, serde_json::to_vec(&edited).unwrap()).unwrap();
    assert_eq!(
        stats_33(),
        true_wins,
        "an edited row that adds up but breaks its seal is counted again"
    );
    // Sealed again as the writer seals it, the edited row is believed: the
    // file is what is read for an unchanged table.
    let sum = edited["checksums"][k].as_u64().unwrap();
    let row: millbase::SubspaceStats =
        serde_json::from_value(edited["subspaces"][k].clone()).unwrap();
    edited["seals"][k] = serde_json::json!(millbase::StatsFile::seal(&row, sum));
    std::fs::write(&path, serde_json::to_vec(&edited).unwrap()).unwrap();
    assert_eq!(
        stats_33(),
        7,
        "the sealed row of an unchanged table is read from the file"
    );
    edited["checksums"][k] = serde_json::json!(sum ^ 1);
    std::fs::write(&path, serde_json::to_vec(&edited).unwrap()).unwrap();
    assert_eq!(stats_33(), true_wins, "a changed table is counted again");
    // No tables: a clear error.
    let empty = temp_db("none");
    let out = millbase()
        .args(["stats", "--db", empty.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("millbase build"));
}

#[test]
fn query_answers_from_the_tables_and_refuses_what_it_cannot() {
    let db = temp_db("query");
    build(&db, "2", "3-3");
    let q = |args: &[&str]| {
        let mut v = vec!["query", "--db", db.to_str().unwrap()];
        v.extend_from_slice(args);
        millbase().args(&v).output().unwrap()
    };
    // Gasser's example: Black to move loses in 26.
    let out = q(&["--json", ".WWBW..B/......../.B...... b 0 0"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["value"], "loss");
    assert_eq!(v["plies"], 26);
    let moves = v["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    // Best first: the slowest loss leads; every move of a lost position loses.
    assert!(moves.iter().all(|m| m["value"] == "loss"));
    assert_eq!(moves[0]["plies"], 26);
    let text = q(&[".WWBW..B/......../.B...... b 0 0"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("Black to move: loss in 26 plies"));
    // A position whose table is not built: names the file and the command.
    let out = q(&["WWWW..../BBB...../........ w 0 0"]);
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("4-3.mbt") && e.contains("millbase build"), "{e}");
    // Batch: one JSON object per line, errors inline, worst exit status.
    let mut child = millbase()
        .args(["query", "--db", db.to_str().unwrap(), "--json", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        for _ in 0..200 {
            writeln!(stdin, ".WWBW..B/......../.B...... b 0 0").unwrap();
        }
        writeln!(stdin, "zz").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 201);
    assert!(lines[..200].iter().all(|v| v["plies"] == 26));
    assert!(lines[200]["error"].as_str().unwrap().contains("`zz`"));
    // Placing phase: only moving tables were built here, so the start's
    // table is missing, said plainly with the command that makes it.
    let out = q(&["start"]);
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("0-0-9-9.mbt") && e.contains("millbase build"),
        "{e}"
    );
}
