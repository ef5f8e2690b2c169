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
//! connection), a [`SourceKind`] variant and a line in [`open`].
//!
//! `snapshots` is Sundial's own store, the one database Sundial writes.
use app::engine::fleet::InstanceInput;
use app::engine::log::LogEvent;
use app::engine::{Diagnostic, Window};
use chrono::{DateTime, Utc};
use std::future::Future;
use std::pin::Pin;

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
    /// Next runs the scheduler itself reports, checked by [`finish`] (not shared: by then its
    /// findings are in the jobs' diagnostics).
    #[serde(skip)]
    pub reported_next: Vec<ReportedNext>,
}

impl SourceRead {
    /// A read of `input` at `now`, with its instance-level `notes`.
    pub fn new(input: InstanceInput, notes: Vec<Diagnostic>, now: DateTime<Utc>) -> SourceRead {
        SourceRead { input, notes, events: Vec::new(), now, frozen: false, reported_next: Vec::new() }
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
    matches!(kind, SourceKind::MysqlEvents | SourceKind::MysqlJobTable | SourceKind::PgCron)
}

/// The registry: the source for one configured instance.
pub fn open(config: &InstanceConfig) -> Box<dyn Source> {
    match config.kind {
        SourceKind::Mssql => Box::new(msdb::Msdb),
        SourceKind::PgCron => Box::new(pg_cron::PgCron::default()),
        SourceKind::MysqlEvents => Box::new(mysql_events::MysqlEvents::default()),
        SourceKind::SqliteDemo => Box::new(msdb_sqlite::DemoFile::default()),
        SourceKind::JobActivity => Box::new(TablesSource::new(jobactivity::read)),
        SourceKind::MysqlJobTable => Box::new(TablesSource::new(job_table::read)),
        SourceKind::ServiceBroker => Box::new(TablesSource::new(service_broker::read)),
        SourceKind::Primentra => Box::new(TablesSource::new(primentra::read)),
    }
}

/// Read once through `source` and do what every kind shares: the configured zone overrides the
/// one the source reports, and each next run the scheduler reports is checked against
/// Sundial's forecast.
pub async fn read(source: &dyn Source, cx: ReadContext<'_>) -> Result<SourceRead, SourceError> {
    let mut read = source.read(cx).await?;
    read.input.name = cx.config.name.clone();
    if let Some(tz) = cx.config.time_zone {
        read.input.tz = tz.into();
    }
    finish(&mut read);
    Ok(read)
}

/// How far the scheduler's next run may be from Sundial's before it is a finding.
const NEXT_RUN_SLACK_SECS: i64 = 60;

/// The cross-check, for every kind: where the scheduler's own next run (still ahead at `now`)
/// differs from Sundial's first occurrence from `now` on by more than a minute, the job gets a
/// warning naming the column. The scheduler's cache may be stale (a zombie scheduler looks like
/// this) or a schedule changed since the scheduler read it.
pub fn finish(read: &mut SourceRead) {
    let tz = read.input.tz;
    let now = read.now;
    for reported in std::mem::take(&mut read.reported_next) {
        let Some(job) = read.input.jobs.iter_mut().find(|j| j.id == reported.job_id) else { continue };
        // One due this instant may be starting: the scheduler moves its next run on after.
        if reported.at < now {
            continue;
        }
        let ours = job
            .schedules
            .iter()
            .filter(|s| s.enabled && job.enabled)
            .filter_map(|s| app::engine::next_after(s.id, &s.schedule, tz, now, 1).occurrences.into_iter().next())
            .map(|o| o.at)
            .min();
        if ours.is_some_and(|o| (o - reported.at).num_seconds().abs() <= NEXT_RUN_SLACK_SECS) {
            continue;
        }
        job.diagnostics.push(app::engine::triage::next_run_disagrees(
            reported.column,
            &reported.raw,
            reported.at,
            ours,
        ));
    }
}
