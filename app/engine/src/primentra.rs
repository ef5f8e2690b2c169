//! Seed 004: Primentra's staging scheduler (`SchedulerConfigurations`), forecast, plus the
//! trigger-mode dry run that its test button (`usp_Scheduler_TestRun`) answers.
//!
//! # Scheduled mode
//!
//! A SQL Agent job calls the dispatcher every 60 seconds; it fires an entity whose
//! `NextScheduledRun` has passed and then computes the next one (`usp_Scheduler_CalculateNextRun`):
//!
//! - **interval**: `IntervalMinutes` after the last run, or after *now* when it never ran.
//!   Both are arguments here (`last_run`, `now` — not columns, not the clock). Each next run
//!   counts from the previous one, so the forecast is `(last_run or now) + k × IntervalMinutes`,
//!   k ≥ 1, in absolute time, from the anchor as the table holds it: a fractional second is
//!   kept (`DATEADD(MINUTE, …)` on a DATETIME2 keeps it), so every expected run follows the
//!   fire exactly.
//!   Before the last run, the runs are chained from each fire the `fired` argument lists (the
//!   log's): after each, the next is due an interval later and, while none came, every
//!   interval after that; a fire where the chain expected it is that expected run.
//! - **daily**: every `RunTimes` (CSV of `HH:mm`) every day.
//! - **weekly**: `RunDays` (`Mon,Tue,…`; full names accepted) × `RunTimes`.
//! - **monthly**: `RunDaysOfMonth` (`1,15,…`) × `RunTimes`; a day the month lacks is skipped
//!   (the procedure scans 32 days for a match; it never moves day 31 to the 30th).
//!
//! Times are wall-clock times in `tz` (the article's columns are `SYSUTCDATETIME()`: pass UTC).
//! The forecast gives the nominal times; the real fire is at the first dispatcher cycle at or
//! after them (up to 60 s later).
//!
//! `ProcessingMode` manual: never scheduled (Info). triggered: data-driven, no time forecast
//! (Info; see [`dry_run`]). `IsEnabled` 0: the dispatcher skips the entity (Info).
//!
//! # The dry run
//!
//! [`dry_run`] answers what the test button answers, checking in the dispatcher's order:
//! enabled and not manual; the overlap guard (`IsRunning`, with the 30-minute zombie release:
//! a batch started *more* than 30 minutes ago is released and evaluation goes on; a running
//! batch with no `RunStartedAt` is never released, since `NULL < …` is not true); then, for
//! scheduled mode, whether `NextScheduledRun` has passed; for triggered mode, in priority order:
//! row threshold (`PendingRows >= TriggerRowThreshold`), idle (`PendingRows > 0 AND
//! OldestRowAge >= TriggerIdleMinutes`), new rows (`TriggerOnNewRows AND PendingRows > 0`
//! and `TriggerDebounceSeconds` elapsed since `LastTriggerCheck`; no check yet counts as
//! elapsed). Ages are `DATEDIFF` counts: minute (second) boundaries crossed.
use super::dialect::{Clock, Until, cadence, collect, flag_field, fmt_ts, int_field, loose, timestamp_field};
use super::service_broker::{DayWalk, Days, csv_numbers, never_fires};
use super::{Diagnostic, Forecast, Occurrence, ScheduleId, Severity, Window, Zone};
use chrono::{DateTime, NaiveDateTime, NaiveTime, TimeDelta, Timelike, Utc};
use serde::{Deserialize, Serialize};

/// One `SchedulerConfigurations` row, plus the two arguments an interval schedule needs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SchedulerConfiguration {
    #[serde(rename = "EntityId", alias = "entity_id", deserialize_with = "loose")]
    pub entity_id: Option<String>,
    /// manual | scheduled | triggered (absent: manual, the column's default).
    #[serde(rename = "ProcessingMode", alias = "processing_mode", deserialize_with = "loose")]
    pub processing_mode: Option<String>,
    /// interval | daily | weekly | monthly.
    #[serde(rename = "ScheduleType", alias = "schedule_type", deserialize_with = "loose")]
    pub schedule_type: Option<String>,
    #[serde(rename = "IntervalMinutes", alias = "interval_minutes", deserialize_with = "loose")]
    pub interval_minutes: Option<String>,
    /// CSV of HH:mm.
    #[serde(rename = "RunTimes", alias = "run_times", deserialize_with = "loose")]
    pub run_times: Option<String>,
    /// CSV of Mon,Tue,….
    #[serde(rename = "RunDays", alias = "run_days", deserialize_with = "loose")]
    pub run_days: Option<String>,
    /// CSV of 1..31.
    #[serde(rename = "RunDaysOfMonth", alias = "run_days_of_month", deserialize_with = "loose")]
    pub run_days_of_month: Option<String>,
    #[serde(rename = "TriggerOnNewRows", alias = "trigger_on_new_rows", deserialize_with = "loose")]
    pub trigger_on_new_rows: Option<String>,
    #[serde(rename = "TriggerRowThreshold", alias = "trigger_row_threshold", deserialize_with = "loose")]
    pub trigger_row_threshold: Option<String>,
    #[serde(rename = "TriggerIdleMinutes", alias = "trigger_idle_minutes", deserialize_with = "loose")]
    pub trigger_idle_minutes: Option<String>,
    /// Default 60.
    #[serde(rename = "TriggerDebounceSeconds", alias = "trigger_debounce_seconds", deserialize_with = "loose")]
    pub trigger_debounce_seconds: Option<String>,
    #[serde(rename = "IsRunning", alias = "is_running", deserialize_with = "loose")]
    pub is_running: Option<String>,
    #[serde(rename = "RunStartedAt", alias = "run_started_at", deserialize_with = "loose")]
    pub run_started_at: Option<String>,
    #[serde(rename = "NextScheduledRun", alias = "next_scheduled_run", deserialize_with = "loose")]
    pub next_scheduled_run: Option<String>,
    #[serde(rename = "LastCompletedAt", alias = "last_completed_at", deserialize_with = "loose")]
    pub last_completed_at: Option<String>,
    #[serde(rename = "LastTriggerCheck", alias = "last_trigger_check", deserialize_with = "loose")]
    pub last_trigger_check: Option<String>,
    /// Default 1.
    #[serde(rename = "IsEnabled", alias = "is_enabled", deserialize_with = "loose")]
    pub is_enabled: Option<String>,
    /// Argument (not a column): the last run, from which an interval schedule counts.
    #[serde(deserialize_with = "loose")]
    pub last_run: Option<String>,
    /// Argument (not a column): "now", from which an interval schedule that never ran counts.
    #[serde(deserialize_with = "loose")]
    pub now: Option<String>,
    /// Argument (not a column): when the schedule fired (the log's `fired` rows the schedule
    /// started), in any order. `CalculateNextRun` counts an interval schedule's next run from
    /// each run, so the expected runs are chained from each of them (see [`forecast`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fired: Vec<String>,
}

#[derive(Clone, Debug)]
enum Plan {
    /// `anchors`: the fires (and the last run, or now) the chain counts from, sorted, each
    /// once; `first_stands`: the first is a fire the log holds, an expected run itself.
    Interval {
        anchors: Vec<NaiveDateTime>,
        minutes: i64,
        first_stands: bool,
    },
    Calendar {
        days: Days,
        times: Vec<u32>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Manual,
    Scheduled,
    Triggered,
}

fn mode(c: &SchedulerConfiguration, diags: &mut Vec<Diagnostic>) -> Option<Mode> {
    match c.processing_mode.as_deref().map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        None | Some("") | Some("manual") => Some(Mode::Manual),
        Some("scheduled") => Some(Mode::Scheduled),
        Some("triggered") => Some(Mode::Triggered),
        Some(other) => {
            diags.push(Diagnostic::error("ProcessingMode", other, "must be manual, scheduled or triggered"));
            None
        }
    }
}

/// `HH:mm` (or `H:mm`, `HH:mm:ss`) as seconds after midnight.
fn run_times(v: &str, diags: &mut Vec<Diagnostic>) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for part in v.split(',') {
        let p = part.trim();
        let t = NaiveTime::parse_from_str(p, "%H:%M").or_else(|_| NaiveTime::parse_from_str(p, "%H:%M:%S"));
        match t {
            Ok(t) => out.push(t.num_seconds_from_midnight()),
            Err(_) => {
                diags.push(Diagnostic::error("RunTimes", v.trim(), format!("'{p}' is not a time like 06:00 (HH:mm)")));
                return None;
            }
        }
    }
    super::order::sort_by_key(&mut out, |&s| [i64::from(s), 0, 0, 0, 0, 0, 0, 0]);
    out.dedup();
    Some(out)
}

const DAY_NAMES: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

fn run_days(v: &str, diags: &mut Vec<Diagnostic>) -> Option<u8> {
    let mut mask = 0u8;
    for part in v.split(',') {
        let p = part.trim().to_ascii_lowercase();
        match DAY_NAMES.iter().position(|d| p.len() >= 3 && d.starts_with(&p)) {
            Some(i) => mask |= 1 << i,
            None => {
                diags.push(Diagnostic::error(
                    "RunDays",
                    v.trim(),
                    format!("'{}' is not a weekday like Mon", part.trim()),
                ));
                return None;
            }
        }
    }
    Some(mask)
}

fn blank(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty() && !s.eq_ignore_ascii_case("null"))
}

/// The checked configuration: its plan (or `None` when it cannot or need not be forecast) and
/// everything found along the way.
fn analyze(c: &SchedulerConfiguration) -> (Option<Plan>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let enabled = flag_field("IsEnabled", &c.is_enabled, &mut diags).ok().flatten().unwrap_or(true);
    let m = mode(c, &mut diags);
    if !enabled {
        diags.push(Diagnostic::new(
            Severity::Info,
            Some("IsEnabled"),
            Some("0".into()),
            "the dispatcher skips disabled entities: there is no forecast",
        ));
    }
    if !scheduled(m, &mut diags) {
        return (None, diags);
    }
    let plan = match blank(&c.schedule_type).map(str::to_ascii_lowercase).as_deref() {
        None => {
            diags.push(Diagnostic::new(
                Severity::Error,
                Some("ScheduleType"),
                None,
                "ScheduleType is required when ProcessingMode is scheduled",
            ));
            None
        }
        Some("interval") => interval_plan(c, &mut diags),
        Some(k @ ("daily" | "weekly" | "monthly")) => calendar_plan(c, k, &mut diags),
        Some(other) => {
            diags.push(Diagnostic::error("ScheduleType", other, "must be interval, daily, weekly or monthly"));
            None
        }
    };
    if diags.iter().any(|d| d.severity == Severity::Error) || !enabled {
        return (None, diags);
    }
    (plan, diags)
}

/// True in scheduled mode; otherwise says why there is no time forecast (an unreadable mode
/// has already said so).
fn scheduled(m: Option<Mode>, diags: &mut Vec<Diagnostic>) -> bool {
    match m {
        Some(Mode::Manual) => {
            diags.push(Diagnostic::new(
                Severity::Info,
                Some("ProcessingMode"),
                Some("manual".into()),
                "manual mode: the dispatcher ignores this entity, it runs only when someone clicks Process",
            ));
            false
        }
        Some(Mode::Triggered) => {
            diags.push(Diagnostic::new(
                Severity::Info,
                Some("ProcessingMode"),
                Some("triggered".into()),
                "triggered mode fires on data (row threshold, idle rows, new rows): there is no time forecast; see the dry run",
            ));
            false
        }
        None => false,
        Some(Mode::Scheduled) => true,
    }
}

/// An interval schedule: `IntervalMinutes` counted from each fire and the last run, or from
/// now when it never ran.
fn interval_plan(c: &SchedulerConfiguration, diags: &mut Vec<Diagnostic>) -> Option<Plan> {
    let minutes = interval_minutes(c, diags);
    let mut anchors = fired_times(c, diags);
    let first_stands = !anchors.is_empty();
    let last = if first_stands {
        timestamp_field("last_run", &c.last_run, diags).ok().flatten()
    } else {
        interval_anchor(c, diags)
    };
    anchors.extend(last);
    super::order::sort_by_key(&mut anchors, |a| super::order::by_instant(a.and_utc()));
    anchors.dedup();
    match minutes {
        Some(minutes) if !anchors.is_empty() => Some(Plan::Interval { anchors, minutes, first_stands }),
        _ => None,
    }
}

/// The `fired` argument's times; one that is not a timestamp is left out, with a warning.
fn fired_times(c: &SchedulerConfiguration, diags: &mut Vec<Diagnostic>) -> Vec<NaiveDateTime> {
    let mut out = Vec::with_capacity(c.fired.len());
    for f in &c.fired {
        let mut d = Vec::new();
        match timestamp_field("fired", &Some(f.clone()), &mut d) {
            Ok(Some(t)) => out.push(t),
            Ok(None) => {}
            Err(()) => diags.push(Diagnostic::warning(
                "fired",
                f.trim(),
                "not a timestamp like 2026-11-22 09:00:00: left out of the chain of runs",
            )),
        }
    }
    out
}

/// `IntervalMinutes`, required and at least 1.
fn interval_minutes(c: &SchedulerConfiguration, diags: &mut Vec<Diagnostic>) -> Option<i64> {
    match int_field("IntervalMinutes", &c.interval_minutes, diags) {
        Ok(Some(n)) if n >= 1 => Some(n),
        Ok(Some(n)) => {
            diags.push(Diagnostic::error("IntervalMinutes", n, "must be at least 1"));
            None
        }
        Ok(None) => {
            diags.push(Diagnostic::new(
                Severity::Error,
                Some("IntervalMinutes"),
                None,
                "an interval schedule needs IntervalMinutes",
            ));
            None
        }
        Err(()) => None,
    }
}

/// Where an interval counts from: the `last_run` argument, else `now` (never run).
fn interval_anchor(c: &SchedulerConfiguration, diags: &mut Vec<Diagnostic>) -> Option<NaiveDateTime> {
    let last = timestamp_field("last_run", &c.last_run, diags);
    let now = timestamp_field("now", &c.now, diags);
    match (last, now) {
        (Ok(Some(l)), _) => Some(l),
        (Ok(None), Ok(Some(n))) => {
            diags.push(Diagnostic::info(format!("never run: the interval counts from now ({})", fmt_ts(n))));
            Some(n)
        }
        (Ok(None), Ok(None)) => {
            diags.push(Diagnostic::new(
                Severity::Error,
                Some("last_run"),
                None,
                "an interval schedule counts from the last run, or from now if it never ran: give last_run or now",
            ));
            None
        }
        _ => None,
    }
}

/// A daily, weekly or monthly (`kind`) schedule: its days × `RunTimes`.
fn calendar_plan(c: &SchedulerConfiguration, kind: &str, diags: &mut Vec<Diagnostic>) -> Option<Plan> {
    let times = match required_run_times(c) {
        Ok(t) => Some(t),
        Err(d) => {
            diags.push(d);
            None
        }
    };
    let days = calendar_days(c, kind, diags);
    match (days, times) {
        (Some(days), Some(times)) => Some(Plan::Calendar { days, times }),
        _ => None,
    }
}

/// `RunTimes`, which every calendar schedule needs; the first problem as the Err.
fn required_run_times(c: &SchedulerConfiguration) -> Result<Vec<u32>, Diagnostic> {
    match blank(&c.run_times) {
        None => Err(Diagnostic::new(
            Severity::Error,
            Some("RunTimes"),
            None,
            "daily, weekly and monthly schedules need RunTimes (HH:mm,…)",
        )),
        Some(v) => {
            let mut d = Vec::new();
            run_times(v, &mut d).ok_or_else(|| d.remove(0))
        }
    }
}

/// The days a calendar schedule of `kind` runs on: every day, `RunDays` or `RunDaysOfMonth`.
fn calendar_days(c: &SchedulerConfiguration, kind: &str, diags: &mut Vec<Diagnostic>) -> Option<Days> {
    match kind {
        "daily" => Some(Days::All),
        "weekly" => match blank(&c.run_days) {
            None => {
                diags.push(Diagnostic::new(
                    Severity::Error,
                    Some("RunDays"),
                    None,
                    "a weekly schedule needs RunDays (Mon,Tue,…)",
                ));
                None
            }
            Some(v) => run_days(v, diags).map(|mask| Days::Weekly { every: 1, mask }),
        },
        _ => match blank(&c.run_days_of_month) {
            None => {
                diags.push(Diagnostic::new(
                    Severity::Error,
                    Some("RunDaysOfMonth"),
                    None,
                    "a monthly schedule needs RunDaysOfMonth (1,15,…)",
                ));
                None
            }
            Some(v) => csv_numbers("RunDaysOfMonth", v, 1, 31, "a day of month", diags)
                .map(|ds| Days::MonthDays { every: 1, mask: ds.iter().fold(0u32, |m, d| m | (1 << d)) }),
        },
    }
}

fn run(id: ScheduleId, c: &SchedulerConfiguration, tz: Zone, until: Until) -> Forecast {
    let (plan, mut diagnostics) = analyze(c);
    let Some(plan) = plan else {
        return Forecast { occurrences: Vec::new(), diagnostics };
    };
    let zone = Clock::Zone(tz);
    let occurrences = match plan {
        Plan::Interval { anchors, minutes, first_stands } => {
            // `CalculateNextRun` adds the minutes to the last run as the table holds it
            // (DATETIME2: 100 ns): a fire at 08:50:12.5 is next due at 09:05:12.5, exactly.
            let mut fires: Vec<DateTime<Utc>> = anchors.iter().map(|&a| zone.resolve(a).0).collect();
            fires.dedup();
            chain(id, zone, &fires, minutes.saturating_mul(60), first_stands, &until, &mut diagnostics)
        }
        Plan::Calendar { days, times } => {
            let from = until.from(zone);
            let anchor = from.date();
            let mut walk = DayWalk::new(days, anchor, times, NaiveDateTime::MIN, from);
            let occ = collect(id, zone, walk.by_ref(), &until, &mut diagnostics);
            if walk.gave_up && occ.is_empty() {
                diagnostics.push(never_fires("RunDaysOfMonth", c.run_days_of_month.as_deref().unwrap_or("")));
            }
            occ
        }
    };
    Forecast { occurrences, diagnostics }
}

/// A fire up to this many seconds before the time the chain first expected it still is that
/// expected run (reconcile's clock-skew tolerance for early starts).
const EARLY_SECS: i64 = 5;

/// An interval schedule's expected runs, chained from each fire as `CalculateNextRun` counts
/// them: after fire `f` the next run is due at `f + step`, and while no fire came, each
/// `step` after that (every one a run the schedule should have made); the next fire ends the
/// segment (it is the run of the last expected time at or before it, or of the first one when
/// it came up to `EARLY_SECS` before that) and starts the next. After
/// the last fire the chain runs on. With `first_stands`, the first fire (the oldest the log
/// holds: nothing says when it was due) is an expected run itself.
fn chain(
    id: ScheduleId,
    zone: Clock,
    fires: &[DateTime<Utc>],
    step: i64,
    first_stands: bool,
    until: &Until,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Occurrence> {
    let mut out: Vec<Occurrence> = Vec::new();
    let Some(delta) = TimeDelta::try_seconds(step) else { return out };
    if first_stands
        && let Some(&f) = fires.first()
        && match until {
            Until::Window(w) => w.contains(f),
            Until::After(a, n) => f > *a && *n > 0,
        }
    {
        let local = zone.to_local(f);
        out.push(Occurrence { at: f, local, nominal: local, dst: None, schedule: id });
    }
    for (i, &fire) in fires.iter().enumerate() {
        let rest = match until {
            Until::Window(w) => Until::Window(*w),
            Until::After(_, n) if out.len() >= *n => break,
            Until::After(a, n) => Until::After(*a, n - out.len()),
        };
        let Some(first) = fire.checked_add_signed(delta) else { break };
        // The next fire is the run of the last expected time at or before it (the dispatcher
        // fires when that time has passed, never before), or of the first one when it came a
        // few seconds before that.
        let next =
            fires.get(i + 1).map(|&n| if n < first && n + TimeDelta::seconds(EARLY_SECS) >= first { first } else { n });
        // Segments wholly before what is asked give nothing: skip them without a walk.
        let from = match until {
            Until::Window(w) => w.start,
            Until::After(a, _) => *a,
        };
        if next.is_some_and(|n| n < from) {
            continue;
        }
        if let Until::Window(w) = until
            && first >= w.end
        {
            break;
        }
        out.extend(cadence(id, zone, fire, step, Some(first), next, &rest, diags));
    }
    out
}

/// Every scheduled run inside `window` (wall-clock times in `tz`). An interval schedule's runs
/// are chained from each fire in its `fired` argument and its last run (see [`chain`]).
pub fn forecast(id: ScheduleId, c: &SchedulerConfiguration, tz: Zone, window: Window) -> Forecast {
    run(id, c, tz, Until::Window(window))
}

/// The first `count` scheduled runs strictly after `after`.
pub fn next_after(
    id: ScheduleId,
    c: &SchedulerConfiguration,
    tz: Zone,
    after: DateTime<Utc>,
    count: usize,
) -> Forecast {
    run(id, c, tz, Until::After(after, count))
}

pub fn validate(c: &SchedulerConfiguration) -> Vec<Diagnostic> {
    analyze(c).1
}

/// "Every 15 minutes from the last run", "Daily at 06:00, 18:00", "Weekly on Mon, Fri at
/// 06:00", "Monthly on day 1, 15 at 02:00", "Manual", "Triggered: …".
pub fn describe(c: &SchedulerConfiguration) -> String {
    let mut d = Vec::new();
    let s = match mode(c, &mut d) {
        None => format!("Unknown ProcessingMode '{}'", c.processing_mode.as_deref().unwrap_or("")),
        Some(Mode::Manual) => "Manual: runs only when someone clicks Process".to_owned(),
        Some(Mode::Triggered) => {
            let mut parts = Vec::new();
            if let Some(t) = blank(&c.trigger_row_threshold) {
                parts.push(format!("{t} pending rows"));
            }
            if let Some(t) = blank(&c.trigger_idle_minutes) {
                parts.push(format!("rows waiting {t} minutes"));
            }
            if matches!(flag_field("TriggerOnNewRows", &c.trigger_on_new_rows, &mut d), Ok(Some(true))) {
                parts.push(format!("new rows (debounce {} s)", blank(&c.trigger_debounce_seconds).unwrap_or("60")));
            }
            if parts.is_empty() {
                "Triggered, with no trigger configured".to_owned()
            } else {
                format!("Triggered on {}", parts.join(", or "))
            }
        }
        Some(Mode::Scheduled) => {
            let times = blank(&c.run_times).map(|t| t.split(',').map(str::trim).collect::<Vec<_>>().join(", "));
            let at = times.map(|t| format!(" at {t}")).unwrap_or_else(|| " (no RunTimes)".to_owned());
            match blank(&c.schedule_type).map(str::to_ascii_lowercase).as_deref() {
                Some("interval") => match blank(&c.interval_minutes) {
                    Some("1") => "Every minute from the last run".to_owned(),
                    Some(n) => format!("Every {n} minutes from the last run"),
                    None => "Every (no IntervalMinutes) minutes".to_owned(),
                },
                Some("daily") => format!("Daily{at}"),
                Some("weekly") => format!("Weekly on {}{at}", blank(&c.run_days).unwrap_or("(no RunDays)")),
                Some("monthly") => {
                    format!("Monthly on day {}{at}", blank(&c.run_days_of_month).unwrap_or("(no RunDaysOfMonth)"))
                }
                Some(other) => format!("Unknown ScheduleType '{other}'"),
                None => "Scheduled, with no ScheduleType".to_owned(),
            }
        }
    };
    if matches!(flag_field("IsEnabled", &c.is_enabled, &mut d), Ok(Some(false))) {
        format!("{s} (disabled)")
    } else {
        s
    }
}

// ---------------------------------------------------------------------------------------------
// The dry run.
// ---------------------------------------------------------------------------------------------

/// The queue's state at the moment of the dry run (what the dispatcher measures).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct QueueState {
    /// Rows with `ImportStatus = 0`.
    #[serde(alias = "PendingRows", deserialize_with = "loose")]
    pub pending_rows: Option<String>,
    /// `DATEDIFF(MINUTE, MIN(CreatedAt), now)`; 0 when there are no rows.
    #[serde(alias = "OldestRowAge", alias = "oldest_row_age", deserialize_with = "loose")]
    pub oldest_row_age_minutes: Option<String>,
    /// Alternatively the oldest pending row's `CreatedAt` (the age is then computed).
    #[serde(alias = "OldestRowCreatedAt", deserialize_with = "loose")]
    pub oldest_row_created_at: Option<String>,
    /// Overrides the configuration's `LastTriggerCheck` when given.
    #[serde(alias = "LastTriggerCheck", deserialize_with = "loose")]
    pub last_trigger_check: Option<String>,
}

/// What the test button answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DryRun {
    pub would_fire: bool,
    /// Human-readable, as `usp_Scheduler_TestRun`'s `Reason`.
    pub reason: String,
    /// What fired: "Schedule", "Trigger: 1200 rows (threshold 1000)", …
    pub trigger_source: Option<String>,
    pub pending_rows: i64,
    pub oldest_row_age: i64,
    /// Set when the overlap guard would release a zombie batch first.
    pub zombie_released: bool,
}

/// 1200 → "1,200".
fn thousands(n: i64) -> String {
    let s = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// `DATEDIFF(unit, a, b)`: unit boundaries crossed from `a` to `b`.
fn datediff(a: NaiveDateTime, b: NaiveDateTime, unit_secs: i64) -> i64 {
    b.and_utc().timestamp().div_euclid(unit_secs) - a.and_utc().timestamp().div_euclid(unit_secs)
}

/// Simulate one dispatcher cycle for one entity at `now` (UTC wall clock, like
/// `SYSUTCDATETIME()`), never firing anything. An Err names the field and value at fault.
pub fn dry_run(c: &SchedulerConfiguration, q: &QueueState, now: NaiveDateTime) -> Result<DryRun, Diagnostic> {
    let i = DryRunInputs::read(c, q, now)?;
    let mut out = DryRun {
        would_fire: false,
        reason: String::new(),
        trigger_source: None,
        pending_rows: i.pending,
        oldest_row_age: i.age,
        zombie_released: false,
    };
    if let Some(why) = skipped(&i) {
        out.reason = why;
        return Ok(out);
    }
    let prefix = match overlap_guard(i.running, i.started, now) {
        Guard::Free => String::new(),
        Guard::Released(s) => {
            out.zombie_released = true;
            format!("Zombie batch released (running since {}, over 30 minutes). ", fmt_ts(s))
        }
        Guard::Blocked(why) => {
            out.reason = why;
            return Ok(out);
        }
    };
    let decision = if i.mode == Some(Mode::Scheduled) { schedule_due(i.next, now) } else { triggered(&i, now) };
    match decision {
        Decision::Fire { why, source } => {
            out.would_fire = true;
            out.reason = format!("{prefix}{why}");
            out.trigger_source = Some(source);
        }
        Decision::Wait(why) => out.reason = format!("{prefix}{why}"),
    }
    Ok(out)
}

/// What the dry run reads from the configuration and the queue, checked.
struct DryRunInputs {
    mode: Option<Mode>,
    enabled: bool,
    running: bool,
    started: Option<NaiveDateTime>,
    pending: i64,
    /// The oldest pending row's age, minutes.
    age: i64,
    threshold: Option<i64>,
    idle: Option<i64>,
    on_new: bool,
    debounce: i64,
    /// The last trigger check: the queue's, else the configuration's.
    check: Option<NaiveDateTime>,
    next: Option<NaiveDateTime>,
}

impl DryRunInputs {
    /// Every column the dispatcher looks at; the first unreadable one (in this order) is the Err.
    fn read(c: &SchedulerConfiguration, q: &QueueState, now: NaiveDateTime) -> Result<Self, Diagnostic> {
        let mut d = Vec::new();
        let mode = mode(c, &mut d);
        let enabled = flag_field("IsEnabled", &c.is_enabled, &mut d).ok().flatten().unwrap_or(true);
        let running = flag_field("IsRunning", &c.is_running, &mut d).ok().flatten().unwrap_or(false);
        let started = timestamp_field("RunStartedAt", &c.run_started_at, &mut d).ok().flatten();
        let pending = int_field("pending_rows", &q.pending_rows, &mut d).ok().flatten().unwrap_or(0);
        let created = timestamp_field("oldest_row_created_at", &q.oldest_row_created_at, &mut d).ok().flatten();
        let age = match int_field("oldest_row_age_minutes", &q.oldest_row_age_minutes, &mut d).ok().flatten() {
            Some(a) => a,
            None => created.map(|c| datediff(c, now, 60)).unwrap_or(0),
        };
        let threshold = int_field("TriggerRowThreshold", &c.trigger_row_threshold, &mut d).ok().flatten();
        let idle = int_field("TriggerIdleMinutes", &c.trigger_idle_minutes, &mut d).ok().flatten();
        let on_new = flag_field("TriggerOnNewRows", &c.trigger_on_new_rows, &mut d).ok().flatten().unwrap_or(false);
        let debounce =
            int_field("TriggerDebounceSeconds", &c.trigger_debounce_seconds, &mut d).ok().flatten().unwrap_or(60);
        let check = match blank(&q.last_trigger_check) {
            Some(_) => timestamp_field("last_trigger_check", &q.last_trigger_check, &mut d).ok().flatten(),
            None => timestamp_field("LastTriggerCheck", &c.last_trigger_check, &mut d).ok().flatten(),
        };
        let next = timestamp_field("NextScheduledRun", &c.next_scheduled_run, &mut d).ok().flatten();
        if pending < 0 {
            d.push(Diagnostic::error("pending_rows", pending, "must not be negative"));
        }
        if let Some(e) = d.iter().find(|x| x.severity == Severity::Error) {
            return Err(e.clone());
        }
        Ok(DryRunInputs {
            mode,
            enabled,
            running,
            started,
            pending,
            age,
            threshold,
            idle,
            on_new,
            debounce,
            check,
            next,
        })
    }
}

/// Why the dispatcher does not look at the entity at all (disabled, manual), if it does not.
fn skipped(i: &DryRunInputs) -> Option<String> {
    if !i.enabled {
        return Some("Entity is disabled (IsEnabled = 0): the dispatcher skips it.".into());
    }
    if i.mode.unwrap_or(Mode::Manual) == Mode::Manual {
        return Some("Manual mode: the dispatcher ignores this entity.".into());
    }
    None
}

/// What the overlap guard does.
enum Guard {
    /// No batch is running.
    Free,
    /// A batch running since then (over 30 minutes) is released as a zombie first.
    Released(NaiveDateTime),
    /// A batch is running: nothing fires (why).
    Blocked(String),
}

/// The overlap guard, with the 30-minute zombie release (never for a NULL `RunStartedAt`).
fn overlap_guard(running: bool, started: Option<NaiveDateTime>, now: NaiveDateTime) -> Guard {
    if !running {
        return Guard::Free;
    }
    match started {
        Some(s) if s < now - TimeDelta::minutes(30) => Guard::Released(s),
        Some(s) => Guard::Blocked(format!("Batch already running since {} (overlap guard).", fmt_ts(s))),
        None => Guard::Blocked(
            "Batch already running (overlap guard); RunStartedAt is NULL, so the 30-minute zombie release never frees it.".into(),
        ),
    }
}

/// The dispatcher's call past the guard (the zombie release, if any, is said before `why`).
enum Decision {
    /// It fires: why, and what fired.
    Fire { why: String, source: String },
    /// It does not: why.
    Wait(String),
}

/// Scheduled mode: fire when `NextScheduledRun` has passed.
fn schedule_due(next: Option<NaiveDateTime>, now: NaiveDateTime) -> Decision {
    match next {
        Some(n) if n <= now => Decision::Fire {
            why: format!("Scheduled run due. NextScheduledRun: {}", fmt_ts(n)),
            source: "Schedule".into(),
        },
        Some(n) => Decision::Wait(format!("Next run not due yet. NextScheduledRun: {}", fmt_ts(n))),
        None => Decision::Wait("No NextScheduledRun: the schedule has not been calculated.".into()),
    }
}

/// Triggered mode, in priority order: row threshold, idle, new rows (debounced).
fn triggered(i: &DryRunInputs, now: NaiveDateTime) -> Decision {
    let (pending, age) = (i.pending, i.age);
    if i.threshold.is_none() && i.idle.is_none() && !i.on_new {
        return Decision::Wait("No trigger configured (at least one trigger must be configured).".into());
    }
    if let Some(t) = i.threshold
        && pending >= t
    {
        return Decision::Fire {
            why: format!("Row threshold met: {} rows >= threshold {}", thousands(pending), thousands(t)),
            source: format!("Trigger: {pending} rows (threshold {t})"),
        };
    }
    if let Some(idle) = i.idle
        && pending > 0
        && age >= idle
    {
        return Decision::Fire {
            why: format!("Idle timeout met: oldest of {} rows waited {age} minutes >= {idle}", thousands(pending)),
            source: format!("Trigger: idle {age} min (timeout {idle})"),
        };
    }
    let since = i.check.map(|c| datediff(c, now, 1));
    if i.on_new && pending > 0 {
        match since {
            None => {
                return Decision::Fire {
                    why: format!("New rows: {} pending, no trigger check yet", thousands(pending)),
                    source: format!("Trigger: {pending} new rows"),
                };
            }
            Some(s) if s >= i.debounce => {
                return Decision::Fire {
                    why: format!(
                        "New rows: {} pending, {s} s since the last trigger check >= debounce {} s",
                        thousands(pending),
                        i.debounce
                    ),
                    source: format!("Trigger: {pending} new rows"),
                };
            }
            Some(_) => {}
        }
    }
    Decision::Wait(no_trigger_met(i, since))
}

/// Nothing fires in triggered mode: why, condition by condition (`since`: seconds since the
/// last trigger check).
fn no_trigger_met(i: &DryRunInputs, since: Option<i64>) -> String {
    if i.pending == 0 {
        return "No pending rows: nothing to process.".into();
    }
    let mut why = Vec::new();
    if let Some(t) = i.threshold {
        why.push(format!("{} rows < threshold {}", thousands(i.pending), thousands(t)));
    }
    if let Some(idle) = i.idle {
        why.push(format!("oldest row {} minutes < idle {idle}", i.age));
    }
    if i.on_new
        && let Some(s) = since
    {
        why.push(format!("{s} s since the last trigger check < debounce {} s", i.debounce));
    }
    format!("No trigger condition met: {}.", why.join("; "))
}
