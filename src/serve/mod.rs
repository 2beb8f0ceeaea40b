//! `millbase serve`: an HTTP API over the tables and a web board.
//!
//! Routes (every API answer is JSON; an error is `{"error": "..."}`):
//!
//! - `GET /api/v1/rules`: the rule sets found under the table folder, their
//!   boards and which phases are built ([`Catalog`]);
//! - `GET /api/v1/query?rules=R&position=P[&counter=C]`: the object of
//!   `query --json` ([`Answer`]);
//! - `POST /api/v1/query?rules=R`: one position per line in the body, a
//!   JSON array of answers (or `{"input", "error"}` objects) in order;
//! - `GET /api/v1/line?rules=R&position=P[&max=N]`: the best line from a
//!   position, one answer per position;
//! - `GET /api/v1/game?rules=R[&position=P]&moves=M`: a game record from
//!   a position (default the start), one answer per position reached;
//! - `GET /api/v1/stats?rules=R`: per table, wins, draws, losses and the
//!   wins and losses by plies;
//! - `GET /`, `/stats`, `/assets/...` and `/favicon.ico`: the web board,
//!   the statistics page and their files, embedded in the binary.
//!
//! Status codes: 400 a bad rule set, position, counter or body; 404 a rule
//! set without tables here, a table not built, an unknown path; 413 a body,
//! batch or position over its limit; 500 a damaged table; 503 a request
//! over its time limit. Probes run on the blocking pool, never on the
//! async threads; one [`TableSet`] per rule set is opened once and
//! shared.

mod api;
pub mod catalog;

use api::{batch_handler, game_handler, line_handler, query_handler, rules_handler, stats_handler};

use crate::answer::{Answer, QueryError};
use crate::query::{ProbeError, TableSet};
use crate::rules::Rules;
use crate::table::{PliesCounts, SubspaceStats, TableError, TableFolder};
use axum::Router;
use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
pub use catalog::{BoardInfo, Catalog, RuleSetInfo};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Bounds on what one request may ask.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Bytes of a request body.
    pub body_bytes: usize,
    /// Positions in one batch.
    pub batch_lines: usize,
    /// Bytes of one position's text.
    pub position_bytes: usize,
    /// Plies of a best line.
    pub line_plies: usize,
    /// Time for one query or batch.
    pub request_time: Duration,
    /// Time for the statistics of a rule set (every table is read once).
    pub stats_time: Duration,
    /// Time for a request's head, from the first byte of a request (or the
    /// end of the previous answer on a kept-alive connection) to its last
    /// header: a connection that sends no whole head in time is closed, so
    /// it is also how long an idle connection is kept.
    pub header_time: Duration,
    /// Time for a request's body once its head is in: 408 past it.
    pub body_time: Duration,
    /// Connections open at once, at most; past it new ones wait in the
    /// listen queue until one closes. The server lowers it to half its
    /// file-descriptor limit (raised to the hard limit where allowed), so
    /// that tables can still be opened.
    pub connections: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            body_bytes: 256 * 1024,
            batch_lines: 1000,
            position_bytes: 1024,
            line_plies: 400,
            request_time: Duration::from_secs(10),
            stats_time: Duration::from_secs(300),
            header_time: Duration::from_secs(10),
            body_time: Duration::from_secs(30),
            connections: 1024,
        }
    }
}

/// How to serve.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The table folder.
    pub db: PathBuf,
    /// `Access-Control-Allow-Origin` for the API; `None`: no CORS headers.
    pub cors: Option<String>,
    /// Request limits.
    pub limits: Limits,
    /// Decompressed blocks each rule set's tables keep in their cache.
    pub cache_blocks: usize,
}

impl ServeOptions {
    /// Default limits, no CORS.
    pub fn new(db: &Path) -> ServeOptions {
        ServeOptions {
            db: db.to_path_buf(),
            cors: None,
            limits: Limits::default(),
            cache_blocks: crate::query::DEFAULT_CACHE_BLOCKS,
        }
    }
}

/// A rule set's statistics as `/api/v1/stats` gives them.
#[derive(Clone, Debug, Serialize)]
pub struct StatsAnswer {
    /// Short name of the rule set.
    pub rules: String,
    /// One row per table present, moving phase first.
    pub subspaces: Vec<StatsRow>,
}

/// One table's row of a [`StatsAnswer`].
#[derive(Clone, Debug, Serialize)]
pub struct StatsRow {
    /// `moving` or `placing`.
    pub phase: &'static str,
    /// Counts.
    #[serde(flatten)]
    pub stats: SubspaceStats,
    /// Wins and losses by plies.
    pub plies: PliesCounts,
}

struct AppState {
    options: ServeOptions,
    catalog: Catalog,
    tables: Mutex<HashMap<String, Arc<TableSet>>>,
    stats: Mutex<HashMap<String, Arc<StatsAnswer>>>,
    /// Held while statistics are computed: one computation at a time, so
    /// that requests for several rule sets cannot pile up table decodes.
    stats_running: Mutex<()>,
    /// Permits for jobs on the blocking pool; a job keeps its permit until
    /// it ends, even past its request's time limit, so that slow requests
    /// cannot pile up threads.
    jobs: Arc<tokio::sync::Semaphore>,
}

/// Blocking jobs at once, per core.
const JOBS_PER_CORE: usize = 4;

/// Rule sets whose tables (each with its own block cache) are kept open at
/// once; past it one is closed (requests holding it keep it until done).
const OPEN_RULE_SETS: usize = 16;

/// A JSON error with its status.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }
    fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }
    /// The error of a query, with the table folder's path left out: a
    /// client names tables by rule set, and the server's file system is
    /// none of its business.
    fn query(e: QueryError, db: &Path) -> ApiError {
        let mut a = ApiError::query_with_path(e);
        let db = db.display().to_string();
        if !db.is_empty() {
            a.message = a
                .message
                .replace(&format!("{db}/"), "")
                .replace(&db, "the table folder");
        }
        a
    }

    fn query_with_path(e: QueryError) -> ApiError {
        match e {
            QueryError::Input(e) => ApiError::bad(e.to_string()),
            QueryError::Probe(ProbeError::Table(t @ TableError::Missing(_))) => {
                ApiError::new(StatusCode::NOT_FOUND, format!("table not built: {t}"))
            }
            QueryError::Probe(ProbeError::Table(t)) => {
                ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, t.to_string())
            }
            QueryError::Probe(e) => ApiError::bad(e.to_string()),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        json_response(
            self.status,
            &serde_json::json!({ "error": self.message }).to_string(),
        )
    }
}

fn json_response(status: StatusCode, body: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn reply<T: Serialize>(result: Result<T, ApiError>) -> Response {
    match result {
        Ok(v) => ok_json(&v),
        Err(e) => e.into_response(),
    }
}

fn ok_json<T: Serialize>(value: &T) -> Response {
    json_response(
        StatusCode::OK,
        &serde_json::to_string(value).expect("serialisable"),
    )
}

/// The router of the server (for embedding in another axum app).
pub fn router(options: ServeOptions) -> Router {
    let catalog = Catalog::scan(&options.db);
    router_with(options, catalog)
}

/// The router over a catalog already scanned.
fn router_with(options: ServeOptions, catalog: Catalog) -> Router {
    let cors = options.cors.clone();
    let state = Arc::new(AppState {
        options,
        catalog,
        tables: Mutex::new(HashMap::new()),
        stats: Mutex::new(HashMap::new()),
        stats_running: Mutex::new(()),
        jobs: Arc::new(tokio::sync::Semaphore::new(
            JOBS_PER_CORE * std::thread::available_parallelism().map_or(1, |n| n.get()),
        )),
    });
    let api = Router::new()
        .route("/api/v1/rules", get(rules_handler))
        .route("/api/v1/query", get(query_handler).post(batch_handler))
        .route("/api/v1/line", get(line_handler))
        .route("/api/v1/game", get(game_handler))
        .route("/api/v1/stats", get(stats_handler))
        .with_state(state.clone());
    let api = match cors {
        Some(origin) => {
            let value = HeaderValue::from_str(&origin).unwrap_or(HeaderValue::from_static("null"));
            api.layer(axum::middleware::map_response(move |mut r: Response| {
                let value = value.clone();
                async move {
                    r.headers_mut()
                        .insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
                    r
                }
            }))
        }
        None => api,
    };
    Router::new()
        .route("/", get(|| async { asset("index.html") }))
        .route("/stats", get(|| async { asset("stats.html") }))
        .route("/assets/{name}", get(asset_handler))
        .route("/favicon.ico", get(|| async { asset("favicon.svg") }))
        .merge(api)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
}

/// The files of the web pages, embedded.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("assets/index.html"),
    ),
    (
        "stats.html",
        "text/html; charset=utf-8",
        include_str!("assets/stats.html"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/app.js"),
    ),
    (
        "stats.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/stats.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("assets/style.css"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_str!("assets/favicon.svg"),
    ),
];

fn asset(name: &str) -> Response {
    // Only the names in the list exist: a path never reaches the file
    // system, so `..` has nothing to climb.
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some((_, kind, body)) => (
            [
                (header::CONTENT_TYPE, *kind),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            *body,
        )
            .into_response(),
        None => page_not_found_response(),
    }
}

async fn asset_handler(axum::extract::Path(name): axum::extract::Path<String>) -> Response {
    if name.ends_with(".html") {
        return page_not_found_response();
    }
    asset(&name)
}

fn page_not_found_response() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "not found\n",
    )
        .into_response()
}

async fn method_not_allowed(method: axum::http::Method, uri: Uri) -> Response {
    let message = format!("method {method} not allowed on {}", uri.path());
    if uri.path().starts_with("/api/") {
        return ApiError::new(StatusCode::METHOD_NOT_ALLOWED, message).into_response();
    }
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message + "\n",
    )
        .into_response()
}

async fn not_found(uri: Uri) -> Response {
    if uri.path() != "/api" && !uri.path().starts_with("/api/") {
        return page_not_found_response();
    }
    ApiError::new(
        StatusCode::NOT_FOUND,
        format!(
            "no API route {} (known: /api/v1/rules, /api/v1/query, /api/v1/line, /api/v1/game, /api/v1/stats)",
            uri.path()
        ),
    )
    .into_response()
}

/// The parameters of a query string, percent-decoded (invalid UTF-8
/// becomes U+FFFD, which no position or rule set contains).
fn params(raw: Option<String>) -> Result<HashMap<String, String>, ApiError> {
    let mut out = HashMap::new();
    for (k, v) in form_urlencoded::parse(raw.unwrap_or_default().as_bytes()).into_owned() {
        if out.contains_key(&k) {
            return Err(ApiError::bad(format!(
                "parameter `{k}` given twice: give each parameter once"
            )));
        }
        out.insert(k, v);
    }
    Ok(out)
}

impl AppState {
    /// The statistics of rule set `key` (canonical text), if made.
    fn cached_stats(&self, key: &str) -> Option<Arc<StatsAnswer>> {
        self.stats
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned()
    }

    /// The rule set named by `rules=` (default `standard`) and its shared
    /// tables, opened on first use.
    fn tables(&self, p: &HashMap<String, String>) -> Result<Arc<TableSet>, ApiError> {
        let spec = p.get("rules").map(String::as_str).unwrap_or("standard");
        if spec.len() > 256 {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "rule set text longer than 256 bytes",
            ));
        }
        let rules: Rules = spec.parse().map_err(|e| ApiError::bad(format!("{e}")))?;
        let key = rules.canonical();
        if let Some(t) = self
            .tables
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return Ok(t.clone());
        }
        let folder = TableFolder::new(&self.options.db, &rules);
        if !folder.moving_dir().is_dir() {
            return Err(ApiError::new(
                StatusCode::NOT_FOUND,
                format!(
                    "no tables of rule set {} here (build them with `millbase build --rules {}`)",
                    rules.short_name(),
                    rules.short_name()
                ),
            ));
        }
        let t = Arc::new(TableSet::with_cache(
            &self.options.db,
            &rules,
            self.options.cache_blocks,
        ));
        let mut open = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        if open.len() >= OPEN_RULE_SETS
            && let Some(k) = open.keys().next().cloned()
        {
            open.remove(&k);
        }
        open.insert(key, t.clone());
        Ok(t)
    }

    /// The rule set's tables and the position text of a query.
    fn tables_and_position(
        &self,
        p: &HashMap<String, String>,
    ) -> Result<(Arc<TableSet>, String), ApiError> {
        Ok((self.tables(p)?, self.position(p)?.to_string()))
    }

    fn position<'a>(&self, p: &'a HashMap<String, String>) -> Result<&'a str, ApiError> {
        let text = p.get("position").map(String::as_str).unwrap_or("start");
        if text.len() > self.options.limits.position_bytes {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "position longer than {} bytes",
                    self.options.limits.position_bytes
                ),
            ));
        }
        Ok(text)
    }
}

/// Runs `f` on the blocking pool within `limit`.
impl AppState {
    /// Runs `f` on the blocking pool once a job permit is free, answering
    /// 503 if that and the job take longer than `limit`; `f` is given the
    /// deadline, for work that can stop early.
    async fn blocking<T: Send + 'static>(
        &self,
        limit: Duration,
        f: impl FnOnce(Instant) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        // A limit set beyond any clock (by a library caller) never ends.
        let now = Instant::now();
        let deadline = now
            .checked_add(limit)
            .unwrap_or(now + Duration::from_secs(1 << 32));
        let jobs = self.jobs.clone();
        let run = async move {
            let permit = jobs
                .acquire_owned()
                .await
                .expect("the job semaphore is never closed");
            tokio::task::spawn_blocking(move || {
                let _permit = permit;
                f(deadline)
            })
            .await
        };
        match tokio::time::timeout(limit, run).await {
            Err(_) => Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("the request took longer than {} s", limit.as_secs_f64()),
            )),
            Ok(Err(e)) => Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("internal error: {e}"),
            )),
            Ok(Ok(r)) => r,
        }
    }
}

/// A server running on its own threads (for tests, benchmarks and
/// programs that are not async).
pub struct RunningServer {
    /// The address it listens on.
    pub addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl RunningServer {
    /// Stops the server and waits for it.
    pub fn stop(mut self) -> std::io::Result<()> {
        self.finish()
    }

    fn finish(&mut self) -> std::io::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        match self.thread.take() {
            Some(t) => t
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("server thread panicked"))),
            None => Ok(()),
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// Serves an already bound listener on a new multi-threaded runtime (made
/// on the calling thread, so this works beside another runtime too) until
/// `shutdown` resolves.
///
/// Each connection is served by hyper's HTTP/1 server with the head time
/// limit (which also closes idle kept-alive connections) and half-closed
/// connections answered; at most [`Limits::connections`] are open at once.
fn run(
    listener: std::net::TcpListener,
    router: Router,
    limits: &Limits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    listener.set_nonblocking(true)?;
    let connections = connection_cap(limits.connections);
    let header_time = limits.header_time;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let permits = Arc::new(tokio::sync::Semaphore::new(connections));
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(header_time)
            .half_close(true);
        tokio::pin!(shutdown);
        loop {
            // A connection slot first: past the cap, clients wait in the
            // listen queue rather than being accepted and starved.
            let permit = tokio::select! {
                p = permits.clone().acquire_owned() => p.expect("never closed"),
                _ = &mut shutdown => break,
            };
            let stream = tokio::select! {
                r = listener.accept() => match r {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        // Out of file descriptors or memory: wait, don't spin.
                        if !matches!(
                            e.kind(),
                            std::io::ErrorKind::ConnectionAborted
                                | std::io::ErrorKind::ConnectionReset
                                | std::io::ErrorKind::Interrupted
                        ) {
                            tokio::time::sleep(Duration::from_millis(50)).await;
                        }
                        continue;
                    }
                },
                _ = &mut shutdown => break,
            };
            let _ = stream.set_nodelay(true);
            let service = hyper_util::service::TowerToHyperService::new(router.clone());
            let conn = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
            tokio::spawn(async move {
                let _ = conn.await;
                drop(permit);
            });
        }
        // Idle connections close now; busy ones get a moment to answer.
        tokio::select! {
            _ = graceful.shutdown() => {}
            _ = tokio::time::sleep(Duration::from_secs(5)) => {}
        }
        Ok(())
    })
}

/// The connection cap: `wanted`, but at most half the open-file limit
/// (raised first to its hard limit where allowed), keeping the other half
/// for tables and the rest of the process.
fn connection_cap(wanted: usize) -> usize {
    let files = crate::table::raise_open_file_limit();
    let half = usize::try_from(files / 2).unwrap_or(usize::MAX);
    wanted.min(half).max(1)
}

/// Binds `addr` (port 0: any free port) and serves on a thread of its own
/// with a multi-threaded runtime until [`RunningServer::stop`].
pub fn spawn(options: ServeOptions, addr: SocketAddr) -> std::io::Result<RunningServer> {
    // Bound here, so the caller learns the port (and any error) at once.
    let listener = std::net::TcpListener::bind(addr)?;
    let addr = listener.local_addr()?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let limits = options.limits.clone();
        run(listener, router(options), &limits, async {
            let _ = rx.await;
        })
    });
    Ok(RunningServer {
        addr,
        shutdown: Some(tx),
        thread: Some(thread),
    })
}

/// Serves until Ctrl-C (the `serve` command); `ready` is told the address
/// and what was found before the first request.
pub fn serve_until_interrupted(
    options: ServeOptions,
    addr: SocketAddr,
    ready: impl FnOnce(SocketAddr, &Catalog),
) -> std::io::Result<()> {
    let listener = std::net::TcpListener::bind(addr)?;
    let catalog = Catalog::scan(&options.db);
    ready(listener.local_addr()?, &catalog);
    let limits = options.limits.clone();
    run(listener, router_with(options, catalog), &limits, async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
