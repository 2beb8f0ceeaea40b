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
//! async threads; one [`QueryTables`] per rule set is opened once and
//! shared.

pub mod catalog;

use crate::answer::{Answer, QueryError, QueryTables};
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
    tables: Mutex<HashMap<String, Arc<QueryTables>>>,
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
            QueryError::NotCovered(s) => ApiError::bad(s),
            QueryError::Table(t @ TableError::Missing(_)) => {
                ApiError::new(StatusCode::NOT_FOUND, format!("table not built: {t}"))
            }
            QueryError::Table(t) => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, t.to_string()),
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
    fn tables(&self, p: &HashMap<String, String>) -> Result<Arc<QueryTables>, ApiError> {
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
        let t = Arc::new(QueryTables::with_cache(
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
    ) -> Result<(Arc<QueryTables>, String), ApiError> {
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

#[derive(Serialize)]
struct RulesAnswer<'a> {
    version: u32,
    folders: &'a [catalog::FolderInfo],
    rule_sets: &'a [RuleSetInfo],
    boards: Vec<BoardInfo>,
}

async fn rules_handler(State(s): State<Arc<AppState>>) -> Response {
    ok_json(&RulesAnswer {
        version: 1,
        folders: &s.catalog.folders,
        rule_sets: &s.catalog.rule_sets,
        boards: s.catalog.boards(),
    })
}

async fn query_handler(State(s): State<Arc<AppState>>, RawQuery(raw): RawQuery) -> Response {
    let p = match params(raw) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    // Validate cheaply on the async thread, probe on the blocking pool.
    let (tables, text) = match s.tables_and_position(&p) {
        Ok(x) => x,
        Err(e) => return e.into_response(),
    };
    let counter = p.get("counter").cloned();
    let practical = match p.get("practical").map(String::as_str) {
        None | Some("0") | Some("false") => false,
        Some("1") | Some("true") => true,
        Some(other) => {
            return ApiError::bad(format!("practical: expected 1 or 0, not `{other}`"))
                .into_response();
        }
    };
    let db = s.options.db.clone();
    let result = s
        .blocking(s.options.limits.request_time, move |_| {
            let rules = *tables.rules();
            let mut a = tables
                .probe_text(&text, counter.as_deref())
                .map_err(|e| ApiError::query(e, &db))?;
            if practical {
                tables
                    .add_practical(&mut a)
                    .map_err(|e| ApiError::query(e, &db))?;
            }
            Ok(a.to_answer(&rules))
        })
        .await;
    reply(result)
}

/// Reads a request body within the limits: 413 at once when the declared
/// length is over the limit (before a byte of it is read) or as soon as
/// the bytes received pass it, 400 for a body that is not well formed
/// (a broken chunked encoding, a connection closed early), 408 when it
/// takes longer than the body time.
async fn read_body(
    headers: &axum::http::HeaderMap,
    body: Body,
    limits: &Limits,
) -> Result<Vec<u8>, ApiError> {
    use http_body_util::BodyExt;
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("request body over {} bytes", limits.body_bytes),
        )
    };
    if let Some(len) = headers.get(header::CONTENT_LENGTH) {
        match len.to_str().ok().and_then(|l| l.parse::<u64>().ok()) {
            Some(n) if n > limits.body_bytes as u64 => return Err(too_large()),
            Some(_) => {}
            None => return Err(ApiError::bad("Content-Length is not a number")),
        }
    }
    let read = async {
        let mut body = body;
        let mut out = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame =
                frame.map_err(|e| ApiError::bad(format!("the request body is malformed: {e}")))?;
            if let Ok(data) = frame.into_data() {
                if out.len() + data.len() > limits.body_bytes {
                    return Err(too_large());
                }
                out.extend_from_slice(&data);
            }
        }
        Ok(out)
    };
    match tokio::time::timeout(limits.body_time, read).await {
        Ok(r) => r,
        Err(_) => Err(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body took longer than {} s to arrive",
                limits.body_time.as_secs_f64()
            ),
        )),
    }
}

/// One line's answer in a batch: the answer, or the error for that line.
#[derive(Serialize)]
#[serde(untagged)]
enum BatchItem {
    Answer(Box<Answer>),
    Error { input: String, error: String },
}

async fn batch_handler(
    State(s): State<Arc<AppState>>,
    RawQuery(raw): RawQuery,
    headers: axum::http::HeaderMap,
    body: Body,
) -> Response {
    let p = match params(raw) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let tables = match s.tables(&p) {
        Ok(t) => t,
        Err(e) => return e.into_response(),
    };
    let limits = s.options.limits.clone();
    let bytes = match read_body(&headers, body, &limits).await {
        Ok(b) => b,
        Err(e) => return e.into_response(),
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return ApiError::bad("request body is not UTF-8").into_response();
    };
    let lines: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    if lines.len() > limits.batch_lines {
        return ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "{} positions in one batch; at most {}",
                lines.len(),
                limits.batch_lines
            ),
        )
        .into_response();
    }
    let db = s.options.db.clone();
    let result = s
        .blocking(limits.request_time, move |deadline| {
            let rules = *tables.rules();
            let out: Vec<BatchItem> = lines
                .par_iter()
                .map(|line| {
                    let r = if Instant::now() > deadline {
                        // The answer is dropped anyway: stop probing.
                        Err("not probed: the batch took longer than its time limit".into())
                    } else if line.len() > limits.position_bytes {
                        Err(format!(
                            "position longer than {} bytes",
                            limits.position_bytes
                        ))
                    } else {
                        tables
                            .probe_text(line, None)
                            .map_err(|e| ApiError::query(e, &db).message)
                    };
                    match r {
                        Ok(a) => BatchItem::Answer(Box::new(a.to_answer(&rules))),
                        Err(error) => BatchItem::Error {
                            input: line.clone(),
                            error,
                        },
                    }
                })
                .collect();
            Ok(out)
        })
        .await;
    reply(result)
}

async fn line_handler(State(s): State<Arc<AppState>>, RawQuery(raw): RawQuery) -> Response {
    let p = match params(raw) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let (tables, text) = match s.tables_and_position(&p) {
        Ok(x) => x,
        Err(e) => return e.into_response(),
    };
    let limit = s.options.limits.line_plies;
    let max = match p.get("max").map(|m| m.parse::<usize>()) {
        None => limit,
        Some(Ok(m)) if m <= limit => m,
        Some(_) => {
            return ApiError::bad(format!("max: expected a whole number from 0 to {limit}"))
                .into_response();
        }
    };
    let counter = p.get("counter").cloned();
    let db = s.options.db.clone();
    let result = s
        .blocking(s.options.limits.request_time, move |_| {
            let rules = *tables.rules();
            let first = tables
                .probe_text(&text, counter.as_deref())
                .map_err(|e| ApiError::query(e, &db))?;
            let line = tables
                .best_line(&first, max)
                .map_err(|e| ApiError::query(e, &db))?;
            Ok(line
                .iter()
                .map(|p| p.to_answer(&rules))
                .collect::<Vec<Answer>>())
        })
        .await;
    reply(result)
}

/// `GET /api/v1/game`: a game record, probed position by position.
async fn game_handler(State(s): State<Arc<AppState>>, RawQuery(raw): RawQuery) -> Response {
    let p = match params(raw) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let (tables, start) = match s.tables_and_position(&p) {
        Ok(x) => x,
        Err(e) => return e.into_response(),
    };
    let moves = p.get("moves").cloned().unwrap_or_default();
    if moves.len() > s.options.limits.position_bytes {
        return ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "moves longer than {} bytes",
                s.options.limits.position_bytes
            ),
        )
        .into_response();
    }
    let db = s.options.db.clone();
    let result = s
        .blocking(s.options.limits.request_time, move |_| {
            tables
                .game(&start, &moves)
                .map_err(|e| ApiError::query(e, &db))
        })
        .await;
    reply(result)
}

async fn stats_handler(State(s): State<Arc<AppState>>, RawQuery(raw): RawQuery) -> Response {
    let p = match params(raw) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let tables = match s.tables(&p) {
        Ok(t) => t,
        Err(e) => return e.into_response(),
    };
    let rules = *tables.rules();
    let key = rules.canonical();
    if let Some(a) = s.cached_stats(&key) {
        return ok_json(&*a);
    }
    let (db, state) = (s.options.db.clone(), s.clone());
    // Kept by the blocking job itself: one that outlives its request's
    // time limit still serves the next request.
    let result = s
        .blocking(s.options.limits.stats_time, move |_| {
            let _one_at_a_time = state
                .stats_running
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            // A request that waited may find its answer made meanwhile.
            if let Some(a) = state.cached_stats(&key) {
                return Ok(a);
            }
            let a = Arc::new(
                stats_of(&db, &rules).map_err(|e| ApiError::query(QueryError::Table(e), &db))?,
            );
            state
                .stats
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(key, a.clone());
            Ok(a)
        })
        .await;
    match result {
        Ok(a) => ok_json(&*a),
        Err(e) => e.into_response(),
    }
}

/// Statistics of every table of a rule set present under `db`.
pub fn stats_of(db: &Path, rules: &Rules) -> Result<StatsAnswer, TableError> {
    let folder = TableFolder::new(db, rules);
    let mut subs: Vec<(&'static str, crate::index::Subspace)> =
        crate::index::moving_subspaces(rules)
            .into_iter()
            .map(|s| ("moving", s))
            .collect();
    subs.extend(
        crate::index::placing_subspaces(rules)
            .into_iter()
            .map(|s| ("placing", s)),
    );
    subs.retain(|&(_, s)| folder.exists(s));
    let subspaces = subs
        .par_iter()
        .map(|&(phase, s)| {
            let (stats, plies) = SubspaceStats::with_plies(&folder.load(s)?);
            Ok(StatsRow {
                phase,
                stats,
                plies,
            })
        })
        .collect::<Result<Vec<_>, TableError>>()?;
    Ok(StatsAnswer {
        rules: rules.short_name(),
        subspaces,
    })
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
