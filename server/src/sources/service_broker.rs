//! The Service Broker scheduler: `ScheduledJobs`, `JobSchedules`, `ScheduledJobSteps` and
//! `SchedulingErrors`, from SQL Server, PostgreSQL, MySQL/MariaDB or SQLite (see
//! [`super::tables`]). Times are read in the instance's zone (the design writes
//! `GETUTCDATE()`: configure UTC).
//!
//! # What the tables tell
//!
//! The design keeps no run history, only the latest of everything:
//! - `ScheduledJobs.LastRunOn`: when the last run that *finished* started (the activation
//!   procedure writes it, with the next `NextRunOn`, after the job's last step); `NextRunOn`:
//!   the dialog timer's time, the run due next or the run under way.
//! - `ScheduledJobSteps.LastExecutedOn` and `DurationInSeconds`: when each step last
//!   succeeded (read as its start, as `LastRunOn` is the job's) and how long it took with its
//!   retries. Steps run in `ID` order; `RetryOnFail`/`RetryOnFailTimes` say how many attempts
//!   a step gets.
//! - `SchedulingErrors`: a row per failed attempt of a step (`ScheduledJobStepId` set) or per
//!   failure of the activation procedure itself. A job that errors out is stopped (disabled,
//!   no further timer). Rows are never overwritten.
//!
//! # What Sundial rebuilds: at most two runs per job
//!
//! - **The last finished run**, at `LastRunOn`. Its steps are those that succeeded since (and
//!   before the next run); it succeeded, or failed when one of its errors is not an attempt
//!   a later attempt of the same step made good.
//! - **The run after it**, when it is due (at `NextRunOn`; when the scheduler emptied
//!   `NextRunOn` on stopping the job, at the schedule's next time after `LastRunOn`) and a step
//!   succeeded or an error was written since that time: it started then. An error that its
//!   step could not retry makes it failed. Otherwise it never finished: in progress while it
//!   may still be going (until the schedule's next time after it, a day at most), crashed
//!   after that. Nothing in the design ends a run that died, and the scheduler sets its next
//!   timer only when a run ends: the job runs no more, and a warning says so.
//!
//! A retried attempt stays inside its run: the run's message names the step, the attempt and
//! the error; the run's outcome is its last attempt's. Every `SchedulingErrors` row becomes a
//! log event ([`SourceRead::events`]): a retry, the failure that ended its run, or a failure
//! the tables tie to no run they still show. Since a job with events of its own gets no lines
//! derived from its runs, its runs' start and end lines come with them.
//!
//! Nothing before `LastRunOn` can be known (the job's history horizon: older runs' traces are
//! overwritten). A job that never finished a run is known since its latest trace (a step's
//! success or an error, outside the run under way): every run since would have left one, save
//! a run that died in its first step. A `NextRunOn` that disagrees with Sundial's forecast is
//! a warning ([`super::finish`]).
//!
//! # Read incrementally
//!
//! `SchedulingErrors` is the one table that grows. After a first read ([`read_since`]) a poll
//! asks it only for the rows past the `Id` high-water mark and the rows of the runs it still
//! rebuilds (each job's errors from its `LastRunOn` on, all of a job that never finished a run:
//! the [`Mark`]'s `open`), by the primary key; `ScheduledJobs`, `JobSchedules` and
//! `ScheduledJobSteps` (`LastRunOn`, `NextRunOn`, `LastExecutedOn` written in place) are read
//! whole each poll. It answers a delta that `super::read` merges into the held read, so a run
//! rebuilt before stays shown once `LastRunOn` moves past it; the held log before each job's
//! `LastRunOn` stays, the lines from there on are made again. An `Id` that went back (the table
//! truncated and reseeded, restored) is read whole again and noted. `SchedulingErrors` is read
//! by pages of `Id` ([`tables::read_pages`], 1,000 rows a query), the first read's window as
//! much as a delta, and the errors of the runs still rebuilt by lists of 1,000 `Id`s.
use chrono::{DateTime, TimeDelta, Utc};
use chrono_tz::Tz;
use std::collections::HashMap;
use sundial_engine::fleet::{InstanceInput, JobInput, JobSchedule};
use sundial_engine::log::{LogEvent, LogKind};
use sundial_engine::service_broker::ServiceBrokerJob;
use sundial_engine::{Diagnostic, Run, RunOutcome, Schedule, ScheduleId, Severity, Trigger, Window, Zone, tz};

use super::tables::{self, Col, TablesDb, TextRow, text};
use super::{BoxFuture, Extent, Mark, ReadContext, ReportedNext, SourceError, SourceRead};

pub const JOB_COLUMNS: &[Col] = &[
    Col::Plain("ID"),
    Col::Plain("JobScheduleId"),
    Col::Plain("JobName"),
    Col::Time("ValidFrom"),
    Col::Time("LastRunOn"),
    Col::Time("NextRunOn"),
    Col::Plain("IsEnabled"),
];
pub const SCHEDULE_COLUMNS: &[Col] = &[
    Col::Plain("ID"),
    Col::Plain("FrequencyType"),
    Col::Plain("Frequency"),
    Col::Plain("AbsoluteSubFrequency"),
    Col::Plain("MontlyRelativeSubFrequencyWhich"),
    Col::Plain("MontlyRelativeSubFrequencyWhat"),
    Col::Plain("RunAtInSecondsFromMidnight"),
];
/// `ScheduledJobSteps` without `SqlToRun` (the statements themselves are not Sundial's business).
pub const STEP_COLUMNS: &[Col] = &[
    Col::Plain("ID"),
    Col::Plain("ScheduledJobId"),
    Col::Plain("StepName"),
    Col::Plain("RetryOnFail"),
    Col::Plain("RetryOnFailTimes"),
    Col::Plain("DurationInSeconds"),
    Col::Time("LastExecutedOn"),
];
pub const ERROR_COLUMNS: &[Col] = &[
    Col::Plain("Id"),
    Col::Plain("ScheduledJobId"),
    Col::Plain("ScheduledJobStepId"),
    Col::Plain("ErrorLine"),
    Col::Plain("ErrorNumber"),
    Col::Plain("ErrorMessage"),
    Col::Plain("ErrorSeverity"),
    Col::Plain("ErrorState"),
    Col::Time("ErrorDate"),
];

/// The longest a run that never finished is taken to be still going (unless the schedule's
/// next time comes sooner): the design has no time limit, and its schedules run at most daily.
const STILL_RUNNING_MAX_SECS: i64 = 24 * 3600;

/// The errors query's condition: the window only (read by pages of `Id`,
/// [`tables::read_pages`]).
pub fn error_range(db: &TablesDb, window: Window, tz: Tz) -> String {
    let d = tables::column(db, "ErrorDate");
    let local = |t: DateTime<Utc>| t.with_timezone(&tz).naive_local();
    format!(
        "{d} >= {} AND {d} < {}",
        tables::time_literal(db, local(window.start)),
        tables::time_literal(db, local(window.end))
    )
}

/// One read of the Service Broker scheduler's tables (the kind's read for
/// [`super::connect::TablesSource`]). With a held read that has a [`Mark`], only what is new
/// ([`read_since`]).
pub fn read<'a>(db: &'a mut TablesDb, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
    let c = cx.config;
    Box::pin(async move {
        let held = cx.held.filter(|h| h.mark.is_some());
        read_since(db, &c.name, c.time_zone.unwrap_or(chrono_tz::UTC), cx.window, cx.now, held).await
    })
}

/// Every scheduled job with the runs its tables still show inside `window` (see the module
/// docs), the errors of the window as log events, and each job's `NextRunOn` for the
/// cross-check ([`super::finish`]); `now` is the poll's time. A whole read: [`read_since`]
/// with nothing held.
pub async fn read_instance(
    db: &mut TablesDb,
    name: &str,
    tz: Tz,
    window: Window,
    now: DateTime<Utc>,
) -> Result<SourceRead, SourceError> {
    read_since(db, name, tz, window, now, None).await
}

/// The error row at one end of `SchedulingErrors` by `Id` (`latest`, else the oldest): its `Id`
/// and `ErrorDate` as the table writes it; `None`: the table is empty.
async fn error_end(db: &mut TablesDb, latest: bool) -> Result<Option<(i64, Option<String>)>, SourceError> {
    let cols = [Col::Plain("Id"), Col::Time("ErrorDate")];
    let rows = tables::read_end(db, "SchedulingErrors", &cols, "Id", latest).await?;
    Ok(rows.first().and_then(|r| Some((error_id(r)?, text(r, "ErrorDate").map(str::to_owned)))))
}

/// An error row's `Id` (an identity: it only grows).
fn error_id(r: &TextRow) -> Option<i64> {
    text(r, "Id").and_then(|v| v.parse().ok())
}

/// Why `SchedulingErrors`' `Id`s went back below `mark` (`None`: they did not): `Id` is an
/// identity and rows are never overwritten, so a latest `Id` below the mark, or an oldest one
/// below the oldest seen before (or the same one on a row of another time), means the table was
/// replaced (truncated and reseeded, restored).
fn went_back(mark: &Mark, low: Option<(i64, Option<DateTime<Utc>>)>, high: Option<i64>) -> Option<String> {
    mark.went_back(low, high, ("SchedulingErrors'", "Id", "the table was truncated or its identity reseeded"))
}

/// [`read_instance`], asking `SchedulingErrors` (the only table that grows: a row per failed
/// attempt, never overwritten) only for what `held` (a read with a [`Mark`]) does not hold: the
/// rows past its `Id` high-water mark, and the rows of each job's runs Sundial still rebuilds
/// (from its `LastRunOn` on; all of a job that never finished one), by `Id`. `ScheduledJobs`,
/// `JobSchedules` and `ScheduledJobSteps` (a row per job or step, `LastRunOn`, `NextRunOn` and
/// `LastExecutedOn` written in place) are read whole each poll. When the `Id`s went back
/// ([`went_back`]) the window is read whole again and the read says why on the instance.
/// Answers a [`Extent::Delta`] after a held read: its log is the held log before each job's
/// runs rebuilt, and the lines of what it read.
pub async fn read_since(
    db: &mut TablesDb,
    name: &str,
    tz: Tz,
    window: Window,
    now: DateTime<Utc>,
    held: Option<&SourceRead>,
) -> Result<SourceRead, SourceError> {
    let since = held.and_then(|h| h.mark.as_ref());
    let order = format!("ORDER BY {}", tables::column(db, "ID"));
    let job_rows = tables::read(db, "ScheduledJobs", JOB_COLUMNS, &order).await?;
    let schedule_rows = tables::read(db, "JobSchedules", SCHEDULE_COLUMNS, &order).await?;
    let step_rows = tables::read(db, "ScheduledJobSteps", STEP_COLUMNS, &order).await?;
    let zone: Zone = tz.into();
    let to_utc = |raw: Option<String>| raw.and_then(|r| tables::wall_clock(&r)).map(|t| tz::local_to_instant(t, zone));
    // Both ends before the rows: a row added meanwhile is read now or by the next poll.
    let (mut low, mut high) = (None, None);
    if since.is_some() {
        low = error_end(db, false).await?.map(|(id, at)| (id, to_utc(at)));
        high = error_end(db, true).await?.map(|h| h.0);
    }
    let went_back = since.and_then(|m| went_back(m, low, high));
    let mut restarted = since.and_then(|m| m.restarted.clone()).filter(|(at, _)| now - *at < TimeDelta::days(1));
    // Rows up to it were read (and logged) by an earlier poll.
    let logged = since.filter(|_| went_back.is_none()).map(|m| m.high);
    let (extent, error_rows) = match since.filter(|_| went_back.is_none()) {
        Some(mark) => {
            let mut rows = tables::read_pages(db, "SchedulingErrors", ERROR_COLUMNS, "", "Id", Some(mark.high)).await?;
            rows.extend(tables::read_keys(db, "SchedulingErrors", ERROR_COLUMNS, "Id", &mark.open).await?);
            (Extent::Delta, rows)
        }
        None => {
            // Read again after the history went back, the window's rows are added to what
            // Sundial holds (runs it read before still happened), not put in its place.
            let extent = if went_back.is_some() { Extent::Delta } else { Extent::Whole };
            if let Some(why) = went_back {
                restarted = Some((now, why));
            }
            let range = error_range(db, window, tz);
            let rows = tables::read_pages(db, "SchedulingErrors", ERROR_COLUMNS, &range, "Id", None).await?;
            if rows.is_empty() && high.is_none() {
                high = error_end(db, true).await?.map(|h| h.0);
            }
            (extent, rows)
        }
    };
    let delta = extent == Extent::Delta;

    let mut notes = Vec::new();
    let mut steps: Vec<(Step, Vec<Diagnostic>)> = step_rows.iter().map(|r| Step::read(r, zone)).collect();
    steps.sort_by_key(|(s, _)| s.order());
    let mut errors: Vec<ErrorRow> = error_rows.iter().filter_map(|r| ErrorRow::read(r, zone, &mut notes)).collect();
    // In time order, as the whole read asks for them; a delta's only those of the window.
    errors.retain(|e| !delta || window.contains(e.at));
    errors.sort_by_key(|e| (e.at, e.id));
    let schedules: HashMap<&str, &TextRow> =
        schedule_rows.iter().filter_map(|r| text(r, "ID").map(|id| (id, r))).collect();

    let mut jobs = Vec::with_capacity(job_rows.len());
    let mut events = Vec::new();
    let mut reported_next = Vec::new();
    let mut open = Vec::new();
    for (i, r) in job_rows.iter().enumerate() {
        let facts = JobFacts::read(r, i as ScheduleId + 1, &schedules, zone);
        // The runs rebuilt start at LastRunOn: its errors from there on are read again.
        let cut = match facts.last {
            Ok(Some(last)) => last,
            _ => window.start,
        };
        // An error read again from before it is in no run now: its line is the held one.
        let read_before = |e: &ErrorRow| e.at < cut && e.id.is_some_and(|id| logged.is_some_and(|l| id <= l));
        let kept: Vec<ErrorRow>;
        let errors_now = if delta {
            kept = errors.iter().filter(|e| !read_before(e)).cloned().collect();
            &kept
        } else {
            &errors
        };
        let (job, job_events) = read_job(r, &facts, &steps, errors_now, window, now);
        let mine = errors.iter().filter(|e| e.job_id.as_deref() == Some(facts.id.as_str()));
        open.extend(mine.filter(|e| e.at >= cut).filter_map(|e| e.id));
        if let (true, Some(held)) = (delta, held) {
            events.extend(
                held.events.iter().filter(|e| e.job_id == facts.id && e.at >= window.start && e.at < cut).cloned(),
            );
        }
        jobs.push(job);
        events.extend(job_events);
        reported_next.extend(facts.reported_next());
    }
    let known: Vec<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
    notes.extend(orphan_steps(&steps, &known));
    events.extend(orphan_errors(&errors, &known));
    if let (true, Some(held)) = (delta, held) {
        // The log of errors of no job, and of jobs gone, stays; so do findings on rows read before.
        let before: Vec<LogEvent> = held
            .events
            .iter()
            .filter(|e| e.at >= window.start && !known.contains(&e.job_id.as_str()) && !events.contains(*e))
            .cloned()
            .collect();
        events.extend(before);
        for d in held.notes.iter().filter(|d| d.field.as_deref() == Some("ErrorDate")) {
            if !notes.contains(d) {
                notes.push(d.clone());
            }
        }
    }
    if let Some((at, why)) = &restarted {
        notes.push(Diagnostic::new(
            Severity::Warning,
            Some("Id"),
            None,
            format!(
                "{why}: at {} UTC Sundial read the whole window again (runs it kept before are still shown)",
                at.format("%Y-%m-%d %H:%M:%S")
            ),
        ));
    }
    events.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.job_id.cmp(&b.job_id)));
    let mark = Mark {
        high: error_rows
            .iter()
            .filter_map(error_id)
            .chain(high)
            .chain(since.filter(|_| delta).map(|m| m.high))
            .max()
            .unwrap_or(0),
        low: low.and_then(|(id, at)| Some((id, at?))).or_else(|| since.and_then(|m| m.low)),
        open,
        restarted,
    };
    let input = InstanceInput::new(name, zone, jobs, Vec::new());
    Ok(SourceRead { reported_next, events, extent, mark: Some(mark), ..SourceRead::new(input, notes, now) })
}

/// One job: its row, its steps' and errors' findings, the runs of `window` and its log lines.
fn read_job(
    r: &TextRow,
    facts: &JobFacts,
    steps: &[(Step, Vec<Diagnostic>)],
    errors: &[ErrorRow],
    window: Window,
    now: DateTime<Utc>,
) -> (JobInput, Vec<LogEvent>) {
    let id = facts.id.as_str();
    let mut diagnostics = facts.diagnostics.clone();
    let mine: Vec<&Step> = steps
        .iter()
        .filter(|(s, _)| s.job_id.as_deref() == Some(id))
        .map(|(s, d)| {
            diagnostics.extend(d.iter().cloned());
            s
        })
        .collect();
    let my_errors: Vec<&ErrorRow> = errors.iter().filter(|e| e.job_id.as_deref() == Some(id)).collect();
    let history = history(facts, &mine, &my_errors, now);
    diagnostics.extend(history.diagnostics);
    let job = JobInput {
        id: id.to_owned(),
        name: text(r, "JobName").map(str::to_owned).unwrap_or_else(|| format!("job {id}")),
        category: "Service Broker scheduler".into(),
        // ScheduledJobs records no owner.
        owner: None,
        enabled: facts.enabled,
        command: None,
        schedules: vec![JobSchedule {
            id: facts.schedule_id,
            name: text(r, "JobScheduleId").unwrap_or("once").to_owned(),
            enabled: facts.enabled,
            schedule: Schedule::ServiceBroker(facts.job.clone()),
        }],
        runs: history.runs.into_iter().filter(|run| window.contains(run.start)).collect(),
        history_horizon: history.horizon,
        source_horizon: None,
        unobserved: Vec::new(),
        diagnostics,
        earlier: Vec::new(),
        modified: None,
    };
    (job, history.events)
}

/// A time column read on the instance's clock: `Ok(None)` for NULL, `Err(raw)` when it is not
/// a time.
fn instant(r: &TextRow, col: &str, tz: Zone) -> Result<Option<DateTime<Utc>>, String> {
    match text(r, col) {
        None => Ok(None),
        Some(raw) => tables::wall_clock(raw)
            .map(|t| Some(sundial_engine::tz::local_to_instant(t, tz)))
            .ok_or_else(|| raw.to_owned()),
    }
}

/// A BIT column: 1/0, true/false (PostgreSQL's boolean), or the byte MySQL's BIT(1) is.
fn bit(v: &str) -> Option<bool> {
    match v {
        "1" | "\u{1}" => Some(true),
        "0" | "\u{0}" => Some(false),
        t if t.eq_ignore_ascii_case("true") => Some(true),
        t if t.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

/// An instant as the instance's wall clock shows it.
fn shown(at: DateTime<Utc>, tz: Zone) -> String {
    sundial_engine::tz::to_local(at, tz).format("%Y-%m-%d %H:%M:%S").to_string()
}

/// Whole seconds from `from` to `to` (never negative), rounded.
fn secs(from: DateTime<Utc>, to: DateTime<Utc>) -> i64 {
    ((to - from).num_milliseconds().max(0) + 500) / 1000
}

/// One `ScheduledJobSteps` row.
#[derive(Clone, Debug)]
struct Step {
    id: String,
    job_id: Option<String>,
    name: String,
    /// How many attempts it gets: 1, or 1 + `RetryOnFailTimes` with `RetryOnFail`.
    attempts: i64,
    /// `DurationInSeconds`: its last success with its retries; `None` when unknown.
    duration: Option<f64>,
    /// `LastExecutedOn`: its last success.
    last: Option<DateTime<Utc>>,
}

impl Step {
    /// The row, with a warning naming each column that cannot be read (read as unknown).
    fn read(r: &TextRow, tz: Zone) -> (Step, Vec<Diagnostic>) {
        let id = text(r, "ID").unwrap_or("?").to_owned();
        let mut diags = Vec::new();
        let mut warn = |col: &str, raw: &str, what: &str| {
            diags.push(Diagnostic::warning(col, raw, format!("ScheduledJobSteps row {id}: {what}")))
        };
        let retry = match text(r, "RetryOnFail") {
            None => false,
            Some(raw) => bit(raw).unwrap_or_else(|| {
                warn("RetryOnFail", raw, "not a BIT (0 or 1); read as 0");
                false
            }),
        };
        let times = match text(r, "RetryOnFailTimes").map(|raw| (raw, raw.parse::<i64>())) {
            None => 0,
            Some((_, Ok(n))) if n >= 0 => n,
            Some((raw, _)) => {
                warn("RetryOnFailTimes", raw, "not a count of retries; read as 0");
                0
            }
        };
        let duration = match text(r, "DurationInSeconds").map(|raw| (raw, raw.parse::<f64>())) {
            None => None,
            Some((_, Ok(d))) if d.is_finite() && d >= 0.0 => Some(d),
            Some((raw, _)) => {
                warn("DurationInSeconds", raw, "not a duration in seconds; the step's length is unknown");
                None
            }
        };
        let last = instant(r, "LastExecutedOn", tz).unwrap_or_else(|raw| {
            warn("LastExecutedOn", &raw, "not a time; read as never");
            None
        });
        let step = Step {
            name: text(r, "StepName").map(str::to_owned).unwrap_or_default(),
            job_id: text(r, "ScheduledJobId").map(str::to_owned),
            // Saturating: a RetryOnFailTimes of i64::MAX must not overflow.
            attempts: if retry { times.saturating_add(1) } else { 1 },
            duration,
            last,
            id,
        };
        (step, diags)
    }

    /// The order steps run in: by `ID`.
    fn order(&self) -> (i64, String) {
        (self.id.parse().unwrap_or(i64::MAX), self.id.clone())
    }

    /// When its last success ended.
    fn end(&self) -> Option<DateTime<Utc>> {
        let d = TimeDelta::try_milliseconds((self.duration.unwrap_or(0.0) * 1000.0).round() as i64)?;
        self.last?.checked_add_signed(d)
    }

    fn label(&self) -> String {
        if self.name.is_empty() { format!("step {}", self.id) } else { format!("step '{}'", self.name) }
    }

    /// "'load' 40.25 s".
    fn done(&self) -> String {
        match self.duration {
            Some(d) => format!("{} {d} s", self.label()),
            None => self.label(),
        }
    }
}

/// One `SchedulingErrors` row.
#[derive(Clone, Debug)]
struct ErrorRow {
    /// `Id` (`None`: not a number).
    id: Option<i64>,
    job_id: Option<String>,
    step_id: Option<String>,
    at: DateTime<Utc>,
    /// "error 547 (severity 16, state 0, line 1): The DELETE statement conflicted …".
    text: String,
}

impl ErrorRow {
    /// The row; `None`, with a note naming `ErrorDate`, when it has no readable time.
    fn read(r: &TextRow, tz: Zone, notes: &mut Vec<Diagnostic>) -> Option<ErrorRow> {
        let at = match instant(r, "ErrorDate", tz) {
            Ok(Some(at)) => at,
            Ok(None) | Err(_) => {
                notes.push(Diagnostic::warning(
                    "ErrorDate",
                    text(r, "ErrorDate").unwrap_or("NULL"),
                    format!("SchedulingErrors row {}: not a time; the error is left out", text(r, "Id").unwrap_or("?")),
                ));
                return None;
            }
        };
        let details: Vec<String> = [("severity", "ErrorSeverity"), ("state", "ErrorState"), ("line", "ErrorLine")]
            .iter()
            .filter_map(|(word, col)| text(r, col).map(|v| format!("{word} {v}")))
            .collect();
        let mut head = format!("error {}", text(r, "ErrorNumber").unwrap_or("?"));
        if !details.is_empty() {
            head = format!("{head} ({})", details.join(", "));
        }
        Some(ErrorRow {
            id: error_id(r),
            job_id: text(r, "ScheduledJobId").map(str::to_owned),
            step_id: text(r, "ScheduledJobStepId").map(str::to_owned),
            at,
            text: format!("{head}: {}", text(r, "ErrorMessage").unwrap_or_default()),
        })
    }
}

/// What one `ScheduledJobs` row (with its `JobSchedules` row) says.
struct JobFacts {
    id: String,
    schedule_id: ScheduleId,
    tz: Zone,
    /// The row as the engine reads it.
    job: ServiceBrokerJob,
    enabled: bool,
    /// `LastRunOn`; `Err` when it is not a time (the engine names it).
    last: Result<Option<DateTime<Utc>>, ()>,
    next: Option<DateTime<Utc>>,
    valid_from: Option<DateTime<Utc>>,
    raw_next: Option<String>,
    diagnostics: Vec<Diagnostic>,
}

impl JobFacts {
    fn read(r: &TextRow, schedule_id: ScheduleId, schedules: &HashMap<&str, &TextRow>, tz: Zone) -> JobFacts {
        let id = text(r, "ID").unwrap_or("?").to_owned();
        let mut diagnostics = Vec::new();
        // The job row with its schedule's columns (a "run once" job has none: JobScheduleId -1).
        let mut merged = r.clone();
        if let Some(s) = text(r, "JobScheduleId").and_then(|sid| schedules.get(sid)) {
            for (k, v) in s.iter().filter(|(k, _)| k.as_str() != "ID") {
                merged.insert(k.clone(), v.clone());
            }
        } else if let Some(sid) = text(r, "JobScheduleId").filter(|s| *s != "-1") {
            diagnostics.push(Diagnostic::warning("JobScheduleId", sid, "no JobSchedules row has this ID"));
        }
        let enabled = text(r, "IsEnabled").and_then(bit);
        if let Some(e) = enabled {
            merged.insert("IsEnabled".into(), Some(if e { "1" } else { "0" }.into()));
        }
        let job: ServiceBrokerJob = serde_json::from_value(tables::to_json(&merged)).unwrap_or_else(|e| {
            diagnostics.push(Diagnostic::error("ScheduledJobs", &id, format!("the row cannot be read: {e}")));
            ServiceBrokerJob::default()
        });
        JobFacts {
            schedule_id,
            tz,
            job,
            enabled: enabled.unwrap_or(false),
            // The engine's forecast names a column that is not a time.
            last: instant(r, "LastRunOn", tz).map_err(|_| ()),
            next: instant(r, "NextRunOn", tz).ok().flatten(),
            valid_from: instant(r, "ValidFrom", tz).ok().flatten(),
            raw_next: text(r, "NextRunOn").map(str::to_owned),
            diagnostics,
            id,
        }
    }

    /// The schedule's first time strictly after `after`, whether or not the job is enabled.
    fn scheduled_after(&self, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let job = Schedule::ServiceBroker(ServiceBrokerJob { is_enabled: None, ..self.job.clone() });
        sundial_engine::next_after(self.schedule_id, &job, self.tz, after, 1).occurrences.first().map(|o| o.at)
    }

    /// The scheduler's own next run, for [`super::finish`]: an enabled job's `NextRunOn`.
    fn reported_next(&self) -> Option<ReportedNext> {
        Some(ReportedNext {
            job_id: self.id.clone(),
            at: self.next.filter(|_| self.enabled)?,
            column: "NextRunOn",
            raw: self.raw_next.clone().unwrap_or_default(),
        })
    }
}

/// One job's runs, log events and findings, rebuilt from its tables (see the module docs).
struct History {
    runs: Vec<Run>,
    events: Vec<LogEvent>,
    diagnostics: Vec<Diagnostic>,
    horizon: Option<DateTime<Utc>>,
}

/// A run the tables show: from `start`, holding the steps that succeeded and the errors
/// written before `bound` (the next run's start; none for the latest).
#[derive(Clone, Copy)]
struct Span {
    start: DateTime<Utc>,
    bound: Option<DateTime<Utc>>,
    /// Whether the scheduler wrote `LastRunOn` for it: it finished.
    finished: bool,
}

impl Span {
    fn holds(&self, t: DateTime<Utc>) -> bool {
        t >= self.start && self.bound.is_none_or(|b| t < b)
    }
}

/// What a failed attempt came to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Its step was tried again (and, in a finished run, succeeded).
    Retried,
    /// It ended the run.
    Fatal,
}

/// One error inside a run: its step, which attempt of it, what came of it.
struct Attempt<'a> {
    error: &'a ErrorRow,
    step: Option<&'a Step>,
    /// 1 for the step's first attempt.
    number: i64,
    verdict: Verdict,
}

impl Attempt<'_> {
    fn describe(&self) -> String {
        match self.step {
            Some(s) => format!("{} (attempt {} of {}): {}", s.label(), self.number, s.attempts, self.error.text),
            None => format!("the activation procedure: {}", self.error.text),
        }
    }
}

fn history(f: &JobFacts, steps: &[&Step], errors: &[&ErrorRow], now: DateTime<Utc>) -> History {
    let pending = pending_start(f, steps, errors, now);
    let mut spans = Vec::new();
    if let Ok(Some(start)) = f.last {
        spans.push(Span { start, bound: pending.or(f.next.filter(|n| *n > start)), finished: true });
    }
    if let Some(start) = pending {
        spans.push(Span { start, bound: None, finished: false });
    }
    let mut out = History { runs: Vec::new(), events: Vec::new(), diagnostics: Vec::new(), horizon: None };
    for span in &spans {
        rebuild(f, span, steps, errors, now, &mut out);
    }
    for e in errors.iter().filter(|e| !spans.iter().any(|s| s.holds(e.at))) {
        let step = e.step_id.as_deref().and_then(|id| steps.iter().find(|s| s.id == id));
        let text = match step {
            Some(s) => format!("{}: {}", s.label(), e.text),
            None => e.text.clone(),
        };
        out.events.push(event(e.at, &f.id, LogKind::Failed, text));
    }
    out.runs.sort_by_key(|r| r.start);
    out.horizon = horizon(f, steps, errors, pending, now);
    out
}

/// When the run after `LastRunOn` started, if the tables show one (see the module docs).
fn pending_start(f: &JobFacts, steps: &[&Step], errors: &[&ErrorRow], now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let last = f.last.ok()?;
    let traces = || steps.iter().filter_map(|s| s.last).chain(errors.iter().map(|e| e.at)).filter(|t| *t <= now);
    let due = match f.next {
        Some(n) if last.is_none_or(|l| n > l) => Some(n),
        _ => last.or(f.valid_from).and_then(|t| f.scheduled_after(t)),
    };
    match due {
        Some(d) => (d <= now && traces().any(|t| t >= d)).then_some(d),
        // A run-once job stopped before it finished: its first trace since ValidFrom.
        None if last.is_none() => traces().filter(|t| f.valid_from.is_none_or(|v| *t >= v)).min(),
        None => None,
    }
}

/// The job's history horizon: `LastRunOn`; for a job that never finished a run, its latest
/// trace outside the run under way; `now` when `LastRunOn` cannot be read.
fn horizon(
    f: &JobFacts,
    steps: &[&Step],
    errors: &[&ErrorRow],
    pending: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    match f.last {
        Err(()) => Some(now),
        Ok(Some(l)) => Some(l),
        Ok(None) => steps
            .iter()
            .filter_map(|s| s.last)
            .chain(errors.iter().map(|e| e.at))
            .filter(|t| pending.is_none_or(|p| *t < p))
            .max(),
    }
}

/// One run of `span`: its outcome, message, length, log lines and findings.
fn rebuild(f: &JobFacts, span: &Span, steps: &[&Step], errors: &[&ErrorRow], now: DateTime<Utc>, out: &mut History) {
    let done: Vec<&Step> = steps.iter().copied().filter(|s| s.last.is_some_and(|t| span.holds(t))).collect();
    let attempts = attempts(span, steps, &done, errors);
    let fatal = attempts.iter().find(|a| a.verdict == Verdict::Fatal);
    let end = done
        .iter()
        .filter_map(|s| s.end().or(s.last))
        .chain(attempts.iter().map(|a| a.error.at))
        .fold(span.start, DateTime::max);
    let outcome = match (fatal, span.finished) {
        (Some(_), _) => RunOutcome::Failed,
        (None, true) => RunOutcome::Succeeded,
        (None, false) if may_still_run(f, span.start, now) => RunOutcome::InProgress,
        (None, false) => RunOutcome::Crashed,
    };
    let run = Run {
        start: span.start,
        duration_secs: if outcome == RunOutcome::InProgress { secs(span.start, now) } else { secs(span.start, end) },
        outcome,
        trigger: Trigger::Schedule(Some(f.schedule_id)),
        message: message(outcome, steps, &done, &attempts, fatal),
        steps: step_lines(&done, &attempts).into_iter().map(sundial_engine::Step::note).collect(),
    };
    out.events.extend(run_events(&f.id, &run, end.min(now)));
    for a in &attempts {
        let (kind, what) = match a.verdict {
            Verdict::Retried => (LogKind::Retry, "retried"),
            Verdict::Fatal => (LogKind::Failed, "the run failed"),
        };
        out.events.push(event(a.error.at, &f.id, kind, format!("{}; {what}", a.describe())));
    }
    if let Some(d) = stopped(f, &run, fatal) {
        out.diagnostics.push(d);
    }
    out.runs.push(run);
}

/// The errors of `span`, in time order, each judged: an attempt whose step succeeded in the
/// run, or that its step had attempts left after, was retried; any other ended the run.
fn attempts<'a>(span: &Span, steps: &[&'a Step], done: &[&Step], errors: &[&'a ErrorRow]) -> Vec<Attempt<'a>> {
    let mut tried: HashMap<&str, i64> = HashMap::new();
    let mut out: Vec<Attempt<'a>> = Vec::new();
    for e in errors.iter().copied().filter(|e| span.holds(e.at)) {
        let step = e.step_id.as_deref().and_then(|id| steps.iter().copied().find(|s| s.id == id));
        let number = step.map_or(1, |s| {
            let n = tried.entry(s.id.as_str()).or_insert(0);
            *n += 1;
            *n
        });
        let verdict = match step {
            Some(s) if done.iter().any(|d| d.id == s.id) || number < s.attempts => Verdict::Retried,
            _ => Verdict::Fatal,
        };
        out.push(Attempt { error: e, step, number, verdict });
    }
    out
}

/// Whether a run that never finished may still be going at `now`: until the schedule's next
/// time after its start, a day at most.
fn may_still_run(f: &JobFacts, start: DateTime<Utc>, now: DateTime<Utc>) -> bool {
    let day = start + TimeDelta::seconds(STILL_RUNNING_MAX_SECS);
    let limit = f.scheduled_after(start).map_or(day, |n| n.min(day));
    now < limit
}

/// The run's steps, one line each: every step done (with its time), every attempt retried.
fn step_lines(done: &[&Step], attempts: &[Attempt]) -> Vec<String> {
    let done = done.iter().map(|s| format!("done: {}", s.done()));
    let retried =
        attempts.iter().filter(|a| a.verdict == Verdict::Retried).map(|a| format!("retried after {}", a.describe()));
    done.chain(retried).collect()
}

/// The run's message: how it ended, its steps, its retries.
fn message(
    outcome: RunOutcome,
    steps: &[&Step],
    done: &[&Step],
    attempts: &[Attempt],
    fatal: Option<&Attempt>,
) -> String {
    let position = |s: &Step| {
        let n = steps.iter().position(|x| x.id == s.id).map_or(0, |i| i + 1);
        format!("{} ({n} of {})", s.label(), steps.len())
    };
    // The step it stopped in: the one after the last that succeeded.
    let stuck = || {
        let after = done.iter().filter_map(|d| steps.iter().position(|s| s.id == d.id)).max();
        steps.get(after.map_or(0, |i| i + 1)).map(|s| position(s))
    };
    let mut parts = Vec::new();
    match outcome {
        RunOutcome::Failed => parts.push(match fatal {
            Some(Attempt { step: Some(s), error, .. }) => format!("failed in {}: {}", position(s), error.text),
            Some(a) => format!("failed in the activation procedure: {}", a.error.text),
            None => "failed".to_owned(),
        }),
        RunOutcome::Crashed => parts.push(match stuck() {
            Some(s) => format!("never finished: it stopped in {s}, and no end was written"),
            None => "never finished: every step succeeded, and no end was written".to_owned(),
        }),
        RunOutcome::InProgress => parts.push(match stuck() {
            Some(s) => format!("running {s}"),
            None => "running: every step succeeded".to_owned(),
        }),
        _ => {}
    }
    if !done.is_empty() {
        let list: Vec<String> = done.iter().map(|s| s.done()).collect();
        let word = if outcome == RunOutcome::Succeeded { "steps" } else { "done" };
        parts.push(format!("{word}: {}", list.join(", ")));
    }
    let retried: Vec<String> =
        attempts.iter().filter(|a| a.verdict == Verdict::Retried).map(|a| a.describe()).collect();
    if !retried.is_empty() {
        parts.push(format!("retried after {}", retried.join("; ")));
    }
    parts.join("; ")
}

/// The warning for a job the scheduler will not run again: stopped after an error, or left
/// without a timer by a run that died.
fn stopped(f: &JobFacts, run: &Run, fatal: Option<&Attempt>) -> Option<Diagnostic> {
    let at = shown(run.start, f.tz);
    match (run.outcome, fatal) {
        (RunOutcome::Failed, Some(a)) if !f.enabled => Some(Diagnostic::warning(
            "IsEnabled",
            "0",
            format!(
                "the scheduler stopped the job after the error at {} in its run of {at} ({}): it runs no more until \
                 it is started again",
                shown(a.error.at, f.tz),
                a.describe()
            ),
        )),
        (RunOutcome::Crashed, _) => Some(Diagnostic::warning(
            "NextRunOn",
            f.raw_next.as_deref().unwrap_or("NULL"),
            format!(
                "the run of {at} never finished; the scheduler sets the next timer only when a run ends, so the job \
                 runs no more until it is started again"
            ),
        )),
        _ => None,
    }
}

fn event(at: DateTime<Utc>, job_id: &str, kind: LogKind, text: String) -> LogEvent {
    LogEvent { at, job_id: job_id.to_owned(), kind, text, members: Vec::new() }
}

/// A run's start and end lines, as the log derives them for sources without events, the end
/// at `end`, as exact as the tables tell (a failed run's end is its error's line).
fn run_events(job_id: &str, run: &Run, end: DateTime<Utc>) -> Vec<LogEvent> {
    let mut out = vec![event(run.start, job_id, LogKind::Started, String::new())];
    let ending = match run.outcome {
        RunOutcome::Succeeded => Some((LogKind::Succeeded, end, format!("succeeded after {} s", run.duration_secs))),
        RunOutcome::Crashed => Some((LogKind::Crashed, end, "crashed: started and never finished".to_owned())),
        RunOutcome::InProgress => Some((LogKind::Running, run.start, "still running".to_owned())),
        _ => None,
    };
    if let Some((kind, at, what)) = ending {
        let text = if run.message.is_empty() { what } else { format!("{what}; {}", run.message) };
        out.push(event(at, job_id, kind, text));
    }
    out
}

/// A note for each step of a job `ScheduledJobs` does not have.
fn orphan_steps(steps: &[(Step, Vec<Diagnostic>)], known: &[&str]) -> Vec<Diagnostic> {
    steps
        .iter()
        .filter(|(s, _)| !s.job_id.as_deref().is_some_and(|j| known.contains(&j)))
        .map(|(s, _)| {
            Diagnostic::warning(
                "ScheduledJobId",
                s.job_id.as_deref().unwrap_or("NULL"),
                format!("ScheduledJobSteps row {} ({}) belongs to no ScheduledJobs row", s.id, s.label()),
            )
        })
        .collect()
}

/// An instance-wide log line for each error of a job `ScheduledJobs` does not have.
fn orphan_errors(errors: &[ErrorRow], known: &[&str]) -> Vec<LogEvent> {
    errors
        .iter()
        .filter(|e| !e.job_id.as_deref().is_some_and(|j| known.contains(&j)))
        .map(|e| {
            let job = e.job_id.as_deref().map_or("no job".to_owned(), |j| format!("job {j} (no ScheduledJobs row)"));
            event(e.at, "", LogKind::Failed, format!("{job}: {}", e.text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{bit, secs};
    use chrono::{TimeZone, Utc};

    #[test]
    fn bits_read_every_engine_s_spelling() {
        assert_eq!(bit("1"), Some(true));
        assert_eq!(bit("\u{1}"), Some(true));
        assert_eq!(bit("false"), Some(false));
        assert_eq!(bit("yes"), None);
    }

    #[test]
    fn seconds_round_and_never_go_negative() {
        let t = |ms| Utc.timestamp_millis_opt(ms).unwrap();
        assert_eq!(secs(t(0), t(52_750)), 53);
        assert_eq!(secs(t(1000), t(0)), 0);
    }
}
