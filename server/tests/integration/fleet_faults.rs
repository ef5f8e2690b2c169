//! A configured fleet under a fault: a real PostgreSQL 15 + pg_cron and a real MariaDB 10.11
//! are polled every second; the PostgreSQL server is stopped mid-way. The MariaDB instance
//! must keep serving, the PostgreSQL one must be marked unreachable by the first read after the
//! stop (no read started after it is ever taken for a good one), with its error and the time
//! of its last good read, and it must recover when the server is back. A server that accepts
//! and never answers is marked unreachable by the read's own timeout, and the others are read
//! again, well, after both failed. Everything is judged by the fleet's own record (its
//! states, errors and the order of its reads), never by how long the test waited; waits are on
//! conditions, with a guard against hanging.
use crate::support::servers::{GUARD, TestServer, port, silent_port};
use crate::support::web::{self, get};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use server::fleet::FleetBackend;
use server::http::AppState;
use sqlx::Connection;
use std::time::{Duration, Instant};

const PG_PORT: u16 = port::FAULT_PG;
const MARIA_PORT: u16 = port::FAULT_MARIA;

/// The state of `name` in `/api/instances`.
async fn state_of(state: &AppState, name: &str) -> serde_json::Value {
    let (status, body) = get(state, "/api/instances").await;
    assert_eq!(status, StatusCode::OK);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    v["instances"].as_array().unwrap().iter().find(|i| i["name"] == name).cloned().unwrap()
}

/// An instant of `/api/instances` (RFC 3339 with the zone's offset, to the millisecond).
fn instant(v: &serde_json::Value) -> Option<DateTime<Utc>> {
    v.as_str().map(|s| DateTime::parse_from_rfc3339(s).unwrap_or_else(|e| panic!("{s}: {e}")).to_utc())
}

/// Now, to the millisecond (as the fleet's instants are written).
fn now_ms() -> DateTime<Utc> {
    DateTime::from_timestamp_millis(Utc::now().timestamp_millis()).expect("now")
}

/// Wait until `name`'s state is `want`: that state. [`GUARD`] only stops a hang.
async fn until_state(state: &AppState, name: &str, want: &str) -> serde_json::Value {
    let t0 = Instant::now();
    loop {
        let s = state_of(state, name).await;
        if s["state"] == want {
            return s;
        }
        assert!(t0.elapsed() < GUARD, "{name} is {} after {:?}, not {want}: {s}", s["state"], t0.elapsed());
        tokio::time::sleep(Duration::from_millis(50)).await; // re-checks the condition; not a synchronisation
    }
}

/// Wait until `name` has been read (well) after `after`: its state then.
async fn until_read_after(state: &AppState, name: &str, after: DateTime<Utc>) -> serde_json::Value {
    let t0 = Instant::now();
    loop {
        let s = state_of(state, name).await;
        if s["state"] == "Ok" && instant(&s["last_attempt"]).is_some_and(|a| a > after) {
            return s;
        }
        assert!(t0.elapsed() < GUARD, "{name} not read after {after}: {s}");
        tokio::time::sleep(Duration::from_millis(50)).await; // re-checks the condition
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stopped_server_is_marked_unreachable_within_its_timeout_while_the_others_serve() {
    let pg_server = TestServer::postgres("sundial-fault-pg-", PG_PORT);
    let maria_server = TestServer::mariadb("sundial-fault-maria-", MARIA_PORT);

    // Least-privileged readers on both.
    let mut pg = sqlx::PgConnection::connect(&pg_server.pg_url("postgres")).await.unwrap();
    for sql in [
        "CREATE EXTENSION IF NOT EXISTS pg_cron",
        "CREATE ROLE sundial_reader LOGIN BYPASSRLS",
        "GRANT USAGE ON SCHEMA cron TO sundial_reader",
        "GRANT SELECT ON cron.job, cron.job_run_details TO sundial_reader",
        "SELECT cron.schedule('nightly-vacuum', '0 3 * * *', 'VACUUM')",
    ] {
        sqlx::query(sql).execute(&mut pg).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    drop(pg);
    let my = maria_server.maria_root().await;
    for sql in [
        "CREATE DATABASE shop",
        "CREATE EVENT shop.hourly_rollup ON SCHEDULE EVERY 1 HOUR DO SELECT 1",
        "CREATE USER sundial@'127.0.0.1' IDENTIFIED BY 'maria-secret-pw'",
        "GRANT EVENT ON shop.* TO sundial@'127.0.0.1'",
    ] {
        sqlx::query(sql).execute(&my).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    my.close().await;
    let hung_port = silent_port().await;

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("maria.pw"), "maria-secret-pw\n").unwrap();
    let config_path = dir.path().join("fleet.toml");
    std::fs::write(
        &config_path,
        format!(
            r#"
[defaults]
poll_interval = "1s"
timeout = "2s"

[[instance]]
name = "pg-main"
kind = "pg_cron"
host = "127.0.0.1"
port = {PG_PORT}
user = "sundial_reader"
database = "postgres"
tags = {{ environment = "prod" }}

[[instance]]
name = "maria-shop"
kind = "mysql_events"
host = "127.0.0.1"
port = {MARIA_PORT}
user = "sundial"
password_file = "{}"

[[instance]]
name = "never-up"
kind = "mssql"
host = "127.0.0.1"
port = 1
user = "sundial_reader"

[[instance]]
name = "hung"
kind = "mssql"
host = "127.0.0.1"
port = {hung_port}
user = "sundial_reader"
"#,
            dir.path().join("maria.pw").display()
        ),
    )
    .unwrap();
    let config = server::config::load(&config_path).unwrap();
    let backend = FleetBackend::start(&config).await.unwrap();
    let state = web::state(backend);

    // Both read.
    until_state(&state, "pg-main", "Ok").await;
    until_state(&state, "maria-shop", "Ok").await;
    let (status, body) = get(&state, "/api/jobs?instance=pg-main&days=1").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("nightly-vacuum"));
    // pg_cron keeps no creation time: a job that has not run is judged only since Sundial
    // first saw it, not as a day of misses.
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let vacuum = v["jobs"].as_array().unwrap().iter().find(|j| j["name"] == "nightly-vacuum").unwrap().clone();
    assert_eq!(vacuum["missed"], 0, "{vacuum}");
    // A job created while Sundial watches is new: its past is not judged either.
    let mut pg = sqlx::PgConnection::connect(&pg_server.pg_url("postgres")).await.unwrap();
    sqlx::query("SELECT cron.schedule('new-every-minute', '* * * * *', 'SELECT 1')").execute(&mut pg).await.unwrap();
    drop(pg);
    let t0 = Instant::now();
    let new_job = loop {
        let (_, body) = get(&state, "/api/jobs?instance=pg-main&days=1").await;
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        if let Some(j) = v["jobs"].as_array().unwrap().iter().find(|j| j["name"] == "new-every-minute") {
            break j.clone();
        }
        assert!(t0.elapsed() < GUARD, "the new job did not show");
        tokio::time::sleep(Duration::from_millis(50)).await; // re-checks the condition
    };
    assert!(new_job["missed"].as_u64().unwrap() <= 1, "not 1440 misses for a job created now: {new_job}");
    let (status, body) = get(&state, "/api/jobs?instance=maria-shop&days=1").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("shop.hourly_rollup"));
    let (status, _) = get(&state, "/api/jobs?instance=nope").await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Stop PostgreSQL mid-way (the script returns once it is down).
    pg_server.stop();
    let stopped = now_ms();
    // Every read started after the stop fails, the first one included: wait for one (the next
    // poll), and no state seen with a read started after the stop may be a good one.
    let t0 = Instant::now();
    let pg_state = loop {
        let s = state_of(&state, "pg-main").await;
        if instant(&s["last_attempt"]).is_some_and(|a| a > stopped) {
            assert_eq!(s["state"], "Unreachable", "a read started after the stop was taken for a good one: {s}");
            break s;
        }
        assert!(t0.elapsed() < GUARD, "pg-main not read since its server stopped: {s}");
        tokio::time::sleep(Duration::from_millis(50)).await; // re-checks the condition
    };
    assert!(pg_state["error"].as_str().is_some_and(|e| !e.is_empty()), "{pg_state}");
    assert!(pg_state["last_good"].is_string(), "the last good read is kept: {pg_state}");
    // The outage starts with the first failed read, which follows the last good one.
    let outages = pg_state["outages"].as_array().unwrap();
    let open = outages.iter().find(|o| o["end"].is_null()).unwrap_or_else(|| panic!("an open outage: {pg_state}"));
    let failed_at = instant(&open["start"]).unwrap();
    let last_good = instant(&pg_state["last_good"]).unwrap();
    assert!(last_good <= failed_at, "the last good read {last_good} came before the first failed one {failed_at}");
    assert!(instant(&pg_state["last_attempt"]).is_some_and(|a| a >= failed_at), "{pg_state}");
    // Its pages keep its last good read, under a banner that says it cannot be read now.
    let (status, body) = get(&state, "/api/jobs?instance=pg-main&days=1").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let stale = v["instance"]["stale"].as_str().unwrap_or_default();
    assert!(stale.contains("cannot be read now") && stale.contains("last good read"), "{body}");
    assert!(body.contains("nightly-vacuum"), "the last good read's jobs");
    let (status, page) = get(&state, "/jobs?instance=pg-main&days=1").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains(r#"data-testid="stale-banner""#), "the page says it is stale");
    // An instance never read has nothing to show: 503 with its error.
    until_state(&state, "never-up", "Unreachable").await;
    let (status, body) = get(&state, "/api/jobs?instance=never-up").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(body.contains("never-up") && body.contains("cannot connect to SQL Server"), "{body}");
    // A server that accepts and never answers: its read ends by its own timeout (2 s), said.
    let hung = until_state(&state, "hung", "Unreachable").await;
    assert!(hung["error"].as_str().is_some_and(|e| e.contains("no answer within 2s")), "{hung}");
    let hung_at = instant(&hung["last_attempt"]).unwrap();
    // The other instance goes on serving: read again, and well, after pg-main's failed read and
    // the hung one's; its page says nothing about the fault.
    let maria = until_read_after(&state, "maria-shop", failed_at.max(hung_at)).await;
    assert_eq!(maria["state"], "Ok");
    assert!(maria["error"].is_null(), "{maria}");
    assert_eq!(state_of(&state, "maria-shop").await["state"], "Ok");
    let (status, body) = get(&state, "/api/jobs?instance=maria-shop&days=7").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains(r#""stale":null"#), "{body}");
    // The fleet page shows both, the stopped one with its error.
    let (status, page) = get(&state, "/fleet").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("unreachable") && page.contains("maria-shop") && page.contains("pg-main"), "{page}");
    for (_, text) in [get(&state, "/api/instances").await, get(&state, "/fleet").await] {
        assert!(!text.contains("maria-secret-pw"), "a secret leaked");
    }

    // Back up: the instance recovers at its next poll.
    pg_server.restart();
    until_state(&state, "pg-main", "Ok").await;
    let (status, body) = get(&state, "/api/jobs?instance=pg-main&days=1").await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains(r#""stale":null"#), "fresh again: {body}");
    // And every page of it announces the stretch it could not be read, with the error.
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let outage = v["instance"]["incidents"].as_array().unwrap().iter().find(|i| i["kind"] == "unreachable").cloned();
    let outage = outage.unwrap_or_else(|| panic!("the unreachable stretch is an incident: {body}"));
    assert!(outage["reason"].as_str().is_some_and(|r| !r.is_empty()) && outage["ongoing"] == false, "{outage}");
    let (_, page) = get(&state, "/jobs?instance=pg-main&days=1").await;
    assert!(page.contains(r#"data-kind="unreachable""#), "the page announces it");
}
