//! The Service Broker scheduler (seed 003): `ScheduledJobs`, `JobSchedules` and
//! `SchedulingErrors`, from SQL Server, PostgreSQL or SQLite (see [`super::tables`]).
//!
//! The tables keep no run history, only each job's `LastRunOn` and `NextRunOn`: the last run
//! shows (failed when `SchedulingErrors` has an error for it), occurrences before it are
//! unknown (the job's history horizon), and a `NextRunOn` that disagrees with Sundial's own
//! forecast is a warning (the conversation timer may be lost). Errors in the window show as
//! failed runs. Times are read in the instance's zone (the article writes `GETDATE()`).
use app::engine::fleet::{InstanceInput, JobInput, JobSchedule};
use app::engine::service_broker::ServiceBrokerJob;
use app::engine::{Diagnostic, Run, RunOutcome, Schedule, Trigger, Window};
use chrono::{DateTime, NaiveDateTime, Utc};
use chrono_tz::Tz;
use std::collections::HashMap;

use super::connect::TablesConn;
use super::tables::{self, Col, TablesDb, TextRow, text};
use super::{BoxFuture, ReadContext, ReportedNext, Source, SourceError, SourceRead};

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
pub const ERROR_COLUMNS: &[Col] = &[
    Col::Plain("Id"),
    Col::Plain("ScheduledJobId"),
    Col::Plain("ScheduledJobStepId"),
    Col::Plain("ErrorNumber"),
    Col::Plain("ErrorMessage"),
    Col::Time("ErrorDate"),
];

/// The errors query's tail: the window only.
pub fn error_tail(db: &TablesDb, window: Window, tz: Tz) -> String {
    let d = tables::column(db, "ErrorDate");
    let local = |t: DateTime<Utc>| t.with_timezone(&tz).naive_local();
    format!(
        "WHERE {d} >= {} AND {d} < {} ORDER BY {d}",
        tables::time_literal(db, local(window.start)),
        tables::time_literal(db, local(window.end))
    )
}

/// The Service Broker scheduler's tables as a [`Source`].
#[derive(Default)]
pub struct ServiceBroker {
    conn: TablesConn,
}

impl Source for ServiceBroker {
    fn read<'a>(&'a self, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
        Box::pin(async move {
            let c = cx.config;
            let mut db = self.conn.open(c).await?;
            read_instance(&mut db, &c.name, c.time_zone.unwrap_or(chrono_tz::UTC), cx.window, cx.now).await
        })
    }

    fn reset(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.conn.forget())
    }
}

/// Every scheduled job with its last run and the errors inside `window`, and each job's
/// `NextRunOn` for the cross-check ([`super::finish`]); `now` is the poll's time.
pub async fn read_instance(
    db: &mut TablesDb,
    name: &str,
    tz: Tz,
    window: Window,
    now: DateTime<Utc>,
) -> Result<SourceRead, SourceError> {
    let order = format!("ORDER BY {}", tables::column(db, "ID"));
    let job_rows = tables::read(db, "ScheduledJobs", JOB_COLUMNS, &order).await?;
    let schedule_rows = tables::read(db, "JobSchedules", SCHEDULE_COLUMNS, &order).await?;
    let tail = error_tail(db, window, tz);
    let errors = tables::read(db, "SchedulingErrors", ERROR_COLUMNS, &tail).await?;
    let schedules: HashMap<&str, &TextRow> =
        schedule_rows.iter().filter_map(|r| text(r, "ID").map(|id| (id, r))).collect();
    let to_utc = |t: NaiveDateTime| app::engine::tz::local_to_instant(t, tz.into());

    let mut jobs = Vec::with_capacity(job_rows.len());
    let mut reported_next = Vec::new();
    for (i, r) in job_rows.iter().enumerate() {
        let id = text(r, "ID").unwrap_or("?").to_owned();
        let mut diagnostics = Vec::new();
        // The job row with its schedule's columns (a "run once" job has none: JobScheduleId -1).
        let mut merged = r.clone();
        if let Some(s) = text(r, "JobScheduleId").and_then(|sid| schedules.get(sid)) {
            for (k, v) in s.iter().filter(|(k, _)| k.as_str() != "ID") {
                merged.insert(k.clone(), v.clone());
            }
        } else if text(r, "JobScheduleId").is_some_and(|s| s != "-1") {
            diagnostics.push(Diagnostic::warning(
                "JobScheduleId",
                text(r, "JobScheduleId").unwrap_or_default(),
                "no JobSchedules row has this ID",
            ));
        }
        let job: ServiceBrokerJob = serde_json::from_value(tables::to_json(&merged)).unwrap_or_else(|e| {
            diagnostics.push(Diagnostic::error("ScheduledJobs", &id, format!("the row cannot be read: {e}")));
            ServiceBrokerJob::default()
        });
        let enabled = text(r, "IsEnabled").is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true"));
        let schedule = Schedule::ServiceBroker(job.clone());

        let mut runs = Vec::new();
        let last = text(r, "LastRunOn").and_then(tables::wall_clock).map(to_utc);
        let job_errors: Vec<(DateTime<Utc>, String)> = errors
            .iter()
            .filter(|e| text(e, "ScheduledJobId") == Some(id.as_str()))
            .filter_map(|e| {
                let at = text(e, "ErrorDate").and_then(tables::wall_clock).map(to_utc)?;
                Some((
                    at,
                    format!(
                        "error {}: {}",
                        text(e, "ErrorNumber").unwrap_or("?"),
                        text(e, "ErrorMessage").unwrap_or_default()
                    ),
                ))
            })
            .collect();
        if let Some(at) = last.filter(|t| window.contains(*t)) {
            let failed = job_errors.iter().find(|(e, _)| (*e - at).num_seconds().abs() <= 60 * 60 && *e >= at);
            runs.push(Run {
                start: at,
                duration_secs: 0,
                outcome: if failed.is_some() { RunOutcome::Failed } else { RunOutcome::Succeeded },
                trigger: Trigger::Schedule(Some(i as i64 + 1)),
                message: failed.map(|f| f.1.clone()).unwrap_or_default(),
            });
        }
        for (at, message) in &job_errors {
            if runs.iter().any(|r| r.message == *message && (*at - r.start).num_seconds().abs() <= 3600) {
                continue;
            }
            runs.push(Run {
                start: *at,
                duration_secs: 0,
                outcome: RunOutcome::Failed,
                trigger: Trigger::Schedule(Some(i as i64 + 1)),
                message: message.clone(),
            });
        }
        runs.sort_by_key(|r| r.start);

        // The scheduler's own next run, checked against Sundial's forecast after the read.
        if enabled && let Some(next) = text(r, "NextRunOn").and_then(tables::wall_clock) {
            reported_next.push(ReportedNext {
                job_id: id.clone(),
                at: to_utc(next),
                column: "NextRunOn",
                raw: text(r, "NextRunOn").unwrap_or_default().to_owned(),
            });
        }
        jobs.push(JobInput {
            id: id.clone(),
            name: text(r, "JobName").map(str::to_owned).unwrap_or_else(|| format!("job {id}")),
            category: "Service Broker scheduler".into(),
            enabled,
            schedules: vec![JobSchedule {
                id: i as i64 + 1,
                name: text(r, "JobScheduleId").unwrap_or("once").to_owned(),
                enabled,
                schedule,
            }],
            runs,
            // Only LastRunOn is kept: nothing before it is known.
            history_horizon: Some(last.unwrap_or(now)),
            unobserved: Vec::new(),
            diagnostics,
        });
    }
    let input = InstanceInput { name: name.to_owned(), tz: tz.into(), jobs, agent_starts: Vec::new() };
    Ok(SourceRead { reported_next, ..SourceRead::new(input, Vec::new(), now) })
}
