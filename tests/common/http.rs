//! A minimal blocking HTTP/1.1 client over a TCP stream, for tests and
//! benchmarks of `millbase serve`: sends exactly the bytes given (so bad
//! requests can be made) and reads one response.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// A response: status code and body bytes.
pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Response {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

/// Percent-encodes a query parameter value.
pub fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Sends a raw request (target and body as given) and reads the response.
pub fn request(addr: SocketAddr, method: &str, target: &[u8], body: &[u8]) -> Response {
    let mut s = TcpStream::connect(addr).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut req = Vec::new();
    req.extend_from_slice(method.as_bytes());
    req.push(b' ');
    req.extend_from_slice(target);
    req.extend_from_slice(
        format!(
            " HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    req.extend_from_slice(body);
    // The server may answer (413) and close before reading a large body.
    let _ = s.write_all(&req);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    parse(&raw)
}

fn parse(raw: &[u8]) -> Response {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..end]).into_owned();
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status code");
    let mut body = raw[end + 4..].to_vec();
    let chunked = head.lines().any(|l| {
        l.to_ascii_lowercase()
            .starts_with("transfer-encoding: chunked")
    });
    if chunked {
        body = dechunk(&body);
    }
    Response { status, body }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let n = usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap_or(0);
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + n]);
        b = &b[eol + 2 + n + 2..];
    }
}

/// `GET path`.
pub fn get(addr: SocketAddr, path: &str) -> Response {
    request(addr, "GET", path.as_bytes(), b"")
}

/// `POST path` with a body.
pub fn post(addr: SocketAddr, path: &str, body: &[u8]) -> Response {
    request(addr, "POST", path.as_bytes(), body)
}

/// What [`slowloris`] measured.
pub struct Slowloris {
    /// The normal requests' latencies, sorted.
    pub latencies: Vec<Duration>,
    /// The fewest idle connections still open when a request was answered.
    pub held: usize,
}

impl Slowloris {
    pub fn median(&self) -> Duration {
        self.latencies[self.latencies.len() / 2]
    }
}

/// `idle` connections that send a request line and headers one byte a
/// second for `seconds`; meanwhile four normal requests for `target` a
/// second, each of which must be answered with 200.
pub fn slowloris(addr: SocketAddr, idle: usize, seconds: u64, target: &str) -> Slowloris {
    let mut sockets: Vec<TcpStream> = (0..idle)
        .map(|_| TcpStream::connect(addr).expect("connect"))
        .collect();
    let header = b"GET /api/v1/rules HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let mut latencies = Vec::new();
    let mut held = idle;
    let start = std::time::Instant::now();
    let mut sent = 0;
    while start.elapsed() < Duration::from_secs(seconds) {
        // One more byte on every idle connection (those the server closed
        // are dropped).
        let byte = &header[sent % header.len()..sent % header.len() + 1];
        sockets.retain_mut(|s| s.write_all(byte).is_ok());
        sent += 1;
        for _ in 0..4 {
            let t = std::time::Instant::now();
            let r = get(addr, target);
            assert_eq!(r.status, 200, "{target}: {}", r.text());
            latencies.push(t.elapsed());
            held = held.min(sockets.len());
        }
        std::thread::sleep(Duration::from_millis(900));
    }
    latencies.sort();
    Slowloris { latencies, held }
}
