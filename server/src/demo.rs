//! The demo instance: about 40 jobs and 60 days of history simulated through the engine.
//!
//! One SQL Server Agent, [`INSTANCE`] in [`TIME_ZONE`], with the jobs a DBA would recognise
//! (Ola Hallengren-style backups, integrity checks and index maintenance, statistics, ETL
//! loads, reports, pollers, replication clean-ups, `syspolicy_purge_history`, a job that
//! starts with the Agent, a one-time job, a manual-only job, a disabled job). Every schedule is
//! a real `sysschedules` row; its occurrences over the history window come from
//! [`engine::forecast`], and each occurrence is then simulated: steps, durations per kind of
//! work, failures, retries, long runs that make the Agent skip a slot, manual re-runs. On top,
//! the instance lives through what Sundial exists to show (see [`Scenario`]): an Agent restart
//! (the service was down ~20 minutes before it) and a two-day "zombie" span in which the Agent
//! was alive and started nothing at all. The busiest poller's history is trimmed to its last
//! [`msdb_sqlite::MAX_OUTCOME_ROWS_PER_JOB`] runs, as the Agent's per-job retention would.
//!
//! Everything is reproducible: the same `now` and seed give the same database. The SQL lives in
//! [`crate::sources::msdb_sqlite`]; this module only simulates.
use crate::sources::msdb_sqlite::{
    self, ActivityRow, CategoryRow, DemoMeta, HistoryRow, JobRow, JobScheduleRow, ScheduleRow, SessionRow, StepRow,
    date_int, encode_duration, local_to_utc, time_int, utc_to_local,
};
use app::engine::{self, AgentSchedule, Schedule, Window};
use chrono::{DateTime, Duration, NaiveDateTime, NaiveTime, Utc};
use chrono_tz::Tz;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

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

/// Who the manual runs were started by.
const DBA: &str = "DOMAIN\\dba";

/// What `write_demo` wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct DemoSummary {
    pub jobs: usize,
    pub history_rows: usize,
    pub path: PathBuf,
    pub now: DateTime<Utc>,
}

/// `demo instance SQLPROD01 (America/New_York): 41 jobs, 98765 history rows, now 2026-11-22T12:00:00Z, in /tmp/x.sqlite`
impl fmt::Display for DemoSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "demo instance {INSTANCE} ({TIME_ZONE}): {} jobs, {} history rows, now {}, in {}",
            self.jobs,
            self.history_rows,
            self.now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            self.path.display()
        )
    }
}

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

/// Simulate the demo for `now` and `seed` and write it to `path` (an older file there is
/// replaced; the file appears complete or not at all).
pub async fn write_demo(path: &Path, now: DateTime<Utc>, seed: u64) -> anyhow::Result<DemoSummary> {
    use anyhow::Context;
    // The simulation is CPU work (tens of thousands of occurrences): off the async threads.
    let demo = tokio::task::spawn_blocking(move || simulate(now, seed)).await.context("simulating the demo")?;
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    let pool = msdb_sqlite::create(&partial).await.context("creating the demo database")?;
    let written = async {
        msdb_sqlite::create_schema(&pool).await?;
        msdb_sqlite::insert_meta(&pool, &demo.meta, HISTORY_DAYS).await?;
        msdb_sqlite::insert_categories(&pool, &demo.categories).await?;
        msdb_sqlite::insert_jobs(&pool, &demo.jobs).await?;
        msdb_sqlite::insert_steps(&pool, &demo.steps).await?;
        msdb_sqlite::insert_schedules(&pool, &demo.schedules).await?;
        msdb_sqlite::insert_job_schedules(&pool, &demo.job_schedules).await?;
        msdb_sqlite::insert_history(&pool, &demo.history).await?;
        msdb_sqlite::insert_sessions(&pool, &demo.sessions).await?;
        msdb_sqlite::insert_activity(&pool, &demo.activity).await?;
        msdb_sqlite::finish(&pool).await
    }
    .await;
    pool.close().await;
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(e).context("writing the demo tables");
    }
    std::fs::rename(&partial, path).context("moving the finished demo database into place")?;
    Ok(DemoSummary { jobs: demo.jobs.len(), history_rows: demo.history.len(), path: path.to_path_buf(), now })
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

// ---------------------------------------------------------------------------------------------
// The catalog: what the instance runs.

/// The kinds of work, each with its durations and failure rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    LogBackup,
    FullBackup,
    DiffBackup,
    SystemBackup,
    CheckDb,
    CheckDbSystem,
    IndexOptimize,
    Statistics,
    Etl,
    EtlHourly,
    EtlFrequent,
    Report,
    Poller,
    Cleanup,
    PolicyPurge,
    Refresh,
    Startup,
}

impl Kind {
    /// Seconds a normal run takes (log backup 20-90 s, full backup 20-60 min, CHECKDB 1-3 h, ETL 5-40 min, …).
    fn seconds(self, rng: &mut SmallRng) -> i64 {
        let (lo, hi) = match self {
            Kind::LogBackup => (20, 90),
            Kind::FullBackup => (20 * 60, 60 * 60),
            Kind::DiffBackup => (4 * 60, 15 * 60),
            Kind::SystemBackup => (45, 180),
            Kind::CheckDb => (60 * 60, 3 * 60 * 60),
            Kind::CheckDbSystem => (20, 90),
            Kind::IndexOptimize => (15 * 60, 80 * 60),
            Kind::Statistics => (5 * 60, 25 * 60),
            Kind::Etl => (5 * 60, 40 * 60),
            Kind::EtlHourly => (5 * 60, 25 * 60),
            Kind::EtlFrequent => (30, 5 * 60),
            Kind::Report => (20, 7 * 60),
            Kind::Poller => (1, 6),
            Kind::Cleanup => (3, 60),
            Kind::PolicyPurge => (8, 40),
            Kind::Refresh => (40 * 60, 70 * 60),
            Kind::Startup => (2, 10),
        };
        rng.random_range(lo..=hi)
    }

    /// Chance that a run fails.
    fn failure_rate(self) -> f64 {
        match self {
            Kind::LogBackup | Kind::Poller => 0.002,
            Kind::FullBackup | Kind::DiffBackup | Kind::Report => 0.02,
            Kind::Etl | Kind::Statistics => 0.03,
            Kind::EtlHourly | Kind::EtlFrequent => 0.01,
            Kind::CheckDb | Kind::CheckDbSystem | Kind::Refresh | Kind::Startup => 0.0,
            _ => 0.005,
        }
    }
}

struct StepSpec {
    name: &'static str,
    subsystem: &'static str,
    command: &'static str,
    database: Option<&'static str>,
    /// Share of the run's time.
    share: f64,
    retry_attempts: i64,
}

/// How a job fails: at which step, with which SQL Server error.
struct Failure {
    step: usize,
    message_id: i64,
    severity: i64,
    text: &'static str,
}

/// A transient error a retrying step meets.
struct Retry {
    step: usize,
    rate: f64,
    text: &'static str,
}

struct JobSpec {
    name: &'static str,
    category: i64,
    description: &'static str,
    kind: Kind,
    run_as: &'static str,
    steps: Vec<StepSpec>,
    /// Indexes into the schedule list.
    schedules: Vec<usize>,
    failure: Failure,
    retry: Option<Retry>,
    enabled: bool,
}

struct ScheduleSpec {
    name: &'static str,
    schedule: AgentSchedule,
}

const AGENT: &str = "NT SERVICE\\SQLSERVERAGENT";
const ETL: &str = "DOMAIN\\svc_etl";
const REPORTS: &str = "DOMAIN\\svc_reports";

fn at_time(freq_type: i64, freq_interval: i64, recurrence: i64, hhmmss: i64) -> AgentSchedule {
    AgentSchedule {
        freq_type,
        freq_interval,
        freq_subday_type: 1,
        freq_recurrence_factor: recurrence,
        active_start_time: hhmmss,
        ..AgentSchedule::default()
    }
}
/// Every `days` days at `hhmmss` (freq_type 4).
fn daily(days: i64, hhmmss: i64) -> AgentSchedule {
    at_time(4, days, 0, hhmmss)
}
/// Daily, every `n` units (4 minutes, 8 hours) between `from` and `to` (freq_type 4).
fn daily_every(unit: i64, n: i64, from: i64, to: i64) -> AgentSchedule {
    AgentSchedule {
        freq_type: 4,
        freq_interval: 1,
        freq_subday_type: unit,
        freq_subday_interval: n,
        active_start_time: from,
        active_end_time: to,
        ..AgentSchedule::default()
    }
}
/// On the `days` bitmap (Sunday 1 … Saturday 64) every `weeks` weeks at `hhmmss` (freq_type 8).
fn weekly(days: i64, weeks: i64, hhmmss: i64) -> AgentSchedule {
    at_time(8, days, weeks, hhmmss)
}
/// On day `day` of every `months` months (freq_type 16).
fn monthly(day: i64, months: i64, hhmmss: i64) -> AgentSchedule {
    at_time(16, day, months, hhmmss)
}
/// On the `nth` (1, 2, 4, 8, 16 = last) `which` (1 Sunday … 7 Saturday, 8 day, 9 weekday,
/// 10 weekend day) of every `months` months (freq_type 32).
fn monthly_relative(which: i64, nth: i64, months: i64, hhmmss: i64) -> AgentSchedule {
    AgentSchedule { freq_relative_interval: nth, ..at_time(32, which, months, hhmmss) }
}
/// Once, at `active_start_date` (set later) and `hhmmss` (freq_type 1).
fn once(hhmmss: i64) -> AgentSchedule {
    AgentSchedule { freq_type: 1, active_start_time: hhmmss, ..AgentSchedule::default() }
}
/// Whenever the Agent starts (freq_type 64).
fn on_agent_start() -> AgentSchedule {
    AgentSchedule { freq_type: 64, ..AgentSchedule::default() }
}

const MINUTES: i64 = 4;
const HOURS: i64 = 8;
const WEEKDAYS: i64 = 2 | 4 | 8 | 16 | 32;
const SUNDAY: i64 = 1;
const MONDAY: i64 = 2;
const TUESDAY: i64 = 4;
const THURSDAY: i64 = 16;
const SATURDAY: i64 = 64;

fn step(
    name: &'static str,
    subsystem: &'static str,
    command: &'static str,
    database: Option<&'static str>,
    share: f64,
) -> StepSpec {
    StepSpec { name, subsystem, command, database, share, retry_attempts: 0 }
}
fn tsql(name: &'static str, command: &'static str, database: &'static str, share: f64) -> StepSpec {
    step(name, "TSQL", command, Some(database), share)
}

const BACKUP_DISK_FULL: Failure = Failure {
    step: 0,
    message_id: 3013,
    severity: 16,
    text: "Write on \"\\\\backup01\\sql\\SQLPROD01\\SalesDB\\SalesDB_backup.bak\" failed: 112(There is not enough space on the disk.) [SQLSTATE 42000] (Error 3202)  BACKUP DATABASE is terminating abnormally. [SQLSTATE 42000] (Error 3013).",
};
const DEADLOCK: Failure = Failure {
    step: 0,
    message_id: 1205,
    severity: 13,
    text: "Transaction (Process ID 87) was deadlocked on lock resources with another process and has been chosen as the deadlock victim. Rerun the transaction. [SQLSTATE 40001] (Error 1205).",
};
const LOCK_TIMEOUT: Failure = Failure {
    step: 0,
    message_id: 1222,
    severity: 16,
    text: "Lock request time out period exceeded. [SQLSTATE HY000] (Error 1222).",
};
const NO_FAILURE: Failure = Failure { step: 0, message_id: 0, severity: 0, text: "" };

/// The schedules (ids are index + 1) and the jobs.
fn catalog() -> (Vec<ScheduleSpec>, Vec<JobSpec>) {
    let mut schedules: Vec<ScheduleSpec> = Vec::new();
    let mut add = |name: &'static str, schedule: AgentSchedule| {
        schedules.push(ScheduleSpec { name, schedule });
        schedules.len() - 1
    };
    let s_daily_0000 = add("Daily - 00:00", daily(1, 0));
    let s_full_weekly = add("Weekly - Sunday 01:00", weekly(SUNDAY, 1, 10000));
    let s_full_monthly = add("Monthly - day 1 at 22:00 (month-start copy)", monthly(1, 1, 220000));
    let s_diff = add("Weekly - Monday to Saturday 01:00", weekly(WEEKDAYS | SATURDAY, 1, 10000));
    let s_log = add("Every 15 minutes", daily_every(MINUTES, 15, 0, 235959));
    let s_checkdb_sys = add("Weekly - Sunday 00:30", weekly(SUNDAY, 1, 3000));
    let s_checkdb = add("Weekly - Saturday 22:00", weekly(SATURDAY, 1, 220000));
    let s_index = add("Weekly - Sunday 03:00", weekly(SUNDAY, 1, 30000));
    let s_cleanup = add("Weekly - Sunday 00:00", weekly(SUNDAY, 1, 0));
    let s_policy = add("syspolicy_purge_history_schedule", daily(1, 20000));
    let s_stats_weeknights = add("Weeknights 23:30", weekly(WEEKDAYS, 1, 233000));
    let s_stats_sunday = add("Sunday 06:00", weekly(SUNDAY, 1, 60000));
    let s_stats_dw = add("Every 2 days at 04:30", daily(2, 43000));
    let s_ssis = add("SSISDB Scheduler", daily(1, 0));
    let s_cdc = add("CDC cleanup - daily 02:00", daily(1, 20000));
    let s_startup = add("Start automatically when SQL Server Agent starts", on_agent_start());
    let s_nightly = add("Nightly 02:30", daily(1, 23000));
    let s_hourly = add("Hourly", daily_every(HOURS, 1, 0, 235959));
    let s_customer = add("Daily 03:15", daily(1, 31500));
    let s_vendor = add(
        "Weekdays every 30 minutes 07:00-19:00",
        AgentSchedule {
            freq_subday_type: MINUTES,
            freq_subday_interval: 30,
            active_end_time: 190000,
            ..weekly(WEEKDAYS, 1, 70000)
        },
    );
    let s_rates = add("Every 4 hours from 01:00", daily_every(HOURS, 4, 10000, 235959));
    let s_gl = add("Last weekday of the month 21:00", monthly_relative(9, 16, 1, 210000));
    let s_backfill = add("Once - backfill", once(143000));
    let s_legacy = add("Daily 05:30", daily(1, 53000));
    let s_sales = add("Daily 06:00", daily(1, 60000));
    let s_inventory = add("Weekly - Monday 07:00", weekly(MONDAY, 1, 70000));
    let s_inventory_old =
        add("Weekly - Tuesday 07:00 (old)", AgentSchedule { enabled: 0, ..weekly(TUESDAY, 1, 70000) });
    let s_payroll = add("Every other Thursday 08:00", weekly(THURSDAY, 2, 80000));
    let s_close = add("Monthly - day 1 at 05:00", monthly(1, 1, 50000));
    let s_board = add("Last Friday of the month 18:00", monthly_relative(6, 16, 1, 180000));
    let s_kpi = add("First Monday of the month 07:30", monthly_relative(2, 1, 1, 73000));
    let s_quarterly = add("Quarterly - day 15 at 09:00", monthly(15, 3, 90000));
    let s_every_minute = add("Every minute", daily_every(MINUTES, 1, 0, 235959));
    let s_every_15 = add("Every 15 minutes (monitoring)", daily_every(MINUTES, 15, 0, 235959));
    let s_every_30 = add("Every 30 minutes", daily_every(MINUTES, 30, 0, 235959));
    let s_office_hours = add("Hourly 08:00-18:00", daily_every(HOURS, 1, 80000, 180000));
    let s_repl_10 = add("Replication agents schedule - every 10 minutes", daily_every(MINUTES, 10, 0, 235959));
    let s_subscriptions = add("Expired subscription clean up - daily 01:00", daily(1, 10000));

    let backup_step = |name: &'static str, cmd: &'static str| vec![tsql(name, cmd, "master", 1.0)];
    let jobs = vec![
        JobSpec {
            name: "DatabaseBackup - SYSTEM_DATABASES - FULL",
            category: 3,
            description: "Source: https://ola.hallengren.com",
            kind: Kind::SystemBackup,
            run_as: AGENT,
            steps: backup_step(
                "DatabaseBackup - SYSTEM_DATABASES - FULL",
                "EXECUTE dbo.DatabaseBackup @Databases = 'SYSTEM_DATABASES', @BackupType = 'FULL', @Verify = 'Y', @CheckSum = 'Y'",
            ),
            schedules: vec![s_daily_0000],
            failure: BACKUP_DISK_FULL,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "DatabaseBackup - USER_DATABASES - FULL",
            category: 3,
            description: "Source: https://ola.hallengren.com",
            kind: Kind::FullBackup,
            run_as: AGENT,
            steps: backup_step(
                "DatabaseBackup - USER_DATABASES - FULL",
                "EXECUTE dbo.DatabaseBackup @Databases = 'USER_DATABASES', @BackupType = 'FULL', @Verify = 'Y', @CheckSum = 'Y', @CleanupTime = 336",
            ),
            schedules: vec![s_full_weekly, s_full_monthly],
            failure: BACKUP_DISK_FULL,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "DatabaseBackup - USER_DATABASES - DIFF",
            category: 3,
            description: "Source: https://ola.hallengren.com",
            kind: Kind::DiffBackup,
            run_as: AGENT,
            steps: backup_step(
                "DatabaseBackup - USER_DATABASES - DIFF",
                "EXECUTE dbo.DatabaseBackup @Databases = 'USER_DATABASES', @BackupType = 'DIFF', @Verify = 'Y', @CheckSum = 'Y'",
            ),
            schedules: vec![s_diff],
            failure: BACKUP_DISK_FULL,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "DatabaseBackup - USER_DATABASES - LOG",
            category: 3,
            description: "Source: https://ola.hallengren.com",
            kind: Kind::LogBackup,
            run_as: AGENT,
            steps: backup_step(
                "DatabaseBackup - USER_DATABASES - LOG",
                "EXECUTE dbo.DatabaseBackup @Databases = 'USER_DATABASES', @BackupType = 'LOG', @CheckSum = 'Y'",
            ),
            schedules: vec![s_log],
            failure: Failure {
                step: 0,
                message_id: 3013,
                severity: 16,
                text: "Write on \"\\\\backup01\\sql\\SQLPROD01\\SalesDB\\LOG\\SalesDB_LOG.trn\" failed: 112(There is not enough space on the disk.) [SQLSTATE 42000] (Error 3202)  BACKUP LOG is terminating abnormally. [SQLSTATE 42000] (Error 3013).",
            },
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "DatabaseIntegrityCheck - SYSTEM_DATABASES",
            category: 3,
            description: "Source: https://ola.hallengren.com",
            kind: Kind::CheckDbSystem,
            run_as: AGENT,
            steps: vec![tsql(
                "DatabaseIntegrityCheck - SYSTEM_DATABASES",
                "EXECUTE dbo.DatabaseIntegrityCheck @Databases = 'SYSTEM_DATABASES', @CheckCommands = 'CHECKDB'",
                "master",
                1.0,
            )],
            schedules: vec![s_checkdb_sys],
            failure: NO_FAILURE,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "DatabaseIntegrityCheck - USER_DATABASES",
            category: 3,
            description: "Source: https://ola.hallengren.com",
            kind: Kind::CheckDb,
            run_as: AGENT,
            steps: vec![tsql(
                "DatabaseIntegrityCheck - USER_DATABASES",
                "EXECUTE dbo.DatabaseIntegrityCheck @Databases = 'USER_DATABASES', @CheckCommands = 'CHECKDB'",
                "master",
                1.0,
            )],
            schedules: vec![s_checkdb],
            failure: NO_FAILURE,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "IndexOptimize - USER_DATABASES",
            category: 3,
            description: "Source: https://ola.hallengren.com",
            kind: Kind::IndexOptimize,
            run_as: AGENT,
            steps: vec![tsql(
                "IndexOptimize - USER_DATABASES",
                "EXECUTE dbo.IndexOptimize @Databases = 'USER_DATABASES', @FragmentationLevel1 = 5, @FragmentationLevel2 = 30, @UpdateStatistics = 'ALL'",
                "master",
                1.0,
            )],
            schedules: vec![s_index],
            failure: DEADLOCK,
            retry: None,
            enabled: true,
        },
        cleanup_job(
            "CommandLog Cleanup",
            "DELETE FROM dbo.CommandLog WHERE StartTime < DATEADD(dd, -30, GETDATE())",
            s_cleanup,
        ),
        cleanup_job(
            "Output File Cleanup",
            "cmd /q /c \"For /F \"tokens=1 delims=\" %v In ('ForFiles /P \"$(ESCAPE_SQUOTE(SQLLOGDIR))\" /m *_*_*_*.txt /d -30 2^>^&1') do if EXIST \"$(ESCAPE_SQUOTE(SQLLOGDIR))\"\\%v echo del \"$(ESCAPE_SQUOTE(SQLLOGDIR))\"\\%v& del \"$(ESCAPE_SQUOTE(SQLLOGDIR))\"\\%v\"",
            s_cleanup,
        ),
        cleanup_job(
            "sp_delete_backuphistory",
            "DECLARE @CleanupDate datetime = DATEADD(dd, -30, GETDATE()); EXECUTE dbo.sp_delete_backuphistory @oldest_date = @CleanupDate",
            s_cleanup,
        ),
        cleanup_job(
            "sp_purge_jobhistory",
            "DECLARE @CleanupDate datetime = DATEADD(dd, -60, GETDATE()); EXECUTE dbo.sp_purge_jobhistory @oldest_date = @CleanupDate",
            s_cleanup,
        ),
        JobSpec {
            name: "syspolicy_purge_history",
            category: 0,
            description: "No description available.",
            kind: Kind::PolicyPurge,
            run_as: AGENT,
            steps: vec![
                tsql(
                    "Verify that automation is enabled.",
                    "IF (msdb.dbo.fn_syspolicy_is_automation_enabled() != 1) BEGIN RAISERROR(34022, 16, 1) END",
                    "master",
                    0.1,
                ),
                tsql("Purge history.", "EXEC msdb.dbo.sp_syspolicy_purge_history", "msdb", 0.6),
                step(
                    "Erase Phantom System Health Records.",
                    "PowerShell",
                    "if ('$(ESCAPE_SQUOTE(INST))' -eq 'MSSQLSERVER') {$a = '\\DEFAULT'} ELSE {$a = ''}; (Get-Item SQLSERVER:\\SQLPolicy\\$(ESCAPE_NONE(SRVR))$a).EraseSystemHealthPhantomRecords()",
                    None,
                    0.3,
                ),
            ],
            schedules: vec![s_policy],
            failure: NO_FAILURE,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "Update Statistics - SalesDB",
            category: 3,
            description: "Full-scan statistics on the hot Sales tables; weeknights plus a Sunday pass.",
            kind: Kind::Statistics,
            run_as: AGENT,
            steps: vec![tsql(
                "Update statistics",
                "EXEC dbo.usp_UpdateStatistics @Database = N'SalesDB', @Sample = N'FULLSCAN'",
                "SalesDB",
                1.0,
            )],
            schedules: vec![s_stats_weeknights, s_stats_sunday],
            failure: DEADLOCK,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "Update Statistics - WarehouseDB",
            category: 3,
            description: "Sampled statistics on the warehouse, every other day.",
            kind: Kind::Statistics,
            run_as: AGENT,
            steps: vec![tsql("Update statistics", "EXEC sp_updatestats", "WarehouseDB", 1.0)],
            schedules: vec![s_stats_dw],
            failure: DEADLOCK,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "SSIS Server Maintenance Job",
            category: 0,
            description: "Runs every day. The job removes operation records from the database that are outside the retention window and maintains a maximum number of versions per project.",
            kind: Kind::Cleanup,
            run_as: "##MS_SSISServerCleanupJobLogin##",
            steps: vec![
                tsql(
                    "SSIS Server Operation Records Maintenance",
                    "EXEC [internal].[cleanup_server_retention_window_exclusive]",
                    "SSISDB",
                    0.7,
                ),
                tsql(
                    "SSIS Server Max Version Per Project Maintenance",
                    "EXEC [internal].[cleanup_server_project_version]",
                    "SSISDB",
                    0.3,
                ),
            ],
            schedules: vec![s_ssis],
            failure: NO_FAILURE,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "cdc.SalesDB_cleanup",
            category: 16,
            description: "CDC cleanup job for SalesDB.",
            kind: Kind::Cleanup,
            run_as: AGENT,
            steps: vec![tsql("Change Data Capture Cleanup Agent", "sys.sp_MScdc_cleanup_job", "SalesDB", 1.0)],
            schedules: vec![s_cdc],
            failure: LOCK_TIMEOUT,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: STARTUP_JOB,
            category: 0,
            description: "Empties the staging schema after a restart of the service.",
            kind: Kind::Startup,
            run_as: AGENT,
            steps: vec![tsql("Truncate staging tables", "EXEC staging.usp_TruncateAll", "WarehouseDB", 1.0)],
            schedules: vec![s_startup],
            failure: NO_FAILURE,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: RERUN_JOB,
            category: 100,
            description: "Extracts yesterday's sales, loads the fact tables, processes the cube.",
            kind: Kind::Etl,
            run_as: ETL,
            steps: vec![
                step(
                    "Extract from SalesDB",
                    "SSIS",
                    "/ISSERVER \"\\\"\\SSISDB\\Warehouse\\Nightly\\Extract.dtsx\\\"\" /SERVER SQLPROD01",
                    None,
                    0.35,
                ),
                tsql("Load fact tables", "EXEC etl.usp_LoadFacts", "WarehouseDB", 0.45),
                step(
                    "Process cube",
                    "ANALYSISCOMMAND",
                    "<Process xmlns=\"http://schemas.microsoft.com/analysisservices/2003/engine\"><Type>ProcessFull</Type></Process>",
                    None,
                    0.2,
                ),
            ],
            schedules: vec![s_nightly],
            failure: Failure {
                step: 1,
                message_id: 2627,
                severity: 14,
                text: "Violation of PRIMARY KEY constraint 'PK_FactSales'. Cannot insert duplicate key in object 'dbo.FactSales'. The duplicate key value is (20240114, 4411). [SQLSTATE 23000] (Error 2627)  The statement has been terminated. [SQLSTATE 01000] (Error 3621).",
            },
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: LONG_RUN_JOB,
            category: 100,
            description: "Pulls new and changed orders from the web shop every hour.",
            kind: Kind::EtlHourly,
            run_as: ETL,
            steps: vec![
                tsql("Stage changed orders", "EXEC etl.usp_StageOrders @Since = NULL", "WarehouseDB", 0.6),
                tsql("Merge into FactOrders", "EXEC etl.usp_MergeOrders", "WarehouseDB", 0.4),
            ],
            schedules: vec![s_hourly],
            failure: Failure { step: 1, ..DEADLOCK },
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "ETL - Load Customer Dimension",
            category: 100,
            description: "Type 2 changes to DimCustomer from the CRM.",
            kind: Kind::Etl,
            run_as: ETL,
            steps: vec![step(
                "Load DimCustomer",
                "SSIS",
                "/ISSERVER \"\\\"\\SSISDB\\Warehouse\\Dimensions\\DimCustomer.dtsx\\\"\" /SERVER SQLPROD01",
                None,
                1.0,
            )],
            schedules: vec![s_customer],
            failure: Failure {
                step: 0,
                message_id: 0,
                severity: 0,
                text: "Microsoft (R) SQL Server Execute Package Utility  Version 16.0.1000.6 for 64-bit  Started: 3:15:00 AM  Error: 2024-01-14 03:21:07.33  Code: 0xC0202009  Source: DimCustomer OLE DB Destination [2]  Description: SSIS Error Code DTS_E_OLEDBERROR.  An OLE DB error has occurred. Error code: 0x80004005.  End Error  DTExec: The package execution returned DTSER_FAILURE (1).",
            },
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: RETRY_JOB,
            category: 100,
            description: "Downloads vendor price files from SFTP and imports them. The download retries on transient errors.",
            kind: Kind::EtlFrequent,
            run_as: ETL,
            steps: vec![
                StepSpec {
                    retry_attempts: 3,
                    ..step("Download from SFTP", "CmdExec", "C:\\Jobs\\sftp-pull.cmd vendor-prices", None, 0.4)
                },
                tsql("Import price files", "EXEC etl.usp_ImportVendorPrices", "WarehouseDB", 0.6),
            ],
            schedules: vec![s_vendor],
            failure: Failure {
                step: 1,
                message_id: 4864,
                severity: 16,
                text: "Bulk load data conversion error (type mismatch or invalid character for the specified codepage) for row 2, column 3 (UnitPrice). [SQLSTATE 42000] (Error 4864).",
            },
            retry: Some(Retry {
                step: 0,
                rate: 0.05,
                text: "Connection to sftp.vendor.example:22 timed out after 30 seconds.  Process Exit Code 1.",
            }),
            enabled: true,
        },
        JobSpec {
            name: "ETL - Currency Rates",
            category: 100,
            description: "ECB reference rates into dbo.CurrencyRate.",
            kind: Kind::EtlFrequent,
            run_as: ETL,
            steps: vec![tsql("Load rates", "EXEC etl.usp_LoadCurrencyRates", "WarehouseDB", 1.0)],
            schedules: vec![s_rates],
            failure: LOCK_TIMEOUT,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "ETL - Month-End GL Extract",
            category: 100,
            description: "General-ledger extract for finance, last weekday of the month.",
            kind: Kind::Etl,
            run_as: ETL,
            steps: vec![tsql("Extract GL", "EXEC finance.usp_ExtractGL @Period = NULL", "FinanceDB", 1.0)],
            schedules: vec![s_gl],
            failure: DEADLOCK,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "ETL - Backfill Partner Orders (one-off)",
            category: 100,
            description: "One-time backfill of partner orders after the feed outage.",
            kind: Kind::Etl,
            run_as: ETL,
            steps: vec![tsql("Backfill", "EXEC etl.usp_BackfillPartnerOrders @From = '20240101'", "WarehouseDB", 1.0)],
            schedules: vec![s_backfill],
            failure: NO_FAILURE,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: DISABLED_JOB,
            category: 100,
            description: "Nightly flat-file export for the mainframe. Disabled: the mainframe was retired.",
            kind: Kind::EtlFrequent,
            run_as: ETL,
            steps: vec![
                tsql("Write export file", "EXEC etl.usp_ExportMainframe", "WarehouseDB", 0.7),
                step("FTP to mainframe", "CmdExec", "C:\\Jobs\\ftp-put.cmd mainframe", None, 0.3),
            ],
            schedules: vec![s_legacy],
            failure: LOCK_TIMEOUT,
            retry: None,
            enabled: false,
        },
        report_job(
            "Report - Daily Sales Summary",
            "Yesterday's sales by region, mailed to the sales leads.",
            vec![s_sales],
        ),
        report_job(
            "Report - Weekly Inventory",
            "Stock levels per warehouse, Monday mornings (the old Tuesday run is kept, disabled).",
            vec![s_inventory, s_inventory_old],
        ),
        report_job(
            "Report - Fortnightly Payroll Reconciliation",
            "Payroll against HR, every other Thursday.",
            vec![s_payroll],
        ),
        report_job("Report - Month-End Close", "Month-end close pack for finance.", vec![s_close]),
        report_job("Report - Board Pack (last Friday)", "Board pack, last Friday of the month.", vec![s_board]),
        report_job("Report - KPI Deck (first Monday)", "KPI deck, first Monday of the month.", vec![s_kpi]),
        report_job("Report - Quarterly Compliance", "Quarterly compliance extract.", vec![s_quarterly]),
        poller_job(
            TRIMMED_JOB,
            "Checks the order queue's Service Broker activation every minute.",
            "EXEC dbo.usp_CheckQueueActivation @Queue = N'OrderQueue'",
            s_every_minute,
        ),
        poller_job(
            "Poll - Replication Latency",
            "Posts a tracer token and records latency.",
            "EXEC dbo.usp_ReplicationLatency @Publication = N'SalesPub'",
            s_every_15,
        ),
        poller_job(
            "Poll - Blocking Monitor",
            "Logs blocking chains longer than 30 seconds.",
            "EXEC dbo.usp_LogBlocking @MinWaitSeconds = 30",
            s_every_15,
        ),
        poller_job(
            "Alert - Disk Space Check",
            "Mails the DBAs when a volume is below 10% free.",
            "EXEC dbo.usp_CheckDiskSpace @MinFreePercent = 10",
            s_every_30,
        ),
        poller_job(
            "Alert - Failed Logins Summary",
            "Hourly summary of failed logins, office hours.",
            "EXEC dbo.usp_FailedLogins @Hours = 1",
            s_office_hours,
        ),
        JobSpec {
            name: "Distribution clean up: distribution",
            category: 11,
            description: "Removes replicated transactions from the distribution database.",
            kind: Kind::Cleanup,
            run_as: AGENT,
            steps: vec![tsql(
                "Run agent.",
                "EXEC dbo.sp_MSdistribution_cleanup @min_distretention = 0, @max_distretention = 72",
                "distribution",
                1.0,
            )],
            schedules: vec![s_repl_10],
            failure: LOCK_TIMEOUT,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "Agent history clean up: distribution",
            category: 12,
            description: "Removes replication agent history from the distribution database.",
            kind: Kind::Cleanup,
            run_as: AGENT,
            steps: vec![tsql(
                "Run agent.",
                "EXEC dbo.sp_MShistory_cleanup @history_retention = 48",
                "distribution",
                1.0,
            )],
            schedules: vec![s_repl_10],
            failure: LOCK_TIMEOUT,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: "Expired subscription clean up",
            category: 17,
            description: "Detects and removes expired subscriptions from published databases.",
            kind: Kind::Cleanup,
            run_as: AGENT,
            steps: vec![tsql("Run agent.", "EXEC sys.sp_expired_subscription_cleanup", "master", 1.0)],
            schedules: vec![s_subscriptions],
            failure: NO_FAILURE,
            retry: None,
            enabled: true,
        },
        JobSpec {
            name: MANUAL_JOB,
            category: 0,
            description: "Restores last night's SalesDB backup onto QA. Run by hand when QA asks.",
            kind: Kind::Refresh,
            run_as: AGENT,
            steps: vec![
                tsql("Restore SalesDB to QA", "EXEC dbo.usp_RestoreToQA @Database = N'SalesDB'", "master", 0.9),
                tsql("Re-map QA users", "EXEC dbo.usp_FixQAUsers", "SalesDB_QA", 0.1),
            ],
            schedules: vec![],
            failure: NO_FAILURE,
            retry: None,
            enabled: true,
        },
    ];
    (schedules, jobs)
}

fn cleanup_job(name: &'static str, command: &'static str, schedule: usize) -> JobSpec {
    let subsystem = if command.starts_with("cmd ") { "CmdExec" } else { "TSQL" };
    JobSpec {
        name,
        category: 3,
        description: "Source: https://ola.hallengren.com",
        kind: Kind::Cleanup,
        run_as: AGENT,
        steps: vec![step(name, subsystem, command, (subsystem == "TSQL").then_some("msdb"), 1.0)],
        schedules: vec![schedule],
        failure: LOCK_TIMEOUT,
        retry: None,
        enabled: true,
    }
}

fn report_job(name: &'static str, description: &'static str, schedules: Vec<usize>) -> JobSpec {
    JobSpec {
        name,
        category: 101,
        description,
        kind: Kind::Report,
        run_as: REPORTS,
        steps: vec![
            tsql("Build report", "EXEC rpt.usp_Build @Report = NULL", "ReportingDB", 0.8),
            tsql(
                "Mail report",
                "EXEC msdb.dbo.sp_send_dbmail @profile_name = N'Reports', @recipients = N'reports@example.com', @query = N'EXEC rpt.usp_Output'",
                "ReportingDB",
                0.2,
            ),
        ],
        schedules,
        failure: Failure {
            step: 1,
            message_id: 14641,
            severity: 16,
            text: "Mail not queued. Database Mail is stopped. Use sysmail_start_sp to start Database Mail. [SQLSTATE 42000] (Error 14641).",
        },
        retry: None,
        enabled: true,
    }
}

fn poller_job(name: &'static str, description: &'static str, command: &'static str, schedule: usize) -> JobSpec {
    JobSpec {
        name,
        category: 102,
        description,
        kind: Kind::Poller,
        run_as: AGENT,
        steps: vec![tsql("Check", command, "DBA", 1.0)],
        schedules: vec![schedule],
        failure: LOCK_TIMEOUT,
        retry: None,
        enabled: true,
    }
}

fn categories() -> Vec<CategoryRow> {
    [
        (0, "[Uncategorized (Local)]"),
        (3, "Database Maintenance"),
        (10, "REPL-Distribution"),
        (11, "REPL-Distribution Cleanup"),
        (12, "REPL-History Cleanup"),
        (13, "REPL-LogReader"),
        (16, "REPL-Checkup"),
        (17, "REPL-Subscription Cleanup"),
        (100, "ETL"),
        (101, "Reporting"),
        (102, "Monitoring"),
    ]
    .into_iter()
    .map(|(category_id, name)| CategoryRow { category_id, name: name.into() })
    .collect()
}

// ---------------------------------------------------------------------------------------------
// The simulation

/// What one occurrence or manual start turns into.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Plan {
    Normal,
    Fail,
    Retry,
    /// A run of this many seconds (long enough to make the Agent skip a slot).
    Long(i64),
}

/// Why a run started.
#[derive(Clone, Debug)]
enum Cause {
    Schedule { id: i64, name: &'static str },
    User,
}

impl Cause {
    fn invoked_by(&self) -> String {
        match self {
            Cause::Schedule { id, name } => format!("Schedule {id} ({name})"),
            Cause::User => format!("User {DBA}"),
        }
    }
}

struct Event {
    at: DateTime<Utc>,
    cause: Cause,
    plan: Option<Plan>,
}

/// One step attempt.
struct Exec {
    step_id: i64,
    name: &'static str,
    start: DateTime<Utc>,
    secs: i64,
    status: i64,
    retries: i64,
    message_id: i64,
    severity: i64,
    message: String,
}

impl Exec {
    fn end(&self) -> DateTime<Utc> {
        self.start + Duration::seconds(self.secs)
    }
}

/// One run, for `sysjobactivity`.
struct SimRun {
    job: usize,
    session: i64,
    requested: DateTime<Utc>,
    source: &'static str,
    start: DateTime<Utc>,
    last_step: Option<(i64, DateTime<Utc>)>,
    stop: Option<DateTime<Utc>>,
    /// Index into the pending rows of its outcome row.
    outcome_row: Option<usize>,
}

/// A history row before `instance_id`s are given (in the order the Agent writes them).
struct Pending {
    written: DateTime<Utc>,
    job: usize,
    run: usize,
    seq: usize,
    row: HistoryRow,
}

fn guid(rng: &mut SmallRng) -> String {
    // Version 4 (random) in the third group, variant 10xx in the fourth, as NEWID() makes them.
    let v: u128 = rng.random::<u128>();
    let v = (v & !(0xF_u128 << 76)) | (0x4_u128 << 76);
    let v = (v & !(0xC_u128 << 60)) | (0x8_u128 << 60);
    let h = format!("{v:032X}");
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}

fn windows_sid(rng: &mut SmallRng) -> Vec<u8> {
    let mut sid = vec![1, 5, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0];
    sid.extend((0..16).map(|_| rng.random::<u8>()));
    sid
}

fn step_success(run_as: &str, subsystem: &str) -> String {
    match subsystem {
        "CmdExec" => format!("Executed as user: {run_as}. Process Exit Code 0.  The step succeeded."),
        "SSIS" => format!(
            "Executed as user: {run_as}. DTExec: The package execution returned DTSER_SUCCESS (0).  The step succeeded."
        ),
        _ => format!("Executed as user: {run_as}. The step succeeded."),
    }
}

/// Simulate the demo: pure, reproducible from `now` and `seed`.
pub fn simulate(now: DateTime<Utc>, seed: u64) -> Demo {
    let tz = tz();
    let scenario = scenario(now);
    let (schedule_specs, job_specs) = catalog();
    // Identities come from their own stream, so they do not move when the simulation changes.
    let mut ids = SmallRng::seed_from_u64(seed ^ 0x05EE_D1D5);
    let mut rng = SmallRng::seed_from_u64(seed);
    let local = |t: DateTime<Utc>| utc_to_local(t, tz);
    let local_day = |days_ago: i64, hhmmss: i64| {
        let d = local(now - Duration::days(days_ago)).date();
        local_to_utc(d.and_time(msdb_sqlite::parse_time_int(hhmmss).expect("valid time")), tz)
    };
    let sa = vec![1_u8];
    let dba_sid = windows_sid(&mut ids);

    // Jobs: identities and creation dates.
    let backfill_at = local_day(16, 143000);
    let mut jobs: Vec<JobRow> = Vec::new();
    for spec in &job_specs {
        let job_id = guid(&mut ids);
        let created = if spec.name.contains("one-off") {
            local(backfill_at - Duration::hours(3) - Duration::minutes(17))
        } else {
            local(now - Duration::days(ids.random_range(300..1500)) - Duration::seconds(ids.random_range(0..86400)))
        };
        let modified = if spec.enabled {
            created + Duration::minutes(ids.random_range(1..600))
        } else {
            local(scenario.disabled_at)
        };
        jobs.push(JobRow {
            job_id,
            name: spec.name.into(),
            enabled: spec.enabled,
            description: spec.description.into(),
            category_id: spec.category,
            owner_sid: if spec.category == 3 || spec.category == 0 { sa.clone() } else { dba_sid.clone() },
            notify_level_email: if spec.kind == Kind::Poller { 0 } else { 2 },
            date_created: created,
            date_modified: modified,
            version_number: if spec.enabled { 1 + ids.random_range(0..5) } else { 7 },
        });
    }

    // Schedules: start dates at their creation (the one-off: its day).
    let schedules: Vec<ScheduleRow> = schedule_specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let created = if spec.schedule.freq_type == 1 {
                local(backfill_at - Duration::hours(3) - Duration::minutes(17))
            } else {
                local(now - Duration::days(1500 + 3 * i as i64))
            };
            let mut schedule = spec.schedule.clone();
            schedule.active_start_date = if spec.schedule.freq_type == 1 {
                date_int(local(backfill_at).date())
            } else {
                date_int(created.date())
            };
            ScheduleRow {
                schedule_id: i as i64 + 1,
                schedule_uid: guid(&mut ids),
                name: spec.name.into(),
                owner_sid: sa.clone(),
                schedule,
                date_created: created,
            }
        })
        .collect();

    // Steps.
    let mut steps = Vec::new();
    for (j, spec) in job_specs.iter().enumerate() {
        let n = spec.steps.len();
        for (k, s) in spec.steps.iter().enumerate() {
            steps.push(StepRow {
                job_id: jobs[j].job_id.clone(),
                step_id: k as i64 + 1,
                step_name: s.name.into(),
                subsystem: s.subsystem.into(),
                command: s.command.into(),
                database_name: s.database.map(Into::into),
                on_success_action: if k + 1 == n { 1 } else { 3 },
                on_fail_action: 2,
                retry_attempts: s.retry_attempts,
                retry_interval: if s.retry_attempts > 0 { 1 } else { 0 },
            });
        }
    }

    // The forced events that make the story, by job name: (target instant, plan).
    let forced: HashMap<&str, Vec<(DateTime<Utc>, Plan)>> = HashMap::from([
        (RERUN_JOB, vec![(now - Duration::days(12), Plan::Fail)]),
        (
            LONG_RUN_JOB,
            vec![(now - Duration::days(4), Plan::Long(95 * 60)), (now - Duration::days(23), Plan::Long(80 * 60))],
        ),
        (RETRY_JOB, vec![(now - Duration::days(5), Plan::Retry)]),
        ("DatabaseBackup - USER_DATABASES - LOG", vec![(now - Duration::days(15), Plan::Fail)]),
        ("Report - Daily Sales Summary", vec![(now - Duration::days(3), Plan::Fail)]),
    ]);

    let mut pending: Vec<Pending> = Vec::new();
    let mut runs: Vec<SimRun> = Vec::new();
    let window = scenario.history;
    for (j, spec) in job_specs.iter().enumerate() {
        // Occurrences from the engine, one forecast per enabled schedule.
        let mut events: Vec<Event> = Vec::new();
        for &s in &spec.schedules {
            let row = &schedules[s];
            if row.schedule.enabled == 0 {
                continue;
            }
            let cause = || Cause::Schedule { id: row.schedule_id, name: schedule_specs[s].name };
            if row.schedule.freq_type == 64 {
                for start in [scenario.first_agent_start, scenario.agent_restart] {
                    if window.contains(start) {
                        events.push(Event { at: start + Duration::seconds(4), cause: cause(), plan: None });
                    }
                }
                continue;
            }
            let f = engine::forecast(row.schedule_id, &Schedule::Agent(row.schedule.clone()), tz.into(), window);
            events.extend(f.occurrences.iter().map(|o| Event { at: o.at, cause: cause(), plan: None }));
        }
        events.sort_by_key(|e| e.at);
        for &(target, plan) in forced.get(spec.name).map(Vec::as_slice).unwrap_or(&[]) {
            let i = events.partition_point(|e| e.at < target);
            // Not inside the zombie span or the Agent's downtime: the event must happen.
            let i = (i..events.len())
                .find(|&i| !scenario.zombie.contains(events[i].at) && !scenario.agent_down.contains(events[i].at));
            if let Some(i) = i {
                events[i].plan = Some(plan);
                if spec.name == RERUN_JOB && plan == Plan::Fail {
                    // The DBA re-runs it by hand when they get in.
                    let at = events[i].at + Duration::hours(6) + Duration::minutes(13) + Duration::seconds(41);
                    events.push(Event { at, cause: Cause::User, plan: Some(Plan::Normal) });
                }
            }
        }
        if spec.name == MANUAL_JOB {
            for (days_ago, hhmmss) in [(41, 101522), (27, 150509), (13, 94012), (3, 172033)] {
                events.push(Event { at: local_day(days_ago, hhmmss), cause: Cause::User, plan: Some(Plan::Normal) });
            }
        }
        events.sort_by_key(|e| e.at);

        let disabled_at = (!spec.enabled).then_some(scenario.disabled_at);
        let mut busy_until = DateTime::<Utc>::MIN_UTC;
        for e in &events {
            if e.at >= now || !window.contains(e.at) {
                continue;
            }
            if scenario.zombie.contains(e.at) || scenario.agent_down.contains(e.at) {
                continue; // nothing starts: the Agent is a zombie, or down
            }
            if disabled_at.is_some_and(|d| e.at >= d) {
                continue;
            }
            if e.at < busy_until {
                continue; // still running: the Agent skips, it does not queue
            }
            let plan = e.plan.unwrap_or_else(|| {
                let r: f64 = rng.random();
                let fail = spec.kind.failure_rate();
                let retry = spec.retry.as_ref().map_or(0.0, |r| r.rate);
                if r < fail {
                    Plan::Fail
                } else if r < fail + retry {
                    Plan::Retry
                } else if spec.kind == Kind::EtlHourly && r < fail + 0.005 {
                    Plan::Long(rng.random_range(62 * 60..=100 * 60))
                } else {
                    Plan::Normal
                }
            });
            let total = match plan {
                Plan::Long(s) => s,
                _ => spec.kind.seconds(&mut rng),
            };
            let start = e.at;
            let (mut execs, mut status) = execute(spec, start, total, plan, &mut rng);
            // The Agent stopped while this ran: the run is canceled at the stop.
            let stop = scenario.agent_down.start;
            if start < stop && execs.last().is_some_and(|x| x.end() > stop) {
                execs.retain(|x| x.start < stop);
                if let Some(x) = execs.last_mut().filter(|x| x.end() > stop) {
                    x.secs = (stop - x.start).num_seconds();
                    x.status = 3;
                    x.message_id = 0;
                    x.severity = 0;
                    x.message = "The step was cancelled (stopped) as the result of a stop job request.".into();
                }
                status = 3;
            }
            let end = execs.last().map_or(start, Exec::end);
            busy_until = end;

            let run = runs.len();
            let mut sim = SimRun {
                job: j,
                session: if start >= scenario.agent_restart { 2 } else { 1 },
                requested: start,
                source: match e.cause {
                    Cause::User => "4",
                    Cause::Schedule { .. } if spec.schedules.iter().any(|&s| schedules[s].schedule.freq_type == 64) => {
                        "3"
                    }
                    Cause::Schedule { .. } => "1",
                },
                start,
                last_step: None,
                stop: None,
                outcome_row: None,
            };
            let job_id = &jobs[j].job_id;
            for (seq, x) in execs.iter().enumerate() {
                if x.end() > now {
                    break; // still running: msdb has no row for it yet
                }
                sim.last_step = Some((x.step_id, x.start));
                let l = local(x.start);
                pending.push(Pending {
                    written: x.end(),
                    job: j,
                    run,
                    seq,
                    row: HistoryRow {
                        instance_id: 0,
                        job_id: job_id.clone(),
                        step_id: x.step_id,
                        step_name: x.name.into(),
                        sql_message_id: x.message_id,
                        sql_severity: x.severity,
                        message: x.message.clone(),
                        run_status: x.status,
                        run_date: date_int(l.date()),
                        run_time: time_int(l.time()),
                        run_duration: encode_duration(x.secs),
                        retries_attempted: x.retries,
                        server: INSTANCE.into(),
                    },
                });
            }
            if end <= now {
                let last = execs.last().expect("a run has a step");
                let verdict = match status {
                    1 => "The job succeeded.".to_owned(),
                    3 => "The job was stopped prior to completion by Shutdown Sequence 0.".to_owned(),
                    _ => "The job failed.".to_owned(),
                };
                let message = format!(
                    "{verdict}  The Job was invoked by {}.  The last step to run was step {} ({}).",
                    e.cause.invoked_by(),
                    last.step_id,
                    last.name
                );
                let l = local(start);
                sim.stop = Some(end);
                sim.outcome_row = Some(pending.len());
                pending.push(Pending {
                    written: end,
                    job: j,
                    run,
                    seq: usize::MAX,
                    row: HistoryRow {
                        instance_id: 0,
                        job_id: job_id.clone(),
                        step_id: 0,
                        step_name: "(Job outcome)".into(),
                        sql_message_id: 0,
                        sql_severity: 0,
                        message,
                        run_status: status,
                        run_date: date_int(l.date()),
                        run_time: time_int(l.time()),
                        run_duration: encode_duration((end - start).num_seconds()),
                        retries_attempted: 0,
                        server: INSTANCE.into(),
                    },
                });
            }
            runs.push(sim);
        }
    }

    // instance_id in the order the Agent wrote the rows (a step row when the step ends, the
    // outcome row after the last step).
    let mut order: Vec<usize> = (0..pending.len()).collect();
    order.sort_by_key(|&i| (pending[i].written, pending[i].job, pending[i].run, pending[i].seq));
    let mut instance_of = vec![0_i64; pending.len()];
    for (n, &i) in order.iter().enumerate() {
        instance_of[i] = n as i64 + 1;
    }

    // The busiest poller keeps only its latest runs (the Agent's per-job retention).
    let trimmed = job_specs.iter().position(|s| s.name == TRIMMED_JOB).expect("the trimmed poller is in the catalog");
    let mut kept_starts: Vec<DateTime<Utc>> =
        runs.iter().filter(|r| r.job == trimmed && r.outcome_row.is_some()).map(|r| r.start).collect();
    kept_starts.sort();
    let cutoff =
        kept_starts.len().checked_sub(msdb_sqlite::MAX_OUTCOME_ROWS_PER_JOB as usize).map(|skip| kept_starts[skip]);

    let mut history: Vec<HistoryRow> = Vec::with_capacity(pending.len());
    for &i in &order {
        let p = &pending[i];
        if p.job == trimmed && cutoff.is_some_and(|c| runs[p.run].start < c) {
            continue;
        }
        let mut row = p.row.clone();
        row.instance_id = instance_of[i];
        history.push(row);
    }

    // Agent sessions.
    let sessions = vec![
        SessionRow { session_id: 1, agent_start_date: local(scenario.first_agent_start) },
        SessionRow { session_id: 2, agent_start_date: local(scenario.agent_restart) },
    ];

    // The Agent's own idea of each schedule's next run.
    let next_local: Vec<Option<NaiveDateTime>> = schedules
        .iter()
        .map(|s| {
            if s.schedule.enabled == 0 {
                return None;
            }
            let f = engine::next_after(s.schedule_id, &Schedule::Agent(s.schedule.clone()), tz.into(), now, 1);
            f.occurrences.first().map(|o| o.local)
        })
        .collect();
    let mut job_schedules = Vec::new();
    for (j, spec) in job_specs.iter().enumerate() {
        for &s in &spec.schedules {
            let next = next_local[s].filter(|_| spec.enabled);
            job_schedules.push(JobScheduleRow {
                job_id: jobs[j].job_id.clone(),
                schedule_id: schedules[s].schedule_id,
                next_run_date: next.map_or(0, |t| date_int(t.date())),
                next_run_time: next.map_or(0, |t| time_int(t.time())),
            });
        }
    }

    // sysjobactivity: per session and job, the latest run requested in it.
    let mut activity = Vec::new();
    for session in [1_i64, 2] {
        for (j, spec) in job_specs.iter().enumerate() {
            let last = runs.iter().filter(|r| r.job == j && r.session == session).max_by_key(|r| r.start);
            let next = if session == 2 && spec.enabled {
                spec.schedules.iter().filter_map(|&s| next_local[s]).min()
            } else {
                None
            };
            activity.push(ActivityRow {
                session_id: session,
                job_id: jobs[j].job_id.clone(),
                run_requested_date: last.map(|r| local(r.requested)),
                run_requested_source: last.map(|r| r.source.to_owned()),
                start_execution_date: last.map(|r| local(r.start)),
                last_executed_step_id: last.and_then(|r| r.last_step.map(|s| s.0)),
                last_executed_step_date: last.and_then(|r| r.last_step.map(|s| local(s.1))),
                stop_execution_date: last.and_then(|r| r.stop.map(local)),
                job_history_id: last.and_then(|r| r.outcome_row.map(|i| instance_of[i])),
                next_scheduled_run_date: next,
            });
        }
    }

    Demo {
        meta: DemoMeta { name: INSTANCE.into(), tz, now, seed },
        scenario,
        categories: categories(),
        jobs,
        steps,
        schedules,
        job_schedules,
        history,
        sessions,
        activity,
    }
}

/// The step attempts of one run and its `run_status` (0 failed, 1 succeeded).
fn execute(spec: &JobSpec, start: DateTime<Utc>, total: i64, plan: Plan, rng: &mut SmallRng) -> (Vec<Exec>, i64) {
    let mut execs = Vec::new();
    let mut t = start;
    for (k, s) in spec.steps.iter().enumerate() {
        let secs = ((total as f64 * s.share).round() as i64).max(1);
        let step_id = k as i64 + 1;
        let ok = |t: DateTime<Utc>, secs: i64, retries: i64| Exec {
            step_id,
            name: s.name,
            start: t,
            secs,
            status: 1,
            retries,
            message_id: 0,
            severity: 0,
            message: step_success(spec.run_as, s.subsystem),
        };
        match plan {
            Plan::Fail if k == spec.failure.step => {
                let secs = (secs as f64 * rng.random_range(0.2..1.0)).round().max(1.0) as i64;
                execs.push(Exec {
                    step_id,
                    name: s.name,
                    start: t,
                    secs,
                    status: 0,
                    retries: 0,
                    message_id: spec.failure.message_id,
                    severity: spec.failure.severity,
                    message: format!("Executed as user: {}. {}  The step failed.", spec.run_as, spec.failure.text),
                });
                return (execs, 0);
            }
            Plan::Retry if spec.retry.as_ref().is_some_and(|r| r.step == k) => {
                let retry = spec.retry.as_ref().expect("checked");
                let failed = Exec {
                    step_id,
                    name: s.name,
                    start: t,
                    secs: 31,
                    status: 2,
                    retries: 0,
                    message_id: 0,
                    severity: 0,
                    message: format!("Executed as user: {}. {}  The step failed.", spec.run_as, retry.text),
                };
                // retry_interval is one minute after the failed attempt ends.
                t = failed.end() + Duration::minutes(1);
                execs.push(failed);
                let x = ok(t, secs, 1);
                t = x.end();
                execs.push(x);
            }
            _ => {
                let x = ok(t, secs, 0);
                t = x.end();
                execs.push(x);
            }
        }
    }
    (execs, 1)
}
