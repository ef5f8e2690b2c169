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
//! The table has a row per job, each updated in place (status, cycles), so every poll reads it
//! whole (as few rows as jobs). What grows is Sundial's own samples (one per state seen: a poll's
//! for a runner whose counter moves every poll); those are read incrementally (issue 27): the
//! source ([`JobTable`]) holds each job's samples between polls ([`SampleCache`]) and asks the
//! store only for the newest one it holds and those after it ([`Store::job_samples_from`], by the
//! table's key), trimming the held ones to the window as the store would. After a restart, when
//! the poll's time is below the newest sample held, or when the store no longer has it, the
//! window's samples are read again ([`Store::job_samples`]).
use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use chrono_tz::Tz;
use sundial_engine::fleet::{InstanceInput, JobInput, JobSchedule};
use sundial_engine::job_table::{self, CycleSample, JobTableRow};
use sundial_engine::{Diagnostic, Schedule, Window};

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::connect::TablesConn;
use super::snapshots::Store;
use super::tables::{self, Col, TablesDb, TextRow, text};
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

/// The MySQL `job` table as a [`Source`]: the connections kept between polls (as
/// [`super::connect::TablesSource`] keeps them) and each job's samples as the last poll read them
/// from Sundial's store ([`SampleCache`]); Sundial's store keeps the cycles the table forgets.
#[derive(Default)]
pub struct JobTable {
    conn: TablesConn,
    samples: SampleCache,
}

impl JobTable {
    /// How many samples this source's reads have fetched from Sundial's store.
    pub fn samples_read(&self) -> u64 {
        self.samples.rows.load(Ordering::Relaxed)
    }
}

impl Source for JobTable {
    fn read<'a>(&'a self, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
        let c = cx.config;
        Box::pin(async move {
            let mut db = self.conn.open(c).await?;
            let tz = c.time_zone.unwrap_or(chrono_tz::UTC);
            let stuck_after = TimeDelta::from_std(c.stuck_after).unwrap_or(DEFAULT_STUCK_AFTER);
            let at =
                Polled { store: cx.store()?, name: &c.name, tz, window: cx.window, polled_at: cx.now, stuck_after };
            read_with(&mut db, at, Some(&self.samples)).await
        })
    }

    fn reset(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.conn.forget())
    }
}

/// Each job's samples (by its store key) as the last poll read them, so that the next asks
/// Sundial's store only for the newest one held (its `seen_until` grows, and a state recorded at
/// the same instant replaces it) and those after it ([`Store::job_samples_from`]) instead of the
/// window's: a job whose row changes at every poll has a sample per poll, 43,200 in 30 days at a
/// poll a minute. Memory only: after a restart the first poll reads the window. The window is
/// read again, too, when the poll's time went back below the newest sample held or the store no
/// longer has that sample (Sundial's store replaced).
#[derive(Default)]
pub struct SampleCache {
    held: Mutex<HashMap<String, Held>>,
    /// Samples fetched from the store, all told (for tests and figures).
    rows: AtomicU64,
}

/// One job's samples held between polls: as [`Store::job_samples`] answers them for the
/// window, and [`Store::job_first`]'s answer.
#[derive(Clone)]
struct Held {
    samples: Vec<CycleSample>,
    first: Option<CycleSample>,
    watched: Option<DateTime<Utc>>,
}

impl SampleCache {
    /// Job `key`'s samples that were still seen at or after the window's start and the one
    /// before them, oldest first (as [`Store::job_samples`] answers), with its first sample and
    /// first poll (as [`Store::job_first`]): from those held, and the store's newest.
    async fn samples(&self, store: &Store, at: &Polled<'_>, key: &str) -> Result<Held, SourceError> {
        let held = self.held.lock().ok().and_then(|h| h.get(key).cloned());
        let mut fetched = 0;
        let mut got = None;
        if let Some(mut h) = held
            && let Some(newest) = h.samples.last().map(|s| s.first_seen)
            && at.polled_at >= newest
        {
            let fresh = store.job_samples_from(at.name, key, newest).await?;
            fetched = fresh.len();
            // The store still has the newest held: nothing below it changes (a poll records a
            // new state at its own time, never before the newest).
            if fresh.first().is_some_and(|s| s.first_seen == newest) {
                if let Some(first) = &h.first
                    && let Some(again) = fresh.iter().find(|s| s.first_seen == first.first_seen)
                {
                    h.first = Some(again.clone());
                }
                h.samples.retain(|s| s.first_seen < newest);
                h.samples.extend(fresh);
                // As the store answers: from the last sample no longer seen at the window's start.
                let since = DateTime::from_timestamp_micros(at.window.start.timestamp_micros()).unwrap_or_default();
                if let Some(cut) = h.samples.iter().filter(|s| s.seen_until < since).map(|s| s.first_seen).max() {
                    h.samples.retain(|s| s.first_seen >= cut);
                }
                got = Some(h);
            }
        }
        let got = match got {
            Some(h) => h,
            None => {
                let samples = store.job_samples(at.name, key, at.window.start).await?;
                let (first, watched) = store.job_first(at.name, key).await?;
                fetched += samples.len() + usize::from(first.is_some());
                Held { samples, first, watched }
            }
        };
        self.rows.fetch_add(fetched as u64, Ordering::Relaxed);
        if let Ok(mut h) = self.held.lock() {
            h.insert(key.to_owned(), got.clone());
        }
        Ok(got)
    }
}

/// What one read is about: the instance, the poll, and how the table's times and cycles read.
struct Polled<'a> {
    store: &'a Store,
    name: &'a str,
    /// The session zone the DATETIME columns were written in.
    tz: Tz,
    window: Window,
    /// Stamps this poll's sample (and is "now").
    polled_at: DateTime<Utc>,
    /// A cycle not finished after this long is taken as crashed.
    stuck_after: TimeDelta,
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
    read_with(db, Polled { store, name, tz, window, polled_at, stuck_after }, None).await
}

/// [`read_instance`] as `at` says, each job's samples from `cache` and the store's newest
/// (`None`: the window's from the store).
async fn read_with(db: &mut TablesDb, at: Polled<'_>, cache: Option<&SampleCache>) -> Result<SourceRead, SourceError> {
    let Polled { store, name, tz, window, polled_at, stuck_after } = at;
    let order = format!("ORDER BY {}", tables::column(db, "job_id"));
    let rows = tables::read(db, "job", COLUMNS, &order).await?;
    let to_utc = |t: NaiveDateTime| sundial_engine::tz::local_to_instant(t, tz.into());
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
        let Held { samples, first, watched } = match cache {
            Some(cache) => cache.samples(store, &at, &key).await?,
            None => {
                let samples = store.job_samples(name, &key, window.start).await?;
                let (first, watched) = store.job_first(name, &key).await?;
                Held { samples, first, watched }
            }
        };
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
            command: None,
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
            modified: None,
        });
    }
    let input = InstanceInput::new(name, tz.into(), jobs, Vec::new());
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
