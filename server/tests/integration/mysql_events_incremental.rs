//! MySQL/MariaDB events read incrementally (issue 27): the server's side is small
//! (`information_schema.EVENTS`, a row per event; performance_schema's bounded history), but
//! Sundial's own store holds a sample per `LAST_EXECUTED` it saw, 43,200 in 30 days for an
//! event that fires every minute, and a poll read the window's again. Now a poll asks the
//! store only for the newest sample it holds (its `seen_until` grows) and those after it,
//! counted by the source; what it answers is what a whole read answers, poll after poll (the
//! window sliding past old samples), and after the event's `LAST_EXECUTED` went back (the event
//! made again) it reads the window again.
//!
//! The events are in a SQLite file (an instance with `path`, as the demo's MariaDB is); the
//! test plays the event scheduler by writing `LAST_EXECUTED`.
use crate::support::t;
use chrono::{DateTime, Duration};
use server::sources::mysql_events::MysqlEvents;
use server::sources::snapshots::Store;
use server::sources::{self, ReadContext, Source};
use sqlx::Connection;
use sundial_engine::Window;
use sundial_engine::fleet::JobInput;

async fn job(
    source: &MysqlEvents,
    config: &server::config::InstanceConfig,
    store: &Store,
    now: DateTime<chrono::Utc>,
) -> JobInput {
    // A short window, so that it slides past old samples within the test.
    let window = Window::new(now - Duration::minutes(30), now + Duration::milliseconds(1));
    let cx = ReadContext { config, window, now, store: Some(store), held: None };
    let read = sources::read(source as &dyn Source, cx).await.unwrap_or_else(|e| panic!("{e}"));
    read.input.jobs.into_iter().next().expect("the event is read")
}

fn same(a: &JobInput, b: &JobInput) {
    let runs = |j: &JobInput| j.runs.iter().map(|r| (r.start, r.outcome)).collect::<Vec<_>>();
    assert_eq!(runs(a), runs(b));
    assert_eq!(a.unobserved, b.unobserved);
    assert_eq!(a.history_horizon, b.history_horizon);
}

#[tokio::test]
async fn a_mysql_events_poll_reads_only_new_samples_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.sqlite");
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
    let mut file = sqlx::SqliteConnection::connect_with(&options).await.unwrap();
    for sql in [
        "CREATE TABLE EVENTS (EVENT_SCHEMA TEXT, EVENT_NAME TEXT, DEFINER TEXT, TIME_ZONE TEXT, EVENT_TYPE TEXT, \
         EXECUTE_AT TEXT, INTERVAL_VALUE TEXT, INTERVAL_FIELD TEXT, STARTS TEXT, ENDS TEXT, STATUS TEXT, \
         ON_COMPLETION TEXT, LAST_EXECUTED TEXT)",
        "CREATE TABLE GLOBAL_VARIABLES (VARIABLE_NAME TEXT, VARIABLE_VALUE TEXT)",
        "INSERT INTO GLOBAL_VARIABLES VALUES ('time_zone', '+00:00'), ('system_time_zone', 'UTC'), ('event_scheduler', 'ON')",
        "INSERT INTO EVENTS VALUES ('shop', 'rollup', 'root@localhost', 'UTC', 'RECURRING', NULL, '1', 'MINUTE', \
         '2026-03-01 00:00:00', NULL, 'ENABLED', 'PRESERVE', NULL)",
    ] {
        sqlx::query(sql).execute(&mut file).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let text =
        format!("[[instance]]\nname = \"events\"\nkind = \"mysql_events\"\npath = {:?}\n", path.display().to_string());
    let config = server::config::parse(&text, "events.toml").unwrap_or_else(|e| panic!("{e}")).instances.remove(0);
    let store = Store::open(&dir.path().join("store.db")).await.expect("store");
    let source = MysqlEvents::default();
    let base = t("2026-03-07T12:00:00Z");
    let executed = async |file: &mut sqlx::SqliteConnection, at: DateTime<chrono::Utc>| {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE EVENTS SET LAST_EXECUTED = '{}'",
            at.format("%Y-%m-%d %H:%M:%S")
        )))
        .execute(file)
        .await
        .unwrap();
    };
    // An hour of polls, one a minute, the event firing each minute (two polls see one
    // execution now and then: a sample seen again).
    let mut after_first = Vec::new();
    for minute in 0..60 {
        let now = base + Duration::minutes(minute);
        let fired = if minute % 7 == 3 { now - Duration::minutes(1) } else { now - Duration::seconds(5) };
        executed(&mut file, fired).await;
        let before = source.samples_read();
        let polled = job(&source, &config, &store, now).await;
        let fetched = source.samples_read() - before;
        if minute > 0 {
            after_first.push(fetched);
        }
        // What a source that holds nothing reads (the window's samples) is the same.
        let whole_source = MysqlEvents::default();
        let whole = job(&whole_source, &config, &store, now).await;
        same(&polled, &whole);
        if minute >= 40 {
            assert!(whole_source.samples_read() >= 30, "the whole read takes the window's samples");
        }
    }
    assert!(
        after_first.iter().all(|n| *n <= 2),
        "each poll reads the newest sample held and a new one: {after_first:?}"
    );
    assert!(!job(&source, &config, &store, base + Duration::minutes(60)).await.runs.is_empty());

    // The event made again: its LAST_EXECUTED goes back below the newest sample. The samples
    // are read whole again, and the answer is still a whole read's.
    let now = base + Duration::minutes(61);
    executed(&mut file, base + Duration::minutes(30) + Duration::seconds(20)).await;
    let before = source.samples_read();
    let polled = job(&source, &config, &store, now).await;
    assert!(source.samples_read() - before > 2, "read whole again");
    same(&polled, &job(&MysqlEvents::default(), &config, &store, now).await);
}
