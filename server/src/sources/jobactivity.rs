//! The worker-role agent (seed 001): a `jobactivity` table of runs, one row per start, with a
//! `stop_execution_date` once the run finished; from SQL Server (the article's SQL Azure),
//! PostgreSQL, MySQL or SQLite (see [`super::tables`]).
//!
//! The table holds runs, not schedules: each job's schedule comes from the configuration
//! ([`Plan`]; the article's worker runs its job once a day after 13:00 UTC, at least once).
//! Job names compare case-insensitively, as SQL Azure's default collation does. A job in the
//! table that the configuration does not list is shown as unconfigured: its runs, nothing
//! expected. A row started and never stopped (`stop_execution_date` NULL) is running until the
//! job's limit (the article's `CleanUp` uses 60 minutes), then it is a crashed run. A row whose
//! stop comes before its start (SQL Server's zero date 1900-01-01, a `datetime` set from `0` or
//! `''`) is garbage: its run's end is unknown, never a crash, and a warning names the value and
//! the row (it is read again each poll, as an unstopped row is, in case a real stop is written
//! in its place). `CleanUp`
//! deletes such rows so the job runs again: Sundial only sees a crash while its row still
//! exists, which the job's note says (once read, a crash Sundial holds stays shown).
//!
//! Read incrementally ([`read_since`]): a first read takes the window (and the job names, by a
//! `GROUP BY`); after it, a poll asks only for the rows started at or after the latest start it
//! read (the [`Mark`]'s `high`, as wall-clock microseconds; two hours earlier in a zone that
//! turns its clocks back) and, by a second's range of their starts, the rows it read without a
//! stop (`stop_execution_date` is written in place when a run ends), and answers a delta that
//! `super::read` merges into the held read. Both ends of the table (`MIN`/`MAX` of the start)
//! tell a table emptied or restored (its latest start below the mark, or an oldest start below
//! the oldest seen): read whole again and noted. The design's table has no index: every query on
//! the start column then scans it (few rows are still returned); with an index on
//! `start_execution_date` a poll examines only the rows it returns. The rows are read by pages
//! of their start ([`tables::read_pages_by_time`], 1,000 rows a query), the first read's window
//! as much as a delta: the start is no unique key, so each page goes on from the second the one
//! before ended in and reads that second's rows again.
use chrono::{DateTime, NaiveDateTime, TimeDelta, Timelike, Utc};
use chrono_tz::Tz;
use std::collections::BTreeMap;
use sundial_engine::cron::CronSchedule;
use sundial_engine::fleet::{InstanceInput, JobInput, JobSchedule};
use sundial_engine::{Diagnostic, Run, RunOutcome, Schedule, Severity, Trigger, Window};

use crate::config::InstanceConfig;

use super::tables::{self, Col, TablesDb, TextRow, text};
use super::{BoxFuture, Extent, Mark, ReadContext, SourceError, SourceRead};

pub const COLUMNS: &[Col] =
    &[Col::Plain("job_name"), Col::Time("start_execution_date"), Col::Time("stop_execution_date")];

/// The starts a whole read asks for, as wall-clock times `[from, until)`: the window's (and the
/// limit before it, for runs still going).
pub fn range(window: Window, tz: Tz, stuck_after: TimeDelta) -> (NaiveDateTime, NaiveDateTime) {
    let local = |t: DateTime<Utc>| t.with_timezone(&tz).naive_local();
    (local(window.start - stuck_after), local(window.end))
}

/// What the configuration says about the table's jobs.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The listed jobs, each with its schedule (5-field cron), enabled flag and crash limit.
    pub jobs: Vec<JobPlan>,
    /// When no job is listed: the one schedule and limit every job in the table follows.
    pub others: Option<(String, TimeDelta)>,
}

/// One listed job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobPlan {
    pub name: String,
    pub schedule: String,
    pub enabled: bool,
    pub stuck_after: TimeDelta,
}

impl Plan {
    /// One schedule for every job (no job listed).
    pub fn every_job(schedule: &str, stuck_after: TimeDelta) -> Plan {
        Plan { jobs: Vec::new(), others: Some((schedule.to_owned(), stuck_after)) }
    }

    /// The plan an instance's configuration gives.
    pub fn of(c: &InstanceConfig) -> Plan {
        let delta = |d: std::time::Duration| TimeDelta::from_std(d).unwrap_or(TimeDelta::hours(1));
        if c.jobs.is_empty() {
            return Plan::every_job(&c.schedule, delta(c.stuck_after));
        }
        let jobs = c
            .jobs
            .iter()
            .map(|j| JobPlan {
                name: j.name.clone(),
                schedule: j.schedule.clone(),
                enabled: j.enabled,
                stuck_after: delta(j.stuck_after),
            })
            .collect();
        Plan { jobs, others: None }
    }

    /// The longest crash limit: how far before the window a run may start and still matter.
    fn longest_limit(&self) -> TimeDelta {
        self.jobs
            .iter()
            .map(|j| j.stuck_after)
            .chain(self.others.iter().map(|o| o.1))
            .max()
            .unwrap_or(TimeDelta::hours(1))
    }
}

/// One read of the worker role's `jobactivity` table (the kind's read for
/// [`super::connect::TablesSource`]); the jobs' schedules and crash limits come from the
/// configuration. With a held read that has a [`Mark`], only what is new ([`read_since`]).
pub fn read<'a>(db: &'a mut TablesDb, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
    let c = cx.config;
    Box::pin(async move {
        let tz = c.time_zone.unwrap_or(chrono_tz::UTC);
        let held = cx.held.filter(|h| h.mark.is_some());
        read_since(db, &c.name, tz, &Plan::of(c), cx.window, cx.now, held).await
    })
}

/// One job as the read builds it: its name as shown, its runs, its findings.
#[derive(Default)]
struct Found {
    name: String,
    runs: Vec<Run>,
    diagnostics: Vec<Diagnostic>,
}

/// Every job of the plan and of the table (matched by name, case-insensitively), with its runs
/// in `window`: a whole read ([`read_since`] with nothing held).
pub async fn read_instance(
    db: &mut TablesDb,
    name: &str,
    tz: Tz,
    plan: &Plan,
    window: Window,
    now: DateTime<Utc>,
) -> Result<SourceRead, SourceError> {
    read_since(db, name, tz, plan, window, now, None).await
}

/// The start column, the table's key for Sundial (the design's `job_id` is a GUID: no order).
const START: &str = "start_execution_date";

/// A start as a key of a [`Mark`]: its wall-clock time in microseconds (the table's own clock).
fn key(t: NaiveDateTime) -> i64 {
    t.and_utc().timestamp_micros()
}

fn unkey(k: i64) -> Option<NaiveDateTime> {
    DateTime::from_timestamp_micros(k).map(|t| t.naive_utc())
}

/// How far before the mark a poll asks again: a zone that turns its clocks back writes starts
/// below ones already read (the repeated hour); UTC never does.
fn overlap(tz: Tz) -> TimeDelta {
    if tz == chrono_tz::UTC { TimeDelta::zero() } else { TimeDelta::hours(2) }
}

/// The start at one end of the table (`latest`, else the oldest), as a wall-clock time; `None`:
/// the table is empty, or its end is not a time.
async fn end(db: &mut TablesDb, latest: bool) -> Result<Option<NaiveDateTime>, SourceError> {
    let rows = tables::read_end(db, "jobactivity", &[Col::Time(START)], START, latest).await?;
    Ok(rows.first().and_then(|r| text(r, START)).and_then(tables::wall_clock))
}

/// Why the table's starts went back below `mark` (`None`: they did not). A run's row is written
/// as it starts, so starts only grow; `CleanUp` and purges delete the oldest or crashed rows.
/// The latest start below the mark (the table emptied, restored from an older copy), or an
/// oldest start below the oldest seen before (rows put back), means the rows up to the mark
/// are not the ones Sundial read.
fn went_back(mark: &Mark, low: Option<NaiveDateTime>, high: Option<NaiveDateTime>) -> Option<String> {
    let shown = |k: i64| unkey(k).map_or(k.to_string(), |t| t.format("%Y-%m-%d %H:%M:%S").to_string());
    let high = high.map_or(i64::MIN, key);
    if high < mark.high {
        let now = if high == i64::MIN { "none: the table is empty".to_owned() } else { shown(high) };
        return Some(format!(
            "jobactivity's latest start ({now}) went back below the latest one Sundial read ({}): the table was \
             emptied or restored",
            shown(mark.high)
        ));
    }
    match (low.map(key), mark.low) {
        (Some(now), Some((before, _))) if now < before => Some(format!(
            "jobactivity's oldest start ({}) is older than the oldest Sundial saw before ({}): rows were put back \
             (a restore?)",
            shown(now),
            shown(before)
        )),
        _ => None,
    }
}

/// [`read_instance`], asking the table only for what `held` (a read with a [`Mark`]) does not
/// hold: the rows that started at or after the mark's latest start (less [`overlap`]), and the
/// rows it read unstopped (by their starts, each a second's range of the start column), whose
/// stop is written in place. Job names come from the plan, the held jobs and the rows read, never
/// from a scan of the table. When the starts went back ([`went_back`]) the window is read whole
/// again and the read says why on the instance. Answers a [`Extent::Delta`] after a held read.
pub async fn read_since(
    db: &mut TablesDb,
    name: &str,
    tz: Tz,
    plan: &Plan,
    window: Window,
    now: DateTime<Utc>,
    held: Option<&SourceRead>,
) -> Result<SourceRead, SourceError> {
    let since = held.and_then(|h| h.mark.as_ref());
    let c = tables::column(db, START);
    let limit = plan.longest_limit();
    let local = |t: DateTime<Utc>| t.with_timezone(&tz).naive_local();
    // Both ends before the rows: a row added meanwhile is read now or by the next poll.
    let (mut low, mut high) = (None, None);
    if since.is_some() {
        low = end(db, false).await?;
        high = end(db, true).await?;
    }
    let went_back = since.and_then(|m| went_back(m, low, high));
    let mut restarted = since.and_then(|m| m.restarted.clone()).filter(|(at, _)| now - *at < TimeDelta::days(1));
    let (extent, rows) = match since.filter(|_| went_back.is_none()) {
        Some(mark) => {
            let from = unkey(mark.high).map_or(local(window.start - limit), |t| t - overlap(tz));
            let mut rows = tables::read_pages_by_time(db, "jobactivity", COLUMNS, START, from, None).await?;
            // The runs read unstopped: `stop_execution_date` is written in place when they end.
            // Each by its second (a literal has whole seconds), those before the second the
            // new rows are asked from.
            let second = |t: NaiveDateTime| t.with_nanosecond(0).unwrap_or(t);
            let oldest = second(local(window.start - limit));
            let open: std::collections::BTreeSet<NaiveDateTime> = mark
                .open
                .iter()
                .filter_map(|k| unkey(*k))
                .map(second)
                .filter(|t| *t >= oldest && *t < second(from))
                .collect();
            if !open.is_empty() {
                let ranges: Vec<String> = open
                    .iter()
                    .map(|t| {
                        format!(
                            "({c} >= {} AND {c} < {})",
                            tables::time_literal(db, *t),
                            tables::time_literal(db, *t + TimeDelta::seconds(1))
                        )
                    })
                    .collect();
                let tail = format!("WHERE {}", ranges.join(" OR "));
                rows.extend(tables::read(db, "jobactivity", COLUMNS, &tail).await?);
            }
            (Extent::Delta, rows)
        }
        None => {
            // Read again after the history went back, the window's rows are added to what
            // Sundial holds (runs it read before still happened), not put in its place.
            let extent = if went_back.is_some() { Extent::Delta } else { Extent::Whole };
            if let Some(why) = went_back {
                restarted = Some((now, why));
            }
            let (from, until) = range(window, tz, limit);
            let rows = tables::read_pages_by_time(db, "jobactivity", COLUMNS, START, from, Some(until)).await?;
            if rows.is_empty() && high.is_none() {
                high = end(db, true).await?;
            }
            (extent, rows)
        }
    };
    // Every job the table knows: on a whole read from the table, on a delta from what is held.
    let names = match extent {
        Extent::Whole => {
            let group = format!("GROUP BY {}", tables::column(db, "job_name"));
            tables::read(db, "jobactivity", &[Col::Plain("job_name")], &group).await?
        }
        Extent::Delta => held
            .into_iter()
            .flat_map(|h| &h.input.jobs)
            .filter(|j| !j.id.is_empty())
            .map(|j| TextRow::from([("job_name".to_owned(), Some(j.id.clone()))]))
            .collect(),
    };
    let to_utc = |t: NaiveDateTime| sundial_engine::tz::local_to_instant(t, tz.into());
    let mut found: BTreeMap<String, Found> = BTreeMap::new();
    for j in &plan.jobs {
        found.insert(j.name.to_lowercase(), Found { name: j.name.clone(), ..Found::default() });
    }
    for r in names.iter().chain(&rows) {
        let job = text(r, "job_name").unwrap_or("job");
        found.entry(job.to_lowercase()).or_insert_with(|| Found { name: job.to_owned(), ..Found::default() });
    }
    // The same row read twice (at the mark and as unstopped) is one run.
    let mut seen = std::collections::BTreeSet::new();
    let mut open = Vec::new();
    for r in &rows {
        if !seen.insert(r) {
            continue;
        }
        let key_of = |job: &str| job.to_lowercase();
        let job_key = key_of(text(r, "job_name").unwrap_or("job"));
        let limit = plan.jobs.iter().find(|j| j.name.to_lowercase() == job_key).map(|j| j.stuck_after);
        let limit = limit.or(plan.others.as_ref().map(|o| o.1)).unwrap_or(TimeDelta::hours(1));
        let entry = found.get_mut(&job_key).expect("every row's job was added above");
        match run_of(r, limit, &to_utc, now) {
            Ok((run, stopped, warning)) => {
                if !stopped && let Some(start) = text(r, START).and_then(tables::wall_clock) {
                    open.push(key(start));
                }
                if window.contains(run.start) {
                    entry.runs.push(run);
                    entry.diagnostics.extend(warning);
                }
            }
            Err(d) => entry.diagnostics.push(d),
        }
    }
    // A delta's rows are only the new ones: the findings on rows read before stay.
    if let (Extent::Delta, Some(held)) = (extent, held) {
        for j in &held.input.jobs {
            let Some(f) = found.get_mut(&j.id.to_lowercase()) else { continue };
            for d in j.diagnostics.iter().filter(|d| d.field.as_deref() == Some(START)) {
                if !f.diagnostics.contains(d) {
                    f.diagnostics.push(d.clone());
                }
            }
        }
    }
    if found.is_empty() && plan.others.is_some() {
        // Nothing listed and nothing in the table yet: the one job the schedule describes.
        found.insert("job".into(), Found { name: "job".into(), ..Found::default() });
    }
    let mut notes = Vec::new();
    if let Some((at, why)) = &restarted {
        notes.push(Diagnostic::new(
            Severity::Warning,
            Some(START),
            None,
            format!(
                "{why}: at {} UTC Sundial read the whole window again (runs it kept before are still shown)",
                at.format("%Y-%m-%d %H:%M:%S")
            ),
        ));
    }
    let read_keys = rows.iter().filter_map(|r| text(r, START)).filter_map(tables::wall_clock).map(key);
    let mark = Mark {
        high: read_keys
            .chain(high.map(key))
            .chain(since.filter(|_| extent == Extent::Delta).map(|m| m.high))
            .max()
            .unwrap_or(i64::MIN),
        low: low.or_else(|| since.and_then(|m| m.low.and_then(|l| unkey(l.0)))).map(|l| (key(l), to_utc(l))),
        open,
        restarted,
    };
    let jobs = found.into_iter().map(|(key, f)| job_of(key, f, plan)).collect();
    let input = InstanceInput::new(name, tz.into(), jobs, Vec::new());
    Ok(SourceRead { extent, mark: Some(mark), ..SourceRead::new(input, notes, now) })
}

/// One row as a run: stopped (succeeded), still going, crashed past `limit`, or of unknown end
/// (a stop before its start); whether it stopped (a row not stopped, or stopped before it
/// started, may still be stopped in place); and the warning on a stop before the start.
fn run_of(
    r: &tables::TextRow,
    limit: TimeDelta,
    to_utc: &dyn Fn(NaiveDateTime) -> DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<(Run, bool, Option<Diagnostic>), Diagnostic> {
    let Some(wall) = text(r, START).and_then(tables::wall_clock) else {
        return Err(Diagnostic::warning(START, text(r, START).unwrap_or("NULL"), "not a time; the row is left out"));
    };
    let start = to_utc(wall);
    let raw_stop = text(r, STOP).unwrap_or_default();
    let stop = tables::wall_clock(raw_stop).map(to_utc);
    let (outcome, secs, message, warning) = match stop {
        Some(stop) if stop < start => {
            let zero = if stop.timestamp() < ZERO_DATE_SECS { " (SQL Server's zero date: never set)" } else { "" };
            let why = format!("comes before its start{zero}: the run's end is unknown (not a crash)");
            let warning = Diagnostic::warning(
                STOP,
                raw_stop,
                format!(
                    "the row of {} started {} stops before it starts{zero}: the stop is garbage, so that run's end is \
                     unknown; it is not counted as crashed",
                    text(r, "job_name").unwrap_or("job"),
                    wall.format("%Y-%m-%d %H:%M:%S%.f")
                ),
            );
            (RunOutcome::Unknown, 0, format!("{STOP} {raw_stop} {why}"), Some(warning))
        }
        Some(stop) => (RunOutcome::Succeeded, (stop - start).num_seconds().max(0), String::new(), None),
        None if now - start > limit => (
            RunOutcome::Crashed,
            limit.num_seconds(),
            format!(
                "started, never stopped within {} minutes (CleanUp deletes this row and the job runs again)",
                limit.num_minutes()
            ),
            None,
        ),
        None => (RunOutcome::InProgress, (now - start).num_seconds().max(0), String::new(), None),
    };
    let stopped = outcome == RunOutcome::Succeeded;
    let run =
        Run { start, duration_secs: secs, outcome, trigger: Trigger::Schedule(Some(1)), message, steps: Vec::new() };
    Ok((run, stopped, warning))
}

/// The stop column.
const STOP: &str = "stop_execution_date";

/// 1900-01-02 00:00:00 UTC in seconds: a stop time before it is SQL Server's zero date (the
/// value a `datetime` column takes from `0` or `''`).
const ZERO_DATE_SECS: i64 = -2_208_902_400;

/// A job of the instance: as the plan lists it, following the plan's one schedule, or
/// unconfigured (its runs, nothing expected).
fn job_of(key: String, f: Found, plan: &Plan) -> JobInput {
    let listed = plan.jobs.iter().find(|j| j.name.to_lowercase() == key);
    let mut diagnostics = f.diagnostics;
    let (enabled, schedules) = match (listed, &plan.others) {
        (Some(j), _) => (j.enabled, vec![cron(&j.schedule, j.enabled)]),
        (None, Some((schedule, _))) => (true, vec![cron(schedule, true)]),
        (None, None) => {
            diagnostics.push(Diagnostic::warning(
                "job_name",
                &f.name,
                format!(
                    "this job is in jobactivity but not in Sundial's configuration: its runs are shown, nothing is \
                     expected of it (add [[instance.job]] name = \"{}\" with its schedule)",
                    f.name
                ),
            ));
            (true, Vec::new())
        }
    };
    if !schedules.is_empty() {
        diagnostics.push(Diagnostic::info(format!(
            "the schedule ({}) comes from Sundial's configuration; crashed runs show only until CleanUp deletes their rows",
            schedules[0].name
        )));
    }
    let mut runs = f.runs;
    runs.sort_by_key(|r| r.start);
    JobInput {
        id: f.name.clone(),
        name: f.name,
        category: "worker role".into(),
        // The jobactivity table records no owner.
        owner: None,
        enabled,
        command: None,
        schedules,
        runs,
        history_horizon: None,
        source_horizon: None,
        unobserved: Vec::new(),
        diagnostics,
        earlier: Vec::new(),
        modified: None,
    }
}

fn cron(schedule: &str, enabled: bool) -> JobSchedule {
    JobSchedule { id: 1, name: schedule.to_owned(), enabled, schedule: Schedule::Cron(CronSchedule::new(schedule)) }
}
