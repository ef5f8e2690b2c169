//! The seed schedulers' history tables read incrementally (issue 27), against the real MariaDB
//! 10.11 the other tests start and a SQLite file: after a first read, a poll fetches only the
//! rows past the mark and the rows it saw unfinished (counted by the source per table: the
//! assertions fail if a poll re-reads the window); a run going at one poll and ended at the next
//! is one run with the later outcome; a row updated in place below the mark is seen; a history
//! that went back (the table emptied and refilled) is detected, read whole again and noted, and
//! runs read before are still shown.
//!
//! - `jobactivity` (seed 001): keyed by `start_execution_date`; a run's `stop_execution_date`
//!   is written in place when it ends.
//! - Primentra's `SchedulerLog` (seed 004): keyed by its identity `Id`; a run is its `fired`
//!   row and the end row logged after it.
//!
//! Each poll does what the fleet's reader does: `sources::read` with the held read (which
//! merges a delta into it). "now" is the test's own (the readers take the poll's time).
use crate::support::servers::{TestServer, port};
use crate::support::t;
use chrono::{DateTime, Duration, Utc};
use server::sources::connect::TablesSource;
use server::sources::{self, Extent, ReadContext, SourceRead, jobactivity, primentra, service_broker};
use sqlx::Connection;
use sundial_engine::log::LogKind;
use sundial_engine::{RunOutcome, Window};

/// Where the test writes the scheduler's rows (as the scheduler would): MariaDB's root, or the
/// SQLite file.
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

    /// `DELETE` every row (MariaDB: `TRUNCATE`, which also resets the identity).
    async fn empty(&mut self, table: &str) {
        match self {
            Admin::Maria(_) => self.exec(&format!("TRUNCATE TABLE {table}")).await,
            Admin::Lite(_) => {
                self.exec(&format!("DELETE FROM {table}")).await;
                if table != "jobactivity" {
                    self.exec(&format!("DELETE FROM sqlite_sequence WHERE name = '{table}'")).await;
                }
            }
        }
    }
}

fn at(x: DateTime<Utc>) -> String {
    x.format("%Y-%m-%d %H:%M:%S").to_string()
}

fn now() -> DateTime<Utc> {
    t("2026-03-07T13:40:00Z")
}

/// A poll as the fleet's reader makes it, 30 days back from `now`; the read and how many rows
/// of `table` the source fetched for it.
async fn poll(
    source: &TablesSource,
    config: &server::config::InstanceConfig,
    table: &str,
    held: Option<&SourceRead>,
    now: DateTime<Utc>,
) -> (SourceRead, u64) {
    let window = Window::new(now - Duration::days(30), now + Duration::milliseconds(1));
    let before = source.rows_read(table);
    let cx = ReadContext { config, window, now, store: None, held };
    let read = sources::read(source, cx).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read.extent, Extent::Whole, "every read past sources::read is whole");
    (read, source.rows_read(table) - before)
}

fn runs(read: &SourceRead, job: &str) -> Vec<(DateTime<Utc>, RunOutcome)> {
    let job = read.input.jobs.iter().find(|j| j.id == job).unwrap_or_else(|| panic!("{job} is read"));
    job.runs.iter().map(|r| (r.start, r.outcome)).collect()
}

fn config(kind: &str, target: &str) -> server::config::InstanceConfig {
    let text = format!(
        "[[instance]]\nname = \"inc\"\nkind = \"{kind}\"\ntime_zone = \"UTC\"\nschedule = \"*/10 * * * *\"\n{target}\n"
    );
    let mut fleet = server::config::parse(&text, "incremental.toml").unwrap_or_else(|e| panic!("{e}"));
    fleet.instances.remove(0)
}

// --- jobactivity ---------------------------------------------------------------------------

/// Two days of finished runs every ten minutes up to 13:00, then 13:20 still running (stopped
/// later, in place, below the mark) and 13:30 finished.
async fn jobactivity(admin: &mut Admin, config: &server::config::InstanceConfig) {
    admin
        .exec(
            "CREATE TABLE jobactivity (job_id CHAR(36) NOT NULL, job_name VARCHAR(100) NOT NULL, \
             start_execution_date DATETIME(3) NOT NULL, stop_execution_date DATETIME(3) NULL)",
        )
        .await;
    let row = |start: DateTime<Utc>, stop: Option<DateTime<Utc>>| {
        let stop = stop.map_or("NULL".to_owned(), |s| format!("'{}'", at(s)));
        format!("('g', 'Worker', '{}', {stop})", at(start))
    };
    let history: Vec<String> = (0..288)
        .map(|i| now() - Duration::minutes(40 + 10 * i))
        .map(|s| row(s, Some(s + Duration::seconds(90))))
        .collect();
    admin.exec(&format!("INSERT INTO jobactivity VALUES {}", history.join(", "))).await;
    let slow = now() - Duration::minutes(20);
    let quick = now() - Duration::minutes(10);
    admin.exec(&format!("INSERT INTO jobactivity VALUES {}", row(slow, None))).await;
    admin.exec(&format!("INSERT INTO jobactivity VALUES {}", row(quick, Some(quick + Duration::seconds(30))))).await;

    let source = TablesSource::new(jobactivity::read);
    let (first, fetched) = poll(&source, config, "jobactivity", None, now()).await;
    // The window's 290 runs, and the job names (one).
    assert_eq!(fetched, 291, "the first read takes the window");
    assert_eq!(runs(&first, "Worker").len(), 290);
    assert!(runs(&first, "Worker").contains(&(slow, RunOutcome::InProgress)));

    // Nothing new: both ends, the row at the mark (13:30), the unstopped 13:20.
    let later = now() + Duration::minutes(1);
    let (second, fetched) = poll(&source, config, "jobactivity", Some(&first), later).await;
    assert_eq!(fetched, 4, "a poll with nothing new reads no history");
    assert_eq!(runs(&second, "Worker"), runs(&first, "Worker"));

    // 13:20 stops (its row updated in place, below the mark); 13:40 starts.
    admin
        .exec(&format!(
            "UPDATE jobactivity SET stop_execution_date = '{}' WHERE start_execution_date = '{}'",
            at(later),
            at(slow)
        ))
        .await;
    let next = now() + Duration::seconds(5);
    admin.exec(&format!("INSERT INTO jobactivity VALUES {}", row(next, None))).await;
    let (third, fetched) = poll(&source, config, "jobactivity", Some(&second), later + Duration::minutes(1)).await;
    assert_eq!(fetched, 5, "both ends, 13:30 and 13:40 past the mark, 13:20 again");
    let worker = runs(&third, "Worker");
    assert_eq!(worker.len(), 291, "13:20 going then ended is one run; 13:40 is new");
    assert_eq!(worker.iter().filter(|r| r.0 == slow).collect::<Vec<_>>(), [&(slow, RunOutcome::Succeeded)]);
    assert_eq!(worker.last(), Some(&(next, RunOutcome::InProgress)));
    assert!(third.mark.as_ref().is_some_and(|m| m.restarted.is_none()));

    // The table emptied and refilled from an older copy (a restore): its latest start is below
    // the mark. Read whole again and noted; the runs read before are still shown.
    admin.empty("jobactivity").await;
    let restored: Vec<String> =
        (1..=3).map(|i| now() - Duration::days(1) - Duration::minutes(i)).map(|s| row(s, Some(s))).collect();
    admin.exec(&format!("INSERT INTO jobactivity VALUES {}", restored.join(", "))).await;
    let (fourth, _) = poll(&source, config, "jobactivity", Some(&third), later + Duration::minutes(2)).await;
    let restart = fourth.mark.as_ref().and_then(|m| m.restarted.clone()).expect("the restart is marked");
    assert!(restart.1.contains("went back"), "{}", restart.1);
    assert!(fourth.notes.iter().any(|n| n.message.contains("read the whole window again")), "{:?}", fourth.notes);
    // 13:40, in progress, is gone with its row (a whole read would not show it either).
    assert_eq!(runs(&fourth, "Worker").len(), 290 + 3, "the restored rows are read, nothing finished is lost");
    assert!(!runs(&fourth, "Worker").iter().any(|r| r.0 == next));
    // The next poll goes on from the new mark, the note still shown; a new row is not skipped.
    let newest = now() + Duration::minutes(3);
    admin.exec(&format!("INSERT INTO jobactivity VALUES {}", row(newest, None))).await;
    let (fifth, fetched) = poll(&source, config, "jobactivity", Some(&fourth), later + Duration::minutes(4)).await;
    assert!(fetched <= 4, "read past the new mark: {fetched}");
    assert!(runs(&fifth, "Worker").contains(&(newest, RunOutcome::InProgress)));
    assert!(fifth.notes.iter().any(|n| n.message.contains("went back")));
}

#[tokio::test]
async fn jobactivity_in_sqlite_reads_only_what_is_new() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("worker.sqlite");
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
    let mut admin = Admin::Lite(sqlx::SqliteConnection::connect_with(&options).await.unwrap());
    let config = config("jobactivity", &format!("path = {:?}", path.display().to_string()));
    jobactivity(&mut admin, &config).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn jobactivity_in_mariadb_reads_only_what_is_new() {
    let server = TestServer::mariadb("sundial-jobact-inc-", port::JOBACTIVITY_INC_MARIA);
    let root = server.maria_root().await;
    for sql in ["CREATE DATABASE worker", "USE worker"] {
        sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&root).await.unwrap();
    }
    let mut admin = Admin::Maria(root);
    let target = format!(
        "engine = \"mysql\"\nhost = \"127.0.0.1\"\nport = {}\nuser = \"worker_reader\"\ndatabase = \"worker\"",
        port::JOBACTIVITY_INC_MARIA
    );
    // The table is created by the scenario; the reader may only SELECT in its database.
    admin.exec("CREATE USER worker_reader@'127.0.0.1'").await;
    admin.exec("GRANT SELECT ON worker.* TO worker_reader@'127.0.0.1'").await;
    jobactivity(&mut admin, &config("jobactivity", &target)).await;
}

// --- Primentra's SchedulerLog ------------------------------------------------------------

/// Entity 10 (manual batches): 200 finished batches, an hour apart, then one fired five minutes
/// ago and not ended yet.
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
    let cols = "(EntityId, EventTime, EventType, TriggerSource, Message, RowsQueued, DurationMs, BatchId)";
    let batches: Vec<String> = (1..=200)
        .rev()
        .flat_map(|i| {
            let start = now() - Duration::hours(i);
            [log(start, "fired"), log(start + Duration::minutes(2), "completed")]
        })
        .collect();
    admin.exec(&format!("INSERT INTO SchedulerLog {cols} VALUES {}", batches.join(", "))).await;
    let open = now() - Duration::minutes(5);
    admin.exec(&format!("INSERT INTO SchedulerLog {cols} VALUES {}", log(open, "fired"))).await;

    let source = TablesSource::new(primentra::read);
    let (first, fetched) = poll(&source, config, "SchedulerLog", None, now()).await;
    assert_eq!(fetched, 401, "the first read takes the window");
    assert_eq!(runs(&first, "10").len(), 201);
    assert_eq!(runs(&first, "10").last(), Some(&(open, RunOutcome::InProgress)));

    // Nothing new: both ends and the open run's `fired`.
    let later = now() + Duration::minutes(1);
    let (second, fetched) = poll(&source, config, "SchedulerLog", Some(&first), later).await;
    assert_eq!(fetched, 3, "a poll with nothing new reads no history");
    assert_eq!(runs(&second, "10"), runs(&first, "10"));
    assert_eq!(second.events, first.events, "the log stays whole");

    // The open batch completes; another is fired.
    let next = now() + Duration::seconds(30);
    admin
        .exec(&format!("INSERT INTO SchedulerLog {cols} VALUES {}, {}", log(now(), "completed"), log(next, "fired")))
        .await;
    let (third, fetched) = poll(&source, config, "SchedulerLog", Some(&second), later + Duration::minutes(1)).await;
    assert_eq!(fetched, 5, "both ends, two new rows, the open run's fired");
    let orders = runs(&third, "10");
    assert_eq!(orders.len(), 202, "the batch going then completed is one run");
    assert_eq!(orders[200], (open, RunOutcome::Succeeded));
    assert_eq!(orders[201], (next, RunOutcome::InProgress));
    let fired_at_open = third.events.iter().filter(|e| e.at == open && e.kind == LogKind::Started).count();
    assert_eq!(fired_at_open, 1, "the fired row read again adds no second line");
    assert_eq!(third.events.len(), first.events.len() + 2);

    // The log truncated (its identity reseeded) and written again: detected, read whole, noted.
    admin.empty("SchedulerLog").await;
    let after = now() + Duration::minutes(2);
    admin.exec(&format!("INSERT INTO SchedulerLog {cols} VALUES {}", log(after, "fired"))).await;
    let (fourth, _) = poll(&source, config, "SchedulerLog", Some(&third), later + Duration::minutes(3)).await;
    let restart = fourth.mark.as_ref().and_then(|m| m.restarted.clone()).expect("the restart is marked");
    assert!(restart.1.contains("went back"), "{}", restart.1);
    assert!(fourth.notes.iter().any(|n| n.message.contains("read the whole window again")), "{:?}", fourth.notes);
    let orders = runs(&fourth, "10");
    // The batch fired at 13:40:30, in progress, is gone with its row (as from a whole read).
    assert_eq!(orders.len(), 201 + 1, "finished runs read before are still shown, the new one is read");
    assert!(!orders.iter().any(|r| r.0 == next));
    assert_eq!(orders.last(), Some(&(after, RunOutcome::InProgress)));
}

#[tokio::test]
async fn primentra_log_in_sqlite_reads_only_what_is_new() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("primentra.sqlite");
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
    let mut admin = Admin::Lite(sqlx::SqliteConnection::connect_with(&options).await.unwrap());
    let config = config("primentra", &format!("path = {:?}", path.display().to_string()));
    primentra(&mut admin, &config, "INTEGER PRIMARY KEY AUTOINCREMENT").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn primentra_log_in_mariadb_reads_only_what_is_new() {
    let server = TestServer::mariadb("sundial-primentra-inc-", port::PRIMENTRA_INC_MARIA);
    let root = server.maria_root().await;
    for sql in ["CREATE DATABASE primentra", "USE primentra"] {
        sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&root).await.unwrap();
    }
    let mut admin = Admin::Maria(root);
    admin.exec("CREATE USER primentra_reader@'127.0.0.1'").await;
    admin.exec("GRANT SELECT ON primentra.* TO primentra_reader@'127.0.0.1'").await;
    let target = format!(
        "engine = \"mysql\"\nhost = \"127.0.0.1\"\nport = {}\nuser = \"primentra_reader\"\ndatabase = \"primentra\"",
        port::PRIMENTRA_INC_MARIA
    );
    primentra(&mut admin, &config("primentra", &target), "INT AUTO_INCREMENT PRIMARY KEY").await;
}

// --- A restart of Sundial ----------------------------------------------------------------

/// After a restart, the held read is rebuilt from Sundial's store (its kept runs and the mark,
/// `InstanceHistory::held`): the first poll goes on from the mark, reading no history, and
/// shows what the poll before the restart showed.
#[tokio::test]
async fn after_a_restart_the_seed_tables_go_on_from_the_stored_mark() {
    const RETENTION: std::time::Duration = std::time::Duration::from_secs(90 * 86_400);
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
    let rows: Vec<String> = (1..=100)
        .map(|i| now() - Duration::minutes(10 * i))
        .map(|s| format!("('g', 'Worker', '{}', '{}')", at(s), at(s + Duration::seconds(30))))
        .chain([format!("('g', 'Worker', '{}', NULL)", at(now() - Duration::seconds(20)))])
        .collect();
    admin.exec(&format!("INSERT INTO jobactivity VALUES {}", rows.join(", "))).await;
    let config = config("jobactivity", &format!("path = {:?}", path.display().to_string()));
    let store = server::sources::snapshots::Store::open(&dir.path().join("store.db")).await.expect("store");
    let window = |now: DateTime<Utc>| Window::new(now - Duration::days(30), now + Duration::milliseconds(1));

    let (mut first, _) = poll(&TablesSource::new(jobactivity::read), &config, "jobactivity", None, now()).await;
    let mut kept = server::history::InstanceHistory::default();
    kept.keep(&store, &config.name, &mut first, window(now()), RETENTION).await.expect("kept");

    // Sundial restarts: a new source, a new history, the held read rebuilt from the store.
    let later = now() + Duration::minutes(1);
    let mut kept = server::history::InstanceHistory::default();
    let held = kept.held(&store, &config.name, window(later)).await.expect("the store").expect("a mark is kept");
    let source = TablesSource::new(jobactivity::read);
    let (second, fetched) = poll(&source, &config, "jobactivity", Some(&held), later).await;
    assert_eq!(fetched, 3, "both ends and the row at the mark (the run still going): no history");
    assert_eq!(runs(&second, "Worker"), runs(&first, "Worker"));
    assert_eq!(runs(&second, "Worker").len(), 101);
}

// --- Service Broker's SchedulingErrors ----------------------------------------------------

/// `nightly` runs daily at 02:00 (its last run finished at 02:00 today, one retried error in
/// it); 300 older errors, two hours apart, are its log.
async fn service_broker(admin: &mut Admin, config: &server::config::InstanceConfig, identity: &str) {
    let day7 = t("2026-03-07T02:00:00Z");
    let day8 = day7 + Duration::days(1);
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
            at(day8)
        ),
        format!("INSERT INTO ScheduledJobSteps VALUES (1, 1, 'load', 1, 3, 10, '{}')", at(day7 + Duration::seconds(5))),
    ] {
        admin.exec(&sql).await;
    }
    let cols = "(ScheduledJobId, ScheduledJobStepId, ErrorLine, ErrorNumber, ErrorMessage, ErrorSeverity, ErrorState, ErrorDate)";
    let error = |x: DateTime<Utc>| format!("(1, 1, 1, 1205, 'deadlock', 13, 1, '{}')", at(x));
    let old: Vec<String> = (1..=300).rev().map(|i| error(day7 - Duration::hours(2 * i))).collect();
    admin.exec(&format!("INSERT INTO SchedulingErrors {cols} VALUES {}", old.join(", "))).await;
    admin.exec(&format!("INSERT INTO SchedulingErrors {cols} VALUES {}", error(day7 + Duration::seconds(2)))).await;
    let sorted = |read: &SourceRead| {
        let mut events: Vec<(DateTime<Utc>, String)> = read.events.iter().map(|e| (e.at, e.text.clone())).collect();
        events.sort();
        events
    };

    let source = TablesSource::new(service_broker::read);
    let (first, fetched) = poll(&source, config, "SchedulingErrors", None, now()).await;
    assert_eq!(fetched, 301, "the first read takes the window");
    assert_eq!(runs(&first, "1"), [(day7, RunOutcome::Succeeded)]);

    // Nothing new: both ends, and the error of the run rebuilt from LastRunOn.
    let (second, fetched) = poll(&source, config, "SchedulingErrors", Some(&first), now() + Duration::minutes(1)).await;
    assert_eq!(fetched, 3, "a poll with nothing new reads no history");
    assert_eq!(runs(&second, "1"), runs(&first, "1"));
    assert_eq!(sorted(&second), sorted(&first), "the log stays whole, each line once");

    // The next night: under way, its first attempt failed.
    admin.exec(&format!("INSERT INTO SchedulingErrors {cols} VALUES {}", error(day8 + Duration::seconds(10)))).await;
    let (third, fetched) = poll(&source, config, "SchedulingErrors", Some(&second), day8 + Duration::seconds(30)).await;
    assert_eq!(fetched, 4, "both ends, the new error, the error of the run rebuilt");
    assert_eq!(runs(&third, "1"), [(day7, RunOutcome::Succeeded), (day8, RunOutcome::InProgress)]);

    // It finishes: LastRunOn and the step's LastExecutedOn written in place.
    admin
        .exec(&format!(
            "UPDATE ScheduledJobs SET LastRunOn = '{}', NextRunOn = '{}'",
            at(day8),
            at(day8 + Duration::days(1))
        ))
        .await;
    admin.exec(&format!("UPDATE ScheduledJobSteps SET LastExecutedOn = '{}'", at(day8 + Duration::seconds(20)))).await;
    let (fourth, fetched) = poll(&source, config, "SchedulingErrors", Some(&third), day8 + Duration::minutes(1)).await;
    assert_eq!(fetched, 4, "both ends, the errors from the last LastRunOn on");
    assert_eq!(
        runs(&fourth, "1"),
        [(day7, RunOutcome::Succeeded), (day8, RunOutcome::Succeeded)],
        "the night going then finished is one run; the one before is still shown"
    );
    let retried = fourth.events.iter().filter(|e| e.at == day8 + Duration::seconds(10)).count();
    assert_eq!(
        retried,
        1,
        "its retried attempt is one line: {:?}",
        fourth.events.iter().rev().take(5).collect::<Vec<_>>()
    );
    assert_eq!(
        fourth.events.len(),
        second.events.len() + 3,
        "the new night's start, retry and end: {:#?}",
        fourth.events.iter().filter(|e| e.at >= day7).collect::<Vec<_>>()
    );

    // The table truncated and reseeded: detected, read whole, noted.
    admin.empty("SchedulingErrors").await;
    admin.exec(&format!("INSERT INTO SchedulingErrors {cols} VALUES {}", error(day8 + Duration::minutes(2)))).await;
    let (fifth, _) = poll(&source, config, "SchedulingErrors", Some(&fourth), day8 + Duration::minutes(3)).await;
    let restart = fifth.mark.as_ref().and_then(|m| m.restarted.clone()).expect("the restart is marked");
    assert!(restart.1.contains("went back"), "{}", restart.1);
    assert!(fifth.notes.iter().any(|n| n.message.contains("read the whole window again")), "{:?}", fifth.notes);
    assert!(fifth.events.iter().any(|e| e.at == day8 + Duration::minutes(2)), "the new error is read");
    assert_eq!(runs(&fifth, "1"), runs(&fourth, "1"));
}

#[tokio::test]
async fn service_broker_errors_in_sqlite_read_only_what_is_new() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broker.sqlite");
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
    let mut admin = Admin::Lite(sqlx::SqliteConnection::connect_with(&options).await.unwrap());
    let config = config("service_broker", &format!("path = {:?}", path.display().to_string()));
    service_broker(&mut admin, &config, "INTEGER PRIMARY KEY AUTOINCREMENT").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn service_broker_errors_in_mariadb_read_only_what_is_new() {
    let server = TestServer::mariadb("sundial-broker-inc-", port::BROKER_INC_MARIA);
    let root = server.maria_root().await;
    for sql in ["CREATE DATABASE broker", "USE broker"] {
        sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&root).await.unwrap();
    }
    let mut admin = Admin::Maria(root);
    admin.exec("CREATE USER broker_reader@'127.0.0.1'").await;
    admin.exec("GRANT SELECT ON broker.* TO broker_reader@'127.0.0.1'").await;
    let target = format!(
        "engine = \"mysql\"\nhost = \"127.0.0.1\"\nport = {}\nuser = \"broker_reader\"\ndatabase = \"broker\"",
        port::BROKER_INC_MARIA
    );
    service_broker(&mut admin, &config("service_broker", &target), "INT AUTO_INCREMENT PRIMARY KEY").await;
}

// --- Figures (end2end/load/mariadb_history.sh) ---------------------------------------------

/// The figures of issue 27 for the seed tables, against the MariaDB `mariadb_history.sh`
/// starts and fills (`SUNDIAL_FIGURES_PORT`; database `hist`, a SELECT-only `hist_reader` and
/// a `hist_admin` that plays the schedulers and reads performance_schema): a first read of
/// `jobactivity`, of Primentra's tables and of the Service Broker scheduler's, one poll, then `SUNDIAL_FIGURES_POLLS` polls, each
/// after the scheduler wrote a run's end and the next run's start. Prints, per poll, the rows
/// Sundial fetched (its own count) and what MariaDB says of Sundial's SELECTs on each table
/// (`prepared_statements_instances`: rows sent, rows examined, executions that used no index);
/// fails when a poll after the first read fetches more than a handful of rows, or examines a
/// row it does not return, or runs a statement without an index. Ignored: it needs the script's server.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "figures: run by end2end/load/mariadb_history.sh"]
async fn mariadb_history_figures() {
    let port: u16 = std::env::var("SUNDIAL_FIGURES_PORT").expect("SUNDIAL_FIGURES_PORT").parse().unwrap();
    let polls: u64 = std::env::var("SUNDIAL_FIGURES_POLLS").ok().and_then(|p| p.parse().ok()).unwrap_or(10);
    let admin_url = format!("mysql://hist_admin:figures@127.0.0.1:{port}/hist");
    let admin = sqlx::MySqlPool::connect(&admin_url).await.expect("hist_admin");
    let exec = async |sql: String| {
        sqlx::query(sqlx::AssertSqlSafe(sql.clone())).execute(&admin).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    };
    let target =
        format!("engine = \"mysql\"\nhost = \"127.0.0.1\"\nport = {port}\nuser = \"hist_reader\"\ndatabase = \"hist\"");
    let kinds: [(&str, &str, server::sources::connect::TablesRead); 3] = [
        ("jobactivity", "jobactivity", jobactivity::read),
        ("primentra", "SchedulerLog", primentra::read),
        ("service_broker", "SchedulingErrors", service_broker::read),
    ];
    let mut goal = true;
    for (kind, table, read) in kinds {
        let config = config(kind, &target);
        let source = TablesSource::new(read);
        let digests = async || -> (i64, i64, i64, i64) {
            // sqlx prepares every statement, and MariaDB 10.11 leaves executions of prepared
            // statements out of events_statements_summary_by_digest: their own account is
            // prepared_statements_instances (the same counters).
            sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "SELECT CAST(COALESCE(SUM(COUNT_EXECUTE), 0) AS SIGNED), CAST(COALESCE(SUM(SUM_ROWS_SENT), 0) AS SIGNED), \
                 CAST(COALESCE(SUM(SUM_ROWS_EXAMINED), 0) AS SIGNED), CAST(COALESCE(SUM(SUM_NO_INDEX_USED), 0) AS SIGNED) \
                 FROM performance_schema.prepared_statements_instances \
                 WHERE SQL_TEXT LIKE 'SELECT%' AND SQL_TEXT LIKE '%`{table}`%'"
            )))
            .fetch_one(&admin)
            .await
            .expect("performance_schema")
        };
        let reset = "TRUNCATE TABLE performance_schema.prepared_statements_instances".to_owned();
        // One poll: the scheduler ends its run and starts the next, then Sundial reads.
        let step = async |held: Option<&SourceRead>, i: u64| {
            let now = Utc::now();
            let t = now.format("%Y-%m-%d %H:%M:%S%.6f");
            if kind == "jobactivity" {
                exec(format!("UPDATE jobactivity SET stop_execution_date = '{t}' WHERE job_name = 'job0' AND stop_execution_date IS NULL")).await;
                exec(format!("INSERT INTO jobactivity VALUES ('figures', 'job0', '{t}', NULL)")).await;
            } else if kind == "service_broker" {
                exec(format!("INSERT INTO SchedulingErrors (ScheduledJobId, ScheduledJobStepId, ErrorNumber, ErrorMessage, ErrorDate) VALUES (1, 1, 1205, 'deadlock', '{t}')")).await;
            } else if i > 0 {
                exec(format!("INSERT INTO SchedulerLog (EntityId, EventTime, EventType, DurationMs) VALUES (1, '{t}', 'completed', 1000), (1, '{t}', 'fired', NULL)")).await;
            }
            let started = std::time::Instant::now();
            let (read, fetched) = poll(&source, &config, table, held, now).await;
            (read, fetched, started.elapsed())
        };
        exec(reset.clone()).await;
        let (first, fetched, took) = step(None, 0).await;
        let (n, sent, examined, no_index) = digests().await;
        if n == 0 {
            let all: Vec<(Option<String>, Option<String>, i64)> = sqlx::query_as(
                "SELECT OBJECT_SCHEMA, LEFT(SQL_TEXT, 120), CAST(COUNT_EXECUTE AS SIGNED) \
                 FROM performance_schema.prepared_statements_instances",
            )
            .fetch_all(&admin)
            .await
            .unwrap();
            println!("{kind} digests: {all:?}");
        }
        println!(
            "{kind} first read: {fetched} rows fetched, {:.1} s; {n} SELECTs on {table}: rows sent {sent}, rows examined {examined}, no index {no_index}",
            took.as_secs_f64()
        );
        let (mut held, _, _) = step(Some(&first), 1).await;
        exec(reset.clone()).await;
        let mut total = 0;
        for i in 0..polls {
            let (read, fetched, took) = step(Some(&held), i + 2).await;
            println!("{kind} poll {}: {fetched} rows fetched, {:.3} s", i + 1, took.as_secs_f64());
            total += fetched;
            held = read;
        }
        let (n, sent, examined, no_index) = digests().await;
        println!(
            "{kind} per poll after the first read: rows fetched {}, SELECTs on {table} {}, rows sent {}, rows examined {}, no index {}",
            total as f64 / polls as f64,
            n as f64 / polls as f64,
            sent as f64 / polls as f64,
            examined as f64 / polls as f64,
            no_index as f64 / polls as f64
        );
        let runs: usize = held.input.jobs.iter().map(|j| j.runs.len()).sum();
        println!("{kind} runs held after the polls: {runs}");
        // A handful of rows a poll (the window holds a third of the table), each by an index:
        // no execution without one, and no row examined that is not sent.
        goal &= n > 0 && total < 100 * polls && no_index == 0 && examined == sent;
    }
    println!(
        "goal (issue 27: each poll reads only what is new, by an index): {}",
        if goal { "met" } else { "not met" }
    );
    assert!(goal, "a poll read more than what is new, or scanned a table");
}
