//! The pgagent source against a real PostgreSQL 15 with `CREATE EXTENSION pgagent`, rows
//! inserted directly as pgAgent writes them (no daemon: see `pgagent_daemon` for the real one),
//! read by a role with exactly the grants the source's documentation and README list.
use crate::support::servers::{TestServer, port};
use crate::support::t;
use server::sources::pgagent;
use server::sources::{self, Extent, SourceError};
use sqlx::{Connection, PgConnection};
use std::time::Duration;
use sundial_engine::fleet::analyze;
use sundial_engine::reconcile::{Outcome, Settings};
use sundial_engine::{RunOutcome, Severity, Window, Zone};

/// The grants of the module docs and README, word for word.
const GRANTS: &[&str] = &[
    "CREATE ROLE sundial_reader LOGIN",
    "GRANT USAGE ON SCHEMA pgagent TO sundial_reader",
    "GRANT SELECT ON pgagent.pga_job, pgagent.pga_jobclass, pgagent.pga_jobstep, pgagent.pga_schedule, \
     pgagent.pga_exception, pgagent.pga_joblog, pgagent.pga_jobsteplog, pgagent.pga_jobagent TO sundial_reader",
];

/// `{…}` of 60 minutes, true at `set`.
fn minutes(set: &[usize]) -> String {
    let v: Vec<&str> = (0..60).map(|i| if set.contains(&i) { "t" } else { "f" }).collect();
    format!("{{{}}}", v.join(","))
}

async fn exec(db: &mut PgConnection, sql: &str) {
    sqlx::query(sqlx::AssertSqlSafe(sql.to_owned())).execute(db).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// Finished runs of job 1 every quarter hour of `[from, to]` on 2026-01-01 (UTC), two steps
/// each; the run of `fail` fails at its second step with PostgreSQL's error as its output.
async fn quarter_runs(db: &mut PgConnection, from: &str, to: &str, skip: &str, fail: &str) {
    exec(
        db,
        &format!(
            "WITH runs AS (
               INSERT INTO pgagent.pga_joblog (jlgjobid, jlgstatus, jlgstart, jlgduration)
               SELECT 1, CASE WHEN t = timestamptz '2026-01-01 {fail}+00' THEN 'f' ELSE 's' END,
                      t + interval '1 second', interval '3 seconds'
                 FROM generate_series(timestamptz '2026-01-01 {from}+00', timestamptz '2026-01-01 {to}+00',
                                      interval '15 minutes') t
                WHERE t <> timestamptz '2026-01-01 {skip}+00'
               RETURNING jlgid, jlgstatus, jlgstart)
             INSERT INTO pgagent.pga_jobsteplog (jsljlgid, jsljstid, jslstatus, jslresult, jslstart, jslduration, jsloutput)
             SELECT jlgid, 1, 's', 1, jlgstart, interval '1 second', '' FROM runs
             UNION ALL
             SELECT jlgid, 2, jlgstatus, CASE WHEN jlgstatus = 'f' THEN -1 ELSE 1 END, jlgstart + interval '1 second',
                    interval '1 second', CASE WHEN jlgstatus = 'f' THEN 'ERROR:  division by zero' ELSE '' END
               FROM runs"
        ),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn pgagent_source_reads_jobs_runs_steps_and_agents_with_only_the_documented_grants() {
    let server = TestServer::postgres("sundial-pgagent-src-", port::PGAGENT_SOURCE_PG);
    let mut admin = PgConnection::connect(&server.pg_url("postgres")).await.expect("connect");
    // The agent: a session of its own, as pgAgent's (its pid in pga_jobagent while it lives).
    let mut agent = PgConnection::connect(&server.pg_url("postgres")).await.expect("connect the agent");
    let agent_pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()").fetch_one(&mut agent).await.unwrap();
    exec(&mut admin, "CREATE EXTENSION pgagent").await;
    for sql in GRANTS {
        exec(&mut admin, sql).await;
    }
    for sql in [
        format!(
            "INSERT INTO pgagent.pga_jobagent (jagpid, jaglogintime, jagstation) VALUES ({agent_pid}, '2025-12-31 23:00:00+00', 'db-host')"
        ),
        "INSERT INTO pgagent.pga_job (jobid, jobjclid, jobname, jobcreated) VALUES \
         (1, 1, 'quarter-hourly', '2025-12-01'), (2, 1, 'corrupt', '2025-12-01'), (3, 5, 'hourly', '2025-12-01')"
            .into(),
        "INSERT INTO pgagent.pga_jobstep (jstid, jstjobid, jstname, jstkind, jstcode, jstdbname) VALUES \
         (1, 1, 'load', 's', 'SELECT 1', 'postgres'), (2, 1, 'check', 's', 'SELECT 1/0', 'postgres'), \
         (3, 3, 'only', 's', 'SELECT 1', 'postgres')"
            .into(),
        format!(
            "INSERT INTO pgagent.pga_schedule (jscid, jscjobid, jscname, jscstart, jscminutes) VALUES \
             (1, 1, 'quarters', '2025-12-01 00:00+00', '{}'), (3, 3, 'on the hour', '2025-12-01 00:00+00', '{}')",
            minutes(&[0, 15, 30, 45]),
            minutes(&[0])
        ),
        // Subscripts 0..60 (61 slots): the table's CHECK (array_upper = 60) lets it through.
        // With the triggers on, pgAgent's own pga_next_schedule never ends on it (the trigger
        // that follows the insert hangs the statement): written with them off, as a restore would.
        "SET session_replication_role = replica".into(),
        format!(
            "INSERT INTO pgagent.pga_schedule (jscid, jscjobid, jscname, jscstart, jscminutes) VALUES \
             (2, 2, 'broken', '2025-12-01 00:00+00', '[0:60]={}')",
            minutes(&[0]).replace('}', ",f}")
        ),
        "SET session_replication_role = DEFAULT".into(),
        "INSERT INTO pgagent.pga_exception (jexscid, jexdate, jextime) VALUES (1, '2026-01-01', '05:00')".into(),
    ] {
        exec(&mut admin, &sql).await;
    }
    // Job 1: every quarter hour of 00:00–05:45 but 02:30 (missed) and 05:00 (an exception),
    // 03:00 failed; one run going at 06:00, on the live agent. Job 3: aborted at 01:00 (its
    // agent died), no step could run at 02:00.
    quarter_runs(&mut admin, "00:00", "05:45", "02:30", "03:00").await;
    exec(&mut admin, "DELETE FROM pgagent.pga_joblog WHERE jlgstart = '2026-01-01 05:00:01+00'").await;
    exec(
        &mut admin,
        "INSERT INTO pgagent.pga_joblog (jlgjobid, jlgstatus, jlgstart, jlgduration) VALUES \
         (3, 'd', '2026-01-01 01:00:01+00', NULL), (3, 'i', '2026-01-01 02:00:01+00', NULL), \
         (1, 'r', '2026-01-01 06:00:01+00', NULL)",
    )
    .await;
    exec(&mut admin, &format!("UPDATE pgagent.pga_job SET jobagentid = {agent_pid} WHERE jobid = 1")).await;

    let window = Window::new(t("2026-01-01T00:00:00Z"), t("2026-01-02T00:00:00Z"));
    let now = window.end;
    let pool = sources::connect::postgres_url(&server.pg_url("sundial_reader"), Duration::from_secs(5))
        .await
        .expect("connect as the reader");
    let first =
        pgagent::read_incremental(&pool, "pga", window, None, now, None).await.unwrap_or_else(|e| panic!("{e}"));
    let input = &first.input;
    assert_eq!(first.extent, Extent::Whole);
    assert_eq!(input.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(), ["quarter-hourly", "corrupt", "hourly"]);
    assert_eq!(input.jobs[0].category, "Routine Maintenance");
    assert_eq!(input.agent_starts, [t("2025-12-31T23:00:00Z")], "the agent's login is an agent start");
    // The server's TimeZone is not visible to this role: said, with what to do.
    assert!(
        first.notes.iter().any(|n| n.severity == Severity::Warning
            && n.field.as_deref() == Some("TimeZone")
            && n.message.contains("set time_zone")),
        "{:?}",
        first.notes
    );
    assert!(!first.notes.iter().any(|n| n.field.as_deref() == Some("pga_jobagent")), "the agent lives");

    let quarter = &input.jobs[0];
    assert_eq!(quarter.runs.len(), 22 + 1, "22 finished runs and the one going");
    let failed = quarter.runs.iter().find(|r| r.start == t("2026-01-01T03:00:01Z")).expect("the failed run");
    assert_eq!(failed.outcome, RunOutcome::Failed);
    assert_eq!(failed.steps.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["load", "check"]);
    assert_eq!(failed.failed_step().map(|s| s.name.as_str()), Some("check"));
    assert!(failed.why().contains("division by zero"), "{}", failed.why());
    let going = quarter.runs.last().expect("runs");
    assert_eq!((going.start, going.outcome), (t("2026-01-01T06:00:01Z"), RunOutcome::InProgress));

    // The corrupt row: an Error naming the table, the column and the schedule; the others load.
    let corrupt = &input.jobs[1];
    let d = corrupt
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error && d.field.as_deref() == Some("pgagent.pga_schedule.jscminutes"))
        .unwrap_or_else(|| panic!("{:?}", corrupt.diagnostics));
    assert!(
        d.message.contains("schedule 2 (\"broken\")") && d.value.as_deref().is_some_and(|v| v.starts_with("[0:60]"))
    );
    let hourly = &input.jobs[2];
    assert_eq!(hourly.category, "Miscellaneous");
    assert_eq!(hourly.runs.iter().map(|r| r.outcome).collect::<Vec<_>>(), [RunOutcome::Crashed, RunOutcome::Failed]);
    assert!(hourly.runs[0].message.contains("aborted"), "{}", hourly.runs[0].message);

    // The engine over it (05:00 is an exception: not expected). pgAgent catches up: with 02:30
    // not run, the run at 02:45:01 is 02:30's, late (the agent's jobnextrun was 02:30), and
    // 02:45 is the time never run (the next was computed from that run's end: 03:00).
    let report = analyze(input, window, now, &Settings::default());
    let job = report.jobs.iter().find(|j| j.name == "quarter-hourly").expect("the job");
    let missed: Vec<_> = job
        .forecast
        .occurrences
        .iter()
        .zip(&job.reconciliation.outcomes)
        .filter(|(_, o)| matches!(o, Outcome::Missed { .. }))
        .map(|(occ, _)| occ.at)
        .collect();
    assert!(missed.contains(&t("2026-01-01T02:45:00Z")), "{missed:?}");
    let at_0230 = job.forecast.occurrences.iter().position(|o| o.at == t("2026-01-01T02:30:00Z")).expect("02:30");
    assert!(
        matches!(job.reconciliation.outcomes[at_0230], Outcome::Late { delay_secs: 901, .. }),
        "{:?}",
        job.reconciliation.outcomes[at_0230]
    );
    assert!(!job.forecast.occurrences.iter().any(|o| o.at == t("2026-01-01T05:00:00Z")), "the exception");
    let corrupt = report.jobs.iter().find(|j| j.name == "corrupt").expect("the corrupt job is shown");
    assert!(corrupt.forecast.occurrences.is_empty());

    // Read-only: a write through the source's pool is refused.
    assert!(sqlx::query("CREATE TABLE sundial_was_here (i int)").execute(&pool).await.is_err());

    // The next poll: the run going has ended, two more ran. Only those three rows are fetched.
    exec(
        &mut admin,
        "UPDATE pgagent.pga_joblog SET jlgstatus = 's', jlgduration = interval '2 seconds' WHERE jlgstatus = 'r'",
    )
    .await;
    quarter_runs(&mut admin, "06:15", "06:30", "00:00", "06:30").await;
    let mark = first.mark.clone();
    let second = pgagent::read_incremental(&pool, "pga", window, Some(&mark), now, None).await.expect("second read");
    assert_eq!(second.extent, Extent::Delta);
    assert_eq!(second.rows, 3, "only the rows past the mark and the one it saw running");
    let delta = &second.input.jobs[0];
    assert_eq!(
        delta.runs.iter().map(|r| (r.start, r.outcome)).collect::<Vec<_>>(),
        [
            (t("2026-01-01T06:00:01Z"), RunOutcome::Succeeded),
            (t("2026-01-01T06:15:01Z"), RunOutcome::Succeeded),
            (t("2026-01-01T06:30:01Z"), RunOutcome::Failed),
        ]
    );
    let held = sources::SourceRead {
        mark: Some(mark),
        ..sources::SourceRead::new(first.input.clone(), first.notes.clone(), now)
    };
    let delta_read = sources::SourceRead {
        extent: Extent::Delta,
        mark: Some(second.mark.clone()),
        ..sources::SourceRead::new(second.input.clone(), second.notes.clone(), now)
    };
    let merged = sources::merge(&held, delta_read, window);
    assert_eq!(merged.input.jobs[0].runs.len(), 25, "every run once, the ended one with its outcome");
    // Nothing new: nothing fetched.
    let third = pgagent::read_incremental(&pool, "pga", window, Some(&second.mark), now, None).await.expect("third");
    assert_eq!(third.rows, 0, "a poll with nothing new reads no run");

    // The agent's session ends: the instance says no agent is connected, and a run left
    // "running" on it crashed.
    exec(
        &mut admin,
        "INSERT INTO pgagent.pga_joblog (jlgjobid, jlgstatus, jlgstart) VALUES (1, 'r', '2026-01-01 07:00:01+00')",
    )
    .await;
    agent.close().await.expect("the agent goes");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while sqlx::query_scalar::<_, bool>("SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1)")
        .bind(agent_pid)
        .fetch_one(&mut admin)
        .await
        .unwrap()
    {
        assert!(std::time::Instant::now() < deadline, "the agent's session did not end");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let fourth = pgagent::read_incremental(&pool, "pga", window, Some(&third.mark), now, None).await.expect("fourth");
    let stopped = fourth.notes.iter().find(|n| n.field.as_deref() == Some("pga_jobagent")).expect("the agent is gone");
    assert_eq!(stopped.severity, Severity::Warning);
    assert!(
        stopped.message.contains("no pgAgent is connected") && stopped.message.contains("db-host"),
        "{}",
        stopped.message
    );
    let orphan = fourth.input.jobs[0].runs.last().expect("the orphaned run");
    assert_eq!((orphan.start, orphan.outcome), (t("2026-01-01T07:00:01Z"), RunOutcome::Crashed));

    // The database's TimeZone (pg_db_role_setting), which the agent's sessions take, is the
    // zone schedules are computed in (the agent's role's own, when one is set: not tested here,
    // its session is gone).
    exec(&mut admin, "ALTER DATABASE postgres SET timezone = 'Europe/Berlin'").await;
    let zoned = pgagent::read_incremental(&pool, "pga", window, None, now, None).await.expect("zoned");
    assert!(zoned.input.tz == Zone::from(chrono_tz::Europe::Berlin), "the agent's role's zone");
    assert!(!zoned.notes.iter().any(|n| n.field.as_deref() == Some("TimeZone")), "{:?}", zoned.notes);

    // One grant short: the read fails naming the table and what to grant.
    exec(&mut admin, "REVOKE SELECT ON pgagent.pga_jobsteplog FROM sundial_reader").await;
    pool.close().await;
    let pool = sources::connect::postgres_url(&server.pg_url("sundial_reader"), Duration::from_secs(5)).await.unwrap();
    match pgagent::read_incremental(&pool, "pga", window, None, now, None).await {
        Err(e @ SourceError::Permission { .. }) => {
            let text = e.to_string();
            assert!(text.contains("pgagent.pga_jobsteplog") && text.contains("SELECT"), "{text}");
        }
        Err(e) => panic!("not a permission error: {e}"),
        Ok(_) => panic!("read without SELECT on pga_jobsteplog"),
    }
}
