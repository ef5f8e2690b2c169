//! The worker role's `jobactivity` table as the design creates it, on SQLite, PostgreSQL 15 and
//! MariaDB 10.11, read by Sundial through the whole path a configured instance takes (the
//! fleet file, `sources::open`, `sources::read`, the engine): the facts each case plants,
//! asserted on every engine.
//!
//! The week of 2026-03-01 (UTC), "now" 2026-03-07 13:40. `TestJob` runs daily at 13:00 and its
//! rows spell it three ways (SQL Azure compares names case-insensitively); its row of the 3rd
//! stops before it starts (stop time 1900-01-01, SQL Server's zero date): garbage, the run's end
//! unknown (never "crashed"), a warning naming the value and the row; the 4th has no row
//! (missed); the 7th is still going. `Nightly` is listed but disabled. `NeverRan` is listed and
//! has no row at all. `Orphan` has rows but is not in the configuration; one of them stops a
//! minute before it starts (no zero date: garbage all the same).
use crate::support::servers::{TestServer, port};
use crate::support::t;
use chrono::{DateTime, Utc};
use server::sources::{self, ReadContext};
use sqlx::Connection;
use sundial_engine::fleet::{InstanceInput, analyze};
use sundial_engine::reconcile::{Outcome, Settings};
use sundial_engine::{RunOutcome, Severity, Window};

fn window() -> Window {
    Window::new(t("2026-03-01T00:00:00Z"), t("2026-03-08T00:00:00Z"))
}

fn now() -> DateTime<Utc> {
    t("2026-03-07T13:40:00Z")
}

/// The design's table: a run per row, a start, and a stop once it finished.
fn ddl(ts: &str, id: &str) -> String {
    format!(
        "CREATE TABLE jobactivity (job_id {id} NOT NULL, job_name VARCHAR(100) NOT NULL, \
         start_execution_date {ts} NOT NULL, stop_execution_date {ts} NULL)"
    )
}

fn rows() -> Vec<String> {
    let row = |n: u32, job: &str, start: &str, stop: Option<&str>| {
        let stop = stop.map_or("NULL".to_owned(), |s| format!("'{s}'"));
        format!("INSERT INTO jobactivity VALUES ('{n:08}-0000-0000-0000-000000000000', '{job}', '{start}', {stop})")
    };
    vec![
        row(1, "testjob", "2026-03-01 13:00:30", Some("2026-03-01 13:10:00")),
        row(2, "TESTJOB", "2026-03-02 13:00:30", Some("2026-03-02 13:05:00")),
        row(3, "TestJob", "2026-03-03 13:00:30", Some("1900-01-01 00:00:00")),
        row(4, "TestJob", "2026-03-05 13:00:30", Some("2026-03-05 13:02:00")),
        row(5, "TestJob", "2026-03-06 13:00:30", Some("2026-03-06 13:01:00")),
        row(6, "TestJob", "2026-03-07 13:00:30", None),
        row(7, "Nightly", "2026-03-01 02:00:00", Some("2026-03-01 02:30:00")),
        row(8, "Orphan", "2026-03-03 09:00:00", Some("2026-03-03 09:01:00")),
        row(9, "Orphan", "2026-03-04 09:00:00", Some("2026-03-04 08:59:00")),
    ]
}

/// The fleet file's instance: where the table is, then the listed jobs.
fn config(target: &str) -> server::config::InstanceConfig {
    let text = format!(
        "[[instance]]\nname = \"worker\"\nkind = \"jobactivity\"\ntime_zone = \"UTC\"\n{target}\n\
         [[instance.job]]\nname = \"TestJob\"\nschedule = \"0 13 * * *\"\n\
         [[instance.job]]\nname = \"Nightly\"\nschedule = \"0 2 * * *\"\nenabled = false\n\
         [[instance.job]]\nname = \"NeverRan\"\nschedule = \"0 6 * * *\"\n"
    );
    let mut fleet = server::config::parse(&text, "jobactivity.toml").unwrap_or_else(|e| panic!("{e}"));
    fleet.instances.remove(0)
}

async fn read(config: &server::config::InstanceConfig) -> InstanceInput {
    let source = sources::open(config);
    let cx = ReadContext { config, window: window(), now: now(), store: None, held: None };
    let read = sources::read(source.as_ref(), cx).await.unwrap_or_else(|e| panic!("{e}"));
    read.input
}

fn check(input: &InstanceInput, db: &str) {
    let names: Vec<&str> = input.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["NeverRan", "Nightly", "Orphan", "TestJob"], "{db}");
    let report = analyze(input, window(), now(), &Settings::default());
    let job = |n: &str| report.jobs.iter().find(|j| j.name == n).unwrap();

    // TestJob: every spelling is one job; the zero-date stop: the run's end unknown (not a
    // crash); the 4th missed.
    let test = job("TestJob");
    let runs: Vec<(DateTime<Utc>, RunOutcome)> = test.runs.iter().map(|r| (r.start, r.outcome)).collect();
    assert_eq!(
        runs,
        [
            (t("2026-03-01T13:00:30Z"), RunOutcome::Succeeded),
            (t("2026-03-02T13:00:30Z"), RunOutcome::Succeeded),
            (t("2026-03-03T13:00:30Z"), RunOutcome::Unknown),
            (t("2026-03-05T13:00:30Z"), RunOutcome::Succeeded),
            (t("2026-03-06T13:00:30Z"), RunOutcome::Succeeded),
            (t("2026-03-07T13:00:30Z"), RunOutcome::InProgress),
        ],
        "{db}"
    );
    assert_eq!(test.runs[0].duration_secs, 9 * 60 + 30, "{db}");
    let expected: Vec<DateTime<Utc>> = test.forecast.occurrences.iter().map(|o| o.at).collect();
    let days: Vec<DateTime<Utc>> = (1..=7).map(|d| t(&format!("2026-03-0{d}T13:00:00Z"))).collect();
    assert_eq!(expected, days, "{db}: daily at 13:00");
    let missed: Vec<DateTime<Utc>> = occurrences_where(test, |o| matches!(o, Outcome::Missed { .. }));
    assert_eq!(missed, [t("2026-03-04T13:00:00Z")], "{db}");
    assert_eq!(test.next_expected.as_ref().map(|o| o.at), Some(t("2026-03-08T13:00:00Z")), "{db}");
    // The garbage row: one warning naming the value and the row, saying the end is unknown.
    let garbage = stop_warnings(test);
    assert_eq!(garbage.len(), 1, "{db}: {:?}", test.diagnostics);
    let value = garbage[0].value.as_deref().unwrap_or_default();
    assert!(value.starts_with("1900-01-01 00:00:00"), "{db}: the value as the table holds it: {value}");
    let text = &garbage[0].message;
    assert!(
        text.contains("TestJob started 2026-03-03 13:00:30")
            && text.contains("zero date")
            && text.contains("end is unknown")
            && text.contains("not counted as crashed"),
        "{db}: {text}"
    );
    assert!(test.runs[2].message.contains("end is unknown"), "{db}: {}", test.runs[2].message);
    assert_eq!(test.reconciliation.outcomes[2], Outcome::OnTime { run: 2 }, "{db}: the run was on time all the same");

    // Nightly: listed but disabled: its run is shown, nothing is expected.
    let nightly = job("Nightly");
    assert!(!nightly.enabled && nightly.forecast.occurrences.is_empty(), "{db}");
    assert_eq!(nightly.runs.len(), 1, "{db}");

    // NeverRan: listed, no row at all: every day missed.
    let never = job("NeverRan");
    assert!(never.runs.is_empty(), "{db}");
    let missed = occurrences_where(never, |o| matches!(o, Outcome::Missed { .. }));
    assert_eq!(missed.len(), 7, "{db}: {:?}", never.reconciliation.outcomes);

    // Orphan: in the table, not in the configuration: listed with its run, nothing expected,
    // and a warning that says how to configure it.
    let orphan = job("Orphan");
    let runs: Vec<(DateTime<Utc>, RunOutcome)> = orphan.runs.iter().map(|r| (r.start, r.outcome)).collect();
    assert_eq!(
        runs,
        [(t("2026-03-03T09:00:00Z"), RunOutcome::Succeeded), (t("2026-03-04T09:00:00Z"), RunOutcome::Unknown)],
        "{db}: a stop a minute before the start is garbage too"
    );
    let garbage = stop_warnings(orphan);
    assert_eq!(garbage.len(), 1, "{db}: {:?}", orphan.diagnostics);
    assert!(garbage[0].value.as_deref().unwrap_or_default().starts_with("2026-03-04 08:59:00"), "{db}");
    assert!(garbage[0].message.contains("Orphan started 2026-03-04 09:00:00"), "{db}: {}", garbage[0].message);
    assert!(!garbage[0].message.contains("zero date"), "{db}: {}", garbage[0].message);
    assert!(orphan.forecast.occurrences.is_empty(), "{db}");
    assert!(
        orphan
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Warning && d.message.contains("not in Sundial's configuration")),
        "{db}: {:?}",
        orphan.diagnostics
    );
}

/// The job's warnings on a stop before the start.
fn stop_warnings(job: &sundial_engine::fleet::JobReport) -> Vec<&sundial_engine::Diagnostic> {
    job.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning && d.field.as_deref() == Some("stop_execution_date"))
        .collect()
}

fn occurrences_where(job: &sundial_engine::fleet::JobReport, f: impl Fn(&Outcome) -> bool) -> Vec<DateTime<Utc>> {
    job.forecast.occurrences.iter().zip(&job.reconciliation.outcomes).filter(|(_, o)| f(o)).map(|(o, _)| o.at).collect()
}

#[tokio::test]
async fn jobactivity_in_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("worker.sqlite");
    {
        let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
        let mut c = sqlx::SqliteConnection::connect_with(&options).await.unwrap();
        let garbage = "INSERT INTO jobactivity VALUES ('x', 'TestJob', '2026-03-04 25:00:00', NULL)".to_owned();
        for sql in [ddl("DATETIME", "CHAR(36)")].into_iter().chain(rows()).chain([garbage]) {
            sqlx::query(sqlx::AssertSqlSafe(sql.clone()))
                .execute(&mut c)
                .await
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
    }
    let target = format!("path = {:?}", path.display().to_string());
    let input = read(&config(&target)).await;
    check(&input, "SQLite");
    through_the_api(&target).await;
    // The garbage row is a diagnostic naming its column; the rest of the job still reads.
    let test = input.jobs.iter().find(|j| j.name == "TestJob").unwrap();
    assert!(
        test.diagnostics
            .iter()
            .any(|d| d.field.as_deref() == Some("start_execution_date")
                && d.value.as_deref() == Some("2026-03-04 25:00:00")),
        "{:?}",
        test.diagnostics
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn jobactivity_in_postgresql() {
    let pg = TestServer::postgres("sundial-jobactivity-pg-", port::JOBACTIVITY_PG);
    let mut admin = sqlx::PgConnection::connect(&pg.pg_url("postgres")).await.unwrap();
    for sql in [ddl("timestamp(3)", "uuid")].into_iter().chain(rows()).chain([
        "CREATE ROLE worker_reader LOGIN".to_owned(),
        "GRANT SELECT ON jobactivity TO worker_reader".to_owned(),
    ]) {
        sqlx::query(sqlx::AssertSqlSafe(sql.clone()))
            .execute(&mut admin)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let target = format!(
        "engine = \"postgres\"\nhost = \"127.0.0.1\"\nport = {}\nuser = \"worker_reader\"\ndatabase = \"postgres\"",
        port::JOBACTIVITY_PG
    );
    check(&read(&config(&target)).await, "PostgreSQL");
}

#[tokio::test(flavor = "multi_thread")]
async fn jobactivity_in_mariadb() {
    let server = TestServer::mariadb("sundial-jobactivity-maria-", port::JOBACTIVITY_MARIA);
    let root = server.maria_root().await;
    sqlx::query("CREATE DATABASE worker").execute(&root).await.unwrap();
    for sql in [ddl("DATETIME(3)", "CHAR(36)")].into_iter().chain(rows()).chain([
        "CREATE USER worker_reader@'127.0.0.1'".to_owned(),
        "GRANT SELECT ON worker.jobactivity TO worker_reader@'127.0.0.1'".to_owned(),
    ]) {
        let sql = sql.replace("jobactivity", "worker.jobactivity").replace("worker.worker.", "worker.");
        sqlx::query(sqlx::AssertSqlSafe(sql.clone())).execute(&root).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let target = format!(
        "engine = \"mysql\"\nhost = \"127.0.0.1\"\nport = {}\nuser = \"worker_reader\"\ndatabase = \"worker\"",
        port::JOBACTIVITY_MARIA
    );
    check(&read(&config(&target)).await, "MariaDB");
}

/// A garbage stop on a row read again by each poll (as an unstopped row is): the run's end is
/// unknown and the warning stays while the stop is garbage; once a real stop is written in its
/// place, the next poll shows the run succeeded and the warning is gone.
#[tokio::test]
async fn a_garbage_stop_written_over_later_is_read_again() {
    use server::sources::connect::TablesSource;
    use server::sources::{SourceRead, jobactivity};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("worker.sqlite");
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
    let mut c = sqlx::SqliteConnection::connect_with(&options).await.unwrap();
    let mut exec = async |sql: &str| {
        sqlx::query(sqlx::AssertSqlSafe(sql.to_owned())).execute(&mut c).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    };
    exec(&ddl("DATETIME", "CHAR(36)")).await;
    exec("INSERT INTO jobactivity VALUES ('a', 'TestJob', '2026-03-06 13:00:30', '1900-01-01 00:00:00')").await;
    exec("INSERT INTO jobactivity VALUES ('b', 'TestJob', '2026-03-07 13:00:30', '2026-03-07 13:01:00')").await;
    let config = config(&format!("path = {:?}", path.display().to_string()));
    let source = TablesSource::new(jobactivity::read);
    let poll = async |held: Option<&SourceRead>, now: DateTime<Utc>| {
        let cx = ReadContext { config: &config, window: window(), now, store: None, held };
        sources::read(&source, cx).await.unwrap_or_else(|e| panic!("{e}"))
    };
    let garbage = |read: &SourceRead| -> (Vec<RunOutcome>, usize) {
        let job = read.input.jobs.iter().find(|j| j.name == "TestJob").unwrap();
        let warned = job.diagnostics.iter().filter(|d| d.field.as_deref() == Some("stop_execution_date")).count();
        (job.runs.iter().map(|r| r.outcome).collect(), warned)
    };
    let first = poll(None, now()).await;
    assert_eq!(garbage(&first), (vec![RunOutcome::Unknown, RunOutcome::Succeeded], 1));
    // A poll hours later: still unknown (never crashed), still warned.
    let second = poll(Some(&first), now() + chrono::TimeDelta::hours(3)).await;
    assert_eq!(garbage(&second), (vec![RunOutcome::Unknown, RunOutcome::Succeeded], 1));
    exec("UPDATE jobactivity SET stop_execution_date = '2026-03-06 13:04:00' WHERE job_id = 'a'").await;
    let third = poll(Some(&second), now() + chrono::TimeDelta::hours(4)).await;
    assert_eq!(garbage(&third), (vec![RunOutcome::Succeeded, RunOutcome::Succeeded], 0));
}

/// A job listed twice (in any case), a schedule Sundial cannot read, and jobs on another kind
/// are configuration errors naming the field.
#[test]
fn the_job_list_is_checked() {
    let bad = |jobs: &str, kind: &str| {
        let text = format!("[[instance]]\nname = \"w\"\nkind = \"{kind}\"\npath = \"/x\"\nengine = \"sqlite\"\n{jobs}");
        server::config::parse(&text, "w.toml").map(|_| ()).unwrap_err().to_string()
    };
    let e = bad("[[instance.job]]\nname = \"A\"\n[[instance.job]]\nname = \"a\"\n", "jobactivity");
    assert!(e.contains("job[1].name") && e.contains("case-insensitively"), "{e}");
    let e = bad("[[instance.job]]\nname = \"A\"\nschedule = \"every day\"\n", "jobactivity");
    assert!(e.contains("job[0].schedule") && e.contains("every day"), "{e}");
    let e = bad("[[instance.job]]\nname = \"A\"\n", "primentra");
    assert!(e.contains("jobactivity"), "{e}");
}

/// The same facts as the JSON API answers them, from a fleet served as of "now" (`serve
/// --now`): the fleet file, the poller, the API's window and moment.
async fn through_the_api(target: &str) {
    use crate::support::web::{api, fleet_as_of};
    let toml = format!(
        "[[instance]]\nname = \"worker\"\nkind = \"jobactivity\"\ntime_zone = \"UTC\"\n{target}\n\
         [[instance.job]]\nname = \"TestJob\"\nschedule = \"0 13 * * *\"\n"
    );
    let state = fleet_as_of(&toml, now()).await;
    let uri = "/api/instances/worker/jobs/TestJob/timeline?from=2026-03-01T00:00:00Z&to=2026-03-08T00:00:00Z";
    let v = api(&state, uri).await;
    let runs: Vec<(&str, &str)> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["started_at"].as_str().unwrap(), r["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(
        runs,
        [
            ("2026-03-01T13:00:30Z", "succeeded"),
            ("2026-03-02T13:00:30Z", "succeeded"),
            ("2026-03-03T13:00:30Z", "unknown"),
            ("2026-03-05T13:00:30Z", "succeeded"),
            ("2026-03-06T13:00:30Z", "succeeded"),
            ("2026-03-07T13:00:30Z", "in_progress"),
        ]
    );
    let missed: Vec<(&str, &str)> = v["occurrences"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["outcome"] == "missed")
        .map(|o| (o["expected_at"].as_str().unwrap(), o["cause"].as_str().unwrap()))
        .collect();
    assert_eq!(missed, [("2026-03-04T13:00:00Z", "no_run")]);
    assert_eq!(v["occurrences"].as_array().unwrap().len(), 7);
    assert_eq!(v["next_run"], "2026-03-08T13:00:00Z");
    // As of the 3rd at 13:30, the garbage row's run: its end unknown, then as now.
    let v = api(&state, &format!("{uri}&as_of=2026-03-03T13:30:00Z")).await;
    assert_eq!(v["runs"].as_array().unwrap().last().unwrap()["outcome"], "unknown", "{v}");
    assert!(
        v["diagnostics"].as_array().unwrap().iter().any(|d| d["severity"] == "warning"
            && d["field"] == "stop_execution_date"
            && d["message"].as_str().unwrap().contains("TestJob started 2026-03-03 13:00:30")),
        "{v}"
    );
    // As of the 5th at 13:01, that day's run was still going and the 6th was ahead.
    let v = api(&state, &format!("{uri}&as_of=2026-03-05T13:01:00Z")).await;
    assert_eq!(v["runs"].as_array().unwrap().last().unwrap()["outcome"], "in_progress");
    assert!(v["occurrences"].as_array().unwrap().iter().skip(5).all(|o| o["outcome"] == "upcoming"), "{v}");
}
