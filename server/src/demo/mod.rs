//! The demo instance: about 40 jobs and 60 days of history simulated through the engine.
//!
//! One SQL Server Agent, [`INSTANCE`] in [`TIME_ZONE`], with the jobs a DBA would recognise
//! (Ola Hallengren-style backups, integrity checks and index maintenance, statistics, ETL
//! loads, reports, pollers, replication clean-ups, `syspolicy_purge_history`, a job that
//! starts with the Agent, a one-time job, a manual-only job, a disabled job). Every schedule is
//! a real `sysschedules` row; its occurrences over the history window come from
//! [`app::engine::forecast`], and each occurrence is then simulated: steps, durations per kind of
//! work, failures, retries, long runs that make the Agent skip a slot, manual re-runs. On top,
//! the instance lives through what Sundial exists to show (see [`Scenario`]): an Agent restart
//! (the service was down ~20 minutes before it) and a two-day "zombie" span in which the Agent
//! was alive and started nothing at all. The busiest poller's history is trimmed to its last
//! [`crate::sources::msdb_rows::MAX_OUTCOME_ROWS_PER_JOB`] runs, as the Agent's per-job retention would.
//!
//! Everything is reproducible: the same `now` and seed give the same database. The SQL lives in
//! [`crate::sources::msdb_rows`]; this module only simulates.
//!
//! The module is split by job: `catalog` (what the instance runs), `simulate` (the 60 days,
//! pure) and `write` (the SQLite file); here are the names and the scenario
//! they share.
use crate::sources::msdb_rows::{
    ActivityRow, CategoryRow, DemoMeta, HistoryRow, JobRow, JobScheduleRow, ScheduleRow, SessionRow, StepRow,
    local_to_utc, utc_to_local,
};
use app::engine::Window;
use chrono::{DateTime, Duration, NaiveTime, Utc};
use chrono_tz::Tz;

mod catalog;
mod simulate;
pub mod write;

pub use simulate::simulate;
pub use write::{DemoSummary, write_demo};

/// The demo served as a fleet of one: its file as a `sqlite_demo` instance, read as any
/// configured instance is (the file is a snapshot: pages show it as of the demo's "now").
pub fn fleet(path: &std::path::Path) -> Result<crate::config::FleetConfig, Box<crate::config::ConfigError>> {
    let quoted = |s: &str| toml::Value::String(s.to_owned()).to_string();
    // Sundial's own store (triage's acknowledgements) beside the demo's file, not in the
    // working directory.
    let store = path.with_file_name("sundial-store.sqlite");
    let text = format!(
        "store = {}\n[[instance]]\nname = {}\nkind = \"sqlite_demo\"\npath = {}\npoll_interval = \"1h\"\ntags = {{ environment = \"demo\" }}\n",
        quoted(&store.to_string_lossy()),
        quoted(INSTANCE),
        quoted(&path.to_string_lossy()),
    );
    crate::config::parse(&text, "the built-in demo").map_err(Box::new)
}

/// The demo instance's name (msdb `@@SERVERNAME`, `sysjobhistory.server`).
pub const INSTANCE: &str = "SQLPROD01";
/// The demo instance's zone: msdb times are its local wall clock (a zone with DST, on purpose).
pub const TIME_ZONE: &str = "America/New_York";
/// Days of history simulated before `now`.
pub const HISTORY_DAYS: i64 = 60;

/// The busiest poller: its history is trimmed to its latest runs.
pub const TRIMMED_JOB: &str = "Poll - Service Broker Queue Monitor";
/// The disabled job: history only up to when it was disabled.
pub const DISABLED_JOB: &str = "Legacy - FTP Export to Mainframe";
/// Fails once (forced) and is re-run by hand the same morning.
pub const RERUN_JOB: &str = "ETL - Nightly Warehouse Load";
/// Hourly, with runs long enough that the Agent skips the next slot.
pub const LONG_RUN_JOB: &str = "ETL - Hourly Orders Sync";
/// Its download step retries (transient SFTP errors).
pub const RETRY_JOB: &str = "ETL - Import Vendor Files";
/// Has no schedule: only ever started by hand.
pub const MANUAL_JOB: &str = "Refresh QA from Production";
/// Runs when the Agent starts (freq_type 64).
pub const STARTUP_JOB: &str = "Startup - Clear Temp Staging";

/// The instance-wide events of the demo, all derived from `now`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// The simulated history: the [`HISTORY_DAYS`] days before `now`.
    pub history: Window,
    /// The Agent was alive and started nothing on the instance: `[now - 9d, now - 7d)`.
    pub zombie: Window,
    /// The Agent service was down (stopped ~20 minutes, then started again at `agent_restart`).
    pub agent_down: Window,
    /// When the Agent started again (a `syssessions` row), 20 days before `now` at 11:15 local.
    pub agent_restart: DateTime<Utc>,
    /// The Agent start before the history began (the other `syssessions` row).
    pub first_agent_start: DateTime<Utc>,
    /// When [`DISABLED_JOB`] was disabled (35 days before `now`, 16:20 local).
    pub disabled_at: DateTime<Utc>,
}

/// The demo's events for `now` in the demo's zone.
pub fn scenario(now: DateTime<Utc>) -> Scenario {
    let tz = tz();
    let local_at = |days_ago: i64, h: u32, m: u32, s: u32| {
        let d = utc_to_local(now - Duration::days(days_ago), tz).date();
        local_to_utc(d.and_time(NaiveTime::from_hms_opt(h, m, s).expect("valid time")), tz)
    };
    let agent_restart = local_at(20, 11, 15, 7);
    Scenario {
        history: Window::ending_at(now, Duration::days(HISTORY_DAYS)),
        zombie: Window::new(now - Duration::days(9), now - Duration::days(7)),
        agent_down: Window::new(agent_restart - Duration::minutes(20), agent_restart),
        agent_restart,
        first_agent_start: local_at(97, 6, 2, 11),
        disabled_at: local_at(35, 16, 20, 0),
    }
}

fn tz() -> Tz {
    TIME_ZONE.parse().expect("the demo's zone is an IANA zone")
}

/// Every row the demo writes.
#[derive(Clone, Debug)]
pub struct Demo {
    pub meta: DemoMeta,
    pub scenario: Scenario,
    pub categories: Vec<CategoryRow>,
    pub jobs: Vec<JobRow>,
    pub steps: Vec<StepRow>,
    pub schedules: Vec<ScheduleRow>,
    pub job_schedules: Vec<JobScheduleRow>,
    /// Sorted by `instance_id`.
    pub history: Vec<HistoryRow>,
    pub sessions: Vec<SessionRow>,
    pub activity: Vec<ActivityRow>,
}
