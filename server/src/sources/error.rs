//! [`SourceError`]: what can go wrong reading any source, in one vocabulary.
//!
//! Every kind maps its driver's errors here, so the fleet, the CLI and the pages say the same
//! thing for the same trouble whatever the database. Messages name the object and what would
//! fix it; they never hold a secret: a driver message that could echo a connection string is
//! replaced by a fixed sentence.
use std::time::Duration;

use super::snapshots;

/// What can go wrong reading a source.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The server cannot be reached: no route, connection refused, TLS failed, the pool gave up.
    #[error("cannot connect to {server}: {detail}")]
    Unreachable { server: &'static str, detail: String },
    /// The server answered and refused the login (user, password, or database).
    #[error("{server} refused the login: {detail}")]
    Authentication { server: &'static str, detail: String },
    /// The login may not read an object; `grant` is what would let it.
    #[error("permission denied reading {object}: the login needs {grant}")]
    Permission { object: String, grant: String },
    /// A table or column Sundial reads is not there; `hint` says where it should be.
    #[error("{object} does not exist in this database{hint}")]
    Missing { object: String, hint: String },
    /// No answer within the instance's `timeout`.
    #[error("no answer within {}", humantime::format_duration(*.0))]
    Timeout(Duration),
    /// A value the whole read depends on is unusable (a row-level problem is a diagnostic on
    /// its job instead, never an error).
    #[error("{table}.{column} = {value} (row {key}): {message}")]
    BadRow { table: String, column: String, key: String, value: String, message: String },
    /// Any other failure of a statement.
    #[error("reading {object} failed: {message}")]
    Query { object: String, message: String },
    /// The configuration cannot make a connection (not a URL of this engine, a file missing).
    #[error("{0}")]
    Config(String),
    /// Sundial's own store failed.
    #[error(transparent)]
    Store(#[from] snapshots::Error),
}

impl SourceError {
    /// A sqlx error met while connecting to `server` (e.g. "PostgreSQL"), classified.
    pub fn connecting(server: &'static str, e: sqlx::Error, timeout: Duration) -> SourceError {
        match e {
            // SQLSTATE class 28: invalid authorization (PostgreSQL 28P01, MySQL 1045 → 28000).
            sqlx::Error::Database(db) if db.code().is_some_and(|c| c.starts_with("28")) => {
                SourceError::Authentication { server, detail: db.message().to_owned() }
            }
            // 3D000: the database does not exist (PostgreSQL), 42000/1049 (MySQL).
            sqlx::Error::Database(db) => SourceError::Authentication { server, detail: db.message().to_owned() },
            sqlx::Error::PoolTimedOut => SourceError::Timeout(timeout),
            _ => SourceError::Unreachable { server, detail: "the server is unreachable".to_owned() },
        }
    }

    /// A permission error on `object`.
    pub fn permission(object: impl Into<String>, grant: impl Into<String>) -> SourceError {
        SourceError::Permission { object: object.into(), grant: grant.into() }
    }

    /// Any other failure on `object`.
    pub fn query(object: impl Into<String>, message: impl Into<String>) -> SourceError {
        SourceError::Query { object: object.into(), message: message.into() }
    }
}
