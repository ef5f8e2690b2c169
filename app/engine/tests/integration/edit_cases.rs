//! Runs every case in `tests/cases/edit/*.toml` (the what-if editor's engine side,
//! `sundial_engine::edit`). Adding a case needs no code. One test runs them all and reports
//! every failure with its file and case; a file that cannot be read or parsed, a file without
//! cases, and a case that checks nothing all fail.
//!
//! A file holds `[[case]]` tables:
//!
//! ```toml
//! [[case]]
//! name = "weekly, FOR JSON row"
//! dialect = "agent"                       # a Dialect key
//! row = '{"freq_type": 8, "freq_interval": 2}'   # the pasted row: JSON text, or a TOML table
//! expect_schedule = { kind = "agent", freq_type = 8, freq_interval = 2 }
//! ```
//!
//! Inputs:
//! - `row`: the (proposed) row, parsed with `parse_row_full`; a TOML table is converted to
//!   JSON first. Or `agent = { … }`: an Agent schedule given directly (no parsing).
//! - `original`: the original row (must parse), for `expect_sql`.
//! - `target`: a `Target` table (`dialect` defaults to the case's); without it, the target is
//!   the one `parse_row_full` found in `original`, else in `row`.
//! - `now_local` (`2026-01-05T12:00:00`), `now` (UTC; default: `now_local` read as UTC),
//!   `pg_cron_version` (`"1.4"`), for `expect_warnings`.
//! - `idle = [percent, seconds]`: the Agent's idle settings, for `msdb`.
//!
//! Expectations (at least one):
//! - `expect_schedule`: the parsed schedule (serde form of `Schedule`); `expect_target`,
//!   `expect_active`.
//! - `expect_error = "column"` (+ `expect_value`, `expect_message` contained in the text):
//!   `parse_row` fails with an Error naming that column.
//! - `expect_row`: `to_row`'s exact text.
//! - `msdb`: `msdb_description`'s exact text.
//! - `expect_warnings = ["field = value: text", …]`: `row_warnings`, in order, each containing
//!   its string; `[]` for none.
//! - `expect_sql`: `apply_row_statement`'s exact text (`apply_statement`'s, plus pg_cron's
//!   `active`).
//!
//! Whatever the case says, every row that parses must come back the same through `to_row`,
//! and applying it onto itself must change nothing.
use crate::support::cases::{self, CaseFile};
use crate::support::{cases_root, parse_local};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use sundial_engine::edit::{self, Dialect, Row, Target};
use sundial_engine::{AgentSchedule, Schedule, Severity};

/// Minimum cases per file stem prefix, and in all.
const MINIMUM: &[(&str, usize)] = &[("parse", 30), ("msdb", 25), ("warnings", 20), ("apply", 35)];
const MINIMUM_TOTAL: usize = 110;

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
    dialect: String,
    row: Option<toml::Value>,
    agent: Option<AgentSchedule>,
    original: Option<toml::Value>,
    target: Option<toml::Value>,
    now_local: Option<String>,
    now: Option<String>,
    pg_cron_version: Option<String>,
    idle: Option<[i64; 2]>,
    expect_schedule: Option<toml::Value>,
    expect_target: Option<toml::Value>,
    expect_active: Option<bool>,
    expect_error: Option<String>,
    expect_value: Option<String>,
    expect_message: Option<String>,
    expect_row: Option<String>,
    msdb: Option<String>,
    expect_warnings: Option<Vec<String>>,
    expect_sql: Option<String>,
}

impl Case {
    fn checks_something(&self) -> bool {
        self.expect_schedule.is_some()
            || self.expect_target.is_some()
            || self.expect_active.is_some()
            || self.expect_error.is_some()
            || self.expect_row.is_some()
            || self.msdb.is_some()
            || self.expect_warnings.is_some()
            || self.expect_sql.is_some()
    }
}

/// A row given as JSON text, or as a TOML table/array converted to JSON.
fn json_of(v: &toml::Value) -> Result<String, String> {
    match v {
        toml::Value::String(s) => Ok(s.clone()),
        other => serde_json::to_string(other).map_err(|e| format!("row to JSON: {e}")),
    }
}

fn from_toml<T: serde::de::DeserializeOwned>(v: &toml::Value, what: &str) -> Result<T, String> {
    let j = serde_json::to_value(v).map_err(|e| format!("{what} to JSON: {e}"))?;
    serde_json::from_value(j).map_err(|e| format!("{what} does not read: {e}"))
}

fn parse_version(s: &str) -> Result<(u32, u32), String> {
    let (a, b) = s.split_once('.').ok_or_else(|| format!("bad version {s:?}"))?;
    Ok((a.parse().map_err(|_| format!("bad version {s:?}"))?, b.parse().map_err(|_| format!("bad version {s:?}"))?))
}

fn diags_text(d: &[sundial_engine::Diagnostic]) -> Vec<String> {
    d.iter().map(|d| format!("{:?} {d}", d.severity)).collect()
}

fn run(case: &Case) -> Vec<String> {
    let mut problems = Vec::new();
    if !case.checks_something() {
        return vec![
            "case checks nothing (give expect_schedule, expect_error, msdb, expect_warnings, expect_sql, …)".into(),
        ];
    }
    let Some(dialect) = Dialect::parse(&case.dialect) else {
        return vec![format!("unknown dialect {:?}", case.dialect)];
    };

    // The (proposed) schedule.
    let mut row: Option<Row> = None;
    if let Some(a) = &case.agent {
        if dialect != Dialect::Agent {
            return vec!["`agent` needs dialect = \"agent\"".into()];
        }
        row = Some(Row { schedule: Schedule::Agent(a.clone()), target: Target::none(Dialect::Agent), active: None });
    } else if let Some(r) = &case.row {
        let json = match json_of(r) {
            Ok(j) => j,
            Err(e) => return vec![e],
        };
        match edit::parse_row_full(dialect, &json) {
            Err(diags) => {
                let shown = diags_text(&diags);
                match &case.expect_error {
                    None => problems.push(format!("parse_row failed: {shown:?}")),
                    Some(field) => {
                        let hit = diags.iter().any(|d| {
                            d.severity == Severity::Error
                                && d.field.as_deref() == Some(field.as_str())
                                && case.expect_value.as_ref().is_none_or(|v| d.value.as_deref() == Some(v.as_str()))
                                && case.expect_message.as_ref().is_none_or(|m| d.to_string().contains(m.as_str()))
                        });
                        if !hit {
                            problems.push(format!(
                                "no Error naming {field}{}{}; got {shown:?}",
                                case.expect_value.as_ref().map(|v| format!(" = {v}")).unwrap_or_default(),
                                case.expect_message.as_ref().map(|m| format!(" containing {m:?}")).unwrap_or_default()
                            ));
                        }
                        if diags.iter().any(|d| d.severity != Severity::Error) {
                            problems.push(format!("parse_row returned a non-Error: {shown:?}"));
                        }
                    }
                }
            }
            Ok(r) => {
                if let Some(field) = &case.expect_error {
                    problems.push(format!("expected an Error naming {field}; parsed {:?}", r.schedule));
                }
                // Invariants: to_row round-trips; applying a schedule onto itself changes nothing.
                let again = edit::to_row(&r.schedule);
                match edit::parse_row(dialect, &again) {
                    Ok(s) if s == r.schedule => {}
                    Ok(s) => problems.push(format!(
                        "to_row does not round-trip:\n      row  {again}\n      was  {:?}\n      now  {s:?}",
                        r.schedule
                    )),
                    Err(d) => {
                        problems.push(format!("to_row's row does not parse: {:?}\n      {again}", diags_text(&d)))
                    }
                }
                let same = edit::apply_row_statement(Some(&r), &r, &r.target);
                if !same.starts_with("-- No change") {
                    problems.push(format!("applying the schedule onto itself gives {same:?}"));
                }
                row = Some(r);
            }
        }
    }
    if case.expect_error.is_some() && case.row.is_none() {
        problems.push("expect_error needs a row".into());
    }

    let need_row = |what: &str, problems: &mut Vec<String>| {
        problems.push(format!("{what} needs a row that parses (or `agent`)"));
    };

    if let Some(want) = &case.expect_schedule {
        match (&row, from_toml::<Schedule>(want, "expect_schedule")) {
            (_, Err(e)) => problems.push(e),
            (None, _) => need_row("expect_schedule", &mut problems),
            (Some(r), Ok(w)) => {
                if r.schedule != w {
                    problems.push(format!("schedule:\n      want {w:?}\n      got  {:?}", r.schedule));
                }
                if Dialect::of(&r.schedule) != dialect {
                    problems.push("parsed into another dialect".into());
                }
            }
        }
    }
    if let Some(want) = &case.expect_target {
        match (&row, with_dialect(want, dialect).and_then(|t| from_toml::<Target>(&t, "expect_target"))) {
            (_, Err(e)) => problems.push(e),
            (None, _) => need_row("expect_target", &mut problems),
            (Some(r), Ok(w)) => {
                if r.target != w {
                    problems.push(format!("target:\n      want {w:?}\n      got  {:?}", r.target));
                }
            }
        }
    }
    if let Some(want) = case.expect_active {
        match &row {
            None => need_row("expect_active", &mut problems),
            Some(r) if r.active != Some(want) => problems.push(format!("active: want {want}, got {:?}", r.active)),
            _ => {}
        }
    }
    if let Some(want) = &case.expect_row {
        match &row {
            None => need_row("expect_row", &mut problems),
            Some(r) => {
                let got = edit::to_row(&r.schedule);
                if got.trim_end() != want.trim_end() {
                    problems.push(format!("to_row:\n      want {want}\n      got  {got}"));
                }
            }
        }
    }
    if let Some(want) = &case.msdb {
        match row.as_ref().map(|r| &r.schedule) {
            Some(Schedule::Agent(a)) => {
                let got = match case.idle {
                    Some([p, s]) => edit::msdb_description_idle(a, p, s),
                    None => edit::msdb_description(a),
                };
                if &got != want {
                    problems.push(format!("msdb:\n      want {want:?}\n      got  {got:?}"));
                }
            }
            _ => problems.push("msdb needs an Agent schedule".into()),
        }
    }
    if let Some(want) = &case.expect_warnings {
        let Some(r) = &row else {
            need_row("expect_warnings", &mut problems);
            return problems;
        };
        let Some(nl) = &case.now_local else {
            problems.push("expect_warnings needs now_local".into());
            return problems;
        };
        let now_local = match parse_local(nl) {
            Ok(t) => t,
            Err(e) => return vec![e],
        };
        let now: DateTime<Utc> = match case.now.as_deref().map(parse_local) {
            None => now_local.and_utc(),
            Some(Ok(t)) => t.and_utc(),
            Some(Err(e)) => return vec![e],
        };
        let version = match case.pg_cron_version.as_deref().map(parse_version) {
            None => None,
            Some(Ok(v)) => Some(v),
            Some(Err(e)) => return vec![e],
        };
        let got = edit::row_warnings(r, now, now_local, version);
        let shown = diags_text(&got);
        if got.iter().any(|d| d.severity != Severity::Warning) {
            problems.push(format!("warnings holds a non-Warning: {shown:?}"));
        }
        let ok = got.len() == want.len() && got.iter().zip(want).all(|(g, w)| g.to_string().contains(w.as_str()));
        if !ok {
            problems.push(format!("warnings:\n      want {want:?}\n      got  {shown:?}"));
        }
    }
    if let Some(want) = &case.expect_sql {
        let Some(r) = &row else {
            need_row("expect_sql", &mut problems);
            return problems;
        };
        let original = match &case.original {
            None => None,
            Some(o) => match json_of(o).map(|j| edit::parse_row_full(dialect, &j)) {
                Ok(Ok(o)) => Some(o),
                Ok(Err(d)) => {
                    return vec![format!("original does not parse: {:?}", diags_text(&d))];
                }
                Err(e) => return vec![e],
            },
        };
        let target = match &case.target {
            Some(t) => match with_dialect(t, dialect).and_then(|t| from_toml::<Target>(&t, "target")) {
                Ok(t) => t,
                Err(e) => return vec![e],
            },
            None => original.as_ref().map(|o| o.target.clone()).unwrap_or_else(|| r.target.clone()),
        };
        let got = edit::apply_row_statement(original.as_ref(), r, &target);
        if got.trim_end() != want.trim_end() {
            problems.push(format!("apply_row_statement:\n      want {want}\n      got  {got}"));
        }
    }
    problems
}

/// A Target table with `dialect` set to the case's when it has none.
fn with_dialect(v: &toml::Value, d: Dialect) -> Result<toml::Value, String> {
    let mut t = v.as_table().cloned().ok_or("a target must be a table")?;
    t.entry("dialect").or_insert_with(|| toml::Value::String(d.key().to_owned()));
    Ok(toml::Value::Table(t))
}

#[test]
fn edit_cases() {
    let mut total = 0;
    let mut per_prefix: Vec<(&str, usize)> = MINIMUM.iter().map(|(p, _)| (*p, 0)).collect();
    let (files, mut failures) = cases::load_dir::<File>(&cases_root().join("edit"));
    for (name, file) in files {
        let stem = name.strip_prefix("edit/").unwrap_or(&name);
        for case in &file.case {
            total += 1;
            if let Some(p) = per_prefix.iter_mut().find(|(p, _)| stem.starts_with(p)) {
                p.1 += 1;
            }
            let problems = run(case);
            if !problems.is_empty() {
                failures.push(format!("{name} / {}:\n    {}", case.name, problems.join("\n    ")));
            }
        }
    }
    eprintln!("edit cases: {total} run, {} failed; {per_prefix:?}", failures.len());
    assert!(failures.is_empty(), "{} of {total} edit cases failed:\n\n{}", failures.len(), failures.join("\n\n"));
    for ((prefix, n), (_, min)) in per_prefix.iter().zip(MINIMUM) {
        assert!(*n >= *min, "only {n} {prefix}* cases; at least {min} expected");
    }
    assert!(total >= MINIMUM_TOTAL, "only {total} edit cases; at least {MINIMUM_TOTAL} expected");
}

/// The harness itself: a file that cannot be read, does not parse or holds no case fails, and
/// so does a case that checks nothing.
#[test]
fn the_edit_harness_fails_what_it_cannot_check() {
    let unreadable = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
    let e = cases::parse::<File>("edit/x.toml", Err(unreadable)).err().expect("an unreadable file fails");
    assert!(e.starts_with("edit/x.toml: unreadable"), "{e}");
    let e = cases::parse::<File>("edit/x.toml", Ok("[[case]\n".into())).err().expect("does not parse");
    assert!(e.starts_with("edit/x.toml: does not parse"), "{e}");
    let e = cases::parse::<File>("edit/x.toml", Ok("\n".into())).err().expect("an empty file fails");
    assert_eq!(e, "edit/x.toml: no cases in it");
    let file: File = cases::parse(
        "edit/x.toml",
        Ok("[[case]]\nname = \"silent\"\ndialect = \"cron\"\nrow = '{\"schedule\": \"0 3 * * *\"}'\n".into()),
    )
    .expect("parses");
    let problems = run(&file.case[0]);
    assert!(problems.len() == 1 && problems[0].starts_with("case checks nothing"), "{problems:?}");
}

#[test]
fn dialect_keys_are_stable_and_parse_back() {
    let keys: Vec<&str> = Dialect::ALL.iter().map(|d| d.key()).collect();
    assert_eq!(keys, ["agent", "cron", "mysql_event", "job_table", "service_broker", "primentra", "pgagent"]);
    let labels: Vec<&str> = Dialect::ALL.iter().map(|d| d.label()).collect();
    assert_eq!(
        labels,
        [
            "SQL Server Agent",
            "pg_cron",
            "MySQL / MariaDB event",
            "MySQL job table",
            "Service Broker scheduler",
            "Primentra scheduler",
            "pgAgent"
        ]
    );
    for d in Dialect::ALL {
        assert_eq!(Dialect::parse(d.key()), Some(d));
        assert_eq!(Dialect::parse(&format!(" {} ", d.key().to_uppercase())), Some(d));
        assert_eq!(d.key().parse::<Dialect>(), Ok(d));
        assert_eq!(d.to_string(), d.key());
        // serde uses the key too (URLs and JSON agree).
        assert_eq!(serde_json::to_string(&d).unwrap(), format!("\"{}\"", d.key()));
        assert_eq!(Target::none(d).dialect(), d);
    }
    assert_eq!(Dialect::parse("seed003"), Some(Dialect::ServiceBroker));
    assert!(Dialect::parse("oracle").is_none());
    assert!("oracle".parse::<Dialect>().unwrap_err().contains("agent, cron"));
}

#[test]
fn never_fires_is_a_plain_warning() {
    let d = edit::never_fires_warning();
    assert_eq!(d.severity, Severity::Warning);
    assert!(d.field.is_none());
    assert!(d.message.starts_with("Never fires"));
}

#[test]
fn a_mismatched_original_or_target_is_said_and_ignored() {
    let agent = edit::parse_row(Dialect::Agent, r#"{"freq_type": 4, "freq_interval": 1}"#).unwrap();
    let cron = edit::parse_row(Dialect::Cron, r#"{"schedule": "0 3 * * *"}"#).unwrap();
    let s = edit::apply_statement(Some(&agent), &cron, &Target::agent(5));
    assert!(s.contains("The original is a SQL Server Agent schedule, not pg_cron"), "{s}");
    assert!(s.contains("The target names a SQL Server Agent row, not pg_cron"), "{s}");
    assert!(s.ends_with("SELECT cron.alter_job(job_id := <jobid>, schedule := '0 3 * * *');"), "{s}");
}
