//! The pg_cron source against a real PostgreSQL 15 + pg_cron (throwaway, loopback), read by
//! least-privileged roles made for the purpose. History rows are inserted directly in a past
//! window, so nothing waits for pg_cron to fire.
use crate::support::servers::{TestServer, port};
use crate::support::t;
use server::sources::SourceError as Error;
use server::sources::pg_cron;
use sqlx::{Connection, PgConnection};
use std::time::Duration;
use sundial_engine::Window;
use sundial_engine::fleet::analyze;
use sundial_engine::reconcile::{Outcome, Settings};
use sundial_engine::{RunOutcome, Severity};

#[tokio::test(flavor = "multi_thread")]
async fn pg_cron_source_reads_jobs_and_runs_as_least_privileged_roles() {
    let server = TestServer::postgres("sundial-pgsrc-", port::PG_CRON_SOURCE);
    let url = |user: &str| server.pg_url(user);

    let mut admin = PgConnection::connect(&url("postgres")).await.unwrap();
    for sql in [
        "CREATE EXTENSION IF NOT EXISTS pg_cron",
        // The least privilege that sees every job: USAGE + SELECT + BYPASSRLS.
        "CREATE ROLE sundial_reader LOGIN BYPASSRLS",
        "GRANT USAGE ON SCHEMA cron TO sundial_reader",
        "GRANT SELECT ON cron.job, cron.job_run_details TO sundial_reader",
        // The same without BYPASSRLS: row-level security hides other users' jobs.
        "CREATE ROLE rls_reader LOGIN",
        "GRANT USAGE ON SCHEMA cron TO rls_reader",
        "GRANT SELECT ON cron.job, cron.job_run_details TO rls_reader",
        // No USAGE on the schema at all.
        "CREATE ROLE no_usage LOGIN",
        "SELECT cron.schedule('hourly-etl', '0 * * * *', 'SELECT 1')",
        "SELECT cron.schedule('half-hourly-fails', '*/30 * * * *', 'SELECT 1/0')",
    ] {
        sqlx::query(sql).execute(&mut admin).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    // History in a past window: the hourly job ran every hour of 2026-01-01 but 13:00; the
    // half-hourly one failed twice; one run is still going; one row lies outside the window.
    sqlx::query(
        "INSERT INTO cron.job_run_details (jobid, job_pid, database, username, command, status, return_message, start_time, end_time) \
         SELECT 1, 0, 'postgres', 'postgres', 'SELECT 1', 'succeeded', '1 row', h + interval '2 seconds', h + interval '30 seconds' \
         FROM generate_series(timestamptz '2026-01-01 00:00Z', timestamptz '2026-01-01 23:00Z', interval '1 hour') h \
         WHERE h <> timestamptz '2026-01-01 13:00Z'",
    )
    .execute(&mut admin)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO cron.job_run_details (jobid, job_pid, database, username, command, status, return_message, start_time, end_time) VALUES \
         (2, 0, 'postgres', 'postgres', 'SELECT 1/0', 'failed', 'ERROR:  division by zero', '2026-01-01 10:00:01Z', '2026-01-01 10:00:02Z'), \
         (2, 0, 'postgres', 'postgres', 'SELECT 1/0', 'failed', 'ERROR:  division by zero', '2026-01-01 10:30:01Z', '2026-01-01 10:30:02Z'), \
         (2, 0, 'postgres', 'postgres', 'SELECT 1/0', 'running', NULL, '2026-01-01 23:30:01Z', NULL), \
         (1, 0, 'postgres', 'postgres', 'SELECT 1', 'succeeded', '1 row', '2025-12-31 12:00:02Z', '2025-12-31 12:00:30Z')",
    )
    .execute(&mut admin)
    .await
    .unwrap();

    let window = Window::new(t("2026-01-01T00:00:00Z"), t("2026-01-02T00:00:00Z"));
    let pool =
        server::sources::connect::postgres_url(&url("sundial_reader"), Duration::from_secs(5)).await.expect("connect");
    let (input, notes) = pg_cron::read_instance(&pool, "pg-main", window).await.expect("read");
    assert!(notes.iter().all(|n| n.severity != Severity::Warning), "a BYPASSRLS role sees everything: {notes:?}");
    assert_eq!(input.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(), ["hourly-etl", "half-hourly-fails"]);
    let hourly = &input.jobs[0];
    // What the job runs: the statement a DBA runs by hand for a miss.
    assert_eq!(hourly.command.as_deref(), Some("SELECT 1"));
    assert_eq!(hourly.runs.len(), 23, "the run outside the window is not read");
    let fails = &input.jobs[1];
    assert_eq!(
        fails.runs.iter().map(|r| r.outcome).collect::<Vec<_>>(),
        [RunOutcome::Failed, RunOutcome::Failed, RunOutcome::InProgress]
    );
    assert!(fails.runs[0].message.contains("division by zero"));

    // Read-only: a write through the source's pool is refused.
    let write = sqlx::query("CREATE TABLE sundial_was_here (i int)").execute(&pool).await;
    assert!(write.is_err(), "the source connection must be read-only");

    // The engine over it: 13:00 is missed, every other hour on time.
    let now = t("2026-01-02T00:00:00Z");
    let report = analyze(&input, window, now, &Settings::default());
    let hourly = report.jobs.iter().find(|j| j.name == "hourly-etl").unwrap();
    assert_eq!(hourly.missed, 1, "{:?}", hourly.reconciliation.outcomes);
    let missed_at = hourly
        .forecast
        .occurrences
        .iter()
        .zip(&hourly.reconciliation.outcomes)
        .find(|(_, o)| matches!(o, Outcome::Missed { .. }))
        .unwrap()
        .0
        .at;
    assert_eq!(missed_at, t("2026-01-01T13:00:00Z"));

    // A garbage schedule (pg_cron checks it in cron.schedule, not in an UPDATE) is a diagnostic
    // on that job; the page still has every other job.
    sqlx::query("UPDATE cron.job SET schedule = 'every tuesday' WHERE jobname = 'half-hourly-fails'")
        .execute(&mut admin)
        .await
        .unwrap();
    let (input, _) = pg_cron::read_instance(&pool, "pg-main", window).await.expect("read with a corrupt row");
    let report = analyze(&input, window, now, &Settings::default());
    let bad = report.jobs.iter().find(|j| j.name == "half-hourly-fails").unwrap();
    assert!(
        bad.diagnostics.iter().any(|d| d.severity == Severity::Error
            && d.field.as_deref() == Some("schedule")
            && d.value.as_deref().is_some_and(|v| v.contains("every tuesday"))),
        "{:?}",
        bad.diagnostics
    );
    assert!(bad.forecast.occurrences.is_empty());
    let hourly = report.jobs.iter().find(|j| j.name == "hourly-etl").unwrap();
    assert_eq!(hourly.missed, 1, "the other job is untouched");

    // Without BYPASSRLS: only its own jobs (none), and a warning that says why.
    let pool = server::sources::connect::postgres_url(&url("rls_reader"), Duration::from_secs(5)).await.unwrap();
    let (input, notes) = pg_cron::read_instance(&pool, "pg-main", window).await.unwrap();
    assert!(input.jobs.is_empty());
    assert!(notes.iter().any(|n| n.severity == Severity::Warning && n.message.contains("BYPASSRLS")), "{notes:?}");

    // Without USAGE on the schema: an error naming what to grant.
    let pool = server::sources::connect::postgres_url(&url("no_usage"), Duration::from_secs(5)).await.unwrap();
    let e = pg_cron::read_instance(&pool, "pg-main", window).await.expect_err("no usage");
    assert!(matches!(e, Error::Permission { .. }), "{e:?}");
    assert!(e.to_string().contains("USAGE on schema cron"), "{e}");

    // An unreachable server: a clear error within the timeout, no URL in it.
    let e = server::sources::connect::postgres_url(
        "postgres://sundial_reader:pw@127.0.0.1:1/postgres",
        Duration::from_secs(2),
    )
    .await
    .expect_err("nothing listens on port 1");
    assert!(!e.to_string().contains("pw"), "{e}");
}
