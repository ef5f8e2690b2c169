//! One file per source kind; the only place SQL lives. Row structs stay here and are mapped
//! to engine types. `snapshots` is Sundial's own store, the one database Sundial writes.
pub mod msdb;
pub mod msdb_sqlite;
pub mod mysql_events;
pub mod pg_cron;
pub mod seed001;
pub mod seed002;
pub mod seed003;
pub mod seed004;
pub mod snapshots;
pub mod tables;
