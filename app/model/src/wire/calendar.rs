//! The fleet calendar (`/calendar?span=day|week&at=DATE&instance=…`): a day or a week of every
//! job's past runs and the expected runs ahead, by hour, with maintenance windows, DST changes,
//! the scheduler's own next run and risks. Made by `view::calendar` (server only).
use super::TimePoint;
use serde::{Deserialize, Serialize};

/// A day or a week (Monday to Sunday).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CalSpan {
    Day,
    Week,
}

impl CalSpan {
    pub fn key(self) -> &'static str {
        match self {
            CalSpan::Day => "day",
            CalSpan::Week => "week",
        }
    }
    pub fn days(self) -> i64 {
        match self {
            CalSpan::Day => 1,
            CalSpan::Week => 7,
        }
    }
    /// `span` of the URL; absent or empty: a day. Anything else is an error naming it.
    pub fn parse(raw: Option<&str>) -> Result<CalSpan, crate::ApiError> {
        match raw.map(str::trim).unwrap_or("") {
            "" | "day" => Ok(CalSpan::Day),
            "week" => Ok(CalSpan::Week),
            other => Err(crate::ApiError::BadRequest(format!("span must be \"day\" or \"week\" (got {other:?})"))),
        }
    }
}

/// `at` of the URL: a date (`2026-11-22`); absent or empty: `today`.
pub fn parse_date(raw: Option<&str>, today: chrono::NaiveDate) -> Result<chrono::NaiveDate, crate::ApiError> {
    match raw.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(today),
        Some(s) => chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .map_err(|_| crate::ApiError::BadRequest(format!("at must be a date such as 2026-11-22 (got {s:?})"))),
    }
}

/// The calendar's URL: `/calendar?span=…&at=…&instance=…`.
pub fn calendar_href(span: CalSpan, at: chrono::NaiveDate, instance: Option<&str>) -> String {
    format!("/calendar?span={}&at={}{}", span.key(), at.format("%Y-%m-%d"), crate::links::instance_query(instance))
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CalendarData {
    /// `day` or `week`.
    pub span: String,
    /// The first day shown (`2026-11-23`), and what the heading says of the span.
    pub first: String,
    pub title: String,
    /// The one instance shown, or `None`: the fleet.
    pub instance: Option<String>,
    /// Every instance, for the picker.
    pub instances: Vec<String>,
    /// The zone the days and hours are in (the instance's; the fleet's when all share one;
    /// else UTC).
    pub zone: String,
    pub now: TimePoint,
    /// Links: the span before, after, the one holding today, the other span at the same date.
    pub prev_href: String,
    pub next_href: String,
    pub today_href: String,
    pub day_href: String,
    pub week_href: String,
    pub days: Vec<CalDay>,
    pub maintenance: Vec<CalMaintenance>,
    pub dst: Vec<CalDst>,
    /// Where the scheduler's own next run differs from Sundial's.
    pub differs: Vec<CalNextRun>,
    /// How many jobs' next run the scheduler reported and agreed on.
    pub agrees: usize,
    /// Risks ahead (filled by the server's risks, drawn as markers in their hour).
    pub risks: Vec<CalRisk>,
    /// Why some of the span is empty: an instance not read, a span past the forecast.
    pub notes: Vec<String>,
    pub runs: usize,
    pub expected: usize,
    pub bad: usize,
    /// The most runs going at once anywhere in the span.
    pub peak: u32,
}

/// One day: its hours (23 or 25 on a DST day).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CalDay {
    /// `2026-11-23`
    pub date: String,
    /// `Mon 23 Nov`
    pub label: String,
    pub today: bool,
    pub hours: Vec<CalHour>,
    /// Entries in the day.
    pub count: usize,
}

/// One hour of a day.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CalHour {
    pub start: TimePoint,
    /// `14:00` (with the offset on a DST day's repeated hour).
    pub label: String,
    /// The most runs going at once in this hour (runs ahead: at their usual length).
    pub peak: u32,
    /// "Now" falls in this hour: where, and how many entries come before it.
    pub now: Option<usize>,
    /// The hour is ahead of now (all of it).
    pub ahead: bool,
    /// Maintenance windows over this hour: their names.
    pub maintenance: Vec<String>,
    /// A DST change inside this hour: what it does.
    pub dst: Option<String>,
    pub entries: Vec<CalEntry>,
    /// Entries not listed (the hour holds too many): how many.
    pub more: usize,
    /// The instance timeline over this hour (one instance shown), for the entries not listed.
    pub more_href: Option<String>,
    pub risks: Vec<CalRisk>,
}

/// One job's runs (or expected runs) in one hour.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CalEntry {
    pub instance: String,
    pub job_id: String,
    pub job: String,
    /// The first of them, or the worst when some went wrong.
    pub at: TimePoint,
    /// `run` (past), `expected` (ahead of now) or `reported` (only the scheduler expects it).
    pub kind: String,
    /// The CSS class: `o-succeeded`, `o-failed`, … (runs, as the job chart), `cal-mk-missed`, …
    /// (due runs without one), `expected`.
    pub class: String,
    /// `Succeeded`, `Missed`, `Expected`, …
    pub label: String,
    /// How many of them in the hour.
    pub count: usize,
    /// The job's page at `at`.
    pub href: String,
    /// Everything in words (the tooltip and the accessible name).
    pub title: String,
    /// What the scheduler's own next-run column says of this expected run.
    pub reported: Option<String>,
}

/// A maintenance window over the span.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CalMaintenance {
    pub instance: String,
    pub label: String,
    pub start: TimePoint,
    pub end: TimePoint,
    /// `past`, `now` or `planned`.
    pub state: String,
    pub jobs: Vec<String>,
}

/// A change of an instance zone's offset inside the span.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CalDst {
    pub zone: String,
    pub instances: Vec<String>,
    pub at: TimePoint,
    /// "Clocks go forward 1 h at 02:00 (Europe/Berlin): 02:00 to 02:59 does not exist"
    pub text: String,
}

/// A job whose scheduler reports a next run Sundial does not expect.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CalNextRun {
    pub instance: String,
    pub job_id: String,
    pub job: String,
    /// The column (`next_scheduled_run_date`, `jobnextrun`, `NextRunOn`).
    pub column: String,
    pub reported: TimePoint,
    pub ours: Option<TimePoint>,
    pub text: String,
    pub href: String,
}

/// A risk ahead, drawn as a marker in its hour.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CalRisk {
    pub instance: String,
    pub job_id: String,
    /// The risk's kind key (`dst_gap`, `collides`, …).
    pub kind: String,
    pub at: TimePoint,
    pub explanation: String,
}

/// What comes after now on a job's page or an instance's timeline: the next runs expected and
/// the maintenance windows planned (or open) ahead.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ahead {
    pub runs: Vec<AheadRun>,
    pub windows: Vec<CalMaintenance>,
}

/// One expected run ahead of now.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AheadRun {
    pub job_id: String,
    pub job: String,
    pub at: TimePoint,
    /// The job's page at that moment.
    pub href: String,
    /// "in 3 h 20 min"
    pub after: String,
}
