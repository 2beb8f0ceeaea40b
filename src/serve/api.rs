//! The API's handlers: each reads its parameters, checks them on the async
//! thread and probes on the blocking pool within the request's time.

use super::*;

#[derive(Serialize)]
struct RulesAnswer<'a> {
    version: u32,
    folders: &'a [catalog::FolderInfo],
    rule_sets: &'a [RuleSetInfo],
    boards: Vec<BoardInfo>,
}

pub(super) async fn rules_handler(State(s): State<Arc<AppState>>) -> Response {
    ok_json(&RulesAnswer {
        version: 1,
        folders: &s.catalog.folders,
        rule_sets: &s.catalog.rule_sets,
        boards: s.catalog.boards(),
    })
}

pub(super) async fn query_handler(
    State(s): State<Arc<AppState>>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let p = params(raw)?;
    // Validate cheaply on the async thread, probe on the blocking pool.
    let (tables, text) = s.tables_and_position(&p)?;
    let counter = p.get("counter").cloned();
    let practical = match p.get("practical").map(String::as_str) {
        None | Some("0") | Some("false") => false,
        Some("1") | Some("true") => true,
        Some(other) => {
            return Err(ApiError::bad(format!(
                "practical: expected 1 or 0, not `{other}`"
            )));
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
    Ok(reply(result))
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

pub(super) async fn batch_handler(
    State(s): State<Arc<AppState>>,
    RawQuery(raw): RawQuery,
    headers: axum::http::HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let p = params(raw)?;
    let tables = s.tables(&p)?;
    let limits = s.options.limits.clone();
    let bytes = read_body(&headers, body, &limits).await?;
    let Ok(text) = String::from_utf8(bytes) else {
        return Err(ApiError::bad("request body is not UTF-8"));
    };
    let lines: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    if lines.len() > limits.batch_lines {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "{} positions in one batch; at most {}",
                lines.len(),
                limits.batch_lines
            ),
        ));
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
    Ok(reply(result))
}

pub(super) async fn line_handler(
    State(s): State<Arc<AppState>>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let p = params(raw)?;
    let (tables, text) = s.tables_and_position(&p)?;
    let limit = s.options.limits.line_plies;
    let max = match p.get("max").map(|m| m.parse::<usize>()) {
        None => limit,
        Some(Ok(m)) if m <= limit => m,
        Some(_) => {
            return Err(ApiError::bad(format!(
                "max: expected a whole number from 0 to {limit}"
            )));
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
    Ok(reply(result))
}

/// `GET /api/v1/game`: a game record, probed position by position.
pub(super) async fn game_handler(
    State(s): State<Arc<AppState>>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let p = params(raw)?;
    let (tables, start) = s.tables_and_position(&p)?;
    let moves = p.get("moves").cloned().unwrap_or_default();
    if moves.len() > s.options.limits.position_bytes {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "moves longer than {} bytes",
                s.options.limits.position_bytes
            ),
        ));
    }
    let db = s.options.db.clone();
    let result = s
        .blocking(s.options.limits.request_time, move |_| {
            tables
                .game(&start, &moves)
                .map_err(|e| ApiError::query(e, &db))
        })
        .await;
    Ok(reply(result))
}

pub(super) async fn stats_handler(
    State(s): State<Arc<AppState>>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let p = params(raw)?;
    let tables = s.tables(&p)?;
    let rules = *tables.rules();
    let key = rules.canonical();
    if let Some(a) = s.cached_stats(&key) {
        return Ok(ok_json(&*a));
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
                stats_of(&db, &rules)
                    .map_err(|e| ApiError::query(QueryError::Probe(ProbeError::Table(e)), &db))?,
            );
            state
                .stats
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(key, a.clone());
            Ok(a)
        })
        .await;
    Ok(ok_json(&*result?))
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
