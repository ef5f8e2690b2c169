//! The worker-role agent (seed 001): a `jobactivity` table of runs, one row per start, with a
//! `stop_execution_date` once the run finished; from SQL Server (the article's SQL Azure),
//! PostgreSQL, MySQL or SQLite (see [`super::tables`]).
//!
//! The table holds runs, not schedules: the schedule comes from the configuration (the
//! article's worker runs its job once a day after 13:00 UTC, at least once). A row started and
//! never stopped is running until the configured limit (the article's `CleanUp` uses 60
//! minutes), then it is a crashed run. `CleanUp` deletes such rows so the job runs again:
//! Sundial only sees a crash while its row still exists, which the job's note says.
use app::engine::cron::CronSchedule;
use app::engine::fleet::{InstanceInput, JobInput, JobSchedule};
use app::engine::{Diagnostic, Run, RunOutcome, Schedule, Trigger, Window};
use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use chrono_tz::Tz;
use std::collections::BTreeMap;

use super::connect::TablesConn;
use super::tables::{self, Col, TablesDb, text};
use super::{BoxFuture, ReadContext, Source, SourceError, SourceRead};

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

/// The worker role's `jobactivity` table as a [`Source`]; the schedule and the crash limit
/// come from the configuration.
#[derive(Default)]
pub struct JobActivity {
    conn: TablesConn,
}

impl Source for JobActivity {
    fn read<'a>(&'a self, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
        Box::pin(async move {
            let c = cx.config;
            let mut db = self.conn.open(c).await?;
            let tz = c.time_zone.unwrap_or(chrono_tz::UTC);
            let stuck = TimeDelta::from_std(c.stuck_after).unwrap_or(TimeDelta::hours(1));
            read_instance(&mut db, &c.name, tz, &c.schedule, stuck, cx.window, cx.now).await
        })
    }

    fn reset(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.conn.forget())
    }
}

/// One job per `job_name`, each expected on `schedule` (5-field cron in `tz`), with its runs.
pub async fn read_instance(
    db: &mut TablesDb,
    name: &str,
    tz: Tz,
    schedule: &str,
    stuck_after: TimeDelta,
    window: Window,
    now: DateTime<Utc>,
) -> Result<SourceRead, SourceError> {
    let t = tail(db, window, tz, stuck_after);
    let rows = tables::read(db, "jobactivity", COLUMNS, &t).await?;
    let to_utc = |t: NaiveDateTime| app::engine::tz::local_to_instant(t, tz.into());
    let mut by_job: BTreeMap<String, (Vec<Run>, Vec<Diagnostic>)> = BTreeMap::new();
    for r in &rows {
        let job = text(r, "job_name").unwrap_or("job").to_owned();
        let entry = by_job.entry(job).or_default();
        let Some(start) = text(r, "start_execution_date").and_then(tables::wall_clock).map(to_utc) else {
            entry.1.push(Diagnostic::warning(
                "start_execution_date",
                text(r, "start_execution_date").unwrap_or("NULL"),
                "not a time; the row is left out",
            ));
            continue;
        };
        let stop = text(r, "stop_execution_date").and_then(tables::wall_clock).map(to_utc);
        let (outcome, secs, message) = match stop {
            Some(stop) => (RunOutcome::Succeeded, (stop - start).num_seconds().max(0), String::new()),
            None if now - start > stuck_after => (
                RunOutcome::Failed,
                stuck_after.num_seconds(),
                format!(
                    "crashed: started, never stopped within {} minutes (CleanUp deletes this row and the job runs again)",
                    stuck_after.num_minutes()
                ),
            ),
            None => (RunOutcome::InProgress, (now - start).num_seconds().max(0), String::new()),
        };
        if window.contains(start) {
            entry.0.push(Run { start, duration_secs: secs, outcome, trigger: Trigger::Schedule(Some(1)), message });
        }
    }
    if by_job.is_empty() {
        by_job.insert("job".into(), Default::default());
    }
    let jobs = by_job
        .into_iter()
        .map(|(job, (runs, mut diagnostics))| {
            diagnostics.push(Diagnostic::info(format!(
                "the schedule ({schedule}) comes from Sundial's configuration; crashed runs show only until CleanUp deletes their rows"
            )));
            JobInput {
                id: job.clone(),
                name: job,
                category: "worker role".into(),
                enabled: true,
                schedules: vec![JobSchedule { id: 1, name: schedule.to_owned(), enabled: true, schedule: Schedule::Cron(CronSchedule::new(schedule)) }],
                runs,
                history_horizon: None,
                unobserved: Vec::new(),
                diagnostics,
            }
        })
        .collect();
    let input = InstanceInput { name: name.to_owned(), tz: tz.into(), jobs, agent_starts: Vec::new() };
    Ok(SourceRead::new(input, Vec::new(), now))
}
