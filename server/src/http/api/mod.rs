//! The JSON API, for scripts, postmortems and the pages' "JSON" links; its OpenAPI 3 document,
//! generated from these handlers and the types in [`wire`], is served at `/api/openapi.json`.
//!
//! Every report takes `from` and `to` (RFC 3339; default: the 7 days before `as_of`) and
//! `as_of` (default: the instance's last read): the view as it was at that moment. A window
//! reaches back as far as the instance's last read does (30 days; Sundial's own history store
//! will reach further), and is at most [`MAX_WINDOW_DAYS`] long. Errors are `{"error": "…", "kind":
//! "…"}` with their status: 400 names the parameter and what it got, 404 what was not found.
use axum::Json;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::routing::get;
use chrono::{DateTime, Duration, FixedOffset, Utc};
use serde::Deserialize;
use std::sync::Arc;
use sundial_engine::Window;
use sundial_engine::log::LogKind;
use sundial_model::ssr::{Backend, ReportError, Snapshot};
use utoipa::{IntoParams, OpenApi};

use super::{AppState, Error};

pub mod build;
pub mod changes;
pub mod memo;
pub mod risks;
pub mod triage;
pub mod wire;

/// The API's routes (under `/api`).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/openapi.json", get(openapi))
        .route("/api/instances", get(instances))
        .route("/api/instances/{instance}/jobs", get(jobs))
        .route("/api/instances/{instance}/jobs/{job}/timeline", get(timeline))
        .route("/api/log", get(log))
        .route("/api/triage", get(triage::triage))
        .route("/api/maintenance", get(triage::maintenance))
        .route("/api/risks", get(risks::risks))
        .route("/api/changes", get(changes::changes))
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Sundial",
        description = "When database jobs should have run, when they did, and what went wrong in between."
    ),
    paths(instances, jobs, timeline, log, triage::triage, triage::maintenance, risks::risks, changes::changes),
    components(schemas(
        wire::ErrorBody,
        wire::Instances,
        wire::Instance,
        wire::Outage,
        wire::SchedulerGap,
        wire::Jobs,
        wire::CannotTell,
        wire::Job,
        wire::ScheduleInfo,
        wire::Counts,
        wire::Timeline,
        wire::JobRef,
        wire::Occurrence,
        wire::Run,
        wire::Step,
        wire::Diagnostic,
        wire::Log,
        wire::Event,
        wire::Unreachable,
        triage::Triage,
        triage::Problem,
        triage::Acknowledged,
        triage::Held,
        triage::MaintenanceWindow,
        triage::Maintenance,
        risks::Risks,
        risks::Risk,
        changes::Changes,
        changes::Change,
    ))
)]
pub struct ApiDoc;

/// `GET /api/openapi.json`: this API's OpenAPI 3 document.
async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}

/// The window and the moment of a report.
#[derive(Deserialize, IntoParams, Default)]
#[into_params(parameter_in = Query)]
pub struct WindowQuery {
    /// Start of the window (RFC 3339); default: 7 days before `to`.
    from: Option<String>,
    /// End of the window (RFC 3339, exclusive); default: `as_of`.
    to: Option<String>,
    /// The moment the view is as of (RFC 3339); default: the instance's last read.
    as_of: Option<String>,
}

/// The longest window a report covers.
const MAX_WINDOW_DAYS: i64 = 62;
/// The window when none is given.
const DEFAULT_WINDOW_DAYS: i64 = 7;

fn bad(what: String) -> Error {
    Error::BadRequest { what }
}

/// An RFC 3339 instant named `name`, if given.
fn instant(name: &str, v: Option<&str>) -> Result<Option<DateTime<Utc>>, Error> {
    v.filter(|s| !s.is_empty())
        .map(|s| {
            DateTime::parse_from_rfc3339(s.trim()).map(|t| t.to_utc()).map_err(|_| {
                bad(format!("{name} must be an RFC 3339 instant such as 2026-11-22T03:00:00Z (got {s:?})"))
            })
        })
        .transpose()
}

impl WindowQuery {
    /// The window and moment asked for, checked against what the read of `instance` covers.
    fn resolve(&self, snapshot: &Snapshot, instance: &str) -> Result<(Window, DateTime<Utc>), Error> {
        let shown = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let as_of = instant("as_of", self.as_of.as_deref())?.unwrap_or(snapshot.now);
        if as_of > snapshot.now {
            return Err(bad(format!(
                "as_of={} is after the last read of {instance} ({}): Sundial cannot know later",
                shown(as_of),
                shown(snapshot.now)
            )));
        }
        let to = instant("to", self.to.as_deref())?.unwrap_or(as_of);
        let from = match instant("from", self.from.as_deref())? {
            Some(from) => from,
            None => (to - Duration::days(DEFAULT_WINDOW_DAYS)).max(snapshot.covers.start).min(to),
        };
        if from >= to {
            return Err(bad(format!("from={} must be before to={}", shown(from), shown(to))));
        }
        if to - from > Duration::days(MAX_WINDOW_DAYS) {
            return Err(bad(format!(
                "the window from {} to {} is longer than {MAX_WINDOW_DAYS} days",
                shown(from),
                shown(to)
            )));
        }
        if from < snapshot.covers.start {
            return Err(bad(format!(
                "from={} is before the oldest run Sundial has read of {instance} (from {})",
                shown(from),
                shown(snapshot.covers.start)
            )));
        }
        Ok((Window::new(from, to), as_of))
    }
}

/// The snapshot of `instance`, or the error that says why there is none.
async fn snapshot_of(backend: &dyn Backend, instance: &str) -> Result<Arc<Snapshot>, Error> {
    backend.snapshot(instance).await.map_err(|e| match e {
        ReportError::UnknownInstance => Error::NotFound { what: format!("instance {instance:?}") },
        other => sundial_model::ApiError::from(other).into(),
    })
}

/// The report of `snapshot` over `window` at `as_of`, from the API's memo.
async fn report_of(
    state: &AppState,
    instance: &str,
    snapshot: &Arc<Snapshot>,
    window: Window,
    as_of: DateTime<Utc>,
) -> Result<Arc<memo::Entry>, Error> {
    state.api_memo.report(instance, snapshot, window, as_of).await.map_err(|e| {
        tracing::error!(instance, error = %e, "the API's analysis of a read failed");
        Error::Internal
    })
}

/// Every configured instance and how reading it goes.
#[utoipa::path(get, path = "/api/instances", responses((status = 200, body = wire::Instances)))]
async fn instances(State(state): State<AppState>) -> Json<wire::Instances> {
    let at = |p: &sundial_model::TimePoint| {
        let off = FixedOffset::east_opt(p.off).unwrap_or(FixedOffset::east_opt(0).expect("UTC"));
        DateTime::from_timestamp_millis(p.ms).map(|t| t.with_timezone(&off))
    };
    let instances = state
        .backend
        .instances()
        .await
        .into_iter()
        .map(|i| wire::Instance {
            time_zone: i.tz.clone(),
            state: format!("{:?}", i.state),
            last_good: i.last_good.as_ref().and_then(at),
            last_attempt: i.last_attempt.as_ref().and_then(at),
            error: i.error.clone(),
            poll_secs: i.poll_secs,
            jobs: i.jobs,
            outages: i
                .outages
                .iter()
                .filter_map(|o| {
                    Some(wire::Outage {
                        start: at(&o.start)?,
                        end: o.end.as_ref().and_then(at),
                        error: o.error.clone(),
                    })
                })
                .collect(),
            tags: i.tags.clone(),
            reads: i.reads,
            condition: i.condition.key().to_owned(),
            scheduler_gap: i
                .incidents
                .iter()
                .find(|x| x.ongoing && x.kind != sundial_model::IncidentKind::Unreachable)
                .and_then(|x| {
                    Some(wire::SchedulerGap {
                        kind: match x.kind {
                            sundial_model::IncidentKind::Zombie => "zombie",
                            _ => "scheduler_stopped",
                        }
                        .to_owned(),
                        since: at(&x.start)?,
                        last_seen: x.last_seen.as_ref().and_then(at),
                        missed: x.missed,
                    })
                }),
            name: i.name,
            kind: i.kind,
        })
        .collect();
    Json(wire::Instances { instances })
}

/// Every job of an instance over the window: its schedules, counts by outcome, next run.
#[utoipa::path(
    get,
    path = "/api/instances/{instance}/jobs",
    params(("instance" = String, Path, description = "The instance's name"), WindowQuery),
    responses(
        (status = 200, body = wire::Jobs),
        (status = 400, body = wire::ErrorBody, description = "A parameter is wrong; the error names it"),
        (status = 404, body = wire::ErrorBody, description = "No such instance"),
        (status = 503, body = wire::ErrorBody, description = "The instance has not been read")
    )
)]
async fn jobs(
    State(state): State<AppState>,
    Path(instance): Path<String>,
    Query(q): Query<WindowQuery>,
) -> Result<Json<wire::Jobs>, Error> {
    let snapshot = snapshot_of(state.backend.as_ref(), &instance).await?;
    let (window, as_of) = q.resolve(&snapshot, &instance)?;
    let entry = report_of(&state, &instance, &snapshot, window, as_of).await?;
    let report = &entry.report;
    // Each job's problems and state are the fleet's one judgment now, as /api/triage lists it.
    let judgment = state.backend.triage(sundial_model::TriageScope::instance(&instance)).await;
    let jobs = report
        .jobs
        .iter()
        .map(|j| {
            let problems = sundial_model::triage::problems_of(&judgment, &instance, &j.id);
            let mut job = build::job(j, window);
            job.state = sundial_model::ssr::job_state(j, window, &problems).key().to_owned();
            job.problems = problems.into_iter().map(triage::problem).collect();
            job
        })
        .collect();
    let scheduler = state
        .backend
        .instances()
        .await
        .into_iter()
        .find(|i| i.name == instance)
        .map(|i| i.scheduler)
        .unwrap_or_default();
    let cannot_tell = scheduler
        .cannot_tell()
        .iter()
        .map(|c| wire::CannotTell { what: c.what.to_owned(), why: c.why.to_owned() })
        .collect();
    Ok(Json(wire::Jobs { span: build::span(report, window, as_of), cannot_tell, jobs }))
}

/// One job's expected occurrences and actual runs over the window, each occurrence with its
/// outcome and, when missed, its cause.
#[utoipa::path(
    get,
    path = "/api/instances/{instance}/jobs/{job}/timeline",
    params(
        ("instance" = String, Path, description = "The instance's name"),
        ("job" = String, Path, description = "The job's `id`, as `/jobs` lists it"),
        WindowQuery
    ),
    responses(
        (status = 200, body = wire::Timeline),
        (status = 400, body = wire::ErrorBody, description = "A parameter is wrong; the error names it"),
        (status = 404, body = wire::ErrorBody, description = "No such instance or job"),
        (status = 503, body = wire::ErrorBody, description = "The instance has not been read")
    )
)]
async fn timeline(
    State(state): State<AppState>,
    Path((instance, job)): Path<(String, String)>,
    Query(q): Query<WindowQuery>,
) -> Result<Json<wire::Timeline>, Error> {
    let snapshot = snapshot_of(state.backend.as_ref(), &instance).await?;
    let (window, as_of) = q.resolve(&snapshot, &instance)?;
    let entry = report_of(&state, &instance, &snapshot, window, as_of).await?;
    let report = &entry.report;
    let j = report
        .jobs
        .iter()
        .find(|j| j.id == job)
        .ok_or_else(|| Error::NotFound { what: format!("job {job:?} of instance {instance:?}") })?;
    Ok(Json(build::timeline(report, j, window, as_of)))
}

/// The log's filters and page.
#[derive(Deserialize, IntoParams, Default)]
#[into_params(parameter_in = Query)]
pub struct LogQuery {
    /// One instance; default: every instance of the fleet, merged newest first.
    instance: Option<String>,
    /// One job: its `id`, or a part of its name in any case.
    job: Option<String>,
    /// One kind of event (`failed`, `missed`, …).
    kind: Option<String>,
    /// `1` or `true`: only problems (failed, crashed, canceled, skipped, missed, late,
    /// zombie) and the scheduler's restarts that often explain them.
    problems: Option<String>,
    /// Events per page: 1 to 1000; default 100.
    limit: Option<String>,
    /// Where the page starts: a previous answer's `next_cursor`.
    cursor: Option<String>,
    /// As for the reports (default window: the 7 days before `as_of`). Across the fleet, a
    /// `from` before an instance's oldest read starts that instance's window at its oldest
    /// read instead of failing the whole answer.
    from: Option<String>,
    to: Option<String>,
    as_of: Option<String>,
}

/// The scheduler log of every instance of the fleet merged newest first (ties: by instance),
/// or of one instance, filtered and paged: no cap hides a line. `total` and `counts` are over
/// the whole filter; across the fleet, an instance that cannot be read now is named in
/// `unreachable`, and its last good read's events are still listed.
#[utoipa::path(
    get,
    path = "/api/log",
    params(LogQuery),
    responses(
        (status = 200, body = wire::Log),
        (status = 400, body = wire::ErrorBody, description = "A parameter is wrong; the error names it"),
        (status = 404, body = wire::ErrorBody, description = "No such instance"),
        (status = 503, body = wire::ErrorBody, description = "The instance asked for by name has not been read")
    )
)]
async fn log(State(state): State<AppState>, Query(q): Query<LogQuery>) -> Result<Json<wire::Log>, Error> {
    let limit = match q.limit.as_deref() {
        None | Some("") => 100,
        Some(s) => s
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=1000).contains(n))
            .ok_or_else(|| bad(format!("limit must be a whole number from 1 to 1000 (got {s:?})")))?,
    };
    let start = match q.cursor.as_deref() {
        None | Some("") => 0,
        Some(s) => {
            s.parse::<usize>().map_err(|_| bad(format!("cursor must be a next_cursor this API gave (got {s:?})")))?
        }
    };
    let kind = match q.kind.as_deref().filter(|k| !k.is_empty()) {
        None => None,
        Some(k) => Some(LogKind::from_key(k).ok_or_else(|| {
            let kinds: Vec<&str> = LogKind::ALL.iter().map(|k| k.key()).collect();
            bad(format!("kind must be one of {} (got {k:?})", kinds.join(", ")))
        })?),
    };
    let problems = match q.problems.as_deref().map(str::trim) {
        None | Some("" | "0" | "false") => false,
        Some("1" | "true") => true,
        Some(s) => return Err(bad(format!("problems must be 1 or true, 0 or false (got {s:?})"))),
    };
    let job = q.job.as_deref().map(str::trim).filter(|j| !j.is_empty());
    let chosen = q.instance.as_deref().filter(|i| !i.is_empty());
    let statuses = state.backend.instances().await;
    let names: Vec<String> = match chosen {
        Some(i) => vec![i.to_owned()],
        None => statuses.iter().map(|i| i.name.clone()).collect(),
    };
    let mut read = Vec::new();
    let mut unreachable = Vec::new();
    for name in &names {
        let snapshot = match snapshot_of(state.backend.as_ref(), name).await {
            Ok(s) => s,
            // Asked for by name, an instance not read is an error; across the fleet, it is named.
            Err(e) if chosen.is_some() => return Err(e),
            Err(e) => {
                let error = match e {
                    Error::SourceUnavailable { reason, .. } => reason,
                    other => other.to_string(),
                };
                unreachable.push(wire::Unreachable { instance: name.clone(), error, listed: false });
                continue;
            }
        };
        if chosen.is_none()
            && let Some(s) =
                statuses.iter().find(|s| &s.name == name && s.state == sundial_model::SourceState::Unreachable)
        {
            let error = s.error.clone().unwrap_or_else(|| "the latest read failed".into());
            unreachable.push(wire::Unreachable { instance: name.clone(), error, listed: true });
        }
        let mut window = WindowQuery { from: q.from.clone(), to: q.to.clone(), as_of: q.as_of.clone() };
        if chosen.is_none()
            && let Some(from) = instant("from", q.from.as_deref())?
            && from < snapshot.covers.start
        {
            window.from = Some(snapshot.covers.start.to_rfc3339());
        }
        let (w, as_of) = window.resolve(&snapshot, name)?;
        let entry = report_of(&state, name, &snapshot, w, as_of).await?;
        read.push((entry, snapshot));
    }
    // The memo's lines, by reference: only the page is copied.
    let mut events: Vec<&wire::Event> = read.iter().flat_map(|(entry, snapshot)| entry.events(snapshot)).collect();
    events.retain(|e| {
        (!problems || LogKind::from_key(&e.kind).is_some_and(LogKind::is_problem))
            && job.is_none_or(|j| sundial_model::ssr::job_matches(j, &e.job_id, e.job.as_deref().unwrap_or_default()))
    });
    let mut counts = std::collections::BTreeMap::new();
    for e in &events {
        *counts.entry(e.kind.clone()).or_insert(0) += 1;
    }
    events.retain(|e| kind.is_none_or(|k| e.kind == k.key()));
    // Stable: ties keep the instances' name order and each instance's own order.
    events.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| a.instance.cmp(&b.instance)));
    let total = events.len();
    let end = (start + limit).min(total);
    let next_cursor = (end < total).then(|| end.to_string());
    let page = events.into_iter().skip(start).take(limit).cloned().collect();
    Ok(Json(wire::Log { events: page, next_cursor, total, counts, unreachable }))
}
