//! The backend and the judgment a request reads, from the request's context (the server puts
//! a [`BackendHandle`] and a [`RequestJudgment`] there): the model's functions with their
//! backend taken from it, under the names pages call.
use super::{ApiError, FleetData, FoundJobs, InstanceHead, TriageData, TriageScope};
use crate::engine::durations::DurationFlags;
use crate::engine::fleet::InstanceReport;
use crate::engine::log::LogEvent;
use leptos::prelude::use_context;
use std::sync::Arc;
use sundial_model::view::{self as model, Backend, BackendHandle, RequestJudgment};

/// The backend in context; `None` outside a request the server set up.
pub fn backend() -> Option<Arc<dyn Backend>> {
    use_context::<BackendHandle>().map(|BackendHandle(b)| b)
}

/// The backend in context, or the error a page shows when the server did not set one up.
fn backend_or_error() -> Result<Arc<dyn Backend>, ApiError> {
    backend().ok_or_else(|| {
        leptos::logging::warn!("sundial: no BackendHandle in context");
        ApiError::Transport("the server is not set up".into())
    })
}

/// The problems in `scope` of the judgment this request reads (a fresh one outside a request).
pub async fn triage_here(backend: &dyn Backend, scope: TriageScope) -> TriageData {
    model::triage_here(backend, use_context::<RequestJudgment>().as_ref(), scope).await
}

/// The report through the backend in context.
pub async fn report(instance: Option<&str>, days: u32) -> Result<Arc<InstanceReport>, ApiError> {
    backend_or_error()?.report(instance, days).await.map_err(ApiError::from)
}

/// The changes of one job's definition seen in `window` through the backend in context (none
/// without one), as its page shows them in `tz`.
pub async fn changes(
    instance: &str,
    job_id: &str,
    window: crate::engine::Window,
    tz: crate::engine::Zone,
) -> Vec<sundial_model::ChangeView> {
    let Some(backend) = backend() else { return Vec::new() };
    let changes: Vec<_> =
        backend.changes(Some(instance), Some(job_id), window).await.into_iter().map(|(_, c)| c).collect();
    sundial_model::view::change_views(&changes, tz)
}

/// The duration flags through the backend in context (the defaults without one).
pub fn duration_flags() -> DurationFlags {
    backend().map(|b| b.duration_flags()).unwrap_or_default()
}

/// The deadlines the job must meet, over the report's window, the latest verdict judged over
/// `judged` (the judged days' report); none without a backend.
pub fn deadlines(report: &InstanceReport, judged: &InstanceReport, job_id: &str) -> Vec<super::DeadlineView> {
    let Some(backend) = backend() else { return Vec::new() };
    let Some(job) = report.jobs.iter().find(|j| j.id == job_id) else { return Vec::new() };
    let deadlines = backend.deadlines(&report.name, (&job.id, &job.name));
    model::deadline_views(report, judged, job_id, &deadlines)
}

/// The source's own log through the backend in context.
pub async fn source_log(instance: Option<&str>) -> Vec<LogEvent> {
    match backend() {
        Some(backend) => backend.source_log(instance).await,
        None => Vec::new(),
    }
}

/// The risks ahead through the backend in context (none without one): the fleet's, one
/// instance's, or one job's (of `instance`, else of the first configured instance, as its page
/// reads it).
pub async fn risks(instance: Option<&str>, job_id: Option<&str>, days: u32) -> sundial_model::RisksData {
    let Some(backend) = backend() else { return sundial_model::RisksData { days, ..Default::default() } };
    let instance = match (instance, job_id) {
        (None, Some(_)) => backend.instances().await.into_iter().next().map(|i| i.name),
        (i, _) => i.map(str::to_owned),
    };
    let mut data = backend.risks(instance.as_deref(), days).await;
    if let Some(id) = job_id {
        data.risks.retain(|r| r.job_id == id);
    }
    data
}

/// The fleet through the backend in context: at most `limit` instances listed (those that
/// cannot be read first when not all are), every one counted.
pub async fn fleet(limit: Option<usize>) -> FleetData {
    let instances = match backend() {
        Some(backend) => backend.instances().await,
        None => Vec::new(),
    };
    FleetData::listing(instances, limit)
}

/// [`model::find_jobs`] through the backend and the judgment in context.
pub async fn find_jobs(q: &str, limit: usize) -> FoundJobs {
    let Some(backend) = backend() else { return FoundJobs::default() };
    model::find_jobs(backend.as_ref(), use_context::<RequestJudgment>().as_ref(), q, limit).await
}

/// [`model::decorate`] through the backend in context.
pub async fn decorate_here(head: &mut InstanceHead) {
    if let Some(backend) = backend() {
        model::decorate(backend.as_ref(), head).await;
    }
}

/// The report the instance timeline draws from ([`sundial_model::instance_timeline::source`]).
pub async fn timeline_source(instance: Option<&str>) -> Result<Arc<InstanceReport>, ApiError> {
    sundial_model::instance_timeline::source(backend_or_error()?.as_ref(), instance).await
}

/// The instance timeline page's data ([`sundial_model::instance_timeline::load`]).
pub async fn timeline(
    instance: Option<&str>,
    from: Option<&str>,
    to: Option<&str>,
    decorate: bool,
) -> Result<sundial_model::instance_timeline::InstanceTimelineData, ApiError> {
    sundial_model::instance_timeline::load(backend_or_error()?.as_ref(), instance, from, to, decorate).await
}

/// The calendar page's data ([`sundial_model::view::calendar::load`]).
pub async fn calendar(
    span: Option<&str>,
    at: Option<&str>,
    instance: Option<&str>,
) -> Result<sundial_model::CalendarData, ApiError> {
    model::calendar::load(backend_or_error()?.as_ref(), span, at, instance).await
}
