//! The worker-role agent (seed 001): a `jobactivity` table of runs, one row per start, with a
//! `stop_execution_date` once the run finished; from SQL Server (the article's SQL Azure),
//! PostgreSQL, MySQL or SQLite (see [`super::tables`]).
//!
//! The table holds runs, not schedules: each job's schedule comes from the configuration
//! ([`Plan`]; the article's worker runs its job once a day after 13:00 UTC, at least once).
//! Job names compare case-insensitively, as SQL Azure's default collation does. A job in the
//! table that the configuration does not list is shown as unconfigured: its runs, nothing
//! expected. A row started and never stopped (`stop_execution_date` NULL, or SQL Server's
//! zero date 1900-01-01 that a `datetime` column defaults to) is running until the job's
//! limit (the article's `CleanUp` uses 60 minutes), then it is a crashed run. `CleanUp`
//! deletes such rows so the job runs again: Sundial only sees a crash while its row still
//! exists, which the job's note says.
use app::engine::cron::CronSchedule;
use app::engine::fleet::{InstanceInput, JobInput, JobSchedule};
use app::engine::{Diagnostic, Run, RunOutcome, Schedule, Trigger, Window};
use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use chrono_tz::Tz;
use std::collections::BTreeMap;

use crate::config::InstanceConfig;

use super::tables::{self, Col, TablesDb, text};
use super::{BoxFuture, ReadContext, SourceError, SourceRead};

pub const COLUMNS: &[Col] =
    &[Col::Plain("job_name"), Col::Time("start_execution_date"), Col::Time("stop_execution_date")];

/// The runs query's tail: starts in the window (and the limit before it, for runs still going).
pub fn tail(db: &TablesDb, window: Window, tz: Tz, stuck_after: TimeDelta) -> String {
    let c = tables::column(db, "start_execution_date");
    let local = |t: DateTime<Utc>| t.with_timezone(&tz).naive_local();
    format!(
        "WHERE {c} >= {} AND {c} < {} ORDER BY {c}",
        tables::time_literal(db, local(window.start - stuck_after)),
        tables::time_literal(db, local(window.end))
    )
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
/// configuration.
pub fn read<'a>(db: &'a mut TablesDb, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
    let c = cx.config;
    Box::pin(async move {
        let tz = c.time_zone.unwrap_or(chrono_tz::UTC);
        read_instance(db, &c.name, tz, &Plan::of(c), cx.window, cx.now).await
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
/// in `window`.
pub async fn read_instance(
    db: &mut TablesDb,
    name: &str,
    tz: Tz,
    plan: &Plan,
    window: Window,
    now: DateTime<Utc>,
) -> Result<SourceRead, SourceError> {
    let t = tail(db, window, tz, plan.longest_limit());
    let rows = tables::read(db, "jobactivity", COLUMNS, &t).await?;
    // Every job the table knows, even those with no run in the window.
    let group = format!("GROUP BY {}", tables::column(db, "job_name"));
    let names = tables::read(db, "jobactivity", &[Col::Plain("job_name")], &group).await?;
    let to_utc = |t: NaiveDateTime| app::engine::tz::local_to_instant(t, tz.into());
    let mut found: BTreeMap<String, Found> = BTreeMap::new();
    for j in &plan.jobs {
        found.insert(j.name.to_lowercase(), Found { name: j.name.clone(), ..Found::default() });
    }
    for r in names.iter().chain(&rows) {
        let job = text(r, "job_name").unwrap_or("job");
        found.entry(job.to_lowercase()).or_insert_with(|| Found { name: job.to_owned(), ..Found::default() });
    }
    for r in &rows {
        let key = text(r, "job_name").unwrap_or("job").to_lowercase();
        let limit = plan.jobs.iter().find(|j| j.name.to_lowercase() == key).map(|j| j.stuck_after);
        let limit = limit.or(plan.others.as_ref().map(|o| o.1)).unwrap_or(TimeDelta::hours(1));
        let entry = found.get_mut(&key).expect("every row's job was added above");
        match run_of(r, limit, &to_utc, now) {
            Ok(run) if window.contains(run.start) => entry.runs.push(run),
            Ok(_) => {}
            Err(d) => entry.diagnostics.push(d),
        }
    }
    if found.is_empty() && plan.others.is_some() {
        // Nothing listed and nothing in the table yet: the one job the schedule describes.
        found.insert("job".into(), Found { name: "job".into(), ..Found::default() });
    }
    let jobs = found.into_iter().map(|(key, f)| job_of(key, f, plan)).collect();
    let input = InstanceInput { name: name.to_owned(), tz: tz.into(), jobs, agent_starts: Vec::new() };
    Ok(SourceRead::new(input, Vec::new(), now))
}

/// One row as a run: stopped (succeeded), still going, or crashed past `limit`.
fn run_of(
    r: &tables::TextRow,
    limit: TimeDelta,
    to_utc: &dyn Fn(NaiveDateTime) -> DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Run, Diagnostic> {
    let Some(start) = text(r, "start_execution_date").and_then(tables::wall_clock).map(to_utc) else {
        return Err(Diagnostic::warning(
            "start_execution_date",
            text(r, "start_execution_date").unwrap_or("NULL"),
            "not a time; the row is left out",
        ));
    };
    // SQL Server's zero date (1900-01-01) in a datetime column means "not set", like NULL.
    let stop = text(r, "stop_execution_date")
        .and_then(tables::wall_clock)
        .filter(|t| t.and_utc().timestamp() > ZERO_DATE_SECS)
        .map(to_utc);
    let (outcome, secs, message) = match stop {
        Some(stop) => (RunOutcome::Succeeded, (stop - start).num_seconds().max(0), String::new()),
        None if now - start > limit => (
            RunOutcome::Crashed,
            limit.num_seconds(),
            format!(
                "started, never stopped within {} minutes (CleanUp deletes this row and the job runs again)",
                limit.num_minutes()
            ),
        ),
        None => (RunOutcome::InProgress, (now - start).num_seconds().max(0), String::new()),
    };
    Ok(Run { start, duration_secs: secs, outcome, trigger: Trigger::Schedule(Some(1)), message, steps: Vec::new() })
}

/// 1900-01-02 00:00:00 UTC in seconds: a stop time before it is SQL Server's zero date.
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
        schedules,
        runs,
        history_horizon: None,
        source_horizon: None,
        unobserved: Vec::new(),
        diagnostics,
        earlier: Vec::new(),
    }
}

fn cron(schedule: &str, enabled: bool) -> JobSchedule {
    JobSchedule { id: 1, name: schedule.to_owned(), enabled, schedule: Schedule::Cron(CronSchedule::new(schedule)) }
}
