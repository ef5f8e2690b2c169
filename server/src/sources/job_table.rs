//! The MySQL stored-procedure scheduler (seed 002): its `job` table, read-only, plus
//! Sundial's own samples of each job's last cycle.
//!
//! The table keeps no history: only the current status, the runner's start and finish, its
//! cycle count and the last cycle's start and finish. Sundial records them at every poll in
//! its [`Store`] (like MySQL events' `LAST_EXECUTED`), so cycles accumulate from the first
//! poll on. Between two polls only the last cycle shows: the stretch from a poll that still
//! saw cycle k to the next sampled cycle is unobserved (a missing cycle there is unknown, not
//! missed), while polls that saw the same last cycle prove nothing ran. A job in status ERROR
//! failed its last cycle. (`job_runner_cycles` is read but not yet used to count the cycles
//! between polls.)
use app::engine::fleet::{InstanceInput, JobInput, JobSchedule};
use app::engine::job_table::JobTableRow;
use app::engine::{Diagnostic, Run, RunOutcome, Schedule, Trigger, Window};
use chrono::{DateTime, NaiveDateTime, Utc};
use chrono_tz::Tz;

use super::connect::TablesConn;
use super::snapshots::Store;
use super::tables::{self, Col, TablesDb, text};
use super::{BoxFuture, ReadContext, Source, SourceError, SourceRead};

pub const COLUMNS: &[Col] = &[
    Col::Plain("job_id"),
    Col::Plain("job_owner"),
    Col::Plain("job_name"),
    Col::Plain("job_procedure_schema"),
    Col::Plain("job_procedure_name"),
    Col::Time("job_schedule_start"),
    Col::Time("job_schedule_finish"),
    Col::Plain("job_schedule_interval"),
    Col::Plain("job_status"),
    Col::Time("job_runner_start"),
    Col::Time("job_runner_finish"),
    Col::Plain("job_runner_cycles"),
    Col::Time("job_runner_last_cycle_start"),
    Col::Time("job_runner_last_cycle_finish"),
];

/// The MySQL `job` table as a [`Source`]; Sundial's store keeps the cycles the table forgets.
#[derive(Default)]
pub struct JobTable {
    conn: TablesConn,
}

impl Source for JobTable {
    fn read<'a>(&'a self, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
        Box::pin(async move {
            let c = cx.config;
            let mut db = self.conn.open(c).await?;
            let tz = c.time_zone.unwrap_or(chrono_tz::UTC);
            read_instance(&mut db, cx.store()?, &c.name, tz, cx.window, cx.now).await
        })
    }

    fn reset(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.conn.forget())
    }
}

/// Every job with the cycles Sundial's samples show inside `window`; `polled_at` stamps this
/// poll's sample. `tz` is the session zone the DATETIME columns were written in.
pub async fn read_instance(
    db: &mut TablesDb,
    store: &Store,
    name: &str,
    tz: Tz,
    window: Window,
    polled_at: DateTime<Utc>,
) -> Result<SourceRead, SourceError> {
    let order = format!("ORDER BY {}", tables::column(db, "job_id"));
    let rows = tables::read(db, "job", COLUMNS, &order).await?;
    let to_utc = |t: NaiveDateTime| app::engine::tz::local_to_instant(t, tz.into());
    let mut jobs = Vec::with_capacity(rows.len());
    for (i, r) in rows.iter().enumerate() {
        let id = text(r, "job_id").unwrap_or("?").to_owned();
        let owner = text(r, "job_owner").unwrap_or_default().to_owned();
        let job_name = text(r, "job_name").unwrap_or_default().to_owned();
        let mut diagnostics = Vec::new();
        let job: JobTableRow = serde_json::from_value(tables::to_json(r)).unwrap_or_else(|e| {
            diagnostics.push(Diagnostic::error("job", &id, format!("the row cannot be read: {e}")));
            JobTableRow::default()
        });
        let status = text(r, "job_status").unwrap_or_default().to_ascii_uppercase();
        // This poll's sample: the last cycle's start, keyed with the cycle counter so that two
        // polls of the same cycle are one sample.
        let key = format!("job {id}");
        let last = text(r, "job_runner_last_cycle_start").and_then(tables::wall_clock).map(to_utc);
        store.record(name, &key, last, polled_at).await?;
        let seen = store.samples(name, &key, window.start).await?;
        let last_finish = text(r, "job_runner_last_cycle_finish").and_then(tables::wall_clock).map(to_utc);
        let mut runs: Vec<Run> = seen
            .samples
            .iter()
            .filter(|(at, _)| window.contains(*at))
            .map(|(at, _)| Run {
                start: *at,
                duration_secs: 0,
                outcome: RunOutcome::Succeeded,
                trigger: Trigger::Schedule(Some(i as i64 + 1)),
                message: String::new(),
            })
            .collect();
        if let (Some(run), Some(last)) = (runs.last_mut(), last)
            && run.start == last
        {
            if let Some(f) = last_finish.filter(|f| *f >= last) {
                run.duration_secs = (f - last).num_seconds();
            }
            match status.as_str() {
                "ERROR" => {
                    run.outcome = RunOutcome::Failed;
                    run.message = "the job procedure failed; the runner stopped (status ERROR)".into();
                }
                "RUNNING" if last_finish.is_none_or(|f| f < last) => run.outcome = RunOutcome::InProgress,
                _ => {}
            }
        }
        let unobserved = seen.unobserved();
        let horizon = seen.horizon();
        let enabled = matches!(status.as_str(), "ENABLED" | "RUNNING" | "SLEEPING" | "RESUMED");
        jobs.push(JobInput {
            id: id.clone(),
            name: if owner.is_empty() { job_name.clone() } else { format!("{owner}.{job_name}") },
            category: format!(
                "{} ({status})",
                text(r, "job_procedure_name")
                    .map(|p| format!("{}.{p}", text(r, "job_procedure_schema").unwrap_or_default()))
                    .unwrap_or_default()
            ),
            enabled,
            schedules: vec![JobSchedule {
                id: i as i64 + 1,
                name: job_name,
                enabled,
                schedule: Schedule::JobTable(job),
            }],
            runs,
            history_horizon: horizon,
            unobserved,
            diagnostics,
        });
    }
    let input = InstanceInput { name: name.to_owned(), tz: tz.into(), jobs, agent_starts: Vec::new() };
    Ok(SourceRead::new(input, Vec::new(), polled_at))
}
