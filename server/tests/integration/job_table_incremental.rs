//! The MySQL `job` table read incrementally (issue 27): the table is a row per job, read whole
//! each poll, but Sundial's own store holds a sample per state of the row it saw (a sample a
//! poll for a runner whose cycle counter moves every minute), and a poll read the window's
//! samples again. Now a poll asks the store only for the newest sample it holds (its
//! `seen_until` grows) and those after it, counted by the source; what it answers is what a
//! whole read answers, poll after poll (the window sliding past old samples); after a restart
//! (a new source, the same store) the window is read once, then again only what is new; a
//! poll whose time went back below the newest sample reads the window again.
//!
//! The table is in a SQLite file (`engine = "sqlite"`); the test plays the runner by writing
//! its row.
use crate::support::t;
use chrono::{DateTime, Duration, Utc};
use server::sources::job_table::JobTable;
use server::sources::snapshots::Store;
use server::sources::{self, ReadContext, Source};
use sqlx::Connection;
use sundial_engine::Window;
use sundial_engine::fleet::JobInput;

async fn job(
    source: &JobTable,
    config: &server::config::InstanceConfig,
    store: &Store,
    now: DateTime<Utc>,
) -> JobInput {
    // A short window, so that it slides past old samples within the test.
    let window = Window::new(now - Duration::minutes(30), now + Duration::milliseconds(1));
    let cx = ReadContext { config, window, now, store: Some(store), held: None };
    let read = sources::read(source as &dyn Source, cx).await.unwrap_or_else(|e| panic!("{e}"));
    read.input.jobs.into_iter().next().expect("the job is read")
}

/// What a user sees of the job: its runs, what is unobserved, since when it is known, its
/// schedule (with the cycles' anchors) and findings.
fn same(a: &JobInput, b: &JobInput, at: &str) {
    let runs = |j: &JobInput| j.runs.iter().map(|r| (r.start, r.outcome, r.duration_secs)).collect::<Vec<_>>();
    assert_eq!(runs(a), runs(b), "{at}");
    assert_eq!(a.unobserved, b.unobserved, "{at}");
    assert_eq!(a.history_horizon, b.history_horizon, "{at}");
    assert_eq!(format!("{:?}", a.schedules), format!("{:?}", b.schedules), "{at}");
    assert_eq!(format!("{:?}", a.diagnostics), format!("{:?}", b.diagnostics), "{at}");
}

fn wall(x: DateTime<Utc>) -> String {
    x.format("%Y-%m-%d %H:%M:%S").to_string()
}

#[tokio::test]
async fn a_job_table_poll_reads_only_new_samples_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("jobs.sqlite");
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
    let mut file = sqlx::SqliteConnection::connect_with(&options).await.unwrap();
    let base = t("2026-03-07T12:00:00Z");
    let runner = base - Duration::hours(1);
    for sql in [
        "CREATE TABLE job (job_id INTEGER PRIMARY KEY, job_owner TEXT NOT NULL, job_name TEXT NOT NULL, \
         job_procedure_schema TEXT NOT NULL, job_procedure_name TEXT NOT NULL, job_schedule_start DATETIME, \
         job_schedule_finish DATETIME, job_schedule_interval INTEGER NOT NULL, job_status TEXT NOT NULL, \
         job_runner_start DATETIME, job_runner_finish DATETIME, job_runner_cycles INTEGER, \
         job_runner_last_cycle_start DATETIME, job_runner_last_cycle_finish DATETIME)"
            .to_owned(),
        format!(
            "INSERT INTO job VALUES (1, 'shop', 'rollup', 'shop', 'p_rollup', '{}', NULL, 60, 'SLEEPING', '{}', NULL, 0, \
             NULL, NULL)",
            wall(runner),
            wall(runner)
        ),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql.clone())).execute(&mut file).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let text = format!(
        "[[instance]]\nname = \"jobs\"\nkind = \"mysql_job_table\"\nengine = \"sqlite\"\ntime_zone = \"UTC\"\npath = {:?}\n",
        path.display().to_string()
    );
    let config = server::config::parse(&text, "jobs.toml").unwrap_or_else(|e| panic!("{e}")).instances.remove(0);
    let store = Store::open(&dir.path().join("store.db")).await.expect("store");
    // The runner: a cycle a minute (now and then one slow to finish: the same state at two polls).
    let cycle = async |file: &mut sqlx::SqliteConnection, n: i64, started: DateTime<Utc>| {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE job SET job_runner_cycles = {n}, job_runner_last_cycle_start = '{}', \
             job_runner_last_cycle_finish = '{}'",
            wall(started),
            wall(started + Duration::seconds(2))
        )))
        .execute(file)
        .await
        .unwrap();
    };
    let source = JobTable::default();
    let mut after_first = Vec::new();
    let mut cycles = 60;
    for minute in 0..60 {
        let now = base + Duration::minutes(minute);
        if minute % 7 != 3 {
            cycles += 1;
            cycle(&mut file, cycles, now - Duration::seconds(5)).await;
        }
        let before = source.samples_read();
        let polled = job(&source, &config, &store, now).await;
        if minute > 0 {
            after_first.push(source.samples_read() - before);
        }
        // What a source that holds nothing reads (the window's samples) is the same.
        let whole_source = JobTable::default();
        let whole = job(&whole_source, &config, &store, now).await;
        same(&polled, &whole, &format!("minute {minute}"));
        if minute >= 40 {
            assert!(whole_source.samples_read() >= 25, "the whole read takes the window's samples");
        }
    }
    assert!(
        after_first.iter().all(|n| *n <= 2),
        "each poll reads the newest sample held and a new one: {after_first:?}"
    );
    let last = job(&source, &config, &store, base + Duration::minutes(60)).await;
    assert!(last.runs.len() >= 20, "the cycles of the window are runs: {}", last.runs.len());

    // A restart: a new source on the same store reads the window once, then only what is new.
    let restarted = JobTable::default();
    let now = base + Duration::minutes(61);
    cycles += 1;
    cycle(&mut file, cycles, now - Duration::seconds(5)).await;
    let polled = job(&restarted, &config, &store, now).await;
    assert!(restarted.samples_read() >= 25, "the window once: {}", restarted.samples_read());
    same(&polled, &job(&JobTable::default(), &config, &store, now).await, "after the restart");
    let now = now + Duration::minutes(1);
    cycles += 1;
    cycle(&mut file, cycles, now - Duration::seconds(5)).await;
    let before = restarted.samples_read();
    let polled = job(&restarted, &config, &store, now).await;
    assert!(restarted.samples_read() - before <= 2, "then only what is new");
    same(&polled, &job(&JobTable::default(), &config, &store, now).await, "the poll after the restart");

    // The poll's time goes back below the newest sample (a clock set back): the window again.
    let back = now - Duration::minutes(10);
    let before = restarted.samples_read();
    let polled = job(&restarted, &config, &store, back).await;
    assert!(restarted.samples_read() - before > 2, "read whole again");
    same(&polled, &job(&JobTable::default(), &config, &store, back).await, "a time gone back");
}
