//! pg_cron schedules: a 5-field cron expression (Vixie semantics), an `@` shortcut, or pg_cron
//! 1.5's `'N seconds'`, forecast in `cron.timezone` (the `tz` argument; pg_cron's default is
//! UTC).
//!
//! # How an expression is read
//!
//! The expression is checked field by field here, with pg_cron's own grammar (its `entry.c`,
//! Vixie cron's parser), so every error names the field and the offending element:
//! `cron: day-of-week '8' out of range 0-7`. Each valid field is then expanded to the explicit
//! list of values it selects and handed to [croner] for the calendar search, on the *wall
//! clock* (croner sees the local time as if it were UTC); each wall-clock time is then turned
//! into an instant with [`tz::resolve`](crate::tz::resolve), which applies Sundial's daylight-saving rule.
//!
//! # Where pg_cron and croner differ, and what this module does about it
//!
//! Each is pinned by a case under `app/engine/tests/cases/cron/`.
//!
//! - **Day-of-month and day-of-week.** pg_cron (Vixie) fires when *either* matches if both are
//!   restricted, but when *either field starts with `*`* (so `*/2` too) both must match. croner
//!   only treats a field that is exactly `*` as unrestricted, so `*/2 … 1` would be OR there.
//!   The fields reach croner as explicit lists and the AND/OR choice is made here, with
//!   croner's `dom_and_dow` switch.
//! - **`$`** (last day of the month, pg_cron 1.5+) is croner's `L`; it must be the whole
//!   day-of-month field, as in pg_cron.
//! - **Rejected here, accepted by croner:** 6 or 7 fields (seconds, years), `L`, `W`, `#`, `?`,
//!   `+`, month names outside the month field and weekday names outside the day-of-week field
//!   (croner replaces `MON` anywhere, so `0 0 * MON *` would be January), and reversed ranges
//!   like `5-1` (pg_cron accepts them and they select nothing: never a useful schedule, so an
//!   Error here). `@midnight`, `@restart` and `@reboot` are pg_cron's and not croner's.
//! - **Trailing junk after `*`** (`*x`): Vixie's parser skips it silently; rejected here.
//! - **Daylight saving.** croner runs an interval job (`*/15 * * * *`) in both passes of a
//!   repeated hour, and pg_cron (Vixie) re-runs wildcard jobs there too; Sundial's rule is one
//!   occurrence, at the earlier instant (`Dst::Fold`), and a wall-clock time inside a
//!   spring-forward gap fires at the first instant after it (`Dst::Gap`; several times in one
//!   gap merge into one occurrence that keeps the first nominal time).
//! - **`'N seconds'`** (1..=59; `second` or `seconds`, any case, as pg_cron's
//!   `TryParseInterval`): pg_cron starts the next run N seconds after the previous *start*
//!   (`lastStartTime + N`), not at fixed wall-clock seconds, so the phase depends on when the
//!   job first ran. With `last_start` given, the forecast is `last_start + k×N`; without it, the
//!   instants whose Unix time is a multiple of N (for N dividing 60: seconds 0, N, 2N… of every
//!   minute), with an Info saying so. It ignores the time zone.
//! - **Overlap.** pg_cron never runs two instances of a job: a tick that comes while the
//!   previous run is still going starts when that run ends (late, not missed); see
//!   [`queues_overlapping_ticks`].
use super::dialect::{Clock, Until, cadence, collect, timestamp_field};
/// Shared with every dialect, now in [`crate::dialect`]; re-exported under their former paths.
pub use super::dialect::{MAX_OCCURRENCES, Overlap, overlap_policy, parse_timestamp, queues_overlapping_ticks};
use super::{Diagnostic, Forecast, ScheduleId, Severity, Window, Zone};
use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, SubsecRound, Timelike, Utc};
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};
use serde::{Deserialize, Serialize};

/// One pg_cron job's schedule (`cron.job.schedule`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CronSchedule {
    /// The schedule text as stored in `cron.job.schedule`.
    #[serde(alias = "schedule")]
    pub expr: String,
    /// For `'N seconds'` jobs: the start of a known run (from `cron.job_run_details`), which
    /// fixes the phase of the cadence. A timestamp in UTC (`2026-11-22 09:00:05`).
    #[serde(default)]
    pub last_start: Option<String>,
}

impl CronSchedule {
    pub fn new(expr: impl Into<String>) -> Self {
        CronSchedule { expr: expr.into(), last_start: None }
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing pg_cron expressions.
// ---------------------------------------------------------------------------------------------

const FIELDS: [(&str, u32, u32); 5] =
    [("minute", 0, 59), ("hour", 0, 23), ("day-of-month", 1, 31), ("month", 1, 12), ("day-of-week", 0, 7)];
const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DOWS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/// A checked expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// `@reboot` / `@restart`: no forecast.
    Reboot,
    /// `'N seconds'`.
    Seconds(u32),
    /// Five fields, each expanded to the values it selects.
    Fields(Fields),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fields {
    pub minute: Vec<u32>,
    pub hour: Vec<u32>,
    /// Empty when `last_dom`.
    pub dom: Vec<u32>,
    pub last_dom: bool,
    pub month: Vec<u32>,
    /// 0 = Sunday … 6 = Saturday (7 folded into 0).
    pub dow: Vec<u32>,
    /// Vixie: day-of-month or day-of-week starts with `*`, so both must match.
    pub and_days: bool,
    /// The numeric pattern croner describes (names replaced, `$` as `L`).
    pub display: String,
}

fn err(field: &str, value: &str, msg: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error(field, format!("'{value}'"), format!("cron: {field} '{value}' {msg}"))
}

/// `'N seconds'` as pg_cron's `TryParseInterval` reads it; `None` when the text is not of
/// that form at all, `Some(Err)` when it is but N is out of range.
fn seconds_form(s: &str) -> Option<Result<u32, Diagnostic>> {
    let t = s.trim().to_ascii_lowercase();
    let (num, unit) = t.split_once(char::is_whitespace)?;
    let unit = unit.trim();
    if unit != "second" && unit != "seconds" {
        return None;
    }
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match num.parse::<u64>() {
        Ok(n @ 1..=59) => Ok(n as u32),
        _ => Err(Diagnostic::error(
            "seconds",
            num,
            format!("cron: seconds '{num}' out of range 1-59 (pg_cron accepts '[1-59] seconds')"),
        )),
    })
}

fn number(field: usize, tok: &str, whole: &str) -> Result<u32, Diagnostic> {
    let (name, lo, hi) = FIELDS[field];
    let lower = tok.to_ascii_lowercase();
    if field == 3
        && let Some(i) = MONTHS.iter().position(|m| *m == lower)
    {
        return Ok(i as u32 + 1);
    }
    if field == 4
        && let Some(i) = DOWS.iter().position(|m| *m == lower)
    {
        return Ok(i as u32);
    }
    if tok.is_empty() {
        return Err(err(name, whole, "has an empty element"));
    }
    if !tok.bytes().all(|b| b.is_ascii_digit()) {
        let hint = if MONTHS.contains(&lower.as_str()) {
            ": month names belong in the month field"
        } else if DOWS.contains(&lower.as_str()) {
            ": weekday names belong in the day-of-week field"
        } else {
            ""
        };
        return Err(err(name, tok, format!("is not a number{hint}")));
    }
    match tok.parse::<u64>() {
        Ok(n) if n >= u64::from(lo) && n <= u64::from(hi) => Ok(n as u32),
        _ => Err(err(name, tok, format!("out of range {lo}-{hi}"))),
    }
}

/// One field, as Vixie's `get_list`/`get_range` read it.
fn field(i: usize, text: &str) -> Result<Vec<u32>, Diagnostic> {
    let (name, lo, hi) = FIELDS[i];
    for ch in ['#', '?', '+'] {
        if text.contains(ch) {
            return Err(err(name, text, format!("uses '{ch}', which pg_cron does not accept")));
        }
    }
    for tok in text.split([',', '-', '/']) {
        let u = tok.to_ascii_uppercase();
        let digits_then =
            |c: char| u.len() > 1 && u.ends_with(c) && u[..u.len() - 1].bytes().all(|b| b.is_ascii_digit());
        let letter = if u == "L" || u == "LW" || digits_then('L') {
            Some('L')
        } else if u == "W" || digits_then('W') {
            Some('W')
        } else {
            None
        };
        if let Some(c) = letter {
            let hint = if c == 'L' && i == 2 { " (use '$' for the last day of the month)" } else { "" };
            return Err(err(name, text, format!("uses '{c}', which pg_cron does not accept{hint}")));
        }
    }
    let mut set = vec![false; hi as usize + 1];
    for part in text.split(',') {
        if part.is_empty() {
            return Err(err(name, text, "has an empty list element"));
        }
        let (range, step) = match part.split_once('/') {
            Some((r, s)) => (r, Some(s)),
            None => (part, None),
        };
        let (a, b) = if range == "*" {
            (lo, hi)
        } else if let Some((x, y)) = range.split_once('-') {
            let a = number(i, x, part)?;
            let b = number(i, y, part)?;
            if a > b {
                return Err(err(name, part, "is a reversed range: pg_cron accepts it but it selects nothing"));
            }
            (a, b)
        } else {
            if step.is_some() {
                return Err(err(
                    name,
                    part,
                    format!(
                        "steps a single number: pg_cron needs a range or '*' before '/' (e.g. '*/{}')",
                        step.unwrap_or("")
                    ),
                ));
            }
            let n = number(i, range, part)?;
            (n, n)
        };
        let step = match step {
            None => 1,
            Some(s) => match s.parse::<u64>() {
                Ok(n) if n >= 1 && s.bytes().all(|b| b.is_ascii_digit()) => n.min(1000) as u32,
                Ok(_) => {
                    return Err(err(name, part, "has a step of 0: the step must be at least 1"));
                }
                Err(_) => return Err(err(name, part, "has a step that is not a positive number")),
            },
        };
        let mut v = a;
        while v <= b {
            set[v as usize] = true;
            v += step;
        }
    }
    Ok((lo..=hi).filter(|v| set[*v as usize]).collect())
}

fn list(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// Check an expression the way pg_cron does; every problem is an Error naming its field.
pub fn parse(expr: &str) -> Result<Plan, Vec<Diagnostic>> {
    let t = expr.trim();
    if t.is_empty() {
        return Err(vec![Diagnostic::error("schedule", "''", "cron: the schedule is empty")]);
    }
    if let Some(r) = seconds_form(t) {
        return r.map(Plan::Seconds).map_err(|d| vec![d]);
    }
    let expanded;
    let t = if let Some(nick) = t.strip_prefix('@') {
        match nick.to_ascii_lowercase().as_str() {
            "reboot" | "restart" => return Ok(Plan::Reboot),
            "yearly" | "annually" => "0 0 1 1 *",
            "monthly" => "0 0 1 * *",
            "weekly" => "0 0 * * 0",
            "daily" | "midnight" => "0 0 * * *",
            "hourly" => "0 * * * *",
            _ => {
                return Err(vec![Diagnostic::error(
                    "schedule",
                    t,
                    format!(
                        "cron: unknown shortcut '{t}' (pg_cron accepts @yearly @annually @monthly @weekly @daily @midnight @hourly @reboot)"
                    ),
                )]);
            }
        }
    } else {
        expanded = t.to_owned();
        expanded.as_str()
    };
    let parts: Vec<&str> = t.split_whitespace().collect();
    if parts.len() != 5 {
        return Err(vec![Diagnostic::error(
            "schedule",
            format!("'{t}'"),
            format!(
                "cron: expected 5 fields (minute hour day-of-month month day-of-week), found {}{}",
                parts.len(),
                if parts.len() > 5 { ": pg_cron has no seconds or year field" } else { "" }
            ),
        )]);
    }
    let mut diags = Vec::new();
    let mut vals: Vec<Vec<u32>> = Vec::new();
    let mut last_dom = false;
    for (i, p) in parts.iter().enumerate() {
        if i == 2 && p.contains('$') {
            if *p == "$" {
                last_dom = true;
                vals.push(Vec::new());
            } else {
                diags.push(err("day-of-month", p, "uses '$' with other values: '$' must be the whole field"));
                vals.push(Vec::new());
            }
            continue;
        }
        match field(i, p) {
            Ok(v) => vals.push(v),
            Err(d) => {
                diags.push(d);
                vals.push(Vec::new());
            }
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    // Days of the week 0..6, in order, once each (no sort: a sort of u32 would be one more
    // copy of the standard sort in the browser's bundle).
    let dow: Vec<u32> = (0..7).filter(|d| vals[4].iter().any(|v| v % 7 == *d)).collect();
    let and_days = parts[2].starts_with('*') || parts[4].starts_with('*');
    let num = |i: usize| -> String {
        // Names replaced by numbers for croner's description.
        parts[i]
            .split(',')
            .map(|p| {
                let (r, s) = p.split_once('/').map_or((p, None), |(r, s)| (r, Some(s)));
                if r != "*"
                    && s.is_some()
                    && let Ok(v) = field(i, p)
                {
                    // croner describes `0-20/2` as "every 2 hours": spell the values out.
                    return list(&v);
                }
                let r = if r == "*" {
                    "*".to_owned()
                } else {
                    r.split('-')
                        .map(|x| number(i, x, p).map(|n| n.to_string()).unwrap_or_default())
                        .collect::<Vec<_>>()
                        .join("-")
                };
                match s {
                    Some(s) => format!("{r}/{s}"),
                    None => r,
                }
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let display =
        format!("{} {} {} {} {}", num(0), num(1), if last_dom { "L".to_owned() } else { num(2) }, num(3), num(4));
    Ok(Plan::Fields(Fields {
        minute: vals[0].clone(),
        hour: vals[1].clone(),
        dom: vals[2].clone(),
        last_dom,
        month: vals[3].clone(),
        dow,
        and_days,
        display,
    }))
}

impl Fields {
    /// The croner search over wall-clock times (read as UTC).
    fn cron(&self) -> Option<Cron> {
        let dom = if self.last_dom { "L".to_owned() } else { list(&self.dom) };
        let pattern =
            format!("{} {} {} {} {}", list(&self.minute), list(&self.hour), dom, list(&self.month), list(&self.dow));
        CronParser::builder()
            .seconds(Seconds::Disallowed)
            .year(Year::Disallowed)
            .dom_and_dow(self.and_days)
            .build()
            .parse(&pattern)
            .ok()
    }

    /// True when some selected day exists in some selected month (else the expression never
    /// fires: `0 0 30 2 *`). With OR semantics any weekday match is enough.
    fn can_fire(&self) -> bool {
        if self.last_dom || self.dom.is_empty() {
            return true;
        }
        if !self.and_days && !self.dow.is_empty() && self.dow.len() < 7 {
            return true; // OR: the weekdays alone fire
        }
        let longest = self.month.iter().map(|m| match m {
            2 => 29,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        });
        let max = longest.max().unwrap_or(0);
        self.dom.iter().any(|d| *d <= max)
    }
}

/// The wall-clock times the fields select, ascending, from `from` (inclusive).
struct Walk {
    cron: Cron,
    next: Option<NaiveDateTime>,
    inclusive: bool,
    steps: u32,
}

impl Iterator for Walk {
    type Item = NaiveDateTime;
    fn next(&mut self) -> Option<NaiveDateTime> {
        let from = self.next?.and_utc();
        self.steps += 1;
        if self.steps > 5_000_000 {
            return None;
        }
        match self.cron.find_next_occurrence(&from, self.inclusive) {
            Ok(t) => {
                let n = t.naive_utc();
                self.inclusive = false;
                self.next = Some(n);
                Some(n)
            }
            Err(_) => {
                self.next = None;
                None
            }
        }
    }
}

/// The fields as bit sets, for [`Calendar`]'s walk.
#[derive(Clone, Copy, Debug)]
struct Bits {
    minutes: u64,
    hours: u32,
    /// Bit d for day d (1..=31).
    dom: u32,
    last_dom: bool,
    /// Bit m for month m (1..=12).
    months: u16,
    /// Bit 0 = Sunday … 6 = Saturday.
    dow: u8,
    and_days: bool,
}

impl Bits {
    fn of(f: &Fields) -> Bits {
        let set = |v: &[u32]| v.iter().fold(0u64, |b, x| b | 1u64.checked_shl(*x).unwrap_or(0));
        Bits {
            minutes: set(&f.minute),
            hours: set(&f.hour) as u32,
            dom: set(&f.dom) as u32,
            last_dom: f.last_dom,
            months: set(&f.month) as u16,
            dow: set(&f.dow) as u8,
            and_days: f.and_days,
        }
    }

    /// Whether `d` is a selected day of a selected month (Vixie's AND or OR of the day fields).
    fn day(&self, d: NaiveDate) -> bool {
        let dom = if self.last_dom {
            d.succ_opt().is_none_or(|n| n.month() != d.month())
        } else {
            self.dom >> d.day() & 1 == 1
        };
        let dow = self.dow >> d.weekday().num_days_from_sunday() & 1 == 1;
        if self.and_days { dom && dow } else { dom || dow }
    }
}

/// The lowest set bit of `bits` at or above `from`.
fn next_bit(bits: u64, from: u32) -> Option<u32> {
    let masked = bits & u64::MAX.checked_shl(from).unwrap_or(0);
    (masked != 0).then(|| masked.trailing_zeros())
}

/// The wall-clock times the fields select, ascending, from `from` (inclusive): the same times
/// as [`Walk`] (croner's search, property tests hold them equal), found by walking the
/// calendar over the fields' bit sets (a month not selected is skipped whole; on a selected
/// day each time is the next set bit of the hours and minutes). Stops, as croner does, at
/// [`croner::YEAR_UPPER_LIMIT`].
struct Calendar {
    bits: Bits,
    date: NaiveDate,
    /// The next candidate hour and minute on `date`.
    hour: u32,
    minute: u32,
    done: bool,
}

impl Calendar {
    fn new(bits: Bits, from: NaiveDateTime) -> Calendar {
        let t = from.time();
        // A time past the whole minute starts at the next minute (cron times are whole minutes).
        let past = u32::from(t.second() > 0 || t.nanosecond() > 0);
        Calendar { bits, date: from.date(), hour: t.hour(), minute: t.minute() + past, done: false }
    }

    fn next_day(&mut self) {
        self.hour = 0;
        self.minute = 0;
        match self.date.succ_opt() {
            Some(d) => self.date = d,
            None => self.done = true,
        }
    }
}

impl Iterator for Calendar {
    type Item = NaiveDateTime;
    fn next(&mut self) -> Option<NaiveDateTime> {
        loop {
            if self.done || self.date.year() >= croner::YEAR_UPPER_LIMIT {
                self.done = true;
                return None;
            }
            if self.bits.months >> self.date.month() & 1 == 0 {
                // The first of the next month.
                let (y, m) = (self.date.year(), self.date.month());
                let first =
                    if m == 12 { NaiveDate::from_ymd_opt(y + 1, 1, 1) } else { NaiveDate::from_ymd_opt(y, m + 1, 1) };
                match first {
                    Some(d) => {
                        self.date = d;
                        self.hour = 0;
                        self.minute = 0;
                    }
                    None => self.done = true,
                }
                continue;
            }
            if !self.bits.day(self.date) {
                self.next_day();
                continue;
            }
            let Some(hour) = next_bit(u64::from(self.bits.hours), self.hour) else {
                self.next_day();
                continue;
            };
            let from_minute = if hour == self.hour { self.minute } else { 0 };
            let Some(minute) = next_bit(self.bits.minutes, from_minute) else {
                self.hour = hour + 1;
                self.minute = 0;
                continue;
            };
            self.hour = hour;
            self.minute = minute + 1;
            return NaiveTime::from_hms_opt(hour, minute, 0).map(|t| self.date.and_time(t));
        }
    }
}

fn forecast_impl(id: ScheduleId, s: &CronSchedule, tz: Zone, until: Until) -> Forecast {
    forecast_with(id, s, tz, until, true)
}

/// [`forecast`] with croner's search for every time ([`Walk`]) instead of the calendar walk:
/// the reference the fast path is proven equal to, and what a benchmark compares it with.
pub fn forecast_croner(id: ScheduleId, s: &CronSchedule, tz: Zone, window: Window) -> Forecast {
    forecast_with(id, s, tz, Until::Window(window), false)
}

/// [`next_after`] with croner's search for every time (see [`forecast_croner`]).
pub fn next_after_croner(id: ScheduleId, s: &CronSchedule, tz: Zone, after: DateTime<Utc>, count: usize) -> Forecast {
    forecast_with(id, s, tz, Until::After(after, count), false)
}

fn forecast_with(id: ScheduleId, s: &CronSchedule, tz: Zone, until: Until, fast: bool) -> Forecast {
    let mut diagnostics = Vec::new();
    let plan = match parse(&s.expr) {
        Ok(p) => p,
        Err(d) => {
            return Forecast { occurrences: Vec::new(), diagnostics: d };
        }
    };
    let zone = Clock::Zone(tz);
    let occurrences = match plan {
        Plan::Reboot => {
            diagnostics.push(Diagnostic::new(
                Severity::Info,
                Some("schedule"),
                Some(s.expr.trim().to_owned()),
                "runs when pg_cron starts (@reboot): there is no forecast",
            ));
            Vec::new()
        }
        Plan::Seconds(n) => {
            let anchor = match timestamp_field("last_start", &s.last_start, &mut diagnostics) {
                Err(()) => {
                    return Forecast { occurrences: Vec::new(), diagnostics };
                }
                Ok(Some(t)) => t.and_utc(),
                Ok(None) => {
                    diagnostics.push(Diagnostic::info(format!(
                        "pg_cron starts a '{n} seconds' job {n} seconds after its previous start; with no last_start the forecast assumes starts at multiples of {n} seconds since the Unix epoch"
                    )));
                    DateTime::<Utc>::UNIX_EPOCH
                }
            };
            // pg_cron ticks on whole seconds: a fractional last start counts from its second.
            cadence(id, zone, anchor.trunc_subsecs(0), i64::from(n), None, None, &until, &mut diagnostics)
        }
        Plan::Fields(f) => {
            if !f.can_fire() {
                diagnostics.push(Diagnostic::warning(
                    "day-of-month",
                    format!("'{}'", s.expr.split_whitespace().nth(2).unwrap_or("")),
                    "cron: no selected day of month exists in the selected months: the job never runs",
                ));
                Vec::new()
            } else if fast {
                let from = until.from(zone);
                collect(id, zone, Calendar::new(Bits::of(&f), from), &until, &mut diagnostics)
            } else if let Some(cron) = f.cron() {
                let from = until.from(zone);
                let walk = Walk { cron, next: Some(from), inclusive: true, steps: 0 };
                collect(id, zone, walk, &until, &mut diagnostics)
            } else {
                diagnostics.push(Diagnostic::error(
                    "schedule",
                    s.expr.trim(),
                    "cron: croner could not read the checked expression",
                ));
                Vec::new()
            }
        }
    };
    Forecast { occurrences, diagnostics }
}

/// Every occurrence inside `window`, with the expression evaluated in `tz` (`cron.timezone`).
pub fn forecast(id: ScheduleId, s: &CronSchedule, tz: Zone, window: Window) -> Forecast {
    forecast_impl(id, s, tz, Until::Window(window))
}

/// The first `count` occurrences strictly after `after`.
pub fn next_after(id: ScheduleId, s: &CronSchedule, tz: Zone, after: DateTime<Utc>, count: usize) -> Forecast {
    forecast_impl(id, s, tz, Until::After(after, count))
}

/// Errors, Warnings and Infos about the expression, without forecasting.
pub fn validate(s: &CronSchedule) -> Vec<Diagnostic> {
    match parse(&s.expr) {
        Err(d) => d,
        Ok(_) => {
            let far = DateTime::<Utc>::UNIX_EPOCH;
            forecast(0, s, Zone::UTC, Window::new(far, far)).diagnostics
        }
    }
}

/// "At 02:30 on Sunday", "Every 5 seconds", "At system start (@reboot)"; a broken expression
/// is described as written with what is wrong.
pub fn describe(s: &CronSchedule) -> String {
    match parse(&s.expr) {
        Err(d) => {
            format!(
                "Invalid cron schedule '{}': {}",
                s.expr.trim(),
                d.first().map(|d| d.message.clone()).unwrap_or_default()
            )
        }
        Ok(Plan::Reboot) => "When pg_cron starts (@reboot)".to_owned(),
        Ok(Plan::Seconds(1)) => "Every second".to_owned(),
        Ok(Plan::Seconds(n)) => format!("Every {n} seconds"),
        Ok(Plan::Fields(f)) => {
            let (display, restarts) = steps(&f);
            let parser = CronParser::builder().seconds(Seconds::Disallowed).dom_and_dow(f.and_days).build();
            match parser.parse(&display) {
                Ok(c) => restarts.iter().fold(tidy(&c.describe()), |d, (from, to)| {
                    d.replacen(&format!("very {from}"), &format!("very {to}"), 1)
                }),
                Err(_) => format!("At the times '{}' selects", s.expr.trim()),
            }
        }
    }
}

pub(crate) const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// croner reads `*/7` in the minutes as "every 7 minutes", but cron restarts the step at each
/// hour (`:00, :07, … :56`, then `:00`: 4 minutes apart at the hour); likewise hours in a day
/// and months in a year. For each such step that does not divide its field's span, the
/// pattern croner describes and the words to add: (croner's "every N unit", Sundial's).
/// A step selecting one value, or a `*/N` among other values (which croner drops), is
/// spelled out instead.
fn steps(f: &Fields) -> (String, Vec<(String, String)>) {
    let mut parts: Vec<String> = f.display.split(' ').map(str::to_owned).collect();
    let mut restarts = Vec::new();
    for (i, span, unit, values) in
        [(0, 60, "minutes", &f.minute), (1, 24, "hours", &f.hour), (3, 12, "months", &f.month)]
    {
        let Some(p) = parts.get(i) else { continue };
        let (&first, &last) = match (values.first(), values.last()) {
            (Some(a), Some(b)) => (a, b),
            _ => continue,
        };
        let step = p.strip_prefix("*/").and_then(|n| n.parse::<u32>().ok());
        if (p.contains('/') && p.contains(',')) || (step.is_some() && values.len() == 1) {
            parts[i] = list(values);
            continue;
        }
        let Some(n) = step.filter(|n| span % n != 0) else { continue };
        let gap = span + first - last;
        let (from, to, each) = match i {
            0 => (format!(":{first:02}"), format!(":{last:02}"), "hour"),
            1 => (format!("hour {first}"), format!("hour {last}"), "day"),
            _ => {
                let name =
                    |m: u32| MONTH_NAMES.get(m.saturating_sub(1) as usize).copied().unwrap_or_default().to_owned();
                (name(first), name(last), "year")
            }
        };
        let gap_unit = if gap == 1 { unit.trim_end_matches('s') } else { unit };
        restarts.push((
            format!("{n} {unit}"),
            format!(
                "{n} {unit} from {from} to {to} of each {each} (the step restarts each {each}: {gap} {gap_unit} from {to} to {from})"
            ),
        ));
    }
    (parts.join(" "), restarts)
}

/// [`describe`] with the zone the expression is evaluated in: "At 02:30 on Sunday (UTC)".
/// `'N seconds'` ignores the zone and says nothing of it.
pub fn describe_in(s: &CronSchedule, tz: Zone) -> String {
    let d = describe(s);
    match parse(&s.expr) {
        Ok(Plan::Fields(_)) => format!("{d} ({})", tz.name()),
        _ => d,
    }
}

/// croner's "At 02:30, on Sunday." in Sundial's voice: "At 02:30 on Sunday".
fn tidy(d: &str) -> String {
    let d = d.trim().trim_end_matches('.');
    let mut d = d.replace(", on ", " on ").replace(", in ", " in ").replace(", of ", " of ");
    // Vixie's AND case: the weekdays are alternatives ("if it is also Sunday or Tuesday").
    if let Some(i) = d.find("(if it is also ") {
        let (head, tail) = d.split_at(i);
        d = format!("{head}{}", tail.replace(", and ", ", or ").replace(" and ", " or "));
    }
    d.replace("At every ", "Every ")
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(feature = "tzdb")]
    use crate::tz;
    use chrono::{Datelike, NaiveDate};
    #[cfg(feature = "tzdb")]
    use chrono::{NaiveTime, TimeDelta};

    #[test]
    #[cfg(feature = "tzdb")]
    fn croner_runs_interval_jobs_twice_in_a_fold_and_we_do_not() {
        // croner evaluated directly in a zone: a */30 job in New York's repeated hour.
        let c = CronParser::builder().seconds(Seconds::Disallowed).build().parse("*/30 * * * *").unwrap();
        let ny = Zone::from(chrono_tz::America::New_York);
        let start = NaiveDate::from_ymd_opt(2024, 11, 3).unwrap().and_hms_opt(0, 45, 0).unwrap();
        let mut t = tz::resolve(start, ny).0.with_timezone(&ny);
        let mut croner_count = 0;
        for _ in 0..6 {
            t = c.find_next_occurrence(&t, false).unwrap();
            if t.naive_local().date() == start.date()
                && t.naive_local().time() < NaiveTime::from_hms_opt(2, 0, 0).unwrap()
            {
                croner_count += 1;
            }
        }
        assert_eq!(croner_count, 4, "croner: 01:00 and 01:30, each twice");
        let ours = forecast(
            0,
            &CronSchedule::new("*/30 * * * *"),
            ny,
            Window::new(tz::resolve(start, ny).0, tz::resolve(start, ny).0 + TimeDelta::hours(3)),
        );
        let before_two =
            ours.occurrences.iter().filter(|o| o.local.time() < NaiveTime::from_hms_opt(2, 0, 0).unwrap()).count();
        assert_eq!(before_two, 2, "Sundial: 01:00 and 01:30 once each");
    }

    #[test]
    fn croner_reads_step_fields_as_restricted_and_vixie_does_not() {
        // Vixie: '*/2' in day-of-month makes it AND; croner's own star flag is only for '*'.
        let c = CronParser::builder().seconds(Seconds::Disallowed).build().parse("0 0 */2 * 1").unwrap();
        let from = NaiveDate::from_ymd_opt(2024, 1, 1).unwrap().and_hms_opt(0, 0, 0).unwrap().and_utc();
        // 2024-01-02 is a Tuesday, an even-numbered... croner's OR fires on day 3 (odd day).
        let n = c.find_next_occurrence(&from, false).unwrap();
        assert_eq!(n.day(), 3);
        let ours = next_after(0, &CronSchedule::new("0 0 */2 * 1"), Zone::UTC, from, 1);
        // AND: an odd day that is a Monday: 2024-01-15.
        assert_eq!(ours.occurrences[0].local.date(), NaiveDate::from_ymd_opt(2024, 1, 15).unwrap());
    }

    #[test]
    fn croner_accepts_what_pg_cron_rejects() {
        for p in ["0 0 0 * * *", "0 0 L * *", "0 0 15W * *", "0 0 * * 1#2", "0 0 ? * 1", "0 0 * MON *"] {
            assert!(CronParser::builder().build().parse(p).is_ok() || p == "0 0 * MON *", "croner takes {p}");
            assert!(parse(p).is_err(), "we reject {p}");
        }
    }
}
