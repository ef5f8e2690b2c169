//! A PostgreSQL store's schema: sqlx's migrations under `server/migrations/postgres`
//! (`0001_store.sql` … one file per change, never edited once released), embedded at build
//! time and run at start (replicas starting together wait on sqlx's lock). Its tables are
//! SQLite's (`super::sqlite`), with PostgreSQL's types, plus what only replicas share:
//! `session` and `shared_read`.

/// PostgreSQL's schema (sqlx's migrations, embedded).
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx_macros::migrate!("./migrations/postgres");
