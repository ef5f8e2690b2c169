//! Sources that misbehave, each under a serving fleet: a server that accepts and never answers
//! (PostgreSQL, MariaDB, SQL Server), a connection reset or closed in the middle of an answer
//! (a TCP proxy in front of a real PostgreSQL 15 + pg_cron and a real MariaDB 10.11), tables
//! of the wrong types (a look-alike `cron` schema, a MariaDB `job` table of text), and a login
//! without the grants. Each faulty instance must be reported as such, in words that say what
//! failed and where, with no secret; no partial read is ever taken for a good one; and the
//! healthy instances of the same fleet, on the same servers, go on being read and served.
//! Everything is judged by the fleet's own record (its states, errors and reads), never by how
//! long the test waited; waits are on conditions, with a guard against hanging.
use crate::support::servers::{GUARD, TestServer, port, silent_port, tds_server};
use crate::support::web::{self, get};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use mssql_mock_tds::{ColumnDefinition, ColumnValue as V, QueryResponse, Row, SqlDataType as T};
use server::fleet::FleetBackend;
use server::http::AppState;
use server::sources::msdb;
use sqlx::Connection;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The MariaDB reader's password: it must appear in no answer.
const MARIA_PW: &str = "maria-secret-pw";

// ---------------------------------------------------------------------------------------------
// The fleet and its record.

/// A fleet served from a fleet file in a temporary directory (with the MariaDB password file).
struct Fleet {
    state: AppState,
    _dir: tempfile::TempDir,
}

impl Fleet {
    /// Serve `instances` (TOML `[[instance]]` blocks; `{pw}` is the password file's path),
    /// polled every second with a 2 s timeout.
    async fn start(instances: &str) -> Fleet {
        let dir = tempfile::tempdir().unwrap();
        let pw = dir.path().join("maria.pw");
        std::fs::write(&pw, format!("{MARIA_PW}\n")).unwrap();
        let toml = format!(
            "[defaults]\npoll_interval = \"1s\"\ntimeout = \"2s\"\n\n{}",
            instances.replace("{pw}", &pw.display().to_string())
        );
        let path = dir.path().join("fleet.toml");
        std::fs::write(&path, toml).unwrap();
        let config = server::config::load(&path).unwrap();
        let backend = FleetBackend::start(&config).await.unwrap();
        Fleet { state: web::state(backend), _dir: dir }
    }

    /// `name`'s entry in `/api/instances`; no answer holds the MariaDB password.
    async fn instance(&self, name: &str) -> serde_json::Value {
        let (status, body) = get(&self.state, "/api/instances").await;
        assert_eq!(status, StatusCode::OK);
        assert!(!body.contains(MARIA_PW), "a secret leaked: {body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        v["instances"].as_array().unwrap().iter().find(|i| i["name"] == name).cloned().unwrap()
    }

    /// Wait until `name`'s entry satisfies `done` (`what` says what is awaited); every entry
    /// seen on the way goes through `check` first. [`GUARD`] only stops a hang.
    async fn until(
        &self,
        name: &str,
        what: &str,
        check: impl Fn(&serde_json::Value),
        done: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let t0 = Instant::now();
        loop {
            let s = self.instance(name).await;
            check(&s);
            if done(&s) {
                return s;
            }
            assert!(t0.elapsed() < GUARD, "{name}: not {what} after {:?}: {s}", t0.elapsed());
            tokio::time::sleep(Duration::from_millis(50)).await; // re-checks the condition; not a synchronisation
        }
    }

    /// Wait until `name` was read well by a read started after `after`.
    async fn read_well_after(&self, name: &str, after: DateTime<Utc>) -> serde_json::Value {
        self.until(
            name,
            &format!("read well after {after}"),
            |_| {},
            |s| s["state"] == "Ok" && attempt(s) > Some(after),
        )
        .await
    }

    /// Wait until a read of `name` started after `after` failed: its entry then.
    async fn failed_after(&self, name: &str, after: DateTime<Utc>) -> serde_json::Value {
        let s = self.until(name, &format!("read after {after}"), |_| {}, |s| attempt(s) > Some(after)).await;
        assert_eq!(s["state"], "Unreachable", "{name}: a read started after {after} is taken for a good one: {s}");
        s
    }

    /// `name`'s jobs over a day, as the JSON API answers them (its last good read).
    async fn jobs(&self, name: &str) -> (StatusCode, serde_json::Value, String) {
        let (status, body) = get(&self.state, &format!("/api/jobs?instance={name}&days=1")).await;
        assert!(!body.contains(MARIA_PW), "a secret leaked: {body}");
        let v = serde_json::from_str(&body).unwrap_or(serde_json::Value::Null);
        (status, v, body)
    }

    /// The healthy instances serve: each read well after `after`, its page answers with its
    /// jobs (`count`, one of them named `job`) and says nothing is stale.
    async fn healthy_serve(&self, healthy: &[(&str, usize, &str)], after: DateTime<Utc>) {
        for (name, count, job) in healthy {
            let s = self.read_well_after(name, after).await;
            assert!(s["error"].is_null(), "{s}");
            assert_eq!(s["jobs"], *count, "{name} read every job: {s}");
            let (status, v, body) = self.jobs(name).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            assert!(v["instance"]["stale"].is_null(), "{name} is fresh: {body}");
            assert_eq!(v["jobs"].as_array().map(Vec::len), Some(*count), "{body}");
            assert!(body.contains(job), "{name} serves {job}: {body}");
        }
        let (status, page) = get(&self.state, "/fleet").await;
        assert_eq!(status, StatusCode::OK);
        assert!(!page.contains(MARIA_PW), "a secret leaked");
        for (name, _, _) in healthy {
            assert!(page.contains(name), "the fleet page shows {name}");
        }
    }
}

/// An instant of `/api/instances` (RFC 3339 with the zone's offset, to the millisecond).
fn instant(v: &serde_json::Value) -> Option<DateTime<Utc>> {
    v.as_str().map(|s| DateTime::parse_from_rfc3339(s).unwrap_or_else(|e| panic!("{s}: {e}")).to_utc())
}

/// When the instance's latest read started.
fn attempt(s: &serde_json::Value) -> Option<DateTime<Utc>> {
    instant(&s["last_attempt"])
}

/// Now, to the millisecond (as the fleet's instants are written).
fn now_ms() -> DateTime<Utc> {
    DateTime::from_timestamp_millis(Utc::now().timestamp_millis()).expect("now")
}

/// The instance's error, which must be there.
fn error(s: &serde_json::Value) -> &str {
    s["error"].as_str().unwrap_or_else(|| panic!("an error: {s}"))
}

// ---------------------------------------------------------------------------------------------
// The servers' contents.

/// PostgreSQL: pg_cron with `jobs` jobs (`job-001`…, never due in a test), read by
/// `sundial_reader` with the least privilege that sees them all.
async fn pg_with_jobs(server: &TestServer, jobs: usize) {
    let mut pg = sqlx::PgConnection::connect(&server.pg_url("postgres")).await.unwrap();
    let schedule = format!(
        "SELECT count(cron.schedule(format('job-%s', lpad(i::text, 3, '0')), '0 3 1 1 *', \
         format('SELECT %L', repeat('x', 200)))) FROM generate_series(1, {jobs}) AS i"
    );
    for sql in [
        "CREATE EXTENSION IF NOT EXISTS pg_cron",
        "CREATE ROLE sundial_reader LOGIN BYPASSRLS",
        "GRANT USAGE ON SCHEMA cron TO sundial_reader",
        "GRANT SELECT ON cron.job, cron.job_run_details TO sundial_reader",
        &schedule,
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&mut pg).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

/// MariaDB: schema `shop` with `events` events (`shop.rollup_001_…`, never due in a test), read
/// by `sundial` (password [`MARIA_PW`]) with the EVENT privilege on `shop`.
async fn maria_with_events(server: &TestServer, events: usize) {
    let my = server.maria_root().await;
    let mut sql = vec![
        "CREATE DATABASE shop".to_owned(),
        format!("CREATE USER sundial@'127.0.0.1' IDENTIFIED BY '{MARIA_PW}'"),
        "GRANT EVENT ON shop.* TO sundial@'127.0.0.1'".to_owned(),
    ];
    for i in 1..=events {
        sql.push(format!(
            "CREATE EVENT shop.rollup_{i:03}_{} ON SCHEDULE EVERY 1 YEAR STARTS '2037-01-01 03:00:00' DO SELECT 1",
            "x".repeat(40)
        ));
    }
    for s in &sql {
        sqlx::query(sqlx::AssertSqlSafe(s.as_str())).execute(&my).await.unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    my.close().await;
}

/// A pg_cron instance on loopback `port` as `user`, database `database`.
fn pg_instance(name: &str, port: u16, user: &str, database: &str) -> String {
    format!(
        "[[instance]]\nname = \"{name}\"\nkind = \"pg_cron\"\nhost = \"127.0.0.1\"\nport = {port}\n\
         user = \"{user}\"\ndatabase = \"{database}\"\n\n"
    )
}

/// A MariaDB instance of `kind` on loopback `port` as `user` (password [`MARIA_PW`]).
fn maria_instance(name: &str, kind: &str, port: u16, user: &str, extra: &str) -> String {
    format!(
        "[[instance]]\nname = \"{name}\"\nkind = \"{kind}\"\nhost = \"127.0.0.1\"\nport = {port}\n\
         user = \"{user}\"\npassword_file = \"{{pw}}\"\n{extra}\n"
    )
}

// ---------------------------------------------------------------------------------------------
// A TCP proxy that cuts the server's answers.

/// What the proxy does with the server's answers.
#[derive(Clone, Copy, Debug)]
enum Plan {
    /// Everything goes through.
    Pass,
    /// Each connection gets `after` more bytes of the server's answers (counted from when the
    /// plan was set, or from the connection's start), then is dropped: `reset` (RST) or closed
    /// (FIN), both ways.
    Cut { after: usize, reset: bool },
    /// Once: the connection that sends a statement holding `needle` is reset before the first
    /// byte of the answer. A connection opened before is dropped at its next liveness check
    /// (the pool then connects again, unharmed), so that statements are prepared again, their
    /// text on the wire.
    CutAt { needle: &'static str },
}

/// A proxy on a loopback port in front of a server on loopback `upstream`.
#[derive(Clone)]
struct Proxy {
    port: u16,
    /// The plan and its generation (each [`Proxy::set`] a new one).
    plan: Arc<Mutex<(u64, Plan)>>,
    /// Connections cut so far.
    cuts: Arc<AtomicUsize>,
}

/// A pool's liveness check before it lends a connection: PostgreSQL's Sync, MySQL's COM_PING.
const PINGS: [&[u8]; 2] = [b"S\0\0\0\x04", b"\x01\0\0\0\x0e"];

impl Proxy {
    /// Start it on the calling test's runtime.
    async fn start(upstream: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind a loopback port");
        let proxy = Proxy {
            port: listener.local_addr().unwrap().port(),
            plan: Arc::new(Mutex::new((0, Plan::Pass))),
            cuts: Arc::default(),
        };
        let p = proxy.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(p.clone().serve(client, upstream));
            }
        });
        proxy
    }

    fn set(&self, plan: Plan) {
        let mut p = self.plan.lock().unwrap();
        *p = (p.0 + 1, plan);
    }

    fn plan(&self) -> (u64, Plan) {
        *self.plan.lock().unwrap()
    }

    fn cuts(&self) -> usize {
        self.cuts.load(Ordering::SeqCst)
    }

    /// One client connection, forwarded to the server until either side closes or the plan
    /// cuts it.
    async fn serve(self, mut client: TcpStream, upstream: u16) {
        let Ok(mut server) = TcpStream::connect(("127.0.0.1", upstream)).await else { return };
        let asked = std::sync::atomic::AtomicBool::new(false);
        let born = self.plan().0;
        let cut = {
            let (mut from_client, mut to_client) = client.split();
            let (mut from_server, mut to_server) = server.split();
            tokio::select! {
                _ = self.requests(&mut from_client, &mut to_server, &asked, born) => None,
                cut = self.answers(&mut from_server, &mut to_client, &asked) => cut,
            }
        };
        if let Some(Plan::Cut { reset: true, .. } | Plan::CutAt { .. }) = cut {
            // Dropped with a zero linger: the client's side is reset, not closed.
            client.set_zero_linger().unwrap();
        }
    }

    /// Forward the client's requests; `asked`: one held the plan's needle. Returns when the
    /// client closes, or (a connection opened under an older plan than `CutAt`) at its liveness
    /// check, to drop it.
    async fn requests(
        &self,
        from: &mut tokio::net::tcp::ReadHalf<'_>,
        to: &mut tokio::net::tcp::WriteHalf<'_>,
        asked: &std::sync::atomic::AtomicBool,
        born: u64,
    ) {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            let n = match from.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            if let (generation, Plan::CutAt { needle }) = self.plan() {
                if generation != born && PINGS.contains(&&buf[..n]) {
                    return;
                }
                if buf[..n].windows(needle.len()).any(|w| w == needle.as_bytes()) {
                    asked.store(true, Ordering::SeqCst);
                }
            }
            if to.write_all(&buf[..n]).await.is_err() {
                return;
            }
        }
    }

    /// Forward the server's answers as the plan says; `Some(plan)` when it cut them.
    async fn answers(
        &self,
        from: &mut tokio::net::tcp::ReadHalf<'_>,
        to: &mut tokio::net::tcp::WriteHalf<'_>,
        asked: &std::sync::atomic::AtomicBool,
    ) -> Option<Plan> {
        let (mut seen, mut used) = (self.plan().0, 0usize);
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            let n = match from.read(&mut buf).await {
                Ok(0) | Err(_) => return None,
                Ok(n) => n,
            };
            let (generation, plan) = self.plan();
            let allowed = match plan {
                Plan::Pass => n,
                Plan::Cut { after, .. } => {
                    if generation != seen {
                        (seen, used) = (generation, 0);
                    }
                    after.saturating_sub(used).min(n)
                }
                Plan::CutAt { .. } if asked.load(Ordering::SeqCst) => 0,
                Plan::CutAt { .. } => n,
            };
            if to.write_all(&buf[..allowed]).await.is_err() {
                return None;
            }
            used += allowed;
            if allowed < n {
                self.cuts.fetch_add(1, Ordering::SeqCst);
                if let Plan::CutAt { .. } = plan {
                    self.set(Plan::Pass);
                }
                return Some(plan);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The faults.

/// A server that accepts connections and never answers, for each kind of server: the read ends
/// by the instance's own timeout, which its error names, while the others are read and served.
#[tokio::test(flavor = "multi_thread")]
async fn a_hung_postgresql_mariadb_or_sql_server_is_unreachable_by_its_own_timeout_while_the_others_serve() {
    let pg = TestServer::postgres("sundial-hang-pg-", port::HANG_PG);
    let maria = TestServer::mariadb("sundial-hang-maria-", port::HANG_MARIA);
    pg_with_jobs(&pg, 3).await;
    maria_with_events(&maria, 3).await;
    let hung = silent_port().await;
    let fleet = Fleet::start(&format!(
        "{}{}{}{}{}\
         [[instance]]\nname = \"mssql-hung\"\nkind = \"mssql\"\nhost = \"127.0.0.1\"\nport = {hung}\n\
         user = \"sundial_reader\"\nencrypt = false\n",
        pg_instance("pg-ok", port::HANG_PG, "sundial_reader", "postgres"),
        maria_instance("maria-ok", "mysql_events", port::HANG_MARIA, "sundial", ""),
        pg_instance("pg-hung", hung, "sundial_reader", "postgres"),
        maria_instance("maria-hung", "mysql_events", hung, "sundial", ""),
        maria_instance("jobtable-hung", "mysql_job_table", hung, "sundial", "engine = \"mysql\"\ndatabase = \"shop\""),
    ))
    .await;
    let started = now_ms();
    let mut last = started;
    for name in ["pg-hung", "maria-hung", "jobtable-hung", "mssql-hung"] {
        let s = fleet.failed_after(name, started - chrono::Duration::seconds(1)).await;
        assert_eq!(error(&s), "no answer within 2s", "{name}: {s}");
        assert!(s["last_good"].is_null(), "{s}");
        last = last.max(attempt(&s).unwrap());
        // Never read: its page has nothing to show but why.
        let (status, _, body) = fleet.jobs(name).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert!(body.contains("no answer within 2s"), "{body}");
    }
    fleet.healthy_serve(&[("pg-ok", 3, "job-001"), ("maria-ok", 3, "shop.rollup_001")], last).await;
}

/// A connection reset or closed in the middle of the server's answer, through a proxy in front
/// of a real PostgreSQL and a real MariaDB: the read fails and says the connection was lost,
/// reading what; nothing of it is used (the instance never shows fewer jobs than the source
/// has); the others, on the same servers, are read and served meanwhile; and the next read
/// after the proxy heals is good again. A single reset in the middle of a read never leaves a
/// good read behind that misses what the lost answer held.
#[tokio::test(flavor = "multi_thread")]
async fn a_connection_reset_mid_read_fails_that_read_whole_and_the_next_read_after_it_heals_is_good() {
    const JOBS: usize = 200;
    let pg = TestServer::postgres("sundial-reset-pg-", port::RESET_PG);
    let maria = TestServer::mariadb("sundial-reset-maria-", port::RESET_MARIA);
    pg_with_jobs(&pg, JOBS).await;
    maria_with_events(&maria, JOBS).await;
    let pg_proxy = Proxy::start(port::RESET_PG).await;
    let maria_proxy = Proxy::start(port::RESET_MARIA).await;
    let fleet = Fleet::start(&format!(
        "{}{}{}{}",
        pg_instance("pg-ok", port::RESET_PG, "sundial_reader", "postgres"),
        maria_instance("maria-ok", "mysql_events", port::RESET_MARIA, "sundial", ""),
        pg_instance("pg-cut", pg_proxy.port, "sundial_reader", "postgres"),
        maria_instance("maria-cut", "mysql_events", maria_proxy.port, "sundial", ""),
    ))
    .await;
    // Whenever an instance has a read, it holds every job: no partial read is a good one.
    let whole = |s: &serde_json::Value| {
        assert!(s["jobs"].is_null() || s["jobs"] == JOBS, "a partial read is shown as a good one: {s}");
    };
    for name in ["pg-ok", "maria-ok", "pg-cut", "maria-cut"] {
        fleet.until(name, "read", whole, |s| s["state"] == "Ok").await;
    }

    // Every connection dropped after 8 KiB of answers: past the handshake and the small
    // queries, in the middle of cron.job's / information_schema.EVENTS' rows. PostgreSQL's is
    // reset, MariaDB's closed.
    pg_proxy.set(Plan::Cut { after: 8 * 1024, reset: true });
    maria_proxy.set(Plan::Cut { after: 8 * 1024, reset: false });
    let cut_at = now_ms();
    let pg_cut = fleet.until("pg-cut", "failed", whole, |s| attempt(s) > Some(cut_at)).await;
    let maria_cut = fleet.until("maria-cut", "failed", whole, |s| attempt(s) > Some(cut_at)).await;
    assert!(pg_proxy.cuts() > 0 && maria_proxy.cuts() > 0, "the proxies cut");
    for s in [&pg_cut, &maria_cut] {
        assert_eq!(s["state"], "Unreachable", "a read started after the cut is taken for a good one: {s}");
        assert!(instant(&s["last_good"]) < attempt(s), "the last good read ended before the failed one: {s}");
    }
    assert_eq!(
        error(&pg_cut),
        "the connection was lost while reading cron.job: the connection was reset; nothing of this read is used",
        "{pg_cut}"
    );
    assert_eq!(
        error(&maria_cut),
        "the connection was lost while reading information_schema.EVENTS: the server closed the connection in the \
         middle of its answer; nothing of this read is used",
        "{maria_cut}"
    );
    // Their pages keep the last good read, whole, under a banner that says it is not now's.
    for name in ["pg-cut", "maria-cut"] {
        let (status, v, body) = fleet.jobs(name).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(v["instance"]["stale"].as_str().is_some_and(|s| s.contains("cannot be read now")), "{body}");
        assert_eq!(v["jobs"].as_array().map(Vec::len), Some(JOBS), "the last good read, whole: {body}");
    }
    let failed = attempt(&pg_cut).unwrap().max(attempt(&maria_cut).unwrap());
    fleet.healthy_serve(&[("pg-ok", JOBS, "job-200"), ("maria-ok", JOBS, "shop.rollup_200")], failed).await;

    // Healed: the next read is good again, whole.
    pg_proxy.set(Plan::Pass);
    maria_proxy.set(Plan::Pass);
    let healed = now_ms();
    for name in ["pg-cut", "maria-cut"] {
        let s = fleet
            .until(name, "read well after healing", whole, |s| s["state"] == "Ok" && attempt(s) > Some(healed))
            .await;
        assert_eq!(s["jobs"], JOBS, "{s}");
        let (status, v, body) = fleet.jobs(name).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(v["instance"]["stale"].is_null(), "{body}");
    }

    // One reset, once, in the middle of a read, of a statement whose failure the read could
    // take for something else: cron.timezone (a setting this role may not read), MariaDB's
    // performance_schema (a schema off or not granted). The read must fail whole, not go on
    // over a new connection as if the setting or the failures did not exist.
    for (name, proxy, needle, object) in [
        ("pg-cut", &pg_proxy, "pg_settings", "the server's settings"),
        (
            "maria-cut",
            &maria_proxy,
            "events_statements_history_long",
            "performance_schema.events_statements_history_long",
        ),
    ] {
        let before = fleet.instance(name).await;
        let (reads, outages, cuts) =
            (before["reads"].as_u64().unwrap(), before["outages"].as_array().unwrap().len(), proxy.cuts());
        proxy.set(Plan::CutAt { needle });
        let s = fleet
            .until(name, "cut, then read well", whole, |s| {
                proxy.cuts() > cuts && s["reads"].as_u64().unwrap() >= reads + 2 && s["state"] == "Ok"
            })
            .await;
        let lost = s["outages"].as_array().unwrap().get(outages).cloned();
        let lost = lost.unwrap_or_else(|| panic!("{name}: the read that lost its connection is a good one: {s}"));
        assert_eq!(
            lost["error"].as_str().unwrap_or_default(),
            format!(
                "the connection was lost while reading {object}: the connection was reset; nothing of this read is used"
            ),
            "{s}"
        );
        assert!(!lost["end"].is_null(), "and the next read was good: {s}");
    }
}

/// Run `sql` as the superuser `postgres` in `database` of the server on `port`.
async fn pg_exec(port: u16, database: &str, sql: &[&str]) {
    let url = format!("postgres://postgres@127.0.0.1:{port}/{database}");
    let mut pg = sqlx::PgConnection::connect(&url).await.unwrap();
    for s in sql {
        sqlx::query(sqlx::AssertSqlSafe(*s)).execute(&mut pg).await.unwrap_or_else(|e| panic!("{s}: {e}"));
    }
}

/// Run `sql` as MariaDB's root.
async fn maria_exec(server: &TestServer, sql: &[&str]) {
    let my = server.maria_root().await;
    for s in sql {
        sqlx::query(sqlx::AssertSqlSafe(*s)).execute(&my).await.unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    my.close().await;
}

/// The MySQL stored-procedure scheduler's `job` table, with `types` for its columns from
/// job_schedule_start on (the design's: DATETIME, INT UNSIGNED …).
fn job_table_ddl(schema: &str, times: &str, numbers: &str) -> String {
    format!(
        "CREATE TABLE {schema}.job (job_id INT UNSIGNED NOT NULL AUTO_INCREMENT, job_owner VARCHAR(77) NOT NULL, \
         job_name VARCHAR(129) NOT NULL, job_description VARCHAR(1024), job_procedure_schema VARCHAR(64) NOT NULL, \
         job_procedure_name VARCHAR(64) NOT NULL, job_schedule_start {times}, job_schedule_finish {times}, \
         job_schedule_interval {numbers} NOT NULL, job_status VARCHAR(16) NOT NULL DEFAULT 'ENABLED', \
         job_runner_connection_id INT UNSIGNED, job_runner_start {times}, job_runner_finish {times}, \
         job_runner_cycles {numbers}, job_runner_last_cycle_start {times}, job_runner_last_cycle_finish {times}, \
         CONSTRAINT pk_job PRIMARY KEY (job_id))"
    )
}

/// A TDS test server whose msdb answers one job with one schedule, its `freq_type` (an `int`
/// in msdb) as text: its port.
async fn msdb_with_text_freq_type() -> u16 {
    let tds = tds_server().await;
    let table = |cols: &[(&str, T)], row: Vec<V>| {
        let cols = cols.iter().map(|(n, ty)| ColumnDefinition::new(*n, *ty)).collect();
        QueryResponse::new(cols, vec![Row::new(row)])
    };
    let s = |v: &str| V::NVarChar(v.to_owned());
    let job = "6F9619FF-8B86-D011-B42D-00C04FC964FF";
    let mut r = tds.registry.lock().await;
    r.register(
        msdb::Q_TIME_ZONE,
        table(&[("tz_id", T::NVarChar), ("offset_minutes", T::Int)], vec![s("UTC"), V::Int(0)]),
    );
    r.register(
        msdb::Q_JOBS,
        table(
            &[
                ("job_id", T::NVarChar),
                ("name", T::NVarChar),
                ("enabled", T::TinyInt),
                ("category", T::NVarChar),
                ("owner", T::NVarChar),
            ],
            vec![s(job), s("Backup FULL"), V::TinyInt(1), s("Database Maintenance"), s("sa")],
        ),
    );
    let int = |n| (n, T::Int);
    r.register(
        msdb::Q_SCHEDULES,
        table(
            &[
                ("job_id", T::NVarChar),
                int("schedule_id"),
                ("name", T::NVarChar),
                int("enabled"),
                ("freq_type", T::NVarChar),
                int("freq_interval"),
                int("freq_subday_type"),
                int("freq_subday_interval"),
                int("freq_relative_interval"),
                int("freq_recurrence_factor"),
                int("active_start_date"),
                int("active_end_date"),
                int("active_start_time"),
                int("active_end_time"),
            ],
            vec![
                s(job),
                V::Int(1),
                s("nightly"),
                V::Int(1),
                s("daily"),
                V::Int(1),
                V::Int(1),
                V::Int(0),
                V::Int(0),
                V::Int(0),
                V::Int(20250101),
                V::Int(99991231),
                V::Int(20000),
                V::Int(235959),
            ],
        ),
    );
    tds.port
}

/// Tables that look like the scheduler's but hold other types: a `cron.job` whose `jobid` is
/// text, a `cron.job_run_details` whose times are text (each in a database of its own,
/// without pg_cron), and a MariaDB `job` table whose times and numbers are text. pg_cron's
/// tables are read only as pg_cron types them: the instance's error names the table, the
/// column and both types, and nothing panics. The `job` table is read as text by design: each
/// value that is not what its column should hold is a diagnostic naming the column and the
/// value; so is a column of msdb that a TDS server answers as text (SQL Server's reads are
/// lenient cells by design). The healthy instances on the same servers are read and served.
#[tokio::test(flavor = "multi_thread")]
async fn tables_of_the_wrong_types_are_named_column_by_column_while_the_others_serve() {
    let pg = TestServer::postgres("sundial-types-pg-", port::TYPES_PG);
    let maria = TestServer::mariadb("sundial-types-maria-", port::TYPES_MARIA);
    pg_with_jobs(&pg, 2).await;
    maria_with_events(&maria, 2).await;
    pg_exec(port::TYPES_PG, "postgres", &["CREATE DATABASE lookalike_ids", "CREATE DATABASE lookalike_times"]).await;
    let runs = "CREATE TABLE cron.job_run_details (jobid bigint, runid bigint, job_pid integer, database text, \
                username text, command text, status text, return_message text, start_time {t}, end_time {t})";
    pg_exec(
        port::TYPES_PG,
        "lookalike_ids",
        &[
            "CREATE SCHEMA cron",
            "CREATE TABLE cron.job (jobid text, schedule text, command text, nodename text, nodeport integer, \
             database text, username text, active boolean, jobname text)",
            "INSERT INTO cron.job VALUES ('nightly', '0 3 * * *', 'VACUUM', 'localhost', 5432, 'postgres', 'postgres', \
             true, 'vacuum')",
            &runs.replace("{t}", "timestamptz"),
        ],
    )
    .await;
    pg_exec(
        port::TYPES_PG,
        "lookalike_times",
        &[
            "CREATE SCHEMA cron",
            "CREATE TABLE cron.job (jobid bigint, schedule text, command text, nodename text, nodeport integer, \
             database text, username text, active boolean, jobname name)",
            "INSERT INTO cron.job VALUES (1, '0 3 * * *', 'VACUUM', 'localhost', 5432, 'postgres', 'postgres', true, \
             'vacuum')",
            &runs.replace("{t}", "text"),
            "INSERT INTO cron.job_run_details VALUES (1, 1, 99, 'postgres', 'postgres', 'VACUUM', 'succeeded', '', \
             'yesterday', 'today')",
        ],
    )
    .await;
    maria_exec(
        &maria,
        &[
            "CREATE DATABASE seed",
            &job_table_ddl("seed", "VARCHAR(32)", "VARCHAR(32)"),
            "INSERT INTO seed.job (job_owner, job_name, job_procedure_schema, job_procedure_name, job_schedule_start, \
             job_schedule_interval, job_status, job_runner_start, job_runner_cycles) \
             VALUES ('etl', 'refresh', 'etl', 'refresh_all', 'soon', 'often', 'RUNNING', 'yesterday', 'many')",
            "GRANT SELECT ON seed.job TO sundial@'127.0.0.1'",
        ],
    )
    .await;
    let tds = msdb_with_text_freq_type().await;
    let fleet = Fleet::start(&format!(
        "{}{}{}{}{}\
         [[instance]]\nname = \"mssql-text-freq\"\nkind = \"mssql\"\nhost = \"127.0.0.1\"\nport = {tds}\n\
         user = \"sundial_reader\"\nencrypt = false\n",
        pg_instance("pg-ok", port::TYPES_PG, "sundial_reader", "postgres"),
        maria_instance("maria-ok", "mysql_events", port::TYPES_MARIA, "sundial", ""),
        pg_instance("pg-text-ids", port::TYPES_PG, "postgres", "lookalike_ids"),
        pg_instance("pg-text-times", port::TYPES_PG, "postgres", "lookalike_times"),
        maria_instance(
            "maria-text-job",
            "mysql_job_table",
            port::TYPES_MARIA,
            "sundial",
            "engine = \"mysql\"\ndatabase = \"seed\""
        ),
    ))
    .await;
    let started = now_ms() - chrono::Duration::seconds(1);
    let ids = fleet.failed_after("pg-text-ids", started).await;
    assert_eq!(
        error(&ids),
        "cron.job.jobid is of type text where the scheduler's own table has bigint: an altered or look-alike table, \
         which Sundial does not read",
        "{ids}"
    );
    let times = fleet.failed_after("pg-text-times", started).await;
    assert_eq!(
        error(&times),
        "cron.job_run_details.start_time is of type text where the scheduler's own table has timestamp with time \
         zone: an altered or look-alike table, which Sundial does not read",
        "{times}"
    );
    // The text table is read, its bad values named on its job.
    let text_job = fleet.read_well_after("maria-text-job", started).await;
    assert_eq!(text_job["jobs"], 1, "{text_job}");
    let (status, _, body) = fleet.jobs("maria-text-job").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    for (column, value) in
        [("job_schedule_interval", "often"), ("job_schedule_start", "soon"), ("job_runner_start", "yesterday")]
    {
        assert!(body.contains(column) && body.contains(value), "{column} = {value} is named: {body}");
    }
    let text_freq = fleet.read_well_after("mssql-text-freq", started).await;
    assert_eq!(text_freq["jobs"], 1, "{text_freq}");
    let (status, _, body) = fleet.jobs("mssql-text-freq").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("freq_type") && body.contains(r#"\"daily\""#), "freq_type = \"daily\" is named: {body}");
    let failed = attempt(&ids).unwrap().max(attempt(&times).unwrap());
    fleet.healthy_serve(&[("pg-ok", 2, "job-002"), ("maria-ok", 2, "shop.rollup_002")], failed).await;
}

/// Logins without the grants: a PostgreSQL role without SELECT on cron.job, one without
/// SELECT on cron.job_run_details, a MariaDB user without SELECT on the `job` table, and one
/// without the EVENT privilege (information_schema then shows no event rather than refusing).
/// Each is reported with what it may not read and the grant that would let it; the healthy
/// instances on the same servers are read and served.
#[tokio::test(flavor = "multi_thread")]
async fn a_login_without_its_grants_is_told_which_grant_is_missing_on_what_while_the_others_serve() {
    let pg = TestServer::postgres("sundial-denied-pg-", port::DENIED_PG);
    let maria = TestServer::mariadb("sundial-denied-maria-", port::DENIED_MARIA);
    pg_with_jobs(&pg, 2).await;
    maria_with_events(&maria, 2).await;
    pg_exec(
        port::DENIED_PG,
        "postgres",
        &[
            "REVOKE ALL ON cron.job, cron.job_run_details FROM PUBLIC",
            "CREATE ROLE no_jobs LOGIN BYPASSRLS",
            "GRANT USAGE ON SCHEMA cron TO no_jobs",
            "GRANT SELECT ON cron.job_run_details TO no_jobs",
            "CREATE ROLE no_runs LOGIN BYPASSRLS",
            "GRANT USAGE ON SCHEMA cron TO no_runs",
            "GRANT SELECT ON cron.job TO no_runs",
        ],
    )
    .await;
    let user = |u: &str| format!("CREATE USER {u}@'127.0.0.1' IDENTIFIED BY '{MARIA_PW}'");
    maria_exec(
        &maria,
        &[
            "CREATE DATABASE seed",
            &job_table_ddl("seed", "DATETIME", "INT UNSIGNED"),
            "CREATE TABLE seed.other (x INT)",
            &user("no_job"),
            "GRANT SELECT ON seed.other TO no_job@'127.0.0.1'",
            &user("no_event"),
        ],
    )
    .await;
    let fleet = Fleet::start(&format!(
        "{}{}{}{}{}{}",
        pg_instance("pg-ok", port::DENIED_PG, "sundial_reader", "postgres"),
        maria_instance("maria-ok", "mysql_events", port::DENIED_MARIA, "sundial", ""),
        pg_instance("pg-no-jobs", port::DENIED_PG, "no_jobs", "postgres"),
        pg_instance("pg-no-runs", port::DENIED_PG, "no_runs", "postgres"),
        maria_instance(
            "maria-no-job",
            "mysql_job_table",
            port::DENIED_MARIA,
            "no_job",
            "engine = \"mysql\"\ndatabase = \"seed\""
        ),
        maria_instance("maria-no-event", "mysql_events", port::DENIED_MARIA, "no_event", ""),
    ))
    .await;
    let started = now_ms() - chrono::Duration::seconds(1);
    let mut failed = started;
    for (name, want) in [
        (
            "pg-no-jobs",
            "permission denied reading cron.job: the login needs USAGE on schema cron and SELECT on cron.job",
        ),
        (
            "pg-no-runs",
            "permission denied reading cron.job_run_details: the login needs SELECT on cron.job_run_details",
        ),
        ("maria-no-job", "permission denied reading job: the login needs SELECT on it"),
    ] {
        let s = fleet.failed_after(name, started).await;
        assert_eq!(error(&s), want, "{s}");
        failed = failed.max(attempt(&s).unwrap());
        let (status, _, body) = fleet.jobs(name).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert!(body.contains(want), "{body}");
    }
    // information_schema.EVENTS refuses nobody: it shows no event, and the instance says why.
    let none = fleet.read_well_after("maria-no-event", started).await;
    assert_eq!(none["jobs"], 0, "{none}");
    let (status, _, body) = fleet.jobs("maria-no-event").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, page) = get(&fleet.state, "/fleet").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        page.contains("no events are visible") && page.contains("GRANT EVENT ON shop.*"),
        "the fleet page says why"
    );
    fleet.healthy_serve(&[("pg-ok", 2, "job-002"), ("maria-ok", 2, "shop.rollup_002")], failed).await;
}
