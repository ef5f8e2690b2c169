//! The server's integration tests: one test binary (`cargo test -p server --test integration`),
//! each file a module, as ripgrep lays its tests out — one link of the whole app instead of one
//! per file. What the modules share (the database test servers' start and stop, the TDS test
//! server, requests to the router, the CLI, the hand-made report) is in `support`.
//!
//! The tests of this binary run in parallel threads of one process: each database server has
//! a port of its own (`support::servers::port`), and nothing here sets an environment variable
//! or changes the working directory.
mod support;

mod alert_channels;
mod alerts;
mod alerts_changes;
mod alerts_flapping;
mod api;
mod architecture;
mod auth;
mod calendar;
mod changes;
mod cli;
mod cli_dialects;
mod config;
mod deadlines;
mod demo;
mod demo_fleet;
mod demo_pgagent;
mod fleet_faults;
mod fuzz;
mod history;
mod hostile_text;
mod http;
mod job_page;
mod job_table_incremental;
mod jobs_list;
mod judgment;
mod log_fleet;
mod maintenance;
mod metrics;
mod msdb_incremental;
mod msdb_sqlite_live;
mod msdb_tds;
mod mysql_events_incremental;
mod mysql_events_real;
mod pg_cron_incremental;
mod pg_cron_real;
mod pg_cron_source;
mod pgagent_daemon;
mod pgagent_schedule;
mod pgagent_source;
mod replicas;
mod risks;
mod run_now;
mod secrets;
mod security;
mod seed_tables;
mod slow_clients;
mod source_faults;
mod store_postgres;
mod table_text;
mod tables_incremental;
mod tables_job_table;
mod tables_jobactivity;
mod tables_paging;
mod tables_primentra;
mod tables_service_broker;
mod triage;
mod words;
mod zones;
