//! HTTP: the router (pages, server functions, JSON endpoints, static files) and its errors.
//!
//! - `GET /`, `/jobs`, `/jobs/{job_id}`: pages, server-rendered (leptos) and hydrated.
//! - `POST /api/fn/*`: the pages' server functions (client-side navigation).
//! - `GET /api/health`: `{"status":"ok"}`.
//! - `GET /api/jobs?days=N&instance=NAME`: the jobs list as JSON (N = 1, 7 or 30; default
//!   7; the first instance when none is named).
//! - `GET /api/instances`: every configured instance, its state, last good read and error.
//! - anything else: a file under the site root (`/pkg/…`, `/favicon.svg`), else the
//!   not-found page.
//!
//! Every response is gzip-compressed when the client asks, and traced.
pub mod error;

pub use error::Error;

use app::api::ssr::{Backend, BackendHandle};
use app::api::{FleetData, JobsData, parse_days};
use axum::extract::{FromRef, Query, State};
use axum::routing::get;
use axum::{Json, Router};
use leptos::config::LeptosOptions;
use leptos::prelude::provide_context;
use leptos_axum::{LeptosRoutes, generate_route_list};
use std::collections::HashMap;
use std::sync::Arc;
use tower_http::compression::CompressionLayer;
use tower_http::trace::TraceLayer;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// Where the site lives (`site_root`, `/pkg`), and the bundle's name.
    pub leptos_options: LeptosOptions,
    /// The instance reports pages show.
    pub backend: Arc<dyn Backend>,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

/// The whole HTTP surface; see the module docs.
pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(app::App);
    let backend = state.backend.clone();
    let context = move || provide_context(BackendHandle(backend.clone()));
    let shell_options = state.leptos_options.clone();
    let shell = move || app::shell(shell_options.clone());

    Router::new()
        .route("/api/health", get(health))
        .route("/api/jobs", get(jobs))
        .route("/api/instances", get(instances))
        .leptos_routes_with_context(&state, routes, context.clone(), shell)
        .fallback(leptos_axum::file_and_error_handler_with_context::<AppState, _>(context, app::shell))
        .layer(CompressionLayer::new())
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// `GET /api/health`
async fn health() -> Json<serde_json::Value> {
    Json(serde_json::json!({ "status": "ok" }))
}

/// `GET /api/jobs?days=N&instance=NAME`
async fn jobs(State(state): State<AppState>, Query(q): Query<HashMap<String, String>>) -> Result<Json<JobsData>, Error> {
    let days = parse_days(q.get("days").map(String::as_str))?;
    let instance = q.get("instance").map(String::as_str).filter(|i| !i.is_empty());
    let report = state.backend.report(instance, days).await.map_err(app::api::ApiError::from)?;
    let mut data = app::api::ssr::jobs_data(&report, days);
    app::api::ssr::decorate(state.backend.as_ref(), &mut data.instance).await;
    Ok(Json(data))
}

/// `GET /api/instances`: every instance and how reading it goes.
async fn instances(State(state): State<AppState>) -> Json<FleetData> {
    Json(FleetData { instances: state.backend.instances().await })
}
