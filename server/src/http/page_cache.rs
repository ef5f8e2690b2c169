//! Rendered pages, kept while the data behind them has not changed: a page is rendered once
//! per poll (per URL, theme and zone choice, and encoding) and then served from memory by every
//! client, for at most [`TTL`] (pages say how old their data is, in seconds).
//!
//! Only `GET` pages are kept (never `/api/…`, `/metrics`, files or forms), only answers 200 of
//! `text/html`, and only when the backend tells a data version ([`Backend::version`]): any read,
//! failed read or acknowledgement changes it, and the next request renders afresh.
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
    /// The cookies a page's rendering reads (theme, zone) and the encoding asked for.
    prefs: String,
    encoding: String,
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

/// `body` with `nonce` replaced by a fresh random one.
fn restamp(body: &Bytes, nonce: Option<&str>) -> Bytes {
    let (Some(old), Ok(text)) = (nonce, std::str::from_utf8(body)) else { return body.clone() };
    let fresh = format!("{:032x}", rand::random::<u128>());
    Bytes::from(text.replace(old, &fresh))
}

/// The pages kept (see the module docs).
#[derive(Clone, Default)]
pub struct PageCache {
    entries: Arc<Mutex<HashMap<Key, Entry>>>,
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
    let key = Key {
        uri: req.uri().to_string(),
        prefs: prefs(req.headers()),
        encoding: req.headers().get(header::ACCEPT_ENCODING).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned(),
    };
    {
        let entries = cache.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = entries.get(&key).filter(|e| e.version == version && e.at.elapsed() < TTL) {
            let mut res = Response::new(Body::from(restamp(&e.body, e.nonce.as_deref())));
            *res.headers_mut() = e.headers.clone();
            return res;
        }
    }
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
