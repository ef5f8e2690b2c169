//! A configured fleet under a fault: a real PostgreSQL 15 + pg_cron and a real MariaDB 10.11
//! are polled every second; the PostgreSQL server is stopped mid-way. The MariaDB instance
//! must keep serving, the PostgreSQL one must be marked unreachable within its poll interval
//! plus its timeout, with its error and the time of its last good read, and it must recover
//! when the server is back. Waits are on conditions (the fleet's state), with deadlines.
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use leptos::config::LeptosOptions;
use server::fleet::FleetBackend;
use server::http::{AppState, router};
use sqlx::Connection;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use tower::ServiceExt;

const PG_PORT: u16 = 55461;
const MARIA_PORT: u16 = 55462;

fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.ci").join(name)
}

struct Servers {
    pg: tempfile::TempDir,
    maria: tempfile::TempDir,
}

impl Drop for Servers {
    fn drop(&mut self) {
        let _ = Command::new(script("pg-test-server")).arg("stop").arg(self.pg.path()).status();
        let _ = Command::new(script("mariadb-test-server")).arg("stop").arg(self.maria.path()).status();
    }
}

fn start(name: &str, dir: &Path, port: u16) {
    let out = Command::new(script(name))
        .arg("start")
        .arg(dir)
        .arg(port.to_string())
        .output()
        .expect("run the test-server script");
    assert!(
        out.status.success(),
        "{name} did not start (run .ci/install-deps): {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

async fn get(state: &AppState, uri: &str) -> (StatusCode, String) {
    let res = router(state.clone()).oneshot(Request::get(uri).body(Body::empty()).unwrap()).await.unwrap();
    let status = res.status();
    let body = res.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// The state of `name` in `/api/instances`.
async fn state_of(state: &AppState, name: &str) -> serde_json::Value {
    let (status, body) = get(state, "/api/instances").await;
    assert_eq!(status, StatusCode::OK);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    v["instances"].as_array().unwrap().iter().find(|i| i["name"] == name).cloned().unwrap()
}

/// Wait until `name`'s state is `want`, at most `limit`; how long it took.
async fn until_state(state: &AppState, name: &str, want: &str, limit: Duration) -> Duration {
    let t0 = Instant::now();
    loop {
        let s = state_of(state, name).await;
        if s["state"] == want {
            return t0.elapsed();
        }
        assert!(t0.elapsed() < limit, "{name} is {} after {:?}, not {want}: {s}", s["state"], t0.elapsed());
        tokio::time::sleep(Duration::from_millis(50)).await; // re-checks the condition; not a synchronisation
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stopped_server_is_marked_unreachable_within_its_timeout_while_the_others_serve() {
    let servers = Servers {
        pg: tempfile::Builder::new().prefix("sundial-fault-pg-").tempdir().unwrap(),
        maria: tempfile::Builder::new().prefix("sundial-fault-maria-").tempdir().unwrap(),
    };
    start("pg-test-server", servers.pg.path(), PG_PORT);
    start("mariadb-test-server", servers.maria.path(), MARIA_PORT);

    // Least-privileged readers on both.
    let mut pg =
        sqlx::PgConnection::connect(&format!("postgres://postgres@127.0.0.1:{PG_PORT}/postgres")).await.unwrap();
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
    let root =
        sqlx::mysql::MySqlConnectOptions::new().socket(servers.maria.path().join("mysqld.sock")).username("root");
    let mut my = sqlx::MySqlConnection::connect_with(&root).await.unwrap();
    for sql in [
        "CREATE DATABASE shop",
        "CREATE EVENT shop.hourly_rollup ON SCHEDULE EVERY 1 HOUR DO SELECT 1",
        "CREATE USER sundial@'127.0.0.1' IDENTIFIED BY 'maria-secret-pw'",
        "GRANT EVENT ON shop.* TO sundial@'127.0.0.1'",
    ] {
        sqlx::query(sql).execute(&mut my).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    drop(my);

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
"#,
            dir.path().join("maria.pw").display()
        ),
    )
    .unwrap();
    let config = server::config::load(&config_path).unwrap();
    let backend = FleetBackend::start(&config).await.unwrap();
    let state = AppState {
        leptos_options: LeptosOptions::builder().output_name("sundial").site_root("target/site").build(),
        backend,
    };

    // Both read.
    until_state(&state, "pg-main", "Ok", Duration::from_secs(20)).await;
    until_state(&state, "maria-shop", "Ok", Duration::from_secs(20)).await;
    let (status, body) = get(&state, "/api/jobs?instance=pg-main&days=1").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("nightly-vacuum"));
    // pg_cron keeps no creation time: a job that has not run is judged only since Sundial
    // first saw it, not as a day of misses.
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let vacuum = v["jobs"].as_array().unwrap().iter().find(|j| j["name"] == "nightly-vacuum").unwrap().clone();
    assert_eq!(vacuum["missed"], 0, "{vacuum}");
    // A job created while Sundial watches is new: its past is not judged either.
    let mut pg =
        sqlx::PgConnection::connect(&format!("postgres://postgres@127.0.0.1:{PG_PORT}/postgres")).await.unwrap();
    sqlx::query("SELECT cron.schedule('new-every-minute', '* * * * *', 'SELECT 1')").execute(&mut pg).await.unwrap();
    drop(pg);
    let t0 = Instant::now();
    let new_job = loop {
        let (_, body) = get(&state, "/api/jobs?instance=pg-main&days=1").await;
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        if let Some(j) = v["jobs"].as_array().unwrap().iter().find(|j| j["name"] == "new-every-minute") {
            break j.clone();
        }
        assert!(t0.elapsed() < Duration::from_secs(10), "the new job did not show");
        tokio::time::sleep(Duration::from_millis(50)).await; // re-checks the condition
    };
    assert!(new_job["missed"].as_u64().unwrap() <= 1, "not 1440 misses for a job created now: {new_job}");
    let (status, body) = get(&state, "/api/jobs?instance=maria-shop&days=1").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("shop.hourly_rollup"));
    let (status, _) = get(&state, "/api/jobs?instance=nope").await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Stop PostgreSQL mid-way.
    let stop = Command::new(script("pg-test-server")).arg("stop").arg(servers.pg.path()).status().unwrap();
    assert!(stop.success());
    let took = until_state(&state, "pg-main", "Unreachable", Duration::from_secs(10)).await;
    eprintln!("pg-main marked unreachable {took:?} after its server stopped");
    // One poll interval (1 s) until the next read, plus that read's timeout (2 s).
    // (plus 1 s for a loaded machine: the test re-checks every 50 ms).
    assert!(took <= Duration::from_secs(3) + Duration::from_secs(1), "marked unreachable after {took:?}");
    let pg_state = state_of(&state, "pg-main").await;
    assert!(pg_state["error"].as_str().is_some_and(|e| !e.is_empty()), "{pg_state}");
    assert!(pg_state["last_good"].is_string(), "the last good read is kept: {pg_state}");
    // Its pages keep its last good read, under a banner that says it cannot be read now.
    let (status, body) = get(&state, "/api/jobs?instance=pg-main&days=1").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let stale = v["instance"]["stale"].as_str().unwrap_or_default();
    assert!(stale.contains("cannot be read now") && stale.contains("last good read"), "{body}");
    assert!(body.contains("nightly-vacuum"), "the last good read's jobs");
    let (status, page) = get(&state, "/?instance=pg-main&days=1").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains(r#"data-testid="stale-banner""#), "the page says it is stale");
    // An instance never read has nothing to show: 503 with its error.
    until_state(&state, "never-up", "Unreachable", Duration::from_secs(10)).await;
    let (status, body) = get(&state, "/api/jobs?instance=never-up").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(body.contains("never-up") && body.contains("cannot connect to SQL Server"), "{body}");
    // The other instance goes on serving, and its page says nothing about the fault.
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
    start("pg-test-server", servers.pg.path(), PG_PORT);
    until_state(&state, "pg-main", "Ok", Duration::from_secs(15)).await;
    let (status, body) = get(&state, "/api/jobs?instance=pg-main&days=1").await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains(r#""stale":null"#), "fresh again: {body}");
    // And every page of it announces the stretch it could not be read, with the error.
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let outage = v["instance"]["incidents"].as_array().unwrap().iter().find(|i| i["kind"] == "unreachable").cloned();
    let outage = outage.unwrap_or_else(|| panic!("the unreachable stretch is an incident: {body}"));
    assert!(outage["reason"].as_str().is_some_and(|r| !r.is_empty()) && outage["ongoing"] == false, "{outage}");
    let (_, page) = get(&state, "/?instance=pg-main&days=1").await;
    assert!(page.contains(r#"data-kind="unreachable""#), "the page announces it");
}
