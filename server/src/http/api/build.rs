//! Engine reports to the JSON API's types ([`super::wire`]). Pure: a snapshot, a window and a
//! moment in, the answer out.
use chrono::{DateTime, Utc};
use sundial_engine::fleet::{self, InstanceReport, JobReport};
use sundial_engine::log::{self, LogEvent};
use sundial_engine::reconcile::{MissCause, Outcome, RunClass, Settings};
use sundial_engine::{RunOutcome, Severity, Trigger, Window};
use sundial_model::ssr::Snapshot;

use super::wire;

/// The report of `snapshot` over `window` as it was at `as_of`.
pub fn report(snapshot: &Snapshot, window: Window, as_of: DateTime<Utc>) -> InstanceReport {
    let mut input = fleet::as_of(&snapshot.input, as_of);
    for job in &mut input.jobs {
        // The window's runs, and one still going when it opened (it may explain a skip).
        job.runs.retain(|r| window.contains(r.start) || (r.start < window.start && r.end() > window.start));
    }
    fleet::analyze(&input, window, as_of, &Settings::default())
}

pub fn span(report: &InstanceReport, window: Window, as_of: DateTime<Utc>) -> wire::Span {
    wire::Span {
        instance: report.name.clone(),
        time_zone: report.tz.name().to_owned(),
        from: window.start,
        to: window.end,
        as_of,
    }
}

pub fn job(j: &JobReport, window: Window) -> wire::Job {
    let mut counts = wire::Counts::default();
    for o in &j.reconciliation.outcomes {
        match o {
            Outcome::OnTime { .. } => counts.on_time += 1,
            Outcome::Late { .. } => counts.late += 1,
            Outcome::Missed { .. } => counts.missed += 1,
            Outcome::SkippedRunning { .. } => counts.skipped += 1,
            Outcome::Unknown => counts.unknown += 1,
            Outcome::Maintenance { .. } => counts.maintenance += 1,
            Outcome::Upcoming => counts.upcoming += 1,
        }
    }
    let (mut succeeded, mut failed) = (0, 0);
    for r in &j.runs {
        counts.runs += 1;
        match r.outcome {
            RunOutcome::Succeeded => succeeded += 1,
            RunOutcome::Failed => failed += 1,
            RunOutcome::Retry => counts.retry += 1,
            RunOutcome::Canceled => counts.canceled += 1,
            RunOutcome::InProgress => counts.in_progress += 1,
            RunOutcome::Crashed => counts.crashed += 1,
            RunOutcome::Abandoned => counts.abandoned += 1,
            RunOutcome::Unknown => counts.outcome_unknown += 1,
        }
    }
    // Every run's outcome unknown: how many succeeded or failed is unknown, not 0.
    let unknowable = counts.runs > 0 && counts.outcome_unknown == counts.runs;
    counts.succeeded = (!unknowable).then_some(succeeded);
    counts.failed = (!unknowable).then_some(failed);
    counts.unknown_because = (counts.outcome_unknown > 0)
        .then(|| j.runs.iter().find(|r| r.outcome == RunOutcome::Unknown).map(|r| r.message.clone()))
        .flatten()
        .filter(|m| !m.is_empty())
        .or_else(|| (counts.outcome_unknown > 0).then(|| "the source keeps no outcome of these runs".to_owned()));
    wire::Job {
        id: j.id.clone(),
        name: j.name.clone(),
        category: j.category.clone(),
        owner: j.owner.clone(),
        enabled: j.enabled,
        schedules: j
            .schedules
            .iter()
            .enumerate()
            .map(|(i, s)| wire::ScheduleInfo {
                id: s.id,
                name: s.name.clone(),
                enabled: s.enabled,
                description: j.descriptions.get(i).cloned().unwrap_or_default(),
            })
            .collect(),
        counts,
        next_run: j.next_expected.as_ref().map(|o| o.at),
        history_from: j.history_horizon.filter(|h| *h > window.start),
        scheduler_history_from: j.source_horizon,
        state: String::new(),
        problems: Vec::new(),
    }
}

pub fn timeline(report: &InstanceReport, j: &JobReport, window: Window, as_of: DateTime<Utc>) -> wire::Timeline {
    let occurrences = j
        .forecast
        .occurrences
        .iter()
        .zip(&j.reconciliation.outcomes)
        .map(|(o, outcome)| {
            if let Outcome::Maintenance { window } = outcome {
                let label = report.maintenance.iter().find(|m| m.window == *window).map(|m| m.label.as_str());
                return wire::Occurrence {
                    expected_at: o.at,
                    schedule_id: o.schedule,
                    outcome: "maintenance".into(),
                    cause: None,
                    explanation: Some(format!(
                        "inside the maintenance window {}from {} to {} UTC",
                        label.map(|l| format!("\"{l}\" ")).unwrap_or_default(),
                        window.start.format("%Y-%m-%d %H:%M:%S"),
                        window.end.format("%Y-%m-%d %H:%M:%S")
                    )),
                    run: None,
                    delay_secs: None,
                };
            }
            let (name, run, delay, cause) = match outcome {
                Outcome::OnTime { run } => ("on_time", Some(*run), None, None),
                Outcome::Late { run, delay_secs } => ("late", Some(*run), Some(*delay_secs), None),
                Outcome::Missed { cause } => ("missed", None, None, Some(cause)),
                Outcome::SkippedRunning { run } => ("skipped", Some(*run), None, None),
                Outcome::Unknown => ("unknown", None, None, None),
                Outcome::Upcoming | Outcome::Maintenance { .. } => ("upcoming", None, None, None),
            };
            wire::Occurrence {
                expected_at: o.at,
                schedule_id: o.schedule,
                outcome: name.into(),
                cause: cause.map(|c| cause_key(c).into()),
                explanation: cause.map(cause_text),
                run,
                delay_secs: delay,
            }
        })
        .collect();
    let runs = j
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let going = r.outcome == RunOutcome::InProgress;
            wire::Run {
                started_at: r.start,
                ended_at: (!going).then(|| r.end()),
                duration_secs: r.duration_secs,
                outcome: outcome_key(r.outcome).into(),
                trigger: match &r.trigger {
                    Trigger::Schedule(_) => "schedule".into(),
                    Trigger::Manual => "manual".into(),
                    Trigger::Other(w) => w.clone(),
                },
                class: match j.reconciliation.runs.get(i) {
                    Some(RunClass::Expected { .. }) => "expected",
                    Some(RunClass::Manual) => "manual",
                    _ => "unscheduled",
                }
                .into(),
                message: r.message.clone(),
                steps: r
                    .steps
                    .iter()
                    .map(|s| wire::Step {
                        step_id: s.id,
                        name: s.name.clone(),
                        status: s.outcome.map(|o| outcome_key(o).to_owned()),
                        message: s.message.clone(),
                        sql_message_id: s.sql_message_id,
                        sql_severity: s.sql_severity,
                        retries: s.retries,
                        started_at: s.start,
                        duration_secs: s.duration_secs,
                        subsystem: s.subsystem.clone(),
                    })
                    .collect(),
            }
        })
        .collect();
    wire::Timeline {
        span: span(report, window, as_of),
        job: wire::JobRef { id: j.id.clone(), name: j.name.clone() },
        occurrences,
        runs,
        next_run: j.next_expected.as_ref().map(|o| o.at),
        diagnostics: j
            .diagnostics
            .iter()
            .map(|d| wire::Diagnostic {
                severity: match d.severity {
                    Severity::Info => "info",
                    Severity::Warning => "warning",
                    Severity::Error => "error",
                }
                .into(),
                field: d.field.clone(),
                value: d.value.clone(),
                message: d.message.clone(),
            })
            .collect(),
    }
}

/// The log lines of `report` (with the source's own `events`) as the API's events.
pub fn events(report: &InstanceReport, events: &[LogEvent]) -> Vec<wire::Event> {
    let names: std::collections::HashMap<&str, &str> =
        report.jobs.iter().map(|j| (j.id.as_str(), j.name.as_str())).rev().collect();
    log::derive(report, events)
        .into_iter()
        .map(|e| wire::Event {
            at: e.at,
            instance: report.name.clone(),
            job: names.get(e.job_id.as_str()).map(|n| (*n).to_owned()),
            job_id: e.job_id,
            kind: e.kind.key().into(),
            text: e.text,
            members: e.members,
        })
        .collect()
}

pub fn outcome_key(o: RunOutcome) -> &'static str {
    match o {
        RunOutcome::Succeeded => "succeeded",
        RunOutcome::Failed => "failed",
        RunOutcome::Retry => "retry",
        RunOutcome::Canceled => "canceled",
        RunOutcome::InProgress => "in_progress",
        RunOutcome::Crashed => "crashed",
        RunOutcome::Abandoned => "abandoned",
        RunOutcome::Unknown => "unknown",
    }
}

fn cause_key(c: &MissCause) -> &'static str {
    match c {
        MissCause::NoRun => "no_run",
        MissCause::AgentZombie { .. } => "scheduler_zombie",
        MissCause::AgentDown { .. } => "scheduler_down",
        MissCause::SchedulerStopped { .. } => "scheduler_stopped",
    }
}

fn cause_text(c: &MissCause) -> String {
    match c {
        MissCause::NoRun => "no run started, and nothing on the instance explains why".into(),
        MissCause::AgentZombie { period } => format!(
            "the scheduler was up and started nothing at all from {} to {} UTC",
            period.start.format("%Y-%m-%d %H:%M:%S"),
            period.end.format("%Y-%m-%d %H:%M:%S")
        ),
        MissCause::AgentDown { restarted_at } => {
            format!("the scheduler was down: it started again at {} UTC", restarted_at.format("%Y-%m-%d %H:%M:%S"))
        }
        MissCause::SchedulerStopped { since } => format!(
            "the scheduler is stopped (it says so): down by {} UTC at the latest",
            since.format("%Y-%m-%d %H:%M:%S")
        ),
    }
}
