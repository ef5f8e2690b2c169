//! Risks ahead, from an instance's read to what pages and the API show: each job with its
//! durations goes to [`sundial_engine::risks::ahead`] once per read and horizon (the server
//! keeps the result), and [`rows`] maps the result for a page.
use super::point;
use crate::engine::durations;
use crate::engine::fleet::InstanceInput;
use crate::engine::risks::{self, JobAhead, Risk};
use crate::engine::{Window, Zone as Tz};
use crate::wire::{RiskRow, TimePoint};
use chrono::{DateTime, TimeDelta, Utc};

/// The horizon of `days` from `now`.
pub fn horizon(now: DateTime<Utc>, days: u32) -> Window {
    Window::new(now, now + TimeDelta::days(i64::from(days)))
}

/// Every risk of the instance's jobs over `days` from `now` (each job's durations from its runs
/// in the read).
pub fn of_input(input: &InstanceInput, now: DateTime<Utc>, days: u32) -> Vec<Risk> {
    let jobs: Vec<JobAhead<'_>> = input
        .jobs
        .iter()
        .map(|j| JobAhead {
            id: &j.id,
            name: &j.name,
            enabled: j.enabled,
            schedules: &j.schedules,
            durations: durations::stats(&j.runs),
        })
        .collect();
    risks::ahead(&jobs, input.tz, horizon(now, days))
}

/// The page's rows of one instance's risks, its times in the instance's zone.
pub fn rows(instance: &str, tz: Tz, risks: &[Risk]) -> Vec<RiskRow> {
    risks
        .iter()
        .map(|r| {
            let info = r.kind.info();
            RiskRow {
                instance: instance.to_owned(),
                job_id: r.job_id.clone(),
                job: r.job.clone(),
                kind: info.key.to_owned(),
                label: info.label.to_owned(),
                severity: r.severity,
                at: r.at.iter().map(|t| point(*t, tz)).collect(),
                explanation: r.explanation.clone(),
                with: r.with.as_ref().map(|w| (w.job_id.clone(), w.job.clone())),
                href: crate::links::job_risks_href(instance, &r.job_id),
            }
        })
        .collect()
}

/// The order pages list risks in: by first instant (a risk with none, such as a schedule
/// that never runs, first), then instance, job and kind.
pub fn sort(rows: &mut [RiskRow]) {
    rows.sort_by(|a, b| {
        let first = |r: &RiskRow| r.at.first().map(|t: &TimePoint| t.ms).unwrap_or(i64::MIN);
        (first(a), &a.instance, &a.job, &a.kind).cmp(&(first(b), &b.instance, &b.job, &b.kind))
    });
}
