//! The embedded demo, end to end: `write_demo` writes a real SQLite file, the msdb source
//! reads it back read-only, and what a DBA would notice on the dashboard is there.
use chrono::{DateTime, Duration, Utc};
use server::demo::{self, DemoSummary};
use server::sources::msdb_rows::{HistoryRow, MAX_OUTCOME_ROWS_PER_JOB};
use server::sources::msdb_sqlite;
use std::collections::{BTreeSet, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use sundial_engine::fleet::{self, InstanceInput};
use sundial_engine::reconcile::{MissCause, Outcome, RunClass, Settings};
use sundial_engine::{RunOutcome, Schedule, Trigger, Window};

fn now() -> DateTime<Utc> {
    "2026-11-22T12:00:00Z".parse().expect("a UTC instant")
}

fn last_30_days() -> Window {
    Window::ending_at(now(), Duration::days(30))
}

async fn write(dir: &Path, name: &str, seed: u64) -> (PathBuf, DemoSummary) {
    let path = dir.join(name);
    let started = std::time::Instant::now();
    let summary = demo::write_demo(&path, now(), seed).await.expect("the demo is written");
    eprintln!(
        "{summary} ({} ms, {} bytes)",
        started.elapsed().as_millis(),
        std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0)
    );
    (path, summary)
}

async fn read(path: &Path, window: Window) -> InstanceInput {
    let pool = msdb_sqlite::open_read_only(path).await.expect("opens read-only");
    let input = msdb_sqlite::read_instance(&pool, window).await.expect("reads the instance");
    pool.close().await;
    input
}

fn job<'a>(input: &'a InstanceInput, name: &str) -> &'a sundial_engine::fleet::JobInput {
    input.jobs.iter().find(|j| j.name == name).unwrap_or_else(|| panic!("job {name} is in the demo"))
}

#[tokio::test]
async fn the_demo_reads_back_as_an_instance_a_dba_recognises() {
    let dir = tempfile::tempdir().unwrap();
    let (path, summary) = write(dir.path(), "demo.sqlite", 42).await;
    assert!((38..=45).contains(&summary.jobs), "about 40 jobs: {summary}");
    assert!((10_000..300_000).contains(&summary.history_rows), "{summary}");
    assert!(
        summary.to_string().contains("SQLPROD01") && summary.to_string().contains("2026-11-22T12:00:00Z"),
        "{summary}"
    );
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < 40 << 20, "a few MB, not {size} bytes");

    let pool = msdb_sqlite::open_read_only(&path).await.unwrap();
    let meta = msdb_sqlite::read_meta(&pool).await.unwrap();
    assert_eq!((meta.name.as_str(), meta.tz.name(), meta.now, meta.seed), ("SQLPROD01", "America/New_York", now(), 42));
    pool.close().await;

    let s = demo::scenario(now());
    let input = read(&path, last_30_days()).await;
    assert_eq!(input.name, "SQLPROD01");
    assert_eq!(input.jobs.len(), summary.jobs);
    for j in &input.jobs {
        assert!(j.diagnostics.is_empty(), "{}: {:?}", j.name, j.diagnostics);
        assert!(j.runs.windows(2).all(|w| w[0].start <= w[1].start), "{}: runs sorted", j.name);
        assert!(j.runs.iter().all(|r| last_30_days().contains(r.start)), "{}: runs in the window", j.name);
    }

    // Schedules: every freq_type the Agent has, shared schedules and jobs with two.
    let freq_types: BTreeSet<i64> = input
        .jobs
        .iter()
        .flat_map(|j| &j.schedules)
        .map(|s| match &s.schedule {
            Schedule::Agent(a) => a.freq_type,
            other => panic!("the demo is an SQL Agent instance, found {other:?}"),
        })
        .collect();
    assert_eq!(freq_types, BTreeSet::from([1, 4, 8, 16, 32, 64]));
    assert!(input.jobs.iter().any(|j| j.schedules.len() == 2));
    assert!(input.jobs.iter().flat_map(|j| &j.schedules).any(|s| !s.enabled), "a disabled schedule");

    // The disabled job: there, disabled, and silent for the last 30 days (it stopped 35 days ago).
    let disabled = job(&input, demo::DISABLED_JOB);
    assert!(!disabled.enabled);
    assert!(disabled.runs.is_empty());
    let older = read(&path, Window::ending_at(now(), Duration::days(60))).await;
    let disabled_runs = &job(&older, demo::DISABLED_JOB).runs;
    assert!(!disabled_runs.is_empty(), "it ran before it was disabled");
    assert!(disabled_runs.iter().all(|r| r.start < s.disabled_at));

    // Manual runs, failures, retries.
    let all_runs = || input.jobs.iter().flat_map(|j| j.runs.iter().map(move |r| (j, r)));
    assert!(all_runs().any(|(j, r)| j.name == demo::RERUN_JOB && r.trigger == Trigger::Manual), "the re-run by hand");
    assert!(job(&input, demo::MANUAL_JOB).runs.iter().all(|r| r.trigger == Trigger::Manual));
    assert!(all_runs().any(|(_, r)| r.outcome == RunOutcome::Failed && r.message.starts_with("The job failed.")));
    for (j, r) in all_runs() {
        if let Trigger::Schedule(id) = r.trigger {
            let id = id.expect("scheduled runs name their schedule");
            assert!(j.schedules.iter().any(|s| s.id == id), "{}: schedule {id} is one of its own", j.name);
        }
    }
    let vendor = job(&input, demo::RETRY_JOB);
    let pool = msdb_sqlite::open_read_only(&path).await.unwrap();
    let steps = msdb_sqlite::read_job_history(&pool, &vendor.id, last_30_days()).await.unwrap();
    pool.close().await;
    assert!(steps.iter().any(|h| h.step_id == 1 && h.run_status == 2), "a step attempt marked Retry");
    assert!(
        steps.iter().any(|h| h.step_id == 1 && h.run_status == 1 && h.retries_attempted == 1),
        "then success on retry"
    );
    assert!(steps.iter().filter(|h| h.step_id == 0).all(|h| h.step_name == "(Job outcome)"));

    // The zombie span: nothing started on the instance, while every other day had runs.
    let starts: Vec<DateTime<Utc>> = all_runs().map(|(_, r)| r.start).collect();
    assert!(starts.iter().all(|t| !s.zombie.contains(*t)), "no run starts in the zombie span");
    let mut day = last_30_days().start;
    while day + Duration::days(1) <= now() {
        let d = Window::new(day, day + Duration::days(1));
        if d.end <= s.zombie.start || d.start >= s.zombie.end {
            assert!(starts.iter().filter(|t| d.contains(**t)).count() > 100, "runs on {}", d.start);
        }
        day += Duration::days(1);
    }

    // The Agent restart: a session, nothing started in the ~20 minutes before it, the startup job after.
    assert!(input.agent_starts.contains(&s.agent_restart), "{:?}", input.agent_starts);
    assert!(starts.iter().all(|t| !s.agent_down.contains(*t)));
    assert!(
        job(&input, demo::STARTUP_JOB)
            .runs
            .iter()
            .any(|r| r.start >= s.agent_restart && r.start < s.agent_restart + Duration::minutes(1))
    );

    // The trimmed poller: only its latest 100 outcome rows, and a history horizon to say so.
    let poller = job(&input, demo::TRIMMED_JOB);
    assert_eq!(poller.runs.len() as i64, MAX_OUTCOME_ROWS_PER_JOB);
    assert_eq!(poller.history_horizon, poller.runs.first().map(|r| r.start));
    for j in input.jobs.iter().filter(|j| j.name != demo::TRIMMED_JOB) {
        assert_eq!(j.history_horizon, None, "{} keeps its whole history", j.name);
    }
}

fn digest(rows: &[HistoryRow]) -> u64 {
    let mut h = DefaultHasher::new();
    rows.hash(&mut h);
    h.finish()
}

async fn history_digest(path: &Path) -> (u64, usize) {
    let window = Window::ending_at(now() + Duration::days(1), Duration::days(demo::HISTORY_DAYS + 2));
    let input = read(path, window).await;
    let pool = msdb_sqlite::open_read_only(path).await.unwrap();
    let mut all = Vec::new();
    for j in &input.jobs {
        all.extend(msdb_sqlite::read_job_history(&pool, &j.id, window).await.unwrap());
    }
    pool.close().await;
    all.sort_by_key(|r| r.instance_id);
    (digest(&all), all.len())
}

#[tokio::test]
async fn the_same_seed_and_now_give_the_same_database() {
    let dir = tempfile::tempdir().unwrap();
    let (a, sa) = write(dir.path(), "a.sqlite", 7).await;
    let (b, sb) = write(dir.path(), "b.sqlite", 7).await;
    let (c, _) = write(dir.path(), "c.sqlite", 8).await;
    assert_eq!(sa.history_rows, sb.history_rows);
    let (da, na) = history_digest(&a).await;
    assert_eq!(na, sa.history_rows, "every history row is read back");
    assert_eq!(history_digest(&b).await.0, da, "same seed, same history");
    assert_ne!(history_digest(&c).await.0, da, "another seed, another history");
    assert_eq!(read(&a, last_30_days()).await, read(&b, last_30_days()).await);

    // Writing again over an existing file replaces it.
    let again = demo::write_demo(&a, now(), 7).await.unwrap();
    assert_eq!(again.history_rows, sa.history_rows);
    assert_eq!(history_digest(&a).await.0, da);
}

#[tokio::test]
async fn opening_read_only_refuses_writes() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = write(dir.path(), "ro.sqlite", 42).await;
    let before = read(&path, last_30_days()).await;
    let pool = msdb_sqlite::open_read_only(&path).await.unwrap();
    // Writes through the read-only pool fail (SQLite: attempt to write a readonly database).
    let err = sqlx::query("DELETE FROM sysjobhistory").execute(&pool).await.expect_err("read-only");
    assert!(err.to_string().to_lowercase().contains("readonly"), "{err}");
    assert!(sqlx::query("CREATE TABLE sneaky (x INTEGER)").execute(&pool).await.is_err());
    pool.close().await;
    assert_eq!(read(&path, last_30_days()).await, before);

    // A missing file is an error, not an empty database.
    let missing = msdb_sqlite::open_read_only(&dir.path().join("nope.sqlite")).await;
    assert!(missing.is_err());
    assert!(!dir.path().join("nope.sqlite").exists());
}

#[tokio::test]
async fn corrupt_rows_become_diagnostics_on_their_job() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = write(dir.path(), "corrupt.sqlite", 42).await;
    let before = read(&path, last_30_days()).await;
    let victim = job(&before, "Report - Weekly Inventory").clone();

    // Damage the file behind Sundial's back (the test is the only writer besides the demo).
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path);
    let pool = sqlx::sqlite::SqlitePoolOptions::new().max_connections(1).connect_with(options).await.unwrap();
    let row = |instance_id: i64, run_status: i64, run_date: i64, run_time: i64| HistoryRow {
        instance_id,
        job_id: victim.id.clone(),
        step_id: 0,
        step_name: "(Job outcome)".into(),
        sql_message_id: 0,
        sql_severity: 0,
        message: "The job succeeded.  The Job was invoked by Schedule 1 (x).  The last step to run was step 1 (x)."
            .into(),
        run_status,
        run_date,
        run_time,
        run_duration: 130,
        retries_attempted: 0,
        server: "SQLPROD01".into(),
    };
    server::demo::write::insert_history(
        &pool,
        &[
            row(900_000_001, 9, 20261120, 70000),  // unknown run_status
            row(900_000_002, 1, 20261032, 70000),  // October 32nd, inside the window's date range
            row(900_000_003, 1, 20261119, 256000), // 25:60:00
            row(900_000_004, 1, 20231345, 70000),  // the job's oldest row: month 13
        ],
    )
    .await
    .unwrap();
    // A run_duration stored as text (SQLite keeps what it is given).
    sqlx::query("UPDATE sysjobhistory SET run_duration = 'long' WHERE instance_id = 900000001")
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;

    let after = read(&path, last_30_days()).await;
    let damaged = job(&after, "Report - Weekly Inventory");
    assert_eq!(damaged.runs, victim.runs, "its good runs still read");
    let shown: Vec<String> = damaged.diagnostics.iter().map(ToString::to_string).collect();
    eprintln!("{shown:#?}");
    let has = |field: &str, value: &str| {
        damaged.diagnostics.iter().any(|d| d.field.as_deref() == Some(field) && d.value.as_deref() == Some(value))
    };
    assert!(has("run_status", "9"), "{shown:?}");
    assert!(has("run_date", "20261032"), "{shown:?}");
    assert!(has("run_time", "256000"), "{shown:?}");
    assert!(has("run_date", "20231345"), "the oldest row: {shown:?}");
    assert!(
        damaged.diagnostics.iter().any(|d| d.message.contains("instance_id 900000002")),
        "rows are named by key: {shown:?}"
    );
    for (a, b) in before.jobs.iter().zip(&after.jobs) {
        if a.id != victim.id {
            assert_eq!(a, b, "{} reads as before", a.name);
        }
    }
}

#[tokio::test]
async fn analysis_of_the_demo_finds_the_zombie_the_skips_and_the_manual_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = write(dir.path(), "analyze.sqlite", 42).await;
    let s = demo::scenario(now());
    let window = last_30_days();
    let input = read(&path, window).await;
    let report = fleet::analyze(&input, window, now(), &Settings::default());
    assert_eq!(report.jobs.len(), input.jobs.len());

    let overlaps = |w: &Window| w.start < s.zombie.end && s.zombie.start < w.end;
    assert!(
        report.context.zombie_periods.iter().any(overlaps),
        "zombie periods {:?} vs simulated {:?}",
        report.context.zombie_periods,
        s.zombie
    );

    let mut zombie_misses = 0;
    let mut skipped = HashSet::new();
    let mut manual = HashSet::new();
    for j in &report.jobs {
        for (o, outcome) in j.forecast.occurrences.iter().zip(&j.reconciliation.outcomes) {
            match outcome {
                Outcome::Missed { cause: MissCause::AgentZombie { period } } => {
                    assert!(s.zombie.contains(o.at) || period.contains(o.at), "{}: zombie miss at {}", j.name, o.at);
                    if s.zombie.contains(o.at) {
                        zombie_misses += 1;
                    }
                }
                Outcome::SkippedRunning { .. } => {
                    skipped.insert(j.name.clone());
                }
                _ => {}
            }
        }
        if j.reconciliation.runs.contains(&RunClass::Manual) {
            manual.insert(j.name.clone());
        }
    }
    assert!(zombie_misses >= 100, "occurrences missed in the zombie span: {zombie_misses}");
    assert!(skipped.contains(demo::LONG_RUN_JOB), "skipped: {skipped:?}");
    assert!(manual.contains(demo::RERUN_JOB) && manual.contains(demo::MANUAL_JOB), "manual: {manual:?}");
}

/// SQL Agent's step rows from the demo's file: a run gets the step rows between its job's
/// previous outcome row and its own; a run going now gets the steps done and the step
/// executing now (`sysjobactivity.last_executed_step_id` + 1, named by `sysjobsteps`), which
/// the job page says; a step row with no outcome row after it (and no run going) is a
/// diagnostic, not a run.
#[tokio::test(flavor = "multi_thread")]
async fn runs_carry_their_steps_and_a_running_job_its_step_executing_now() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = write(dir.path(), "demo.sqlite", 42).await;
    let before = read(&path, last_30_days()).await;
    // Every finished run of a job with steps has them, in order, each after its run started.
    let failed = before
        .jobs
        .iter()
        .flat_map(|j| &j.runs)
        .rev()
        .find(|r| r.outcome == RunOutcome::Failed && r.steps.len() > 1)
        .expect("a failed run of several steps");
    assert!(!failed.steps.is_empty(), "{failed:?}");
    assert!(failed.steps.iter().all(|s| s.start.is_some_and(|t| t >= failed.start) && !s.subsystem.is_empty()));
    let step = failed.failed_step().expect("the step that failed");
    let strays: Vec<&sundial_engine::Diagnostic> =
        before.jobs.iter().flat_map(|j| &j.diagnostics).filter(|d| d.message.contains("step row")).collect();
    assert!(strays.is_empty(), "every step row of the demo has its run: {strays:?}");
    assert!(failed.why().starts_with(&format!("step {} ({}): ", step.id, step.name)), "{}", failed.why());
    assert!(!failed.why().contains("The job failed"), "{}", failed.why());

    // Two jobs of several steps: one started 10 minutes ago and finished its first step, the
    // other left a step row and no outcome row.
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path);
    let pool = sqlx::sqlite::SqlitePoolOptions::new().max_connections(1).connect_with(options).await.unwrap();
    let multi: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT j.job_id, j.name, s.step_name FROM sysjobs j JOIN sysjobsteps s ON s.job_id = j.job_id AND s.step_id = 2
         WHERE (SELECT COUNT(*) FROM sysjobsteps x WHERE x.job_id = j.job_id) >= 2 ORDER BY j.name LIMIT 2",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let [(going_id, going_name, step_2), (orphan_id, orphan_name, _)] = &multi[..] else { panic!("{multi:?}") };
    let (next_id, session): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT MAX(instance_id) + 1 FROM sysjobhistory), (SELECT MAX(session_id) FROM syssessions)",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let step_row = |instance_id: i64, job_id: &str, run_time: i64| HistoryRow {
        instance_id,
        job_id: job_id.to_owned(),
        step_id: 1,
        step_name: "Step one".into(),
        sql_message_id: 0,
        sql_severity: 0,
        message: "Executed as user: CORP\\svc. The step succeeded.".into(),
        run_status: 1,
        run_date: 20261122,
        run_time,
        run_duration: 500,
        retries_attempted: 0,
        server: "SQLPROD01".into(),
    };
    // 06:50 in New York is 11:50 UTC, ten minutes before the demo's now.
    server::demo::write::insert_history(
        &pool,
        &[step_row(next_id, going_id, 65000), step_row(next_id + 1, orphan_id, 64000)],
    )
    .await
    .unwrap();
    sqlx::query(
        "INSERT OR REPLACE INTO sysjobactivity (session_id, job_id, run_requested_source, start_execution_date,
            last_executed_step_id, last_executed_step_date, stop_execution_date)
         VALUES (?1, ?2, '1', '2026-11-22 06:50:00.000', 1, '2026-11-22 06:50:00.000', NULL)",
    )
    .bind(session)
    .bind(going_id)
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;

    let after = read(&path, last_30_days()).await;
    let going = job(&after, going_name).runs.last().expect("the run going").clone();
    assert_eq!(going.outcome, RunOutcome::InProgress);
    let steps: Vec<(i64, &str, Option<RunOutcome>)> =
        going.steps.iter().map(|s| (s.id, s.name.as_str(), s.outcome)).collect();
    assert_eq!(
        steps,
        [(1, "Step one", Some(RunOutcome::Succeeded)), (2, step_2.as_str(), Some(RunOutcome::InProgress))]
    );
    assert_eq!(going.steps[1].start, Some("2026-11-22T11:55:00Z".parse().unwrap()), "when step 1 ended");
    let orphan = job(&after, orphan_name);
    assert!(
        orphan.diagnostics.iter().any(|d| d.message.contains(&format!(
            "1 step row without the job-outcome row of its run (the first: sysjobhistory row instance_id {}",
            next_id + 1
        ))),
        "{:?}",
        orphan.diagnostics
    );
    assert_eq!(orphan.runs, job(&before, orphan_name).runs, "its runs as before");

    // The job page says the step executing now.
    let toml = std::fs::read_to_string(demo::fleet_file_of(&path)).unwrap();
    let state = crate::support::web::fleet_as_of(&toml, now()).await;
    let (status, html) = crate::support::web::get(
        &state,
        &format!("/jobs/{}?instance={}&days=7", going_id.replace(' ', "%20"), demo::INSTANCE),
    )
    .await;
    assert_eq!(status, axum::http::StatusCode::OK);
    let doc = scraper::Html::parse_document(&html);
    let sel = |s: &str| scraper::Selector::parse(s).unwrap();
    let current: Vec<String> =
        doc.select(&sel(r#"[data-testid="current-step"]"#)).map(|e| e.text().collect::<String>()).collect();
    let summaries: Vec<String> = doc.select(&sel(".steps summary")).map(|e| e.text().collect::<String>()).collect();
    assert_eq!(current, [format!("step 2 ({step_2})")], "the running note names the step executing now");
    assert!(summaries.contains(&format!("2 steps so far, executing step 2 ({step_2})")), "{summaries:?}");
}

/// The step a running SQL Agent job executes now follows what `sysjobsteps` says follows its
/// last finished step, read from the demo's file: success → go to step 3 (not step 2),
/// failure → go to the last step, failure → quit (the run is finishing: no step executes).
#[tokio::test(flavor = "multi_thread")]
async fn a_running_jobs_step_now_follows_the_go_to_of_its_last_step() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = write(dir.path(), "demo.sqlite", 42).await;
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path);
    let pool = sqlx::sqlite::SqlitePoolOptions::new().max_connections(1).connect_with(options).await.unwrap();
    let (job_id, name, steps): (String, String, i64) = sqlx::query_as(
        "SELECT j.job_id, j.name, (SELECT COUNT(*) FROM sysjobsteps x WHERE x.job_id = j.job_id) AS n
         FROM sysjobs j WHERE n >= 3 ORDER BY j.name LIMIT 1",
    )
    .fetch_one(&pool)
    .await
    .expect("a job of three steps or more");
    let step_name = async |id: i64| -> String {
        sqlx::query_scalar("SELECT step_name FROM sysjobsteps WHERE job_id = ?1 AND step_id = ?2")
            .bind(&job_id)
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap()
    };
    let (third, last) = (step_name(3).await, step_name(steps).await);
    let (instance_id, session): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT MAX(instance_id) + 1 FROM sysjobhistory), (SELECT MAX(session_id) FROM syssessions)",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    // Step 1 began at 06:50 New York (11:50 UTC) and ended five minutes later; the job runs on.
    sqlx::query(
        "INSERT OR REPLACE INTO sysjobactivity (session_id, job_id, run_requested_source, start_execution_date,
            last_executed_step_id, last_executed_step_date, stop_execution_date)
         VALUES (?1, ?2, '1', '2026-11-22 06:50:00.000', 1, '2026-11-22 06:50:00.000', NULL)",
    )
    .bind(session)
    .bind(&job_id)
    .execute(&pool)
    .await
    .unwrap();
    let status = |run_status: i64| HistoryRow {
        instance_id,
        job_id: job_id.clone(),
        step_id: 1,
        step_name: "Step one".into(),
        sql_message_id: 0,
        sql_severity: 0,
        message: String::new(),
        run_status,
        run_date: 20261122,
        run_time: 65000,
        run_duration: 500,
        retries_attempted: 0,
        server: "SQLPROD01".into(),
    };
    server::demo::write::insert_history(&pool, &[status(1)]).await.unwrap();
    // Step 1's on_success_action, on_success_step_id, on_fail_action, on_fail_step_id.
    let set_step_1 = async |actions: [i64; 4]| {
        sqlx::query(
            "UPDATE sysjobsteps SET on_success_action = ?2, on_success_step_id = ?3, on_fail_action = ?4,
                on_fail_step_id = ?5 WHERE job_id = ?1 AND step_id = 1",
        )
        .bind(&job_id)
        .bind(actions[0])
        .bind(actions[1])
        .bind(actions[2])
        .bind(actions[3])
        .execute(&pool)
        .await
        .unwrap();
    };
    let set_outcome = async |run_status: i64| {
        sqlx::query("UPDATE sysjobhistory SET run_status = ?1 WHERE instance_id = ?2")
            .bind(run_status)
            .bind(instance_id)
            .execute(&pool)
            .await
            .unwrap();
    };
    let now_step = async || -> Option<(i64, String)> {
        let input = read(&path, last_30_days()).await;
        let run = job(&input, &name).runs.last().expect("the run going").clone();
        assert_eq!(run.outcome, RunOutcome::InProgress);
        run.steps.iter().find(|s| s.outcome == Some(RunOutcome::InProgress)).map(|s| (s.id, s.name.clone()))
    };

    // Succeeded, and on success go to step 3: step 3 executes, not step 2.
    set_step_1([4, 3, 2, 0]).await;
    assert_eq!(now_step().await, Some((3, third.clone())), "success → go to step 3");
    // Failed, and on failure go to the last step.
    set_outcome(0).await;
    set_step_1([4, 3, 4, steps]).await;
    assert_eq!(now_step().await, Some((steps, last.clone())), "failure → go to step {steps}");
    // Failed, and on failure quit reporting failure: the run is ending, no step executes.
    set_step_1([4, 3, 2, 0]).await;
    assert_eq!(now_step().await, None, "failure → quit");
    // Succeeded, and on success go to the next step: step 2, as before.
    set_outcome(1).await;
    set_step_1([3, 0, 2, 0]).await;
    assert_eq!(now_step().await.map(|s| s.0), Some(2), "success → the next step");
}
