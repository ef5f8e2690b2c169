//! The URLs and labels every view writes the same way: a job's page at a moment, an
//! instance's query, a run outcome's key and words. Pages, triage rows, alerts and the log
//! link through these, and nothing else builds such a URL.
use crate::engine::RunOutcome;

/// Percent-encode one URL path segment (job ids are GUIDs, but sources may use anything).
pub fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The link to a job's timeline over a window.
pub fn job_href(instance: Option<&str>, job_id: &str, days: u32) -> String {
    format!("/jobs/{}?days={days}{}", encode_segment(job_id), instance_query(instance))
}

/// The deep link to a job's timeline at a moment (`at`, an instant): the timeline opens on a
/// window holding `at` and marks it. Triage rows, alerts and log lines all link this way.
pub fn job_at_href(instance: Option<&str>, job_id: &str, at: chrono::DateTime<chrono::Utc>) -> String {
    format!(
        "/jobs/{}?at={}{}",
        encode_segment(job_id),
        at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        instance_query(instance)
    )
}

/// A job's page at its risks ahead (the section `#risks`).
pub fn job_risks_href(instance: &str, job_id: &str) -> String {
    format!("/jobs/{}?instance={}#risks", encode_segment(job_id), encode_segment(instance))
}

/// The fleet table's row of an instance: where an instance that cannot be read shows why,
/// since when, and its last good read.
pub fn fleet_row_href(instance: &str) -> String {
    format!("/fleet#{}", fleet_row_id(instance))
}

/// The fleet table row's `id` (see [`fleet_row_href`]).
pub fn fleet_row_id(instance: &str) -> String {
    format!("instance-{}", encode_segment(instance))
}

/// The deep link to a job's timeline at a moment over a window of `days` (1, 7 or 30) that
/// holds more than the moment: a streak's whole span, from its first run to `at`. The moment is
/// marked and the fragment scrolls to its line, as the redirect of [`job_at_href`] does.
pub fn job_span_href(instance: Option<&str>, job_id: &str, at: chrono::DateTime<chrono::Utc>, days: u32) -> String {
    format!(
        "/jobs/{}?days={days}&at={}{}#{}",
        encode_segment(job_id),
        at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        instance_query(instance),
        crate::MOMENT_ID
    )
}

/// The smallest window (of [`crate::WINDOW_DAYS`], ending at `now`) holding `t`; 30 when none.
pub fn days_holding(t: chrono::DateTime<chrono::Utc>, now: chrono::DateTime<chrono::Utc>) -> u32 {
    crate::WINDOW_DAYS.into_iter().find(|d| t >= now - chrono::TimeDelta::days(i64::from(*d))).unwrap_or(30)
}

/// The JSON API's URL for what a page shows: `path` (after `/api/`, `{i}` standing for the
/// instance's encoded name) over the page's window, so a script or a postmortem gets the same
/// data the page was built from.
pub fn api_href(path: &str, head: &crate::InstanceHead) -> String {
    let at = |p: &crate::TimePoint| {
        chrono::DateTime::from_timestamp_millis(p.ms)
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
            .unwrap_or_default()
    };
    let path = path.replace("{i}", &encode_segment(&head.name));
    let sep = if path.contains('?') { '&' } else { '?' };
    format!("/api/{path}{sep}from={}&to={}", at(&head.window_start), at(&head.window_end))
}

/// `&instance=NAME` for links of a page opened for a named instance; empty otherwise.
pub fn instance_query(instance: Option<&str>) -> String {
    instance.filter(|i| !i.is_empty()).map(|i| format!("&instance={}", encode_segment(i))).unwrap_or_default()
}

/// CSS class suffix and `data-outcome` value of a run outcome.
pub fn outcome_key(o: RunOutcome) -> &'static str {
    match o {
        RunOutcome::Succeeded => "succeeded",
        RunOutcome::Failed => "failed",
        RunOutcome::Retry => "retry",
        RunOutcome::Canceled => "canceled",
        RunOutcome::InProgress => "in-progress",
        RunOutcome::Crashed => "crashed",
        RunOutcome::Abandoned => "abandoned",
        RunOutcome::Unknown => "unknown",
    }
}

pub fn outcome_label(o: RunOutcome) -> &'static str {
    match o {
        RunOutcome::Succeeded => "Succeeded",
        RunOutcome::Failed => "Failed",
        RunOutcome::Retry => "Retry",
        RunOutcome::Canceled => "Canceled",
        RunOutcome::InProgress => "In progress",
        RunOutcome::Crashed => "Crashed",
        RunOutcome::Abandoned => "Abandoned",
        RunOutcome::Unknown => "Unknown",
    }
}
