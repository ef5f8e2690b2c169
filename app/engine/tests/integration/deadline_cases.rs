//! Deadlines (`deadlines::verdicts`, `last_verdict`, `problem`): the data-driven cases of
//! `tests/cases/deadlines/*.toml`, and a property over arbitrary deadlines.
use crate::support::cases::{self, CaseFile};
use crate::support::cases_root;
use chrono::{DateTime, NaiveTime, TimeDelta, Utc};
use proptest::prelude::*;
use serde::Deserialize;
use sundial_engine::cron::{self, CronSchedule};
use sundial_engine::deadlines::{self, Deadline};
use sundial_engine::maintenance::parse_days;
use sundial_engine::{Run, RunOutcome, Trigger, Window, Zone};

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
    by: String,
    #[serde(default = "daily")]
    days: String,
    now: String,
    /// Each run: start, end (UTC) and outcome (`succeeded`, `failed`, `in_progress`).
    #[serde(default)]
    runs: Vec<[String; 3]>,
    /// The job's schedules (5-field cron in `zone`): its next run due is the first after now.
    #[serde(default)]
    schedules: Vec<String>,
    /// Every deadline instant in `[from, to)`, when given.
    instants: Option<Instants>,
    /// The latest deadline instant at or before now.
    last: String,
    /// When the success that met it ended; absent: missed.
    met: Option<String>,
    /// Whether the job has a `deadline_missed` problem now.
    problem: bool,
    /// Words its evidence (UTC text) must hold.
    #[serde(default)]
    evidence: Vec<String>,
    /// How many deadline instants in a row it missed (the problem's count; default 1), and the
    /// first of them (the problem's `since`; default `last`).
    in_a_row: Option<usize>,
    since: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Instants {
    from: String,
    to: String,
    expect: Vec<String>,
}

fn daily() -> String {
    "daily".into()
}

fn t(s: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(s).map(|d| d.to_utc()).map_err(|e| format!("bad instant {s:?}: {e}"))
}

fn outcome(s: &str) -> Result<RunOutcome, String> {
    match s {
        "succeeded" => Ok(RunOutcome::Succeeded),
        "failed" => Ok(RunOutcome::Failed),
        "in_progress" => Ok(RunOutcome::InProgress),
        other => Err(format!("unknown outcome {other:?}")),
    }
}

fn run(start: DateTime<Utc>, end: DateTime<Utc>, outcome: RunOutcome) -> Run {
    Run {
        start,
        duration_secs: (end - start).num_seconds(),
        outcome,
        trigger: Trigger::Schedule(None),
        message: String::new(),
        steps: Vec::new(),
    }
}

fn check(case: &Case) -> Result<(), String> {
    let zone = Zone::from_name(&case.zone).ok_or_else(|| format!("unknown zone {:?}", case.zone))?;
    let by = NaiveTime::parse_from_str(&case.by, "%H:%M").map_err(|e| format!("by: {e}"))?;
    let days = parse_days(&case.days)?;
    let deadline = Deadline { name: "Ledger ready".into(), by, days, zone };
    let now = t(&case.now)?;
    let runs: Vec<Run> =
        case.runs.iter().map(|[a, b, o]| Ok(run(t(a)?, t(b)?, outcome(o)?))).collect::<Result<_, String>>()?;
    if let Some(i) = &case.instants {
        let got = deadline.instants(Window::new(t(&i.from)?, t(&i.to)?));
        let want = i.expect.iter().map(|s| t(s)).collect::<Result<Vec<_>, _>>()?;
        if got != want {
            return Err(format!("instants: expected {want:?}\n   got {got:?}"));
        }
    }
    let verdict = deadlines::last_verdict(&deadline, &runs, now).ok_or("no deadline instant before now")?;
    if verdict.at != t(&case.last)? {
        return Err(format!("last instant: expected {}, got {}", case.last, verdict.at));
    }
    let met = case.met.as_deref().map(t).transpose()?;
    if verdict.met != met {
        return Err(format!("met: expected {met:?}, got {:?}", verdict.met));
    }
    let next_due = case
        .schedules
        .iter()
        .filter_map(|s| {
            let f = cron::forecast(0, &CronSchedule::new(s.clone()), zone, Window::new(now, now + TimeDelta::days(8)));
            f.occurrences.first().map(|o| o.at)
        })
        .min();
    let problem = deadlines::problem("SQL1", ("1", "ETL - Nightly Load"), &deadline, &runs, next_due, now);
    match (&problem, case.problem) {
        (Some(p), true) => {
            for want in &case.evidence {
                if !p.evidence.contains(want.as_str()) {
                    return Err(format!("evidence lacks {want:?}: {}", p.evidence));
                }
            }
            let since = case.since.as_deref().map(t).transpose()?.unwrap_or(verdict.at);
            if p.at != verdict.at || p.kind.key() != "deadline_missed" || p.kind.severity().key() != "error" {
                return Err(format!("problem: {p:?}"));
            }
            if p.since != Some(since) || p.count != case.in_a_row.unwrap_or(1) {
                return Err(format!(
                    "missed in a row: expected {} since {since}, got {} since {:?}",
                    case.in_a_row.unwrap_or(1),
                    p.count,
                    p.since
                ));
            }
        }
        (None, false) => {}
        (got, want) => return Err(format!("problem: expected {want}, got {got:?}")),
    }
    // The window's verdicts end with the latest one (a window reaching past now lists none after it).
    let window = Window::new(now - TimeDelta::days(10), now + TimeDelta::days(2));
    let all = deadlines::verdicts(&deadline, &runs, window, now);
    if all.last() != Some(&verdict) {
        return Err(format!("the window's verdicts end with {:?}, not {verdict:?}", all.last()));
    }
    Ok(())
}

#[test]
fn deadline_cases() {
    let (files, mut failures) = cases::load_dir::<File>(&cases_root().join("deadlines"));
    let mut count = 0;
    for (file, f) in &files {
        for case in &f.case {
            count += 1;
            if let Err(e) = check(case) {
                failures.push(format!("{file}: {}: {e}", case.name));
            }
        }
    }
    assert!(count >= 12, "only {count} deadline cases ran");
    assert!(failures.is_empty(), "{} failing:\n{}", failures.len(), failures.join("\n"));
}

const ZONES: [&str; 4] = ["UTC", "Europe/London", "America/New_York", "Australia/Lord_Howe"];

proptest! {
    /// Any deadline, any zone: its instants are in order, one per selected day at most, each a
    /// selected day's wall clock (or the first instant after a skipped one); and a success that
    /// ends at an instant meets that instant, one a second later does not.
    #[test]
    fn a_success_at_the_deadline_meets_it_and_a_second_later_does_not(
        days in proptest::array::uniform7(any::<bool>()),
        minute in 0u32..1440,
        start in 0i64..(3 * 366 * 86_400),
        zone in 0usize..ZONES.len(),
    ) {
        prop_assume!(days.iter().any(|d| *d));
        let zone = Zone::from_name(ZONES[zone]).unwrap();
        let by = NaiveTime::from_hms_opt(minute / 60, minute % 60, 0).unwrap();
        let deadline = Deadline { name: "d".into(), by, days, zone };
        let base = DateTime::parse_from_rfc3339("2025-01-01T00:00:00Z").unwrap().to_utc() + TimeDelta::seconds(start);
        let instants = deadline.instants(Window::new(base, base + TimeDelta::days(15)));
        prop_assert!(instants.len() >= 2, "{instants:?}");
        for w in instants.windows(2) {
            prop_assert!(w[0] < w[1]);
            prop_assert!(w[1] - w[0] >= TimeDelta::hours(22), "{w:?}");
        }
        let at = instants[1];
        let now = at + TimeDelta::hours(1).min((instants.get(2).copied().unwrap_or(at + TimeDelta::days(1)) - at) / 2);
        let exactly = [run(at - TimeDelta::minutes(10), at, RunOutcome::Succeeded)];
        let v = deadlines::last_verdict(&deadline, &exactly, now).unwrap();
        prop_assert_eq!((v.at, v.met), (at, Some(at)));
        let late = [run(at - TimeDelta::minutes(10), at + TimeDelta::seconds(1), RunOutcome::Succeeded)];
        let v = deadlines::last_verdict(&deadline, &late, now).unwrap();
        prop_assert_eq!((v.at, v.met), (at, None));
        // Missed, but the late success closes the problem.
        prop_assert!(deadlines::problem("i", ("1", "j"), &deadline, &late, None, now).is_none());
        prop_assert!(deadlines::problem("i", ("1", "j"), &deadline, &[], None, now).is_some());
    }
}
