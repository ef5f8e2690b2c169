//! Data-driven reconciliation cases: every `[[case]]` and `[[zombie]]` of every
//! `tests/cases/reconcile/*.toml`. Adding a case needs no code.
//!
//! A `[[case]]` gives one job's occurrences and runs directly (no forecasting):
//!
//! ```toml
//! [[case]]
//! name = "a run 30 s after its time is on time"
//! date = "2024-01-01"            # base of short times (default 2024-01-01)
//! now = "12:00"                  # "HH:MM[:SS]", "+1d HH:MM", "-1d HH:MM" or RFC 3339
//! window = ["00:00", "+1d 00:00"] # default [date 00:00, date + 2 days)
//! grace = 60                     # default Settings::default()
//! history_horizon = "09:00"      # optional
//! occurrences = ["10:00", { at = "11:00", schedule = 2 }]   # schedule defaults to 1
//! runs = [{ start = "10:00:30", duration = 60, outcome = "succeeded", trigger = "schedule", schedule = 1 }]
//! zombie_periods = [["10:00", "11:00"]]   # ctx, optional
//! agent_starts = ["13:00"]                # ctx, optional
//! other_starts = ["10:30"]                # starts of other jobs; ctx.all_run_starts = these + the runs'
//! [case.expect]
//! outcomes = ["on_time@0", "missed:no_run"]    # parallel to occurrences
//! runs = ["expected@0"]                        # parallel to runs
//! diagnostics = ["duration_secs"]              # optional: each a substring of some diagnostic; [] = none
//! ```
//!
//! Outcomes render as `on_time@RUN`, `late@RUN:DELAY`, `missed:no_run`,
//! `missed:zombie@START/END`, `missed:agent_down@RESTART`, `skipped_running@RUN`, `unknown`,
//! `upcoming`; runs as `expected@OCC`, `manual`, `unscheduled`. Instants render relative to
//! `date` as `HH:MM:SS` or `+Nd HH:MM:SS`. An expectation matches when it equals the rendering or
//! is a prefix of it ending before `@`, `:` or `/` (so `late` matches `late@0:300`).
//!
//! A `[[zombie]]` calls `zombie_periods(due, starts, window, now, min_due)` and expects
//! `periods = [["START", "END"], …]`.
use crate::support::cases::{self, CaseFile};
use crate::support::cases_root;
use crate::support::clock::Clock;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use sundial_engine::reconcile::{
    InstanceContext, MissCause, Outcome, Reconciliation, Run, RunClass, RunOutcome, Settings, Trigger, reconcile,
    zombie_periods,
};
use sundial_engine::{Occurrence, Window};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    case: Vec<Case>,
    #[serde(default)]
    zombie: Vec<ZombieCase>,
}

impl CaseFile for File {
    fn len(&self) -> usize {
        self.case.len() + self.zombie.len()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    #[serde(default)]
    date: Option<String>,
    #[serde(default)]
    window: Option<[String; 2]>,
    now: String,
    #[serde(default)]
    grace: Option<i64>,
    #[serde(default)]
    history_horizon: Option<String>,
    #[serde(default)]
    occurrences: Vec<OccSpec>,
    #[serde(default)]
    runs: Vec<RunSpec>,
    #[serde(default)]
    zombie_periods: Vec<[String; 2]>,
    #[serde(default)]
    agent_starts: Vec<String>,
    #[serde(default)]
    other_starts: Vec<String>,
    /// The scheduler catches up on a missed time (pgAgent).
    #[serde(default)]
    catches_up: bool,
    expect: Expect,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    outcomes: Vec<String>,
    runs: Vec<String>,
    #[serde(default)]
    diagnostics: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OccSpec {
    At(String),
    Full { at: String, schedule: i64 },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunSpec {
    start: String,
    #[serde(default = "default_duration")]
    duration: i64,
    #[serde(default = "default_outcome")]
    outcome: String,
    #[serde(default = "default_trigger")]
    trigger: String,
    #[serde(default)]
    schedule: Option<i64>,
}

fn default_duration() -> i64 {
    60
}
fn default_outcome() -> String {
    "succeeded".into()
}
fn default_trigger() -> String {
    "schedule".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ZombieCase {
    name: String,
    #[serde(default)]
    date: Option<String>,
    #[serde(default)]
    window: Option<[String; 2]>,
    now: String,
    min_due: usize,
    #[serde(default)]
    due: Vec<String>,
    #[serde(default)]
    starts: Vec<String>,
    periods: Vec<[String; 2]>,
}

fn render_outcome(o: &Outcome, c: &Clock) -> String {
    match o {
        Outcome::OnTime { run } => format!("on_time@{run}"),
        Outcome::Late { run, delay_secs } => format!("late@{run}:{delay_secs}"),
        Outcome::Missed { cause: MissCause::NoRun } => "missed:no_run".into(),
        Outcome::Missed { cause: MissCause::AgentZombie { period } } => {
            format!("missed:zombie@{}/{}", c.render(period.start), c.render(period.end))
        }
        Outcome::Missed { cause: MissCause::AgentDown { restarted_at } } => {
            format!("missed:agent_down@{}", c.render(*restarted_at))
        }
        Outcome::Missed { cause: MissCause::SchedulerStopped { since } } => {
            format!("missed:scheduler_stopped@{}", c.render(*since))
        }
        Outcome::SkippedRunning { run } => format!("skipped_running@{run}"),
        Outcome::Unknown => "unknown".into(),
        Outcome::Upcoming => "upcoming".into(),
        Outcome::Maintenance { window } => format!("maintenance@{}/{}", c.render(window.start), c.render(window.end)),
    }
}

fn render_class(r: &RunClass) -> String {
    match r {
        RunClass::Expected { occurrence } => format!("expected@{occurrence}"),
        RunClass::Manual => "manual".into(),
        RunClass::Unscheduled => "unscheduled".into(),
    }
}

fn matches(expected: &str, actual: &str) -> bool {
    actual == expected
        || (actual.starts_with(expected) && matches!(actual.as_bytes().get(expected.len()), Some(b'@' | b':' | b'/')))
}

fn compare(what: &str, expected: &[String], actual: &[String], problems: &mut Vec<String>) {
    if expected.len() != actual.len() {
        problems.push(format!(
            "{what}: expected {} entries {expected:?}, got {} {actual:?}",
            expected.len(),
            actual.len()
        ));
        return;
    }
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if !matches(e, a) {
            problems.push(format!("{what}[{i}]: expected {e:?}, got {a:?}"));
        }
    }
}

fn parse_run(spec: &RunSpec, c: &Clock) -> Result<Run, String> {
    let outcome = match spec.outcome.as_str() {
        "failed" => RunOutcome::Failed,
        "succeeded" => RunOutcome::Succeeded,
        "retry" => RunOutcome::Retry,
        "canceled" => RunOutcome::Canceled,
        "in_progress" => RunOutcome::InProgress,
        other => return Err(format!("unknown outcome {other:?}")),
    };
    let trigger = match (spec.trigger.as_str(), spec.schedule) {
        ("schedule", id) => Trigger::Schedule(id),
        ("manual", None) => Trigger::Manual,
        ("other", None) => Trigger::Other("Alert 1 (test)".into()),
        (other, id) => return Err(format!("bad trigger {other:?} (schedule {id:?})")),
    };
    Ok(Run {
        start: c.at(&spec.start)?,
        duration_secs: spec.duration,
        outcome,
        trigger,
        message: String::new(),
        steps: Vec::new(),
    })
}

/// Invariants every reconciliation keeps, whatever the case expects.
fn check_consistency(occurrences: &[Occurrence], r: &Reconciliation, problems: &mut Vec<String>) {
    for (i, o) in r.outcomes.iter().enumerate() {
        if let Outcome::OnTime { run } | Outcome::Late { run, .. } = o {
            match r.runs.get(*run) {
                Some(RunClass::Expected { occurrence }) if occurrences[*occurrence].at == occurrences[i].at => {}
                other => problems.push(format!("outcome[{i}] names run {run}, which is classed {other:?}")),
            }
        }
    }
    for (k, c) in r.runs.iter().enumerate() {
        if let RunClass::Expected { occurrence } = c {
            match r.outcomes.get(*occurrence) {
                Some(Outcome::OnTime { run } | Outcome::Late { run, .. }) if *run == k => {}
                other => problems.push(format!("run {k} names occurrence {occurrence}, whose outcome is {other:?}")),
            }
        }
    }
}

fn run_case(case: &Case) -> Result<Vec<String>, String> {
    let c = Clock::new(&case.date)?;
    let window = c.window(&case.window, 2)?;
    let now = c.at(&case.now)?;
    let horizon = case.history_horizon.as_deref().map(|h| c.at(h)).transpose()?;
    let mut settings = Settings::default();
    if let Some(g) = case.grace {
        settings.grace_secs = g;
    }
    let occurrences = case
        .occurrences
        .iter()
        .map(|o| {
            let (at, schedule) = match o {
                OccSpec::At(at) => (at, 1),
                OccSpec::Full { at, schedule } => (at, *schedule),
            };
            let at = c.at(at)?;
            Ok(Occurrence { at, local: at.naive_utc(), nominal: at.naive_utc(), dst: None, schedule })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let runs = case.runs.iter().map(|r| parse_run(r, &c)).collect::<Result<Vec<_>, String>>()?;
    let mut all_run_starts: Vec<DateTime<Utc>> = runs.iter().map(|r| r.start).collect();
    for s in &case.other_starts {
        all_run_starts.push(c.at(s)?);
    }
    all_run_starts.sort();
    let ctx = InstanceContext {
        zombie_periods: case
            .zombie_periods
            .iter()
            .map(|[a, b]| Ok(Window::new(c.at(a)?, c.at(b)?)))
            .collect::<Result<Vec<_>, String>>()?,
        agent_starts: case.agent_starts.iter().map(|s| c.at(s)).collect::<Result<Vec<_>, String>>()?,
        all_run_starts,
        catches_up: case.catches_up,
    };

    let r = reconcile(&occurrences, &runs, window, now, horizon, &ctx, &settings);

    let mut problems = Vec::new();
    let outcomes: Vec<String> = r.outcomes.iter().map(|o| render_outcome(o, &c)).collect();
    let classes: Vec<String> = r.runs.iter().map(render_class).collect();
    compare("outcomes", &case.expect.outcomes, &outcomes, &mut problems);
    compare("runs", &case.expect.runs, &classes, &mut problems);
    if outcomes.len() == occurrences.len() && classes.len() == runs.len() {
        check_consistency(&occurrences, &r, &mut problems);
    }
    let diagnostics: Vec<String> = r.diagnostics.iter().map(ToString::to_string).collect();
    match &case.expect.diagnostics {
        Some(wanted) if wanted.is_empty() && !diagnostics.is_empty() => {
            problems.push(format!("expected no diagnostics, got {diagnostics:?}"));
        }
        Some(wanted) => {
            for w in wanted {
                if !diagnostics.iter().any(|d| d.contains(w.as_str())) {
                    problems.push(format!("no diagnostic mentions {w:?}; got {diagnostics:?}"));
                }
            }
        }
        None => {}
    }
    Ok(problems)
}

fn run_zombie(case: &ZombieCase) -> Result<Vec<String>, String> {
    let c = Clock::new(&case.date)?;
    let window = c.window(&case.window, 2)?;
    let now = c.at(&case.now)?;
    let due = case.due.iter().map(|s| c.at(s)).collect::<Result<Vec<_>, String>>()?;
    let starts = case.starts.iter().map(|s| c.at(s)).collect::<Result<Vec<_>, String>>()?;
    let got: Vec<String> = zombie_periods(&due, &starts, window, now, case.min_due)
        .iter()
        .map(|w| format!("{}/{}", c.render(w.start), c.render(w.end)))
        .collect();
    let want: Vec<String> = case
        .periods
        .iter()
        .map(|[a, b]| Ok(format!("{}/{}", c.render(c.at(a)?), c.render(c.at(b)?))))
        .collect::<Result<Vec<_>, String>>()?;
    Ok(if got == want { Vec::new() } else { vec![format!("periods: expected {want:?}, got {got:?}")] })
}

/// Every case and zombie case of `files`: how many ran, and the failures, each naming its file
/// and case.
fn run_files(files: &[(String, File)]) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut count = 0;
    for (file_name, file) in files {
        let results = file
            .case
            .iter()
            .map(|c| (c.name.as_str(), run_case(c)))
            .chain(file.zombie.iter().map(|z| (z.name.as_str(), run_zombie(z))));
        for (name, result) in results {
            count += 1;
            match result {
                Ok(problems) => failures.extend(problems.into_iter().map(|p| format!("{file_name}: {name}: {p}"))),
                Err(e) => failures.push(format!("{file_name}: {name}: bad case: {e}")),
            }
        }
    }
    (count, failures)
}

#[test]
fn every_reconcile_case() {
    let dir = cases_root().join("reconcile");
    let (files, mut failures) = cases::load_dir::<File>(&dir);
    let (count, problems) = run_files(&files);
    failures.extend(problems);
    assert!(failures.is_empty(), "{} failure(s) in {count} case(s):\n{}", failures.len(), failures.join("\n"));
    assert!(count >= 25, "only {count} reconcile cases found in {}", dir.display());
}

/// The harness itself: a file that cannot be read, does not parse or holds no case fails,
/// naming the file; a case must say what it expects (`[case.expect]` with `outcomes` and
/// `runs`), and a wrong expectation fails naming the file and the case.
#[test]
fn the_reconcile_harness_fails_what_it_cannot_check() {
    let unreadable = std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8");
    let e = cases::parse::<File>("reconcile/x.toml", Err(unreadable)).err().expect("an unreadable file fails");
    assert!(e.starts_with("reconcile/x.toml: unreadable"), "{e}");
    let e = cases::parse::<File>("reconcile/x.toml", Ok("[[case]]\nname = \"x\"\nnow = \"12:00\"\n".into()))
        .err()
        .expect("a case without [case.expect] does not parse");
    assert!(e.starts_with("reconcile/x.toml: does not parse") && e.contains("expect"), "{e}");
    let e = cases::parse::<File>("reconcile/x.toml", Ok("# later\n".into())).err().expect("an empty file fails");
    assert_eq!(e, "reconcile/x.toml: no cases in it");
    let case = "[[case]]\nname = \"late\"\nnow = \"12:00\"\noccurrences = [\"10:00\"]\n[case.expect]\nruns = []\n";
    let file: File =
        cases::parse("reconcile/x.toml", Ok(format!("{case}outcomes = [\"missed:no_run\"]\n"))).expect("parses");
    let (n, f) = run_files(&[("reconcile/x.toml".into(), file)]);
    assert!(n == 1 && f.is_empty(), "{f:?}");
    let file: File =
        cases::parse("reconcile/x.toml", Ok(format!("{case}outcomes = [\"on_time@0\"]\n"))).expect("parses");
    let (n, f) = run_files(&[("reconcile/x.toml".into(), file)]);
    assert!(n == 1 && !f.is_empty() && f[0].starts_with("reconcile/x.toml: late: "), "{f:?}");
}
