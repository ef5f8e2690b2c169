//! One instance at a time: every job forecast, reconciled, summarised. Pure, like the rest.
//!
//! Sources map their rows into an [`InstanceInput`]; pages read an [`InstanceReport`].
use super::reconcile::{InstanceContext, Reconciliation, Settings};
use super::{Diagnostic, Forecast, Occurrence, Run, Schedule, ScheduleId, Window};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

/// One schedule attached to a job (msdb sysschedules through sysjobschedules).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobSchedule {
    pub id: ScheduleId,
    pub name: String,
    /// The schedule's own enabled flag (also inside the Agent row; kept here for every dialect).
    pub enabled: bool,
    pub schedule: Schedule,
}

/// One job as a source sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobInput {
    /// The source's key (msdb job_id as text).
    pub id: String,
    pub name: String,
    pub category: String,
    pub enabled: bool,
    pub schedules: Vec<JobSchedule>,
    /// Runs (msdb step_id 0 outcome rows) in the window, sorted by start.
    pub runs: Vec<Run>,
    /// Start of the oldest history row the source still keeps for this job; `None` when the
    /// history is complete for the window.
    pub history_horizon: Option<DateTime<Utc>>,
    /// Problems the source met while reading this job's rows (corrupt values, …).
    pub diagnostics: Vec<Diagnostic>,
}

/// One instance (one SQL Server Agent) as a source sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceInput {
    pub name: String,
    pub tz: Tz,
    pub jobs: Vec<JobInput>,
    /// msdb syssessions.agent_start_date, sorted.
    pub agent_starts: Vec<DateTime<Utc>>,
}

/// One job, forecast and reconciled over a window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobReport {
    pub id: String,
    pub name: String,
    pub category: String,
    pub enabled: bool,
    /// One description per schedule, in schedule order.
    pub descriptions: Vec<String>,
    /// Expected occurrences in the window (merged over schedules).
    pub forecast: Forecast,
    pub runs: Vec<Run>,
    pub reconciliation: Reconciliation,
    pub history_horizon: Option<DateTime<Utc>>,
    /// The last run that started before `now`.
    pub last_run: Option<Run>,
    /// The first occurrence strictly after `now`.
    pub next_expected: Option<Occurrence>,
    /// Occurrences classified as missed in the window.
    pub missed: usize,
    pub late: usize,
    pub skipped: usize,
    /// Source and schedule diagnostics together.
    pub diagnostics: Vec<Diagnostic>,
}

/// One instance over a window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceReport {
    pub name: String,
    pub tz: Tz,
    pub window: Window,
    pub now: DateTime<Utc>,
    pub jobs: Vec<JobReport>,
    pub context: InstanceContext,
}

/// Forecast every job over `window`, find zombie spans across the instance, reconcile each job.
pub fn analyze(_input: &InstanceInput, window: Window, now: DateTime<Utc>, _settings: &Settings) -> InstanceReport {
    InstanceReport {
        name: _input.name.clone(),
        tz: _input.tz,
        window,
        now,
        jobs: Vec::new(),
        context: InstanceContext::default(),
    }
}
