//! msdb's row mapping, shared by both msdb readers (SQL Server over TDS in [`super::msdb`], the
//! demo's SQLite file in [`super::msdb_sqlite`]) and by the demo that writes such a file;
//! neither reader imports the other.
//!
//! msdb's conventions, kept wherever its tables live:
//!
//! - dates and times are the instance's **local** wall clock: `run_date` `yyyymmdd` and
//!   `run_time` `hhmmss` integers in `sysjobhistory`, `datetime` columns as
//!   `YYYY-MM-DD HH:MM:SS.fff` text;
//! - `run_duration` is `hhmmss`-encoded (13542 = 1 h 35 min 42 s; past 99 hours the hours
//!   part just grows);
//! - every run has a `step_id 0` "(Job outcome)" row plus one row per step attempt.
//!
//! Mapping never fails on bad *data*: every value arrives as a lenient [`Cell`], and a corrupt
//! row (an unknown `run_status`, a NULL where msdb has none, a date that is not one) becomes a
//! [`Diagnostic`] on its job ([`assemble`]).
use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, NaiveTime, Timelike, Utc};
use chrono_tz::Tz;
use std::collections::HashMap;
use sundial_engine::fleet::{InstanceInput, JobInput, JobSchedule};
use sundial_engine::vocab::{StepFlow, step_now};
use sundial_engine::{AgentSchedule, Diagnostic, Run, RunOutcome, Schedule, Step, Trigger, Window};

use super::{Extent, Mark};

/// msdb's default per-job history cap (`jobhistory_max_rows_per_job`), which the demo also
/// trims to. A job holding this many outcome rows whose oldest one is much newer than the
/// instance's oldest history looks trimmed: see [`assemble`].
pub const MAX_OUTCOME_ROWS_PER_JOB: i64 = 100;

/// The text format of msdb `datetime` values (local wall clock, milliseconds).
const DATETIME_FORMAT: &str = "%Y-%m-%d %H:%M:%S%.3f";

// ---------------------------------------------------------------------------------------------
// Lenient cells: whatever a column holds, reading it never fails the whole query.

/// One column value read leniently. SQLite columns hold any type, and msdb data from
/// elsewhere may be damaged; decoding into `Cell` never fails, so a bad value becomes a
/// diagnostic on its row instead of an error for the whole read.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    /// A blob, by length (no msdb column Sundial reads holds one).
    Blob(usize),
}

impl Cell {
    /// The value as an integer: `Ok(None)` for NULL, `Err(shown)` when it is not a whole number.
    pub fn int(&self) -> Result<Option<i64>, String> {
        match self {
            Cell::Null => Ok(None),
            Cell::Int(i) => Ok(Some(*i)),
            Cell::Real(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(Some(*f as i64)),
            Cell::Text(t) => t.trim().parse::<i64>().map(Some).map_err(|_| self.shown()),
            _ => Err(self.shown()),
        }
    }
    /// The value as text (numbers printed); `None` for NULL and blobs.
    pub fn text(&self) -> Option<String> {
        match self {
            Cell::Text(t) => Some(t.clone()),
            Cell::Int(i) => Some(i.to_string()),
            Cell::Real(f) => Some(f.to_string()),
            Cell::Null | Cell::Blob(_) => None,
        }
    }
    /// How a diagnostic shows the value.
    pub fn shown(&self) -> String {
        match self {
            Cell::Null => "NULL".into(),
            Cell::Int(i) => i.to_string(),
            Cell::Real(f) => f.to_string(),
            Cell::Text(t) => format!("{t:?}"),
            Cell::Blob(n) => format!("<blob of {n} bytes>"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Time helpers (msdb integers and local wall clock)

/// A local wall-clock time in `tz` to an instant, by the engine's rule
/// ([`sundial_engine::tz::local_to_instant`]): a time in a fall-back fold is the earlier instant
/// (the Agent fires once, at the first); a time in a spring-forward gap (which the Agent never
/// writes into history) is the instant the gap ends.
pub fn local_to_utc(local: NaiveDateTime, tz: Tz) -> DateTime<Utc> {
    sundial_engine::tz::local_to_instant(local, tz.into())
}

/// An instant as `tz`'s wall clock (never panics).
pub fn utc_to_local(at: DateTime<Utc>, tz: Tz) -> NaiveDateTime {
    sundial_engine::tz::to_local(at, tz.into())
}

/// msdb `yyyymmdd`.
pub fn date_int(d: NaiveDate) -> i64 {
    use chrono::Datelike;
    i64::from(d.year()) * 10000 + i64::from(d.month()) * 100 + i64::from(d.day())
}

/// msdb `hhmmss`.
pub fn time_int(t: NaiveTime) -> i64 {
    i64::from(t.hour()) * 10000 + i64::from(t.minute()) * 100 + i64::from(t.second())
}

/// msdb `yyyymmdd` back to a date; `None` when it is not one.
pub fn parse_date_int(v: i64) -> Option<NaiveDate> {
    if !(10000101..=99991231).contains(&v) {
        return None;
    }
    NaiveDate::from_ymd_opt((v / 10000) as i32, ((v / 100) % 100) as u32, (v % 100) as u32)
}

/// msdb `hhmmss` back to a time; `None` when it is not one.
pub fn parse_time_int(v: i64) -> Option<NaiveTime> {
    if !(0..=235959).contains(&v) {
        return None;
    }
    NaiveTime::from_hms_opt((v / 10000) as u32, ((v / 100) % 100) as u32, (v % 100) as u32)
}

/// Seconds as msdb's `hhmmss`-encoded `run_duration` (hours grow past 99).
pub fn encode_duration(secs: i64) -> i64 {
    let s = secs.max(0);
    (s / 3600) * 10000 + ((s / 60) % 60) * 100 + s % 60
}

/// msdb `run_duration` back to seconds; `Err` with what is wrong (the seconds are still given
/// for minute or second parts above 59, which msdb never writes).
pub fn decode_duration(v: i64) -> Result<i64, (Option<i64>, &'static str)> {
    if v < 0 {
        return Err((None, "a duration cannot be negative"));
    }
    let (h, m, s) = (v / 10000, (v / 100) % 100, v % 100);
    let secs = h * 3600 + m * 60 + s;
    if m > 59 || s > 59 {
        return Err((Some(secs), "not an hhmmss duration (minutes or seconds above 59)"));
    }
    Ok(secs)
}

pub fn format_datetime(t: NaiveDateTime) -> String {
    t.format(DATETIME_FORMAT).to_string()
}

/// msdb `datetime` text back to a wall-clock time (with or without fractions, `T` or space).
pub fn parse_datetime(s: &str) -> Option<NaiveDateTime> {
    let s = s.trim();
    ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
}

/// Who started a run, from msdb's outcome message: "… The Job was invoked by Schedule 12
/// (Nightly).  …" is [`Trigger::Schedule`], "… invoked by User DOMAIN\dba.  …" is
/// [`Trigger::Manual`], anything else named there ("Alert 3 (…)", "Start Sequence 0") is
/// [`Trigger::Other`]. A message without the phrase (empty, or from a localized server) is
/// taken as a schedule run whose schedule is unknown.
pub fn parse_trigger(message: &str) -> Trigger {
    const PHRASE: &str = "invoked by ";
    let Some(at) = message.find(PHRASE) else {
        return Trigger::Schedule(None);
    };
    let rest = &message[at + PHRASE.len()..];
    let what = match rest.find(".  ") {
        Some(end) => &rest[..end],
        None => rest.trim_end().trim_end_matches('.'),
    };
    if let Some(s) = what.strip_prefix("Schedule ") {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        Trigger::Schedule(digits.parse().ok())
    } else if what.starts_with("User ") {
        Trigger::Manual
    } else {
        Trigger::Other(what.to_owned())
    }
}

// ---------------------------------------------------------------------------------------------
// msdb's tables as rows (the demo writes them; the timeline reads sysjobhistory back)

/// Sundial's own `sundial_demo` row: which instance the demo is and the "now" it was simulated for.
#[derive(Clone, Debug, PartialEq)]
pub struct DemoMeta {
    pub name: String,
    pub tz: Tz,
    pub now: DateTime<Utc>,
    pub seed: u64,
}

/// One `syscategories` row.
#[derive(Clone, Debug)]
pub struct CategoryRow {
    pub category_id: i64,
    pub name: String,
}

/// One login as `sys.server_principals` names it: what `SUSER_SNAME(owner_sid)` answers.
#[derive(Clone, Debug)]
pub struct LoginRow {
    pub sid: Vec<u8>,
    pub name: String,
}

/// One `sysjobs` row (datetimes are local wall clock).
#[derive(Clone, Debug)]
pub struct JobRow {
    pub job_id: String,
    pub name: String,
    pub enabled: bool,
    pub description: String,
    pub category_id: i64,
    pub owner_sid: Vec<u8>,
    pub notify_level_email: i64,
    pub date_created: NaiveDateTime,
    pub date_modified: NaiveDateTime,
    pub version_number: i64,
}

/// One `sysjobsteps` row.
#[derive(Clone, Debug)]
pub struct StepRow {
    pub job_id: String,
    pub step_id: i64,
    pub step_name: String,
    pub subsystem: String,
    pub command: String,
    pub database_name: Option<String>,
    /// 1 quit reporting success, 2 quit reporting failure, 3 go to the next step, 4 go to
    /// `on_success_step_id`.
    pub on_success_action: i64,
    pub on_success_step_id: i64,
    /// As `on_success_action`, after a failure (4: go to `on_fail_step_id`).
    pub on_fail_action: i64,
    pub on_fail_step_id: i64,
    pub retry_attempts: i64,
    /// Minutes.
    pub retry_interval: i64,
}

/// One `sysschedules` row.
#[derive(Clone, Debug)]
pub struct ScheduleRow {
    pub schedule_id: i64,
    pub schedule_uid: String,
    pub name: String,
    pub owner_sid: Vec<u8>,
    pub schedule: AgentSchedule,
    pub date_created: NaiveDateTime,
}

/// One `sysjobschedules` row; `next_run_date`/`next_run_time` 0 when there is none.
#[derive(Clone, Debug)]
pub struct JobScheduleRow {
    pub job_id: String,
    pub schedule_id: i64,
    pub next_run_date: i64,
    pub next_run_time: i64,
}

/// One `sysjobhistory` row, as msdb stores it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HistoryRow {
    pub instance_id: i64,
    pub job_id: String,
    /// 0 for the "(Job outcome)" row.
    pub step_id: i64,
    pub step_name: String,
    pub sql_message_id: i64,
    pub sql_severity: i64,
    pub message: String,
    /// 0 failed, 1 succeeded, 2 retry, 3 canceled, 4 in progress.
    pub run_status: i64,
    /// Local `yyyymmdd`.
    pub run_date: i64,
    /// Local `hhmmss`.
    pub run_time: i64,
    /// `hhmmss`-encoded.
    pub run_duration: i64,
    pub retries_attempted: i64,
    pub server: String,
}

/// One `syssessions` row.
#[derive(Clone, Debug)]
pub struct SessionRow {
    pub session_id: i64,
    pub agent_start_date: NaiveDateTime,
}

/// One `sysjobactivity` row (local datetimes).
#[derive(Clone, Debug, Default)]
pub struct ActivityRow {
    pub session_id: i64,
    pub job_id: String,
    pub run_requested_date: Option<NaiveDateTime>,
    /// msdb's code as text: "1" scheduler, "2" alerter, "3" boot, "4" user.
    pub run_requested_source: Option<String>,
    pub start_execution_date: Option<NaiveDateTime>,
    pub last_executed_step_id: Option<i64>,
    pub last_executed_step_date: Option<NaiveDateTime>,
    pub stop_execution_date: Option<NaiveDateTime>,
    pub job_history_id: Option<i64>,
    pub next_scheduled_run_date: Option<NaiveDateTime>,
}

// ---------------------------------------------------------------------------------------------
// What a reader fetches: every value a lenient cell

#[derive(sqlx_macros::FromRow)]
pub struct JobRead {
    pub job_id: Cell,
    pub name: Cell,
    pub enabled: Cell,
    pub category: Cell,
    /// `owner_sid` as a login name (`SUSER_SNAME`); NULL when the login is gone.
    pub owner: Cell,
    /// `date_modified` as text (the server's wall clock): when the job was last changed;
    /// NULL where a reader does not ask for it.
    pub modified: Cell,
}

#[derive(sqlx_macros::FromRow)]
pub struct ScheduleRead {
    pub job_id: Cell,
    pub schedule_id: Cell,
    pub name: Cell,
    pub enabled: Cell,
    pub freq_type: Cell,
    pub freq_interval: Cell,
    pub freq_subday_type: Cell,
    pub freq_subday_interval: Cell,
    pub freq_relative_interval: Cell,
    pub freq_recurrence_factor: Cell,
    pub active_start_date: Cell,
    pub active_end_date: Cell,
    pub active_start_time: Cell,
    pub active_end_time: Cell,
}

#[derive(sqlx_macros::FromRow)]
pub struct HorizonRead {
    pub job_id: Cell,
    pub oldest_id: Cell,
    pub oldest_date: Cell,
    pub oldest_time: Cell,
    pub at_cap: Cell,
}

#[derive(sqlx_macros::FromRow)]
pub struct OutcomeRead {
    pub instance_id: Cell,
    pub job_id: Cell,
    pub run_status: Cell,
    pub run_date: Cell,
    pub run_time: Cell,
    pub run_duration: Cell,
    pub message: Cell,
}

/// One step row of `sysjobhistory` (`step_id > 0`): one attempt of one step.
#[derive(sqlx_macros::FromRow)]
pub struct StepHistoryRead {
    pub instance_id: Cell,
    pub job_id: Cell,
    pub step_id: Cell,
    pub step_name: Cell,
    pub run_status: Cell,
    pub run_date: Cell,
    pub run_time: Cell,
    pub run_duration: Cell,
    pub retries_attempted: Cell,
    pub sql_message_id: Cell,
    pub sql_severity: Cell,
    pub message: Cell,
}

/// One `sysjobsteps` row: what a step is and what follows it, with its job's
/// `sysjobs.start_step_id`.
#[derive(sqlx_macros::FromRow)]
pub struct JobStepRead {
    pub job_id: Cell,
    pub step_id: Cell,
    pub step_name: Cell,
    pub subsystem: Cell,
    pub on_success_action: Cell,
    pub on_success_step_id: Cell,
    pub on_fail_action: Cell,
    pub on_fail_step_id: Cell,
    pub start_step_id: Cell,
}

#[derive(sqlx_macros::FromRow)]
pub struct RunningRead {
    pub job_id: Cell,
    pub start_execution_date: Cell,
    pub run_requested_source: Cell,
    /// The last step that finished in this run (NULL before the first one ends).
    pub last_executed_step_id: Cell,
    /// When that step began (local datetime): which of its step rows is this run's.
    pub last_executed_step_date: Cell,
}

#[derive(sqlx_macros::FromRow)]
pub struct SessionRead {
    pub agent_start_date: Cell,
}

/// An integer msdb never leaves NULL: the value, or a diagnostic naming table, column and row.
/// `then` says what follows (e.g. "the row is left out").
fn required_int(cell: &Cell, column: &str, row: &str, then: &str) -> Result<i64, Diagnostic> {
    match cell.int() {
        Ok(Some(v)) => Ok(v),
        Ok(None) => Err(Diagnostic::warning(column, "NULL", format!("{row}: msdb never leaves {column} NULL; {then}"))),
        Err(shown) => Err(Diagnostic::warning(column, shown, format!("{row}: {column} is not a whole number; {then}"))),
    }
}

const LEFT_OUT: &str = "the row is left out";

/// One outcome row as a [`Run`], or why not; warnings that do not drop the row come along.
fn outcome_to_run(r: &OutcomeRead, tz: Tz) -> (Option<Run>, Vec<Diagnostic>) {
    let key = match r.instance_id.int() {
        Ok(Some(id)) => format!("sysjobhistory row instance_id {id}"),
        _ => format!("sysjobhistory row instance_id {}", r.instance_id.shown()),
    };
    let mut diags = Vec::new();
    let status = match required_int(&r.run_status, "run_status", &key, LEFT_OUT) {
        Ok(v) => v,
        Err(d) => return (None, vec![d]),
    };
    let Some(outcome) = RunOutcome::from_run_status(status) else {
        let d = Diagnostic::warning(
            "run_status",
            status,
            format!("{key}: msdb writes run_status 0 to 4 only; the row is left out"),
        );
        return (None, vec![d]);
    };
    let date = match required_int(&r.run_date, "run_date", &key, LEFT_OUT) {
        Ok(v) => v,
        Err(d) => return (None, vec![d]),
    };
    let Some(date) = parse_date_int(date) else {
        let d = Diagnostic::warning("run_date", date, format!("{key}: not a yyyymmdd date; the row is left out"));
        return (None, vec![d]);
    };
    let time = match required_int(&r.run_time, "run_time", &key, LEFT_OUT) {
        Ok(v) => v,
        Err(d) => return (None, vec![d]),
    };
    let Some(time) = parse_time_int(time) else {
        let d = Diagnostic::warning("run_time", time, format!("{key}: not an hhmmss time; the row is left out"));
        return (None, vec![d]);
    };
    let duration_secs = match required_int(&r.run_duration, "run_duration", &key, "read as 0s") {
        Ok(v) => match decode_duration(v) {
            Ok(s) => s,
            Err((secs, why)) => {
                diags.push(Diagnostic::warning(
                    "run_duration",
                    v,
                    format!("{key}: {why}; read as {}s", secs.unwrap_or(0)),
                ));
                secs.unwrap_or(0)
            }
        },
        Err(d) => {
            diags.push(d);
            0
        }
    };
    let message = r.message.text().unwrap_or_default();
    let run = Run {
        start: local_to_utc(date.and_time(time), tz),
        duration_secs,
        outcome,
        trigger: parse_trigger(&message),
        message,
        steps: Vec::new(),
    };
    (Some(run), diags)
}

fn schedule_from_row(r: &ScheduleRead) -> Result<JobSchedule, Diagnostic> {
    let id = match r.schedule_id.int() {
        Ok(Some(id)) => id,
        _ => {
            return Err(Diagnostic::error(
                "schedule_id",
                r.schedule_id.shown(),
                "sysjobschedules row without a usable schedule_id; the schedule is left out",
            ));
        }
    };
    let key = format!("sysschedules row schedule_id {id}");
    let get = |cell: &Cell, column: &str| -> Result<i64, Diagnostic> {
        required_int(cell, column, &key, "the schedule is left out").map_err(|mut d| {
            d.severity = sundial_engine::Severity::Error;
            d
        })
    };
    let schedule = AgentSchedule {
        enabled: get(&r.enabled, "enabled")?,
        freq_type: get(&r.freq_type, "freq_type")?,
        freq_interval: get(&r.freq_interval, "freq_interval")?,
        freq_subday_type: get(&r.freq_subday_type, "freq_subday_type")?,
        freq_subday_interval: get(&r.freq_subday_interval, "freq_subday_interval")?,
        freq_relative_interval: get(&r.freq_relative_interval, "freq_relative_interval")?,
        freq_recurrence_factor: get(&r.freq_recurrence_factor, "freq_recurrence_factor")?,
        active_start_date: get(&r.active_start_date, "active_start_date")?,
        active_end_date: get(&r.active_end_date, "active_end_date")?,
        active_start_time: get(&r.active_start_time, "active_start_time")?,
        active_end_time: get(&r.active_end_time, "active_end_time")?,
    };
    Ok(JobSchedule {
        id,
        name: r.name.text().unwrap_or_else(|| format!("schedule {id}")),
        enabled: schedule.enabled != 0,
        schedule: Schedule::Agent(schedule),
    })
}
/// msdb's rows as a reader fetched them (from this SQLite file, or over TDS from SQL Server):
/// every value a lenient [`Cell`], so that [`assemble`] turns bad ones into diagnostics.
pub struct MsdbRows {
    /// `sysjobs` with the category name.
    pub job_rows: Vec<JobRead>,
    /// `sysjobschedules` joined to `sysschedules`.
    pub schedule_rows: Vec<ScheduleRead>,
    /// Per job: its oldest kept outcome row, and whether it keeps the per-job cap of rows.
    pub horizon_rows: Vec<HorizonRead>,
    /// `step_id 0` rows whose local `run_date` lies within the window's local dates.
    pub outcome_rows: Vec<OutcomeRead>,
    /// `sysjobactivity` rows executing now in the latest session.
    pub running_rows: Vec<RunningRead>,
    /// `syssessions`: every Agent start.
    pub session_rows: Vec<SessionRead>,
    /// `sysjobhistory` step rows (`step_id > 0`) on the same local dates as `outcome_rows`.
    pub step_rows: Vec<StepHistoryRead>,
    /// `sysjobsteps`: every job's steps (names, subsystems, what follows each), with the job's
    /// `start_step_id`.
    pub job_steps: Vec<JobStepRead>,
}

/// The engine's view of an instance from msdb's rows:
///
/// - every job (by name) with its schedules (`sysjobs`, `syscategories`, `sysjobschedules`,
///   `sysschedules`);
/// - the runs of each job whose start falls in the window: the `step_id 0` outcome rows (the
///   readers fetch those whose local `run_date` lies within the window's local dates, never all
///   history), plus the runs `sysjobactivity` shows still executing in the latest Agent session
///   (outcome `InProgress`, duration up to `window.end`);
/// - each run's steps ([`Jobs::add_steps`]): the step rows between the job's previous outcome
///   row and the run's own, by `instance_id`, as SSMS groups them; a run still going gets the
///   step rows after the job's last outcome row and the step executing now;
/// - `history_horizon`: for a job whose history looks trimmed, the start of its oldest kept
///   outcome row. A job looks trimmed when it keeps at least [`MAX_OUTCOME_ROWS_PER_JOB`]
///   outcome rows and its oldest is more than a day newer than the oldest outcome row of any
///   job on the instance (history of that time survives elsewhere, so this job's was removed);
/// - `agent_starts` from `syssessions`.
///
/// Never fails: corrupt rows become diagnostics on their job; runs they would have been are
/// left out.
pub fn assemble(name: &str, tz: Tz, window: Window, rows: &MsdbRows) -> InstanceInput {
    let mut jobs = Jobs::from_rows(&rows.job_rows);
    jobs.add_schedules(&rows.schedule_rows);
    jobs.add_horizons(&rows.horizon_rows, tz);
    jobs.add_outcomes(&rows.outcome_rows, tz, window);
    jobs.add_running(&rows.running_rows, tz, window);
    jobs.add_steps(&rows.step_rows, &rows.job_steps, tz);
    // Each job's `date_modified`, the scheduler's own time of its last change.
    for r in &rows.job_rows {
        if let (Some(id), Some(text)) = (r.job_id.text(), r.modified.text())
            && let Some(&i) = jobs.index.get(&id)
        {
            let local = ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"]
                .iter()
                .find_map(|f| NaiveDateTime::parse_from_str(text.trim(), f).ok());
            jobs.jobs[i].modified = local.map(|l| local_to_utc(l, tz));
        }
    }
    let mut jobs = jobs.jobs;
    for job in &mut jobs {
        job.runs.sort_by_key(|r| r.start);
    }
    let agent_starts = agent_starts(name, &rows.session_rows, tz);
    InstanceInput::new(name, tz.into(), jobs, agent_starts)
}

/// The instance's jobs as they are assembled, and where each `job_id` sits among them.
struct Jobs {
    jobs: Vec<JobInput>,
    index: HashMap<String, usize>,
    /// Per job: every readable outcome row's `instance_id` and the index of its run among the
    /// job's runs (`None`: left out, outside the window or unreadable), as read.
    outcomes: HashMap<usize, Vec<(i64, Option<usize>)>>,
    /// Per job: its run going now.
    running: HashMap<usize, Going>,
}

/// A job's run going now: its index among the job's runs, `last_executed_step_id` and when
/// that step began (`last_executed_step_date`).
type Going = (usize, Option<i64>, Option<DateTime<Utc>>);

impl Jobs {
    /// Every job with its category name (LEFT JOIN: a job whose category is gone still counts);
    /// a row without a `job_id` is skipped.
    fn from_rows(job_rows: &[JobRead]) -> Self {
        let mut jobs = Jobs {
            jobs: Vec::with_capacity(job_rows.len()),
            index: HashMap::new(),
            outcomes: HashMap::new(),
            running: HashMap::new(),
        };
        for r in job_rows {
            let Some(id) = r.job_id.text() else { continue };
            jobs.index.insert(id.clone(), jobs.jobs.len());
            jobs.jobs.push(job_from_row(r, id));
        }
        jobs
    }

    /// The job a row's `job_id` names, if it is one of them.
    fn find(&self, job_id: &Cell) -> Option<usize> {
        job_id.text().and_then(|id| self.index.get(&id)).copied()
    }

    /// Each job's schedules through sysjobschedules (a schedule may serve several jobs).
    fn add_schedules(&mut self, schedule_rows: &[ScheduleRead]) {
        for r in schedule_rows {
            let Some(j) = self.find(&r.job_id) else { continue };
            match schedule_from_row(r) {
                Ok(s) => self.jobs[j].schedules.push(s),
                Err(d) => self.jobs[j].diagnostics.push(d),
            }
        }
    }

    /// `history_horizon` from each job's oldest kept outcome row and whether it keeps at least
    /// the per-job cap of outcome rows (the readers use index seeks on nc1, LIMIT/OFFSET-bounded:
    /// never a scan of all history): set where the job looks trimmed (see [`assemble`]).
    fn add_horizons(&mut self, horizon_rows: &[HorizonRead], tz: Tz) {
        let mut oldest: Vec<(usize, DateTime<Utc>, bool)> = Vec::new();
        for r in horizon_rows {
            let Some(j) = self.find(&r.job_id) else { continue };
            if r.oldest_date == Cell::Null {
                continue; // no history at all
            }
            match oldest_kept(r, tz) {
                Ok(at) => oldest.push((j, at, r.at_cap != Cell::Null)),
                Err(d) => self.jobs[j].diagnostics.push(d),
            }
        }
        if let Some(instance_oldest) = oldest.iter().map(|o| o.1).min() {
            for &(j, at, at_cap) in &oldest {
                if at_cap && at > instance_oldest + Duration::days(1) {
                    self.jobs[j].history_horizon = Some(at);
                }
            }
        }
    }

    /// The runs of the outcome rows (step_id 0; the readers fetch those whose local run_date
    /// lies within the window's local dates) that start inside the window.
    fn add_outcomes(&mut self, outcome_rows: &[OutcomeRead], tz: Tz, window: Window) {
        for r in outcome_rows {
            let Some(j) = self.find(&r.job_id) else { continue };
            let (run, diags) = outcome_to_run(r, tz);
            self.jobs[j].diagnostics.extend(diags);
            let at = match run.filter(|run| window.contains(run.start)) {
                Some(run) => {
                    self.jobs[j].runs.push(run);
                    Some(self.jobs[j].runs.len() - 1)
                }
                None => None,
            };
            if let Ok(Some(id)) = r.instance_id.int() {
                self.outcomes.entry(j).or_default().push((id, at));
            }
        }
    }

    /// The runs executing now (started, not stopped, in the latest Agent session) that started
    /// inside the window.
    ///
    /// A run whose outcome row was read too (it ended between the two reads) is that run, not
    /// one going now.
    fn add_running(&mut self, running_rows: &[RunningRead], tz: Tz, window: Window) {
        for r in running_rows {
            let Some(j) = self.find(&r.job_id) else { continue };
            match running_run(r, tz, window) {
                Ok(Some(run)) if self.jobs[j].runs.iter().any(|o| o.start == run.start) => {}
                Ok(Some(run)) => {
                    self.jobs[j].runs.push(run);
                    let last = r.last_executed_step_id.int().ok().flatten();
                    let began =
                        r.last_executed_step_date.text().and_then(|t| parse_datetime(&t)).map(|t| local_to_utc(t, tz));
                    self.running.insert(j, (self.jobs[j].runs.len() - 1, last, began));
                }
                Ok(None) => {}
                Err(d) => self.jobs[j].diagnostics.push(d),
            }
        }
    }

    /// Each run's steps: a step row belongs to the job's first outcome row after it by
    /// `instance_id` (the Agent writes the outcome row after the run's last step, as SSMS
    /// groups them); step rows after the job's last outcome row belong to its run going now,
    /// which also gets the step executing now ([`current_step`]). A step row that starts before the run it
    /// would belong to, or with no run to belong to, is a diagnostic (not on the window's first
    /// date, where a run that started the day before may have left steps).
    fn add_steps(&mut self, step_rows: &[StepHistoryRead], job_steps: &[JobStepRead], tz: Tz) {
        // What sysjobsteps says of each step: name and subsystem; and what follows each.
        let mut defined: HashMap<(usize, i64), (String, String)> = HashMap::new();
        let mut flows: HashMap<usize, (Vec<StepFlow>, Option<i64>)> = HashMap::new();
        for r in job_steps {
            let (Some(j), Ok(Some(id))) = (self.find(&r.job_id), r.step_id.int()) else { continue };
            defined.insert((j, id), (r.step_name.text().unwrap_or_default(), r.subsystem.text().unwrap_or_default()));
            let int = |c: &Cell| c.int().ok().flatten().unwrap_or(0);
            let job = flows.entry(j).or_default();
            job.0.push(StepFlow {
                step_id: id,
                on_success_action: int(&r.on_success_action),
                on_success_step_id: int(&r.on_success_step_id),
                on_fail_action: int(&r.on_fail_action),
                on_fail_step_id: int(&r.on_fail_step_id),
            });
            job.1 = r.start_step_id.int().ok().flatten();
        }
        for list in self.outcomes.values_mut() {
            list.sort_by_key(|o| o.0);
        }
        let first_date = step_rows.iter().filter_map(|r| r.run_date.int().ok().flatten()).min();
        let mut orphans: HashMap<usize, (usize, String)> = HashMap::new();
        for r in step_rows {
            let Some(j) = self.find(&r.job_id) else { continue };
            let (step, row_id) = match step_from_row(r, tz) {
                Ok(s) => s,
                Err(d) => {
                    self.jobs[j].diagnostics.push(d);
                    continue;
                }
            };
            let mut step = step;
            if let Some((name, subsystem)) = defined.get(&(j, step.id)) {
                if step.name.is_empty() {
                    step.name = name.clone();
                }
                step.subsystem = subsystem.clone();
            }
            let outcomes = self.outcomes.get(&j).map(Vec::as_slice).unwrap_or_default();
            let after = outcomes.partition_point(|o| o.0 < row_id);
            let home = match outcomes.get(after) {
                Some(&(_, run)) => run.map(Some).ok_or(()),
                None => Ok(self.running.get(&j).map(|r| r.0)),
            };
            match home {
                // Its run is outside the window (or its outcome row unreadable): not shown.
                Err(()) => {}
                Ok(Some(run)) if step.start.is_none_or(|t| t >= self.jobs[j].runs[run].start) => {
                    self.jobs[j].runs[run].steps.push(step);
                }
                _ => {
                    if r.run_date.int().ok().flatten() != first_date {
                        let o = orphans.entry(j).or_insert((0, format!("sysjobhistory row instance_id {row_id}")));
                        o.0 += 1;
                    }
                }
            }
        }
        for (j, (count, first)) in orphans {
            self.jobs[j].diagnostics.push(Diagnostic::info(format!(
                "{count} step row{} without the job-outcome row of {} run (the first: {first}): left out of the runs",
                if count == 1 { "" } else { "s" },
                if count == 1 { "its" } else { "their" },
            )));
        }
        // The step executing now, as sysjobsteps names it.
        for (&j, &(run, last, began)) in &self.running {
            let r = &mut self.jobs[j].runs[run];
            let Some(id) = current_step(&r.steps, flows.get(&j), last, began) else {
                continue; // the actions end the job there: the run is finishing
            };
            let known = defined.get(&(j, id));
            let has_steps = defined.keys().any(|k| k.0 == j);
            if has_steps && known.is_none() {
                continue; // no such step: the run is finishing
            }
            let (name, subsystem) = known.cloned().unwrap_or_default();
            let start = r
                .steps
                .last()
                .and_then(|s| s.start.zip(s.duration_secs))
                .and_then(|(t, d)| t.checked_add_signed(Duration::try_seconds(d)?));
            r.steps.push(Step { id, name, outcome: Some(RunOutcome::InProgress), start, subsystem, ..Step::default() });
        }
    }
}

/// The step a run going now executes: what follows its last finished step
/// (`last_executed_step_id`, else its latest step row) by that step's outcome, from its step
/// row of this run (the one that began at `last_executed_step_date` when that is known, else
/// its latest), and `flow`, what sysjobsteps says follows each step of the job (with
/// `start_step_id`), by [`step_now`]'s rules. Without sysjobsteps: the step a retry repeats,
/// else the one after the last that ended. `None`: the actions end the job there.
fn current_step(
    steps: &[Step],
    flow: Option<&(Vec<StepFlow>, Option<i64>)>,
    last: Option<i64>,
    began: Option<DateTime<Utc>>,
) -> Option<i64> {
    let last = last.filter(|&l| l > 0).or_else(|| steps.iter().rev().find(|s| s.id > 0).map(|s| s.id));
    let row = last.and_then(|l| {
        let mut attempts = steps.iter().rev().filter(|s| s.id == l);
        let latest = attempts.clone().next();
        // Step rows keep whole seconds; sysjobactivity keeps milliseconds.
        began.and_then(|b| attempts.find(|s| s.start.is_some_and(|t| t.timestamp() == b.timestamp()))).or(latest)
    });
    let Some((flows, start)) = flow else {
        return match (last, row) {
            (Some(l), Some(s)) if s.outcome == Some(RunOutcome::Retry) => Some(l),
            (Some(l), _) => Some(l + 1),
            (None, _) => Some(1),
        };
    };
    step_now(flows, *start, last.map(|l| (l, row.and_then(|s| s.outcome))))
}

/// One `sysjobs` row as a job with no schedules or runs yet (an unreadable `enabled` is taken
/// as enabled, with a warning).
fn job_from_row(r: &JobRead, id: String) -> JobInput {
    let mut diagnostics = Vec::new();
    let enabled = match r.enabled.int() {
        Ok(Some(v)) => v != 0,
        _ => {
            diagnostics.push(Diagnostic::warning(
                "enabled",
                r.enabled.shown(),
                format!("sysjobs row job_id {id}: enabled is not 0 or 1; taken as enabled"),
            ));
            true
        }
    };
    JobInput {
        name: r.name.text().unwrap_or_else(|| id.clone()),
        id,
        category: r.category.text().unwrap_or_else(|| "[Uncategorized (Local)]".into()),
        owner: r.owner.text().filter(|o| !o.trim().is_empty()),
        enabled,
        command: None,
        schedules: Vec::new(),
        runs: Vec::new(),
        history_horizon: None,
        source_horizon: None,
        unobserved: Vec::new(),
        diagnostics,
        earlier: Vec::new(),
        modified: None,
    }
}

/// The start of a job's oldest kept outcome row, or why it is not known.
fn oldest_kept(r: &HorizonRead, tz: Tz) -> Result<DateTime<Utc>, Diagnostic> {
    let key = format!("sysjobhistory row instance_id {}", r.oldest_id.shown());
    let date = r.oldest_date.int().ok().flatten().and_then(parse_date_int);
    let time = r.oldest_time.int().ok().flatten().and_then(parse_time_int);
    match (date, time) {
        (Some(d), Some(t)) => Ok(local_to_utc(d.and_time(t), tz)),
        (None, _) => Err(Diagnostic::warning(
            "run_date",
            r.oldest_date.shown(),
            format!("{key} (the job's oldest outcome row): not a yyyymmdd date; the history horizon is not known"),
        )),
        (_, None) => Err(Diagnostic::warning(
            "run_time",
            r.oldest_time.shown(),
            format!("{key} (the job's oldest outcome row): not an hhmmss time; the history horizon is not known"),
        )),
    }
}

/// One step row as a [`Step`] with its `instance_id`, or why not (a row without an
/// `instance_id`, `step_id` or readable start is left out).
fn step_from_row(r: &StepHistoryRead, tz: Tz) -> Result<(Step, i64), Diagnostic> {
    let id = match r.instance_id.int() {
        Ok(Some(id)) => id,
        _ => {
            return Err(Diagnostic::warning(
                "instance_id",
                r.instance_id.shown(),
                "sysjobhistory step row without a usable instance_id; the row is left out",
            ));
        }
    };
    let key = format!("sysjobhistory step row instance_id {id}");
    let step_id = required_int(&r.step_id, "step_id", &key, LEFT_OUT)?;
    let int = |c: &Cell| c.int().ok().flatten();
    let date = int(&r.run_date).and_then(parse_date_int);
    let time = int(&r.run_time).and_then(parse_time_int);
    let (Some(date), Some(time)) = (date, time) else {
        return Err(Diagnostic::warning(
            "run_date",
            format!("{} {}", r.run_date.shown(), r.run_time.shown()),
            format!("{key}: not a yyyymmdd date and hhmmss time; the step row is left out"),
        ));
    };
    let status = int(&r.run_status);
    let step = Step {
        id: step_id,
        name: r.step_name.text().unwrap_or_default(),
        outcome: status.and_then(RunOutcome::from_run_status),
        message: r.message.text().unwrap_or_default(),
        sql_message_id: int(&r.sql_message_id).unwrap_or(0),
        sql_severity: int(&r.sql_severity).unwrap_or(0),
        retries: int(&r.retries_attempted).unwrap_or(0),
        start: Some(local_to_utc(date.and_time(time), tz)),
        duration_secs: int(&r.run_duration).map(|d| decode_duration(d).unwrap_or_else(|(s, _)| s.unwrap_or(0))),
        subsystem: String::new(),
    };
    Ok((step, id))
}

/// A run executing now as an in-progress [`Run`] lasting up to `window.end`; `None` when it
/// started outside the window, an Err when its start is unreadable.
fn running_run(r: &RunningRead, tz: Tz, window: Window) -> Result<Option<Run>, Diagnostic> {
    let Some(start) = r.start_execution_date.text().and_then(|t| parse_datetime(&t)) else {
        return Err(Diagnostic::warning(
            "start_execution_date",
            r.start_execution_date.shown(),
            "sysjobactivity row of the latest session: not a datetime; the running run is left out",
        ));
    };
    // Whole seconds, as the run's outcome row will say (`run_time`): the run going now and
    // the run it will have been are one run, with one start.
    let start = local_to_utc(start.with_nanosecond(0).unwrap_or(start), tz);
    if !window.contains(start) {
        return Ok(None);
    }
    Ok(Some(Run {
        start,
        duration_secs: (window.end - start).num_seconds().max(0),
        outcome: RunOutcome::InProgress,
        trigger: requested_by(&r.run_requested_source),
        message: String::new(),
        steps: Vec::new(),
    }))
}

/// Who asked for a running run (`run_requested_source`: 1 scheduler, 2 alerter, 3 boot,
/// 4 user); unknown is taken as the scheduler.
fn requested_by(source: &Cell) -> Trigger {
    match source.text().as_deref().map(str::trim) {
        Some("1") => Trigger::Schedule(None),
        Some("4") => Trigger::Manual,
        Some("2") => Trigger::Other("Alert".into()),
        Some("3") => Trigger::Other("Agent start".into()),
        Some(other) => Trigger::Other(format!("run_requested_source {other}")),
        None => Trigger::Schedule(None),
    }
}

/// Every Agent start (one syssessions row per start of the service), in order; unreadable ones
/// are left out with a log line.
fn agent_starts(name: &str, session_rows: &[SessionRead], tz: Tz) -> Vec<DateTime<Utc>> {
    let mut starts: Vec<DateTime<Utc>> = session_rows
        .iter()
        .filter_map(|r| r.agent_start_date.text().and_then(|t| parse_datetime(&t)))
        .map(|t| local_to_utc(t, tz))
        .collect();
    starts.sort();
    if starts.len() < session_rows.len() {
        tracing::warn!(instance = %name, "syssessions rows with an unreadable agent_start_date were left out");
    }
    starts
}

/// The step rows among `step_rows` whose run's outcome row is not among `outcome_rows` yet
/// (after their job's last outcome row read: the run is going, or its outcome row is written
/// later), by `instance_id`, from the local date `since` (`yyyymmdd`) on, at most `max` (the
/// newest). An incremental read asks for them again until their outcome row comes, so that a
/// run's steps read at one poll stay with it when it ends at a later one.
pub fn pending_steps(outcome_rows: &[OutcomeRead], step_rows: &[StepHistoryRead], since: i64, max: usize) -> Vec<i64> {
    let mut last: HashMap<String, i64> = HashMap::new();
    for r in outcome_rows {
        if let (Some(job), Ok(Some(id))) = (r.job_id.text(), r.instance_id.int()) {
            let at = last.entry(job).or_insert(id);
            *at = (*at).max(id);
        }
    }
    let mut pending: Vec<i64> = step_rows
        .iter()
        .filter(|r| r.run_date.int().ok().flatten().is_some_and(|d| d >= since))
        .filter_map(|r| {
            let id = r.instance_id.int().ok().flatten()?;
            let job = r.job_id.text()?;
            last.get(&job).is_none_or(|&o| id > o).then_some(id)
        })
        .collect();
    pending.sort_unstable();
    pending.dedup();
    pending.split_off(pending.len().saturating_sub(max))
}

// ---------------------------------------------------------------------------------------------
// Reading incrementally: what both readers decide the same way (each asks its own database)

/// `sysjobhistory` rows are asked for this many at a time past the mark.
pub const PAGE: i64 = 1000;

/// At most this many step rows waiting for their run's outcome row are asked for again.
pub const MAX_OPEN: usize = 500;

/// How long a note that the reading started over stays on the instance.
const RESTART_NOTE_FOR: Duration = Duration::days(1);

/// Why `sysjobhistory`'s `instance_id`s went back below `mark` (`None`: they did not).
/// `instance_id` is an identity that only grows, and msdb's purges (`sp_purge_jobhistory`, the
/// per-job and total caps) remove the oldest rows: a highest `instance_id` below the mark, or
/// an oldest one below the oldest seen before (or the same one on a row of another time),
/// means the history was replaced (msdb restored from a backup, purged and its identity
/// reseeded): rows up to the mark cannot be trusted to be the ones Sundial read.
pub fn went_back(mark: &Mark, low: Option<(i64, DateTime<Utc>)>, high: Option<i64>) -> Option<String> {
    let cause = "msdb was restored from a backup, or its history purged and the identity reseeded";
    mark.went_back(low.map(|(id, at)| (id, Some(at))), high, ("msdb's sysjobhistory: the", "instance_id", cause))
}

/// How one read asks `sysjobhistory`, from the held [`Mark`] and the table's two ends read now
/// (`low`: its oldest row's `instance_id` and start, `high`: its largest `instance_id`).
#[derive(Debug)]
pub struct HistoryPlan<'m> {
    /// Ask only past this mark (the read is a [`Extent::Delta`]); `None`: read the window's
    /// dates whole.
    pub past: Option<&'m Mark>,
    /// [`Extent::Whole`] for a first read; a delta otherwise (read again after the history
    /// went back, the window's rows are added to what Sundial holds: runs it read before still
    /// happened).
    pub extent: Extent,
    /// When the reading last had to start over, with why: now, if the history went back; else
    /// the held mark's for a day.
    pub restarted: Option<(DateTime<Utc>, String)>,
}

/// The [`HistoryPlan`] of a read at `now` with the held mark `since`.
pub fn plan_history(
    since: Option<&Mark>,
    low: Option<(i64, DateTime<Utc>)>,
    high: Option<i64>,
    now: DateTime<Utc>,
) -> HistoryPlan<'_> {
    let back = since.and_then(|m| went_back(m, low, high));
    let kept = since.and_then(|m| m.restarted.clone()).filter(|(at, _)| now - *at < RESTART_NOTE_FOR);
    match (since, back) {
        (Some(mark), None) => HistoryPlan { past: Some(mark), extent: Extent::Delta, restarted: kept },
        (Some(_), Some(why)) => HistoryPlan { past: None, extent: Extent::Delta, restarted: Some((now, why)) },
        (None, _) => HistoryPlan { past: None, extent: Extent::Whole, restarted: None },
    }
}

/// The note on an instance whose reading started over (`restarted`), while it stays.
pub fn restart_note(restarted: Option<&(DateTime<Utc>, String)>) -> Option<Diagnostic> {
    let (at, why) = restarted?;
    Some(Diagnostic::new(
        sundial_engine::Severity::Warning,
        Some("instance_id"),
        None,
        format!(
            "{why}: at {} UTC Sundial read the whole window again (runs it kept before are still shown)",
            at.format("%Y-%m-%d %H:%M:%S")
        ),
    ))
}

/// The [`Mark`] a read leaves: read up to `read_to`, the table's oldest row `low`, the step rows
/// read from the local date `first` on that wait for their run's outcome row
/// ([`pending_steps`], at most [`MAX_OPEN`], none past `read_to`), and `restarted`.
pub fn mark_after(
    outcome_rows: &[OutcomeRead],
    step_rows: &[StepHistoryRead],
    first: i64,
    read_to: i64,
    low: Option<(i64, DateTime<Utc>)>,
    restarted: Option<(DateTime<Utc>, String)>,
) -> Mark {
    let open =
        pending_steps(outcome_rows, step_rows, first, MAX_OPEN).into_iter().filter(|id| *id <= read_to).collect();
    Mark { high: read_to, low, open, restarted }
}

/// `sysjobhistory` rows read in one query (outcome and step rows alike, each with every step
/// column) as step rows and outcome rows (`step_id` 0); with the highest `instance_id` among
/// them (0 when none).
pub fn split_history(rows: Vec<StepHistoryRead>) -> (Vec<StepHistoryRead>, Vec<OutcomeRead>, i64) {
    let (mut steps, mut outcomes, mut high) = (Vec::new(), Vec::new(), 0);
    for r in rows {
        if let Ok(Some(id)) = r.instance_id.int() {
            high = high.max(id);
        }
        if r.step_id.int() == Ok(Some(0)) {
            outcomes.push(OutcomeRead {
                instance_id: r.instance_id,
                job_id: r.job_id,
                run_status: r.run_status,
                run_date: r.run_date,
                run_time: r.run_time,
                run_duration: r.run_duration,
                message: r.message,
            });
        } else {
            steps.push(r);
        }
    }
    (steps, outcomes, high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_round_trip_and_grow_past_99_hours() {
        assert_eq!(encode_duration(5742), 13542);
        assert_eq!(decode_duration(13542), Ok(5742));
        assert_eq!(encode_duration(100 * 3600 + 61), 1000101);
        assert_eq!(decode_duration(1000101), Ok(100 * 3600 + 61));
        assert!(decode_duration(170).is_err());
        assert!(decode_duration(-1).is_err());
    }

    #[test]
    fn triggers_come_from_the_message() {
        let s = "The job succeeded.  The Job was invoked by Schedule 12 (Nightly (main)).  The last step to run was step 1 (Load).";
        assert_eq!(parse_trigger(s), Trigger::Schedule(Some(12)));
        let m = "The job failed.  The Job was invoked by User DOMAIN\\dba.  The last step to run was step 2 (x).";
        assert_eq!(parse_trigger(m), Trigger::Manual);
        let a = "The job succeeded.  The Job was invoked by Alert 3 (Disk full).  The last step to run was step 1 (x).";
        assert_eq!(parse_trigger(a), Trigger::Other("Alert 3 (Disk full)".into()));
        assert_eq!(parse_trigger(""), Trigger::Schedule(None));
    }

    #[test]
    fn corrupt_outcome_rows_become_diagnostics() {
        let row = |status: Cell, date: Cell| OutcomeRead {
            instance_id: Cell::Int(7),
            job_id: Cell::Text("X".into()),
            run_status: status,
            run_date: date,
            run_time: Cell::Int(101500),
            run_duration: Cell::Int(130),
            message: Cell::Null,
        };
        let tz: Tz = "America/New_York".parse().unwrap();
        let (run, d) = outcome_to_run(&row(Cell::Int(1), Cell::Int(20240105)), tz);
        let run = run.expect("a good row reads");
        assert_eq!(run.duration_secs, 90);
        assert_eq!(run.start.to_rfc3339(), "2024-01-05T15:15:00+00:00");
        assert!(d.is_empty());
        for (status, date, field) in [
            (Cell::Int(9), Cell::Int(20240105), "run_status"),
            (Cell::Null, Cell::Int(20240105), "run_status"),
            (Cell::Int(1), Cell::Int(20231345), "run_date"),
            (Cell::Int(1), Cell::Text("soon".into()), "run_date"),
        ] {
            let (run, d) = outcome_to_run(&row(status, date), tz);
            assert!(run.is_none());
            assert_eq!(d.len(), 1);
            assert_eq!(d[0].field.as_deref(), Some(field));
            assert!(d[0].message.contains("instance_id 7"), "{}", d[0]);
        }
    }

    #[test]
    fn local_times_in_a_fold_read_as_the_earlier_instant() {
        let tz: Tz = "America/New_York".parse().unwrap();
        let fold = NaiveDate::from_ymd_opt(2024, 11, 3).unwrap().and_hms_opt(1, 30, 0).unwrap();
        assert_eq!(local_to_utc(fold, tz).to_rfc3339(), "2024-11-03T05:30:00+00:00");
        let gap = NaiveDate::from_ymd_opt(2024, 3, 10).unwrap().and_hms_opt(2, 30, 0).unwrap();
        assert_eq!(local_to_utc(gap, tz).to_rfc3339(), "2024-03-10T07:00:00+00:00");
    }
}
