//! One file per source kind behind one contract ([`Source`]); the only place SQL that reads a
//! scheduler lives. Row structs stay here and are mapped to engine types.
//!
//! The contract: a kind is a struct made from its [`InstanceConfig`] by [`open`] (the registry,
//! a line per kind); it keeps its own connections between polls; [`Source::read`] takes a
//! [`ReadContext`] (the instance's configuration, the window, the poll's "now", Sundial's
//! store) and answers one [`SourceRead`] or one [`SourceError`]. What every kind shares is done
//! once, after reading, by [`finish`]: the zone override and the cross-check of the scheduler's
//! own next run against Sundial's forecast.
//!
//! Adding a kind: a file here implementing [`Source`] (or, for a scheduler that keeps its state
//! in plain tables, a `read` function that [`connect::TablesSource`] runs over the kept
//! connection), its line in [`open`], and its variant and row in the registry of kinds
//! (`crate::config::KINDS`: its name, scheduler and what it asks of the configuration).
//!
//! `snapshots` is Sundial's own store, the one database Sundial writes.
use chrono::{DateTime, Utc};
use std::future::Future;
use std::pin::Pin;
use sundial_engine::fleet::InstanceInput;
use sundial_engine::log::LogEvent;
use sundial_engine::{Diagnostic, Window};

use crate::config::{InstanceConfig, SourceKind};

pub mod connect;
pub mod error;
pub mod job_table;
pub mod jobactivity;
pub mod msdb;
pub mod msdb_rows;
pub mod msdb_sqlite;
pub mod mysql_events;
pub mod pg_cron;
pub mod pgagent;
pub mod primentra;
pub mod service_broker;
pub mod snapshots;
pub mod tables;

use connect::TablesSource;
pub use error::SourceError;
use snapshots::Store;

/// A boxed future, as the trait's methods return (the trait is used as `dyn Source`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What one read is asked for.
#[derive(Clone, Copy)]
pub struct ReadContext<'a> {
    pub config: &'a InstanceConfig,
    /// The runs to read: those that started inside it (a source with its own "now", the
    /// demo's file, reads a window of the same length ending at its "now").
    pub window: Window,
    /// The poll's time: the instance's "now" for this read.
    pub now: DateTime<Utc>,
    /// Sundial's own store, for kinds that must remember between polls.
    pub store: Option<&'a Store>,
    /// What Sundial already has of this instance: the last good read it holds (or, after a
    /// restart, one rebuilt from its store: the window's kept runs and the stored [`Mark`]).
    /// A kind that reads incrementally answers a [`Extent::Delta`] against it; `None`: read
    /// the whole window. Every kind may ignore it.
    pub held: Option<&'a SourceRead>,
}

impl<'a> ReadContext<'a> {
    /// Sundial's store, which this kind cannot read without.
    pub fn store(&self) -> Result<&'a Store, SourceError> {
        self.store.ok_or_else(|| SourceError::Config("Sundial's store is not open".into()))
    }
}

/// The scheduler's own idea of a job's next run, to check against Sundial's forecast.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportedNext {
    /// The job's id in [`InstanceInput`].
    pub job_id: String,
    pub at: DateTime<Utc>,
    /// The column it came from (`next_scheduled_run_date`, `NextRunOn`).
    pub column: &'static str,
    /// The value as the table holds it, for the diagnostic.
    pub raw: String,
}

/// Whether a read holds the whole window or only what changed since [`ReadContext::held`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Extent {
    /// Every job and every run of the window.
    #[default]
    Whole,
    /// Every job (jobs, schedules, their diagnostics and horizons replace the held ones) and
    /// the notes, but only the runs that are new or changed (an unfinished run read again,
    /// now finished, replaces the held run of its job with the same start). [`read`] merges
    /// it into the held read ([`merge`]), so every read past it is whole.
    Delta,
}

/// Where a source's history was read up to, for the next read to ask only past it: the
/// highest key read (pg_cron's `runid`, pgAgent's `jlgid`, msdb's `instance_id`), the lowest key the source
/// still held with its row's time (keys only grow and purges take the oldest: a lower key, or
/// the same key on another row, means its history was replaced), the keys of the rows read
/// unfinished (re-read by key until they end: pg_cron's runs not ended, msdb's step rows whose
/// run's outcome row is not written yet), and when the reading last had to start over,
/// with why (a note on the instance for a day).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Mark {
    pub high: i64,
    pub low: Option<(i64, DateTime<Utc>)>,
    pub open: Vec<i64>,
    pub restarted: Option<(DateTime<Utc>, String)>,
}

impl Mark {
    /// Why a history keyed by a growing key went back since this mark, or `None`: its largest
    /// key (`high`) is below the mark's, or its oldest row (`low`: key and start) is another
    /// than the one seen before (a lower key, or the same key on another start). `whose` names
    /// the table as the sentence begins ("cron.job_run_details'", "msdb's sysjobhistory: the"),
    /// `key` its key, `cause` what that means for this scheduler.
    pub fn went_back(
        &self,
        low: Option<(i64, Option<DateTime<Utc>>)>,
        high: Option<i64>,
        (whose, key, cause): (&str, &str, &str),
    ) -> Option<String> {
        let high = high.unwrap_or(0);
        if high < self.high {
            return Some(format!(
                "{whose} largest {key} ({high}) went back below the last one Sundial read ({}): {cause}",
                self.high
            ));
        }
        match (low, self.low) {
            (Some((id, at)), Some((before, then))) if id < before || (id == before && at != Some(then)) => Some(
                format!("{whose} oldest row ({key} {id}) is not the one Sundial saw before ({key} {before}): {cause}"),
            ),
            _ => None,
        }
    }
}

/// One good read of an instance, the same shape for every kind (replicas share it as JSON:
/// `crate::replicas`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SourceRead {
    pub input: InstanceInput,
    /// Instance-level findings (zone, retention, privileges).
    pub notes: Vec<Diagnostic>,
    /// The scheduler's own log (Primentra's SchedulerLog, Service Broker's errors), mapped.
    pub events: Vec<LogEvent>,
    /// The instance's "now" for this read: the poll's, or the source's own (the demo's file).
    pub now: DateTime<Utc>,
    /// The data is a fixed snapshot (the demo's file): nothing to refresh, never stale.
    pub frozen: bool,
    /// Next runs the scheduler itself reports, checked by [`finish`] and kept for the calendar
    /// (not shared: by then its findings are in the jobs' diagnostics).
    #[serde(skip)]
    pub reported_next: Vec<ReportedNext>,
    /// Whole, or a delta against [`ReadContext::held`] (only until [`read`] merges it).
    #[serde(default)]
    pub extent: Extent,
    /// Where this read left the source's history, for an incremental kind's next read (kept
    /// in Sundial's store by `crate::history`, shared with replicas in the read).
    #[serde(default)]
    pub mark: Option<Mark>,
}

impl SourceRead {
    /// A read of `input` at `now`, with its instance-level `notes`.
    pub fn new(input: InstanceInput, notes: Vec<Diagnostic>, now: DateTime<Utc>) -> SourceRead {
        SourceRead {
            input,
            notes,
            events: Vec::new(),
            now,
            frozen: false,
            reported_next: Vec::new(),
            extent: Extent::Whole,
            mark: None,
        }
    }
}

/// A source kind, made for one instance by [`open`].
pub trait Source: Send + Sync {
    /// Read the instance once (the caller bounds it in time).
    fn read<'a>(&'a self, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>>;

    /// Forget open connections (after a read that hung): the next read connects again.
    fn reset(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

/// Whether a kind needs Sundial's store (it remembers between polls what the source forgets).
pub fn needs_store(kind: SourceKind) -> bool {
    kind.info().needs_store
}

/// The registry: the source for one configured instance.
pub fn open(config: &InstanceConfig) -> Box<dyn Source> {
    match config.kind {
        SourceKind::Mssql => Box::new(msdb::Msdb::default()),
        SourceKind::PgCron => Box::new(pg_cron::PgCron::default()),
        SourceKind::PgAgent => Box::new(pgagent::PgAgent::default()),
        SourceKind::MysqlEvents => Box::new(mysql_events::MysqlEvents::default()),
        SourceKind::SqliteDemo => Box::new(msdb_sqlite::DemoFile::default()),
        SourceKind::JobActivity => Box::new(TablesSource::new(jobactivity::read)),
        SourceKind::MysqlJobTable => Box::new(job_table::JobTable::default()),
        SourceKind::ServiceBroker => Box::new(TablesSource::new(service_broker::read)),
        SourceKind::Primentra => Box::new(TablesSource::new(primentra::read)),
    }
}

/// Read once through `source` and do what every kind shares: the configured zone overrides the
/// one the source reports, and each next run the scheduler reports is checked against
/// Sundial's forecast.
pub async fn read(source: &dyn Source, cx: ReadContext<'_>) -> Result<SourceRead, SourceError> {
    let mut read = source.read(cx).await?;
    if read.extent == Extent::Delta {
        let held = cx.held.ok_or_else(|| SourceError::Config("a delta read without a held read".into()))?;
        read = merge(held, read, cx.window);
    }
    read.input.name = cx.config.name.clone();
    if let Some(tz) = cx.config.time_zone {
        read.input.tz = tz.into();
    }
    finish(&mut read);
    Ok(read)
}

/// A [`Extent::Delta`] read merged into the `held` read: the delta's jobs (a job gone from the
/// source is gone), each with the held runs of its id that started in `window` and are not
/// replaced by a delta run with the same start, plus the delta's runs, by start. Notes, events,
/// "now" and mark are the delta's. The result is whole.
///
/// A delta reads again every run it holds in progress (pg_cron by `runid`, msdb from
/// `sysjobactivity` before its history): a held run in progress that the delta does not have
/// again (finished, it comes with its outcome; else it ended without one, as an Agent stopped
/// mid-run leaves it) is not kept, as a whole read would not have it either.
pub fn merge(held: &SourceRead, mut delta: SourceRead, window: Window) -> SourceRead {
    for job in &mut delta.input.jobs {
        let Some(before) = held.input.jobs.iter().find(|h| h.id == job.id) else { continue };
        let new: std::collections::HashSet<DateTime<Utc>> = job.runs.iter().map(|r| r.start).collect();
        let kept = before.runs.iter().filter(|r| {
            r.start >= window.start && !new.contains(&r.start) && r.outcome != sundial_engine::RunOutcome::InProgress
        });
        job.runs.extend(kept.cloned());
        job.runs.sort_by_key(|r| r.start);
    }
    delta.extent = Extent::Whole;
    delta
}

/// How far the scheduler's next run may be from Sundial's before it is a finding.
const NEXT_RUN_SLACK_SECS: i64 = 60;

/// The cross-check, for every kind: where the scheduler's own next run (still ahead at `now`)
/// differs from Sundial's first occurrence from `now` on by more than a minute, the job gets a
/// warning naming the column. The scheduler's cache may be stale (a zombie scheduler looks like
/// this) or a schedule changed since the scheduler read it.
pub fn finish(read: &mut SourceRead) {
    // The scheduler says it is off: the analysis dates the stop ([`sundial_engine::gaps`]).
    read.input.scheduler_stopped = read
        .notes
        .iter()
        .any(|n| n.severity != sundial_engine::Severity::Info && n.tells(sundial_engine::Finding::SchedulerStopped));
    let tz = read.input.tz;
    let now = read.now;
    // Kept on the read: the calendar shows each job's reported next run beside Sundial's.
    for reported in &read.reported_next {
        let Some(job) = read.input.jobs.iter_mut().find(|j| j.id == reported.job_id) else { continue };
        // One due this instant may be starting: the scheduler moves its next run on after.
        if reported.at < now {
            continue;
        }
        // From `now` on, `now` included: a run due this very instant (pgAgent's jobnextrun at
        // the poll's second) is the scheduler's next and Sundial's.
        let from = now - chrono::TimeDelta::nanoseconds(1);
        let ours = job
            .schedules
            .iter()
            .filter(|s| s.enabled && job.enabled)
            .filter_map(|s| sundial_engine::next_after(s.id, &s.schedule, tz, from, 1).occurrences.into_iter().next())
            .map(|o| o.at)
            .min();
        if ours.is_some_and(|o| (o - reported.at).num_seconds().abs() <= NEXT_RUN_SLACK_SECS) {
            continue;
        }
        job.diagnostics.push(sundial_engine::triage::next_run_disagrees(
            reported.column,
            &reported.raw,
            reported.at,
            ours,
        ));
    }
}

/// The instance's secret (a password, or a whole URL), read from where the fleet file says
/// only when a connection needs it.
pub(crate) fn secret(c: &InstanceConfig) -> Result<Option<String>, SourceError> {
    crate::config::resolve_secret(c)
        .map(|s| s.map(|s| s.expose().to_owned()))
        .map_err(|e| SourceError::Config(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sundial_engine::cron::CronSchedule;
    use sundial_engine::fleet::{JobInput, JobSchedule};
    use sundial_engine::{Schedule, Severity};

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    /// An hourly job, its scheduler reporting its next run at `reported`, read at `now`.
    fn checked(now: &str, reported: &str) -> Vec<Diagnostic> {
        let job = JobInput {
            id: "1".into(),
            name: "hourly".into(),
            category: String::new(),
            owner: None,
            enabled: true,
            command: None,
            schedules: vec![JobSchedule {
                id: 1,
                name: "hourly".into(),
                enabled: true,
                schedule: Schedule::Cron(CronSchedule::new("0 * * * *")),
            }],
            runs: Vec::new(),
            history_horizon: None,
            source_horizon: None,
            unobserved: Vec::new(),
            diagnostics: Vec::new(),
            earlier: Vec::new(),
            modified: None,
        };
        let input = InstanceInput {
            name: "i".into(),
            tz: chrono_tz::UTC.into(),
            jobs: vec![job],
            agent_starts: Vec::new(),
            maintenance: Vec::new(),
            scheduler_stopped: false,
        };
        let mut read = SourceRead::new(input, Vec::new(), t(now));
        read.reported_next.push(ReportedNext {
            job_id: "1".into(),
            at: t(reported),
            column: "jobnextrun",
            raw: reported.into(),
        });
        finish(&mut read);
        read.input.jobs.remove(0).diagnostics
    }

    #[test]
    fn a_next_run_due_this_very_instant_agrees_with_the_forecast() {
        assert_eq!(checked("2026-11-22T12:00:00Z", "2026-11-22T12:00:00Z"), Vec::new());
        assert_eq!(checked("2026-11-22T11:59:30Z", "2026-11-22T12:00:00Z"), Vec::new());
        let off = checked("2026-11-22T12:00:00Z", "2026-11-22T12:30:00Z");
        assert_eq!(off.len(), 1, "{off:?}");
        assert_eq!((off[0].severity, off[0].field.as_deref()), (Severity::Warning, Some("jobnextrun")));
    }
}
