//! The schedule engine: Sundial's heart, and pure.
//!
//! Nothing in here does I/O or reads the clock, and it knows no web, database or async framework.
//! `now` and every [`Window`] are arguments. It compiles to native and to wasm32, so the same
//! code can forecast on the server and in the browser (`make engine-wasm` builds it for wasm32).
//!
//! Bad source data is not a failure: functions return their results *plus* [`Diagnostic`]s,
//! so one broken schedule never blanks a page.
//!
//! Vocabulary:
//! - [`Schedule`]: what a scheduler was told (one `msdb.dbo.sysschedules` row, …).
//! - [`Occurrence`]: one instant at which a schedule should have started its job.
//! - [`Run`]: one observed execution (from history).
//! - [`Window`]: a half-open `[start, end)` span of instants.
//! - [`Forecast`]: occurrences plus diagnostics.
//! - [`Outcome`]: what reconciliation concluded about one occurrence.
//! - [`Dst`]: `Gap` (spring-forward, skipped wall-clock hour) and `Fold` (repeated hour).
//! - [`Zone`]: the time zone schedules are read in, a chrono `TimeZone`: a chrono-tz zone
//!   (cargo feature `tzdb`, on by default, which the server uses) or [`ZoneRules`], a zone's
//!   offset transitions as data (the browser's, built without `tzdb` so that chrono-tz's tz
//!   database stays out of the WASM bundle). Both compute the same.

pub mod agent;
pub mod cron;
pub mod describe;
pub mod diagnostic;
pub mod edit;
pub mod fleet;
pub mod log;
pub mod mysql_event;
pub mod reconcile;
pub mod replay;
pub mod seed002;
pub mod seed003;
pub mod seed004;
pub mod tz;
pub mod window;
pub mod zone;

pub use agent::AgentSchedule;
pub use diagnostic::{Diagnostic, Severity};
pub use reconcile::{Outcome, Run, RunOutcome, Trigger};
pub use window::Window;
pub use zone::{Zone, ZoneOffset, ZoneRules, ZoneRulesError};

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
    /// Seed 002: one row of the MySQL stored-procedure scheduler's `job` table.
    Seed002(seed002::Seed002Job),
    /// Seed 003: a Service Broker `ScheduledJobs` row with its `JobSchedules` row.
    Seed003(seed003::Seed003Job),
    /// Seed 004: one Primentra `SchedulerConfigurations` row.
    Seed004(seed004::SchedulerConfiguration),
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

/// Every occurrence of `schedule` (tagged `id`) inside `window`, in the zone `tz`.
pub fn forecast(id: ScheduleId, schedule: &Schedule, tz: Zone, window: Window) -> Forecast {
    match schedule {
        Schedule::Agent(s) => agent::forecast(id, s, tz, window),
        Schedule::Cron(s) => cron::forecast(id, s, tz, window),
        Schedule::MysqlEvent(s) => mysql_event::forecast(id, s, tz, window),
        Schedule::Seed002(s) => seed002::forecast(id, s, tz, window),
        Schedule::Seed003(s) => seed003::forecast(id, s, tz, window),
        Schedule::Seed004(s) => seed004::forecast(id, s, tz, window),
    }
}

/// The first `count` occurrences strictly after `after`.
pub fn next_after(id: ScheduleId, schedule: &Schedule, tz: Zone, after: DateTime<Utc>, count: usize) -> Forecast {
    match schedule {
        Schedule::Agent(s) => agent::next_after(id, s, tz, after, count),
        Schedule::Cron(s) => cron::next_after(id, s, tz, after, count),
        Schedule::MysqlEvent(s) => mysql_event::next_after(id, s, tz, after, count),
        Schedule::Seed002(s) => seed002::next_after(id, s, tz, after, count),
        Schedule::Seed003(s) => seed003::next_after(id, s, tz, after, count),
        Schedule::Seed004(s) => seed004::next_after(id, s, tz, after, count),
    }
}

/// An English description in the voice SSMS uses.
pub fn describe(schedule: &Schedule) -> String {
    match schedule {
        Schedule::Agent(s) => describe::agent(s),
        Schedule::Cron(s) => cron::describe(s),
        Schedule::MysqlEvent(s) => mysql_event::describe(s),
        Schedule::Seed002(s) => seed002::describe(s),
        Schedule::Seed003(s) => seed003::describe(s),
        Schedule::Seed004(s) => seed004::describe(s),
    }
}

/// A job with several schedules: occurrences merged in time order, each tagged with its
/// schedule; diagnostics of all schedules kept.
pub fn forecast_job(schedules: &[(ScheduleId, Schedule)], tz: Zone, window: Window) -> Forecast {
    let mut out = Forecast::default();
    for (id, s) in schedules {
        let f = forecast(*id, s, tz, window);
        out.occurrences.extend(f.occurrences);
        out.diagnostics.extend(f.diagnostics);
    }
    out.occurrences.sort_by(|a, b| a.at.cmp(&b.at).then(a.schedule.cmp(&b.schedule)));
    out
}
