//! The `#[server]` functions pages call: each checks its window, reads the instance's report
//! through the server's `Backend` (see `view`) and maps it to a wire type.
use super::{ApiError, FleetData, JobsData, LogData, LogQuery, TimelineData};
#[cfg(feature = "ssr")]
use super::{check_days, view};
use leptos::prelude::*;

/// Every configured instance and how reading it goes.
#[server(prefix = "/api/fn", endpoint = "fleet")]
pub async fn fleet(limit: Option<usize>) -> Result<FleetData, ApiError> {
    Ok(view::fleet(limit).await)
}

/// The problems now across the fleet (or of `instance`), worst first, and the acknowledged
/// ones: at most `limit` of each list, with how many there are.
#[server(prefix = "/api/fn", endpoint = "triage")]
pub async fn triage(instance: Option<String>, limit: Option<usize>) -> Result<super::TriageData, ApiError> {
    // A page's list: one zone for all its times.
    triage_in(super::TriageScope { instance, limit, one_zone: true }).await
}

#[cfg(feature = "ssr")]
async fn triage_in(scope: super::TriageScope) -> Result<super::TriageData, ApiError> {
    use leptos::prelude::use_context;
    match use_context::<view::BackendHandle>() {
        Some(view::BackendHandle(backend)) => Ok(view::triage_here(backend.as_ref(), scope).await),
        None => Err(ApiError::Transport("the server is not set up".into())),
    }
}

/// Every maintenance window that changes what a page or the API can show, with who, when, why
/// and the due runs each made maintenance.
#[server(prefix = "/api/fn", endpoint = "maintenance")]
pub async fn maintenance() -> Result<super::triage::MaintenanceData, ApiError> {
    use leptos::prelude::use_context;
    match use_context::<view::BackendHandle>() {
        Some(view::BackendHandle(backend)) => Ok(backend.maintenance_history().await),
        None => Err(ApiError::Transport("the server is not set up".into())),
    }
}

/// The risks ahead of the fleet (or of `instance`, and of its job `job_id`) over `days` from
/// now (1 to [`super::RISK_DAYS_MAX`]).
#[server(prefix = "/api/fn", endpoint = "risks")]
pub async fn risks(instance: Option<String>, job_id: Option<String>, days: u32) -> Result<super::RisksData, ApiError> {
    if !(1..=super::RISK_DAYS_MAX).contains(&days) {
        return Err(ApiError::BadRequest(format!("days must be from 1 to {}", super::RISK_DAYS_MAX)));
    }
    Ok(view::risks(instance.as_deref(), job_id.as_deref(), days).await)
}

/// The jobs whose name holds `q` across the fleet (at most 200).
#[server(prefix = "/api/fn", endpoint = "find_jobs")]
pub async fn find_jobs(q: String) -> Result<super::FoundJobs, ApiError> {
    Ok(view::find_jobs(&q, 200).await)
}

/// The jobs list of `instance` (`None`: the first configured) over the `days`-long window
/// ending at the instance's "now".
#[server(prefix = "/api/fn", endpoint = "jobs")]
pub async fn jobs(instance: Option<String>, days: u32) -> Result<JobsData, ApiError> {
    let days = check_days(days)?;
    let report = view::report(instance.as_deref(), days).await?;
    let judgment = triage_in(super::TriageScope::instance(&report.name)).await?;
    let mut data = view::jobs_data(&report, days, &judgment);
    view::decorate_here(&mut data.instance).await;
    Ok(data)
}

/// One page of the scheduler log of `instance` (`None`: every instance of the fleet, merged)
/// over the `days`-long window, under the filters of `query` (see [`view::fleet_log`]).
#[server(prefix = "/api/fn", endpoint = "instance_log")]
pub async fn instance_log(instance: Option<String>, days: u32, query: LogQuery) -> Result<LogData, ApiError> {
    use leptos::prelude::use_context;
    let days = check_days(days)?;
    let Some(view::BackendHandle(backend)) = use_context::<view::BackendHandle>() else {
        return Err(ApiError::Transport("the server is not set up".into()));
    };
    Ok(view::fleet_log(backend.as_ref(), instance.as_deref(), days, &query).await?.page())
}

/// One job's timeline over the `days`-long window ending at the instance's "now".
///
/// `at` (a deep link's moment, RFC 3339 as [`crate::components::job_at_href`] writes it) is
/// marked; without `days` the window is the smallest of 1, 7 and 30 days that holds it (30
/// days, saying so, when none does). An `at` that cannot be read is named in
/// [`super::AtView::error`], over the `days` (or default) window: the page says so, it does not
/// fail. The durations are flagged as the fleet file's `[triage]` says ([`view::duration_flags`]).
#[server(prefix = "/api/fn", endpoint = "job_timeline")]
pub async fn job_timeline(
    instance: Option<String>,
    job_id: String,
    days: Option<u32>,
    at: Option<String>,
) -> Result<TimelineData, ApiError> {
    let asked = days.map(check_days).transpose()?;
    let instance = instance.as_deref();
    let raw = at.as_deref().map(str::trim).filter(|a| !a.is_empty());
    let mut report = view::report(instance, asked.unwrap_or(super::DEFAULT_DAYS)).await?;
    let mut days = asked.unwrap_or(super::DEFAULT_DAYS);
    let mut moment = None;
    let mut error = None;
    let mut chosen = false;
    if let Some(raw) = raw {
        match view::parse_at(raw, report.tz) {
            Err(e) => error = Some(e),
            Ok(t) => {
                moment = Some(t);
                if asked.is_none() {
                    // Reports are cached per read and window: asking for each costs one
                    // computation per poll at most.
                    let mut windows = Vec::new();
                    for d in super::WINDOW_DAYS {
                        let r = view::report(instance, d).await?;
                        let holds = r.window.contains(t);
                        windows.push((d, r.window));
                        // Held, or after now: no larger window holds it either.
                        if holds || t >= r.window.end {
                            break;
                        }
                    }
                    if let Some((d, _)) = view::window_for(t, &windows) {
                        days = d;
                        chosen = true;
                        report = view::report(instance, d).await?;
                    }
                }
            }
        }
    }
    let mut head = view::head(&report, days);
    view::decorate_here(&mut head).await;
    let flags = view::duration_flags();
    let judgment = triage_in(super::TriageScope::instance(&report.name)).await?;
    // The durations' baseline: the window every job is judged over (cached per read).
    let baseline = view::report(instance, super::JUDGED_DAYS).await?;
    let judged = view::Judged { judgment: &judgment, baseline: &baseline };
    let mut data = view::timeline_data(&report, &job_id, days, &head.scheduler, &flags, moment, judged)?;
    data.instance = head;
    data.deadlines = view::deadlines(&report, &baseline, &job_id);
    if let Some(a) = data.at.as_mut() {
        a.chosen = chosen;
    }
    if let Some(e) = error {
        data.at = Some(super::AtView { at: None, error: Some(e), inside: false, line: None, chosen: false });
    }
    // What comes after now, from the analysis reaching a week past it (the instance timeline's).
    if let Ok(ahead) = super::context::timeline_source(Some(&report.name)).await {
        data.ahead = view::calendar::ahead(&ahead, Some(&job_id), super::instance_timeline::NEXT_RUNS);
    }
    // The read at the window's end (now) is in it: a change it saw is shown.
    let seen = crate::engine::Window::new(report.window.start, report.window.end + chrono::Duration::milliseconds(1));
    data.changes = view::changes(&report.name, &job_id, seen, report.tz).await;
    Ok(data)
}

/// The instance timeline of `instance` at the view `from`–`to` (RFC 3339; absent: the last
/// 24 hours and the next 6 around the instance's now; made valid: one hour to 30 days, inside
/// what the last read covers and the week ahead).
#[server(prefix = "/api/fn", endpoint = "instance_timeline")]
pub async fn instance_timeline(
    instance: Option<String>,
    from: Option<String>,
    to: Option<String>,
) -> Result<super::instance_timeline::InstanceTimelineData, ApiError> {
    super::context::timeline(instance.as_deref(), from.as_deref(), to.as_deref(), true).await
}

/// The fleet calendar (`/calendar`): a day or a week (`span`) from the date `at` (absent:
/// today), across the fleet or one `instance`, past runs and the runs expected ahead.
#[server(prefix = "/api/fn", endpoint = "calendar")]
pub async fn calendar(
    span: Option<String>,
    at: Option<String>,
    instance: Option<String>,
) -> Result<super::CalendarData, ApiError> {
    super::context::calendar(span.as_deref(), at.as_deref(), instance.as_deref()).await
}
