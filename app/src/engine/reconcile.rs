//! Reconciliation: what should have happened against what did.
//!
//! (Owner: engine-reconcile. Types are the contract; the functions are stubs to fill.)
use super::{Diagnostic, Occurrence, ScheduleId, Window};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// How a run ended: msdb `sysjobhistory.run_status` 0..4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunOutcome {
    Failed,
    Succeeded,
    Retry,
    Canceled,
    InProgress,
}

impl RunOutcome {
    /// msdb `run_status`; `None` for a value msdb never writes.
    pub fn from_run_status(status: i64) -> Option<Self> {
        Some(match status {
            0 => RunOutcome::Failed,
            1 => RunOutcome::Succeeded,
            2 => RunOutcome::Retry,
            3 => RunOutcome::Canceled,
            4 => RunOutcome::InProgress,
            _ => return None,
        })
    }
}

/// Who started a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Trigger {
    /// Started by a schedule (which one, when the source says).
    Schedule(Option<ScheduleId>),
    /// Started by hand (a user, `sp_start_job`).
    Manual,
    /// Started by something else (an alert, a retry, the Agent starting, …); the text says what.
    Other(String),
}

/// One observed execution of a job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    pub start: DateTime<Utc>,
    /// Seconds; a run still going has the seconds so far.
    pub duration_secs: i64,
    pub outcome: RunOutcome,
    pub trigger: Trigger,
    /// The source's own message (sysjobhistory.message), possibly empty.
    pub message: String,
}

impl Run {
    pub fn end(&self) -> DateTime<Utc> {
        self.start + chrono::Duration::seconds(self.duration_secs.max(0))
    }
}

/// Why an expected occurrence has no run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MissCause {
    /// Nothing started it, and nothing on the instance explains why.
    NoRun,
    /// The Agent was alive but started no job at all on the instance during `period`.
    AgentZombie { period: Window },
    /// The Agent was (probably) down: it started again at `restarted_at`, and no job ran in
    /// between.
    AgentDown { restarted_at: DateTime<Utc> },
}

/// What reconciliation concluded about one expected occurrence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// Started within the grace of its time; `run` indexes the runs given.
    OnTime { run: usize },
    /// Started, but later than the grace.
    Late { run: usize, delay_secs: i64 },
    /// No run, and history would show one if it had happened.
    Missed { cause: MissCause },
    /// The job was still running its previous run (`run`): the Agent skips, it does not queue.
    SkippedRunning { run: usize },
    /// Older than the oldest history row kept for the job: absence proves nothing.
    Unknown,
    /// Not yet due (in the future, or within the grace of `now`).
    Upcoming,
}

/// What reconciliation concluded about one observed run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunClass {
    /// It is the run of the occurrence at this index.
    Expected { occurrence: usize },
    /// Started by hand.
    Manual,
    /// A retry or other run no schedule asked for.
    Unscheduled,
}

/// Knobs, all with defaults a DBA would pick.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// A run starting more than this many seconds after its occurrence is late. Default 60.
    pub grace_secs: i64,
    /// An instance where no job started while at least this many runs were due is a zombie
    /// Agent. Default 10.
    pub zombie_min_due: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { grace_secs: 60, zombie_min_due: 10 }
    }
}

/// Instance-wide facts reconciliation of one job needs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceContext {
    /// Spans in which the Agent was alive and started nothing (see [`zombie_periods`]).
    pub zombie_periods: Vec<Window>,
    /// When the Agent (re)started (msdb `syssessions.agent_start_date`).
    pub agent_starts: Vec<DateTime<Utc>>,
    /// Start instants of every run of every job on the instance, sorted.
    pub all_run_starts: Vec<DateTime<Utc>>,
}

/// One job's occurrences and runs, classified.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reconciliation {
    /// Parallel to the occurrences given.
    pub outcomes: Vec<Outcome>,
    /// Parallel to the runs given.
    pub runs: Vec<RunClass>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Classify every occurrence (sorted by `at`) and every run (sorted by `start`) of one job.
/// `history_horizon` is the start of the oldest history row kept for the job (`None`: the
/// history is complete for the window).
pub fn reconcile(
    _occurrences: &[Occurrence],
    _runs: &[Run],
    _window: Window,
    _now: DateTime<Utc>,
    _history_horizon: Option<DateTime<Utc>>,
    _ctx: &InstanceContext,
    _settings: &Settings,
) -> Reconciliation {
    Reconciliation::default()
}

/// Spans in which no job on the instance started while at least `min_due` runs were due.
/// `due` and `starts` are sorted instants of all jobs; only spans before `now` count.
pub fn zombie_periods(_due: &[DateTime<Utc>], _starts: &[DateTime<Utc>], _window: Window, _now: DateTime<Utc>, _min_due: usize) -> Vec<Window> {
    Vec::new()
}
