//! The server under load and abuse, on 127.0.0.1: idle connections that
//! send their headers a byte at a time do not keep normal clients waiting;
//! thousands of mixed good and bad requests from 64 clients get only the
//! expected answers, with memory bounded; a table deleted or replaced while
//! the server runs gives a clean error, not a crash.

use crate::common;
use crate::common::http;

use http::{enc, get, slowloris};
use millbase::{ServeOptions, spawn};
use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// `millbase serve` in a process of its own, so that its memory is not the
/// test binary's (where other tests run at the same time); killed when
/// dropped.
struct ServerProcess {
    child: std::process::Child,
    addr: std::net::SocketAddr,
}

impl ServerProcess {
    fn start(db: &std::path::Path) -> ServerProcess {
        use std::io::BufRead;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_millbase"))
            .args(["serve", "--addr", "127.0.0.1:0", "--db"])
            .arg(db)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
        let addr = loop {
            let line = lines.next().expect("the server names its address").unwrap();
            if let Some(rest) = line.split(" at http://").nth(1) {
                break rest.split('/').next().unwrap().parse().unwrap();
            }
        };
        // Keep reading, so that a full pipe never blocks the server.
        std::thread::spawn(move || lines.for_each(drop));
        ServerProcess { child, addr }
    }

    /// Resident memory of the server process, in KiB.
    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn db() -> &'static std::path::Path {
    common::shared_db("three")
}

/// Every normal request is answered while all the idle connections are
/// still held open (a server that served one connection at a time, or
/// dropped the idle ones to cope, would fail). The latencies are a
/// benchmark's (`cargo bench --bench serve`), not a test's.
#[test]
fn idle_connections_do_not_keep_clients_waiting() {
    let server = spawn(ServeOptions::new(db()), "127.0.0.1:0".parse().unwrap()).unwrap();
    let run = slowloris(
        server.addr,
        250,
        5,
        "/api/v1/query?rules=three&position=start",
    );
    assert!(run.latencies.len() >= 5, "{} requests", run.latencies.len());
    assert_eq!(run.held, 250, "idle connections closed while requests ran");
    server.stop().unwrap();
}

/// The size: 1,000 idle connections for 20 s. `cargo test
/// --release --test serve_load -- --ignored` (needs `ulimit -n` above
/// 1,100).
#[test]
#[ignore]
fn a_thousand_idle_connections_do_not_keep_clients_waiting() {
    let server = spawn(ServeOptions::new(db()), "127.0.0.1:0".parse().unwrap()).unwrap();
    let run = slowloris(
        server.addr,
        1000,
        20,
        "/api/v1/query?rules=three&position=start",
    );
    let (median, worst) = (run.median(), run.latencies[run.latencies.len() - 1]);
    println!(
        "1,000 idle connections: {} requests, median {median:?}, worst {worst:?}",
        run.latencies.len()
    );
    assert_eq!(run.held, 1000, "idle connections closed while requests ran");
    server.stop().unwrap();
}

#[test]
fn ten_thousand_mixed_requests_from_64_clients() {
    let server = ServerProcess::start(db());
    let addr = server.addr;
    // Warm up, then measure memory growth over the load.
    for _ in 0..50 {
        get(addr, "/api/v1/query?rules=three&position=start");
    }
    let before = server.rss_kib();
    let targets: Vec<(String, &[u16])> = vec![
        ("/api/v1/query?rules=three&position=start".into(), &[200]),
        ("/api/v1/query?rules=three&position=b2+a3".into(), &[200]),
        (
            "/api/v1/query?rules=three&position=b2&practical=1".into(),
            &[200],
        ),
        ("/api/v1/line?rules=three&max=4".into(), &[200]),
        ("/api/v1/game?rules=three&moves=1.+b2+a3".into(), &[200]),
        ("/api/v1/rules".into(), &[200]),
        ("/api/v1/query?rules=three&position=zz".into(), &[400]),
        ("/api/v1/query?rules=nine&position=start".into(), &[400]),
        ("/api/v1/query?rules=three&rules=three".into(), &[400]),
        (
            format!(
                "/api/v1/query?rules=three&position={}",
                enc(&"a".repeat(2000))
            ),
            &[413],
        ),
        ("/api/v1/query?rules=six&position=start".into(), &[404]),
        ("/api/v1/nothing".into(), &[404]),
        ("/api/v1/game?rules=three&moves=b2+b2".into(), &[400]),
        ("/api/v1/query?rules=three&position=%FF%FE".into(), &[400]),
    ];
    let targets = std::sync::Arc::new(targets);
    let threads: Vec<_> = (0..64)
        .map(|c| {
            let targets = targets.clone();
            std::thread::spawn(move || {
                let mut statuses = Vec::new();
                for i in 0..157 {
                    let (t, ok) = &targets[(c * 7 + i) % targets.len()];
                    let r = get(addr, t);
                    assert!(ok.contains(&r.status), "{t}: {} {}", r.status, r.text());
                    if r.status >= 400 {
                        // Every error is JSON with a message.
                        assert!(r.json()["error"].is_string(), "{t}");
                    }
                    statuses.push(r.status);
                }
                statuses.len()
            })
        })
        .collect();
    let n: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(n, 64 * 157);
    let grown = server.rss_kib().saturating_sub(before);
    // The bound stated in docs/SERVE.md: the block caches and thread stacks,
    // far below 256 MiB.
    assert!(grown < 256 * 1024, "memory grew by {grown} KiB");
    // Still serving.
    assert_eq!(get(addr, "/api/v1/rules").status, 200);
}

#[test]
fn a_table_deleted_or_replaced_while_serving_is_a_clean_error() {
    let src = db();
    let dir = common::TempDir::new("serve-load-tables");
    std::fs::create_dir_all(dir.join("three")).unwrap();
    for f in std::fs::read_dir(src.join("three")).unwrap() {
        let p = f.unwrap().path();
        std::fs::copy(&p, dir.join("three").join(p.file_name().unwrap())).unwrap();
    }
    let server = spawn(ServeOptions::new(&dir), "127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = server.addr;
    let q = |pos: &str| {
        get(
            addr,
            &format!("/api/v1/query?rules=three&position={}", enc(pos)),
        )
    };
    let start = q("start");
    assert_eq!(start.status, 200);
    // A moving-phase position: its table is 3-3.
    let moving = "WW.B..BB/W b 0 0";
    assert_eq!(q(moving).status, 200, "{}", q(moving).text());
    let table = dir.join("three").join("3-3.mbt");
    // Replaced by garbage: a table already open keeps answering from the
    // file it mapped, or the server says the table is damaged; never a
    // wrong value, never a crash.
    let sound = q(moving).json();
    std::fs::write(dir.join("three").join("3-3.new"), b"not a table at all").unwrap();
    std::fs::rename(dir.join("three").join("3-3.new"), &table).unwrap();
    let r = q(moving);
    match r.status {
        200 => assert_eq!(r.json(), sound),
        500 => assert!(r.text().contains("3-3.mbt"), "{}", r.text()),
        s => panic!("{s}: {}", r.text()),
    }
    // Deleted: the same.
    std::fs::remove_file(&table).unwrap();
    let r = q(moving);
    assert!(
        r.status == 200 || r.status == 404 || r.status == 500,
        "{}",
        r.text()
    );
    if r.status == 200 {
        assert_eq!(r.json(), sound);
    }
    // Every other request still works.
    assert_eq!(q("start").status, 200);
    assert_eq!(get(addr, "/api/v1/rules").status, 200);
    // A fresh server on the damaged folder names the file.
    let fresh = spawn(ServeOptions::new(&dir), "127.0.0.1:0".parse().unwrap()).unwrap();
    let r = get(
        fresh.addr,
        &format!("/api/v1/query?rules=three&position={}", enc(moving)),
    );
    assert_eq!(r.status, 404, "{}", r.text());
    assert!(r.text().contains("3-3.mbt"), "{}", r.text());
    fresh.stop().unwrap();
    server.stop().unwrap();
}

/// Random moving-phase positions with four stones a side, White to move.
fn four_four_positions(n: usize, seed: u64) -> Vec<millbase::Position> {
    let all = millbase::Board::standard().all;
    let mut rng = common::Rng(seed);
    (0..n)
        .map(|_| {
            let w = rng.points(all, 4);
            let b = rng.points(all.minus(w), 4);
            common::moving_position(w.0, b.0)
        })
        .collect()
}

/// A table rewritten in place under a running server (another rule set's
/// table copied over it, truncated, an identical copy written over it), in
/// a loop while a client checks every answer against a reference: each
/// answer is the right value or an error naming the table; the server
/// neither crashes (a mapped file that shrinks raises SIGBUS) nor answers
/// from the other file's values.
#[test]
fn a_table_rewritten_in_place_while_serving_gives_right_values_or_errors() {
    let ours = "standard,stones=4,flying=4";
    let theirs = "standard,stones=4";
    let db = common::TempDir::new("serve-rewrite-db");
    let pristine = common::TempDir::new("serve-rewrite-pristine");
    let other = common::TempDir::new("serve-rewrite-other");
    common::build_tables(&db, &ours.parse().unwrap(), &["4-4"]);
    common::build_tables(&pristine, &ours.parse().unwrap(), &["4-4"]);
    common::build_tables(&other, &theirs.parse().unwrap(), &["4-4"]);
    let table = db.join("standard,flying=4").join("4-4.mbt");
    let sound = std::fs::read(&table).unwrap();
    let foreign = std::fs::read(other.join("standard").join("4-4.mbt")).unwrap();
    assert_eq!(
        sound,
        std::fs::read(pristine.join("standard,flying=4/4-4.mbt")).unwrap()
    );
    assert_ne!(sound, foreign);

    let rules: millbase::Rules = ours.parse().unwrap();
    let reference = millbase::TableSet::open(&pristine, &rules);
    // A tiny block cache: nearly every probe reads the file.
    let options = ServeOptions {
        cache_blocks: 2,
        ..ServeOptions::new(&db)
    };
    let server = spawn(options, "127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = server.addr;
    let positions: Vec<(String, serde_json::Value)> = four_four_positions(400, 48)
        .into_iter()
        .map(|p| {
            let text = p.board_string(&rules);
            let a = reference.probe_text(&text, None).unwrap().to_answer(&rules);
            (text, serde_json::to_value(a).unwrap())
        })
        .collect();
    let ask = |text: &str| {
        get(
            addr,
            &format!("/api/v1/query?rules={}&position={}", enc(ours), enc(text)),
        )
    };
    // Opened while sound.
    let r = ask(&positions[0].0);
    assert_eq!((r.status, r.json()), (200, positions[0].1.clone()));

    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Rounds of rewriting done so far: the readers go on until there were
    // enough, however slow the disk is under other load.
    let done = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let writer = {
        let (stop, table, done) = (stop.clone(), table.clone(), done.clone());
        let (sound, foreign) = (sound.clone(), foreign.clone());
        std::thread::spawn(move || {
            let mut rounds = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                // Each as `cp` does it: open with truncation, write.
                std::fs::write(&table, &foreign).unwrap();
                std::thread::sleep(Duration::from_millis(15));
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&table)
                    .unwrap();
                f.set_len(4000).unwrap();
                drop(f);
                std::thread::sleep(Duration::from_millis(15));
                std::fs::write(&table, &sound).unwrap();
                std::thread::sleep(Duration::from_millis(15));
                rounds += 1;
                done.store(rounds, std::sync::atomic::Ordering::Relaxed);
            }
            rounds
        })
    };
    let (mut right, mut errors) = (0, 0);
    let started = Instant::now();
    for (i, (text, want)) in positions.iter().cycle().enumerate() {
        let rounds = done.load(std::sync::atomic::Ordering::Relaxed);
        if i >= 400 && started.elapsed() > Duration::from_secs(4) && rounds > 10
            || started.elapsed() > Duration::from_secs(120)
        {
            break;
        }
        let r = ask(text);
        match r.status {
            200 => {
                assert_eq!(&r.json(), want, "a wrong value for {text}");
                right += 1;
            }
            500 => {
                assert!(r.text().contains("4-4.mbt"), "{}", r.text());
                errors += 1;
            }
            s => panic!("status {s}: {}", r.text()),
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let rounds = writer.join().unwrap();
    assert!(rounds > 10, "{rounds} rounds of rewriting");
    // Both kinds of answer were seen: the test exercised the changes.
    assert!(right > 0 && errors > 0, "{right} right, {errors} errors");
    // Whole again (identical bytes): the opened table answers rightly or
    // with an error for blocks that changed while it was open, and the
    // server still serves everything else.
    std::fs::write(&table, &sound).unwrap();
    for (text, want) in positions.iter().take(50) {
        let r = ask(text);
        assert!(r.status == 200 || r.status == 500, "{}", r.text());
        if r.status == 200 {
            assert_eq!(&r.json(), want);
        }
    }
    assert_eq!(get(addr, "/api/v1/rules").status, 200);
    server.stop().unwrap();
}

/// A server whose limits are short, for the connection tests.
fn quick_server(limits: millbase::Limits) -> millbase::RunningServer {
    let options = ServeOptions {
        limits,
        ..ServeOptions::new(db())
    };
    spawn(options, "127.0.0.1:0".parse().unwrap()).unwrap()
}

/// Reads until the server closes the connection or `wait` passes; returns
/// the bytes and whether it closed.
fn read_until_closed(s: &mut TcpStream, wait: Duration) -> (Vec<u8>, bool) {
    use std::io::Read;
    s.set_read_timeout(Some(wait)).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return (out, true),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return (out, true),
            Err(_) => return (out, false),
        }
    }
}

fn status_of(raw: &[u8]) -> Option<u16> {
    let text = String::from_utf8_lossy(raw);
    text.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()
}

#[test]
fn a_half_closed_connection_gets_its_answer() {
    let server = quick_server(Default::default());
    for target in [
        "/api/v1/query?rules=three&position=start",
        "/api/v1/rules",
        "/",
    ] {
        let mut s = TcpStream::connect(server.addr).unwrap();
        write!(s, "GET {target} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        s.shutdown(std::net::Shutdown::Write).unwrap();
        let (raw, closed) = read_until_closed(&mut s, Duration::from_secs(10));
        assert_eq!(
            status_of(&raw),
            Some(200),
            "{target}: {:?}",
            String::from_utf8_lossy(&raw)
        );
        assert!(closed);
    }
    server.stop().unwrap();
}

#[test]
fn idle_slow_and_silent_connections_are_closed_after_the_head_time() {
    let limits = millbase::Limits {
        header_time: Duration::from_secs(1),
        ..Default::default()
    };
    let server = quick_server(limits);
    let addr = server.addr;
    // Silent from the start; a partial head; idle after an answer.
    let mut silent = TcpStream::connect(addr).unwrap();
    let mut partial = TcpStream::connect(addr).unwrap();
    partial
        .write_all(b"GET /api/v1/rules HTTP/1.1\r\nHo")
        .unwrap();
    let mut idle = TcpStream::connect(addr).unwrap();
    idle.write_all(b"GET /api/v1/rules HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let t = Instant::now();
    for (name, s) in [
        ("silent", &mut silent),
        ("partial", &mut partial),
        ("idle", &mut idle),
    ] {
        let (raw, closed) = read_until_closed(s, Duration::from_secs(5));
        assert!(
            closed,
            "{name} connection still open after {:?}",
            t.elapsed()
        );
        if name == "idle" {
            assert_eq!(status_of(&raw), Some(200));
        }
    }
    assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
    server.stop().unwrap();
}

#[test]
fn a_slow_body_gets_408_and_an_oversized_one_413_at_once() {
    let limits = millbase::Limits {
        body_time: Duration::from_secs(1),
        ..Default::default()
    };
    let server = quick_server(limits);
    let addr = server.addr;
    // Half a body, then nothing.
    let mut slow = TcpStream::connect(addr).unwrap();
    slow.write_all(
        b"POST /api/v1/query?rules=three HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nstart\n",
    )
    .unwrap();
    let (raw, _) = read_until_closed(&mut slow, Duration::from_secs(5));
    assert_eq!(
        status_of(&raw),
        Some(408),
        "{}",
        String::from_utf8_lossy(&raw)
    );
    // A length over the limit: refused before any of the body is sent.
    let mut huge = TcpStream::connect(addr).unwrap();
    let t = Instant::now();
    huge.write_all(
        b"POST /api/v1/query?rules=three HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n",
    )
    .unwrap();
    let (raw, _) = read_until_closed(&mut huge, Duration::from_secs(5));
    assert_eq!(
        status_of(&raw),
        Some(413),
        "{}",
        String::from_utf8_lossy(&raw)
    );
    assert!(
        t.elapsed() < Duration::from_millis(900),
        "{:?}",
        t.elapsed()
    );
    // A malformed chunked body.
    let mut bad = TcpStream::connect(addr).unwrap();
    bad.write_all(
        b"POST /api/v1/query?rules=three HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nstart\r\n0\r\n\r\n",
    )
    .unwrap();
    let (raw, _) = read_until_closed(&mut bad, Duration::from_secs(5));
    assert_eq!(
        status_of(&raw),
        Some(400),
        "{}",
        String::from_utf8_lossy(&raw)
    );
    server.stop().unwrap();
}

#[test]
fn connections_past_the_cap_wait_and_the_file_limit_is_raised() {
    let limits = millbase::Limits {
        connections: 4,
        header_time: Duration::from_secs(30),
        ..Default::default()
    };
    let server = quick_server(limits);
    let addr = server.addr;
    let mut idle: Vec<TcpStream> = (0..4).map(|_| TcpStream::connect(addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(200));
    // A fifth client is not served while four connections are open...
    let mut fifth = TcpStream::connect(addr).unwrap();
    fifth
        .write_all(b"GET /api/v1/rules HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let (raw, _) = read_until_closed(&mut fifth, Duration::from_secs(1));
    assert!(raw.is_empty(), "served past the cap");
    // ... and is, as soon as one closes.
    idle.pop();
    let (raw, _) = read_until_closed(&mut fifth, Duration::from_secs(5));
    assert_eq!(status_of(&raw), Some(200));
    drop(idle);
    // The soft open-file limit was raised to the hard one.
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(fields[3], fields[4], "{line}");
    server.stop().unwrap();
}
