//! The `sundial` binary's library: CLI, HTTP, sources.
pub mod cli;
pub mod http;
pub mod sources;
