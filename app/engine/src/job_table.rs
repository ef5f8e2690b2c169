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
use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    anchors.sort_by_key(|a| (a.at, a.kind));
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
        occurrences.extend(cadence(id, zone, s.anchor, s.step, Some(s.first), s.last, &rest, &mut diagnostics));
        if occurrences.len() >= super::dialect::MAX_OCCURRENCES {
            occurrences.truncate(super::dialect::MAX_OCCURRENCES);
            break;
        }
    }
    occurrences.sort_by_key(|o| o.at);
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

/// "Every 300 seconds from 2026-01-01 00:00:00 until 2026-12-31 23:59:59".
pub fn describe(j: &JobTableRow) -> String {
    let iv = j.job_schedule_interval.as_deref().map(str::trim).unwrap_or("?");
    let every = match iv.parse::<i64>() {
        Ok(1) => "Every second".to_owned(),
        Ok(n) => format!("Every {n} seconds"),
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

// ---------------------------------------------------------------------------------------------
// What Sundial's samples reconstruct.
// ---------------------------------------------------------------------------------------------

/// One state of a job's row as Sundial's polls saw it (its times in UTC), and the first and
/// last poll that saw it. A value the row held that Sundial could not read is `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CycleSample {
    pub first_seen: DateTime<Utc>,
    pub seen_until: DateTime<Utc>,
    /// `job_status`, upper case.
    pub status: Option<String>,
    pub interval: Option<i64>,
    pub schedule_start: Option<DateTime<Utc>>,
    pub runner_start: Option<DateTime<Utc>>,
    pub runner_finish: Option<DateTime<Utc>>,
    /// `job_runner_cycles`: the cycles that succeeded since the runner started.
    pub cycles: Option<i64>,
    pub last_start: Option<DateTime<Utc>>,
    pub last_finish: Option<DateTime<Utc>>,
}

impl CycleSample {
    /// The same row state (everything but the polls).
    pub fn same_state(&self, other: &CycleSample) -> bool {
        let key = |s: &CycleSample| {
            (
                s.status.clone(),
                s.interval,
                s.schedule_start,
                s.runner_start,
                s.runner_finish,
                s.cycles,
                s.last_start,
                s.last_finish,
            )
        };
        key(self) == key(other)
    }

    fn status(&self) -> &str {
        self.status.as_deref().unwrap_or_default()
    }

    /// Whether the cycle at `last_start` finished: its finish written at or after its start.
    /// (In the same second, RUNNING or ERROR mean the next cycle started as the last ended.)
    fn last_finished(&self) -> bool {
        match (self.last_start, self.last_finish) {
            (Some(s), Some(f)) if f > s => true,
            (Some(s), Some(f)) if f == s => !matches!(self.status(), "RUNNING" | "ERROR"),
            _ => false,
        }
    }

    /// Cycles this runner started: the counter (successes) plus one started and not finished;
    /// `None` when the counter is unknown but a cycle is.
    fn started(&self) -> Option<i64> {
        match (self.cycles, self.last_start) {
            (Some(c), Some(_)) => Some(c.max(0) + i64::from(!self.last_finished())),
            (Some(c), None) => Some(c.max(0)),
            (None, None) => Some(0),
            (None, Some(_)) => None,
        }
    }

    /// The runner's first cycle: its start, or the schedule's when it slept until then.
    pub fn first_cycle(&self) -> Option<DateTime<Utc>> {
        self.runner_start.map(|r| self.schedule_start.map_or(r, |s| s.max(r)))
    }

    /// How far back this sample, the first of a job, proves anything: the first cycle of the
    /// runner it shows (the counter covers every cycle since), else the poll itself.
    pub fn known_since(&self) -> DateTime<Utc> {
        match (self.first_cycle(), self.started()) {
            (Some(a), Some(_)) => a.min(self.first_seen),
            _ => self.first_seen,
        }
    }

    /// The runner wrote its end.
    fn ended(&self) -> bool {
        self.runner_finish.is_some_and(|f| self.runner_start.is_none_or(|r| f >= r))
    }

    /// Nothing is due after the cycle at `last_start`: the runner failed or finished, or will
    /// stop or skip at its next cycle (ABORTED or PAUSED written while it slept: written while
    /// a cycle ran, the runner overwrites them when the cycle ends).
    fn stops(&self) -> bool {
        match self.status() {
            "ERROR" | "FINISHED" => true,
            "ABORTED" | "PAUSED" => self.last_start.is_none() || self.last_finished(),
            _ => false,
        }
    }
}

/// What [`reconstruct`] found for one job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    /// The cycles inside the window, by start.
    pub runs: Vec<Run>,
    /// For [`JobTableRow::cycle_anchors`].
    pub anchors: Vec<Anchor>,
    /// Stretches in which the cycles that ran could not be placed.
    pub unobserved: Vec<Window>,
    pub diagnostics: Vec<Diagnostic>,
}

/// How far a gap of `k` intervals may differ from `k × interval` and still be the cadence:
/// the runner counts whole seconds and sometimes wakes a second late.
fn tolerance(k: i64) -> TimeDelta {
    secs(2 + k / 60)
}

/// A cycle as the samples know it.
#[derive(Clone, Debug, Default)]
struct Known {
    start: Option<DateTime<Utc>>,
    finish: Option<DateTime<Utc>>,
    failed: bool,
    /// The last poll that saw it running.
    running_until: Option<DateTime<Utc>>,
    /// The interval when it was seen.
    interval: Option<i64>,
}

/// Everything a runner's reconstruction needs besides its samples.
struct Ctx<'a> {
    schedule: ScheduleId,
    stuck_after: TimeDelta,
    now: DateTime<Utc>,
    window: Window,
    out: &'a mut History,
    /// Cycles not placed, with the first stretch they lie in.
    unplaced: (i64, Option<Window>),
    /// Cycles placed so far, and whether the cap cut some off.
    placed: usize,
    capped: bool,
}

impl Ctx<'_> {
    fn push(&mut self, run: Run) {
        let end = run.end();
        if run.start < self.window.end && (self.window.contains(run.start) || end > self.window.start) {
            self.out.runs.push(run);
        }
    }

    fn run(&self, start: DateTime<Utc>, secs: i64, outcome: RunOutcome, message: String) -> Run {
        Run {
            start,
            duration_secs: secs.max(0),
            outcome,
            trigger: Trigger::Schedule(Some(self.schedule)),
            message,
            steps: Vec::new(),
        }
    }

    fn unobserved(&mut self, from: DateTime<Utc>, to: DateTime<Utc>) {
        if from < to {
            self.out.unobserved.push(Window::new(from, to));
        }
    }
}

fn ts(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// Every cycle of one job that Sundial's `samples` (of its row, any order) show inside
/// `window`, with the anchors the forecast follows and the stretches nobody can tell about.
/// `now` is the poll's time; a cycle not finished after `stuck_after` is taken as crashed.
/// See the module docs for the rules.
pub fn reconstruct(
    samples: &[CycleSample],
    schedule: ScheduleId,
    window: Window,
    stuck_after: TimeDelta,
    now: DateTime<Utc>,
) -> History {
    let mut sorted: Vec<&CycleSample> = samples.iter().collect();
    sorted.sort_by_key(|s| s.first_seen);
    // Runners: consecutive samples with the same runner start.
    let mut runners: Vec<Vec<&CycleSample>> = Vec::new();
    for s in sorted {
        match runners.last_mut() {
            Some(r) if r[0].runner_start == s.runner_start => r.push(s),
            _ => runners.push(vec![s]),
        }
    }
    let mut out = History::default();
    let mut cx =
        Ctx { schedule, stuck_after, now, window, out: &mut out, unplaced: (0, None), placed: 0, capped: false };
    for (i, samples) in runners.iter().enumerate() {
        let next = runners.get(i + 1).map(|n| n[0]);
        let counted = samples[0].runner_start.is_some() && samples.iter().all(|s| s.started().is_some());
        if counted {
            runner(samples, next, &mut cx);
        } else {
            uncounted(samples, next, &mut cx);
        }
    }
    let (n, first) = cx.unplaced;
    if let Some(w) = first {
        cx.out.diagnostics.push(Diagnostic::new(
            Severity::Info,
            Some("job_runner_cycles"),
            None,
            format!(
                "{n} cycle(s) the counter says ran could not be placed (the gap is not a whole number of intervals: \
                 a cycle overran or the job was paused), first between {} and {}: those stretches are unknown",
                ts(w.start),
                ts(w.end)
            ),
        ));
    }
    if cx.capped {
        cx.out.diagnostics.push(Diagnostic::warning(
            "job_runner_cycles",
            super::dialect::MAX_OCCURRENCES,
            "more cycles in the window than Sundial places: the rest are left out",
        ));
    }
    out.runs.sort_by_key(|r| r.start);
    out.anchors = thin(std::mem::take(&mut out.anchors));
    out
}

/// One runner's cycles, indexed by its counter.
fn runner(samples: &[&CycleSample], next: Option<&CycleSample>, cx: &mut Ctx) {
    let mut known: BTreeMap<i64, Known> = BTreeMap::new();
    let mut stop: Option<DateTime<Utc>> = None;
    let mut started = 0;
    for s in samples {
        let n = s.started().unwrap_or(0);
        started = started.max(n);
        let Some(ls) = s.last_start else {
            if s.stops() {
                stop = s.runner_start;
            }
            continue;
        };
        let Some(idx) = n.checked_sub(1).filter(|i| *i >= 0) else { continue };
        let c = known.entry(idx).or_default();
        c.start = Some(ls);
        c.interval = s.interval.or(c.interval);
        if s.last_finished() {
            c.finish = s.last_finish;
        } else {
            c.running_until = c.running_until.max(Some(s.seen_until));
            if s.status() == "ERROR" {
                c.failed = true;
                c.finish = s.runner_finish.filter(|f| *f >= ls);
            }
            // While a cycle runs, the last finish is the previous cycle's.
            if let (Some(lf), Some(prev)) = (s.last_finish, idx.checked_sub(1).filter(|p| *p >= 0)) {
                known.entry(prev).or_default().finish.get_or_insert(lf);
            }
        }
        if s.stops() {
            stop = Some(ls);
        }
        // A pause seen between cycles: the next cycle is due at its own start.
        if s.stops() && s.status() == "PAUSED" {
            cx.out.anchors.push(Anchor { at: ls, kind: AnchorKind::Stop, interval: s.interval });
        }
    }
    let last = samples[samples.len() - 1];
    let first_cycle = samples[0].first_cycle().unwrap_or(samples[0].first_seen);
    // The first cycle is due when the runner starts cycling.
    let zero = known.entry(0).or_default();
    let zero_seen = zero.start.is_some();
    if started > 0 && !zero_seen {
        zero.start = Some(first_cycle);
        zero.interval = zero.interval.or(samples[0].interval);
    } else if started == 0 && !zero_seen {
        known.remove(&0);
    }
    // The runner's first cycle is due when it starts cycling (unless it stopped before).
    if started > 0 || stop.is_none() {
        let at = known.get(&0).and_then(|k| k.start).unwrap_or(first_cycle);
        cx.out.anchors.push(Anchor { at, kind: AnchorKind::Fresh, interval: samples[0].interval });
    }
    // Place the cycles between known starts.
    let points: Vec<(i64, DateTime<Utc>)> =
        known.iter().filter(|(i, _)| **i < started).filter_map(|(i, k)| k.start.map(|s| (*i, s))).collect();
    let mut placed: Vec<(i64, DateTime<Utc>, String)> = Vec::new();
    for w in points.windows(2) {
        let ((ia, ta), (ib, tb)) = (w[0], w[1]);
        let k = ib - ia;
        let interval = known[&ib].interval.filter(|i| *i >= 1 && known[&ia].interval.is_none_or(|a| a == *i));
        let fits = interval.is_some_and(|i| {
            let want = k.checked_mul(i).and_then(TimeDelta::try_seconds);
            want.and_then(|w| (tb - ta).checked_sub(&w)).is_some_and(|d| d.abs() <= tolerance(k))
        });
        let held = known[&ia].finish.or(known[&ia].running_until).is_some_and(|f| plus(f, tolerance(1)) >= tb);
        let chained = fits || (k == 1 && held);
        let kind = if chained { AnchorKind::Chain } else { AnchorKind::Fresh };
        cx.out.anchors.push(Anchor { at: tb, kind, interval });
        if fits && k >= 2 {
            // Evenly between the two (the few seconds the runner drifts spread over the gap), and
            // only those the window needs: the runner may be years old.
            let gap = (tb - ta).num_milliseconds();
            let at =
                |j: i64| plus(ta, TimeDelta::milliseconds(((i128::from(gap) * i128::from(j)) / i128::from(k)) as i64));
            let per = (gap / k).max(1);
            let from = ((cx.window.start - ta).num_milliseconds() / per - 1).clamp(1, k);
            let to = ((cx.window.end - ta).num_milliseconds() / per + 1).clamp(1, k);
            for j in from..to {
                let t = at(j);
                if t < plus(cx.window.start, secs(-1)) || t >= cx.window.end {
                    continue;
                }
                if cx.placed >= super::dialect::MAX_OCCURRENCES {
                    cx.capped = true;
                    break;
                }
                cx.placed += 1;
                let why = format!(
                    "placed by the cycle counter (job_runner_cycles), between the cycles seen at {} and {}; its start \
                     is estimated from the interval",
                    ts(ta),
                    ts(tb)
                );
                placed.push((ia + j, t, why));
            }
        } else if !chained {
            cx.unobserved(ta, tb);
            cx.unplaced.0 += k - 1;
            if k > 1 && cx.unplaced.1.is_none() {
                cx.unplaced.1 = Some(Window::new(ta, tb));
            }
        }
    }
    if let Some(at) = stop {
        cx.out.anchors.push(Anchor { at, kind: AnchorKind::Stop, interval: last.interval });
    }
    for (idx, at, why) in placed {
        let k = known.get(&idx);
        let finish = k.and_then(|k| k.finish);
        let run = cx.run(at, finish.map_or(0, |f| (f - at).num_seconds()), RunOutcome::Succeeded, why);
        cx.push(run);
    }
    // The cycles whose start is known.
    for (&idx, k) in known.iter().filter(|(i, _)| **i < started) {
        let Some(start) = k.start else { continue };
        let until = |t: DateTime<Utc>| (t - start).num_seconds();
        let (outcome, secs, message) = if k.failed {
            let end = k.finish.or(k.running_until).unwrap_or(start);
            let when = k.finish.map(|f| format!(" at {}", ts(f))).unwrap_or_default();
            (
                RunOutcome::Failed,
                until(end),
                format!("the job procedure raised an exception: the runner stopped (job_status ERROR{when})"),
            )
        } else if let Some(f) = k.finish {
            (RunOutcome::Succeeded, until(f), String::new())
        } else if idx + 1 < started {
            // A later cycle started: this one succeeded (a failure ends the loop).
            (RunOutcome::Succeeded, k.running_until.map_or(0, until), String::new())
        } else {
            last_cycle(start, k, last, next, cx)
        };
        let run = cx.run(start, secs, outcome, message);
        cx.push(run);
    }
    // A live runner replaced by a new one: what it did after the last poll that saw it is unknown.
    if let Some(next) = next
        && !last.ended()
        && !last.stops()
    {
        cx.unobserved(last.seen_until, next.first_cycle().unwrap_or(next.first_seen));
    }
}

/// The runner's last cycle, started and not finished when last seen.
fn last_cycle(
    start: DateTime<Utc>,
    k: &Known,
    last: &CycleSample,
    next: Option<&CycleSample>,
    cx: &Ctx,
) -> (RunOutcome, i64, String) {
    let seen = k.running_until.unwrap_or(start);
    let held = (seen - start).num_seconds();
    if let Some(n) = next {
        let by = n.runner_start.map(|r| format!("a new runner started at {}", ts(r)));
        return (
            RunOutcome::Crashed,
            held,
            format!(
                "started, never finished: still running when Sundial last saw it at {}, then {}: its runner was gone",
                ts(seen),
                by.unwrap_or_else(|| "the job's runner changed".into())
            ),
        );
    }
    if last.ended() {
        let at = last.runner_finish.map(ts).unwrap_or_default();
        return (
            RunOutcome::Unknown,
            held,
            format!("the runner ended at {at} without writing this cycle's finish: how the cycle ended is unknown"),
        );
    }
    if cx.now - start > cx.stuck_after {
        return (
            RunOutcome::Crashed,
            cx.stuck_after.num_seconds(),
            format!(
                "started, not finished after {} minutes (Sundial's stuck_after; the design has no timeout): taken as \
                 crashed, its runner gone with its connection while the row still says {}",
                cx.stuck_after.num_minutes(),
                last.status()
            ),
        );
    }
    (RunOutcome::InProgress, (cx.now - start).num_seconds(), String::new())
}

/// Samples without a counter: one cycle per distinct start (its latest state), and the
/// stretch from the last poll that saw one cycle to the next cycle unobserved.
fn uncounted(samples: &[&CycleSample], next: Option<&CycleSample>, cx: &mut Ctx) {
    let until = next.map(|n| n.first_cycle().unwrap_or(n.first_seen));
    // (cycle start, the latest sample that saw it)
    let mut cycles: Vec<(DateTime<Utc>, &CycleSample)> = Vec::new();
    for s in samples {
        let Some(ls) = s.last_start.filter(|l| until.is_none_or(|u| *l < u)) else { continue };
        match cycles.last_mut() {
            Some((at, latest)) if *at == ls => *latest = s,
            _ => cycles.push((ls, s)),
        }
    }
    let current = samples.last().copied().filter(|_| next.is_none());
    for (i, &(ls, s)) in cycles.iter().enumerate() {
        if let Some((_, p)) = i.checked_sub(1).map(|p| cycles[p]) {
            cx.unobserved(p.seen_until, ls);
        }
        cx.out.anchors.push(Anchor { at: ls, kind: AnchorKind::Chain, interval: s.interval });
        if s.stops() {
            cx.out.anchors.push(Anchor { at: ls, kind: AnchorKind::Stop, interval: s.interval });
        }
        let is_current = current.is_some_and(|c| std::ptr::eq(c, s));
        let (outcome, secs, message) = if s.last_finished() {
            (RunOutcome::Succeeded, s.last_finish.map_or(0, |f| (f - ls).num_seconds()), String::new())
        } else if s.status() == "ERROR" {
            let end = s.runner_finish.filter(|f| *f >= ls).unwrap_or(ls);
            let why = "the job procedure raised an exception: the runner stopped (job_status ERROR)";
            (RunOutcome::Failed, (end - ls).num_seconds(), why.to_owned())
        } else if is_current && s.status.is_some() {
            let k = Known { start: Some(ls), running_until: Some(s.seen_until), ..Known::default() };
            last_cycle(ls, &k, s, None, cx)
        } else {
            let why = "Sundial's samples kept only this cycle's start (no cycle counter): how it ended is unknown";
            (RunOutcome::Unknown, 0, why.to_owned())
        };
        let run = cx.run(ls, secs, outcome, message);
        cx.push(run);
    }
}

/// Anchors in time order, without the `Chain`s that fall on the cadence already in force
/// (within [`SLACK_SECS`]): they change nothing.
fn thin(mut anchors: Vec<Anchor>) -> Vec<Anchor> {
    anchors.sort_by_key(|a| (a.at, a.kind));
    anchors.dedup();
    let mut out: Vec<Anchor> = Vec::new();
    let mut grid: Option<(DateTime<Utc>, Option<i64>)> = None;
    for a in anchors {
        match a.kind {
            AnchorKind::Chain => {
                if let Some((g, Some(step))) = grid
                    && step >= 1
                    && a.interval.is_none_or(|i| i == step)
                    && a.at >= g
                {
                    let off = (a.at - g).num_seconds().rem_euclid(step);
                    if off <= SLACK_SECS || step - off <= SLACK_SECS {
                        continue;
                    }
                }
                grid = Some((a.at, a.interval));
            }
            AnchorKind::Fresh => grid = Some((a.at, a.interval)),
            AnchorKind::Stop => grid = None,
        }
        out.push(a);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn sample(first: &str, until: &str) -> CycleSample {
        CycleSample {
            first_seen: t(first),
            seen_until: t(until),
            status: Some("SLEEPING".into()),
            interval: Some(3600),
            runner_start: Some(t("2026-03-02T00:00:00Z")),
            ..CycleSample::default()
        }
    }

    fn day() -> Window {
        Window::new(t("2026-03-02T00:00:00Z"), t("2026-03-03T00:00:00Z"))
    }

    fn starts(h: &History) -> Vec<(String, RunOutcome)> {
        h.runs.iter().map(|r| (r.start.format("%H:%M").to_string(), r.outcome)).collect()
    }

    #[test]
    fn the_counter_places_cycles_between_polls_and_back_to_the_runner_start() {
        let a = CycleSample {
            cycles: Some(3),
            last_start: Some(t("2026-03-02T02:00:00Z")),
            last_finish: Some(t("2026-03-02T02:05:00Z")),
            ..sample("2026-03-02T02:40:00Z", "2026-03-02T02:40:00Z")
        };
        let b = CycleSample {
            status: Some("RUNNING".into()),
            cycles: Some(6),
            last_start: Some(t("2026-03-02T06:00:00Z")),
            last_finish: Some(t("2026-03-02T05:04:00Z")),
            ..sample("2026-03-02T06:20:00Z", "2026-03-02T06:20:00Z")
        };
        let h = reconstruct(&[b, a], 1, day(), secs(3600), t("2026-03-02T06:20:00Z"));
        let want: Vec<(String, RunOutcome)> = (0..6)
            .map(|h| (format!("{h:02}:00"), RunOutcome::Succeeded))
            .chain([("06:00".to_owned(), RunOutcome::InProgress)])
            .collect();
        assert_eq!(starts(&h), want);
        assert_eq!(h.runs[5].duration_secs, 240, "the running sample's last finish is the previous cycle's");
        assert!(h.unobserved.is_empty(), "{:?}", h.unobserved);
        assert_eq!(
            h.anchors,
            [Anchor { at: t("2026-03-02T00:00:00Z"), kind: AnchorKind::Fresh, interval: Some(3600) }]
        );
    }

    #[test]
    fn a_gap_that_is_not_the_cadence_is_unobserved() {
        let a = CycleSample {
            cycles: Some(1),
            last_start: Some(t("2026-03-02T00:00:00Z")),
            last_finish: Some(t("2026-03-02T00:01:00Z")),
            ..sample("2026-03-02T00:30:00Z", "2026-03-02T00:30:00Z")
        };
        let b = CycleSample {
            cycles: Some(4),
            last_start: Some(t("2026-03-02T05:00:00Z")),
            last_finish: Some(t("2026-03-02T05:01:00Z")),
            ..sample("2026-03-02T05:30:00Z", "2026-03-02T05:30:00Z")
        };
        let h = reconstruct(&[a, b], 1, day(), secs(3600), t("2026-03-02T05:30:00Z"));
        assert_eq!(starts(&h), [("00:00".into(), RunOutcome::Succeeded), ("05:00".into(), RunOutcome::Succeeded)]);
        assert_eq!(h.unobserved, [Window::new(t("2026-03-02T00:00:00Z"), t("2026-03-02T05:00:00Z"))]);
        assert!(h.anchors.iter().any(|a| a.kind == AnchorKind::Fresh && a.at == t("2026-03-02T05:00:00Z")));
        assert!(h.diagnostics.iter().any(|d| d.message.starts_with("2 cycle(s)")), "{:?}", h.diagnostics);
    }

    #[test]
    fn odd_samples_do_not_panic() {
        let weird = CycleSample {
            cycles: Some(-5),
            interval: Some(0),
            last_start: Some(DateTime::<Utc>::MIN_UTC),
            last_finish: Some(DateTime::<Utc>::MAX_UTC),
            ..sample("2026-03-02T00:30:00Z", "2026-03-02T00:30:00Z")
        };
        let huge = CycleSample { cycles: Some(i64::MAX), interval: Some(i64::MAX), ..weird.clone() };
        let far = CycleSample { runner_start: Some(DateTime::<Utc>::MIN_UTC), ..weird.clone() };
        let h = reconstruct(&[weird, huge, far], 1, day(), secs(3600), t("2026-03-02T05:30:00Z"));
        assert!(h.runs.len() <= 3);
    }

    #[test]
    fn a_pause_seen_between_cycles_stops_the_cadence_until_the_next_cycle() {
        let before = CycleSample {
            cycles: Some(3),
            last_start: Some(t("2026-03-02T02:00:00Z")),
            last_finish: Some(t("2026-03-02T02:01:00Z")),
            ..sample("2026-03-02T02:30:00Z", "2026-03-02T02:30:00Z")
        };
        let paused = CycleSample { status: Some("PAUSED".into()), ..before.clone() };
        let paused =
            CycleSample { first_seen: t("2026-03-02T04:30:00Z"), seen_until: t("2026-03-02T04:30:00Z"), ..paused };
        let resumed = CycleSample {
            status: Some("RUNNING".into()),
            last_start: Some(t("2026-03-02T05:00:00Z")),
            ..sample("2026-03-02T05:10:00Z", "2026-03-02T05:10:00Z")
        };
        let resumed = CycleSample { cycles: Some(3), last_finish: Some(t("2026-03-02T02:01:00Z")), ..resumed };
        let h = reconstruct(&[before, paused, resumed], 1, day(), secs(3600), t("2026-03-02T05:10:00Z"));
        let s = RunOutcome::Succeeded;
        assert_eq!(
            starts(&h),
            [("00:00".into(), s), ("01:00".into(), s), ("02:00".into(), s), ("05:00".into(), RunOutcome::InProgress)]
        );
        let kinds: Vec<(String, AnchorKind)> =
            h.anchors.iter().map(|a| (a.at.format("%H:%M").to_string(), a.kind)).collect();
        assert_eq!(
            kinds,
            [
                ("00:00".into(), AnchorKind::Fresh),
                ("02:00".into(), AnchorKind::Stop),
                ("05:00".into(), AnchorKind::Fresh)
            ]
        );
        // The forecast from them: nothing due while paused.
        let row = JobTableRow {
            job_schedule_start: Some("2026-03-02 00:00:00".into()),
            job_schedule_interval: Some("3600".into()),
            job_status: Some("RUNNING".into()),
            cycle_anchors: h.anchors,
            ..JobTableRow::default()
        };
        let f = forecast(1, &row, Zone::UTC, Window::new(t("2026-03-02T00:00:00Z"), t("2026-03-02T07:00:00Z")));
        let due: Vec<String> = f.occurrences.iter().map(|o| o.at.format("%H:%M").to_string()).collect();
        assert_eq!(due, ["00:00", "01:00", "02:00", "05:00", "06:00"]);
    }

    #[test]
    fn a_runner_decades_old_places_only_the_window() {
        let old = CycleSample {
            interval: Some(60),
            runner_start: Some(t("1996-03-02T00:00:00Z")),
            cycles: Some(15_778_080),
            last_start: Some(t("2026-03-02T00:00:00Z")),
            last_finish: Some(t("2026-03-02T00:00:30Z")),
            ..sample("2026-03-02T00:01:00Z", "2026-03-02T00:01:00Z")
        };
        let new = CycleSample {
            cycles: Some(15_778_080 + 1440),
            last_start: Some(t("2026-03-03T00:00:00Z")),
            last_finish: Some(t("2026-03-03T00:00:30Z")),
            ..old.clone()
        };
        let h = reconstruct(&[old, new], 1, day(), secs(3600), t("2026-03-03T00:01:00Z"));
        assert_eq!(h.runs.len(), 1440, "a day of minutes");
        assert!(h.runs.iter().all(|r| day().contains(r.start) && r.outcome == RunOutcome::Succeeded));
        assert!(h.runs.windows(2).all(|w| w[1].start - w[0].start == secs(60)));
    }
}
