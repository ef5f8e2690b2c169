//! Statements on the alerts' tables (`crate::alerts::store`): `alert_sent` (per target, the
//! episodes alerted) and `alert_outbox` (the messages decided but not yet delivered). Times in
//! milliseconds. And what the changes of jobs' definitions told (`crate::alerts::changes`):
//! `alert_change_from` (where each target started being told) and `alert_change_told` (each
//! change told to each target, keyed: told once across restarts and replicas), in microseconds
//! as `job_change`.
use super::Store;
use crate::on_db;
use sqlx::Row;

/// An `alert_sent` row of one target.
#[derive(Clone, Debug, sqlx_macros::FromRow)]
pub struct SentRow {
    pub key: String,
    pub episode: i64,
    pub alerted_at: i64,
    pub reminded_at: i64,
    pub max_count: i64,
    /// The problem as last seen, and its thread (JSON).
    pub last: String,
}

/// An `alert_outbox` row.
#[derive(Clone, Debug, sqlx_macros::FromRow)]
pub struct OutboxRow {
    pub id: i64,
    pub target: String,
    pub subject: String,
    pub body: String,
}

#[derive(sqlx_macros::FromRow)]
struct TargetSentRow {
    target: String,
    #[sqlx(flatten)]
    sent: SentRow,
}

/// Every target's sent rows (target, row), and the outbox by id.
pub async fn load(store: &Store) -> Result<(Vec<(String, SentRow)>, Vec<OutboxRow>), sqlx::Error> {
    let (sent, outbox): (Vec<TargetSentRow>, Vec<OutboxRow>) = on_db!(store, |pool| {
        let sent =
            sqlx::query_as("SELECT target, key, episode, alerted_at, reminded_at, max_count, last FROM alert_sent")
                .fetch_all(pool)
                .await?;
        let outbox =
            sqlx::query_as("SELECT id, target, subject, body FROM alert_outbox ORDER BY id").fetch_all(pool).await?;
        (sent, outbox)
    });
    Ok((sent.into_iter().map(|r| (r.target, r.sent)).collect(), outbox))
}

/// Inside a decision's transaction `tx` (either store): queue `messages` `(subject, body)` for
/// `target` at `queued_at` and keep the newest `outbox_max` of its outbox; the messages' ids,
/// in order. Problems' decisions and changes told alike.
macro_rules! queue_messages {
    ($tx:ident, $target:expr, $messages:expr, $queued_at:expr, $outbox_max:expr) => {{
        let mut ids = Vec::with_capacity($messages.len());
        for (subject, body) in $messages {
            let id = sqlx::query(
                "INSERT INTO alert_outbox (target, subject, body, queued_at) VALUES ($1, $2, $3, $4) RETURNING id",
            )
            .bind($target)
            .bind(subject)
            .bind(body)
            .bind($queued_at)
            .fetch_one(&mut *$tx)
            .await?
            .try_get::<i64, _>("id")?;
            ids.push(id);
        }
        sqlx::query(
            "DELETE FROM alert_outbox WHERE target = $1 AND id NOT IN \
             (SELECT id FROM alert_outbox WHERE target = $1 ORDER BY id DESC LIMIT $2)",
        )
        .bind($target)
        .bind($outbox_max)
        .execute(&mut *$tx)
        .await?;
        ids
    }};
}

/// One decision for `target`, in one transaction: what has been sent (`sent`, replacing the
/// target's rows, when it changed) and the messages `(subject, body)` queued at `queued_at`;
/// the outbox keeps the newest `outbox_max` of the target. Returns the messages' ids, in order.
pub async fn commit(
    store: &Store,
    target: &str,
    sent: Option<&[SentRow]>,
    messages: &[(String, String)],
    queued_at: i64,
    outbox_max: i64,
) -> Result<Vec<i64>, sqlx::Error> {
    on_db!(store, |pool| {
        let mut tx = pool.begin().await?;
        if let Some(sent) = sent {
            sqlx::query("DELETE FROM alert_sent WHERE target = $1").bind(target).execute(&mut *tx).await?;
            for s in sent {
                sqlx::query(
                    "INSERT INTO alert_sent (target, key, episode, alerted_at, reminded_at, max_count, last) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(target)
                .bind(&s.key)
                .bind(s.episode)
                .bind(s.alerted_at)
                .bind(s.reminded_at)
                .bind(s.max_count)
                .bind(&s.last)
                .execute(&mut *tx)
                .await?;
            }
        }
        let ids = queue_messages!(tx, target, messages, queued_at, outbox_max);
        tx.commit().await?;
        Ok(ids)
    })
}

/// A message left the outbox (delivered or dropped).
pub async fn done(store: &Store, id: i64) -> Result<(), sqlx::Error> {
    on_db!(store, |pool| sqlx::query("DELETE FROM alert_outbox WHERE id = $1").bind(id).execute(pool).await.map(|_| ()))
}

/// A change of a job's definition not yet told to a target (`job_change`'s row).
#[derive(Clone, Debug, sqlx_macros::FromRow)]
pub struct UntoldRow {
    pub instance: String,
    pub job: String,
    pub seen_us: i64,
    pub kind: String,
    /// The change as JSON.
    pub change: String,
}

impl UntoldRow {
    /// Its key in `alert_change_told` (with the target).
    pub fn key(&self) -> (&str, &str, i64, &str) {
        (&self.instance, &self.job, self.seen_us, &self.kind)
    }
}

/// Where `target` starts being told changes (microseconds): the first time it is asked,
/// `now_us` is kept (a new target is not told the whole history), by whichever replica asks
/// first.
pub async fn changes_from(store: &Store, target: &str, now_us: i64) -> Result<i64, sqlx::Error> {
    on_db!(store, |pool| {
        let kept: Option<i64> = sqlx::query_scalar("SELECT from_us FROM alert_change_from WHERE target = $1")
            .bind(target)
            .fetch_optional(pool)
            .await?;
        if let Some(from) = kept {
            return Ok(from);
        }
        sqlx::query("INSERT INTO alert_change_from (target, from_us) VALUES ($1, $2) ON CONFLICT (target) DO NOTHING")
            .bind(target)
            .bind(now_us)
            .execute(pool)
            .await?;
        sqlx::query_scalar("SELECT from_us FROM alert_change_from WHERE target = $1").bind(target).fetch_one(pool).await
    })
}

/// The changes seen from `from_us` on that `target` was not told, oldest first, at most `limit`.
pub async fn untold_changes(
    store: &Store,
    target: &str,
    from_us: i64,
    limit: i64,
) -> Result<Vec<UntoldRow>, sqlx::Error> {
    on_db!(store, |pool| sqlx::query_as(
        "SELECT c.instance, c.job, c.seen_us, c.kind, c.change FROM job_change c WHERE c.seen_us >= $2 \
         AND NOT EXISTS (SELECT 1 FROM alert_change_told t WHERE t.target = $1 AND t.instance = c.instance \
         AND t.job = c.job AND t.seen_us = c.seen_us AND t.kind = c.kind) \
         ORDER BY c.seen_us, c.instance, c.job, c.kind LIMIT $3"
    )
    .bind(target)
    .bind(from_us)
    .bind(limit)
    .fetch_all(pool)
    .await)
}

/// Record, in one transaction, that `target` was told `told` (instance, job, seen, kind) and
/// queue its `messages`; the outbox keeps the newest `outbox_max` of the target, and what was
/// told of changes no longer kept is forgotten. `None` (nothing written) when one of them was
/// already told (another replica): the next tick asks again.
#[allow(clippy::too_many_arguments)]
pub async fn commit_changes(
    store: &Store,
    target: &str,
    told: &[(&str, &str, i64, &str)],
    messages: &[(String, String)],
    queued_at: i64,
    outbox_max: i64,
) -> Result<Option<Vec<i64>>, sqlx::Error> {
    on_db!(store, |pool| {
        let mut tx = pool.begin().await?;
        for (instance, job, seen_us, kind) in told {
            let written = sqlx::query(
                "INSERT INTO alert_change_told (target, instance, job, seen_us, kind) VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT DO NOTHING",
            )
            .bind(target)
            .bind(*instance)
            .bind(*job)
            .bind(*seen_us)
            .bind(*kind)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if written == 0 {
                tx.rollback().await?;
                return Ok(None);
            }
        }
        let ids = queue_messages!(tx, target, messages, queued_at, outbox_max);
        sqlx::query(
            "DELETE FROM alert_change_told WHERE target = $1 AND NOT EXISTS (SELECT 1 FROM job_change c \
             WHERE c.instance = alert_change_told.instance AND c.job = alert_change_told.job \
             AND c.seen_us = alert_change_told.seen_us AND c.kind = alert_change_told.kind)",
        )
        .bind(target)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some(ids))
    })
}
