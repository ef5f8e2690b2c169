//! One pasted row (JSON) → a [`Schedule`], and back.
//!
//! # What is accepted
//!
//! - **Shape**: one JSON object, or an array holding exactly one (what `FOR JSON PATH`
//!   without `WITHOUT_ARRAY_WRAPPER` gives).
//! - **Column names** as the scheduler's table spells them, in any case; underscores do not
//!   count (`job_schedule_id` finds `JobScheduleId`). Columns Sundial does not read (`command`,
//!   `EVENT_DEFINITION`, `date_created` …) are ignored. A column given twice with different
//!   values is an Error.
//! - **Values**: strings, numbers and booleans alike (`"20240101"` and `20240101`, `true` and
//!   `1` and `"1"`); `null`, a missing column and a blank string mean no value. Timestamps as
//!   the engines print them: `2026-11-22 09:00:00`, `2026-11-22T09:00:00`, with fractional
//!   seconds (MySQL's `JSON_OBJECT` gives `.000000`), or a bare date. Agent dates may also be
//!   written `2026-11-22` and times `08:30:00`; they are stored as msdb's integers.
//! - **Normalised**: whole numbers are stored as their decimal text, flags as `1`/`0`,
//!   timestamps as `2026-11-22 09:00:00` (fractional seconds kept when not zero), so that two
//!   spellings of one row parse to equal schedules.
//!
//! # What is an error
//!
//! Only what cannot be read: bad JSON, not one row, a value of the wrong type (`"abc"` for
//! `freq_type`, `"yesterday"` for `STARTS`), a missing column without which the row means
//! nothing (`freq_type` for the Agent, `schedule` for pg_cron), or a row with none of the
//! table's columns (probably a row of another table). A readable row that cannot fire
//! (`freq_type = 3`, `INTERVAL_FIELD = 'FORTNIGHT'`) parses; the dialect's `validate` says why
//! it cannot be forecast. Every error names the column (`field`) and the value as written.
//!
//! # Columns that are not in the table
//!
//! [`to_row`] writes and [`parse_row`] reads three values Sundial keeps with a schedule that
//! are no column of its table: pg_cron's `last_start` (from `cron.job_run_details`) and
//! Primentra's `last_run` and `now` (the arguments an interval schedule counts from).
use super::super::agent::AgentSchedule;
use super::super::cron::CronSchedule;
use super::super::dialect::parse_timestamp;
use super::super::job_table::JobTableRow;
use super::super::mysql_event::MysqlEvent;
use super::super::pgagent::PgAgentSchedule;
use super::super::primentra::SchedulerConfiguration;
use super::super::service_broker::ServiceBrokerJob;
use super::super::{Diagnostic, Schedule};
use super::{Dialect, Target};
use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use serde_json::Value;
use std::collections::BTreeMap;

/// A parsed row: the schedule, the key columns found in the row, and pg_cron's `active`
/// (the one enabled flag that is not part of its [`Schedule`]; `None` for other dialects or
/// when the row has no `active` column).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub schedule: Schedule,
    pub target: Target,
    pub active: Option<bool>,
}

/// How a column's value is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A whole number.
    Int,
    /// msdb's yyyymmdd integer (or a date).
    AgentDate,
    /// msdb's hhmmss integer (or a time).
    AgentTime,
    /// A DATETIME.
    Timestamp,
    /// A BIT / boolean.
    Flag,
    /// Text, kept as written.
    Text,
    /// A PostgreSQL `bool[]`: a JSON array of booleans (`row_to_json`'s) or its text
    /// (`{t,f,…}`), kept as that text.
    Bools,
}

/// What a column is for: the `at least one schedule column` check ignores keys and extras.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Schedule,
    Key,
    Extra,
}

struct Col {
    name: &'static str,
    kind: Kind,
    role: Role,
    aliases: &'static [&'static str],
}

const fn col(name: &'static str, kind: Kind) -> Col {
    Col { name, kind, role: Role::Schedule, aliases: &[] }
}

const fn key(name: &'static str, kind: Kind) -> Col {
    Col { name, kind, role: Role::Key, aliases: &[] }
}

const fn extra(name: &'static str, kind: Kind) -> Col {
    Col { name, kind, role: Role::Extra, aliases: &[] }
}

use Kind::{AgentDate, AgentTime, Bools, Flag, Int, Text, Timestamp};

const AGENT: &[Col] = &[
    col("enabled", Int),
    col("freq_type", Int),
    col("freq_interval", Int),
    col("freq_subday_type", Int),
    col("freq_subday_interval", Int),
    col("freq_relative_interval", Int),
    col("freq_recurrence_factor", Int),
    col("active_start_date", AgentDate),
    col("active_end_date", AgentDate),
    col("active_start_time", AgentTime),
    col("active_end_time", AgentTime),
    key("schedule_id", Int),
    key("name", Text),
];

const CRON: &[Col] = &[
    col("schedule", Text),
    key("jobid", Int),
    key("jobname", Text),
    col("active", Flag),
    extra("last_start", Timestamp),
];

const MYSQL: &[Col] = &[
    key("EVENT_SCHEMA", Text),
    key("EVENT_NAME", Text),
    col("EVENT_TYPE", Text),
    col("EXECUTE_AT", Timestamp),
    col("INTERVAL_VALUE", Text),
    col("INTERVAL_FIELD", Text),
    col("STARTS", Timestamp),
    col("ENDS", Timestamp),
    col("STATUS", Text),
    col("ON_COMPLETION", Text),
    col("TIME_ZONE", Text),
    col("LAST_EXECUTED", Timestamp),
];

const SEED002: &[Col] = &[
    key("job_id", Int),
    key("job_owner", Text),
    key("job_name", Text),
    col("job_schedule_start", Timestamp),
    col("job_schedule_finish", Timestamp),
    col("job_schedule_interval", Int),
    col("job_status", Text),
    col("job_runner_start", Timestamp),
    col("job_runner_last_cycle_start", Timestamp),
];

const SEED003: &[Col] = &[
    Col { name: "ID", kind: Int, role: Role::Key, aliases: &["ScheduledJobId"] },
    key("JobName", Text),
    col("JobScheduleId", Int),
    col("ValidFrom", Timestamp),
    col("LastRunOn", Timestamp),
    col("NextRunOn", Timestamp),
    col("IsEnabled", Flag),
    col("FrequencyType", Int),
    col("Frequency", Int),
    col("AbsoluteSubFrequency", Text),
    Col {
        name: "MontlyRelativeSubFrequencyWhich",
        kind: Int,
        role: Role::Schedule,
        aliases: &["MonthlyRelativeSubFrequencyWhich"],
    },
    Col {
        name: "MontlyRelativeSubFrequencyWhat",
        kind: Int,
        role: Role::Schedule,
        aliases: &["MonthlyRelativeSubFrequencyWhat"],
    },
    col("RunAtInSecondsFromMidnight", Int),
];

const SEED004: &[Col] = &[
    key("Id", Int),
    key("EntityId", Int),
    col("ProcessingMode", Text),
    col("ScheduleType", Text),
    col("IntervalMinutes", Int),
    col("RunTimes", Text),
    col("RunDays", Text),
    col("RunDaysOfMonth", Text),
    col("TriggerOnNewRows", Flag),
    col("TriggerRowThreshold", Int),
    col("TriggerIdleMinutes", Int),
    col("TriggerDebounceSeconds", Int),
    col("IsRunning", Flag),
    col("RunStartedAt", Timestamp),
    col("NextScheduledRun", Timestamp),
    col("LastCompletedAt", Timestamp),
    col("LastTriggerCheck", Timestamp),
    col("IsEnabled", Flag),
    extra("last_run", Timestamp),
    extra("now", Timestamp),
];

/// `pgagent.pga_schedule` (its `pga_exception` rows are not edited here: a parsed row has
/// none). `jscstart` and `jscend` are `timestamptz` text, kept with their offsets.
const PGAGENT: &[Col] = &[
    key("jscid", Int),
    key("jscjobid", Int),
    key("jscname", Text),
    col("jscenabled", Flag),
    col("jscstart", Text),
    col("jscend", Text),
    col("jscminutes", Bools),
    col("jschours", Bools),
    col("jscweekdays", Bools),
    col("jscmonthdays", Bools),
    col("jscmonths", Bools),
];

fn columns(d: Dialect) -> &'static [Col] {
    match d {
        Dialect::Agent => AGENT,
        Dialect::Cron => CRON,
        Dialect::MysqlEvent => MYSQL,
        Dialect::JobTable => SEED002,
        Dialect::ServiceBroker => SEED003,
        Dialect::Primentra => SEED004,
        Dialect::PgAgent => PGAGENT,
    }
}

/// Lower case, underscores dropped: `JobScheduleId`, `job_schedule_id` and `JOBSCHEDULEID`
/// meet.
fn norm(name: &str) -> String {
    name.trim().chars().filter(|c| *c != '_').flat_map(char::to_lowercase).collect()
}

/// At most 60 characters of a value, for a diagnostic.
fn excerpt(s: &str) -> String {
    let t: String = s.chars().take(60).collect();
    if t.len() < s.len() { format!("{t}…") } else { t }
}

/// A JSON value as the text it stands for; `Ok(None)` for null.
fn text_of(v: &Value) -> Result<Option<String>, &'static str> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        Value::Bool(b) => Ok(Some(if *b { "1" } else { "0" }.to_owned())),
        Value::Number(n) => Ok(Some(match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => (f as i64).to_string(),
            _ => serde_json::to_string(n).unwrap_or_default(),
        })),
        Value::Array(_) => Err("is a JSON array, not a column value"),
        Value::Object(_) => Err("is a JSON object, not a column value"),
    }
}

fn blank(t: &str) -> bool {
    let t = t.trim();
    t.is_empty() || t.eq_ignore_ascii_case("null")
}

fn whole(t: &str) -> Option<i64> {
    let t = t.trim();
    if let Ok(n) = t.parse::<i64>() {
        return Some(n);
    }
    // "5.0", "2e3": a number with no fraction.
    match t.parse::<f64>() {
        Ok(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15 => Some(f as i64),
        _ => None,
    }
}

/// `2026-11-22 09:00:00`, with the fraction only when it is not zero.
pub(super) fn fmt_timestamp(t: NaiveDateTime) -> String {
    if t.nanosecond() == 0 {
        t.format("%Y-%m-%d %H:%M:%S").to_string()
    } else {
        t.format("%Y-%m-%d %H:%M:%S%.f").to_string()
    }
}

fn agent_date(t: &str) -> Option<i64> {
    if let Some(n) = whole(t) {
        return Some(n);
    }
    let t = t.trim();
    let d = NaiveDate::parse_from_str(t, "%Y-%m-%d").ok().or_else(|| parse_timestamp(t).map(|n| n.date()))?;
    Some(i64::from(d.year()) * 10000 + i64::from(d.month()) * 100 + i64::from(d.day()))
}

fn agent_time(t: &str) -> Option<i64> {
    if let Some(n) = whole(t) {
        return Some(n);
    }
    let t = t.trim();
    let time = ["%H:%M:%S%.f", "%H:%M:%S", "%H:%M"]
        .iter()
        .find_map(|f| NaiveTime::parse_from_str(t, f).ok())
        .or_else(|| parse_timestamp(t).map(|n| n.time()))?;
    Some(i64::from(time.hour() * 10000 + time.minute() * 100 + time.second()))
}

/// A `bool[]` value as PostgreSQL's text: a JSON array's elements as `t`, `f` or `NULL`
/// (other elements as their text), or the text as it is.
fn bools_text(v: &Value) -> Result<Option<String>, &'static str> {
    match v {
        Value::Array(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|x| match x {
                    Value::Bool(true) => "t".to_owned(),
                    Value::Bool(false) => "f".to_owned(),
                    Value::Null => "NULL".to_owned(),
                    Value::String(s) => s.replace([',', '{', '}'], " "),
                    other => other.to_string().replace([',', '{', '}'], " "),
                })
                .collect();
            Ok(Some(format!("{{{}}}", parts.join(","))))
        }
        other => text_of(other),
    }
}

/// Read one value: `Ok(None)` for no value, the normalised text otherwise.
fn read(c: &Col, raw: &str, diags: &mut Vec<Diagnostic>) -> Option<String> {
    if c.kind != Text && blank(raw) {
        return None;
    }
    let bad = |diags: &mut Vec<Diagnostic>, what: &str| {
        diags.push(Diagnostic::error(c.name, excerpt(raw.trim()), what.to_owned()));
        None
    };
    match c.kind {
        Text => Some(raw.to_owned()),
        // `{t,f,NULL}` whatever the spelling when it reads as booleans, else as written.
        Bools => Some(match bools_json(raw) {
            Some(Value::Array(items)) => {
                let parts: Vec<&str> = items
                    .iter()
                    .map(|v| match v {
                        Value::Bool(true) => "t",
                        Value::Bool(false) => "f",
                        _ => "NULL",
                    })
                    .collect();
                format!("{{{}}}", parts.join(","))
            }
            _ => raw.trim().to_owned(),
        }),
        Int => match whole(raw) {
            Some(n) => Some(n.to_string()),
            None => bad(diags, "not a whole number"),
        },
        AgentDate => match agent_date(raw) {
            Some(n) => Some(n.to_string()),
            None => bad(diags, "not a date: yyyymmdd (20260101) or 2026-01-01"),
        },
        AgentTime => match agent_time(raw) {
            Some(n) => Some(n.to_string()),
            None => bad(diags, "not a time: hhmmss (83000) or 08:30:00"),
        },
        Timestamp => match parse_timestamp(raw) {
            Some(t) => Some(fmt_timestamp(t)),
            None => bad(diags, "not a timestamp like 2026-11-22 09:00:00"),
        },
        Flag => match raw.trim().to_ascii_lowercase().as_str() {
            "1" | "true" => Some("1".to_owned()),
            "0" | "false" => Some("0".to_owned()),
            _ => bad(diags, "expected 0 or 1 (true or false)"),
        },
    }
}

/// The values of one row, by canonical column name.
struct Values(BTreeMap<&'static str, String>);

impl Values {
    fn get(&self, name: &str) -> Option<String> {
        self.0.get(name).cloned()
    }
    fn int(&self, name: &str) -> Option<i64> {
        self.0.get(name).and_then(|t| t.parse().ok())
    }
}

/// The one object of the pasted text, or why there is none.
fn one_object(json: &str) -> Result<serde_json::Map<String, Value>, Diagnostic> {
    let v: Value = serde_json::from_str(json).map_err(|e| {
        Diagnostic::error("row", excerpt(json.trim()), format!("not JSON: {e}; paste one row as a JSON object"))
    })?;
    match v {
        Value::Object(m) => Ok(m),
        Value::Array(mut items) => match items.len() {
            1 => match items.pop() {
                Some(Value::Object(m)) => Ok(m),
                _ => Err(Diagnostic::error(
                    "row",
                    excerpt(json.trim()),
                    "the array's element is not an object with the row's columns",
                )),
            },
            0 => Err(Diagnostic::error("row", "[]", "an empty array: the query returned no row")),
            n => Err(Diagnostic::error("row", format!("{n} rows"), "paste one row, not several")),
        },
        other => Err(Diagnostic::error("row", excerpt(&other.to_string()), "not a JSON object with the row's columns")),
    }
}

/// Match the object's keys to the dialect's columns and read every value.
fn values(dialect: Dialect, obj: &serde_json::Map<String, Value>) -> Result<Values, Vec<Diagnostic>> {
    let cols = columns(dialect);
    let mut diags = Vec::new();
    // Canonical name → (key as written, raw text).
    let mut found: BTreeMap<&'static str, (String, Option<String>)> = BTreeMap::new();
    for (k, v) in obj {
        let nk = norm(k);
        let Some(c) = cols.iter().find(|c| norm(c.name) == nk || c.aliases.iter().any(|a| norm(a) == nk)) else {
            continue;
        };
        let raw = match if c.kind == Bools { bools_text(v) } else { text_of(v) } {
            Ok(t) => t,
            Err(why) => {
                diags.push(Diagnostic::error(c.name, excerpt(&v.to_string()), why));
                continue;
            }
        };
        if let Some((k0, raw0)) = found.get(c.name) {
            if raw0 != &raw {
                diags.push(Diagnostic::error(
                    c.name,
                    excerpt(&v.to_string()),
                    format!("given twice, as \"{k0}\" and \"{k}\", with different values"),
                ));
            }
            continue;
        }
        found.insert(c.name, (k.clone(), raw));
    }
    if found.is_empty() && diags.is_empty() {
        let keys: Vec<&str> = obj.keys().map(String::as_str).take(6).collect();
        let want: Vec<&str> = cols.iter().filter(|c| c.role == Role::Schedule).map(|c| c.name).take(4).collect();
        diags.push(Diagnostic::error(
            "row",
            excerpt(&keys.join(", ")),
            format!(
                "none of these is a column of {} ({}, …): is this a row of another table?",
                dialect.table(),
                want.join(", ")
            ),
        ));
        return Err(diags);
    }
    let mut out = BTreeMap::new();
    for c in cols {
        if let Some((_, Some(raw))) = found.get(c.name)
            && let Some(v) = read(c, raw, &mut diags)
        {
            out.insert(c.name, v);
        }
    }
    let required = match dialect {
        Dialect::Agent => Some("freq_type"),
        Dialect::Cron => Some("schedule"),
        _ => None,
    };
    if let Some(r) = required
        && !found.contains_key(r)
    {
        diags.push(Diagnostic::error(
            r,
            "(missing)",
            format!("the row has no {r} column: is this a {} row?", dialect.table()),
        ));
    }
    if dialect == Dialect::Cron
        && found.contains_key("schedule")
        && out.get("schedule").is_none_or(|s| s.trim().is_empty())
    {
        diags.push(Diagnostic::error("schedule", "(empty)", "pg_cron needs a schedule"));
    }
    if !found.keys().any(|n| cols.iter().any(|c| c.name == *n && c.role == Role::Schedule)) && diags.is_empty() {
        diags.push(Diagnostic::error(
            "row",
            excerpt(&found.keys().copied().collect::<Vec<_>>().join(", ")),
            format!("only key columns: the row has no schedule column of {}", dialect.table()),
        ));
    }
    if diags.is_empty() { Ok(Values(out)) } else { Err(diags) }
}

/// One row of the dialect's table as JSON → its [`Schedule`]. See the module doc for what is
/// accepted; errors name the column and the value.
pub fn parse_row(dialect: Dialect, json: &str) -> Result<Schedule, Vec<Diagnostic>> {
    parse_row_full(dialect, json).map(|r| r.schedule)
}

/// [`parse_row`], plus the row's key columns as a [`Target`] (`schedule_id`/`name`,
/// `jobid`/`jobname`, `EVENT_SCHEMA`/`EVENT_NAME`, `job_id`/`job_owner`/`job_name`,
/// `ID`/`JobScheduleId`, `Id`/`EntityId`) and pg_cron's `active`.
pub fn parse_row_full(dialect: Dialect, json: &str) -> Result<Row, Vec<Diagnostic>> {
    let obj = one_object(json).map_err(|d| vec![d])?;
    let v = values(dialect, &obj)?;
    let mut active = None;
    let (schedule, target) = match dialect {
        Dialect::Agent => {
            let d = AgentSchedule::default();
            let g = |n: &str, dflt: i64| v.int(n).unwrap_or(dflt);
            (
                Schedule::Agent(AgentSchedule {
                    enabled: g("enabled", d.enabled),
                    freq_type: g("freq_type", d.freq_type),
                    freq_interval: g("freq_interval", d.freq_interval),
                    freq_subday_type: g("freq_subday_type", d.freq_subday_type),
                    freq_subday_interval: g("freq_subday_interval", d.freq_subday_interval),
                    freq_relative_interval: g("freq_relative_interval", d.freq_relative_interval),
                    freq_recurrence_factor: g("freq_recurrence_factor", d.freq_recurrence_factor),
                    active_start_date: g("active_start_date", d.active_start_date),
                    active_end_date: g("active_end_date", d.active_end_date),
                    active_start_time: g("active_start_time", d.active_start_time),
                    active_end_time: g("active_end_time", d.active_end_time),
                }),
                Target::Agent { schedule_id: v.int("schedule_id"), name: v.get("name") },
            )
        }
        Dialect::Cron => {
            active = v.get("active").map(|a| a == "1");
            (
                Schedule::Cron(CronSchedule {
                    expr: v.get("schedule").unwrap_or_default(),
                    last_start: v.get("last_start"),
                }),
                Target::Cron { jobid: v.int("jobid"), jobname: v.get("jobname") },
            )
        }
        Dialect::MysqlEvent => {
            let e = MysqlEvent {
                event_schema: v.get("EVENT_SCHEMA"),
                event_name: v.get("EVENT_NAME"),
                event_type: v.get("EVENT_TYPE"),
                execute_at: v.get("EXECUTE_AT"),
                interval_value: v.get("INTERVAL_VALUE"),
                interval_field: v.get("INTERVAL_FIELD"),
                starts: v.get("STARTS"),
                ends: v.get("ENDS"),
                status: v.get("STATUS"),
                on_completion: v.get("ON_COMPLETION"),
                time_zone: v.get("TIME_ZONE"),
                last_executed: v.get("LAST_EXECUTED"),
            };
            let t = Target::MysqlEvent { schema: e.event_schema.clone(), name: e.event_name.clone() };
            (Schedule::MysqlEvent(e), t)
        }
        Dialect::JobTable => {
            let j = JobTableRow {
                job_id: v.get("job_id"),
                job_owner: v.get("job_owner"),
                job_name: v.get("job_name"),
                job_schedule_start: v.get("job_schedule_start"),
                job_schedule_finish: v.get("job_schedule_finish"),
                job_schedule_interval: v.get("job_schedule_interval"),
                job_status: v.get("job_status"),
                job_runner_start: v.get("job_runner_start"),
                job_runner_last_cycle_start: v.get("job_runner_last_cycle_start"),
                ..JobTableRow::default()
            };
            let t = Target::JobTable {
                job_id: v.int("job_id"),
                job_owner: j.job_owner.clone(),
                job_name: j.job_name.clone(),
            };
            (Schedule::JobTable(j), t)
        }
        Dialect::ServiceBroker => {
            let j = ServiceBrokerJob {
                job_name: v.get("JobName"),
                job_schedule_id: v.get("JobScheduleId"),
                valid_from: v.get("ValidFrom"),
                last_run_on: v.get("LastRunOn"),
                next_run_on: v.get("NextRunOn"),
                is_enabled: v.get("IsEnabled"),
                frequency_type: v.get("FrequencyType"),
                frequency: v.get("Frequency"),
                absolute_sub_frequency: v.get("AbsoluteSubFrequency"),
                relative_which: v.get("MontlyRelativeSubFrequencyWhich"),
                relative_what: v.get("MontlyRelativeSubFrequencyWhat"),
                run_at: v.get("RunAtInSecondsFromMidnight"),
            };
            let t = Target::ServiceBroker { scheduled_job_id: v.int("ID"), job_schedule_id: v.int("JobScheduleId") };
            (Schedule::ServiceBroker(j), t)
        }
        Dialect::Primentra => {
            let c = SchedulerConfiguration {
                entity_id: v.get("EntityId"),
                processing_mode: v.get("ProcessingMode"),
                schedule_type: v.get("ScheduleType"),
                interval_minutes: v.get("IntervalMinutes"),
                run_times: v.get("RunTimes"),
                run_days: v.get("RunDays"),
                run_days_of_month: v.get("RunDaysOfMonth"),
                trigger_on_new_rows: v.get("TriggerOnNewRows"),
                trigger_row_threshold: v.get("TriggerRowThreshold"),
                trigger_idle_minutes: v.get("TriggerIdleMinutes"),
                trigger_debounce_seconds: v.get("TriggerDebounceSeconds"),
                is_running: v.get("IsRunning"),
                run_started_at: v.get("RunStartedAt"),
                next_scheduled_run: v.get("NextScheduledRun"),
                last_completed_at: v.get("LastCompletedAt"),
                last_trigger_check: v.get("LastTriggerCheck"),
                is_enabled: v.get("IsEnabled"),
                last_run: v.get("last_run"),
                now: v.get("now"),
                ..SchedulerConfiguration::default()
            };
            let t = Target::Primentra { id: v.int("Id"), entity_id: v.int("EntityId") };
            (Schedule::Primentra(c), t)
        }
        Dialect::PgAgent => {
            let p = PgAgentSchedule {
                jscid: v.get("jscid"),
                jscjobid: v.get("jscjobid"),
                jscname: v.get("jscname"),
                jscenabled: v.get("jscenabled"),
                jscstart: v.get("jscstart"),
                jscend: v.get("jscend"),
                jscminutes: v.get("jscminutes"),
                jschours: v.get("jschours"),
                jscweekdays: v.get("jscweekdays"),
                jscmonthdays: v.get("jscmonthdays"),
                jscmonths: v.get("jscmonths"),
                exceptions: Vec::new(),
            };
            (Schedule::PgAgent(p), Target::PgAgent { jscid: v.int("jscid") })
        }
    };
    Ok(Row { schedule, target, active })
}

/// A column and its value for [`to_row`].
fn cell(name: &str, kind: Kind, v: Option<&str>) -> (String, Value) {
    let value = match v {
        None => Value::Null,
        Some(t) => match kind {
            Int | AgentDate | AgentTime => match t.trim().parse::<i64>() {
                Ok(n) => Value::from(n),
                Err(_) => Value::from(t),
            },
            Flag => match t.trim().to_ascii_lowercase().as_str() {
                "1" | "true" => Value::Bool(true),
                "0" | "false" => Value::Bool(false),
                _ => Value::from(t),
            },
            Timestamp | Text => Value::from(t),
            // Back to the JSON array `row_to_json` gives, when the text reads as one.
            Bools => bools_json(t).unwrap_or_else(|| Value::from(t)),
        },
    };
    (name.to_owned(), value)
}

/// `{t,f,NULL}` as a JSON array of booleans (and nulls); `None` for other text.
fn bools_json(t: &str) -> Option<Value> {
    let inner = t.trim().strip_prefix('{')?.strip_suffix('}')?;
    if inner.trim().is_empty() {
        return Some(Value::Array(Vec::new()));
    }
    inner
        .split(',')
        .map(|e| match e.trim().to_ascii_lowercase().as_str() {
            "t" | "true" => Some(Value::Bool(true)),
            "f" | "false" => Some(Value::Bool(false)),
            "null" => Some(Value::Null),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
        .map(Value::Array)
}

/// The schedule as one row of its table: pretty JSON with the table's column names, in the
/// table's column order, `null` for no value (SQL Server's BITs as `true`/`false`).
/// [`parse_row`] reads it back to the same schedule. Key columns the schedule does not carry
/// (`schedule_id`, `jobid` …) are not written.
pub fn to_row(schedule: &Schedule) -> String {
    let s = |v: &Option<String>| v.as_deref().map(str::to_owned);
    let mut cells: Vec<(String, Value)> = Vec::new();
    let mut put = |c: &Col, v: Option<String>| cells.push(cell(c.name, c.kind, v.as_deref()));
    let find =
        |cols: &'static [Col], n: &str| -> &'static Col { cols.iter().find(|c| c.name == n).unwrap_or(&cols[0]) };
    match schedule {
        Schedule::Agent(a) => {
            for (n, v) in [
                ("enabled", a.enabled),
                ("freq_type", a.freq_type),
                ("freq_interval", a.freq_interval),
                ("freq_subday_type", a.freq_subday_type),
                ("freq_subday_interval", a.freq_subday_interval),
                ("freq_relative_interval", a.freq_relative_interval),
                ("freq_recurrence_factor", a.freq_recurrence_factor),
                ("active_start_date", a.active_start_date),
                ("active_end_date", a.active_end_date),
                ("active_start_time", a.active_start_time),
                ("active_end_time", a.active_end_time),
            ] {
                put(find(AGENT, n), Some(v.to_string()));
            }
        }
        Schedule::Cron(c) => {
            put(find(CRON, "schedule"), Some(c.expr.clone()));
            if c.last_start.is_some() {
                put(find(CRON, "last_start"), s(&c.last_start));
            }
        }
        Schedule::MysqlEvent(e) => {
            for (n, v) in [
                ("EVENT_SCHEMA", &e.event_schema),
                ("EVENT_NAME", &e.event_name),
                ("EVENT_TYPE", &e.event_type),
                ("EXECUTE_AT", &e.execute_at),
                ("INTERVAL_VALUE", &e.interval_value),
                ("INTERVAL_FIELD", &e.interval_field),
                ("STARTS", &e.starts),
                ("ENDS", &e.ends),
                ("STATUS", &e.status),
                ("ON_COMPLETION", &e.on_completion),
                ("TIME_ZONE", &e.time_zone),
                ("LAST_EXECUTED", &e.last_executed),
            ] {
                put(find(MYSQL, n), s(v));
            }
        }
        Schedule::JobTable(j) => {
            for (n, v) in [
                ("job_id", &j.job_id),
                ("job_owner", &j.job_owner),
                ("job_name", &j.job_name),
                ("job_schedule_start", &j.job_schedule_start),
                ("job_schedule_finish", &j.job_schedule_finish),
                ("job_schedule_interval", &j.job_schedule_interval),
                ("job_status", &j.job_status),
                ("job_runner_start", &j.job_runner_start),
                ("job_runner_last_cycle_start", &j.job_runner_last_cycle_start),
            ] {
                put(find(SEED002, n), s(v));
            }
        }
        Schedule::ServiceBroker(j) => {
            for (n, v) in [
                ("JobName", &j.job_name),
                ("JobScheduleId", &j.job_schedule_id),
                ("ValidFrom", &j.valid_from),
                ("LastRunOn", &j.last_run_on),
                ("NextRunOn", &j.next_run_on),
                ("IsEnabled", &j.is_enabled),
                ("FrequencyType", &j.frequency_type),
                ("Frequency", &j.frequency),
                ("AbsoluteSubFrequency", &j.absolute_sub_frequency),
                ("MontlyRelativeSubFrequencyWhich", &j.relative_which),
                ("MontlyRelativeSubFrequencyWhat", &j.relative_what),
                ("RunAtInSecondsFromMidnight", &j.run_at),
            ] {
                put(find(SEED003, n), s(v));
            }
        }
        Schedule::Primentra(c) => {
            for (n, v) in [
                ("EntityId", &c.entity_id),
                ("ProcessingMode", &c.processing_mode),
                ("ScheduleType", &c.schedule_type),
                ("IntervalMinutes", &c.interval_minutes),
                ("RunTimes", &c.run_times),
                ("RunDays", &c.run_days),
                ("RunDaysOfMonth", &c.run_days_of_month),
                ("TriggerOnNewRows", &c.trigger_on_new_rows),
                ("TriggerRowThreshold", &c.trigger_row_threshold),
                ("TriggerIdleMinutes", &c.trigger_idle_minutes),
                ("TriggerDebounceSeconds", &c.trigger_debounce_seconds),
                ("IsRunning", &c.is_running),
                ("RunStartedAt", &c.run_started_at),
                ("NextScheduledRun", &c.next_scheduled_run),
                ("LastCompletedAt", &c.last_completed_at),
                ("LastTriggerCheck", &c.last_trigger_check),
                ("IsEnabled", &c.is_enabled),
            ] {
                put(find(SEED004, n), s(v));
            }
            for (n, v) in [("last_run", &c.last_run), ("now", &c.now)] {
                if v.is_some() {
                    put(find(SEED004, n), s(v));
                }
            }
        }
        Schedule::PgAgent(p) => {
            for (n, v) in [("jscid", &p.jscid), ("jscjobid", &p.jscjobid), ("jscname", &p.jscname)] {
                if v.is_some() {
                    put(find(PGAGENT, n), s(v));
                }
            }
            for (n, v) in [
                ("jscenabled", &p.jscenabled),
                ("jscstart", &p.jscstart),
                ("jscend", &p.jscend),
                ("jscminutes", &p.jscminutes),
                ("jschours", &p.jschours),
                ("jscweekdays", &p.jscweekdays),
                ("jscmonthdays", &p.jscmonthdays),
                ("jscmonths", &p.jscmonths),
            ] {
                put(find(PGAGENT, n), s(v));
            }
        }
    }
    // Written by hand to keep the table's column order (serde_json's map sorts its keys).
    let mut out = String::from("{");
    for (i, (k, v)) in cells.iter().enumerate() {
        out.push_str(if i == 0 { "\n  " } else { ",\n  " });
        out.push_str(&Value::from(k.as_str()).to_string());
        out.push_str(": ");
        out.push_str(&v.to_string());
    }
    out.push_str("\n}");
    out
}
