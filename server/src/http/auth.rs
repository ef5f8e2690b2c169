//! Sign-in over HTTP: the middleware that finds who is asking, `POST /signin`, `POST /signout`.
//!
//! With sign-in on, a request without a principal is sent to the sign-in page when it is a
//! browser asking for a page (`GET`, not under `/api/`), and answered `401` with
//! `WWW-Authenticate: Bearer` otherwise. The sign-in page and `/api/health` need nobody; the
//! static files are served outside this middleware altogether (`http::static_files`), so no
//! spelling of a path can make a page public. Every answer to a signed-in principal (and every
//! refusal) carries `Cache-Control: no-store`: no shared cache keeps what one reader was shown.
use super::AppState;
use crate::auth::{Auth, Principal, SignInError};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// The session cookie.
pub const SESSION_COOKIE: &str = "sundial_session";
/// The device cookie: a browser that signed in as a name is a known browser of it, which
/// others' failed sign-ins cannot lock out ([`crate::auth::limits`]).
pub const DEVICE_COOKIE: &str = "sundial_device";
/// How long a browser stays known.
const DEVICE_DAYS: i64 = 365;

/// Paths anyone may ask for (exactly these: the static files never pass this middleware).
fn is_public(path: &str) -> bool {
    matches!(path, "/signin" | "/signout" | "/api/health")
}

/// Paths that answer data, not pages: a missing sign-in is a 401 there, never a redirect.
fn is_data(path: &str) -> bool {
    path.starts_with("/api/") || path == "/metrics" || path.ends_with(".csv")
}

/// The client's address, when the server was started with it (`into_make_service_with_connect_info`).
pub fn peer(req_extensions: &axum::http::Extensions) -> Option<IpAddr> {
    req_extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip())
}

fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|raw| cookie::Cookie::split_parse(raw).flatten())
        .find(|c| c.name() == name)
        .map(|c| c.value().to_owned())
}

fn session_cookie(headers: &HeaderMap) -> Option<String> {
    cookie_value(headers, SESSION_COOKIE)
}

/// `Set-Cookie` for `name` = `value`, `HttpOnly; Secure; SameSite=Strict`, for `secs`.
fn strict_cookie(name: &'static str, value: &str, secs: i64) -> Option<HeaderValue> {
    let c = cookie::Cookie::build((name, value.to_owned()))
        .path("/")
        .http_only(true)
        .secure(true)
        .same_site(cookie::SameSite::Strict)
        .max_age(cookie::time::Duration::seconds(secs))
        .build();
    HeaderValue::from_str(&c.to_string()).ok()
}

/// `Set-Cookie` for the session (`None`: clear it).
fn set_session(id: Option<&str>, ttl: std::time::Duration) -> Option<HeaderValue> {
    strict_cookie(SESSION_COOKIE, id.unwrap_or(""), if id.is_some() { ttl.as_secs() as i64 } else { 0 })
}

fn no_store(mut res: Response) -> Response {
    res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

fn see_other(to: &str) -> Response {
    (StatusCode::SEE_OTHER, [(header::LOCATION, to.to_owned())]).into_response()
}

fn unauthorized(what: &str) -> Response {
    super::Error::Unauthorized { what: what.to_owned() }.into_response()
}

/// An `Authorization` header that is not a valid API token.
struct InvalidToken;

/// Who is asking: a bearer token (which must then be valid), a trusted proxy's user, or (see
/// [`by_session`]) a session.
fn principal_of(auth: &Auth, req: &Request) -> Result<Option<Principal>, InvalidToken> {
    if let Some(v) = req.headers().get(header::AUTHORIZATION) {
        let token = v.to_str().ok().and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")));
        return match token.and_then(|t| auth.by_token(t)) {
            Some(p) => Ok(Some(p)),
            None => Err(InvalidToken),
        };
    }
    if let Some(p) = auth.by_proxy(peer(req.extensions()), req.headers()) {
        return Ok(Some(p));
    }
    Ok(None)
}

/// The session the request's cookie names, if it holds.
async fn by_session(auth: &Auth, id: Option<String>) -> Option<Principal> {
    auth.by_session(&id?).await
}

/// The middleware: put the [`Principal`] in the request's extensions, or answer for the
/// missing sign-in. Without sign-in configured, every request passes as it is.
pub async fn layer(State(auth): State<Option<Arc<Auth>>>, mut req: Request, next: Next) -> Response {
    let Some(auth) = auth else { return next.run(req).await };
    let path = req.uri().path().to_owned();
    let found = match principal_of(&auth, &req) {
        Ok(None) => Ok(by_session(&auth, session_cookie(req.headers())).await),
        other => other,
    };
    match found {
        Err(InvalidToken) => return no_store(unauthorized("the API token is not valid")),
        Ok(Some(p)) => {
            req.extensions_mut().insert(p);
            return no_store(next.run(req).await);
        }
        Ok(None) if is_public(&path) => {}
        Ok(None) => {
            let is_page = matches!(*req.method(), Method::GET | Method::HEAD) && !is_data(&path);
            if !is_page {
                return no_store(unauthorized(
                    "sign-in required: a session, or an API token (Authorization: Bearer …)",
                ));
            }
            let wanted = req.uri().path_and_query().map_or("/", |pq| pq.as_str());
            if from_another_site(req.headers()) {
                return bounce(wanted);
            }
            let expired = session_cookie(req.headers()).is_some();
            let mut to = format!("/signin?next={}", sundial_model::links::encode_segment(wanted));
            if expired {
                to.push_str("&error=expired");
            }
            let mut res = no_store(see_other(&to));
            if expired && let Some(v) = set_session(None, auth.session_ttl()) {
                res.headers_mut().append(header::SET_COOKIE, v);
            }
            return res;
        }
    }
    no_store(next.run(req).await)
}

/// A link followed from another site (an alert in a chat, a wiki): the browser does not send a
/// `SameSite=Strict` cookie with it, so a signed-in reader would land on the sign-in page.
fn from_another_site(headers: &HeaderMap) -> bool {
    let h = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("");
    h("sec-fetch-site") == "cross-site" && h("sec-fetch-mode") == "navigate"
}

/// A page that asks for `wanted` again from this site, so the session cookie comes along (and
/// without one, the sign-in page follows). No script: a meta refresh, and a link; to `/` when
/// `wanted` is not a path of this site (`//evil.example`: [`super::guard::same_site_path`]).
fn bounce(wanted: &str) -> Response {
    let wanted = super::guard::back_path(Some(wanted));
    let href = sundial_model::html::escape(&wanted);
    let body = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url={href}\">\
         <link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\"><title>Sundial</title></head><body><p><a href=\"{href}\">Continue to Sundial</a></p></body></html>"
    );
    let mut res = axum::response::Html(body).into_response();
    res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

/// The sign-in form.
#[derive(serde::Deserialize)]
pub struct SignInForm {
    name: String,
    password: String,
    next: Option<String>,
}

/// `POST /signin`: a session and back to `next`; a wrong password back to the sign-in page with
/// `error=wrong`; too many failed attempts `429` with `Retry-After`. A browser that signs in
/// gets a device cookie: it is then a known browser of that name ([`crate::auth::limits`]).
pub async fn sign_in(State(state): State<AppState>, req: Request) -> Response {
    let Some(auth) = state.auth.clone() else { return see_other("/") };
    let client = auth.client_address(peer(req.extensions()), req.headers());
    let device = cookie_value(req.headers(), DEVICE_COOKIE);
    let Ok(axum::Form(form)) = axum::Form::<SignInForm>::from_request(req, &state).await else {
        return see_other("/signin?error=wrong");
    };
    let next = super::guard::back_path(form.next.as_deref());
    // Bounded before anything is looked up or hashed: nothing is tried, and the page says why.
    use app::routes::signin::{SIGNIN_NAME_MAX, SIGNIN_PASSWORD_MAX};
    if form.name.chars().count() > SIGNIN_NAME_MAX || form.password.chars().count() > SIGNIN_PASSWORD_MAX {
        return see_other(&format!("/signin?error=long&next={}", sundial_model::links::encode_segment(&next)));
    }
    let user = form.name.trim();
    match auth.sign_in(client, device.as_deref(), &form.name, &form.password).await {
        Ok(signed_in) => {
            tracing::info!(user, client = ?client, "signed in");
            let mut res = no_store(see_other(&next));
            let cookies = [
                set_session(Some(&signed_in.session), auth.session_ttl()),
                strict_cookie(DEVICE_COOKIE, &signed_in.device, DEVICE_DAYS * 86_400),
            ];
            for v in cookies.into_iter().flatten() {
                res.headers_mut().append(header::SET_COOKIE, v);
            }
            res
        }
        Err(SignInError::Wrong) => {
            tracing::warn!(user, client = ?client, "sign-in refused: wrong name or password");
            see_other(&format!("/signin?error=wrong&next={}", sundial_model::links::encode_segment(&next)))
        }
        Err(SignInError::Wait(secs)) => {
            tracing::warn!(user, client = ?client, secs, "sign-in refused: too many failed attempts");
            let back = format!("/signin?next={}", sundial_model::links::encode_segment(&next));
            let body = format!(
                "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\"><title>Too many attempts · Sundial</title></head>\
                 <body><h1>Too many sign-in attempts</h1><p>Sundial refuses sign-ins from this browser for a while \
                 (too many wrong passwords from it, or for this name from browsers it has not signed in from). \
                 Try again in {secs} s.</p><p><a href=\"{back}\">Back to sign-in</a></p></body></html>"
            );
            let mut res = no_store((StatusCode::TOO_MANY_REQUESTS, axum::response::Html(body)).into_response());
            res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
            res
        }
    }
}

/// `POST /signout`: end the session, clear the cookie, and show the sign-in page.
pub async fn sign_out(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let mut res = see_other("/signin?out=1");
    if let Some(auth) = &state.auth {
        if let Some(id) = session_cookie(&headers) {
            auth.sign_out(&id).await;
        }
        if let Some(v) = set_session(None, auth.session_ttl()) {
            res.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    res
}

use axum::extract::FromRequest;
