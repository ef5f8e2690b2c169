//! Maintenance windows: planned downtime, as spans of instants.
//!
//! A DBA who patches on Saturday night declares when ([`When`]) in a zone; [`windows`] gives the
//! spans it covers over a range, and [`crate::fleet::analyze`] counts a due run that did not
//! happen inside one of a job's spans ([`Maintenance`]) as [`crate::Outcome::Maintenance`],
//! never missed.
//!
//! # Daylight saving
//!
//! A recurring window is written on the wall clock ("Saturday 22:00–02:00"), so its length in
//! instants changes on the nights the clocks change: it always ends at the wall-clock time it
//! names. A wall-clock start inside a spring-forward gap starts at the first instant after the
//! gap; an end inside one ends there too. A start inside a fall-back fold starts at the earlier
//! instant and an end inside one ends at the later instant, so the window covers the whole
//! repeated hour (the generous reading: planned work there is not "missed"). A cron-started
//! window ([`When::Cron`]) starts as pg_cron's rules say (see [`crate::cron`]) and lasts a fixed
//! number of seconds.
use super::cron::{self, CronSchedule};
use super::{Diagnostic, Window, Zone};
use chrono::{DateTime, Datelike, Duration, LocalResult, NaiveDateTime, NaiveTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};

/// When a maintenance window holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum When {
    /// Once, over this span.
    Once(Window),
    /// On the given weekdays (`days[0]` Sunday … `days[6]` Saturday) from one wall-clock time
    /// to another; `to` at or before `from` ends the next day.
    Weekly { days: [bool; 7], from: NaiveTime, to: NaiveTime },
    /// From each time a 5-field cron expression (pg_cron's grammar) selects, for `length_secs`.
    Cron { expr: String, length_secs: i64 },
}

/// A window as the judgment sees it: a span, the jobs it covers and what people call it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Maintenance {
    pub window: Window,
    /// The jobs it covers, by id or name; empty: every job of the instance.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<String>,
    /// Its name and why, for people ("Saturday patching: OS updates").
    pub label: String,
}

impl Maintenance {
    /// Whether it covers the job with this id and name.
    pub fn covers(&self, id: &str, name: &str) -> bool {
        self.jobs.is_empty() || self.jobs.iter().any(|j| j == id || j == name)
    }
}

/// The spans `when` covers (in `zone`) that overlap `range`, in order, plus what was wrong
/// with it (a bad cron expression gives none, and says why).
pub fn windows(when: &When, zone: Zone, range: Window) -> (Vec<Window>, Vec<Diagnostic>) {
    let overlaps = |w: &Window| !w.is_empty() && w.start < range.end && w.end > range.start;
    match when {
        When::Once(w) => (Some(*w).filter(overlaps).into_iter().collect(), Vec::new()),
        When::Weekly { days, from, to } => {
            let mut out = Vec::new();
            // A window that began the day before the range still covers its first hours.
            let first = super::tz::to_local(range.start, zone).date() - Duration::days(1);
            let last = super::tz::to_local(range.end, zone).date();
            let mut day = first;
            while day <= last {
                if days[day.weekday().num_days_from_sunday() as usize] {
                    let end_day = if to <= from { day.succ_opt().unwrap_or(day) } else { day };
                    let w = Window::new(start_at(day.and_time(*from), zone), end_at(end_day.and_time(*to), zone));
                    if overlaps(&w) {
                        out.push(w);
                    }
                }
                match day.succ_opt() {
                    Some(next) => day = next,
                    None => break,
                }
            }
            (out, Vec::new())
        }
        When::Cron { expr, length_secs } => {
            let length = Duration::seconds((*length_secs).clamp(0, 366 * 86_400));
            let starts = Window::new(range.start - length, range.end);
            let f = cron::forecast(0, &CronSchedule::new(expr.clone()), zone, starts);
            let out = f.occurrences.iter().map(|o| Window::new(o.at, o.at + length)).filter(overlaps).collect();
            (out, f.diagnostics)
        }
    }
}

/// A window's start: the earlier instant of a repeated time, the first after a skipped one.
fn start_at(local: NaiveDateTime, zone: Zone) -> DateTime<Utc> {
    super::tz::resolve(local, zone).0
}

/// A window's end: the later instant of a repeated time, the first after a skipped one.
fn end_at(local: NaiveDateTime, zone: Zone) -> DateTime<Utc> {
    match zone.from_local_datetime(&local) {
        LocalResult::Ambiguous(a, b) => a.with_timezone(&Utc).max(b.with_timezone(&Utc)),
        _ => super::tz::resolve(local, zone).0,
    }
}

/// Reads "Saturday 22:00-02:00", "every sat,sun 00:00–06:00", "mon-fri 12:00-12:30",
/// "daily 01:00-03:00", "weekdays …", "weekends …": days (English names or their first three
/// letters, lists and ranges), then a wall-clock span (`-` or `–`; an end at or before the
/// start is the next day).
pub fn parse_weekly(text: &str) -> Result<When, String> {
    let t = text.trim();
    let t = t.strip_prefix("every ").unwrap_or(t).trim();
    let (days_text, span) = t.rsplit_once(char::is_whitespace).ok_or_else(|| {
        "expected days then a wall-clock span, like \"Saturday 22:00-02:00\" or \"mon-fri 12:00-12:30\"".to_owned()
    })?;
    let (from, to) = span.split_once(['-', '–']).ok_or_else(|| format!("\"{span}\" is not a span like 22:00-02:00"))?;
    let time = |s: &str| {
        NaiveTime::parse_from_str(s.trim(), "%H:%M").map_err(|_| format!("\"{}\" is not a time like 22:00", s.trim()))
    };
    let (from, to) = (time(from)?, time(to)?);
    let days = parse_days(days_text.trim())?;
    Ok(When::Weekly { days, from, to })
}

const DAY_NAMES: [&str; 7] = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

/// Reads days as windows and deadlines name them: "daily", "weekdays", "weekends", names or
/// their first three letters, lists ("mon,wed") and ranges ("mon-fri").
pub fn parse_days(text: &str) -> Result<[bool; 7], String> {
    let lower = text.to_ascii_lowercase();
    let mut days = [false; 7];
    match lower.as_str() {
        "daily" | "day" | "days" => return Ok([true; 7]),
        "weekdays" => return Ok([false, true, true, true, true, true, false]),
        "weekends" | "weekend" => return Ok([true, false, false, false, false, false, true]),
        _ => {}
    }
    let day = |s: &str| {
        let s = s.trim().trim_end_matches('s');
        (s.len() >= 3)
            .then(|| DAY_NAMES.iter().position(|d| d.starts_with(s) || s == *d))
            .flatten()
            .ok_or_else(|| format!("\"{s}\" is not a day (sunday … saturday, sun … sat, daily, weekdays, weekends)"))
    };
    for part in lower.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (day(a)?, day(b)?);
                let mut d = a;
                loop {
                    days[d] = true;
                    if d == b {
                        break;
                    }
                    d = (d + 1) % 7;
                }
            }
            None => days[day(part)?] = true,
        }
    }
    if days.iter().any(|d| *d) { Ok(days) } else { Err("no day given".to_owned()) }
}

/// The weekly days in words ("Saturday", "Monday to Friday", "every day").
pub fn days_words(days: &[bool; 7]) -> String {
    let names = super::describe::WEEKDAYS;
    if days.iter().all(|d| *d) {
        return "every day".to_owned();
    }
    if *days == [false, true, true, true, true, true, false] {
        return "Monday to Friday".to_owned();
    }
    (0..7).filter(|&i| days[i]).map(|i| names[i]).collect::<Vec<_>>().join(", ")
}
