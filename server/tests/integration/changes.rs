//! The history of each job's definition (`engine::changes`, `history`), seen through the real
//! servers the other tests start: a fleet reads an instance into a SQLite store of Sundial's
//! (its first read is the baseline: no change), the test changes the scheduler's jobs as a DBA
//! would (pg_cron's `cron.alter_job` and `cron.unschedule`, MariaDB's `ALTER EVENT`), and
//! Sundial started again on the same store (a restart) reads them: `/api/changes` says each
//! change once, with when Sundial saw it, and a third start with nothing changed adds none.
use crate::support::servers::{TestServer, port};
use crate::support::web;
use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use serde_json::{Value, json};
use sqlx::{Connection, PgConnection};

/// Sundial over `instance` (a `[[instance]]` block) with its store in `dir`, read as of `now`
/// (polled once an hour: the test's restarts are its reads).
async fn sundial(dir: &std::path::Path, instance: &str, now: DateTime<Utc>) -> server::http::AppState {
    let toml = format!(
        "store = {:?}\n[defaults]\npoll_interval = \"1h\"\n\n{instance}",
        dir.join("store.sqlite").to_string_lossy()
    );
    web::fleet_as_of(&toml, now).await
}

/// `/api/changes?…` as (job, change, before, after, seen) rows.
async fn changes(state: &server::http::AppState, query: &str) -> Vec<(String, String, Value, Value, String)> {
    let v = web::api(state, &format!("/api/changes{query}")).await;
    v["changes"]
        .as_array()
        .expect("a list of changes")
        .iter()
        .map(|c| {
            (
                c["job"].as_str().unwrap_or_default().to_owned(),
                c["change"].as_str().unwrap_or_default().to_owned(),
                c["before"].clone(),
                c["after"].clone(),
                c["seen"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn minute() -> DateTime<Utc> {
    Utc::now().duration_trunc(TimeDelta::minutes(1)).unwrap()
}

fn rfc(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[tokio::test(flavor = "multi_thread")]
async fn pg_cron_alter_job_and_unschedule_are_each_one_change_across_restarts() {
    let server = TestServer::postgres("sundial-changes-pg-", port::CHANGES_PG);
    let mut db = PgConnection::connect(&server.pg_url("postgres")).await.expect("connect");
    sqlx::query("CREATE EXTENSION IF NOT EXISTS pg_cron").execute(&mut db).await.expect("pg_cron");
    let mut ids = Vec::new();
    for (name, schedule) in
        [("nightly_backup", "0 1 * * *"), ("hourly_rollup", "0 * * * *"), ("old_purge", "0 4 * * 0")]
    {
        let id: i64 =
            sqlx::query_scalar("SELECT cron.schedule_in_database($1, $2, 'SELECT 1', 'postgres', 'postgres', true)")
                .bind(name)
                .bind(schedule)
                .fetch_one(&mut db)
                .await
                .expect("cron.schedule_in_database");
        ids.push(id);
    }
    let port = port::CHANGES_PG;
    let instance = format!(
        "[[instance]]\nname = \"pg\"\nkind = \"pg_cron\"\nhost = \"127.0.0.1\"\nport = {port}\n\
         database = \"postgres\"\nuser = \"postgres\"\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let t0 = minute();
    let first = sundial(dir.path(), &instance, t0).await;
    assert_eq!(changes(&first, "").await, [], "the first read is the baseline, not three jobs added");

    // A DBA moves the backup from 01:00 to 03:00 and its command, pauses the rollup, drops the
    // purge and adds a job.
    for (sql, id) in [
        ("SELECT cron.alter_job($1, schedule := '0 3 * * *', command := 'SELECT 2')", ids[0]),
        ("SELECT cron.alter_job($1, active := false)", ids[1]),
        ("SELECT cron.unschedule($1)", ids[2]),
    ] {
        sqlx::query(sql).bind(id).execute(&mut db).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    sqlx::query("SELECT cron.schedule('new_vacuum', '30 2 * * *', 'VACUUM')").execute(&mut db).await.unwrap();

    let t1 = t0 + TimeDelta::minutes(5);
    let second = sundial(dir.path(), &instance, t1).await;
    let seen = rfc(t1);
    let mut got = changes(&second, "?instance=pg").await;
    got.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    assert_eq!(
        got,
        [
            ("hourly_rollup".into(), "enabled".into(), json!(true), json!(false), seen.clone()),
            ("new_vacuum".into(), "added".into(), Value::Null, json!("30 2 * * *"), seen.clone()),
            ("nightly_backup".into(), "command".into(), json!("SELECT 1"), json!("SELECT 2"), seen.clone()),
            ("nightly_backup".into(), "schedule".into(), json!("0 1 * * *"), json!("0 3 * * *"), seen.clone()),
            ("old_purge".into(), "removed".into(), json!("0 4 * * 0"), Value::Null, seen.clone()),
        ]
    );
    // One job, by name; a window that ends before the read saw them holds none.
    let backup = changes(&second, "?job=nightly_backup").await;
    assert_eq!(backup.iter().map(|c| c.1.as_str()).collect::<Vec<_>>(), ["command", "schedule"]);
    assert_eq!(changes(&second, &format!("?to={}", rfc(t1))).await, []);
    assert_eq!(changes(&second, &format!("?from={}", rfc(t1))).await.len(), 5);
    // Bad parameters are named; an unknown instance is not found.
    let (status, body) = web::get(&second, "/api/changes?from=yesterday").await;
    assert_eq!(status, axum::http::StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("from"), "{body}");
    let (status, _) = web::get(&second, "/api/changes?instance=nope").await;
    assert_eq!(status, axum::http::StatusCode::NOT_FOUND);

    // The job page says it: "Changes", before and after.
    let (_, page) = web::get(&second, &format!("/jobs/{}?instance=pg", ids[0])).await;
    let text = web::visible(&page);
    assert!(text.contains("Changes") && text.contains("Schedule changed"), "{text}");
    assert!(text.contains("0 1 * * *") && text.contains("0 3 * * *"), "{text}");
    assert!(page.contains("data-testid=\"change-mark\""), "a mark on the chart");

    // Started again with nothing changed: the same five, none written twice.
    let third = sundial(dir.path(), &instance, t1 + TimeDelta::minutes(5)).await;
    assert_eq!(changes(&third, "").await.len(), 5);
}

#[tokio::test(flavor = "multi_thread")]
async fn mariadb_alter_event_schedule_and_disable_are_changes_with_last_altered() {
    let server = TestServer::mariadb("sundial-changes-maria-", port::CHANGES_MARIA);
    let root = server.maria_root().await;
    for sql in [
        "CREATE DATABASE shop",
        "CREATE EVENT shop.nightly ON SCHEDULE EVERY 1 DAY STARTS '2037-01-01 01:00:00' DO SELECT 1",
        "CREATE EVENT shop.hourly ON SCHEDULE EVERY 1 HOUR STARTS '2037-01-01 00:00:00' DO SELECT 1",
        "CREATE USER sundial@'127.0.0.1' IDENTIFIED BY 'reader-pw'",
        "GRANT EVENT ON shop.* TO sundial@'127.0.0.1'",
    ] {
        sqlx::query(sql).execute(&root).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let dir = tempfile::tempdir().unwrap();
    let pw = dir.path().join("maria.pw");
    std::fs::write(&pw, "reader-pw\n").unwrap();
    let instance = format!(
        "[[instance]]\nname = \"maria\"\nkind = \"mysql_events\"\nhost = \"127.0.0.1\"\nport = {}\n\
         user = \"sundial\"\npassword_file = {:?}\ntime_zone = \"UTC\"\n",
        port::CHANGES_MARIA,
        pw.display().to_string()
    );
    let t0 = minute();
    let first = sundial(dir.path(), &instance, t0).await;
    assert_eq!(changes(&first, "").await, [], "the first read is the baseline");

    for sql in [
        "ALTER EVENT shop.nightly ON SCHEDULE EVERY 1 DAY STARTS '2037-01-01 03:00:00'",
        "ALTER EVENT shop.hourly DISABLE",
    ] {
        sqlx::query(sql).execute(&root).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let t1 = t0 + TimeDelta::minutes(5);
    let second = sundial(dir.path(), &instance, t1).await;
    let v = web::api(&second, "/api/changes?instance=maria").await;
    let list = v["changes"].as_array().unwrap();
    let find = |job: &str, kind: &str| {
        list.iter()
            .find(|c| c["job"] == job && c["change"] == kind)
            .unwrap_or_else(|| panic!("no {kind} change of {job}: {v}"))
            .clone()
    };
    let schedule = find("shop.nightly", "schedule");
    assert_eq!(schedule["before"], json!("STARTS=2037-01-01 01:00:00"), "{schedule}");
    assert_eq!(schedule["after"], json!("STARTS=2037-01-01 03:00:00"), "{schedule}");
    assert_eq!(schedule["seen"], json!(rfc(t1)));
    // MariaDB's own LAST_ALTERED, the server's clock: within a minute of the test's.
    let modified: DateTime<Utc> = schedule["modified"].as_str().expect("LAST_ALTERED").parse().unwrap();
    assert!((modified - Utc::now()).num_seconds().abs() < 120, "{modified}");
    let disabled = find("shop.hourly", "enabled");
    assert_eq!((disabled["before"].clone(), disabled["after"].clone()), (json!(true), json!(false)));
    assert_eq!(list.len(), 2, "the disabled event's STATUS is its enabled change, not also a schedule: {v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_demo_shows_the_changes_it_planted_on_the_api_and_the_job_page() {
    let now = crate::support::fixture::now();
    let (_dir, state) = web::demo_fleet(now).await;
    let v = web::api(&state, "/api/changes?instance=SQLPROD01").await;
    let list = v["changes"].as_array().unwrap();
    let kinds: Vec<(&str, &str)> =
        list.iter().map(|c| (c["job"].as_str().unwrap(), c["change"].as_str().unwrap())).collect();
    assert_eq!(
        kinds,
        [
            (server::demo::changes::ADDED_JOB, "added"),
            (server::demo::DISABLED_JOB, "enabled"),
            (server::demo::changes::MOVED_JOB, "schedule"),
        ],
        "oldest first, and nothing else: the demo's first read is its baseline"
    );
    let moved = &list[2];
    let (_, page) = web::get(&state, &format!("/jobs/{}?instance=SQLPROD01", moved["job_id"].as_str().unwrap())).await;
    let text = web::visible(&page);
    assert!(text.contains("Schedule changed"), "{text}");
    assert!(text.contains(moved["before"].as_str().unwrap()) && text.contains(moved["after"].as_str().unwrap()));
    assert!(page.contains("data-testid=\"change-mark\""), "a mark on the chart");
    // Where a change told to an alert target links (`alerts::changes`): the job page over 7
    // days, at its Changes.
    let told = format!("/jobs/{}?days=7&instance=SQLPROD01", moved["job_id"].as_str().unwrap());
    let (_, page) = web::get(&state, &told).await;
    assert!(page.contains("id=\"changes\"") && web::visible(&page).contains("Schedule changed"), "{told}");
    // The log: a `changed` line for each, on the page and in its JSON.
    let (_, log) = web::get(&state, "/log?instance=SQLPROD01&days=7&kind=changed").await;
    let text = web::visible(&log);
    assert!(text.contains("Schedule changed: active_start_time="), "{text}");
    assert!(text.contains("Enabled changed: true → false") && text.contains("Job added"), "{text}");
    let v = web::api(&state, "/api/log?instance=SQLPROD01&kind=changed").await;
    assert_eq!(v.to_string().matches("\"kind\":\"changed\"").count(), 3, "three changed lines: {v}");
}

/// A TDS test server answering an msdb of one New York job: its `sysjobs` row (with
/// `date_modified`, the server's wall clock) and its one schedule at `start` (HHMMSS).
async fn msdb_of_one_job(modified: &str, start: i32) -> u16 {
    use crate::support::msdb_tables::{self as mt, m, s, table};
    use mssql_mock_tds::{ColumnValue as V, SqlDataType as T};
    let tds = crate::support::servers::tds_server().await;
    let mut r = tds.registry.lock().await;
    r.register(
        server::sources::msdb::Q_TIME_ZONE,
        table(
            &[("tz_id", T::NVarChar), ("offset_minutes", T::Int)],
            vec![vec![s("Eastern Standard Time"), V::Int(-300)]],
        ),
    );
    let mut cols = mt::JOBS.to_vec();
    cols.push(("modified", T::NVarChar));
    r.register(
        server::sources::msdb::Q_JOBS,
        table(
            &cols,
            vec![vec![
                s(MSDB_JOB),
                s("Backup FULL"),
                V::TinyInt(1),
                m(Some("Database Maintenance")),
                s("sa"),
                s(modified),
            ]],
        ),
    );
    // Enabled, daily (4) every day, once a day (subday 1) at `start`, from 2025 on.
    let mut sched = vec![s(MSDB_JOB), V::Int(1), s("Nightly")];
    sched.extend([1, 4, 1, 1, 0, 0, 0, 20250101, 99991231, start, 235959].map(V::Int));
    r.register(server::sources::msdb::Q_SCHEDULES, table(mt::SCHEDULES, vec![sched]));
    tds.port
}

const MSDB_JOB: &str = "6F9619FF-8B86-D011-B42D-00C04FC964FF";

#[tokio::test(flavor = "multi_thread")]
async fn msdb_over_tds_a_schedule_moved_is_a_change_with_date_modified() {
    use server::history::InstanceHistory;
    let dir = tempfile::tempdir().unwrap();
    let store = server::store::Store::open(&dir.path().join("store.sqlite")).await.unwrap();
    let retention = std::time::Duration::from_secs(90 * 86_400);
    let read = |port: u16, now: DateTime<Utc>| async move {
        let target = crate::support::servers::tds_target(port, "sundial_reader", "pw");
        let mut client =
            server::sources::msdb::connect(&target, std::time::Duration::from_secs(5)).await.expect("connect");
        let window = sundial_engine::Window::new(now - TimeDelta::days(7), now);
        (server::sources::msdb::read_instance(&mut client, "SQLPROD01", None, window, now).await.expect("read"), window)
    };
    let t0: DateTime<Utc> = "2026-03-07T12:00:00Z".parse().unwrap();
    let mut kept = InstanceHistory::default();
    let (mut first, window) = read(msdb_of_one_job("2026-03-01 09:00:00.000", 10000).await, t0).await;
    kept.keep(&store, "SQLPROD01", &mut first, window, retention).await.expect("kept");
    // sp_update_schedule moves it from 01:00 to 03:00 at 10:15 New York time (15:15 UTC).
    let t1 = t0 + TimeDelta::hours(4);
    let (mut second, window) = read(msdb_of_one_job("2026-03-07 10:15:00.000", 30000).await, t1).await;
    // After a restart: a new memory, the store's definitions.
    let mut restarted = InstanceHistory::default();
    restarted.keep(&store, "SQLPROD01", &mut second, window, retention).await.expect("kept");
    let all = sundial_engine::Window::new(t0 - TimeDelta::days(1), t1 + TimeDelta::days(1));
    let changes = server::history::changes_in(&store, Some("SQLPROD01"), None, all).await.unwrap();
    assert_eq!(changes.len(), 1, "{changes:?}");
    let c = &changes[0].1;
    assert_eq!(c.kind, sundial_engine::changes::ChangeKind::Schedule);
    assert_eq!(c.before.as_ref().map(|v| v.text()).as_deref(), Some("active_start_time=10000"));
    assert_eq!(c.after.as_ref().map(|v| v.text()).as_deref(), Some("active_start_time=30000"));
    assert_eq!(c.seen, t1);
    assert_eq!(c.modified, Some("2026-03-07T15:15:00Z".parse().unwrap()), "date_modified in the server's zone");
}

#[tokio::test(flavor = "multi_thread")]
async fn pgagent_a_schedule_updated_is_one_change() {
    use server::history::InstanceHistory;
    let server = TestServer::postgres("sundial-changes-pgagent-", port::CHANGES_PGAGENT);
    let mut admin = PgConnection::connect(&server.pg_url("postgres")).await.expect("connect");
    let minutes = |set: &[usize]| {
        let v: Vec<&str> = (0..60).map(|i| if set.contains(&i) { "t" } else { "f" }).collect();
        format!("{{{}}}", v.join(","))
    };
    for sql in [
        "CREATE EXTENSION pgagent".to_owned(),
        "INSERT INTO pgagent.pga_job (jobid, jobjclid, jobname, jobcreated) VALUES (1, 1, 'nightly', '2025-12-01')"
            .into(),
        format!(
            "INSERT INTO pgagent.pga_schedule (jscid, jscjobid, jscname, jscstart, jscminutes) VALUES \
             (1, 1, 'on the hour', '2025-12-01 00:00+00', '{}')",
            minutes(&[0])
        ),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql.clone()))
            .execute(&mut admin)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let pool = server::sources::connect::postgres_url(&server.pg_url("postgres"), std::time::Duration::from_secs(5))
        .await
        .expect("connect");
    let dir = tempfile::tempdir().unwrap();
    let store = server::store::Store::open(&dir.path().join("store.sqlite")).await.unwrap();
    let retention = std::time::Duration::from_secs(90 * 86_400);
    let mut kept = InstanceHistory::default();
    let mut poll = async |now: DateTime<Utc>| {
        let window = sundial_engine::Window::new(now - TimeDelta::days(1), now);
        let read =
            server::sources::pgagent::read_incremental(&pool, "pga", window, None, now, None).await.expect("read");
        let mut read = server::sources::SourceRead::new(read.input, read.notes, now);
        kept.keep(&store, "pga", &mut read, window, retention).await.expect("kept");
    };
    let t0: DateTime<Utc> = "2026-01-02T00:00:00Z".parse().unwrap();
    poll(t0).await;
    // pgAdmin's schedule dialog: from the hour to the half hour.
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE pgagent.pga_schedule SET jscminutes = '{}' WHERE jscid = 1",
        minutes(&[30])
    )))
    .execute(&mut admin)
    .await
    .expect("update the schedule");
    let t1 = t0 + TimeDelta::hours(1);
    poll(t1).await;
    poll(t1 + TimeDelta::hours(1)).await;
    let all = sundial_engine::Window::new(t0 - TimeDelta::days(1), t1 + TimeDelta::days(1));
    let changes = server::history::changes_in(&store, Some("pga"), None, all).await.unwrap();
    assert_eq!(changes.len(), 1, "one change, seen once: {changes:?}");
    let c = &changes[0].1;
    assert_eq!(
        (c.kind, c.seen, c.modified),
        (sundial_engine::changes::ChangeKind::Schedule, t1, None),
        "pgAgent keeps no modification time"
    );
    let (before, after) = (c.before.as_ref().unwrap().text(), c.after.as_ref().unwrap().text());
    assert!(before.starts_with("jscminutes={t,f,") && after.starts_with("jscminutes={f,"), "{before} → {after}");
    assert_ne!(before, after);
}
