//! What the server's test modules share.
//!
//! - [`servers`]: the throwaway PostgreSQL 15 + pg_cron and MariaDB 10.11 servers of `.ci/`
//!   (started, stopped, stopped again whatever happens), the TDS test server, a server that
//!   never answers;
//! - [`web`]: requests to the router, one at a time while it is built;
//! - [`fixture`]: a hand-made instance report for the pages;
//! - the `sundial` binary ([`sundial`]) and RFC 3339 instants ([`t`]).
use chrono::{DateTime, Utc};
use std::process::{Command, Output};

pub mod fixture;
pub mod msdb_tables;
pub mod servers;
pub mod web;

/// One URL path segment or query value, percent-encoded as pages write them.
pub fn enc(s: &str) -> String {
    sundial_model::links::encode_segment(s)
}

/// An RFC 3339 instant.
pub fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap_or_else(|e| panic!("{s}: {e}")).to_utc()
}

/// Run the `sundial` binary of this build.
pub fn sundial(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sundial")).args(args).output().expect("run sundial")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
