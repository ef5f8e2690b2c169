//! The demo instance: about 40 jobs and 60 days of history simulated through the engine.
//!
//! One SQL Server Agent, [`INSTANCE`] in [`TIME_ZONE`], with the jobs a DBA would recognise
//! (Ola Hallengren-style backups, integrity checks and index maintenance, statistics, ETL
//! loads, reports, pollers, replication clean-ups, `syspolicy_purge_history`, a job that
//! starts with the Agent, a one-time job, a manual-only job, a disabled job). Every schedule is
//! a real `sysschedules` row; its occurrences over the history window come from
//! [`sundial_engine::forecast`], and each occurrence is then simulated: steps, durations per kind of
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
//! they share. The rest of the fleet: `eu` (SQLEU01), `pgagent` (pg-batch, pgAgent's tables) and
//! `tables` (the other schedulers' tables).
use crate::sources::msdb_rows::{
    ActivityRow, CategoryRow, DemoMeta, HistoryRow, JobRow, JobScheduleRow, LoginRow, ScheduleRow, SessionRow, StepRow,
    local_to_utc, utc_to_local,
};
use chrono::{DateTime, Duration, NaiveTime, Utc};
use chrono_tz::Tz;
use sundial_engine::Window;

mod catalog;
pub mod changes;
pub mod eu;
pub mod pgagent;
mod simulate;
pub mod tables;
pub mod write;

pub use simulate::simulate;
pub use write::{DemoSummary, write_demo};

/// Every instance of the demo fleet, in the order pages list them.
pub const FLEET: [&str; 10] = [
    INSTANCE,
    eu::INSTANCE,
    UNREACHABLE,
    PG_CRON_INSTANCE,
    PGAGENT_INSTANCE,
    EVENTS_INSTANCE,
    JOBACTIVITY_INSTANCE,
    JOB_TABLE_INSTANCE,
    SERVICE_BROKER_INSTANCE,
    PRIMENTRA_INSTANCE,
];
/// A SQL Server in Asia/Singapore whose file was never copied: configured, never readable.
pub const UNREACHABLE: &str = "SQLAPAC01";
/// pg_cron on PostgreSQL (`cron.timezone` Europe/Berlin).
pub const PG_CRON_INSTANCE: &str = "pg-analytics";
/// pgAgent on PostgreSQL (`TimeZone` America/New_York): its agent died for a night.
pub const PGAGENT_INSTANCE: &str = "pg-batch";
/// MariaDB's events, with the event scheduler switched off.
pub const EVENTS_INSTANCE: &str = "shop-mariadb";
/// The worker role's `jobactivity` table.
pub const JOBACTIVITY_INSTANCE: &str = "worker-jobs";
/// The MySQL stored-procedure runner's `job` table.
pub const JOB_TABLE_INSTANCE: &str = "job-runner";
/// The Service Broker scheduler.
pub const SERVICE_BROKER_INSTANCE: &str = "broker-sched";
/// Primentra's staging scheduler.
pub const PRIMENTRA_INSTANCE: &str = "primentra";
/// The instances whose kind keeps samples in Sundial's store (their samples are the demo's).
const SAMPLED: [&str; 3] = [PG_CRON_INSTANCE, EVENTS_INSTANCE, JOB_TABLE_INSTANCE];

/// The file of demo instance `name`: SQLPROD01's is `path` itself, every other sits beside it
/// as `{stem}.{name}.sqlite` (`demo.sqlite` → `demo.SQLEU01.sqlite`).
pub fn file_of(path: &std::path::Path, name: &str) -> std::path::PathBuf {
    if name == INSTANCE {
        return path.to_path_buf();
    }
    let stem = path.file_stem().map_or("sundial-demo".into(), |s| s.to_string_lossy());
    path.with_file_name(format!("{stem}.{name}.sqlite"))
}

/// Sundial's own store for the demo (triage's acknowledgements, the samples of the kinds that
/// keep them): beside the demo's files, not in the working directory.
pub fn store_of(path: &std::path::Path) -> std::path::PathBuf {
    path.with_file_name("sundial-store.sqlite")
}

/// The fleet file [`write_demo`] leaves beside the files (`{stem}.fleet.toml`): `sundial serve
/// --config` it with `--now` the demo's "now" to serve the same fleet.
pub fn fleet_file_of(path: &std::path::Path) -> std::path::PathBuf {
    let stem = path.file_stem().map_or("sundial-demo".into(), |s| s.to_string_lossy());
    path.with_file_name(format!("{stem}.fleet.toml"))
}

/// The demo fleet's configuration, as a fleet file: every instance of [`FLEET`] over its file
/// ([`file_of`]), Sundial's store beside them. The files are a snapshot: serve it as of the
/// demo's "now" (`FleetBackend::start_at`), as `sundial serve` does.
pub fn fleet_toml(path: &std::path::Path) -> String {
    let q = |s: &str| toml::Value::String(s.to_owned()).to_string();
    let file = |name: &str| q(&file_of(path, name).to_string_lossy());
    let instance = |name: &str, kind: &str, extra: &str| {
        format!(
            "\n[[instance]]\nname = {}\nkind = {}\npath = {}\npoll_interval = \"1h\"\n{extra}",
            q(name),
            q(kind),
            file(name)
        )
    };
    let mut text = format!(
        "# The built-in demo fleet (sundial demo): every file beside this one, as of the demo's \"now\".\n\
         store = {}\n",
        q(&store_of(path).to_string_lossy())
    );
    let demo = "tags = { environment = \"demo\" }\n";
    text.push_str(&instance(INSTANCE, "sqlite_demo", demo));
    text.push_str(&instance(eu::INSTANCE, "sqlite_demo", demo));
    text.push_str(&instance(
        UNREACHABLE,
        "sqlite_demo",
        "time_zone = \"Asia/Singapore\"\ntimeout = \"5s\"\ntags = { environment = \"demo\" }\n",
    ));
    text.push_str(&instance(PG_CRON_INSTANCE, "pg_cron", demo));
    text.push_str(&instance(PGAGENT_INSTANCE, "pgagent", demo));
    text.push_str(&instance(EVENTS_INSTANCE, "mysql_events", demo));
    let mut worker = format!("time_zone = \"UTC\"\n{demo}");
    worker.push_str(&format!(
        "[[instance.job]]\nname = {}\nschedule = {}\nstuck_after = \"2h\"\n",
        q(tables::RUNNING_LONG_JOB),
        q(tables::RUNNING_LONG_SCHEDULE)
    ));
    for (job, schedule) in tables::WORKER_JOBS {
        worker.push_str(&format!("[[instance.job]]\nname = {}\nschedule = {}\n", q(job), q(schedule)));
    }
    text.push_str(&instance(JOBACTIVITY_INSTANCE, "jobactivity", &worker));
    let utc = format!("time_zone = \"UTC\"\n{demo}");
    text.push_str(&instance(JOB_TABLE_INSTANCE, "mysql_job_table", &utc));
    text.push_str(&instance(SERVICE_BROKER_INSTANCE, "service_broker", &utc));
    text.push_str(&instance(PRIMENTRA_INSTANCE, "primentra", &utc));
    // A planned window the team agreed on: its nights are shaded on pg_cron's timelines, listed
    // on the triage page, and a run not made inside one would count as maintenance.
    text.push_str(&format!(
        "\n[[maintenance]]\nname = \"Sunday index maintenance\"\nreason = \"REINDEX and VACUUM FULL, agreed with the app team\"\n\
         every = \"Sunday 03:30-05:00\"\ntime_zone = {}\ninstances = [{}]\n",
        q(tables::PG_CRON_ZONE),
        q(PG_CRON_INSTANCE)
    ));
    text.push_str(&deadline_toml());
    text
}

/// The demo's deadline: finance needs SQLEU01's ledger loaded by 06:00 London time on
/// weekdays; its load has failed every night since Thursday, so Friday's deadline was missed
/// and nothing has succeeded since (a `deadline_missed` problem on triage).
pub const DEADLINE: &str = "Ledger ready for finance";

fn deadline_toml() -> String {
    let q = |s: &str| toml::Value::String(s.to_owned()).to_string();
    format!(
        "\n[[deadline]]\nname = {}\ninstances = [{}]\njobs = [{}]\nby = \"06:00\"\ndays = \"weekdays\"\ntime_zone = {}\n",
        q(DEADLINE),
        q(eu::INSTANCE),
        q(eu::NO_SUCCESS_JOB),
        q(eu::TIME_ZONE)
    )
}

/// The demo served as a fleet: [`fleet_toml`] parsed. Every instance is read as any configured
/// instance is (the files are a snapshot: serve them as of the demo's "now").
pub fn fleet(path: &std::path::Path) -> Result<crate::config::FleetConfig, Box<crate::config::ConfigError>> {
    crate::config::parse(&fleet_toml(path), "the built-in demo").map_err(Box::new)
}

/// Everything the fleet holds besides SQLPROD01, simulated.
pub struct Others {
    pub eu: Demo,
    /// Each table-based instance's file: its name and tables.
    pub tables: Vec<(&'static str, Vec<tables::Table>)>,
    /// MariaDB's `LAST_EXECUTED` samples, for Sundial's store.
    pub samples: Vec<tables::EventSamples>,
}

/// The fleet besides SQLPROD01 for `now` and `seed`: pure, reproducible.
pub fn others(now: DateTime<Utc>, seed: u64) -> Others {
    let (events, samples) = tables::mysql_events(now);
    Others {
        eu: eu::simulate(now, seed),
        tables: vec![
            (PG_CRON_INSTANCE, tables::pg_cron(now, seed)),
            (PGAGENT_INSTANCE, pgagent::pgagent(now, seed)),
            (EVENTS_INSTANCE, events),
            (JOBACTIVITY_INSTANCE, tables::jobactivity(now, seed)),
            (JOB_TABLE_INSTANCE, tables::job_table(now)),
            (SERVICE_BROKER_INSTANCE, tables::service_broker(now)),
            (PRIMENTRA_INSTANCE, tables::primentra(now, seed)),
        ],
        samples,
    }
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
    /// SQLPROD01's story ([`scenario`]); `None` for SQLEU01 (its story is in [`eu`]).
    pub scenario: Option<Scenario>,
    pub categories: Vec<CategoryRow>,
    /// Master's `sys.server_principals`: the logins that own jobs, by SID.
    pub logins: Vec<LoginRow>,
    pub jobs: Vec<JobRow>,
    pub steps: Vec<StepRow>,
    pub schedules: Vec<ScheduleRow>,
    pub job_schedules: Vec<JobScheduleRow>,
    /// Sorted by `instance_id`.
    pub history: Vec<HistoryRow>,
    pub sessions: Vec<SessionRow>,
    pub activity: Vec<ActivityRow>,
}
