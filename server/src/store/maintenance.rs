//! Statements on maintenance's tables (`crate::maintenance`): `maintenance_added` (each window
//! an admin added) and `maintenance_ended` (each occurrence ended early or cancelled). Nothing
//! is deleted. Times in milliseconds.
use super::Store;
use crate::on_db;

/// A `maintenance_added` row.
#[derive(Clone, Debug, sqlx_macros::FromRow)]
pub struct AddedRow {
    pub id: String,
    pub name: String,
    pub reason: String,
    /// The scope as JSON.
    pub scope: String,
    /// The zone's name.
    pub zone: String,
    pub start_ms: i64,
    pub end_ms: i64,
    pub by: String,
    pub at: i64,
}

/// A `maintenance_ended` row.
#[derive(Clone, Debug, sqlx_macros::FromRow)]
pub struct EndedRow {
    pub id: String,
    /// The start of the occurrence it ends.
    pub start_ms: i64,
    pub by: String,
    pub at: i64,
    pub why: String,
}

/// Every window added and every end, each in the order they were made.
pub async fn load(store: &Store) -> Result<(Vec<AddedRow>, Vec<EndedRow>), sqlx::Error> {
    Ok(on_db!(store, |pool| {
        let added = sqlx::query_as(
            "SELECT id, name, reason, scope, zone, start_ms, end_ms, \"by\", at FROM maintenance_added ORDER BY at, id",
        )
        .fetch_all(pool)
        .await?;
        let ended = sqlx::query_as("SELECT id, start_ms, \"by\", at, why FROM maintenance_ended ORDER BY at, id")
            .fetch_all(pool)
            .await?;
        (added, ended)
    }))
}

/// Keep a window added.
pub async fn add(store: &Store, row: &AddedRow) -> Result<(), sqlx::Error> {
    on_db!(store, |pool| sqlx::query(
        "INSERT INTO maintenance_added (id, name, reason, scope, zone, start_ms, end_ms, \"by\", at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(&row.id)
    .bind(&row.name)
    .bind(&row.reason)
    .bind(&row.scope)
    .bind(&row.zone)
    .bind(row.start_ms)
    .bind(row.end_ms)
    .bind(&row.by)
    .bind(row.at)
    .execute(pool)
    .await
    .map(|_| ()))
}

/// Keep the end of an occurrence (the first kept of one stays).
pub async fn end(store: &Store, row: &EndedRow) -> Result<(), sqlx::Error> {
    on_db!(store, |pool| sqlx::query(
        "INSERT INTO maintenance_ended (id, start_ms, \"by\", at, why) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (id, start_ms) DO NOTHING",
    )
    .bind(&row.id)
    .bind(row.start_ms)
    .bind(&row.by)
    .bind(row.at)
    .bind(&row.why)
    .execute(pool)
    .await
    .map(|_| ()))
}
