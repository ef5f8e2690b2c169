//! Runs every case in `tests/cases/risks/*.toml`: the risks ahead of an instance's jobs
//! (`risks::ahead`), listed whole and in order. Adding a case needs no code.
//!
//! ```toml
//! [[case]]
//! name = "a daily 02:30 job on the New York spring-forward night"
//! tz = "America/New_York"        # the instance's zone
//! now = "2027-03-01T00:00:00"    # local wall clock: the horizon starts here
//! days = 30                      # the horizon's length (default 30)
//!
//! [[case.job]]
//! name = "nightly"               # also its id unless `id` is given
//! enabled = true                 # default true
//! p50 = 600                      # durations in seconds (both, or neither: no history)
//! p95 = 900
//! [[case.job.schedule]]          # as `Schedule` deserializes: `kind` and the row's columns
//! kind = "agent"                 # (pgagent arrays as values, as in `pgagent/`)
//! enabled = true                 # the schedule's own flag (default true); `name` optional
//! freq_type = 4
//!
//! [[case.expect]]                # every risk, in order; `expect = []` for none
//! job = "nightly"
//! kind = "dst_gap"
//! at = ["2027-03-14T03:00:00"]   # local wall clock in `tz` (all of them, up to 50)
//! explanation = "On 2027-03-14, …" # exact
//! with = "other job"             # collides only
//! ```
//!
//! Besides what a case expects, every DST risk is held to the forecast: each instant it lists
//! is one of the job's forecast occurrences (or, for a skipped due time, the change itself,
//! with no occurrence of the job in the gap), and what it says of the passes of a fold is how
//! the forecast's runs lie in them.
//!
//! `RISKS_PRINT=1 cargo test -p sundial-engine --test integration risks_cases` prints every
//! case's risks as `[[case.expect]]` tables, to check by eye and paste into a new case.
use crate::support::cases::{self, CaseFile};
use crate::support::{cases_root, fmt, parse_local};
use chrono::{DateTime, TimeDelta, Utc};
use chrono_tz::Tz;
use serde::Deserialize;
use sundial_engine::durations::DurationStats;
use sundial_engine::fleet::JobSchedule;
use sundial_engine::risks::{self, JobAhead, Risk, RiskKind};
use sundial_engine::{Schedule, Window, Zone, tz};

#[derive(Deserialize)]
struct File {
    #[serde(default)]
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
    tz: String,
    now: String,
    #[serde(default = "thirty")]
    days: i64,
    #[serde(default)]
    job: Vec<Job>,
    expect: Option<Vec<Expect>>,
}

fn thirty() -> i64 {
    30
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Job {
    name: String,
    id: Option<String>,
    #[serde(default = "yes")]
    enabled: bool,
    p50: Option<i64>,
    p95: Option<i64>,
    #[serde(default)]
    schedule: Vec<toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    job: String,
    kind: String,
    #[serde(default)]
    at: Vec<String>,
    explanation: Option<String>,
    with: Option<String>,
}

/// A schedule table: `kind`, optional `name` and `enabled`, the row's columns.
fn schedule_of(i: usize, v: &toml::Value) -> Result<JobSchedule, String> {
    let toml::Value::Table(t) = v else { return Err("a schedule is a table".into()) };
    let mut t = t.clone();
    let name = t.remove("name").and_then(|n| n.as_str().map(str::to_owned)).unwrap_or_default();
    let enabled = t.remove("enabled").and_then(|e| e.as_bool()).unwrap_or(true);
    let kind = t.get("kind").and_then(|k| k.as_str()).unwrap_or_default().to_owned();
    let mut v = toml::Value::Table(t);
    if kind == "pgagent" {
        v = crate::dialect_cases::pgagent_row(v)?;
    }
    let schedule: Schedule = v.try_into().map_err(|e| format!("schedule does not deserialize: {e}"))?;
    Ok(JobSchedule { id: i as i64 + 1, name, enabled, schedule })
}

struct Built {
    id: String,
    name: String,
    enabled: bool,
    schedules: Vec<JobSchedule>,
    durations: Option<DurationStats>,
}

fn build(jobs: &[Job]) -> Result<Vec<Built>, String> {
    let mut out = Vec::new();
    for j in jobs {
        let schedules = j.schedule.iter().enumerate().map(|(i, s)| schedule_of(i, s)).collect::<Result<Vec<_>, _>>()?;
        let durations = match (j.p50, j.p95) {
            (Some(p50), Some(p95)) => Some(DurationStats { count: 20, p50, p95, max: p95 }),
            (None, None) => None,
            _ => return Err(format!("{}: give p50 and p95 together", j.name)),
        };
        out.push(Built {
            id: j.id.clone().unwrap_or_else(|| j.name.clone()),
            name: j.name.clone(),
            enabled: j.enabled,
            schedules,
            durations,
        });
    }
    Ok(out)
}

fn ahead_of(built: &[Built]) -> Vec<JobAhead<'_>> {
    built
        .iter()
        .map(|b| JobAhead {
            id: &b.id,
            name: &b.name,
            enabled: b.enabled,
            schedules: &b.schedules,
            durations: b.durations,
        })
        .collect()
}

/// What every DST risk must agree with: the forecast's own instants.
fn held_to_forecast(r: &Risk, job: &Built, tz: Zone, horizon: Window) -> Vec<String> {
    let mut problems = Vec::new();
    if !matches!(r.kind, RiskKind::DstGap | RiskKind::DstFold) {
        return problems;
    }
    let all: Vec<_> = job
        .schedules
        .iter()
        .flat_map(|s| sundial_engine::forecast(s.id, &s.schedule, tz, horizon).occurrences)
        .collect();
    let skipped = r.explanation.contains(" skips ");
    for t in &r.at {
        let known = all.iter().any(|o| o.at == *t);
        if !known && !skipped {
            problems.push(format!("{}: {} is no occurrence of the forecast", r.kind.key(), t));
        }
    }
    if skipped && r.kind == RiskKind::DstGap && r.at.len() == 1 && !r.explanation.contains(" runs ") {
        // Nothing of the job in the hour after the change: the due time is gone.
        let t = r.at[0];
        if all.iter().any(|o| t <= o.at && o.at < t + TimeDelta::hours(1) && o.dst.is_some()) {
            problems.push(format!("says the due time is skipped, but the forecast runs it near {t}"));
        }
    }
    if r.kind == RiskKind::DstFold {
        let changes = risks::changes(tz, horizon);
        let Some(c) = changes.iter().find(|c| {
            let span = TimeDelta::seconds(i64::from(c.before - c.after));
            r.at.iter().all(|t| c.at - span <= *t && *t < c.at + span)
        }) else {
            problems.push("dst_fold: its instants lie in no repeated hour".into());
            return problems;
        };
        // The forecast's own runs in each pass, against what the sentence says.
        let span = TimeDelta::seconds(i64::from(c.before - c.after));
        let first = all.iter().filter(|o| c.at - span <= o.at && o.at < c.at).count();
        let second = all.iter().filter(|o| c.at <= o.at && o.at < c.at + span).count();
        let says = |w: &str| r.explanation.contains(w);
        let ok = match (first, second) {
            (_, 0) => says("first pass only"),
            (0, _) => says("second pass only"),
            _ => {
                says("both passes")
                    && says(&format!("({} runs: {first} in the first, {second} in the second)", first + second))
            }
        };
        if !ok {
            problems.push(format!(
                "dst_fold: the forecast runs {first} in the first pass, {second} in the second, but it says {:?}",
                r.explanation
            ));
        }
    }
    problems
}

fn run_case(c: &Case) -> Vec<String> {
    let Some(expect) = &c.expect else {
        return vec!["case checks nothing (give expect, [] for no risk)".into()];
    };
    let tz: Tz = match c.tz.parse() {
        Ok(t) => t,
        Err(_) => return vec![format!("bad tz {:?}", c.tz)],
    };
    let tz = Zone::from(tz);
    let now = match parse_local(&c.now) {
        Ok(n) => tz::local_to_instant(n, tz),
        Err(e) => return vec![e],
    };
    let horizon = Window::new(now, now + TimeDelta::days(c.days));
    let built = match build(&c.job) {
        Ok(b) => b,
        Err(e) => return vec![e],
    };
    let got = risks::ahead(&ahead_of(&built), tz, horizon);
    let mut problems = Vec::new();
    for r in &got {
        if let Some(job) = built.iter().find(|b| b.id == r.job_id) {
            problems.extend(held_to_forecast(r, job, tz, horizon));
        }
        if r.severity != r.kind.info().severity {
            problems.push(format!("{}: severity {:?} is not its kind's", r.kind.key(), r.severity));
        }
    }
    let show = |r: &Risk| {
        let at: Vec<String> = r.at.iter().map(|t| fmt(tz::to_local(*t, tz))).collect();
        format!("{} {} at {:?} with {:?}: {}", r.job, r.kind.key(), at, r.with.as_ref().map(|w| &w.job), r.explanation)
    };
    if std::env::var("RISKS_PRINT").is_ok() {
        eprintln!("=== {}", c.name);
        for r in &got {
            let at: Vec<String> = r.at.iter().map(|t| format!("{:?}", fmt(tz::to_local(*t, tz)))).collect();
            eprintln!(
                "[[case.expect]]\njob = {:?}\nkind = {:?}\nat = [{}]\nexplanation = {:?}",
                r.job,
                r.kind.key(),
                at.join(", "),
                r.explanation
            );
            if let Some(w) = &r.with {
                eprintln!("with = {:?}", w.job);
            }
        }
    }
    if got.len() != expect.len() {
        problems.push(format!(
            "expected {} risk(s), got {}:\n    {}",
            expect.len(),
            got.len(),
            got.iter().map(show).collect::<Vec<_>>().join("\n    ")
        ));
        return problems;
    }
    for (i, (r, e)) in got.iter().zip(expect).enumerate() {
        let at: Vec<String> = r.at.iter().map(|t| fmt(tz::to_local(*t, tz))).collect();
        let mut wrong = Vec::new();
        if r.job != e.job {
            wrong.push(format!("job {:?}", r.job));
        }
        if r.kind.key() != e.kind {
            wrong.push(format!("kind {}", r.kind.key()));
        }
        if at != e.at {
            wrong.push(format!("at {at:?}"));
        }
        if e.explanation.as_ref().is_some_and(|x| x != &r.explanation) {
            wrong.push(format!("explanation {:?}", r.explanation));
        }
        if r.with.as_ref().map(|w| &w.job) != e.with.as_ref() {
            wrong.push(format!("with {:?}", r.with.as_ref().map(|w| &w.job)));
        }
        if !wrong.is_empty() {
            problems.push(format!("risk {i}: got {}", wrong.join(", ")));
        }
    }
    problems
}

#[test]
fn every_risks_case() {
    let (files, mut failures) = cases::load_dir::<File>(&cases_root().join("risks"));
    let mut n = 0;
    for (short, f) in files {
        for c in &f.case {
            n += 1;
            for p in run_case(c) {
                failures.push(format!("{short} / {}: {p}", c.name));
            }
        }
    }
    eprintln!("risks cases: {n}");
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
    assert!(n >= 20, "only {n} risks cases");
}

/// Bounds: a job every minute over 90 days (129,600 due times) that overlaps itself lists 50
/// instants and counts them all; 50 hourly jobs that collide give one risk per pair. (Its
/// speed: `cargo bench -p sundial-engine --bench engine -- risks`.)
#[test]
fn a_job_every_minute_over_ninety_days_is_counted_whole_and_listed_bounded() {
    let tz = Zone::from(chrono_tz::Europe::Berlin);
    let now: DateTime<Utc> = "2026-11-28T12:00:00Z".parse().unwrap();
    let every_minute = vec![JobSchedule {
        id: 1,
        name: String::new(),
        enabled: true,
        schedule: Schedule::Cron(sundial_engine::cron::CronSchedule::new("* * * * *")),
    }];
    let hourly = vec![JobSchedule {
        id: 2,
        name: String::new(),
        enabled: true,
        schedule: Schedule::Cron(sundial_engine::cron::CronSchedule::new("0 * * * *")),
    }];
    let names: Vec<String> = (0..50).map(|i| format!("hourly {i:03}")).collect();
    let mut jobs = vec![JobAhead {
        id: "m",
        name: "every minute",
        enabled: true,
        schedules: &every_minute,
        durations: Some(DurationStats { count: 10, p50: 30, p95: 90, max: 90 }),
    }];
    for n in &names {
        jobs.push(JobAhead {
            id: n,
            name: n,
            enabled: true,
            schedules: &hourly,
            durations: Some(DurationStats { count: 10, p50: 900, p95: 1200, max: 1200 }),
        });
    }
    let horizon = Window::new(now, now + TimeDelta::days(90));
    let got = risks::ahead(&jobs, tz, horizon);
    let minute = got.iter().find(|r| r.job == "every minute" && r.kind == RiskKind::OverlapsItself);
    let minute = minute.expect("the every-minute job overlaps itself");
    assert!(minute.explanation.contains("129600 due times"), "{}", minute.explanation);
    assert_eq!(minute.at.len(), risks::MAX_AT);
    assert_eq!(got.iter().filter(|r| r.kind == RiskKind::Collides).count(), 50 * 49 / 2);
}
