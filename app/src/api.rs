//! Server functions and the wire types pages receive.
//!
//! Wire types are small and view-ready: every instant comes as a [`TimePoint`], i.e. epoch
//! milliseconds (for positioning on a time axis) plus the wall-clock text in the instance's
//! time zone (for reading). Pages never format times themselves, so the server render and the
//! hydrated browser agree to the character.
//!
//! Errors are [`ApiError`]s: they say what failed (a bad window, an unknown job, an instance
//! whose source cannot be read) and never carry internals (paths, SQL, connection strings).
use crate::engine::{RunOutcome, Severity};
use leptos::prelude::*;
use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

/// The windows pages offer, in days.
pub const WINDOW_DAYS: [u32; 3] = [1, 7, 30];
/// The window a page shows when the URL does not say.
pub const DEFAULT_DAYS: u32 = 7;
/// The message for any other window.
pub const DAYS_MESSAGE: &str = "days must be 1, 7 or 30";

/// Check a requested window length.
pub fn check_days(days: u32) -> Result<u32, ApiError> {
    if WINDOW_DAYS.contains(&days) { Ok(days) } else { Err(ApiError::BadRequest(DAYS_MESSAGE.into())) }
}

/// Parse `?days=` as a page or an endpoint receives it: absent means [`DEFAULT_DAYS`];
/// anything but 1, 7 or 30 is a [`ApiError::BadRequest`].
pub fn parse_days(raw: Option<&str>) -> Result<u32, ApiError> {
    match raw {
        None => Ok(DEFAULT_DAYS),
        Some(s) => s.trim().parse::<u32>().map_err(|_| ApiError::BadRequest(DAYS_MESSAGE.into())).and_then(check_days),
    }
}

/// What went wrong answering a page or an endpoint. The texts are meant for users.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum ApiError {
    /// The request itself is wrong (e.g. `days must be 1, 7 or 30`).
    #[error("{0}")]
    BadRequest(String),
    /// No such thing (e.g. a job id the instance does not have).
    #[error("{what} not found")]
    NotFound { what: String },
    /// The instance's source could not be read. `reason` is safe to show (it names what
    /// failed and what grant is missing, never a secret); more is in the server's log.
    #[error("instance {instance} is unavailable: {reason}{}", last_good.as_ref().map(|t| format!(" (last good read {t} UTC)")).unwrap_or_default())]
    Unavailable { instance: String, reason: String, last_good: Option<String> },
    /// The request did not reach the server, or its answer could not be read.
    #[error("{0}")]
    Transport(String),
}

impl ApiError {
    /// The HTTP status this error is answered with.
    pub fn status(&self) -> u16 {
        match self {
            ApiError::BadRequest(_) => 400,
            ApiError::NotFound { .. } => 404,
            ApiError::Unavailable { .. } => 503,
            ApiError::Transport(_) => 502,
        }
    }
}

impl FromServerFnError for ApiError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        match value {
            ServerFnErrorErr::Args(_) | ServerFnErrorErr::MissingArg(_) => {
                ApiError::BadRequest("the request's arguments are not valid".into())
            }
            ServerFnErrorErr::Request(_) => ApiError::Transport("the server could not be reached".into()),
            _ => ApiError::Transport("the server's answer could not be read".into()),
        }
    }
}

/// How Sundial's reading of one instance goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SourceState {
    /// The last read succeeded.
    Ok,
    /// The last read failed (unreachable, refused, timed out); older data may still show.
    Unreachable,
    /// Not read yet (Sundial just started).
    Waiting,
}

/// One configured instance, as the fleet overview lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceStatus {
    pub name: String,
    /// `mssql`, `pg_cron`, `mysql_events`, `sqlite_demo`, …
    pub kind: String,
    /// The zone of the last good read.
    pub tz: Option<String>,
    pub state: SourceState,
    /// `YYYY-MM-DD HH:MM:SS` UTC of the last good read.
    pub last_good: Option<String>,
    /// `YYYY-MM-DD HH:MM:SS` UTC of the last attempt.
    pub last_attempt: Option<String>,
    /// Why the last attempt failed (safe to show).
    pub error: Option<String>,
    /// Findings about the instance (missing grants, zone guesses, a stopped scheduler, …).
    pub notes: Vec<DiagnosticLine>,
    /// Jobs in the last good read.
    pub jobs: Option<usize>,
    /// `key=value` tags from the configuration.
    pub tags: Vec<String>,
}

/// One line of the scheduler log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    pub at: TimePoint,
    /// Empty for an instance-wide line.
    pub job_id: String,
    pub job_name: String,
    pub kind: crate::engine::log::LogKind,
    pub text: String,
}

/// The scheduler log of an instance over a window, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogData {
    pub instance: InstanceHead,
    /// Whether only problems are listed.
    pub problems_only: bool,
    pub lines: Vec<LogLine>,
    /// Older lines left out (the page lists at most [`LOG_LINES`]).
    pub hidden: usize,
    /// Lines per kind key over the whole window (before the cap), for the filter links.
    pub counts: Vec<(String, usize)>,
}

/// The most lines the log page lists.
pub const LOG_LINES: usize = 500;

/// The fleet overview.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetData {
    pub instances: Vec<InstanceStatus>,
}

/// One instant: epoch milliseconds (positioning) and wall-clock text in the instance's zone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimePoint {
    pub ms: i64,
    /// `YYYY-MM-DD HH:MM:SS` in the instance's time zone.
    pub local: String,
}

/// The instance and window a page shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceHead {
    pub name: String,
    /// IANA name of the instance's zone.
    pub tz: String,
    /// The instance's "now"; the window ends here.
    pub now: TimePoint,
    pub days: u32,
    pub window_start: TimePoint,
    pub window_end: TimePoint,
    /// Set when the source cannot be read now and the page shows its last good read: why,
    /// and since when (safe to show).
    #[serde(default)]
    pub stale: Option<String>,
    /// What starts the jobs, for sentences: "SQL Agent", "pg_cron", "The event scheduler" …
    #[serde(default = "sql_agent")]
    pub scheduler: String,
}

fn sql_agent() -> String {
    "SQL Agent".into()
}

/// The scheduler's name for a source kind, to start a sentence with.
pub fn scheduler_label(kind: &str) -> &'static str {
    match kind {
        "pg_cron" => "pg_cron",
        "mysql_events" => "The event scheduler",
        "seed001" => "The worker role",
        "seed002" => "The job runner",
        "seed003" => "The Service Broker scheduler",
        "seed004" => "The Primentra dispatcher",
        _ => "SQL Agent",
    }
}

/// [`scheduler_label`] in the middle of a sentence ("while the event scheduler …").
pub fn scheduler_mid(label: &str) -> String {
    match label.strip_prefix("The ") {
        Some(rest) => format!("the {rest}"),
        None => label.to_owned(),
    }
}

/// A span in which the Agent was alive and started no job at all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZombieSpan {
    pub start: TimePoint,
    pub end: TimePoint,
    /// Runs of all jobs that were due inside the span.
    pub due: usize,
}

/// A finding about a job's data or schedules, as one line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticLine {
    pub severity: Severity,
    pub text: String,
}

/// A job's last run, for the list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastRun {
    pub start: TimePoint,
    pub outcome: RunOutcome,
    /// e.g. `3m 12s`
    pub duration: String,
}

/// One row of the jobs list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobRow {
    pub id: String,
    pub name: String,
    pub category: String,
    pub enabled: bool,
    /// One description per schedule.
    pub schedules: Vec<String>,
    pub last_run: Option<LastRun>,
    pub next_expected: Option<TimePoint>,
    pub missed: usize,
    /// Of `missed`, those inside a zombie span (the Agent started nothing).
    pub missed_zombie: usize,
    pub late: usize,
    pub skipped: usize,
    pub diagnostics: Vec<DiagnosticLine>,
}

/// The jobs list: what `/` shows and `GET /api/jobs` returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobsData {
    pub instance: InstanceHead,
    pub zombies: Vec<ZombieSpan>,
    pub jobs: Vec<JobRow>,
}

/// What reconciliation said about one expected occurrence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    OnTime,
    Late,
    Missed,
    Skipped,
    Unknown,
    Upcoming,
}

impl Mark {
    /// CSS class suffix and `data-kind` value.
    pub fn key(self) -> &'static str {
        match self {
            Mark::OnTime => "ontime",
            Mark::Late => "late",
            Mark::Missed => "missed",
            Mark::Skipped => "skipped",
            Mark::Unknown => "unknown",
            Mark::Upcoming => "upcoming",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Mark::OnTime => "On time",
            Mark::Late => "Late",
            Mark::Missed => "Missed",
            Mark::Skipped => "Skipped",
            Mark::Unknown => "Unknown",
            Mark::Upcoming => "Upcoming",
        }
    }
}

/// Why a missed occurrence has no run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// The Agent was alive and started nothing on the whole instance.
    Zombie,
    /// The Agent was down (it restarted later).
    Down,
    /// Nothing on the instance explains it.
    NoRun,
}

impl Cause {
    /// `data-cause` value.
    pub fn key(self) -> &'static str {
        match self {
            Cause::Zombie => "zombie",
            Cause::Down => "down",
            Cause::NoRun => "no-run",
        }
    }
}

/// One expected occurrence on the timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OccurrenceView {
    pub at: TimePoint,
    pub mark: Mark,
    pub cause: Option<Cause>,
    /// What happened, in words (`Missed: SQL Agent started no job between … and …`); empty
    /// for on-time and upcoming occurrences.
    pub note: String,
}

/// Routine occurrences (on time, upcoming, unknown) of a dense job, drawn as one stretch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarkSpan {
    pub start: TimePoint,
    pub end: TimePoint,
    pub mark: Mark,
    pub count: usize,
}

/// Consecutive succeeded scheduled runs of a dense job, drawn as one stretch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSpan {
    pub start: TimePoint,
    pub end_ms: i64,
    pub end_local: String,
    pub count: usize,
}

/// How a run relates to the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// The run of an expected occurrence.
    Scheduled,
    /// Started by hand.
    Manual,
    /// A retry or other run no schedule asked for.
    Unscheduled,
}

/// One observed run on the timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunView {
    pub start: TimePoint,
    pub end_ms: i64,
    pub duration_secs: i64,
    /// e.g. `3m 12s`
    pub duration: String,
    pub outcome: RunOutcome,
    pub kind: RunKind,
    /// Who started it, in words.
    pub trigger: String,
    /// The history message, shortened; empty on the chart for succeeded runs.
    pub message: String,
}

/// One row of the table under the chart: an expected occurrence (with the run that served
/// it), or a run no occurrence claims (manual, unscheduled).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableLine {
    /// When it was due, or when the run started.
    pub at: TimePoint,
    pub expected: Option<Mark>,
    pub cause: Option<Cause>,
    pub note: String,
    pub run: Option<RunView>,
}

/// One tick of the time axis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tick {
    pub ms: i64,
    /// Empty for an unlabelled tick.
    pub label: String,
    /// A local midnight.
    pub major: bool,
}

/// One job's timeline: what `/jobs/:id` shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineData {
    pub instance: InstanceHead,
    pub job: JobRow,
    /// Expected occurrences in the window, all of them.
    pub expected_count: usize,
    /// Runs in the window, all of them.
    pub run_count: usize,
    /// Occurrences drawn one by one: every missed, late and skipped one, and the routine ones
    /// unless the job is dense (then those are in `occurrence_spans`).
    pub occurrences: Vec<OccurrenceView>,
    pub occurrence_spans: Vec<MarkSpan>,
    /// Runs drawn one by one: all of them, unless the job is dense (then consecutive
    /// succeeded scheduled runs are in `run_spans`).
    pub runs: Vec<RunView>,
    pub run_spans: Vec<RunSpan>,
    /// The table, newest first: every problem, and the newest routine lines.
    pub lines: Vec<TableLine>,
    /// Older routine lines left out of `lines`.
    pub hidden_lines: usize,
    /// The oldest history row kept for the job, when it falls inside the window: before it,
    /// absence of a run proves nothing.
    pub history_horizon: Option<TimePoint>,
    pub zombies: Vec<ZombieSpan>,
    pub agent_starts: Vec<TimePoint>,
    pub ticks: Vec<Tick>,
}

/// Every configured instance and how reading it goes.
#[server(prefix = "/api/fn", endpoint = "fleet")]
pub async fn fleet() -> Result<FleetData, ApiError> {
    Ok(ssr::fleet().await)
}

/// The jobs list of `instance` (`None`: the first configured) over the `days`-long window
/// ending at the instance's "now".
#[server(prefix = "/api/fn", endpoint = "jobs")]
pub async fn jobs(instance: Option<String>, days: u32) -> Result<JobsData, ApiError> {
    let days = check_days(days)?;
    let report = ssr::report(instance.as_deref(), days).await?;
    let mut data = ssr::jobs_data(&report, days);
    ssr::decorate_here(&mut data.instance).await;
    Ok(data)
}

/// The scheduler log of `instance` over the `days`-long window; only problems when asked.
#[server(prefix = "/api/fn", endpoint = "instance_log")]
pub async fn instance_log(instance: Option<String>, days: u32, problems_only: bool) -> Result<LogData, ApiError> {
    let days = check_days(days)?;
    let report = ssr::report(instance.as_deref(), days).await?;
    let events = ssr::source_log(instance.as_deref()).await;
    let mut data = ssr::log_data(&report, &events, days, problems_only);
    ssr::decorate_here(&mut data.instance).await;
    Ok(data)
}

/// One job's timeline over the `days`-long window ending at the instance's "now".
#[server(prefix = "/api/fn", endpoint = "job_timeline")]
pub async fn job_timeline(instance: Option<String>, job_id: String, days: u32) -> Result<TimelineData, ApiError> {
    let days = check_days(days)?;
    let report = ssr::report(instance.as_deref(), days).await?;
    let mut head = ssr::head(&report, days);
    ssr::decorate_here(&mut head).await;
    let mut data = ssr::timeline_data(&report, &job_id, days, &head.scheduler)?;
    data.instance = head;
    Ok(data)
}

#[cfg(feature = "ssr")]
pub mod ssr {
    //! The seam between pages and the server's sources, and the mapping of engine reports to
    //! wire types.
    use super::*;
    use crate::engine::fleet::{InstanceReport, JobReport};
    use crate::engine::reconcile::{MissCause, Outcome, RunClass, Trigger};
    use crate::engine::{Diagnostic, Run, Window};
    use chrono::{DateTime, NaiveTime, TimeZone, Utc};
    use chrono_tz::Tz;
    use std::{future::Future, pin::Pin, sync::Arc};

    pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

    /// Why a backend has no report. Both texts are shown to users, so a backend puts only
    /// safe words in them (what failed, which grant is missing) and logs the rest itself.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum ReportError {
        /// No instance by that name.
        UnknownInstance,
        /// The instance's source cannot be read now.
        Unavailable { instance: String, reason: String, last_good: Option<DateTime<Utc>> },
    }

    impl From<ReportError> for ApiError {
        fn from(e: ReportError) -> Self {
            match e {
                ReportError::UnknownInstance => ApiError::NotFound { what: "instance".into() },
                ReportError::Unavailable { instance, reason, last_good } => ApiError::Unavailable {
                    instance,
                    reason,
                    last_good: last_good.map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string()),
                },
            }
        }
    }

    /// What pages read. The server implements it over its sources (polled, cached); tests
    /// implement it over fixtures.
    pub trait Backend: Send + Sync + 'static {
        /// The report of `instance` (`None`: the first configured) for the `days`-long window
        /// ending at the instance's "now".
        fn report(&self, instance: Option<&str>, days: u32) -> BoxFuture<'_, Result<Arc<InstanceReport>, ReportError>>;

        /// Every instance and how reading it goes, in configuration order.
        fn instances(&self) -> BoxFuture<'_, Vec<InstanceStatus>>;

        /// The source's own log (Primentra's SchedulerLog) of its last good read; most
        /// sources have none (their log is derived from runs).
        fn source_log(&self, _instance: Option<&str>) -> BoxFuture<'_, Vec<crate::engine::log::LogEvent>> {
            Box::pin(async { Vec::new() })
        }
    }

    /// Put in leptos context by the server.
    #[derive(Clone)]
    pub struct BackendHandle(pub Arc<dyn Backend>);

    /// The report through the [`BackendHandle`] in context.
    pub async fn report(instance: Option<&str>, days: u32) -> Result<Arc<InstanceReport>, ApiError> {
        let Some(BackendHandle(backend)) = use_context::<BackendHandle>() else {
            tracing_log("no BackendHandle in context");
            return Err(ApiError::Transport("the server is not set up".into()));
        };
        backend.report(instance, days).await.map_err(ApiError::from)
    }

    /// The source's own log through the [`BackendHandle`] in context.
    pub async fn source_log(instance: Option<&str>) -> Vec<crate::engine::log::LogEvent> {
        match use_context::<BackendHandle>() {
            Some(BackendHandle(backend)) => backend.source_log(instance).await,
            None => Vec::new(),
        }
    }

    /// The log page's data: [`crate::engine::log::derive`], filtered, capped, made wire-ready.
    pub fn log_data(report: &InstanceReport, events: &[crate::engine::log::LogEvent], days: u32, problems_only: bool) -> LogData {
        let all = crate::engine::log::derive(report, events);
        let mut counts: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
        for e in &all {
            *counts.entry(e.kind.key().to_owned()).or_default() += 1;
        }
        let names: std::collections::HashMap<&str, &str> = report.jobs.iter().map(|j| (j.id.as_str(), j.name.as_str())).collect();
        let kept: Vec<&crate::engine::log::LogEvent> = all.iter().filter(|e| !problems_only || e.kind.is_problem()).collect();
        let hidden = kept.len().saturating_sub(LOG_LINES);
        let lines = kept
            .into_iter()
            .take(LOG_LINES)
            .map(|e| LogLine {
                at: point(e.at, report.tz),
                job_id: e.job_id.clone(),
                job_name: names.get(e.job_id.as_str()).map(|n| n.to_string()).unwrap_or_default(),
                kind: e.kind,
                text: e.text.clone(),
            })
            .collect();
        LogData { instance: head(report, days), problems_only, lines, hidden, counts: counts.into_iter().collect() }
    }

    /// The fleet through the [`BackendHandle`] in context.
    pub async fn fleet() -> FleetData {
        match use_context::<BackendHandle>() {
            Some(BackendHandle(backend)) => FleetData { instances: backend.instances().await },
            None => FleetData { instances: Vec::new() },
        }
    }

    fn tracing_log(message: &str) {
        leptos::logging::warn!("sundial: {message}");
    }

    /// Format an instant for the wire.
    pub fn point(t: DateTime<Utc>, tz: Tz) -> TimePoint {
        TimePoint { ms: t.timestamp_millis(), local: t.with_timezone(&tz).format("%Y-%m-%d %H:%M:%S").to_string() }
    }

    /// `45s`, `3m 12s`, `1h 05m`, `2d 03h`.
    pub fn duration_text(secs: i64) -> String {
        let s = secs.max(0);
        match s {
            0..60 => format!("{s}s"),
            60..3600 => format!("{}m {:02}s", s / 60, s % 60),
            3600..86400 => format!("{}h {:02}m", s / 3600, (s % 3600) / 60),
            _ => format!("{}d {:02}h", s / 86400, (s % 86400) / 3600),
        }
    }

    /// The page head of a report, before [`decorate`].
    pub fn head(report: &InstanceReport, days: u32) -> InstanceHead {
        InstanceHead {
            name: report.name.clone(),
            tz: report.tz.name().to_string(),
            now: point(report.now, report.tz),
            days,
            window_start: point(report.window.start, report.tz),
            window_end: point(report.window.end, report.tz),
            stale: None,
            scheduler: sql_agent(),
        }
    }

    /// Fill in what only the backend knows about the instance, from one look at its status:
    /// the scheduler's name (from the source kind) and, when the latest read failed, the
    /// stale note.
    pub async fn decorate(backend: &dyn Backend, head: &mut InstanceHead) {
        if let Some(status) = backend.instances().await.into_iter().find(|i| i.name == head.name) {
            head.scheduler = scheduler_label(&status.kind).to_owned();
            head.stale = stale_note(&status);
        }
    }

    /// [`decorate`] through the [`BackendHandle`] in context.
    pub async fn decorate_here(head: &mut InstanceHead) {
        if let Some(BackendHandle(backend)) = use_context::<BackendHandle>() {
            decorate(backend.as_ref(), head).await;
        }
    }

    /// When the instance's latest read failed although a report exists (its last good read),
    /// the sentence a page shows about it.
    pub fn stale_note(status: &InstanceStatus) -> Option<String> {
        if status.state != SourceState::Unreachable {
            return None;
        }
        Some(format!(
            "{} cannot be read now ({}); this is its last good read{}",
            status.name,
            status.error.as_deref().unwrap_or("unknown error"),
            status.last_good.as_ref().map(|t| format!(", from {t} UTC")).unwrap_or_default()
        ))
    }


    fn zombies(report: &InstanceReport) -> Vec<ZombieSpan> {
        report
            .context
            .zombie_periods
            .iter()
            .map(|p| ZombieSpan {
                start: point(p.start, report.tz),
                end: point(p.end, report.tz),
                due: report
                    .jobs
                    .iter()
                    .map(|j| j.forecast.occurrences.iter().filter(|o| p.contains(o.at)).count())
                    .sum(),
            })
            .collect()
    }

    fn diagnostic_line(d: &Diagnostic) -> DiagnosticLine {
        DiagnosticLine { severity: d.severity, text: d.to_string() }
    }

    fn row(job: &JobReport, tz: Tz) -> JobRow {
        let missed_zombie = job
            .reconciliation
            .outcomes
            .iter()
            .filter(|o| matches!(o, Outcome::Missed { cause: MissCause::AgentZombie { .. } }))
            .count();
        let mut diagnostics: Vec<DiagnosticLine> = job.diagnostics.iter().map(diagnostic_line).collect();
        for d in job.forecast.diagnostics.iter().chain(&job.reconciliation.diagnostics) {
            let line = diagnostic_line(d);
            if !diagnostics.contains(&line) {
                diagnostics.push(line);
            }
        }
        JobRow {
            id: job.id.clone(),
            name: job.name.clone(),
            category: job.category.clone(),
            enabled: job.enabled,
            schedules: job.descriptions.clone(),
            last_run: job.last_run.as_ref().map(|r| LastRun {
                start: point(r.start, tz),
                outcome: r.outcome,
                duration: duration_text(r.duration_secs),
            }),
            next_expected: job.next_expected.as_ref().map(|o| point(o.at, tz)),
            missed: job.missed,
            missed_zombie,
            late: job.late,
            skipped: job.skipped,
            diagnostics,
        }
    }

    /// The jobs list of a report.
    pub fn jobs_data(report: &InstanceReport, days: u32) -> JobsData {
        JobsData {
            instance: head(report, days),
            zombies: zombies(report),
            jobs: report.jobs.iter().map(|j| row(j, report.tz)).collect(),
        }
    }

    fn trigger_text(t: &Trigger) -> String {
        match t {
            Trigger::Schedule(Some(id)) => format!("Schedule {id}"),
            Trigger::Schedule(None) => "Schedule".into(),
            Trigger::Manual => "Manual".into(),
            Trigger::Other(s) if s.is_empty() => "Other".into(),
            Trigger::Other(s) => s.clone(),
        }
    }

    /// History messages can be pages long; the timeline keeps the first 300 characters.
    fn shorten(s: &str) -> String {
        const MAX: usize = 300;
        let s = s.trim();
        if s.chars().count() <= MAX {
            s.to_string()
        } else {
            let mut out: String = s.chars().take(MAX).collect();
            out.push('…');
            out
        }
    }

    fn run_view(r: &Run, class: Option<&RunClass>, tz: Tz) -> RunView {
        let kind = match (class, &r.trigger) {
            (Some(RunClass::Expected { .. }), _) => RunKind::Scheduled,
            (Some(RunClass::Manual), _) | (None, Trigger::Manual) => RunKind::Manual,
            (Some(RunClass::Unscheduled), _) => RunKind::Unscheduled,
            (None, Trigger::Schedule(_)) => RunKind::Scheduled,
            (None, Trigger::Other(_)) => RunKind::Unscheduled,
        };
        RunView {
            start: point(r.start, tz),
            end_ms: r.end().timestamp_millis(),
            duration_secs: r.duration_secs.max(0),
            duration: duration_text(r.duration_secs),
            outcome: r.outcome,
            kind,
            trigger: trigger_text(&r.trigger),
            message: shorten(&r.message),
        }
    }

    fn occurrence_view(
        at: DateTime<Utc>,
        outcome: Option<&Outcome>,
        runs: &[Run],
        horizon: Option<DateTime<Utc>>,
        tz: Tz,
        scheduler: &str,
    ) -> OccurrenceView {
        let local = |t: DateTime<Utc>| point(t, tz).local;
        let (mark, cause, note) = match outcome {
            Some(Outcome::OnTime { .. }) => (Mark::OnTime, None, String::new()),
            Some(Outcome::Late { delay_secs, .. }) => {
                (Mark::Late, None, format!("Late: started {} after it was due", duration_text(*delay_secs)))
            }
            Some(Outcome::Missed { cause }) => {
                let (c, note) = match cause {
                    MissCause::AgentZombie { period } => (
                        Cause::Zombie,
                        format!(
                            "Missed: {scheduler} started no job between {} and {}",
                            local(period.start),
                            local(period.end)
                        ),
                    ),
                    MissCause::AgentDown { restarted_at } => {
                        let who = if scheduler == "SQL Agent" { "Agent".to_owned() } else { scheduler.to_owned() };
                        (Cause::Down, format!("Missed: {who} was down, restarted at {}", local(*restarted_at)))
                    }
                    MissCause::NoRun => (Cause::NoRun, "Missed: no run started".to_string()),
                };
                (Mark::Missed, Some(c), note)
            }
            Some(Outcome::SkippedRunning { run }) => {
                let since = runs.get(*run).map(|r| format!(" (started {})", local(r.start))).unwrap_or_default();
                (Mark::Skipped, None, format!("Skipped: the previous run{since} was still running"))
            }
            Some(Outcome::Unknown) => {
                let note = match horizon {
                    Some(h) => format!("Unknown: older than the oldest history kept ({})", local(h)),
                    None => "Unknown: older than the history kept".to_string(),
                };
                (Mark::Unknown, None, note)
            }
            Some(Outcome::Upcoming) | None => (Mark::Upcoming, None, String::new()),
        };
        OccurrenceView { at: point(at, tz), mark, cause, note }
    }

    /// Ticks at local midnights (labelled with the date), with minor ticks between; for a
    /// one-day window every three hours (labelled with the time).
    pub fn ticks(window: Window, tz: Tz) -> Vec<Tick> {
        let mut out = Vec::new();
        if window.is_empty() {
            return out;
        }
        let days = window.duration().num_hours().max(1) as f64 / 24.0;
        let (hour_step, label_every_days) = if days <= 1.5 {
            (3, 1)
        } else if days <= 10.0 {
            (6, 1)
        } else {
            (24, 3)
        };
        let first = window.start.with_timezone(&tz).date_naive();
        let last = window.end.with_timezone(&tz).date_naive();
        let mut date = first;
        let mut day_index = 0u32;
        while date <= last {
            for hour in (0..24).step_by(hour_step) {
                let naive = date.and_time(NaiveTime::from_hms_opt(hour, 0, 0).unwrap_or_default());
                let Some(t) = tz.from_local_datetime(&naive).earliest() else { continue };
                let t = t.with_timezone(&Utc);
                if !window.contains(t) {
                    continue;
                }
                let major = hour == 0;
                let label = if days <= 1.5 {
                    if major { t.with_timezone(&tz).format("%a %d %b").to_string() } else { format!("{hour:02}:00") }
                } else if major && day_index.is_multiple_of(label_every_days) {
                    t.with_timezone(&tz).format("%a %d %b").to_string()
                } else {
                    String::new()
                };
                out.push(Tick { ms: t.timestamp_millis(), label, major });
            }
            date = match date.succ_opt() {
                Some(d) => d,
                None => break,
            };
            day_index += 1;
        }
        out
    }

    /// Beyond this many, routine occurrences (runs) of a job are drawn as stretches.
    pub const DETAIL_LIMIT: usize = 1500;
    /// Routine lines the table lists (the newest); problems are always listed.
    pub const ROUTINE_LINES: usize = 24;

    fn routine_line(l: &TableLine) -> bool {
        let ok_run = l.run.as_ref().is_none_or(|r| r.outcome == RunOutcome::Succeeded);
        match l.expected {
            Some(Mark::OnTime) => ok_run,
            Some(Mark::Upcoming | Mark::Unknown) => true,
            Some(_) => false,
            None => l.run.as_ref().is_some_and(|r| r.kind == RunKind::Scheduled) && ok_run,
        }
    }

    /// One job's timeline of a report; [`ApiError::NotFound`] for an unknown id.
    /// `scheduler` names what starts the jobs in the causes ([`scheduler_label`]).
    pub fn timeline_data(report: &InstanceReport, job_id: &str, days: u32, scheduler: &str) -> Result<TimelineData, ApiError> {
        let tz = report.tz;
        let job = report
            .jobs
            .iter()
            .find(|j| j.id == job_id)
            .ok_or_else(|| ApiError::NotFound { what: "job".into() })?;
        let window = report.window;
        // A gap wider than 0.3% of the window breaks a stretch.
        let max_gap = ((window.end - window.start).num_milliseconds() / 300).max(1);

        let all_runs: Vec<RunView> = job
            .runs
            .iter()
            .enumerate()
            .map(|(i, r)| run_view(r, job.reconciliation.runs.get(i), tz))
            .collect();
        let all_occurrences: Vec<(OccurrenceView, Option<usize>)> = job
            .forecast
            .occurrences
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let outcome = job.reconciliation.outcomes.get(i);
                let served_by = match outcome {
                    Some(Outcome::OnTime { run } | Outcome::Late { run, .. }) => Some(*run).filter(|r| *r < all_runs.len()),
                    _ => None,
                };
                (occurrence_view(o.at, outcome, &job.runs, job.history_horizon, tz, scheduler), served_by)
            })
            .collect();

        // The table: occurrences with their runs, then the runs nobody claims; newest first.
        let mut claimed = vec![false; all_runs.len()];
        let mut lines: Vec<TableLine> = Vec::with_capacity(all_occurrences.len());
        for (o, run) in &all_occurrences {
            if let Some(r) = run {
                claimed[*r] = true;
            }
            lines.push(TableLine {
                at: o.at.clone(),
                expected: Some(o.mark),
                cause: o.cause,
                note: o.note.clone(),
                run: run.map(|r| all_runs[r].clone()),
            });
        }
        for (r, taken) in all_runs.iter().zip(&claimed) {
            if !taken {
                lines.push(TableLine { at: r.start.clone(), expected: None, cause: None, note: String::new(), run: Some(r.clone()) });
            }
        }
        lines.sort_by_key(|l| std::cmp::Reverse(l.at.ms));
        let mut routine_seen = 0;
        lines.retain(|l| {
            if !routine_line(l) {
                return true;
            }
            routine_seen += 1;
            routine_seen <= ROUTINE_LINES
        });
        let hidden_lines = routine_seen.saturating_sub(ROUTINE_LINES);

        // The chart: problems one by one; routine marks and runs of dense jobs as stretches.
        let expected_count = all_occurrences.len();
        let run_count = all_runs.len();
        let dense = expected_count > DETAIL_LIMIT;
        let mut occurrences = Vec::new();
        let mut occurrence_spans: Vec<MarkSpan> = Vec::new();
        for (o, _) in all_occurrences {
            if dense && matches!(o.mark, Mark::OnTime | Mark::Upcoming | Mark::Unknown) {
                match occurrence_spans.last_mut() {
                    Some(last) if last.mark == o.mark && o.at.ms - last.end.ms <= max_gap => {
                        last.end = o.at;
                        last.count += 1;
                    }
                    _ => occurrence_spans.push(MarkSpan { start: o.at.clone(), end: o.at, mark: o.mark, count: 1 }),
                }
            } else {
                occurrences.push(o);
            }
        }
        let dense = run_count > DETAIL_LIMIT;
        let mut runs = Vec::new();
        let mut run_spans: Vec<RunSpan> = Vec::new();
        for mut r in all_runs {
            if r.outcome == RunOutcome::Succeeded {
                r.message.clear();
            }
            if dense && r.outcome == RunOutcome::Succeeded && r.kind == RunKind::Scheduled {
                match run_spans.last_mut() {
                    Some(last) if r.start.ms - last.end_ms <= max_gap => {
                        if r.end_ms > last.end_ms {
                            last.end_ms = r.end_ms;
                            last.end_local = point(DateTime::from_timestamp_millis(r.end_ms).unwrap_or_default(), tz).local;
                        }
                        last.count += 1;
                    }
                    _ => run_spans.push(RunSpan {
                        end_local: point(DateTime::from_timestamp_millis(r.end_ms).unwrap_or_default(), tz).local,
                        start: r.start,
                        end_ms: r.end_ms,
                        count: 1,
                    }),
                }
            } else {
                runs.push(r);
            }
        }

        let history_horizon = job.history_horizon.filter(|h| *h > window.start).map(|h| point(h.min(window.end), tz));
        let agent_starts = report
            .context
            .agent_starts
            .iter()
            .filter(|t| window.contains(**t))
            .map(|t| point(*t, tz))
            .collect();
        Ok(TimelineData {
            instance: head(report, days),
            job: row(job, tz),
            expected_count,
            run_count,
            occurrences,
            occurrence_spans,
            runs,
            run_spans,
            lines,
            hidden_lines,
            history_horizon,
            zombies: zombies(report),
            agent_starts,
            ticks: ticks(window, tz),
        })
    }
}
