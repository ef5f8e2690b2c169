//! One file per page.
pub mod jobs;
pub mod not_found;
pub mod timeline;
