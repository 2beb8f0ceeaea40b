//! `millbase serve` throughput and latency on 127.0.0.1: single queries
//! (`GET /api/v1/query`: a position and every move's value) from 1 and 64
//! concurrent clients, on a fresh server (cold block cache: each position
//! asked for the first time) and again (warm: the same positions); then
//! the latency of single queries while 250 idle connections send their
//! headers a byte a second. A bounded benchmark: a fixed number of
//! requests per run, then it stops.
//!
//! `MILLBASE_DB=/path/to/db cargo bench --bench serve` (default `db`),
//! `MILLBASE_RULES` (default `standard`), `MILLBASE_REQUESTS` (per run,
//! default 4000). Needs moving-phase tables of the rule set.

mod common;
#[path = "../tests/common/http.rs"]
mod http;

use common::{Rng, percentile, random_position};
use millbase::{ServeOptions, spawn};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

/// Sends every target from `clients` threads (each takes the next one) and
/// returns the requests per second and each latency in microseconds.
fn run(addr: SocketAddr, targets: &Arc<Vec<String>>, clients: usize) -> (f64, Vec<f64>) {
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let start = Instant::now();
    let handles: Vec<_> = (0..clients)
        .map(|_| {
            let (targets, next) = (targets.clone(), next.clone());
            std::thread::spawn(move || {
                let mut lat = Vec::new();
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(t) = targets.get(i) else {
                        return lat;
                    };
                    let t0 = Instant::now();
                    let r = http::get(addr, t);
                    assert_eq!(r.status, 200, "{t}: {}", r.text());
                    lat.push(t0.elapsed().as_secs_f64() * 1e6);
                }
            })
        })
        .collect();
    let lat: Vec<f64> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    (lat.len() as f64 / start.elapsed().as_secs_f64(), lat)
}

fn main() {
    let Some((db, spec, rules, subs)) = common::tables_from_env() else {
        return;
    };
    let n: usize = std::env::var("MILLBASE_REQUESTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4000);
    println!(
        "{} moving-phase tables of {} under {}",
        subs.len(),
        rules.short_name(),
        db.display()
    );
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let enc = http::enc;
    for clients in [1, 64] {
        // A fresh server and new positions for each concurrency: the first
        // pass finds no block cached.
        let server = spawn(ServeOptions::new(&db), "127.0.0.1:0".parse().unwrap()).unwrap();
        let targets: Arc<Vec<String>> = Arc::new(
            (0..n)
                .map(|_| {
                    let s = subs[(rng.next() % subs.len() as u64) as usize];
                    let p = random_position(&mut rng, &rules, s);
                    format!(
                        "/api/v1/query?rules={}&position={}",
                        enc(&spec),
                        enc(&p.board_string(&rules))
                    )
                })
                .collect(),
        );
        for pass in ["cold", "warm"] {
            let (rps, mut lat) = run(server.addr, &targets, clients);
            println!(
                "{clients:>2} clients, {pass}: {n} requests, {rps:.0} requests/s, p50 {:.0} us, p99 {:.0} us, max {:.0} us",
                percentile(&mut lat, 0.5),
                percentile(&mut lat, 0.99),
                percentile(&mut lat, 1.0)
            );
        }
        server.stop().unwrap();
    }
    // Normal requests while idle connections trickle their headers.
    let server = spawn(ServeOptions::new(&db), "127.0.0.1:0".parse().unwrap()).unwrap();
    let target = format!("/api/v1/query?rules={}&position=start", enc(&spec));
    let run = http::slowloris(server.addr, 250, 5, &target);
    println!(
        "250 idle connections: {} requests, p50 {:?}, max {:?}, {} connections held",
        run.latencies.len(),
        run.median(),
        run.latencies[run.latencies.len() - 1],
        run.held
    );
    server.stop().unwrap();
}
