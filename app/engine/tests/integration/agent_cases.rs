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
//! Unless `expect_error` is given, a case fails on any Error diagnostic. A case must expect
//! something (any `expect*` key or `describe`); one that expects nothing fails, and so does a
//! file that cannot be read, does not parse or holds no case.
use crate::support::cases::{self, CaseFile};
use crate::support::{cases_root, dst_name, fmt, parse_local};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::Deserialize;
use sundial_engine::{self as engine, AgentSchedule, Forecast, Severity, Window, Zone, agent, describe, tz};

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

impl Case {
    /// Whether the case expects anything of the forecast.
    fn checks_the_forecast(&self) -> bool {
        self.expect.is_some()
            || self.expect_utc.is_some()
            || self.expect_nominal.is_some()
            || self.expect_dst.is_some()
            || self.expect_error.is_some()
            || self.expect_errors.is_some()
            || self.expect_warning.is_some()
            || self.expect_info.is_some()
    }
}

const CHECKS_NOTHING: &str = "case checks nothing (give expect, expect_utc, expect_nominal, expect_dst, expect_error(s), expect_warning, expect_info or describe)";

/// Run one case; every problem found is returned (not only the first).
fn run(case: &Case) -> Vec<String> {
    if !case.checks_the_forecast() && case.describe.is_none() {
        return vec![CHECKS_NOTHING.into()];
    }
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
    } else if case.checks_the_forecast() {
        let after = match case.after.as_deref().map(parse_local) {
            Some(Ok(t)) => tz::local_to_instant(t, tz),
            Some(Err(e)) => return vec![e],
            None => DateTime::<Utc>::from_timestamp(0, 0).expect("epoch"),
        };
        let count = case
            .count
            .or(case.expect.as_ref().map(Vec::len))
            .or(case.expect_utc.as_ref().map(Vec::len))
            .or(case.expect_nominal.as_ref().map(Vec::len))
            .or(case.expect_dst.as_ref().map(Vec::len))
            .unwrap_or(5);
        forecast = Some(agent::next_after(1, s, tz, after, count));
    }

    let Some(f) = forecast else {
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

/// Every case of every file; the failures, each naming its file and case, and how many ran.
fn run_files(files: Vec<(String, File)>) -> (usize, Vec<String>) {
    let mut total = 0;
    let mut failures = Vec::new();
    for (name, file) in files {
        for case in &file.case {
            total += 1;
            let problems = run(case);
            if !problems.is_empty() {
                failures.push(format!("{name} / {}:\n    {}", case.name, problems.join("\n    ")));
            }
        }
    }
    (total, failures)
}

#[test]
fn agent_cases() {
    let (files, mut failures) = cases::load_dir::<File>(&cases_root().join("agent"));
    let (total, problems) = run_files(files);
    failures.extend(problems);
    eprintln!("agent cases: {total} run, {} failed", failures.len());
    assert!(failures.is_empty(), "{} of {total} agent cases failed:\n\n{}", failures.len(), failures.join("\n\n"));
    assert!(total >= 60, "only {total} agent cases found; at least 60 expected");
}

/// The harness itself: a file that cannot be read, does not parse or holds no case fails, and
/// so does a case that checks nothing; each failure names the file (and the case).
#[test]
fn the_agent_harness_fails_what_it_cannot_check() {
    let unreadable = std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8");
    let e = cases::parse::<File>("agent/x.toml", Err(unreadable)).err().expect("an unreadable file fails");
    assert!(e.starts_with("agent/x.toml: unreadable"), "{e}");
    let e = cases::parse::<File>("agent/x.toml", Ok("[[case]]\nname = \n".into())).err().expect("does not parse");
    assert!(e.starts_with("agent/x.toml: does not parse"), "{e}");
    let typo = "[[case]]\nname = \"x\"\nschedule = { freq_type = 4 }\nexpcet = []\n";
    let e = cases::parse::<File>("agent/x.toml", Ok(typo.into())).err().expect("an unknown key does not parse");
    assert!(e.starts_with("agent/x.toml: does not parse") && e.contains("expcet"), "{e}");
    for empty in ["", "# nothing here\n", "case = []\n"] {
        let e = cases::parse::<File>("agent/x.toml", Ok(empty.into())).err().expect("an empty file fails");
        assert_eq!(e, "agent/x.toml: no cases in it");
    }
    let daily = "schedule = { freq_type = 4, freq_interval = 1, active_start_date = 20240101 }";
    for nothing in [
        format!("[[case]]\nname = \"silent\"\n{daily}\n"),
        format!("[[case]]\nname = \"silent\"\n{daily}\nafter = \"2024-01-01T00:00:00\"\n"),
        format!("[[case]]\nname = \"silent\"\n{daily}\nwindow = [\"2024-01-01T00:00:00\", \"2024-01-03T00:00:00\"]\n"),
    ] {
        let file: File = cases::parse("agent/x.toml", Ok(nothing.clone())).expect("parses");
        let (n, f) = run_files(vec![("agent/x.toml".into(), file)]);
        assert!(
            n == 1 && f.len() == 1 && f[0].starts_with("agent/x.toml / silent:") && f[0].contains("checks nothing"),
            "{nothing}: {f:?}"
        );
    }
    let file: File = cases::parse(
        "agent/x.toml",
        Ok(format!("[[case]]\nname = \"checked\"\n{daily}\nafter = \"2024-01-01T00:00:00\"\nexpect = [\"2024-01-02T00:00:00\"]\n")),
    )
    .expect("parses");
    let (n, f) = run_files(vec![("agent/x.toml".into(), file)]);
    assert!(n == 1 && f.is_empty(), "{f:?}");
}
