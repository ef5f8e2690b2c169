//! Runs every case in `tests/cases/agent/*.toml`. Adding a case needs no code.
//!
//! A file holds `[[case]]` tables:
//!
//! ```toml
//! [[case]]
//! name = "every other Monday, start Monday (Microsoft's example)"
//! tz = "UTC"                      # IANA zone (default UTC)
//! after = "2008-03-03T10:00:00"   # local wall clock in tz; with `expect`: next_after
//! schedule = { freq_type = 8, freq_interval = 2, freq_recurrence_factor = 2, active_start_date = 20080303, active_start_time = 80000 }
//! expect = ["2008-03-17T08:00:00"] # local wall clock of the occurrences (count = len, or `count`)
//! ```
//!
//! Other keys (any may be combined):
//! - `window = [start, end]` (local wall clock): `expect` lists *every* occurrence in it.
//! - `count`: how many to ask `next_after` for (default: the length of `expect`).
//! - `expect_utc`: the instants (UTC wall clock) of the occurrences.
//! - `expect_nominal`: the scheduled wall-clock times; `expect_dst`: "gap", "fold" or "none".
//! - `expect_error = "field"` (+ `expect_value`): an Error diagnostic naming that field (and
//!   value) must be present, and the forecast must be empty. `expect_errors = ["a", "b"]`: one
//!   Error naming each field.
//! - `expect_warning` / `expect_info`: a Warning / Info diagnostic whose text contains this.
//! - `describe = "Occurs …"`: the exact description.
//!
//! Unless `expect_error` is given, a case fails on any Error diagnostic.
use chrono::{DateTime, NaiveDateTime, Utc};
use chrono_tz::Tz;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use sundial_engine::{self as engine, AgentSchedule, Forecast, Severity, Window, Zone, agent, describe, tz};

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    case: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    #[serde(default = "utc")]
    tz: String,
    schedule: AgentSchedule,
    after: Option<String>,
    window: Option<[String; 2]>,
    count: Option<usize>,
    expect: Option<Vec<String>>,
    expect_utc: Option<Vec<String>>,
    expect_nominal: Option<Vec<String>>,
    expect_dst: Option<Vec<String>>,
    expect_error: Option<String>,
    expect_errors: Option<Vec<String>>,
    expect_value: Option<String>,
    expect_warning: Option<String>,
    expect_info: Option<String>,
    describe: Option<String>,
}

fn utc() -> String {
    "UTC".to_owned()
}

fn parse_local(s: &str) -> Result<NaiveDateTime, String> {
    NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S").map_err(|e| format!("bad time {s:?}: {e}"))
}

fn fmt(t: NaiveDateTime) -> String {
    t.format("%Y-%m-%dT%H:%M:%S").to_string()
}

fn dst_name(d: Option<engine::Dst>) -> &'static str {
    match d {
        Some(engine::Dst::Gap) => "gap",
        Some(engine::Dst::Fold) => "fold",
        None => "none",
    }
}

/// Run one case; every problem found is returned (not only the first).
fn run(case: &Case) -> Vec<String> {
    let mut problems = Vec::new();
    let tz: Tz = match case.tz.parse() {
        Ok(t) => t,
        Err(e) => return vec![format!("bad tz {:?}: {e}", case.tz)],
    };
    let tz = Zone::from(tz);
    let s = &case.schedule;

    if let Some(want) = &case.describe {
        let got = describe::agent(s);
        if &got != want {
            problems.push(format!("describe:\n      want {want:?}\n      got  {got:?}"));
        }
    }

    let mut forecast: Option<Forecast> = None;
    if let Some([a, b]) = &case.window {
        match (parse_local(a), parse_local(b)) {
            (Ok(a), Ok(b)) => {
                let w = Window::new(tz::local_to_instant(a, tz), tz::local_to_instant(b, tz));
                forecast = Some(agent::forecast(1, s, tz, w));
            }
            (a, b) => problems.extend(a.err().into_iter().chain(b.err())),
        }
    } else if case.expect.is_some()
        || case.expect_error.is_some()
        || case.expect_errors.is_some()
        || case.expect_warning.is_some()
        || case.expect_info.is_some()
    {
        let after = match case.after.as_deref().map(parse_local) {
            Some(Ok(t)) => tz::local_to_instant(t, tz),
            Some(Err(e)) => return vec![e],
            None => DateTime::<Utc>::from_timestamp(0, 0).expect("epoch"),
        };
        let count = case.count.or(case.expect.as_ref().map(Vec::len)).unwrap_or(5);
        forecast = Some(agent::next_after(1, s, tz, after, count));
    }

    let Some(f) = forecast else {
        if case.describe.is_none() {
            problems.push("case checks nothing (give expect, window, expect_error, … or describe)".into());
        }
        return problems;
    };

    let diags: Vec<String> = f.diagnostics.iter().map(|d| format!("{:?} {d}", d.severity)).collect();
    let locals: Vec<String> = f.occurrences.iter().map(|o| fmt(o.local)).collect();

    // Ordering invariant, whatever the case says.
    if f.occurrences.windows(2).any(|w| w[0].at >= w[1].at) {
        problems.push(format!("occurrences not strictly increasing: {locals:?}"));
    }

    if let Some(field) = &case.expect_error {
        let hit = f.diagnostics.iter().any(|d| {
            d.severity == Severity::Error
                && d.field.as_deref() == Some(field.as_str())
                && case.expect_value.as_ref().is_none_or(|v| d.value.as_deref() == Some(v.as_str()))
        });
        if !hit {
            problems.push(format!(
                "no Error naming {field}{}; diagnostics: {diags:?}",
                case.expect_value.as_ref().map(|v| format!(" = {v}")).unwrap_or_default()
            ));
        }
        if !f.occurrences.is_empty() {
            problems.push(format!("an invalid schedule produced occurrences: {locals:?}"));
        }
        // validate() must agree with the forecast's diagnostics.
        let v = agent::validate(s);
        if !v.iter().any(|d| d.severity == Severity::Error && d.field.as_deref() == Some(field.as_str())) {
            problems.push(format!("validate() does not name {field}"));
        }
    }
    if let Some(fields) = &case.expect_errors {
        for field in fields {
            if !f
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error && d.field.as_deref() == Some(field.as_str()))
            {
                problems.push(format!("no Error naming {field}; diagnostics: {diags:?}"));
            }
        }
        if !f.occurrences.is_empty() {
            problems.push(format!("an invalid schedule produced occurrences: {locals:?}"));
        }
    }
    if case.expect_error.is_none() && case.expect_errors.is_none() && f.has_errors() {
        problems.push(format!("unexpected errors: {diags:?}"));
    }

    for (sev, want) in [(Severity::Warning, &case.expect_warning), (Severity::Info, &case.expect_info)] {
        if let Some(want) = want {
            let hit = f.diagnostics.iter().any(|d| d.severity == sev && d.to_string().contains(want.as_str()));
            if !hit {
                problems.push(format!("no {sev:?} containing {want:?}; diagnostics: {diags:?}"));
            }
        }
    }

    if let Some(want) = &case.expect
        && &locals != want
    {
        problems.push(format!("occurrences (local):\n      want {want:?}\n      got  {locals:?}"));
    }
    if let Some(want) = &case.expect_utc {
        let got: Vec<String> = f.occurrences.iter().map(|o| fmt(o.at.naive_utc())).collect();
        if &got != want {
            problems.push(format!("occurrences (UTC):\n      want {want:?}\n      got  {got:?}"));
        }
    }
    if let Some(want) = &case.expect_nominal {
        let got: Vec<String> = f.occurrences.iter().map(|o| fmt(o.nominal)).collect();
        if &got != want {
            problems.push(format!("nominal times:\n      want {want:?}\n      got  {got:?}"));
        }
    }
    if let Some(want) = &case.expect_dst {
        let got: Vec<&str> = f.occurrences.iter().map(|o| dst_name(o.dst)).collect();
        if &got != want {
            problems.push(format!("dst tags:\n      want {want:?}\n      got  {got:?}"));
        }
    }
    // Every occurrence: local is the wall clock of `at`, and the schedule id is passed through.
    for o in &f.occurrences {
        if o.local != tz::to_local(o.at, tz) || o.schedule != 1 {
            problems.push(format!("occurrence {o:?} is inconsistent"));
        }
        if o.dst != Some(engine::Dst::Gap) && o.local != o.nominal {
            problems.push(format!("occurrence {o:?}: local differs from nominal outside a gap"));
        }
    }
    problems
}

fn case_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/agent");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

#[test]
fn agent_cases() {
    let mut total = 0;
    let mut failures = Vec::new();
    for path in case_files() {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{name}: unreadable: {e}"));
                continue;
            }
        };
        let file: File = match toml::from_str(&text) {
            Ok(f) => f,
            Err(e) => {
                failures.push(format!("{name}: does not parse: {e}"));
                continue;
            }
        };
        for case in &file.case {
            total += 1;
            let problems = run(case);
            if !problems.is_empty() {
                failures.push(format!("{name} / {}:\n    {}", case.name, problems.join("\n    ")));
            }
        }
    }
    eprintln!("agent cases: {total} run, {} failed", failures.len());
    assert!(failures.is_empty(), "{} of {total} agent cases failed:\n\n{}", failures.len(), failures.join("\n\n"));
    assert!(total >= 60, "only {total} agent cases found; at least 60 expected");
}
