//! The MySQL stored-procedure scheduler's `job` table (one row per job): its forecast, and the
//! cycles Sundial's samples of the row reconstruct ([`reconstruct`]).
//!
//! # How the job runner behaves (`job$run`)
//!
//! Nothing starts a runner on its own: someone calls `job$run`, which takes a lock (one runner
//! per job), refuses a job whose status is not ENABLED, writes RUNNING, `job_runner_start` and
//! clears the counters, sleeps until `job_schedule_start` when that is ahead, then loops: it
//! reads the row, stops when the current time is *after* `job_schedule_finish` (FINISHED; a
//! cycle exactly at the finish still runs) or the status is ABORTED, skips the work while
//! PAUSED, else writes RUNNING and `job_runner_last_cycle_start`, runs the procedure, counts the
//! cycle in `job_runner_cycles`, writes SLEEPING and `job_runner_last_cycle_finish`; then it
//! sleeps until the cycle's start plus `job_schedule_interval` seconds (not at all when the
//! cycle overran: the next cycle starts as the long one ends, and the cadence counts on from
//! there). A procedure that fails ends the loop: ERROR, the failed cycle's finish never
//! written. On leaving, it writes the status and `job_runner_finish`. A runner whose
//! connection dies writes nothing more: the row keeps saying RUNNING.
//!
//! # The forecast
//!
//! The runner counts each interval from the previous cycle's *actual* start, so the due times
//! follow the cycles: the forecast is a chain of cadences, each from an [`Anchor`].
//!
//! - **Before any runner Sundial knows of**: `job_schedule_start + k × interval` (absolute
//!   seconds: the runner sleeps real seconds, so a DST change moves the wall-clock times, not
//!   the spacing). `tz` is the MySQL session zone the DATETIME columns are written in.
//! - **A runner's first cycle** ([`AnchorKind::Fresh`]) is due when it starts cycling:
//!   `job_runner_start`, or `job_schedule_start` when the runner slept until then. Its cadence
//!   counts from there. Without a schedule start the cycles count from the runner's start; with
//!   neither there is no forecast (Error).
//! - **A cycle of a runner already cycling** ([`AnchorKind::Chain`]: `job_runner_last_cycle_start`)
//!   is the run of the latest due time at or before it (5 s early counts, as in
//!   reconciliation): late when a long cycle held the runner, on time otherwise. The cadence
//!   counts on from its start.
//! - **A runner that stopped** ([`AnchorKind::Stop`]): nothing is due after its last cycle
//!   until a runner starts again. The row says so by its status: ERROR (the procedure failed,
//!   or the runner's sleep was interrupted), ABORTED, FINISHED (the window ended, or the job
//!   was stopped) and PAUSED (the runner skips every cycle) keep the forecast up to the last
//!   cycle (Info); without a last cycle or a runner start to bound it there is no forecast
//!   (FINISHED: up to `job_schedule_finish`). DISABLED: `job$run` will not start it, no
//!   forecast (Info).
//! - **`job_schedule_finish`** bounds everything (inclusive).
//! - **`job_schedule_interval` 0** makes the runner loop without sleeping: Error (no time
//!   forecast); negative is not an `int unsigned`: Error.
//!
//! The row alone gives the current runner's anchors. [`JobTableRow::cycle_anchors`], filled by
//! the source from Sundial's samples ([`reconstruct`]), gives every runner's since Sundial
//! watches the table, and then replaces the row's.
//!
//! # What Sundial's samples reconstruct
//!
//! The table keeps no history, only the current runner's state. Sundial samples the row at each
//! poll ([`CycleSample`]); [`reconstruct`] reads the samples of one job, oldest first:
//!
//! - **Runners.** Samples with the same `job_runner_start` are one runner; its cycle `i`
//!   (0-based) is the `i+1`-th since it started. `job_runner_cycles` counts the cycles that
//!   succeeded; a cycle started and not finished (its finish missing or older than its start;
//!   RUNNING; ERROR) is one more. So each sample names the index of the cycle at
//!   `job_runner_last_cycle_start`, and the first cycle is at the runner's start (or the
//!   schedule's, when the runner slept until then): even the first poll sees every cycle
//!   since the runner started.
//! - **Placing cycles.** Between two cycles whose starts are known, `k` indexes apart, the
//!   counter says `k - 1` cycles ran. When the gap is `k` intervals (± 2 s and 1 s a minute:
//!   the runner's seconds), they ran on the cadence and are placed on it, succeeded (a later
//!   cycle started, and only success goes on), their finish unknown. Otherwise a cycle overran
//!   or the job was paused somewhere in between: they are not placed, and the gap is
//!   *unobserved* (a due time there without a run is unknown, not missed). One step that took
//!   longer than the interval is a long cycle when its finish (or the last poll that saw it
//!   running) reaches the next cycle: the ticks it covered were skipped because it still ran.
//! - **Outcomes.** Every cycle before a runner's last succeeded. ERROR with the last cycle
//!   unfinished: it failed, at `job_runner_finish`. The last cycle unfinished when a *new*
//!   runner started: it never finished ([`RunOutcome::Crashed`], the runner was gone; what
//!   happened between the last poll that saw it and the new runner is unobserved). Unfinished
//!   after `stuck_after` (the design has no timeout; Sundial's limit): crashed, holding the job
//!   for `stuck_after`. A runner that wrote its end without the cycle's: unknown. Otherwise it
//!   is in progress. A long cycle is as long as its finish says, or at least until the last
//!   poll that saw it running.
//! - **Samples without a counter** (written by Sundial before it kept one, or a row without a
//!   runner start) know one cycle per poll: a start, an unknown outcome, and the stretch from a
//!   poll that still saw one cycle to the next cycle unobserved.
use super::dialect::{Clock, Until, cadence, fmt_ts, int_field, loose, timestamp_field};
use super::{Diagnostic, Forecast, Run, RunOutcome, ScheduleId, Severity, Trigger, Window, Zone};
use chrono::{DateTime, NaiveDateTime, SubsecRound, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod reconstruct;
pub use reconstruct::{CycleSample, History, reconstruct};

/// One row of the `job` table (columns Sundial reads; others are ignored), as text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct JobTableRow {
    #[serde(deserialize_with = "loose")]
    pub job_id: Option<String>,
    #[serde(deserialize_with = "loose")]
    pub job_owner: Option<String>,
    #[serde(deserialize_with = "loose")]
    pub job_name: Option<String>,
    #[serde(deserialize_with = "loose")]
    pub job_schedule_start: Option<String>,
    #[serde(deserialize_with = "loose")]
    pub job_schedule_finish: Option<String>,
    /// Seconds between cycle starts.
    #[serde(deserialize_with = "loose")]
    pub job_schedule_interval: Option<String>,
    /// ABORTED DISABLED ENABLED ERROR FINISHED PAUSED RESUMED RUNNING SLEEPING (absent: ENABLED).
    #[serde(deserialize_with = "loose")]
    pub job_status: Option<String>,
    #[serde(deserialize_with = "loose")]
    pub job_runner_start: Option<String>,
    #[serde(deserialize_with = "loose")]
    pub job_runner_last_cycle_start: Option<String>,
    /// Not a column: where the cadence re-anchored, as Sundial's samples show it
    /// ([`reconstruct`]), oldest first. Empty when only the row is known (the simulator, the
    /// CLI): the row's own runner then gives them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cycle_anchors: Vec<Anchor>,
}

/// What an [`Anchor`] does to the cadence (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnchorKind {
    /// A cycle due at its own start: a runner's first, or the first after a stretch Sundial
    /// could not follow. The cadence counts from it.
    Fresh,
    /// A cycle of a runner already cycling: the run of the latest due time at or before it.
    /// The cadence counts from it.
    Chain,
    /// A runner's last cycle: nothing is due after it until the next `Fresh` or `Chain`.
    Stop,
}

/// One point where the cadence changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anchor {
    pub at: DateTime<Utc>,
    pub kind: AnchorKind,
    /// The interval in force from here (seconds); `None`: the row's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<i64>,
}

/// How far after a due time a cycle may start and still be taken as on its cadence when
/// anchors are thinned, and how early a cycle may start and still be the run of a due time
/// (reconciliation's early-start tolerance).
const SLACK_SECS: i64 = 5;

#[derive(Clone, Debug)]
struct Plan {
    /// The schedule's own cadence, before the first anchor: `job_schedule_start + k × interval`.
    nominal: Option<DateTime<Utc>>,
    finish: Option<DateTime<Utc>>,
    interval: i64,
    anchors: Vec<Anchor>,
}

/// What the status says about the runner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Cycling, or free to be started.
    Live,
    /// Stopped (or skipping every cycle): nothing is due after its last cycle.
    Stopped,
    /// DISABLED: nothing is due at all.
    Disabled,
}

fn state_of(j: &JobTableRow, diags: &mut Vec<Diagnostic>) -> State {
    let status = j.job_status.as_deref().map(|s| s.trim().to_ascii_uppercase()).filter(|s| !s.is_empty());
    let why = match status.as_deref() {
        None | Some("ENABLED" | "RUNNING" | "SLEEPING" | "RESUMED") => return State::Live,
        Some("PAUSED") => "the job is PAUSED: the runner skips every cycle until it is resumed",
        Some("ABORTED") => "the job was aborted: the runner stops at its next cycle",
        Some("FINISHED") => "the job's runner has finished (its schedule window ended, or it was stopped)",
        Some("ERROR") => "the job procedure failed (or the runner's sleep was interrupted) and the runner stopped",
        Some("DISABLED") => {
            diags.push(Diagnostic::new(
                Severity::Info,
                Some("job_status"),
                Some("DISABLED".into()),
                "the job is disabled: job$run will not start it, there is no forecast",
            ));
            return State::Disabled;
        }
        Some(other) => {
            diags.push(Diagnostic::error(
                "job_status",
                other,
                "must be one of ABORTED, DISABLED, ENABLED, ERROR, FINISHED, PAUSED, RESUMED, RUNNING, SLEEPING",
            ));
            return State::Live;
        }
    };
    let shown = j.job_status.as_deref().map(str::trim).unwrap_or_default().to_owned();
    diags.push(Diagnostic::new(
        Severity::Info,
        Some("job_status"),
        Some(shown),
        format!("{why}: nothing is due after its last cycle until job$run is called again"),
    ));
    State::Stopped
}

fn interval_of(j: &JobTableRow, diags: &mut Vec<Diagnostic>) -> Option<i64> {
    match int_field("job_schedule_interval", &j.job_schedule_interval, diags) {
        Ok(Some(n)) if n >= 1 => Some(n),
        Ok(Some(0)) => {
            diags.push(Diagnostic::error(
                "job_schedule_interval",
                0,
                "0 seconds: the runner loops without sleeping, there is no time forecast",
            ));
            None
        }
        Ok(Some(n)) => {
            diags.push(Diagnostic::error("job_schedule_interval", n, "must not be negative (int unsigned)"));
            None
        }
        Ok(None) => {
            diags.push(Diagnostic::new(
                Severity::Error,
                Some("job_schedule_interval"),
                None,
                "missing (NOT NULL): seconds between cycle starts",
            ));
            None
        }
        Err(()) => None,
    }
}

fn analyze(j: &JobTableRow, tz: Zone) -> (Option<Plan>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let state = state_of(j, &mut diags);
    let interval = interval_of(j, &mut diags);
    let at = |n: NaiveDateTime| Clock::Zone(tz).resolve(n).0;
    let start = timestamp_field("job_schedule_start", &j.job_schedule_start, &mut diags);
    let finish = timestamp_field("job_schedule_finish", &j.job_schedule_finish, &mut diags);
    let runner = timestamp_field("job_runner_start", &j.job_runner_start, &mut diags);
    let last = timestamp_field("job_runner_last_cycle_start", &j.job_runner_last_cycle_start, &mut diags);
    let (Ok(start), Ok(finish), Ok(runner), Ok(last)) = (start, finish, runner, last) else {
        return (None, diags);
    };
    if start.is_none() && runner.is_none() && j.cycle_anchors.is_empty() {
        diags.push(Diagnostic::new(
            Severity::Error,
            Some("job_schedule_start"),
            None,
            "is NULL and no job_runner_start is known: the cycles start whenever job$run is called, there is no forecast",
        ));
    } else if start.is_none()
        && let Some(r) = runner
    {
        diags.push(Diagnostic::info(format!(
            "job_schedule_start is NULL: cycles count from the runner's start ({})",
            fmt_ts(r)
        )));
    }
    if let (Some(s), Some(f)) = (start.or(runner), finish)
        && f < s
    {
        diags.push(Diagnostic::warning(
            "job_schedule_finish",
            fmt_ts(f),
            format!("is before the start ({}): the runner finishes at once, the job never runs", fmt_ts(s)),
        ));
    }
    // The current runner's first cycle: at its start, or at the schedule's when it slept until then.
    let first = runner.map(|r| start.map_or(r, |s| s.max(r)));
    let last = match (last, first.or(start)) {
        (Some(l), Some(f)) if l < f => {
            diags.push(Diagnostic::warning(
                "job_runner_last_cycle_start",
                fmt_ts(l),
                format!("is before the runner's first cycle ({}): ignored", fmt_ts(f)),
            ));
            None
        }
        (l, _) => l,
    };
    if diags.iter().any(|d| d.severity == Severity::Error) || state == State::Disabled {
        return (None, diags);
    }
    let Some(interval) = interval else { return (None, diags) };
    let finish = finish.map(at);
    let anchors = if j.cycle_anchors.is_empty() {
        let mut v = Vec::new();
        let anchor = |at, kind| Anchor { at, kind, interval: None };
        match (state, last, first) {
            (State::Stopped, None, None) if j.job_status_is("FINISHED") && finish.is_some() => {}
            (State::Stopped, None, None) => {
                diags.push(Diagnostic::info("no cycle of the stopped runner is known: there is no forecast"));
                return (None, diags);
            }
            // Stopped before its first cycle: nothing of this runner is due.
            (State::Stopped, None, Some(_)) => v.push(anchor(at(runner.unwrap_or_default()), AnchorKind::Stop)),
            _ => {
                if let Some(f) = first {
                    v.push(anchor(at(f), AnchorKind::Fresh));
                }
                if let Some(l) = last {
                    v.push(anchor(at(l), AnchorKind::Chain));
                    if state == State::Stopped {
                        v.push(anchor(at(l), AnchorKind::Stop));
                    }
                }
            }
        }
        v
    } else {
        j.cycle_anchors.clone()
    };
    (Some(Plan { nominal: start.map(at), finish, interval, anchors }), diags)
}

impl JobTableRow {
    fn job_status_is(&self, s: &str) -> bool {
        self.job_status.as_deref().is_some_and(|v| v.trim().eq_ignore_ascii_case(s))
    }
}

/// One stretch of one cadence: `anchor + k × step` within `[first, last]`.
#[derive(Clone, Copy, Debug)]
struct Segment {
    anchor: DateTime<Utc>,
    step: i64,
    first: DateTime<Utc>,
    last: Option<DateTime<Utc>>,
}

fn secs(n: i64) -> TimeDelta {
    TimeDelta::try_seconds(n).unwrap_or(TimeDelta::MAX)
}

fn plus(t: DateTime<Utc>, d: TimeDelta) -> DateTime<Utc> {
    t.checked_add_signed(d).unwrap_or(if d < TimeDelta::zero() {
        DateTime::<Utc>::MIN_UTC
    } else {
        DateTime::<Utc>::MAX_UTC
    })
}

/// The plan's cadences in time order (see the module docs).
fn segments(p: &Plan) -> Vec<Segment> {
    let mut anchors = p.anchors.clone();
    super::order::sort_by_key(&mut anchors, |a| {
        let [s, n] = super::order::instant(a.at);
        [s, n, a.kind as i64, 0, 0, 0, 0, 0]
    });
    let mut out = Vec::new();
    // The cadence in force: (anchor, step, first due time).
    let mut current: Option<(DateTime<Utc>, i64, DateTime<Utc>)> = p.nominal.map(|s| (s, p.interval, s));
    for a in anchors {
        let step = a.interval.filter(|n| *n >= 1).unwrap_or(p.interval);
        let close = |last| current.map(|(anchor, step, first)| Segment { anchor, step, first, last: Some(last) });
        match (a.kind, current) {
            (AnchorKind::Chain, Some((_, s, _))) => {
                out.extend(close(plus(a.at, secs((s - 1).clamp(0, SLACK_SECS)))));
                current = Some((a.at, step, plus(a.at, secs(1))));
            }
            (AnchorKind::Stop, _) => {
                out.extend(close(a.at));
                current = None;
            }
            (AnchorKind::Fresh | AnchorKind::Chain, _) => {
                out.extend(close(plus(a.at, secs(-1))));
                current = Some((a.at, step, a.at));
            }
        }
    }
    out.extend(current.map(|(anchor, step, first)| Segment { anchor, step, first, last: None }));
    for s in &mut out {
        s.last = match (s.last, p.finish) {
            (Some(l), Some(f)) => Some(l.min(f)),
            (l, f) => l.or(f),
        };
    }
    out.retain(|s| s.last.is_none_or(|l| l >= s.first));
    out
}

fn run(id: ScheduleId, j: &JobTableRow, tz: Zone, until: Until) -> Forecast {
    let (plan, mut diagnostics) = analyze(j, tz);
    let Some(p) = plan else {
        return Forecast { occurrences: Vec::new(), diagnostics };
    };
    let zone = Clock::Zone(tz);
    let mut occurrences = Vec::new();
    for s in segments(&p) {
        let rest = match until {
            Until::After(_, n) if occurrences.len() >= n => break,
            Until::After(a, n) => Until::After(a, n - occurrences.len()),
            Until::Window(w) => Until::Window(w),
        };
        // The runner counts whole seconds: a fractional anchor counts from its second.
        let anchor = s.anchor.trunc_subsecs(0);
        occurrences.extend(cadence(id, zone, anchor, s.step, Some(s.first), s.last, &rest, &mut diagnostics));
        if occurrences.len() >= super::dialect::MAX_OCCURRENCES {
            occurrences.truncate(super::dialect::MAX_OCCURRENCES);
            break;
        }
    }
    super::order::sort_by_key(&mut occurrences, |o| {
        let [s, n] = super::order::instant(o.at);
        [s, n, 0, 0, 0, 0, 0, 0]
    });
    occurrences.dedup_by_key(|o| o.at);
    Forecast { occurrences, diagnostics }
}

/// Every cycle start inside `window` (`tz`: the session zone of the DATETIME columns).
pub fn forecast(id: ScheduleId, j: &JobTableRow, tz: Zone, window: Window) -> Forecast {
    run(id, j, tz, Until::Window(window))
}

/// The first `count` cycle starts strictly after `after`.
pub fn next_after(id: ScheduleId, j: &JobTableRow, tz: Zone, after: DateTime<Utc>, count: usize) -> Forecast {
    run(id, j, tz, Until::After(after, count))
}

pub fn validate(j: &JobTableRow) -> Vec<Diagnostic> {
    analyze(j, Zone::UTC).1
}

/// An interval in the largest unit it is a whole number of: "Every 5 minutes", "Every day",
/// "Every 90 seconds" (never "Every 86400 seconds").
pub fn every_secs(n: i64) -> String {
    let (count, unit) = match n {
        n if n > 0 && n % 86_400 == 0 => (n / 86_400, "day"),
        n if n > 0 && n % 3_600 == 0 => (n / 3_600, "hour"),
        n if n > 0 && n % 60 == 0 => (n / 60, "minute"),
        n => (n, "second"),
    };
    if count == 1 { format!("Every {unit}") } else { format!("Every {count} {unit}s") }
}

/// "Every 5 minutes from 2026-01-01 00:00:00 until 2026-12-31 23:59:59".
pub fn describe(j: &JobTableRow) -> String {
    let iv = j.job_schedule_interval.as_deref().map(str::trim).unwrap_or("?");
    let every = match iv.parse::<i64>() {
        Ok(n) => every_secs(n),
        Err(_) => format!("Every {iv} (job_schedule_interval is not a number) seconds"),
    };
    let ts = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| super::dialect::parse_timestamp(t).map(fmt_ts).unwrap_or_else(|| format!("{t} (not a timestamp)")))
    };
    let mut s = match ts(&j.job_schedule_start) {
        Some(st) => format!("{every} from {st}"),
        None => format!("{every} from when job$run is called"),
    };
    if let Some(f) = ts(&j.job_schedule_finish) {
        s.push_str(&format!(" until {f}"));
    }
    if let Some(st) = j.job_status.as_deref().map(|s| s.trim().to_ascii_uppercase())
        && matches!(st.as_str(), "PAUSED" | "ABORTED" | "DISABLED" | "FINISHED" | "ERROR")
    {
        s.push_str(&format!(" ({st})"));
    }
    s
}
