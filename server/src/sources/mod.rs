//! One file per source kind; the only place SQL lives. Row structs stay here and are mapped
//! to engine types.
pub mod msdb_sqlite;
pub mod pg_cron;
