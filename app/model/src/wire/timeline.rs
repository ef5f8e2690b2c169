//! A job's timeline's wire types: its occurrences, runs, steps, marks, durations and ticks.
use super::*;

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
    /// Not run inside a planned maintenance window: not missed.
    Maintenance,
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
            Mark::Maintenance => "maintenance",
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
            Mark::Maintenance => "Maintenance",
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
    /// What happened, in words and instants (`Missed: SQL Agent started no job between … and
    /// …`); empty for on-time and upcoming occurrences.
    #[serde(default, skip_serializing_if = "SentenceView::is_empty")]
    pub note: SentenceView,
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
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// Too long or suspiciously short against the window's durations (see
    /// [`crate::engine::durations::flag`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag: Option<crate::engine::durations::DurationFlag>,
    /// The run's steps as the scheduler recorded them, in order (SQL Server Agent: each step
    /// attempt, retries included; for a run still going, the steps done and the one executing),
    /// or its lines about them; empty on the chart.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepView>,
    /// A run still going, against the job's usual durations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<Progress>,
}

/// One step of a run on the job page, as SSMS's Log File Viewer lists it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepView {
    /// msdb `step_id`; 0 for a line a scheduler says without one.
    pub id: i64,
    pub name: String,
    /// How the attempt ended (`InProgress`: executing now); `None` for a line that says none.
    pub outcome: Option<RunOutcome>,
    /// The step's own message, quoted (boilerplate dropped, at most 300 characters).
    pub message: String,
    /// msdb `sql_message_id` and `sql_severity` (0: none).
    pub sql_message_id: i64,
    pub sql_severity: i64,
    /// Retries attempted before this attempt.
    pub retries: i64,
    pub start: Option<TimePoint>,
    /// e.g. `3m 12s`; empty when the scheduler does not say.
    pub duration: String,
    /// msdb's subsystem (TSQL, CmdExec, PowerShell, SSIS, …); empty when unknown.
    pub subsystem: String,
}

impl StepView {
    /// "Step 2 (Push to CRM)", the bare name, or "" for a line without either.
    pub fn label(&self) -> String {
        match (self.id, self.name.trim()) {
            (0, "") => String::new(),
            (0, name) => name.to_owned(),
            (id, "") => format!("Step {id}"),
            (id, name) => format!("Step {id} ({name})"),
        }
    }
}

/// A run in progress against the window's durations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// Seconds so far.
    pub elapsed_secs: i64,
    pub p50: i64,
    pub p95: i64,
    /// Start + p50, while the run is not past p50 yet; `None` once it is past its usual time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish: Option<TimePoint>,
}

/// A run's baseline: whose runs, in words (`5 Monday runs`, `30 runs of the last 30 days (only
/// 2 Monday runs)`), and their statistics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineView {
    pub words: String,
    pub stats: crate::engine::durations::DurationStats,
}

/// The job's durations over the window: completed runs only, nearest-rank percentiles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DurationsView {
    /// The baseline's window, in days ([`crate::JUDGED_DAYS`]): the statistics are over
    /// it, whatever window the page shows, so they are triage's.
    pub days: u32,
    /// Over the baseline's window; `None` when no run completed in it.
    pub window: Option<crate::engine::durations::DurationStats>,
    /// Per weekday of the runs' local start, Monday first (seven entries), month-end runs
    /// left out: each weekday's baseline ([`crate::engine::durations::Season`]).
    pub weekdays: Vec<Option<crate::engine::durations::DurationStats>>,
    /// Runs on the last day of a month (local): their own baseline.
    #[serde(default)]
    pub month_end: Option<crate::engine::durations::DurationStats>,
    /// What the latest run is judged against (its season's runs, or the window's, saying so).
    #[serde(default)]
    pub latest: Option<BaselineView>,
    /// What flags a run (the configured factors).
    pub flags: crate::engine::durations::DurationFlags,
    /// Runs in the window flagged long, and short.
    pub long: usize,
    pub short: usize,
}

/// The weekdays of [`DurationsView::weekdays`], in its order.
pub const WEEKDAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/// The moment a deep link (`?at=`) asked for, and where the page shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtView {
    /// The moment; `None` when the link's `at` could not be read (see `error`).
    pub at: Option<TimePoint>,
    /// Why the link's `at` could not be read, in words naming it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether the window shown holds the moment.
    pub inside: bool,
    /// The table line nearest to the moment (an index into [`TimelineData::lines`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The window was chosen to hold the moment (the link named no `days`).
    #[serde(default)]
    pub chosen: bool,
}

/// The fragment (`#moment`) and `id` of the line nearest a deep link's moment.
pub const MOMENT_ID: &str = "moment";

/// One row of the table under the chart: an expected occurrence (with the run that served
/// it), or a run no occurrence claims (manual, unscheduled).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableLine {
    /// When it was due, or when the run started (the newest, for collapsed misses).
    pub at: TimePoint,
    pub expected: Option<Mark>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
    #[serde(default, skip_serializing_if = "SentenceView::is_empty")]
    pub note: SentenceView,
    pub run: Option<RunView>,
    /// For a failed run the scheduler can restart at its failed step (SQL Agent's
    /// `@step_name`): the statement that does, where it differs from
    /// [`TimelineData::run_now`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_now: Option<crate::run_now::RunNow>,
    /// Set when consecutive missed occurrences with one cause are collapsed into this line.
    #[serde(flatten)]
    pub collapsed: Collapsed,
}

/// The most members of a collapsed line listed when it is expanded.
pub const MEMBERS_SHOWN: usize = 200;

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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    /// Where the scheduler's own history starts, when the runs before it (back to
    /// `history_horizon`, or the window's start) come from Sundial's store: it purged them.
    #[serde(default)]
    pub source_since: Option<TimePoint>,
    pub zombies: Vec<ZombieSpan>,
    /// The maintenance windows over this job in the window (shaded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub maintenance: Vec<MaintenanceSpan>,
    pub agent_starts: Vec<TimePoint>,
    pub ticks: Vec<Tick>,
    pub durations: DurationsView,
    /// The moment of a deep link (`?at=`), if the page was opened with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<AtView>,
    /// What to do about a miss: the statement that runs the job now, when the window has a
    /// missed occurrence or a failed run (Sundial never runs it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_now: Option<crate::run_now::RunNow>,
    /// What comes after now: the next runs and the maintenance planned ahead.
    #[serde(default)]
    pub ahead: super::Ahead,
    /// The fleet file's deadlines this job must meet (`[[deadline]]`): drawn on the chart and
    /// said near the top.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deadlines: Vec<DeadlineView>,
    /// The changes Sundial saw of the job's definition in the window, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<ChangeView>,
}

/// One deadline of a job, over the page's window.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct DeadlineView {
    /// Its name ("Ledger ready for finance").
    pub name: String,
    /// When, in words ("weekdays by 06:00 Europe/London").
    pub words: String,
    /// Its instants in the window that have passed, oldest first.
    pub instants: Vec<TimePoint>,
    /// The latest instant passed (possibly before the window), and when the success that met
    /// it ended (`None`: missed).
    pub last: Option<(TimePoint, Option<TimePoint>)>,
}

/// One change Sundial saw of a job's definition (`engine::changes::Change`), as pages show it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChangeView {
    /// When Sundial's read saw it.
    pub seen: TimePoint,
    /// The scheduler's own modification time of the job, where it keeps one.
    #[serde(default)]
    pub modified: Option<TimePoint>,
    /// `added`, `removed`, `schedule`, `enabled`, `command`, `steps` or `owner`.
    pub kind: String,
    /// "Schedule changed", …
    pub words: String,
    #[serde(default)]
    pub before: Option<String>,
    #[serde(default)]
    pub after: Option<String>,
}
