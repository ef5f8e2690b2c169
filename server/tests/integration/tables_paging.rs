//! The seed schedulers' growing tables read by pages (issue 27), against the real MariaDB 10.11
//! the other tests start and a SQLite file: a history larger than a page
//! (`tables::PAGE`, 1,000 rows) is read whole by a first read and by a delta, across several
//! queries of at most a page each, and no row is read twice (counted by the source: rows,
//! queries and the largest answer, per table; the assertions fail if a read asks for the whole
//! history at once or repeats a page).
//!
//! - `jobactivity` (seed 001): by its start (a time, not unique: each page goes on from the
//!   second of the latest start the page before read, so that second's one row is fetched again).
//! - Primentra's `SchedulerLog` (seed 004) and the Service Broker scheduler's `SchedulingErrors`
//!   (seed 003): by their identity `Id`; the errors of the run still rebuilt are asked for by
//!   lists of at most a page of `Id`s.
use crate::support::servers::{TestServer, port};
use crate::support::t;
use chrono::{DateTime, Duration, Utc};
use server::sources::connect::TablesSource;
use server::sources::tables::{Fetched, PAGE};
use server::sources::{self, Extent, ReadContext, SourceRead, jobactivity, primentra, service_broker};
use sqlx::Connection;
use sundial_engine::log::LogKind;
use sundial_engine::{RunOutcome, Window};

/// Where the test writes the scheduler's rows (as the scheduler would).
enum Admin {
    Maria(sqlx::MySqlPool),
    Lite(sqlx::SqliteConnection),
}

impl Admin {
    async fn exec(&mut self, sql: &str) {
        match self {
            Admin::Maria(pool) => sqlx::query(sqlx::AssertSqlSafe(sql.to_owned())).execute(&*pool).await.map(|_| ()),
            Admin::Lite(c) => sqlx::query(sqlx::AssertSqlSafe(sql.to_owned())).execute(&mut *c).await.map(|_| ()),
        }
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    /// `rows` inserted 500 at a time.
    async fn insert(&mut self, into: &str, rows: &[String]) {
        for chunk in rows.chunks(500) {
            self.exec(&format!("INSERT INTO {into} VALUES {}", chunk.join(", "))).await;
        }
    }
}

fn at(x: DateTime<Utc>) -> String {
    x.format("%Y-%m-%d %H:%M:%S").to_string()
}

fn now() -> DateTime<Utc> {
    t("2026-03-07T13:40:00Z")
}

fn config(kind: &str, target: &str) -> server::config::InstanceConfig {
    let text = format!(
        "[[instance]]\nname = \"paged\"\nkind = \"{kind}\"\ntime_zone = \"UTC\"\nschedule = \"*/10 * * * *\"\n{target}\n"
    );
    server::config::parse(&text, "paging.toml").unwrap_or_else(|e| panic!("{e}")).instances.remove(0)
}

/// A poll as the fleet's reader makes it, 30 days back from `now`: the read, and what the
/// source fetched of `table` for it (the largest answer: of every read so far).
async fn poll(
    source: &TablesSource,
    config: &server::config::InstanceConfig,
    table: &str,
    held: Option<&SourceRead>,
    now: DateTime<Utc>,
) -> (SourceRead, Fetched) {
    let window = Window::new(now - Duration::days(30), now + Duration::milliseconds(1));
    let before = source.fetched(table);
    let cx = ReadContext { config, window, now, store: None, held };
    let read = sources::read(source, cx).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read.extent, Extent::Whole);
    let after = source.fetched(table);
    let fetched =
        Fetched { rows: after.rows - before.rows, queries: after.queries - before.queries, largest: after.largest };
    (read, fetched)
}

fn runs(read: &SourceRead, job: &str) -> Vec<(DateTime<Utc>, RunOutcome)> {
    let job = read.input.jobs.iter().find(|j| j.id == job).unwrap_or_else(|| panic!("{job} is read"));
    job.runs.iter().map(|r| (r.start, r.outcome)).collect()
}

/// Each start once, in order.
fn distinct(runs: &[(DateTime<Utc>, RunOutcome)]) -> bool {
    runs.windows(2).all(|w| w[0].0 < w[1].0)
}

// --- jobactivity -----------------------------------------------------------------------------

/// 2,500 finished runs ten minutes apart (17 days), then 1,200 more a minute apart.
async fn jobactivity(admin: &mut Admin, config: &server::config::InstanceConfig) {
    admin
        .exec(
            "CREATE TABLE jobactivity (job_id CHAR(36) NOT NULL, job_name VARCHAR(100) NOT NULL, \
             start_execution_date DATETIME(3) NOT NULL, stop_execution_date DATETIME(3) NULL)",
        )
        .await;
    let row = |s: DateTime<Utc>| format!("('g', 'Worker', '{}', '{}')", at(s), at(s + Duration::seconds(30)));
    let history: Vec<String> = (0..2500).rev().map(|i| now() - Duration::minutes(40 + 10 * i)).map(row).collect();
    admin.insert("jobactivity", &history).await;

    let source = TablesSource::new(jobactivity::read);
    let (first, fetched) = poll(&source, config, "jobactivity", None, now()).await;
    let worker = runs(&first, "Worker");
    assert_eq!(worker.len(), 2500, "the whole window is read across the pages");
    assert!(distinct(&worker));
    assert!(fetched.largest <= PAGE as u64, "no answer is larger than a page: {fetched:?}");
    // Three pages (1,000, 1,000, 502: each full page's last second read again by the next) and
    // the job names.
    assert_eq!(fetched.queries, 3 + 1, "{fetched:?}");
    assert_eq!(fetched.rows, 2500 + 2 + 1, "nothing read twice but a page's last second: {fetched:?}");

    // 1,200 runs later: a delta larger than a page.
    let new: Vec<DateTime<Utc>> = (1..=1200).map(|i| now() + Duration::minutes(i)).collect();
    admin.insert("jobactivity", &new.iter().copied().map(row).collect::<Vec<_>>()).await;
    let later = now() + Duration::hours(21);
    let (second, fetched) = poll(&source, config, "jobactivity", Some(&first), later).await;
    let worker = runs(&second, "Worker");
    assert_eq!(worker.len(), 3700, "the new runs are read across the pages");
    assert!(distinct(&worker));
    assert_eq!(worker.last().map(|r| r.0), new.last().copied());
    assert!(fetched.largest <= PAGE as u64, "{fetched:?}");
    // Both ends, then from the mark's row: 1,000 (its last second again) and 202.
    assert_eq!((fetched.queries, fetched.rows), (2 + 2, 2 + 1000 + 202), "{fetched:?}");
}

#[tokio::test]
async fn jobactivity_in_sqlite_is_read_by_pages() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("worker.sqlite");
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
    let mut admin = Admin::Lite(sqlx::SqliteConnection::connect_with(&options).await.unwrap());
    jobactivity(&mut admin, &config("jobactivity", &format!("path = {:?}", path.display().to_string()))).await;
}

/// More rows than a page in one second (distinct jobs): that second is read whole, once, and
/// the pages go on after it.
#[tokio::test]
async fn jobactivity_with_a_page_of_rows_in_one_second() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("worker.sqlite");
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
    let mut admin = Admin::Lite(sqlx::SqliteConnection::connect_with(&options).await.unwrap());
    admin
        .exec(
            "CREATE TABLE jobactivity (job_id CHAR(36) NOT NULL, job_name VARCHAR(100) NOT NULL, \
             start_execution_date DATETIME(3) NOT NULL, stop_execution_date DATETIME(3) NULL)",
        )
        .await;
    let burst = now() - Duration::hours(3);
    let row =
        |job: usize, s: DateTime<Utc>| format!("('g', 'job{job}', '{}', '{}')", at(s), at(s + Duration::seconds(9)));
    let mut rows: Vec<String> = (0..1100).map(|j| row(j, burst)).collect();
    rows.extend((0..10).map(|i| row(0, burst + Duration::minutes(i + 1))));
    admin.insert("jobactivity", &rows).await;
    let source = TablesSource::new(jobactivity::read);
    let config = config("jobactivity", &format!("path = {:?}", path.display().to_string()));
    let (read, fetched) = poll(&source, &config, "jobactivity", None, now()).await;
    let all: usize = read.input.jobs.iter().map(|j| j.runs.len()).sum();
    assert_eq!(all, 1110, "every row once");
    assert_eq!(runs(&read, "job0").len(), 11);
    // A full page in one second, that second whole (1,100), the rest (10); the job names.
    assert_eq!((fetched.queries, fetched.rows), (3 + 1, 1000 + 1100 + 10 + 1100), "{fetched:?}");
}

// --- Primentra's SchedulerLog ----------------------------------------------------------------

/// 1,300 batches twenty minutes apart (2,600 log rows), then 550 more (1,100 rows).
async fn primentra(admin: &mut Admin, config: &server::config::InstanceConfig, identity: &str) {
    for sql in [
        "CREATE TABLE Entities (Id INT PRIMARY KEY, Name VARCHAR(200) NOT NULL)".to_owned(),
        "CREATE TABLE SchedulerConfigurations (Id INT PRIMARY KEY, EntityId INT NULL, ProcessingMode VARCHAR(20), \
         ScheduleType VARCHAR(20), IntervalMinutes INT, RunTimes VARCHAR(200), RunDays VARCHAR(100), \
         RunDaysOfMonth VARCHAR(100), TriggerOnNewRows INT, TriggerRowThreshold INT, TriggerIdleMinutes INT, \
         TriggerDebounceSeconds INT, IsRunning INT, RunStartedAt DATETIME(6), RunStartedBy VARCHAR(50), \
         NextScheduledRun DATETIME(6), LastCompletedAt DATETIME(6), LastTriggerCheck DATETIME(6), IsEnabled INT)"
            .to_owned(),
        format!(
            "CREATE TABLE SchedulerLog (Id {identity}, EntityId INT NOT NULL, EventTime DATETIME(6) NOT NULL, \
             EventType VARCHAR(30) NOT NULL, TriggerSource VARCHAR(100), Message VARCHAR(500), RowsQueued INT, \
             DurationMs INT, BatchId INT)"
        ),
        "INSERT INTO Entities VALUES (10, 'Orders')".to_owned(),
        "INSERT INTO SchedulerConfigurations (Id, EntityId, ProcessingMode, IsEnabled) VALUES (1, 10, 'manual', 1)"
            .to_owned(),
    ] {
        admin.exec(&sql).await;
    }
    let log =
        |x: DateTime<Utc>, kind: &str| format!("(10, '{}', '{kind}', 'Manual', 'batch', NULL, NULL, NULL)", at(x));
    let into = "SchedulerLog (EntityId, EventTime, EventType, TriggerSource, Message, RowsQueued, DurationMs, BatchId)";
    let batches = |starts: Vec<DateTime<Utc>>| -> Vec<String> {
        starts.into_iter().flat_map(|s| [log(s, "fired"), log(s + Duration::minutes(2), "completed")]).collect()
    };
    admin.insert(into, &batches((1..=1300).rev().map(|i| now() - Duration::minutes(20 * i)).collect())).await;

    let source = TablesSource::new(primentra::read);
    let (first, fetched) = poll(&source, config, "SchedulerLog", None, now()).await;
    let orders = runs(&first, "10");
    assert_eq!(orders.len(), 1300, "the whole window is read across the pages");
    assert!(distinct(&orders) && orders.iter().all(|r| r.1 == RunOutcome::Succeeded));
    assert_eq!((fetched.queries, fetched.rows, fetched.largest), (3, 2600, PAGE as u64), "pages of 1,000, 1,000, 600");

    let new: Vec<DateTime<Utc>> = (1..=550).map(|i| now() + Duration::minutes(5 * i)).collect();
    admin.insert(into, &batches(new.clone())).await;
    let later = now() + Duration::hours(47);
    let (second, fetched) = poll(&source, config, "SchedulerLog", Some(&first), later).await;
    let orders = runs(&second, "10");
    assert_eq!(orders.len(), 1850, "the new batches are read across the pages");
    assert!(distinct(&orders));
    assert_eq!(orders.last().map(|r| r.0), new.last().copied());
    assert_eq!(second.events.len(), first.events.len() + 1100, "each new row one line, none twice");
    // Both ends, then past the mark: 1,000 and 100.
    assert_eq!((fetched.queries, fetched.rows, fetched.largest), (2 + 2, 2 + 1100, PAGE as u64));
}

#[tokio::test]
async fn primentra_log_in_sqlite_is_read_by_pages() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("primentra.sqlite");
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
    let mut admin = Admin::Lite(sqlx::SqliteConnection::connect_with(&options).await.unwrap());
    let config = config("primentra", &format!("path = {:?}", path.display().to_string()));
    primentra(&mut admin, &config, "INTEGER PRIMARY KEY AUTOINCREMENT").await;
}

// --- Service Broker's SchedulingErrors -------------------------------------------------------

/// 2,500 errors of runs before the job's LastRunOn, then 1,200 of the run from it (the run still
/// rebuilt: its errors are asked for again by `Id`, in lists of at most a page).
async fn service_broker(admin: &mut Admin, config: &server::config::InstanceConfig, identity: &str) {
    let day7 = t("2026-03-07T02:00:00Z");
    for sql in [
        "CREATE TABLE JobSchedules (ID INT PRIMARY KEY, FrequencyType INT NOT NULL, Frequency INT NOT NULL, \
         AbsoluteSubFrequency VARCHAR(100), MontlyRelativeSubFrequencyWhich INT, MontlyRelativeSubFrequencyWhat INT, \
         RunAtInSecondsFromMidnight INT NOT NULL)"
            .to_owned(),
        "CREATE TABLE ScheduledJobs (ID INT PRIMARY KEY, JobScheduleId INT NOT NULL, JobName VARCHAR(256) NOT NULL, \
         ValidFrom DATETIME(3) NOT NULL, LastRunOn DATETIME(3), NextRunOn DATETIME(3), IsEnabled INT NOT NULL)"
            .to_owned(),
        "CREATE TABLE ScheduledJobSteps (ID INT PRIMARY KEY, ScheduledJobId INT NOT NULL, StepName VARCHAR(256), \
         RetryOnFail INT NOT NULL, RetryOnFailTimes INT NOT NULL, DurationInSeconds DECIMAL(14,4), \
         LastExecutedOn DATETIME(3))"
            .to_owned(),
        format!(
            "CREATE TABLE SchedulingErrors (Id {identity}, ScheduledJobId INT, ScheduledJobStepId INT, ErrorLine INT, \
             ErrorNumber INT, ErrorMessage VARCHAR(4000), ErrorSeverity INT, ErrorState INT, ErrorDate DATETIME(3) NOT NULL)"
        ),
        "INSERT INTO JobSchedules VALUES (1, 1, 1, NULL, NULL, NULL, 7200)".to_owned(),
        format!(
            "INSERT INTO ScheduledJobs VALUES (1, 1, 'nightly', '2026-01-01 00:00:00', '{}', '{}', 1)",
            at(day7),
            at(day7 + Duration::days(1))
        ),
        format!("INSERT INTO ScheduledJobSteps VALUES (1, 1, 'load', 1, 3, 10, '{}')", at(day7 + Duration::seconds(5))),
    ] {
        admin.exec(&sql).await;
    }
    let into = "SchedulingErrors (ScheduledJobId, ScheduledJobStepId, ErrorLine, ErrorNumber, ErrorMessage, \
                ErrorSeverity, ErrorState, ErrorDate)";
    let error = |x: DateTime<Utc>| format!("(1, 1, 1, 1205, 'deadlock', 13, 1, '{}')", at(x));
    let old: Vec<String> = (1..=2500).rev().map(|i| error(day7 - Duration::minutes(10 * i))).collect();
    admin.insert(into, &old).await;
    // A line per error (the rebuilt run's own line, which names them all, aside).
    let lines = |read: &SourceRead| {
        let mut lines: Vec<DateTime<Utc>> = read
            .events
            .iter()
            .filter(|e| e.text.contains("1205") && e.kind != LogKind::Succeeded)
            .map(|e| e.at)
            .collect();
        lines.sort();
        lines
    };

    let source = TablesSource::new(service_broker::read);
    let (first, fetched) = poll(&source, config, "SchedulingErrors", None, now()).await;
    assert_eq!(lines(&first).len(), 2500, "the whole window is read across the pages");
    assert_eq!((fetched.queries, fetched.rows, fetched.largest), (3, 2500, PAGE as u64), "1,000, 1,000, 500");

    // The run from LastRunOn on fails 1,200 times (its errors are then re-read by `Id`).
    let new: Vec<String> = (1..=1200).map(|i| error(day7 + Duration::seconds(60 + i))).collect();
    admin.insert(into, &new).await;
    let (second, fetched) = poll(&source, config, "SchedulingErrors", Some(&first), now() + Duration::minutes(1)).await;
    let seen = lines(&second);
    assert_eq!(seen.len(), 3700, "the new errors are read across the pages");
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "each error one line");
    // Both ends, then past the mark: 1,000 and 200.
    assert_eq!((fetched.queries, fetched.rows, fetched.largest), (2 + 2, 2 + 1200, PAGE as u64));

    // Nothing new: the rebuilt run's 1,200 errors again, by two lists of `Id`s (and an empty page).
    let (third, fetched) = poll(&source, config, "SchedulingErrors", Some(&second), now() + Duration::minutes(2)).await;
    assert_eq!(lines(&third), seen, "the same lines, none twice");
    assert_eq!((fetched.queries, fetched.rows, fetched.largest), (2 + 1 + 2, 2 + 1200, PAGE as u64));
}

#[tokio::test]
async fn service_broker_errors_in_sqlite_are_read_by_pages() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broker.sqlite");
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
    let mut admin = Admin::Lite(sqlx::SqliteConnection::connect_with(&options).await.unwrap());
    let config = config("service_broker", &format!("path = {:?}", path.display().to_string()));
    service_broker(&mut admin, &config, "INTEGER PRIMARY KEY AUTOINCREMENT").await;
}

// --- MariaDB: the three tables, one server ---------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn seed_tables_in_mariadb_are_read_by_pages() {
    let server = TestServer::mariadb("sundial-paging-", port::PAGING_MARIA);
    let root = server.maria_root().await;
    let mut admin = Admin::Maria(root);
    admin.exec("CREATE USER paged_reader@'127.0.0.1'").await;
    let target = |db: &str| {
        format!(
            "engine = \"mysql\"\nhost = \"127.0.0.1\"\nport = {}\nuser = \"paged_reader\"\ndatabase = \"{db}\"",
            port::PAGING_MARIA
        )
    };
    for db in ["worker", "primentra", "broker"] {
        admin.exec(&format!("CREATE DATABASE {db}")).await;
        admin.exec(&format!("GRANT SELECT ON {db}.* TO paged_reader@'127.0.0.1'")).await;
    }
    admin.exec("USE worker").await;
    jobactivity(&mut admin, &config("jobactivity", &target("worker"))).await;
    admin.exec("USE primentra").await;
    primentra(&mut admin, &config("primentra", &target("primentra")), "INT AUTO_INCREMENT PRIMARY KEY").await;
    admin.exec("USE broker").await;
    service_broker(&mut admin, &config("service_broker", &target("broker")), "INT AUTO_INCREMENT PRIMARY KEY").await;
}
