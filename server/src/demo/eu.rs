//! SQLEU01: the fleet's second SQL Server Agent, in Europe/London, with a month of history and
//! the trouble an on-call engineer is paged for: the Agent has been a zombie for the last hours
//! (alive, its session open, starting nothing while runs were due), a job that has failed every
//! run for days, a job whose last run failed in a named step with the error's words, a run that
//! overran so that the Agent skipped the slots after it, and a poller whose history msdb has
//! purged down to its last runs (unknown before them, never missed).
//!
//! Pure and reproducible from `now` and the seed, like SQLPROD01's simulation, but smaller and
//! written out plainly: a handful of jobs, each run of each occurrence decided by the story.
use super::Demo;
use super::catalog::{SA, categories, job_owner, login_sid, logins};
use super::simulate::guid;
use crate::sources::msdb_rows::{
    self, ActivityRow, DemoMeta, HistoryRow, JobRow, JobScheduleRow, ScheduleRow, SessionRow, StepRow, date_int,
    encode_duration, local_to_utc, time_int, utc_to_local,
};
use chrono::{DateTime, Duration, NaiveDateTime, NaiveTime, Utc};
use chrono_tz::Tz;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sundial_engine::{self as engine, AgentSchedule, Schedule, Window};

/// The instance's name.
pub const INSTANCE: &str = "SQLEU01";
/// Its zone (msdb's times are its wall clock).
pub const TIME_ZONE: &str = "Europe/London";
/// Days of history simulated before `now`.
pub const HISTORY_DAYS: i64 = 30;
/// Fails every run (in its load step) for the last four days: no success in days.
pub const NO_SUCCESS_JOB: &str = "ETL - Load GL Ledger";
/// Its last run failed in step 2, "Push to CRM", with the API's answer.
pub const FAILED_STEP_JOB: &str = "Sync - Customers to CRM";
/// The step [`FAILED_STEP_JOB`]'s last run failed in.
pub const FAILED_STEP: &str = "Push to CRM";
/// One run, yesterday, ran long enough that the Agent skipped the two slots after it.
pub const OVERRUN_JOB: &str = "ETL - Intraday Positions";
/// Every five minutes: msdb keeps only its last runs, so its older history is unknown.
pub const TRIMMED_POLLER: &str = "Poll - Replication Latency";

/// Since when the Agent has started nothing: 6 h 20 min before `now`, to the minute.
pub fn zombie_since(now: DateTime<Utc>) -> DateTime<Utc> {
    let t = now - Duration::hours(6) - Duration::minutes(20);
    t - Duration::seconds(t.timestamp().rem_euclid(60))
}

fn tz() -> Tz {
    TIME_ZONE.parse().expect("SQLEU01's zone is an IANA zone")
}

const ETL: &str = "EUROPE\\svc_etl";
const AGENT: &str = "NT SERVICE\\SQLSERVERAGENT";

/// One job: its schedule, its steps (name, subsystem, command, share of the run's time) and how
/// long a normal run takes.
struct Spec {
    name: &'static str,
    category: i64,
    description: &'static str,
    schedule_name: &'static str,
    schedule: AgentSchedule,
    steps: &'static [(&'static str, &'static str, &'static str, f64)],
    secs: (i64, i64),
    run_as: &'static str,
}

fn every(unit: i64, n: i64) -> AgentSchedule {
    AgentSchedule {
        freq_type: 4,
        freq_interval: 1,
        freq_subday_type: unit,
        freq_subday_interval: n,
        ..Default::default()
    }
}

fn daily_at(hhmmss: i64) -> AgentSchedule {
    AgentSchedule {
        freq_type: 4,
        freq_interval: 1,
        freq_subday_type: 1,
        active_start_time: hhmmss,
        ..Default::default()
    }
}

const MINUTES: i64 = 4;
const HOURS: i64 = 8;

fn specs() -> Vec<Spec> {
    vec![
        Spec {
            name: "DatabaseBackup - USER_DATABASES - FULL",
            category: 3,
            description: "Full backup of every user database (Ola Hallengren's DatabaseBackup).",
            schedule_name: "Nightly 01:00",
            schedule: daily_at(10000),
            steps: &[(
                "Backup",
                "TSQL",
                "EXECUTE dbo.DatabaseBackup @Databases = 'USER_DATABASES', @BackupType = 'FULL'",
                1.0,
            )],
            secs: (25 * 60, 50 * 60),
            run_as: AGENT,
        },
        Spec {
            name: "DatabaseBackup - USER_DATABASES - LOG",
            category: 3,
            description: "Transaction log backups every 15 minutes.",
            schedule_name: "Every 15 minutes",
            schedule: every(MINUTES, 15),
            steps: &[(
                "Backup",
                "TSQL",
                "EXECUTE dbo.DatabaseBackup @Databases = 'USER_DATABASES', @BackupType = 'LOG'",
                1.0,
            )],
            secs: (15, 70),
            run_as: AGENT,
        },
        Spec {
            name: NO_SUCCESS_JOB,
            category: 100,
            description: "Loads the general ledger extract dropped by the finance system at 02:00.",
            schedule_name: "Nightly 02:30",
            schedule: daily_at(23000),
            steps: &[
                ("Check extract", "TSQL", "EXECUTE etl.CheckLedgerExtract", 0.05),
                ("Load staging", "TSQL", "EXECUTE etl.BulkLoadLedger @Path = N'\\\\fs01\\gl\\'", 0.6),
                ("Merge into GL", "TSQL", "EXECUTE etl.MergeLedger", 0.35),
            ],
            secs: (6 * 60, 14 * 60),
            run_as: ETL,
        },
        Spec {
            name: FAILED_STEP_JOB,
            category: 100,
            description: "Pushes changed customers to the CRM's REST API, hourly.",
            schedule_name: "Hourly at :20",
            schedule: AgentSchedule { active_start_time: 2000, ..every(HOURS, 1) },
            steps: &[
                ("Collect changes", "TSQL", "EXECUTE crm.CollectChangedCustomers", 0.3),
                (FAILED_STEP, "CmdExec", "powershell.exe -File D:\\jobs\\Push-Customers.ps1", 0.7),
            ],
            secs: (40, 150),
            run_as: ETL,
        },
        Spec {
            name: OVERRUN_JOB,
            category: 100,
            description: "Refreshes intraday positions from the trading system every 30 minutes.",
            schedule_name: "Every 30 minutes",
            schedule: every(MINUTES, 30),
            steps: &[("Load positions", "SSIS", "/ISSERVER \"\\SSISDB\\Trading\\Positions\\Load.dtsx\"", 1.0)],
            secs: (4 * 60, 11 * 60),
            run_as: ETL,
        },
        Spec {
            name: TRIMMED_POLLER,
            category: 102,
            description: "Records the distribution agent's latency every five minutes.",
            schedule_name: "Every 5 minutes",
            schedule: every(MINUTES, 5),
            steps: &[("Sample latency", "TSQL", "EXECUTE monitor.SampleReplicationLatency", 1.0)],
            secs: (1, 5),
            run_as: AGENT,
        },
        Spec {
            name: "IndexOptimize - USER_DATABASES",
            category: 3,
            description: "Index and statistics maintenance, nightly.",
            schedule_name: "Nightly 03:30",
            schedule: daily_at(33000),
            steps: &[(
                "IndexOptimize",
                "TSQL",
                "EXECUTE dbo.IndexOptimize @Databases = 'USER_DATABASES', @UpdateStatistics = 'ALL'",
                1.0,
            )],
            secs: (10 * 60, 35 * 60),
            run_as: AGENT,
        },
    ]
}

/// What one occurrence turns into.
#[derive(Clone, Copy, PartialEq)]
enum Plan {
    Normal,
    /// Fails in this step (index).
    Fail(usize),
    /// Runs this many seconds.
    Long(i64),
}

const LEDGER_ERROR: (i64, i64, &str) = (
    4861,
    16,
    "Cannot bulk load because the file \"\\\\fs01\\gl\\ledger.csv\" could not be opened. Operating system \
     error code 3(The system cannot find the path specified.). [SQLSTATE 42000] (Error 4861)",
);
const CRM_ERROR: &str = "Invoke-RestMethod : 503 Service Unavailable: POST https://crm.example.eu/api/v2/customers \
                         (the API is in maintenance until 09:00 UTC). Process Exit Code 1.";
const DEADLOCK: (i64, i64, &str) = (
    1205,
    13,
    "Transaction (Process ID 87) was deadlocked on lock resources with another process and has been chosen as \
     the deadlock victim. Rerun the transaction. [SQLSTATE 40001] (Error 1205)",
);

/// SQLEU01's rows for `now` and `seed`.
pub fn simulate(now: DateTime<Utc>, seed: u64) -> Demo {
    let tz = tz();
    let local = |t: DateTime<Utc>| utc_to_local(t, tz);
    let mut ids = SmallRng::seed_from_u64(seed ^ 0x0E01_5EED);
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x0E01_0001);
    let history = Window::ending_at(now, Duration::days(HISTORY_DAYS));
    let zombie = zombie_since(now);
    let agent_start = local_to_utc(
        local(now - Duration::days(44)).date().and_time(NaiveTime::from_hms_opt(5, 12, 41).expect("a time")),
        tz,
    );
    let specs = specs();

    let mut jobs = Vec::new();
    let mut steps = Vec::new();
    let mut schedules = Vec::new();
    for (j, s) in specs.iter().enumerate() {
        let job_id = guid(&mut ids);
        let created = local(now - Duration::days(ids.random_range(200..900)));
        jobs.push(JobRow {
            job_id: job_id.clone(),
            name: s.name.into(),
            enabled: true,
            description: s.description.into(),
            category_id: s.category,
            owner_sid: login_sid(job_owner(s.category, s.name)),
            notify_level_email: 2,
            date_created: created,
            date_modified: created + Duration::minutes(ids.random_range(1..300)),
            version_number: 1 + ids.random_range(0..4),
        });
        for (k, (name, subsystem, command, _)) in s.steps.iter().enumerate() {
            steps.push(StepRow {
                job_id: job_id.clone(),
                step_id: k as i64 + 1,
                step_name: (*name).into(),
                subsystem: (*subsystem).into(),
                command: (*command).into(),
                database_name: (*subsystem == "TSQL").then(|| "master".to_owned()),
                on_success_action: if k + 1 == s.steps.len() { 1 } else { 3 },
                on_success_step_id: 0,
                on_fail_action: 2,
                on_fail_step_id: 0,
                retry_attempts: 0,
                retry_interval: 0,
            });
        }
        let mut schedule = s.schedule.clone();
        schedule.active_start_date = date_int(created.date());
        schedules.push(ScheduleRow {
            schedule_id: j as i64 + 1,
            schedule_uid: guid(&mut ids),
            name: s.schedule_name.into(),
            owner_sid: login_sid(SA),
            schedule,
            date_created: created,
        });
    }

    // Every run, job by job: (job, start, end, status, step rows).
    let mut pending: Vec<(DateTime<Utc>, usize, HistoryRow)> = Vec::new();
    let mut last_run: Vec<Option<(DateTime<Utc>, DateTime<Utc>)>> = vec![None; specs.len()];
    let mut next_due: Vec<Option<DateTime<Utc>>> = vec![None; specs.len()];
    for (j, s) in specs.iter().enumerate() {
        let row = &schedules[j];
        let f = engine::forecast(row.schedule_id, &Schedule::Agent(row.schedule.clone()), tz.into(), history);
        let due: Vec<DateTime<Utc>> = f.occurrences.iter().map(|o| o.at).filter(|t| *t < now).collect();
        next_due[j] = due.iter().copied().find(|t| *t >= zombie);
        let started: Vec<DateTime<Utc>> = due.iter().copied().filter(|t| *t < zombie).collect();
        let last = started.last().copied();
        // The overrun: the first run yesterday at or after 10:00 local.
        let yesterday_ten = local_to_utc(
            local(now - Duration::days(1)).date().and_time(NaiveTime::from_hms_opt(10, 0, 0).expect("a time")),
            tz,
        );
        let overrun = started.iter().copied().find(|t| *t >= yesterday_ten);
        let mut busy_until = DateTime::<Utc>::MIN_UTC;
        for at in started {
            if at < busy_until {
                continue; // still running: the Agent skips the slot
            }
            let plan = match s.name {
                NO_SUCCESS_JOB if now - at <= Duration::days(4) => Plan::Fail(1),
                FAILED_STEP_JOB if Some(at) == last => Plan::Fail(1),
                OVERRUN_JOB if Some(at) == overrun => Plan::Long(74 * 60 + 12),
                _ if s.category == 100 && rng.random_bool(0.01) => Plan::Fail(s.steps.len() - 1),
                _ => Plan::Normal,
            };
            let total = match plan {
                Plan::Long(secs) => secs,
                _ => rng.random_range(s.secs.0..=s.secs.1),
            };
            let (rows, end, status) = run_rows(s, &jobs[j].job_id, j as i64 + 1, at, total, plan, tz, &mut rng);
            busy_until = end;
            last_run[j] = Some((at, end));
            let outcome_at = end;
            for (k, r) in rows.into_iter().enumerate() {
                let written = if r.step_id == 0 { outcome_at } else { step_end(&r, tz) };
                pending.push((written, j * 1_000_000 + k, r));
            }
            let _ = status;
        }
    }
    pending.sort_by_key(|(written, order, _)| (*written, *order));
    let mut history_rows: Vec<HistoryRow> = pending
        .into_iter()
        .enumerate()
        .map(|(n, (_, _, mut r))| {
            r.instance_id = n as i64 + 1;
            r
        })
        .collect();
    // msdb's per-job retention: the poller keeps its last runs only.
    let poller = &jobs[specs.iter().position(|s| s.name == TRIMMED_POLLER).expect("the poller is a job")].job_id;
    let kept = msdb_rows::MAX_OUTCOME_ROWS_PER_JOB as usize;
    let outcomes: Vec<(i64, i64)> = history_rows
        .iter()
        .filter(|r| &r.job_id == poller && r.step_id == 0)
        .map(|r| (r.run_date, r.run_time))
        .collect();
    if let Some(&cutoff) = outcomes.len().checked_sub(kept).map(|skip| &outcomes[skip]) {
        history_rows.retain(|r| &r.job_id != poller || (r.run_date, r.run_time) >= cutoff);
    }

    // The zombie Agent's own idea of the next runs: the slots it never started, long past.
    let job_schedules = (0..specs.len())
        .map(|j| {
            let next = next_due[j].map(local);
            JobScheduleRow {
                job_id: jobs[j].job_id.clone(),
                schedule_id: j as i64 + 1,
                next_run_date: next.map_or(0, |t| date_int(t.date())),
                next_run_time: next.map_or(0, |t| time_int(t.time())),
            }
        })
        .collect();
    let activity = (0..specs.len())
        .map(|j| {
            let outcome_id =
                history_rows.iter().rev().find(|r| r.job_id == jobs[j].job_id && r.step_id == 0).map(|r| r.instance_id);
            ActivityRow {
                session_id: 1,
                job_id: jobs[j].job_id.clone(),
                run_requested_date: last_run[j].map(|r| local(r.0)),
                run_requested_source: last_run[j].map(|_| "1".to_owned()),
                start_execution_date: last_run[j].map(|r| local(r.0)),
                last_executed_step_id: last_run[j].map(|_| specs[j].steps.len() as i64),
                last_executed_step_date: last_run[j].map(|r| local(r.0)),
                stop_execution_date: last_run[j].map(|r| local(r.1)),
                job_history_id: outcome_id,
                next_scheduled_run_date: next_due[j].map(local),
            }
        })
        .collect();
    Demo {
        meta: DemoMeta { name: INSTANCE.into(), tz, now, seed },
        scenario: None,
        categories: categories(),
        logins: logins(),
        jobs,
        steps,
        schedules,
        job_schedules,
        history: history_rows,
        sessions: vec![SessionRow { session_id: 1, agent_start_date: local(agent_start) }],
        activity,
    }
}

/// When a step row's step ended (its start plus its duration), as an instant.
fn step_end(r: &HistoryRow, tz: Tz) -> DateTime<Utc> {
    let start = msdb_rows::parse_date_int(r.run_date)
        .zip(msdb_rows::parse_time_int(r.run_time))
        .map(|(d, t)| local_to_utc(NaiveDateTime::new(d, t), tz))
        .unwrap_or_default();
    start + Duration::seconds(msdb_rows::decode_duration(r.run_duration).unwrap_or(0))
}

/// One run's history rows (its step rows, then its outcome row), its end and its status.
#[allow(clippy::too_many_arguments)]
fn run_rows(
    s: &Spec,
    job_id: &str,
    schedule_id: i64,
    start: DateTime<Utc>,
    total: i64,
    plan: Plan,
    tz: Tz,
    rng: &mut SmallRng,
) -> (Vec<HistoryRow>, DateTime<Utc>, i64) {
    let row = |step_id: i64, name: &str, at: DateTime<Utc>, secs: i64, status: i64, error: (i64, i64), message| {
        let l = utc_to_local(at, tz);
        HistoryRow {
            instance_id: 0,
            job_id: job_id.to_owned(),
            step_id,
            step_name: name.to_owned(),
            sql_message_id: error.0,
            sql_severity: error.1,
            message,
            run_status: status,
            run_date: date_int(l.date()),
            run_time: time_int(l.time()),
            run_duration: encode_duration(secs),
            retries_attempted: 0,
            server: INSTANCE.into(),
        }
    };
    let mut rows = Vec::new();
    let mut t = start;
    let mut status = 1;
    let mut last = (1, s.steps[0].0);
    for (k, (name, subsystem, _, share)) in s.steps.iter().enumerate() {
        let secs = ((total as f64 * share).round() as i64).max(1);
        last = (k as i64 + 1, name);
        if plan == Plan::Fail(k) {
            let secs = (secs as f64 * rng.random_range(0.1..0.6)).round().max(1.0) as i64;
            let (error, text) = match s.name {
                NO_SUCCESS_JOB => ((LEDGER_ERROR.0, LEDGER_ERROR.1), LEDGER_ERROR.2.to_owned()),
                FAILED_STEP_JOB => ((0, 0), CRM_ERROR.to_owned()),
                _ => ((DEADLOCK.0, DEADLOCK.1), DEADLOCK.2.to_owned()),
            };
            let message = format!("Executed as user: {}. {text}  The step failed.", s.run_as);
            rows.push(row(k as i64 + 1, name, t, secs, 0, error, message));
            t += Duration::seconds(secs);
            status = 0;
            break;
        }
        let message = match *subsystem {
            "CmdExec" => format!("Executed as user: {}. Process Exit Code 0.  The step succeeded.", s.run_as),
            _ => format!("Executed as user: {}. The step succeeded.", s.run_as),
        };
        rows.push(row(k as i64 + 1, name, t, secs, 1, (0, 0), message));
        t += Duration::seconds(secs);
    }
    let verdict = if status == 1 { "The job succeeded." } else { "The job failed." };
    let message = format!(
        "{verdict}  The Job was invoked by Schedule {schedule_id} ({}).  The last step to run was step {} ({}).",
        s.schedule_name, last.0, last.1
    );
    rows.push(row(0, "(Job outcome)", start, (t - start).num_seconds(), status, (0, 0), message));
    (rows, t, status)
}
