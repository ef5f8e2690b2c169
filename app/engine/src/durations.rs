//! How long a job's runs take: p50, p95 and max (nearest-rank percentiles over completed
//! runs), per weekday, and which runs are suspiciously long or short against them.
//!
//! Pure: no clock, no I/O. Percentiles by the nearest-rank method: the p-th percentile of n
//! sorted durations is the one at rank ⌈p/100 × n⌉ (1-based), so it is always a duration that
//! happened.
use crate::{Run, RunOutcome, Zone};
use chrono::Datelike;
use serde::{Deserialize, Serialize};

/// Durations of completed runs, in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DurationStats {
    pub count: usize,
    pub p50: i64,
    pub p95: i64,
    pub max: i64,
}

/// A run that finished: how long it took says something (not in progress, crashed,
/// abandoned or of unknown end).
fn completed(r: &Run) -> bool {
    matches!(r.outcome, RunOutcome::Succeeded | RunOutcome::Failed | RunOutcome::Retry | RunOutcome::Canceled)
}

fn of(mut secs: Vec<i64>) -> Option<DurationStats> {
    if secs.is_empty() {
        return None;
    }
    secs.sort_unstable();
    let n = secs.len();
    let rank = |p: usize| secs[(p * n).div_ceil(100).clamp(1, n) - 1];
    Some(DurationStats { count: n, p50: rank(50), p95: rank(95), max: secs[n - 1] })
}

/// Completed runs only; `None` if no run completed.
pub fn stats(runs: &[Run]) -> Option<DurationStats> {
    of(runs.iter().filter(|r| completed(r)).map(|r| r.duration_secs.max(0)).collect())
}

/// Per weekday in `tz` (Monday first), by the run's local start.
pub fn by_weekday(runs: &[Run], tz: Zone) -> [Option<DurationStats>; 7] {
    let mut days: [Vec<i64>; 7] = Default::default();
    for r in runs.iter().filter(|r| completed(r)) {
        let day = r.start.with_timezone(&tz).weekday().num_days_from_monday() as usize;
        days[day].push(r.duration_secs.max(0));
    }
    days.map(of)
}

/// When a run is long or short enough to flag.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DurationFlags {
    /// Longer than p95 × this is long. Default 1.5.
    pub long_factor: f64,
    /// A success shorter than p50 × this is suspiciously short. Default 0.25.
    pub short_factor: f64,
    /// Fewer completed runs than this flag nothing. Default 5.
    pub min_samples: usize,
    /// A job whose p50 is under this many seconds is never too short (a 28-second job done
    /// in 4 is noise, a 50-minute one done in 15 is not). Default 120.
    #[serde(default = "default_short_min_secs")]
    pub short_min_secs: i64,
}

fn default_short_min_secs() -> i64 {
    120
}

impl Default for DurationFlags {
    fn default() -> Self {
        DurationFlags { long_factor: 1.5, short_factor: 0.25, min_samples: 5, short_min_secs: default_short_min_secs() }
    }
}

/// Why a run's duration is odd.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DurationFlag {
    /// Longer than p95 × the long factor (a run still going counts its time so far).
    Long { p95: i64 },
    /// A success shorter than p50 × the short factor.
    Short { p50: i64 },
}

/// A run longer than p95 × long_factor, or a completed successful run shorter than
/// p50 × short_factor (of a job whose p50 is at least `short_min_secs`), judged against
/// `stats` (of the window); `None` with fewer than `min_samples` completed runs.
pub fn flag(run: &Run, stats: &DurationStats, flags: &DurationFlags) -> Option<DurationFlag> {
    if stats.count < flags.min_samples.max(1) {
        return None;
    }
    let secs = run.duration_secs.max(0) as f64;
    if secs > stats.p95 as f64 * flags.long_factor && run.duration_secs > stats.p95 {
        return Some(DurationFlag::Long { p95: stats.p95 });
    }
    if run.outcome == RunOutcome::Succeeded
        && stats.p50 >= flags.short_min_secs
        && secs < stats.p50 as f64 * flags.short_factor
    {
        return Some(DurationFlag::Short { p50: stats.p50 });
    }
    None
}
