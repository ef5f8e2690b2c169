//! The MySQL/MariaDB events source against a real MariaDB 10.11 (throwaway, loopback, event
//! scheduler on), read by a user that holds only the EVENT privilege on one schema and SELECT
//! on performance_schema. Real events fire every second and write what they did to a table;
//! Sundial must show exactly those runs and outcomes. Waiting is on conditions (the table
//! grows), never on a fixed sleep.
use crate::support::servers::{TestServer, ends_by_its_own_timeout, port, silent_port};
use chrono::{DateTime, TimeDelta, Utc};
use server::sources::mysql_events;
use server::sources::snapshots::Store;
use sqlx::mysql::MySqlPool;
use std::time::{Duration, Instant};
use sundial_engine::Window;
use sundial_engine::fleet::analyze;
use sundial_engine::reconcile::{MissCause, Outcome, Settings};
use sundial_engine::{RunOutcome, Severity};

const PORT: u16 = port::MARIA_EVENTS;

/// Wait (on the condition, with a deadline) until the event wrote `n` more rows.
async fn until_rows(admin: &MySqlPool, event: &str, at_least: i64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM shop.ran WHERE event = ?")
            .bind(event)
            .fetch_one(admin)
            .await
            .unwrap();
        if n >= at_least {
            return;
        }
        assert!(Instant::now() < deadline, "{event} did not fire {at_least} times within 60 s");
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(50)).await; // a poll interval, not a synchronisation
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn mariadb_events_runs_failures_and_a_stopped_scheduler_as_a_least_privileged_user() {
    let server = TestServer::mariadb("sundial-maria-", PORT);
    let root = server.maria_root().await;

    for sql in [
        "CREATE DATABASE shop",
        "CREATE TABLE shop.ran (event VARCHAR(64) NOT NULL, at DATETIME NOT NULL)",
        // Every execution of ok_every_second leaves a row: the ground truth Sundial must match.
        "CREATE EVENT shop.ok_every_second ON SCHEDULE EVERY 1 SECOND DO INSERT INTO shop.ran VALUES ('ok', UTC_TIMESTAMP())",
        // fails_every_second logs, then fails on a table that does not exist.
        "CREATE EVENT shop.fails_every_second ON SCHEDULE EVERY 1 SECOND DO BEGIN INSERT INTO shop.ran VALUES ('fails', UTC_TIMESTAMP()); INSERT INTO shop.nope VALUES (1); END",
        // Owned by another account: its DEFINER is its owner.
        "CREATE DEFINER = 'etl_admin'@'%' EVENT shop.paused ON SCHEDULE EVERY 1 HOUR DISABLE DO INSERT INTO shop.ran VALUES ('paused', UTC_TIMESTAMP())",
        // The least privilege that sees the events and their failures.
        "CREATE USER sundial@'127.0.0.1' IDENTIFIED BY 'reader-pw'",
        "GRANT EVENT ON shop.* TO sundial@'127.0.0.1'",
        "GRANT SELECT ON performance_schema.* TO sundial@'127.0.0.1'",
        // A user with no grant at all.
        "CREATE USER nobody@'127.0.0.1' IDENTIFIED BY 'nobody-pw'",
        // One with the write privileges Sundial must never use, to prove the session refuses.
        "CREATE USER writer@'127.0.0.1' IDENTIFIED BY 'writer-pw'",
        "GRANT EVENT, INSERT, SELECT ON shop.* TO writer@'127.0.0.1'",
    ] {
        sqlx::query(sql).execute(&root).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let url = |user: &str, pw: &str| format!("mysql://{user}:{pw}@127.0.0.1:{PORT}/");
    let store_dir = tempfile::tempdir().unwrap();
    let store = Store::open(&store_dir.path().join("store.sqlite")).await.unwrap();
    let pool = server::sources::connect::mysql_url(&url("sundial", "reader-pw"), Duration::from_secs(5))
        .await
        .expect("connect");
    let start = Utc::now() - TimeDelta::seconds(5);

    // Three polls, each after the events fired again.
    for n in [2, 4, 6] {
        until_rows(&root, "ok", n).await;
        until_rows(&root, "fails", n).await;
        let window = Window::new(start, Utc::now() + TimeDelta::seconds(1));
        mysql_events::read_instance(&pool, &store, "maria", None, window, Utc::now()).await.expect("poll");
    }

    // Stop the scheduler (a "zombie" MariaDB: up, firing nothing), then poll as if 20 s later.
    sqlx::query("SET GLOBAL event_scheduler = OFF").execute(&root).await.unwrap();
    let truth: Vec<(String, DateTime<Utc>)> =
        sqlx::query_as("SELECT event, CAST(at AS DATETIME) FROM shop.ran ORDER BY at")
            .fetch_all(&root)
            .await
            .unwrap()
            .into_iter()
            .map(|(e, at): (String, chrono::NaiveDateTime)| (e, at.and_utc()))
            .collect();
    let later = Utc::now() + TimeDelta::seconds(20);
    let window = Window::new(start, later);
    let (input, notes) = mysql_events::read_instance(&pool, &store, "maria", None, window, later).await.expect("poll");
    assert!(
        notes.iter().any(|n| n.severity == Severity::Warning && n.message.contains("event scheduler is not running")),
        "{notes:?}"
    );
    let names: Vec<&str> = input.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["shop.fails_every_second", "shop.ok_every_second", "shop.paused"]);

    // Exactly the runs the events logged, to the second, with their outcomes.
    for (job, event, outcome) in
        [(&input.jobs[1], "ok", RunOutcome::Succeeded), (&input.jobs[0], "fails", RunOutcome::Failed)]
    {
        let expected: Vec<DateTime<Utc>> = truth.iter().filter(|(e, _)| e == event).map(|(_, at)| *at).collect();
        let seen: Vec<DateTime<Utc>> = job.runs.iter().map(|r| r.start).collect();
        assert_eq!(seen.len(), expected.len(), "{event}: Sundial {seen:?}\n the table {expected:?}");
        for (s, e) in seen.iter().zip(&expected) {
            assert!((*s - *e).num_seconds().abs() <= 1, "{event}: run at {s}, the table says {e}");
        }
        assert!(job.runs.iter().all(|r| r.outcome == outcome), "{event}: {:?}", job.runs);
    }
    assert!(
        input.jobs[0].runs[0].message.contains("1146"),
        "the failure's errno and message: {:?}",
        input.jobs[0].runs[0]
    );
    assert!(input.jobs[2].runs.is_empty() && !input.jobs[2].enabled, "a disabled event expects nothing");
    // Each event's owner is its DEFINER, as MariaDB reports it; its category its schema.
    let definer: String =
        sqlx::query_scalar("SELECT DEFINER FROM information_schema.EVENTS WHERE EVENT_NAME = 'ok_every_second'")
            .fetch_one(&root)
            .await
            .unwrap();
    assert!(definer.starts_with("root@"), "created by root: {definer}");
    assert_eq!(input.jobs[1].owner.as_deref(), Some(definer.as_str()));
    assert_eq!(input.jobs[2].owner.as_deref(), Some("etl_admin@%"));
    // What each event runs (EVENT_DEFINITION): the statement a DBA runs by hand for a miss.
    let ok_body = input.jobs[1].command.as_deref().unwrap_or_default();
    assert!(ok_body.contains("INSERT INTO shop.ran VALUES ('ok', UTC_TIMESTAMP())"), "{ok_body:?}");
    assert!(
        input.jobs.iter().all(|j| j.category == "shop"),
        "{:?}",
        input.jobs.iter().map(|j| &j.category).collect::<Vec<_>>()
    );

    // The engine over it: since the scheduler stopped, every second is missed.
    let settings = Settings { grace_secs: 1, ..Settings::default() };
    let report = analyze(&input, window, later, &settings);
    let ok = report.jobs.iter().find(|j| j.name == "shop.ok_every_second").unwrap();
    let last_run = ok.runs.last().unwrap().start;
    let missed: Vec<_> = ok
        .forecast
        .occurrences
        .iter()
        .zip(&ok.reconciliation.outcomes)
        .filter(|(_, o)| matches!(o, Outcome::Missed { .. }))
        .map(|(occ, _)| occ.at)
        .collect();
    assert!(missed.len() >= 15, "about 20 s of silence after {last_run}: {missed:?}");
    assert!(missed.iter().all(|m| *m > last_run), "nothing before the last run is missed: {missed:?}");
    assert!(
        ok.reconciliation
            .outcomes
            .iter()
            .any(|o| matches!(o, Outcome::Missed { cause: MissCause::AgentZombie { .. } })),
        "a silent instance is a zombie period"
    );

    // The samples persist: a new Store over the same file still knows the horizon.
    drop(store);
    let store = Store::open(&store_dir.path().join("store.sqlite")).await.unwrap();
    let (again, _) = mysql_events::read_instance(&pool, &store, "maria", None, window, later).await.unwrap();
    assert_eq!(again.jobs[1].history_horizon, input.jobs[1].history_horizon);
    assert!(again.jobs[1].history_horizon.is_some_and(|h| h >= start), "samples start with Sundial's first poll");

    // A user without the EVENT privilege sees nothing, and is told why.
    let nobody =
        server::sources::connect::mysql_url(&url("nobody", "nobody-pw"), Duration::from_secs(5)).await.unwrap();
    let (input, notes) = mysql_events::read_instance(&nobody, &store, "maria", None, window, later).await.unwrap();
    assert!(input.jobs.is_empty());
    assert!(notes.iter().any(|n| n.message.contains("EVENT privilege")), "{notes:?}");
    assert!(notes.iter().any(|n| n.message.contains("performance_schema")), "{notes:?}");

    // Read-only: even a user allowed to write cannot, through Sundial's session.
    let writer =
        server::sources::connect::mysql_url(&url("writer", "writer-pw"), Duration::from_secs(5)).await.unwrap();
    let e = sqlx::query("INSERT INTO shop.ran VALUES ('sundial', UTC_TIMESTAMP())")
        .execute(&writer)
        .await
        .expect_err("read-only");
    assert!(e.to_string().contains("READ ONLY"), "{e}");

    // Unreachable: a clear error, and no password in it.
    let e = server::sources::connect::mysql_url("mysql://sundial:reader-pw@127.0.0.1:1/", Duration::from_secs(2))
        .await
        .expect_err("nothing on port 1");
    assert!(!e.to_string().contains("reader-pw"), "{e}");
    // A server that accepts and never answers: the connection's own timeout ends the wait with
    // an error that says so (a hang would reach the test's guard instead), no password in it.
    let silent = format!("mysql://sundial:reader-pw@127.0.0.1:{}/", silent_port().await);
    let e = ends_by_its_own_timeout(
        "mysql_events::connect_read_only",
        server::sources::connect::mysql_url(&silent, Duration::from_secs(1)),
    )
    .await
    .expect_err("a silent server");
    assert!(e.to_string().contains("no answer within 1s"), "{e}");
    assert!(!e.to_string().contains("reader-pw"), "{e}");
}

/// Seed 002's `job` table on a real MariaDB, its runner played by a MariaDB event that starts a
/// cycle every second (as `job$run` would: last cycle start and finish, cycle count), read by a
/// user with SELECT on that table only.
#[tokio::test(flavor = "multi_thread")]
async fn seed002_job_table_cycles_accumulate_from_sundials_samples() {
    const PORT2: u16 = port::MARIA_SEED002;
    const STUCK: TimeDelta = server::sources::job_table::DEFAULT_STUCK_AFTER;
    let server = TestServer::mariadb("sundial-seed002-", PORT2);
    let root = server.maria_root().await;
    for sql in [
        "CREATE DATABASE sched",
        // The article's table (its columns and types).
        "CREATE TABLE sched.job (job_id INT UNSIGNED NOT NULL AUTO_INCREMENT, job_owner VARCHAR(77) NOT NULL, job_name VARCHAR(129) NOT NULL, \
         job_description VARCHAR(1024), job_procedure_schema VARCHAR(64) NOT NULL, job_procedure_name VARCHAR(64) NOT NULL, \
         job_schedule_start DATETIME, job_schedule_finish DATETIME, job_schedule_interval INT UNSIGNED NOT NULL, \
         job_status ENUM('ABORTED','DISABLED','ENABLED','ERROR','FINISHED','PAUSED','RESUMED','RUNNING','SLEEPING') NOT NULL DEFAULT 'ENABLED', \
         job_runner_connection_id INT UNSIGNED, job_runner_start DATETIME, job_runner_finish DATETIME, job_runner_cycles INT UNSIGNED, \
         job_runner_last_cycle_start DATETIME, job_runner_last_cycle_finish DATETIME, PRIMARY KEY (job_id), UNIQUE KEY (job_owner, job_name))",
        "INSERT INTO sched.job (job_owner, job_name, job_procedure_schema, job_procedure_name, job_schedule_start, job_schedule_interval, job_status, job_runner_start, job_runner_cycles) \
         VALUES ('etl', 'every_second', 'sched', 'p_load', UTC_TIMESTAMP() - INTERVAL 1 SECOND, 1, 'RUNNING', UTC_TIMESTAMP(), 0), \
                ('etl', 'broken', 'sched', 'p_broken', '2026-01-01 00:00:00', 3600, 'ERROR', '2026-01-01 00:00:00', 5)",
        // The stopped job's last cycle, well in the past, failed: its finish never written, the runner's end a minute later.
        "UPDATE sched.job SET job_runner_last_cycle_start = UTC_TIMESTAMP() - INTERVAL 10 MINUTE, job_runner_last_cycle_finish = UTC_TIMESTAMP() - INTERVAL 70 MINUTE, \
         job_runner_finish = UTC_TIMESTAMP() - INTERVAL 9 MINUTE WHERE job_name = 'broken'",
        // The runner: one cycle a second.
        "CREATE EVENT sched.runner ON SCHEDULE EVERY 1 SECOND DO UPDATE sched.job SET job_runner_cycles = job_runner_cycles + 1, \
         job_runner_last_cycle_start = UTC_TIMESTAMP(), job_runner_last_cycle_finish = UTC_TIMESTAMP() WHERE job_name = 'every_second'",
        "CREATE USER seeds@'127.0.0.1' IDENTIFIED BY 'seeds-pw'",
        "GRANT SELECT ON sched.job TO seeds@'127.0.0.1'",
    ] {
        sqlx::query(sql).execute(&root).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let pool = server::sources::connect::mysql_url(
        &format!("mysql://seeds:seeds-pw@127.0.0.1:{PORT2}/sched"),
        Duration::from_secs(5),
    )
    .await
    .unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    let store = Store::open(&store_dir.path().join("store.sqlite")).await.unwrap();
    let mut db = server::sources::tables::TablesDb::MySql(pool);
    let start = Utc::now() - TimeDelta::seconds(3);
    let cycles = |root: MySqlPool| async move {
        sqlx::query_scalar::<_, i64>(
            "SELECT CAST(job_runner_cycles AS SIGNED) FROM sched.job WHERE job_name = 'every_second'",
        )
        .fetch_one(&root)
        .await
        .unwrap()
    };
    let mut seen_cycles = Vec::new();
    for _ in 0..3 {
        // Wait for the runner's next cycle (the condition), then poll.
        let before = cycles(root.clone()).await;
        let deadline = Instant::now() + Duration::from_secs(30);
        while cycles(root.clone()).await == before {
            assert!(Instant::now() < deadline, "the runner event did not cycle");
            tokio::time::sleep(Duration::from_millis(50)).await; // re-checks the condition
        }
        let w = Window::new(start - TimeDelta::hours(1), Utc::now() + TimeDelta::seconds(1));
        let input = server::sources::job_table::read_instance(
            &mut db,
            &store,
            "maria-jobs",
            chrono_tz::UTC,
            w,
            Utc::now(),
            STUCK,
        )
        .await
        .expect("read")
        .input;
        seen_cycles.push(input.jobs[1].runs.len());
    }
    let w = Window::new(start - TimeDelta::hours(1), Utc::now() + TimeDelta::seconds(1));
    let input =
        server::sources::job_table::read_instance(&mut db, &store, "maria-jobs", chrono_tz::UTC, w, Utc::now(), STUCK)
            .await
            .unwrap()
            .input;
    let names: Vec<&str> = input.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["etl.every_second", "etl.broken"]);
    assert!(input.jobs.iter().all(|j| j.owner.as_deref() == Some("etl")), "job_owner is each job's owner");
    let every = &input.jobs[0];
    assert!(every.runs.len() >= 3, "one sample per poll accumulates: {:?}", every.runs);
    assert!(every.runs.windows(2).all(|w| w[0].start < w[1].start), "distinct cycles");
    assert!(
        every.history_horizon.is_some_and(|h| h >= start - TimeDelta::seconds(2)),
        "samples start with the first poll"
    );
    let broken = &input.jobs[1];
    assert!(broken.enabled, "status ERROR: a forecast up to the failed cycle");
    assert_eq!(broken.runs.len(), 1);
    assert_eq!(broken.runs[0].outcome, RunOutcome::Failed);
    assert_eq!(broken.runs[0].duration_secs, 60);
    assert!(
        seen_cycles.iter().all(|n| *n == 1),
        "the stopped job's one cycle is one sample, however often polled: {seen_cycles:?}"
    );
    // Read-only and least privilege: the table is all this user can see.
    let pool = server::sources::connect::mysql_url(
        &format!("mysql://seeds:seeds-pw@127.0.0.1:{PORT2}/sched"),
        Duration::from_secs(5),
    )
    .await
    .unwrap();
    assert!(sqlx::query("UPDATE sched.job SET job_status = 'PAUSED'").execute(&pool).await.is_err());
}
