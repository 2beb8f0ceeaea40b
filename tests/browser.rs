//! The web board in a real headless Chromium, driven over WebDriver
//! (Debian's `chromium` and `chromium-driver`, which `.ci/run` installs):
//! load the page, play moves by clicking points, check every value shown
//! against the API, enter positions in each form, follow a shared link,
//! and save screenshots under `target/screenshots/`.

mod common;
#[path = "common/http.rs"]
mod http;

use fantoccini::{Client, ClientBuilder, Locator};
use http::{enc, get};
use millbase::serve::{ServeOptions, spawn};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const GAME: &str = "standard,stones=5";

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

fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn shot(c: &Client, name: &str) {
    let png = c.screenshot().await.unwrap();
    std::fs::write(screenshots().join(name), png).unwrap();
}

/// Waits until the page has answered (no request in flight).
async fn ready(c: &Client) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let s = c
            .execute("return document.body.dataset.state", vec![])
            .await
            .unwrap();
        if s == "ready" {
            return;
        }
        assert!(Instant::now() < deadline, "page never got ready");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
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

/// What the page shows: the value and plies of the position, the URL's
/// position, and each listed move with its value.
async fn shown(c: &Client) -> (String, String, String, Vec<(String, String, String)>) {
    let v = c
        .execute(
            "const v = document.getElementById('value');
             const p = new URLSearchParams(location.search).get('position');
             const moves = [...document.querySelectorAll('#moves li')]
                 .map(li => [li.dataset.move, li.dataset.value, li.dataset.plies]);
             return [v.dataset.value || '', v.dataset.plies || '', p, moves];",
            vec![],
        )
        .await
        .unwrap();
    let s = |x: &Value| x.as_str().unwrap_or("").to_string();
    let moves = v[3]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (s(&m[0]), s(&m[1]), s(&m[2])))
        .collect();
    (s(&v[0]), s(&v[1]), s(&v[2]), moves)
}

/// Checks that the page shows exactly what the API says of `position`.
async fn agrees(c: &Client, addr: SocketAddr, rules: &str, position: &str) -> Value {
    let a = api(addr, rules, position);
    let (value, plies, _, moves) = shown(c).await;
    assert_eq!(value, a["value"], "{position}");
    assert_eq!(
        plies,
        a["plies"]
            .as_u64()
            .map(|p| p.to_string())
            .unwrap_or_default(),
        "{position}"
    );
    let want: Vec<(String, String, String)> = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                m["value"].as_str().unwrap().to_string(),
                m["plies"]
                    .as_u64()
                    .map(|p| p.to_string())
                    .unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(moves, want, "{position}");
    a
}

async fn click_point(c: &Client, p: u64) {
    c.find(Locator::Css(&format!("circle.hit[data-point='{p}']")))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    ready(c).await;
}

async fn click_id(c: &Client, id: &str) {
    c.find(Locator::Id(id))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

async fn url_position(c: &Client) -> String {
    shown(c).await.2
}

async fn enter(c: &Client, position: &str) {
    let input = c.find(Locator::Id("position")).await.unwrap();
    input.clear().await.unwrap();
    input.send_keys(position).await.unwrap();
    click_id(c, "go").await;
    ready(c).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_board_in_a_real_browser() {
    let Some((chromium, chromedriver)) = browser_programs() else {
        return;
    };
    let dir = common::TempDir::new("browser");
    for rules in [GAME, "three", "lasker,stones=3"] {
        common::run_ok(&["build", "--rules", rules, "--db", dir.to_str().unwrap()]);
    }
    let server = spawn(ServeOptions::new(&dir), "127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = server.addr;
    let base = format!("http://{addr}");
    let (_driver, port) = start_driver(&chromedriver);
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1200,1000"]
        }),
    );
    let c = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a WebDriver session");

    // The start of the 5-stone game: value and every first move as the API
    // gives them, one mark per empty point.
    c.goto(&format!("{base}/?rules={}&position=start", enc(GAME)))
        .await
        .unwrap();
    ready(&c).await;
    agrees(&c, addr, GAME, "start").await;
    let marks = c
        .find_all(Locator::Css("circle.hit[data-kind='to']"))
        .await
        .unwrap();
    assert_eq!(marks.len(), 24);

    // Play a7 b6 d7 d6 by clicking, then g7, which closes a mill: the
    // removal is a click on the stone to take (b6).
    let mut played = Vec::new();
    for (p, name) in [(0, "a7"), (8, "b6"), (1, "d7"), (9, "d6")] {
        click_point(&c, p).await;
        played.push(name);
        let a = agrees(&c, addr, GAME, &played.join(" ")).await;
        assert_eq!(url_position(&c).await, a["position"]);
    }
    shot(&c, "board-placing.png").await;
    click_point(&c, 2).await;
    // Both black stones may be taken: the page asks which.
    let removable = c
        .find_all(Locator::Css("circle.hit[data-kind='remove']"))
        .await
        .unwrap();
    assert_eq!(removable.len(), 2);
    shot(&c, "board-removal.png").await;
    click_point(&c, 8).await;
    played.push("g7xb6");
    let after_mill = agrees(&c, addr, GAME, &played.join(" ")).await;
    assert_eq!(
        after_mill["position"],
        api(addr, GAME, "a7 b6 d7 d6 g7xb6")["position"]
    );

    // Back and forward: the arrow keys and the buttons.
    let body = c.find(Locator::Css("body")).await.unwrap();
    body.send_keys("\u{E012}").await.unwrap(); // ArrowLeft
    ready(&c).await;
    agrees(&c, addr, GAME, "a7 b6 d7 d6").await;
    click_id(&c, "back").await;
    ready(&c).await;
    agrees(&c, addr, GAME, "a7 b6 d7").await;
    click_id(&c, "forward").await;
    ready(&c).await;
    body.send_keys("\u{E014}").await.unwrap(); // ArrowRight
    ready(&c).await;
    agrees(&c, addr, GAME, "a7 b6 d7 d6 g7xb6").await;

    // A shared link shows the same position and values.
    let link = c.current_url().await.unwrap().to_string();
    c.goto(&link).await.unwrap();
    ready(&c).await;
    agrees(&c, addr, GAME, "a7 b6 d7 d6 g7xb6").await;

    // Every position form in the entry field.
    let board = "WW.....W/.BBB.B../B....... b 0 0";
    for form in [
        board,
        "a7 b6 d7 d6",
        "-0 -8 -1 -9 -2x8",
        "O*O****@/*@@@*@**/@******* b p r 0 5 0 5 0 0 -1 -1 -1 -1 0 0 1",
    ] {
        enter(&c, form).await;
        let err = c
            .find(Locator::Id("error"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let api_status = get(
            addr,
            &format!("/api/v1/query?rules={}&position={}", enc(GAME), enc(form)),
        )
        .status;
        if api_status == 200 {
            assert_eq!(err, "", "{form}");
            agrees(&c, addr, GAME, form).await;
        } else {
            assert!(!err.is_empty(), "{form}: the page shows the API's error");
        }
    }

    // The moving phase: a slide is a click on the stone, then on its
    // target (and on the stone to remove after a mill).
    enter(&c, board).await;
    let a = agrees(&c, addr, GAME, board).await;
    let slide = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| !m["from"].is_null())
        .unwrap()
        .clone();
    click_point(&c, slide["from"].as_u64().unwrap()).await;
    let targets = c
        .find_all(Locator::Css("circle.hit[data-kind='to']"))
        .await
        .unwrap();
    assert!(!targets.is_empty());
    shot(&c, "board-moving.png").await;
    click_point(&c, slide["to"].as_u64().unwrap()).await;
    for r in slide["removes"].as_array().unwrap() {
        if url_position(&c).await == slide["after"] {
            break;
        }
        click_point(&c, r.as_u64().unwrap()).await;
    }
    assert_eq!(url_position(&c).await, slide["after"]);
    agrees(&c, addr, GAME, slide["after"].as_str().unwrap()).await;

    // The best line from a position, as the API gives it.
    let from = "a7 b6 d7 d6";
    enter(&c, from).await;
    let from_board = url_position(&c).await;
    click_id(&c, "best").await;
    ready(&c).await;
    let line = get(
        addr,
        &format!(
            "/api/v1/line?rules={}&position={}&max=60",
            enc(GAME),
            enc(&from_board)
        ),
    )
    .json();
    let shown_line = c.find_all(Locator::Css("#line li")).await.unwrap();
    assert_eq!(shown_line.len(), line.as_array().unwrap().len() - 1);
    assert!(!shown_line.is_empty());
    shot(&c, "board-best-line.png").await;
    // Clicking the line's third ply plays the line up to it.
    shown_line[2].click().await.unwrap();
    ready(&c).await;
    assert_eq!(url_position(&c).await, line[3]["position"]);

    // Point numbers instead of coordinates, and the board turned round.
    c.find(Locator::Css("#labels option[value='numbers']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    click_id(&c, "flip").await;
    let labels = c
        .execute(
            "return [...document.querySelectorAll('#board text.label')].map(t => t.textContent)",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(labels[0], "0");
    assert_eq!(labels[23], "23");
    shot(&c, "board-flipped-numbers.png").await;

    // Three men's morris: a board of 9 points, White wins in 9.
    c.goto(&format!("{base}/?rules=three")).await.unwrap();
    ready(&c).await;
    agrees(&c, addr, "three", "start").await;
    let points = c.find_all(Locator::Css("circle.hit")).await.unwrap();
    assert_eq!(points.len(), 9);
    click_point(&c, 8).await;
    agrees(&c, addr, "three", "b2").await;
    shot(&c, "three.png").await;

    // Lasker morris: with a stone in hand, White may still slide a stone
    // (its point, then the target) instead of placing.
    let lasker = "lasker,stones=3";
    let pos = "WW....B./......../........ w 1 2";
    c.goto(&format!(
        "{base}/?rules={}&position={}",
        enc(lasker),
        enc(pos)
    ))
    .await
    .unwrap();
    ready(&c).await;
    let a = agrees(&c, addr, lasker, pos).await;
    let kinds: Vec<bool> = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["from"].is_null())
        .collect();
    assert!(kinds.contains(&true) && kinds.contains(&false), "{a}");
    click_point(&c, 0).await;
    click_point(&c, 7).await;
    agrees(&c, addr, lasker, ".W....BW/......../........ b 1 2").await;
    shot(&c, "lasker-slide.png").await;

    // A phone-sized screen.
    c.set_window_size(390, 844).await.unwrap();
    c.goto(&format!(
        "{base}/?rules={}&position={}",
        enc(GAME),
        enc("a7 b6 d7 d6")
    ))
    .await
    .unwrap();
    ready(&c).await;
    agrees(&c, addr, GAME, "a7 b6 d7 d6").await;
    let width = c
        .execute(
            "return [document.documentElement.scrollWidth, window.innerWidth, \
             document.getElementById('board').getBoundingClientRect().width]",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        width[0].as_f64().unwrap() <= width[1].as_f64().unwrap() + 1.0,
        "no sideways scrolling on a phone: {width}"
    );
    assert!(width[2].as_f64().unwrap() > 300.0, "{width}");
    shot(&c, "phone.png").await;

    // The statistics page: a bar per table, the table's rows.
    c.set_window_size(1200, 1000).await.unwrap();
    c.goto(&format!("{base}/stats?rules={}", enc(GAME)))
        .await
        .unwrap();
    ready(&c).await;
    let stats = get(addr, &format!("/api/v1/stats?rules={}", enc(GAME))).json();
    let n = stats["subspaces"].as_array().unwrap().len();
    let rows = c.find_all(Locator::Css("#table tbody tr")).await.unwrap();
    assert_eq!(rows.len(), n);
    let bars = c.find_all(Locator::Css("#wdl g")).await.unwrap();
    assert_eq!(bars.len(), n);
    rows[0].click().await.unwrap();
    let title = c
        .find(Locator::Id("plies-title"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        title.contains(stats["subspaces"][0]["subspace"].as_str().unwrap()),
        "{title}"
    );
    shot(&c, "stats.png").await;

    c.close().await.unwrap();
    server.stop().unwrap();
}
