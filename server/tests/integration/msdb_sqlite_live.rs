//! A live msdb-shaped SQLite file (`sqlite_demo` with `sundial_demo.now_utc` NULL) read
//! incrementally (issue 27): the test writes msdb's rows between polls through a read-write
//! connection of its own (the source keeps its file `mode=ro`), and the source counts the
//! `sysjobhistory` rows it fetched, so a poll that read the window again would be seen.
//!
//! Each poll does what the fleet's reader does: `sources::read` with the held read (which
//! merges a delta into it).
use crate::support::t;
use chrono::{DateTime, Duration, Utc};
use server::config::InstanceConfig;
use server::sources::msdb_sqlite::DemoFile;
use server::sources::{self, Extent, Mark, ReadContext, SourceRead};
use sqlx::SqlitePool;
use std::path::Path;
use sundial_engine::{RunOutcome, Window};

const BACKUP: &str = "6F9619FF-8B86-D011-B42D-00C04FC964FF";

/// One job (Backup, nightly at 02:00, two steps) in a new live file at `path` (UTC, one Agent
/// session, no history yet): the read-write connection the test writes with.
async fn live_file(path: &Path) -> SqlitePool {
    let pool = server::demo::write::create(path).await.expect("a new file");
    server::demo::write::create_schema(&pool).await.expect("msdb's tables");
    for statement in [
        "INSERT INTO sundial_demo VALUES ('SQLLIVE', 'UTC', NULL, 7, 60, 'test')",
        "INSERT INTO syscategories VALUES (3, 1, 1, 'Database Maintenance')",
        "INSERT INTO server_principals VALUES (1, 'sa', X'01', 'S', 'SQL_LOGIN')",
        "INSERT INTO sysjobs VALUES ('6F9619FF-8B86-D011-B42D-00C04FC964FF', 0, 'Backup FULL', 1, NULL, 1, 3, X'01',
            0, 0, 0, 0, 0, 0, '2025-01-01 00:00:00.000', '2025-01-01 00:00:00.000', 1)",
        "INSERT INTO sysjobsteps VALUES ('6F9619FF-8B86-D011-B42D-00C04FC964FF', 1, 'Backup', 'TSQL', NULL, NULL, 3, 0, 2, 0, 0, 0)",
        "INSERT INTO sysjobsteps VALUES ('6F9619FF-8B86-D011-B42D-00C04FC964FF', 2, 'Verify', 'TSQL', NULL, NULL, 1, 0, 2, 0, 0, 0)",
        "INSERT INTO sysschedules VALUES (1, 'u1', 0, 'Nightly', X'01', 1, 4, 1, 1, 0, 0, 0, 20250101, 99991231,
            20000, 235959, '2025-01-01 00:00:00.000', '2025-01-01 00:00:00.000', 1)",
        "INSERT INTO sysjobschedules VALUES (1, '6F9619FF-8B86-D011-B42D-00C04FC964FF', 0, 0)",
        "INSERT INTO syssessions VALUES (1, '2026-01-10 08:00:00.000')",
    ] {
        sqlx::query(statement).execute(&pool).await.unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    pool
}

/// A `sysjobhistory` row of Backup: `step` 0 is the run's outcome row.
async fn history(pool: &SqlitePool, id: i64, step: i64, date: i64, time: i64) {
    let (name, message, duration) = match step {
        0 => (
            "(Job outcome)",
            "The job succeeded.  The Job was invoked by Schedule 1 (Nightly).  The last step to run was step 2 (Verify).",
            100,
        ),
        1 => ("Backup", "Executed as user: sa.  The step succeeded.", 30),
        _ => ("Verify", "Executed as user: sa.  The step succeeded.", 30),
    };
    sqlx::query("INSERT INTO sysjobhistory VALUES (?1, ?2, ?3, ?4, 0, 0, ?5, 1, ?6, ?7, ?8, 0, 0, 0, 0, 'SQLLIVE')")
        .bind(id)
        .bind(BACKUP)
        .bind(step)
        .bind(name)
        .bind(message)
        .bind(date)
        .bind(time)
        .bind(duration)
        .execute(pool)
        .await
        .expect("a history row");
}

/// A whole run of Backup from `id`: step 1, step 2, then the outcome row.
async fn night(pool: &SqlitePool, id: i64, date: i64, time: i64) {
    history(pool, id, 1, date, time).await;
    history(pool, id + 1, 2, date, time + 30).await;
    history(pool, id + 2, 0, date, time).await;
}

/// What `sysjobactivity` shows of Backup in session 1: going since `start` with step 1 (begun
/// at `step_began`) done (`stop` None), or stopped.
async fn activity(pool: &SqlitePool, start: &str, step_began: &str, stop: Option<&str>) {
    sqlx::query("DELETE FROM sysjobactivity").execute(pool).await.expect("cleared");
    sqlx::query(
        "INSERT INTO sysjobactivity VALUES (1, ?1, ?2, '1', ?2, ?2, 1, ?3, ?4, NULL, '2026-03-08 02:00:00.000')",
    )
    .bind(BACKUP)
    .bind(start)
    .bind(step_began)
    .bind(stop)
    .execute(pool)
    .await
    .expect("an activity row");
}

fn config(path: &Path) -> InstanceConfig {
    let text = format!(
        "[[instance]]\nname = \"SQLLIVE\"\nkind = \"sqlite_demo\"\npath = \"{}\"\n",
        path.display().to_string().replace('\\', "\\\\")
    );
    server::config::parse(&text, "msdb_sqlite_live.toml").unwrap_or_else(|e| panic!("{e}")).instances.remove(0)
}

/// A poll as the fleet's reader makes it; the read and the `sysjobhistory` rows it fetched.
async fn poll(
    source: &DemoFile,
    config: &InstanceConfig,
    held: Option<&SourceRead>,
    now: DateTime<Utc>,
) -> (SourceRead, u64) {
    let window = Window::new(now - Duration::days(30), now + Duration::milliseconds(1));
    let before = source.rows_read();
    let cx = ReadContext { config, window, now, store: None, held };
    let read = sources::read(source, cx).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read.extent, Extent::Whole, "every read past sources::read is whole");
    assert!(!read.frozen, "a live file is not a snapshot");
    assert_eq!(read.now, now, "read as of the poll");
    (read, source.rows_read() - before)
}

/// A run as the assertions see it: start, outcome, and its steps (id and outcome).
type Seen = (DateTime<Utc>, RunOutcome, Vec<(i64, Option<RunOutcome>)>);

fn runs(read: &SourceRead) -> Vec<Seen> {
    let job = read.input.jobs.iter().find(|j| j.id == BACKUP).expect("the job is read");
    job.runs.iter().map(|r| (r.start, r.outcome, r.steps.iter().map(|s| (s.id, s.outcome)).collect())).collect()
}

const SUCCEEDED: Option<RunOutcome> = Some(RunOutcome::Succeeded);

/// Six nights of Backup, the 1st … 6th of March at 02:00, `instance_id`s from `first`.
async fn six_nights(pool: &SqlitePool, first: i64) {
    for day in 1..=6 {
        night(pool, first + 3 * (day - 1), 20260300 + day, 20000).await;
    }
}

#[tokio::test]
async fn a_live_file_is_read_past_the_instance_id_mark_and_a_run_going_then_ended_is_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.sqlite");
    let rw = live_file(&path).await;
    let config = config(&path);
    // Six nights (instance_ids 1 … 18), and a run going since 11:00:00: its step 1 row (19)
    // written, its outcome row not yet.
    six_nights(&rw, 1).await;
    history(&rw, 19, 1, 20260307, 110000).await;
    activity(&rw, "2026-03-07 11:00:00.250", "2026-03-07 11:00:00.000", None).await;
    let source = DemoFile::default();

    let now = t("2026-03-07T11:00:40Z");
    let (first, rows) = poll(&source, &config, None, now).await;
    assert_eq!(rows, 19, "the first read is whole: every row of the window");
    let going = t("2026-03-07T11:00:00Z");
    let got = runs(&first);
    assert_eq!(got.len(), 7, "{got:?}");
    assert!(got[..6].iter().all(|r| r.1 == RunOutcome::Succeeded && r.2 == [(1, SUCCEEDED), (2, SUCCEEDED)]));
    assert_eq!(
        got[6],
        (going, RunOutcome::InProgress, vec![(1, SUCCEEDED), (2, Some(RunOutcome::InProgress))]),
        "the run going, at whole seconds, with its step done and the one executing now"
    );
    assert_eq!(
        first.mark.clone().expect("a mark"),
        Mark { high: 19, low: Some((1, t("2026-03-01T02:00:00Z"))), open: vec![19], restarted: None },
        "the step row waiting for its run's outcome row is asked for again"
    );

    // Between polls the run ends: its step 2 row (20) and its outcome row (21); Agent stops it.
    history(&rw, 20, 2, 20260307, 110030).await;
    history(&rw, 21, 0, 20260307, 110000).await;
    activity(&rw, "2026-03-07 11:00:00.250", "2026-03-07 11:00:00.000", Some("2026-03-07 11:01:40.000")).await;
    let (second, rows) = poll(&source, &config, Some(&first), now + Duration::minutes(2)).await;
    assert_eq!(rows, 3, "only the rows past the mark and the step row waiting: 19, 20, 21");
    let got = runs(&second);
    assert_eq!(got.len(), 7, "the run going and then ended is one run: {got:?}");
    assert_eq!(got[..6], runs(&first)[..6], "the held runs stay");
    assert_eq!(got[6], (going, RunOutcome::Succeeded, vec![(1, SUCCEEDED), (2, SUCCEEDED)]));
    let mark = second.mark.clone().expect("a mark");
    assert_eq!((mark.high, mark.open.as_slice()), (21, &[][..]), "{mark:?}");

    // Nothing new: nothing fetched, the runs stay.
    let (third, rows) = poll(&source, &config, Some(&second), now + Duration::minutes(4)).await;
    assert_eq!(rows, 0);
    assert_eq!(runs(&third), runs(&second));

    // Many runs at once (a manual run every minute from 12:00, 600 of them: 1,800 rows), past
    // a page of msdb_rows::PAGE rows: every one is read, and only those.
    let mut tx = rw.begin().await.unwrap();
    for n in 0..600i64 {
        let (h, m) = (12 + n / 60, n % 60);
        let time = h * 10000 + m * 100;
        for (k, step) in [1, 2, 0].into_iter().enumerate() {
            sqlx::query("INSERT INTO sysjobhistory VALUES (?1, ?2, ?3, 's', 0, 0, 'The job succeeded.  The Job was invoked by User sa.', 1, 20260307, ?4, 10, 0, 0, 0, 0, 'SQLLIVE')")
                .bind(22 + 3 * n + k as i64)
                .bind(BACKUP)
                .bind(step)
                .bind(time)
                .execute(&mut *tx)
                .await
                .unwrap();
        }
    }
    tx.commit().await.unwrap();
    let (fourth, rows) = poll(&source, &config, Some(&third), t("2026-03-07T22:05:00Z")).await;
    assert_eq!(rows, 1800, "the new rows, page after page");
    let got = runs(&fourth);
    assert_eq!(got.len(), 607);
    assert_eq!(got[..7], runs(&third)[..], "the held runs stay");
    assert!(got[7..].iter().all(|r| r.1 == RunOutcome::Succeeded && r.2.len() == 2), "{:?}", &got[7..9]);
    assert_eq!(fourth.mark.as_ref().map(|m| m.high), Some(21 + 1800));
}

#[tokio::test]
async fn a_live_files_history_that_went_back_is_read_whole_again_merged_and_noted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.sqlite");
    let rw = live_file(&path).await;
    let config = config(&path);
    six_nights(&rw, 101).await;
    let source = DemoFile::default();
    let now = t("2026-03-07T12:00:00Z");
    let (first, rows) = poll(&source, &config, None, now).await;
    assert_eq!((runs(&first).len(), rows), (6, 18));
    assert_eq!(first.mark.as_ref().map(|m| m.high), Some(118));

    // The history deleted and instance_ids reused from 1: a new run's rows are 1 … 3, below
    // the mark. Were the mark trusted, the poll would ask past 118 and find nothing.
    sqlx::query("DELETE FROM sysjobhistory").execute(&rw).await.unwrap();
    night(&rw, 1, 20260307, 120500).await;
    let later = now + Duration::minutes(10);
    let (second, rows) = poll(&source, &config, Some(&first), later).await;
    assert_eq!(rows, 3, "the window read again: the new history's rows");
    let got = runs(&second);
    assert_eq!(got.len(), 7, "the runs read before still happened, and the new one is read: {got:?}");
    assert_eq!(got[6], (t("2026-03-07T12:05:00Z"), RunOutcome::Succeeded, vec![(1, SUCCEEDED), (2, SUCCEEDED)]));
    let note = second.notes.iter().find(|n| n.field.as_deref() == Some("instance_id")).expect("a note");
    assert!(note.message.contains("went back below the last one Sundial read (118)"), "{}", note.message);
    let mark = second.mark.clone().expect("a mark");
    assert_eq!((mark.high, mark.low), (3, Some((1, t("2026-03-07T12:05:00Z")))));
    assert!(mark.restarted.is_some());

    // From there the new mark holds: the next rows past 3 only, and the note stays.
    night(&rw, 4, 20260307, 123000).await;
    let (third, rows) = poll(&source, &config, Some(&second), later + Duration::minutes(30)).await;
    assert_eq!(rows, 3);
    assert_eq!(runs(&third).len(), 8);
    assert!(third.notes.iter().any(|n| n.field.as_deref() == Some("instance_id")), "the note stays for a day");

    // Rows deleted and the same instance_ids reused with the oldest row at another time: the
    // oldest row is not the one seen before, so the history went back though the top did not.
    sqlx::query("DELETE FROM sysjobhistory").execute(&rw).await.unwrap();
    night(&rw, 1, 20260307, 130000).await;
    night(&rw, 4, 20260307, 133000).await;
    let (fourth, rows) = poll(&source, &config, Some(&third), later + Duration::minutes(90)).await;
    assert_eq!(rows, 6, "read whole again");
    assert!(fourth.notes.iter().any(|n| n.message.contains("the oldest row (instance_id 1) is not the one")));
    assert_eq!(runs(&fourth).len(), 10);
}

#[tokio::test]
async fn a_file_with_a_fixed_now_stays_a_frozen_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fixed.sqlite");
    let rw = live_file(&path).await;
    six_nights(&rw, 1).await;
    sqlx::query("UPDATE sundial_demo SET now_utc = '2026-03-07T12:00:00Z'").execute(&rw).await.unwrap();
    let config = config(&path);
    let source = DemoFile::default();
    let poll_now = t("2026-05-01T00:00:00Z");
    let window = Window::new(poll_now - Duration::days(30), poll_now);
    let cx = ReadContext { config: &config, window, now: poll_now, store: None, held: None };
    let read = sources::read(&source, cx).await.unwrap_or_else(|e| panic!("{e}"));
    assert!(read.frozen);
    assert_eq!(read.now, t("2026-03-07T12:00:00Z"), "as of the file's own now");
    assert!(read.mark.is_none(), "read whole at every poll");
    assert_eq!(runs(&read).len(), 6, "the window moved to the file's now");
    let again = ReadContext { held: Some(&read), ..cx };
    assert_eq!(runs(&sources::read(&source, again).await.unwrap()).len(), 6);
    assert_eq!(source.rows_read(), 0, "a fixed file is not read incrementally");

    // A bad now is the database's fault, not a panic.
    sqlx::query("UPDATE sundial_demo SET now_utc = 'soon'").execute(&rw).await.unwrap();
    let err = sources::read(&source, cx).await.expect_err("an error");
    assert!(err.to_string().contains("now_utc"), "{err}");
}
