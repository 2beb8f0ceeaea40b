//! `millbase serve`: the HTTP API against `query --json` and the library,
//! every error status, bad input, concurrency, the pages.

use crate::common;
use crate::common::http;

use http::{enc, get, post, request};
use millbase::TableSet;
use millbase::{Limits, RunningServer, ServeOptions, spawn};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const GAME: &str = "standard,stones=5";
const NMOVE: &str = "standard,stones=4,nmove=10";

/// One table folder with a whole small game, three men's morris and a
/// rule set with the N-move rule, built once for every test here.
fn db() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = common::TempDir::new("serve").leak();
        for rules in [GAME, "three", NMOVE] {
            common::run_ok(&["build", "--rules", rules, "--db", dir.to_str().unwrap()]);
        }
        dir
    })
}

fn server() -> &'static RunningServer {
    static S: OnceLock<RunningServer> = OnceLock::new();
    S.get_or_init(|| {
        let limits = Limits {
            batch_lines: 50,
            body_bytes: 16 * 1024,
            ..Limits::default()
        };
        let options = ServeOptions {
            limits,
            ..ServeOptions::new(db())
        };
        spawn(options, "127.0.0.1:0".parse().unwrap()).expect("server starts")
    })
}

fn addr() -> SocketAddr {
    server().addr
}

fn query(rules: &str, position: &str) -> http::Response {
    get(
        addr(),
        &format!(
            "/api/v1/query?rules={}&position={}",
            enc(rules),
            enc(position)
        ),
    )
}

fn cli_json(rules: &str, position: &str) -> Value {
    let out = common::run_ok(&[
        "query",
        "--rules",
        rules,
        "--db",
        db().to_str().unwrap(),
        "--json",
        position,
    ]);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Positions in every form the CLI takes.
const POSITIONS: &[&str] = &[
    "start",
    "a7 b6 d7 d6",
    "-0 -8 -1 -9 -2x8",
    "a7 b6 d7 d6 g7 xb6",
    "W.W..B../..B...../.W...... b 2 3",
    "WW.....W/.BBB.B../B....... b 0 0",
    "O*O****@/*@@@*@**/@******* b p r 0 5 0 5 0 0 -1 -1 -1 -1 0 0 1",
];

#[test]
fn answers_are_those_of_query_json() {
    for &p in POSITIONS {
        let r = query(GAME, p);
        if r.status != 200 {
            // A form the CLI refuses must be refused the same way.
            let out = common::run(&["query", "--rules", GAME, "--db", db().to_str().unwrap(), p]);
            assert_eq!(out.status.code(), Some(2), "{p}: {}", r.text());
            assert_eq!(r.status, 400, "{p}");
            continue;
        }
        assert_eq!(r.json(), cli_json(GAME, p), "{p}");
    }
    // Every form above that is legal was answered: at least the move lists
    // and board strings.
    assert_eq!(query(GAME, POSITIONS[1]).status, 200);
    assert_eq!(query(GAME, POSITIONS[5]).status, 200);
    let three = query("three", "start").json();
    assert_eq!(three, cli_json("three", "start"));
    assert_eq!(three["value"], "win");
    assert_eq!(three["plies"], 9);
}

#[test]
fn moves_carry_points_and_the_position_after() {
    let a = query(GAME, "a7 b6 d7 d6").json();
    let moves = a["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    for m in moves {
        // The position after a move answers with the move's value turned
        // round (a child lost in d is a win in d + 1 for the mover).
        let child = query(GAME, m["after"].as_str().unwrap()).json();
        let (v, p) = (child["value"].as_str().unwrap(), child["plies"].as_u64());
        let expect = match v {
            "win" => ("loss", p.map(|d| d + 1)),
            "loss" => ("win", p.map(|d| d + 1)),
            _ => ("draw", None),
        };
        assert_eq!(m["value"], expect.0, "{m}");
        assert_eq!(m["plies"].as_u64(), expect.1, "{m}");
        assert!(m["from"].is_null(), "placing phase: {m}");
        assert!(m["to"].as_u64().unwrap() < 24);
    }
    // The best move leads to a position whose value mirrors the parent's.
    assert_eq!(moves[0]["value"], a["value"]);
}

#[test]
fn nmove_answers_carry_the_counter() {
    let p = ".WWBW..B/......../.B...... b 0 0 3";
    let a = query(NMOVE, p).json();
    assert_eq!(a, cli_json(NMOVE, p));
    assert_eq!(a["counter"], 3);
    // A quiet move's position carries counter 4.
    let quiet = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["removes"].as_array().unwrap().is_empty())
        .unwrap();
    assert!(quiet["after"].as_str().unwrap().ends_with(" 4"), "{quiet}");
    let r = get(
        addr(),
        &format!(
            "/api/v1/query?rules={}&position={}&counter=2",
            enc(NMOVE),
            enc(".WWBW..B/......../.B...... b 0 0")
        ),
    );
    assert_eq!(r.json()["counter"], 2);
    // Counter N: the game is over, drawn; past N is an error.
    let at = |c: u32| {
        get(
            addr(),
            &format!(
                "/api/v1/query?rules={}&position={}&counter={c}",
                enc(NMOVE),
                enc(".WWBW..B/......../.B...... b 0 0")
            ),
        )
    };
    let over = at(10).json();
    assert_eq!(
        (&over["over"], &over["value"]),
        (&json!("nmove"), &json!("draw"))
    );
    assert_eq!(at(11).status, 400);
    // A counter for rules without the rule.
    let bad = get(
        addr(),
        &format!("/api/v1/query?rules={}&position=start&counter=1", enc(GAME)),
    );
    assert_eq!(bad.status, 400);
    assert!(bad.json()["error"].as_str().unwrap().contains("N-move"));
}

#[test]
fn batch_answers_in_order() {
    let body = "start\nnot a position\n\na7 b6 d7 d6\nWW.....W/.BBB.B../B....... b 0 0\n";
    let r = post(
        addr(),
        &format!("/api/v1/query?rules={}", enc(GAME)),
        body.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let items = v.as_array().unwrap();
    assert_eq!(items.len(), 4);
    assert_eq!(items[0], cli_json(GAME, "start"));
    assert_eq!(items[1]["input"], "not a position");
    assert!(items[1]["error"].is_string());
    assert_eq!(items[2], cli_json(GAME, "a7 b6 d7 d6"));
    assert_eq!(items[3], cli_json(GAME, "WW.....W/.BBB.B../B....... b 0 0"));
}

#[test]
fn rules_lists_what_is_built() {
    let v = get(addr(), "/api/v1/rules").json();
    assert_eq!(v["version"], 1);
    let sets = v["rule_sets"].as_array().unwrap();
    let find = |name: &str| sets.iter().find(|r| r["rules"] == name).cloned();
    let game = find(GAME).expect("the 5-stone game is listed");
    assert_eq!(game["phases"]["placing"], true);
    assert_eq!(game["board"], "standard");
    assert_eq!(find("three").unwrap()["phases"]["placing"], true);
    assert_eq!(find(NMOVE).unwrap()["nmove"], 10);
    // 6 stones: the 6-x moving tables are not built.
    assert!(find("standard,stones=6").is_none());
    // 4/4 moving phase is there (5 stones needs it) but not its placing
    // phase.
    assert_eq!(
        find("standard,stones=4").unwrap()["phases"]["placing"],
        false
    );
    let boards = v["boards"].as_array().unwrap();
    let three = boards.iter().find(|b| b["name"] == "three").unwrap();
    assert_eq!(three["points"], 9);
    assert_eq!(three["coords"].as_array().unwrap().len(), 9);
    let standard = boards.iter().find(|b| b["name"] == "standard").unwrap();
    assert_eq!(standard["edges"].as_array().unwrap().len(), 32);
    assert_eq!(standard["lines"].as_array().unwrap().len(), 16);
}

#[test]
fn best_line_follows_the_best_moves() {
    let r = get(
        addr(),
        &format!("/api/v1/line?rules=three&position={}&max=50", enc("start")),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let line = v.as_array().unwrap();
    // White wins in 9: ten positions, the last with no move.
    assert_eq!(line.len(), 10, "{v}");
    for (i, w) in line.windows(2).enumerate() {
        assert_eq!(w[0]["moves"][0]["after"], w[1]["position"], "ply {i}");
        assert_eq!(w[0]["plies"].as_u64().unwrap(), 9 - i as u64);
    }
    assert!(line[9]["moves"].as_array().unwrap().is_empty());
    let short = get(addr(), "/api/v1/line?rules=three&max=2").json();
    assert_eq!(short.as_array().unwrap().len(), 3);
    assert_eq!(
        get(addr(), "/api/v1/line?rules=three&max=100000").status,
        400
    );
}

#[test]
fn a_game_record_is_probed_move_by_move() {
    let game = |rules: &str, position: &str, moves: &str| {
        get(
            addr(),
            &format!(
                "/api/v1/game?rules={}&position={}&moves={}",
                enc(rules),
                enc(position),
                enc(moves)
            ),
        )
    };
    // Numbered moves; each position is what `query` says of the prefix.
    let r = game(GAME, "start", "1. a7 b6 2. d7 d6 3. g7xb6");
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let positions = v["positions"].as_array().unwrap();
    let played = v["played"].as_array().unwrap();
    assert_eq!((positions.len(), played.len()), (6, 5), "{v}");
    let moves = ["a7", "b6", "d7", "d6", "g7xb6"];
    for (k, m) in moves.iter().enumerate() {
        assert_eq!(played[k]["move"], *m);
        assert_eq!(played[k]["after"], positions[k + 1]["position"]);
        let prefix = moves[..=k].join(" ");
        assert_eq!(positions[k + 1], query(GAME, &prefix).json(), "{prefix}");
        // Each played move is one of the position's listed moves.
        assert!(
            positions[k]["moves"]
                .as_array()
                .unwrap()
                .contains(&played[k])
        );
    }
    // From a board string, in point numbers.
    let start = positions[2]["position"].as_str().unwrap();
    let v = game(GAME, start, "-1 -9").json();
    assert_eq!(v["played"][0]["move"], "-1");
    for field in ["position", "value", "plies"] {
        assert_eq!(v["positions"][2][field], positions[4][field]);
    }
    // The moves print in the notation of the moves given.
    assert_eq!(v["positions"][2]["moves"][0]["move"], "-2x8");
    // An illegal move names its ply.
    let r = game(GAME, "start", "a7 a7");
    assert_eq!(r.status, 400);
    assert!(
        r.json()["error"].as_str().unwrap().contains("ply 2"),
        "{}",
        r.text()
    );
    // Under the N-move rule, a quiet move to counter N ends the game.
    let at9 = "WW.W..../B...B.../....WB.B w 0 0 9";
    let v = game(NMOVE, at9, "e3-e4").json();
    let last = &v["positions"][1];
    assert_eq!(
        (&last["over"], &last["value"], &last["counter"]),
        (&json!("nmove"), &json!("draw"), &json!(10)),
        "{v}"
    );
    assert!(last["moves"].as_array().unwrap().is_empty());
    assert_eq!(
        game(NMOVE, at9, "e3-e4 b6-a7").status,
        400,
        "no move after the draw"
    );
    // A game over by a line of three.
    let v = query("three", "WWW.B.B./B b 0 0").json();
    assert_eq!((&v["over"], &v["value"]), (&json!("line"), &json!("loss")));
    assert!(query("three", "start").json().get("over").is_none());
}

#[test]
fn stats_match_the_stats_command() {
    let r = get(addr(), "/api/v1/stats?rules=three");
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let out = common::run_ok(&[
        "stats",
        "--rules",
        "three",
        "--db",
        db().to_str().unwrap(),
        "--json",
    ]);
    let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["subspaces"].as_array().unwrap();
    assert_eq!(rows.len(), cli["subspaces"].as_array().unwrap().len());
    for row in rows {
        let c = cli["subspaces"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["subspace"] == row["subspace"])
            .unwrap_or_else(|| panic!("{} not in `stats`", row["subspace"]));
        for k in [
            "positions",
            "wins",
            "draws",
            "losses",
            "longest_win",
            "longest_loss",
        ] {
            assert_eq!(row[k], c[k], "{} {k}", row["subspace"]);
        }
        let sum = |k: &str| -> u64 {
            row["plies"][k]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_u64().unwrap())
                .sum()
        };
        assert_eq!(sum("wins"), row["wins"].as_u64().unwrap());
        assert_eq!(sum("losses"), row["losses"].as_u64().unwrap());
    }
}

#[test]
fn bad_input_gets_a_4xx_and_the_server_keeps_serving() {
    let a = addr();
    let cases: Vec<(Vec<u8>, u16)> = vec![
        // A bad position, a board string of the wrong length.
        (
            format!("/api/v1/query?rules={}&position=zz9", enc(GAME)).into_bytes(),
            400,
        ),
        (
            format!(
                "/api/v1/query?rules={}&position={}",
                enc(GAME),
                enc("WB.. w 0 0")
            )
            .into_bytes(),
            400,
        ),
        // Not UTF-8 after percent-decoding, and raw.
        (
            b"/api/v1/query?rules=standard,stones=5&position=%ff%fe".to_vec(),
            400,
        ),
        // Overlong.
        (
            format!(
                "/api/v1/query?rules={}&position={}",
                enc(GAME),
                "a".repeat(5000)
            )
            .into_bytes(),
            413,
        ),
        // An unknown preset; a rule set without tables here; a table not built.
        (b"/api/v1/query?rules=nosuch&position=start".to_vec(), 400),
        (b"/api/v1/query?rules=twelve&position=start".to_vec(), 404),
        (
            b"/api/v1/query?rules=standard,stones=6&position=start".to_vec(),
            404,
        ),
        // A position no game reaches.
        (
            format!(
                "/api/v1/query?rules={}&position={}",
                enc(GAME),
                enc("W......./......../........ w 5 5")
            )
            .into_bytes(),
            400,
        ),
        // Paths.
        (b"/api/v1/nothing".to_vec(), 404),
        (b"/assets/../Cargo.toml".to_vec(), 404),
        (b"/assets/..%2fCargo.toml".to_vec(), 404),
        (b"/assets/%2e%2e%2f%2e%2e%2fCargo.toml".to_vec(), 404),
        (b"/../../etc/passwd".to_vec(), 404),
        (b"/assets/index.html".to_vec(), 404),
    ];
    for (target, status) in &cases {
        let r = request(a, "GET", target, b"");
        assert_eq!(
            r.status,
            *status,
            "{}: {}",
            String::from_utf8_lossy(target),
            r.text()
        );
        if String::from_utf8_lossy(target).starts_with("/api/") {
            assert!(r.json()["error"].is_string(), "{}", r.text());
        }
        // Still serving.
        assert_eq!(query("three", "start").status, 200);
    }
    // A raw byte that is not UTF-8 in the request line: refused (by the
    // HTTP layer, before any route).
    let r = request(a, "GET", b"/api/v1/query?rules=three&position=a7\xff", b"");
    assert!((400..500).contains(&r.status), "{}", r.status);
    assert_eq!(query("three", "start").status, 200);
    // Bodies: too large, too many lines, not UTF-8.
    let path = format!("/api/v1/query?rules={}", enc(GAME));
    let big = "start\n".repeat(5000);
    assert_eq!(post(a, &path, big.as_bytes()).status, 413);
    let many = "start\n".repeat(51);
    assert_eq!(post(a, &path, many.as_bytes()).status, 413);
    assert_eq!(post(a, &path, b"start\n\xff\xfe\n").status, 400);
    assert_eq!(
        post(a, "/api/v1/query?rules=twelve", b"start\n").status,
        404
    );
    assert_eq!(query("three", "start").status, 200);
}

#[test]
fn pages_are_served() {
    let index = get(addr(), "/");
    assert_eq!(index.status, 200);
    assert!(index.text().contains("<svg id=\"board\""));
    assert!(index.text().contains("/assets/app.js"));
    let stats = get(addr(), "/stats?rules=three");
    assert_eq!(stats.status, 200);
    assert!(stats.text().contains("stats.js"));
    for asset in ["app.js", "stats.js", "style.css"] {
        let r = get(addr(), &format!("/assets/{asset}"));
        assert_eq!(r.status, 200, "{asset}");
        assert!(r.body.len() > 1000, "{asset}");
    }
}

#[test]
fn sixty_four_concurrent_requests() {
    let rules: millbase::Rules = GAME.parse().unwrap();
    let tables = TableSet::open(db(), &rules);
    let positions: Vec<String> = (0..64)
        .map(|i| common::walk(&rules, (i % 9) + 1, 1000 + i as u64).board_string(&rules))
        .collect();
    let expected: Vec<Value> = positions
        .iter()
        .map(|p| {
            serde_json::to_value(tables.probe_text(p, None).unwrap().to_answer(&rules)).unwrap()
        })
        .collect();
    let a = addr();
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(64));
    let handles: Vec<_> = positions
        .into_iter()
        .map(|p| {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                let r = get(
                    a,
                    &format!("/api/v1/query?rules={}&position={}", enc(GAME), enc(&p)),
                );
                assert_eq!(r.status, 200, "{}", r.text());
                r.json()
            })
        })
        .collect();
    for (h, want) in handles.into_iter().zip(expected) {
        assert_eq!(h.join().unwrap(), want);
    }
}

#[test]
fn a_damaged_table_is_a_500_with_its_name() {
    let dir = common::TempDir::new("serve-bad");
    common::run_ok(&["build", "--rules", "three", "--db", dir.to_str().unwrap()]);
    let file = dir.join("three").join("0-0-3-3.mbt");
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 0x55;
    std::fs::write(&file, bytes).unwrap();
    let s = spawn(ServeOptions::new(&dir), "127.0.0.1:0".parse().unwrap()).unwrap();
    let r = get(s.addr, "/api/v1/query?rules=three&position=start");
    assert_eq!(r.status, 500, "{}", r.text());
    assert!(
        r.json()["error"].as_str().unwrap().contains("0-0-3-3"),
        "{}",
        r.text()
    );
    // Other tables still answer.
    let r = get(
        s.addr,
        &format!(
            "/api/v1/query?rules=three&position={}",
            enc("WW.BB.... w 1 1")
        ),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    s.stop().unwrap();
}

#[test]
fn cors_is_off_by_default_and_on_when_asked() {
    let r = get(addr(), "/api/v1/rules");
    assert_eq!(r.status, 200);
    let raw = raw_headers(addr(), "/api/v1/rules");
    assert!(
        !raw.to_ascii_lowercase()
            .contains("access-control-allow-origin")
    );
    let options = ServeOptions {
        cors: Some("https://example.org".into()),
        ..ServeOptions::new(db())
    };
    let s = spawn(options, "127.0.0.1:0".parse().unwrap()).unwrap();
    let raw = raw_headers(s.addr, "/api/v1/rules");
    assert!(
        raw.to_ascii_lowercase()
            .contains("access-control-allow-origin: https://example.org"),
        "{raw}"
    );
    s.stop().unwrap();
}

fn raw_headers(addr: SocketAddr, path: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    text.split("\r\n\r\n").next().unwrap().to_string()
}

#[test]
fn serve_command_refuses_a_missing_folder_and_a_bad_address() {
    let out = common::run(&["serve", "--db", "/nonexistent/millbase-db"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
    let out = common::run(&["serve", "--addr", "not-an-address"]);
    assert_eq!(out.status.code(), Some(2));
    let help = common::run_ok(&["serve", "--help"]);
    assert!(String::from_utf8_lossy(&help.stdout).contains("--addr"));
}
