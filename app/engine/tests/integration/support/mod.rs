//! What the engine's test modules share: reading case files ([`cases`]), zones as the server
//! and as the browser have them ([`zones`]), and the wall-clock notation of the case files.
use chrono::NaiveDateTime;
use std::path::{Path, PathBuf};

pub mod cases;
pub mod clock;
pub mod zones;

/// `tests/cases`, where the data-driven cases live.
pub fn cases_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases")
}

/// A file beside this module (`support/NAME`), such as the croniter helper.
pub fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration/support").join(name)
}

/// A wall-clock time as the case files write it: `2026-11-22T02:30:00`, with a fractional
/// second when it has one (`2026-11-22T02:30:00.500`).
pub fn parse_local(s: &str) -> Result<NaiveDateTime, String> {
    NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f").map_err(|e| format!("bad time {s:?}: {e}"))
}

/// The inverse of [`parse_local`].
pub fn fmt(t: NaiveDateTime) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.f").to_string()
}

/// An occurrence's DST tag as the case files write it.
pub fn dst_name(d: Option<sundial_engine::Dst>) -> &'static str {
    match d {
        Some(sundial_engine::Dst::Gap) => "gap",
        Some(sundial_engine::Dst::Fold) => "fold",
        None => "none",
    }
}
