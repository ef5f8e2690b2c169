//! The history Sundial keeps (`server::history`) over a real store file: a job's runs survive
//! the scheduler purging them, a restart of Sundial, and re-reads (never counted twice); a run
//! seen in progress is kept as it ended; a stretch Sundial did not see stays unknown; runs past
//! the retention go; a store that refuses writes (its disk full) or goes away (PostgreSQL
//! restarting) loses nothing that was read: the next read writes it.
use crate::support::t;
use chrono::{DateTime, Duration, Utc};
use server::history::InstanceHistory;
use server::sources::SourceRead;
use server::sources::snapshots::Store;
use sundial_engine::fleet::{InstanceInput, JobInput};
use sundial_engine::{Run, RunOutcome, Trigger, Window};

const DAYS: i64 = 30;

fn run(start: DateTime<Utc>, outcome: RunOutcome) -> Run {
    Run {
        start,
        duration_secs: 60,
        outcome,
        trigger: Trigger::Schedule(None),
        message: String::new(),
        steps: Vec::new(),
    }
}

/// Hourly runs of the backup job from `from` to `to` (exclusive).
fn hourly(from: DateTime<Utc>, to: DateTime<Utc>) -> Vec<Run> {
    let mut out = Vec::new();
    let mut at = from;
    while at < to {
        out.push(run(at, RunOutcome::Succeeded));
        at += Duration::hours(1);
    }
    out
}

/// A read at `now` of one job holding `runs`; the source keeps history from `horizon` on
/// (`None`: all of the read's window).
fn read(now: DateTime<Utc>, runs: Vec<Run>, horizon: Option<DateTime<Utc>>) -> SourceRead {
    let job = JobInput {
        id: "backup".into(),
        name: "Backup".into(),
        category: String::new(),
        owner: None,
        enabled: true,
        command: None,
        schedules: Vec::new(),
        runs,
        history_horizon: horizon,
        source_horizon: None,
        unobserved: Vec::new(),
        diagnostics: Vec::new(),
        earlier: Vec::new(),
        modified: None,
    };
    let input = InstanceInput {
        name: "SQL1".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![job],
        agent_starts: Vec::new(),
        maintenance: Vec::new(),
        scheduler_stopped: false,
    };
    SourceRead::new(input, Vec::new(), now)
}

fn window(now: DateTime<Utc>) -> Window {
    Window::new(now - Duration::days(DAYS), now + Duration::milliseconds(1))
}

const RETENTION: std::time::Duration = std::time::Duration::from_secs(90 * 86_400);

async fn keep(history: &mut InstanceHistory, store: &Store, mut r: SourceRead) -> JobInput {
    let w = window(r.now);
    history.keep(store, "SQL1", &mut r, w, RETENTION).await.expect("kept");
    r.input.jobs.remove(0)
}

async fn kept_rows(store: &Store) -> i64 {
    server::on_db!(store, |pool| sqlx::query_scalar("SELECT count(*) FROM kept_run").fetch_one(pool).await.unwrap())
}

/// Keep a read that the store may refuse; the error, if any.
async fn try_keep(history: &mut InstanceHistory, store: &Store, mut r: SourceRead) -> Option<String> {
    let w = window(r.now);
    history.keep(store, "SQL1", &mut r, w, RETENTION).await.err().map(|e| e.to_string())
}

/// The same story on any store: hourly runs read and kept; then the store refuses the next
/// read's writes (`refuse`) and takes them again (`restore`); the read after that writes what
/// the refused one could not, each run once; and when the scheduler then purges, every run is
/// served from the store.
async fn nothing_read_is_lost_while_the_store_refuses(
    store: &Store,
    refuse: impl AsyncFnOnce(),
    restore: impl AsyncFnOnce(),
) {
    let now = t("2026-11-22T12:00:00Z");
    let mut history = InstanceHistory::default();
    keep(&mut history, store, read(now, hourly(now - Duration::days(1), now), None)).await;
    assert_eq!(kept_rows(store).await, 24);

    refuse().await;
    let later = now + Duration::hours(2);
    let error = try_keep(&mut history, store, read(later, hourly(now - Duration::days(1), later), None)).await;
    let error = error.expect("the store refused the write");
    assert!(error.starts_with("Sundial's store: "), "the message says whose: {error}");
    restore().await;
    assert_eq!(kept_rows(store).await, 24, "the refused write left nothing half-done");

    // The source still has the two runs the refused write held: the next read writes them.
    let again = later + Duration::hours(1);
    keep(&mut history, store, read(again, hourly(now - Duration::days(1), again), None)).await;
    assert_eq!(kept_rows(store).await, 27, "each run once, the two refused ones too");

    // The scheduler purges all but its last hour: the store has the rest.
    let last = again + Duration::hours(1);
    let job =
        keep(&mut history, store, read(last, hourly(last - Duration::hours(1), last), Some(last - Duration::hours(1))))
            .await;
    assert_eq!(job.runs.len(), 28, "every run read, from the store where the scheduler purged it");
}

#[tokio::test]
async fn a_full_disk_loses_no_run_read_the_next_read_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.sqlite")).await.unwrap();
    let pool = store.sqlite().unwrap().clone();
    // SQLite's own answer when its disk is full, once the transaction has written one more run
    // (what was written before the failure is rolled back with it).
    let full = "CREATE TRIGGER disk_full BEFORE INSERT ON kept_run WHEN (SELECT count(*) FROM kept_run) >= 25 \
                BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END";
    nothing_read_is_lost_while_the_store_refuses(
        &store,
        async || {
            sqlx::query(full).execute(&pool).await.unwrap();
        },
        async || {
            sqlx::query("DROP TRIGGER disk_full").execute(&pool).await.unwrap();
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgresql_restarting_loses_no_run_read_the_next_read_writes_it() {
    use crate::support::servers::{TestServer, port};
    use sqlx::Connection;
    let pg = TestServer::postgres("sundial-store-restart-", port::STORE_RESTART_PG);
    let mut db = sqlx::PgConnection::connect(&pg.pg_url("postgres")).await.unwrap();
    sqlx::query("CREATE DATABASE sundial_store").execute(&mut db).await.unwrap();
    drop(db);
    let url = format!("postgres://postgres@127.0.0.1:{}/sundial_store", port::STORE_RESTART_PG);
    let store = Store::open_at(&server::store::StoreAt::Postgres(url)).await.expect("the store, migrated");
    nothing_read_is_lost_while_the_store_refuses(&store, async || pg.stop(), async || pg.restart()).await;
}

#[tokio::test]
async fn runs_the_scheduler_purged_come_back_from_sundials_store_once_each_and_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.sqlite")).await.unwrap();
    let now = t("2026-11-22T12:00:00Z");
    // First read: the source still has ten days of hourly runs.
    let first = hourly(now - Duration::days(10), now);
    let mut history = InstanceHistory::default();
    let job = keep(&mut history, &store, read(now, first.clone(), None)).await;
    assert_eq!(job.runs.len(), 240);
    assert_eq!(job.source_horizon, None, "all the source's own");
    assert_eq!(kept_rows(&store).await, 240);

    // An hour later the scheduler has purged all but its last day (msdb's rows per job).
    let later = now + Duration::hours(1);
    let purged = hourly(later - Duration::days(1), later);
    let job = keep(&mut history, &store, read(later, purged.clone(), Some(later - Duration::days(1)))).await;
    assert_eq!(job.runs.len(), 241, "the ten days, and the new run");
    let starts: std::collections::BTreeSet<_> = job.runs.iter().map(|r| r.start).collect();
    assert_eq!(starts.len(), 241, "no run twice");
    assert_eq!(job.source_horizon, Some(later - Duration::days(1)), "where the scheduler's own history starts");
    assert!(
        job.history_horizon.is_some_and(|h| h <= window(later).start),
        "no unknown stretch: {:?}",
        job.history_horizon
    );
    assert_eq!(kept_rows(&store).await, 241, "a re-read writes nothing twice");

    // Sundial restarts: the same store, nothing in memory; the scheduler still keeps a day.
    let mut history = InstanceHistory::default();
    let again = later + Duration::hours(1);
    let job = keep(
        &mut history,
        &store,
        read(again, hourly(again - Duration::days(1), again), Some(again - Duration::days(1))),
    )
    .await;
    assert_eq!(job.runs.len(), 242, "everything kept before the restart is back");
    assert_eq!(kept_rows(&store).await, 242);
}

#[tokio::test]
async fn a_run_seen_in_progress_is_kept_as_it_ended() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.sqlite")).await.unwrap();
    let now = t("2026-11-22T12:00:00Z");
    let mut history = InstanceHistory::default();
    let going = vec![
        run(now - Duration::hours(2), RunOutcome::Succeeded),
        run(now - Duration::minutes(5), RunOutcome::InProgress),
    ];
    keep(&mut history, &store, read(now, going, None)).await;
    // It failed; and another run started since.
    let later = now + Duration::minutes(10);
    let ended = vec![
        run(now - Duration::hours(2), RunOutcome::Succeeded),
        run(now - Duration::minutes(5), RunOutcome::Failed),
        run(later - Duration::minutes(1), RunOutcome::InProgress),
    ];
    keep(&mut history, &store, read(later, ended, None)).await;
    let text: String = sqlx::query_scalar("SELECT run FROM kept_run WHERE start_us = ?1")
        .bind((now - Duration::minutes(5)).timestamp_micros())
        .fetch_one(store.sqlite().unwrap())
        .await
        .unwrap();
    let kept: Run = serde_json::from_str(&text).unwrap();
    assert_eq!(kept.outcome, RunOutcome::Failed);
    assert_eq!(kept_rows(&store).await, 3);
}

#[tokio::test]
async fn a_stretch_sundial_did_not_see_stays_unknown_and_old_runs_go_after_the_retention() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.sqlite")).await.unwrap();
    let now = t("2026-11-01T00:00:00Z");
    let mut history = InstanceHistory::default();
    keep(&mut history, &store, read(now, hourly(now - Duration::days(2), now), None)).await;
    // Sundial was off for twenty days; the scheduler kept only its last day.
    let back = now + Duration::days(20);
    let horizon = back - Duration::days(1);
    let job = keep(&mut history, &store, read(back, hourly(horizon, back), Some(horizon))).await;
    assert_eq!(job.history_horizon, Some(horizon), "before its last day nobody saw the whole history");
    assert_eq!(job.source_horizon, None);
    assert_eq!(job.runs.len(), 24, "no run from before the gap is judged against it");

    // A hundred days on, with a new store handle (pruning runs at the first write).
    let far = now + Duration::days(100);
    let mut history = InstanceHistory::default();
    keep(&mut history, &store, read(far, hourly(far - Duration::hours(3), far), Some(far - Duration::hours(3)))).await;
    let oldest: i64 =
        sqlx::query_scalar("SELECT min(start_us) FROM kept_run").fetch_one(store.sqlite().unwrap()).await.unwrap();
    assert!(oldest >= (far - Duration::days(90)).timestamp_micros(), "nothing older than the retention is kept");
    assert_eq!(kept_rows(&store).await, 24 + 3, "the runs of the last ninety days");
}

/// pg_cron's tables in a SQLite file (as the demo keeps them): one job at minute 0 of every
/// hour, which ran every hour of the five days before `now`.
async fn pg_cron_file(path: &std::path::Path, now: DateTime<Utc>) {
    use sqlx::Connection;
    let url = format!("sqlite://{}?mode=rwc", path.display());
    let mut db = sqlx::SqliteConnection::connect(&url).await.unwrap();
    for sql in [
        "CREATE TABLE job (jobid INTEGER PRIMARY KEY, schedule TEXT NOT NULL, command TEXT NOT NULL, nodename TEXT NOT NULL, \
         nodeport INTEGER NOT NULL, database TEXT NOT NULL, username TEXT NOT NULL, active BOOLEAN NOT NULL DEFAULT 1, jobname TEXT)",
        "CREATE TABLE job_run_details (jobid INTEGER, runid INTEGER PRIMARY KEY, job_pid INTEGER, database TEXT, username TEXT, \
         command TEXT, status TEXT, return_message TEXT, start_time TIMESTAMPTZ, end_time TIMESTAMPTZ)",
        "CREATE TABLE pg_settings (name TEXT PRIMARY KEY, setting TEXT)",
        "INSERT INTO pg_settings VALUES ('cron.timezone', 'UTC'), ('cron.log_run', 'on')",
        "INSERT INTO job VALUES (1, '0 * * * *', 'VACUUM', 'localhost', 5432, 'shop', 'postgres', 1, 'vacuum')",
    ] {
        sqlx::query(sql).execute(&mut db).await.unwrap();
    }
    for (i, run) in hourly(now - Duration::days(5), now).iter().enumerate() {
        let at = |t: DateTime<Utc>| t.format("%Y-%m-%d %H:%M:%S+00").to_string();
        sqlx::query("INSERT INTO job_run_details VALUES (1, ?1, 100, 'shop', 'postgres', 'VACUUM', 'succeeded', '1 row', ?2, ?3)")
            .bind(i as i64 + 1)
            .bind(at(run.start))
            .bind(at(run.start + Duration::seconds(30)))
            .execute(&mut db)
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn a_fleet_serves_runs_pg_cron_purged_from_sundials_store_and_its_page_shows_where_they_come_from() {
    use crate::support::web;
    let dir = tempfile::tempdir().unwrap();
    let now = t("2026-11-22T12:00:00Z");
    let file = dir.path().join("pg.sqlite");
    pg_cron_file(&file, now).await;
    let toml = format!(
        "store = {:?}\n[[instance]]\nname = \"PG\"\nkind = \"pg_cron\"\npath = {:?}\npoll_interval = \"1s\"\n",
        dir.path().join("store.sqlite").to_string_lossy(),
        file.to_string_lossy()
    );
    let fleet = server::config::parse(&toml, "fleet.toml").unwrap();
    let backend = server::fleet::FleetBackend::start_at(&fleet, Some(now)).await.unwrap();
    let report = sundial_model::ssr::Backend::report(backend.as_ref(), Some("PG"), 7).await.expect("read");
    assert_eq!(report.jobs[0].runs.len(), 120);
    assert_eq!(report.jobs[0].source_horizon, None);
    // Kept, the runs are held without their words but the last; the page shows every run's.
    assert_eq!(backend.held_runs("PG"), Some((120, 119)), "what the read holds in memory");
    assert!(report.jobs[0].runs.iter().all(|r| r.message == "1 row"), "each run's message, from the store");

    // pg_cron's advice, followed: delete the runs older than a day.
    {
        use sqlx::Connection;
        let mut db = sqlx::SqliteConnection::connect(&format!("sqlite://{}", file.display())).await.unwrap();
        sqlx::query("DELETE FROM job_run_details WHERE start_time < ?1")
            .bind((now - Duration::days(1)).format("%Y-%m-%d %H:%M:%S+00").to_string())
            .execute(&mut db)
            .await
            .unwrap();
    }
    let mut state = backend.poll_state("PG").unwrap();
    let seen = state.borrow().attempts;
    tokio::time::timeout(std::time::Duration::from_secs(60), state.wait_for(|s| s.attempts >= seen + 2))
        .await
        .expect("read again")
        .unwrap();
    let served = web::state(backend);
    let v = web::api(&served, "/api/instances/PG/jobs").await;
    let job = &v["jobs"][0];
    assert_eq!(job["counts"]["runs"], 120, "every run, the purged ones from Sundial's store: {v}");
    assert_eq!(job["counts"]["missed"], 0, "{v}");
    // The table began five days ago: the two days of the week before that stay unknown.
    assert_eq!(job["counts"]["unknown"], 48, "{v}");
    assert_eq!(job["history_from"], "2026-11-17T12:00:00Z", "{v}");
    assert_eq!(job["scheduler_history_from"], "2026-11-21T12:00:00Z", "{v}");
    let runs =
        web::api(&served, "/api/instances/PG/jobs/1/timeline?from=2026-11-17T12:00:00Z&to=2026-11-22T12:00:00Z").await;
    let runs = runs["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 120, "{runs:?}");
    assert!(runs.iter().all(|r| r["message"] == "1 row"), "purged or held, every run's message: {runs:?}");
    let (status, page) = web::get(&served, "/jobs/1?instance=PG&days=7").await;
    assert_eq!(status, axum::http::StatusCode::OK);
    assert!(page.contains("data-testid=\"kept-band\""), "the page shows Sundial's history");
    assert!(page.contains("data-testid=\"unknown-band\""), "and what nobody kept as unknown");
}

#[tokio::test]
async fn the_schedulers_log_lines_it_purged_come_back_from_sundials_store_once_each() {
    use sundial_engine::log::{LogEvent, LogKind};
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.sqlite")).await.unwrap();
    let now = t("2026-11-22T12:00:00Z");
    let line = |hours_ago: i64, kind: LogKind, text: &str| LogEvent {
        at: now - Duration::hours(hours_ago),
        job_id: "backup".into(),
        kind,
        text: text.into(),
        members: Vec::new(),
    };
    let all = vec![
        line(50, LogKind::Started, "fired"),
        line(49, LogKind::Failed, "deadlock victim"),
        line(2, LogKind::Started, "fired"),
        line(1, LogKind::Succeeded, "done"),
    ];
    let mut history = InstanceHistory::default();
    let mut first = read(now, Vec::new(), None);
    first.events = all.clone();
    let w = window(now);
    history.keep(&store, "SQL1", &mut first, w, RETENTION).await.unwrap();
    assert_eq!(first.events.len(), 4);

    // The scheduler trimmed its log to the last day; a new line came.
    let later = now + Duration::minutes(30);
    let mut trimmed = read(later, Vec::new(), None);
    trimmed.events = vec![all[2].clone(), all[3].clone(), line(0, LogKind::Started, "fired")];
    history.keep(&store, "SQL1", &mut trimmed, window(later), RETENTION).await.unwrap();
    let mut got: Vec<(DateTime<Utc>, String)> = trimmed.events.iter().map(|e| (e.at, e.text.clone())).collect();
    got.sort();
    assert_eq!(got.len(), 5, "the two trimmed lines back, none twice: {got:?}");
    assert_eq!(got[1].1, "deadlock victim", "with their words");

    // After a restart too.
    let mut history = InstanceHistory::default();
    let mut again = read(later, Vec::new(), None);
    again.events = vec![all[3].clone(), line(0, LogKind::Started, "fired")];
    history.keep(&store, "SQL1", &mut again, window(later), RETENTION).await.unwrap();
    assert_eq!(again.events.len(), 5);
    let kept: i64 =
        sqlx::query_scalar("SELECT count(*) FROM kept_event").fetch_one(store.sqlite().unwrap()).await.unwrap();
    assert_eq!(kept, 5);
}

/// A read of the backup job with one pg_cron schedule `expr` (and `last_start`, run state),
/// its history from 2026-11-17 12:00 on.
fn read_with(now: DateTime<Utc>, runs: Vec<Run>, expr: &str, last_start: Option<&str>) -> SourceRead {
    let mut r = read(now, runs, Some(t("2026-11-17T12:00:00Z")));
    let mut cron = sundial_engine::cron::CronSchedule::new(expr);
    cron.last_start = last_start.map(str::to_owned);
    r.input.jobs[0].schedules = vec![sundial_engine::fleet::JobSchedule {
        id: 1,
        name: "backup".into(),
        enabled: true,
        schedule: sundial_engine::Schedule::Cron(cron),
    }];
    r
}

/// Missed runs of the job as the engine judges `job` over the read window ending at `now`.
fn missed(job: JobInput, now: DateTime<Utc>) -> usize {
    let input = InstanceInput {
        name: "SQL1".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![job],
        agent_starts: Vec::new(),
        maintenance: Vec::new(),
        scheduler_stopped: false,
    };
    let report =
        sundial_engine::fleet::analyze(&input, window(now), now, &sundial_engine::reconcile::Settings::default());
    report.jobs[0].missed
}

#[tokio::test]
async fn a_schedule_edited_between_polls_applies_from_its_change_not_to_the_runs_before() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.sqlite")).await.unwrap();
    let mut history = InstanceHistory::default();
    let now = t("2026-11-22T12:00:00Z");
    let runs = hourly(now - Duration::days(5), now + Duration::minutes(1));
    // Hourly for five days, every run there: nothing missed.
    let job = keep(&mut history, &store, read_with(now, runs.clone(), "0 * * * *", None)).await;
    assert!(job.earlier.is_empty());
    assert_eq!(missed(job, now), 0);
    // A poll later the job runs every half hour: its five hourly days are not judged by it.
    let edited = now + Duration::minutes(10);
    let job = keep(&mut history, &store, read_with(edited, runs.clone(), "*/30 * * * *", None)).await;
    assert_eq!(job.earlier.len(), 1, "{:?}", job.earlier);
    assert_eq!(job.earlier[0].until, edited);
    assert_eq!(missed(job.clone(), edited), 0, "no half-hour run was due before the edit");
    let mut retroactive = job;
    retroactive.earlier.clear();
    assert!(missed(retroactive, edited) >= 5 * 24, "today's schedule over the past would miss every half hour");
    // Two hours on, the half-hour runs after the edit are expected: the two not made are missed;
    // after a restart (a new handle on the store) too.
    let later = edited + Duration::hours(2);
    for (k, mut history) in [history, InstanceHistory::default()].into_iter().enumerate() {
        let job = keep(&mut history, &store, read_with(later, runs.clone(), "*/30 * * * *", None)).await;
        assert_eq!(job.earlier.len(), 1, "read {k}");
        assert_eq!(missed(job, later), 4, "12:30, 13:00, 13:30, 14:00 after the 12:10 edit (read {k})");
    }
    // pg_cron's last start is run state, not an edit: no new version.
    let again = later + Duration::minutes(1);
    keep(&mut InstanceHistory::default(), &store, read_with(again, runs, "*/30 * * * *", Some("2026-11-22 14:00:00")))
        .await;
    let versions: i64 = server::on_db!(&store, |pool| sqlx::query_scalar("SELECT count(*) FROM kept_schedule")
        .fetch_one(pool)
        .await
        .unwrap());
    assert_eq!(versions, 2);
}
