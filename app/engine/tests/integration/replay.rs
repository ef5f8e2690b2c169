//! Replay of a schedule edit (`sundial_engine::replay`): data cases from every
//! `tests/cases/replay/*.toml`, then properties on random input (the sweep against all pairs).
//! Adding a case needs no code.
//!
//! A `[[case]]` gives the edited job and the other jobs of the instance directly (no
//! forecasting):
//!
//! ```toml
//! [[case]]
//! name = "moving etl onto the backup creates an overlap"
//! date = "2024-01-01"               # base of short times (default 2024-01-01)
//! window = ["00:00", "+1d 00:00"]   # default [date 00:00, date + 1 day)
//! band_minutes = 15                 # default: Settings::default()
//! [case.edit]
//! name = "etl"
//! current = ["01:00"]
//! proposed = ["02:30"]
//! p50 = 1800                        # seconds; p95 defaults to p50; neither = no history
//! p95 = 2700
//! [[case.job]]
//! name = "backup"
//! occurrences = ["02:00..+7d 00:00/1d"]   # "A..B/STEP" expands to A, A+STEP, … < B (s, m, h, d)
//! p50 = 3600
//! shares = [7]                      # schedules shared with the edited job: moved too
//! proposed = ["02:30"]              # a moved job's own proposed occurrences (optional)
//! [case.expect]                     # every key optional, but at least one must be given
//! moved = ["etl", "backup"]
//! created_likely = ["etl@02:30 backup@02:00 02:30-03:00"]
//! created_possible = []
//! removed_likely = []
//! removed_possible = []
//! current_likely = []               # also current_possible, proposed_likely, proposed_possible
//! refused_current = []
//! refused_proposed = ["etl@01:10 and p95", "etl@01:30 p95 only", "etl@01:50"]
//! bands = ["poller: every 5 min"]
//! no_history = ["adhoc"]
//! summary = { created_likely = 1, refused_proposed = 0 }   # any fields of Summary
//! diagnostics = ["no run history"]  # each a substring of some diagnostic; [] = none
//! ```
//!
//! Instants render relative to `date` as `HH:MM` (`HH:MM:SS` when the seconds are not zero),
//! `+Nd HH:MM` on later days. An overlap renders as `JOB@RUN OTHER@RUN START-END`, with
//! ` (moved)` after the other job's run when it is moved too. A refused occurrence renders as
//! `JOB@AT` (refused at p50 only), `JOB@AT and p95` (at both) or `JOB@AT p95 only`. A band
//! renders as `JOB: PATTERN` (`JOB (moved): …` for a moved job); lists of overlaps, refusals and
//! names compare exactly and in order, a band expectation may stop at a `,` of the pattern.
//!
//! A `[[stats]]` gives `durations = [..]` and expects `p50`, `p95`, `max`, `n` of
//! `duration_stats` (or `none = true`).
//!
//! Every case also checks that the `Impact` survives a JSON round trip and that its counts add up.
use crate::support::cases::{self, CaseFile};
use crate::support::cases_root;
use crate::support::clock::Clock;
use chrono::{DateTime, Duration, Utc};
use proptest::prelude::*;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use sundial_engine::Window;
use sundial_engine::replay::{
    EditedJob, Estimate, Impact, OtherJob, Overlap, ReplayedRun, Settings, Summary, duration_stats, replay, replay_runs,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    case: Vec<Case>,
    #[serde(default)]
    stats: Vec<StatsCase>,
}

impl CaseFile for File {
    fn len(&self) -> usize {
        self.case.len() + self.stats.len()
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
    #[serde(default)]
    band_minutes: Option<i64>,
    edit: EditSpec,
    #[serde(default)]
    job: Vec<JobSpec>,
    #[serde(default)]
    expect: Option<Expect>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditSpec {
    name: String,
    current: Vec<String>,
    proposed: Vec<String>,
    #[serde(default)]
    p50: Option<i64>,
    #[serde(default)]
    p95: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JobSpec {
    name: String,
    occurrences: Vec<String>,
    #[serde(default)]
    p50: Option<i64>,
    #[serde(default)]
    p95: Option<i64>,
    #[serde(default)]
    shares: Vec<i64>,
    #[serde(default)]
    proposed: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    moved: Option<Vec<String>>,
    created_likely: Option<Vec<String>>,
    created_possible: Option<Vec<String>>,
    removed_likely: Option<Vec<String>>,
    removed_possible: Option<Vec<String>>,
    current_likely: Option<Vec<String>>,
    current_possible: Option<Vec<String>>,
    proposed_likely: Option<Vec<String>>,
    proposed_possible: Option<Vec<String>>,
    refused_current: Option<Vec<String>>,
    refused_proposed: Option<Vec<String>>,
    bands: Option<Vec<String>>,
    no_history: Option<Vec<String>>,
    summary: Option<SummarySpec>,
    diagnostics: Option<Vec<String>>,
}

#[derive(Deserialize, Default, PartialEq)]
#[serde(deny_unknown_fields)]
struct SummarySpec {
    created_likely: Option<usize>,
    created_possible: Option<usize>,
    removed_likely: Option<usize>,
    removed_possible: Option<usize>,
    refused_current: Option<usize>,
    refused_proposed: Option<usize>,
    refused_current_p95: Option<usize>,
    refused_proposed_p95: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatsCase {
    name: String,
    durations: Vec<i64>,
    #[serde(default)]
    none: bool,
    #[serde(default)]
    p50: Option<i64>,
    #[serde(default)]
    p95: Option<i64>,
    #[serde(default)]
    max: Option<i64>,
    #[serde(default)]
    n: Option<usize>,
}

fn estimate(p50: Option<i64>, p95: Option<i64>) -> Result<Option<Estimate>, String> {
    match (p50, p95) {
        (None, None) => Ok(None),
        (Some(p50), p95) => Ok(Some(Estimate { p50_secs: p50, p95_secs: p95.unwrap_or(p50) })),
        (None, Some(_)) => Err("p95 without p50".into()),
    }
}

fn render_overlap(o: &Overlap, c: &Clock) -> String {
    format!(
        "{}@{} {}@{}{} {}-{}",
        o.job,
        c.render_short(o.run),
        o.other,
        c.render_short(o.other_run),
        if o.other_moved { " (moved)" } else { "" },
        c.render_short(o.span.start),
        c.render_short(o.span.end)
    )
}

fn render_refused(job: &str, r: &ReplayedRun, c: &Clock) -> Option<String> {
    let at = c.render_short(r.at);
    match (r.refused.is_some(), r.refused_p95.is_some()) {
        (true, true) => Some(format!("{job}@{at} and p95")),
        (true, false) => Some(format!("{job}@{at}")),
        (false, true) => Some(format!("{job}@{at} p95 only")),
        (false, false) => None,
    }
}

fn compare(what: &str, expected: &Option<Vec<String>>, actual: &[String], problems: &mut Vec<String>) {
    if let Some(expected) = expected
        && expected.as_slice() != actual
    {
        problems.push(format!("{what}: expected {expected:?}, got {actual:?}"));
    }
}

/// Invariants every impact keeps, whatever the case expects.
fn check_consistency(i: &Impact, problems: &mut Vec<String>) {
    let s = &i.summary;
    let balance = |what: &str, cur: usize, prop: usize, created: usize, removed: usize, problems: &mut Vec<String>| {
        if prop + removed != cur + created {
            problems.push(format!("{what}: {cur} current + {created} created - {removed} removed != {prop} proposed"));
        }
    };
    balance("likely", i.current.likely.len(), i.proposed.likely.len(), s.created_likely, s.removed_likely, problems);
    balance(
        "possible",
        i.current.possible.len(),
        i.proposed.possible.len(),
        s.created_possible,
        s.removed_possible,
        problems,
    );
    if (s.created_likely, s.removed_likely) != (i.created.likely.len(), i.removed.likely.len()) {
        problems.push("summary does not count the likely lists".into());
    }
    for o in [&i.current, &i.proposed].into_iter().flat_map(|o| o.likely.iter().chain(&o.possible)) {
        if o.span.is_empty() || o.span.start < o.run.max(o.other_run) {
            problems.push(format!("bad overlap span {o:?}"));
        }
    }
    match serde_json::to_string(i).map(|j| serde_json::from_str::<Impact>(&j)) {
        Ok(Ok(back)) if back == *i => {}
        other => problems.push(format!("JSON round trip failed: {:?}", other.map(|r| r.map(|_| "differs")))),
    }
}

fn summary_problems(want: &SummarySpec, got: &Summary) -> Vec<String> {
    let pairs = [
        ("created_likely", want.created_likely, got.created_likely),
        ("created_possible", want.created_possible, got.created_possible),
        ("removed_likely", want.removed_likely, got.removed_likely),
        ("removed_possible", want.removed_possible, got.removed_possible),
        ("refused_current", want.refused_current, got.refused_current),
        ("refused_proposed", want.refused_proposed, got.refused_proposed),
        ("refused_current_p95", want.refused_current_p95, got.refused_current_p95),
        ("refused_proposed_p95", want.refused_proposed_p95, got.refused_proposed_p95),
    ];
    pairs
        .iter()
        .filter_map(|(name, w, g)| match w {
            Some(w) if w != g => Some(format!("summary.{name}: expected {w}, got {g}")),
            _ => None,
        })
        .collect()
}

fn run_case(case: &Case) -> Result<Vec<String>, String> {
    let expect = match &case.expect {
        None => return Err("no [case.expect]".into()),
        Some(e) => e,
    };
    if expect.moved.is_none()
        && expect.created_likely.is_none()
        && expect.created_possible.is_none()
        && expect.removed_likely.is_none()
        && expect.removed_possible.is_none()
        && expect.current_likely.is_none()
        && expect.current_possible.is_none()
        && expect.proposed_likely.is_none()
        && expect.proposed_possible.is_none()
        && expect.refused_current.is_none()
        && expect.refused_proposed.is_none()
        && expect.bands.is_none()
        && expect.no_history.is_none()
        && expect.summary.as_ref().is_none_or(|s| *s == SummarySpec::default())
        && expect.diagnostics.is_none()
    {
        return Err("[case.expect] expects nothing".into());
    }

    let c = Clock::new(&case.date)?;
    let window = c.window(&case.window, 1)?;
    let mut settings = Settings::default();
    if let Some(m) = case.band_minutes {
        settings.band_gap_secs = m * 60;
    }
    let edit = EditedJob {
        name: case.edit.name.clone(),
        current: c.list(&case.edit.current)?,
        proposed: c.list(&case.edit.proposed)?,
        estimate: estimate(case.edit.p50, case.edit.p95)?,
    };
    let others = case
        .job
        .iter()
        .map(|j| {
            Ok(OtherJob {
                name: j.name.clone(),
                occurrences: c.list(&j.occurrences)?,
                estimate: estimate(j.p50, j.p95)?,
                shared_schedules: j.shares.clone(),
                proposed: j.proposed.as_ref().map(|p| c.list(p)).transpose()?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;

    let i = replay(&edit, &others, window, &settings);

    let mut problems = Vec::new();
    let overlaps = |v: &[Overlap]| v.iter().map(|o| render_overlap(o, &c)).collect::<Vec<_>>();
    let names: Vec<String> = i.moved.iter().map(|m| m.name.clone()).collect();
    compare("moved", &expect.moved, &names, &mut problems);
    compare("created_likely", &expect.created_likely, &overlaps(&i.created.likely), &mut problems);
    compare("created_possible", &expect.created_possible, &overlaps(&i.created.possible), &mut problems);
    compare("removed_likely", &expect.removed_likely, &overlaps(&i.removed.likely), &mut problems);
    compare("removed_possible", &expect.removed_possible, &overlaps(&i.removed.possible), &mut problems);
    compare("current_likely", &expect.current_likely, &overlaps(&i.current.likely), &mut problems);
    compare("current_possible", &expect.current_possible, &overlaps(&i.current.possible), &mut problems);
    compare("proposed_likely", &expect.proposed_likely, &overlaps(&i.proposed.likely), &mut problems);
    compare("proposed_possible", &expect.proposed_possible, &overlaps(&i.proposed.possible), &mut problems);
    let refused = |proposed: bool| -> Vec<String> {
        i.moved
            .iter()
            .flat_map(|m| {
                let runs = if proposed { &m.proposed } else { &m.current };
                runs.iter().filter_map(|r| render_refused(&m.name, r, &c))
            })
            .collect()
    };
    compare("refused_current", &expect.refused_current, &refused(false), &mut problems);
    compare("refused_proposed", &expect.refused_proposed, &refused(true), &mut problems);
    compare("no_history", &expect.no_history, &i.no_history, &mut problems);
    if let Some(want) = &expect.bands {
        let got: Vec<String> = i
            .bands
            .iter()
            .map(|b| format!("{}{}: {}", b.job, if b.moved { " (moved)" } else { "" }, b.pattern))
            .collect();
        let ok = want.len() == got.len()
            && want
                .iter()
                .zip(&got)
                .all(|(w, g)| g == w || (g.starts_with(w.as_str()) && g.as_bytes().get(w.len()) == Some(&b',')));
        if !ok {
            problems.push(format!("bands: expected {want:?}, got {got:?}"));
        }
    }
    if let Some(want) = &expect.summary {
        problems.extend(summary_problems(want, &i.summary));
    }
    let diagnostics: Vec<String> = i.diagnostics.iter().map(ToString::to_string).collect();
    match &expect.diagnostics {
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
    check_consistency(&i, &mut problems);
    Ok(problems)
}

fn run_stats(case: &StatsCase) -> Result<Vec<String>, String> {
    let got = duration_stats(&case.durations);
    if case.none {
        return Ok(if got.is_none() { vec![] } else { vec![format!("expected None, got {got:?}")] });
    }
    if case.p50.is_none() && case.p95.is_none() && case.max.is_none() && case.n.is_none() {
        return Err("a [[stats]] case expects nothing".into());
    }
    let Some(s) = got else { return Ok(vec!["expected stats, got None".into()]) };
    let mut problems = Vec::new();
    for (name, want, got) in [
        ("p50", case.p50, s.p50),
        ("p95", case.p95, s.p95),
        ("max", case.max, s.max),
        ("n", case.n.map(|n| n as i64), s.n as i64),
    ] {
        if let Some(w) = want
            && w != got
        {
            problems.push(format!("{name}: expected {w}, got {got}"));
        }
    }
    Ok(problems)
}

/// Every case of every file of `dir`; a file that cannot be read or parsed fails, and so does a
/// case without an expectation.
fn run_dir(dir: &Path) -> (usize, Vec<String>) {
    let paths = match cases::files(dir) {
        Ok(paths) => paths,
        Err(e) => return (0, vec![e]),
    };
    let mut failures = Vec::new();
    let mut count = 0;
    for path in &paths {
        let file_name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let file: File = match cases::load(&file_name, path) {
            Ok(f) => f,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let results = file
            .case
            .iter()
            .map(|c| (c.name.as_str(), run_case(c)))
            .chain(file.stats.iter().map(|s| (s.name.as_str(), run_stats(s))));
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
fn every_replay_case() {
    let dir = cases_root().join("replay");
    let (count, failures) = run_dir(&dir);
    assert!(failures.is_empty(), "{} failure(s) in {count} case(s):\n{}", failures.len(), failures.join("\n"));
    assert!(count >= 20, "only {count} replay cases found in {}", dir.display());
}

/// The harness itself: a case without an expectation, an unreadable file and an unparsable
/// file all fail.
#[test]
fn the_harness_fails_what_it_cannot_check() {
    let tmp = std::env::temp_dir().join(format!("sundial-replay-harness-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let case = "[[case]]\nname = \"x\"\n[case.edit]\nname = \"etl\"\ncurrent = [\"01:00\"]\nproposed = [\"02:00\"]\n";
    let write = |name: &str, text: &str| std::fs::write(tmp.join(name), text).expect("write");

    write("a.toml", case);
    let (_, f) = run_dir(&tmp);
    assert!(f.len() == 1 && f[0].contains("no [case.expect]"), "{f:?}");

    write("a.toml", &format!("{case}[case.expect]\n"));
    let (_, f) = run_dir(&tmp);
    assert!(f.len() == 1 && f[0].contains("expects nothing"), "{f:?}");

    write("a.toml", &format!("{case}[case.expect]\nsummary = {{}}\n"));
    let (_, f) = run_dir(&tmp);
    assert!(f.len() == 1 && f[0].contains("expects nothing"), "{f:?}");

    write("a.toml", &format!("{case}[case.expect]\nmoved = [\"etl\"]\n"));
    let (n, f) = run_dir(&tmp);
    assert!(n == 1 && f.is_empty(), "{f:?}");

    write("b.toml", "[[case]]\nname = \n");
    let (_, f) = run_dir(&tmp);
    assert!(f.len() == 1 && f[0].starts_with("b.toml"), "{f:?}");

    // Not UTF-8: cannot be read as text.
    std::fs::write(tmp.join("b.toml"), [0xff, 0xfe, 0x00]).expect("write");
    let (_, f) = run_dir(&tmp);
    assert!(f.len() == 1 && f[0].starts_with("b.toml"), "{f:?}");
    std::fs::remove_file(tmp.join("b.toml")).expect("rm");

    write("c.toml", "# nothing here\n");
    let (_, f) = run_dir(&tmp);
    assert!(f.len() == 1 && f[0].contains("no cases"), "{f:?}");

    let (_, f) = run_dir(&tmp.join("missing"));
    assert_eq!(f.len(), 1, "{f:?}");
    let _ = std::fs::remove_dir_all(&tmp);
}

// ---------------------------------------------------------------------------------------------
// Properties: the sweep against a brute-force all-pairs check.

fn base() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2024-01-01T00:00:00Z").unwrap().to_utc()
}

const SPAN_SECS: i64 = 2 * 86_400;

/// Instants in two days, often on a 5-minute grid so that runs touch and coincide.
fn instant() -> impl Strategy<Value = DateTime<Utc>> {
    prop_oneof![
        3 => (0i64..SPAN_SECS / 300).prop_map(|k| base() + Duration::seconds(k * 300)),
        1 => (0i64..SPAN_SECS).prop_map(|s| base() + Duration::seconds(s)),
    ]
}

/// A job's occurrences: scattered, or a regular cadence (sometimes frequent enough for a band).
fn occurrences() -> impl Strategy<Value = Vec<DateTime<Utc>>> {
    prop_oneof![
        3 => prop::collection::vec(instant(), 0..25),
        1 => (instant(), prop_oneof![Just(300i64), Just(600), Just(1_200), Just(3_600)], 1usize..60)
            .prop_map(|(start, step, n)| (0..n as i64).map(|k| start + Duration::seconds(k * step)).collect()),
    ]
}

fn estimate_strategy() -> impl Strategy<Value = Option<Estimate>> {
    prop::option::weighted(
        0.85,
        prop_oneof![
            4 => (0i64..7_200, 0i64..3_600).prop_map(|(p50, extra)| Estimate { p50_secs: p50, p95_secs: p50 + extra }),
            1 => (-100i64..3_600, -100i64..3_600).prop_map(|(a, b)| Estimate { p50_secs: a, p95_secs: b }),
        ],
    )
}

#[derive(Debug, Clone)]
struct Input {
    edit: EditedJob,
    others: Vec<OtherJob>,
    settings: Settings,
}

fn input() -> impl Strategy<Value = Input> {
    let other = (occurrences(), estimate_strategy(), 0u8..6, prop::option::of(occurrences()));
    (
        occurrences(),
        occurrences(),
        estimate_strategy(),
        prop::collection::vec(other, 0..7),
        prop_oneof![Just(0i64), Just(900), 0i64..2_000],
    )
        .prop_map(|(current, proposed, estimate, others, band)| Input {
            edit: EditedJob { name: "edited".into(), current, proposed, estimate },
            others: others
                .into_iter()
                .enumerate()
                .map(|(k, (occurrences, estimate, share, own))| OtherJob {
                    name: format!("job{k}"),
                    occurrences,
                    estimate,
                    // One in six shares a schedule with the edited job; half of those have
                    // schedules of their own too.
                    shared_schedules: if share == 0 { vec![7] } else { vec![] },
                    proposed: if share == 0 { own } else { None },
                })
                .collect(),
            settings: Settings { band_gap_secs: band },
        })
}

type Key = (String, DateTime<Utc>, String, DateTime<Utc>, bool, DateTime<Utc>, DateTime<Utc>);

fn key(o: &Overlap) -> Key {
    (o.job.clone(), o.run, o.other.clone(), o.other_run, o.other_moved, o.span.start, o.span.end)
}

/// All pairs, by hand: which runs execute, and every pair of them that intersects.
fn brute_force(i: &Input, window: Window, impact: &Impact, proposed: bool, p95: bool) -> Vec<Key> {
    let band: BTreeSet<&str> = impact.bands.iter().map(|b| b.job.as_str()).collect();
    let accepted = |runs: &[ReplayedRun]| -> Vec<Window> {
        runs.iter()
            .filter(|r| if p95 { r.refused_p95.is_none() } else { r.refused.is_none() })
            .map(|r| if p95 { r.possible } else { r.likely })
            .collect()
    };
    let moved: Vec<(&str, Vec<Window>)> = impact
        .moved
        .iter()
        .filter(|m| !band.contains(m.name.as_str()))
        .map(|m| (m.name.as_str(), accepted(if proposed { &m.proposed } else { &m.current })))
        .collect();
    let others: Vec<(&str, Vec<Window>)> = i
        .others
        .iter()
        .filter(|o| o.shared_schedules.is_empty() && !band.contains(o.name.as_str()))
        .map(|o| {
            let inside: Vec<DateTime<Utc>> = o.occurrences.iter().copied().filter(|t| window.contains(*t)).collect();
            (o.name.as_str(), accepted(&replay_runs(&inside, o.estimate)))
        })
        .collect();
    let mut out = Vec::new();
    let mut meet = |a: (&str, &Window), b: (&str, &Window), other_moved: bool| {
        let (start, end) = (a.1.start.max(b.1.start), a.1.end.min(b.1.end));
        if start < end {
            out.push((a.0.to_owned(), a.1.start, b.0.to_owned(), b.1.start, other_moved, start, end));
        }
    };
    for (k, (name, runs)) in moved.iter().enumerate() {
        for r in runs {
            for (other, theirs) in &others {
                for t in theirs {
                    meet((name, r), (other, t), false);
                }
            }
            for (other, theirs) in &moved[k + 1..] {
                for t in theirs {
                    meet((name, r), (other, t), true);
                }
            }
        }
    }
    out.sort();
    out
}

fn sorted_keys(v: &[Overlap]) -> Vec<Key> {
    let mut k: Vec<Key> = v.iter().map(key).collect();
    k.sort();
    k
}

/// Overlaps per (job, other, other's run unless moved): the multiset the diff matches on.
fn match_counts(v: &[Overlap]) -> BTreeMap<(String, String, Option<DateTime<Utc>>), usize> {
    let mut m = BTreeMap::new();
    for o in v {
        *m.entry((o.job.clone(), o.other.clone(), (!o.other_moved).then_some(o.other_run))).or_default() += 1;
    }
    m
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, ..ProptestConfig::default() })]

    #[test]
    fn sweep_finds_exactly_the_intersecting_pairs(i in input()) {
        let window = Window::new(base(), base() + Duration::seconds(SPAN_SECS + 3_600));
        let impact = replay(&i.edit, &i.others, window, &i.settings);
        for (proposed, got) in [(false, &impact.current), (true, &impact.proposed)] {
            let likely = brute_force(&i, window, &impact, proposed, false);
            prop_assert_eq!(sorted_keys(&got.likely), likely.clone(), "likely, proposed = {}", proposed);
            let same_runs: BTreeSet<_> = likely.iter().map(|k| (k.0.clone(), k.1, k.2.clone(), k.3)).collect();
            let possible: Vec<Key> = brute_force(&i, window, &impact, proposed, true)
                .into_iter()
                .filter(|k| !same_runs.contains(&(k.0.clone(), k.1, k.2.clone(), k.3)))
                .collect();
            prop_assert_eq!(sorted_keys(&got.possible), possible, "possible, proposed = {}", proposed);
        }
        // The diff: per matching key, created = max(0, proposed - current), removed the reverse.
        for (cur, prop, created, removed) in [
            (&impact.current.likely, &impact.proposed.likely, &impact.created.likely, &impact.removed.likely),
            (&impact.current.possible, &impact.proposed.possible, &impact.created.possible, &impact.removed.possible),
        ] {
            let (c, p) = (match_counts(cur), match_counts(prop));
            let keys: BTreeSet<_> = c.keys().chain(p.keys()).cloned().collect();
            let (cr, rm) = (match_counts(created), match_counts(removed));
            for k in keys {
                let (nc, np) = (c.get(&k).copied().unwrap_or(0), p.get(&k).copied().unwrap_or(0));
                prop_assert_eq!(cr.get(&k).copied().unwrap_or(0), np.saturating_sub(nc), "created {:?}", k);
                prop_assert_eq!(rm.get(&k).copied().unwrap_or(0), nc.saturating_sub(np), "removed {:?}", k);
            }
            let prop_set: BTreeSet<Key> = prop.iter().map(key).collect();
            prop_assert!(created.iter().all(|o| prop_set.contains(&key(o))));
            let cur_set: BTreeSet<Key> = cur.iter().map(key).collect();
            prop_assert!(removed.iter().all(|o| cur_set.contains(&key(o))));
        }
    }

    #[test]
    fn the_agent_never_runs_a_job_twice_at_once(occ in occurrences(), estimate in estimate_strategy()) {
        let runs = replay_runs(&occ, estimate);
        for p95 in [false, true] {
            let mut last_end: Option<DateTime<Utc>> = None;
            for r in &runs {
                let (w, refused) = if p95 { (r.possible, r.refused_p95) } else { (r.likely, r.refused) };
                match refused {
                    Some(f) => {
                        // Refused exactly when the last accepted run is still going.
                        prop_assert_eq!(Some(f.running.end), last_end);
                        prop_assert!(f.running.start < r.at && r.at < f.running.end);
                    }
                    None => {
                        prop_assert!(last_end.is_none_or(|e| e <= r.at));
                        last_end = Some(w.end);
                    }
                }
            }
        }
    }

    #[test]
    fn duration_stats_are_nearest_rank(mut d in prop::collection::vec(-10i64..100_000, 0..200)) {
        let s = duration_stats(&d);
        prop_assert_eq!(s.is_none(), d.is_empty());
        if let Some(s) = s {
            for v in &mut d { *v = (*v).max(0); }
            d.sort();
            let n = d.len();
            prop_assert_eq!(s.n, n);
            prop_assert_eq!(s.max, d[n - 1]);
            // Nearest rank: the smallest value with at least p% of the values at or below it.
            for (p, got) in [(50usize, s.p50), (95, s.p95)] {
                let want = *d.iter().find(|v| d.iter().filter(|w| w <= v).count() * 100 >= p * n).unwrap();
                prop_assert_eq!(got, want, "p{}", p);
            }
        }
    }
}
