//! Seed 002: the MySQL stored-procedure scheduler's `job` table (one row per job), forecast.
//!
//! # How the job runner behaves (`job$run`)
//!
//! A runner (someone must call `job$run`; nothing starts it automatically) sleeps until
//! `job_schedule_start`, then loops: it reads the row, stops when the current time is *after*
//! `job_schedule_finish` (a cycle exactly at the finish still runs), stops when the status is
//! ABORTED, skips the work while PAUSED, else runs the procedure; then it sleeps until the
//! cycle's start plus `job_schedule_interval` seconds (not at all when the cycle overran, so
//! a long cycle delays the next one: late, not missed).
//!
//! # The forecast
//!
//! - **`start + k × interval`** (k = 0, 1, …) while not after `job_schedule_finish`: the
//!   interval is measured from the start of the previous cycle, so with short cycles the starts
//!   keep that cadence. The runner sleeps real seconds, so the cadence is in absolute time
//!   (a DST change moves the wall-clock times, not the spacing). `tz` is the MySQL session
//!   zone the DATETIME columns are written in.
//! - **No `job_schedule_start`**: the runner starts cycling at once when called, so
//!   `job_runner_start` is the anchor; without either there is no forecast (Error).
//! - **`job_runner_last_cycle_start`**, when given and not before the anchor, re-anchors the
//!   cycles after it: each cycle is due `interval` after the previous one actually started, so
//!   the drift of real cycles carries on. Before it, the forecast stays `start + k × interval`,
//!   less the due cycle that `last_cycle_start` itself is (the latest one at or before it).
//! - **Statuses**: ENABLED, RUNNING, SLEEPING, RESUMED → forecast. PAUSED (cycles skip the
//!   work), ABORTED, DISABLED, FINISHED → no forecast (Info). ERROR (the procedure failed and
//!   the runner stopped; `job$run` only starts an ENABLED job) → no forecast (Info).
//! - **`job_schedule_interval` 0** makes the runner loop without sleeping: Error (no time
//!   forecast); negative is not an `int unsigned`: Error.
use super::dialect::{Clock, Until, cadence, fmt_ts, int_field, loose, timestamp_field};
use super::{Diagnostic, Forecast, ScheduleId, Severity, Window, Zone};
use chrono::{DateTime, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};

/// One row of the `job` table (columns Sundial reads; others are ignored).
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
}

#[derive(Clone, Copy, Debug)]
struct Plan {
    anchor: NaiveDateTime,
    finish: Option<NaiveDateTime>,
    interval: i64,
    last_cycle: Option<NaiveDateTime>,
}

fn analyze(j: &JobTableRow) -> (Option<Plan>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut usable = true;
    let status = j.job_status.as_deref().map(|s| s.trim().to_ascii_uppercase()).filter(|s| !s.is_empty());
    match status.as_deref() {
        None | Some("ENABLED" | "RUNNING" | "SLEEPING" | "RESUMED") => {}
        Some(s @ ("PAUSED" | "ABORTED" | "DISABLED" | "FINISHED" | "ERROR")) => {
            let why = match s {
                "PAUSED" => "the runner skips every cycle while the job is PAUSED: there is no forecast",
                "ABORTED" => "the job was aborted: the runner stops, there is no forecast",
                "DISABLED" => "the job is disabled: job$run will not start it, there is no forecast",
                "FINISHED" => "the job's schedule has finished: there is no forecast",
                _ => {
                    "the job procedure failed and the runner stopped (job$run only starts ENABLED jobs): there is no forecast"
                }
            };
            diags.push(Diagnostic::new(Severity::Info, Some("job_status"), Some(s.to_owned()), why));
            usable = false;
        }
        Some(other) => diags.push(Diagnostic::error(
            "job_status",
            other,
            "must be one of ABORTED, DISABLED, ENABLED, ERROR, FINISHED, PAUSED, RESUMED, RUNNING, SLEEPING",
        )),
    }
    let interval = match int_field("job_schedule_interval", &j.job_schedule_interval, &mut diags) {
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
    };
    let start = timestamp_field("job_schedule_start", &j.job_schedule_start, &mut diags);
    let finish = timestamp_field("job_schedule_finish", &j.job_schedule_finish, &mut diags);
    let runner = timestamp_field("job_runner_start", &j.job_runner_start, &mut diags);
    let last = timestamp_field("job_runner_last_cycle_start", &j.job_runner_last_cycle_start, &mut diags);
    let anchor = match (start, runner) {
        (Ok(Some(s)), _) => Some(s),
        (Ok(None), Ok(Some(r))) => {
            diags.push(Diagnostic::info(format!(
                "job_schedule_start is NULL: cycles count from the runner's start ({})",
                fmt_ts(r)
            )));
            Some(r)
        }
        (Ok(None), Ok(None)) => {
            diags.push(Diagnostic::new(
                Severity::Error,
                Some("job_schedule_start"),
                None,
                "is NULL and no job_runner_start is known: the cycles start whenever job$run is called, there is no forecast",
            ));
            None
        }
        _ => None,
    };
    let finish = finish.ok().flatten();
    if let (Some(a), Some(f)) = (anchor, finish)
        && f < a
    {
        diags.push(Diagnostic::warning(
            "job_schedule_finish",
            fmt_ts(f),
            format!("is before the start ({}): the runner finishes at once, the job never runs", fmt_ts(a)),
        ));
    }
    let last_cycle = last.ok().flatten().filter(|l| anchor.is_some_and(|a| *l >= a));
    if diags.iter().any(|d| d.severity == Severity::Error) || !usable {
        return (None, diags);
    }
    match (anchor, interval) {
        (Some(anchor), Some(interval)) => (Some(Plan { anchor, finish, interval, last_cycle }), diags),
        _ => (None, diags),
    }
}

fn run(id: ScheduleId, j: &JobTableRow, tz: Zone, until: Until) -> Forecast {
    let (plan, mut diagnostics) = analyze(j);
    let Some(p) = plan else {
        return Forecast { occurrences: Vec::new(), diagnostics };
    };
    let zone = Clock::Zone(tz);
    let at = |n: NaiveDateTime| zone.resolve(n).0;
    let anchor = at(p.anchor);
    let finish = p.finish.map(at);
    let mut occurrences = match p.last_cycle {
        None => cadence(id, zone, anchor, p.interval, Some(anchor), finish, &until, &mut diagnostics),
        Some(l) => {
            let l = at(l);
            // The latest due cycle at or before `l` is the one that started (late) at `l`.
            let before_last = l.checked_sub_signed(chrono::TimeDelta::seconds(p.interval)).map(|b| match finish {
                Some(f) if f < b => f,
                _ => b,
            });
            let before_last = before_last.or(Some(DateTime::<Utc>::MIN_UTC));
            let mut v = cadence(id, zone, anchor, p.interval, Some(anchor), before_last, &until, &mut diagnostics);
            let enough = matches!(until, Until::After(_, n) if v.len() >= n);
            if !enough {
                let rest = match until {
                    Until::After(a, n) => Until::After(a, n - v.len()),
                    Until::Window(w) => Until::Window(w),
                };
                v.extend(cadence(id, zone, l, p.interval, Some(l), finish, &rest, &mut diagnostics));
            }
            v
        }
    };
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
    analyze(j).1
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
