//! One file per page.
pub mod calendar;
pub mod find;
pub mod fleet;
pub mod instance_timeline;
pub mod jobs;
pub mod log;
pub mod maintenance;
pub mod not_found;
pub mod signin;
pub mod simulate;
pub mod timeline;
pub mod triage;
