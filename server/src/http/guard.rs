//! What every answer is guarded by, whoever asks: the one check of a redirect's target, the
//! `Host` allowlist that stops DNS rebinding when nobody signs in, the scheme a posting `Origin`
//! must have ([`Origins`]), and the default
//! Content-Security-Policy of answers that are not pages.
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::IpAddr;
use std::sync::Arc;

/// `target` when it is a path on this site to send a browser to (`Location`, a meta refresh, a
/// link): it starts with one `/` (never `//`, which names another host), holds no `\` (browsers
/// read it as `/`) and no control character (browsers drop a TAB or a newline, so
/// `/\t/evil.example` would become `//evil.example`). Every redirect goes through this check.
pub fn same_site_path(target: &str) -> Option<&str> {
    let rest = target.strip_prefix('/')?;
    let bad = |c: char| c == '\\' || c.is_control() || crate::logging::is_invisible(c);
    if rest.starts_with('/') || target.chars().any(bad) {
        return None;
    }
    Some(target)
}

/// A path on this site to go back to (see [`same_site_path`]), else `/`; as ASCII, ready for a
/// `Location` header: bytes outside printable ASCII (a job name's `é`), spaces and quotes
/// percent-encoded.
pub fn back_path(back: Option<&str>) -> String {
    let path = back.and_then(same_site_path).unwrap_or("/");
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_graphic() && !matches!(b, b'"' | b'<' | b'>' | b'`') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The policy of every answer that does not set its own (pages set theirs, with a nonce): no
/// script, no plugin, no framing, nothing loaded but from Sundial.
pub const DEFAULT_CSP: &str =
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The host names Sundial answers to when nobody signs in (it then listens on loopback only):
/// loopback names and addresses, and `public_url`'s host. A page of another site whose name
/// an attacker points at 127.0.0.1 (DNS rebinding) sends its own name as `Host`, and is refused.
#[derive(Clone, Debug, Default)]
pub struct Hosts {
    /// `public_url`'s host, lowercased.
    public: Option<String>,
}

impl Hosts {
    /// Loopback, and the host of `public_url`.
    pub fn new(public_url: Option<&str>) -> Hosts {
        let public = public_url
            .and_then(|u| reqwest::Url::parse(u).ok())
            .and_then(|u| u.host_str().map(str::to_ascii_lowercase));
        Hosts { public }
    }

    /// Whether `host` (a `Host` header: a name or an address, with or without a port) is one
    /// Sundial answers to.
    pub fn allows(&self, host: &str) -> bool {
        let name = host_name(host).to_ascii_lowercase();
        let name = name.trim_end_matches('.');
        if name == "localhost" || name.ends_with(".localhost") {
            return true;
        }
        if let Ok(ip) = name.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>() {
            return ip.is_loopback()
                || self.public.as_deref().is_some_and(|p| p.trim_matches(['[', ']']) == ip.to_string());
        }
        self.public.as_deref() == Some(name)
    }
}

/// The name part of a `Host` value: `[::1]:3000` → `[::1]`, `a.b:80` → `a.b`.
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host.find(']').map_or(host, |end| &host[..=end]);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// The middleware (only when nobody signs in): a request naming another host is answered 421,
/// without its name. A request without `Host` (HTTP/1.0, tests) comes from no browser page.
pub async fn hosts(State(hosts): State<Arc<Hosts>>, req: Request, next: Next) -> Response {
    let host = req.uri().authority().map(|a| a.as_str().to_owned()).or_else(|| {
        req.headers().get(header::HOST).map(|h| h.to_str().map(str::to_owned).unwrap_or_else(|_| "\u{FFFD}".into()))
    });
    match host {
        Some(h) if !hosts.allows(&h) => {
            let mut res = (
                StatusCode::MISDIRECTED_REQUEST,
                "Sundial answers only to localhost, a loopback address or its public_url: this request named \
                 another host (set public_url in the fleet file to reach Sundial by that name).\n",
            )
                .into_response();
            res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            res
        }
        _ => next.run(req).await,
    }
}

/// The scheme half of the cross-site check. tower-http's CSRF layer compares an `Origin`'s host
/// and port with `Host` but not its scheme, so `https://127.0.0.1:3000` passed for Sundial
/// serving `http://127.0.0.1:3000`. Sundial serves plain HTTP itself (TLS is a proxy's, reached
/// at `public_url`): a state-changing request's `Origin` is either `public_url`'s origin
/// (scheme, host and port) or an `http://` one (whose host and port the CSRF layer checks). A
/// browser that sends `Sec-Fetch-Site` vouches for the whole origin itself, and the CSRF layer
/// reads that.
#[derive(Clone, Debug, Default)]
pub struct Origins {
    /// `public_url`'s origin, as `scheme://host[:port]` (the default port left out).
    public: Option<String>,
}

impl Origins {
    pub fn new(public_url: Option<&str>) -> Origins {
        let public = public_url
            .and_then(|u| reqwest::Url::parse(u).ok())
            .map(|u| u.origin().ascii_serialization())
            .filter(|o| o != "null");
        Origins { public }
    }

    /// Whether an `Origin` value may post here (before the CSRF layer's host check).
    pub fn allows(&self, origin: &str) -> bool {
        let Ok(url) = reqwest::Url::parse(origin) else { return false };
        let serialized = url.origin().ascii_serialization();
        self.public.as_deref() == Some(serialized.as_str()) || url.scheme() == "http"
    }
}

/// The middleware: a state-changing request without `Sec-Fetch-Site` whose `Origin` is not one
/// of Sundial's schemes ([`Origins`]) is refused (403), as the CSRF layer refuses another host.
pub async fn origin_scheme(State(origins): State<Arc<Origins>>, req: Request, next: Next) -> Response {
    let safe =
        matches!(*req.method(), axum::http::Method::GET | axum::http::Method::HEAD | axum::http::Method::OPTIONS);
    let vouched = req.headers().contains_key("sec-fetch-site");
    let origin = req.headers().get(header::ORIGIN).map(|o| o.to_str().unwrap_or("\u{FFFD}").to_owned());
    match origin {
        Some(o) if !safe && !vouched && !origins.allows(&o) => {
            let mut res = (
                StatusCode::FORBIDDEN,
                "Sundial refused this request: it came from another origin (its scheme, host or port differ from \
                 Sundial's own).\n",
            )
                .into_response();
            res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            res
        }
        _ => next.run(req).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_posts_here_only_in_sundials_own_scheme() {
        let plain = Origins::new(None);
        assert!(plain.allows("http://127.0.0.1:3000"));
        for bad in ["https://127.0.0.1:3000", "ftp://127.0.0.1", "null", "", "garbage"] {
            assert!(!plain.allows(bad), "{bad}");
        }
        let behind = Origins::new(Some("https://sundial.corp/"));
        assert!(behind.allows("https://sundial.corp"));
        assert!(behind.allows("https://sundial.corp:443"), "the default port, said or not");
        assert!(!behind.allows("https://sundial.corp:8443"));
        assert!(!behind.allows("https://evil.example"));
        assert!(behind.allows("http://sundial.corp"), "plain HTTP: the CSRF layer compares its host");
    }

    #[test]
    fn a_redirect_goes_to_a_path_of_this_site_only() {
        for ok in ["/", "/triage", "/jobs/7?instance=SQLPROD01&days=7", "/log?q=%2F%2Fx", "/a//b"] {
            assert_eq!(same_site_path(ok), Some(ok), "{ok}");
        }
        for bad in [
            "",
            "triage",
            "//evil.example",
            "///evil.example",
            "/\\evil.example",
            "\\\\evil.example",
            "/\t/evil.example",
            "/\n/evil.example",
            "/\r\n/evil.example",
            "/a\u{0}",
            "/\u{202E}elpmaxe.live",
            "http://evil.example",
            "https:evil.example",
            "javascript:alert(1)",
        ] {
            assert_eq!(same_site_path(bad), None, "{bad:?}");
        }
        assert_eq!(back_path(Some("//evil.example")), "/");
        assert_eq!(back_path(None), "/");
        assert_eq!(back_path(Some("/jobs/Sauvegarde nocturne é")), "/jobs/Sauvegarde%20nocturne%20%C3%A9");
        assert!(axum::http::HeaderValue::from_str(&back_path(Some("/\u{1F600}?q=\"x\""))).is_ok());
    }

    #[test]
    fn without_sign_in_only_loopback_names_and_public_url_are_answered() {
        let h = Hosts::new(Some("https://sundial.example.com/"));
        for ok in [
            "localhost",
            "localhost:3000",
            "LOCALHOST:3000",
            "app.localhost:3000",
            "127.0.0.1:3000",
            "127.0.0.2",
            "[::1]:3000",
            "sundial.example.com",
            "Sundial.Example.Com:443",
            "localhost.:3000",
        ] {
            assert!(h.allows(ok), "{ok}");
        }
        for bad in [
            "attacker.example:3000",
            "attacker.example",
            "10.0.0.5:3000",
            "[::2]:3000",
            "localhost.attacker.example",
            "sundial.example.com.attacker.example",
            "",
        ] {
            assert!(!h.allows(bad), "{bad}");
        }
        assert!(!Hosts::new(None).allows("sundial.example.com"));
    }
}
