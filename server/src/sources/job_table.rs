//! The MySQL stored-procedure scheduler's `job` table, read-only, and Sundial's samples of its
//! rows, from which past cycles are rebuilt.
//!
//! The table keeps no history: only the current runner's status, start and finish, its cycle
//! counter and the last cycle's start and finish. At every poll Sundial records each row's
//! state in its [`Store`] (one sample per state, with the first and last poll that saw it), and
//! `job_table::reconstruct` (in the engine, where the rules are) rebuilds the cycles from
//! them: the counter says how many cycles ran between two samples, the runner's start and the
//! interval say when; what cannot be placed is unobserved, never missed. A cycle still
//! unfinished after the instance's `stuck_after` (default 60 minutes; the design has no
//! timeout) is taken as crashed. The samples' anchors go into the row
//! ([`JobTableRow::cycle_anchors`]) so that the forecast follows each runner's cadence.
//!
//! Not read incrementally: the table has a row per job, each updated in place (status, cycles),
//! so every poll reads it whole (as few rows as jobs). What grows is Sundial's own samples,
//! read back over the window at every poll.
use app::engine::fleet::{InstanceInput, JobInput, JobSchedule};
use app::engine::job_table::{self, CycleSample, JobTableRow};
use app::engine::{Diagnostic, Schedule, Window};
use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use chrono_tz::Tz;

use super::snapshots::Store;
use super::tables::{self, Col, TablesDb, TextRow, text};
use super::{BoxFuture, ReadContext, SourceError, SourceRead};

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

/// One read of the MySQL `job` table (the kind's read for [`super::connect::TablesSource`]);
/// Sundial's store keeps the cycles the table forgets.
pub fn read<'a>(db: &'a mut TablesDb, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
    let c = cx.config;
    Box::pin(async move {
        let tz = c.time_zone.unwrap_or(chrono_tz::UTC);
        let stuck_after = TimeDelta::from_std(c.stuck_after).unwrap_or(DEFAULT_STUCK_AFTER);
        read_instance(db, cx.store()?, &c.name, tz, cx.window, cx.now, stuck_after).await
    })
}

/// A cycle not finished after this long is taken as crashed, unless the instance says otherwise.
pub const DEFAULT_STUCK_AFTER: TimeDelta = TimeDelta::minutes(60);

/// Every job with the cycles Sundial's samples show inside `window`; `polled_at` stamps this
/// poll's sample (and is "now"). `tz` is the session zone the DATETIME columns were written in;
/// a cycle not finished after `stuck_after` is taken as crashed.
pub async fn read_instance(
    db: &mut TablesDb,
    store: &Store,
    name: &str,
    tz: Tz,
    window: Window,
    polled_at: DateTime<Utc>,
    stuck_after: TimeDelta,
) -> Result<SourceRead, SourceError> {
    let order = format!("ORDER BY {}", tables::column(db, "job_id"));
    let rows = tables::read(db, "job", COLUMNS, &order).await?;
    let to_utc = |t: NaiveDateTime| app::engine::tz::local_to_instant(t, tz.into());
    let mut jobs = Vec::with_capacity(rows.len());
    for (i, r) in rows.iter().enumerate() {
        let schedule_id = i as i64 + 1;
        let id = text(r, "job_id").unwrap_or("?").to_owned();
        let owner = text(r, "job_owner").unwrap_or_default().to_owned();
        let job_name = text(r, "job_name").unwrap_or_default().to_owned();
        let mut diagnostics = Vec::new();
        let mut job: JobTableRow = serde_json::from_value(tables::to_json(r)).unwrap_or_else(|e| {
            diagnostics.push(Diagnostic::error("job", &id, format!("the row cannot be read: {e}")));
            JobTableRow::default()
        });
        let status = text(r, "job_status").unwrap_or_default().to_ascii_uppercase();
        // This poll's sample, then every sample the window needs.
        let key = format!("job {id}");
        store.record_job(name, &key, &sample_of(r, &to_utc, polled_at), polled_at).await?;
        let samples = store.job_samples(name, &key, window.start).await?;
        let (first, watched) = store.job_first(name, &key).await?;
        let horizon = first.map(|f| f.known_since()).into_iter().chain(watched).min();
        let history = job_table::reconstruct(&samples, schedule_id, window, stuck_after, polled_at);
        job.cycle_anchors = history.anchors;
        diagnostics.extend(history.diagnostics);
        let enabled = status != "DISABLED";
        jobs.push(JobInput {
            id: id.clone(),
            name: if owner.is_empty() { job_name.clone() } else { format!("{owner}.{job_name}") },
            category: format!(
                "{} ({status})",
                text(r, "job_procedure_name")
                    .map(|p| format!("{}.{p}", text(r, "job_procedure_schema").unwrap_or_default()))
                    .unwrap_or_default()
            ),
            // The database user the job belongs to (its name is unique per owner).
            owner: (!owner.is_empty()).then(|| owner.clone()),
            enabled,
            schedules: vec![JobSchedule {
                id: schedule_id,
                name: job_name,
                enabled,
                schedule: Schedule::JobTable(job),
            }],
            runs: history.runs,
            history_horizon: horizon,
            source_horizon: None,
            unobserved: history.unobserved,
            diagnostics,
            earlier: Vec::new(),
        });
    }
    let input = InstanceInput { name: name.to_owned(), tz: tz.into(), jobs, agent_starts: Vec::new() };
    Ok(SourceRead::new(input, Vec::new(), polled_at))
}

/// The row's state as a sample (a value that does not read is unknown here: the engine's
/// diagnostics name it).
fn sample_of(r: &TextRow, to_utc: &dyn Fn(NaiveDateTime) -> DateTime<Utc>, polled_at: DateTime<Utc>) -> CycleSample {
    let time = |c: &str| text(r, c).and_then(tables::wall_clock).map(to_utc);
    let int = |c: &str| text(r, c).and_then(|v| v.parse::<i64>().ok());
    CycleSample {
        first_seen: polled_at,
        seen_until: polled_at,
        status: text(r, "job_status").map(str::to_ascii_uppercase),
        interval: int("job_schedule_interval"),
        schedule_start: time("job_schedule_start"),
        runner_start: time("job_runner_start"),
        runner_finish: time("job_runner_finish"),
        cycles: int("job_runner_cycles"),
        last_start: time("job_runner_last_cycle_start"),
        last_finish: time("job_runner_last_cycle_finish"),
    }
}
