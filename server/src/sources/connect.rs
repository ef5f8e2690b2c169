//! Read-only connections made from an instance's configuration, and [`Kept`], the holder a
//! source keeps them in between polls.
//!
//! Every connection here is read-only at the session level (PostgreSQL
//! `default_transaction_read_only`, MySQL `SET SESSION TRANSACTION READ ONLY`, SQLite
//! `mode=ro`, SQL Server `ApplicationIntent=ReadOnly`). The secret is resolved here, handed to
//! the driver and dropped; no error built here holds it.
use std::path::Path;
use std::time::Duration;

use sqlx::Executor;
use sqlx::mysql::{MySqlConnectOptions, MySqlPool, MySqlPoolOptions};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool, SqlitePoolOptions};
use tokio::sync::Mutex;

use super::msdb;
use super::tables::TablesDb;
use super::{BoxFuture, ReadContext, Source, SourceError, SourceRead, secret};
use crate::config::{InstanceConfig, SecretSource, TablesEngine};

/// A connection (pool) opened on first use and kept between polls; [`Kept::forget`] drops it
/// (after a read that hung, so it is not reused).
pub struct Kept<T>(Mutex<Option<T>>);

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept(Mutex::new(None))
    }
}

impl<T: Clone> Kept<T> {
    /// The kept connection, or a new one from `open`. Pools are shared handles: clones are cheap.
    pub async fn get<F: Future<Output = Result<T, SourceError>>>(
        &self,
        open: impl FnOnce() -> F,
    ) -> Result<T, SourceError> {
        let mut kept = self.0.lock().await;
        if let Some(t) = kept.as_ref() {
            return Ok(t.clone());
        }
        let t = open().await?;
        *kept = Some(t.clone());
        Ok(t)
    }

    pub async fn forget(&self) {
        *self.0.lock().await = None;
    }
}

/// A PostgreSQL pool whose every session is read-only.
pub async fn postgres(c: &InstanceConfig) -> Result<PgPool, SourceError> {
    let options = match &c.secret {
        SecretSource::UrlEnv(_) => secret(c)?
            .unwrap_or_default()
            .parse::<PgConnectOptions>()
            .map_err(|_| SourceError::Config("the connection setting is not a PostgreSQL URL".into()))?,
        _ => {
            let mut o = PgConnectOptions::new()
                .host(c.host.as_deref().unwrap_or("localhost"))
                .port(c.port.unwrap_or(5432))
                .database(c.database.as_deref().unwrap_or("postgres"));
            if let Some(u) = &c.user {
                o = o.username(u);
            }
            if let Some(p) = secret(c)? {
                o = o.password(&p);
            }
            o
        }
    };
    postgres_with(options, c.timeout).await
}

/// A read-only PostgreSQL pool from a URL (tests, tools).
pub async fn postgres_url(url: &str, timeout: Duration) -> Result<PgPool, SourceError> {
    let options: PgConnectOptions =
        url.parse().map_err(|_| SourceError::Config("the connection setting is not a PostgreSQL URL".into()))?;
    postgres_with(options, timeout).await
}

async fn postgres_with(options: PgConnectOptions, timeout: Duration) -> Result<PgPool, SourceError> {
    let options = options.options([("default_transaction_read_only", "on")]);
    PgPoolOptions::new()
        .max_connections(2)
        .acquire_timeout(timeout)
        .connect_with(options)
        .await
        .map_err(|e| SourceError::connecting("PostgreSQL", e, timeout))
}

/// A MySQL/MariaDB pool whose every session is `READ ONLY` and in UTC.
pub async fn mysql(c: &InstanceConfig) -> Result<MySqlPool, SourceError> {
    let options = match &c.secret {
        SecretSource::UrlEnv(_) => secret(c)?
            .unwrap_or_default()
            .parse::<MySqlConnectOptions>()
            .map_err(|_| SourceError::Config("the connection setting is not a MySQL URL".into()))?,
        _ => {
            let mut o =
                MySqlConnectOptions::new().host(c.host.as_deref().unwrap_or("localhost")).port(c.port.unwrap_or(3306));
            if let Some(d) = &c.database {
                o = o.database(d);
            }
            if let Some(u) = &c.user {
                o = o.username(u);
            }
            if let Some(p) = secret(c)? {
                o = o.password(&p);
            }
            o
        }
    };
    mysql_with(options, c.timeout).await
}

/// A read-only MySQL/MariaDB pool from a URL (tests, tools).
pub async fn mysql_url(url: &str, timeout: Duration) -> Result<MySqlPool, SourceError> {
    let options: MySqlConnectOptions =
        url.parse().map_err(|_| SourceError::Config("the connection setting is not a MySQL URL".into()))?;
    mysql_with(options, timeout).await
}

async fn mysql_with(options: MySqlConnectOptions, timeout: Duration) -> Result<MySqlPool, SourceError> {
    let options = options.timezone(Some("+00:00".to_owned()));
    MySqlPoolOptions::new()
        .max_connections(2)
        .acquire_timeout(timeout)
        .after_connect(|conn, _| {
            Box::pin(async move {
                conn.execute("SET SESSION TRANSACTION READ ONLY").await?;
                Ok(())
            })
        })
        .connect_with(options)
        .await
        .map_err(|e| SourceError::connecting("MySQL/MariaDB", e, timeout))
}

/// A SQLite file opened read-only (`mode=ro`): it must exist. The error names no path (pages
/// show it): "the file `path` in the fleet file", and the log has the path.
pub async fn sqlite(path: &Path) -> Result<SqlitePool, SourceError> {
    // A fleet of files is a connection each: each holds a small page cache
    // (256 KiB, SQLite's default is 2 MiB) and few prepared statements (a delta's text names its
    // open keys: a new statement most polls), so 1,000 instances do not hold gigabytes of them.
    let options = SqliteConnectOptions::new()
        .filename(path)
        .read_only(true)
        .create_if_missing(false)
        .pragma("cache_size", "-256")
        .statement_cache_capacity(16);
    // And no connection is kept idle between polls: sqlx runs each SQLite connection on a
    // thread of its own, whose allocations (a first read's rows) stay with it while it lives.
    SqlitePoolOptions::new()
        .max_connections(1)
        .min_connections(0)
        .idle_timeout(std::time::Duration::from_secs(2))
        .connect_with(options)
        .await
        .map_err(|e| {
            tracing::warn!(path = %path.display(), error = %e, "cannot open a SQLite source");
            SourceError::Unreachable {
                server: "SQLite",
                detail: format!("cannot open the file its `path` names in the fleet file: {}", kind(&e)),
            }
        })
}

/// What went wrong opening a file, without the driver's full text.
fn kind(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Database(db) => db.message().to_owned(),
        sqlx::Error::Io(io) => io.kind().to_string(),
        _ => "not a readable SQLite database".to_owned(),
    }
}

/// The configured instance's SQLite file.
pub async fn sqlite_of(c: &InstanceConfig) -> Result<SqlitePool, SourceError> {
    let path = c.path.as_deref().ok_or_else(|| SourceError::Config("no path to its SQLite file".into()))?;
    sqlite(path).await
}

/// The connections a home-grown scheduler's tables need, by the database they live in: pools
/// kept between polls, a TDS client made per poll.
#[derive(Default)]
pub struct TablesConn {
    pg: Kept<PgPool>,
    my: Kept<MySqlPool>,
    lite: Kept<SqlitePool>,
}

impl TablesConn {
    /// The database the instance's tables are in.
    pub async fn open(&self, c: &InstanceConfig) -> Result<TablesDb, SourceError> {
        Ok(match c.engine {
            TablesEngine::Sqlite => TablesDb::Sqlite(self.lite.get(|| sqlite_of(c)).await?),
            TablesEngine::Postgres => TablesDb::Postgres(self.pg.get(|| postgres(c)).await?),
            TablesEngine::MySql => TablesDb::MySql(self.my.get(|| mysql(c)).await?),
            TablesEngine::SqlServer => TablesDb::SqlServer(msdb::open(c).await?),
        })
    }

    pub async fn forget(&self) {
        self.pg.forget().await;
        self.my.forget().await;
        self.lite.forget().await;
    }
}

/// How one read of a home-grown scheduler's tables goes, given the database they are in.
pub type TablesRead = for<'a> fn(&'a mut TablesDb, ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>>;

/// A home-grown scheduler's tables as a [`Source`]: the connections kept between polls, and
/// the kind's own read (`jobactivity::read`, `primentra::read`, …).
pub struct TablesSource {
    conn: TablesConn,
    read: TablesRead,
    /// What this source's reads fetched, per table, all told (for tests and figures).
    rows: std::sync::Mutex<std::collections::BTreeMap<String, super::tables::Fetched>>,
}

impl TablesSource {
    pub fn new(read: TablesRead) -> TablesSource {
        TablesSource { conn: TablesConn::default(), read, rows: Default::default() }
    }

    /// How many rows of `table` this source's reads have fetched.
    pub fn rows_read(&self, table: &str) -> u64 {
        self.fetched(table).rows
    }

    /// What this source's reads of `table` fetched: rows, queries, the largest answer.
    pub fn fetched(&self, table: &str) -> super::tables::Fetched {
        self.rows.lock().map_or_else(|_| Default::default(), |r| r.get(table).copied().unwrap_or_default())
    }
}

impl Source for TablesSource {
    fn read<'a>(&'a self, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
        Box::pin(async move {
            let mut db = self.conn.open(cx.config).await?;
            let (read, fetched) = super::tables::counted_each((self.read)(&mut db, cx)).await;
            if let Ok(mut rows) = self.rows.lock() {
                for (table, n) in fetched {
                    rows.entry(table).or_default().add(n);
                }
            }
            read
        })
    }

    fn reset(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.conn.forget())
    }
}
