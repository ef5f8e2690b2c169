//! Statements replicas run on a shared (PostgreSQL) store (`crate::replicas`): the advisory
//! locks of their leases, on a lease connection of their own, and `shared_read` (each
//! instance's reading as its collector published it).
use super::{Error, query};
use sqlx::Row;
use sqlx::postgres::{PgConnection, PgPool};

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

/// Give up the lock `key` held on `conn`.
pub async fn unlock(conn: &mut PgConnection, key: (i32, i32)) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar::<_, bool>("SELECT pg_advisory_unlock($1, $2)").bind(key.0).bind(key.1).fetch_one(conn).await
}

/// Take the lock `key` shared on `conn` (waiting for it).
pub async fn lock_shared(conn: &mut PgConnection, key: (i32, i32)) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_advisory_lock_shared($1, $2)").bind(key.0).bind(key.1).execute(conn).await.map(|_| ())
}

/// How many hold the lock `key` (granted), on any connection.
pub async fn holders(conn: &mut PgConnection, key: (i32, i32)) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar::<_, i64>(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 \
         AND classid = $1::bigint::oid AND objid = $2::bigint::oid",
    )
    .bind(i64::from(key.0))
    .bind(i64::from(key.1))
    .fetch_one(conn)
    .await
}

/// Try the lock `key` on `conn` (without waiting): whether it was taken.
pub async fn try_lock(conn: &mut PgConnection, key: (i32, i32)) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar::<_, bool>("SELECT pg_try_advisory_lock($1, $2)").bind(key.0).bind(key.1).fetch_one(conn).await
}

/// Publish `instance`'s reading by `replica` at `now_us`: its state, and its good read
/// `(at_us, JSON)` when new (`None`: the published one stays). Returns the publication's place
/// in the store's order.
pub async fn publish(
    pool: &PgPool,
    instance: &str,
    replica: &str,
    now_us: i64,
    state: &str,
    good: Option<(i64, &str)>,
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
    .bind(replica)
    .bind(now_us)
    .bind(state)
    .bind(good.map(|g| g.0))
    .bind(good.map(|g| g.1))
    .fetch_one(pool)
    .await
    .map_err(query)
}

/// What was published of `instance` after `since_us`; its good read only when it is not the
/// one of `have_good_us`.
pub async fn published(
    pool: &PgPool,
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
    .fetch_optional(pool)
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
