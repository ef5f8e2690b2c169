//! HTTP: the router (pages, server functions, JSON endpoints, static files) and its errors.
//!
//! - `GET /`, `/jobs`, `/jobs/{job_id}`, `/triage`, `/maintenance`, …: pages, server-rendered
//!   (leptos) and hydrated.
//! - `POST /api/fn/*`: the pages' server functions (client-side navigation); an error is
//!   answered with its `ApiError`'s status ([`server_fn_status`]), 400 for a bad argument.
//! - `GET /api/health`: `{"status":"ok"}`.
//! - `GET /api/jobs?days=N&instance=NAME`: the jobs list as JSON (N = 1, 7 or 30; default
//!   7; the first instance when none is named).
//! - The JSON API ([`api`]): `GET /api/instances`, `/api/instances/{instance}/jobs`,
//!   `/api/instances/{instance}/jobs/{job}/timeline`, `/api/log`, `/api/triage`,
//!   `/api/maintenance`, and its OpenAPI 3 document at `/api/openapi.json`.
//! - `GET /log.csv?…` (the log page's query): every line under the log's filter as CSV
//!   ([`log_csv`]).
//! - `GET /metrics`: the fleet for Prometheus ([`metrics`]).
//! - `POST /prefs` (form: `zone`, `theme`, `back`): remember the zone or theme choice in a
//!   cookie and go back (303) to the page the reader was on (a path on this site only).
//! - `POST /triage/ack` (form: [`sundial_model::AckForm`]): acknowledge or silence a problem's
//!   episode, kept in Sundial's store; back (303) to the page, with `acked=<key>` (the page
//!   says what was acknowledged) or `ack_error` when it failed.
//!   `POST /triage/unack` (the same form): undo it (admins, when sign-in is on).
//! - `POST /triage/maintenance` (form: [`sundial_model::triage::MaintenanceForm`]) and
//!   `POST /triage/maintenance/end` ([`sundial_model::triage::MaintenanceEndForm`]): add a
//!   maintenance window, or end one now, with who and why (admins, when sign-in is on); back
//!   (303) to the page, with `maint_error` and what was typed (`mw_name`, …) when it failed.
//!   A viewer's post goes back with `forbidden`; one asking for JSON gets a JSON 403.
//! - `/pkg/…` and the files at the site root's top (`/favicon.svg`): static files, served by a
//!   file service that answers a file or 404 and nothing else (never a page). They are the
//!   only answers outside sign-in, with `/signin` and `/api/health` ([`auth`]).
//! - anything else: the not-found page (behind sign-in, as every page).
//!
//! Every response is gzip-compressed when the client asks, and traced; pages rendered are
//! kept until the data changes ([`page_cache`]). Without sign-in, only requests naming a
//! loopback host or `public_url`'s are answered ([`guard::hosts`]); every answer carries a
//! Content-Security-Policy (pages their own, with a nonce; others [`guard::DEFAULT_CSP`]).
pub mod api;
pub mod auth;
pub mod error;
pub mod guard;
pub mod log_csv;
pub mod metrics;
pub mod page_cache;
pub mod serve;
pub mod server_fn_status;

pub use error::Error;

use axum::extract::{FromRef, Query, State};
use axum::http::{HeaderValue, header};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use leptos::config::LeptosOptions;
use leptos::prelude::provide_context;
use leptos_axum::{LeptosRoutes, generate_route_list};
use std::collections::HashMap;
use std::sync::Arc;
use sundial_model::ssr::{Backend, BackendHandle};
use sundial_model::{JobsData, parse_days};
use tower_http::compression::CompressionLayer;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// Where the site lives (`site_root`, `/pkg`), and the bundle's name.
    pub leptos_options: LeptosOptions,
    /// The instance reports pages show.
    pub backend: Arc<dyn Backend>,
    /// Sign-in; `None`: nobody is asked (loopback only).
    pub auth: Option<Arc<crate::auth::Auth>>,
    /// The JSON API's reports, once per read, window and moment ([`api::memo`]).
    pub api_memo: Arc<api::memo::Memo>,
    /// The CSV exports being written ([`log_csv::Exports`]).
    pub exports: Arc<log_csv::Exports>,
}

impl AppState {
    /// Serving `backend` without sign-in.
    pub fn new(leptos_options: LeptosOptions, backend: Arc<dyn Backend>) -> AppState {
        AppState { leptos_options, backend, auth: None, api_memo: Arc::default(), exports: Arc::default() }
    }

    /// The same, asking for sign-in.
    pub fn with_auth(self, auth: Option<Arc<crate::auth::Auth>>) -> AppState {
        AppState { auth, ..self }
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

/// Cross-site request forgery: `POST`s from another origin are refused (403), as Go's
/// `CrossOriginProtection` does; `public_url` (behind a proxy that rewrites `Host`) is trusted.
fn csrf(public_url: Option<&str>) -> tower_http::csrf::CsrfLayer {
    let layer = tower_http::csrf::CsrfLayer::new();
    match public_url.map(origin_of) {
        Some(Some(origin)) => layer.clone().add_trusted_origin(&origin).unwrap_or(layer),
        _ => layer,
    }
}

/// `scheme://host[:port]` of a URL.
fn origin_of(url: &str) -> Option<String> {
    let u = reqwest::Url::parse(url).ok()?;
    Some(u.origin().ascii_serialization()).filter(|o| o != "null")
}

/// The whole HTTP surface; see the module docs.
pub fn router(state: AppState) -> Router {
    router_at(state, None)
}

/// The static files: `/pkg/…` (the bundle, the styles) from the site's package directory, and
/// each file at the top of the site root under its own path, each by a file service that
/// answers the file or 404 (it refuses `..` and encoded separators itself) and never falls
/// through to the pages. Outside sign-in: nothing here is a page.
fn static_files(options: &LeptosOptions) -> Router<AppState> {
    let root = std::path::PathBuf::from(options.site_root.as_ref());
    let pkg = root.join(options.site_pkg_dir.as_ref());
    let mut files = Router::new().nest_service(&format!("/{}", options.site_pkg_dir), ServeDir::new(pkg));
    for entry in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        let (path, name) = (entry.path(), entry.file_name());
        let Some(name) = name.to_str().filter(|n| n.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)))
        else {
            continue;
        };
        if path.is_file() && !name.starts_with('.') {
            files = files.route_service(&format!("/{name}"), ServeFile::new(path));
        }
    }
    // A path the file system refuses (a name longer than it allows) is no file: 404, not 500.
    files.layer(axum::middleware::map_response(|res: axum::response::Response| async move {
        if res.status().is_server_error() {
            return axum::http::StatusCode::NOT_FOUND.into_response();
        }
        res
    }))
}

/// The same, Sundial being reached at `public_url` (trusted as an origin).
pub fn router_at(state: AppState, public_url: Option<String>) -> Router {
    let routes = generate_route_list(app::App);
    let backend = state.backend.clone();
    // Each request reads one judgment of the fleet, whatever its views ask (RequestJudgment).
    let context = move || {
        provide_context(BackendHandle(backend.clone()));
        provide_context(sundial_model::ssr::RequestJudgment::default());
    };
    let shell_options = state.leptos_options.clone();
    let shell = move || app::shell(shell_options.clone());

    // Everything but the static files: behind sign-in when it is configured.
    let pages = Router::new()
        .route("/api/health", get(health))
        .route("/api/jobs", get(jobs))
        .route("/metrics", get(metrics::metrics))
        .route("/log.csv", get(log_csv::log_csv))
        .route("/prefs", post(prefs))
        .route("/triage/ack", post(acknowledge))
        .route("/triage/unack", post(unacknowledge))
        .route("/triage/maintenance", post(maintenance_add))
        .route("/triage/maintenance/end", post(maintenance_end))
        .route("/signin", post(auth::sign_in))
        .route("/signout", post(auth::sign_out))
        .merge(api::routes())
        .leptos_routes_with_context(&state, routes, context.clone(), shell.clone())
        // Not a file service: an unknown path is the not-found page, rendered behind sign-in.
        .fallback(leptos_axum::render_app_async_with_context(context, shell))
        .layer(axum::middleware::from_fn(server_fn_status::layer))
        // Pages are kept uncompressed (each answer re-stamped with a fresh nonce), then
        // compressed per answer, at gzip's fastest level: a 185 KB page in about a millisecond.
        .layer(axum::middleware::from_fn_with_state(
            (page_cache::PageCache::default(), state.backend.clone()),
            page_cache::layer,
        ))
        // Who is asking (before the page memory: pages are kept per principal).
        .layer(axum::middleware::from_fn_with_state(state.auth.clone(), auth::layer))
        // No state-changing request from another origin: its scheme (guard::Origins), then
        // Sec-Fetch-Site, else Origin's host and port against Host.
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(guard::Origins::new(public_url.as_deref())),
            guard::origin_scheme,
        ))
        .layer(csrf(public_url.as_deref()));
    let mut router = static_files(&state.leptos_options).merge(pages);
    if state.auth.is_none() {
        // Nobody signs in: only loopback names (and public_url) are answered (DNS rebinding).
        let hosts = Arc::new(guard::Hosts::new(public_url.as_deref()));
        router = router.layer(axum::middleware::from_fn_with_state(hosts, guard::hosts));
    }
    router
        .layer(CompressionLayer::new().quality(tower_http::CompressionLevel::Fastest))
        // On every answer (pages add their Content-Security-Policy, with its nonce).
        .layer(SetResponseHeaderLayer::overriding(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")))
        .layer(SetResponseHeaderLayer::overriding(header::REFERRER_POLICY, HeaderValue::from_static("same-origin")))
        .layer(SetResponseHeaderLayer::overriding(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(guard::DEFAULT_CSP),
        ))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// `GET /api/health`
async fn health() -> Json<serde_json::Value> {
    Json(serde_json::json!({ "status": "ok" }))
}

/// `GET /api/jobs?days=N&instance=NAME`
async fn jobs(
    State(state): State<AppState>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Json<JobsData>, Error> {
    let days = parse_days(q.get("days").map(String::as_str))?;
    let instance = q.get("instance").map(String::as_str).filter(|i| !i.is_empty());
    let report = state.backend.report(instance, days).await.map_err(sundial_model::ApiError::from)?;
    let judgment = state.backend.triage(sundial_model::TriageScope::instance(&report.name)).await;
    let mut data = sundial_model::ssr::jobs_data(&report, days, &judgment);
    sundial_model::ssr::decorate(state.backend.as_ref(), &mut data.instance).await;
    Ok(Json(data))
}

/// `POST /triage/ack`: acknowledge or silence, then back to the page (303); an error (the
/// problem resolved meanwhile, a silence not offered) goes back as `ack_error`.
async fn acknowledge(
    State(state): State<AppState>,
    principal: Option<axum::Extension<sundial_model::Principal>>,
    headers: axum::http::HeaderMap,
    axum::Form(form): axum::Form<sundial_model::AckForm>,
) -> axum::response::Response {
    let backend = state.backend.clone();
    triage_action(principal, &headers, form, "acknowledge or silence problems", ACK_ERROR, |f| async move {
        backend.acknowledge(f).await
    })
    .await
}

/// `POST /triage/unack` (the acknowledgement form's key, episode and back): undo an
/// acknowledgement or silence, then back to the page (303); a failure goes back as `ack_error`.
async fn unacknowledge(
    State(state): State<AppState>,
    principal: Option<axum::Extension<sundial_model::Principal>>,
    headers: axum::http::HeaderMap,
    axum::Form(form): axum::Form<sundial_model::AckForm>,
) -> axum::response::Response {
    let backend = state.backend.clone();
    triage_action(principal, &headers, form, "undo an acknowledgement", UNACK_ERROR, |f| async move {
        backend.unacknowledge(f).await
    })
    .await
}

/// A form an admin posts on the triage page: who acts (the principal, when sign-in is on) and
/// the page to go back to.
trait TriageForm {
    fn by(&mut self) -> &mut String;
    fn back(&self) -> &str;
    /// What the page says was done, once done: a query parameter naming the problem
    /// (`acked=<key>`: the page shows it from its own data, never the URL's text).
    fn done(&self) -> Option<String> {
        None
    }
    /// What was typed, given back to the page when the form is refused so that nothing is lost
    /// (each field cut to the most it may hold).
    fn kept(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
}

impl TriageForm for sundial_model::AckForm {
    fn by(&mut self) -> &mut String {
        &mut self.by
    }
    fn back(&self) -> &str {
        &self.back
    }
    fn done(&self) -> Option<String> {
        Some(sundial_model::links::encode_segment(&self.key))
    }
}

impl TriageForm for sundial_model::triage::MaintenanceForm {
    fn by(&mut self) -> &mut String {
        &mut self.by
    }
    fn back(&self) -> &str {
        &self.back
    }
    fn kept(&self) -> Vec<(&'static str, String)> {
        use sundial_model::forms::Field;
        let cut = |v: &str, f: Field| v.chars().take(f.max()).collect::<String>();
        vec![
            ("mw_name", cut(&self.name, Field::Name)),
            ("mw_reason", cut(&self.reason, Field::Reason)),
            ("mw_instance", cut(&self.instance, Field::Instance)),
            ("mw_jobs", cut(&self.jobs, Field::Jobs)),
            ("mw_start", cut(&self.start, Field::Start)),
            ("mw_zone", cut(&self.time_zone, Field::Zone)),
            ("mw_duration", self.duration.chars().take(8).collect()),
        ]
    }
}

impl TriageForm for sundial_model::triage::MaintenanceEndForm {
    fn by(&mut self) -> &mut String {
        &mut self.by
    }
    fn back(&self) -> &str {
        &self.back
    }
}

/// What every triage form does: signed in, only an admin acts, in their own name; then back to
/// the page (303), with the failure's code (`code`) as the query parameter `param` and what was
/// typed ([`TriageForm::kept`]), or with what was done (`done`, [`TriageForm::done`]).
///
/// A refused role is answered as the rest: a browser's form goes back to its page, which says
/// so (`{param}=forbidden`); a client that asks for JSON (`Accept: application/json`, not
/// HTML) gets the 403 as JSON.
async fn triage_action<T, F, Fut>(
    principal: Option<axum::Extension<sundial_model::Principal>>,
    headers: &axum::http::HeaderMap,
    mut form: T,
    what: &str,
    (param, code, done): (&str, fn(&sundial_model::ApiError) -> String, Option<&str>),
    act: F,
) -> axum::response::Response
where
    T: TriageForm,
    F: FnOnce(T) -> Fut,
    Fut: std::future::Future<Output = Result<(), sundial_model::ApiError>>,
{
    use axum::http::{StatusCode, header};
    let back = guard::back_path(Some(form.back()));
    let sep = if back.contains('?') { '&' } else { '?' };
    let kept: String = form
        .kept()
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("&{k}={}", sundial_model::links::encode_segment(&v)))
        .collect();
    if let Some(axum::Extension(p)) = principal {
        if p.role != sundial_model::Role::Admin {
            if wants_json(headers) {
                return Error::Forbidden(format!("only an admin may {what}")).into_response();
            }
            let to = format!("{back}{sep}{param}=forbidden{kept}");
            return (StatusCode::SEE_OTHER, [(header::LOCATION, to)]).into_response();
        }
        *form.by() = p.name;
    }
    let shown = form.done();
    let to = match act(form).await {
        Ok(()) => match (done, shown) {
            (Some(name), Some(value)) => format!("{back}{sep}{name}={value}"),
            _ => back,
        },
        Err(e) => format!("{back}{sep}{param}={}{kept}", code(&e)),
    };
    (StatusCode::SEE_OTHER, [(header::LOCATION, to)]).into_response()
}

/// Whether the client asks for JSON rather than a page: `Accept` names JSON and not HTML (a
/// browser's form post accepts `text/html`; `curl -H 'Accept: application/json'` does not).
fn wants_json(headers: &axum::http::HeaderMap) -> bool {
    let accept = headers.get(axum::http::header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
    accept.contains("json") && !accept.contains("text/html")
}

/// How the acknowledgement forms fail, as `ack_error`.
const ACK_ERROR: (&str, fn(&sundial_model::ApiError) -> String, Option<&str>) =
    ("ack_error", sundial_model::triage::ack_error_code, Some("acked"));
/// The same for undoing, which says what was undone as `unacked`.
const UNACK_ERROR: (&str, fn(&sundial_model::ApiError) -> String, Option<&str>) =
    ("ack_error", sundial_model::triage::ack_error_code, Some("unacked"));

/// `POST /triage/maintenance` ([`sundial_model::triage::MaintenanceForm`]): an admin adds a
/// maintenance window, then back to the page (303); a failure goes back as `maint_error`.
async fn maintenance_add(
    State(state): State<AppState>,
    principal: Option<axum::Extension<sundial_model::Principal>>,
    headers: axum::http::HeaderMap,
    axum::Form(form): axum::Form<sundial_model::triage::MaintenanceForm>,
) -> axum::response::Response {
    let backend = state.backend.clone();
    let code = sundial_model::triage::maintenance_error_code;
    triage_action(principal, &headers, form, "add maintenance windows", ("maint_error", code, None), |f| async move {
        backend.maintenance_add(f).await
    })
    .await
}

/// `POST /triage/maintenance/end` ([`sundial_model::triage::MaintenanceEndForm`]): an admin ends
/// an open window now (or cancels one to come), saying why; then back to the page (303).
async fn maintenance_end(
    State(state): State<AppState>,
    principal: Option<axum::Extension<sundial_model::Principal>>,
    headers: axum::http::HeaderMap,
    axum::Form(form): axum::Form<sundial_model::triage::MaintenanceEndForm>,
) -> axum::response::Response {
    let backend = state.backend.clone();
    let code = sundial_model::triage::maintenance_error_code;
    triage_action(principal, &headers, form, "end maintenance windows", ("maint_error", code, None), |f| async move {
        backend.maintenance_end(f).await
    })
    .await
}

/// The form the zone and theme switches post.
#[derive(serde::Deserialize)]
struct PrefsForm {
    zone: Option<String>,
    theme: Option<String>,
    back: Option<String>,
}

/// `POST /prefs`: set the chosen zone or theme (unknown values are ignored, never stored) and
/// go back to `back` if it is a path on this site, else to `/`.
async fn prefs(axum::Form(form): axum::Form<PrefsForm>) -> axum::response::Response {
    use app::components::time::{THEME_COOKIE, Theme, ZONE_COOKIE, ZoneMode};
    use axum::http::{HeaderValue, StatusCode, header};
    let mut cookies = Vec::new();
    if let Some(z) = form.zone.as_deref().and_then(ZoneMode::parse) {
        cookies.push((ZONE_COOKIE, z.key()));
    }
    if let Some(t) = form.theme.as_deref().and_then(Theme::parse) {
        cookies.push((THEME_COOKIE, t.key()));
    }
    let back = guard::back_path(form.back.as_deref());
    let mut res = (StatusCode::SEE_OTHER, [(header::LOCATION, back)]).into_response();
    for (name, value) in cookies {
        let c = cookie::Cookie::build((name, value))
            .path("/")
            .max_age(cookie::time::Duration::days(365))
            .same_site(cookie::SameSite::Lax)
            .http_only(true)
            .build();
        if let Ok(v) = HeaderValue::from_str(&c.to_string()) {
            res.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    res
}
