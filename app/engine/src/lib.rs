//! The schedule engine: Sundial's heart, and pure.
//!
//! Nothing in here does I/O or reads the clock, and it knows no web, database or async framework.
//! `now` and every [`Window`] are arguments. It compiles to native and to wasm32, so the same
//! code can forecast on the server and in the browser (`make engine-wasm` builds it for wasm32).
//!
//! Bad source data is not a failure: functions return their results *plus* [`Diagnostic`]s,
//! so one broken schedule never blanks a page.
//!
//! Vocabulary (in [`vocab`], [`window`], [`reconcile`] and [`zone`], re-exported here):
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
pub mod changes;
pub mod cron;
pub mod deadlines;
pub mod describe;
pub mod diagnostic;
pub mod dialect;
pub mod durations;
pub mod edit;
pub mod fleet;
pub mod gaps;
pub mod history;
pub mod job_table;
pub mod log;
pub mod maintenance;
pub mod mysql_event;
pub mod order;
pub mod pgagent;
pub mod primentra;
pub mod reconcile;
pub mod replay;
pub mod risks;
pub mod sentence;
pub mod service_broker;
pub mod triage;
pub mod tz;
pub mod vocab;
pub mod window;
pub mod zone;

pub use agent::AgentSchedule;
pub use diagnostic::{Diagnostic, Finding, Severity};
pub use reconcile::{Outcome, Run, RunOutcome, Trigger};
pub use vocab::{Dst, Forecast, Occurrence, Schedule, ScheduleId, Step};
pub use window::Window;
pub use zone::{Zone, ZoneOffset, ZoneRules, ZoneRulesError};

use chrono::{DateTime, Utc};

/// Every occurrence of `schedule` (tagged `id`) inside `window`, in the zone `tz`.
pub fn forecast(id: ScheduleId, schedule: &Schedule, tz: Zone, window: Window) -> Forecast {
    match schedule {
        Schedule::Agent(s) => agent::forecast(id, s, tz, window),
        Schedule::Cron(s) => cron::forecast(id, s, tz, window),
        Schedule::MysqlEvent(s) => mysql_event::forecast(id, s, tz, window),
        Schedule::JobTable(s) => job_table::forecast(id, s, tz, window),
        Schedule::ServiceBroker(s) => service_broker::forecast(id, s, tz, window),
        Schedule::Primentra(s) => primentra::forecast(id, s, tz, window),
        Schedule::PgAgent(s) => pgagent::forecast(id, s, tz, window),
    }
}

/// The first `count` occurrences strictly after `after`.
pub fn next_after(id: ScheduleId, schedule: &Schedule, tz: Zone, after: DateTime<Utc>, count: usize) -> Forecast {
    match schedule {
        Schedule::Agent(s) => agent::next_after(id, s, tz, after, count),
        Schedule::Cron(s) => cron::next_after(id, s, tz, after, count),
        Schedule::MysqlEvent(s) => mysql_event::next_after(id, s, tz, after, count),
        Schedule::JobTable(s) => job_table::next_after(id, s, tz, after, count),
        Schedule::ServiceBroker(s) => service_broker::next_after(id, s, tz, after, count),
        Schedule::Primentra(s) => primentra::next_after(id, s, tz, after, count),
        Schedule::PgAgent(s) => pgagent::next_after(id, s, tz, after, count),
    }
}

/// An English description in the voice SSMS uses.
pub fn describe(schedule: &Schedule) -> String {
    match schedule {
        Schedule::Agent(s) => describe::agent(s),
        Schedule::Cron(s) => cron::describe(s),
        Schedule::MysqlEvent(s) => mysql_event::describe(s),
        Schedule::JobTable(s) => job_table::describe(s),
        Schedule::ServiceBroker(s) => service_broker::describe(s),
        Schedule::Primentra(s) => primentra::describe(s),
        Schedule::PgAgent(s) => pgagent::describe(s),
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
    order::sort_by_key(&mut out.occurrences, |o| {
        let [s, n] = order::instant(o.at);
        [s, n, o.schedule, 0, 0, 0, 0, 0]
    });
    out
}
