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
    /// The connection broke while a statement on `object` was answered (reset, closed by the
    /// server or the network, an answer cut short): nothing of that read is used.
    #[error("the connection was lost while reading {object}: {detail}; nothing of this read is used")]
    Lost { object: String, detail: String },
    /// A column Sundial reads has another type than the scheduler's own table gives it: a
    /// look-alike or altered table, not one Sundial can read.
    #[error(
        "{object}.{column} is of type {found} where the scheduler's own table has {expected}: an altered or look-alike table, which Sundial does not read"
    )]
    WrongType { object: String, column: String, found: String, expected: String },
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

    /// A driver error met while reading `object` that is not the server's answer (a database
    /// error is the caller's to classify): the connection lost (reset, closed, an answer cut
    /// short), or another failure of the driver, in words that hold no secret.
    pub fn driver(object: impl Into<String>, e: &sqlx::Error) -> SourceError {
        let object = object.into();
        let detail = match e {
            sqlx::Error::Io(io) => io_detail(io.kind()),
            sqlx::Error::Protocol(_) => "the answer was cut short or garbled",
            sqlx::Error::PoolTimedOut => "no new connection was accepted in time (is the server down?)",
            sqlx::Error::PoolClosed | sqlx::Error::WorkerCrashed => "the connection pool was closed",
            sqlx::Error::ColumnDecode { index, .. } => {
                return SourceError::query(object, format!("column {index} could not be decoded"));
            }
            sqlx::Error::ColumnNotFound(c) => {
                return SourceError::query(object, format!("the answer has no column {c}"));
            }
            _ => return SourceError::query(object, "the database driver failed"),
        };
        SourceError::Lost { object, detail: detail.to_owned() }
    }

    /// A TDS driver error met while reading `object` that is not the server's answer (a
    /// server error is the caller's to classify), in words that hold no secret.
    pub fn tds(object: impl Into<String>, e: &tiberius::error::Error) -> SourceError {
        let object = object.into();
        let detail = match e {
            tiberius::error::Error::Io { kind, .. } => io_detail(*kind),
            tiberius::error::Error::Protocol(_) => "the answer was cut short or garbled",
            _ => return SourceError::query(object, "the TDS driver failed"),
        };
        SourceError::Lost { object, detail: detail.to_owned() }
    }

    /// Any other failure on `object`.
    pub fn query(object: impl Into<String>, message: impl Into<String>) -> SourceError {
        SourceError::Query { object: object.into(), message: message.into() }
    }
}

/// What an I/O error on a live connection means, in a user's words.
pub fn io_detail(kind: std::io::ErrorKind) -> &'static str {
    use std::io::ErrorKind::*;
    match kind {
        ConnectionReset => "the connection was reset",
        ConnectionAborted => "the connection was aborted",
        BrokenPipe => "the connection was closed while Sundial was sending",
        UnexpectedEof => "the server closed the connection in the middle of its answer",
        TimedOut => "the network timed out",
        _ => "the connection failed",
    }
}
