//! The `sundial` binary's library: CLI, HTTP, sources, the demo.
#![recursion_limit = "256"]
pub mod alerts;
pub mod auth;
pub mod cli;
pub mod config;
pub mod demo;
pub mod fleet;
pub mod held;
pub mod history;
pub mod http;
pub mod logging;
pub mod maintenance;
pub mod replicas;
pub mod sources;
pub mod store;
pub mod triage;
