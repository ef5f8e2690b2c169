//! The figures `/metrics` exposes of each job, and what the find page says of it, from the
//! fleet's reports: made once per read by the server's poller (with the judgment), so a scrape
//! or a search across the fleet reads these instead of analysing every instance again.
use crate::engine::durations;
use crate::engine::fleet::InstanceReport;
use crate::engine::reconcile::{MissCause, Outcome, RunOutcome};
use chrono::{DateTime, Utc};

/// Why a due run did not happen, as `/metrics` labels it (`cause`), in [`JobFigures::missed`]'s
/// order.
pub const CAUSES: [&str; 4] = ["no_run", "scheduler_zombie", "scheduler_down", "skipped_running"];

/// One job's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct JobFigures {
    pub id: String,
    pub name: String,
    /// When its last successful run of the month ended.
    pub last_success: Option<DateTime<Utc>>,
    /// How long its run in progress has been going; 0 when none is.
    pub running_secs: i64,
    /// The month's completed runs' p95 duration (nearest rank), seconds.
    pub p95: Option<i64>,
    /// Due runs of the last day that did not happen, by [`CAUSES`].
    pub missed: [i64; 4],
    /// Runs of the last day that failed, crashed or were abandoned.
    pub failed: i64,
    pub category: String,
    pub enabled: bool,
    /// Its state over the last [`crate::DEFAULT_DAYS`] when no problem speaks for it
    /// ([`super::job_state`] without problems): what the find page shows beside triage's.
    pub quiet: crate::JobState,
    /// Its last finished runs that succeeded, in a row (0 when the last one did not): an
    /// alert's `resolve_after` waits for enough of them.
    pub successes_in_a_row: usize,
}

fn cause(outcome: &Outcome) -> Option<usize> {
    match outcome {
        Outcome::Missed { cause: MissCause::NoRun } => Some(0),
        Outcome::Missed { cause: MissCause::AgentZombie { .. } } => Some(1),
        // A scheduler down, whether it came back or still says it is stopped.
        Outcome::Missed { cause: MissCause::AgentDown { .. } | MissCause::SchedulerStopped { .. } } => Some(2),
        Outcome::SkippedRunning { .. } => Some(3),
        _ => None,
    }
}

/// Every job's figures from the reports of the last 30 days (`month`) and the last day (`day`)
/// of one read.
pub fn of(month: &InstanceReport, day: &InstanceReport) -> Vec<JobFigures> {
    let recent =
        crate::engine::Window::ending_at(month.window.end, chrono::Duration::days(i64::from(crate::DEFAULT_DAYS)));
    month
        .jobs
        .iter()
        .map(|job| {
            let last_success = job.runs.iter().rev().find(|r| r.outcome == RunOutcome::Succeeded).map(|r| r.end());
            let running = job.runs.iter().rev().find(|r| r.outcome == RunOutcome::InProgress);
            let mut missed = [0i64; 4];
            let mut failed = 0;
            if let Some(today) = day.jobs.iter().find(|j| j.id == job.id) {
                for c in today.reconciliation.outcomes.iter().filter_map(cause) {
                    missed[c] += 1;
                }
                failed =
                    today.runs.iter().filter(|r| day.window.contains(r.start) && r.outcome.is_failure()).count() as i64;
            }
            JobFigures {
                id: job.id.clone(),
                name: job.name.clone(),
                last_success,
                running_secs: running.map_or(0, |r| r.duration_secs.max(0)),
                p95: durations::stats(&job.runs).map(|s| s.p95),
                missed,
                failed,
                category: job.category.clone(),
                enabled: job.enabled,
                quiet: super::job_state(job, recent, &[]),
                successes_in_a_row: job
                    .runs
                    .iter()
                    .rev()
                    .filter(|r| r.outcome != RunOutcome::InProgress)
                    .take_while(|r| r.outcome == RunOutcome::Succeeded)
                    .count(),
            }
        })
        .collect()
}
