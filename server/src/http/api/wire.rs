//! What the JSON API answers: plain serde types with their OpenAPI schemas, apart from the code
//! that builds them (`build.rs`). Instants are RFC 3339 in UTC unless a field says otherwise.
use chrono::{DateTime, FixedOffset, Utc};
use serde::Serialize;
use utoipa::ToSchema;

/// An error: what was wrong, in words naming the parameter or the thing not found.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    /// e.g. `from must be an RFC 3339 instant (got "yesterday")`, `job not found`.
    pub error: String,
    /// `bad_request`, `not_found`, `source_unavailable` or `internal`.
    pub kind: String,
}

/// `GET /api/instances`.
#[derive(Serialize, ToSchema)]
pub struct Instances {
    pub instances: Vec<Instance>,
}

/// One configured instance and how reading it goes.
#[derive(Serialize, ToSchema)]
pub struct Instance {
    pub name: String,
    /// The source kind (`mssql`, `pg_cron`, `mysql_events`, `jobactivity`, `mysql_job_table`,
    /// `service_broker`, `primentra`, `sqlite_demo`).
    pub kind: String,
    /// The instance's IANA zone, once it has been read.
    pub time_zone: Option<String>,
    /// `Ok` (the last read succeeded), `Unreachable` (it failed; older data may still be
    /// served) or `Waiting` (not read yet).
    pub state: String,
    /// When the last good read finished (in the instance's offset).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub last_good: Option<DateTime<FixedOffset>>,
    /// When the last read was tried.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub last_attempt: Option<DateTime<FixedOffset>>,
    /// Why the last read failed; never a secret.
    pub error: Option<String>,
    /// Seconds between reads; absent for a fixed snapshot (the demo).
    pub poll_secs: Option<u64>,
    /// Jobs in the last good read.
    pub jobs: Option<usize>,
    /// Stretches in which the instance could not be read, newest last.
    pub outages: Vec<Outage>,
    pub tags: Vec<String>,
    /// Reads of the instance (attempts, failed ones included) since Sundial started.
    pub reads: u64,
    /// What it is doing now, as its one judgment says (the fleet page's badge): `waiting`,
    /// `reading`, `unreachable`, `scheduler_stopped`, `zombie` or `maintenance`.
    pub condition: String,
    /// Its scheduler's stop or zombie span still going: since when at the latest, and its
    /// last sign of life before.
    pub scheduler_gap: Option<SchedulerGap>,
}

/// An instance's scheduler silent now: stopped, or up and starting nothing.
#[derive(Serialize, ToSchema)]
pub struct SchedulerGap {
    /// `scheduler_stopped` or `zombie`.
    pub kind: String,
    /// When it was down at the latest: the first run due that did not start.
    #[schema(value_type = String, format = DateTime)]
    pub since: DateTime<FixedOffset>,
    /// Its last sign of life: the latest start or end of a run before.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub last_seen: Option<DateTime<FixedOffset>>,
    /// Runs missed since.
    pub missed: usize,
}

/// A stretch in which an instance could not be read.
#[derive(Serialize, ToSchema)]
pub struct Outage {
    #[schema(value_type = String, format = DateTime)]
    pub start: DateTime<FixedOffset>,
    /// Absent while it lasts.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub end: Option<DateTime<FixedOffset>>,
    pub error: String,
}

/// The window and moment a report is for.
#[derive(Serialize, ToSchema)]
pub struct Span {
    /// The instance's name.
    pub instance: String,
    /// Its IANA zone (schedules are in it).
    pub time_zone: String,
    #[schema(value_type = String, format = DateTime)]
    pub from: DateTime<Utc>,
    #[schema(value_type = String, format = DateTime)]
    pub to: DateTime<Utc>,
    /// The moment the view is as of: later runs had not happened, later occurrences are
    /// `upcoming`.
    #[schema(value_type = String, format = DateTime)]
    pub as_of: DateTime<Utc>,
}

/// `GET /api/instances/{instance}/jobs`.
#[derive(Serialize, ToSchema)]
pub struct Jobs {
    #[serde(flatten)]
    pub span: Span,
    /// What this instance's scheduler cannot tell, each with why: the counts these touch are
    /// unknown (`null`), never 0.
    pub cannot_tell: Vec<CannotTell>,
    pub jobs: Vec<Job>,
}

/// One thing a scheduler's tables cannot tell.
#[derive(Serialize, ToSchema)]
pub struct CannotTell {
    pub what: String,
    pub why: String,
}

/// One job over the window.
#[derive(Serialize, ToSchema)]
pub struct Job {
    /// The path segment of its timeline.
    pub id: String,
    pub name: String,
    pub category: String,
    /// Its owner as the scheduler records it (SQL Agent: the owner's login; pg_cron: the job's
    /// `username`; MySQL events: the `DEFINER`; the MySQL `job` table: `job_owner`); `null` when
    /// the scheduler keeps none.
    pub owner: Option<String>,
    pub enabled: bool,
    pub schedules: Vec<ScheduleInfo>,
    pub counts: Counts,
    /// The next expected run after `as_of`.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub next_run: Option<DateTime<Utc>>,
    /// Where the job's known history starts, when it starts after the window's start (before
    /// it occurrences are `unknown`); absent: the whole window is known.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub history_from: Option<DateTime<Utc>>,
    /// Where the scheduler's own history starts, when the runs before it come from Sundial's
    /// store (the scheduler purged them); absent: every run is the scheduler's.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub scheduler_history_from: Option<DateTime<Utc>>,
    /// Where the job stands now: its worst open problem's kind (`unreachable`,
    /// `scheduler_stopped`, `zombie`, `missed`, `failing`, `no_success`, `deadline_missed`,
    /// `running_long`, `next_run_disagrees`, `stale`, `too_short`), else what the window's runs say
    /// (`recovered`, `running`, `ok`, `norun`, `disabled`). The jobs page shows the same word.
    pub state: String,
    /// Its open problems now, worst first: the same objects `/api/triage` lists for it (its
    /// own, and its instance's, which stop every job).
    pub problems: Vec<super::triage::Problem>,
}

/// One of a job's schedules, described as SSMS would.
#[derive(Serialize, ToSchema)]
pub struct ScheduleInfo {
    pub id: i64,
    pub name: String,
    pub enabled: bool,
    pub description: String,
}

/// How the window went: occurrences by outcome, runs by outcome.
#[derive(Serialize, ToSchema, Default)]
pub struct Counts {
    pub on_time: usize,
    pub late: usize,
    pub missed: usize,
    /// Skipped: the previous run was still going.
    pub skipped: usize,
    /// History cannot tell (purged, or not observed).
    pub unknown: usize,
    /// Not run inside a planned maintenance window (not missed).
    pub maintenance: usize,
    pub upcoming: usize,
    pub runs: usize,
    /// Runs that succeeded, that failed: `null` when the source keeps no outcome of any run of
    /// the window (MariaDB's events seen only by `LAST_EXECUTED`): unknown, never 0.
    pub succeeded: Option<usize>,
    pub failed: Option<usize>,
    pub retry: usize,
    pub canceled: usize,
    pub in_progress: usize,
    pub crashed: usize,
    pub abandoned: usize,
    /// Runs whose outcome the source does not keep.
    pub outcome_unknown: usize,
    /// Why some counts are unknown, when they are.
    pub unknown_because: Option<String>,
}

/// `GET /api/instances/{instance}/jobs/{job}/timeline`.
#[derive(Serialize, ToSchema)]
pub struct Timeline {
    #[serde(flatten)]
    pub span: Span,
    pub job: JobRef,
    pub occurrences: Vec<Occurrence>,
    pub runs: Vec<Run>,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub next_run: Option<DateTime<Utc>>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Serialize, ToSchema)]
pub struct JobRef {
    pub id: String,
    pub name: String,
}

/// One run the schedules asked for, and what became of it.
#[derive(Serialize, ToSchema)]
pub struct Occurrence {
    #[schema(value_type = String, format = DateTime)]
    pub expected_at: DateTime<Utc>,
    pub schedule_id: i64,
    /// `on_time`, `late`, `missed`, `skipped` (the previous run was still going), `unknown`
    /// (history cannot tell), `maintenance` (not run inside a planned maintenance window: not
    /// missed) or `upcoming`.
    pub outcome: String,
    /// Why it was missed: `no_run`, `scheduler_zombie`, `scheduler_down` (it came back) or
    /// `scheduler_stopped` (it says it is off now).
    pub cause: Option<String>,
    /// A sentence on the cause.
    pub explanation: Option<String>,
    /// The index in `runs` of the run that answered it.
    pub run: Option<usize>,
    /// How late it started, in seconds.
    pub delay_secs: Option<i64>,
}

/// One run that happened.
#[derive(Serialize, ToSchema)]
pub struct Run {
    #[schema(value_type = String, format = DateTime)]
    pub started_at: DateTime<Utc>,
    /// Absent while it is going.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub ended_at: Option<DateTime<Utc>>,
    pub duration_secs: i64,
    /// `succeeded`, `failed`, `retry`, `canceled`, `in_progress`, `crashed`, `abandoned` or
    /// `unknown`.
    pub outcome: String,
    /// `schedule`, `manual` or what else started it.
    pub trigger: String,
    /// `expected` (it answered an occurrence), `manual` or `unscheduled`.
    pub class: String,
    /// The source's own message for the run (msdb: the job-outcome line).
    pub message: String,
    /// The run's steps, in order, as the scheduler recorded them (SQL Server Agent: each step
    /// attempt of `sysjobhistory`, retries included; a run still going: the steps done and the
    /// one executing); empty where the source keeps no steps.
    pub steps: Vec<Step>,
}

/// One step of a run (SQL Server Agent: one `sysjobhistory` row with `step_id > 0`).
#[derive(Serialize, ToSchema)]
pub struct Step {
    /// msdb `step_id`; 0 for a line a scheduler says without a step number.
    pub step_id: i64,
    pub name: String,
    /// `succeeded`, `failed`, `retry`, `canceled` or `in_progress` (executing now); absent for
    /// a line that says none.
    pub status: Option<String>,
    /// The step's own message, as the scheduler wrote it.
    pub message: String,
    /// msdb `sql_message_id` (0: none).
    pub sql_message_id: i64,
    /// msdb `sql_severity` (0: none).
    pub sql_severity: i64,
    /// Retries attempted before this attempt.
    pub retries: i64,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub started_at: Option<DateTime<Utc>>,
    /// Seconds (so far, for the step executing now).
    pub duration_secs: Option<i64>,
    /// msdb `sysjobsteps.subsystem` (TSQL, CmdExec, PowerShell, SSIS, …); empty when unknown.
    pub subsystem: String,
}

/// A problem Sundial met reading or judging the job.
#[derive(Serialize, ToSchema)]
pub struct Diagnostic {
    /// `info`, `warning` or `error`.
    pub severity: String,
    pub field: Option<String>,
    pub value: Option<String>,
    pub message: String,
}

/// `GET /api/log`.
#[derive(Serialize, ToSchema)]
pub struct Log {
    pub events: Vec<Event>,
    /// Pass as `cursor` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Events under the whole filter, every page.
    pub total: usize,
    /// Events per kind under every filter but `kind`, every page (`{"failed": 12, …}`).
    pub counts: std::collections::BTreeMap<String, usize>,
    /// Across the fleet: the instances that cannot be read now.
    pub unreachable: Vec<Unreachable>,
}

/// An instance the fleet-wide log could not read now.
#[derive(Serialize, ToSchema)]
pub struct Unreachable {
    pub instance: String,
    /// Why (safe to show).
    pub error: String,
    /// Whether its last good read's events are in the answer (`false`: it was never read).
    pub listed: bool,
}

/// One line of the scheduler log, newest first.
#[derive(Clone, Serialize, ToSchema)]
pub struct Event {
    #[schema(value_type = String, format = DateTime)]
    pub at: DateTime<Utc>,
    pub instance: String,
    /// Empty for an instance-wide event (a scheduler start, a zombie stretch).
    pub job_id: String,
    pub job: Option<String>,
    /// `started`, `succeeded`, `failed`, `retry`, `canceled`, `running`, `crashed`, `skipped`,
    /// `missed`, `late`, `zombie` or `agent-start`.
    pub kind: String,
    pub text: String,
    /// For a line standing for several occurrences (consecutive misses): each of them.
    #[schema(value_type = Vec<String>)]
    pub members: Vec<DateTime<Utc>>,
}
