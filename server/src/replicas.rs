//! Replicas: any number of Sundials serving one fleet from one PostgreSQL store.
//!
//! Each instance has one *collector*, the replica holding its lease (a PostgreSQL session
//! advisory lock, `pg_try_advisory_lock(COLLECT, hash of the name)`, on a connection each
//! replica keeps for its leases). Only the collector reads the source; after each read it
//! publishes the instance's reading (its state and, when new, its good read as JSON) in
//! `shared_read`. The other replicas *follow*: every [`FOLLOW_EVERY`] (or the poll interval,
//! if shorter) they try the lease, and while it is held elsewhere they take in what the
//! collector published, so every replica serves the same reading without touching the source.
//!
//! A collector that dies takes its leases with it (PostgreSQL ends its session, and its locks
//! with it), so another replica takes each over at its next try: within one poll interval. It
//! goes on from the published state (reads counted, outages, the last good read), and the
//! history it keeps joins what the collector kept (`crate::history`: runs keyed by start, never
//! counted twice). Alerts are sent by the one replica holding the fleet's alert lease
//! ([`Replicas::leads_alerts`]).
//!
//! Invariants: a replica reads an instance's source only while it holds that instance's lease
//! and its lease connection answers; one that cannot reach the store collects nothing.
use chrono::{DateTime, Utc};
use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{Connection, Row};
use std::collections::HashSet;
use std::time::Duration;
use tokio::sync::Mutex;

use crate::store::{Error, Store, query};

/// A follower looks for a new reading, and tries the lease, this often (at most).
pub const FOLLOW_EVERY: Duration = Duration::from_secs(5);

/// The first key of the instances' leases ("SUND").
const COLLECT: i32 = 0x5355_4e44;
/// The first key of the fleet's leases ("SUNE"); the second says which.
const FLEET: i32 = 0x5355_4e45;
/// The fleet lease of the replica that sends alerts.
const ALERTS: i32 = 1;

/// One replica's leases over a shared store (see the module docs).
pub struct Replicas {
    /// This replica, in `shared_read.replica` and the logs: host and process.
    name: String,
    pool: sqlx::PgPool,
    options: PgConnectOptions,
    lease: Mutex<Lease>,
}

#[derive(Default)]
struct Lease {
    /// The connection holding this replica's locks: they last as long as it does.
    conn: Option<PgConnection>,
    /// The leases held on it: (first key, second key).
    held: HashSet<(i32, i32)>,
}

/// What a collector published of one instance, newer than a follower had.
pub struct Published {
    /// The replica that collected it.
    pub replica: String,
    /// When it was published (orders publications).
    pub updated_us: i64,
    /// The reading's state as JSON (`crate::fleet::SharedState`).
    pub state: String,
    /// The good read's time, and the read as JSON when it is not the one the follower has.
    pub good_at_us: Option<i64>,
    pub good: Option<String>,
}

/// The second key of `instance`'s lease: the first four bytes of its name's SHA-256 (two
/// names sharing one only share a collector).
fn key_of(instance: &str) -> i32 {
    use sha2::Digest;
    let d = sha2::Sha256::digest(instance.as_bytes());
    i32::from_be_bytes([d[0], d[1], d[2], d[3]])
}

impl Replicas {
    /// Leases over `store` when it is shared (PostgreSQL); `None` for a file: one Sundial
    /// collects everything.
    pub fn over(store: &Store) -> Option<Replicas> {
        let options = store.postgres_options()?;
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        let name = format!("{}:{}", host.trim(), std::process::id());
        Some(Replicas { name, pool: store.postgres()?.clone(), options, lease: Mutex::new(Lease::default()) })
    }

    /// This replica's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether this replica collects `instance` now: it holds the lease, taking it when free.
    pub async fn collects(&self, instance: &str) -> bool {
        self.hold((COLLECT, key_of(instance))).await
    }

    /// Whether this replica sends the fleet's alerts now (one replica does).
    pub async fn leads_alerts(&self) -> bool {
        self.hold((FLEET, ALERTS)).await
    }

    async fn hold(&self, key: (i32, i32)) -> bool {
        let mut lease = self.lease.lock().await;
        // A connection that no longer answers has lost every lock it held.
        if let Some(conn) = lease.conn.as_mut()
            && let Err(e) = conn.ping().await
        {
            tracing::warn!(replica = %self.name, error = %e, "replicas: the lease connection broke; its leases are gone");
            lease.conn = None;
            lease.held.clear();
        }
        if lease.conn.is_none() {
            match PgConnection::connect_with(&self.options).await {
                Ok(conn) => lease.conn = Some(conn),
                Err(e) => {
                    tracing::warn!(replica = %self.name, error = %e, "replicas: Sundial's store cannot be reached; collecting nothing until it can");
                    return false;
                }
            }
        }
        if lease.held.contains(&key) {
            return true;
        }
        let Some(conn) = lease.conn.as_mut() else { return false };
        let took = sqlx::query_scalar::<_, bool>("SELECT pg_try_advisory_lock($1, $2)")
            .bind(key.0)
            .bind(key.1)
            .fetch_one(conn)
            .await;
        match took {
            Ok(true) => {
                lease.held.insert(key);
                true
            }
            Ok(false) => false,
            Err(e) => {
                tracing::warn!(replica = %self.name, error = %e, "replicas: a lease could not be tried");
                lease.conn = None;
                lease.held.clear();
                false
            }
        }
    }

    /// Publish `instance`'s reading: its state, and its good read when it is new (`None`: the
    /// published one stays). Returns the publication's place in the store's order (later than
    /// every earlier one, whatever the replicas' clocks say).
    pub async fn publish(
        &self,
        instance: &str,
        state: &str,
        good: Option<(DateTime<Utc>, &str)>,
        now: DateTime<Utc>,
    ) -> Result<i64, Error> {
        sqlx::query_scalar(
            "INSERT INTO shared_read (instance, replica, updated_us, state, good_at_us, good) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (instance) DO UPDATE SET replica = excluded.replica, \
             updated_us = CASE WHEN excluded.updated_us > shared_read.updated_us THEN excluded.updated_us \
             ELSE shared_read.updated_us + 1 END, state = excluded.state, \
             good_at_us = coalesce(excluded.good_at_us, shared_read.good_at_us), \
             good = coalesce(excluded.good, shared_read.good) RETURNING updated_us",
        )
        .bind(instance)
        .bind(&self.name)
        .bind(now.timestamp_micros())
        .bind(state)
        .bind(good.map(|g| g.0.timestamp_micros()))
        .bind(good.map(|g| g.1))
        .fetch_one(&self.pool)
        .await
        .map_err(query)
    }

    /// What was published of `instance` after `since_us`; its good read only when it is not
    /// the one of `have_good_us`.
    pub async fn published(
        &self,
        instance: &str,
        since_us: i64,
        have_good_us: Option<i64>,
    ) -> Result<Option<Published>, Error> {
        let row = sqlx::query(
            "SELECT replica, updated_us, state, good_at_us, \
             CASE WHEN good_at_us IS NOT DISTINCT FROM $3 THEN NULL ELSE good END AS good \
             FROM shared_read WHERE instance = $1 AND updated_us > $2",
        )
        .bind(instance)
        .bind(since_us)
        .bind(have_good_us)
        .fetch_optional(&self.pool)
        .await
        .map_err(query)?
        .map(|r| -> Result<Published, sqlx::Error> {
            Ok(Published {
                replica: r.try_get("replica")?,
                updated_us: r.try_get("updated_us")?,
                state: r.try_get("state")?,
                good_at_us: r.try_get("good_at_us")?,
                good: r.try_get("good")?,
            })
        });
        row.transpose().map_err(query)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_get_distinct_lease_keys() {
        let names = ["SQLPROD01", "SQLPROD02", "pg-analytics", "shop-mariadb", "SQL001", "SQL002"];
        let keys: HashSet<i32> = names.iter().map(|n| key_of(n)).collect();
        assert_eq!(keys.len(), names.len());
        assert_eq!(key_of("SQLPROD01"), key_of("SQLPROD01"), "stable across calls (and replicas)");
    }
}
