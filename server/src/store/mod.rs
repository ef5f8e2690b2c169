//! Sundial's own store: the one database Sundial writes, never a source. It keeps what the
//! sources forget (MySQL's samples, `crate::history`'s runs), triage's episodes and
//! acknowledgements, maintenance windows, the alerts sent, and, on PostgreSQL, what replicas
//! share (`crate::replicas`, `crate::auth::sessions`).
//!
//! Two engines behind one [`Store`]: a SQLite file of its own (the default: the embedded demo
//! and a single Sundial need nothing else), or PostgreSQL (`store = "postgres://…"` or
//! `store_url_env`), which any number of replicas share. Every statement is written once, in
//! the SQL both speak (`$n` parameters, `ON CONFLICT`, `CASE` for the larger of two values,
//! 64-bit integers), and run on either pool by [`on_db!`], which type-checks it for both.
//!
//! Every statement on the store lives in this folder, as typed functions taking and giving
//! plain data (the domain modules keep the logic and call them):
//!
//! | table | kept for | statements |
//! |---|---|---|
//! | `event_watch`, `event_sample`, `job_sample` | MySQL's events and `job` rows as polled (`crate::sources::snapshots`) | [`samples`] |
//! | `kept_run`, `kept_span`, `kept_event`, `kept_schedule`, `read_mark` | the history kept (`crate::history`) | [`history`] |
//! | `triage_open`, `triage_ack` | open episodes and acknowledgements (`crate::triage`) | [`triage`] |
//! | `maintenance_added`, `maintenance_ended` | windows added and ended from the page (`crate::maintenance`) | [`maintenance`] |
//! | `alert_sent`, `alert_outbox` | alerts sent and waiting (`crate::alerts::store`) | [`alerts`] |
//! | `alert_change_from`, `alert_change_told` | changes of jobs' definitions told to each target (`crate::alerts::changes`) | [`alerts`] |
//! | `shared_read` (PostgreSQL only), and advisory locks | replicas' readings and leases (`crate::replicas`) | [`replicas`] |
//! | `session` (PostgreSQL only) | sign-in sessions replicas share (`crate::auth::sessions`) | [`sessions`] |
//!
//! (The demo, `crate::demo::write`, seeds a fresh demo store's samples directly, in
//! [`samples`]' layout.)
//!
//! Schemas: a SQLite file's is the ordered list in [`sqlite`], applied at every open (its
//! `user_version` says which steps it has had); PostgreSQL's is sqlx's migrations under
//! `server/migrations/postgres` ([`postgres`]), run at start (replicas starting together wait
//! on sqlx's lock).
//!
//! Invariants: no source is ever written here; a PostgreSQL URL's password appears in no
//! message (see [`StoreAt`]'s `Display`); no statement on the store outside this folder
//! (`tests::no_statement_on_the_store_outside_store`).
pub mod alerts;
pub mod history;
pub mod maintenance;
pub mod postgres;
pub mod replicas;
pub mod samples;
pub mod sessions;
pub mod sqlite;
pub mod triage;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Run one body on the store's pool, whichever engine it is: `on_db!(store, |pool| body)`.
/// The body is compiled once per engine, so its SQL must be the dialect both speak.
#[macro_export]
macro_rules! on_db {
    ($store:expr, |$pool:ident| $body:expr) => {
        match $store.db() {
            $crate::store::Db::Sqlite($pool) => $body,
            $crate::store::Db::Postgres($pool) => $body,
        }
    };
}

/// What can go wrong with the store. Messages name the store (a file's path, a PostgreSQL
/// URL without its password).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The store could not be opened, created or migrated.
    #[error("cannot open Sundial's store {path}: {message}")]
    Open { path: String, message: String },
    /// A read or write failed.
    #[error("Sundial's store: {0}")]
    Query(String),
}

/// A failed statement, as an [`Error`].
pub fn query(e: sqlx::Error) -> Error {
    Error::Query(e.to_string())
}

/// Where the store is (`store` / `store_url_env` in the fleet file).
#[derive(Clone, PartialEq, Eq)]
pub enum StoreAt {
    /// A SQLite file (created when missing).
    File(PathBuf),
    /// A PostgreSQL database, by URL (a secret: it may hold a password).
    Postgres(String),
}

impl StoreAt {
    /// Whether replicas can share it (PostgreSQL).
    pub fn shared(&self) -> bool {
        matches!(self, StoreAt::Postgres(_))
    }
}

impl std::fmt::Display for StoreAt {
    /// The file's path, or the URL without its password and parameters.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreAt::File(p) => write!(f, "{}", p.display()),
            StoreAt::Postgres(url) => match url::Url::parse(url) {
                Ok(u) => {
                    let user = if u.username().is_empty() { String::new() } else { format!("{}@", u.username()) };
                    let host = u.host_str().unwrap_or("");
                    let port = u.port().map(|p| format!(":{p}")).unwrap_or_default();
                    write!(f, "{}://{user}{host}{port}{}", u.scheme(), u.path())
                }
                Err(_) => f.write_str("postgres://(an unreadable URL)"),
            },
        }
    }
}

impl std::fmt::Debug for StoreAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StoreAt({self})")
    }
}

/// The two engines' pools.
#[derive(Clone)]
pub enum Db {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Sundial's store (see the module docs).
#[derive(Clone)]
pub struct Store {
    db: Db,
    at: StoreAt,
}

impl Store {
    /// The pool, for [`on_db!`].
    pub fn db(&self) -> &Db {
        &self.db
    }

    /// Where it is (for messages: never the password).
    pub fn at(&self) -> &StoreAt {
        &self.at
    }

    /// The SQLite pool, when the store is a file (the demo writes its samples there directly).
    pub fn sqlite(&self) -> Option<&SqlitePool> {
        match &self.db {
            Db::Sqlite(p) => Some(p),
            Db::Postgres(_) => None,
        }
    }

    /// The PostgreSQL pool and its connection options, when the store is PostgreSQL.
    pub fn postgres(&self) -> Option<&PgPool> {
        match &self.db {
            Db::Postgres(p) => Some(p),
            Db::Sqlite(_) => None,
        }
    }

    /// Open the store wherever it is, creating or migrating its tables.
    pub async fn open_at(at: &StoreAt) -> Result<Store, Error> {
        match at {
            StoreAt::File(path) => Store::open(path).await,
            StoreAt::Postgres(url) => Store::connect(at, url).await,
        }
    }

    /// Open the SQLite store at `path`, creating the file and its tables when missing.
    pub async fn open(path: &Path) -> Result<Store, Error> {
        let open_err = |e: sqlx::Error| Error::Open { path: path.display().to_string(), message: e.to_string() };
        // One writer at a time is SQLite's rule: a read's history written while another's is
        // waits its turn (a first read of a large fleet writes many) rather than failing.
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .busy_timeout(std::time::Duration::from_secs(120));
        let pool = SqlitePoolOptions::new().max_connections(2).connect_with(options).await.map_err(open_err)?;
        sqlite::migrate_file(&pool).await.map_err(open_err)?;
        Ok(Store { db: Db::Sqlite(pool), at: StoreAt::File(path.to_owned()) })
    }

    async fn connect(at: &StoreAt, url: &str) -> Result<Store, Error> {
        let open_err = |message: String| Error::Open { path: at.to_string(), message };
        let options = PgConnectOptions::from_str(url)
            .map_err(|_| open_err("the URL cannot be read as a PostgreSQL URL".to_owned()))?
            .application_name("sundial");
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(std::time::Duration::from_secs(10))
            .connect_with(options)
            .await
            .map_err(|e| open_err(e.to_string()))?;
        postgres::MIGRATOR
            .run(&pool)
            .await
            .map_err(|e| open_err(format!("its schema could not be brought up to date: {e}")))?;
        Ok(Store { db: Db::Postgres(pool), at: at.clone() })
    }

    /// Connection options for a connection of its own (the replicas' leases), PostgreSQL only.
    pub fn postgres_options(&self) -> Option<PgConnectOptions> {
        match (&self.at, &self.db) {
            (StoreAt::Postgres(url), Db::Postgres(_)) => {
                PgConnectOptions::from_str(url).ok().map(|o| o.application_name("sundial lease"))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_postgres_url_is_shown_without_its_password_or_parameters() {
        let at = StoreAt::Postgres("postgres://sundial:s3cret-pw@db.corp:5433/sundial?sslmode=require".into());
        let shown = at.to_string();
        assert_eq!(shown, "postgres://sundial@db.corp:5433/sundial");
        assert!(!format!("{at:?}").contains("s3cret"));
        let odd = StoreAt::Postgres("postgres://u:p@[bad".into());
        assert!(!odd.to_string().contains(":p@"), "{odd}");
    }

    /// Every `.rs` file under `dir`, recursively.
    fn sources_under(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                sources_under(&path, out);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }

    /// No statement on Sundial's store outside `server/src/store/`: the only other SQL in
    /// `server/src` reads the sources (`sources/`) or writes the demo's files (`demo/`).
    #[test]
    fn no_statement_on_the_store_outside_store() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources_under(&src, &mut files);
        assert!(files.len() > 20, "the sources were found under {}", src.display());
        let allowed = ["store", "sources", "demo"].map(|d| src.join(d));
        let mut outside = Vec::new();
        for file in files.iter().filter(|f| !allowed.iter().any(|a| f.starts_with(a))) {
            let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            for needle in ["sqlx::query", "QueryBuilder"] {
                if text.contains(needle) {
                    outside.push(format!("{} ({needle})", file.strip_prefix(&src).unwrap_or(file).display()));
                }
            }
        }
        assert!(outside.is_empty(), "statements on Sundial's store belong in server/src/store/: {outside:?}");
    }
}
