//! The fleet's other schedulers, each as the tables it keeps, with a month of history: pg_cron
//! (`job`, `job_run_details`, `pg_settings`), MariaDB's events (`EVENTS`, `GLOBAL_VARIABLES`,
//! and the month of `LAST_EXECUTED` samples Sundial would have taken, for its store), and the
//! home-grown schedulers' designs: the worker role's `jobactivity`, the stored-procedure
//! runner's `job`, Service Broker's `ScheduledJobs` and friends, Primentra's
//! `SchedulerConfigurations` and `SchedulerLog`. Their planted trouble:
//!
//! - MariaDB's event scheduler was switched OFF [`EVENTS_STOPPED_HOURS`] hours before `now`
//!   (and nobody switched it back on): every event's `LAST_EXECUTED` stands still since;
//! - the worker role's [`RUNNING_LONG_JOB`] is running right now, three times as long as it
//!   usually takes;
//! - Service Broker's [`DISAGREEING_JOB`] was moved from 07:00 to 06:00 yesterday, but its
//!   dialog timer (`NextRunOn`) still says 07:00;
//! - the runner's `etl.sync_prices` was restarted 12 days ago: before that, nothing is known.
//! - pg_cron's [`STUCK_PG_JOB`] has started nothing for [`STUCK_PG_HOURS`] hours while its
//!   other jobs ran: its last three runs missed, in a row.
//!
//! Pure and reproducible from `now` and the seed. Times are written as each design stores them
//! (`YYYY-MM-DD HH:MM:SS[.fff]`, in the zone each instance's configuration names).
use chrono::{DateTime, Datelike, Duration, NaiveDateTime, Timelike, Utc};
use chrono_tz::Tz;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sundial_engine::cron::CronSchedule;
use sundial_engine::mysql_event::MysqlEvent;
use sundial_engine::{self as engine, Schedule, Window};

/// A value of a demo table's row.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Null,
    Int(i64),
    Text(String),
}

impl From<&str> for Val {
    fn from(s: &str) -> Val {
        Val::Text(s.to_owned())
    }
}

impl From<String> for Val {
    fn from(s: String) -> Val {
        Val::Text(s)
    }
}

impl From<i64> for Val {
    fn from(v: i64) -> Val {
        Val::Int(v)
    }
}

impl<T: Into<Val>> From<Option<T>> for Val {
    fn from(v: Option<T>) -> Val {
        v.map_or(Val::Null, Into::into)
    }
}

/// One table of a demo file: how it is created and its rows, in `columns`' order.
#[derive(Clone, Debug)]
pub struct Table {
    pub name: &'static str,
    /// The `CREATE TABLE` statement (the design's, in SQLite's types).
    pub create: &'static str,
    pub columns: &'static [&'static str],
    pub rows: Vec<Vec<Val>>,
}

/// One event's samples as Sundial's polls would have taken them: the first poll that saw it,
/// and each `LAST_EXECUTED` (UTC) with the last poll that still saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct EventSamples {
    /// `schema.name`, the key Sundial's store uses.
    pub event: String,
    pub first_seen: DateTime<Utc>,
    pub samples: Vec<(DateTime<Utc>, DateTime<Utc>)>,
}

/// The pg_cron instance's `cron.timezone`.
pub const PG_CRON_ZONE: &str = "Europe/Berlin";
/// pg_cron's job that has started nothing for the last [`STUCK_PG_HOURS`] hours while the
/// others ran (its runs waited behind `cron.max_running_jobs`): missed runs, in a row.
pub const STUCK_PG_JOB: &str = "rollup-events-hourly";
pub const STUCK_PG_HOURS: i64 = 3;
/// How long before `now` MariaDB's event scheduler was switched off.
pub const EVENTS_STOPPED_HOURS: i64 = 5;
/// The worker role's job running three times its usual duration right now.
pub const RUNNING_LONG_JOB: &str = "ExportOrdersToErp";
/// Its schedule (5-field cron, UTC), for the fleet file.
pub const RUNNING_LONG_SCHEDULE: &str = "*/30 * * * *";
/// The worker role's other jobs and their schedules (UTC), for the fleet file.
pub const WORKER_JOBS: [(&str, &str); 2] = [("NightlyInvoiceRun", "0 1 * * *"), ("RefreshFxRates", "15 6-18 * * 1-5")];
/// The Service Broker job whose last run failed in [`FAILED_BROKER_STEP`] (the scheduler then
/// stopped it).
pub const FAILED_BROKER_JOB: &str = "Purge audit trail";
/// The step it failed in.
pub const FAILED_BROKER_STEP: &str = "delete old rows";
/// The Service Broker job whose `NextRunOn` disagrees with its schedule.
pub const DISAGREEING_JOB: &str = "Refresh exchange rates";
/// Days of history every file holds (Sundial reads 30).
const DAYS: i64 = 31;

fn text_time(t: NaiveDateTime) -> String {
    t.format("%Y-%m-%d %H:%M:%S%.3f").to_string()
}

fn whole(t: NaiveDateTime) -> String {
    t.format("%Y-%m-%d %H:%M:%S").to_string()
}

fn floor_minute(t: DateTime<Utc>) -> DateTime<Utc> {
    t - Duration::seconds(t.timestamp().rem_euclid(60)) - Duration::nanoseconds(i64::from(t.nanosecond()))
}

/// A cron schedule's occurrences in `window`, in `tz`.
fn cron_times(expr: &str, tz: Tz, window: Window) -> Vec<DateTime<Utc>> {
    let f = engine::forecast(1, &Schedule::Cron(CronSchedule::new(expr)), tz.into(), window);
    f.occurrences.iter().map(|o| o.at).collect()
}

/// The window of history the files hold: [`DAYS`] days before `now`.
fn history(now: DateTime<Utc>) -> Window {
    Window::ending_at(now, Duration::days(DAYS))
}

// -------------------------------------------------------------------------------------------
// pg_cron

/// One pg_cron job of the demo: (jobid, name, schedule, command, seconds a run takes, failure
/// rate, failure message, success message).
type PgJob = (i64, &'static str, &'static str, &'static str, (i64, i64), f64, &'static str, &'static str);

/// pg_cron: `cron.job`, a month of `cron.job_run_details` (older rows purged by its own job),
/// and `pg_settings`.
pub fn pg_cron(now: DateTime<Utc>, seed: u64) -> Vec<Table> {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x0070_C407);
    let tz: Tz = PG_CRON_ZONE.parse().expect("an IANA zone");
    let jobs: [PgJob; 5] = [
        (
            1,
            "refresh-sales-mv",
            "*/15 * * * *",
            "REFRESH MATERIALIZED VIEW CONCURRENTLY reporting.sales_daily_mv",
            (20, 70),
            0.003,
            "ERROR:  could not obtain lock on relation \"sales_daily_mv\"",
            "REFRESH MATERIALIZED VIEW",
        ),
        (
            2,
            "rollup-events-hourly",
            "5 * * * *",
            "CALL analytics.rollup_events_hourly()",
            (60, 200),
            0.01,
            "ERROR:  duplicate key value violates unique constraint \"events_hourly_pkey\"",
            "CALL",
        ),
        (3, "nightly-vacuum", "30 2 * * *", "VACUUM (ANALYZE) analytics.events", (5 * 60, 15 * 60), 0.0, "", "VACUUM"),
        (
            4,
            "purge-job-run-details",
            "0 3 * * *",
            "DELETE FROM cron.job_run_details WHERE end_time < now() - interval '31 days'",
            (2, 10),
            0.0,
            "",
            "DELETE 3712",
        ),
        (
            5,
            "weekly-reindex",
            "0 4 * * 0",
            "REINDEX TABLE CONCURRENTLY analytics.events",
            (20 * 60, 40 * 60),
            0.0,
            "",
            "REINDEX",
        ),
    ];
    let mut job_rows = Vec::new();
    let mut runs: Vec<(DateTime<Utc>, Vec<Val>)> = Vec::new();
    for (jobid, name, schedule, command, secs, fail_rate, failure, success) in jobs {
        // The role each job runs as (its owner): the ETL team's jobs `etl`, maintenance `postgres`.
        let username = if jobid <= 2 { "etl" } else { "postgres" };
        job_rows.push(vec![
            jobid.into(),
            schedule.into(),
            command.into(),
            "localhost".into(),
            5432.into(),
            "analytics".into(),
            username.into(),
            1.into(),
            name.into(),
        ]);
        for at in cron_times(schedule, tz, history(now)) {
            let start = at + Duration::milliseconds(rng.random_range(300..1500));
            if start >= now {
                continue;
            }
            let end = start + Duration::milliseconds(rng.random_range(secs.0 * 1000..=secs.1 * 1000));
            let failed = rng.random_bool(fail_rate);
            let utc = |t: DateTime<Utc>| format!("{}+00", t.naive_utc().format("%Y-%m-%d %H:%M:%S%.6f"));
            let (status, message, end): (&str, Val, Val) = if end > now {
                ("running", Val::Null, Val::Null)
            } else if failed {
                ("failed", failure.into(), utc(end).into())
            } else {
                ("succeeded", success.into(), utc(end).into())
            };
            runs.push((
                start,
                vec![
                    jobid.into(),
                    0.into(),
                    rng.random_range(20_000..90_000_i64).into(),
                    "analytics".into(),
                    username.into(),
                    command.into(),
                    status.into(),
                    message,
                    utc(start).into(),
                    end,
                ],
            ));
            // Drawn, then dropped: the rest of the month stays as the seed makes it.
            if name == STUCK_PG_JOB && start > now - Duration::hours(STUCK_PG_HOURS) {
                runs.pop();
            }
        }
    }
    runs.sort_by_key(|r| r.0);
    let run_rows = runs
        .into_iter()
        .enumerate()
        .map(|(i, (_, mut row))| {
            row[1] = (i as i64 + 1).into();
            row
        })
        .collect();
    vec![
        Table {
            name: "job",
            create: "CREATE TABLE job (jobid INTEGER PRIMARY KEY, schedule TEXT NOT NULL, command TEXT NOT NULL, \
                     nodename TEXT NOT NULL, nodeport INTEGER NOT NULL, database TEXT NOT NULL, username TEXT NOT NULL, \
                     active BOOLEAN NOT NULL DEFAULT 1, jobname TEXT)",
            columns: &[
                "jobid", "schedule", "command", "nodename", "nodeport", "database", "username", "active", "jobname",
            ],
            rows: job_rows,
        },
        Table {
            name: "job_run_details",
            create: "CREATE TABLE job_run_details (jobid INTEGER, runid INTEGER PRIMARY KEY, job_pid INTEGER, \
                     database TEXT, username TEXT, command TEXT, status TEXT, return_message TEXT, \
                     start_time TIMESTAMPTZ, end_time TIMESTAMPTZ)",
            columns: &[
                "jobid",
                "runid",
                "job_pid",
                "database",
                "username",
                "command",
                "status",
                "return_message",
                "start_time",
                "end_time",
            ],
            rows: run_rows,
        },
        Table {
            name: "pg_settings",
            create: "CREATE TABLE pg_settings (name TEXT PRIMARY KEY, setting TEXT)",
            columns: &["name", "setting"],
            rows: vec![
                vec!["cron.timezone".into(), PG_CRON_ZONE.into()],
                vec!["cron.log_run".into(), "on".into()],
                vec!["cron.database_name".into(), "analytics".into()],
            ],
        },
    ]
}

// -------------------------------------------------------------------------------------------
// MariaDB events

/// MariaDB's events (`EVENTS`, `GLOBAL_VARIABLES`: the scheduler OFF, the server in UTC), and
/// the samples of `LAST_EXECUTED` Sundial's polls (every minute, for a month) would have taken.
pub fn mysql_events(now: DateTime<Utc>) -> (Vec<Table>, Vec<EventSamples>) {
    let stopped = floor_minute(now - Duration::hours(EVENTS_STOPPED_HOURS) - Duration::minutes(10));
    let watched_since = floor_minute(now - Duration::days(DAYS)) + Duration::seconds(30);
    // The last poll (every minute, 30 s past) strictly before `t`.
    let poll_before = |t: DateTime<Utc>| {
        let p = floor_minute(t - Duration::seconds(30)) + Duration::seconds(30);
        if p >= t { p - Duration::minutes(1) } else { p }
    };
    let events = [
        (
            "purge_abandoned_carts",
            "1",
            "HOUR",
            "2025-06-01 00:10:00",
            "DELETE FROM carts WHERE updated_at < NOW() - INTERVAL 2 DAY",
        ),
        (
            "rollup_daily_sales",
            "1",
            "DAY",
            "2025-06-01 00:30:00",
            "CALL rollup_daily_sales(CURDATE() - INTERVAL 1 DAY)",
        ),
        (
            "expire_coupons",
            "6",
            "HOUR",
            "2025-06-01 01:00:00",
            "UPDATE coupons SET active = 0 WHERE expires_at < NOW()",
        ),
        ("refresh_search_index", "1", "DAY", "2025-06-01 03:00:00", "CALL refresh_search_index()"),
        ("queue_newsletter", "1", "WEEK", "2025-06-02 06:00:00", "CALL queue_newsletter()"),
    ];
    let mut rows = Vec::new();
    let mut samples = Vec::new();
    for (name, value, field, starts, body) in events {
        let event = MysqlEvent {
            event_schema: Some("shop".into()),
            event_name: Some(name.into()),
            event_type: Some("RECURRING".into()),
            interval_value: Some(value.into()),
            interval_field: Some(field.into()),
            starts: Some(starts.into()),
            status: Some("ENABLED".into()),
            on_completion: Some("NOT PRESERVE".into()),
            time_zone: Some("SYSTEM".into()),
            ..MysqlEvent::default()
        };
        let window = Window::new(watched_since, stopped);
        let f = engine::forecast(1, &Schedule::MysqlEvent(event), chrono_tz::UTC.into(), window);
        let fired: Vec<DateTime<Utc>> = f.occurrences.iter().map(|o| o.at).collect();
        let mut seen = Vec::new();
        for (k, at) in fired.iter().enumerate() {
            let until = fired.get(k + 1).map_or_else(|| poll_before(now), |next| poll_before(*next));
            seen.push((*at, until));
        }
        let last = fired.last().map(|t| whole(t.naive_utc()));
        rows.push(vec![
            "def".into(),
            "shop".into(),
            name.into(),
            // The account that created it: its owner.
            match name {
                "rollup_daily_sales" => "reporting@%",
                "queue_newsletter" => "marketing@10.0.%",
                _ => "shop_admin@%",
            }
            .into(),
            "SYSTEM".into(),
            "SQL".into(),
            body.into(),
            "RECURRING".into(),
            Val::Null,
            value.into(),
            field.into(),
            "NO_ZERO_IN_DATE,NO_ZERO_DATE,NO_ENGINE_SUBSTITUTION".into(),
            starts.into(),
            Val::Null,
            "ENABLED".into(),
            "NOT PRESERVE".into(),
            last.into(),
        ]);
        samples.push(EventSamples { event: format!("shop.{name}"), first_seen: watched_since, samples: seen });
    }
    let tables = vec![
        Table {
            name: "EVENTS",
            create: "CREATE TABLE EVENTS (EVENT_CATALOG TEXT NOT NULL, EVENT_SCHEMA TEXT NOT NULL, \
                     EVENT_NAME TEXT NOT NULL, DEFINER TEXT NOT NULL, TIME_ZONE TEXT NOT NULL, EVENT_BODY TEXT NOT NULL, \
                     EVENT_DEFINITION TEXT NOT NULL, EVENT_TYPE TEXT NOT NULL, EXECUTE_AT DATETIME, INTERVAL_VALUE TEXT, \
                     INTERVAL_FIELD TEXT, SQL_MODE TEXT NOT NULL, STARTS DATETIME, ENDS DATETIME, STATUS TEXT NOT NULL, \
                     ON_COMPLETION TEXT NOT NULL, LAST_EXECUTED DATETIME)",
            columns: &[
                "EVENT_CATALOG",
                "EVENT_SCHEMA",
                "EVENT_NAME",
                "DEFINER",
                "TIME_ZONE",
                "EVENT_BODY",
                "EVENT_DEFINITION",
                "EVENT_TYPE",
                "EXECUTE_AT",
                "INTERVAL_VALUE",
                "INTERVAL_FIELD",
                "SQL_MODE",
                "STARTS",
                "ENDS",
                "STATUS",
                "ON_COMPLETION",
                "LAST_EXECUTED",
            ],
            rows,
        },
        Table {
            name: "GLOBAL_VARIABLES",
            create: "CREATE TABLE GLOBAL_VARIABLES (VARIABLE_NAME TEXT PRIMARY KEY, VARIABLE_VALUE TEXT)",
            columns: &["VARIABLE_NAME", "VARIABLE_VALUE"],
            rows: vec![
                vec!["event_scheduler".into(), "OFF".into()],
                vec!["time_zone".into(), "SYSTEM".into()],
                vec!["system_time_zone".into(), "UTC".into()],
                vec!["version".into(), "10.11.6-MariaDB-0+deb12u1".into()],
            ],
        },
    ];
    (tables, samples)
}

// -------------------------------------------------------------------------------------------
// The worker role's jobactivity

/// One `jobactivity` row: the job, its start, its stop (none: still going, or crashed).
type WorkerRun = (&'static str, DateTime<Utc>, Option<DateTime<Utc>>);

/// The worker role's `jobactivity` table (UTC): a month of runs of its three jobs; one run of
/// [`RUNNING_LONG_JOB`] going right now for three times its usual time, one nightly run that
/// crashed (never stopped) nine days ago.
pub fn jobactivity(now: DateTime<Utc>, seed: u64) -> Vec<Table> {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x00A1_C71F);
    let tz = chrono_tz::UTC;
    let slots = cron_times(RUNNING_LONG_SCHEDULE, tz, Window::new(now - Duration::days(DAYS), now));
    // The run going now started just after the latest slot; it usually takes a third as long
    // as it has been running.
    let current = slots.last().copied().unwrap_or(now);
    let started = current + Duration::seconds(4);
    let usual = ((now - started).num_seconds() / 3).max(20);
    let mut runs: Vec<WorkerRun> = Vec::new();
    for at in slots {
        let start = at + Duration::seconds(rng.random_range(2..9));
        if at == current {
            runs.push((RUNNING_LONG_JOB, started, None));
            continue;
        }
        let secs = (usual as f64 * rng.random_range(0.85..1.15)).round() as i64;
        runs.push((RUNNING_LONG_JOB, start, Some(start + Duration::seconds(secs))));
    }
    let crashed_day = (now - Duration::days(9)).date_naive();
    for (job, schedule) in WORKER_JOBS {
        for at in cron_times(schedule, tz, Window::new(now - Duration::days(DAYS), now)) {
            let start = at + Duration::seconds(rng.random_range(2..30));
            let secs = match job {
                "NightlyInvoiceRun" => rng.random_range(15 * 60..25 * 60),
                _ => rng.random_range(30..90),
            };
            let stop = start + Duration::seconds(secs);
            let crashed = job == "NightlyInvoiceRun" && at.date_naive() == crashed_day;
            runs.push((job, start, (!crashed && stop <= now).then_some(stop)));
        }
    }
    runs.sort_by_key(|r| r.1);
    let rows = runs
        .into_iter()
        .enumerate()
        .map(|(i, (job, start, stop))| {
            vec![
                (i as i64 + 1).into(),
                job.into(),
                text_time(start.naive_utc()).into(),
                stop.map(|t| text_time(t.naive_utc())).into(),
            ]
        })
        .collect();
    vec![Table {
        name: "jobactivity",
        create: "CREATE TABLE jobactivity (id INTEGER PRIMARY KEY, job_name NVARCHAR(200) NOT NULL, \
                 start_execution_date DATETIME NOT NULL, stop_execution_date DATETIME NULL)",
        columns: &["id", "job_name", "start_execution_date", "stop_execution_date"],
        rows,
    }]
}

// -------------------------------------------------------------------------------------------
// The MySQL stored-procedure runner's job table

/// The runner's `job` table (UTC) as it stands at `now`: each row's current runner, its cycle
/// counter and last cycle, from which Sundial's store rebuilds the month.
pub fn job_table(now: DateTime<Utc>) -> Vec<Table> {
    let aligned = |t: DateTime<Utc>, secs: i64| {
        DateTime::from_timestamp(t.timestamp().div_euclid(secs) * secs, 0).expect("a representable instant")
    };
    let t = |x: DateTime<Utc>| Val::from(whole(x.naive_utc()));
    let mut rows = Vec::new();
    // (id, owner, name, procedure, interval, runner started, cycle seconds)
    for (id, owner, name, procedure, interval, since_days, secs) in [
        (1_i64, "etl", "load_orders", "load_orders", 900_i64, 40_i64, 25_i64),
        (2, "etl", "sync_prices", "sync_prices", 3600, 12, 70),
    ] {
        let runner = aligned(now - Duration::days(since_days), interval);
        // The latest cycle that finished by now; the one after it has not started yet.
        let mut last = aligned(now, interval);
        if last + Duration::seconds(secs) > now {
            last -= Duration::seconds(interval);
        }
        let cycles = (last - runner).num_seconds() / interval + 1;
        rows.push(vec![
            id.into(),
            owner.into(),
            name.into(),
            owner.into(),
            procedure.into(),
            t(runner - Duration::days(60)),
            Val::Null,
            interval.into(),
            "SLEEPING".into(),
            t(runner),
            Val::Null,
            cycles.into(),
            t(last),
            t(last + Duration::seconds(secs)),
        ]);
    }
    // The nightly archive failed two nights ago: the runner stopped with ERROR.
    let day = 86_400;
    let runner = aligned(now - Duration::days(50), day) + Duration::hours(2);
    let failed = aligned(now - Duration::days(2), day) + Duration::hours(2);
    rows.push(vec![
        3.into(),
        "maint".into(),
        "archive_orders".into(),
        "maint".into(),
        "archive_orders".into(),
        t(runner),
        Val::Null,
        day.into(),
        "ERROR".into(),
        t(runner),
        t(failed + Duration::minutes(4)),
        ((failed - runner).num_days()).into(),
        t(failed),
        t(failed - Duration::days(1) + Duration::minutes(6)),
    ]);
    rows.push(vec![
        4.into(),
        "report".into(),
        "kpis".into(),
        "report".into(),
        "refresh_kpis".into(),
        t(aligned(now - Duration::days(200), day)),
        Val::Null,
        3600.into(),
        "DISABLED".into(),
        Val::Null,
        Val::Null,
        Val::Null,
        Val::Null,
        Val::Null,
    ]);
    vec![Table {
        name: "job",
        create: "CREATE TABLE job (job_id INTEGER PRIMARY KEY, job_owner VARCHAR(64) NOT NULL, \
                 job_name VARCHAR(64) NOT NULL, job_procedure_schema VARCHAR(64) NOT NULL, \
                 job_procedure_name VARCHAR(64) NOT NULL, job_schedule_start DATETIME, job_schedule_finish DATETIME, \
                 job_schedule_interval INT, job_status VARCHAR(16) NOT NULL DEFAULT 'ENABLED', \
                 job_runner_start DATETIME, job_runner_finish DATETIME, job_runner_cycles INT, \
                 job_runner_last_cycle_start DATETIME, job_runner_last_cycle_finish DATETIME)",
        columns: &[
            "job_id",
            "job_owner",
            "job_name",
            "job_procedure_schema",
            "job_procedure_name",
            "job_schedule_start",
            "job_schedule_finish",
            "job_schedule_interval",
            "job_status",
            "job_runner_start",
            "job_runner_finish",
            "job_runner_cycles",
            "job_runner_last_cycle_start",
            "job_runner_last_cycle_finish",
        ],
        rows,
    }]
}

// -------------------------------------------------------------------------------------------
// The Service Broker scheduler

/// The Service Broker scheduler's tables (UTC, as the design's `GETUTCDATE()` writes them):
/// four jobs and their latest runs, a month of `SchedulingErrors`, [`DISAGREEING_JOB`]'s stale
/// dialog timer, and [`FAILED_BROKER_JOB`], stopped by the failure of its last run.
pub fn service_broker(now: DateTime<Utc>) -> Vec<Table> {
    let day_at = |days_ago: i64, secs: i64| {
        let d = (now - Duration::days(days_ago)).date_naive();
        d.and_hms_opt(0, 0, 0).expect("midnight").and_utc() + Duration::seconds(secs)
    };
    // The latest daily time `secs` after midnight that is at least `margin` before now.
    let latest = |secs: i64, margin: Duration| {
        let today = day_at(0, secs);
        if today + margin <= now { today } else { today - Duration::days(1) }
    };
    let t = |x: DateTime<Utc>| Val::from(text_time(x.naive_utc()));
    let close = latest(3600, Duration::minutes(5));
    let rates = latest(7 * 3600, Duration::minutes(1));
    let monday = {
        let at = latest(5 * 3600, Duration::minutes(10));
        at - Duration::days(i64::from(at.weekday().num_days_from_monday()))
    };
    // The purge's run of `purge` failed in its second step; the one before it succeeded.
    let purge = latest(2 * 3600, Duration::minutes(10));
    let valid_from = day_at(120, 0);
    let schedules = vec![
        vec![1.into(), 1.into(), 1.into(), Val::Null, Val::Null, Val::Null, 3600.into()],
        // Moved from 07:00 (25200) to 06:00 yesterday; the timer still says 07:00.
        vec![2.into(), 1.into(), 1.into(), Val::Null, Val::Null, Val::Null, (6 * 3600).into()],
        vec![3.into(), 2.into(), 1.into(), "1".into(), Val::Null, Val::Null, (5 * 3600).into()],
        vec![4.into(), 1.into(), 1.into(), Val::Null, Val::Null, Val::Null, (2 * 3600).into()],
    ];
    let jobs = vec![
        vec![
            1.into(),
            1.into(),
            "Nightly ledger close".into(),
            t(valid_from),
            t(close),
            t(close + Duration::days(1)),
            1.into(),
        ],
        vec![
            2.into(),
            2.into(),
            DISAGREEING_JOB.into(),
            t(valid_from),
            t(rates),
            t(rates + Duration::days(1)),
            1.into(),
        ],
        vec![
            3.into(),
            3.into(),
            "Weekly statement mailing".into(),
            t(valid_from),
            t(monday),
            t(monday + Duration::days(7)),
            1.into(),
        ],
        // The run that failed stopped the job: disabled, no timer.
        vec![
            4.into(),
            4.into(),
            FAILED_BROKER_JOB.into(),
            t(valid_from),
            t(purge - Duration::days(1)),
            Val::Null,
            0.into(),
        ],
    ];
    let ms = |x: i64| Duration::milliseconds(x);
    let steps = vec![
        vec![
            1.into(),
            1.into(),
            "close period".into(),
            "EXEC gl.ClosePeriod".into(),
            0.into(),
            0.into(),
            "12.5".into(),
            t(close + ms(250)),
        ],
        vec![
            2.into(),
            1.into(),
            "post journals".into(),
            "EXEC gl.PostJournals".into(),
            1.into(),
            2.into(),
            "48.25".into(),
            t(close + ms(12_750)),
        ],
        vec![
            3.into(),
            2.into(),
            "fetch rates".into(),
            "EXEC fx.FetchEcbRates".into(),
            1.into(),
            3.into(),
            "3.5".into(),
            t(rates + ms(100)),
        ],
        vec![
            4.into(),
            3.into(),
            "render".into(),
            "EXEC stmt.Render".into(),
            0.into(),
            0.into(),
            "300".into(),
            t(monday + ms(500)),
        ],
        vec![
            5.into(),
            3.into(),
            "mail".into(),
            "EXEC stmt.Mail".into(),
            0.into(),
            0.into(),
            "20".into(),
            t(monday + ms(300_500)),
        ],
        vec![
            6.into(),
            4.into(),
            "stage".into(),
            "EXEC audit.StagePurge".into(),
            0.into(),
            0.into(),
            "2".into(),
            t(purge),
        ],
        vec![
            7.into(),
            4.into(),
            FAILED_BROKER_STEP.into(),
            "EXEC audit.DeleteOldRows".into(),
            0.into(),
            0.into(),
            "1.25".into(),
            t(purge - Duration::days(1) + ms(2_000)),
        ],
    ];
    const DEADLOCK: &str = "Transaction (Process ID 61) was deadlocked on lock resources with another process and \
                            has been chosen as the deadlock victim. Rerun the transaction.";
    const ECB: &str = "ECB reference rates not yet published for today (HTTP 404); retrying.";
    const FK_CONFLICT: &str = "The DELETE statement conflicted with the REFERENCE constraint \"FK_AuditDetail_Audit\". \
                               The conflict occurred in database \"Ledger\", table \"audit.AuditDetail\".";
    let mut errors = Vec::new();
    for (days_ago, job, step, number, severity, message, secs) in [
        (23, 1, 2, 1205, 13, DEADLOCK, 3600 + 20),
        (17, 2, 3, 50001, 16, ECB, 7 * 3600 + 2),
        (9, 1, 2, 1205, 13, DEADLOCK, 3600 + 18),
        (4, 2, 3, 50001, 16, ECB, 7 * 3600 + 3),
        (0, 4, 7, 547, 16, FK_CONFLICT, 2 * 3600 + 3),
    ] {
        let id = errors.len() as i64 + 1;
        errors.push(vec![
            id.into(),
            i64::from(job).into(),
            i64::from(step).into(),
            1.into(),
            i64::from(number).into(),
            message.into(),
            i64::from(severity).into(),
            1.into(),
            t(if days_ago == 0 {
                purge + Duration::milliseconds((secs - 2 * 3600) * 1000 + 250)
            } else {
                day_at(days_ago, secs)
            }),
        ]);
    }
    // The design's `CreatedOn` and `ErrorDate` default to GETUTCDATE(): here nothing defaults
    // to the clock (the file depends on `now` and the seed only).
    vec![
        Table {
            name: "JobSchedules",
            create: "CREATE TABLE JobSchedules (ID INTEGER PRIMARY KEY, FrequencyType INT NOT NULL, \
                     Frequency INT NOT NULL DEFAULT (1), AbsoluteSubFrequency VARCHAR(100), \
                     MontlyRelativeSubFrequencyWhich INT, MontlyRelativeSubFrequencyWhat INT, \
                     RunAtInSecondsFromMidnight INT NOT NULL DEFAULT (0))",
            columns: &[
                "ID",
                "FrequencyType",
                "Frequency",
                "AbsoluteSubFrequency",
                "MontlyRelativeSubFrequencyWhich",
                "MontlyRelativeSubFrequencyWhat",
                "RunAtInSecondsFromMidnight",
            ],
            rows: schedules,
        },
        Table {
            name: "ScheduledJobs",
            create: "CREATE TABLE ScheduledJobs (ID INTEGER PRIMARY KEY, JobScheduleId INT NOT NULL, \
                     ConversationHandle UNIQUEIDENTIFIER NULL, JobName NVARCHAR(256) NOT NULL DEFAULT (''), \
                     ValidFrom DATETIME NOT NULL, LastRunOn DATETIME, NextRunOn DATETIME, \
                     IsEnabled BIT NOT NULL DEFAULT (0), CreatedOn DATETIME NULL)",
            columns: &["ID", "JobScheduleId", "JobName", "ValidFrom", "LastRunOn", "NextRunOn", "IsEnabled"],
            rows: jobs,
        },
        Table {
            name: "ScheduledJobSteps",
            create: "CREATE TABLE ScheduledJobSteps (ID INTEGER PRIMARY KEY, ScheduledJobId INT NOT NULL, \
                     StepName NVARCHAR(256) NOT NULL DEFAULT (''), SqlToRun NVARCHAR NOT NULL, \
                     RetryOnFail BIT NOT NULL DEFAULT (0), RetryOnFailTimes INT NOT NULL DEFAULT (0), \
                     DurationInSeconds DECIMAL(14,4) DEFAULT (0), \
                     CreatedOn DATETIME NULL, LastExecutedOn DATETIME)",
            columns: &[
                "ID",
                "ScheduledJobId",
                "StepName",
                "SqlToRun",
                "RetryOnFail",
                "RetryOnFailTimes",
                "DurationInSeconds",
                "LastExecutedOn",
            ],
            rows: steps,
        },
        Table {
            name: "SchedulingErrors",
            create: "CREATE TABLE SchedulingErrors (Id INTEGER PRIMARY KEY, ScheduledJobId INT, \
                     ScheduledJobStepId INT, ErrorLine INT, ErrorNumber INT, ErrorMessage NVARCHAR, ErrorSeverity INT, \
                     ErrorState INT, ErrorDate DATETIME NOT NULL)",
            columns: &[
                "Id",
                "ScheduledJobId",
                "ScheduledJobStepId",
                "ErrorLine",
                "ErrorNumber",
                "ErrorMessage",
                "ErrorSeverity",
                "ErrorState",
                "ErrorDate",
            ],
            rows: errors,
        },
    ]
}

// -------------------------------------------------------------------------------------------
// Primentra

/// One `SchedulerLog` row: (EventTime, EntityId, EventType, TriggerSource, Message, RowsQueued,
/// DurationMs, BatchId).
type LogLine = (DateTime<Utc>, i64, &'static str, Option<&'static str>, String, Option<i64>, Option<i64>, Option<i64>);

/// Primentra's tables (UTC): Orders nightly at 02:00 (a month of batches, one failed), Customers
/// every 60 minutes, Products by hand.
pub fn primentra(now: DateTime<Utc>, seed: u64) -> Vec<Table> {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x0091_3E47);
    let t = |x: DateTime<Utc>| Val::from(text_time(x.naive_utc()));
    let mut log: Vec<LogLine> = Vec::new();
    let mut batch = 1000;
    let failed_night = (now - Duration::days(8)).date_naive();
    let mut last_orders = None;
    for at in cron_times("0 2 * * *", chrono_tz::UTC, history(now)) {
        let fired = at + Duration::seconds(5);
        let ms = rng.random_range(40_000..80_000_i64);
        let end = fired + Duration::milliseconds(ms);
        if end > now {
            continue;
        }
        batch += 1;
        let rows = rng.random_range(900..1600_i64);
        log.push((fired, 10, "fired", Some("Schedule"), String::new(), Some(rows), None, Some(batch)));
        if at.date_naive() == failed_night {
            let message = "Conversion failed when converting date and/or time from character string.".to_owned();
            log.push((fired + Duration::seconds(4), 10, "error", None, message, None, None, None));
        } else {
            log.push((
                end,
                10,
                "completed",
                Some("Schedule"),
                format!("{rows} rows"),
                Some(rows),
                Some(ms),
                Some(batch),
            ));
            last_orders = Some(end);
        }
    }
    // Customers: every 60 minutes from its last run's start (an interval schedule).
    let mut at = floor_minute(now - Duration::days(DAYS)) + Duration::seconds(30);
    let mut last_customers = None;
    while at + Duration::minutes(2) <= now {
        let ms = rng.random_range(3_000..20_000_i64);
        let end = at + Duration::milliseconds(ms);
        batch += 1;
        let rows = rng.random_range(0..120_i64);
        log.push((at, 11, "fired", Some("Schedule"), String::new(), Some(rows), None, Some(batch)));
        log.push((end, 11, "completed", Some("Schedule"), format!("{rows} rows"), Some(rows), Some(ms), Some(batch)));
        last_customers = Some((at, end));
        at += Duration::minutes(60);
    }
    // Products: by hand, twice.
    for days in [20, 6] {
        let at = floor_minute(now - Duration::days(days) - Duration::hours(3));
        batch += 1;
        log.push((at, 12, "fired", Some("Manual"), String::new(), Some(14), None, Some(batch)));
        log.push((
            at + Duration::seconds(41),
            12,
            "completed",
            Some("Manual"),
            "14 rows".into(),
            Some(14),
            Some(41_000),
            Some(batch),
        ));
    }
    log.sort_by_key(|r| r.0);
    let log_rows = log
        .into_iter()
        .enumerate()
        .map(|(i, (at, entity, kind, source, message, rows, ms, batch))| {
            vec![
                (i as i64 + 1).into(),
                entity.into(),
                t(at),
                kind.into(),
                source.into(),
                message.into(),
                rows.into(),
                ms.into(),
                batch.into(),
            ]
        })
        .collect();
    let next_orders =
        cron_times("0 2 * * *", chrono_tz::UTC, Window::new(now, now + Duration::days(2))).first().copied();
    let (customers_at, customers_end) = last_customers.unwrap_or((now, now));
    vec![
        Table {
            name: "Entities",
            create: "CREATE TABLE Entities (Id INTEGER PRIMARY KEY, Name NVARCHAR(200) NOT NULL)",
            columns: &["Id", "Name"],
            rows: vec![
                vec![10.into(), "Orders".into()],
                vec![11.into(), "Customers".into()],
                vec![12.into(), "Products".into()],
            ],
        },
        Table {
            name: "SchedulerConfigurations",
            create: "CREATE TABLE SchedulerConfigurations (Id INTEGER PRIMARY KEY, EntityId INT NULL, \
                     ProcessingMode NVARCHAR(20) NOT NULL DEFAULT 'manual', ScheduleType NVARCHAR(20) NULL, \
                     IntervalMinutes INT NULL, RunTimes NVARCHAR(200) NULL, RunDays NVARCHAR(100) NULL, \
                     RunDaysOfMonth NVARCHAR(100) NULL, TriggerOnNewRows BIT NOT NULL DEFAULT 0, \
                     TriggerRowThreshold INT NULL, TriggerIdleMinutes INT NULL, \
                     TriggerDebounceSeconds INT NOT NULL DEFAULT 60, IsRunning BIT NOT NULL DEFAULT 0, \
                     RunStartedAt DATETIME2 NULL, RunStartedBy NVARCHAR(50) NULL, NextScheduledRun DATETIME2 NULL, \
                     LastCompletedAt DATETIME2 NULL, LastTriggerCheck DATETIME2 NULL, IsEnabled BIT NOT NULL DEFAULT 1)",
            columns: &[
                "Id",
                "EntityId",
                "ProcessingMode",
                "ScheduleType",
                "IntervalMinutes",
                "RunTimes",
                "TriggerOnNewRows",
                "IsRunning",
                "NextScheduledRun",
                "LastCompletedAt",
                "IsEnabled",
            ],
            rows: vec![
                vec![
                    1.into(),
                    10.into(),
                    "scheduled".into(),
                    "daily".into(),
                    Val::Null,
                    "02:00".into(),
                    0.into(),
                    0.into(),
                    next_orders.map(|x| text_time(x.naive_utc())).into(),
                    last_orders.map(|x| text_time(x.naive_utc())).into(),
                    1.into(),
                ],
                vec![
                    2.into(),
                    11.into(),
                    "scheduled".into(),
                    "interval".into(),
                    60.into(),
                    Val::Null,
                    0.into(),
                    0.into(),
                    t(customers_at + Duration::minutes(60)),
                    t(customers_end),
                    1.into(),
                ],
                vec![
                    3.into(),
                    12.into(),
                    "manual".into(),
                    Val::Null,
                    Val::Null,
                    Val::Null,
                    0.into(),
                    0.into(),
                    Val::Null,
                    Val::Null,
                    1.into(),
                ],
            ],
        },
        Table {
            name: "SchedulerLog",
            create: "CREATE TABLE SchedulerLog (Id INTEGER PRIMARY KEY, EntityId INT NOT NULL, \
                     EventTime DATETIME2 NOT NULL, EventType NVARCHAR(30) NOT NULL, TriggerSource NVARCHAR(100) NULL, \
                     Message NVARCHAR(500) NULL, RowsQueued INT NULL, DurationMs INT NULL, BatchId INT NULL)",
            columns: &[
                "Id",
                "EntityId",
                "EventTime",
                "EventType",
                "TriggerSource",
                "Message",
                "RowsQueued",
                "DurationMs",
                "BatchId",
            ],
            rows: log_rows,
        },
    ]
}
