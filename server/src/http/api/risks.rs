//! `GET /api/risks`: what each job's schedules will do over the next days that a DBA would want
//! to know first (see [`sundial_engine::risks`] for the kinds and what each says).
use axum::Json;
use axum::extract::{Query, State};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::bad;
use crate::http::{AppState, Error};
use sundial_model::{RISK_DAYS, RISK_DAYS_MAX, TimePoint};

/// `GET /api/risks`.
#[derive(Serialize, ToSchema)]
pub struct Risks {
    /// The horizon: from now (the instances' last read) to `days` later, in UTC.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub from: Option<DateTime<Utc>>,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub to: Option<DateTime<Utc>>,
    /// By first instant (a schedule that never runs first), then instance, job and kind.
    pub risks: Vec<Risk>,
    /// Instances not read yet, whose risks are not known.
    pub unjudged: Vec<String>,
}

/// One risk of one job.
#[derive(Serialize, ToSchema)]
pub struct Risk {
    pub instance: String,
    /// The job's name as its scheduler names it, and its id there.
    pub job: String,
    pub job_id: String,
    /// `never_runs`, `dst_gap`, `dst_fold`, `overlaps_itself`, `collides` or `schedule_ends`.
    pub kind: String,
    /// `error`, `warning` or `info`.
    pub severity: String,
    /// The instants it concerns (UTC), ascending: the due times in a DST gap or fold, a
    /// schedule's last run, the starts of the runs that overlap. Empty for `never_runs`.
    #[schema(value_type = Vec<String>)]
    pub at: Vec<DateTime<Utc>>,
    /// What will happen, in one sentence, in the scheduler's terms.
    pub explanation: String,
    /// The other job of a collision (its name), and its id.
    pub with: Option<String>,
    pub with_id: Option<String>,
    /// The job's page at its risks.
    pub link: String,
}

#[derive(Deserialize, IntoParams, Default)]
#[into_params(parameter_in = Query)]
pub struct RisksQuery {
    /// The horizon in days from now: 1 to 90; default 30.
    days: Option<String>,
    /// One instance; default: every instance of the fleet.
    instance: Option<String>,
}

/// Every risk ahead of the fleet's jobs (or one instance's) over the next `days`.
#[utoipa::path(
    get,
    path = "/api/risks",
    params(RisksQuery),
    responses(
        (status = 200, body = Risks),
        (status = 400, body = super::wire::ErrorBody, description = "A parameter is wrong; the error names it"),
        (status = 404, body = super::wire::ErrorBody, description = "No such instance")
    )
)]
pub async fn risks(State(state): State<AppState>, Query(q): Query<RisksQuery>) -> Result<Json<Risks>, Error> {
    let days = match q.days.as_deref().map(str::trim) {
        None | Some("") => RISK_DAYS,
        Some(s) => s
            .parse::<u32>()
            .ok()
            .filter(|d| (1..=RISK_DAYS_MAX).contains(d))
            .ok_or_else(|| bad(format!("days must be a whole number from 1 to {RISK_DAYS_MAX} (got {s:?})")))?,
    };
    let instance = q.instance.as_deref().map(str::trim).filter(|i| !i.is_empty());
    if let Some(name) = instance
        && !state.backend.instances().await.iter().any(|i| i.name == name)
    {
        return Err(Error::NotFound { what: "instance".into() });
    }
    let data = state.backend.risks(instance, days).await;
    let utc = |p: &TimePoint| DateTime::from_timestamp_millis(p.ms);
    Ok(Json(Risks {
        from: data.from.as_ref().and_then(utc),
        to: data.to.as_ref().and_then(utc),
        risks: data
            .risks
            .into_iter()
            .map(|r| Risk {
                at: r.at.iter().filter_map(utc).collect(),
                severity: severity(r.severity).into(),
                with: r.with.as_ref().map(|w| w.1.clone()),
                with_id: r.with.map(|w| w.0),
                instance: r.instance,
                job: r.job,
                job_id: r.job_id,
                kind: r.kind,
                explanation: r.explanation,
                link: r.href,
            })
            .collect(),
        unjudged: data.unjudged,
    }))
}

fn severity(s: sundial_engine::Severity) -> &'static str {
    match s {
        sundial_engine::Severity::Error => "error",
        sundial_engine::Severity::Warning => "warning",
        sundial_engine::Severity::Info => "info",
    }
}
