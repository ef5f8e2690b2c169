//! Primentra's staging scheduler (seed 004): `SchedulerConfigurations` and `SchedulerLog`,
//! from SQL Server, PostgreSQL or SQLite (see [`super::tables`]).
//!
//! Each configuration row is a job (its entity); the log is its history: `fired` starts a
//! run, and the next `completed` (with `DurationMs`), `error` or `zombie` (a batch stuck past
//! 30 minutes and force-released) ends it. `skipped` (the overlap guard) starts nothing;
//! Sundial shows the tick as skipped because the run was still going. Log times are UTC
//! (`SYSUTCDATETIME()`); schedules (`RunTimes`) are read in the instance's zone.
use app::engine::fleet::{InstanceInput, JobInput, JobSchedule};
use app::engine::log::{LogEvent, LogKind};
use app::engine::primentra::SchedulerConfiguration;
use app::engine::{Diagnostic, Run, RunOutcome, Schedule, Trigger, Window};
use chrono::{DateTime, TimeDelta, Utc};
use chrono_tz::Tz;

use super::connect::TablesConn;
use super::tables::{self, Col, TablesDb, text};
use super::{BoxFuture, ReadContext, Source, SourceError, SourceRead};

/// The configuration columns Sundial reads.
pub const CONFIG_COLUMNS: &[Col] = &[
    Col::Plain("Id"),
    Col::Plain("EntityId"),
    Col::Plain("ProcessingMode"),
    Col::Plain("ScheduleType"),
    Col::Plain("IntervalMinutes"),
    Col::Plain("RunTimes"),
    Col::Plain("RunDays"),
    Col::Plain("RunDaysOfMonth"),
    Col::Plain("TriggerOnNewRows"),
    Col::Plain("TriggerRowThreshold"),
    Col::Plain("TriggerIdleMinutes"),
    Col::Plain("TriggerDebounceSeconds"),
    Col::Plain("IsRunning"),
    Col::Time("RunStartedAt"),
    Col::Plain("RunStartedBy"),
    Col::Time("NextScheduledRun"),
    Col::Time("LastCompletedAt"),
    Col::Time("LastTriggerCheck"),
    Col::Plain("IsEnabled"),
];

/// The log columns Sundial reads.
pub const LOG_COLUMNS: &[Col] = &[
    Col::Plain("Id"),
    Col::Plain("EntityId"),
    Col::Time("EventTime"),
    Col::Plain("EventType"),
    Col::Plain("TriggerSource"),
    Col::Plain("Message"),
    Col::Plain("DurationMs"),
];

/// The log query's tail: events from a day before the window (a run that started then may end
/// inside it) to its end.
pub fn log_tail(db: &TablesDb, window: Window) -> String {
    let t = tables::column(db, "EventTime");
    format!(
        "WHERE {t} >= {} AND {t} < {} ORDER BY {t}, {}",
        tables::time_literal(db, (window.start - TimeDelta::days(1)).naive_utc()),
        tables::time_literal(db, window.end.naive_utc()),
        tables::column(db, "Id")
    )
}

/// Primentra's scheduler tables as a [`Source`]; its `SchedulerLog` becomes the log.
#[derive(Default)]
pub struct Primentra {
    conn: TablesConn,
}

impl Source for Primentra {
    fn read<'a>(&'a self, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
        Box::pin(async move {
            let c = cx.config;
            let mut db = self.conn.open(c).await?;
            read_instance(&mut db, &c.name, c.time_zone.unwrap_or(chrono_tz::UTC), cx.window, cx.now).await
        })
    }

    fn reset(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.conn.forget())
    }
}

/// Every configuration and its runs inside `window`, and the log's events mapped onto Sundial's
/// log kinds (`fired` started, `completed` succeeded, `error` failed, `skipped`, `zombie`);
/// `now` is the poll's time (an interval schedule that never ran counts from it).
pub async fn read_instance(
    db: &mut TablesDb,
    name: &str,
    tz: Tz,
    window: Window,
    now: DateTime<Utc>,
) -> Result<SourceRead, SourceError> {
    let configs =
        tables::read(db, "SchedulerConfigurations", CONFIG_COLUMNS, &format!("ORDER BY {}", tables::column(db, "Id")))
            .await?;
    let tail = log_tail(db, window);
    let log = tables::read(db, "SchedulerLog", LOG_COLUMNS, &tail).await?;
    let mut notes = Vec::new();
    if configs.is_empty() {
        notes.push(Diagnostic::info("SchedulerConfigurations has no rows"));
    }

    let mut events = Vec::new();
    let mut jobs = Vec::with_capacity(configs.len());
    for (i, r) in configs.iter().enumerate() {
        let mut diagnostics = Vec::new();
        let entity = text(r, "EntityId").or(text(r, "Id")).unwrap_or("?").to_owned();
        let mut c: SchedulerConfiguration = match serde_json::from_value(tables::to_json(r)) {
            Ok(c) => c,
            Err(e) => {
                diagnostics.push(Diagnostic::error(
                    "SchedulerConfigurations",
                    &entity,
                    format!("the row cannot be read: {e}"),
                ));
                SchedulerConfiguration::default()
            }
        };
        c.now = Some(now.naive_utc().format("%Y-%m-%d %H:%M:%S").to_string());
        // Interval schedules count from the last run: the last `fired` in the log, else the
        // last completion the row remembers.
        let fired_last = log
            .iter()
            .filter(|e| {
                text(e, "EntityId") == Some(entity.as_str())
                    && text(e, "EventType").is_some_and(|t| t.eq_ignore_ascii_case("fired"))
            })
            .filter_map(|e| text(e, "EventTime"))
            .next_back()
            .map(str::to_owned);
        c.last_run = fired_last.or_else(|| c.last_completed_at.clone());
        let mode = c.processing_mode.clone().unwrap_or_else(|| "manual".into());
        let enabled = text(r, "IsEnabled").is_none_or(|v| v != "0" && !v.eq_ignore_ascii_case("false"));

        // The log: fired … completed | error | zombie.
        let mut runs: Vec<Run> = Vec::new();
        let mut open: Option<usize> = None;
        for e in log.iter().filter(|e| text(e, "EntityId") == Some(entity.as_str())) {
            let Some(at) = text(e, "EventTime").and_then(tables::wall_clock).map(|t| t.and_utc()) else {
                diagnostics.push(Diagnostic::warning(
                    "EventTime",
                    text(e, "EventTime").unwrap_or("NULL"),
                    "SchedulerLog row without a readable time; left out",
                ));
                continue;
            };
            let message = text(e, "Message").unwrap_or_default().to_owned();
            let ms: Option<i64> = text(e, "DurationMs").and_then(|d| d.parse().ok());
            let kind = text(e, "EventType").unwrap_or_default().to_ascii_lowercase();
            if let Some(k) = LogKind::from_primentra(&kind).filter(|_| window.contains(at)) {
                let source = text(e, "TriggerSource").map(|t| format!("[{t}] ")).unwrap_or_default();
                let took = ms.map(|m| format!(" ({} s)", m / 1000)).unwrap_or_default();
                events.push(LogEvent {
                    at,
                    job_id: entity.clone(),
                    kind: k,
                    text: format!("{kind}: {source}{message}{took}").trim().to_owned(),
                    members: Vec::new(),
                });
            }
            let close = |runs: &mut Vec<Run>, open: &mut Option<usize>, outcome: RunOutcome, message: String| {
                let idx = match open.take() {
                    Some(i) => i,
                    None => {
                        // An end without its start (the start is older than the read): from the duration.
                        let start = at - TimeDelta::milliseconds(ms.unwrap_or(0));
                        runs.push(Run {
                            start,
                            duration_secs: 0,
                            outcome,
                            trigger: Trigger::Schedule(None),
                            message: String::new(),
                        });
                        runs.len() - 1
                    }
                };
                let run = &mut runs[idx];
                run.duration_secs = ms.map_or((at - run.start).num_seconds(), |m| m / 1000).max(0);
                run.outcome = outcome;
                run.message = message;
            };
            match kind.as_str() {
                "fired" => {
                    if let Some(prev) = open.take() {
                        runs[prev].message = "fired again before this run was logged as ended".into();
                    }
                    let trigger = match text(e, "TriggerSource") {
                        None => Trigger::Schedule(Some(i as i64 + 1)),
                        Some(s) if s.eq_ignore_ascii_case("schedule") || s.eq_ignore_ascii_case("scheduled") => {
                            Trigger::Schedule(Some(i as i64 + 1))
                        }
                        Some(s) if s.eq_ignore_ascii_case("manual") => Trigger::Manual,
                        Some(s) => Trigger::Other(s.to_owned()),
                    };
                    runs.push(Run {
                        start: at,
                        duration_secs: (now - at).num_seconds().max(0),
                        outcome: RunOutcome::InProgress,
                        trigger,
                        message,
                    });
                    open = Some(runs.len() - 1);
                }
                "completed" => close(&mut runs, &mut open, RunOutcome::Succeeded, message),
                "error" => close(&mut runs, &mut open, RunOutcome::Failed, message),
                "zombie" => close(
                    &mut runs,
                    &mut open,
                    RunOutcome::Failed,
                    format!("released as a zombie (stuck over 30 minutes): {message}"),
                ),
                "skipped" => {}
                other => diagnostics.push(Diagnostic::warning(
                    "EventType",
                    other,
                    "not one of fired, skipped, error, completed, zombie; left out",
                )),
            }
        }
        runs.retain(|r| window.contains(r.start));
        jobs.push(JobInput {
            id: entity.clone(),
            name: format!("Entity {entity}"),
            category: format!("Primentra / {mode}"),
            enabled,
            schedules: vec![JobSchedule {
                id: i as i64 + 1,
                name: format!("{mode} {}", c.schedule_type.clone().unwrap_or_default()),
                enabled,
                schedule: Schedule::Primentra(c),
            }],
            runs,
            history_horizon: None,
            unobserved: Vec::new(),
            diagnostics,
        });
    }
    let input = InstanceInput { name: name.to_owned(), tz: tz.into(), jobs, agent_starts: Vec::new() };
    Ok(SourceRead { events, ..SourceRead::new(input, notes, now) })
}
