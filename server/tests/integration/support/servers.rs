//! Servers for the source tests, on loopback only: PostgreSQL 15 + pg_cron and MariaDB 10.11
//! started by `.ci/pg-test-server` / `.ci/mariadb-test-server` in a temporary directory (and
//! stopped when dropped, even when an assertion fails), the TDS test server that answers like
//! SQL Server, and a server that accepts connections and never answers.
use mssql_mock_tds::{MockTdsServer, QueryRegistry};
use server::sources::msdb;
use sqlx::mysql::{MySqlConnectOptions, MySqlPool, MySqlPoolOptions};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

/// The database servers' ports, one per test that starts a server: the tests of the binary run
/// at the same time, so no two may share one. Below 32768, outside Linux's ephemeral range
/// (32768–60999), so that no connection the tests make borrows one as its local port (a
/// server once failed to bind 55506 that way).
pub mod port {
    pub const PG_CRON_REAL: u16 = 25433;
    pub const PG_CRON_SOURCE: u16 = 25441;
    pub const MARIA_EVENTS: u16 = 25451;
    pub const MARIA_SEED002: u16 = 25452;
    pub const FAULT_PG: u16 = 25461;
    pub const FAULT_MARIA: u16 = 25462;
    pub const SEEDS_PG: u16 = 25471;
    pub const SEEDS_PG_FOLDED: u16 = 25472;
    pub const TABLES_MARIA: u16 = 25473;
    pub const PRIMENTRA_PG: u16 = 25481;
    pub const PRIMENTRA_MARIA: u16 = 25482;
    pub const BROKER_PG: u16 = 25485;
    pub const BROKER_MARIA: u16 = 25486;
    pub const JOBACTIVITY_PG: u16 = 25489;
    pub const JOBACTIVITY_MARIA: u16 = 25490;
    pub const JOB_TABLE_PG: u16 = 25493;
    pub const JOB_TABLE_MARIA: u16 = 25494;
    pub const REPLICAS_PG: u16 = 25497;
    pub const STORE_RESTART_PG: u16 = 25498;
    pub const STORE_PG: u16 = 25499;
    pub const SESSIONS_PG: u16 = 25500;
    pub const HANG_PG: u16 = 25501;
    pub const HANG_MARIA: u16 = 25502;
    pub const RESET_PG: u16 = 25503;
    pub const RESET_MARIA: u16 = 25504;
    pub const TYPES_PG: u16 = 25505;
    pub const TYPES_MARIA: u16 = 25506;
    pub const DENIED_PG: u16 = 25507;
    pub const DENIED_MARIA: u16 = 25508;
    pub const PG_CRON_INCREMENTAL: u16 = 25509;
    pub const PG_CRON_REBASE: u16 = 25510;
    pub const JOBACTIVITY_INC_MARIA: u16 = 25531;
    pub const PRIMENTRA_INC_MARIA: u16 = 25532;
    pub const BROKER_INC_MARIA: u16 = 25533;
    pub const PAGING_MARIA: u16 = 25534;
    pub const SHARES_PG: u16 = 25535;
    pub const PGAGENT_SCHEDULE_PG: u16 = 25540;
    pub const PGAGENT_SOURCE_PG: u16 = 25545;
    pub const PGAGENT_DAEMON_PG: u16 = 25546;
    pub const CHANGES_PG: u16 = 25550;
    pub const CHANGES_MARIA: u16 = 25551;
    pub const CHANGES_PGAGENT: u16 = 25552;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// PostgreSQL 15 with pg_cron; `postgres` is a superuser on loopback (trust).
    Postgres,
    /// MariaDB 10.11, event scheduler on; `root` over the unix socket `DIR/mysqld.sock`.
    MariaDb,
}

impl Kind {
    fn script(self) -> PathBuf {
        let name = match self {
            Kind::Postgres => "pg-test-server",
            Kind::MariaDb => "mariadb-test-server",
        };
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../.ci").join(name)
    }
}

/// A throwaway database server in a temporary directory; stopped when dropped.
pub struct TestServer {
    kind: Kind,
    port: u16,
    dir: tempfile::TempDir,
}

impl TestServer {
    /// Start a server of `kind` on `port` (one of [`port`]), its data in a new temporary
    /// directory named `prefix…`. Returns once it accepts connections (the script's readiness
    /// wait); fails the test, with the script's words, when it cannot start.
    pub fn start(kind: Kind, prefix: &str, port: u16) -> TestServer {
        let dir = tempfile::Builder::new().prefix(prefix).tempdir().expect("a temporary directory");
        let server = TestServer { kind, port, dir };
        server.restart();
        server
    }

    pub fn postgres(prefix: &str, port: u16) -> TestServer {
        TestServer::start(Kind::Postgres, prefix, port)
    }

    pub fn mariadb(prefix: &str, port: u16) -> TestServer {
        TestServer::start(Kind::MariaDb, prefix, port)
    }

    /// Start it (again) on its data directory.
    pub fn restart(&self) {
        let script = self.kind.script();
        let out = Command::new(&script)
            .arg("start")
            .arg(self.dir.path())
            .arg(self.port.to_string())
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", script.display()));
        assert!(
            out.status.success(),
            "{:?} did not start on port {} (run .ci/install-deps): {}",
            self.kind,
            self.port,
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Stop it (the script waits until it is down); it can be started again.
    pub fn stop(&self) {
        let status = self.stop_quietly();
        assert!(
            status.as_ref().is_ok_and(|s| s.success()),
            "{:?} on port {} did not stop: {status:?}",
            self.kind,
            self.port
        );
    }

    fn stop_quietly(&self) -> std::io::Result<std::process::ExitStatus> {
        Command::new(self.kind.script()).arg("stop").arg(self.dir.path()).status()
    }

    /// PostgreSQL: a URL of the `postgres` database as `user` (trust on loopback).
    pub fn pg_url(&self, user: &str) -> String {
        assert_eq!(self.kind, Kind::Postgres);
        format!("postgres://{user}@127.0.0.1:{}/postgres", self.port)
    }

    /// MariaDB: `root` over the unix socket, one connection.
    pub async fn maria_root(&self) -> MySqlPool {
        assert_eq!(self.kind, Kind::MariaDb);
        let options = MySqlConnectOptions::new().socket(self.dir.path().join("mysqld.sock")).username("root");
        MySqlPoolOptions::new().max_connections(1).connect_with(options).await.expect("root over the socket")
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let _ = self.stop_quietly();
    }
}

/// A TDS test server (mssql-mock-tds) on a free loopback port, serving on the calling test's
/// runtime: it answers each registered T-SQL text with its result set, any other with an empty
/// result.
pub struct Tds {
    pub port: u16,
    pub registry: Arc<tokio::sync::Mutex<QueryRegistry>>,
}

pub async fn tds_server() -> Tds {
    let server = MockTdsServer::new("127.0.0.1:0").await.expect("a TDS test server");
    let port = server.local_addr().port();
    let registry = server.query_registry();
    tokio::spawn(async move { server.run().await });
    Tds { port, registry }
}

/// How Sundial reaches a TDS server on loopback `port` (no encryption: the test server has none).
pub fn tds_target(port: u16, user: &str, password: &str) -> msdb::Target {
    msdb::Target {
        host: "127.0.0.1".into(),
        port,
        user: user.into(),
        password: password.into(),
        encryption: tiberius::EncryptionLevel::NotSupported,
        trust_cert: true,
    }
}

/// A loopback port that accepts connections and never says a word (a hung server), for as long
/// as the calling test's runtime lives.
pub async fn silent_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind a loopback port");
    let port = listener.local_addr().expect("its address").port();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket); // kept open, unanswered
        }
    });
    port
}

/// How long a call given a timeout of a second or two may take before the test calls it hung: a
/// guard against hanging forever, not a measure (the call must end by its own timeout, first).
pub const GUARD: Duration = Duration::from_secs(60);

/// `call`'s result, which must come before [`GUARD`]: a call bounded by its own timeout ends by
/// it, whatever the machine's load, long before.
pub async fn ends_by_its_own_timeout<T>(what: &str, call: impl Future<Output = T>) -> T {
    tokio::time::timeout(GUARD, call)
        .await
        .unwrap_or_else(|_| panic!("{what}: still waiting after {GUARD:?}: its own timeout never fired"))
}
