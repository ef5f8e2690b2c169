//! Sundial's own store: the one database Sundial writes (a SQLite file of its own, never a
//! source). It keeps what a source forgets: the `LAST_EXECUTED` of every MySQL/MariaDB event,
//! sampled at each poll, so that runs accumulate over time although MySQL keeps no run history.
use chrono::{DateTime, Utc};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};
use std::path::Path;

/// What can go wrong with the store. Messages name the file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be opened or created.
    #[error("cannot open Sundial's store {path}: {message}")]
    Open { path: String, message: String },
    /// A read or write failed.
    #[error("Sundial's store: {0}")]
    Query(String),
}

fn query(e: sqlx::Error) -> Error {
    Error::Query(e.to_string())
}

/// One event's samples: when Sundial first watched it, and every distinct `LAST_EXECUTED`
/// seen, with the last poll that saw each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventSamples {
    /// The first poll that saw this event.
    pub first_seen: Option<DateTime<Utc>>,
    /// `(last_executed, last poll that still saw it)`, oldest first.
    pub samples: Vec<(DateTime<Utc>, DateTime<Utc>)>,
}

impl EventSamples {
    /// How far back the samples prove anything: the earlier of the first sample and the first
    /// poll (a first poll that saw an older execution proves nothing ran since it).
    pub fn horizon(&self) -> Option<DateTime<Utc>> {
        match (self.samples.first(), self.first_seen) {
            (Some((first, _)), Some(watch)) => Some((*first).min(watch)),
            (None, watch) => watch,
            (Some((first, _)), None) => Some(*first),
        }
    }

    /// The stretches from a poll that still saw sample k to sample k+1: only the last
    /// execution between two polls shows, so a missing run there proves nothing.
    pub fn unobserved(&self) -> Vec<app::engine::Window> {
        self.samples.windows(2).filter(|w| w[0].1 < w[1].0).map(|w| app::engine::Window::new(w[0].1, w[1].0)).collect()
    }
}

/// Sundial's store (see the module docs).
#[derive(Clone)]
pub struct Store {
    pool: SqlitePool,
}

impl Store {
    /// Open the store at `path`, creating the file and its tables when missing.
    pub async fn open(path: &Path) -> Result<Store, Error> {
        let options =
            SqliteConnectOptions::new().filename(path).create_if_missing(true).journal_mode(SqliteJournalMode::Wal);
        let pool = SqlitePoolOptions::new()
            .max_connections(2)
            .connect_with(options)
            .await
            .map_err(|e| Error::Open { path: path.display().to_string(), message: e.to_string() })?;
        for sql in [
            // One row per event Sundial has seen: when it first saw it.
            "CREATE TABLE IF NOT EXISTS event_watch (instance TEXT NOT NULL, event TEXT NOT NULL, \
             first_seen INTEGER NOT NULL, PRIMARY KEY (instance, event))",
            // One row per distinct LAST_EXECUTED (unix seconds, UTC) and the last poll that saw it.
            "CREATE TABLE IF NOT EXISTS event_sample (instance TEXT NOT NULL, event TEXT NOT NULL, \
             last_executed INTEGER NOT NULL, seen_until INTEGER NOT NULL, \
             PRIMARY KEY (instance, event, last_executed))",
        ] {
            sqlx::query(sql)
                .execute(&pool)
                .await
                .map_err(|e| Error::Open { path: path.display().to_string(), message: e.to_string() })?;
        }
        Ok(Store { pool })
    }

    /// Record one poll of one event: it exists at `polled_at`, and its `LAST_EXECUTED` (UTC)
    /// is `last_executed` (`None`: never executed yet).
    pub async fn record(
        &self,
        instance: &str,
        event: &str,
        last_executed: Option<DateTime<Utc>>,
        polled_at: DateTime<Utc>,
    ) -> Result<(), Error> {
        let mut tx = self.pool.begin().await.map_err(query)?;
        sqlx::query("INSERT OR IGNORE INTO event_watch (instance, event, first_seen) VALUES (?, ?, ?)")
            .bind(instance)
            .bind(event)
            .bind(polled_at.timestamp())
            .execute(&mut *tx)
            .await
            .map_err(query)?;
        if let Some(at) = last_executed {
            sqlx::query(
                "INSERT INTO event_sample (instance, event, last_executed, seen_until) VALUES (?, ?, ?, ?) \
                 ON CONFLICT (instance, event, last_executed) DO UPDATE SET seen_until = max(seen_until, excluded.seen_until)",
            )
            .bind(instance)
            .bind(event)
            .bind(at.timestamp())
            .bind(polled_at.timestamp())
            .execute(&mut *tx)
            .await
            .map_err(query)?;
        }
        tx.commit().await.map_err(query)
    }

    /// The samples of one event from the last one before `since` onwards (that one bounds the
    /// first span), oldest first.
    pub async fn samples(&self, instance: &str, event: &str, since: DateTime<Utc>) -> Result<EventSamples, Error> {
        let first_seen: Option<i64> =
            sqlx::query_scalar("SELECT first_seen FROM event_watch WHERE instance = ? AND event = ?")
                .bind(instance)
                .bind(event)
                .fetch_optional(&self.pool)
                .await
                .map_err(query)?;
        let rows: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT last_executed, seen_until FROM event_sample WHERE instance = ?1 AND event = ?2 AND last_executed >= \
             coalesce((SELECT max(last_executed) FROM event_sample WHERE instance = ?1 AND event = ?2 AND last_executed < ?3), ?3) \
             ORDER BY last_executed",
        )
        .bind(instance)
        .bind(event)
        .bind(since.timestamp())
        .fetch_all(&self.pool)
        .await
        .map_err(query)?;
        let ts = |s: i64| DateTime::from_timestamp(s, 0).unwrap_or_default();
        Ok(EventSamples {
            first_seen: first_seen.map(ts),
            samples: rows.into_iter().map(|(a, b)| (ts(a), ts(b))).collect(),
        })
    }
}
