//! Statements on triage's tables (`crate::triage`): `triage_open` (each open problem's
//! episode: when Sundial first saw it) and `triage_ack` (acknowledgements and silences).
//! Times in milliseconds.
use super::Store;
use crate::on_db;

/// A `triage_open` row.
#[derive(Clone, Debug, sqlx_macros::FromRow)]
pub struct OpenRow {
    pub key: String,
    pub instance: String,
    /// 1: a job's problem; 0: an instance's.
    pub of_job: i64,
    pub first_seen: i64,
}

/// A `triage_ack` row.
#[derive(Clone, Debug, sqlx_macros::FromRow)]
pub struct AckRow {
    pub key: String,
    pub episode: i64,
    pub severity: String,
    pub count: i64,
    pub until: Option<i64>,
    pub note: String,
    pub by: String,
    pub at: i64,
}

/// Acknowledgements as the store keeps them (`by` quoted: PostgreSQL reserves the word).
const ACKS: &str = "SELECT key, episode, severity, count, until, note, \"by\", at FROM triage_ack";

/// Every open episode and every acknowledgement.
pub async fn load(store: &Store) -> Result<(Vec<OpenRow>, Vec<AckRow>), sqlx::Error> {
    Ok(on_db!(store, |pool| {
        let open = sqlx::query_as("SELECT key, instance, of_job, first_seen FROM triage_open").fetch_all(pool).await?;
        let acks = sqlx::query_as(ACKS).fetch_all(pool).await?;
        (open, acks)
    }))
}

/// Episodes started (`added`: kept unless one of the key is) and ended (`ended`: their keys,
/// which lose their acknowledgement too), in one transaction.
pub async fn save_open(store: &Store, added: &[OpenRow], ended: &[String]) -> Result<(), sqlx::Error> {
    on_db!(store, |pool| {
        let mut tx = pool.begin().await?;
        for open in added {
            sqlx::query(
                "INSERT INTO triage_open (key, instance, of_job, first_seen) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (key) DO NOTHING",
            )
            .bind(&open.key)
            .bind(&open.instance)
            .bind(open.of_job)
            .bind(open.first_seen)
            .execute(&mut *tx)
            .await?;
        }
        for key in ended {
            sqlx::query("DELETE FROM triage_open WHERE key = $1").bind(key).execute(&mut *tx).await?;
            sqlx::query("DELETE FROM triage_ack WHERE key = $1").bind(key).execute(&mut *tx).await?;
        }
        tx.commit().await
    })
}

/// Keep an acknowledgement (replacing the key's earlier one).
pub async fn ack_upsert(store: &Store, ack: &AckRow) -> Result<(), sqlx::Error> {
    on_db!(store, |pool| sqlx::query(
        "INSERT INTO triage_ack (key, episode, severity, count, until, note, \"by\", at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (key) DO UPDATE SET episode = excluded.episode, \
         severity = excluded.severity, count = excluded.count, until = excluded.until, note = excluded.note, \
         \"by\" = excluded.\"by\", at = excluded.at",
    )
    .bind(&ack.key)
    .bind(ack.episode)
    .bind(&ack.severity)
    .bind(ack.count)
    .bind(ack.until)
    .bind(&ack.note)
    .bind(&ack.by)
    .bind(ack.at)
    .execute(pool)
    .await
    .map(|_| ()))
}

/// Forget the acknowledgement of `key`.
pub async fn ack_delete(store: &Store, key: &str) -> Result<(), sqlx::Error> {
    on_db!(store, |pool| sqlx::query("DELETE FROM triage_ack WHERE key = $1").bind(key).execute(pool).await.map(|_| ()))
}
