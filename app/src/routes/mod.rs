//! One file per page.
pub mod jobs;
