//! Requests to the router, request by request (`router(state).oneshot(request)`).
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use leptos::config::LeptosOptions;
use server::http::AppState;
use std::sync::Arc;
use tower::ServiceExt;

/// Building a router renders the app once to list its routes (`generate_route_list`); a page
/// rendered on another thread meanwhile could wait forever (about one run in six hung before
/// this lock). A server builds its router once, before serving; tests build one per request,
/// so they take turns: building excludes rendering. One lock for the whole test binary: every
/// module that builds a router (`http`, `fleet_faults`) runs in this one process.
static BUILDING: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// The options the server runs with (`target/site`, `sundial`).
pub fn options() -> LeptosOptions {
    LeptosOptions::builder().output_name("sundial").site_root("target/site").build()
}

/// The state of a server with `backend`.
pub fn state(backend: Arc<dyn sundial_model::ssr::Backend>) -> AppState {
    AppState::new(options(), backend)
}

pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Send `req` to a router built for `state`; its answer, read to the end.
pub async fn send(state: AppState, req: Request<Body>) -> Answer {
    send_to(state, None, req).await
}

/// The same, Sundial being reached at `public_url`.
pub async fn send_to(state: AppState, public_url: Option<&str>, req: Request<Body>) -> Answer {
    let uri = req.uri().to_string();
    let router = {
        let _only_me = BUILDING.write().await;
        server::http::router_at(state, public_url.map(str::to_owned))
    };
    let _rendering = BUILDING.read().await;
    let res = tokio::time::timeout(std::time::Duration::from_secs(30), router.oneshot(req))
        .await
        .unwrap_or_else(|_| panic!("no answer to {uri} in 30 s"))
        .expect("the router answers");
    let status = res.status();
    let headers = res.headers().clone();
    let body = res.into_body().collect().await.expect("a body").to_bytes().to_vec();
    Answer { status, headers, body }
}

/// A router for `state`, built once for many requests (the fuzz harness's); send them while
/// holding [`rendering`].
pub async fn router(state: AppState) -> axum::Router {
    let _only_me = BUILDING.write().await;
    server::http::router(state)
}

/// The right to render pages: no router is built meanwhile (see [`BUILDING`]).
pub async fn rendering() -> tokio::sync::RwLockReadGuard<'static, ()> {
    BUILDING.read().await
}

/// `GET uri`: its status and text.
pub async fn get(state: &AppState, uri: &str) -> (StatusCode, String) {
    let a = send(state.clone(), Request::get(uri).body(Body::empty()).expect("a request")).await;
    (a.status, a.text())
}

/// A server over the fleet `toml` describes, read and judged as of `now` (`serve --now`), once
/// its first reads are done: for asserting a source's facts through the JSON API.
pub async fn fleet_as_of(toml: &str, now: chrono::DateTime<chrono::Utc>) -> AppState {
    // Sundial's own store in a directory of the test's own, unless the fleet names one.
    let toml = if toml.lines().any(|l| l.trim_start().starts_with("store")) {
        toml.to_owned()
    } else {
        let dir = Box::leak(Box::new(tempfile::tempdir().expect("a temporary directory")));
        format!("store = {:?}\n{toml}", dir.path().join("store.sqlite").to_string_lossy())
    };
    let fleet = server::config::parse(&toml, "fleet.toml").unwrap_or_else(|e| panic!("{e}"));
    let backend = server::fleet::FleetBackend::start_at(&fleet, Some(now)).await.expect("the fleet starts");
    for i in &fleet.instances {
        // Waits for the first read; an unreadable instance is the caller's to assert.
        let _ = sundial_model::ssr::Backend::snapshot(backend.as_ref(), &i.name).await;
    }
    state(backend)
}

/// `GET uri` of the JSON API, which must answer 200: its JSON.
pub async fn api(state: &AppState, uri: &str) -> serde_json::Value {
    let (status, body) = get(state, uri).await;
    assert_eq!(status, axum::http::StatusCode::OK, "{uri}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{uri}: not JSON ({e}): {body}"))
}

/// Page text with tags removed, for assertions on what a reader sees.
pub fn visible(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// The built-in demo fleet written for `now` into a temporary directory (kept as long as the
/// returned `TempDir`), served as `sundial serve` serves it.
pub async fn demo_fleet(now: chrono::DateTime<chrono::Utc>) -> (tempfile::TempDir, AppState) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.sqlite");
    server::demo::write_demo(&path, now, 42).await.expect("the demo fleet is written");
    let toml = std::fs::read_to_string(server::demo::fleet_file_of(&path)).unwrap();
    let state = fleet_as_of(&toml, now).await;
    (dir, state)
}
