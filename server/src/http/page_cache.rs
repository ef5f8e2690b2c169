//! Rendered pages, kept while the data behind them has not changed: a page is rendered once
//! per poll (per URL, theme and zone choice) and then served from memory by every client, for
//! at most [`TTL`] (pages say how old their data is, in seconds). Pages are kept as rendered,
//! before compression (the router compresses outside this layer): every answer gets a fresh
//! script nonce, then is compressed for the client that takes it.
//!
//! Only `GET` pages are kept (never `/api/…`, `/metrics`, files or forms), only answers 200 of
//! `text/html`, and only when the backend tells a data version ([`Backend::version`]): any read,
//! failed read or acknowledgement changes it, and the next request renders afresh.
//!
//! Requests for a page being rendered wait for that render instead of rendering it again: when
//! the data changes under fifty clients, the page is rendered once, not fifty times at once.
use app::api::ssr::Backend;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a rendered page is served at most.
pub const TTL: Duration = Duration::from_secs(5);
/// How many pages are kept at most (the oldest go first).
pub const CAPACITY: usize = 512;
/// The largest page kept.
const MAX_BODY: usize = 8 << 20;

#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    uri: String,
    /// The cookies a page's rendering reads (theme, zone).
    prefs: String,
    /// Who reads it, when Sundial asks for sign-in (the header names them; a viewer's page has
    /// no acknowledge forms).
    who: Option<app::api::Principal>,
}

struct Entry {
    version: u64,
    at: Instant,
    headers: HeaderMap,
    body: Bytes,
    /// The page's script nonce, replaced by a fresh one in every answer: no two answers share
    /// a nonce.
    nonce: Option<String>,
}

/// The nonce leptos wrote into a page (`nonce="…"`).
fn nonce_of(body: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(body).ok()?;
    let start = text.find("nonce=\"")? + "nonce=\"".len();
    let len = text[start..].find('"')?;
    Some(text[start..start + len].to_owned()).filter(|n| n.len() >= 16)
}

/// A kept answer with its nonce (in the page and in its Content-Security-Policy) replaced by a
/// fresh random one.
fn restamp(body: &Bytes, headers: &HeaderMap, nonce: Option<&str>) -> (Bytes, HeaderMap) {
    let mut headers = headers.clone();
    let (Some(old), Ok(text)) = (nonce, std::str::from_utf8(body)) else { return (body.clone(), headers) };
    let fresh = format!("{:032x}", rand::random::<u128>());
    if let Some(csp) = headers.get(header::CONTENT_SECURITY_POLICY).and_then(|v| v.to_str().ok())
        && let Ok(v) = csp.replace(old, &fresh).parse()
    {
        headers.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    (Bytes::from(text.replace(old, &fresh)), headers)
}

/// The pages kept (see the module docs).
#[derive(Clone, Default)]
pub struct PageCache {
    entries: Arc<Mutex<HashMap<Key, Entry>>>,
    /// Pages being rendered: the renderer holds the lock until it has kept the page.
    rendering: Arc<Mutex<HashMap<Key, Arc<tokio::sync::Mutex<()>>>>>,
}

impl PageCache {
    /// The kept page for `key` at `version`, answered with a fresh nonce.
    fn answer(&self, key: &Key, version: u64) -> Option<Response> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let e = entries.get(key).filter(|e| e.version == version && e.at.elapsed() < TTL)?;
        let (body, headers) = restamp(&e.body, &e.headers, e.nonce.as_deref());
        let mut res = Response::new(Body::from(body));
        *res.headers_mut() = headers;
        Some(res)
    }
}

/// Paths that are never pages.
fn is_page(path: &str) -> bool {
    !(path.starts_with("/api/")
        || path.starts_with("/pkg/")
        || path == "/metrics"
        || path.ends_with(".csv")
        || path.ends_with(".svg")
        || path.ends_with(".png")
        || path.ends_with(".ico"))
}

fn prefs(headers: &HeaderMap) -> String {
    use app::components::time::{THEME_COOKIE, ZONE_COOKIE};
    let mut out = String::new();
    for raw in headers.get_all(header::COOKIE).iter().filter_map(|v| v.to_str().ok()) {
        for c in cookie::Cookie::split_parse(raw).flatten() {
            if c.name() == THEME_COOKIE || c.name() == ZONE_COOKIE {
                out.push_str(c.name());
                out.push('=');
                out.push_str(c.value());
                out.push(';');
            }
        }
    }
    out
}

/// The middleware: serve a kept page, or render and keep it.
pub async fn layer(
    State((cache, backend)): State<(PageCache, Arc<dyn Backend>)>,
    req: Request,
    next: Next,
) -> Response {
    let Some(version) = backend.version() else { return next.run(req).await };
    if req.method() != Method::GET || !is_page(req.uri().path()) {
        return next.run(req).await;
    }
    let who = req.extensions().get::<app::api::Principal>().cloned();
    let key = Key { uri: req.uri().to_string(), prefs: prefs(req.headers()), who };
    if let Some(res) = cache.answer(&key, version) {
        return res;
    }
    // The first request for a page renders it; the others wait for it once, then take what it
    // kept (or, when it kept nothing, render their own).
    let lock = Arc::new(tokio::sync::Mutex::new(()));
    let turn = lock.clone().try_lock_owned().ok(); // a new lock: always free
    let follow = {
        let mut rendering = cache.rendering.lock().unwrap_or_else(|e| e.into_inner());
        match rendering.get(&key) {
            Some(other) => Some(other.clone()),
            None => {
                rendering.insert(key.clone(), lock);
                None
            }
        }
    };
    if let Some(other) = follow {
        drop(other.lock().await);
        if let Some(res) = cache.answer(&key, version) {
            return res;
        }
        return render(&cache, key, version, req, next).await;
    }
    let _leading = Leading { _turn: turn, cache: cache.clone(), key: key.clone() };
    render(&cache, key, version, req, next).await
}

/// The first request rendering a page: when it is done (or dropped, the client gone), the page
/// is no longer being rendered and those waiting go on.
struct Leading {
    /// Held, never read: dropping it lets the waiting requests go on.
    _turn: Option<tokio::sync::OwnedMutexGuard<()>>,
    cache: PageCache,
    key: Key,
}

impl Drop for Leading {
    fn drop(&mut self) {
        self.cache.rendering.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.key);
    }
}

/// Render the page and keep it when it may be kept.
async fn render(cache: &PageCache, key: Key, version: u64, req: Request, next: Next) -> Response {
    let res = next.run(req).await;
    let html = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if res.status() != StatusCode::OK || !html || res.headers().contains_key(header::SET_COOKIE) {
        return res;
    }
    let (parts, body) = res.into_parts();
    // The page is answered whole either way; only pages up to MAX_BODY are kept.
    let body = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(body) => body,
        Err(e) => {
            tracing::warn!(error = %e, "a page could not be rendered to the end");
            return Response::from_parts(parts, Body::empty());
        }
    };
    if body.len() > MAX_BODY {
        return Response::from_parts(parts, Body::from(body));
    }
    {
        let mut entries = cache.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= CAPACITY {
            entries.retain(|_, e| e.version == version && e.at.elapsed() < TTL);
            if entries.len() >= CAPACITY
                && let Some(oldest) = entries.iter().min_by_key(|(_, e)| e.at).map(|(k, _)| k.clone())
            {
                entries.remove(&oldest);
            }
        }
        let nonce = nonce_of(&body);
        let mut headers = parts.headers.clone();
        headers.remove(header::CONTENT_LENGTH);
        entries.insert(key, Entry { version, at: Instant::now(), headers, body: body.clone(), nonce });
    }
    Response::from_parts(parts, Body::from(body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::api::InstanceStatus;
    use app::api::ssr::{BoxFuture, ReportError};
    use app::engine::fleet::InstanceReport;
    use axum::Router;
    use axum::response::IntoResponse;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::sync::Notify;
    use tower::ServiceExt;

    /// Data that never changes (version 1).
    struct Unchanging;

    impl Backend for Unchanging {
        fn report(&self, _: Option<&str>, _: u32) -> BoxFuture<'_, Result<Arc<InstanceReport>, ReportError>> {
            Box::pin(async { Err(ReportError::UnknownInstance) })
        }
        fn instances(&self) -> BoxFuture<'_, Vec<InstanceStatus>> {
            Box::pin(async { Vec::new() })
        }
        fn version(&self) -> Option<u64> {
            Some(1)
        }
    }

    /// Ten requests for `/page` at once, its handler (counting its calls) held until every
    /// request has arrived; what the ten got, and how many times the handler ran.
    async fn ten_at_once(status: StatusCode) -> (Vec<(StatusCode, String)>, usize) {
        let calls = Arc::new(AtomicUsize::new(0));
        let release = Arc::new(Notify::new());
        let cache = PageCache::default();
        let backend: Arc<dyn Backend> = Arc::new(Unchanging);
        let (c, r) = (calls.clone(), release.clone());
        let handler = move || {
            let (calls, release) = (c.clone(), r.clone());
            async move {
                let n = calls.fetch_add(1, Ordering::SeqCst);
                if n == 0 {
                    release.notified().await;
                }
                (status, axum::response::Html(format!("<p>page {n}</p>"))).into_response()
            }
        };
        let router = Router::new()
            .route("/page", axum::routing::get(handler))
            .layer(axum::middleware::from_fn_with_state((cache.clone(), backend), layer));
        let tasks: Vec<_> = (0..10)
            .map(|_| {
                let req = Request::get("/page").body(Body::empty()).unwrap();
                tokio::spawn(router.clone().oneshot(req))
            })
            .collect();
        // The first is rendering; the nine others hold its lock's handle (with the map's and
        // the renderer's own: eleven).
        let key = Key { uri: "/page".into(), prefs: String::new(), who: None };
        let waiting = || cache.rendering.lock().unwrap().get(&key).map(Arc::strong_count);
        let mut spins = 0;
        while !(calls.load(Ordering::SeqCst) == 1 && waiting() == Some(11)) {
            spins += 1;
            assert!(spins < 100_000, "never all waiting: {:?} handles", waiting());
            tokio::task::yield_now().await;
        }
        release.notify_one();
        let mut out = Vec::new();
        for t in tasks {
            let res = t.await.unwrap().unwrap();
            let status = res.status();
            let body = axum::body::to_bytes(res.into_body(), usize::MAX).await.unwrap();
            out.push((status, String::from_utf8(body.to_vec()).unwrap()));
        }
        assert!(waiting().is_none(), "the page is no longer being rendered");
        (out, calls.load(Ordering::SeqCst))
    }

    #[tokio::test]
    async fn a_page_asked_for_by_many_at_once_is_rendered_once() {
        let (answers, calls) = ten_at_once(StatusCode::OK).await;
        assert_eq!(calls, 1);
        assert!(answers.iter().all(|a| *a == (StatusCode::OK, "<p>page 0</p>".to_owned())), "{answers:?}");
    }

    #[tokio::test]
    async fn a_page_that_is_not_kept_is_rendered_for_each_request() {
        let (answers, calls) = ten_at_once(StatusCode::NOT_FOUND).await;
        assert_eq!(calls, 10);
        let mut bodies: Vec<&str> = answers.iter().map(|(_, b)| b.as_str()).collect();
        bodies.sort();
        assert_eq!(bodies.len(), 10);
        bodies.dedup();
        assert_eq!(bodies.len(), 10, "each its own render");
        assert!(answers.iter().all(|(s, _)| *s == StatusCode::NOT_FOUND));
    }
}
