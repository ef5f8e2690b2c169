//! msdb read incrementally over TDS (issue 27), against the TDS test server `msdb_tds` uses:
//! it answers only the T-SQL texts registered here, with msdb's column types, and an empty
//! result to any other. After the first read, the window's history queries are registered as
//! errors, so a poll that read the window again would fail; each poll's delta query is
//! registered with the exact `instance_id` mark and pending step rows the test expects, so a
//! poll asking from another mark would read nothing; and the source counts the
//! `sysjobhistory` rows it fetched.
//!
//! Each poll does what the fleet's reader does: `sources::read` with the held read (which
//! merges a delta into it).
use crate::support::msdb_tables::{self as mt, m, s, table};
use crate::support::servers::tds_server;
use crate::support::t;
use chrono::{DateTime, Duration, Utc};
use mssql_mock_tds::{ColumnValue as V, QueryRegistry, QueryResponse, SqlDataType as T, TerminalError};
use server::sources::msdb::{self, Msdb};
use server::sources::{self, Extent, Mark, ReadContext, SourceRead};
use std::sync::Arc;
use sundial_engine::{RunOutcome, Window};
use tokio::sync::Mutex;

const BACKUP: &str = "6F9619FF-8B86-D011-B42D-00C04FC964FF";

fn refused(what: &str) -> QueryResponse {
    QueryResponse::error_only(TerminalError::new(50000, 16, format!("the test asks no {what} here")))
}

/// One `sysjobhistory` row as msdb keeps it: `instance_id` int (identity), `step_id` int,
/// `run_status`, `run_date`, `run_time`, `run_duration` int.
#[derive(Clone)]
struct History {
    id: i32,
    step: i32,
    name: &'static str,
    status: i32,
    date: i32,
    time: i32,
    duration: i32,
    message: &'static str,
}

fn step(id: i32, step: i32, name: &'static str, date: i32, time: i32) -> History {
    History {
        id,
        step,
        name,
        status: 1,
        date,
        time,
        duration: 30,
        message: "Executed as user: sa.  The step succeeded.",
    }
}
fn outcome(id: i32, date: i32, time: i32) -> History {
    History {
        id,
        step: 0,
        name: "(Job outcome)",
        status: 1,
        date,
        time,
        duration: 100,
        message: "The job succeeded.  The Job was invoked by Schedule 1 (Nightly).  The last step to run was step 2 (Verify).",
    }
}

fn history_row(h: &History) -> Vec<V> {
    vec![
        V::Int(h.id),
        s(BACKUP),
        V::Int(h.step),
        s(h.name),
        V::Int(h.status),
        V::Int(h.date),
        V::Int(h.time),
        V::Int(h.duration),
        V::Int(0),
        V::Int(0),
        V::Int(0),
        s(h.message),
    ]
}

/// The first and last local dates of the window the polls read (UTC instance, now on the 7th).
const FIRST: i64 = 20260205;
const LAST: i64 = 20260307;

/// Register what msdb holds now: one job (Backup, nightly, two steps), its `history`, and
/// `running` (the run `sysjobactivity` shows going: its start and last finished step).
async fn holds(registry: &Arc<Mutex<QueryRegistry>>, history: &[History], running: Option<(&str, i32, &str)>) {
    let mut r = registry.lock().await;
    r.register(
        msdb::Q_JOBS,
        table(
            mt::JOBS,
            vec![vec![s(BACKUP), s("Backup FULL"), V::TinyInt(1), m(Some("Database Maintenance")), s("sa")]],
        ),
    );
    let int = |v: i32| V::Int(v);
    r.register(
        msdb::Q_SCHEDULES,
        table(
            mt::SCHEDULES,
            vec![vec![
                s(BACKUP),
                int(1),
                s("Nightly"),
                int(1),
                int(4),
                int(1),
                int(1),
                int(0),
                int(0),
                int(0),
                int(20250101),
                int(99991231),
                int(20000),
                int(235959),
            ]],
        ),
    );
    let oldest = history.iter().filter(|h| h.step == 0).min_by_key(|h| h.id);
    r.register(
        msdb::Q_HORIZON,
        table(
            mt::HORIZON,
            vec![match oldest {
                Some(o) => vec![s(BACKUP), int(o.id), int(o.date), int(o.time), V::Null],
                None => vec![s(BACKUP), V::Null, V::Null, V::Null, V::Null],
            }],
        ),
    );
    let low = history.iter().min_by_key(|h| h.id);
    let high = history.iter().map(|h| h.id).max();
    r.register(
        msdb::Q_ENDS,
        table(
            &[("high", T::Int), ("low_id", T::Int), ("low_date", T::Int), ("low_time", T::Int)],
            vec![vec![
                high.map_or(V::Null, V::Int),
                low.map_or(V::Null, |l| V::Int(l.id)),
                low.map_or(V::Null, |l| V::Int(l.date)),
                low.map_or(V::Null, |l| V::Int(l.time)),
            ]],
        ),
    );
    r.register(
        msdb::Q_JOB_STEPS,
        table(
            mt::JOB_STEPS,
            vec![
                vec![s(BACKUP), int(1), s("Backup"), s("TSQL"), V::TinyInt(3), int(0), V::TinyInt(2), int(0), int(1)],
                vec![s(BACKUP), int(2), s("Verify"), s("TSQL"), V::TinyInt(1), int(0), V::TinyInt(2), int(0), int(1)],
            ],
        ),
    );
    let activity = match running {
        Some((start, last, last_date)) => {
            vec![s(BACKUP), s(start), m(None), s("1"), int(last), m(Some(last_date)), s("2026-03-08T02:00:00.000")]
        }
        None => vec![
            s(BACKUP),
            s("2026-03-07T11:00:00.250"),
            m(Some("2026-03-07T11:01:40.000")),
            s("1"),
            int(2),
            m(Some("2026-03-07T11:01:00.000")),
            s("2026-03-08T02:00:00.000"),
        ],
    };
    r.register(msdb::Q_ACTIVITY, table(mt::ACTIVITY, vec![activity]));
    r.register(msdb::Q_SESSIONS, table(mt::SESSIONS, vec![vec![s("2026-01-10T08:00:00.000")]]));
    r.register(msdb::Q_RETENTION, table(mt::RETENTION, vec![vec![int(1000), int(100)]]));
}

/// The window's history queries answered from `history` (the first read's, by `run_date`).
async fn window_answers(registry: &Arc<Mutex<QueryRegistry>>, history: &[History]) {
    let mut r = registry.lock().await;
    let steps = history.iter().filter(|h| h.step > 0).map(history_row).collect();
    r.register(msdb::steps_sql(FIRST, LAST), table(mt::STEP_HISTORY, steps));
    let outcomes = history
        .iter()
        .filter(|h| h.step == 0)
        .map(|h| {
            vec![
                V::Int(h.id),
                s(BACKUP),
                V::Int(h.status),
                V::Int(h.date),
                V::Int(h.time),
                V::Int(h.duration),
                V::Int(0),
                s(h.message),
            ]
        })
        .collect();
    r.register(msdb::history_sql(FIRST, LAST), table(mt::OUTCOME_HISTORY, outcomes));
}

/// The window's history queries refused: a poll that read the window again fails.
async fn no_window(registry: &Arc<Mutex<QueryRegistry>>) {
    let mut r = registry.lock().await;
    r.register(msdb::steps_sql(FIRST, LAST), refused("whole window of step rows"));
    r.register(msdb::history_sql(FIRST, LAST), refused("whole window of outcome rows"));
}

/// The delta query past `after` and `open` answered from `history`, as msdb would: the rows
/// past the mark or named again, by `instance_id`.
async fn delta_answers(registry: &Arc<Mutex<QueryRegistry>>, history: &[History], after: i64, open: &[i64]) {
    let mut rows: Vec<&History> =
        history.iter().filter(|h| i64::from(h.id) > after || open.contains(&i64::from(h.id))).collect();
    rows.sort_by_key(|h| h.id);
    let rows = rows.into_iter().map(history_row).collect();
    registry.lock().await.register(msdb::delta_sql(after, open), table(mt::STEP_HISTORY, rows));
}

fn config(port: u16) -> server::config::InstanceConfig {
    let text = format!(
        "[[instance]]\nname = \"SQLINC\"\nkind = \"mssql\"\nhost = \"127.0.0.1\"\nport = {port}\n\
         user = \"sundial_reader\"\nencrypt = false\ntime_zone = \"UTC\"\n"
    );
    server::config::parse(&text, "msdb_incremental.toml").unwrap_or_else(|e| panic!("{e}")).instances.remove(0)
}

/// A poll as the fleet's reader makes it; the read and the `sysjobhistory` rows it fetched.
async fn poll(
    source: &Msdb,
    config: &server::config::InstanceConfig,
    held: Option<&SourceRead>,
    now: DateTime<Utc>,
) -> (SourceRead, u64) {
    let window = Window::new(now - Duration::days(30), now + Duration::milliseconds(1));
    let before = source.rows_read();
    let cx = ReadContext { config, window, now, store: None, held };
    let read = sources::read(source, cx).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read.extent, Extent::Whole, "every read past sources::read is whole");
    (read, source.rows_read() - before)
}

/// A run as the assertions see it: start, outcome, and its steps (id and outcome).
type Seen = (DateTime<Utc>, RunOutcome, Vec<(i64, Option<RunOutcome>)>);

/// Each run of the job.
fn runs(read: &SourceRead) -> Vec<Seen> {
    let job = read.input.jobs.iter().find(|j| j.id == BACKUP).expect("the job is read");
    job.runs.iter().map(|r| (r.start, r.outcome, r.steps.iter().map(|s| (s.id, s.outcome)).collect())).collect()
}

/// Six nights of Backup (each a step 1 and step 2 row, then its outcome row): `instance_id`s
/// from `first`, on the 1st … 6th of March at 02:00.
fn six_nights(first: i32) -> Vec<History> {
    let mut h = Vec::new();
    for (n, day) in (1..=6).enumerate() {
        let id = first + 3 * n as i32;
        let date = 20260300 + day;
        h.push(step(id, 1, "Backup", date, 20000));
        h.push(step(id + 1, 2, "Verify", date, 20030));
        h.push(outcome(id + 2, date, 20000));
    }
    h
}

const SUCCEEDED: Option<RunOutcome> = Some(RunOutcome::Succeeded);

#[tokio::test]
async fn an_msdb_poll_reads_only_past_the_instance_id_mark_and_a_run_going_then_ended_is_one_run() {
    let tds = tds_server().await;
    let config = config(tds.port);
    // Six nights (instance_ids 1 … 18), and a run going since 11:00:00.250: its step 1 row
    // (19) written, its outcome row not yet.
    let mut history = six_nights(1);
    history.push(step(19, 1, "Backup", 20260307, 110000));
    holds(&tds.registry, &history, Some(("2026-03-07T11:00:00.250", 1, "2026-03-07T11:00:00.000"))).await;
    window_answers(&tds.registry, &history).await;
    let source = Msdb::default();

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
    let mark = first.mark.clone().expect("a mark");
    assert_eq!(
        mark,
        Mark { high: 19, low: Some((1, t("2026-03-01T02:00:00Z"))), open: vec![19], restarted: None },
        "the step row waiting for its run's outcome row is asked for again"
    );

    // Between polls the run ends: its step 2 row (20) and its outcome row (21); Agent stops it.
    history.push(step(20, 2, "Verify", 20260307, 110030));
    history.push(outcome(21, 20260307, 110000));
    holds(&tds.registry, &history, None).await;
    no_window(&tds.registry).await;
    delta_answers(&tds.registry, &history, 19, &[19]).await;

    let (second, rows) = poll(&source, &config, Some(&first), now + Duration::minutes(2)).await;
    assert_eq!(rows, 3, "only the rows past the mark and the step row waiting: 19, 20, 21");
    let got = runs(&second);
    assert_eq!(got.len(), 7, "the run going and then ended is one run: {got:?}");
    assert_eq!(got[..6], runs(&first)[..6], "the held runs stay");
    assert_eq!(
        got[6],
        (going, RunOutcome::Succeeded, vec![(1, SUCCEEDED), (2, SUCCEEDED)]),
        "with its outcome and both its steps, the first read at the poll before"
    );
    let mark = second.mark.clone().expect("a mark");
    assert_eq!((mark.high, mark.open.as_slice()), (21, &[][..]), "{mark:?}");

    // Nothing new: the poll asks past 21 and fetches nothing; the runs stay.
    delta_answers(&tds.registry, &history, 21, &[]).await;
    let (third, rows) = poll(&source, &config, Some(&second), now + Duration::minutes(4)).await;
    assert_eq!(rows, 0);
    assert_eq!(runs(&third), runs(&second));

    // A new night's rows past the mark, on another page boundary of no consequence.
    history.push(step(22, 1, "Backup", 20260307, 120000));
    history.push(step(23, 2, "Verify", 20260307, 120030));
    history.push(outcome(24, 20260307, 120000));
    holds(&tds.registry, &history, None).await;
    delta_answers(&tds.registry, &history, 21, &[]).await;
    let (fourth, rows) = poll(&source, &config, Some(&third), now + Duration::minutes(80)).await;
    assert_eq!(rows, 3);
    let got = runs(&fourth);
    assert_eq!(got.len(), 8);
    assert_eq!(got[7], (t("2026-03-07T12:00:00Z"), RunOutcome::Succeeded, vec![(1, SUCCEEDED), (2, SUCCEEDED)]));
}

#[tokio::test]
async fn a_reseeded_sysjobhistory_is_detected_read_whole_and_merged_with_a_note() {
    let tds = tds_server().await;
    let config = config(tds.port);
    let history = six_nights(101);
    holds(&tds.registry, &history, None).await;
    window_answers(&tds.registry, &history).await;
    let source = Msdb::default();
    let now = t("2026-03-07T12:00:00Z");
    let (first, _) = poll(&source, &config, None, now).await;
    assert_eq!(runs(&first).len(), 6);
    assert_eq!(first.mark.as_ref().map(|m| m.high), Some(118));

    // msdb's history purged and its identity reseeded: a new run's rows are 1 … 3, below the
    // mark. The poll sees it from the ends, reads the window whole, and keeps what it held.
    let reseeded = vec![
        step(1, 1, "Backup", 20260307, 120500),
        step(2, 2, "Verify", 20260307, 120530),
        outcome(3, 20260307, 120500),
    ];
    holds(&tds.registry, &reseeded, None).await;
    window_answers(&tds.registry, &reseeded).await;
    // Were the mark trusted, this would be asked (and would find nothing).
    delta_answers(&tds.registry, &reseeded, 118, &[]).await;
    let later = now + Duration::minutes(10);
    let (second, rows) = poll(&source, &config, Some(&first), later).await;
    assert_eq!(rows, 3, "the window read again: the reseeded history's rows");
    let got = runs(&second);
    assert_eq!(got.len(), 7, "the runs read before still happened, and the new one is read: {got:?}");
    assert_eq!(got[6], (t("2026-03-07T12:05:00Z"), RunOutcome::Succeeded, vec![(1, SUCCEEDED), (2, SUCCEEDED)]));
    let note = second.notes.iter().find(|n| n.field.as_deref() == Some("instance_id")).expect("a note");
    assert!(note.message.contains("went back below the last one Sundial read (118)"), "{}", note.message);
    let mark = second.mark.clone().expect("a mark");
    assert_eq!((mark.high, mark.low), (3, Some((1, t("2026-03-07T12:05:00Z")))));
    assert!(mark.restarted.is_some());

    // From there the new mark holds: the next rows past 3, and no whole read.
    let mut more = reseeded.clone();
    more.push(step(4, 1, "Backup", 20260307, 123000));
    more.push(step(5, 2, "Verify", 20260307, 123030));
    more.push(outcome(6, 20260307, 123000));
    holds(&tds.registry, &more, None).await;
    no_window(&tds.registry).await;
    delta_answers(&tds.registry, &more, 3, &[]).await;
    let (third, rows) = poll(&source, &config, Some(&second), later + Duration::minutes(30)).await;
    assert_eq!(rows, 3);
    assert_eq!(runs(&third).len(), 8);
    assert!(third.notes.iter().any(|n| n.field.as_deref() == Some("instance_id")), "the note stays for a day");

    // Restored from an older backup with the same oldest row but fewer rows: also went back.
    let back = Mark { high: 6, low: Some((1, t("2026-03-07T12:05:00Z"))), open: Vec::new(), restarted: None };
    assert!(msdb::went_back(&back, Some((1, t("2026-03-07T12:05:00Z"))), Some(3)).is_some());
    // The oldest row replaced by another with the same instance_id: went back.
    assert!(msdb::went_back(&back, Some((1, t("2026-03-07T13:00:00Z"))), Some(9)).is_some());
    // Purged from the oldest on (msdb's caps and sp_purge_jobhistory): not.
    assert!(msdb::went_back(&back, Some((4, t("2026-03-07T12:30:00Z"))), Some(9)).is_none());
}

#[tokio::test]
async fn after_a_restart_an_msdb_poll_continues_from_the_mark_kept_in_sundials_store() {
    use server::history::InstanceHistory;
    use server::sources::snapshots::Store;
    let tds = tds_server().await;
    let config = config(tds.port);
    let mut history = six_nights(1);
    history.push(step(19, 1, "Backup", 20260307, 110000));
    holds(&tds.registry, &history, Some(("2026-03-07T11:00:00.250", 1, "2026-03-07T11:00:00.000"))).await;
    window_answers(&tds.registry, &history).await;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.db")).await.expect("store");
    let window = |now: DateTime<Utc>| Window::new(now - Duration::days(30), now + Duration::milliseconds(1));
    let retention = std::time::Duration::from_secs(90 * 86_400);
    let now = t("2026-03-07T11:00:40Z");
    let first = {
        let source = Msdb::default();
        let (mut first, rows) = poll(&source, &config, None, now).await;
        assert_eq!(rows, 19);
        let mut kept = InstanceHistory::default();
        kept.keep(&store, &config.name, &mut first, window(now), retention).await.expect("kept");
        first
    };

    // Sundial stops; meanwhile the run going ends (rows 20 and 21). Started again, nothing held:
    // the store's runs and mark stand in, and only the rows past the mark are asked for.
    history.push(step(20, 2, "Verify", 20260307, 110030));
    history.push(outcome(21, 20260307, 110000));
    holds(&tds.registry, &history, None).await;
    no_window(&tds.registry).await;
    delta_answers(&tds.registry, &history, 19, &[19]).await;
    let later = now + Duration::minutes(2);
    let mut kept = InstanceHistory::default();
    let held = kept.held(&store, &config.name, window(later)).await.expect("the store").expect("a mark kept");
    assert_eq!(held.mark, first.mark);
    let source = Msdb::default();
    let (second, rows) = poll(&source, &config, Some(&held), later).await;
    assert_eq!(rows, 3, "after the restart only 19, 20 and 21 are fetched");
    let got = runs(&second);
    assert_eq!(got.len(), 7, "the run going before the restart and ended after it is one run: {got:?}");
    assert_eq!(got[..6], runs(&first)[..6], "the nights before, with their steps, from the store");
    assert_eq!(got[6], (t("2026-03-07T11:00:00Z"), RunOutcome::Succeeded, vec![(1, SUCCEEDED), (2, SUCCEEDED)]));
    assert!(second.input.jobs.iter().all(|j| !j.name.is_empty()), "jobs from sysjobs");
}
