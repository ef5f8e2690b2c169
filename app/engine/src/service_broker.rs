//! Seed 003: the SQL Server Express scheduler on Service Broker (ScheduledJobs + JobSchedules),
//! forecast.
//!
//! One [`ServiceBrokerJob`] is a `ScheduledJobs` row with its `JobSchedules` row flattened into it
//! (PascalCase column names as in the article; snake_case aliases are accepted).
//!
//! # How the article schedules (its `dbo.GetNextRunTime`)
//!
//! After each run, and when a job is started with a `ValidFrom`, the next run is computed from
//! the previous run time (or `ValidFrom`) and a Service Broker dialog timer is set for it:
//!
//! - **Daily (1)**: every `Frequency` days counted from the previous run's date, at
//!   `RunAtInSecondsFromMidnight`. Chained from `ValidFrom`, that is the days
//!   `ValidFrom's date + k × Frequency`, at the run time, strictly after `ValidFrom`.
//! - **Weekly (2)**: the ISO weekdays in `AbsoluteSubFrequency` (Monday = 1 … Sunday = 7,
//!   *not* msdb's Sunday-first bitmap) of every `Frequency`-th ISO week (Monday to Sunday),
//!   counted from `ValidFrom`'s week.
//! - **Monthly (3)**, every `Frequency`-th month counted from `ValidFrom`'s month, either on the
//!   days of month in `AbsoluteSubFrequency` (a day the month lacks is skipped, not moved), or
//!   relative: `MontlyRelativeSubFrequencyWhich` 1..4 (first … fourth) or 5 (last) of
//!   `MontlyRelativeSubFrequencyWhat` 1..7 (Monday … Sunday) or -1 (day: the Nth day of the
//!   month, or its last day).
//! - **Run once**: no schedule (`JobScheduleId` -1 / no `FrequencyType`): one run at `NextRunOn`
//!   (at `LastRunOn` once it has run and `NextRunOn` is empty: the scheduler stops the job).
//!
//! # Choices
//!
//! - **Counting across years.** The article's T-SQL compares ISO week-of-year numbers and
//!   month-of-year numbers (`(MONTH - MONTH(@LastRunTime)) % @Frequency`), which jumps at a year
//!   boundary when the frequency does not divide 12 (months) or in a 53-week year; Sundial
//!   counts weeks and months continuously, as the article's prose ("every N weeks") means.
//! - **`LastRunOn`**, when set (and not before `ValidFrom`), re-anchors the schedule after it:
//!   the next run is computed from the last run, so days / weeks / months count from its date.
//!   Up to `LastRunOn`, occurrences come from `ValidFrom`.
//! - **Time zone**: the article stores UTC (`GETUTCDATE()`); the times are read in `tz` (pass
//!   UTC for the article's installation).
//! - **`RunAtInSecondsFromMidnight`**: 0..86399 is read; the table's CHECK allows only
//!   0..84599 (the article's typo for 86399), so 84600..86399 gets a Warning.
//! - **`IsEnabled` 0**: no forecast (Info); absent: enabled.
//! - **`NextRunOn`** of a recurring job is the stored dialog timer: when it differs from the
//!   schedule's next run after `LastRunOn` (or `ValidFrom`), a Warning; the forecast follows
//!   the schedule.
use super::dialect::{Clock, Until, collect, flag_field, fmt_ts, int_field, loose, timestamp_field};
use super::{Diagnostic, Forecast, ScheduleId, Severity, Window, Zone};
use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

/// A `ScheduledJobs` row with its `JobSchedules` row (absent for "run once" jobs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ServiceBrokerJob {
    #[serde(rename = "JobName", alias = "job_name", deserialize_with = "loose")]
    pub job_name: Option<String>,
    /// -1 for a "run once" job.
    #[serde(rename = "JobScheduleId", alias = "job_schedule_id", deserialize_with = "loose")]
    pub job_schedule_id: Option<String>,
    #[serde(rename = "ValidFrom", alias = "valid_from", deserialize_with = "loose")]
    pub valid_from: Option<String>,
    #[serde(rename = "LastRunOn", alias = "last_run_on", deserialize_with = "loose")]
    pub last_run_on: Option<String>,
    #[serde(rename = "NextRunOn", alias = "next_run_on", deserialize_with = "loose")]
    pub next_run_on: Option<String>,
    #[serde(rename = "IsEnabled", alias = "is_enabled", deserialize_with = "loose")]
    pub is_enabled: Option<String>,
    /// 1 daily, 2 weekly, 3 monthly.
    #[serde(rename = "FrequencyType", alias = "frequency_type", deserialize_with = "loose")]
    pub frequency_type: Option<String>,
    /// Every N days / weeks / months (1..100).
    #[serde(rename = "Frequency", alias = "frequency", deserialize_with = "loose")]
    pub frequency: Option<String>,
    /// CSV: ISO weekdays (weekly) or days of month (monthly absolute).
    #[serde(rename = "AbsoluteSubFrequency", alias = "absolute_sub_frequency", deserialize_with = "loose")]
    pub absolute_sub_frequency: Option<String>,
    /// 1..4, 5 = last (the article's spelling "Montly").
    #[serde(
        rename = "MontlyRelativeSubFrequencyWhich",
        alias = "montly_relative_sub_frequency_which",
        alias = "MonthlyRelativeSubFrequencyWhich",
        deserialize_with = "loose"
    )]
    pub relative_which: Option<String>,
    /// 1 = Monday … 7 = Sunday, -1 = day.
    #[serde(
        rename = "MontlyRelativeSubFrequencyWhat",
        alias = "montly_relative_sub_frequency_what",
        alias = "MonthlyRelativeSubFrequencyWhat",
        deserialize_with = "loose"
    )]
    pub relative_what: Option<String>,
    #[serde(
        rename = "RunAtInSecondsFromMidnight",
        alias = "run_at_in_seconds_from_midnight",
        deserialize_with = "loose"
    )]
    pub run_at: Option<String>,
}

/// Which days are due.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)]
pub(crate) enum Days {
    /// Every day whose distance from the anchor date is a multiple of N.
    EveryNDays(i64),
    /// ISO weekdays (bit 0 = Monday … bit 6 = Sunday) of every N-th ISO week from the anchor's.
    Weekly { every: i64, mask: u8 },
    /// Days of month (bit d) of every N-th month from the anchor's.
    MonthDays { every: i64, mask: u32 },
    /// `nth` 1..4 or 5 (last); `what` 1..7 (ISO weekday) or -1 (day).
    Relative { every: i64, nth: u32, what: i32 },
    /// Every day (seed 004's daily and every-week / every-month lists use the masks above).
    All,
}

fn month_index(d: NaiveDate) -> i64 {
    i64::from(d.year()) * 12 + i64::from(d.month0())
}

fn days_in_month(d: NaiveDate) -> u32 {
    let (y, m) = (d.year(), d.month());
    let next = if m == 12 { NaiveDate::from_ymd_opt(y + 1, 1, 1) } else { NaiveDate::from_ymd_opt(y, m + 1, 1) };
    match (next, NaiveDate::from_ymd_opt(y, m, 1)) {
        (Some(n), Some(f)) => (n - f).num_days() as u32,
        _ => 31,
    }
}

/// The Monday starting `d`'s ISO week, as a day number.
fn week_start(d: NaiveDate) -> i64 {
    i64::from(d.num_days_from_ce()) - i64::from(d.weekday().num_days_from_monday())
}

impl Days {
    pub(crate) fn is_due(&self, d: NaiveDate, anchor: NaiveDate) -> bool {
        match *self {
            Days::All => true,
            Days::EveryNDays(n) => {
                (i64::from(d.num_days_from_ce()) - i64::from(anchor.num_days_from_ce())).rem_euclid(n) == 0
            }
            Days::Weekly { every, mask } => {
                let weeks = (week_start(d) - week_start(anchor)) / 7;
                weeks.rem_euclid(every) == 0 && mask & (1 << d.weekday().num_days_from_monday()) != 0
            }
            Days::MonthDays { every, mask } => {
                (month_index(d) - month_index(anchor)).rem_euclid(every) == 0 && mask & (1 << d.day()) != 0
            }
            Days::Relative { every, nth, what } => {
                if (month_index(d) - month_index(anchor)).rem_euclid(every) != 0 {
                    return false;
                }
                let len = days_in_month(d);
                if what == -1 {
                    return if nth == 5 { d.day() == len } else { d.day() == nth };
                }
                if d.weekday().number_from_monday() as i32 != what {
                    return false;
                }
                if nth == 5 { d.day() + 7 > len } else { (d.day() - 1) / 7 + 1 == nth }
            }
        }
    }
}

/// Walks due days from a date, yielding each due day's wall-clock times (seconds after
/// midnight, ascending) that are after `after`. Gives up after [`MAX_IDLE_DAYS`] days without
/// a due day, or past `last_day`.
pub(crate) struct DayWalk {
    pub days: Days,
    pub anchor: NaiveDate,
    pub times: Vec<u32>,
    /// Only times strictly after this are yielded.
    pub after: NaiveDateTime,
    pub day: Option<NaiveDate>,
    pub idx: usize,
    pub idle: u32,
    pub gave_up: bool,
}

/// 400 years: every pattern here repeats within that (leap days included).
pub(crate) const MAX_IDLE_DAYS: u32 = 146_100;

impl DayWalk {
    pub(crate) fn new(
        days: Days,
        anchor: NaiveDate,
        times: Vec<u32>,
        after: NaiveDateTime,
        from: NaiveDateTime,
    ) -> Self {
        let start = from.max(after).date().pred_opt().unwrap_or(from.date());
        DayWalk { days, anchor, times, after, day: Some(start), idx: 0, idle: 0, gave_up: false }
    }
}

impl Iterator for DayWalk {
    type Item = NaiveDateTime;
    fn next(&mut self) -> Option<NaiveDateTime> {
        loop {
            let d = self.day?;
            if self.idx == 0 && !self.days.is_due(d, self.anchor) {
                self.idle += 1;
                if self.idle > MAX_IDLE_DAYS {
                    self.gave_up = true;
                    self.day = None;
                    return None;
                }
                self.day = d.succ_opt();
                continue;
            }
            if self.idx < self.times.len() {
                let secs = self.times[self.idx];
                self.idx += 1;
                let t = d.and_time(NaiveTime::MIN) + TimeDelta::seconds(i64::from(secs));
                if t > self.after {
                    self.idle = 0;
                    return Some(t);
                }
                continue;
            }
            self.idx = 0;
            self.idle += 1;
            if self.idle > MAX_IDLE_DAYS {
                self.gave_up = true;
                self.day = None;
                return None;
            }
            self.day = d.succ_opt();
        }
    }
}

#[derive(Clone, Debug)]
enum Plan {
    Once(NaiveDateTime),
    Recurring { days: Days, run_at: u32, valid_from: NaiveDateTime, last_run: Option<NaiveDateTime> },
}

/// A CSV of whole numbers within `lo..=hi`, as the article splits it (spaces removed).
pub(crate) fn csv_numbers(
    field: &str,
    v: &str,
    lo: i64,
    hi: i64,
    what: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<i64>> {
    let mut out = Vec::new();
    for part in v.split(',') {
        let p: String = part.chars().filter(|c| !c.is_whitespace()).collect();
        match p.parse::<i64>() {
            Ok(n) if (lo..=hi).contains(&n) => out.push(n),
            _ => {
                diags.push(Diagnostic::error(field, v.trim(), format!("'{}' is not {what} ({lo}..{hi})", part.trim())));
                return None;
            }
        }
    }
    if out.is_empty() {
        diags.push(Diagnostic::error(field, v.trim(), format!("lists no {what}")));
        return None;
    }
    Some(out)
}

/// The checked job, or `None` when it cannot be forecast (invalid or disabled), plus
/// everything found along the way.
fn analyze(j: &ServiceBrokerJob) -> (Option<Plan>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let usable = check_enabled(j, &mut diags);
    let schedule_id = int_field("JobScheduleId", &j.job_schedule_id, &mut diags).ok().flatten();
    let ftype = int_field("FrequencyType", &j.frequency_type, &mut diags);
    let valid_from = timestamp_field("ValidFrom", &j.valid_from, &mut diags);
    let last_run = timestamp_field("LastRunOn", &j.last_run_on, &mut diags).ok().flatten();
    let next_run = timestamp_field("NextRunOn", &j.next_run_on, &mut diags);
    if schedule_id == Some(-1) || matches!(ftype, Ok(None)) {
        let plan = run_once(next_run, last_run, &mut diags);
        return finish(plan, usable, diags);
    }
    let Ok(Some(ftype)) = ftype else {
        return (None, diags);
    };
    let every = read_frequency(j, &mut diags);
    let run_at = read_run_at(j, &mut diags);
    let columns = DayColumns::read(j, ftype, &mut diags);
    let days = every.and_then(|every| columns.days(every, &mut diags));
    columns.warn_unused_relative(&mut diags);
    let valid_from = required_valid_from(valid_from, &mut diags);
    let plan = match (days, run_at, valid_from) {
        (Some(days), Some(run_at), Some(valid_from)) => {
            Some(Plan::Recurring { days, run_at, valid_from, last_run: last_run.filter(|l| *l >= valid_from) })
        }
        _ => None,
    };
    if let (Some(plan), Ok(Some(stored))) = (&plan, next_run)
        && let Some(warning) = stored_next_run_differs(plan, stored)
    {
        diags.push(warning);
    }
    finish(plan, usable, diags)
}

/// `IsEnabled`: whether the job is forecast at all (0 = disabled, Info; absent = enabled).
fn check_enabled(j: &ServiceBrokerJob, diags: &mut Vec<Diagnostic>) -> bool {
    if let Ok(Some(false)) = flag_field("IsEnabled", &j.is_enabled, diags) {
        diags.push(Diagnostic::new(
            Severity::Info,
            Some("IsEnabled"),
            Some("0".into()),
            "the job is disabled: there is no forecast",
        ));
        return false;
    }
    true
}

/// A run-once job (no `JobSchedules` row): one run at `NextRunOn`, which it needs until it has
/// run (Error when absent and `LastRunOn` is too; Info when `LastRunOn` says it already ran,
/// its one run then at `LastRunOn` when `NextRunOn` is empty).
fn run_once(
    next_run: Result<Option<NaiveDateTime>, ()>,
    last_run: Option<NaiveDateTime>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Plan> {
    match next_run {
        Ok(Some(t)) => {
            if let Some(l) = last_run
                && l >= t
            {
                diags.push(Diagnostic::info(format!("the run-once job already ran (LastRunOn {})", fmt_ts(l))));
            }
            Some(Plan::Once(t))
        }
        // Once it has run, the job is stopped and its NextRunOn may be gone: its one run is
        // LastRunOn.
        Ok(None) if last_run.is_some() => {
            let l = last_run?;
            diags.push(Diagnostic::info(format!(
                "the run-once job ran at {} (LastRunOn; NextRunOn is empty): nothing more is expected",
                fmt_ts(l)
            )));
            Some(Plan::Once(l))
        }
        Ok(None) => {
            diags.push(Diagnostic::new(
                Severity::Error,
                Some("NextRunOn"),
                None,
                "a run-once job (no JobSchedules row) that has not run yet needs NextRunOn",
            ));
            None
        }
        Err(()) => None,
    }
}

/// `Frequency`: every N days / weeks / months, 1..100 (absent: 1); `None` when invalid.
fn read_frequency(j: &ServiceBrokerJob, diags: &mut Vec<Diagnostic>) -> Option<i64> {
    match int_field("Frequency", &j.frequency, diags) {
        Ok(None) => Some(1),
        Ok(Some(n)) if (1..=100).contains(&n) => Some(n),
        Ok(Some(n)) => {
            diags.push(Diagnostic::error("Frequency", n, "must be 1..100 (the table's CHECK)"));
            None
        }
        Err(()) => None,
    }
}

/// `RunAtInSecondsFromMidnight`: 0..86399 (absent: 0), with a Warning above the table's
/// CHECK (84599); `None` when invalid.
fn read_run_at(j: &ServiceBrokerJob, diags: &mut Vec<Diagnostic>) -> Option<u32> {
    match int_field("RunAtInSecondsFromMidnight", &j.run_at, diags) {
        Ok(None) => Some(0),
        Ok(Some(n)) if (0..=84_599).contains(&n) => Some(n as u32),
        Ok(Some(n)) if (84_600..=86_399).contains(&n) => {
            diags.push(Diagnostic::warning(
                "RunAtInSecondsFromMidnight",
                n,
                "the table's CHECK allows only 0..84599 (the article's typo for 86399); read as written",
            ));
            Some(n as u32)
        }
        Ok(Some(n)) => {
            diags.push(Diagnostic::error("RunAtInSecondsFromMidnight", n, "must be 0..86399 seconds after midnight"));
            None
        }
        Err(()) => None,
    }
}

/// The columns that pick a recurring job's due days, read.
struct DayColumns<'j> {
    /// `FrequencyType`.
    ftype: i64,
    /// `AbsoluteSubFrequency`, unless empty or `null`.
    abs: Option<&'j str>,
    /// `MontlyRelativeSubFrequencyWhich`.
    which: Option<i64>,
    /// `MontlyRelativeSubFrequencyWhat`.
    what: Option<i64>,
}

impl<'j> DayColumns<'j> {
    /// Reads the sub-frequency columns (a corrupt Which or What is an Error, and read as
    /// absent).
    fn read(j: &'j ServiceBrokerJob, ftype: i64, diags: &mut Vec<Diagnostic>) -> Self {
        let abs = j
            .absolute_sub_frequency
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty() && !s.eq_ignore_ascii_case("null"));
        let which = int_field("MontlyRelativeSubFrequencyWhich", &j.relative_which, diags).ok().flatten();
        let what = int_field("MontlyRelativeSubFrequencyWhat", &j.relative_what, diags).ok().flatten();
        DayColumns { ftype, abs, which, what }
    }

    /// The due days of every `every`-th day, week or month; `None` when invalid (Errors
    /// pushed).
    fn days(&self, every: i64, diags: &mut Vec<Diagnostic>) -> Option<Days> {
        match self.ftype {
            1 => {
                if let Some(a) = self.abs {
                    diags.push(Diagnostic::warning(
                        "AbsoluteSubFrequency",
                        a,
                        "ignored by daily schedules (the table's CHECK wants it empty)",
                    ));
                }
                Some(Days::EveryNDays(every))
            }
            2 => match self.abs {
                None => {
                    diags.push(Diagnostic::new(
                        Severity::Error,
                        Some("AbsoluteSubFrequency"),
                        None,
                        "a weekly schedule needs ISO weekdays (1 = Monday … 7 = Sunday)",
                    ));
                    None
                }
                Some(a) => csv_numbers("AbsoluteSubFrequency", a, 1, 7, "an ISO weekday", diags)
                    .map(|v| Days::Weekly { every, mask: v.iter().fold(0u8, |m, d| m | (1 << (d - 1))) }),
            },
            3 => match self.abs {
                Some(a) => csv_numbers("AbsoluteSubFrequency", a, 1, 31, "a day of month", diags)
                    .map(|v| Days::MonthDays { every, mask: v.iter().fold(0u32, |m, d| m | (1 << d)) }),
                None => self.relative(every, diags),
            },
            other => {
                diags.push(Diagnostic::error(
                    "FrequencyType",
                    other,
                    "must be 1 (daily), 2 (weekly) or 3 (monthly); run-once jobs have no schedule",
                ));
                None
            }
        }
    }

    /// The due days of a relative monthly schedule: Which, then What; `None` when either is
    /// missing or out of range (Errors pushed).
    fn relative(&self, every: i64, diags: &mut Vec<Diagnostic>) -> Option<Days> {
        let nth = match self.which {
            Some(n @ 1..=5) => Some(n as u32),
            Some(n) => {
                diags.push(Diagnostic::error(
                    "MontlyRelativeSubFrequencyWhich",
                    n,
                    "must be 1..4 (first … fourth) or 5 (last)",
                ));
                None
            }
            None => {
                diags.push(Diagnostic::new(
                    Severity::Error,
                    Some("MontlyRelativeSubFrequencyWhich"),
                    None,
                    "a monthly schedule needs AbsoluteSubFrequency days or a relative Which/What",
                ));
                None
            }
        };
        let w = match self.what {
            Some(n @ (1..=7 | -1)) => Some(n as i32),
            Some(n) => {
                diags.push(Diagnostic::error(
                    "MontlyRelativeSubFrequencyWhat",
                    n,
                    "must be 1..7 (Monday … Sunday) or -1 (day)",
                ));
                None
            }
            None => {
                diags.push(Diagnostic::new(
                    Severity::Error,
                    Some("MontlyRelativeSubFrequencyWhat"),
                    None,
                    "a relative monthly schedule needs What: 1..7 (Monday … Sunday) or -1 (day)",
                ));
                None
            }
        };
        match (nth, w) {
            (Some(nth), Some(what)) => Some(Days::Relative { every, nth, what }),
            _ => None,
        }
    }

    /// A Warning when a daily or weekly schedule sets the relative columns, which only
    /// monthly schedules use.
    fn warn_unused_relative(&self, diags: &mut Vec<Diagnostic>) {
        let ftype = self.ftype;
        if ftype != 3 && (self.which.is_some() || self.what.is_some()) && matches!(ftype, 1 | 2) {
            diags.push(Diagnostic::warning(
                "MontlyRelativeSubFrequencyWhich",
                self.which.map(|w| w.to_string()).unwrap_or_default(),
                "only monthly schedules use the relative columns; ignored",
            ));
        }
    }
}

/// `ValidFrom` of a recurring job, which the schedule counts from: an Error when missing.
fn required_valid_from(
    valid_from: Result<Option<NaiveDateTime>, ()>,
    diags: &mut Vec<Diagnostic>,
) -> Option<NaiveDateTime> {
    match valid_from {
        Ok(Some(v)) => Some(v),
        Ok(None) => {
            diags.push(Diagnostic::new(
                Severity::Error,
                Some("ValidFrom"),
                None,
                "missing (NOT NULL): the schedule counts from it",
            ));
            None
        }
        Err(()) => None,
    }
}

/// The stored `NextRunOn` (the dialog timer) should be the next run after the last one: a
/// Warning when the schedule's next run after `LastRunOn` (or `ValidFrom`) differs.
fn stored_next_run_differs(plan: &Plan, stored: NaiveDateTime) -> Option<Diagnostic> {
    let Plan::Recurring { days, run_at, valid_from, last_run } = plan else {
        return None;
    };
    let from = last_run.unwrap_or(*valid_from);
    let computed = DayWalk::new(days.clone(), from.date(), vec![*run_at], from, from).next();
    if computed.is_some_and(|c| c != stored) {
        Some(Diagnostic::warning(
            "NextRunOn",
            fmt_ts(stored),
            format!(
                "the schedule's next run after {} is {}: the stored next run differs (job restarted or schedule changed?); the forecast follows the schedule",
                fmt_ts(from),
                computed.map(fmt_ts).unwrap_or_default()
            ),
        ))
    } else {
        None
    }
}

fn finish(plan: Option<Plan>, usable: bool, diags: Vec<Diagnostic>) -> (Option<Plan>, Vec<Diagnostic>) {
    if diags.iter().any(|d| d.severity == Severity::Error) || !usable { (None, diags) } else { (plan, diags) }
}

/// The warning when a walk found no due day in 400 years.
pub(crate) fn never_fires(field: &str, value: &str) -> Diagnostic {
    Diagnostic::warning(field, value, "no due day in 400 years: the schedule never runs")
}

fn run(id: ScheduleId, j: &ServiceBrokerJob, tz: Zone, until: Until) -> Forecast {
    let (plan, mut diagnostics) = analyze(j);
    let Some(plan) = plan else {
        return Forecast { occurrences: Vec::new(), diagnostics };
    };
    let zone = Clock::Zone(tz);
    let from = until.from(zone);
    let occurrences = match plan {
        Plan::Once(t) => collect(id, zone, std::iter::once(t), &until, &mut diagnostics),
        Plan::Recurring { days, run_at, valid_from, last_run } => {
            let mut first = DayWalk::new(days.clone(), valid_from.date(), vec![run_at], valid_from, from);
            let (segment_end, second) = match last_run {
                Some(l) => (Some(l), Some(DayWalk::new(days, l.date(), vec![run_at], l, from))),
                None => (None, None),
            };
            let a = first.by_ref().take_while(|t| segment_end.is_none_or(|l| *t <= l));
            let chained = a.chain(second.into_iter().flatten());
            let occ = collect(id, zone, chained, &until, &mut diagnostics);
            if first.gave_up && occ.is_empty() {
                diagnostics
                    .push(never_fires("AbsoluteSubFrequency", j.absolute_sub_frequency.as_deref().unwrap_or("")));
            }
            occ
        }
    };
    Forecast { occurrences, diagnostics }
}

/// Every run inside `window`, reading the times in `tz` (UTC for the article's tables).
pub fn forecast(id: ScheduleId, j: &ServiceBrokerJob, tz: Zone, window: Window) -> Forecast {
    run(id, j, tz, Until::Window(window))
}

/// The first `count` runs strictly after `after`.
pub fn next_after(id: ScheduleId, j: &ServiceBrokerJob, tz: Zone, after: DateTime<Utc>, count: usize) -> Forecast {
    run(id, j, tz, Until::After(after, count))
}

pub fn validate(j: &ServiceBrokerJob) -> Vec<Diagnostic> {
    analyze(j).1
}

const ISO_DAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

fn hhmmss(secs: i64) -> String {
    format!("{:02}:{:02}:{:02}", secs / 3600, (secs % 3600) / 60, secs % 60)
}

/// "Every 2 weeks on Tuesday, Wednesday, Friday, Sunday at 08:00:00 from 2012-05-24 00:00:00".
pub fn describe(j: &ServiceBrokerJob) -> String {
    let mut d = Vec::new();
    let (plan, _) = analyze(&ServiceBrokerJob { is_enabled: None, ..j.clone() });
    let disabled = matches!(flag_field("IsEnabled", &j.is_enabled, &mut d), Ok(Some(false)));
    let mut s = match plan {
        None => {
            let ftype = j.frequency_type.as_deref().unwrap_or("none");
            return format!(
                "Invalid JobSchedules row (FrequencyType = {ftype}): {}",
                validate(j).iter().find(|x| x.severity == Severity::Error).map(|x| x.to_string()).unwrap_or_default()
            );
        }
        Some(Plan::Once(t)) => format!("Once at {}", fmt_ts(t)),
        Some(Plan::Recurring { days, run_at, valid_from, .. }) => {
            let at = hhmmss(i64::from(run_at));
            let period = |n: i64, unit: &str| {
                if n == 1 { format!("Every {unit}") } else { format!("Every {n} {unit}s") }
            };
            let body = match days {
                Days::EveryNDays(n) => format!("{} at {at}", period(n, "day")),
                Days::Weekly { every, mask } => {
                    let names: Vec<&str> = (0..7).filter(|b| mask & (1 << b) != 0).map(|b| ISO_DAYS[b]).collect();
                    format!("{} on {} at {at}", period(every, "week"), names.join(", "))
                }
                Days::MonthDays { every, mask } => {
                    let ds: Vec<String> =
                        (1..=31).filter(|b| mask & (1 << b) != 0).map(|b: u32| b.to_string()).collect();
                    format!("{} on day {} at {at}", period(every, "month"), ds.join(", "))
                }
                Days::Relative { every, nth, what } => {
                    let n = ["first", "second", "third", "fourth", "last"][(nth as usize).clamp(1, 5) - 1];
                    let w = if what == -1 { "day" } else { ISO_DAYS[(what as usize).clamp(1, 7) - 1] };
                    format!("{} on the {n} {w} at {at}", period(every, "month"))
                }
                Days::All => format!("Every day at {at}"),
            };
            format!("{body} from {}", fmt_ts(valid_from))
        }
    };
    if disabled {
        s.push_str(" (disabled)");
    }
    s
}
