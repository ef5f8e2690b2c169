//! Statements on `session` (`crate::auth::sessions`), the sign-in sessions replicas share on a
//! PostgreSQL store: the SHA-256 of each session's id (hex), its principal, its end as
//! wall-clock milliseconds.
use sqlx::postgres::PgPool;

/// A `session` row as read: name, role (JSON), via (JSON), end (milliseconds).
pub type SessionRow = (String, String, String, i64);

/// Keep a new session, forgetting first those ended by `now_ms`.
pub async fn start(
    pool: &PgPool,
    now_ms: i64,
    id_sha256: &str,
    name: &str,
    role: &str,
    via: &str,
    expires_ms: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM session WHERE expires_ms <= $1").bind(now_ms).execute(pool).await?;
    sqlx::query("INSERT INTO session (id_sha256, name, role, via, expires_ms) VALUES ($1, $2, $3, $4, $5)")
        .bind(id_sha256)
        .bind(name)
        .bind(role)
        .bind(via)
        .bind(expires_ms)
        .execute(pool)
        .await
        .map(|_| ())
}

/// The session whose id's SHA-256 is `id_sha256`, if kept.
pub async fn get(pool: &PgPool, id_sha256: &str) -> Result<Option<SessionRow>, sqlx::Error> {
    sqlx::query_as("SELECT name, role, via, expires_ms FROM session WHERE id_sha256 = $1")
        .bind(id_sha256)
        .fetch_optional(pool)
        .await
}

/// End the session whose id's SHA-256 is `id_sha256`.
pub async fn end(pool: &PgPool, id_sha256: &str) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM session WHERE id_sha256 = $1").bind(id_sha256).execute(pool).await.map(|_| ())
}
