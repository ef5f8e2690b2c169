//! Non-blocking warnings for the editor: things a DBA should know before applying a schedule
//! that is nonetheless valid. What makes a schedule unreadable is the dialect's `validate`
//! (Errors); these are Warnings only.
//!
//! "Already past" compares wall-clock times naively: the schedule's own times against
//! `now_local`, the current wall-clock time in the zone the schedule's times are read in (the
//! `tz` its forecast uses). The one exact case is a MySQL event whose `TIME_ZONE` is a fixed
//! offset (`+05:30`, `+00:00`, `UTC`): its times are compared with `now` moved by that offset.
use super::super::agent::{AgentSchedule, date_from_int, time_from_int};
use super::super::cron::{Plan, parse};
use super::super::dialect::parse_timestamp;
use super::super::job_table::JobTableRow;
use super::super::mysql_event::MysqlEvent;
use super::super::primentra::SchedulerConfiguration;
use super::super::service_broker::ServiceBrokerJob;
use super::super::{Diagnostic, Schedule, Severity};
use super::row::{Row, fmt_timestamp};
use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};

/// The warning for a schedule whose forecast finds no run ahead. It needs a forecast, so the
/// caller builds it: when `next_after(id, schedule, tz, now, 1)` returns no occurrence and no
/// Error, add this to [`warnings`]' list.
pub fn never_fires_warning() -> Diagnostic {
    Diagnostic::new(Severity::Warning, None, None, "Never fires: as written, this schedule has no run ahead")
}

/// Warnings about `schedule` as of `now` (`now_local`: the same instant on the wall clock of
/// the schedule's zone). `pg_cron_version` is the installed `pg_cron` (`extversion`, e.g.
/// `(1, 4)`); `None` when unknown, which warns about nothing version-related.
///
/// - Disabled: Agent `enabled = 0`; pgAgent `jscenabled = false`; MySQL `STATUS` DISABLED or SLAVESIDE_DISABLED; job table
///   `job_status` PAUSED, DISABLED, ABORTED, FINISHED or ERROR; Service Broker / Primentra
///   `IsEnabled = 0`; Primentra `ProcessingMode` manual. (pg_cron's `active` is no part of
///   the schedule: see [`row_warnings`].)
/// - Ended: Agent `active_end_date` (at the day's last possible run) or a once schedule's
///   start; MySQL `ENDS` or a one-time event's `EXECUTE_AT`; job table
///   `job_schedule_finish`; Service Broker run-once `NextRunOn`; pgAgent `jscend`.
/// - pg_cron: day-of-month and day-of-week both restricted (Vixie cron runs on days matching
///   *either*); and for an installed version older than the feature: `cron.timezone` and
///   `'N seconds'` (1.5), `$` (1.6), `cron.alter_job` (1.4).
pub fn warnings(
    schedule: &Schedule,
    now: DateTime<Utc>,
    now_local: NaiveDateTime,
    pg_cron_version: Option<(u32, u32)>,
) -> Vec<Diagnostic> {
    let mut w = Vec::new();
    match schedule {
        Schedule::Agent(a) => agent(a, now_local, &mut w),
        Schedule::Cron(c) => cron(&c.expr, pg_cron_version, &mut w),
        Schedule::MysqlEvent(e) => mysql_event(e, now, now_local, &mut w),
        Schedule::JobTable(j) => job_table(j, now_local, &mut w),
        Schedule::ServiceBroker(j) => service_broker(j, now_local, &mut w),
        Schedule::Primentra(c) => primentra(c, &mut w),
        Schedule::PgAgent(p) => {
            if crate::pgagent::is_disabled(p) {
                w.push(Diagnostic::warning(
                    "jscenabled",
                    "false",
                    "the schedule is disabled: pgAgent does not run the job on it until it is enabled again",
                ));
            }
            if let Some(end) = crate::pgagent::ended(p, now, now_local) {
                w.push(Diagnostic::warning("jscend", end, "the schedule has ended: it will not run again"));
            }
        }
    }
    w
}

/// [`warnings`] for a parsed row, plus pg_cron's `active = false`.
pub fn row_warnings(
    row: &Row,
    now: DateTime<Utc>,
    now_local: NaiveDateTime,
    pg_cron_version: Option<(u32, u32)>,
) -> Vec<Diagnostic> {
    let mut w = Vec::new();
    if matches!(row.schedule, Schedule::Cron(_)) && row.active == Some(false) {
        w.push(Diagnostic::warning(
            "active",
            "false",
            "the job is inactive: pg_cron does not run it until active is true again",
        ));
    }
    w.extend(warnings(&row.schedule, now, now_local, pg_cron_version));
    w
}

fn flag_off(v: &Option<String>) -> bool {
    matches!(v.as_deref().map(|s| s.trim().to_ascii_lowercase()).as_deref(), Some("0" | "false"))
}

/// Agent: disabled, a once schedule already past, or an end date already past.
fn agent(a: &AgentSchedule, now_local: NaiveDateTime, w: &mut Vec<Diagnostic>) {
    if a.enabled == 0 {
        w.push(Diagnostic::warning(
            "enabled",
            0,
            "the schedule is disabled: it starts no job until it is enabled again",
        ));
    }
    if a.freq_type == 1 {
        if let (Some(d), Some(t)) = (date_from_int(a.active_start_date), time_from_int(a.active_start_time))
            && d.and_time(t) < now_local
        {
            w.push(Diagnostic::warning(
                "active_start_date",
                a.active_start_date,
                format!("runs once, at {}, which is already past: it will not run again", fmt_timestamp(d.and_time(t))),
            ));
        }
    } else if a.active_end_date != 99991231
        && let (Some(d), Some(start), Some(end)) =
            (date_from_int(a.active_end_date), time_from_int(a.active_start_time), time_from_int(a.active_end_time))
    {
        // The last moment the end date's runs can reach.
        let repeating = matches!(a.freq_subday_type, 2 | 4 | 8);
        let last = if !repeating {
            d.and_time(start)
        } else if end < start {
            d.and_time(end) + TimeDelta::days(1)
        } else {
            d.and_time(end)
        };
        if last < now_local {
            w.push(Diagnostic::warning(
                "active_end_date",
                a.active_end_date,
                format!("the schedule ended on {}: it will not run again", d.format("%Y-%m-%d")),
            ));
        }
    }
}

/// MySQL event: disabled (here or on this replica), or its ENDS or one-time EXECUTE_AT past
/// (on the event's own clock when its TIME_ZONE is a fixed offset).
fn mysql_event(e: &MysqlEvent, now: DateTime<Utc>, now_local: NaiveDateTime, w: &mut Vec<Diagnostic>) {
    let up = |v: &Option<String>| v.as_deref().map(|s| s.trim().to_ascii_uppercase()).filter(|s| !s.is_empty());
    match up(&e.status).as_deref() {
        Some("DISABLED") => w.push(Diagnostic::warning(
            "STATUS",
            "DISABLED",
            "the event is disabled: it does not run until it is enabled again",
        )),
        Some("SLAVESIDE_DISABLED") => w.push(Diagnostic::warning(
            "STATUS",
            "SLAVESIDE_DISABLED",
            "disabled on this replica: it runs on the source server, not here",
        )),
        _ => {}
    }
    let now_event = match fixed_offset(e.time_zone.as_deref()) {
        // At the ends of chrono's range the event's clock is taken as the instance's.
        Some(secs) => now.naive_utc().checked_add_signed(TimeDelta::seconds(secs)).unwrap_or(now_local),
        None => now_local,
    };
    let recurring = match up(&e.event_type).as_deref() {
        Some("RECURRING") => true,
        Some(_) => false,
        None => e.interval_value.is_some(),
    };
    let (field, v) = if recurring { ("ENDS", &e.ends) } else { ("EXECUTE_AT", &e.execute_at) };
    if let Some(t) = v.as_deref().and_then(parse_timestamp)
        && t < now_event
    {
        let msg = if recurring {
            format!("ENDS {} has passed: the event will not run again", fmt_timestamp(t))
        } else {
            format!("runs once, at {}, which is already past: it will not run again", fmt_timestamp(t))
        };
        w.push(Diagnostic::warning(field, fmt_timestamp(t), msg));
    }
}

/// Job table: a `job_status` that stops the runner or its work, or `job_schedule_finish` past.
fn job_table(j: &JobTableRow, now_local: NaiveDateTime, w: &mut Vec<Diagnostic>) {
    let status = j.job_status.as_deref().map(|s| s.trim().to_ascii_uppercase()).unwrap_or_default();
    let why = match status.as_str() {
        "PAUSED" => Some("the job is PAUSED: every cycle skips its work"),
        "DISABLED" => Some("the job is DISABLED: job$run will not start it"),
        "ABORTED" => Some("the job was ABORTED: its runner stopped"),
        "FINISHED" => Some("the job is FINISHED: its runner stopped"),
        "ERROR" => Some("the job is in ERROR: its runner stopped after a failure"),
        _ => None,
    };
    if let Some(why) = why {
        w.push(Diagnostic::warning("job_status", &status, why));
    }
    if let Some(t) = j.job_schedule_finish.as_deref().and_then(parse_timestamp)
        && t < now_local
    {
        w.push(Diagnostic::warning(
            "job_schedule_finish",
            fmt_timestamp(t),
            "the job's schedule has finished: the runner will not cycle again",
        ));
    }
}

/// Service Broker: disabled, or a run-once job whose `NextRunOn` is past.
fn service_broker(j: &ServiceBrokerJob, now_local: NaiveDateTime, w: &mut Vec<Diagnostic>) {
    if flag_off(&j.is_enabled) {
        w.push(Diagnostic::warning("IsEnabled", 0, "the job is disabled: no Service Broker timer runs it"));
    }
    let run_once = j.job_schedule_id.as_deref().map(str::trim) == Some("-1")
        || j.frequency_type.as_deref().is_none_or(|s| s.trim().is_empty());
    if run_once
        && let Some(t) = j.next_run_on.as_deref().and_then(parse_timestamp)
        && t < now_local
    {
        w.push(Diagnostic::warning(
            "NextRunOn",
            fmt_timestamp(t),
            "a run-once job whose run is already past: it will not run again",
        ));
    }
}

/// Primentra: disabled, or manual (the column's default).
fn primentra(c: &SchedulerConfiguration, w: &mut Vec<Diagnostic>) {
    if flag_off(&c.is_enabled) {
        w.push(Diagnostic::warning("IsEnabled", 0, "the entity is disabled: the dispatcher skips it"));
    }
    let mode = c.processing_mode.as_deref().map(|s| s.trim().to_ascii_lowercase()).filter(|s| !s.is_empty());
    if mode.as_deref().is_none_or(|m| m == "manual") {
        w.push(Diagnostic::warning(
            "ProcessingMode",
            mode.as_deref().unwrap_or("manual (default)"),
            "manual: the dispatcher never starts it, only someone clicking Process",
        ));
    }
}

/// Seconds east of UTC for a MySQL `TIME_ZONE` that is a fixed offset (`+05:30`, `-03:00`,
/// `UTC`); `None` for SYSTEM, a named zone, or nothing.
fn fixed_offset(tz: Option<&str>) -> Option<i64> {
    let t = tz?.trim();
    if t.eq_ignore_ascii_case("UTC") {
        return Some(0);
    }
    let (sign, rest) = match t.as_bytes().first()? {
        b'+' => (1, &t[1..]),
        b'-' => (-1, &t[1..]),
        _ => return None,
    };
    let (h, m) = rest.split_once(':')?;
    let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    if !(0..=14).contains(&h) || !(0..60).contains(&m) {
        return None;
    }
    Some(sign * (h * 3600 + m * 60))
}

fn cron(expr: &str, version: Option<(u32, u32)>, w: &mut Vec<Diagnostic>) {
    let plan = match parse(expr) {
        Ok(p) => p,
        Err(_) => return, // validate says what is wrong
    };
    let shown = expr.trim();
    if let Plan::Fields(f) = &plan
        && !f.and_days
    {
        let tok: Vec<&str> = shown.split_whitespace().collect();
        let (dom, dow) = (tok.get(2).copied().unwrap_or("?"), tok.get(4).copied().unwrap_or("?"));
        w.push(Diagnostic::warning(
            "schedule",
            shown,
            format!(
                "day-of-month '{dom}' and day-of-week '{dow}' are both restricted, so pg_cron \
                 (like Vixie cron) runs on every day that matches EITHER of them, not only on \
                 days that match both"
            ),
        ));
    }
    let Some((major, minor)) = version else {
        return;
    };
    let v = (major, minor);
    let name = format!("pg_cron {major}.{minor}");
    match &plan {
        Plan::Seconds(_) if v < (1, 5) => w.push(Diagnostic::warning(
            "schedule",
            shown,
            format!("{name} has no 'N seconds' schedules (they came with 1.5): cron.schedule rejects this one"),
        )),
        Plan::Fields(f) => {
            if v < (1, 5) {
                w.push(Diagnostic::warning(
                    "schedule",
                    shown,
                    format!(
                        "{name} ignores cron.timezone (it came with 1.5): it runs this schedule \
                         in GMT, whatever cron.timezone says"
                    ),
                ));
            }
            if f.last_dom && v < (1, 6) {
                w.push(Diagnostic::warning(
                    "schedule",
                    shown,
                    format!(
                        "{name} has no '$' (last day of the month; it came with 1.6): cron.schedule rejects this one"
                    ),
                ));
            }
        }
        _ => {}
    }
    if v < (1, 4) {
        w.push(Diagnostic::warning(
            "pg_cron",
            format!("{major}.{minor}"),
            format!(
                "{name} has no cron.alter_job (it came with 1.4): change the job with \
                 cron.schedule(jobname, schedule, command) or an UPDATE of cron.job"
            ),
        ));
    }
}
