//! The engine's vocabulary: what a scheduler was told ([`Schedule`], in one of the dialects),
//! what it should therefore do ([`Occurrence`]s, with the [`Dst`] rule that shaped them) and a
//! [`Forecast`] of them with its diagnostics. [`Window`](super::Window), [`Run`](super::Run)
//! and [`Diagnostic`] live in their own modules; `lib.rs` re-exports all of them.
use super::{AgentSchedule, Diagnostic, Severity, cron, job_table, mysql_event, primentra, service_broker};
use chrono::{DateTime, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};

/// Identifies a schedule within one instance (msdb `schedule_id`).
pub type ScheduleId = i64;

/// A schedule in one of the dialects Sundial reads. Issue-by-issue more dialects join.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Schedule {
    /// SQL Server Agent: one `msdb.dbo.sysschedules` row.
    Agent(AgentSchedule),
    /// pg_cron: one `cron.job.schedule` (evaluated in `cron.timezone`, the `tz` argument).
    Cron(cron::CronSchedule),
    /// MySQL / MariaDB: one `information_schema.EVENTS` row (in its TIME_ZONE; SYSTEM = `tz`).
    MysqlEvent(mysql_event::MysqlEvent),
    /// The MySQL stored-procedure scheduler (seed 002): one row of its `job` table. Serialized
    /// `kind = "job_table"`; the first tag, `seed002`, is still read.
    #[serde(alias = "seed002")]
    JobTable(job_table::JobTableRow),
    /// The Service Broker scheduler (seed 003): a `ScheduledJobs` row with its `JobSchedules`
    /// row (`kind = "service_broker"`, or `seed003`).
    #[serde(alias = "seed003")]
    ServiceBroker(service_broker::ServiceBrokerJob),
    /// Primentra (seed 004): one `SchedulerConfigurations` row (`kind = "primentra"`, or
    /// `seed004`).
    #[serde(alias = "seed004")]
    Primentra(primentra::SchedulerConfiguration),
}

/// How a daylight-saving transition shaped an occurrence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dst {
    /// The nominal wall-clock time did not exist (spring forward); the occurrence fires at the
    /// first valid instant after the gap.
    Gap,
    /// The nominal wall-clock time existed twice (fall back); the occurrence fires once, at the
    /// earlier instant.
    Fold,
}

/// One instant at which a schedule should start its job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Occurrence {
    /// The instant it fires.
    pub at: DateTime<Utc>,
    /// The wall-clock time of `at` in the schedule's time zone (what the CLI prints).
    pub local: NaiveDateTime,
    /// The wall-clock time the schedule asked for; differs from `local` only in a DST gap.
    pub nominal: NaiveDateTime,
    /// Set when a DST transition shaped this occurrence.
    pub dst: Option<Dst>,
    /// The schedule that produced it.
    pub schedule: ScheduleId,
}

/// Occurrences in time order plus what was wrong with the input.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Forecast {
    pub occurrences: Vec<Occurrence>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Forecast {
    /// True when some diagnostic is an error (the schedule cannot be forecast as written).
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }
}
