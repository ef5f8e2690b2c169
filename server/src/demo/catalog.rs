//! The catalog: what the demo instance runs. About 40 jobs a DBA would recognise, each with its
//! steps, the kind of work it does (which sets its durations and failure rate), how it fails,
//! and its schedules: real `sysschedules` rows, by index into the schedule list (ids are index + 1).
use super::{DISABLED_JOB, LONG_RUN_JOB, MANUAL_JOB, RERUN_JOB, RETRY_JOB, STARTUP_JOB, TRIMMED_JOB};
use crate::sources::msdb_rows::{CategoryRow, LoginRow};
use rand::Rng;
use rand::rngs::SmallRng;
use sundial_engine::AgentSchedule;

/// The kinds of work, each with its durations and failure rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
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
    pub(super) fn seconds(self, rng: &mut SmallRng) -> i64 {
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
    pub(super) fn failure_rate(self) -> f64 {
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

pub(super) struct StepSpec {
    pub(super) name: &'static str,
    pub(super) subsystem: &'static str,
    pub(super) command: &'static str,
    pub(super) database: Option<&'static str>,
    /// Share of the run's time.
    pub(super) share: f64,
    pub(super) retry_attempts: i64,
}

/// How a job fails: at which step, with which SQL Server error.
pub(super) struct Failure {
    pub(super) step: usize,
    pub(super) message_id: i64,
    pub(super) severity: i64,
    pub(super) text: &'static str,
}

/// A transient error a retrying step meets.
pub(super) struct Retry {
    pub(super) step: usize,
    pub(super) rate: f64,
    pub(super) text: &'static str,
}

pub(super) struct JobSpec {
    pub(super) name: &'static str,
    pub(super) category: i64,
    pub(super) description: &'static str,
    pub(super) kind: Kind,
    pub(super) run_as: &'static str,
    pub(super) steps: Vec<StepSpec>,
    /// Indexes into the schedule list.
    pub(super) schedules: Vec<usize>,
    pub(super) failure: Failure,
    pub(super) retry: Option<Retry>,
    pub(super) enabled: bool,
}

pub(super) struct ScheduleSpec {
    pub(super) name: &'static str,
    pub(super) schedule: AgentSchedule,
}

const AGENT: &str = "NT SERVICE\\SQLSERVERAGENT";
const ETL: &str = "CORP\\svc_etl";
const REPORTS: &str = "CORP\\svc_reports";

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
pub(super) fn catalog() -> (Vec<ScheduleSpec>, Vec<JobSpec>) {
    let (schedules, s) = schedules();
    let jobs = [
        backup_jobs(&s),
        maintenance_jobs(&s),
        etl_jobs(&s),
        report_jobs(&s),
        monitoring_jobs(&s),
        replication_jobs(&s),
        manual_jobs(),
    ]
    .into_iter()
    .flatten()
    .collect();
    (schedules, jobs)
}

/// Where each schedule is in the list [`schedules`] returns, by what it is.
struct Sched {
    daily_0000: usize,
    full_weekly: usize,
    full_monthly: usize,
    diff: usize,
    log: usize,
    checkdb_sys: usize,
    checkdb: usize,
    index: usize,
    cleanup: usize,
    policy: usize,
    stats_weeknights: usize,
    stats_sunday: usize,
    stats_dw: usize,
    ssis: usize,
    cdc: usize,
    startup: usize,
    nightly: usize,
    hourly: usize,
    customer: usize,
    vendor: usize,
    rates: usize,
    gl: usize,
    backfill: usize,
    legacy: usize,
    sales: usize,
    inventory: usize,
    inventory_old: usize,
    payroll: usize,
    close: usize,
    board: usize,
    kpi: usize,
    quarterly: usize,
    every_minute: usize,
    every_15: usize,
    every_30: usize,
    office_hours: usize,
    repl_10: usize,
    subscriptions: usize,
}

/// The schedules (ids are index + 1), and where each is in the list.
fn schedules() -> (Vec<ScheduleSpec>, Sched) {
    let mut schedules: Vec<ScheduleSpec> = Vec::new();
    let mut add = |name: &'static str, schedule: AgentSchedule| {
        schedules.push(ScheduleSpec { name, schedule });
        schedules.len() - 1
    };
    let s = Sched {
        daily_0000: add("Daily - 00:00", daily(1, 0)),
        full_weekly: add("Weekly - Sunday 01:00", weekly(SUNDAY, 1, 10000)),
        full_monthly: add("Monthly - day 1 at 22:00 (month-start copy)", monthly(1, 1, 220000)),
        diff: add("Weekly - Monday to Saturday 01:00", weekly(WEEKDAYS | SATURDAY, 1, 10000)),
        log: add("Every 15 minutes", daily_every(MINUTES, 15, 0, 235959)),
        checkdb_sys: add("Weekly - Sunday 00:30", weekly(SUNDAY, 1, 3000)),
        checkdb: add("Weekly - Saturday 22:00", weekly(SATURDAY, 1, 220000)),
        index: add("Weekly - Sunday 03:00", weekly(SUNDAY, 1, 30000)),
        cleanup: add("Weekly - Sunday 00:00", weekly(SUNDAY, 1, 0)),
        policy: add("syspolicy_purge_history_schedule", daily(1, 20000)),
        stats_weeknights: add("Weeknights 23:30", weekly(WEEKDAYS, 1, 233000)),
        stats_sunday: add("Sunday 06:00", weekly(SUNDAY, 1, 60000)),
        stats_dw: add("Every 2 days at 04:30", daily(2, 43000)),
        ssis: add("SSISDB Scheduler", daily(1, 0)),
        cdc: add("CDC cleanup - daily 02:00", daily(1, 20000)),
        startup: add("Start automatically when SQL Server Agent starts", on_agent_start()),
        nightly: add("Nightly 02:30", daily(1, 23000)),
        hourly: add("Hourly", daily_every(HOURS, 1, 0, 235959)),
        customer: add("Daily 03:15", daily(1, 31500)),
        vendor: add(
            "Weekdays every 30 minutes 07:00-19:00",
            AgentSchedule {
                freq_subday_type: MINUTES,
                freq_subday_interval: 30,
                active_end_time: 190000,
                ..weekly(WEEKDAYS, 1, 70000)
            },
        ),
        rates: add("Every 4 hours from 01:00", daily_every(HOURS, 4, 10000, 235959)),
        gl: add("Last weekday of the month 21:00", monthly_relative(9, 16, 1, 210000)),
        backfill: add("Once - backfill", once(143000)),
        legacy: add("Daily 05:30", daily(1, 53000)),
        sales: add("Daily 06:00", daily(1, 60000)),
        inventory: add("Weekly - Monday 07:00", weekly(MONDAY, 1, 70000)),
        inventory_old: add("Weekly - Tuesday 07:00 (old)", AgentSchedule { enabled: 0, ..weekly(TUESDAY, 1, 70000) }),
        payroll: add("Every other Thursday 08:00", weekly(THURSDAY, 2, 80000)),
        close: add("Monthly - day 1 at 05:00", monthly(1, 1, 50000)),
        board: add("Last Friday of the month 18:00", monthly_relative(6, 16, 1, 180000)),
        kpi: add("First Monday of the month 07:30", monthly_relative(2, 1, 1, 73000)),
        quarterly: add("Quarterly - day 15 at 09:00", monthly(15, 3, 90000)),
        every_minute: add("Every minute", daily_every(MINUTES, 1, 0, 235959)),
        every_15: add("Every 15 minutes (monitoring)", daily_every(MINUTES, 15, 0, 235959)),
        every_30: add("Every 30 minutes", daily_every(MINUTES, 30, 0, 235959)),
        office_hours: add("Hourly 08:00-18:00", daily_every(HOURS, 1, 80000, 180000)),
        repl_10: add("Replication agents schedule - every 10 minutes", daily_every(MINUTES, 10, 0, 235959)),
        subscriptions: add("Expired subscription clean up - daily 01:00", daily(1, 10000)),
    };
    (schedules, s)
}

/// Ola Hallengren-style backups: the system databases, and full, differential and log backups
/// of the user databases.
fn backup_jobs(s: &Sched) -> Vec<JobSpec> {
    let backup_step = |name: &'static str, cmd: &'static str| vec![tsql(name, cmd, "master", 1.0)];
    vec![
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
            schedules: vec![s.daily_0000],
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
            schedules: vec![s.full_weekly, s.full_monthly],
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
            schedules: vec![s.diff],
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
            schedules: vec![s.log],
            failure: Failure {
                step: 0,
                message_id: 3013,
                severity: 16,
                text: "Write on \"\\\\backup01\\sql\\SQLPROD01\\SalesDB\\LOG\\SalesDB_LOG.trn\" failed: 112(There is not enough space on the disk.) [SQLSTATE 42000] (Error 3202)  BACKUP LOG is terminating abnormally. [SQLSTATE 42000] (Error 3013).",
            },
            retry: None,
            enabled: true,
        },
    ]
}

/// Integrity checks, index and statistics maintenance, and the clean-ups SQL Server and its
/// features install.
fn maintenance_jobs(s: &Sched) -> Vec<JobSpec> {
    vec![
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
            schedules: vec![s.checkdb_sys],
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
            schedules: vec![s.checkdb],
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
            schedules: vec![s.index],
            failure: DEADLOCK,
            retry: None,
            enabled: true,
        },
        cleanup_job(
            "CommandLog Cleanup",
            "DELETE FROM dbo.CommandLog WHERE StartTime < DATEADD(dd, -30, GETDATE())",
            s.cleanup,
        ),
        cleanup_job(
            "Output File Cleanup",
            "cmd /q /c \"For /F \"tokens=1 delims=\" %v In ('ForFiles /P \"$(ESCAPE_SQUOTE(SQLLOGDIR))\" /m *_*_*_*.txt /d -30 2^>^&1') do if EXIST \"$(ESCAPE_SQUOTE(SQLLOGDIR))\"\\%v echo del \"$(ESCAPE_SQUOTE(SQLLOGDIR))\"\\%v& del \"$(ESCAPE_SQUOTE(SQLLOGDIR))\"\\%v\"",
            s.cleanup,
        ),
        cleanup_job(
            "sp_delete_backuphistory",
            "DECLARE @CleanupDate datetime = DATEADD(dd, -30, GETDATE()); EXECUTE dbo.sp_delete_backuphistory @oldest_date = @CleanupDate",
            s.cleanup,
        ),
        cleanup_job(
            "sp_purge_jobhistory",
            "DECLARE @CleanupDate datetime = DATEADD(dd, -60, GETDATE()); EXECUTE dbo.sp_purge_jobhistory @oldest_date = @CleanupDate",
            s.cleanup,
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
            schedules: vec![s.policy],
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
            schedules: vec![s.stats_weeknights, s.stats_sunday],
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
            schedules: vec![s.stats_dw],
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
            schedules: vec![s.ssis],
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
            schedules: vec![s.cdc],
            failure: LOCK_TIMEOUT,
            retry: None,
            enabled: true,
        },
    ]
}

/// The staging clean-up at Agent start, the ETL loads (nightly, hourly, retrying, month-end,
/// a one-off backfill) and the disabled legacy export.
fn etl_jobs(s: &Sched) -> Vec<JobSpec> {
    vec![
        JobSpec {
            name: STARTUP_JOB,
            category: 0,
            description: "Empties the staging schema after a restart of the service.",
            kind: Kind::Startup,
            run_as: AGENT,
            steps: vec![tsql("Truncate staging tables", "EXEC staging.usp_TruncateAll", "WarehouseDB", 1.0)],
            schedules: vec![s.startup],
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
            schedules: vec![s.nightly],
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
            schedules: vec![s.hourly],
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
            schedules: vec![s.customer],
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
            schedules: vec![s.vendor],
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
            schedules: vec![s.rates],
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
            schedules: vec![s.gl],
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
            schedules: vec![s.backfill],
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
            schedules: vec![s.legacy],
            failure: LOCK_TIMEOUT,
            retry: None,
            enabled: false,
        },
    ]
}

/// Reports, daily to quarterly.
fn report_jobs(s: &Sched) -> Vec<JobSpec> {
    vec![
        report_job(
            "Report - Daily Sales Summary",
            "Yesterday's sales by region, mailed to the sales leads.",
            vec![s.sales],
        ),
        report_job(
            "Report - Weekly Inventory",
            "Stock levels per warehouse, Monday mornings (the old Tuesday run is kept, disabled).",
            vec![s.inventory, s.inventory_old],
        ),
        report_job(
            "Report - Fortnightly Payroll Reconciliation",
            "Payroll against HR, every other Thursday.",
            vec![s.payroll],
        ),
        report_job("Report - Month-End Close", "Month-end close pack for finance.", vec![s.close]),
        report_job("Report - Board Pack (last Friday)", "Board pack, last Friday of the month.", vec![s.board]),
        report_job("Report - KPI Deck (first Monday)", "KPI deck, first Monday of the month.", vec![s.kpi]),
        report_job("Report - Quarterly Compliance", "Quarterly compliance extract.", vec![s.quarterly]),
    ]
}

/// Pollers and alerts, every minute to hourly.
fn monitoring_jobs(s: &Sched) -> Vec<JobSpec> {
    vec![
        poller_job(
            TRIMMED_JOB,
            "Checks the order queue's Service Broker activation every minute.",
            "EXEC dbo.usp_CheckQueueActivation @Queue = N'OrderQueue'",
            s.every_minute,
        ),
        poller_job(
            "Poll - Replication Latency",
            "Posts a tracer token and records latency.",
            "EXEC dbo.usp_ReplicationLatency @Publication = N'SalesPub'",
            s.every_15,
        ),
        poller_job(
            "Poll - Blocking Monitor",
            "Logs blocking chains longer than 30 seconds.",
            "EXEC dbo.usp_LogBlocking @MinWaitSeconds = 30",
            s.every_15,
        ),
        poller_job(
            "Alert - Disk Space Check",
            "Mails the DBAs when a volume is below 10% free.",
            "EXEC dbo.usp_CheckDiskSpace @MinFreePercent = 10",
            s.every_30,
        ),
        poller_job(
            "Alert - Failed Logins Summary",
            "Hourly summary of failed logins, office hours.",
            "EXEC dbo.usp_FailedLogins @Hours = 1",
            s.office_hours,
        ),
    ]
}

/// Replication's clean-up jobs.
fn replication_jobs(s: &Sched) -> Vec<JobSpec> {
    vec![
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
            schedules: vec![s.repl_10],
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
            schedules: vec![s.repl_10],
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
            schedules: vec![s.subscriptions],
            failure: NO_FAILURE,
            retry: None,
            enabled: true,
        },
    ]
}

/// Jobs only ever started by hand.
fn manual_jobs() -> Vec<JobSpec> {
    vec![JobSpec {
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
    }]
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

/// The logins of the demo's instances, as `sys.server_principals` lists them: `sa`, the SSIS
/// catalog's cleanup login, and Windows logins of the CORP domain.
pub(super) const SA: &str = "sa";
const SSIS_CLEANUP: &str = "##MS_SSISServerCleanupJobLogin##";
pub(super) const DBA_LOGIN: &str = "CORP\\dba";
const LOGINS: [&str; 6] = [SA, SSIS_CLEANUP, DBA_LOGIN, "CORP\\etl_admin", "CORP\\svc_reports", "CORP\\svc_sqlagent"];

/// Who owns a job of `category` named `name`, as a DBA's instance has it: the maintenance,
/// replication and system jobs `sa` (what their scripts and wizards leave), the SSIS catalog's
/// cleanup its own login, each team's jobs the Windows login that created them.
pub(super) fn job_owner(category: i64, name: &str) -> &'static str {
    match category {
        _ if name == "SSIS Server Maintenance Job" => SSIS_CLEANUP,
        _ if name == MANUAL_JOB => DBA_LOGIN,
        100 => "CORP\\etl_admin",
        101 => "CORP\\svc_reports",
        102 => "CORP\\svc_sqlagent",
        _ => SA,
    }
}

/// A login's SID as `owner_sid` holds it: `sa`'s is 0x01; a SQL login's 16 bytes; a Windows
/// login's `S-1-5-21-<domain>-<RID>`, one domain for all.
pub(super) fn login_sid(login: &str) -> Vec<u8> {
    let index = LOGINS.iter().position(|l| *l == login).expect("a login of the demo") as u32;
    if login == SA {
        vec![1]
    } else if login.starts_with("CORP\\") {
        let mut sid = vec![1, 5, 0, 0, 0, 0, 0, 5];
        for sub in [21_u32, 1_004_336_348, 1_177_238_915, 682_003_330, 1100 + index] {
            sid.extend(sub.to_le_bytes());
        }
        sid
    } else {
        (0..16_u8).map(|i| i.wrapping_mul(37).wrapping_add(index as u8 * 11 + 0x5A)).collect()
    }
}

/// Every login of [`LOGINS`] with its SID.
pub(super) fn logins() -> Vec<LoginRow> {
    LOGINS.iter().map(|&name| LoginRow { sid: login_sid(name), name: name.into() }).collect()
}

pub(super) fn categories() -> Vec<CategoryRow> {
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
