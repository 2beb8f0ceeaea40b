//! The web board in a real headless Chromium, driven over WebDriver
//! (Debian's `chromium` and `chromium-driver`, which `.ci/run` installs).
//! One server over one table folder serves every test; each test opens its
//! own browser session. Screenshots go to `target/screenshots/`.

use crate::common;
use crate::common::http;

use fantoccini::{Client, ClientBuilder, Locator};
use http::{enc, get, request};
use millbase::{ServeOptions, spawn};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const GAME: &str = "standard,stones=5";
const SMALL: &str = "standard,stones=4";
const NMOVE: &str = "standard,stones=4,nmove=10";
/// The rule sets the server has, built whole.
const BUILT: &[&str] = &[
    GAME,
    SMALL,
    NMOVE,
    "three",
    "six",
    "lasker,stones=3",
    "twelve,stones=4",
];

/// White to move on `standard,stones=4`: g4-g7 closes the mill a7 d7 g7;
/// a7 has one legal target (a4).
const MILL_SLIDE: &str = "WW.W..../B...B.../....WB.B w 0 0";
/// The same with Black on 3 stones: the mill leaves Black with 2.
const LAST_MILL: &str = "WW.W..../B...B.../....WB.. w 0 0";

struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn find_program(names: &[&str]) -> Option<PathBuf> {
    names.iter().find_map(|n| {
        ["/usr/bin", "/usr/local/bin", "/usr/lib/chromium"]
            .iter()
            .map(|dir| Path::new(dir).join(n))
            .find(|p| p.exists())
    })
}

/// Chromium and its WebDriver, or `None` (the test is then skipped, unless
/// `MILLBASE_REQUIRE_BROWSER` is set, as `.ci/run` does).
fn browser_programs() -> Option<(PathBuf, PathBuf)> {
    let found =
        find_program(&["chromium", "chromium-browser"]).zip(find_program(&["chromedriver"]));
    if found.is_none() {
        let why = "chromium not found: install Debian's chromium and chromium-driver";
        assert!(
            std::env::var_os("MILLBASE_REQUIRE_BROWSER").is_none(),
            "{why}"
        );
        eprintln!("skipped: {why}");
    }
    found
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_driver(exe: &Path) -> (Driver, u16) {
    let port = free_port();
    let child = Command::new(exe)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen");
        std::thread::sleep(Duration::from_millis(100));
    }
    (Driver(child), port)
}

/// The server every test talks to, over a folder with [`BUILT`] built.
fn server() -> (SocketAddr, &'static Path) {
    static SERVER: OnceLock<(SocketAddr, PathBuf)> = OnceLock::new();
    let (addr, db) = SERVER.get_or_init(|| {
        let db = common::TempDir::new("browser").leak();
        for rules in BUILT {
            common::build_tables(&db, &rules.parse().unwrap(), &[]);
        }
        let server = spawn(ServeOptions::new(&db), "127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = server.addr;
        // Serves until the process ends.
        std::mem::forget(server);
        (addr, db)
    });
    (*addr, db)
}

/// A browser session on the test server's pages.
struct Page {
    c: Client,
    addr: SocketAddr,
    _driver: Driver,
}

async fn page(width: u32, height: u32) -> Option<Page> {
    let (chromium, chromedriver) = browser_programs()?;
    let (addr, _) = server();
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", format!("--window-size={width},{height}")]
        }),
    );
    // A driver that has just begun to listen may still drop the first
    // session request on a loaded machine: a new driver, up to three times.
    let mut attempt = 0;
    let (c, driver) = loop {
        attempt += 1;
        let (driver, port) = start_driver(&chromedriver);
        match ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
        {
            Ok(c) => break (c, driver),
            Err(e) if attempt < 3 => eprintln!("WebDriver session, attempt {attempt}: {e}"),
            Err(e) => panic!("a WebDriver session: {e}"),
        }
    };
    Some(Page {
        c,
        addr,
        _driver: driver,
    })
}

fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn api(addr: SocketAddr, rules: &str, position: &str) -> Value {
    let r = get(
        addr,
        &format!(
            "/api/v1/query?rules={}&position={}",
            enc(rules),
            enc(position)
        ),
    );
    assert_eq!(r.status, 200, "{position}: {}", r.text());
    r.json()
}

/// A point's number on the board of `rules`, by its coordinate.
fn point(rules: &str, coord: &str) -> u64 {
    let rules: millbase::Rules = rules.parse().unwrap();
    rules
        .board()
        .point_by_coord(coord)
        .unwrap_or_else(|| panic!("{coord}"))
        .number() as u64
}

impl Page {
    async fn shot(&self, name: &str) {
        let png = self.c.screenshot().await.unwrap();
        std::fs::write(screenshots().join(name), png).unwrap();
    }

    async fn js(&self, code: &str) -> Value {
        self.c.execute(code, vec![]).await.unwrap()
    }

    async fn text_of(&self, id: &str) -> String {
        let v = self
            .js(&format!(
                "return document.getElementById('{id}').textContent"
            ))
            .await;
        v.as_str().unwrap_or("").to_string()
    }

    /// Waits until the page has answered (no request or reply in flight).
    async fn ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let s = self.js("return document.body.dataset.state").await;
            if s == "ready" {
                return;
            }
            assert!(Instant::now() < deadline, "page never got ready");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }

    async fn open(&self, path: &str) {
        self.c
            .goto(&format!("http://{}{path}", self.addr))
            .await
            .unwrap();
        self.ready().await;
    }

    async fn board(&self, rules: &str, position: &str, moves: &str) {
        self.open(&format!(
            "/?rules={}&position={}&moves={}",
            enc(rules),
            enc(position),
            enc(moves)
        ))
        .await;
    }

    /// Plays d2 as White against millbase (`strength` if given) in
    /// `standard,stones=4` from the start, and returns the record once
    /// millbase has answered.
    async fn d2_against_millbase(&self, strength: Option<&str>) -> Vec<String> {
        self.board(SMALL, "start", "").await;
        self.choose("opponent", "b").await;
        if let Some(s) = strength {
            self.choose("strength", s).await;
        }
        self.click_point(point(SMALL, "d2")).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        self.ready().await;
        self.record().await
    }

    async fn click_point(&self, p: u64) {
        self.c
            .find(Locator::Css(&format!("circle.hit[data-point='{p}']")))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        self.ready().await;
    }

    async fn click(&self, css: &str) {
        self.c
            .find(Locator::Css(css))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        self.ready().await;
    }

    /// Chooses `value` in the menu `id` as a user would (the change event).
    async fn choose(&self, id: &str, value: &str) {
        self.c
            .execute(
                "const s = document.getElementById(arguments[0]);
                 s.value = arguments[1];
                 s.dispatchEvent(new Event('change'));",
                vec![json!(id), json!(value)],
            )
            .await
            .unwrap();
        self.ready().await;
    }

    async fn enter(&self, position: &str) {
        let input = self.c.find(Locator::Id("position")).await.unwrap();
        input.clear().await.unwrap();
        input.send_keys(position).await.unwrap();
        self.click("#go").await;
    }

    /// The URL's parameters.
    async fn url(&self) -> HashMap<String, String> {
        let v = self
            .js("return [...new URLSearchParams(location.search)]")
            .await;
        v.as_array()
            .unwrap()
            .iter()
            .map(|kv| {
                (
                    kv[0].as_str().unwrap().to_string(),
                    kv[1].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    /// The stone on each point: `W`, `B` or `.`.
    async fn stones(&self) -> String {
        let v = self
            .js("const n = document.querySelectorAll('circle.hit').length;
                 const cells = Array(n).fill('.');
                 for (const s of document.querySelectorAll('circle.stone'))
                     cells[Number(s.dataset.at)] = s.dataset.stone;
                 return cells.join('');")
            .await;
        v.as_str().unwrap().to_string()
    }

    /// The value and moves shown, as `(value, plies, [(move, value, plies)])`.
    async fn shown(&self) -> (String, String, Vec<(String, String, String)>) {
        let v = self
            .js("const v = document.getElementById('value');
                 const moves = [...document.querySelectorAll('#moves li')]
                     .map(li => [li.dataset.move, li.dataset.value, li.dataset.plies]);
                 return [v.dataset.value || '', v.dataset.plies || '', moves];")
            .await;
        let s = |x: &Value| x.as_str().unwrap_or("").to_string();
        let moves = v[2]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (s(&m[0]), s(&m[1]), s(&m[2])))
            .collect();
        (s(&v[0]), s(&v[1]), moves)
    }

    /// Checks that the page shows what the API says of `position`, moves
    /// grouped by value in the API's order within each group.
    async fn agrees(&self, rules: &str, position: &str) -> Value {
        let a = api(self.addr, rules, position);
        let (value, plies, moves) = self.shown().await;
        assert_eq!(value, a["value"], "{position}");
        let p = |x: &Value| x.as_u64().map(|p| p.to_string()).unwrap_or_default();
        assert_eq!(plies, p(&a["plies"]), "{position}");
        let mut want: Vec<(String, String, String)> = a["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["move"].as_str().unwrap().to_string(),
                    m["value"].as_str().unwrap().to_string(),
                    p(&m["plies"]),
                )
            })
            .collect();
        let rank = |v: &str| ["win", "draw", "loss"].iter().position(|x| *x == v);
        want.sort_by_key(|m| rank(&m.1));
        assert_eq!(moves, want, "{position}");
        a
    }

    /// The game record's plies as shown.
    async fn record(&self) -> Vec<String> {
        let v = self
            .js("return [...document.querySelectorAll('#record td.ply')].map(td => td.firstChild.textContent)")
            .await;
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    }

    /// The board string of the position shown.
    async fn position(&self) -> String {
        let v = self
            .js("const a = state.entries[state.at].answer; return a ? a.position : ''")
            .await;
        v.as_str().unwrap().to_string()
    }

    async fn close(self) {
        self.c.close().await.unwrap();
    }
}

/// Plays `moves` (coordinates, removals joined) by clicking their points.
async fn click_moves(p: &Page, rules: &str, moves: &str) {
    for m in moves.split_whitespace() {
        let (mv, removes) = m.split_once('x').map_or((m, ""), |(a, b)| (a, b));
        for c in mv.split('-') {
            p.click_point(point(rules, c)).await;
        }
        for r in removes.split('x').filter(|r| !r.is_empty()) {
            p.click_point(point(rules, r)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn placing_and_sliding_by_clicking_agree_with_the_api() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    // Every first move of the 5-stone game, one mark per empty point.
    p.board(GAME, "start", "").await;
    p.agrees(GAME, "start").await;
    let marks =
        p.c.find_all(Locator::Css("circle.hit[data-kind='to']"))
            .await
            .unwrap();
    assert_eq!(marks.len(), 24);
    let mut played: Vec<&str> = Vec::new();
    for m in ["a7", "b6", "d7", "d6"] {
        click_moves(&p, GAME, m).await;
        played.push(m);
        p.agrees(GAME, &played.join(" ")).await;
        assert_eq!(p.url().await["moves"], played.join(" "));
    }
    p.shot("board-placing.png").await;
    // g7 closes a mill: two black stones may be taken, the page asks which.
    p.click_point(point(GAME, "g7")).await;
    let removable =
        p.c.find_all(Locator::Css("circle.hit[data-kind='remove']"))
            .await
            .unwrap();
    assert_eq!(removable.len(), 2);
    p.shot("board-removal.png").await;
    p.click_point(point(GAME, "b6")).await;
    played.push("g7xb6");
    p.agrees(GAME, &played.join(" ")).await;

    // Back and forward: the arrow keys and the buttons.
    let body = p.c.find(Locator::Css("body")).await.unwrap();
    body.send_keys("\u{E012}").await.unwrap(); // ArrowLeft
    p.ready().await;
    p.agrees(GAME, "a7 b6 d7 d6").await;
    p.click("#back").await;
    p.agrees(GAME, "a7 b6 d7").await;
    p.click("#forward").await;
    body.send_keys("\u{E014}").await.unwrap(); // ArrowRight
    p.ready().await;
    p.agrees(GAME, "a7 b6 d7 d6 g7xb6").await;

    // Every position form in the entry field.
    let board = "WW.....W/.BBB.B../B....... b 0 0";
    for form in [
        board,
        "a7 b6 d7 d6",
        "1. a7 b6 2. d7 d6",
        "-0 -8 -1 -9 -2x8",
        "O*O****@/*@@@*@**/@******* b p r 0 5 0 5 0 0 -1 -1 -1 -1 0 0 1",
    ] {
        p.enter(form).await;
        let err = p.text_of("error").await;
        let status = get(
            p.addr,
            &format!("/api/v1/query?rules={}&position={}", enc(GAME), enc(form)),
        )
        .status;
        if status == 200 {
            assert_eq!(err, "", "{form}");
            p.agrees(GAME, form).await;
        } else {
            assert!(!err.is_empty(), "{form}: the page shows the API's error");
        }
    }

    // The moving phase: a slide is a click on the stone, then its target.
    p.board(GAME, board, "").await;
    let a = p.agrees(GAME, board).await;
    let slide = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| !m["from"].is_null() && m["removes"].as_array().unwrap().is_empty())
        .unwrap()
        .clone();
    p.click_point(slide["from"].as_u64().unwrap()).await;
    p.shot("board-moving.png").await;
    p.click_point(slide["to"].as_u64().unwrap()).await;
    p.agrees(GAME, slide["after"].as_str().unwrap()).await;

    // Three men's morris: 9 points; Lasker: with a stone in hand, a slide.
    p.board("three", "start", "").await;
    p.agrees("three", "start").await;
    assert_eq!(
        p.c.find_all(Locator::Css("circle.hit"))
            .await
            .unwrap()
            .len(),
        9
    );
    let lasker = "lasker,stones=3";
    let pos = "WW....B./......../........ w 1 2";
    p.board(lasker, pos, "").await;
    p.agrees(lasker, pos).await;
    click_moves(&p, lasker, "a7-a4").await;
    p.agrees(lasker, ".W....BW/......../........ b 1 2").await;
    p.shot("lasker-slide.png").await;
    p.close().await;
}

/// Defect 1: the move that closes a mill is drawn while the player picks
/// the stone to remove, with the mill highlighted and said in words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mill_is_drawn_while_its_removal_is_picked() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    p.board("six", "start", "d2 e5 b4 c2 d4 c4").await;
    let d3 = point("six", "d3");
    p.click_point(d3).await;
    assert_eq!(p.stones().await.as_bytes()[d3 as usize], b'W');
    let mills = p
        .js("return [...document.querySelectorAll('line.mill')].map(l => l.dataset.mill)")
        .await;
    assert_eq!(mills.as_array().unwrap().len(), 1, "{mills}");
    assert!(mills[0].as_str().unwrap().contains(&d3.to_string()));
    assert_eq!(
        p.text_of("status").await,
        "White closed a mill: take a Black stone"
    );
    p.shot("mill-placed.png").await;

    // A slide: the stone leaves its point and stands on the new one.
    p.board(SMALL, MILL_SLIDE, "").await;
    let (g4, g7) = (point(SMALL, "g4"), point(SMALL, "g7"));
    p.click_point(g4).await;
    p.click_point(g7).await;
    let cells = p.stones().await;
    assert_eq!(
        (cells.as_bytes()[g4 as usize], cells.as_bytes()[g7 as usize]),
        (b'.', b'W'),
        "{cells}"
    );
    assert_eq!(
        p.text_of("status").await,
        "White closed a mill: take a Black stone"
    );
    p.shot("mill-slid.png").await;
    // The removal completes the move.
    p.click_point(point(SMALL, "b6")).await;
    assert_eq!(p.record().await, ["g4-g7xb6"]);
    p.close().await;
}

/// Defect 2: the best line belongs to the position it was asked for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_best_line_never_goes_stale() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    p.board(GAME, "start", "a7 b6 d7 d6").await;
    let from = p.position().await;
    p.click("#best").await;
    let line = get(
        p.addr,
        &format!(
            "/api/v1/line?rules={}&position={}&max=60",
            enc(GAME),
            enc(&from)
        ),
    )
    .json();
    let shown = p.c.find_all(Locator::Css("#line li")).await.unwrap();
    assert_eq!(shown.len(), line.as_array().unwrap().len() - 1);
    p.shot("board-best-line.png").await;
    // Clicking the third ply goes to it, the whole line in the record.
    shown[2].click().await.unwrap();
    p.ready().await;
    assert_eq!(p.position().await, line[3]["position"]);
    assert_eq!(p.js("return state.at").await, json!(4 + 3));
    assert_eq!(p.record().await.len(), 4 + shown.len());
    // Another move on the board: the old line is gone.
    p.click("#best").await;
    assert!(
        !p.c.find_all(Locator::Css("#line li"))
            .await
            .unwrap()
            .is_empty()
    );
    let a = api(p.addr, GAME, &p.position().await);
    let other = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["removes"].as_array().unwrap().is_empty())
        .unwrap()["to"]
        .as_u64()
        .unwrap();
    p.click_point(other).await;
    assert_eq!(p.record().await.len(), 8);
    assert!(
        p.c.find_all(Locator::Css("#line li"))
            .await
            .unwrap()
            .is_empty()
    );
    p.close().await;
}

/// Defect 3: a rule-set switch succeeds whole or changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_switch_succeeds_whole_or_changes_nothing() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    // Six men's to a moving-phase set of the 24-point board: its board and
    // a position of that board.
    p.board("six", "d2 e5 b4", "").await;
    p.choose("rules", "standard,stones=3").await;
    assert_eq!(p.text_of("error").await, "");
    assert_eq!(p.url().await["rules"], "standard,stones=3");
    assert_eq!(p.stones().await.len(), 24);
    assert_eq!(p.stones().await.matches('W').count(), 3);
    // A set whose tables are missing: an error, and the game stays.
    p.board(GAME, "start", "a7 d7").await;
    p.js("const o = document.createElement('option');
          o.value = 'standard,stones=7'; document.getElementById('rules').appendChild(o);")
        .await;
    p.choose("rules", "standard,stones=7").await;
    let err = p.text_of("error").await;
    assert!(
        err.contains("standard,stones=7") && err.contains("Still showing"),
        "{err}"
    );
    let url = p.url().await;
    assert_eq!(
        (url["rules"].as_str(), url["moves"].as_str()),
        (GAME, "a7 d7")
    );
    assert_eq!(p.record().await, ["a7", "d7"]);
    let menu = p.js("return document.getElementById('rules').value").await;
    assert_eq!(menu, GAME);
    // Arrow keys on the focused menu: each step a whole switch.
    let menu = p.c.find(Locator::Id("rules")).await.unwrap();
    menu.send_keys("\u{E015}").await.unwrap(); // ArrowDown
    p.ready().await;
    let now = p
        .js("return [document.getElementById('rules').value, state.rules, state.board.points]")
        .await;
    assert_eq!(now[0], now[1], "{now}");
    assert_eq!(p.url().await["rules"], now[0].as_str().unwrap());
    assert_eq!(p.stones().await.len() as u64, now[2].as_u64().unwrap());
    p.close().await;
}

/// Defect 4: moving-phase-only sets open at a position of their tables;
/// the menu opens on the standard game; no server path is ever shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moving_phase_sets_open_and_no_path_is_shown() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    p.open("/").await;
    let first = p
        .js("return document.getElementById('rules').options[0].value")
        .await;
    assert_eq!(first, GAME, "the standard game (most stones) first");
    assert_eq!(p.url().await["rules"], GAME);
    let moving = p
        .js("return [...document.querySelectorAll('#rules optgroup option')].map(o => o.value)")
        .await;
    let moving: Vec<String> = moving
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert!(
        moving.contains(&"twelve,stones=3".to_string()),
        "{moving:?}"
    );
    for rules in [
        "twelve,stones=3",
        "standard,stones=4/3",
        "lasker,stones=3/4",
    ] {
        if !moving.contains(&rules.to_string()) {
            continue;
        }
        p.choose("rules", rules).await;
        assert_eq!(p.text_of("error").await, "", "{rules}");
        let pos = p.position().await;
        assert!(pos.contains('W') && pos.contains('B'), "{rules}: {pos}");
        p.agrees(rules, &pos).await;
    }
    p.shot("moving-phase-set.png").await;
    // Fewer stones from the random-position form.
    p.choose("rules", "twelve,stones=3").await;
    p.js("document.getElementById('white-stones').value = 3; document.getElementById('black-stones').value = 3;").await;
    p.click("#random").await;
    assert_eq!(p.stones().await.matches('W').count(), 3);
    // Errors over HTTP never name the server's folder.
    let (_, db) = server();
    let r = get(p.addr, "/api/v1/query?rules=standard&position=start");
    assert_eq!(r.status, 404);
    assert!(
        !r.text().contains(&db.display().to_string()),
        "{}",
        r.text()
    );
    assert!(r.text().contains("not built"), "{}", r.text());
    p.close().await;
}

/// Defect 5: the game over reasons, with the winning mill highlighted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn game_over_says_why() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    p.board(SMALL, LAST_MILL, "").await;
    click_moves(&p, SMALL, "g4-g7xb6").await;
    let status = p.text_of("status").await;
    assert!(status.contains("Black is down to two stones"), "{status}");
    assert!(!status.contains("no legal move"), "{status}");
    let mills = p
        .js("return [...document.querySelectorAll('line.mill')].map(l => l.dataset.mill)")
        .await;
    assert_eq!(mills, json!(["0,1,2"]));
    p.shot("game-over-stones.png").await;
    // Three men's morris: a line wins at once.
    p.board("three", "WWW.B.B./B b 0 0", "").await;
    let status = p.text_of("status").await;
    assert!(status.contains("White completed a line"), "{status}");
    assert_eq!(
        p.js("return document.querySelectorAll('line.mill').length")
            .await,
        1
    );
    // A blocked side: Black's a7 a4 a1 d1 hemmed in by White.
    let blocked = "BW..WBBB/.....W.W/........ b 0 0";
    assert_eq!(api(p.addr, SMALL, blocked)["over"], "blocked");
    p.board(SMALL, blocked, "").await;
    let status = p.text_of("status").await;
    assert!(status.contains("Black cannot move: White wins"), "{status}");
    p.close().await;
}

/// Defect 6: a game drawn by the N-move rule reopens from its link.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_n_move_draw_reopens() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    let at9 = format!("{MILL_SLIDE} 9");
    p.board(NMOVE, &at9, "").await;
    // A quiet move brings the counter to N = 10: drawn.
    click_moves(&p, NMOVE, "e3-e4").await;
    let status = p.text_of("status").await;
    assert!(status.contains("drawn by the N-move rule"), "{status}");
    assert_eq!(
        p.js("return document.getElementById('value').dataset.value")
            .await,
        "draw"
    );
    let url = p.js("return location.href").await;
    p.c.goto(url.as_str().unwrap()).await.unwrap();
    p.ready().await;
    assert_eq!(p.text_of("error").await, "");
    assert_eq!(p.text_of("status").await, status);
    assert_eq!(p.record().await, ["e3-e4"]);
    // Black is to move there: the board and side are the real ones.
    assert!(
        p.position().await.ends_with("b 0 0"),
        "{}",
        p.position().await
    );
    assert_eq!(p.stones().await.matches('W').count(), 4);
    p.close().await;
}

/// Defect 7: the game record: moves in the URL, rebuilt from a link, by
/// move number with White and Black columns, removals, mistakes, a copy
/// link, and a position field that follows the game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_game_record_lives_in_the_url() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    p.open(&format!(
        "/?rules={}&position={}",
        enc(GAME),
        enc("a7 b6 d7 d6 g7xb6")
    ))
    .await;
    assert_eq!(p.record().await, ["a7", "b6", "d7", "d6", "g7xb6"]);
    let enabled = p
        .js("return !document.getElementById('back').disabled")
        .await;
    assert_eq!(enabled, true);
    let rows = p
        .js("return [...document.querySelectorAll('#record tbody tr')].map(tr => tr.children.length)")
        .await;
    assert_eq!(rows, json!([3, 3, 2]), "number, White, Black per row");
    // The URL holds the start and the moves.
    let url = p.url().await;
    assert_eq!(
        (url["position"].as_str(), url["moves"].as_str()),
        ("start", "a7 b6 d7 d6 g7xb6")
    );
    // A link to a ply inside the game keeps the rest of it.
    p.click("#record td.ply[data-ply='2']").await;
    assert_eq!(p.url().await["ply"], "2");
    let link = p.js("return location.href").await;
    p.c.goto(link.as_str().unwrap()).await.unwrap();
    p.ready().await;
    assert_eq!(p.record().await.len(), 5);
    assert_eq!(p.position().await, api(p.addr, GAME, "a7 b6")["position"]);
    // A mistake is marked: three men's a3 gives White's win away.
    p.board("three", "start", "").await;
    p.click_point(point("three", "a3")).await;
    let mark = p
        .js("return document.querySelector('#record td.ply').dataset.mistake")
        .await;
    assert_eq!(mark, "win-draw");
    p.click_point(point("three", "b2")).await;
    let marks = p
        .js("return [...document.querySelectorAll('#record td.mistake')].length")
        .await;
    assert_eq!(marks, 1, "b2 keeps Black's draw");
    // The field shows the game; submitting it unchanged keeps the game.
    p.board(GAME, "start", "a7 b6 d7").await;
    let field = p
        .js("return document.getElementById('position').value")
        .await;
    assert_eq!(field, "a7 b6 d7");
    p.click("#go").await;
    assert_eq!(p.record().await, ["a7", "b6", "d7"]);
    // A new position warns that it starts a new game.
    p.enter("1. a7 b6 2. d7 d6").await;
    assert_eq!(p.record().await, ["a7", "b6", "d7", "d6"]);
    assert!(p.text_of("hint").await.contains("new game"));
    p.click("#copy-link").await;
    // The copy is asynchronous (the clipboard answers a promise): wait
    // for its word on the page.
    let deadline = Instant::now() + Duration::from_secs(30);
    while p.text_of("copied").await.is_empty() {
        assert!(Instant::now() < deadline, "the copied link was never shown");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    p.shot("game-record.png").await;
    p.close().await;
}

/// A `ply=` that is not a ply number (`abc`, `1.5`, empty) is said, and
/// the game opens whole at its last position instead of breaking the page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_ply_in_a_link_is_said_not_fatal() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    let last = api(p.addr, GAME, "a7 b6 d7")["position"].clone();
    for bad in ["abc", "1.5", "", "-1"] {
        p.open(&format!(
            "/?rules={}&position=start&moves={}&ply={}",
            enc(GAME),
            enc("a7 b6 d7"),
            enc(bad)
        ))
        .await;
        assert_eq!(p.record().await, ["a7", "b6", "d7"], "ply={bad}");
        assert_eq!(p.position().await, last, "ply={bad}");
        let error = p.text_of("error").await;
        assert!(error.contains("not a ply number"), "ply={bad}: {error}");
    }
    // A good one still opens that ply, with no error.
    p.open(&format!(
        "/?rules={}&position=start&moves={}&ply=1",
        enc(GAME),
        enc("a7 b6 d7")
    ))
    .await;
    assert_eq!(p.position().await, api(p.addr, GAME, "a7")["position"]);
    assert_eq!(p.text_of("error").await, "");
    p.close().await;
}

/// A move and its value stay on one line in the move list, on a desktop
/// and on a phone ("win in 9 / plies" wrapped before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_values_do_not_wrap() {
    for (w, h) in [(1280, 900), (390, 844), (800, 900)] {
        let Some(p) = page(w, h).await else {
            return;
        };
        for (rules, position) in [(SMALL, MILL_SLIDE), (GAME, "start"), (SMALL, LAST_MILL)] {
            p.board(rules, position, "").await;
            let wrapped = p
                .js(
                    "return [...document.querySelectorAll('.movelist li')].filter(li => { \
                     const line = parseFloat(getComputedStyle(li).lineHeight) || 20; \
                     return li.clientHeight > 1.6 * line || li.scrollWidth > li.clientWidth + 1; \
                     }).map(li => li.textContent)",
                )
                .await;
            assert_eq!(wrapped, json!([]), "{w}x{h} {rules} {position}");
            let count = p
                .js("return document.querySelectorAll('.movelist li').length")
                .await;
            assert!(count.as_u64().unwrap() > 0, "{rules} {position}: no moves");
        }
        p.js("document.querySelector('.movelist').scrollIntoView(); return 0")
            .await;
        p.shot(&format!("move-list-{w}.png")).await;
        p.close().await;
    }
}

/// No width between a phone's and a desktop's scrolls the page sideways
/// (the "millbase plays" menu did not shrink between 760 and 870 px).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_width_scrolls_sideways() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    p.board(GAME, "start", "a7 b6").await;
    for width in (360..=1280).step_by(20) {
        p.c.set_window_size(width, 900).await.unwrap();
        let over = p
            .js("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
            .await;
        assert!(
            over.as_i64().unwrap() <= 0,
            "{width} px: {over} px too wide"
        );
    }
    p.c.set_window_size(800, 900).await.unwrap();
    p.shot("width-800.png").await;
    p.close().await;
}

/// Going back one ply against millbase shows an earlier position whose
/// move is in the record; the page never claims millbase is thinking
/// there, and going forward again leaves the game as it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn going_back_against_millbase_is_not_thinking() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    let record = p.d2_against_millbase(None).await;
    assert_eq!(record.len(), 2, "{record:?}");
    p.click("#back").await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    p.ready().await;
    let hint = p.text_of("hint").await;
    assert!(!hint.contains("thinking"), "{hint}");
    assert!(hint.contains("earlier position"), "{hint}");
    assert_eq!(p.record().await, record, "going back changed the game");
    p.click("#forward").await;
    p.ready().await;
    assert_eq!(p.record().await, record);
    assert!(!p.text_of("hint").await.contains("thinking"));
    p.close().await;
}

/// Defect 8: a first click only picks a stone up; another own stone
/// takes its place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_picks_a_stone_up_first() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    p.board(SMALL, MILL_SLIDE, "").await;
    let (a7, d7) = (point(SMALL, "a7"), point(SMALL, "d7"));
    // a7 has one target (a4): it is picked up, not moved.
    p.click_point(a7).await;
    assert!(p.record().await.is_empty());
    let selected = p.js("return [...document.querySelectorAll('circle.stone.selected')].map(s => Number(s.dataset.at))").await;
    assert_eq!(selected, json!([a7]));
    p.click_point(d7).await;
    let selected = p.js("return [...document.querySelectorAll('circle.stone.selected')].map(s => Number(s.dataset.at))").await;
    assert_eq!(selected, json!([d7]));
    p.click_point(point(SMALL, "d6")).await;
    assert_eq!(p.record().await, ["d7-d6"]);
    p.close().await;
}

/// Defect 9: every move visible, grouped by value; "1 ply"; labels above
/// the stones; placements in point numbers without a dash.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_move_list_shows_every_move_grouped() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    // White flies with 3 stones: dozens of moves.
    let flying = "W.W...../.B...B../W...B..B w 0 0";
    p.board(SMALL, flying, "").await;
    let a = p.agrees(SMALL, flying).await;
    let n = a["moves"].as_array().unwrap().len();
    assert!(n > 40, "{n}");
    let boxed = p
        .js("const m = document.getElementById('moves'); return m.scrollHeight - m.clientHeight")
        .await;
    assert!(boxed.as_f64().unwrap() <= 1.0, "no scroll box: {boxed}");
    let groups = p
        .js("return [...document.querySelectorAll('#moves ul')].map(u => u.dataset.group)")
        .await;
    let kinds: Vec<&str> = ["win", "draw", "loss"]
        .into_iter()
        .filter(|k| {
            a["moves"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["value"] == *k)
        })
        .collect();
    assert_eq!(groups, json!(kinds));
    p.shot("move-list-flying.png").await;
    // A win in one ply.
    p.board(SMALL, LAST_MILL, "").await;
    let texts = p
        .js("return [...document.querySelectorAll('#moves li')].map(li => li.textContent)")
        .await;
    let texts: Vec<&str> = texts
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        texts.iter().any(|t| t.ends_with("win in 1 ply")),
        "{texts:?}"
    );
    assert!(texts.iter().all(|t| !t.contains(" 1 plies")), "{texts:?}");
    // Labels are drawn after (above) every stone.
    let order = p
        .js(
            "const kids = [...document.getElementById('board').children];
        const last = Math.max(...kids.map((k, i) => k.classList.contains('stone') ? i : -1));
        const first = kids.findIndex(k => k.classList.contains('label'));
        return first > last",
        )
        .await;
    assert_eq!(order, true);
    // Point numbers: placements are bare numbers.
    p.board(GAME, "start", "").await;
    p.choose("labels", "numbers").await;
    let first = p
        .js("return document.querySelector('#moves li .mv').textContent")
        .await;
    let first = first.as_str().unwrap();
    assert!(first.parse::<u32>().is_ok(), "{first}");
    p.choose("labels", "coords").await;
    p.close().await;
}

/// Defect 10: on a phone, the value and turn right above the board and the
/// moves right below it; no sideways scrolling.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phone_sees_value_board_and_moves_together() {
    let Some(p) = page(390, 844).await else {
        return;
    };
    p.board(GAME, "start", "a7 b6 d7 d6").await;
    let r = p
        .js(
            "const r = (id) => document.getElementById(id).getBoundingClientRect();
             return [r('status').top, r('value').bottom, r('board').top, r('board').bottom,
                     r('moves').top, r('board').width, document.documentElement.scrollWidth,
                     window.innerWidth];",
        )
        .await;
    let f = |i: usize| r[i].as_f64().unwrap();
    assert!(
        f(0) < f(2) && f(1) <= f(2) + 1.0 && f(2) - f(0) < 120.0,
        "{r}"
    );
    assert!(f(4) > f(3) && f(4) - f(3) < 150.0, "{r}");
    assert!(f(5) > 300.0 && f(6) <= f(7) + 1.0, "{r}");
    p.shot("phone.png").await;
    p.open(&format!("/stats?rules={}", enc(NMOVE))).await;
    let w = p
        .js("return [document.documentElement.scrollWidth, window.innerWidth]")
        .await;
    assert!(
        w[0].as_f64().unwrap() <= w[1].as_f64().unwrap() + 1.0,
        "{w}"
    );
    // The charts' text keeps its size on a phone (it was 5-6 px).
    let smallest = p
        .js(
            "return Math.min(...[...document.querySelectorAll('#wdl text, #plies text')]\
             .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))",
        )
        .await;
    assert!(smallest.as_f64().unwrap() >= 11.0, "{smallest} px");
    p.shot("phone-stats.png").await;
    p.close().await;
}

/// Defect 11: the statistics page: N-move columns, a labelled log scale,
/// a rule set without tables said so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_statistics_page() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    p.open(&format!("/stats?rules={}", enc(GAME))).await;
    let stats = get(p.addr, &format!("/api/v1/stats?rules={}", enc(GAME))).json();
    let n = stats["subspaces"].as_array().unwrap().len();
    assert_eq!(
        p.c.find_all(Locator::Css("#table tbody tr"))
            .await
            .unwrap()
            .len(),
        n
    );
    assert_eq!(p.c.find_all(Locator::Css("#wdl g")).await.unwrap().len(), n);
    let ticks = p
        .js("return [...document.querySelectorAll('#plies text.tick')].map(t => t.textContent)")
        .await;
    assert!(
        ticks.as_array().unwrap().iter().any(|t| t == "1k"),
        "{ticks}"
    );
    assert!(
        p.js("return document.querySelectorAll('#plies line.grid').length")
            .await
            .as_u64()
            .unwrap()
            >= 2
    );
    let hidden = p
        .js("return [...document.querySelectorAll('#table th.nmove')].every(t => t.hidden)")
        .await;
    assert_eq!(hidden, true);
    p.shot("stats.png").await;
    // Under the N-move rule: cursed wins and blessed losses.
    p.open(&format!("/stats?rules={}", enc(NMOVE))).await;
    let summary = p.text_of("summary").await;
    assert!(
        summary.contains("cursed wins") && summary.contains("blessed losses"),
        "{summary}"
    );
    let cols = p
        .js("return document.querySelector('#table tbody tr').children.length")
        .await;
    assert_eq!(cols, 10);
    // The 9-stone game is not built here.
    p.open("/stats?rules=standard").await;
    let err = p.text_of("error").await;
    assert!(err.contains("no tables of rule set standard"), "{err}");
    assert_eq!(p.text_of("summary").await, "");
    p.close().await;
}

/// Defect 12: JSON errors for every status on the API, a favicon, settings
/// remembered, repeated parameters refused, the board from the keyboard.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_smaller_things() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    let r = request(p.addr, "DELETE", b"/api/v1/query?rules=three", b"");
    assert_eq!(r.status, 405);
    assert!(r.json()["error"].as_str().unwrap().contains("DELETE"));
    let r = get(p.addr, "/favicon.ico");
    assert_eq!(r.status, 200);
    assert!(r.text().starts_with("<svg"));
    let r = get(p.addr, "/api/v1/query?rules=three&rules=six");
    assert_eq!(r.status, 400);
    assert!(r.json()["error"].as_str().unwrap().contains("twice"));
    // Flip and labels survive a reload.
    p.board("three", "start", "").await;
    p.click("#flip").await;
    p.choose("labels", "numbers").await;
    p.open("/?rules=three").await;
    let kept = p
        .js("return [state.flipped, document.getElementById('labels').value]")
        .await;
    assert_eq!(kept, json!([true, "numbers"]));
    p.click("#flip").await;
    p.choose("labels", "coords").await;
    // The keyboard: a point takes focus and Enter plays there.
    let b2 = point("three", "b2");
    let hit =
        p.c.find(Locator::Css(&format!("circle.hit[data-point='{b2}']")))
            .await
            .unwrap();
    p.js(&format!(
        "document.querySelector(\"circle.hit[data-point='{b2}']\").focus()"
    ))
    .await;
    hit.send_keys("\u{E007}").await.unwrap(); // Enter
    p.ready().await;
    assert_eq!(p.record().await, ["b2"]);
    p.close().await;
}

/// Plays against the tables until the game ends, the player always taking
/// the move listed last (the worst): millbase wins.
async fn lose_against_the_tables(p: &Page, rules: &str) {
    p.board(rules, "start", "").await;
    p.choose("opponent", "b").await; // millbase plays Black
    lose_from_here(p, rules, false).await;
}

/// Elements that tell a value: none may show while values are hidden.
const VALUED: &str = "return document.querySelectorAll('#moves li[data-value], #practical-choice, \
                      #board .hit:not([data-value=\"\"]), #record td.mistake, #line li').length";

/// The game shown against millbase (Black), played to its end by the
/// player (White) always taking the worst move; with `hidden`, no value
/// may show on the way.
async fn lose_from_here(p: &Page, rules: &str, hidden: bool) {
    for _ in 0..200 {
        p.ready().await;
        let over = p
            .js("return document.getElementById('status').dataset.over")
            .await;
        if over != "" {
            break;
        }
        let a = api(p.addr, rules, &p.position().await);
        assert!(
            a["position"].as_str().unwrap().contains(" w "),
            "White (the player) to move: {a}"
        );
        let worst = a["moves"].as_array().unwrap().last().unwrap().clone();
        let plies = p.record().await.len();
        p.js(&format!(
            "play(state.entries[state.at].answer.moves.find(m => m.move === {}))",
            worst["move"]
        ))
        .await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        p.ready().await;
        let record = p.record().await;
        let over = p
            .js("return document.getElementById('status').dataset.over")
            .await;
        // millbase answered (unless the move ended the game).
        assert!(record.len() == plies + 2 || over != "", "{record:?}");
        if hidden && over == "" {
            assert_eq!(p.js(VALUED).await, json!(0), "a value shows while playing");
        }
    }
    let status = p.text_of("status").await;
    assert!(status.starts_with("Game over"), "{status}");
    assert_eq!(
        p.js("return document.getElementById('value').dataset.value")
            .await,
        "loss"
    );
}

/// New: a game against the tables, with undo and taking back a mistake.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_against_the_tables() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    lose_against_the_tables(&p, "three").await;
    p.shot("versus-three.png").await;
    lose_against_the_tables(&p, SMALL).await;
    // Take back to before the first mistake: the value is the start's.
    let start = api(p.addr, SMALL, "start");
    while p
        .js("return !document.getElementById('takeback').disabled")
        .await
        == true
    {
        p.click("#takeback").await;
    }
    assert_eq!(
        p.js("return document.getElementById('value').dataset.value")
            .await,
        start["value"]
    );
    // Undo takes back the player's move and the answer.
    let before = p.record().await.len();
    if before >= 2 {
        p.click("#undo").await;
        assert_eq!(p.record().await.len(), before - 2);
    }
    // millbase answers each player's move with its best move.
    let record = p.d2_against_millbase(None).await;
    assert_eq!(record.len(), 2, "{record:?}");
    let after = api(p.addr, SMALL, "d2");
    assert_eq!(record[1], after["moves"][0]["move"]);
    // Practically: the move the API ranks first for practical play.
    let record = p.d2_against_millbase(Some("practical")).await;
    let ranked = get(
        p.addr,
        &format!("/api/v1/query?rules={}&position=d2&practical=1", enc(SMALL)),
    )
    .json();
    let first = ranked["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["practical"]["rank"] == 1)
        .unwrap();
    assert_eq!(record[1], first["move"], "{ranked}");
    p.shot("versus.png").await;
    p.close().await;
}

/// The twelve men's board, played by clicking (diagonals included).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twelve_mens_morris_by_clicking() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    let rules = "twelve,stones=4";
    p.board(rules, "start", "").await;
    p.agrees(rules, "start").await;
    let edges = p
        .js("return document.querySelectorAll('#board line.edge').length")
        .await;
    assert_eq!(edges, 40, "32 edges and 8 on the diagonals");
    let mut played = Vec::new();
    for m in ["a7", "g1", "b6", "f2"] {
        click_moves(&p, rules, m).await;
        played.push(m);
        p.agrees(rules, &played.join(" ")).await;
    }
    // a7 b6 c5 is a diagonal mill: the page asks for a removal.
    p.click_point(point(rules, "c5")).await;
    assert_eq!(
        p.text_of("status").await,
        "White closed a mill: take a Black stone"
    );
    p.shot("twelve.png").await;
    p.click_point(point(rules, "g1")).await;
    p.agrees(rules, "a7 g1 b6 f2 c5xg1").await;
    p.close().await;
}

/// Defect 11: the headline names the winner, so it keeps its words and
/// colour from ply to ply of a won game ("White wins in 9" became "Black
/// loses in 8" in red after White's best move), and at the end the
/// winner's line is the winner's ("Black has lost" before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_headline_names_the_winner_every_ply() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    let mut moves: Vec<String> = Vec::new();
    loop {
        let a = api(p.addr, "three", &format!("start {}", moves.join(" ")));
        p.board("three", "start", &moves.join(" ")).await;
        let headline = p
            .js("const s = document.querySelector('#value span'); \
                 return [s.textContent, s.className, s.dataset.winner]")
            .await;
        let (text, class, winner) = (
            headline[0].as_str().unwrap().to_string(),
            headline[1].as_str().unwrap(),
            headline[2].as_str().unwrap(),
        );
        assert_eq!((class, winner), ("win", "w"), "after {moves:?}: {text}");
        if a["moves"].as_array().unwrap().is_empty() {
            assert_eq!(text, "White has won", "the end");
            break;
        }
        let plies = a["plies"].as_u64().unwrap();
        let unit = if plies == 1 { "ply" } else { "plies" };
        assert_eq!(
            text,
            format!("White wins in {plies} {unit}"),
            "after {moves:?}"
        );
        moves.push(a["moves"][0]["move"].as_str().unwrap().to_string());
        assert!(moves.len() <= 9, "three men's morris: White wins in 9");
    }
    p.close().await;
}

/// Defect 10: while the stone to take is picked, the move list offers only
/// the moves of that mill; a click on another does nothing (it played that
/// move, abandoning the mill, before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_move_list_waits_while_a_stone_is_taken() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    let a = api(p.addr, SMALL, MILL_SLIDE);
    p.board(SMALL, MILL_SLIDE, "").await;
    let live = "return [...document.querySelectorAll('#moves li:not(.inactive)')]\
                .map(li => li.dataset.move)";
    let all = p.js(live).await.as_array().unwrap().len();
    assert_eq!(all, a["moves"].as_array().unwrap().len());
    // g4-g7 closes the mill a7 d7 g7: the page asks for the stone to take.
    p.click_point(point(SMALL, "g4")).await;
    p.click_point(point(SMALL, "g7")).await;
    let mill: Vec<String> = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap().to_string())
        .filter(|m| m.starts_with("g4-g7x"))
        .collect();
    assert!(!mill.is_empty());
    let mut shown: Vec<String> = p
        .js(live)
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    shown.sort();
    let mut want = mill.clone();
    want.sort();
    assert_eq!(shown, want);
    // A click on another move changes nothing.
    p.click("#moves li.inactive").await;
    assert_eq!(p.position().await, a["position"]);
    let status = p.text_of("status").await;
    assert!(status.contains("closed a mill"), "{status}");
    // A move of the mill plays it.
    p.click(&format!("#moves li[data-move='{}']", mill[0]))
        .await;
    p.ready().await;
    let played = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == mill[0].as_str())
        .unwrap();
    assert_eq!(p.position().await, played["after"]);
    p.close().await;
}

/// Defects 4 and 5: the opponent and its style are in the link and survive
/// a reload (after F5 nothing answered before); "new game" starts again
/// against the same opponent; "swap sides" gives millbase the other colour.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_opponent_is_in_the_link_with_new_game_and_swap_sides() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    let opponent = "return [state.opponent, state.strength, \
                    document.getElementById('opponent').value]";
    // millbase plays White from a link: it opens the game at once.
    p.open("/?rules=three&position=start&millbase=white&style=random")
        .await;
    p.ready().await;
    wait_for_record(&p, 1).await;
    assert_eq!(p.js(opponent).await, json!(["w", "random", "w"]));
    let url = p.url().await;
    assert_eq!(
        (url["millbase"].as_str(), url["style"].as_str()),
        ("white", "random")
    );
    // A reload keeps the opponent: after our move, millbase answers.
    p.c.refresh().await.unwrap();
    p.ready().await;
    assert_eq!(p.js(opponent).await, json!(["w", "random", "w"]));
    let first = p.record().await;
    let a = api(p.addr, "three", &format!("start {}", first.join(" ")));
    let ours = a["moves"][0]["move"].as_str().unwrap();
    click_moves(&p, "three", ours).await;
    wait_for_record(&p, 3).await;
    // New game: the start again, millbase (White) moves first again.
    p.click("#new-game").await;
    p.ready().await;
    wait_for_record(&p, 1).await;
    assert_eq!(p.record().await.len(), 1);
    // Swap sides: millbase takes Black and answers the move on the board.
    p.click("#swap").await;
    p.ready().await;
    assert_eq!(p.js(opponent).await, json!(["b", "random", "b"]));
    assert_eq!(p.url().await["millbase"], "black");
    wait_for_record(&p, 2).await;
    // A link with a side that is no side says so and plays no one.
    p.open("/?rules=three&position=start&millbase=green").await;
    assert_eq!(p.js(opponent).await, json!(["", "perfect", ""]));
    assert!(p.text_of("error").await.contains("millbase=green"));
    p.close().await;
}

/// Waits until the record holds `n` plies (millbase answers after a pause).
async fn wait_for_record(p: &Page, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while p.record().await.len() < n {
        assert!(
            Instant::now() < deadline,
            "the record stays at {:?}",
            p.record().await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    p.ready().await;
}

/// Defect 1: the browser's back button returns to the player's turn before
/// the last move, and stays there (it landed on millbase's turn, which
/// answered again, so Back could never leave).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_returns_to_the_players_turn() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    p.open("/?rules=three&position=start&millbase=black").await;
    let a = api(p.addr, "three", "start");
    click_moves(&p, "three", a["moves"][0]["move"].as_str().unwrap()).await;
    wait_for_record(&p, 2).await;
    p.c.back().await.unwrap();
    p.ready().await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    p.ready().await;
    assert_eq!(p.record().await, Vec::<String>::new(), "back at the start");
    assert!(!p.url().await.contains_key("moves"));
    // Forward returns to the game as it was.
    p.c.forward().await.unwrap();
    p.ready().await;
    assert_eq!(p.record().await.len(), 2);
    p.close().await;
}

/// Defect 9: a link that cannot open says so in the status (it read
/// "White to move" over an empty board), and going back to it while a game
/// is shown leaves the URL that game's, so "copy link" copies what is shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_that_cannot_open_is_said_and_not_kept() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    let broken = format!("/?rules={}&position=start&moves=d2+zz", enc(GAME));
    for link in [
        broken.clone(),
        format!(
            "/?rules={}&position=WWWWWWWWWW..............+w+0+0",
            enc(GAME)
        ),
    ] {
        p.open(&link).await;
        let status = p.text_of("status").await;
        assert!(status.contains("cannot be opened"), "{link}: {status}");
        assert!(!p.text_of("error").await.is_empty(), "{link}");
    }
    // A good game, then back to the broken link: the page keeps the game,
    // and so does the URL.
    p.open(&broken).await;
    p.js(&format!(
        "document.getElementById('position').value = 'a7 b6'; \
         document.getElementById('rules').value = '{GAME}'; \
         document.getElementById('go').click(); return 0"
    ))
    .await;
    p.ready().await;
    assert_eq!(p.record().await, ["a7", "b6"]);
    p.c.back().await.unwrap();
    p.ready().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    p.ready().await;
    assert_eq!(p.record().await, ["a7", "b6"]);
    assert_eq!(p.url().await["moves"], "a7 b6");
    assert!(!p.text_of("error").await.is_empty());
    p.close().await;
}

/// Defect 6: the keyboard keeps its place. The board is one tab stop whose
/// arrow keys move between points; Enter plays and the focus stays on the
/// point; the move list and the record are reached with Tab and played
/// with Enter, the focus staying in them (before, every redraw dropped the
/// focus and the next Tab began again at a7).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_keyboard_keeps_its_place() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    p.board(GAME, "start", "").await;
    let stops = p
        .js("return document.querySelectorAll('#board .hit[tabindex=\"0\"]').length")
        .await;
    assert_eq!(stops, json!(1), "the board is one tab stop");
    let focused = "const a = document.activeElement; \
                   return a && a.dataset ? [a.tagName.toLowerCase(), a.dataset.point ?? a.dataset.move ?? a.dataset.ply ?? ''] : null";
    let key = |k: &'static str| {
        let c = p.c.clone();
        async move {
            c.active_element()
                .await
                .unwrap()
                .send_keys(k)
                .await
                .unwrap();
        }
    };
    p.js("document.querySelector('#board .hit[tabindex=\"0\"]').focus()")
        .await;
    assert_eq!(p.js(focused).await, json!(["circle", "0"]));
    // a7, then right to d7: Enter places there.
    key("\u{E014}").await; // ArrowRight
    let d7 = point(GAME, "d7").to_string();
    assert_eq!(p.js(focused).await, json!(["circle", d7]));
    key("\u{E007}").await; // Enter
    p.ready().await;
    assert_eq!(p.record().await, ["d7"]);
    assert_eq!(p.js(focused).await, json!(["circle", d7]), "focus kept");
    // Down to d6, Black places there.
    key("\u{E015}").await; // ArrowDown
    key("\u{E007}").await;
    p.ready().await;
    assert_eq!(p.record().await, ["d7", "d6"]);
    let d6 = point(GAME, "d6").to_string();
    assert_eq!(p.js(focused).await, json!(["circle", d6]));
    // Tab leaves the board at once and reaches the move list.
    key("\u{E004}").await; // Tab
    assert_ne!(
        p.js(focused).await[0],
        json!("circle"),
        "one Tab leaves the board"
    );
    let mut tabs = 1;
    while p.js(focused).await[0] != json!("li") {
        key("\u{E004}").await;
        tabs += 1;
        assert!(tabs < 25, "the move list is never reached by Tab");
    }
    let listed = p.js(focused).await[1].as_str().unwrap().to_string();
    key("\u{E007}").await;
    p.ready().await;
    let record = p.record().await;
    assert_eq!(record.len(), 3, "{record:?}");
    assert_eq!(
        p.js(focused).await[0],
        json!("li"),
        "focus kept in the list"
    );
    assert!(!listed.is_empty());
    // The record: a ply cell takes Enter and keeps the focus.
    p.js("document.querySelector('#record td.ply[data-ply=\"1\"]').focus()")
        .await;
    key("\u{E007}").await;
    p.ready().await;
    assert_eq!(p.js("return state.at").await, json!(1));
    assert_eq!(p.js(focused).await, json!(["td", "1"]));
    p.shot("keyboard-1280x900.png").await;
    p.close().await;
}

/// Four moving-phase plies from `position` that come back to it: a White
/// slide, a Black slide and both undone, none closing a mill.
fn shuffle(addr: SocketAddr, rules: &str, position: &str) -> Vec<String> {
    let slides = |a: &Value| -> Vec<(String, String)> {
        a["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["removes"].as_array().unwrap().is_empty() && !m["from"].is_null())
            .map(|m| {
                (
                    m["move"].as_str().unwrap().to_string(),
                    m["after"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let back = |m: &str| {
        let (a, b) = m.split_once('-').unwrap();
        format!("{b}-{a}")
    };
    let start = api(addr, rules, position);
    for (w, after) in slides(&start) {
        for (b, after2) in slides(&api(addr, rules, &after)) {
            let Some((_, after3)) = slides(&api(addr, rules, &after2))
                .into_iter()
                .find(|(m, _)| *m == back(&w))
            else {
                continue;
            };
            if let Some((_, last)) = slides(&api(addr, rules, &after3))
                .into_iter()
                .find(|(m, _)| *m == back(&b))
            {
                assert_eq!(last, start["position"].as_str().unwrap());
                return vec![w.clone(), b.clone(), back(&w), back(&b)];
            }
        }
    }
    panic!("no shuffle from {position}");
}

/// The third occurrence of a position (the same side to move) is a draw,
/// as the rule pages have it, where no N-move rule counts instead: the
/// page says so, offers no move, and millbase does not answer (a drawn
/// shuffle against millbase used to run for ever).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_threefold_repetition_is_a_draw() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    let four = shuffle(p.addr, SMALL, MILL_SLIDE);
    let twice: Vec<String> = four.iter().chain(four.iter()).cloned().collect();
    let live = "return document.querySelectorAll('#moves li:not(.inactive)').length";
    // The second occurrence is not yet a draw.
    p.board(SMALL, MILL_SLIDE, &four.join(" ")).await;
    assert_eq!(p.js("return state.at").await, json!(4));
    assert!(!p.text_of("status").await.contains("repetition"));
    assert!(p.js(live).await.as_u64().unwrap() > 0);
    // The third is.
    p.board(SMALL, MILL_SLIDE, &twice.join(" ")).await;
    assert_eq!(p.js("return state.at").await, json!(8));
    let status = p.text_of("status").await;
    assert!(status.contains("threefold repetition"), "{status}");
    assert_eq!(
        p.js("return document.getElementById('status').dataset.over")
            .await,
        json!("repetition")
    );
    assert!(p.text_of("value").await.starts_with("Drawn by repetition"));
    assert_eq!(p.js(live).await, json!(0));
    let record = p.record().await;
    let from = four[0].split_once('-').unwrap().0;
    p.click_point(point(SMALL, from)).await;
    assert_eq!(p.record().await, record, "no move after the draw");
    p.shot("repetition-1280x900.png").await;
    // Against millbase the same: its turn, and no answer comes.
    p.board(SMALL, MILL_SLIDE, &twice[..7].join(" ")).await;
    p.choose("opponent", "w").await;
    let last = twice[7].split_once('-').unwrap();
    p.click_point(point(SMALL, last.0)).await;
    p.click_point(point(SMALL, last.1)).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    p.ready().await;
    assert_eq!(
        p.record().await.len(),
        8,
        "millbase does not answer a drawn game"
    );
    assert!(p.text_of("status").await.contains("threefold repetition"));
    p.close().await;
}

/// Playing with the values hidden: nothing tells a value while the game
/// runs, a hint shows a best move, the end is said plainly with "analyse
/// this game", which shows every value and marks the mistakes with the
/// better move and the practical choice; the option is in the link.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_with_the_values_hidden() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    p.open(&format!(
        "/?rules={}&position=start&millbase=black&hide=1",
        enc(SMALL)
    ))
    .await;
    assert_eq!(p.url().await.get("hide").map(String::as_str), Some("1"));
    assert_eq!(p.text_of("value").await, "Values hidden while you play");
    assert_eq!(p.js(VALUED).await, json!(0));
    assert!(
        p.js("return document.querySelectorAll('#moves li').length")
            .await
            .as_u64()
            .unwrap()
            > 0
    );
    assert_eq!(
        p.js("return document.getElementById('best').disabled")
            .await,
        json!(true)
    );
    assert_eq!(
        p.js("return getComputedStyle(document.getElementById('result')).display")
            .await,
        json!("none")
    );
    // The hint: a best move, on the board and in words.
    p.click("#hint-move").await;
    let best = p
        .js("return moveText(state.entries[state.at].answer.moves[0])")
        .await;
    assert_eq!(
        p.text_of("hint").await,
        format!("Hint: {}.", best.as_str().unwrap())
    );
    assert!(
        p.js("return document.querySelectorAll('#board .mark.hint').length")
            .await
            .as_u64()
            .unwrap()
            >= 1
    );
    p.shot("hidden-values-1280x900.png").await;
    // Lost by always taking the worst move: no value shows on the way.
    lose_from_here(&p, SMALL, true).await;
    // The end: said plainly, the values back.
    assert_eq!(
        p.js("return document.getElementById('result').hidden")
            .await,
        json!(false)
    );
    assert_eq!(
        p.js("return document.getElementById('result').dataset.result")
            .await,
        json!("lost")
    );
    assert!(p.text_of("result-text").await.starts_with("millbase won"));
    assert_eq!(
        p.js("return document.getElementById('value').dataset.value")
            .await,
        json!("loss")
    );
    p.shot("result-1280x900.png").await;
    let link = p.js("return location.pathname + location.search").await;
    let phone = page(390, 844).await.unwrap();
    phone.open(link.as_str().unwrap()).await;
    assert_eq!(
        phone
            .js("return document.getElementById('result').hidden")
            .await,
        json!(false)
    );
    phone.shot("result-390x844.png").await;
    phone.close().await;
    // Analysis: millbase stops, the mistakes show with the better move,
    // and the move list with the practical choice.
    p.click("#analyse").await;
    assert_eq!(p.js("return state.opponent").await, json!(""));
    let better = p
        .js("return [...document.querySelectorAll('#record td.mistake')].map(td => [td.dataset.better, td.querySelector('.better') && td.querySelector('.better').textContent])")
        .await;
    let better = better.as_array().unwrap();
    assert!(!better.is_empty(), "the worst moves were mistakes");
    for b in better {
        assert!(
            !b[0].as_str().unwrap().is_empty() && b[1].as_str().unwrap().starts_with("better "),
            "{b}"
        );
    }
    p.click("#back").await;
    assert!(
        p.js("return document.querySelectorAll('#moves li[data-value]').length")
            .await
            .as_u64()
            .unwrap()
            > 0
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while p
        .js("return document.querySelectorAll('#moves li.practical-pick').length")
        .await
        == json!(0)
    {
        assert!(
            Instant::now() < deadline,
            "the practical choice never shows"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let choice = p.text_of("practical-choice").await;
    assert!(choice.starts_with("Practical choice: "), "{choice}");
    p.js("document.getElementById('moves').scrollIntoView()")
        .await;
    p.shot("analysis-1280x900.png").await;
    p.close().await;
}

/// Defect 12, the rest: a captured stone leaves a mark; no point label sits
/// on a line; clicking a ply of "best play" keeps the rest of the line;
/// the statistics menu is in order, sets built in part marked; "game over"
/// stands out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_smaller_things() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    // The capture g4-g7 takes a stone: its point is marked.
    let a = api(p.addr, SMALL, MILL_SLIDE);
    let m = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"].as_str().unwrap().starts_with("g4-g7x"))
        .unwrap()
        .clone();
    p.board(SMALL, MILL_SLIDE, m["move"].as_str().unwrap())
        .await;
    let marked = p
        .js("return [...document.querySelectorAll('#board circle.captured')].map(c => Number(c.dataset.captured))")
        .await;
    assert_eq!(marked, m["removes"]);
    p.shot("captured-1280x900.png").await;
    assert_eq!(
        p.js("return getComputedStyle(document.getElementById('status')).fontWeight")
            .await,
        json!("400")
    );
    // Labels clear of every line, on the boards with diagonals too.
    let clearance = "const lines = [...document.querySelectorAll('#board line.edge')];\
        let worst = Infinity;\
        for (const t of document.querySelectorAll('#board text.label')) {\
          const x = Number(t.getAttribute('x')), y = Number(t.getAttribute('y')) - 8;\
          for (const l of lines) {\
            const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map(k => Number(l.getAttribute(k)));\
            const dx = x2 - x1, dy = y2 - y1;\
            const s = Math.max(0, Math.min(1, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy)));\
            worst = Math.min(worst, Math.hypot(x - x1 - s * dx, y - y1 - s * dy));\
          }\
        }\
        return worst;";
    for rules in ["three", "twelve,stones=4", SMALL] {
        p.board(rules, "start", "").await;
        let d = p.js(clearance).await.as_f64().unwrap();
        assert!(d > 12.0, "{rules}: a label {d} from a line");
        if rules.starts_with("twelve") {
            p.shot("labels-twelve-1280x900.png").await;
        }
    }
    // Best play: a click on its second ply keeps the line after it.
    p.board(GAME, "start", "").await;
    p.click("#best").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while p
        .js("return document.querySelectorAll('#line li').length")
        .await
        .as_u64()
        .unwrap()
        < 3
    {
        assert!(Instant::now() < deadline, "no best line");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let line = p
        .js("return [...document.querySelectorAll('#line li')].map(li => li.dataset.move)")
        .await;
    let line: Vec<String> = line
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    p.click("#line li:nth-child(2)").await;
    p.ready().await;
    assert_eq!(p.js("return state.at").await, json!(2));
    let record = p
        .js("return state.entries.slice(1).map(e => e.move.move)")
        .await;
    assert_eq!(record, json!(line), "the rest of the line is kept");
    // A finished game's status stands out: the mill leaves Black two.
    let last = api(p.addr, SMALL, LAST_MILL);
    let win = last["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"].as_str().unwrap().starts_with("g4-g7x"))
        .unwrap()["move"]
        .as_str()
        .unwrap()
        .to_string();
    p.board(SMALL, LAST_MILL, &win).await;
    assert_eq!(
        p.js("return document.getElementById('status').dataset.over")
            .await,
        json!("stones")
    );
    assert_eq!(
        p.js("return getComputedStyle(document.getElementById('status')).fontWeight")
            .await,
        json!("700")
    );
    // The statistics menu: in order, partial sets marked.
    p.open("/stats").await;
    let options = p
        .js("return [...document.querySelectorAll('#rules option')].map(o => [o.value, o.textContent])")
        .await;
    let options = options.as_array().unwrap();
    let values: Vec<String> = options
        .iter()
        .map(|o| o[0].as_str().unwrap().to_string())
        .collect();
    let mut sorted = values.clone();
    sorted.sort_by_key(|v| natural_key(v));
    assert_eq!(values, sorted);
    let catalog = get(p.addr, "/api/v1/rules").json();
    p.open("/stats?rules=twelve,stones=3").await;
    let summary = p.text_of("summary").await;
    assert!(
        summary.starts_with("twelve,stones=3 (moving phase only"),
        "{summary}"
    );
    for r in catalog["rule_sets"].as_array().unwrap() {
        let text = options.iter().find(|o| o[0] == r["rules"]).unwrap()[1]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(
            text.ends_with("(moving phase only)"),
            r["phases"]["placing"] == json!(false),
            "{text}"
        );
    }
    p.close().await;
}

/// Digits compared as numbers: `stones=10` after `stones=9`.
fn natural_key(s: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            let mut n = c.to_digit(10).unwrap() as u64;
            while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                n = n * 10 + d as u64;
                chars.next();
            }
            out.push((std::mem::take(&mut text), n));
        } else {
            text.push(c);
        }
    }
    out.push((text, 0));
    out
}

/// The record is a box of its own that scrolls to the current ply, the
/// page staying where it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_record_box_follows_the_current_ply() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    // 60 plies of the tables' first moves from the start.
    let mut position = "start".to_string();
    let mut moves = Vec::new();
    for _ in 0..60 {
        let a = api(p.addr, GAME, &position);
        let Some(m) = a["moves"].as_array().unwrap().first() else {
            break;
        };
        moves.push(m["move"].as_str().unwrap().to_string());
        position = m["after"].as_str().unwrap().to_string();
    }
    assert!(moves.len() >= 40, "{moves:?}");
    p.board(GAME, "start", &moves.join(" ")).await;
    let visible = "const box = document.getElementById('record-box');\
        const cur = box.querySelector('td.current');\
        const r = cur.getBoundingClientRect(), b = box.getBoundingClientRect();\
        return [box.scrollHeight > box.clientHeight, r.top >= b.top - 1 && r.bottom <= b.bottom + 1, window.scrollY];";
    let at_end = p.js(visible).await;
    assert_eq!(at_end, json!([true, true, 0]), "the last ply in view");
    p.open(&format!(
        "/?rules={}&position=start&moves={}&ply=1",
        enc(GAME),
        enc(&moves.join(" "))
    ))
    .await;
    assert_eq!(
        p.js(visible).await,
        json!([true, true, 0]),
        "the first ply in view"
    );
    // Forward to the end, a ply at a time: always in view.
    for _ in 0..moves.len() - 1 {
        // A script's click: WebDriver's would scroll the page to the button.
        p.js("document.getElementById('forward').click()").await;
        p.ready().await;
    }
    assert_eq!(p.js("return state.at").await, json!(moves.len()));
    assert_eq!(p.js(visible).await, json!([true, true, 0]));
    p.shot("record-box-1280x900.png").await;
    p.close().await;
}

/// Plays the game shown against millbase to its end, the player (`human`,
/// "w" or "b") taking the first listed move (`best`) or the last; returns
/// the result box's verdict ("won", "drawn" or "lost").
async fn play_out(p: &Page, rules: &str, human: &str, best: bool) -> String {
    for _ in 0..400 {
        p.ready().await;
        if p.js("return document.getElementById('status').dataset.over")
            .await
            != json!("")
        {
            break;
        }
        let a = api(p.addr, rules, &p.position().await);
        let side = a["position"].as_str().unwrap().split(' ').nth(1).unwrap();
        assert_eq!(side, human, "the player's turn: {a}");
        let moves = a["moves"].as_array().unwrap();
        let m = if best {
            &moves[0]
        } else {
            moves.last().unwrap()
        };
        p.js(&format!(
            "play(state.entries[state.at].answer.moves.find(m => m.move === {}))",
            m["move"]
        ))
        .await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    p.ready().await;
    assert_ne!(
        p.js("return getComputedStyle(document.getElementById('result')).display")
            .await,
        json!("none"),
        "a result is said"
    );
    p.js("return document.getElementById('result').dataset.result")
        .await
        .as_str()
        .unwrap()
        .to_string()
}

/// The player's move of the game shown (`best`: the first listed, else
/// the last), and millbase's answer waited for.
async fn play_one(p: &Page, rules: &str, best: bool) {
    let a = api(p.addr, rules, &p.position().await);
    let moves = a["moves"].as_array().unwrap();
    let m = if best {
        &moves[0]
    } else {
        moves.last().unwrap()
    };
    p.js(&format!(
        "play(state.entries[state.at].answer.moves.find(m => m.move === {}))",
        m["move"]
    ))
    .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    p.ready().await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    p.ready().await;
}

/// A game against millbase (which plays Black) opened at `link`: three of
/// the player's moves, then Back (the player's turn before the last one,
/// nobody thinking), a reload (the game and the opponent kept), and the
/// copied link opened in another browser, which is returned to go on.
async fn interrupted(p: Page, link: &str, rules: &str, best: bool) -> Page {
    p.open(link).await;
    for _ in 0..3 {
        play_one(&p, rules, best).await;
    }
    let plies = p.record().await.len();
    assert!(plies >= 5, "three moves and their answers: {plies}");
    p.c.back().await.unwrap();
    p.ready().await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    p.ready().await;
    let back = p.record().await.len();
    assert!(
        back < plies,
        "Back takes the last move back: {back} of {plies}"
    );
    assert_eq!(p.js("return humanToMove()").await, json!(true));
    p.c.refresh().await.unwrap();
    p.ready().await;
    assert_eq!(p.record().await.len(), back, "a reload keeps the game");
    assert_eq!(p.js("return state.opponent").await, json!("b"));
    p.click("#copy-link").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while p
        .js("return document.getElementById('copied').dataset.url || ''")
        .await
        == json!("")
    {
        assert!(Instant::now() < deadline, "no link copied");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let url = p
        .js("return document.getElementById('copied').dataset.url")
        .await;
    let url = url.as_str().unwrap().to_string();
    p.close().await;
    let q = page(390, 844).await.unwrap();
    q.open(&url[url.find("/?").unwrap()..]).await;
    assert_eq!(
        q.record().await.len(),
        back,
        "the copied link holds the game"
    );
    q
}

/// Whole games against millbase from the start to the result, each with
/// Back, a reload and a copied link opened in another browser in the
/// middle: lost (the player's worst moves), drawn (both sides' best moves
/// until a position comes a third time) and won (from a start the player
/// wins).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whole_games_against_millbase() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    let link = |rules: &str, position: &str| {
        format!(
            "/?rules={}&position={}&millbase=black",
            enc(rules),
            enc(position)
        )
    };
    let q = interrupted(p, &link(SMALL, "start"), SMALL, false).await;
    assert_eq!(play_out(&q, SMALL, "w", false).await, "lost");
    assert!(q.text_of("result-text").await.starts_with("millbase won"));
    q.shot("lost-390x844.png").await;
    q.close().await;
    // Drawn.
    assert_eq!(api(q_addr(), SMALL, "start")["value"], "draw");
    let p = page(1280, 900).await.unwrap();
    let q = interrupted(p, &link(SMALL, "start"), SMALL, true).await;
    assert_eq!(play_out(&q, SMALL, "w", true).await, "draw");
    assert_eq!(
        q.js("return document.getElementById('status').dataset.over")
            .await,
        json!("repetition")
    );
    q.shot("drawn-390x844.png").await;
    q.close().await;
    // Won: a start the player (White) wins, best moves to the end.
    let won = BUILT
        .iter()
        .find(|r| api(q_addr(), r, "start")["value"] == "win");
    let (rules, position) = match won {
        Some(r) => (r.to_string(), "start".to_string()),
        None => (SMALL.to_string(), MILL_SLIDE.to_string()),
    };
    assert_eq!(api(q_addr(), &rules, &position)["value"], "win");
    let p = page(1280, 900).await.unwrap();
    let q = interrupted(p, &link(&rules, &position), &rules, true).await;
    assert_eq!(play_out(&q, &rules, "w", true).await, "won");
    assert!(q.text_of("result-text").await.starts_with("You won"));
    q.shot("won-390x844.png").await;
    q.close().await;
}

/// The test server's address.
fn q_addr() -> SocketAddr {
    server().0
}

/// A move arrives briefly (160 ms): a slide from the point it left, a
/// placement growing; only on the redraw right after the move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_arrives_briefly() {
    let Some(p) = page(1280, 900).await else {
        return;
    };
    let arriving = "return [...document.querySelectorAll('#board .stone.arrive')].map(s => \
                    [Number(s.dataset.at), getComputedStyle(s).animationName, getComputedStyle(s).animationDuration, \
                     s.style.getPropertyValue('--dx')])";
    p.board(SMALL, "start", "").await;
    p.click_point(point(SMALL, "d2")).await;
    let d2 = point(SMALL, "d2");
    assert_eq!(p.js(arriving).await, json!([[d2, "arrive", "0.16s", ""]]));
    // Another redraw (the board turned round) does not move it again.
    p.click("#flip").await;
    assert_eq!(p.js(arriving).await, json!([]));
    p.click("#flip").await;
    // A slide comes from where the stone was.
    p.board(SMALL, MILL_SLIDE, "").await;
    let a = api(p.addr, SMALL, MILL_SLIDE);
    let slide = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["removes"].as_array().unwrap().is_empty() && !m["from"].is_null())
        .unwrap()
        .clone();
    p.js(&format!(
        "play(state.entries[state.at].answer.moves.find(m => m.move === {}))",
        slide["move"]
    ))
    .await;
    p.ready().await;
    let shown = p.js(arriving).await;
    assert_eq!(shown[0][0], slide["to"]);
    assert!(shown[0][3].as_str().unwrap().ends_with("px"), "{shown}");
    p.close().await;
}

/// The new states on a phone: each fits the width, and is photographed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_new_states_on_a_phone() {
    let Some(p) = page(390, 844).await else {
        return;
    };
    let four = shuffle(p.addr, SMALL, MILL_SLIDE);
    let twice: Vec<String> = four.iter().chain(four.iter()).cloned().collect();
    let states = [
        (
            "hidden-values",
            format!(
                "/?rules={}&position=start&millbase=black&hide=1",
                enc(SMALL)
            ),
        ),
        (
            "repetition",
            format!(
                "/?rules={}&position={}&moves={}",
                enc(SMALL),
                enc(MILL_SLIDE),
                enc(&twice.join(" "))
            ),
        ),
        (
            "record-box",
            format!(
                "/?rules={}&position={}&moves={}&ply=3",
                enc(SMALL),
                enc(MILL_SLIDE),
                enc(&twice.join(" "))
            ),
        ),
    ];
    for (name, link) in states {
        p.open(&link).await;
        let w = p
            .js("return [document.documentElement.scrollWidth, window.innerWidth]")
            .await;
        assert!(
            w[0].as_f64().unwrap() <= w[1].as_f64().unwrap() + 1.0,
            "{name}: {w}"
        );
        p.shot(&format!("{name}-390x844.png")).await;
    }
    p.close().await;
}
