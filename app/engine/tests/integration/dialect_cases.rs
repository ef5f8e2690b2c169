//! Runs every case in `tests/cases/{cron,mysql_event,job_table,service_broker,primentra,pgagent,dry_run}/*.toml`.
//! Adding a case needs no code. One test runs them all, reports every failure with its file
//! and case, and checks the minimum number of cases per dialect.
//!
//! A forecast file holds `[[case]]` tables:
//!
//! ```toml
//! [[case]]
//! name = "Sunday 02:30"
//! tz = "UTC"                        # the tz argument (cron.timezone, SYSTEM, session zone)
//! after = "2026-11-22T00:00:00"     # local wall clock in tz; with `expect`: next_after
//! schedule = "30 2 * * 0"           # cron: the expression, or { expr = "…", last_start = "…" }
//!                                   # other dialects: a table of the row's columns
//! expect = ["2026-11-22T02:30:00"]  # local wall clock of the occurrences
//! ```
//!
//! Other keys (any may be combined):
//! - `window = [start, end]` (local wall clock): `expect` lists *every* occurrence in it.
//! - `count`: how many to ask `next_after` for (default: the length of `expect`).
//! - `expect_utc`: instants (UTC wall clock); `expect_nominal`; `expect_dst` ("gap", "fold",
//!   "none").
//! - `expect_error = "field"` (+ `expect_value`): an Error naming that field (and value); the
//!   forecast must be empty. `expect_message`: some diagnostic's text contains this.
//! - `expect_warning` / `expect_info`: a Warning / Info whose text contains this.
//! - `describe = "…"`: the exact description (cron: with the zone, `describe_in`).
//! - pgAgent only: `now` (local wall clock): what `pga_next_schedule` answers when called then
//!   (`expect`: its one run, `[]` for NULL; `expect_message`: the error it raises); and the
//!   arrays may be written as the values set (`jscminutes = [0, 30]`, `jschours`,
//!   `jscweekdays` 0 = Sunday … 6, `jscmonthdays` 1..31 and 32 = last day, `jscmonths` 1..12),
//!   or as the column's own text (`"{t,f,…}"`).
//!
//! Unless `expect_error` is given, a case fails on any Error diagnostic. A case must expect
//! something (any `expect*` key or `describe`); one that expects nothing fails, and so does a
//! file that cannot be read, does not parse or holds no case.
//!
//! A dry-run file (`dry_run/`) holds `[[case]]` tables with `config` (a SchedulerConfigurations
//! row), `state` (the queue), `now`, and `expect_fire`, `expect_reason` (contained in the
//! reason), `expect_source`, `expect_zombie`, or `expect_error` (field); at least one of them.
use crate::support::cases::{self, CaseFile};
use crate::support::{cases_root, dst_name, fmt, parse_local};
use chrono::{DateTime, NaiveDateTime, Utc};
use chrono_tz::Tz;
use serde::Deserialize;
use sundial_engine::cron::{self, CronSchedule};
use sundial_engine::pgagent;
use sundial_engine::primentra::{self, QueueState, SchedulerConfiguration};
use sundial_engine::{self as engine, Forecast, Schedule, Severity, Window, Zone, tz};

/// Minimum cases per directory.
const MINIMUM: &[(&str, usize)] = &[
    ("cron", 25),
    ("mysql_event", 25),
    ("job_table", 10),
    ("service_broker", 10),
    ("primentra", 10),
    ("pgagent", 30),
    ("dry_run", 15),
];

#[derive(Deserialize)]
struct File<C> {
    #[serde(default = "Vec::new")]
    case: Vec<C>,
}

impl<C: serde::de::DeserializeOwned> CaseFile for File<C> {
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
    schedule: toml::Value,
    after: Option<String>,
    window: Option<[String; 2]>,
    now: Option<String>,
    count: Option<usize>,
    expect: Option<Vec<String>>,
    expect_utc: Option<Vec<String>>,
    expect_nominal: Option<Vec<String>>,
    expect_dst: Option<Vec<String>>,
    expect_error: Option<String>,
    expect_value: Option<String>,
    expect_message: Option<String>,
    expect_warning: Option<String>,
    expect_info: Option<String>,
    describe: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DryCase {
    name: String,
    config: toml::Value,
    #[serde(default = "empty_table")]
    state: toml::Value,
    now: String,
    expect_fire: Option<bool>,
    expect_reason: Option<String>,
    expect_source: Option<String>,
    expect_zombie: Option<bool>,
    expect_error: Option<String>,
}

fn utc() -> String {
    "UTC".to_owned()
}

fn empty_table() -> toml::Value {
    toml::Value::Table(toml::Table::new())
}

impl Case {
    /// Whether the case expects anything: occurrences, diagnostics or a description.
    fn checks_something(&self) -> bool {
        self.expect.is_some()
            || self.expect_utc.is_some()
            || self.expect_nominal.is_some()
            || self.expect_dst.is_some()
            || self.expect_error.is_some()
            || self.expect_message.is_some()
            || self.expect_warning.is_some()
            || self.expect_info.is_some()
            || self.describe.is_some()
    }
}

impl DryCase {
    /// Whether the case expects anything of the dry run.
    fn checks_something(&self) -> bool {
        self.expect_fire.is_some()
            || self.expect_reason.is_some()
            || self.expect_source.is_some()
            || self.expect_zombie.is_some()
            || self.expect_error.is_some()
    }
}

fn schedule_of(dir: &str, v: toml::Value) -> Result<Schedule, String> {
    let e = |e: toml::de::Error| format!("schedule does not deserialize: {e}");
    Ok(match dir {
        "cron" => match v {
            toml::Value::String(s) => Schedule::Cron(CronSchedule::new(s)),
            other => Schedule::Cron(other.try_into().map_err(e)?),
        },
        "mysql_event" => Schedule::MysqlEvent(v.try_into().map_err(e)?),
        "job_table" => Schedule::JobTable(v.try_into().map_err(e)?),
        "service_broker" => Schedule::ServiceBroker(v.try_into().map_err(e)?),
        "primentra" => Schedule::Primentra(v.try_into().map_err(e)?),
        "pgagent" => Schedule::PgAgent(pgagent_row(v)?.try_into().map_err(e)?),
        other => return Err(format!("no dialect for directory {other}")),
    })
}

/// A pgAgent row with its arrays written as the values set turned into the columns' text.
pub(crate) fn pgagent_row(v: toml::Value) -> Result<toml::Value, String> {
    let toml::Value::Table(mut t) = v else { return Err("a pgagent schedule is a table of columns".into()) };
    // Column, slots, slot of the first value (minute 0 is slot 1; day 1 is slot 1).
    for (col, n, shift) in [
        ("jscminutes", 60, 1),
        ("jschours", 24, 1),
        ("jscweekdays", 7, 1),
        ("jscmonthdays", 32, 0),
        ("jscmonths", 12, 0),
    ] {
        let Some(toml::Value::Array(items)) = t.get(col) else { continue };
        if !items.iter().all(|i| i.is_integer()) {
            continue;
        }
        let mut slots = vec!["f"; n];
        for i in items {
            let slot = i.as_integer().unwrap_or(-1) + shift;
            match usize::try_from(slot - 1).ok().filter(|&s| s < n) {
                Some(s) => slots[s] = "t",
                None => return Err(format!("{col}: {i} is no value of the column")),
            }
        }
        t.insert(col.into(), toml::Value::String(format!("{{{}}}", slots.join(","))));
    }
    Ok(toml::Value::Table(t))
}

/// A `now` case: what `pga_next_schedule` answers when called then.
fn run_now(c: &Case, schedule: &Schedule, tz: Zone, now: &str) -> Vec<String> {
    let Schedule::PgAgent(s) = schedule else { return vec!["`now` is for pgagent cases".into()] };
    let now = match parse_local(now) {
        Ok(n) => tz::local_to_instant(n, tz),
        Err(e) => return vec![e],
    };
    let mut problems = Vec::new();
    let (answer, diags) = pgagent::pga_next_schedule(s, tz, now);
    let got: Vec<String> = match &answer {
        pgagent::NextRun::At(t) => vec![fmt(tz::to_local(*t, tz))],
        _ => Vec::new(),
    };
    check_list(&mut problems, "expect", got, &c.expect);
    if let Some(m) = &c.expect_message {
        let text = match &answer {
            pgagent::NextRun::Fails(e) => e.clone(),
            other => format!("{other:?}"),
        };
        if !text.contains(m.as_str()) {
            problems.push(format!("expected the function to fail with {m:?}; got {text:?}"));
        }
    }
    if c.expect_error.is_none() && diags.iter().any(|d| d.severity == Severity::Error) {
        problems.push(format!("unexpected Error: {diags:?}"));
    }
    problems
}

fn check_list(problems: &mut Vec<String>, what: &str, got: Vec<String>, want: &Option<Vec<String>>) {
    if let Some(want) = want
        && &got != want
    {
        problems.push(format!("{what}: expected {want:?}, got {got:?}"));
    }
}

/// Run one forecast case; every problem found is returned.
fn run_case(dir: &str, c: Case) -> Vec<String> {
    if !c.checks_something() {
        return vec![
            "case checks nothing (give expect, expect_utc, expect_nominal, expect_dst, expect_error, expect_message, expect_warning, expect_info or describe)".into(),
        ];
    }
    let mut problems = Vec::new();
    let tz: Tz = match c.tz.parse() {
        Ok(t) => t,
        Err(_) => return vec![format!("bad tz {:?}", c.tz)],
    };
    let tz = Zone::from(tz);
    let schedule = match schedule_of(dir, c.schedule.clone()) {
        Ok(s) => s,
        Err(e) => return vec![e],
    };
    if let Some(now) = &c.now {
        return run_now(&c, &schedule, tz, now);
    }
    let f: Forecast = if let Some([a, b]) = &c.window {
        let (a, b) = match (parse_local(a), parse_local(b)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => return vec![e],
        };
        engine::forecast(7, &schedule, tz, Window::new(tz::local_to_instant(a, tz), tz::local_to_instant(b, tz)))
    } else {
        let after = match c.after.as_deref().map(parse_local) {
            Some(Ok(a)) => a,
            Some(Err(e)) => return vec![e],
            None => NaiveDateTime::parse_from_str("2026-01-01T00:00:00", "%Y-%m-%dT%H:%M:%S").unwrap(),
        };
        let count = c
            .count
            .or(c.expect.as_ref().map(Vec::len))
            .or(c.expect_utc.as_ref().map(Vec::len))
            .or(c.expect_nominal.as_ref().map(Vec::len))
            .or(c.expect_dst.as_ref().map(Vec::len))
            .unwrap_or(5);
        engine::next_after(7, &schedule, tz, tz::local_to_instant(after, tz), count)
    };
    if f.occurrences.iter().any(|o| o.schedule != 7) {
        problems.push("an occurrence lost its schedule id".into());
    }
    if f.occurrences.windows(2).any(|w| w[0].at >= w[1].at) {
        problems.push("occurrences are not strictly increasing".into());
    }
    check_list(&mut problems, "expect", f.occurrences.iter().map(|o| fmt(o.local)).collect(), &c.expect);
    check_list(
        &mut problems,
        "expect_utc",
        f.occurrences.iter().map(|o| fmt(o.at.naive_utc())).collect(),
        &c.expect_utc,
    );
    check_list(
        &mut problems,
        "expect_nominal",
        f.occurrences.iter().map(|o| fmt(o.nominal)).collect(),
        &c.expect_nominal,
    );
    check_list(
        &mut problems,
        "expect_dst",
        f.occurrences.iter().map(|o| dst_name(o.dst).to_owned()).collect(),
        &c.expect_dst,
    );
    let text: Vec<String> = f.diagnostics.iter().map(|d| d.to_string()).collect();
    match &c.expect_error {
        Some(field) => {
            let hit = f.diagnostics.iter().any(|d| {
                d.severity == Severity::Error
                    && d.field.as_deref() == Some(field.as_str())
                    && c.expect_value.as_ref().is_none_or(|v| d.value.as_deref() == Some(v.as_str()))
            });
            if !hit {
                problems.push(format!("expected an Error on {field} (value {:?}); got {text:?}", c.expect_value));
            }
            if !f.occurrences.is_empty() {
                problems.push("an Error case produced occurrences".into());
            }
        }
        None => {
            if f.has_errors() {
                problems.push(format!("unexpected Error: {text:?}"));
            }
        }
    }
    for (want, sev) in [(&c.expect_warning, Severity::Warning), (&c.expect_info, Severity::Info)] {
        if let Some(w) = want
            && !f.diagnostics.iter().any(|d| d.severity == sev && d.to_string().contains(w.as_str()))
        {
            problems.push(format!("expected a {sev:?} containing {w:?}; got {text:?}"));
        }
    }
    if let Some(m) = &c.expect_message
        && !text.iter().any(|t| t.contains(m.as_str()))
    {
        problems.push(format!("expected a diagnostic containing {m:?}; got {text:?}"));
    }
    if let Some(want) = &c.describe {
        let got = match &schedule {
            Schedule::Cron(s) => cron::describe_in(s, tz),
            other => engine::describe(other),
        };
        if &got != want {
            problems.push(format!("describe: expected {want:?}, got {got:?}"));
        }
    }
    problems
}

fn run_dry(c: DryCase) -> Vec<String> {
    if !c.checks_something() {
        return vec![
            "case checks nothing (give expect_fire, expect_reason, expect_source, expect_zombie or expect_error)"
                .into(),
        ];
    }
    let mut problems = Vec::new();
    let cfg: SchedulerConfiguration = match c.config.try_into() {
        Ok(x) => x,
        Err(e) => return vec![format!("config does not deserialize: {e}")],
    };
    let state: QueueState = match c.state.try_into() {
        Ok(x) => x,
        Err(e) => return vec![format!("state does not deserialize: {e}")],
    };
    let now = match parse_local(&c.now) {
        Ok(n) => n,
        Err(e) => return vec![e],
    };
    match (primentra::dry_run(&cfg, &state, now), &c.expect_error) {
        (Err(d), Some(field)) => {
            if d.field.as_deref() != Some(field.as_str()) {
                problems.push(format!("expected an error on {field}, got {d}"));
            }
        }
        (Err(d), None) => problems.push(format!("unexpected error: {d}")),
        (Ok(r), Some(field)) => problems.push(format!("expected an error on {field}, got {r:?}")),
        (Ok(r), None) => {
            if let Some(f) = c.expect_fire
                && r.would_fire != f
            {
                problems.push(format!("would_fire: expected {f}, got {} ({})", r.would_fire, r.reason));
            }
            if let Some(w) = &c.expect_reason
                && !r.reason.contains(w.as_str())
            {
                problems.push(format!("reason: expected it to contain {w:?}, got {:?}", r.reason));
            }
            if let Some(w) = &c.expect_source
                && r.trigger_source.as_deref() != Some(w.as_str())
            {
                problems.push(format!("trigger_source: expected {w:?}, got {:?}", r.trigger_source));
            }
            if let Some(z) = c.expect_zombie
                && r.zombie_released != z
            {
                problems.push(format!("zombie_released: expected {z}, got {}", r.zombie_released));
            }
        }
    }
    problems
}

/// Every case of one dialect's directory: how many ran, and the failures, each naming its file
/// (and case).
fn run_dir(dir: &str) -> (usize, Vec<String>) {
    let path = cases_root().join(dir);
    if dir == "dry_run" {
        let (files, failures) = cases::load_dir::<File<DryCase>>(&path);
        run_files(files, failures, run_dry)
    } else {
        let (files, failures) = cases::load_dir::<File<Case>>(&path);
        run_files(files, failures, |c| run_case(dir, c))
    }
}

fn run_files<C: Named>(
    files: Vec<(String, File<C>)>,
    mut failures: Vec<String>,
    run: impl Fn(C) -> Vec<String>,
) -> (usize, Vec<String>) {
    let mut n = 0;
    for (short, f) in files {
        for c in f.case {
            n += 1;
            let name = c.name().to_owned();
            for p in run(c) {
                failures.push(format!("{short} / {name}: {p}"));
            }
        }
    }
    (n, failures)
}

trait Named {
    fn name(&self) -> &str;
}

impl Named for Case {
    fn name(&self) -> &str {
        &self.name
    }
}

impl Named for DryCase {
    fn name(&self) -> &str {
        &self.name
    }
}

#[test]
fn every_dialect_case() {
    let mut failures = Vec::new();
    let mut counts = Vec::new();
    for (dir, minimum) in MINIMUM {
        let (n, problems) = run_dir(dir);
        failures.extend(problems);
        if n < *minimum {
            failures.push(format!("{dir}: {n} cases, fewer than the minimum {minimum}"));
        }
        counts.push(format!("{dir}: {n}"));
    }
    eprintln!("cases: {}", counts.join(", "));
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}

/// The harness itself: a file that cannot be read, does not parse or holds no case fails (it
/// used to read as no case at all), and so does a case that checks nothing; each failure names
/// the file (and the case).
#[test]
fn the_dialect_harness_fails_what_it_cannot_check() {
    let unreadable = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied");
    let e = cases::parse::<File<Case>>("cron/x.toml", Err(unreadable)).err().expect("an unreadable file fails");
    assert!(e.starts_with("cron/x.toml: unreadable") && e.contains("permission denied"), "{e}");
    for bad in ["[[case]]\nname = \n", "[[case]]\nname = \"x\"\nschedule = \"* * * * *\"\nexpcet = []\n"] {
        let e = cases::parse::<File<Case>>("cron/x.toml", Ok(bad.into())).err().expect("does not parse");
        assert!(e.starts_with("cron/x.toml: does not parse"), "{bad}: {e}");
    }
    for empty in ["", "# no case yet\n"] {
        let e = cases::parse::<File<DryCase>>("dry_run/x.toml", Ok(empty.into())).err().expect("an empty file fails");
        assert_eq!(e, "dry_run/x.toml: no cases in it");
    }
    // A case that expects nothing fails, naming its file and itself.
    let silent = "[[case]]\nname = \"silent\"\nschedule = \"30 2 * * 0\"\nafter = \"2026-11-22T00:00:00\"\n";
    let file: File<Case> = cases::parse("cron/x.toml", Ok(silent.into())).expect("parses");
    let (n, f) = run_files(vec![("cron/x.toml".into(), file)], Vec::new(), |c| run_case("cron", c));
    assert!(n == 1 && f.len() == 1 && f[0].starts_with("cron/x.toml / silent: case checks nothing"), "{f:?}");
    let silent =
        "[[case]]\nname = \"silent\"\nconfig = { ProcessingMode = \"triggered\" }\nnow = \"2026-03-02T06:00:00\"\n";
    let file: File<DryCase> = cases::parse("dry_run/x.toml", Ok(silent.into())).expect("parses");
    let (n, f) = run_files(vec![("dry_run/x.toml".into(), file)], Vec::new(), run_dry);
    assert!(n == 1 && f.len() == 1 && f[0].starts_with("dry_run/x.toml / silent: case checks nothing"), "{f:?}");
    // With one expectation the same case runs.
    let checked = "[[case]]\nname = \"checked\"\nschedule = \"30 2 * * 0\"\nafter = \"2026-11-22T00:00:00\"\nexpect = [\"2026-11-22T02:30:00\"]\n";
    let file: File<Case> = cases::parse("cron/x.toml", Ok(checked.into())).expect("parses");
    let (n, f) = run_files(vec![("cron/x.toml".into(), file)], Vec::new(), |c| run_case("cron", c));
    assert!(n == 1 && f.is_empty(), "{f:?}");
    // A directory that cannot be listed, or holds no case file, fails too.
    let (_, f) = cases::load_dir::<File<Case>>(&cases_root().join("no-such-dialect"));
    assert!(f.len() == 1 && f[0].contains("no-such-dialect"), "{f:?}");
}

/// The dialect property the reconciler will use: who queues a tick that comes during a run.
#[test]
fn overlap_policy_per_dialect() {
    let agent = Schedule::Agent(engine::AgentSchedule::default());
    let cron = Schedule::Cron(CronSchedule::new("* * * * *"));
    assert!(!cron::queues_overlapping_ticks(&agent));
    assert!(cron::queues_overlapping_ticks(&cron));
    assert_eq!(cron::overlap_policy(&Schedule::MysqlEvent(Default::default())), cron::Overlap::Concurrent);
    let _: DateTime<Utc> = DateTime::<Utc>::UNIX_EPOCH;
}

/// Every new variant survives the JSON round trip the server and the browser use.
#[test]
fn schedules_round_trip_through_json() {
    let rows = [
        r#"{"kind":"cron","expr":"30 2 * * 0"}"#,
        r#"{"kind":"mysql_event","EVENT_TYPE":"RECURRING","INTERVAL_VALUE":5,"INTERVAL_FIELD":"MINUTE","STARTS":"2026-01-01 00:00:00","TIME_ZONE":"UTC"}"#,
        r#"{"kind":"job_table","job_schedule_start":"2026-01-01 00:00:00","job_schedule_interval":60}"#,
        r#"{"kind":"service_broker","ValidFrom":"2026-01-01 00:00:00","FrequencyType":1,"IsEnabled":true}"#,
        r#"{"kind":"primentra","ProcessingMode":"scheduled","ScheduleType":"daily","RunTimes":"06:00"}"#,
        r#"{"kind":"pgagent","jscid":3,"jscenabled":true,"jscstart":"1969-12-31 00:00:00+00","jscend":null,"jscminutes":"{t,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,t,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f,f}","jscweekdays":[false,true,false,false,false,false,false],"exceptions":[{"jexid":1,"jexdate":"1970-01-05","jextime":null}]}"#,
    ];
    // The first tags (after the seeds) still read as the same schedules.
    for (old, new) in [("seed002", "job_table"), ("seed003", "service_broker"), ("seed004", "primentra")] {
        let r = rows.iter().find(|r| r.contains(&format!("\"{new}\""))).unwrap();
        let a: Schedule = serde_json::from_str(r).unwrap();
        let b: Schedule = serde_json::from_str(&r.replace(new, old)).unwrap_or_else(|e| panic!("{old}: {e}"));
        assert_eq!(a, b, "{old}");
    }
    for r in rows {
        let s: Schedule = serde_json::from_str(r).unwrap_or_else(|e| panic!("{r}: {e}"));
        let back: Schedule = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(s, back, "{r}");
        let f = engine::next_after(1, &s, Tz::UTC.into(), DateTime::<Utc>::UNIX_EPOCH, 1);
        assert!(!f.has_errors(), "{r}: {:?}", f.diagnostics);
    }
}
