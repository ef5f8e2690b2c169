//! How long a job's runs take: p50, p95 and max (nearest-rank percentiles over completed
//! runs), per weekday, and which runs are suspiciously long or short against them.
//!
//! **Seasons.** Durations have seasons (Monday's load after the weekend, the month's end), so a
//! run is judged against the runs of its own season where there are enough of them
//! ([`Baselines`], [`Baseline`]): a run on the last day of its month (by its local start in the
//! instance's zone) against the other last-day-of-month runs; any other run against the runs
//! of its weekday that were not on a month's last day. With fewer than [`SEASON_MIN_RUNS`] of
//! them, against every run of the window, saying so ("only 2 Monday runs").
//!
//! Pure: no clock, no I/O. Percentiles by the nearest-rank method: the p-th percentile of n
//! sorted durations is the one at rank ⌈p/100 × n⌉ (1-based), so it is always a duration that
//! happened.
use crate::{Run, RunOutcome, Zone};
use chrono::{DateTime, Datelike, Utc, Weekday};
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

/// A season with fewer completed runs than this is not a baseline: the window's is used.
pub const SEASON_MIN_RUNS: usize = 4;

/// The runs a run is compared with: those of its weekday, or of a month's last day.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Season {
    /// Runs of this weekday (local), not on a month's last day.
    Weekday(Weekday),
    /// Runs on the last day of a month (local).
    MonthEnd,
}

impl Season {
    /// The season of a run starting at `start`, by its local date in `tz`.
    pub fn of(start: DateTime<Utc>, tz: Zone) -> Season {
        let day = start.with_timezone(&tz).date_naive();
        if day.succ_opt().is_none_or(|next| next.month() != day.month()) {
            Season::MonthEnd
        } else {
            Season::Weekday(day.weekday())
        }
    }

    /// `Monday`, `month-end`: what its runs are called ("6 Monday runs").
    pub fn words(self) -> &'static str {
        match self {
            Season::MonthEnd => "month-end",
            Season::Weekday(d) => match d {
                Weekday::Mon => "Monday",
                Weekday::Tue => "Tuesday",
                Weekday::Wed => "Wednesday",
                Weekday::Thu => "Thursday",
                Weekday::Fri => "Friday",
                Weekday::Sat => "Saturday",
                Weekday::Sun => "Sunday",
            },
        }
    }

    fn index(self) -> usize {
        match self {
            Season::Weekday(d) => d.num_days_from_monday() as usize,
            Season::MonthEnd => 7,
        }
    }
}

/// What a run is judged against: the statistics, and whose they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    pub stats: DurationStats,
    /// The run's season.
    pub season: Season,
    /// `stats` are of its season's runs (at least [`SEASON_MIN_RUNS`]); else of the window's.
    pub seasonal: bool,
    /// The completed runs of its season.
    pub season_runs: usize,
    /// The completed runs of the window (what `min_samples` asks of).
    pub window_runs: usize,
}

impl Baseline {
    /// Whose statistics, in words: `6 Monday runs`, or `31 runs of the window (only 2 Monday
    /// runs)` or `(no month-end run)`; `window` names the window ("of the last 30 days").
    pub fn words(&self, window: &str) -> String {
        let runs = |n: usize| if n == 1 { "run" } else { "runs" };
        if self.seasonal {
            format!("{} {} {}", self.stats.count, self.season.words(), runs(self.stats.count))
        } else {
            let few = match self.season_runs {
                0 => format!("no {} run", self.season.words()),
                n => format!("only {n} {} {}", self.season.words(), runs(n)),
            };
            format!("{} {} {window} ({few})", self.stats.count, runs(self.stats.count))
        }
    }
}

/// A job's baselines over its runs: the window's and each season's, made once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Baselines {
    window: Option<DurationStats>,
    /// Monday first, then month-end.
    seasons: [Option<DurationStats>; 8],
    tz: Zone,
}

impl Baselines {
    pub fn of(runs: &[Run], tz: Zone) -> Baselines {
        let mut seasons: [Vec<i64>; 8] = Default::default();
        for r in runs.iter().filter(|r| completed(r)) {
            seasons[Season::of(r.start, tz).index()].push(r.duration_secs.max(0));
        }
        Baselines { window: stats(runs), seasons: seasons.map(of), tz }
    }

    /// The window's statistics.
    pub fn window(&self) -> Option<DurationStats> {
        self.window
    }

    /// A season's own statistics (its runs only, however few).
    pub fn season(&self, season: Season) -> Option<DurationStats> {
        self.seasons[season.index()]
    }

    /// What a run starting at `start` is judged against; `None`: no run completed.
    pub fn at(&self, start: DateTime<Utc>) -> Option<Baseline> {
        let window = self.window?;
        let season = Season::of(start, self.tz);
        let own = self.seasons[season.index()];
        let season_runs = own.map_or(0, |s| s.count);
        let seasonal = season_runs >= SEASON_MIN_RUNS;
        let stats = match own {
            Some(own) if seasonal => own,
            _ => window,
        };
        Some(Baseline { stats, season, seasonal, season_runs, window_runs: window.count })
    }
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
    flag_against(run, stats, flags)
}

/// [`flag`] against a run's seasonal [`Baseline`]: `min_samples` asks of the window's runs
/// (a season of 4 Mondays in a window of 30 runs judges).
pub fn flag_by(run: &Run, baseline: &Baseline, flags: &DurationFlags) -> Option<DurationFlag> {
    if baseline.window_runs < flags.min_samples.max(1) {
        return None;
    }
    flag_against(run, &baseline.stats, flags)
}

fn flag_against(run: &Run, stats: &DurationStats, flags: &DurationFlags) -> Option<DurationFlag> {
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
