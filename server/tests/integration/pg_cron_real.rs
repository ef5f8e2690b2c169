//! Against the real pg_cron (Debian's postgresql-15-cron, 1.4): the runs pg_cron actually fires
//! for a few every-minute schedules fall on Sundial's forecast, none is missing, and a failing
//! command's runs say so.
//!
//! Slow by nature: pg_cron fires on minute boundaries, so this waits (polling
//! `cron.job_run_details` with a deadline, never a fixed sleep) for up to about three minutes.
//! The server is a throwaway cluster started by `.ci/pg-test-server` on 127.0.0.1; set
//! `SUNDIAL_PG_CRON_URL` to use an existing one instead.
use crate::support::servers::{TestServer, port};
use chrono::{DateTime, Duration, DurationRound, Utc};
use sqlx::{Connection, PgConnection, Row};
use std::time::Instant;
use sundial_engine::{self as engine, Schedule, Window, cron::CronSchedule};

/// The server to use: `SUNDIAL_PG_CRON_URL`'s, or a throwaway one (stopped when dropped).
fn start_server() -> (Option<TestServer>, String) {
    if let Ok(url) = std::env::var("SUNDIAL_PG_CRON_URL") {
        return (None, url);
    }
    let server = TestServer::postgres("sundial-pgcron-", port::PG_CRON_REAL);
    let url = server.pg_url("postgres");
    (Some(server), url)
}

struct Observed {
    start: DateTime<Utc>,
    status: String,
    message: String,
}

#[tokio::test(flavor = "multi_thread")]
async fn pg_cron_fires_on_sundials_forecast() {
    let (_server, url) = start_server();
    let mut db = PgConnection::connect(&url).await.expect("connect to the test PostgreSQL");
    sqlx::query("CREATE EXTENSION IF NOT EXISTS pg_cron").execute(&mut db).await.expect("create pg_cron");

    // (name, schedule, command, runs to wait for)
    let jobs = [
        ("every_minute_ok", "* * * * *", "SELECT 1", 2usize),
        ("every_minute_fails", "* * * * *", "SELECT 1/0", 2),
        ("every_two_minutes", "*/2 * * * *", "SELECT 2", 1),
    ];
    let mut ids = Vec::new();
    for (name, schedule, command, _) in &jobs {
        // cron.schedule(job_name, schedule, command) returns the jobid.
        let id: i64 = sqlx::query_scalar("SELECT cron.schedule($1, $2, $3)")
            .bind(name)
            .bind(schedule)
            .bind(command)
            .fetch_one(&mut db)
            .await
            .expect("cron.schedule");
        ids.push(id);
    }

    // A job another role owns (cron.job.username), inactive: it never runs.
    sqlx::query("CREATE ROLE etl_owner LOGIN").execute(&mut db).await.expect("create etl_owner");
    let owned: i64 = sqlx::query_scalar(
        "SELECT cron.schedule_in_database('nightly_etl', '0 3 * * *', 'SELECT 3', current_database(), 'etl_owner', false)",
    )
    .fetch_one(&mut db)
    .await
    .expect("cron.schedule_in_database");
    let database: String = sqlx::query_scalar("SELECT current_database()::text").fetch_one(&mut db).await.unwrap();

    let deadline = Instant::now() + std::time::Duration::from_secs(200);
    let observed = loop {
        let mut all = Vec::new();
        for id in &ids {
            // Finished runs of one job, oldest first.
            let rows = sqlx::query(
                "SELECT start_time, status, coalesce(return_message, '') AS message \
                 FROM cron.job_run_details WHERE jobid = $1 AND status IN ('succeeded', 'failed') \
                 ORDER BY start_time",
            )
            .bind(id)
            .fetch_all(&mut db)
            .await
            .expect("read cron.job_run_details");
            all.push(
                rows.iter()
                    .map(|r| Observed {
                        start: r.get::<DateTime<Utc>, _>("start_time"),
                        status: r.get("status"),
                        message: r.get("message"),
                    })
                    .collect::<Vec<_>>(),
            );
        }
        if all.iter().zip(&jobs).all(|(runs, job)| runs.len() >= job.3) {
            break all;
        }
        assert!(
            Instant::now() < deadline,
            "pg_cron did not fire enough within 200 s: {:?}",
            all.iter().map(Vec::len).collect::<Vec<_>>()
        );
        tokio::time::sleep(std::time::Duration::from_secs(1)).await; // polling interval, bounded by the deadline
    };
    // Sundial's pg_cron source, as a least-privileged role, shows exactly those runs.
    for sql in [
        "CREATE ROLE sundial_real LOGIN BYPASSRLS",
        "GRANT USAGE ON SCHEMA cron TO sundial_real",
        "GRANT SELECT ON cron.job, cron.job_run_details TO sundial_real",
    ] {
        sqlx::query(sql).execute(&mut db).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let reader_url = url.replacen("postgres@", "sundial_real@", 1);
    let pool = server::sources::connect::postgres_url(&reader_url, std::time::Duration::from_secs(5))
        .await
        .expect("connect as sundial_real");
    let first = observed.iter().filter_map(|r| r.first()).map(|r| r.start).min().unwrap();
    let last = observed.iter().filter_map(|r| r.last()).map(|r| r.start).max().unwrap();
    let window = Window::new(first, last + Duration::seconds(1));
    let (input, _) =
        server::sources::pg_cron::read_instance(&pool, "pg-real", window).await.expect("read as sundial_real");
    // Each job's owner is its username, its category its database.
    let owner = |name: &str| input.jobs.iter().find(|j| j.name == name).and_then(|j| j.owner.clone());
    assert_eq!(owner("every_minute_ok").as_deref(), Some("postgres"), "scheduled by postgres");
    assert_eq!(owner("nightly_etl").as_deref(), Some("etl_owner"));
    assert!(
        input.jobs.iter().all(|j| j.category == database),
        "{:?}",
        input.jobs.iter().map(|j| &j.category).collect::<Vec<_>>()
    );
    for ((name, ..), runs) in jobs.iter().zip(&observed) {
        let job = input.jobs.iter().find(|j| j.name == *name).unwrap_or_else(|| panic!("{name} not read"));
        let seen: Vec<(DateTime<Utc>, engine::RunOutcome)> = job
            .runs
            .iter()
            .filter(|r| r.outcome != engine::RunOutcome::InProgress)
            .map(|r| (r.start, r.outcome))
            .collect();
        let truth: Vec<(DateTime<Utc>, engine::RunOutcome)> = runs
            .iter()
            .map(|r| {
                (r.start, if r.status == "failed" { engine::RunOutcome::Failed } else { engine::RunOutcome::Succeeded })
            })
            .collect();
        assert_eq!(seen, truth, "{name}: Sundial's source against cron.job_run_details");
    }
    for id in ids.iter().chain([&owned]) {
        let _ = sqlx::query("SELECT cron.unschedule($1)").bind(id).execute(&mut db).await;
    }

    let mut max_lag = Duration::zero();
    let mut total = 0;
    for ((name, schedule, _, _), runs) in jobs.iter().zip(&observed) {
        let first = runs[0].start.duration_trunc(Duration::minutes(1)).unwrap();
        let last = runs[runs.len() - 1].start.duration_trunc(Duration::minutes(1)).unwrap();
        let window = Window::new(first, last + Duration::seconds(1));
        let f = engine::forecast(1, &Schedule::Cron(CronSchedule::new(*schedule)), chrono_tz::UTC.into(), window);
        assert!(f.diagnostics.is_empty(), "{name}: {:?}", f.diagnostics);
        let expected: Vec<DateTime<Utc>> = f.occurrences.iter().map(|o| o.at).collect();
        let fired: Vec<DateTime<Utc>> =
            runs.iter().map(|r| r.start.duration_trunc(Duration::minutes(1)).unwrap()).collect();
        assert_eq!(fired, expected, "{name}: pg_cron's runs against Sundial's forecast");
        for r in runs {
            let lag = r.start - r.start.duration_trunc(Duration::minutes(1)).unwrap();
            assert!(lag < Duration::seconds(10), "{name}: run at {} started {lag} after its minute", r.start);
            max_lag = max_lag.max(lag);
            total += 1;
            if *name == "every_minute_fails" {
                assert_eq!(r.status, "failed");
                assert!(r.message.contains("division by zero"), "{name}: {}", r.message);
            } else {
                assert_eq!(r.status, "succeeded", "{name}: {}", r.message);
            }
        }
    }
    println!(
        "pg_cron real: {total} runs observed on Sundial's forecast, max start lag {} ms",
        max_lag.num_milliseconds()
    );
}
