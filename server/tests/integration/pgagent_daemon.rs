//! The pgagent source against the REAL pgAgent daemon (Debian's `pgagent` 4.2) on a throwaway
//! PostgreSQL 15 on loopback: two jobs every minute, one whose step succeeds (`SELECT 1`) and
//! one whose step fails (`SELECT 1/0`). Sundial reads their runs, steps and output; then the
//! daemon is stopped while two of the schedule's minutes pass, and started again: Sundial sees
//! the agent gone, the new agent's login, and the late run pgAgent makes at once for the time
//! it missed (its `jobnextrun` was in the past). Sundial's judgment gives that run to the first
//! minute missed, late, and calls the minutes after it missed because the agent was down.
//!
//! Nothing waits on a clock: every wait polls the tables (or `pg_stat_activity`) until a
//! condition holds, with a deadline. Both jobs are first started by "run now" (`jobnextrun =
//! now()`, as pgAdmin does), then run once on the schedule's next minute before the stop.
use crate::support::servers::{TestServer, port};
use chrono::{DateTime, Duration, Utc};
use server::sources::pgagent::PgAgent;
use server::sources::{self, ReadContext, SourceRead};
use sqlx::{Connection, PgConnection};
use std::process::{Child, Command, Stdio};
use std::time::Instant;
use sundial_engine::{self as engine, RunOutcome, Severity, Window};

/// The daemon as a child process in the foreground; killed when dropped (a failing test leaves
/// nothing running).
struct Daemon {
    child: Child,
}

impl Daemon {
    fn start(port: u16, log: &std::path::Path) -> Daemon {
        let out = std::fs::OpenOptions::new().create(true).append(true).open(log).expect("the daemon's log");
        let child = Command::new("pgagent")
            .args(["-f", "-l", "2", "-t", "1"])
            .arg(format!("hostaddr=127.0.0.1 port={port} dbname=postgres user=postgres"))
            .stdin(Stdio::null())
            .stdout(out.try_clone().expect("the log"))
            .stderr(out)
            .spawn()
            .unwrap_or_else(|e| panic!("starting pgagent (run .ci/install-deps): {e}"));
        Daemon { child }
    }

    /// Gone at once, as a crash or `kill -9` leaves it: its `pga_jobagent` row stays.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Polls `check` (every 200 ms) until it answers `Some`, failing the test after `secs`
/// seconds with `what` and the daemon's log.
async fn until<T>(db: &mut PgConnection, secs: u64, what: &str, log: &std::path::Path, sql: &str) -> T
where
    T: for<'r> sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres> + Send + Unpin,
{
    let deadline = Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        let found: Option<T> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()))
            .fetch_optional(&mut *db)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        if let Some(v) = found {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: not within {secs} s; the daemon said:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

fn runs(read: &SourceRead, job: &str) -> Vec<sundial_engine::Run> {
    read.input.jobs.iter().find(|j| j.name == job).unwrap_or_else(|| panic!("job {job} is read")).runs.clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_real_pgagent_daemon_its_runs_its_stop_and_its_late_catch_up() {
    let server = TestServer::postgres("sundial-pgagent-daemon-", port::PGAGENT_DAEMON_PG);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("pgagent.log");
    let mut db = PgConnection::connect(&server.pg_url("postgres")).await.expect("connect");
    let every_minute = format!("{{{}}}", vec!["t"; 60].join(","));
    for sql in [
        "CREATE EXTENSION pgagent".to_owned(),
        "CREATE ROLE sundial_reader LOGIN".into(),
        "GRANT USAGE ON SCHEMA pgagent TO sundial_reader".into(),
        "GRANT SELECT ON pgagent.pga_job, pgagent.pga_jobclass, pgagent.pga_jobstep, pgagent.pga_schedule, \
         pgagent.pga_exception, pgagent.pga_joblog, pgagent.pga_jobsteplog, pgagent.pga_jobagent TO sundial_reader"
            .into(),
        "INSERT INTO pgagent.pga_job (jobid, jobjclid, jobname) VALUES (1, 1, 'select-one'), (2, 1, 'divide-by-zero')"
            .into(),
        "INSERT INTO pgagent.pga_jobstep (jstjobid, jstname, jstkind, jstcode, jstdbname) VALUES \
         (1, 'one', 's', 'SELECT 1', 'postgres'), (2, 'zero', 's', 'SELECT 1/0', 'postgres')"
            .into(),
        format!(
            "INSERT INTO pgagent.pga_schedule (jscjobid, jscname, jscminutes) VALUES \
             (1, 'every minute', '{every_minute}'), (2, 'every minute', '{every_minute}')"
        ),
        // "Run now", as pgAdmin does it.
        "UPDATE pgagent.pga_job SET jobnextrun = now()".into(),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql.clone())).execute(&mut db).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    let config = {
        let text = format!(
            "[[instance]]\nname = \"pga-live\"\nkind = \"pgagent\"\nhost = \"127.0.0.1\"\nport = {}\n\
             database = \"postgres\"\nuser = \"sundial_reader\"\ntime_zone = \"UTC\"\n",
            port::PGAGENT_DAEMON_PG
        );
        server::config::parse(&text, "pgagent_daemon.toml").unwrap_or_else(|e| panic!("{e}")).instances.remove(0)
    };
    let source = PgAgent::default();
    let read = |held: Option<SourceRead>| {
        let (source, config) = (&source, &config);
        async move {
            let now = Utc::now();
            let window = Window::new(now - Duration::hours(1), now + Duration::milliseconds(1));
            let cx = ReadContext { config, window, now, store: None, held: held.as_ref() };
            sources::read(source, cx).await.unwrap_or_else(|e| panic!("{e}"))
        }
    };

    // The agent runs both jobs at once; Sundial reads the runs, their steps and output.
    let mut daemon = Daemon::start(port::PGAGENT_DAEMON_PG, &log);
    // Two runs each: "run now", then the schedule's own next minute (a last run before the
    // stop on a minute of the schedule, so what follows does not hang on where "run now" fell).
    let _: i64 = until(
        &mut db,
        90,
        "both jobs' first two runs ended",
        &log,
        "SELECT count(*) FROM (SELECT jlgjobid FROM pgagent.pga_joblog WHERE jlgstatus IN ('s', 'f') \
           GROUP BY jlgjobid HAVING count(*) >= 2) two HAVING count(*) = 2",
    )
    .await;
    let first = read(None).await;
    assert_eq!(first.input.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(), ["select-one", "divide-by-zero"]);
    let ok = runs(&first, "select-one");
    assert_eq!(ok[0].outcome, RunOutcome::Succeeded);
    assert_eq!(
        ok[0].steps.iter().map(|s| (s.name.as_str(), s.outcome)).collect::<Vec<_>>(),
        [("one", Some(RunOutcome::Succeeded))]
    );
    let bad = runs(&first, "divide-by-zero");
    assert_eq!(bad[0].outcome, RunOutcome::Failed);
    assert_eq!(bad[0].failed_step().map(|s| s.name.as_str()), Some("zero"));
    assert!(bad[0].why().contains("division by zero"), "the step's output: {}", bad[0].why());
    let login: DateTime<Utc> = until(
        &mut db,
        10,
        "the agent's login",
        &log,
        "SELECT max(jaglogintime) FROM pgagent.pga_jobagent HAVING count(*) > 0",
    )
    .await;
    assert!(first.input.agent_starts.contains(&login), "the agent's login is an agent start");
    assert!(!first.notes.iter().any(|n| n.field.as_deref() == Some("pga_jobagent")), "the agent is connected");

    // The agent dies. Its session goes; its pga_jobagent row stays (a zombie until the next
    // agent clears it).
    daemon.kill();
    let stopped_at: DateTime<Utc> = until(
        &mut db,
        30,
        "the agent's session ended",
        &log,
        "SELECT now() FROM pgagent.pga_jobagent a WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = a.jagpid)",
    )
    .await;
    // Two of the schedule's minutes pass with nobody to run them: each job's next run (the
    // minute after its last run) and the one after it.
    let _: i32 = until(
        &mut db,
        150,
        "two scheduled minutes passed without the agent",
        &log,
        "SELECT count(*)::int FROM pgagent.pga_job WHERE jobnextrun + interval '61 seconds' < now() \
         HAVING count(*) = 2",
    )
    .await;
    let down = read(Some(first.clone())).await;
    let note = down.notes.iter().find(|n| n.field.as_deref() == Some("pga_jobagent")).expect("the agent is gone");
    assert_eq!(note.severity, Severity::Warning);
    assert!(note.tells(engine::Finding::SchedulerStopped), "a stopped scheduler");
    let last_before: Vec<DateTime<Utc>> = ["select-one", "divide-by-zero"]
        .iter()
        .map(|j| runs(&down, j).iter().map(|r| r.start).max().expect("runs before the stop"))
        .collect();
    assert!(last_before.iter().all(|t| *t < stopped_at));

    // A new agent: it clears the zombie, logs in, and runs each job at once for the time it
    // missed (one run, not one per missed minute).
    let restart_from: DateTime<Utc> = sqlx::query_scalar("SELECT now()").fetch_one(&mut db).await.unwrap();
    let _daemon = Daemon::start(port::PGAGENT_DAEMON_PG, &log);
    let _: i64 = until(
        &mut db,
        60,
        "both jobs' catch-up runs ended",
        &log,
        &format!(
            "SELECT count(DISTINCT jlgjobid) FROM pgagent.pga_joblog WHERE jlgstatus IN ('s', 'f') \
               AND jlgstart >= '{}' HAVING count(DISTINCT jlgjobid) = 2",
            restart_from.to_rfc3339()
        ),
    )
    .await;
    let relogin: DateTime<Utc> = until(
        &mut db,
        10,
        "the new agent's login",
        &log,
        &format!(
            "SELECT max(jaglogintime) FROM pgagent.pga_jobagent WHERE jaglogintime >= '{}'",
            restart_from.to_rfc3339()
        ),
    )
    .await;
    let back = read(Some(down.clone())).await;
    assert!(back.input.agent_starts.contains(&relogin), "the restart is an agent start");
    assert!(back.input.agent_starts.contains(&login), "the first agent's login, whose row the new agent cleared");
    assert!(!back.notes.iter().any(|n| n.field.as_deref() == Some("pga_jobagent")), "an agent is connected again");
    let tz = back.input.tz;
    for (job, last) in ["select-one", "divide-by-zero"].iter().zip(&last_before) {
        let all = runs(&back, job);
        let catch_up =
            all.iter().find(|r| r.start >= restart_from).unwrap_or_else(|| panic!("{job}: the catch-up run"));
        assert!(catch_up.start >= relogin, "{job}: it ran once the new agent was in");
        // Nothing ran while the agent was away.
        assert!(
            !all.iter().any(|r| r.start > *last && r.start < restart_from),
            "{job}: a run while the agent was down"
        );
        // The minutes the schedule wanted in between: at least two, none with a run; the
        // catch-up run comes after all of them, late.
        let schedule = &back.input.jobs.iter().find(|j| j.name == *job).expect("the job").schedules[0].schedule;
        let due = engine::forecast(0, schedule, tz, Window::new(*last + Duration::seconds(1), catch_up.start));
        let missed: Vec<_> = due.occurrences.iter().map(|o| o.at).filter(|at| *at > *last && *at < relogin).collect();
        assert!(missed.len() >= 2, "{job}: the minutes missed while the agent was down: {missed:?}");
        assert!(missed.iter().all(|at| catch_up.start - *at >= Duration::seconds(1)), "{job}: the catch-up is late");
        // pgAgent's own next run, after the catch-up, is Sundial's: no disagreement.
        let diags = &back.input.jobs.iter().find(|j| j.name == *job).expect("the job").diagnostics;
        assert!(!diags.iter().any(engine::triage::is_next_run_disagrees), "{job}: {diags:?}");
    }
    let outcome = |job: &str| runs(&back, job).iter().find(|r| r.start >= restart_from).map(|r| r.outcome);
    assert_eq!(outcome("select-one"), Some(RunOutcome::Succeeded));
    assert_eq!(outcome("divide-by-zero"), Some(RunOutcome::Failed));

    // Sundial's judgment, as every page reads it: the catch-up run is the late run of the first
    // minute the agent missed (pgAgent's jobnextrun then); the minutes after it up to the new
    // login were never run, missed because the agent was down until it came back.
    let now = Utc::now();
    let window = Window::new(now - Duration::hours(1), now + Duration::milliseconds(1));
    // No grace: the judgment is made seconds after the last minute missed, which a grace would
    // still call upcoming.
    let settings = engine::reconcile::Settings { grace_secs: 0, ..Default::default() };
    let report = engine::fleet::analyze(&back.input, window, now, &settings);
    for (job, last) in ["select-one", "divide-by-zero"].iter().zip(&last_before) {
        let j = report.jobs.iter().find(|j| j.name == *job).expect("the job is judged");
        let catch_up = j.runs.iter().position(|r| r.start >= restart_from).expect("the catch-up run");
        let outcomes: Vec<(DateTime<Utc>, &engine::Outcome)> = j
            .forecast
            .occurrences
            .iter()
            .zip(&j.reconciliation.outcomes)
            .filter(|(o, _)| o.at > *last && o.at < relogin)
            .map(|(o, r)| (o.at, r))
            .collect();
        assert!(outcomes.len() >= 2, "{job}: {outcomes:?}");
        assert!(
            matches!(outcomes[0].1, engine::Outcome::Late { run, .. } if *run == catch_up),
            "{job}: the first missed minute is the catch-up's, late: {outcomes:?}"
        );
        for (at, o) in &outcomes[1..] {
            assert!(
                matches!(o, engine::Outcome::Missed { cause: engine::reconcile::MissCause::AgentDown { restarted_at } } if *restarted_at == relogin),
                "{job}: {at} missed, the agent down until {relogin}: {o:?}"
            );
        }
    }
}
