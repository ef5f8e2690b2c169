//! Statements on the alerts' tables (`crate::alerts::store`): `alert_sent` (per target, the
//! episodes alerted) and `alert_outbox` (the messages decided but not yet delivered). Times in
//! milliseconds.
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
        let mut ids = Vec::with_capacity(messages.len());
        for (subject, body) in messages {
            let id = sqlx::query(
                "INSERT INTO alert_outbox (target, subject, body, queued_at) VALUES ($1, $2, $3, $4) RETURNING id",
            )
            .bind(target)
            .bind(subject)
            .bind(body)
            .bind(queued_at)
            .fetch_one(&mut *tx)
            .await?
            .try_get("id")?;
            ids.push(id);
        }
        sqlx::query(
            "DELETE FROM alert_outbox WHERE target = $1 AND id NOT IN \
             (SELECT id FROM alert_outbox WHERE target = $1 ORDER BY id DESC LIMIT $2)",
        )
        .bind(target)
        .bind(outbox_max)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(ids)
    })
}

/// A message left the outbox (delivered or dropped).
pub async fn done(store: &Store, id: i64) -> Result<(), sqlx::Error> {
    on_db!(store, |pool| sqlx::query("DELETE FROM alert_outbox WHERE id = $1").bind(id).execute(pool).await.map(|_| ()))
}
