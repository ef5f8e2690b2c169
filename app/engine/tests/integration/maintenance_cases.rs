//! Maintenance windows (`maintenance::windows`, `maintenance::parse_weekly`): the data-driven
//! cases of `tests/cases/maintenance/*.toml`, and properties over arbitrary weekly windows.
use crate::support::cases::{self, CaseFile};
use crate::support::cases_root;
use chrono::{DateTime, Datelike, NaiveTime, TimeDelta, Utc};
use proptest::prelude::*;
use serde::Deserialize;
use sundial_engine::maintenance::{When, parse_weekly, windows};
use sundial_engine::{Window, Zone};

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
    zone: String,
    every: Option<String>,
    cron: Option<String>,
    duration_secs: Option<i64>,
    once: Option<[String; 2]>,
    from: Option<String>,
    to: Option<String>,
    #[serde(default)]
    expect: Vec<[String; 2]>,
    error: Option<String>,
}

fn t(s: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(s).map(|d| d.to_utc()).map_err(|e| format!("bad instant {s:?}: {e}"))
}

fn check(case: &Case) -> Result<(), String> {
    let zone = Zone::from_name(&case.zone).ok_or_else(|| format!("unknown zone {:?}", case.zone))?;
    let when = match (&case.every, &case.cron, &case.once) {
        (Some(e), None, None) => match (parse_weekly(e), &case.error) {
            (Ok(w), None) => w,
            (Err(got), Some(want)) if got.contains(want.as_str()) => return Ok(()),
            (Err(got), Some(want)) => return Err(format!("expected an error with {want:?}, got {got:?}")),
            (Err(got), None) => return Err(format!("unexpected error {got:?}")),
            (Ok(w), Some(want)) => return Err(format!("expected an error with {want:?}, got {w:?}")),
        },
        (None, Some(c), None) => {
            When::Cron { expr: c.clone(), length_secs: case.duration_secs.ok_or("cron needs duration_secs")? }
        }
        (None, None, Some([a, b])) => When::Once(Window::new(t(a)?, t(b)?)),
        _ => return Err("exactly one of every, cron, once".into()),
    };
    let range = Window::new(t(case.from.as_deref().ok_or("no from")?)?, t(case.to.as_deref().ok_or("no to")?)?);
    let (got, diagnostics) = windows(&when, zone, range);
    if !diagnostics.is_empty() {
        return Err(format!("diagnostics: {diagnostics:?}"));
    }
    let want: Vec<Window> =
        case.expect.iter().map(|[a, b]| Ok(Window::new(t(a)?, t(b)?))).collect::<Result<_, String>>()?;
    if got != want {
        let show = |w: &[Window]| w.iter().map(|w| format!("[{} {}]", w.start, w.end)).collect::<Vec<_>>().join(", ");
        return Err(format!("expected {}\n   got {}", show(&want), show(&got)));
    }
    Ok(())
}

#[test]
fn maintenance_window_cases() {
    let (files, mut failures) = cases::load_dir::<File>(&cases_root().join("maintenance"));
    let mut count = 0;
    for (file, f) in &files {
        for case in &f.case {
            count += 1;
            if let Err(e) = check(case) {
                failures.push(format!("{file}: {}: {e}", case.name));
            }
        }
    }
    assert!(count >= 17, "only {count} maintenance cases ran");
    assert!(failures.is_empty(), "{} failing:\n{}", failures.len(), failures.join("\n"));
}

const ZONES: [&str; 5] = ["UTC", "Europe/London", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"];

proptest! {
    /// Weekly windows over any range of up to three weeks, in zones with and without daylight
    /// saving: each overlaps the range, is not empty, lasts at most a day and a half-hour
    /// (a fall-back night, Lord Howe's half-hour), starts after the previous one started and
    /// starts on a selected day; every selected day whose window lies inside the range has one.
    #[test]
    fn weekly_windows_keep_their_days(
        days in proptest::array::uniform7(any::<bool>()),
        from_min in 0u32..1440,
        to_min in 0u32..1440,
        start in 0i64..(3 * 366 * 86_400),
        length_h in 1i64..(21 * 24),
        zone in 0usize..ZONES.len(),
    ) {
        prop_assume!(days.iter().any(|d| *d));
        let zone = Zone::from_name(ZONES[zone]).unwrap();
        let from = NaiveTime::from_hms_opt(from_min / 60, from_min % 60, 0).unwrap();
        let to = NaiveTime::from_hms_opt(to_min / 60, to_min % 60, 0).unwrap();
        let base = DateTime::parse_from_rfc3339("2025-01-01T00:00:00Z").unwrap().to_utc();
        let range = Window::new(base + TimeDelta::seconds(start), base + TimeDelta::seconds(start) + TimeDelta::hours(length_h));
        let (got, diagnostics) = windows(&When::Weekly { days, from, to }, zone, range);
        prop_assert!(diagnostics.is_empty());
        for (i, w) in got.iter().enumerate() {
            prop_assert!(!w.is_empty(), "{w:?}");
            prop_assert!(w.start < range.end && w.end > range.start, "{w:?} outside {range:?}");
            prop_assert!(w.duration() <= TimeDelta::hours(25) + TimeDelta::minutes(30), "{w:?}");
            if i > 0 {
                prop_assert!(got[i - 1].start < w.start, "{:?} then {w:?}", got[i - 1]);
            }
            let local = sundial_engine::tz::to_local(w.start, zone);
            // A start in a gap moves past it, possibly onto the next day by a few hours at most.
            let day = if local.time() == from { local.date() } else { (local - TimeDelta::hours(3)).date() };
            prop_assert!(days[day.weekday().num_days_from_sunday() as usize], "{w:?} starts on an unselected day");
        }
        // Every selected day wholly inside the range (with a day's margin) has its window.
        let first = sundial_engine::tz::to_local(range.start, zone).date() + TimeDelta::days(1);
        let last = sundial_engine::tz::to_local(range.end, zone).date() - TimeDelta::days(2);
        let mut d = first;
        while d <= last {
            if days[d.weekday().num_days_from_sunday() as usize] {
                let want = sundial_engine::tz::local_to_instant(d.and_time(from), zone);
                prop_assert!(got.iter().any(|w| w.start == want), "no window on {d} (from {want})");
            }
            d += TimeDelta::days(1);
        }
    }
}
