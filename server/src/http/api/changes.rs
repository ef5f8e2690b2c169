//! `GET /api/changes`: every change Sundial saw of jobs' definitions (see
//! [`sundial_engine::changes`]): a job added or removed, its schedule, enabled flag, command,
//! steps or owner changed, each with its before and after, when Sundial saw it and the
//! scheduler's own modification time where it keeps one.
use axum::Json;
use axum::extract::{Query, State};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sundial_engine::Window;
use sundial_engine::changes::Value;
use utoipa::{IntoParams, ToSchema};

use super::{bad, instant};
use crate::http::{AppState, Error};

/// `GET /api/changes`.
#[derive(Serialize, ToSchema)]
pub struct Changes {
    /// Oldest first (by when seen), then instance, job and kind.
    pub changes: Vec<Change>,
}

/// One change of one job's definition.
#[derive(Serialize, ToSchema)]
pub struct Change {
    pub instance: String,
    /// The job's name as its scheduler names it (the last one seen), and its id there.
    pub job: String,
    pub job_id: String,
    /// `added`, `removed`, `schedule`, `enabled`, `command`, `steps` or `owner`.
    pub change: String,
    /// What it was and what it became: booleans for `enabled`, else text (a schedule as its
    /// scheduler stores it: its expression, or the fields that changed as `field=value`);
    /// `null` before an `added` and after a `removed`.
    #[schema(value_type = Option<Object>)]
    pub before: Option<Value>,
    #[schema(value_type = Option<Object>)]
    pub after: Option<Value>,
    /// When Sundial's read saw it (UTC).
    #[schema(value_type = String, format = DateTime)]
    pub seen: DateTime<Utc>,
    /// The scheduler's own modification time of the job (msdb `date_modified`, an event's
    /// `LAST_ALTERED`), where it keeps one (UTC).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub modified: Option<DateTime<Utc>>,
}

#[derive(Deserialize, IntoParams, Default)]
#[into_params(parameter_in = Query)]
pub struct ChangesQuery {
    /// One instance; default: every instance of the fleet.
    instance: Option<String>,
    /// One job, by its id or its name; default: every job.
    job: Option<String>,
    /// Changes seen at or after this instant (RFC 3339); default: all kept.
    from: Option<String>,
    /// Changes seen before this instant (RFC 3339); default: up to now.
    to: Option<String>,
}

/// Every change of jobs' definitions Sundial saw and keeps (within `history_retention`).
#[utoipa::path(
    get,
    path = "/api/changes",
    params(ChangesQuery),
    responses(
        (status = 200, body = Changes),
        (status = 400, body = super::wire::ErrorBody, description = "A parameter is wrong; the error names it"),
        (status = 404, body = super::wire::ErrorBody, description = "No such instance")
    )
)]
pub async fn changes(State(state): State<AppState>, Query(q): Query<ChangesQuery>) -> Result<Json<Changes>, Error> {
    let from = instant("from", q.from.as_deref())?.unwrap_or(DateTime::<Utc>::MIN_UTC);
    let to = instant("to", q.to.as_deref())?.unwrap_or(DateTime::<Utc>::MAX_UTC);
    if from >= to {
        return Err(bad(format!("from={} must be before to={}", from.to_rfc3339(), to.to_rfc3339())));
    }
    let instance = q.instance.as_deref().map(str::trim).filter(|i| !i.is_empty());
    if let Some(name) = instance
        && !state.backend.instances().await.iter().any(|i| i.name == name)
    {
        return Err(Error::NotFound { what: "instance".into() });
    }
    let job = q.job.as_deref().map(str::trim).filter(|j| !j.is_empty());
    let window = Window::new(from, to);
    let changes = state
        .backend
        .changes(instance, None, window)
        .await
        .into_iter()
        .filter(|(_, c)| job.is_none_or(|j| c.job == j || c.name == j))
        .map(|(instance, c)| Change {
            instance,
            job: c.name,
            job_id: c.job,
            change: c.kind.key().to_owned(),
            before: c.before,
            after: c.after,
            seen: c.seen,
            modified: c.modified,
        })
        .collect();
    Ok(Json(Changes { changes }))
}
