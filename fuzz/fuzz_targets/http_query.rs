//! Any request to the server's router (method, path with query string,
//! body) over a folder with three men's morris built: an answer, never a
//! panic, and never a 500 (no table here is damaged).
#![no_main]
use axum::body::Body;
use axum::http::{Method, Request};
use libfuzzer_sys::fuzz_target;
use millbase::{ServeOptions, router};
use std::sync::OnceLock;
use tower::ServiceExt;

fn db() -> &'static std::path::Path {
    static DB: OnceLock<std::path::PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let db = std::env::temp_dir().join(format!("millbase-fuzz-db-{}", std::process::id()));
        let rules: millbase::Rules = "three".parse().unwrap();
        let folder = millbase::TableFolder::new(&db, &rules);
        millbase::Build::plan(&folder, &millbase::BuildOptions::default())
            .unwrap()
            .run(&millbase::NoProgress)
            .unwrap();
        db
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&m, rest)) = data.split_first() else {
        return;
    };
    let method = [Method::GET, Method::POST, Method::HEAD, Method::PUT][m as usize % 4].clone();
    let text = String::from_utf8_lossy(rest);
    let (target, body) = text.split_once('\n').unwrap_or((&text, ""));
    let Ok(request) = Request::builder()
        .method(method)
        .uri(target)
        .body(Body::from(body.to_string()))
    else {
        return;
    };
    let app = router(ServeOptions::new(db()));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let status = rt.block_on(async { app.oneshot(request).await.unwrap().status() });
    assert_ne!(status.as_u16(), 500, "{target:?}");
});
