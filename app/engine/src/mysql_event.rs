//! MySQL / MariaDB events: one `information_schema.EVENTS` row, forecast and validated.
//!
//! # How a row is read
//!
//! Columns keep information_schema's upper-case names (lower-case aliases are accepted), and
//! every value is kept as text so that a bad one becomes a Diagnostic naming its column.
//! `STARTS`, `ENDS` and `EXECUTE_AT` are wall-clock times in the event's `TIME_ZONE`, as
//! information_schema shows them; `SYSTEM` (or no zone) means the server's zone, which is the
//! `tz` argument. Without the tz database (feature `tzdb`, the browser's build) a TIME_ZONE can
//! only be `tz`'s own name, `UTC` or an offset; any other name is an Error.
//!
//! # Semantics (MySQL's `Event_queue_element::compute_next_execution_time` / `get_next_time`)
//!
//! - **Recurrences are `STARTS + k × interval`, k = 0, 1, 2 …**, always counted from STARTS
//!   (never from the last execution), so a late run does not shift the next one. The first
//!   execution is at STARTS itself.
//! - **The arithmetic is on the event's wall clock.** Intervals convertible to seconds
//!   (SECOND … WEEK and the composite DAY_SECOND etc.) add seconds to STARTS' *local* time;
//!   MONTH, QUARTER, YEAR and YEAR_MONTH add calendar months to STARTS like `DATE_ADD`, with the
//!   day clamped to the month's last day (STARTS Jan 31, every month: Feb 29 (28), Mar 31,
//!   Apr 30 … — each from STARTS, so the clamp never sticks). An event every 1 DAY at 02:00
//!   therefore stays at 02:00 across a DST change.
//! - **Daylight saving** (Sundial's rule, which is also what MySQL's conversion does): a local
//!   time in a spring-forward gap runs at the first instant after it; a local time in a
//!   repeated hour runs once, at the earlier instant (MySQL reads it as the first pass and
//!   skips forward past the second pass).
//! - **ENDS is inclusive**: a recurrence exactly at ENDS runs.
//! - **INTERVAL_VALUE** is the text information_schema shows: `'5'`, `'1:30'` (HOUR_MINUTE),
//!   `'1 2:03:04'` (DAY_SECOND), `'1-6'` (YEAR_MONTH). Like MySQL, a value with fewer parts
//!   than its field names is read right-aligned (`'30'` as DAY_MINUTE is 30 minutes).
//! - **STATUS** DISABLED or SLAVESIDE_DISABLED (disabled on this replica): no forecast, Info.
//! - **ONE TIME** events run once at EXECUTE_AT (STARTS/ENDS/interval ignored).
//! - **ON_COMPLETION NOT PRESERVE**: once the event has finished (its AT time passed, or its
//!   last recurrence before ENDS) MySQL drops it and it disappears from information_schema —
//!   an Info, so that a missing event later is not mistaken for a deleted schedule.
//! - **Overlap**: the scheduler starts each execution in its own thread; a long run does not
//!   delay the next one (see [`super::dialect::overlap_policy`]).
use super::dialect::{Clock, Until, collect, fmt_ts, loose, timestamp_field};
use super::{Diagnostic, Forecast, ScheduleId, Severity, Window, Zone};
use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

/// One `information_schema.EVENTS` row (the columns Sundial reads; others are ignored).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct MysqlEvent {
    #[serde(rename = "EVENT_SCHEMA", alias = "event_schema", deserialize_with = "loose")]
    pub event_schema: Option<String>,
    #[serde(rename = "EVENT_NAME", alias = "event_name", deserialize_with = "loose")]
    pub event_name: Option<String>,
    /// `ONE TIME` or `RECURRING`.
    #[serde(rename = "EVENT_TYPE", alias = "event_type", deserialize_with = "loose")]
    pub event_type: Option<String>,
    #[serde(rename = "EXECUTE_AT", alias = "execute_at", deserialize_with = "loose")]
    pub execute_at: Option<String>,
    #[serde(rename = "INTERVAL_VALUE", alias = "interval_value", deserialize_with = "loose")]
    pub interval_value: Option<String>,
    #[serde(rename = "INTERVAL_FIELD", alias = "interval_field", deserialize_with = "loose")]
    pub interval_field: Option<String>,
    #[serde(rename = "STARTS", alias = "starts", deserialize_with = "loose")]
    pub starts: Option<String>,
    #[serde(rename = "ENDS", alias = "ends", deserialize_with = "loose")]
    pub ends: Option<String>,
    /// `ENABLED`, `DISABLED` or `SLAVESIDE_DISABLED` (absent: ENABLED).
    #[serde(rename = "STATUS", alias = "status", deserialize_with = "loose")]
    pub status: Option<String>,
    /// `PRESERVE` or `NOT PRESERVE`.
    #[serde(rename = "ON_COMPLETION", alias = "on_completion", deserialize_with = "loose")]
    pub on_completion: Option<String>,
    /// `SYSTEM`, an IANA name, or an offset like `+05:30`.
    #[serde(rename = "TIME_ZONE", alias = "time_zone", deserialize_with = "loose")]
    pub time_zone: Option<String>,
    #[serde(rename = "LAST_EXECUTED", alias = "last_executed", deserialize_with = "loose")]
    pub last_executed: Option<String>,
}

/// An interval field: its name, and how its parts convert (seconds per part, or months per
/// part), leftmost part first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Seconds(&'static [i64]),
    Months(&'static [i64]),
}

const FIELDS: &[(&str, Unit, &[&str])] = &[
    ("SECOND", Unit::Seconds(&[1]), &["second"]),
    ("MINUTE", Unit::Seconds(&[60]), &["minute"]),
    ("HOUR", Unit::Seconds(&[3600]), &["hour"]),
    ("DAY", Unit::Seconds(&[86_400]), &["day"]),
    ("WEEK", Unit::Seconds(&[604_800]), &["week"]),
    ("MONTH", Unit::Months(&[1]), &["month"]),
    ("QUARTER", Unit::Months(&[3]), &["quarter"]),
    ("YEAR", Unit::Months(&[12]), &["year"]),
    ("MINUTE_SECOND", Unit::Seconds(&[60, 1]), &["minute", "second"]),
    ("HOUR_MINUTE", Unit::Seconds(&[3600, 60]), &["hour", "minute"]),
    ("HOUR_SECOND", Unit::Seconds(&[3600, 60, 1]), &["hour", "minute", "second"]),
    ("DAY_HOUR", Unit::Seconds(&[86_400, 3600]), &["day", "hour"]),
    ("DAY_MINUTE", Unit::Seconds(&[86_400, 3600, 60]), &["day", "hour", "minute"]),
    ("DAY_SECOND", Unit::Seconds(&[86_400, 3600, 60, 1]), &["day", "hour", "minute", "second"]),
    ("YEAR_MONTH", Unit::Months(&[12, 1]), &["year", "month"]),
];

/// A checked interval: total seconds (wall clock) or total months, and its parts for the
/// description.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Interval {
    step: Step,
    parts: Vec<(i64, &'static str)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Seconds(i64),
    Months(i64),
}

fn parse_interval(value: &str, field: &str, diags: &mut Vec<Diagnostic>) -> Option<Interval> {
    let f = field.trim().to_ascii_uppercase();
    let Some((_, unit, names)) = FIELDS.iter().find(|(n, ..)| *n == f) else {
        let known: Vec<&str> = FIELDS.iter().map(|(n, ..)| *n).collect();
        diags.push(Diagnostic::error(
            "INTERVAL_FIELD",
            field.trim(),
            format!("not an event interval; one of {}", known.join(", ")),
        ));
        return None;
    };
    let v = value.trim().trim_matches('\'');
    if v.starts_with('-') {
        diags.push(Diagnostic::error(
            "INTERVAL_VALUE",
            value.trim(),
            "must be positive (MySQL rejects a negative interval)",
        ));
        return None;
    }
    let groups: Vec<&str> = v.split(|c: char| !c.is_ascii_digit()).filter(|g| !g.is_empty()).collect();
    let bad_chars = v.chars().any(|c| !(c.is_ascii_digit() || matches!(c, ' ' | ':' | '-' | '.')));
    let (factors, months) = match unit {
        Unit::Seconds(f) => (*f, false),
        Unit::Months(f) => (*f, true),
    };
    if groups.is_empty() || bad_chars || groups.len() > factors.len() {
        diags.push(Diagnostic::error(
            "INTERVAL_VALUE",
            value.trim(),
            format!("not a {f} interval (expected {} number(s), e.g. {})", factors.len(), example(&f)),
        ));
        return None;
    }
    // Right-aligned, as MySQL reads a short interval string.
    let skip = factors.len() - groups.len();
    let mut total: i64 = 0;
    let mut parts = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        let Ok(n) = g.parse::<i64>() else {
            diags.push(Diagnostic::error("INTERVAL_VALUE", value.trim(), "is too big"));
            return None;
        };
        let Some(t) = n.checked_mul(factors[skip + i]).and_then(|x| total.checked_add(x)) else {
            diags.push(Diagnostic::error("INTERVAL_VALUE", value.trim(), "is too big"));
            return None;
        };
        total = t;
        parts.push((n, names[skip + i]));
    }
    let limit = if months { 12 * 10_000 } else { 86_400 * 366 * 10_000 };
    if total <= 0 {
        diags.push(Diagnostic::error(
            "INTERVAL_VALUE",
            value.trim(),
            "must be positive (MySQL rejects an interval of 0)",
        ));
        return None;
    }
    if total > limit {
        diags.push(Diagnostic::error("INTERVAL_VALUE", value.trim(), "is too big (over 10000 years)"));
        return None;
    }
    let step = if months { Step::Months(total) } else { Step::Seconds(total) };
    Some(Interval { step, parts })
}

fn example(f: &str) -> &'static str {
    match f {
        "MINUTE_SECOND" => "'1:30'",
        "HOUR_MINUTE" => "'1:30'",
        "HOUR_SECOND" => "'1:00:30'",
        "DAY_HOUR" => "'1 12'",
        "DAY_MINUTE" => "'1 12:30'",
        "DAY_SECOND" => "'1 12:30:00'",
        "YEAR_MONTH" => "'1-6'",
        _ => "'5'",
    }
}

/// `SYSTEM`/absent: `tz`; an IANA name ([`Zone::from_name`]: the tz database with feature
/// `tzdb`, else the rules given as data); or `+hh:mm`.
pub(crate) fn zone_of(e: &MysqlEvent, tz: Zone, diags: &mut Vec<Diagnostic>) -> Option<Clock> {
    let Some(z) = e.time_zone.as_deref().map(str::trim).filter(|z| !z.is_empty()) else {
        return Some(Clock::Zone(tz));
    };
    if z.eq_ignore_ascii_case("SYSTEM") || z == tz.name() {
        return Some(Clock::Zone(tz));
    }
    // The same zones every other field takes: the tz database's (feature `tzdb`), else the
    // rules given as data (the simulator fetches them for a name the row gives).
    if let Some(zone) = Zone::from_name(z) {
        return Some(Clock::Zone(zone));
    }
    if let Some(rest) = z.strip_prefix(['+', '-']) {
        let sign = if z.starts_with('-') { -1 } else { 1 };
        if let Some((h, m)) = rest.split_once(':')
            && let (Ok(h), Ok(m)) = (h.parse::<i32>(), m.parse::<i32>())
            && (0..=14).contains(&h)
            && (0..60).contains(&m)
        {
            return Some(Clock::Fixed(sign * (h * 3600 + m * 60)));
        }
    }
    if z == "UTC" {
        return Some(Clock::Zone(Zone::UTC));
    }
    diags.push(Diagnostic::error(
        "TIME_ZONE",
        z,
        "not SYSTEM, an IANA time zone (Europe/Berlin) or an offset like +05:30",
    ));
    None
}

#[derive(Clone, Debug)]
enum Plan {
    Once(NaiveDateTime),
    Every { starts: NaiveDateTime, ends: Option<NaiveDateTime>, interval: Interval },
}

fn upper(v: &Option<String>) -> Option<String> {
    v.as_deref().map(|s| s.trim().to_ascii_uppercase()).filter(|s| !s.is_empty())
}

/// The checked row (or `None` when it cannot or need not be forecast), its zone, and
/// everything found along the way.
fn analyze(e: &MysqlEvent, tz: Zone) -> (Option<(Plan, Clock)>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let usable = check_status(e, &mut diags);
    let zone = zone_of(e, tz, &mut diags);
    let not_preserve = not_preserve(e, &mut diags);
    let kind = recurring(e, &mut diags);
    let last = timestamp_field("LAST_EXECUTED", &e.last_executed, &mut diags).ok().flatten();
    let plan = match kind {
        Some(false) => once_plan(e, not_preserve, last, &mut diags),
        Some(true) => every_plan(e, not_preserve, &mut diags),
        None => None,
    };
    if e.time_zone.as_deref().map(str::trim).is_none_or(|z| z.is_empty() || z.eq_ignore_ascii_case("SYSTEM")) {
        diags.push(Diagnostic::info(format!(
            "TIME_ZONE is SYSTEM: the event's times are read in {}",
            zone.map(Clock::name).unwrap_or_default()
        )));
    }
    if diags.iter().any(|d| d.severity == Severity::Error) || !usable {
        return (None, diags);
    }
    match (plan, zone) {
        (Some(p), Some(z)) => (Some((p, z)), diags),
        _ => (None, diags),
    }
}

/// `STATUS`: false when the event is disabled (here or on this replica), which is an Info.
fn check_status(e: &MysqlEvent, diags: &mut Vec<Diagnostic>) -> bool {
    match upper(&e.status).as_deref() {
        None | Some("ENABLED") => true,
        Some(s @ ("DISABLED" | "SLAVESIDE_DISABLED")) => {
            let why = if s == "DISABLED" {
                "the event is disabled: there is no forecast"
            } else {
                "the event is disabled on this replica (it runs on the source): there is no forecast"
            };
            diags.push(Diagnostic::new(Severity::Info, Some("STATUS"), Some(s.to_owned()), why));
            false
        }
        Some(other) => {
            diags.push(Diagnostic::error("STATUS", other, "must be ENABLED, DISABLED or SLAVESIDE_DISABLED"));
            true
        }
    }
}

/// `ON_COMPLETION`: true when MySQL drops the event once it has finished.
fn not_preserve(e: &MysqlEvent, diags: &mut Vec<Diagnostic>) -> bool {
    match upper(&e.on_completion).as_deref() {
        None | Some("PRESERVE") => false,
        Some("NOT PRESERVE") | Some("NOT_PRESERVE") | Some("DROP") => true,
        Some(other) => {
            diags.push(Diagnostic::error("ON_COMPLETION", other, "must be PRESERVE or NOT PRESERVE"));
            false
        }
    }
}

/// `EVENT_TYPE`: `Some(true)` RECURRING, `Some(false)` ONE TIME; without it, whichever the
/// row's columns say.
fn recurring(e: &MysqlEvent, diags: &mut Vec<Diagnostic>) -> Option<bool> {
    match upper(&e.event_type).as_deref() {
        Some("ONE TIME") | Some("ONE_TIME") | Some("ONETIME") => Some(false),
        Some("RECURRING") => Some(true),
        None if e.interval_value.is_some() => Some(true),
        None if e.execute_at.is_some() => Some(false),
        None => {
            diags.push(Diagnostic::new(
                Severity::Error,
                Some("EVENT_TYPE"),
                None,
                "missing: ONE TIME (with EXECUTE_AT) or RECURRING (with INTERVAL_VALUE and INTERVAL_FIELD)",
            ));
            None
        }
        Some(other) => {
            diags.push(Diagnostic::error("EVENT_TYPE", other, "must be ONE TIME or RECURRING"));
            None
        }
    }
}

/// A ONE TIME event: `EXECUTE_AT`, with what NOT PRESERVE and an earlier run mean for it.
fn once_plan(
    e: &MysqlEvent,
    not_preserve: bool,
    last: Option<NaiveDateTime>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Plan> {
    match timestamp_field("EXECUTE_AT", &e.execute_at, diags) {
        Ok(Some(at)) => {
            if not_preserve {
                diags.push(Diagnostic::new(
                    Severity::Info,
                    Some("ON_COMPLETION"),
                    Some("NOT PRESERVE".into()),
                    format!(
                        "the event is dropped after it runs at {}: it then disappears from information_schema",
                        fmt_ts(at)
                    ),
                ));
            }
            if let Some(l) = last {
                diags.push(Diagnostic::info(format!("the one-time event already ran (LAST_EXECUTED {})", fmt_ts(l))));
            }
            Some(Plan::Once(at))
        }
        Ok(None) => {
            diags.push(Diagnostic::new(Severity::Error, Some("EXECUTE_AT"), None, "a ONE TIME event needs EXECUTE_AT"));
            None
        }
        Err(()) => None,
    }
}

/// A RECURRING event: its interval, `STARTS` and `ENDS`, with what NOT PRESERVE means for it.
fn every_plan(e: &MysqlEvent, not_preserve: bool, diags: &mut Vec<Diagnostic>) -> Option<Plan> {
    let interval = interval_of(e, diags);
    let starts = starts_of(e, diags);
    let ends = timestamp_field("ENDS", &e.ends, diags).ok().flatten();
    if let (Some(s), Some(en)) = (starts, ends)
        && en < s
    {
        diags.push(Diagnostic::error("ENDS", fmt_ts(en), format!("is before STARTS ({})", fmt_ts(s))));
    }
    if not_preserve {
        let when = match ends {
            Some(en) => format!("after its last run before ENDS ({})", fmt_ts(en)),
            None => "if it ever ends (it has no ENDS, so it recurs forever)".to_owned(),
        };
        diags.push(Diagnostic::new(
            Severity::Info,
            Some("ON_COMPLETION"),
            Some("NOT PRESERVE".into()),
            format!("the event is dropped {when}: it then disappears from information_schema"),
        ));
    }
    match (starts, interval) {
        (Some(starts), Some(interval)) => Some(Plan::Every { starts, ends, interval }),
        _ => None,
    }
}

/// `INTERVAL_VALUE` with `INTERVAL_FIELD`, both required for a RECURRING event.
fn interval_of(e: &MysqlEvent, diags: &mut Vec<Diagnostic>) -> Option<Interval> {
    match (&e.interval_value, &e.interval_field) {
        (Some(v), Some(f)) => parse_interval(v, f, diags),
        (None, _) => {
            diags.push(Diagnostic::new(
                Severity::Error,
                Some("INTERVAL_VALUE"),
                None,
                "a RECURRING event needs INTERVAL_VALUE",
            ));
            None
        }
        (_, None) => {
            diags.push(Diagnostic::new(
                Severity::Error,
                Some("INTERVAL_FIELD"),
                None,
                "a RECURRING event needs INTERVAL_FIELD",
            ));
            None
        }
    }
}

/// `STARTS`, required for a RECURRING event.
fn starts_of(e: &MysqlEvent, diags: &mut Vec<Diagnostic>) -> Option<NaiveDateTime> {
    match timestamp_field("STARTS", &e.starts, diags) {
        Ok(Some(s)) => Some(s),
        Ok(None) => {
            diags.push(Diagnostic::new(
                Severity::Error,
                Some("STARTS"),
                None,
                "a RECURRING event needs STARTS (MySQL sets it to the creation time)",
            ));
            None
        }
        Err(()) => None,
    }
}

/// STARTS plus `months` calendar months, the day clamped to the month's length (DATE_ADD).
fn add_months(t: NaiveDateTime, months: i64) -> Option<NaiveDateTime> {
    let m0 = i64::from(t.year()) * 12 + i64::from(t.month0()) + months;
    let y = i32::try_from(m0.div_euclid(12)).ok()?;
    let m = m0.rem_euclid(12) as u32 + 1;
    let first = NaiveDate::from_ymd_opt(y, m, 1)?;
    let next =
        if m == 12 { NaiveDate::from_ymd_opt(y.checked_add(1)?, 1, 1)? } else { NaiveDate::from_ymd_opt(y, m + 1, 1)? };
    let len = (next - first).num_days() as u32;
    let d = NaiveDate::from_ymd_opt(y, m, t.day().min(len))?;
    Some(d.and_time(t.time()))
}

fn nth(starts: NaiveDateTime, step: Step, k: i64) -> Option<NaiveDateTime> {
    match step {
        Step::Seconds(s) => starts.checked_add_signed(TimeDelta::try_seconds(s.checked_mul(k)?)?),
        Step::Months(m) => add_months(starts, m.checked_mul(k)?),
    }
}

/// The index of a recurrence at or before `from` (0 when `from` is before STARTS).
fn first_k(starts: NaiveDateTime, step: Step, from: NaiveDateTime) -> i64 {
    if from <= starts {
        return 0;
    }
    match step {
        Step::Seconds(s) => (from - starts).num_seconds() / s,
        Step::Months(m) => {
            let months = (i64::from(from.year()) - i64::from(starts.year())) * 12 + i64::from(from.month0())
                - i64::from(starts.month0());
            (months / m - 1).max(0)
        }
    }
}

fn run(id: ScheduleId, e: &MysqlEvent, tz: Zone, until: Until) -> Forecast {
    let (plan, mut diagnostics) = analyze(e, tz);
    let Some((plan, zone)) = plan else {
        return Forecast { occurrences: Vec::new(), diagnostics };
    };
    let occurrences = match plan {
        Plan::Once(at) => collect(id, zone, std::iter::once(at), &until, &mut diagnostics),
        Plan::Every { starts, ends, interval } => {
            let from = until.from(zone);
            let k0 = first_k(starts, interval.step, from);
            let ends_at = ends.map(|en| zone.resolve(en).0);
            let nominals = (k0..)
                .map_while(move |k| nth(starts, interval.step, k))
                .take_while(move |n| ends_at.is_none_or(|en| zone.resolve(*n).0 <= en));
            collect(id, zone, nominals, &until, &mut diagnostics)
        }
    };
    Forecast { occurrences, diagnostics }
}

/// Every execution inside `window`. `tz` is the server's zone, used when TIME_ZONE is SYSTEM.
pub fn forecast(id: ScheduleId, e: &MysqlEvent, tz: Zone, window: Window) -> Forecast {
    run(id, e, tz, Until::Window(window))
}

/// The first `count` executions strictly after `after`.
pub fn next_after(id: ScheduleId, e: &MysqlEvent, tz: Zone, after: DateTime<Utc>, count: usize) -> Forecast {
    run(id, e, tz, Until::After(after, count))
}

/// What is wrong with the row (Errors) and what is worth knowing (Info).
pub fn validate(e: &MysqlEvent, tz: Zone) -> Vec<Diagnostic> {
    analyze(e, tz).1
}

/// "Every 1 day starting 2026-01-01 00:00:00 (Europe/Berlin)", "Once at 2026-03-01 06:00:00
/// (UTC)"; a broken row is described as far as it can be, with the column at fault.
pub fn describe(e: &MysqlEvent) -> String {
    let mut d = Vec::new();
    let zone = match e.time_zone.as_deref().map(str::trim) {
        None | Some("") => "SYSTEM".to_owned(),
        Some(z) => z.to_owned(),
    };
    let ts = |v: &Option<String>, field: &str| -> String {
        match v.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            None => format!("(no {field})"),
            Some(t) => match super::dialect::parse_timestamp(t) {
                Some(n) => fmt_ts(n),
                None => format!("{t} (not a timestamp)"),
            },
        }
    };
    let recurring = match upper(&e.event_type).as_deref() {
        Some("RECURRING") => true,
        Some(_) => false,
        None => e.interval_value.is_some(),
    };
    let mut s = if recurring {
        let every = match (&e.interval_value, &e.interval_field) {
            (Some(v), Some(f)) => match parse_interval(v, f, &mut d) {
                Some(i) => i
                    .parts
                    .iter()
                    .filter(|(n, _)| *n != 0 || i.parts.len() == 1)
                    .map(|(n, u)| format!("{n} {u}{}", if *n == 1 { "" } else { "s" }))
                    .collect::<Vec<_>>()
                    .join(" "),
                None => format!("{} {} (invalid interval)", v.trim(), f.trim()),
            },
            _ => "(no interval)".to_owned(),
        };
        let mut s = format!("Every {every} starting {}", ts(&e.starts, "STARTS"));
        if e.ends.as_deref().is_some_and(|t| !t.trim().is_empty()) {
            s.push_str(&format!(" until {}", ts(&e.ends, "ENDS")));
        }
        s
    } else {
        format!("Once at {}", ts(&e.execute_at, "EXECUTE_AT"))
    };
    s.push_str(&format!(" ({zone})"));
    match upper(&e.status).as_deref() {
        Some("DISABLED") => s.push_str(", disabled"),
        Some("SLAVESIDE_DISABLED") => s.push_str(", disabled on this replica"),
        _ => {}
    }
    s
}
