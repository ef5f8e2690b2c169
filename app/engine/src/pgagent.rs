//! pgAgent (pgAdmin's job scheduler): one `pgagent.pga_schedule` row with its `pga_exception`
//! rows, forecast exactly as pgAgent 4.2's `pgagent.pga_next_schedule` computes runs.
//!
//! # How a row is read
//!
//! Columns keep the table's names, and every value is kept as the text PostgreSQL prints, so
//! that a bad one becomes a Diagnostic naming its column. The five `bool[]` columns
//! (`jscminutes[60]`, `jschours[24]`, `jscweekdays[7]` Sunday first, `jscmonthdays[32]` whose
//! slot 32 is "the last day of the month", `jscmonths[12]`) are read as `{t,f,…}` text (a JSON
//! array of booleans, as `row_to_json` gives, is accepted too); an array of another length is an
//! Error, an absent one the column's default (all false). `jscstart` and `jscend` are
//! `timestamptz` text (`2026-11-22 09:00:00+01`); without an offset they are read in the
//! agent's zone, `tz`. `jscenabled` false: no forecast (Info). `exceptions` are the schedule's
//! `pga_exception` rows (`jexdate`, `jextime`, and `jexid` where known).
//!
//! # What `pga_next_schedule` does (pgagent--4.2.sql), and so what Sundial does
//!
//! The function is ported as it is written, loop by loop ([`pga_next_schedule`] answers what
//! it answers when called at `now`), in the session's time zone `tz`:
//!
//! - It searches from `runafter`, the later of `jscstart` and `now() + 1 minute`, each cut to
//!   its minute, **inclusive** (the loops `FOR i IN (nexthour + 1) .. 24` read slot `i` as hour
//!   `i - 1`: they start at the current hour and minute). A run therefore never falls in the
//!   minute `now()` is in.
//! - An all-false array means "every value". When *every* array but the weekdays is all false,
//!   the candidate equals `runafter` with nothing found, and the function adds a minute
//!   (`IF nextrun = runafter AND foundval = FALSE`): such a schedule runs every **two** minutes.
//! - Slot 32 (last day) becomes the month's last day in the search, but the check that follows
//!   accepts a last day only when slot 32 is the *only* day set: with other days set too, the
//!   last day is not run (unless its own slot is set).
//! - When the search moves to a later hour or day without an earlier miss, the minute loop
//!   starts at `runafter`'s minute less one (`FOR i IN d .. 60`, `d` = that minute), not at 0:
//!   a first computation can skip a valid earlier minute of that hour (and, after a wrong
//!   weekday, of the next days).
//! - Days are built as text (`'2026-2-30 0:0'::timestamptz`): a day the month lacks (a
//!   schedule on the 29th, 30th or 31st, in a shorter month, or wrapped into one) makes the
//!   function **fail** (`date/time field value out of range`). The trigger fails with it, and
//!   the agent schedules the job no more until something updates it again (an edit, the
//!   agent's restart): the forecast stops there, with a Warning.
//! - A wrong weekday moves the search one day on (to that day's first hour); an exception
//!   (matching the date and time, the date alone or the time alone, to the minute) moves it a
//!   minute on.
//! - Daylight saving is PostgreSQL's: a wall-clock time in a spring-forward gap is read with
//!   the offset before the gap (02:30 in New York becomes 03:30 EDT), and the shifted time is
//!   then checked against the arrays again (a schedule only at 02:30 skips that day); a time
//!   in a fall-back fold is read with the offset after it: it runs once, at the **later**
//!   instant (`Dst::Fold` here marks the later one, unlike the Agent's).
//!
//! # The chain of runs
//!
//! pgAgent computes only the next run. When a run ends, the agent sets `jobnextrun = NULL`
//! (`UPDATE pgagent.pga_job SET jobagentid=NULL, jobnextrun=NULL`), and the trigger
//! `pga_job_trigger` sets it to the least `pga_next_schedule(…)` of the job's enabled schedules,
//! computed at `now()` = when the run ended. Sundial forecasts each schedule as that chain when
//! every run ends within the minute it started: after the run at `t` the next is the
//! function's answer from `t + 1 minute`. A run that lasts longer skips the times it covers
//! (see [`super::dialect::overlap_policy`]).
//!
//! The chain starts with the function's answer from `jscstart`'s first whole minute: as the
//! trigger computes it when a schedule is inserted before its start, and, for a `jscstart`
//! left at its default (the insert's `current_timestamp`, with seconds), as at the insert
//! itself. From then on every step is the function's own; Sundial does not walk the chain from
//! `jscstart` to each window: it takes up the chain a few hours before the window (at the top
//! of an hour, where the function's answer is the next time the schedule allows), which is the
//! same chain, because a step from a run never skips a time (property-tested against a
//! minute-by-minute twin, [`next_stepwise`]). Two kinds of schedule are walked day by day from
//! the chain's start instead: those with a day 29–31 set (the walk finds where the function
//! first fails), and the every-two-minutes ones restricted to some weekdays (whose minute
//! parity each skipped day can change); the every-two-minutes ones otherwise keep the parity
//! of their first run.
//!
//! A job's schedules are forecast each on its own; pgAgent computes them together (the least
//! of them after each run), which differs only where a schedule's own chain would differ.
use super::cron::MONTH_NAMES as MONTHS;
use super::describe::WEEKDAYS;
use super::dialect::{MAX_OCCURRENCES, fmt_ts, loose, parse_timestamp};
use super::{Diagnostic, Dst, Forecast, Occurrence, ScheduleId, Severity, Window, Zone, tz};
use chrono::{
    DateTime, Datelike, LocalResult, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeDelta, TimeZone, Timelike, Utc,
};
use serde::{Deserialize, Serialize};

/// One `pgagent.pga_schedule` row (the columns Sundial reads) with its `pga_exception` rows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PgAgentSchedule {
    #[serde(deserialize_with = "loose", skip_serializing_if = "Option::is_none")]
    pub jscid: Option<String>,
    #[serde(deserialize_with = "loose", skip_serializing_if = "Option::is_none")]
    pub jscjobid: Option<String>,
    #[serde(deserialize_with = "loose", skip_serializing_if = "Option::is_none")]
    pub jscname: Option<String>,
    /// `bool`, default true.
    #[serde(deserialize_with = "loose")]
    pub jscenabled: Option<String>,
    /// `timestamptz NOT NULL`.
    #[serde(deserialize_with = "loose")]
    pub jscstart: Option<String>,
    /// `timestamptz`, NULL: no end.
    #[serde(deserialize_with = "loose")]
    pub jscend: Option<String>,
    /// `bool[60]`: minute 0 is slot 1.
    #[serde(deserialize_with = "loose_array")]
    pub jscminutes: Option<String>,
    /// `bool[24]`: hour 0 is slot 1.
    #[serde(deserialize_with = "loose_array")]
    pub jschours: Option<String>,
    /// `bool[7]`: Sunday is slot 1.
    #[serde(deserialize_with = "loose_array")]
    pub jscweekdays: Option<String>,
    /// `bool[32]`: day d is slot d; slot 32 is the last day of the month.
    #[serde(deserialize_with = "loose_array")]
    pub jscmonthdays: Option<String>,
    /// `bool[12]`: January is slot 1.
    #[serde(deserialize_with = "loose_array")]
    pub jscmonths: Option<String>,
    /// The schedule's `pga_exception` rows, in the order the table returns them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exceptions: Vec<PgAgentException>,
}

/// One `pgagent.pga_exception` row: no run at that date and time, on that date, or at that
/// time of any day.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PgAgentException {
    /// `serial`; the function reads it into a `smallint`.
    #[serde(deserialize_with = "loose", skip_serializing_if = "Option::is_none")]
    pub jexid: Option<String>,
    /// `date`, or NULL.
    #[serde(deserialize_with = "loose")]
    pub jexdate: Option<String>,
    /// `time`, or NULL.
    #[serde(deserialize_with = "loose")]
    pub jextime: Option<String>,
}

/// A `bool[]` column: PostgreSQL's text (`{t,f,NULL}`) as it is, or a JSON/TOML array of
/// booleans (nulls, strings or numbers) written as that text.
fn loose_array<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an array of booleans, as text ({t,f,…}) or as an array")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(v.to_owned()))
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D2: serde::Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_any(V)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut items = Vec::new();
            while let Some(v) = seq.next_element::<Element>()? {
                items.push(v.0);
            }
            Ok(Some(format!("{{{}}}", items.join(","))))
        }
    }
    d.deserialize_any(V)
}

/// One element of an array given as an array: its text as PostgreSQL would print it.
struct Element(String);

impl<'de> Deserialize<'de> for Element {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Element;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a boolean, null, string or number")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Element, E> {
                Ok(Element(if v { "t" } else { "f" }.to_owned()))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Element, E> {
                // Kept readable as one element: commas and braces would make it several.
                Ok(Element(v.replace([',', '{', '}'], " ")))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Element, E> {
                Ok(Element(v.to_string()))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Element, E> {
                Ok(Element(v.to_string()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Element, E> {
                Ok(Element(v.to_string()))
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<Element, E> {
                Ok(Element("NULL".to_owned()))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Element, E> {
                Ok(Element("NULL".to_owned()))
            }
            fn visit_some<D2: serde::Deserializer<'de>>(self, d: D2) -> Result<Element, D2::Error> {
                d.deserialize_any(V)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Element, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Element("(array)".to_owned()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Element, A::Error> {
                while map.next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?.is_some() {}
                Ok(Element("(object)".to_owned()))
            }
        }
        d.deserialize_any(V)
    }
}

// ---------------------------------------------------------------------------------------------
// The row, checked.
// ---------------------------------------------------------------------------------------------

/// A checked `bool[]` column of up to 64 slots (not generic over its length: one copy of
/// the code serves the five columns, which keeps the browser's bundle small).
#[derive(Clone, Copy, Debug)]
struct Bools {
    /// Bit `i` set: slot `i + 1` is TRUE (a NULL element is not: `= TRUE` never matches it).
    t: u64,
    /// Some element is NULL.
    null: bool,
    /// Equal to `'{f,f,…}'` (every element false; a NULL makes it unequal).
    all_f: bool,
    any_t: bool,
}

impl Bools {
    /// Every slot false: the column's default.
    const NONE: Bools = Bools { t: 0, null: false, all_f: true, any_t: false };

    /// `arr[i] = TRUE`, PL/pgSQL's 1-based subscript (out of range: NULL, not true).
    #[inline]
    fn t(&self, i: i64) -> bool {
        (1..=64).contains(&i) && self.t >> (i - 1) & 1 == 1
    }

    /// The check's clause: all false (every value), or slot `i` true.
    #[inline]
    fn allows(&self, i: i64) -> bool {
        self.all_f || self.t(i)
    }

    /// The 0-based slots that are TRUE.
    fn set(&self) -> Vec<usize> {
        (0..64).filter(|&i| self.t >> i & 1 == 1).collect()
    }
}

/// `jscend`: none (NULL or 'infinity'), an instant, or '-infinity'.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Never,
    At(DateTime<Utc>),
    Always,
}

#[derive(Clone, Copy, Debug)]
struct Exception {
    id: Option<i64>,
    date: Option<NaiveDate>,
    time: Option<NaiveTime>,
}

/// The checked row, ready for the function.
#[derive(Clone, Debug)]
struct Plan {
    tz: Zone,
    start: DateTime<Utc>,
    end: End,
    minutes: Bools,
    hours: Bools,
    weekdays: Bools,
    monthdays: Bools,
    months: Bools,
    /// `jscmonthdays = '{f,…,f,t}'`: only the last-day slot.
    only_last_day: bool,
    exceptions: Vec<Exception>,
}

impl Plan {
    /// Some array other than the weekdays has a true element: the function's `foundval` is
    /// true from its first loop on (false: the every-two-minutes schedule).
    fn finds_values(&self) -> bool {
        self.minutes.any_t || self.hours.any_t || self.monthdays.any_t || self.months.any_t
    }

    /// A day 29, 30 or 31 is set: the function can build a day the month lacks.
    fn can_fail(&self) -> bool {
        (29..=31).any(|d| self.monthdays.t(d))
    }

    /// Some weekdays are set, not all: every-two-minutes chains change parity over the others.
    fn skips_weekdays(&self) -> bool {
        self.weekdays.any_t && !(1..=7).all(|d| self.weekdays.t(d))
    }
}

fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "t" | "true" | "y" | "yes" | "on" | "1" => Some(true),
        "f" | "false" | "n" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// A `bool[n]` column's text: `{t,f,…}` (optionally `[1:n]={…}`), exactly `n` elements.
fn bools(field: &str, n: usize, v: &Option<String>, diags: &mut Vec<Diagnostic>) -> Option<Bools> {
    let Some(text) = v.as_deref().map(str::trim).filter(|t| !t.is_empty() && !t.eq_ignore_ascii_case("null")) else {
        return Some(Bools::NONE);
    };
    let body = match text.strip_prefix('[') {
        Some(rest) => match rest.split_once("]=") {
            Some((dims, body)) if dims.trim() == format!("1:{n}") => body.trim(),
            _ => {
                diags.push(Diagnostic::error(
                    field,
                    text,
                    format!("must be subscripted 1..{n} (pgAgent reads slots 1..{n})"),
                ));
                return None;
            }
        },
        None => text,
    };
    let Some(inner) = body.strip_prefix('{').and_then(|b| b.strip_suffix('}')) else {
        diags.push(Diagnostic::error(field, text, format!("not an array of {n} booleans like {{f,t,f,…}}")));
        return None;
    };
    let (mut t, mut null, mut len) = (0u64, false, 0usize);
    if !inner.trim().is_empty() {
        for part in inner.split(',') {
            let p = part.trim();
            if p.eq_ignore_ascii_case("null") {
                null = true;
            } else {
                match parse_bool(p.trim_matches('"')) {
                    Some(true) => {
                        if len < 64 {
                            t |= 1 << len;
                        }
                    }
                    Some(false) => {}
                    None => {
                        diags.push(Diagnostic::error(field, text, format!("'{p}' is not a boolean (t or f)")));
                        return None;
                    }
                }
            }
            len += 1;
        }
    }
    if len != n {
        diags.push(Diagnostic::error(
            field,
            text,
            format!("has {len} elements; the column holds {n} (its CHECK: array_upper = {n})"),
        ));
        return None;
    }
    Some(Bools { t, null, all_f: t == 0 && !null, any_t: t != 0 })
}

/// A `timestamptz` as PostgreSQL prints it, or without an offset (then read in the zone).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stamp {
    At(DateTime<Utc>),
    Wall(NaiveDateTime),
    Infinity,
    MinusInfinity,
}

/// Seconds east of UTC from `Z`, `+HH`, `+HH:MM`, `+HHMM` or `+HH:MM:SS`.
fn offset_secs(s: &str) -> Option<i64> {
    if s.eq_ignore_ascii_case("z") {
        return Some(0);
    }
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    let parts: Vec<&str> = if rest.contains(':') {
        rest.split(':').collect()
    } else if rest.len() == 4 {
        vec![&rest[..2], &rest[2..]]
    } else {
        vec![rest]
    };
    if parts.is_empty() || parts.len() > 3 || parts.iter().any(|p| p.is_empty() || p.len() > 2) {
        return None;
    }
    let mut secs = 0i64;
    for (i, p) in parts.iter().enumerate() {
        let n: i64 = p.parse().ok()?;
        let (unit, max) = [(3600, 15), (60, 59), (1, 59)][i];
        if n > max {
            return None;
        }
        secs += n * unit;
    }
    Some(sign * secs)
}

fn parse_stamp(s: &str) -> Option<Stamp> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("infinity") || t.eq_ignore_ascii_case("+infinity") {
        return Some(Stamp::Infinity);
    }
    if t.eq_ignore_ascii_case("-infinity") {
        return Some(Stamp::MinusInfinity);
    }
    if let Some(n) = parse_timestamp(t)
        && !t.ends_with(['z', 'Z'])
        && DateTime::parse_from_rfc3339(t).is_err()
    {
        return Some(Stamp::Wall(n));
    }
    // An offset: after the time (past the date's own dashes).
    let cut = t.char_indices().skip(10).find(|(_, c)| matches!(c, '+' | '-' | 'z' | 'Z')).map(|(i, _)| i)?;
    let (body, off) = (t[..cut].trim(), t[cut..].trim());
    let wall = parse_timestamp(body)?;
    let off = offset_secs(off)?;
    wall.checked_sub_signed(TimeDelta::try_seconds(off)?).map(|u| Stamp::At(u.and_utc()))
}

/// `jscstart` or `jscend`: `None` when absent, an Error naming it when unreadable.
fn stamp_field(field: &str, v: &Option<String>, diags: &mut Vec<Diagnostic>) -> Result<Option<Stamp>, ()> {
    match v.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(t) if t.eq_ignore_ascii_case("null") => Ok(None),
        Some(t) => match parse_stamp(t) {
            Some(s) => Ok(Some(s)),
            None => {
                diags.push(Diagnostic::error(field, t, "not a timestamptz like 2026-11-22 09:00:00+01"));
                Err(())
            }
        },
    }
}

fn exception_of(i: usize, e: &PgAgentException, diags: &mut Vec<Diagnostic>) -> Option<Exception> {
    let blank = |v: &Option<String>| -> Option<String> {
        v.as_deref().map(str::trim).filter(|t| !t.is_empty() && !t.eq_ignore_ascii_case("null")).map(str::to_owned)
    };
    let mut ok = true;
    let id = match blank(&e.jexid) {
        None => None,
        Some(t) => match t.parse::<i64>() {
            Ok(n) => Some(n),
            Err(_) => {
                diags.push(Diagnostic::error("jexid", &t, format!("exception {}: not a whole number", i + 1)));
                ok = false;
                None
            }
        },
    };
    let date = match blank(&e.jexdate) {
        None => None,
        Some(t) => match NaiveDate::parse_from_str(&t, "%Y-%m-%d") {
            Ok(d) => Some(d),
            Err(_) => {
                diags.push(Diagnostic::error(
                    "jexdate",
                    &t,
                    format!("exception {}: not a date like 2026-12-25", i + 1),
                ));
                ok = false;
                None
            }
        },
    };
    let time = match blank(&e.jextime) {
        None => None,
        Some(t) => match ["%H:%M:%S%.f", "%H:%M"].iter().find_map(|f| NaiveTime::parse_from_str(&t, f).ok()) {
            Some(x) => Some(x),
            None => {
                diags.push(Diagnostic::error("jextime", &t, format!("exception {}: not a time like 12:00:00", i + 1)));
                ok = false;
                None
            }
        },
    };
    if !ok {
        return None;
    }
    if date.is_none() && time.is_none() {
        diags.push(Diagnostic::new(
            Severity::Warning,
            Some("jexdate"),
            None,
            format!("exception {} has neither a date nor a time: it matches no run", i + 1),
        ));
    }
    if let Some(t) = time
        && (t.second() != 0 || t.nanosecond() != 0)
    {
        diags.push(Diagnostic::warning(
            "jextime",
            t,
            format!("exception {}: runs fall on whole minutes, so a time with seconds matches none", i + 1),
        ));
    }
    Some(Exception { id, date, time })
}

/// The checked row (`None` when it cannot be evaluated) and what was found along the way.
/// `jscenabled` is reported, not applied (the caller decides).
fn analyze(s: &PgAgentSchedule, tz: Zone) -> (Option<Plan>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let start = stamp_field("jscstart", &s.jscstart, &mut diags);
    let end = stamp_field("jscend", &s.jscend, &mut diags);
    let minutes = bools("jscminutes", 60, &s.jscminutes, &mut diags);
    let hours = bools("jschours", 24, &s.jschours, &mut diags);
    let weekdays = bools("jscweekdays", 7, &s.jscweekdays, &mut diags);
    let monthdays = bools("jscmonthdays", 32, &s.jscmonthdays, &mut diags);
    let months = bools("jscmonths", 12, &s.jscmonths, &mut diags);
    let exceptions: Vec<Option<Exception>> =
        s.exceptions.iter().enumerate().map(|(i, e)| exception_of(i, e, &mut diags)).collect();
    let start = match start {
        Ok(Some(Stamp::At(t))) => Some(t),
        Ok(Some(Stamp::Wall(w))) => Some(pg_instant(w, tz)),
        Ok(Some(v @ (Stamp::Infinity | Stamp::MinusInfinity))) => {
            let v = if v == Stamp::Infinity { "infinity" } else { "-infinity" };
            diags.push(Diagnostic::error("jscstart", v, "pgAgent cannot compute a run from an infinite start"));
            None
        }
        Ok(None) => {
            diags.push(Diagnostic::new(
                Severity::Error,
                Some("jscstart"),
                None,
                "missing: the column is NOT NULL (the insert's time by default)",
            ));
            None
        }
        Err(()) => None,
    };
    let end = match end {
        Ok(None | Some(Stamp::Infinity)) => Some(End::Never),
        Ok(Some(Stamp::MinusInfinity)) => Some(End::Always),
        Ok(Some(Stamp::At(t))) => Some(End::At(t)),
        Ok(Some(Stamp::Wall(w))) => Some(End::At(pg_instant(w, tz))),
        Err(()) => None,
    };
    let (Some(start), Some(end), Some(minutes), Some(hours), Some(weekdays), Some(monthdays), Some(months)) =
        (start, end, minutes, hours, weekdays, monthdays, months)
    else {
        return (None, diags);
    };
    let Some(exceptions) = exceptions.into_iter().collect::<Option<Vec<_>>>() else {
        return (None, diags);
    };
    match end {
        End::At(e) if e < start => diags.push(Diagnostic::info(format!(
            "jscend ({}) is before jscstart ({}): the schedule never runs",
            fmt_utc(e),
            fmt_utc(start)
        ))),
        End::Always => diags.push(Diagnostic::info("jscend is -infinity: the schedule never runs")),
        _ => {}
    }
    // Equal to '{f,…,f,t}': no NULL among the days, only slot 32 true.
    let only_last_day = monthdays.t == 1 << 31 && !monthdays.null;
    if monthdays.t(32) && !only_last_day && monthdays.any_t && (1..=31).any(|d| monthdays.t(d)) {
        diags.push(Diagnostic::warning(
            "jscmonthdays",
            array_text(&s.jscmonthdays),
            "the last day (slot 32) with other days set: pgAgent's check accepts a last day only when slot 32 is the only day set, so the last day runs only where its own day is set too",
        ));
    }
    // A day 29–31 set that some month the schedule allows lacks (February has 28 in most years).
    let shortest = |m: i64| if m == 2 { 28 } else { month_len(m, 2001) };
    let largest = (29..=31).rev().find(|&d| monthdays.t(d));
    if let Some(day) = largest
        && (1..=12).any(|m| (!months.any_t || months.t(m)) && shortest(m) < day)
    {
        diags.push(Diagnostic::info(
            "a day 29–31 is set: pgAgent's pga_next_schedule fails when it reaches a month without that day (date/time field value out of range), which stops the job's scheduling",
        ));
    }
    let plan = Plan { tz, start, end, minutes, hours, weekdays, monthdays, months, only_last_day, exceptions };
    if !plan.finds_values() {
        diags.push(Diagnostic::info(
            "no minute, hour, day or month is set: pgAgent adds a minute to the time it searched from, so the schedule runs every 2 minutes, not every minute",
        ));
    }
    (Some(plan), diags)
}

fn array_text(v: &Option<String>) -> String {
    v.as_deref().unwrap_or("").trim().to_owned()
}

fn fmt_utc(t: DateTime<Utc>) -> String {
    format!("{} UTC", fmt_ts(t.naive_utc()))
}

/// `jscenabled`: false means no forecast (Info); absent means true (the column's default).
fn enabled(s: &PgAgentSchedule, diags: &mut Vec<Diagnostic>) -> bool {
    match s.jscenabled.as_deref().map(str::trim).filter(|t| !t.is_empty() && !t.eq_ignore_ascii_case("null")) {
        None => true,
        Some(t) => match parse_bool(t) {
            Some(true) => true,
            Some(false) => {
                diags.push(Diagnostic::new(
                    Severity::Info,
                    Some("jscenabled"),
                    Some(t.to_owned()),
                    "the schedule is disabled (pga_job_trigger reads only enabled schedules): there is no forecast",
                ));
                false
            }
            None => {
                diags.push(Diagnostic::error("jscenabled", t, "not a boolean (t or f)"));
                false
            }
        },
    }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL's time arithmetic in the session's zone.
// ---------------------------------------------------------------------------------------------

/// A wall-clock time read as `timestamptz` in `tz`, as PostgreSQL reads it (its
/// `DetermineTimeZoneOffset`): in a spring-forward gap with the offset before the gap, in a
/// fall-back fold with the offset after it (the later instant).
fn pg_instant(wall: NaiveDateTime, tz: Zone) -> DateTime<Utc> {
    match tz.from_local_datetime(&wall) {
        LocalResult::Single(d) => d.with_timezone(&Utc),
        LocalResult::Ambiguous(a, b) => a.with_timezone(&Utc).max(b.with_timezone(&Utc)),
        LocalResult::None => {
            let fallback = wall.and_utc();
            let transition = tz::gap_end(wall, tz);
            let Some(before) = transition.checked_sub_signed(TimeDelta::seconds(1)) else { return fallback };
            let off = i64::from(tz.offset_from_utc_datetime(&before.naive_utc()).fix().local_minus_utc());
            wall.checked_sub_signed(TimeDelta::seconds(off)).map(|u| u.and_utc()).unwrap_or(fallback)
        }
    }
}

/// Whether the wall-clock time exists in `tz` (is not in a spring-forward gap).
fn real(wall: NaiveDateTime, tz: Zone) -> bool {
    !matches!(tz.from_local_datetime(&wall), LocalResult::None)
}

/// `date_trunc('MINUTE', t)` of a `timestamptz`: its wall clock's seconds dropped, at the same
/// offset.
fn trunc_minute(t: DateTime<Utc>, tz: Zone) -> DateTime<Utc> {
    let wall = tz::to_local(t, tz);
    let extra = i64::from(wall.second()) * 1_000_000_000 + i64::from(wall.nanosecond());
    t.checked_sub_signed(TimeDelta::nanoseconds(extra)).unwrap_or(t)
}

/// The first whole minute at or after `t` (in `tz`'s wall clock).
fn ceil_minute(t: DateTime<Utc>, tz: Zone) -> DateTime<Utc> {
    let down = trunc_minute(t, tz);
    if down == t { t } else { down.checked_add_signed(TimeDelta::minutes(1)).unwrap_or(down) }
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// The month's length, as the function's `d` (and its last-day table) has it.
fn month_len(month: i64, year: i64) -> i64 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(year) => 29,
        _ => 28,
    }
}

// ---------------------------------------------------------------------------------------------
// pga_next_schedule.
// ---------------------------------------------------------------------------------------------

/// One answer of the function: the run (`at`), its wall clock (`wall`, the function's
/// `nextrun`) and the wall-clock time the arrays asked for (`nominal`; differs in a gap).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Next {
    nominal: NaiveDateTime,
    wall: NaiveDateTime,
    at: DateTime<Utc>,
}

/// Why the function gives no run.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Stop {
    /// NULL: past `jscend`.
    End,
    /// It raises `date/time field value out of range: "…"` (the text it built).
    Range(String),
    /// It raises `smallint out of range` (a year past 32767, or an exception's `jexid`).
    Smallint(String),
    /// Its loop does not end within [`MAX_ITERATIONS`] loops (every allowed time is excepted or
    /// never valid).
    Endless,
    /// Past the years Sundial models (1000..9999).
    Beyond,
}

/// The most loops of the function's search one answer may take.
const MAX_ITERATIONS: u32 = 200_000;

/// The first slot in `from..=to` that is true (a PL/pgSQL `FOR i IN from .. to LOOP IF
/// arr[i] = TRUE THEN … EXIT`, its bounds read once).
fn first(b: &Bools, from: i64, to: i64) -> Option<i64> {
    (from..=to).find(|&i| b.t(i))
}

fn wrap_month(month: &mut i64, year: &mut i64) {
    if *month == 12 {
        *year += 1;
        *month = 1;
    } else {
        *month += 1;
    }
}

/// The function's `WHILE bingo = FALSE` loop from the wall-clock `runafter`, statement by
/// statement (its names kept).
fn search(p: &Plan, start: NaiveDateTime) -> Result<Next, Stop> {
    let tz = p.tz;
    let mut runafter = start;
    let (mut foundval, mut daytweak, mut minutetweak) = (false, false, false);
    for _ in 0..MAX_ITERATIONS {
        let ra_y = i64::from(runafter.year());
        let (ra_mo, ra_d) = (i64::from(runafter.month()), i64::from(runafter.day()));
        let (ra_h, ra_mi) = (i64::from(runafter.hour()), i64::from(runafter.minute()));
        if ra_y > 32_767 {
            return Err(Stop::Smallint(format!("year {ra_y}")));
        }
        if !(1000..=9999).contains(&ra_y) {
            return Err(Stop::Beyond);
        }
        let mut nextyear = ra_y;

        // The month: the next from runafter's, else the first (next year).
        let mut nextmonth = ra_mo;
        if let Some(i) = first(&p.months, nextmonth, 12) {
            nextmonth = i;
            foundval = true;
        } else if let Some(i) = first(&p.months, 1, nextmonth - 1) {
            nextmonth = i;
            nextyear += 1;
            foundval = true;
        }

        // The day: the lowest after a later month, else the next from runafter's, else the
        // lowest of the next month (whatever the months allow).
        let mut nextday;
        if nextyear > ra_y || nextmonth > ra_mo {
            nextday = 1;
            if let Some(i) = first(&p.monthdays, 1, 32) {
                nextday = i;
                foundval = true;
            }
        } else {
            nextday = ra_d;
            if let Some(i) = first(&p.monthdays, nextday, 32) {
                nextday = i;
                foundval = true;
            } else if let Some(i) = first(&p.monthdays, 1, nextday - 1) {
                nextday = i;
                wrap_month(&mut nextmonth, &mut nextyear);
                foundval = true;
            }
        }
        if nextday == 32 {
            nextday = month_len(nextmonth, nextyear);
        }

        // The hour: the lowest after a later day (or a wrong weekday), else the next from
        // runafter's (`FOR i IN (nexthour + 1) .. 24`, slot i being hour i - 1: this hour
        // included), else the lowest of the next day.
        let mut nexthour;
        if nextyear > ra_y || nextmonth > ra_mo || nextday > ra_d || daytweak {
            nexthour = 0;
            if let Some(i) = first(&p.hours, 1, 24) {
                nexthour = i - 1;
                foundval = true;
            }
        } else {
            nexthour = ra_h;
            if let Some(i) = first(&p.hours, nexthour + 1, 24) {
                nexthour = i - 1;
                foundval = true;
            } else if let Some(i) = first(&p.hours, 1, nexthour) {
                nexthour = i - 1;
                if nextday == month_len(nextmonth, nextyear) {
                    nextday = 1;
                    wrap_month(&mut nextmonth, &mut nextyear);
                } else {
                    nextday += 1;
                }
                foundval = true;
            }
        }

        // The minute: after a later hour, from slot `d` = runafter's minute (minute d - 1), or
        // from slot 1 after a miss; else the next from runafter's, else the lowest of the next
        // hour.
        let mut nextminute;
        if nextyear > ra_y || nextmonth > ra_mo || nextday > ra_d || nexthour > ra_h || daytweak {
            nextminute = 0;
            let d = if minutetweak { 1 } else { ra_mi };
            if let Some(i) = first(&p.minutes, d, 60) {
                nextminute = i - 1;
                foundval = true;
            }
        } else {
            nextminute = ra_mi;
            if let Some(i) = first(&p.minutes, nextminute + 1, 60) {
                nextminute = i - 1;
                foundval = true;
            } else if let Some(i) = first(&p.minutes, 1, nextminute) {
                nextminute = i - 1;
                if nexthour == 23 {
                    nexthour = 0;
                    if nextday == month_len(nextmonth, nextyear) {
                        nextday = 1;
                        wrap_month(&mut nextmonth, &mut nextyear);
                    } else {
                        nextday += 1;
                    }
                } else {
                    nexthour += 1;
                }
                foundval = true;
            }
        }
        if nextyear > 32_767 {
            return Err(Stop::Smallint(format!("year {nextyear}")));
        }

        // `(nextyear || '-' || … )::timestamptz`, kept in a `timestamp`.
        let text = format!("{nextyear}-{nextmonth}-{nextday} {nexthour}:{nextminute}");
        let built = i32::try_from(nextyear)
            .ok()
            .zip(u32::try_from(nextmonth).ok())
            .zip(u32::try_from(nextday).ok())
            .and_then(|((y, m), d)| NaiveDate::from_ymd_opt(y, m, d))
            .zip(u32::try_from(nexthour).ok().zip(u32::try_from(nextminute).ok()))
            .and_then(|(date, (h, mi))| NaiveTime::from_hms_opt(h, mi, 0).map(|t| date.and_time(t)));
        let Some(candidate) = built else { return Err(Stop::Range(text)) };
        if !(1000..=9999).contains(&candidate.year()) {
            return Err(Stop::Beyond);
        }
        let mut nextrun = tz::to_local(pg_instant(candidate, tz), tz);
        let mut nominal = candidate;
        if nextrun == runafter && !foundval {
            nextrun += TimeDelta::minutes(1);
            nominal = nextrun;
        }
        let at = pg_instant(nextrun, tz);
        match p.end {
            End::At(e) if at > e => return Err(Stop::End),
            End::Always => return Err(Stop::End),
            _ => {}
        }

        if check(p, nextrun) {
            let dow = i64::from(nextrun.weekday().num_days_from_sunday()) + 1;
            if p.weekdays.t(dow) || !p.weekdays.any_t {
                match exception_hit(p, nextrun) {
                    Some(hit) => {
                        if let Some(id) = hit.id
                            && i16::try_from(id).is_err()
                        {
                            return Err(Stop::Smallint(format!("jexid {id}")));
                        }
                        runafter = nextrun + TimeDelta::minutes(1);
                        minutetweak = true;
                        daytweak = false;
                    }
                    None => return Ok(Next { nominal, wall: nextrun, at }),
                }
            } else {
                runafter = nextrun + TimeDelta::days(1);
                minutetweak = false;
                daytweak = true;
            }
        } else {
            runafter = nextrun + TimeDelta::minutes(1);
            minutetweak = true;
            daytweak = false;
        }
    }
    Err(Stop::Endless)
}

/// The function's check that a wrapped candidate is still allowed by the arrays.
fn check(p: &Plan, t: NaiveDateTime) -> bool {
    let (month, day) = (i64::from(t.month()), i64::from(t.day()));
    let last = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => day == 31,
        4 | 6 | 9 | 11 => day == 30,
        // As written: in a leap year the 28th passes too.
        _ => (is_leap(i64::from(t.year())) && day == 29) || day == 28,
    };
    p.minutes.allows(i64::from(t.minute()) + 1)
        && p.hours.allows(i64::from(t.hour()) + 1)
        && (p.monthdays.all_f || p.monthdays.t(day) || (p.only_last_day && last))
        && p.months.allows(month)
}

/// The first exception (in the rows' order) matching the run's date and time, its date
/// alone, or its time alone.
fn exception_hit(p: &Plan, t: NaiveDateTime) -> Option<Exception> {
    let (date, time) = (t.date(), t.time());
    p.exceptions.iter().copied().find(|e| match (e.date, e.time) {
        (Some(d), Some(x)) => d == date && x == time,
        (Some(d), None) => d == date,
        (None, Some(x)) => x == time,
        (None, None) => false,
    })
}

/// The function's answer at `now` with the row checked: its opening (`jscend` passed, the
/// later of the start and `now() + 1 minute`) and the search.
fn call(p: &Plan, now: DateTime<Utc>) -> Result<Next, Stop> {
    match p.end {
        End::At(e) if e < now => return Err(Stop::End),
        End::Always => return Err(Stop::End),
        _ => {}
    }
    let soon = trunc_minute(now.checked_add_signed(TimeDelta::minutes(1)).unwrap_or(now), p.tz);
    let runafter = trunc_minute(p.start, p.tz).max(soon);
    search(p, tz::to_local(runafter, p.tz))
}

/// The chain's step from a run: the function's answer when the run ended in its own minute.
fn step(p: &Plan, t: &Next) -> Result<Next, Stop> {
    let after = t.at.checked_add_signed(TimeDelta::minutes(1)).ok_or(Stop::Beyond)?;
    search(p, tz::to_local(trunc_minute(after, p.tz), p.tz))
}

/// What `SELECT pgagent.pga_next_schedule(jscid, jscstart, jscend, jscminutes, jschours,
/// jscweekdays, jscmonthdays, jscmonths)` answers when called at `now` with the session's
/// `TimeZone` `tz` (as the trigger does when a run ends or a schedule changes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NextRun {
    /// The next run.
    At(DateTime<Utc>),
    /// NULL: the schedule is past its end (or ends before its next run).
    Null,
    /// The function raises this error (PostgreSQL's message).
    Fails(String),
    /// The row cannot be read (its Errors are in the diagnostics), or the answer lies past
    /// what Sundial models (years 1000..9999, a search of 200,000 loops).
    Unknown,
}

/// `pgagent.pga_next_schedule(…)` called at `now` in the session zone `tz`, with the row's
/// exceptions (`jscenabled` is not the function's concern: the trigger filters on it).
pub fn pga_next_schedule(s: &PgAgentSchedule, tz: Zone, now: DateTime<Utc>) -> (NextRun, Vec<Diagnostic>) {
    let (plan, diags) = analyze(s, tz);
    let Some(p) = plan else { return (NextRun::Unknown, diags) };
    let answer = match call(&p, now) {
        Ok(n) => NextRun::At(n.at),
        Err(Stop::End) => NextRun::Null,
        Err(Stop::Range(text)) => NextRun::Fails(format!("date/time field value out of range: \"{text}\"")),
        Err(Stop::Smallint(_)) => NextRun::Fails("smallint out of range".to_owned()),
        Err(Stop::Endless | Stop::Beyond) => NextRun::Unknown,
    };
    (answer, diags)
}

// ---------------------------------------------------------------------------------------------
// The twin: minute by minute.
// ---------------------------------------------------------------------------------------------

/// Whether a run may fall at the wall-clock time `t`: the function's check, the weekday, no
/// exception.
fn runs_at(p: &Plan, t: NaiveDateTime) -> bool {
    let dow = i64::from(t.weekday().num_days_from_sunday()) + 1;
    check(p, t) && (p.weekdays.t(dow) || !p.weekdays.any_t) && exception_hit(p, t).is_none()
}

/// Whether the arrays allow the wall-clock time `t` in the search's sense (slot 32 as the
/// month's last day; no weekday).
fn searched(p: &Plan, t: NaiveDateTime) -> bool {
    let (y, m, d) = (i64::from(t.year()), i64::from(t.month()), i64::from(t.day()));
    p.minutes.allows(i64::from(t.minute()) + 1)
        && p.hours.allows(i64::from(t.hour()) + 1)
        && (p.monthdays.all_f || p.monthdays.t(d) || (p.monthdays.t(32) && d == month_len(m, y)))
        && p.months.allows(m)
}

/// The straightforward twin of a step of the chain, for the tests: from the wall-clock
/// `runafter`, every minute in turn; one the arrays allow is read as PostgreSQL reads it (a
/// time in a gap moves past it), and is the answer when a run may fall there, else the walk
/// goes on after it. Only for schedules with some minute, hour, day or month set; `None` past
/// `jscend` or after `limit` minutes.
pub fn next_stepwise(s: &PgAgentSchedule, tz: Zone, runafter: NaiveDateTime, limit: u32) -> Option<DateTime<Utc>> {
    let (Some(p), _) = analyze(s, tz) else { return None };
    let mut w = runafter;
    let mut steps = 0;
    while steps < limit {
        steps += 1;
        if searched(&p, w) {
            let c = tz::to_local(pg_instant(w, tz), tz);
            let at = pg_instant(c, tz);
            if let End::At(e) = p.end
                && at > e
            {
                return None;
            }
            if runs_at(&p, c) {
                return Some(at);
            }
            w = c.max(w).checked_add_signed(TimeDelta::minutes(1))?;
        } else {
            w = w.checked_add_signed(TimeDelta::minutes(1))?;
        }
    }
    None
}

/// The function's search from the wall-clock `runafter` (one step of [`forecast`]'s chain,
/// when `runafter` is the minute after a run), for the twin's tests: the run, `Ok(None)` past
/// `jscend`, or why it fails (`Err`; also for a row that cannot be read).
pub fn next_from(s: &PgAgentSchedule, tz: Zone, runafter: NaiveDateTime) -> Result<Option<DateTime<Utc>>, String> {
    let (Some(p), _) = analyze(s, tz) else { return Err("the row cannot be read".into()) };
    match search(&p, runafter) {
        Ok(n) => Ok(Some(n.at)),
        Err(Stop::End) => Ok(None),
        Err(other) => Err(format!("{other:?}")),
    }
}

// ---------------------------------------------------------------------------------------------
// The chain, forecast.
// ---------------------------------------------------------------------------------------------

/// How far before what is asked the chain is taken up (more than any fold and a margin).
const TAKE_UP: TimeDelta = TimeDelta::hours(3);

/// The most days walked from the chain's start (a century).
const MAX_WALK_DAYS: u32 = 36_600;

/// The chain's last run on the day of the run `t` (its own when none follows that day).
fn last_of_day(p: &Plan, t: &Next) -> Next {
    let date = t.wall.date();
    let fits = |w: NaiveDateTime| -> Option<Next> {
        if w < t.wall || !real(w, p.tz) || !runs_at(p, w) {
            return None;
        }
        let at = pg_instant(w, p.tz);
        if let End::At(e) = p.end
            && at > e
        {
            return None;
        }
        Some(Next { nominal: w, wall: w, at })
    };
    let parity = t.wall.minute() % 2;
    for h in (t.wall.hour()..24).rev() {
        if p.finds_values() && !p.hours.allows(i64::from(h) + 1) {
            continue;
        }
        for m in (0..60).rev() {
            let allowed = if p.finds_values() { p.minutes.allows(i64::from(m) + 1) } else { m % 2 == parity };
            if !allowed {
                continue;
            }
            let Some(w) = NaiveTime::from_hms_opt(h, m, 0).map(|x| date.and_time(x)) else { continue };
            if w < t.wall {
                return *t;
            }
            if let Some(n) = fits(w) {
                return if n.at < t.at { *t } else { n };
            }
        }
    }
    *t
}

/// The chain walked day by day from `first` until its day reaches `target`: the first run of
/// that day, or where the chain stops (with the run it stops after).
fn walk(p: &Plan, first: Next, target: DateTime<Utc>) -> Result<Next, (Stop, Next)> {
    let mut t = first;
    for _ in 0..MAX_WALK_DAYS {
        let last = last_of_day(p, &t);
        if last.at >= target {
            return Ok(t);
        }
        match step(p, &last) {
            Ok(n) if n.at > last.at => t = n,
            Ok(_) => return Ok(t),
            Err(stop) => return Err((stop, last)),
        }
    }
    Ok(t)
}

/// A run of the chain at or before `target - TAKE_UP` (or the chain's first), from which
/// stepping reaches every later run; or where the chain stopped before.
fn take_up(p: &Plan, first: Next, target: DateTime<Utc>) -> Result<Next, (Stop, Option<Next>)> {
    let Some(from) = target.checked_sub_signed(TAKE_UP) else { return Ok(first) };
    if first.at >= from {
        return Ok(first);
    }
    if (p.finds_values() && p.can_fail()) || (!p.finds_values() && p.skips_weekdays()) {
        return walk(p, first, from).map_err(|(s, n)| (s, Some(n)));
    }
    let wall = tz::to_local(trunc_minute(from, p.tz), p.tz);
    let taken = if p.finds_values() {
        // The top of the hour: the function's answer is the schedule's next time.
        let top = wall.with_minute(0).unwrap_or(wall);
        search(p, top)
    } else {
        // Every two minutes, at the parity of the first run: a minute before one of them the
        // function answers it (adding its minute).
        let parity = first.wall.minute() % 2;
        let back = |w: NaiveDateTime, m: i64| w.checked_sub_signed(TimeDelta::minutes(m));
        let mut w = if wall.minute() % 2 == parity { Some(wall) } else { back(wall, 1) };
        for _ in 0..120 {
            match w {
                Some(x) if real(x, p.tz) && back(x, 1).is_some_and(|b| real(b, p.tz)) => break,
                Some(x) => w = back(x, 2),
                None => break,
            }
        }
        match w.and_then(|w| back(w, 1)) {
            Some(before) => search(p, before),
            None => return Ok(first),
        }
    };
    match taken {
        Ok(n) if n.at > first.at => Ok(n),
        Ok(_) => Ok(first),
        Err(stop) => Err((stop, None)),
    }
}

/// Why the chain ends, said where it matters.
fn report(stop: &Stop, after: Option<&Next>, has_exceptions: bool, diags: &mut Vec<Diagnostic>) {
    let when = match after {
        Some(n) => format!("the run after {} ({})", fmt_ts(n.wall), fmt_utc(n.at)),
        None => "the first run".to_owned(),
    };
    let d = match stop {
        Stop::End => return,
        Stop::Range(text) => Diagnostic::warning(
            "jscmonthdays",
            text,
            format!(
                "pgAgent's pga_next_schedule fails computing {when} (date/time field value out of range: it builds a day the month lacks): the agent schedules the job no more until the job is updated or the agent restarts"
            ),
        ),
        Stop::Smallint(what) => Diagnostic::new(
            Severity::Warning,
            Some(if what.starts_with("jexid") { "jexid" } else { "jscstart" }),
            Some(what.clone()),
            format!(
                "pgAgent's pga_next_schedule fails computing {when} (smallint out of range: {what}): the agent schedules the job no more"
            ),
        ),
        Stop::Endless => Diagnostic::new(
            Severity::Warning,
            Some(if has_exceptions { "exceptions" } else { "jscminutes" }),
            None,
            format!(
                "pgAgent's pga_next_schedule finds no time for {when}: every time the arrays allow is excepted or fails its check, and its search does not end"
            ),
        ),
        Stop::Beyond => Diagnostic::info(format!("{when} lies outside the years 1000..9999: the forecast stops there")),
    };
    diags.push(d);
}

enum Until {
    Window(Window),
    After(DateTime<Utc>, usize),
}

fn run(id: ScheduleId, s: &PgAgentSchedule, tz: Zone, until: Until) -> Forecast {
    let (plan, mut diagnostics) = analyze(s, tz);
    let on = enabled(s, &mut diagnostics);
    let mut occurrences = Vec::new();
    let Some(p) = plan.filter(|_| on && !diagnostics.iter().any(|d| d.severity == Severity::Error)) else {
        return Forecast { occurrences, diagnostics };
    };
    let (from, empty) = match until {
        Until::Window(w) => (w.start, w.is_empty()),
        Until::After(a, n) => (a, n == 0),
    };
    if empty {
        return Forecast { occurrences, diagnostics };
    }
    let first = match search(&p, tz::to_local(ceil_minute(p.start, tz), tz)) {
        Ok(n) => n,
        Err(stop) => {
            report(&stop, None, !p.exceptions.is_empty(), &mut diagnostics);
            return Forecast { occurrences, diagnostics };
        }
    };
    let mut t = match take_up(&p, first, from) {
        Ok(t) => t,
        Err((stop, after)) => {
            report(&stop, after.as_ref(), !p.exceptions.is_empty(), &mut diagnostics);
            return Forecast { occurrences, diagnostics };
        }
    };
    loop {
        let keep = match until {
            Until::Window(w) => {
                if t.at >= w.end {
                    break;
                }
                t.at >= w.start
            }
            Until::After(a, _) => t.at > a,
        };
        if keep {
            let local = tz::to_local(t.at, tz);
            let dst = match tz.from_local_datetime(&t.nominal) {
                LocalResult::None => Some(Dst::Gap),
                LocalResult::Ambiguous(..) => Some(Dst::Fold),
                LocalResult::Single(_) => None,
            };
            occurrences.push(Occurrence { at: t.at, local, nominal: t.nominal, dst, schedule: id });
            if let Until::After(_, n) = until
                && occurrences.len() >= n
            {
                break;
            }
            if occurrences.len() >= MAX_OCCURRENCES {
                diagnostics.push(Diagnostic::new(
                    Severity::Warning,
                    None,
                    None,
                    format!("more than {MAX_OCCURRENCES} occurrences: the forecast is cut off"),
                ));
                break;
            }
        }
        match step(&p, &t) {
            Ok(n) if n.at > t.at => t = n,
            Ok(_) => break,
            Err(stop) => {
                report(&stop, Some(&t), !p.exceptions.is_empty(), &mut diagnostics);
                break;
            }
        }
    }
    Forecast { occurrences, diagnostics }
}

/// Every run of the chain inside `window` (`tz`: the agent's session zone).
pub fn forecast(id: ScheduleId, s: &PgAgentSchedule, tz: Zone, window: Window) -> Forecast {
    run(id, s, tz, Until::Window(window))
}

/// The chain's first `count` runs strictly after `after`.
pub fn next_after(id: ScheduleId, s: &PgAgentSchedule, tz: Zone, after: DateTime<Utc>, count: usize) -> Forecast {
    run(id, s, tz, Until::After(after, count))
}

/// `jscenabled` is false (the editor's warning).
pub(crate) fn is_disabled(s: &PgAgentSchedule) -> bool {
    s.jscenabled.as_deref().and_then(parse_bool) == Some(false)
}

/// `jscend`, as written, when it is already past at `now` (with an offset) or at `now_local`
/// (without one).
pub(crate) fn ended(s: &PgAgentSchedule, now: DateTime<Utc>, now_local: NaiveDateTime) -> Option<String> {
    let text = s.jscend.as_deref().map(str::trim).filter(|t| !t.is_empty())?;
    let past = match parse_stamp(text)? {
        Stamp::At(t) => t < now,
        Stamp::Wall(w) => w < now_local,
        Stamp::MinusInfinity => true,
        Stamp::Infinity => false,
    };
    past.then(|| text.to_owned())
}

/// What is wrong with the row (Errors) and what is worth knowing (Warnings, Info).
pub fn validate(s: &PgAgentSchedule, tz: Zone) -> Vec<Diagnostic> {
    let (_, mut diags) = analyze(s, tz);
    enabled(s, &mut diags);
    diags
}

// ---------------------------------------------------------------------------------------------
// In words.
// ---------------------------------------------------------------------------------------------

/// "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// "Every minute", "At 09:00 and 17:30 on Monday and Friday, from 2026-01-01 09:00:00+00";
/// a row that cannot be read is described as far as it can be, with the column at fault.
pub fn describe(s: &PgAgentSchedule) -> String {
    let mut d = Vec::new();
    let (Some(minutes), Some(hours), Some(weekdays), Some(monthdays), Some(months)) = (
        bools("jscminutes", 60, &s.jscminutes, &mut d),
        bools("jschours", 24, &s.jschours, &mut d),
        bools("jscweekdays", 7, &s.jscweekdays, &mut d),
        bools("jscmonthdays", 32, &s.jscmonthdays, &mut d),
        bools("jscmonths", 12, &s.jscmonths, &mut d),
    ) else {
        return format!("Invalid pga_schedule row: {}", d.first().map(|x| x.to_string()).unwrap_or_default());
    };
    let (ms, hs) = (minutes.set(), hours.set());
    let nothing = !(minutes.any_t || hours.any_t || monthdays.any_t || months.any_t);
    let mut out = match (ms.is_empty(), hs.is_empty()) {
        _ if nothing => "Every minute (every 2 minutes as pgAgent computes it)".to_owned(),
        (true, true) => "Every minute".to_owned(),
        (false, true) => {
            let list: Vec<String> = ms.iter().map(|m| m.to_string()).collect();
            format!("At minute{} {} of every hour", if ms.len() == 1 { "" } else { "s" }, and_list(&list))
        }
        (true, false) => {
            let list: Vec<String> = hs.iter().map(|h| format!("{h:02}")).collect();
            format!("Every minute of hour{} {}", if hs.len() == 1 { "" } else { "s" }, and_list(&list))
        }
        (false, false) if ms.len() * hs.len() <= 8 => {
            let list: Vec<String> = hs.iter().flat_map(|h| ms.iter().map(move |m| format!("{h:02}:{m:02}"))).collect();
            format!("At {}", and_list(&list))
        }
        (false, false) => {
            let ml: Vec<String> = ms.iter().map(|m| m.to_string()).collect();
            let hl: Vec<String> = hs.iter().map(|h| h.to_string()).collect();
            format!("At minutes {} of hours {}", and_list(&ml), and_list(&hl))
        }
    };
    let days: Vec<String> = monthdays
        .set()
        .iter()
        .map(|&i| if i == 31 { "the last day".to_owned() } else { (i + 1).to_string() })
        .collect();
    if !days.is_empty() {
        out.push_str(&format!(" on day {} of the month", and_list(&days)));
    }
    let wd: Vec<String> = weekdays.set().iter().map(|&i| WEEKDAYS[i].to_owned()).collect();
    if !wd.is_empty() {
        out.push_str(&format!("{} {}", if days.is_empty() { " on" } else { ", if a" }, and_list(&wd)));
    }
    let mo: Vec<String> = months.set().iter().map(|&i| MONTHS[i].to_owned()).collect();
    if !mo.is_empty() {
        out.push_str(&format!(" in {}", and_list(&mo)));
    }
    let text = |v: &Option<String>| v.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned);
    match text(&s.jscstart) {
        Some(t) => out.push_str(&format!(", from {t}")),
        None => out.push_str(", (no jscstart)"),
    }
    if let Some(t) = text(&s.jscend).filter(|t| !t.eq_ignore_ascii_case("null")) {
        out.push_str(&format!(" until {t}"));
    }
    let excepts: Vec<String> = s
        .exceptions
        .iter()
        .filter_map(|e| match (text(&e.jexdate), text(&e.jextime)) {
            (Some(d), Some(t)) => Some(format!("{d} {t}")),
            (Some(d), None) => Some(d),
            (None, Some(t)) => Some(format!("{t} every day")),
            (None, None) => None,
        })
        .collect();
    if !excepts.is_empty() {
        out.push_str(&format!(", except {}", and_list(&excepts)));
    }
    if is_disabled(s) {
        out.push_str(" (disabled)");
    }
    out
}
