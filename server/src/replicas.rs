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
//! Leases are shared out: each replica holds a shared *presence* lock on its lease connection,
//! so every replica can count the live ones (`pg_locks`), and collects at most its share of the
//! fleet (the instances divided by the live replicas, rounded up). One holding more gives the
//! excess up as their pollers come round (spread over an interval), and the others take them;
//! one that starts alone, or outlives the others, takes everything. An instance whose lease is
//! free but that nobody has read for two intervals is taken whatever the share
//! ([`Replicas::collects`]'s `overdue`): a live replica that does not collect its share leaves
//! nothing unread.
//!
//! Invariants: a replica reads an instance's source only while it holds that instance's lease
//! and its lease connection answers; one that cannot reach the store collects nothing.
use chrono::{DateTime, Utc};
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use std::collections::HashSet;
use std::time::Duration;
use tokio::sync::Mutex;

use crate::store::replicas as stored;
pub use crate::store::replicas::Published;
use crate::store::{Error, Store};

/// A follower looks for a new reading, and tries the lease, this often (at most).
pub const FOLLOW_EVERY: Duration = Duration::from_secs(5);

/// The first key of the instances' leases ("SUND").
const COLLECT: i32 = 0x5355_4e44;
/// The first key of the fleet's leases ("SUNE"); the second says which.
const FLEET: i32 = 0x5355_4e45;
/// The fleet lease of the replica that sends alerts.
const ALERTS: i32 = 1;
/// The fleet lock every live replica holds shared (counted for the shares).
const PRESENCE: i32 = 2;
/// The live replicas are counted again after this long.
const COUNT_EVERY: Duration = Duration::from_secs(5);

/// One replica's leases over a shared store (see the module docs).
pub struct Replicas {
    /// This replica, in `shared_read.replica` and the logs: host and process.
    name: String,
    pool: sqlx::PgPool,
    options: PgConnectOptions,
    lease: Mutex<Lease>,
    /// How many instances the fleet has (for the shares).
    fleet: std::sync::atomic::AtomicUsize,
}

#[derive(Default)]
struct Lease {
    /// The connection holding this replica's locks: they last as long as it does.
    conn: Option<PgConnection>,
    /// The leases held on it: (first key, second key).
    held: HashSet<(i32, i32)>,
    /// The live replicas, and when they were counted.
    alive: Option<(usize, std::time::Instant)>,
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
        Some(Replicas {
            name,
            pool: store.postgres()?.clone(),
            options,
            lease: Mutex::new(Lease::default()),
            fleet: std::sync::atomic::AtomicUsize::new(usize::MAX),
        })
    }

    /// This replica's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many instances the fleet has: each replica collects at most its share of them.
    pub fn set_fleet_size(&self, instances: usize) {
        self.fleet.store(instances, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether this replica collects `instance` now: it holds the lease, taking it when free and
    /// this replica holds fewer than its share (or when `overdue`: nobody has read it for too
    /// long), giving it up when it holds more than its share (see the module docs).
    pub async fn collects(&self, instance: &str, overdue: bool) -> bool {
        let key = (COLLECT, key_of(instance));
        let mut lease = self.lease.lock().await;
        if !self.connected(&mut lease).await {
            return false;
        }
        let share = self.share(&mut lease).await;
        let held = lease.held.iter().filter(|k| k.0 == COLLECT).count();
        if lease.held.contains(&key) {
            if held <= share {
                return true;
            }
            // More than the share: this one goes to another replica.
            let Some(conn) = lease.conn.as_mut() else { return false };
            match stored::unlock(conn, key).await {
                Ok(_) => {
                    lease.held.remove(&key);
                    tracing::info!(replica = %self.name, instance, held, share, "replicas: a lease given up for another replica to collect");
                    return false;
                }
                Err(e) => {
                    tracing::warn!(replica = %self.name, error = %e, "replicas: a lease could not be given up");
                    return true;
                }
            }
        }
        if held >= share && !overdue {
            return false;
        }
        self.try_lock(&mut lease, key).await
    }

    /// Whether this replica sends the fleet's alerts now (one replica does).
    pub async fn leads_alerts(&self) -> bool {
        self.hold((FLEET, ALERTS)).await
    }

    async fn hold(&self, key: (i32, i32)) -> bool {
        let mut lease = self.lease.lock().await;
        if !self.connected(&mut lease).await {
            return false;
        }
        if lease.held.contains(&key) {
            return true;
        }
        self.try_lock(&mut lease, key).await
    }

    /// Whether the lease connection answers, connecting (and counting this replica present)
    /// when there is none.
    async fn connected(&self, lease: &mut Lease) -> bool {
        // A connection that no longer answers has lost every lock it held.
        if let Some(conn) = lease.conn.as_mut()
            && let Err(e) = conn.ping().await
        {
            tracing::warn!(replica = %self.name, error = %e, "replicas: the lease connection broke; its leases are gone");
            lease.conn = None;
            lease.held.clear();
        }
        if lease.conn.is_none() {
            let mut conn = match PgConnection::connect_with(&self.options).await {
                Ok(conn) => conn,
                Err(e) => {
                    tracing::warn!(replica = %self.name, error = %e, "replicas: Sundial's store cannot be reached; collecting nothing until it can");
                    return false;
                }
            };
            if let Err(e) = stored::lock_shared(&mut conn, (FLEET, PRESENCE)).await {
                tracing::warn!(replica = %self.name, error = %e, "replicas: this replica could not say it is present; it takes no share");
            }
            lease.conn = Some(conn);
            lease.alive = None;
        }
        true
    }

    /// This replica's share of the fleet: its instances divided by the live replicas, rounded up
    /// (all of it when they cannot be counted).
    async fn share(&self, lease: &mut Lease) -> usize {
        let fleet = self.fleet.load(std::sync::atomic::Ordering::Relaxed);
        if let Some((alive, at)) = lease.alive
            && at.elapsed() < COUNT_EVERY
        {
            return fleet.div_ceil(alive.max(1));
        }
        let Some(conn) = lease.conn.as_mut() else { return fleet };
        let counted = stored::holders(conn, (FLEET, PRESENCE)).await;
        let alive = match counted {
            Ok(n) => usize::try_from(n).unwrap_or(1).max(1),
            Err(e) => {
                tracing::warn!(replica = %self.name, error = %e, "replicas: the live replicas could not be counted; taking any share");
                1
            }
        };
        if lease.alive.is_some_and(|(before, _)| before != alive) {
            tracing::info!(replica = %self.name, alive, "replicas: the live replicas changed; the shares follow");
        }
        lease.alive = Some((alive, std::time::Instant::now()));
        fleet.div_ceil(alive)
    }

    /// Try the lock `key` on the lease connection.
    async fn try_lock(&self, lease: &mut Lease, key: (i32, i32)) -> bool {
        let Some(conn) = lease.conn.as_mut() else { return false };
        let took = stored::try_lock(conn, key).await;
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
        let good = good.map(|g| (g.0.timestamp_micros(), g.1));
        stored::publish(&self.pool, instance, &self.name, now.timestamp_micros(), state, good).await
    }

    /// What was published of `instance` after `since_us`; its good read only when it is not
    /// the one of `have_good_us`.
    pub async fn published(
        &self,
        instance: &str,
        since_us: i64,
        have_good_us: Option<i64>,
    ) -> Result<Option<Published>, Error> {
        stored::published(&self.pool, instance, since_us, have_good_us).await
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
