//! Rendered pages, kept while the data behind them has not changed: a page is rendered once
//! per poll (per URL, theme and zone choice) and then served from memory by every client, for
//! at most [`TTL`] (pages say how old their data is, in seconds). Pages are kept as rendered,
//! before compression (the router compresses outside this layer): every answer gets a fresh
//! script nonce, then is compressed for the client that takes it.
//!
//! Only `GET`s are kept: pages and the JSON API's reads (never `/api/health`, server functions,
//! `/metrics`, files or forms), only answers 200 of `text/html` or `application/json`, and only
//! when the backend tells a data version ([`Backend::version`]): any read or failed read
//! changes it.
//!
//! - A page kept from older reads (less than [`TTL`] ago) is answered at once while one request
//!   renders it again in the background: a fleet read every minute per instance changes the
//!   data several times a second, and a page is then one render behind its data, never waiting
//!   for it. An acknowledgement given or undone, or one more instance judged for the first
//!   time ([`Backend::kept_version`]), is never answered stale: the next request renders
//!   afresh, so whoever acknowledged sees it on the page they are sent back to, and a page
//!   from a part of the fleet at startup is not shown once all of it is judged. (A problem's
//!   episode starting or ending is a change of data like a read.)
//! - Requests for a page being rendered, with nothing kept to answer, wait for that render
//!   instead of rendering it again: when the data changes under fifty clients, the page is
//!   rendered once, not fifty times at once.
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use sundial_model::ssr::Backend;

/// How long a rendered page is served at most.
pub const TTL: Duration = Duration::from_secs(5);
/// How many pages are kept at most (the oldest go first).
pub const CAPACITY: usize = 512;
/// The largest page kept.
const MAX_BODY: usize = 8 << 20;

#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    uri: String,
    /// The cookies a page's rendering reads (theme, zone choice, the browser's zone).
    prefs: String,
    /// Who reads it, when Sundial asks for sign-in (the header names them; a viewer's page has
    /// no acknowledge forms).
    who: Option<sundial_model::Principal>,
}

struct Entry {
    /// The data's version it was rendered from ([`Backend::version`]).
    version: u64,
    /// The acknowledgements then ([`Backend::kept_version`]). A page from other
    /// acknowledgements is never answered, not even while it is rendered again.
    kept: u64,
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

/// What is kept for a page, for the data as it is now.
enum Kept {
    /// Rendered from this data: answer it.
    Fresh(Response),
    /// Rendered from older reads (what Sundial keeps unchanged), less than [`TTL`] ago: answer
    /// it while the page is rendered again.
    Stale(Response),
    /// Nothing to answer.
    Missing,
}

impl PageCache {
    /// The kept page for `key`, answered with a fresh nonce.
    fn answer(&self, key: &Key, version: u64, kept: u64) -> Kept {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let Some(e) = entries.get(key).filter(|e| e.kept == kept && e.at.elapsed() < TTL) else { return Kept::Missing };
        let (body, headers) = restamp(&e.body, &e.headers, e.nonce.as_deref());
        let mut res = Response::new(Body::from(body));
        *res.headers_mut() = headers;
        if e.version == version { Kept::Fresh(res) } else { Kept::Stale(res) }
    }

    /// Start rendering `key`, unless it is being rendered: the guard, held until it is kept.
    fn lead(&self, key: &Key) -> Result<Leading, Arc<tokio::sync::Mutex<()>>> {
        let mut rendering = self.rendering.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(other) = rendering.get(key) {
            return Err(other.clone());
        }
        let lock = Arc::new(tokio::sync::Mutex::new(()));
        let turn = lock.clone().try_lock_owned().ok(); // a new lock: always free
        rendering.insert(key.clone(), lock);
        Ok(Leading { _turn: turn, cache: self.clone(), key: key.clone() })
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

/// What is kept: pages, and the JSON API's reads (not its health check, nor the pages' server
/// functions, which are `POST`s).
fn is_kept(path: &str) -> bool {
    is_page(path) || (path.starts_with("/api/") && path != "/api/health" && !path.starts_with("/api/fn/"))
}

fn prefs(headers: &HeaderMap) -> String {
    use app::components::time::{BROWSER_TZ_COOKIE, THEME_COOKIE, ZONE_COOKIE};
    let mut out = String::new();
    for raw in headers.get_all(header::COOKIE).iter().filter_map(|v| v.to_str().ok()) {
        for c in cookie::Cookie::split_parse(raw).flatten() {
            if [THEME_COOKIE, ZONE_COOKIE, BROWSER_TZ_COOKIE].contains(&c.name()) {
                out.push_str(c.name());
                out.push('=');
                out.push_str(c.value());
                out.push(';');
            }
        }
    }
    out
}

/// The same `GET`, for rendering the page again in the background.
fn again(req: &Request) -> Request {
    let mut copy = Request::new(Body::empty());
    *copy.method_mut() = req.method().clone();
    *copy.uri_mut() = req.uri().clone();
    *copy.version_mut() = req.version();
    *copy.headers_mut() = req.headers().clone();
    *copy.extensions_mut() = req.extensions().clone();
    copy
}

/// The middleware: serve a kept page, or render and keep it.
pub async fn layer(
    State((cache, backend)): State<(PageCache, Arc<dyn Backend>)>,
    req: Request,
    next: Next,
) -> Response {
    let Some(version) = backend.version() else { return next.run(req).await };
    if req.method() != Method::GET || !is_kept(req.uri().path()) {
        return next.run(req).await;
    }
    let kept = backend.kept_version();
    let who = req.extensions().get::<sundial_model::Principal>().cloned();
    let key = Key { uri: req.uri().to_string(), prefs: prefs(req.headers()), who };
    match cache.answer(&key, version, kept) {
        Kept::Fresh(res) => return res,
        Kept::Stale(res) => {
            // New reads came in: this answer is a render behind them; the next is under way.
            if let Ok(leading) = cache.lead(&key) {
                let (cache, copy) = (cache.clone(), again(&req));
                tokio::spawn(async move {
                    let _leading = leading;
                    render(&cache, key, version, kept, copy, next).await;
                });
            }
            return res;
        }
        Kept::Missing => {}
    }
    // The first request for a page renders it; the others wait for it once, then take what it
    // kept (or, when it kept nothing, render their own).
    match cache.lead(&key) {
        Ok(leading) => {
            let _leading = leading;
            render(&cache, key, version, kept, req, next).await
        }
        Err(other) => {
            drop(other.lock().await);
            match cache.answer(&key, version, kept) {
                Kept::Fresh(res) | Kept::Stale(res) => res,
                Kept::Missing => render(&cache, key, version, kept, req, next).await,
            }
        }
    }
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
async fn render(cache: &PageCache, key: Key, version: u64, kept: u64, req: Request, next: Next) -> Response {
    let res = next.run(req).await;
    let content_type = res.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let html = content_type.starts_with("text/html");
    let json = content_type.starts_with("application/json");
    if res.status() != StatusCode::OK || !(html || json) || res.headers().contains_key(header::SET_COOKIE) {
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
        // Only a page's scripts carry a nonce.
        let nonce = if html { nonce_of(&body) } else { None };
        let mut headers = parts.headers.clone();
        headers.remove(header::CONTENT_LENGTH);
        entries.insert(key, Entry { version, kept, at: Instant::now(), headers, body: body.clone(), nonce });
    }
    Response::from_parts(parts, Body::from(body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::Router;
    use axum::response::IntoResponse;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use sundial_engine::fleet::InstanceReport;
    use sundial_model::InstanceStatus;
    use sundial_model::ssr::{BoxFuture, ReportError};
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

    /// Data whose version and kept version the test moves.
    #[derive(Default)]
    struct Moving {
        version: std::sync::atomic::AtomicU64,
        kept: std::sync::atomic::AtomicU64,
    }

    impl Backend for Moving {
        fn report(&self, _: Option<&str>, _: u32) -> BoxFuture<'_, Result<Arc<InstanceReport>, ReportError>> {
            Box::pin(async { Err(ReportError::UnknownInstance) })
        }
        fn instances(&self) -> BoxFuture<'_, Vec<InstanceStatus>> {
            Box::pin(async { Vec::new() })
        }
        fn version(&self) -> Option<u64> {
            Some(self.version.load(Ordering::SeqCst) + self.kept.load(Ordering::SeqCst))
        }
        fn kept_version(&self) -> u64 {
            self.kept.load(Ordering::SeqCst)
        }
    }

    #[tokio::test]
    async fn after_a_read_the_kept_page_is_answered_while_it_is_rendered_again_but_never_after_an_acknowledgement() {
        let calls = Arc::new(AtomicUsize::new(0));
        let cache = PageCache::default();
        let data = Arc::new(Moving::default());
        let backend: Arc<dyn Backend> = data.clone();
        let c = calls.clone();
        let handler = move || {
            let calls = c.clone();
            async move {
                axum::response::Html(format!("<p>page {}</p>", calls.fetch_add(1, Ordering::SeqCst))).into_response()
            }
        };
        let router = Router::new()
            .route("/page", axum::routing::get(handler))
            .layer(axum::middleware::from_fn_with_state((cache.clone(), backend), layer));
        let get = || async {
            let res = router.clone().oneshot(Request::get("/page").body(Body::empty()).unwrap()).await.unwrap();
            String::from_utf8(axum::body::to_bytes(res.into_body(), usize::MAX).await.unwrap().to_vec()).unwrap()
        };
        assert_eq!(get().await, "<p>page 0</p>");
        assert_eq!(get().await, "<p>page 0</p>", "kept");
        data.version.fetch_add(1, Ordering::SeqCst); // a read
        assert_eq!(get().await, "<p>page 0</p>", "answered at once, a render behind");
        let key = Key { uri: "/page".into(), prefs: String::new(), who: None };
        let mut spins = 0;
        while calls.load(Ordering::SeqCst) < 2 || cache.rendering.lock().unwrap().contains_key(&key) {
            spins += 1;
            assert!(spins < 100_000, "the page is rendered again in the background");
            tokio::task::yield_now().await;
        }
        assert_eq!(get().await, "<p>page 1</p>", "then the new render is answered");
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        data.kept.fetch_add(1, Ordering::SeqCst); // an acknowledgement
        assert_eq!(get().await, "<p>page 2</p>", "rendered before it is answered");
    }
}
