//! SQL Server Agent schedules: one `msdb.dbo.sysschedules` row, forecast and validated.
//!
//! # How a row is read
//!
//! A row is first checked ([`validate`], the rules of msdb's `sp_verify_schedule`) and turned
//! into a plan: which *days* it is due on (the `freq_*` columns, bounded by the active dates)
//! and which *wall-clock times* on such a day (the sub-day columns, bounded by the active
//! times). Wall-clock times are then turned into instants in the instance's zone with
//! [`tz::resolve`], which applies the Agent's daylight-saving behaviour.
//!
//! # Choices where Microsoft is silent
//!
//! Each is pinned by a case under `app/engine/tests/cases/agent/`.
//!
//! - **Alignment.** Every-N-days counts days from `active_start_date`; every-N-weeks counts
//!   7-day blocks starting on `active_start_date` (whatever weekday that is), and the weekdays
//!   of an active block fire; every-N-months counts calendar months from the month of
//!   `active_start_date`. Nothing fires before `active_start_date` (a day-of-month earlier than
//!   the start day in the start month is not due).
//! - **Short months.** Day 29/30/31 in a month without that day is *skipped* for that month,
//!   not moved to the month's last day.
//! - **Relative days.** "The Nth weekday / weekend day / day / Monday …" is the Nth such day of
//!   the month counted from the 1st; "last" counts back from the month's last day. So the
//!   first weekday of a month starting on a Saturday is Monday the 3rd, and the second weekend
//!   day of that month is Sunday the 2nd.
//! - **`active_end_time` is inclusive**: a sub-day step landing exactly on it fires.
//! - **Midnight-spanning windows** (`active_end_time` < `active_start_time`) run from the start
//!   time to the end time of the next day, and belong to the day they *start*: that day must be
//!   due and within the active dates; the steps after midnight follow even when the next day
//!   is not due (or is past `active_end_date`).
//! - **`freq_subday_type` 0** (msdb stores it on some rows) is read as 1: once a day at
//!   `active_start_time`.
//! - **`freq_recurrence_factor` 0** on weekly and monthly types is read as 1, with a Warning.
//!   It is unused (any value) on types 1 and 4.
//! - **Once (type 1)** fires at `active_start_date` + `active_start_time` and ignores the
//!   sub-day and interval columns.
//! - **`enabled`** other than 0 or 1 is read as enabled, with a Warning.
//! - **Daylight saving.** A wall-clock time inside a spring-forward gap fires at the first
//!   instant after the gap; several steps that land in the same gap collapse into one
//!   occurrence, which keeps the *first* step's nominal time (so `nominal` ≠ `local`,
//!   `dst = Some(Gap)`), and a step at exactly the end of the gap merges into it too. A
//!   wall-clock time inside a fall-back fold fires once, at the earlier instant
//!   (`dst = Some(Fold)`); nothing runs again in the repeated hour.
//! - **Schedules that can never fire** (day 31 every 12 months from April, or any schedule
//!   whose first due day is after `active_end_date`) get a Warning and no occurrences. The
//!   search for a due month gives up after [`MAX_EMPTY_MONTHS`] candidates, which is exact:
//!   the pattern of a day-of-month over aligned months repeats within 400 candidates.
//!
//! # Cost
//!
//! Finding the first due day at or after a date is arithmetic (days, 7-day blocks and months
//! are counted from the start date by division), and the first sub-day step at or after a time
//! is a division too, so a forecast costs O(occurrences in the window) whatever the start
//! date.
use super::{Diagnostic, Dst, Forecast, Occurrence, ScheduleId, Severity, Window, Zone, tz};
use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Timelike, Utc};
use serde::{Deserialize, Serialize};

/// One `msdb.dbo.sysschedules` row, as integers exactly as msdb stores them (any value is
/// accepted here; [`validate`] says what is wrong). Absent columns take the defaults of
/// `sp_add_schedule`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentSchedule {
    pub enabled: i64,
    pub freq_type: i64,
    pub freq_interval: i64,
    pub freq_subday_type: i64,
    pub freq_subday_interval: i64,
    pub freq_relative_interval: i64,
    pub freq_recurrence_factor: i64,
    /// yyyymmdd
    pub active_start_date: i64,
    /// yyyymmdd
    pub active_end_date: i64,
    /// hhmmss
    pub active_start_time: i64,
    /// hhmmss
    pub active_end_time: i64,
}

impl Default for AgentSchedule {
    fn default() -> Self {
        AgentSchedule {
            enabled: 1,
            freq_type: 0,
            freq_interval: 0,
            freq_subday_type: 0,
            freq_subday_interval: 0,
            freq_relative_interval: 0,
            freq_recurrence_factor: 0,
            active_start_date: 19900101,
            active_end_date: 99991231,
            active_start_time: 0,
            active_end_time: 235959,
        }
    }
}

/// The earliest `active_start_date` msdb accepts.
pub const MIN_START_DATE: i64 = 19900101;

/// How many aligned candidate months the search for a due day-of-month examines before it
/// concludes the schedule never fires. 401 is exact: with only February selected (the one
/// case where a selected month may lack the day in some years but not others), the aligned
/// years repeat modulo 400 within 400 candidates.
pub const MAX_EMPTY_MONTHS: u32 = 401;

const DAY: i64 = 86_400;

/// A yyyymmdd integer as a date; `None` unless it is a real date in years 1..=9999.
pub fn date_from_int(v: i64) -> Option<NaiveDate> {
    if !(10101..=99991231).contains(&v) {
        return None;
    }
    let (y, m, d) = (v / 10000, (v / 100) % 100, v % 100);
    NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, u32::try_from(m).ok()?, u32::try_from(d).ok()?)
}

/// An hhmmss integer as a time; `None` unless 0..=235959 with minutes and seconds under 60.
pub fn time_from_int(v: i64) -> Option<NaiveTime> {
    if !(0..=235959).contains(&v) {
        return None;
    }
    let (h, m, s) = (v / 10000, (v / 100) % 100, v % 100);
    NaiveTime::from_hms_opt(h as u32, m as u32, s as u32)
}

/// Which of a month's days a relative (type 32) schedule picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RelDay {
    /// 0 = Sunday … 6 = Saturday.
    Dow(u32),
    Day,
    Weekday,
    WeekendDay,
}

/// Which days a row is due on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Days {
    Once,
    Daily(i64),
    /// `mask` bit 0 = Sunday … bit 6 = Saturday.
    Weekly {
        every: i64,
        mask: u8,
    },
    MonthDay {
        every: i64,
        day: u32,
    },
    /// `nth` 1..=4, or 0 for "last".
    Relative {
        every: i64,
        nth: u32,
        what: RelDay,
    },
}

/// A checked row: the due days and the times on a due day.
#[derive(Clone, Copy, Debug)]
struct Plan {
    days: Days,
    /// Days from the common era (chrono's `num_days_from_ce`), inclusive bounds.
    start_day: i64,
    end_day: i64,
    /// Seconds after a due day's midnight of the first step.
    first_secs: i64,
    /// Seconds after a due day's midnight of the last allowed step (inclusive; above one day
    /// when the window spans midnight).
    last_secs: i64,
    /// Seconds between steps; `None` = once a day.
    step: Option<i64>,
}

enum Seek {
    Day(i64),
    End,
    GaveUp,
}

fn day_number(d: NaiveDate) -> i64 {
    i64::from(d.num_days_from_ce())
}

fn date_of(day: i64) -> Option<NaiveDate> {
    NaiveDate::from_num_days_from_ce_opt(i32::try_from(day).ok()?)
}

/// 0 = Sunday … 6 = Saturday (day 1 of the common era was a Monday).
fn weekday_of(day: i64) -> u32 {
    day.rem_euclid(7) as u32
}

fn month_index(d: NaiveDate) -> i64 {
    i64::from(d.year()) * 12 + i64::from(d.month0())
}

fn ymd_of_month(m: i64, day: u32) -> Option<NaiveDate> {
    let y = i32::try_from(m.div_euclid(12)).ok()?;
    NaiveDate::from_ymd_opt(y, m.rem_euclid(12) as u32 + 1, day)
}

fn days_in_month(m: i64) -> Option<u32> {
    let first = ymd_of_month(m, 1)?;
    let next = ymd_of_month(m.checked_add(1)?, 1)?;
    Some((next - first).num_days() as u32)
}

/// The day of month `m` (a month index) a relative schedule picks. The Nth matching day
/// counted from the 1st (`nth` 1..=4), or the last matching day (`nth` 0).
fn relative_day(m: i64, nth: u32, what: RelDay) -> Option<NaiveDate> {
    let len = days_in_month(m)?;
    let first = ymd_of_month(m, 1)?;
    let wd1 = first.weekday().num_days_from_sunday();
    let matches = |d: u32| {
        let wd = (wd1 + d - 1) % 7;
        match what {
            RelDay::Dow(w) => wd == w,
            RelDay::Day => true,
            RelDay::Weekday => (1..=5).contains(&wd),
            RelDay::WeekendDay => wd == 0 || wd == 6,
        }
    };
    let day = if nth == 0 {
        (1..=len).rev().find(|&d| matches(d))?
    } else {
        (1..=len).filter(|&d| matches(d)).nth(nth as usize - 1)?
    };
    ymd_of_month(m, day)
}

impl Plan {
    /// The first due day at or after `from` (a day number), or why there is none.
    /// Arithmetic: O(1) apart from the bounded month search.
    fn seek(&self, from: i64, cost: &mut u64) -> Seek {
        let s = self.start_day;
        let from = from.max(s);
        if from > self.end_day {
            return Seek::End;
        }
        match self.days {
            Days::Once => {
                *cost += 1;
                if from == s { Seek::Day(s) } else { Seek::End }
            }
            Days::Daily(n) => self.seek_daily(n, from, cost),
            Days::Weekly { every, mask } => self.seek_weekly(every, mask, from, cost),
            Days::MonthDay { every, .. } | Days::Relative { every, .. } => self.seek_monthly(every, from, cost),
        }
    }

    /// `d` if it is within the active dates, else the end.
    fn within(&self, d: i64) -> Seek {
        if d <= self.end_day { Seek::Day(d) } else { Seek::End }
    }

    /// Every `n` days: the first multiple of `n` days after the start day at or after `from`.
    fn seek_daily(&self, n: i64, from: i64, cost: &mut u64) -> Seek {
        let s = self.start_day;
        *cost += 1;
        let off = from - s;
        let k = off / n + i64::from(off % n != 0);
        match k.checked_mul(n).and_then(|x| s.checked_add(x)) {
            Some(d) => self.within(d),
            None => Seek::End,
        }
    }

    /// Every `every` 7-day blocks from the start day: the first day at or after `from` in an
    /// active block whose weekday is in `mask`.
    fn seek_weekly(&self, every: i64, mask: u8, from: i64, cost: &mut u64) -> Seek {
        let (s, end) = (self.start_day, self.end_day);
        let mut block = (from - s) / 7;
        let mut first = from;
        if block % every != 0 {
            match (block / every).checked_add(1).and_then(|b| b.checked_mul(every)) {
                Some(b) => block = b,
                None => return Seek::End,
            }
            match block.checked_mul(7).and_then(|x| s.checked_add(x)) {
                Some(f) => first = f,
                None => return Seek::End,
            }
        }
        // The first (maybe partial) active block, then one full block: a non-empty
        // mask always matches within a full block.
        for _ in 0..3 {
            let Some(block_end) = block.checked_mul(7).and_then(|x| s.checked_add(x + 6)) else {
                return Seek::End;
            };
            for d in first..=block_end {
                *cost += 1;
                if d > end {
                    return Seek::End;
                }
                if mask & (1u8 << weekday_of(d)) != 0 {
                    return Seek::Day(d);
                }
            }
            match block.checked_add(every).and_then(|b| Some((b, b.checked_mul(7)?.checked_add(s)?))) {
                Some((b, f)) => {
                    block = b;
                    first = f;
                }
                None => return Seek::End,
            }
        }
        Seek::End
    }

    /// Every `every` months from the start day's month (a day of month, or a relative day):
    /// the first such day at or after `from`, within [`MAX_EMPTY_MONTHS`] candidate months.
    fn seek_monthly(&self, every: i64, from: i64, cost: &mut u64) -> Seek {
        let (Some(sd), Some(fd), Some(ed)) = (date_of(self.start_day), date_of(from), date_of(self.end_day)) else {
            return Seek::End;
        };
        let (ms, mf, me) = (month_index(sd), month_index(fd), month_index(ed));
        let k0 = (mf - ms) / every;
        for k in k0..k0 + i64::from(MAX_EMPTY_MONTHS) {
            *cost += 1;
            let Some(m) = k.checked_mul(every).and_then(|x| ms.checked_add(x)) else {
                return Seek::End;
            };
            if m > me {
                return Seek::End;
            }
            let date = match self.days {
                Days::MonthDay { day, .. } => ymd_of_month(m, day),
                Days::Relative { nth, what, .. } => relative_day(m, nth, what),
                _ => None,
            };
            if let Some(date) = date {
                let d = day_number(date);
                if d >= from {
                    return self.within(d);
                }
            }
        }
        Seek::GaveUp
    }

    /// Steps on a due day (at least one).
    fn steps_per_day(&self) -> i64 {
        match self.step {
            None => 1,
            Some(st) => (self.last_secs - self.first_secs) / st + 1,
        }
    }

    /// The index of the first step at or after `secs` seconds past a due day's midnight.
    fn first_step_at_or_after(&self, secs: i64) -> i64 {
        if secs <= self.first_secs {
            return 0;
        }
        let off = secs - self.first_secs;
        match self.step {
            None => 1,
            Some(st) => off / st + i64::from(off % st != 0),
        }
    }
}

/// The recurrence factor of a weekly or monthly row: 0 is read as 1 (Warning), negative is an
/// Error (and read as 1 so that the other checks still run).
fn recurrence(s: &AgentSchedule, diags: &mut Vec<Diagnostic>) -> i64 {
    let r = s.freq_recurrence_factor;
    if r < 0 {
        diags.push(Diagnostic::error("freq_recurrence_factor", r, "must not be negative"));
        1
    } else if r == 0 {
        diags.push(Diagnostic::warning("freq_recurrence_factor", 0, "0 is read as 1 (every period)"));
        1
    } else {
        r
    }
}

/// The checked row, or `None` when it cannot be forecast (invalid, disabled, or a type with
/// no forecast), plus everything found along the way.
fn analyze(s: &AgentSchedule) -> (Option<Plan>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let usable = check_enabled(s, &mut diags);
    if let Some(info) = no_forecast(s.freq_type) {
        diags.push(info);
        return (None, diags);
    }
    let days = due_days(s, &mut diags);
    let step = sub_day_step(s, &mut diags);
    let (start, end) = active_dates(s, &mut diags);
    let (st, et) = active_times(s, &mut diags);

    if diags.iter().any(|d| d.severity == Severity::Error) || !usable {
        return (None, diags);
    }
    let (Some(days), Some(step), Some(start), Some(end), Some(st), Some(et)) = (days, step, start, end, st, et) else {
        return (None, diags);
    };
    let plan = Plan::new(days, step, (start, end), (st, et));
    match never_fires(&plan, s, start) {
        None => (Some(plan), diags),
        Some(warning) => {
            diags.push(warning);
            (None, diags)
        }
    }
}

/// Pushes an Error on `field`.
fn err(diags: &mut Vec<Diagnostic>, field: &str, value: i64, msg: &str) {
    diags.push(Diagnostic::error(field, value, msg));
}

/// The `enabled` column: whether the row is forecast at all (0 = disabled, Info; anything
/// but 0 or 1 is read as enabled, with a Warning).
fn check_enabled(s: &AgentSchedule, diags: &mut Vec<Diagnostic>) -> bool {
    if s.enabled == 0 {
        diags.push(Diagnostic::new(Severity::Info, Some("enabled"), Some("0".into()), "schedule is disabled"));
        false
    } else {
        if s.enabled != 1 {
            diags.push(Diagnostic::warning("enabled", s.enabled, "expected 0 or 1; read as enabled"));
        }
        true
    }
}

/// The Info for the types that fire on an event rather than a clock (64, 128), which have
/// no forecast; `None` for every other type.
fn no_forecast(freq_type: i64) -> Option<Diagnostic> {
    let message = match freq_type {
        64 => "runs when SQL Server Agent starts: there is no forecast",
        128 => "runs whenever the CPUs become idle: there is no forecast",
        _ => return None,
    };
    Some(Diagnostic::new(Severity::Info, Some("freq_type"), Some(freq_type.to_string()), message))
}

/// The due days (`freq_type`, `freq_interval`, the recurrence factor); `None` when they are
/// invalid (Errors pushed).
fn due_days(s: &AgentSchedule, diags: &mut Vec<Diagnostic>) -> Option<Days> {
    let fi = s.freq_interval;
    match s.freq_type {
        1 => Some(Days::Once),
        4 => {
            if fi < 1 {
                err(diags, "freq_interval", fi, "every-N-days schedules need freq_interval (N) of at least 1");
                None
            } else {
                Some(Days::Daily(fi))
            }
        }
        8 => {
            let every = recurrence(s, diags);
            if !(1..=127).contains(&fi) {
                err(
                    diags,
                    "freq_interval",
                    fi,
                    "weekly schedules need a weekday bitmap of 1..127 (Sunday = 1 … Saturday = 64)",
                );
                None
            } else {
                Some(Days::Weekly { every, mask: fi as u8 })
            }
        }
        16 => {
            let every = recurrence(s, diags);
            if !(1..=31).contains(&fi) {
                err(diags, "freq_interval", fi, "monthly schedules need a day of month of 1..31");
                None
            } else {
                Some(Days::MonthDay { every, day: fi as u32 })
            }
        }
        32 => relative_days(s, diags),
        v => {
            err(diags, "freq_type", v, "must be 1, 4, 8, 16, 32, 64 or 128");
            None
        }
    }
}

/// The due days of a relative monthly row (type 32): the recurrence factor, then which
/// (`freq_relative_interval`), then what (`freq_interval`).
fn relative_days(s: &AgentSchedule, diags: &mut Vec<Diagnostic>) -> Option<Days> {
    let every = recurrence(s, diags);
    let nth = match s.freq_relative_interval {
        1 => Some(1),
        2 => Some(2),
        4 => Some(3),
        8 => Some(4),
        16 => Some(0),
        v => {
            err(diags, "freq_relative_interval", v, "must be 1, 2, 4, 8 or 16 (first, second, third, fourth, last)");
            None
        }
    };
    let fi = s.freq_interval;
    let what = match fi {
        1..=7 => Some(RelDay::Dow(fi as u32 - 1)),
        8 => Some(RelDay::Day),
        9 => Some(RelDay::Weekday),
        10 => Some(RelDay::WeekendDay),
        _ => {
            err(
                diags,
                "freq_interval",
                fi,
                "relative monthly schedules need 1..7 (Sunday..Saturday), 8 (day), 9 (weekday) or 10 (weekend day)",
            );
            None
        }
    };
    match (nth, what) {
        (Some(nth), Some(what)) => Some(Days::Relative { every, nth, what }),
        _ => None,
    }
}

/// Seconds between a due day's steps (`None` inside: once a day), from the sub-day columns;
/// ignored by one-time schedules. `None` when invalid (Error pushed).
fn sub_day_step(s: &AgentSchedule, diags: &mut Vec<Diagnostic>) -> Option<Option<i64>> {
    if s.freq_type == 1 {
        return Some(None);
    }
    let n = s.freq_subday_interval;
    match s.freq_subday_type {
        0 | 1 => Some(None),
        2 if n < 10 => {
            err(diags, "freq_subday_interval", n, "a seconds interval must be at least 10");
            None
        }
        2 => Some(Some(n)),
        4 if !(1..=1440).contains(&n) => {
            err(diags, "freq_subday_interval", n, "a minutes interval must be 1..1440");
            None
        }
        4 => Some(Some(n * 60)),
        8 if !(1..=24).contains(&n) => {
            err(diags, "freq_subday_interval", n, "an hours interval must be 1..24");
            None
        }
        8 => Some(Some(n * 3600)),
        v => {
            err(diags, "freq_subday_type", v, "must be 1 (once), 2 (seconds), 4 (minutes) or 8 (hours)");
            None
        }
    }
}

/// `active_start_date` and `active_end_date` as dates (each `None` when not a real date),
/// with Errors for unreal dates, a start before [`MIN_START_DATE`] and an end before the
/// start.
fn active_dates(s: &AgentSchedule, diags: &mut Vec<Diagnostic>) -> (Option<NaiveDate>, Option<NaiveDate>) {
    let start = date_from_int(s.active_start_date);
    match start {
        None => err(diags, "active_start_date", s.active_start_date, "not a real yyyymmdd date"),
        Some(_) if s.active_start_date < MIN_START_DATE => {
            err(diags, "active_start_date", s.active_start_date, "must be 19900101 or later")
        }
        Some(_) => {}
    }
    let end = date_from_int(s.active_end_date);
    match (start, end) {
        (_, None) => err(diags, "active_end_date", s.active_end_date, "not a real yyyymmdd date"),
        (Some(a), Some(b)) if b < a => err(
            diags,
            "active_end_date",
            s.active_end_date,
            &format!("is before active_start_date ({})", s.active_start_date),
        ),
        _ => {}
    }
    (start, end)
}

/// `active_start_time` and `active_end_time` as times (each `None` when invalid), with
/// Errors for invalid times and for a recurring sub-day schedule whose window is empty.
fn active_times(s: &AgentSchedule, diags: &mut Vec<Diagnostic>) -> (Option<NaiveTime>, Option<NaiveTime>) {
    let recurring = s.freq_type != 1 && matches!(s.freq_subday_type, 2 | 4 | 8);
    let st = time_from_int(s.active_start_time);
    if st.is_none() {
        err(diags, "active_start_time", s.active_start_time, "not a valid hhmmss time (0..235959)");
    }
    let et = time_from_int(s.active_end_time);
    if et.is_none() {
        err(diags, "active_end_time", s.active_end_time, "not a valid hhmmss time (0..235959)");
    }
    if recurring && st.is_some() && st == et {
        err(
            diags,
            "active_end_time",
            s.active_end_time,
            "equals active_start_time: a recurring sub-day schedule needs a window",
        );
    }
    (st, et)
}

impl Plan {
    /// The plan of a checked row: the active dates as day numbers, the active times as
    /// seconds after midnight (an end before the start runs into the next day; a row without
    /// sub-day steps has one step, at the start time).
    fn new(
        days: Days,
        step: Option<i64>,
        (start, end): (NaiveDate, NaiveDate),
        (st, et): (NaiveTime, NaiveTime),
    ) -> Self {
        let first_secs = i64::from(st.num_seconds_from_midnight());
        let mut last_secs = i64::from(et.num_seconds_from_midnight());
        if last_secs < first_secs {
            last_secs += DAY;
        }
        Plan {
            days,
            start_day: day_number(start),
            end_day: day_number(end),
            first_secs,
            last_secs: if step.is_some() { last_secs } else { first_secs },
            step,
        }
    }
}

/// The Warning for a checked plan with no due day at all (from `start`, its first active
/// date); `None` when it has one.
fn never_fires(plan: &Plan, s: &AgentSchedule, start: NaiveDate) -> Option<Diagnostic> {
    let mut cost = 0;
    match plan.seek(plan.start_day, &mut cost) {
        Seek::Day(_) => None,
        Seek::End | Seek::GaveUp => Some(match plan.days {
            Days::MonthDay { day, every } if day >= 29 => Diagnostic::warning(
                "freq_interval",
                day,
                format!(
                    "day {day} never occurs in the months this schedule selects (every {every} month(s) from {}) within its active dates: it never fires",
                    start.format("%B %Y")
                ),
            ),
            _ => Diagnostic::warning(
                "active_end_date",
                s.active_end_date,
                "no due day between active_start_date and active_end_date: the schedule never fires",
            ),
        }),
    }
}

/// What `sp_verify_schedule` would refuse (Errors), plus what cannot be forecast or is read
/// with an assumption (Info, Warning): disabled, types 64/128, recurrence factor 0, a
/// schedule that never fires.
pub fn validate(s: &AgentSchedule) -> Vec<Diagnostic> {
    analyze(s).1
}

/// Walks the due wall-clock times of a plan in order from a lower bound, resolving each in
/// the zone and merging those that land on the same instant.
///
/// Two ways, with the same results (property tests hold them equal): step by step, each time
/// resolved with [`tz::resolve`] (`fast == false`, the reference), or resolving only where the
/// zone's offset changes ([`tz::Resolver`]: once per stretch of constant offset, then
/// subtraction) and building each day's times from that day's dates, which are computed once.
struct Cursor<'p> {
    plan: &'p Plan,
    tz: Zone,
    id: ScheduleId,
    /// The current due day; `None` when done.
    day: Option<i64>,
    /// The next step index on `day`.
    k: i64,
    last_at: Option<DateTime<Utc>>,
    gave_up: bool,
    cost: u64,
    fast: bool,
    /// `plan.steps_per_day()`.
    steps: i64,
    resolver: tz::Resolver,
    /// The day `dates` and `midnight` are for.
    dates_day: Option<i64>,
    /// The dates of the day before `dates_day` up to two days after it.
    dates: [Option<NaiveDate>; 4],
    /// `dates_day`'s midnight as wall-clock seconds (read as UTC).
    midnight: i64,
}

impl<'p> Cursor<'p> {
    /// A cursor over every due wall-clock time at or after `from` (and possibly a few before).
    fn new(plan: &'p Plan, tz: Zone, id: ScheduleId, from: NaiveDateTime, fast: bool) -> Self {
        let mut c = Cursor {
            plan,
            tz,
            id,
            day: None,
            k: 0,
            last_at: None,
            gave_up: false,
            cost: 0,
            fast,
            steps: plan.steps_per_day(),
            resolver: tz::Resolver::new(tz),
            dates_day: None,
            dates: [None; 4],
            midnight: 0,
        };
        let from_day = day_number(from.date());
        let from_secs = i64::from(from.time().num_seconds_from_midnight());
        // A day's steps run into the next day when the window spans midnight, so the day
        // before `from` may still have steps after it. On each due day up to `from`'s, start
        // at the first step at or after `from` (a due day whose steps all come before it is
        // passed over, not walked).
        c.enter(from_day - 1);
        while let Some(d) = c.day {
            if d > from_day {
                break;
            }
            c.k = plan.first_step_at_or_after((from_day - d) * DAY + from_secs);
            if c.k < c.steps {
                break;
            }
            c.enter(d + 1);
        }
        c
    }

    fn enter(&mut self, from: i64) {
        self.k = 0;
        self.day = match self.plan.seek(from, &mut self.cost) {
            Seek::Day(d) => Some(d),
            Seek::End => None,
            Seek::GaveUp => {
                self.gave_up = true;
                None
            }
        };
    }

    /// The next due wall-clock time.
    fn next_nominal(&mut self) -> Option<NaiveDateTime> {
        loop {
            let d = self.day?;
            if self.k < self.plan.steps_per_day() {
                let secs = match self.plan.step {
                    None => self.plan.first_secs,
                    Some(st) => self.plan.first_secs + self.k * st,
                };
                self.k += 1;
                self.cost += 1;
                let midnight = date_of(d)?.and_time(NaiveTime::MIN);
                return midnight.checked_add_signed(TimeDelta::try_seconds(secs)?);
            }
            self.enter(d + 1);
        }
    }

    /// The wall-clock time `secs` seconds after `dates_day`'s midnight (-1 to 3 days).
    #[inline]
    fn wall(&self, secs: i64) -> Option<NaiveDateTime> {
        let date = (*self.dates.get(usize::try_from(secs.div_euclid(DAY) + 1).ok()?)?)?;
        let time = NaiveTime::from_num_seconds_from_midnight_opt(secs.rem_euclid(DAY) as u32, 0)?;
        Some(date.and_time(time))
    }

    /// [`Iterator::next`] resolving only where the offset changes.
    fn next_fast(&mut self) -> Option<Occurrence> {
        loop {
            let d = self.day?;
            if self.k >= self.steps {
                self.enter(d + 1);
                continue;
            }
            if self.dates_day != Some(d) {
                self.dates = [d - 1, d, d + 1, d + 2].map(date_of);
                self.midnight = self.dates[1]?.and_time(NaiveTime::MIN).and_utc().timestamp();
                self.dates_day = Some(d);
            }
            let secs = match self.plan.step {
                None => self.plan.first_secs,
                Some(st) => self.plan.first_secs + self.k * st,
            };
            self.k += 1;
            self.cost += 1;
            let nominal = self.wall(secs)?;
            let known = self.resolver.known(self.midnight + secs);
            let (at, local, dst) = match known {
                Some((at, None | Some(Dst::Fold))) => {
                    let at = self.wall(at - self.midnight)?.and_utc();
                    (at, nominal, known.and_then(|k| k.1))
                }
                _ => {
                    let (at, dst, local) = self.resolver.resolve_local(nominal);
                    (at, local, dst)
                }
            };
            if self.last_at.is_some_and(|l| at <= l) {
                continue; // merged into the previous occurrence (DST gap)
            }
            self.last_at = Some(at);
            return Some(Occurrence { at, local, nominal, dst, schedule: self.id });
        }
    }
}

impl Iterator for Cursor<'_> {
    type Item = Occurrence;
    fn next(&mut self) -> Option<Occurrence> {
        if self.fast {
            return self.next_fast();
        }
        loop {
            let nominal = self.next_nominal()?;
            let (at, dst) = tz::resolve(nominal, self.tz);
            if self.last_at.is_some_and(|l| at <= l) {
                continue; // merged into the previous occurrence (DST gap)
            }
            self.last_at = Some(at);
            let local = tz::to_local(at, self.tz);
            return Some(Occurrence { at, local, nominal, dst, schedule: self.id });
        }
    }
}

/// The wall-clock lower bound from which to walk so that every occurrence at or after `w`,
/// and every due time merged into it, is seen; `None` when `w` is past any possible
/// occurrence.
///
/// A due time resolving at or after `w` is never earlier than `w`'s wall clock, except when
/// `w` is exactly the end of a gap: then the gap's times (which resolve to `w`) are earlier,
/// from the wall clock just before `w`.
fn lower_bound(w: DateTime<Utc>, tz: Zone) -> Option<NaiveDateTime> {
    let low = NaiveDate::from_ymd_opt(1989, 12, 1)?.and_time(NaiveTime::MIN).and_utc();
    let high = NaiveDate::from_ymd_opt(10000, 1, 5)?.and_time(NaiveTime::MIN).and_utc();
    if w > high {
        return None;
    }
    let w = w.max(low);
    let here = tz::to_local(w, tz);
    let before = tz::to_local(w - TimeDelta::seconds(1), tz) + TimeDelta::seconds(1);
    Some(here.min(before))
}

fn gave_up_diag(s: &AgentSchedule) -> Diagnostic {
    Diagnostic::warning(
        "freq_interval",
        s.freq_interval,
        format!("no due day in {MAX_EMPTY_MONTHS} consecutive candidate months: the search stopped"),
    )
}

/// Every occurrence inside `window`, and the number of candidate days and steps examined (a
/// measure of cost: it grows with the occurrences in the window, not with the age of the
/// schedule).
pub fn forecast_with_cost(id: ScheduleId, s: &AgentSchedule, tz: Zone, window: Window) -> (Forecast, u64) {
    forecast_in(id, s, tz, window, true)
}

/// [`forecast`] the straightforward way, resolving every due time in the zone on its own: the
/// reference the fast path is proven equal to (property tests), and what a benchmark compares
/// it with.
pub fn forecast_stepwise(id: ScheduleId, s: &AgentSchedule, tz: Zone, window: Window) -> Forecast {
    forecast_in(id, s, tz, window, false).0
}

fn forecast_in(id: ScheduleId, s: &AgentSchedule, tz: Zone, window: Window, fast: bool) -> (Forecast, u64) {
    let (plan, mut diagnostics) = analyze(s);
    let mut occurrences = Vec::new();
    let mut cost = 0;
    if let (Some(plan), false) = (plan, window.is_empty())
        && let Some(from) = lower_bound(window.start, tz)
    {
        let mut c = Cursor::new(&plan, tz, id, from, fast);
        for o in c.by_ref() {
            if o.at >= window.end {
                break;
            }
            if o.at >= window.start {
                occurrences.push(o);
            }
        }
        if c.gave_up {
            diagnostics.push(gave_up_diag(s));
        }
        cost = c.cost;
    }
    (Forecast { occurrences, diagnostics }, cost)
}

/// Every occurrence inside `window` (`window.start <= at < window.end`), in time order.
pub fn forecast(id: ScheduleId, s: &AgentSchedule, tz: Zone, window: Window) -> Forecast {
    forecast_with_cost(id, s, tz, window).0
}

/// The first `count` occurrences strictly after `after`, in time order (fewer when the
/// schedule ends or never fires).
pub fn next_after(id: ScheduleId, s: &AgentSchedule, tz: Zone, after: DateTime<Utc>, count: usize) -> Forecast {
    next_after_in(id, s, tz, after, count, true)
}

/// [`next_after`] the straightforward way (see [`forecast_stepwise`]).
pub fn next_after_stepwise(
    id: ScheduleId,
    s: &AgentSchedule,
    tz: Zone,
    after: DateTime<Utc>,
    count: usize,
) -> Forecast {
    next_after_in(id, s, tz, after, count, false)
}

fn next_after_in(
    id: ScheduleId,
    s: &AgentSchedule,
    tz: Zone,
    after: DateTime<Utc>,
    count: usize,
    fast: bool,
) -> Forecast {
    let (plan, mut diagnostics) = analyze(s);
    let mut occurrences = Vec::new();
    if let (Some(plan), true) = (plan, count > 0)
        && let Some(from) = lower_bound(after, tz)
    {
        let mut c = Cursor::new(&plan, tz, id, from, fast);
        for o in c.by_ref() {
            if o.at > after {
                occurrences.push(o);
                if occurrences.len() >= count {
                    break;
                }
            }
        }
        if c.gave_up {
            diagnostics.push(gave_up_diag(s));
        }
    }
    Forecast { occurrences, diagnostics }
}
