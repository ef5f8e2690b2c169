//! pg_cron read incrementally (issue 27's first slice), against the real PostgreSQL 15 +
//! pg_cron the other tests start: after a first read, a poll fetches only the rows past the
//! `runid` mark and the rows it saw unfinished (counted by the source: the assertions fail if a
//! poll re-reads the window); a run running at one poll and finished at the next is one run with
//! the later outcome; runs pg_cron purged between polls are still shown; a restart of Sundial
//! continues from its store's mark; a table truncated with its sequence reset is detected,
//! read whole again with a note, and no new row is skipped.
//!
//! Each poll does what the fleet's reader does: `sources::read` with the held read (which merges
//! a delta into it), then `history::InstanceHistory::keep` into a SQLite store of Sundial's.
use crate::support::servers::{TestServer, port};
use chrono::{DateTime, Duration, DurationRound, Utc};
use server::history::InstanceHistory;
use server::sources::pg_cron::PgCron;
use server::sources::snapshots::Store;
use server::sources::{self, Extent, ReadContext, SourceRead};
use sqlx::{Connection, PgConnection};
use sundial_engine::RunOutcome;
use sundial_engine::Window;

const RETENTION: std::time::Duration = std::time::Duration::from_secs(90 * 86_400);

/// A pg_cron server with two inactive jobs (the launcher never runs them: the test plays
/// pg_cron), and a least-privileged reader (no pg_read_all_settings). Returns the superuser's
/// connection, the instance's configuration and the two jobs' ids.
async fn setup(server: &TestServer, port: u16) -> (PgConnection, server::config::InstanceConfig, i64, i64) {
    let mut db = PgConnection::connect(&server.pg_url("postgres")).await.expect("connect");
    sqlx::query("CREATE EXTENSION IF NOT EXISTS pg_cron").execute(&mut db).await.expect("pg_cron");
    let mut ids = Vec::new();
    for name in ["every_ten_minutes", "hourly_rollup"] {
        let id: i64 = sqlx::query_scalar(
            "SELECT cron.schedule_in_database($1, '*/10 * * * *', 'SELECT 1', 'postgres', 'postgres', false)",
        )
        .bind(name)
        .fetch_one(&mut db)
        .await
        .expect("cron.schedule_in_database");
        ids.push(id);
    }
    for sql in [
        "CREATE ROLE sundial_inc LOGIN BYPASSRLS",
        "GRANT USAGE ON SCHEMA cron TO sundial_inc",
        "GRANT SELECT ON cron.job, cron.job_run_details TO sundial_inc",
    ] {
        sqlx::query(sql).execute(&mut db).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let text = format!(
        "[[instance]]\nname = \"pg-inc\"\nkind = \"pg_cron\"\nhost = \"127.0.0.1\"\nport = {port}\n\
         database = \"postgres\"\nuser = \"sundial_inc\"\n"
    );
    let mut fleet = server::config::parse(&text, "pg_cron_incremental.toml").unwrap_or_else(|e| panic!("{e}"));
    (db, fleet.instances.remove(0), ids[0], ids[1])
}

/// Finished runs of `job` every ten minutes over `[from, to)` ago, as pg_cron writes them.
async fn history(db: &mut PgConnection, job: i64, from: &str, to: &str) {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO cron.job_run_details (jobid, job_pid, database, username, command, status, return_message, \
         start_time, end_time) SELECT $1, 1, 'postgres', 'postgres', 'SELECT 1', 'succeeded', '1 row', t, \
         t + interval '2 seconds' FROM generate_series(date_trunc('minute', now()) - interval '{from}', \
         date_trunc('minute', now()) - interval '{to}', interval '10 minutes') t"
    )))
    .bind(job)
    .execute(db)
    .await
    .expect("insert history");
}

/// One row as pg_cron writes it at a run's start; its `runid`.
async fn started(db: &mut PgConnection, job: i64, status: &str, start: Option<DateTime<Utc>>) -> i64 {
    sqlx::query_scalar(
        "INSERT INTO cron.job_run_details (jobid, job_pid, database, username, command, status, start_time) \
         VALUES ($1, 2, 'postgres', 'postgres', 'SELECT 1', $2, $3) RETURNING runid",
    )
    .bind(job)
    .bind(status)
    .bind(start)
    .fetch_one(db)
    .await
    .expect("insert a started run")
}

/// A poll as the fleet's reader makes it; the read and the rows the source fetched for it.
async fn poll(
    source: &PgCron,
    config: &server::config::InstanceConfig,
    store: &Store,
    kept: &mut InstanceHistory,
    held: Option<&SourceRead>,
    now: DateTime<Utc>,
) -> (SourceRead, u64) {
    let window = Window::new(now - Duration::days(30), now + Duration::milliseconds(1));
    let before = source.rows_read();
    let cx = ReadContext { config, window, now, store: Some(store), held };
    let mut read = sources::read(source, cx).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read.extent, Extent::Whole, "every read past sources::read is whole");
    kept.keep(store, &config.name, &mut read, window, RETENTION).await.expect("kept");
    (read, source.rows_read() - before)
}

fn runs_of(read: &SourceRead, job: i64) -> Vec<(DateTime<Utc>, RunOutcome)> {
    let job = read.input.jobs.iter().find(|j| j.id == job.to_string()).expect("the job is read");
    job.runs.iter().map(|r| (r.start, r.outcome)).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pg_cron_poll_reads_only_new_and_unfinished_rows() {
    let server = TestServer::postgres("sundial-pginc-", port::PG_CRON_INCREMENTAL);
    let (mut db, config, a, b) = setup(&server, port::PG_CRON_INCREMENTAL).await;
    // Two days of history each (288 runs a job), one run running, one starting (no start yet).
    history(&mut db, a, "2 days", "10 minutes").await;
    history(&mut db, b, "2 days", "10 minutes").await;
    let running_at = Utc::now().duration_trunc(Duration::seconds(1)).unwrap() - Duration::seconds(30);
    let running = started(&mut db, a, "running", Some(running_at)).await;
    let starting = started(&mut db, b, "starting", None).await;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.db")).await.expect("store");
    let (source, mut kept) = (PgCron::default(), InstanceHistory::default());

    let now = Utc::now();
    let (first, rows) = poll(&source, &config, &store, &mut kept, None, now).await;
    assert!(rows > 500, "the first read is whole: {rows} rows");
    let total = |r: &SourceRead| r.input.jobs.iter().map(|j| j.runs.len()).sum::<usize>();
    assert_eq!(total(&first), 2 * 288 + 1, "every run of the window, the running one once");
    assert!(runs_of(&first, a).contains(&(running_at, RunOutcome::InProgress)));
    let mark = first.mark.clone().expect("a mark");
    assert!(mark.open.contains(&running) && mark.open.contains(&starting), "{mark:?}");
    // The least-privileged role cannot see cron.log_run: said, not failed (pg_settings hides it).
    assert!(
        first.notes.iter().any(|n| n.message.contains("cannot read cron.log_run")),
        "{:?}",
        first.notes.iter().map(|n| &n.message).collect::<Vec<_>>()
    );

    // Between polls: the running run ends (in place), the starting one starts, three new runs,
    // and pg_cron's purge takes every run that ended more than a day ago.
    sqlx::query(
        "UPDATE cron.job_run_details SET status = 'failed', return_message = 'boom', end_time = now() WHERE runid = $1",
    )
    .bind(running)
    .execute(&mut db)
    .await
    .unwrap();
    let started_at = Utc::now().duration_trunc(Duration::seconds(1)).unwrap() - Duration::seconds(2);
    sqlx::query("UPDATE cron.job_run_details SET status = 'running', start_time = $2 WHERE runid = $1")
        .bind(starting)
        .bind(started_at)
        .execute(&mut db)
        .await
        .unwrap();
    history(&mut db, b, "3 minutes", "1 minute").await; // 1 run
    let new_runs: i64 = sqlx::query_scalar("SELECT count(*) FROM cron.job_run_details WHERE runid > $1")
        .bind(mark.high)
        .fetch_one(&mut db)
        .await
        .unwrap();
    let purged = sqlx::query("DELETE FROM cron.job_run_details WHERE end_time < now() - interval '1 day'")
        .execute(&mut db)
        .await
        .unwrap()
        .rows_affected();
    assert!(purged > 250, "{purged}");

    let later = Utc::now();
    let (second, rows) = poll(&source, &config, &store, &mut kept, Some(&first), later).await;
    assert_eq!(
        rows,
        new_runs as u64 + 2,
        "the second poll fetches only the rows past the mark and the two it saw unfinished"
    );
    let ran = runs_of(&second, a);
    let at_running: Vec<_> = ran.iter().filter(|(s, _)| *s == running_at).collect();
    assert_eq!(at_running, [&(running_at, RunOutcome::Failed)], "one run, with its later outcome");
    assert!(runs_of(&second, b).contains(&(started_at, RunOutcome::InProgress)), "the started run is seen");
    // Purged by pg_cron, still shown: Sundial kept them.
    for job in [a, b] {
        let now_runs = runs_of(&second, job);
        for (start, _) in runs_of(&first, job).iter().filter(|(s, _)| *s != running_at) {
            assert!(now_runs.iter().any(|(s, _)| s == start), "job {job}: the run of {start} is gone");
        }
    }
    assert_eq!(total(&second), total(&first) + new_runs as usize + 1, "the new runs, none twice");
    let mark2 = second.mark.clone().expect("a mark");
    assert!(mark2.high > mark.high && mark2.open.contains(&starting) && !mark2.open.contains(&running));

    // A third poll with nothing new fetches only the one still unfinished.
    let (third, rows) = poll(&source, &config, &store, &mut kept, Some(&second), Utc::now()).await;
    assert_eq!(rows, 1, "only the unfinished row");
    assert_eq!(total(&third), total(&second));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_restart_continues_from_the_store_and_a_reset_runid_is_read_whole_again() {
    let server = TestServer::postgres("sundial-pgrebase-", port::PG_CRON_REBASE);
    let (mut db, config, a, b) = setup(&server, port::PG_CRON_REBASE).await;
    history(&mut db, a, "1 day", "10 minutes").await;
    history(&mut db, b, "1 day", "10 minutes").await;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.db")).await.expect("store");
    let total = |r: &SourceRead| r.input.jobs.iter().map(|j| j.runs.len()).sum::<usize>();

    let (first, rows) = {
        let (source, mut kept) = (PgCron::default(), InstanceHistory::default());
        poll(&source, &config, &store, &mut kept, None, Utc::now()).await
    };
    assert_eq!(rows, 2 * 144);

    // Sundial restarts: nothing held, the store's kept runs and mark stand in for it; one new run.
    history(&mut db, a, "3 minutes", "1 minute").await;
    let (source, mut kept) = (PgCron::default(), InstanceHistory::default());
    let now = Utc::now();
    let window = Window::new(now - Duration::days(30), now + Duration::milliseconds(1));
    let held = kept.held(&store, &config.name, window).await.expect("the store").expect("a mark kept");
    let (second, rows) = poll(&source, &config, &store, &mut kept, Some(&held), now).await;
    assert_eq!(rows, 1, "after the restart only the new row is fetched");
    assert_eq!(total(&second), total(&first) + 1);
    assert!(second.input.jobs.iter().all(|j| !j.name.is_empty()), "jobs come from cron.job");

    // The table truncated and its runid sequence reset, then more new rows than the mark before
    // the next poll: detected (the oldest row is another), read whole, noted, nothing skipped.
    let mark = second.mark.clone().expect("a mark");
    sqlx::query("TRUNCATE cron.job_run_details").execute(&mut db).await.unwrap();
    sqlx::query("SELECT setval('cron.runid_seq', 1, false)").execute(&mut db).await.unwrap();
    history(&mut db, b, "3 days", "1 minute").await; // 432 rows: past the mark again
    let high: i64 = sqlx::query_scalar("SELECT max(runid) FROM cron.job_run_details").fetch_one(&mut db).await.unwrap();
    assert!(high > mark.high, "the new rows pass the old mark ({high} > {})", mark.high);
    let (third, rows) = poll(&source, &config, &store, &mut kept, Some(&second), Utc::now()).await;
    assert!(rows >= 432, "read whole again: {rows}");
    assert!(
        third.notes.iter().any(|n| n.message.contains("truncated or its sequence reset")),
        "{:?}",
        third.notes.iter().map(|n| &n.message).collect::<Vec<_>>()
    );
    let b_runs = runs_of(&third, b);
    let in_table: i64 =
        sqlx::query_scalar("SELECT count(*) FROM cron.job_run_details WHERE start_time >= now() - interval '30 days'")
            .fetch_one(&mut db)
            .await
            .unwrap();
    assert!(b_runs.len() as i64 >= in_table, "every row of the new table is read: {} < {in_table}", b_runs.len());
    // Runs read before the truncation are still shown (Sundial kept them).
    for (start, _) in runs_of(&second, a) {
        assert!(runs_of(&third, a).iter().any(|(s, _)| *s == start), "job a's run of {start} is gone");
    }

    // The next poll is incremental again from the new mark, and the note stays.
    let (fourth, rows) = poll(&source, &config, &store, &mut kept, Some(&third), Utc::now()).await;
    assert_eq!(rows, 0, "nothing new");
    assert!(fourth.notes.iter().any(|n| n.message.contains("truncated or its sequence reset")));
}
