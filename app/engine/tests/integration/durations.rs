//! Duration statistics and flags: the data-driven cases of `tests/cases/durations/*.toml` and
//! properties on arbitrary runs (proptest).
//!
//! A `[[case]]` checks `stats`/`by_weekday` over `runs`, or `flag` of one `run` against given
//! `stats`:
//!
//! ```toml
//! [[case]]
//! name = "a run longer than p95 x 1.5 is long"
//! zone = "Europe/Berlin"      # for weekdays; default UTC
//! runs = [{ secs = 60, outcome = "succeeded", start = "2024-01-01T02:00:00Z" }]
//! stats = { count = 20, p50 = 600, p95 = 1000, max = 1400 }   # for `flag`
//! flags = { long_factor = 1.5, short_factor = 0.25, min_samples = 5 }  # default DurationFlags
//! run = { secs = 1501 }
//! [case.expect]
//! stats = { count = 1, p50 = 60, p95 = 60, max = 60 }   # or "none"
//! weekdays = ["1:60:60:60", "none", …]                  # Monday first, COUNT:P50:P95:MAX
//! flag = "long:1000"                                     # "long:P95", "short:P50" or "none"
//! ```
//!
//! A case may judge `run` (with its `start`) against the seasonal baseline of its runs instead
//! of given `stats` (leave `stats` out): `expect.baseline` is `"WORDS:P50:P95"`, its words as
//! the evidence says them (`"5 Monday runs"`, `"14 runs of the window (only 2 Tuesday runs)"`).
//! `series` adds runs: `{ from = RFC 3339, every_days = 7, count = 4, secs = 2400 }`
//! (`every_days` defaults to 1, `outcome` to succeeded).
//!
//! `outcome` is one of succeeded, failed, retry, canceled, in_progress, crashed, abandoned,
//! unknown (default succeeded); `start` defaults to 02:00 UTC on consecutive days from Monday
//! 2024-01-01.
use crate::support::cases::{self, CaseFile};
use crate::support::cases_root;
use chrono::{DateTime, TimeDelta, Utc, Weekday};
use proptest::prelude::*;
use serde::Deserialize;
use sundial_engine::durations::{self, DurationFlag, DurationFlags, DurationStats};
use sundial_engine::{Run, RunOutcome, Trigger, Zone};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    case: Vec<Case>,
}

impl CaseFile for File {
    fn len(&self) -> usize {
        self.case.len()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    #[serde(default)]
    zone: Option<String>,
    #[serde(default)]
    runs: Vec<RunSpec>,
    #[serde(default)]
    stats: Option<StatsSpec>,
    #[serde(default)]
    flags: Option<FlagsSpec>,
    #[serde(default)]
    run: Option<RunSpec>,
    #[serde(default)]
    series: Vec<SeriesSpec>,
    expect: Expect,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SeriesSpec {
    from: String,
    #[serde(default)]
    every_days: Option<i64>,
    count: usize,
    secs: i64,
    #[serde(default)]
    outcome: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunSpec {
    secs: i64,
    #[serde(default)]
    outcome: Option<String>,
    #[serde(default)]
    start: Option<String>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct StatsSpec {
    count: usize,
    p50: i64,
    p95: i64,
    max: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FlagsSpec {
    long_factor: f64,
    short_factor: f64,
    min_samples: usize,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum StatsExpect {
    None(String),
    Some(StatsSpec),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    #[serde(default)]
    stats: Option<StatsExpect>,
    #[serde(default)]
    weekdays: Option<Vec<String>>,
    #[serde(default)]
    flag: Option<String>,
    #[serde(default)]
    baseline: Option<String>,
}

fn monday() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2024-01-01T02:00:00Z").map(|t| t.to_utc()).unwrap_or_default()
}

fn outcome(name: &str) -> Result<RunOutcome, String> {
    Ok(match name {
        "succeeded" => RunOutcome::Succeeded,
        "failed" => RunOutcome::Failed,
        "retry" => RunOutcome::Retry,
        "canceled" => RunOutcome::Canceled,
        "in_progress" => RunOutcome::InProgress,
        "crashed" => RunOutcome::Crashed,
        "abandoned" => RunOutcome::Abandoned,
        "unknown" => RunOutcome::Unknown,
        other => return Err(format!("unknown outcome {other:?}")),
    })
}

fn run(spec: &RunSpec, i: usize) -> Result<Run, String> {
    let start = match &spec.start {
        Some(s) => DateTime::parse_from_rfc3339(s).map_err(|e| format!("start {s:?}: {e}"))?.to_utc(),
        None => monday() + TimeDelta::days(i as i64),
    };
    Ok(Run {
        start,
        duration_secs: spec.secs,
        outcome: outcome(spec.outcome.as_deref().unwrap_or("succeeded"))?,
        trigger: Trigger::Schedule(None),
        message: String::new(),
        steps: Vec::new(),
    })
}

fn stats_text(s: Option<DurationStats>) -> String {
    match s {
        None => "none".into(),
        Some(s) => format!("{}:{}:{}:{}", s.count, s.p50, s.p95, s.max),
    }
}

fn flag_text(f: Option<DurationFlag>) -> String {
    match f {
        None => "none".into(),
        Some(DurationFlag::Long { p95 }) => format!("long:{p95}"),
        Some(DurationFlag::Short { p50 }) => format!("short:{p50}"),
    }
}

/// What is wrong with one case; empty when it holds.
fn check(case: &Case) -> Result<Vec<String>, String> {
    let mut runs = case.runs.iter().enumerate().map(|(i, r)| run(r, i)).collect::<Result<Vec<_>, _>>()?;
    for s in &case.series {
        let from = DateTime::parse_from_rfc3339(&s.from).map_err(|e| format!("series from {:?}: {e}", s.from))?;
        for n in 0..s.count {
            let start = (from + TimeDelta::days(s.every_days.unwrap_or(1) * n as i64)).to_rfc3339();
            let spec = RunSpec { secs: s.secs, outcome: s.outcome.clone(), start: Some(start) };
            runs.push(run(&spec, 0)?);
        }
    }
    runs.sort_by_key(|r| r.start);
    let name = case.zone.as_deref().unwrap_or("UTC");
    let zone = Zone::from_name(name).ok_or_else(|| format!("unknown zone {name:?}"))?;
    let mut wrong = Vec::new();
    let mut checked = 0;
    if let Some(want) = &case.expect.baseline {
        checked += 1;
        let spec = case.run.as_ref().ok_or("baseline needs `run` (with its start)")?;
        spec.start.as_ref().ok_or("baseline needs `run`'s start")?;
        let base = durations::Baselines::of(&runs, zone).at(run(spec, 0)?.start);
        let got =
            base.map_or("none".to_owned(), |b| format!("{}:{}:{}", b.words("of the window"), b.stats.p50, b.stats.p95));
        if &got != want {
            wrong.push(format!("baseline: want {want}, got {got}"));
        }
    }
    if let Some(want) = &case.expect.stats {
        checked += 1;
        let want = match want {
            StatsExpect::None(s) if s == "none" => "none".to_string(),
            StatsExpect::None(s) => return Err(format!("stats: {s:?} is neither \"none\" nor a table")),
            StatsExpect::Some(s) => format!("{}:{}:{}:{}", s.count, s.p50, s.p95, s.max),
        };
        let got = stats_text(durations::stats(&runs));
        if got != want {
            wrong.push(format!("stats: want {want}, got {got}"));
        }
    }
    if let Some(want) = &case.expect.weekdays {
        checked += 1;
        let got: Vec<String> = durations::by_weekday(&runs, zone).into_iter().map(stats_text).collect();
        if &got != want {
            wrong.push(format!("weekdays: want {want:?}, got {got:?}"));
        }
    }
    if let Some(want) = &case.expect.flag {
        checked += 1;
        let flags = match &case.flags {
            Some(f) => DurationFlags {
                long_factor: f.long_factor,
                short_factor: f.short_factor,
                min_samples: f.min_samples,
                ..DurationFlags::default()
            },
            None => DurationFlags::default(),
        };
        let r = run(case.run.as_ref().ok_or("flag needs `run`")?, 0)?;
        let got = match case.stats {
            Some(s) => {
                let stats = DurationStats { count: s.count, p50: s.p50, p95: s.p95, max: s.max };
                flag_text(durations::flag(&r, &stats, &flags))
            }
            // Against the seasonal baseline of the case's runs.
            None => {
                let base = durations::Baselines::of(&runs, zone).at(r.start).ok_or("flag: no run completed")?;
                flag_text(durations::flag_by(&r, &base, &flags))
            }
        };
        if &got != want {
            wrong.push(format!("flag: want {want}, got {got}"));
        }
    }
    if checked == 0 {
        return Err("checks nothing".into());
    }
    Ok(wrong)
}

#[test]
fn duration_cases() {
    let (files, mut failures) = cases::load_dir::<File>(&cases_root().join("durations"));
    let mut count = 0;
    for (file, f) in &files {
        for case in &f.case {
            count += 1;
            match check(case) {
                Ok(wrong) => failures.extend(wrong.into_iter().map(|w| format!("{file}: {}: {w}", case.name))),
                Err(e) => failures.push(format!("{file}: {}: {e}", case.name)),
            }
        }
    }
    assert!(count > 0, "no duration case ran");
    assert!(failures.is_empty(), "{} failing:\n{}", failures.len(), failures.join("\n"));
}

fn any_outcome() -> impl Strategy<Value = RunOutcome> {
    prop_oneof![
        6 => Just(RunOutcome::Succeeded),
        1 => Just(RunOutcome::Failed),
        1 => Just(RunOutcome::Retry),
        1 => Just(RunOutcome::Canceled),
        1 => Just(RunOutcome::InProgress),
        1 => Just(RunOutcome::Crashed),
        1 => Just(RunOutcome::Abandoned),
        1 => Just(RunOutcome::Unknown),
    ]
}

fn any_run() -> impl Strategy<Value = Run> {
    (-400_000i64..400_000, prop_oneof![8 => -10i64..100_000, 1 => Just(i64::MAX), 1 => Just(i64::MIN)], any_outcome())
        .prop_map(|(offset, secs, outcome)| Run {
            start: monday() + TimeDelta::seconds(offset),
            duration_secs: secs,
            outcome,
            trigger: Trigger::Schedule(None),
            message: String::new(),
            steps: Vec::new(),
        })
}

fn any_flags() -> impl Strategy<Value = DurationFlags> {
    (0.0f64..4.0, 0.0f64..1.0, 0usize..12, 0i64..600).prop_map(|(long, short, min, short_min)| DurationFlags {
        long_factor: long,
        short_factor: short,
        min_samples: min,
        short_min_secs: short_min,
    })
}

proptest! {
    #[test]
    fn percentiles_are_ordered_and_happened(runs in proptest::collection::vec(any_run(), 0..60)) {
        match durations::stats(&runs) {
            None => prop_assert!(runs.iter().all(|r| !matches!(
                r.outcome,
                RunOutcome::Succeeded | RunOutcome::Failed | RunOutcome::Retry | RunOutcome::Canceled
            ))),
            Some(s) => {
                prop_assert!(s.count > 0 && s.count <= runs.len());
                prop_assert!(0 <= s.p50 && s.p50 <= s.p95 && s.p95 <= s.max, "{s:?}");
                // Nearest rank: each is a duration that happened.
                for p in [s.p50, s.p95, s.max] {
                    prop_assert!(runs.iter().any(|r| r.duration_secs.max(0) == p), "{p} in {s:?}");
                }
            }
        }
    }

    #[test]
    fn weekdays_partition_the_completed_runs(runs in proptest::collection::vec(any_run(), 0..60)) {
        let zone = Zone::from_name("America/New_York").unwrap_or(Zone::UTC);
        let days = durations::by_weekday(&runs, zone);
        let total: usize = days.iter().flatten().map(|s| s.count).sum();
        prop_assert_eq!(total, durations::stats(&runs).map_or(0, |s| s.count));
        let max = durations::stats(&runs).map(|s| s.max);
        for s in days.iter().flatten() {
            prop_assert!(s.p50 <= s.p95 && s.p95 <= s.max);
            prop_assert!(Some(s.max) <= max);
        }
    }

    #[test]
    fn a_run_is_judged_against_its_seasons_runs_when_there_are_enough_else_the_windows(
        runs in proptest::collection::vec(any_run(), 0..60),
        at in -400_000i64..400_000,
    ) {
        use durations::{Season, SEASON_MIN_RUNS};
        let zone = Zone::from_name("America/New_York").unwrap_or(Zone::UTC);
        let baselines = durations::Baselines::of(&runs, zone);
        // The seasons (seven weekdays, month-ends) partition the completed runs.
        let weekdays = [Weekday::Mon, Weekday::Tue, Weekday::Wed, Weekday::Thu, Weekday::Fri, Weekday::Sat, Weekday::Sun];
        let seasons: Vec<Season> = weekdays.into_iter().map(Season::Weekday).chain([Season::MonthEnd]).collect();
        let total: usize = seasons.iter().filter_map(|s| baselines.season(*s)).map(|s| s.count).sum();
        prop_assert_eq!(total, durations::stats(&runs).map_or(0, |s| s.count));
        let start = monday() + TimeDelta::seconds(at);
        match baselines.at(start) {
            None => prop_assert!(durations::stats(&runs).is_none()),
            Some(b) => {
                prop_assert_eq!(b.season, Season::of(start, zone));
                let own = baselines.season(b.season);
                prop_assert_eq!(b.season_runs, own.map_or(0, |s| s.count));
                prop_assert_eq!(b.seasonal, b.season_runs >= SEASON_MIN_RUNS);
                prop_assert_eq!(Some(b.stats), if b.seasonal { own } else { durations::stats(&runs) });
                prop_assert_eq!(b.words("of the window").contains(" (only ") || b.words("of the window").contains(" (no "), !b.seasonal);
            }
        }
    }

    #[test]
    fn flags_never_fire_below_min_samples(
        runs in proptest::collection::vec(any_run(), 0..40),
        run in any_run(),
        flags in any_flags(),
    ) {
        if let Some(stats) = durations::stats(&runs) {
            let flag = durations::flag(&run, &stats, &flags);
            if stats.count < flags.min_samples {
                prop_assert_eq!(flag, None);
            }
            match flag {
                Some(DurationFlag::Long { p95 }) => {
                    prop_assert_eq!(p95, stats.p95);
                    prop_assert!(run.duration_secs > stats.p95);
                }
                Some(DurationFlag::Short { p50 }) => {
                    prop_assert_eq!(p50, stats.p50);
                    prop_assert_eq!(run.outcome, RunOutcome::Succeeded);
                    prop_assert!(run.duration_secs < stats.p50);
                }
                None => {}
            }
        }
    }
}
