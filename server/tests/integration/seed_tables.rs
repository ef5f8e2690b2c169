//! The seeds' scheduler tables (003: Service Broker scheduler, 004: Primentra) read from the
//! three databases they can live in: SQLite (a real file, opened read-only), PostgreSQL 15
//! (a real throwaway server, read by a SELECT-only role) and SQL Server (the TDS test server,
//! answering Sundial's exact T-SQL). The same rows go into each, and Sundial must show the
//! same runs, outcomes and misses from all three.
use crate::support::servers::{TestServer, port, tds_server, tds_target};
use crate::support::t;
use chrono::{DateTime, Utc};
use server::sources::tables::{self, TablesDb};
use server::sources::{SourceError, jobactivity, msdb, primentra, service_broker};
use sqlx::Connection;
use std::time::Duration;
use sundial_engine::fleet::{InstanceInput, analyze};
use sundial_engine::reconcile::{Outcome, Settings};
use sundial_engine::{RunOutcome, Severity, Trigger, Window};

fn window() -> Window {
    Window::new(t("2026-03-01T00:00:00Z"), t("2026-03-07T12:00:00Z"))
}

/// The tables as the articles define them, in `dialect`'s types.
fn ddl(pg: bool) -> Vec<String> {
    let (ts, bit) = if pg { ("TIMESTAMP", "BOOLEAN") } else { ("DATETIME", "INTEGER") };
    vec![
        r#"CREATE TABLE "Entities" ("Id" INT PRIMARY KEY, "Name" VARCHAR(200) NOT NULL)"#.to_owned(),
        format!(
            r#"CREATE TABLE "SchedulerConfigurations" ("Id" INT PRIMARY KEY, "EntityId" INT, "ProcessingMode" VARCHAR(20) NOT NULL,
            "ScheduleType" VARCHAR(20), "IntervalMinutes" INT, "RunTimes" VARCHAR(200), "RunDays" VARCHAR(100), "RunDaysOfMonth" VARCHAR(100),
            "TriggerOnNewRows" {bit} NOT NULL, "TriggerRowThreshold" INT, "TriggerIdleMinutes" INT, "TriggerDebounceSeconds" INT NOT NULL,
            "IsRunning" {bit} NOT NULL, "RunStartedAt" {ts}, "RunStartedBy" VARCHAR(50), "NextScheduledRun" {ts}, "LastCompletedAt" {ts},
            "LastTriggerCheck" {ts}, "IsEnabled" {bit} NOT NULL)"#
        ),
        format!(
            r#"CREATE TABLE "SchedulerLog" ("Id" INT PRIMARY KEY, "EntityId" INT NOT NULL, "EventTime" {ts} NOT NULL, "EventType" VARCHAR(30) NOT NULL,
            "TriggerSource" VARCHAR(100), "Message" VARCHAR(500), "RowsQueued" INT, "DurationMs" INT, "BatchId" INT)"#
        ),
        format!(
            r#"CREATE TABLE "ScheduledJobs" ("ID" INT PRIMARY KEY, "JobScheduleId" INT NOT NULL, "JobName" VARCHAR(256) NOT NULL, "ValidFrom" {ts} NOT NULL,
            "LastRunOn" {ts}, "NextRunOn" {ts}, "IsEnabled" {bit} NOT NULL)"#
        ),
        format!(
            r#"CREATE TABLE "ScheduledJobSteps" ("ID" INT PRIMARY KEY, "ScheduledJobId" INT NOT NULL, "StepName" VARCHAR(256) NOT NULL, "SqlToRun" TEXT NOT NULL,
            "RetryOnFail" {bit} NOT NULL, "RetryOnFailTimes" INT NOT NULL, "DurationInSeconds" DECIMAL(14,4), "LastExecutedOn" {ts})"#
        ),
        r#"CREATE TABLE "JobSchedules" ("ID" INT PRIMARY KEY, "FrequencyType" INT NOT NULL, "Frequency" INT NOT NULL, "AbsoluteSubFrequency" VARCHAR(100),
            "MontlyRelativeSubFrequencyWhich" INT, "MontlyRelativeSubFrequencyWhat" INT, "RunAtInSecondsFromMidnight" INT NOT NULL)"#
            .to_owned(),
        format!(
            r#"CREATE TABLE "SchedulingErrors" ("Id" INT PRIMARY KEY, "ScheduledJobId" INT, "ScheduledJobStepId" INT, "ErrorLine" INT, "ErrorNumber" INT,
            "ErrorMessage" TEXT, "ErrorSeverity" INT, "ErrorState" INT, "ErrorDate" {ts} NOT NULL)"#
        ),
        format!(r#"CREATE TABLE "jobactivity" ("job_id" VARCHAR(36) NOT NULL, "job_name" VARCHAR(100) NOT NULL, "start_execution_date" {ts} NOT NULL, "stop_execution_date" {ts})"#),
    ]
}

/// One scheduled entity (daily at 02:00) and one manual; nights of the 1st-7th: completed,
/// completed, error, completed, (nothing), zombie, fired and still running. Two Service Broker
/// jobs: a nightly one whose run of the 5th failed, and a weekly one whose NextRunOn is wrong.
fn rows(pg: bool) -> Vec<String> {
    let (y, n) = if pg { ("true", "false") } else { ("1", "0") };
    let mut v = vec![
        r#"INSERT INTO "Entities" VALUES (10, 'Orders'), (11, 'Customers')"#.to_owned(),
        format!(r#"INSERT INTO "SchedulerConfigurations" VALUES (1, 10, 'scheduled', 'daily', NULL, '02:00', NULL, NULL, {n}, NULL, NULL, 60, {y}, '2026-03-07 02:00:04', 'Schedule', '2026-03-08 02:00:00', '2026-03-05 02:36:00', NULL, {y})"#),
        format!(r#"INSERT INTO "SchedulerConfigurations" VALUES (2, 11, 'manual', NULL, NULL, NULL, NULL, NULL, {n}, NULL, NULL, 60, {n}, NULL, NULL, NULL, '2026-03-04 10:00:30', NULL, {y})"#),
        format!(r#"INSERT INTO "ScheduledJobs" VALUES (1, 1, 'Nightly ETL', '2026-01-01 00:00:00', '2026-03-07 01:00:00', '2026-03-08 01:00:00', {y})"#),
        format!(r#"INSERT INTO "ScheduledJobs" VALUES (2, 2, 'Weekly purge', '2026-01-01 00:00:00', '2026-03-02 00:00:00', '2026-03-20 00:00:00', {y})"#),
        r#"INSERT INTO "JobSchedules" VALUES (1, 1, 1, NULL, NULL, NULL, 3600)"#.to_owned(),
        r#"INSERT INTO "JobSchedules" VALUES (2, 2, 1, '1', NULL, NULL, 0)"#.to_owned(),
        r#"INSERT INTO "SchedulingErrors" VALUES (1, 1, 1, 12, 1205, 'Transaction was deadlocked', 13, 1, '2026-03-05 01:00:02')"#.to_owned(),
        r#"INSERT INTO "SchedulingErrors" VALUES (2, 1, 1, 12, 1205, 'an error before the window', 13, 1, '2026-02-20 01:00:02')"#.to_owned(),
    ];
    let log = [
        ("2026-03-01 02:00:05", "fired", "Schedule", "", "NULL"),
        ("2026-03-01 02:01:05", "completed", "Schedule", "120 rows", "60000"),
        ("2026-03-02 02:00:05", "fired", "Schedule", "", "NULL"),
        ("2026-03-02 02:01:05", "completed", "Schedule", "80 rows", "60000"),
        ("2026-03-03 02:00:05", "fired", "Schedule", "", "NULL"),
        ("2026-03-03 02:00:09", "error", "Schedule", "Conversion failed when converting date", "4000"),
        ("2026-03-04 02:00:05", "fired", "Schedule", "", "NULL"),
        ("2026-03-04 02:01:05", "completed", "Schedule", "99 rows", "60000"),
        ("2026-03-06 02:00:05", "fired", "Schedule", "", "NULL"),
        ("2026-03-06 02:10:00", "skipped", "Schedule", "already running", "NULL"),
        ("2026-03-06 02:35:00", "zombie", "Schedule", "RunStartedAt 02:00:05", "NULL"),
        ("2026-03-07 02:00:04", "fired", "Schedule", "", "NULL"),
    ];
    for (i, (at, kind, src, msg, ms)) in log.iter().enumerate() {
        v.push(format!(
            r#"INSERT INTO "SchedulerLog" VALUES ({}, 10, '{at}', '{kind}', '{src}', '{msg}', NULL, {ms}, NULL)"#,
            i + 1
        ));
    }
    // Seed 001: TestJob daily after 13:00 UTC; the 3rd never stopped (crashed), the 5th never
    // ran, one run started by hand on the 7th is still going.
    for (id, start, stop) in [
        ("a1", "2026-03-01 13:00:30", "'2026-03-01 13:20:00'"),
        ("a2", "2026-03-02 13:00:30", "'2026-03-02 13:20:00'"),
        ("a3", "2026-03-03 13:00:30", "NULL"),
        ("a4", "2026-03-04 13:00:30", "'2026-03-04 13:20:00'"),
        ("a6", "2026-03-06 13:00:30", "'2026-03-06 13:20:00'"),
        ("a7", "2026-03-07 11:30:00", "NULL"),
        ("a0", "2026-02-27 13:00:30", "'2026-02-27 13:20:00'"),
    ] {
        v.push(format!(r#"INSERT INTO "jobactivity" VALUES ('{id}', 'TestJob', '{start}', {stop})"#));
    }
    v.push(r#"INSERT INTO "SchedulerLog" VALUES (100, 11, '2026-03-04 10:00:00', 'fired', 'Manual', '', NULL, NULL, NULL)"#.to_owned());
    v.push(r#"INSERT INTO "SchedulerLog" VALUES (101, 11, '2026-03-04 10:00:30', 'completed', 'Manual', '5 rows', NULL, 30000, NULL)"#.to_owned());
    v
}

/// What every database must show.
fn check(seed4: &InstanceInput, seed3: &InstanceInput, notes3: &[sundial_engine::Diagnostic], db: &str) {
    let w = window();
    let now = w.end;
    let e10 = seed4.jobs.iter().find(|j| j.id == "10").unwrap_or_else(|| panic!("{db}: entity 10 in {:?}", seed4.jobs));
    let outcomes: Vec<(DateTime<Utc>, RunOutcome)> = e10.runs.iter().map(|r| (r.start, r.outcome)).collect();
    assert_eq!(
        outcomes,
        [
            (t("2026-03-01T02:00:05Z"), RunOutcome::Succeeded),
            (t("2026-03-02T02:00:05Z"), RunOutcome::Succeeded),
            (t("2026-03-03T02:00:05Z"), RunOutcome::Failed),
            (t("2026-03-04T02:00:05Z"), RunOutcome::Succeeded),
            (t("2026-03-06T02:00:05Z"), RunOutcome::Abandoned),
            (t("2026-03-07T02:00:04Z"), RunOutcome::InProgress),
        ],
        "{db}"
    );
    assert_eq!(e10.runs[0].duration_secs, 60, "{db}: DurationMs");
    assert!(e10.runs[2].message.contains("Conversion failed"), "{db}");
    assert!(e10.runs[4].message.contains("zombie"), "{db}");
    let e11 = seed4.jobs.iter().find(|j| j.id == "11").unwrap();
    assert_eq!(e11.runs.len(), 1, "{db}");
    assert_eq!(e11.runs[0].trigger, Trigger::Manual, "{db}");

    let report = analyze(seed4, w, now, &Settings::default());
    let r10 = report.jobs.iter().find(|j| j.id == "10").unwrap();
    assert_eq!(r10.forecast.occurrences.len(), 7, "{db}: 02:00 on the 1st … 7th");
    assert_eq!(r10.missed, 1, "{db}: {:?}", r10.reconciliation.outcomes);
    let missed: Vec<_> = r10
        .forecast
        .occurrences
        .iter()
        .zip(&r10.reconciliation.outcomes)
        .filter(|(_, o)| matches!(o, Outcome::Missed { .. }))
        .map(|(o, _)| o.at)
        .collect();
    assert_eq!(missed, [t("2026-03-05T02:00:00Z")], "{db}");
    let r11 = report.jobs.iter().find(|j| j.id == "11").unwrap();
    assert!(r11.forecast.occurrences.is_empty(), "{db}: manual mode expects nothing");

    let etl = seed3.jobs.iter().find(|j| j.name == "Nightly ETL").unwrap();
    let outcomes: Vec<(DateTime<Utc>, RunOutcome)> = etl.runs.iter().map(|r| (r.start, r.outcome)).collect();
    // The error of the 5th, before LastRunOn, is a log line (read_both), not a run.
    assert_eq!(outcomes, [(t("2026-03-07T01:00:00Z"), RunOutcome::Succeeded)], "{db}");
    assert!(
        !etl.diagnostics.iter().any(|d| d.field.as_deref() == Some("NextRunOn")),
        "{db}: NextRunOn agrees: {:?}",
        etl.diagnostics
    );
    let purge = seed3.jobs.iter().find(|j| j.name == "Weekly purge").unwrap();
    assert!(
        purge.diagnostics.iter().any(|d| d.severity == Severity::Warning
            && d.field.as_deref() == Some("NextRunOn")
            && d.message.contains("2026-03-09 00:00:00")),
        "{db}: NextRunOn 2026-03-20 disagrees with Monday the 9th: {:?}",
        purge.diagnostics
    );
    assert!(notes3.is_empty(), "{db}: {notes3:?}");
    let report = analyze(seed3, w, now, &Settings::default());
    let etl = report.jobs.iter().find(|j| j.name == "Nightly ETL").unwrap();
    assert_eq!(etl.missed, 0, "{db}: before LastRunOn nothing is known: {:?}", etl.reconciliation.outcomes);
}

async fn read_both(db: &mut TablesDb) -> (InstanceInput, InstanceInput, Vec<sundial_engine::Diagnostic>) {
    let w = window();
    let read = primentra::read_instance(db, "primentra", chrono_tz::UTC, w, w.end).await.expect("seed 004");
    let (seed4, events) = (read.input, read.events);
    // The log's five event types map onto Sundial's log, the overlap guard's skip included.
    use sundial_engine::log::LogKind;
    let kinds: Vec<LogKind> = events.iter().filter(|e| e.job_id == "10").map(|e| e.kind).collect();
    assert_eq!(kinds.iter().filter(|k| **k == LogKind::Started).count(), 6);
    assert_eq!(kinds.iter().filter(|k| **k == LogKind::Succeeded).count(), 3);
    assert_eq!(kinds.iter().filter(|k| **k == LogKind::Failed).count(), 1);
    assert_eq!(kinds.iter().filter(|k| **k == LogKind::Skipped).count(), 1);
    assert_eq!(kinds.iter().filter(|k| **k == LogKind::Zombie).count(), 1);
    assert!(events.iter().any(|e| e.kind == LogKind::Skipped && e.text.contains("already running")), "{events:?}");
    // The NextRunOn cross-check is the one every kind shares, done after the read.
    let mut read = service_broker::read_instance(db, "broker", chrono_tz::UTC, w, w.end).await.expect("seed 003");
    server::sources::finish(&mut read);
    let error = |e: &&sundial_engine::log::LogEvent| e.kind == LogKind::Failed && e.at == t("2026-03-05T01:00:02Z");
    assert!(read.events.iter().filter(error).any(|e| e.text.contains("1205")), "{:?}", read.events);
    let (seed3, notes3) = (read.input, read.notes);
    let plan = jobactivity::Plan::every_job("0 13 * * *", chrono::TimeDelta::minutes(60));
    let seed1 =
        jobactivity::read_instance(db, "worker", chrono_tz::UTC, &plan, w, w.end).await.expect("seed 001").input;
    check_seed001(&seed1);
    (seed4, seed3, notes3)
}

fn check_seed001(seed1: &InstanceInput) {
    let w = window();
    assert_eq!(seed1.jobs.len(), 1);
    let job = &seed1.jobs[0];
    let outcomes: Vec<(DateTime<Utc>, RunOutcome)> = job.runs.iter().map(|r| (r.start, r.outcome)).collect();
    assert_eq!(
        outcomes,
        [
            (t("2026-03-01T13:00:30Z"), RunOutcome::Succeeded),
            (t("2026-03-02T13:00:30Z"), RunOutcome::Succeeded),
            (t("2026-03-03T13:00:30Z"), RunOutcome::Crashed),
            (t("2026-03-04T13:00:30Z"), RunOutcome::Succeeded),
            (t("2026-03-06T13:00:30Z"), RunOutcome::Succeeded),
            (t("2026-03-07T11:30:00Z"), RunOutcome::InProgress),
        ]
    );
    assert!(job.runs[2].message.contains("never stopped"), "{:?}", job.runs[2]);
    assert_eq!(job.runs[0].duration_secs, 19 * 60 + 30);
    let report = analyze(seed1, w, w.end, &Settings::default());
    let missed: Vec<_> = report.jobs[0]
        .forecast
        .occurrences
        .iter()
        .zip(&report.jobs[0].reconciliation.outcomes)
        .filter(|(_, o)| matches!(o, Outcome::Missed { .. }))
        .map(|(o, _)| o.at)
        .collect();
    assert_eq!(missed, [t("2026-03-05T13:00:00Z")]);
}

#[tokio::test]
async fn seed_tables_in_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seeds.sqlite");
    {
        let mut c = sqlx::SqliteConnection::connect_with(
            &sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true),
        )
        .await
        .unwrap();
        for sql in ddl(false).into_iter().chain(rows(false)) {
            sqlx::query(sqlx::AssertSqlSafe(sql.clone()))
                .execute(&mut c)
                .await
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
    }
    let pool = server::sources::msdb_sqlite::open_read_only(&path).await.unwrap();
    let mut db = TablesDb::Sqlite(pool);
    let (seed4, seed3, notes3) = read_both(&mut db).await;
    check(&seed4, &seed3, &notes3, "SQLite");
    // Configured as instances: check-config's probe reads them as serving would.
    let toml = format!(
        "[[instance]]\nname = \"primentra\"\nkind = \"seed004\"\npath = \"{0}\"\n\n[[instance]]\nname = \"broker\"\nkind = \"seed003\"\nengine = \"sqlite\"\npath = \"{0}\"\n",
        path.display()
    );
    let config = server::config::parse(&toml, "seeds.toml").unwrap();
    let probed = server::fleet::probe(&config).await;
    assert_eq!(probed.len(), 2);
    for (name, result) in &probed {
        let seen = result.as_ref().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(seen.starts_with("2 jobs"), "{name}: {seen}");
    }
    let toml = format!(
        "[[instance]]\nname = \"worker\"\nkind = \"seed001\"\npath = \"{}\"\nschedule = \"0 13 * * *\"\nstuck_after = \"1h\"\n",
        path.display()
    );
    let probed = server::fleet::probe(&server::config::parse(&toml, "w.toml").unwrap()).await;
    assert!(probed[0].1.as_ref().is_ok_and(|s| s.starts_with("1 jobs")), "{probed:?}");
    {}
    // The tables are missing from another file: said so, naming the table.
    let empty = dir.path().join("empty.sqlite");
    sqlx::SqliteConnection::connect_with(
        &sqlx::sqlite::SqliteConnectOptions::new().filename(&empty).create_if_missing(true),
    )
    .await
    .unwrap();
    let mut db = TablesDb::Sqlite(server::sources::msdb_sqlite::open_read_only(&empty).await.unwrap());
    let e = primentra::read_instance(&mut db, "x", chrono_tz::UTC, window(), window().end)
        .await
        .map(|_| ())
        .expect_err("no tables");
    assert!(matches!(&e, SourceError::Missing { object, .. } if object == "table SchedulerConfigurations"), "{e:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn seed_tables_in_postgresql_read_by_a_select_only_role() {
    let pg = TestServer::postgres("sundial-seeds-pg-", port::SEEDS_PG);
    let mut admin = sqlx::PgConnection::connect(&pg.pg_url("postgres")).await.unwrap();
    for sql in ddl(true).into_iter().chain(rows(true)).chain([
        "CREATE ROLE seeds_reader LOGIN".to_owned(),
        r#"GRANT SELECT ON "Entities", "SchedulerConfigurations", "SchedulerLog", "ScheduledJobs", "ScheduledJobSteps", "JobSchedules", "SchedulingErrors", "jobactivity" TO seeds_reader"#.to_owned(),
        "CREATE ROLE nobody LOGIN".to_owned(),
    ]) {
        sqlx::query(sqlx::AssertSqlSafe(sql.clone())).execute(&mut admin).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let pool =
        server::sources::connect::postgres_url(&pg.pg_url("seeds_reader"), Duration::from_secs(5)).await.unwrap();
    let mut db = TablesDb::Postgres(pool.clone());
    let (seed4, seed3, notes3) = read_both(&mut db).await;
    check(&seed4, &seed3, &notes3, "PostgreSQL");
    assert!(sqlx::query(r#"DELETE FROM "SchedulerLog""#).execute(&pool).await.is_err(), "read-only");
    let pool = server::sources::connect::postgres_url(&pg.pg_url("nobody"), Duration::from_secs(5)).await.unwrap();
    let e = primentra::read_instance(&mut TablesDb::Postgres(pool), "x", chrono_tz::UTC, window(), window().end)
        .await
        .map(|_| ())
        .expect_err("no grant");
    assert!(matches!(e, SourceError::Permission { .. }), "{e:?}");
    assert!(e.to_string().contains("SELECT on it"), "{e}");
}

/// The designs' DDL run as written, without quotes: PostgreSQL folds every name to lower case
/// (`ScheduledJobs` becomes `scheduledjobs`, `NextRunOn` becomes `nextrunon`). Sundial finds
/// the tables and columns the way PostgreSQL does and reads the same facts.
#[tokio::test(flavor = "multi_thread")]
async fn seed_tables_created_without_quotes_in_postgresql_read_the_same() {
    let pg = TestServer::postgres("sundial-seeds-folded-", port::SEEDS_PG_FOLDED);
    let mut admin = sqlx::PgConnection::connect(&pg.pg_url("postgres")).await.unwrap();
    let unquoted = |sql: String| sql.replace('"', "");
    for sql in ddl(true).into_iter().chain(rows(true)).map(unquoted).chain([
        "CREATE ROLE seeds_reader LOGIN".to_owned(),
        "GRANT SELECT ON Entities, SchedulerConfigurations, SchedulerLog, ScheduledJobs, ScheduledJobSteps, JobSchedules, SchedulingErrors, jobactivity TO seeds_reader".to_owned(),
    ]) {
        sqlx::query(sqlx::AssertSqlSafe(sql.clone())).execute(&mut admin).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let folded: Vec<String> = sqlx::query_scalar("SELECT relname::text FROM pg_class WHERE relname = 'scheduledjobs'")
        .fetch_all(&mut admin)
        .await
        .unwrap();
    assert_eq!(folded, ["scheduledjobs"], "the names really are folded");
    let pool =
        server::sources::connect::postgres_url(&pg.pg_url("seeds_reader"), Duration::from_secs(5)).await.unwrap();
    let (seed4, seed3, notes3) = read_both(&mut TablesDb::Postgres(pool)).await;
    check(&seed4, &seed3, &notes3, "PostgreSQL, folded names");
}

#[tokio::test]
async fn seed_tables_on_sql_server_over_tds() {
    use mssql_mock_tds::{ColumnDefinition, ColumnValue, QueryResponse, Row, SqlDataType};
    let tds = tds_server().await;
    let registry = tds.registry;
    let target = tds_target(tds.port, "seeds_reader", "pw");
    let mut db = TablesDb::SqlServer(msdb::connect(&target, Duration::from_secs(5)).await.unwrap());
    // The test server answers each of Sundial's queries with the SQLite file's rows: every
    // column is nvarchar after Sundial's CONVERT, declared nvarchar(max) so NULLs can be sent.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seeds.sqlite");
    let mut lite = sqlx::SqliteConnection::connect_with(
        &sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true),
    )
    .await
    .unwrap();
    for sql in ddl(false).into_iter().chain(rows(false)) {
        sqlx::query(sqlx::AssertSqlSafe(sql.clone())).execute(&mut lite).await.unwrap();
    }
    let mut source = TablesDb::Sqlite(server::sources::msdb_sqlite::open_read_only(&path).await.unwrap());
    let w = window();
    // The growing tables are read by pages of their key (`tables::page_sql`, one page here).
    let by = |table: &str, cols: &[tables::Col], tail: &str| tables::select_sql(&db, table, cols, tail);
    let (from, until) = jobactivity::range(w, chrono_tz::UTC, chrono::TimeDelta::minutes(60));
    let lite_times = |c: &str| {
        let c = tables::column(&source, c);
        format!(
            "WHERE {c} >= {} AND {c} < {}",
            tables::time_literal(&source, from),
            tables::time_literal(&source, until)
        )
    };
    let queries: Vec<(&str, &[tables::Col], String, String)> = vec![
        (
            "Entities",
            primentra::ENTITY_COLUMNS,
            by("Entities", primentra::ENTITY_COLUMNS, "ORDER BY Id"),
            primentra::by_id(&source),
        ),
        (
            "SchedulerConfigurations",
            primentra::CONFIG_COLUMNS,
            by("SchedulerConfigurations", primentra::CONFIG_COLUMNS, "ORDER BY Id"),
            format!("ORDER BY {}", tables::column(&source, "Id")),
        ),
        (
            "SchedulerLog",
            primentra::LOG_COLUMNS,
            tables::page_sql(&db, "SchedulerLog", primentra::LOG_COLUMNS, &primentra::log_range(&db, w), "Id"),
            format!("WHERE {}", primentra::log_range(&source, w)),
        ),
        (
            "ScheduledJobs",
            service_broker::JOB_COLUMNS,
            by("ScheduledJobs", service_broker::JOB_COLUMNS, "ORDER BY ID"),
            format!("ORDER BY {}", tables::column(&source, "ID")),
        ),
        (
            "ScheduledJobSteps",
            service_broker::STEP_COLUMNS,
            by("ScheduledJobSteps", service_broker::STEP_COLUMNS, "ORDER BY ID"),
            format!("ORDER BY {}", tables::column(&source, "ID")),
        ),
        (
            "JobSchedules",
            service_broker::SCHEDULE_COLUMNS,
            by("JobSchedules", service_broker::SCHEDULE_COLUMNS, "ORDER BY ID"),
            format!("ORDER BY {}", tables::column(&source, "ID")),
        ),
        (
            "SchedulingErrors",
            service_broker::ERROR_COLUMNS,
            tables::page_sql(
                &db,
                "SchedulingErrors",
                service_broker::ERROR_COLUMNS,
                &service_broker::error_range(&db, w, chrono_tz::UTC),
                "Id",
            ),
            format!("WHERE {}", service_broker::error_range(&source, w, chrono_tz::UTC)),
        ),
        (
            "jobactivity",
            jobactivity::COLUMNS,
            {
                let c = tables::column(&db, "start_execution_date");
                let cond = format!(
                    "{c} >= {} AND {c} < {}",
                    tables::time_literal(&db, from),
                    tables::time_literal(&db, until)
                );
                tables::page_sql(&db, "jobactivity", jobactivity::COLUMNS, &cond, "start_execution_date")
            },
            lite_times("start_execution_date"),
        ),
    ];
    for (table, cols, tds_sql, lite_tail) in queries {
        let rows = tables::read(&mut source, table, cols, &lite_tail).await.unwrap();
        let names: Vec<String> = cols.iter().map(|c| c.name().to_string()).collect();
        let response = QueryResponse::new(
            names.iter().map(|n| ColumnDefinition::new(n.clone(), SqlDataType::NVarCharMax)).collect(),
            rows.iter()
                .map(|r| {
                    Row::new(
                        names
                            .iter()
                            .map(|n| match r.get(n).cloned().flatten() {
                                Some(v) if v.is_empty() => ColumnValue::NVarCharMax(Vec::new()),
                                Some(v) => ColumnValue::NVarCharMax(vec![v.encode_utf16().collect()]),
                                None => ColumnValue::NVarCharMaxNull,
                            })
                            .collect(),
                    )
                })
                .collect(),
        );
        registry.lock().await.register(tds_sql, response);
    }
    let (seed4, seed3, notes3) = read_both(&mut db).await;
    check(&seed4, &seed3, &notes3, "SQL Server (TDS test server)");
}
