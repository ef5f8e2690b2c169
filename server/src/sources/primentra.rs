//! Primentra's staging scheduler: `Entities`, `SchedulerConfigurations` and `SchedulerLog`,
//! from SQL Server, PostgreSQL, MySQL/MariaDB or SQLite (see [`super::tables`]).
//!
//! The dispatcher picks up a configuration through `INNER JOIN Entities ON Entities.Id =
//! EntityId`, so a configuration is a job only when its entity exists; the job is named by the
//! entity's `Name` and keyed by its `EntityId`. A configuration whose entity is gone (or
//! whose `EntityId` is NULL) is never dispatched: it is an orphan, said once in the instance's
//! notes, not a job expecting runs. When `Entities` cannot be read (missing, no grant) the
//! read goes on with jobs named by their `EntityId`, and a note says orphans cannot be told.
//!
//! The log is the history: `fired` starts a run, and the entity's next `completed` (with
//! `DurationMs`: succeeded), `error` (failed) or `zombie` (a batch stuck past 30 minutes, force-
//! released by the dispatcher: abandoned) ends it. The dispatcher calls the batch procedure
//! inside its cycle, so a batch's end follows its `fired`; an `error` with no run open is the
//! dispatcher's own (its CATCH logs no batch: a trigger evaluation or a schedule calculation
//! that failed), a line in the log and not a run — unless it carries its batch (`BatchId` or
//! `DurationMs`) and the batch started before the rows read. A `fired` while a run is still
//! open means that run never logged its end: crashed. `skipped` (the overlap guard) starts
//! nothing; Sundial shows the tick as skipped because the run was still going. Every log row
//! is a line of the log, orphans' included.
//!
//! Log times are UTC (`SYSUTCDATETIME()`), and so is `NextScheduledRun` (checked against the
//! forecast by [`super::finish`]); schedules (`RunTimes`) are read in the instance's zone.
//!
//! Read incrementally ([`read_since`]): a first read takes the window's log; after it, a poll
//! asks `SchedulerLog` only for the rows past the `Id` high-water mark and the `fired` row of
//! each run still open (the [`Mark`]'s `open`: its end is a row yet to come), both by the
//! primary key, and answers a delta that `super::read` merges into the held read: the held log
//! and the schedule's earlier fires stay, the rows read again add no line. `Entities` and
//! `SchedulerConfigurations` (a row per job, updated in place) are read whole each poll. An `Id`
//! that went back (the log truncated, its identity reseeded) is read whole again and noted.
//! The log is read by pages of `Id` ([`tables::read_pages`], 1,000 rows a query), the first
//! read's window as much as a delta, and the open `fired` rows by lists of 1,000 `Id`s.
use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use chrono_tz::Tz;
use sundial_engine::fleet::{InstanceInput, JobInput, JobSchedule};
use sundial_engine::log::{LogEvent, LogKind};
use sundial_engine::primentra::SchedulerConfiguration;
use sundial_engine::{Diagnostic, Run, RunOutcome, Schedule, ScheduleId, Severity, Trigger, Window};

use super::tables::{self, Col, TablesDb, TextRow, text};
use super::{BoxFuture, Extent, Mark, ReadContext, ReportedNext, SourceError, SourceRead};

/// The entity columns Sundial reads (the design's dispatcher joins on `Id` and shows `Name`).
pub const ENTITY_COLUMNS: &[Col] = &[Col::Plain("Id"), Col::Plain("Name")];

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
    Col::Plain("RowsQueued"),
    Col::Plain("DurationMs"),
    Col::Plain("BatchId"),
];

/// The tail that reads a table in `Id` order (entities, configurations).
pub fn by_id(db: &TablesDb) -> String {
    format!("ORDER BY {}", tables::column(db, "Id"))
}

/// The log query's condition: events from a day before the window (a run that started then may
/// end inside it) to its end (read by pages of `Id`, [`tables::read_pages`]).
pub fn log_range(db: &TablesDb, window: Window) -> String {
    let t = tables::column(db, "EventTime");
    format!(
        "{t} >= {} AND {t} < {}",
        tables::time_literal(db, (window.start - TimeDelta::days(1)).naive_utc()),
        tables::time_literal(db, window.end.naive_utc()),
    )
}

/// One read of Primentra's scheduler tables (the kind's read for
/// [`super::connect::TablesSource`]); its `SchedulerLog` becomes the log. With a held read
/// that has a [`Mark`], only what is new ([`read_since`]).
pub fn read<'a>(db: &'a mut TablesDb, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
    let c = cx.config;
    Box::pin(async move {
        let held = cx.held.filter(|h| h.mark.is_some());
        read_since(db, &c.name, c.time_zone.unwrap_or(chrono_tz::UTC), cx.window, cx.now, held).await
    })
}

/// Every configuration whose entity exists, as a job with its runs inside `window`; orphaned
/// configurations as notes; the log's events mapped onto Sundial's log kinds (`fired` started,
/// `completed` succeeded, `error` failed, `skipped`, `zombie`); `NextScheduledRun` as the
/// scheduler's own next run. `now` is the poll's time (an interval schedule that never ran
/// counts from it). A whole read: [`read_since`] with nothing held.
pub async fn read_instance(
    db: &mut TablesDb,
    name: &str,
    tz: Tz,
    window: Window,
    now: DateTime<Utc>,
) -> Result<SourceRead, SourceError> {
    read_since(db, name, tz, window, now, None).await
}

/// The log's columns a finding about one of its rows names: such findings of a held read stay
/// on a delta, which reads only the new rows.
const ROW_FIELDS: &[&str] = &["EventTime", "EventType", "DurationMs"];

/// The log row at one end of `SchedulerLog` by `Id` (`latest`, else the oldest): its `Id` and
/// `EventTime` (`None` when it is not a time); `None`: the table is empty.
async fn log_end(db: &mut TablesDb, latest: bool) -> Result<Option<(i64, Option<NaiveDateTime>)>, SourceError> {
    let cols = [Col::Plain("Id"), Col::Time("EventTime")];
    let rows = tables::read_end(db, "SchedulerLog", &cols, "Id", latest).await?;
    Ok(rows.first().and_then(|r| Some((row_id(r)?, text(r, "EventTime").and_then(tables::wall_clock)))))
}

/// A log row's `Id` (an identity: it only grows).
fn row_id(r: &TextRow) -> Option<i64> {
    text(r, "Id").and_then(|v| v.parse().ok())
}

/// Why `SchedulerLog`'s `Id`s went back below `mark` (`None`: they did not). `Id` is an identity
/// and a purge removes the oldest rows, so a latest `Id` below the mark, or an oldest one below
/// the oldest seen before (or the same one on a row of another time), means the log was
/// replaced (truncated and its identity reseeded, restored): the rows up to the mark are not
/// the ones Sundial read.
fn went_back(mark: &Mark, low: Option<(i64, Option<NaiveDateTime>)>, high: Option<i64>) -> Option<String> {
    let low = low.map(|(id, at)| (id, at.map(|t| t.and_utc())));
    mark.went_back(low, high, ("SchedulerLog's", "Id", "the log was truncated or its identity reseeded"))
}

/// [`read_instance`], asking `SchedulerLog` only for what `held` (a read with a [`Mark`]) does
/// not hold: the rows past its `Id` high-water mark, and the `fired` row of each run the held
/// read has open (by `Id`), whose end a new row may log — both by the primary key. The small
/// tables (`SchedulerConfigurations`, `Entities`: one row per job, updated in place) are read
/// whole each poll. When the `Id`s went back ([`went_back`]) the window is read whole again and
/// the read says why on the instance. Answers a [`Extent::Delta`] after a held read: its log is
/// the held log of the window with the new rows' lines.
pub async fn read_since(
    db: &mut TablesDb,
    name: &str,
    tz: Tz,
    window: Window,
    now: DateTime<Utc>,
    held: Option<&SourceRead>,
) -> Result<SourceRead, SourceError> {
    let since = held.and_then(|h| h.mark.as_ref());
    let configs = tables::read(db, "SchedulerConfigurations", CONFIG_COLUMNS, &by_id(db)).await?;
    let mut notes = Vec::new();
    let entities = read_entities(db, &mut notes).await?;
    // Both ends before the rows: a row added meanwhile is read now or by the next poll.
    let (mut low, mut high) = (None, None);
    if since.is_some() {
        low = log_end(db, false).await?;
        high = log_end(db, true).await?.map(|h| h.0);
    }
    let went_back = since.and_then(|m| went_back(m, low, high));
    let mut restarted = since.and_then(|m| m.restarted.clone()).filter(|(at, _)| now - *at < TimeDelta::days(1));
    // Rows a held read already logged (an open run's `fired`, read again) add no line.
    let logged = since.filter(|_| went_back.is_none()).map(|m| m.high);
    let (extent, mut log) = match since.filter(|_| went_back.is_none()) {
        Some(mark) => {
            let mut log = tables::read_pages(db, "SchedulerLog", LOG_COLUMNS, "", "Id", Some(mark.high)).await?;
            log.extend(tables::read_keys(db, "SchedulerLog", LOG_COLUMNS, "Id", &mark.open).await?);
            (Extent::Delta, log)
        }
        None => {
            // Read again after the history went back, the window's rows are added to what
            // Sundial holds (runs it read before still happened), not put in its place.
            let extent = if went_back.is_some() { Extent::Delta } else { Extent::Whole };
            if let Some(why) = went_back {
                restarted = Some((now, why));
            }
            let log = tables::read_pages(db, "SchedulerLog", LOG_COLUMNS, &log_range(db, window), "Id", None).await?;
            if log.is_empty() && high.is_none() {
                high = log_end(db, true).await?.map(|h| h.0);
            }
            (extent, log)
        }
    };
    // In time order, as the whole read asks for it.
    log.sort_by_cached_key(|r| (text(r, "EventTime").and_then(tables::wall_clock), row_id(r)));
    if configs.is_empty() {
        notes.push(Diagnostic::info("SchedulerConfigurations has no rows"));
    }
    let mut by_entity: BTreeMap<&str, Vec<&TextRow>> = BTreeMap::new();
    for e in &log {
        by_entity.entry(text(e, "EntityId").unwrap_or("")).or_default().push(e);
    }
    let delta = extent == Extent::Delta;
    let held_job = |id: &str| held.filter(|_| delta).and_then(|h| h.input.jobs.iter().find(|j| j.id == id));

    let mut events = Vec::new();
    let mut open = Vec::new();
    let mut jobs = Vec::with_capacity(configs.len());
    let mut reported_next = Vec::new();
    for (i, r) in configs.iter().enumerate() {
        let entity = match owner(r, entities.as_ref()) {
            Ok(entity) => entity,
            Err(orphan) => {
                notes.push(orphan);
                continue;
            }
        };
        let rows = by_entity.remove(entity.id.as_str()).unwrap_or_default();
        let schedule_id = i as ScheduleId + 1;
        let mut history = History::of(&entity.id, &rows, schedule_id, window, now, logged);
        events.extend(history.events);
        open.extend(history.open);
        if let Some(before) = held_job(&entity.id) {
            // The schedule's fires before the rows read: the held job's, else its runs'.
            let fired = before
                .schedules
                .iter()
                .find_map(|s| match &s.schedule {
                    Schedule::Primentra(c) => Some(c.fired.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| {
                    let mut starts: Vec<DateTime<Utc>> = before
                        .runs
                        .iter()
                        .filter(|r| matches!(r.trigger, Trigger::Schedule(Some(_))))
                        .map(|r| r.start)
                        .collect();
                    starts.sort();
                    starts.iter().map(|t| t.naive_utc().format("%Y-%m-%d %H:%M:%S%.f").to_string()).collect()
                });
            let mut all: Vec<String> = fired.into_iter().filter(|f| !history.scheduled.contains(f)).collect();
            all.append(&mut history.scheduled);
            history.scheduled = all;
            carry(&before.diagnostics, &mut history.diagnostics);
        }
        let (job, next) = job(r, entity, schedule_id, history.runs, history.diagnostics, history.scheduled, now);
        jobs.push(job);
        reported_next.extend(next);
    }
    // The log of entities that are no job (orphans, deleted configurations) still shows.
    for (entity, rows) in by_entity {
        let history = History::of(entity, &rows, 0, window, now, logged);
        events.extend(history.events);
        open.extend(history.open);
        notes.extend(history.diagnostics);
    }
    if let (true, Some(held)) = (delta, held) {
        // The held log of the window, and the findings on its rows, stay.
        // (Read whole again after the history went back, a line may be both: once.)
        let before: Vec<LogEvent> =
            held.events.iter().filter(|e| e.at >= window.start && !events.contains(*e)).cloned().collect();
        events.extend(before);
        let mut kept = Vec::new();
        carry(&held.notes, &mut kept);
        for d in kept {
            if !notes.contains(&d) {
                notes.push(d);
            }
        }
    }
    if let Some((at, why)) = &restarted {
        notes.push(Diagnostic::new(
            Severity::Warning,
            Some("Id"),
            None,
            format!(
                "{why}: at {} UTC Sundial read the whole window again (runs it kept before are still shown)",
                at.format("%Y-%m-%d %H:%M:%S")
            ),
        ));
    }
    events.sort_by_key(|e| e.at);
    let mark = Mark {
        high: log
            .iter()
            .filter_map(row_id)
            .chain(high)
            .chain(since.filter(|_| delta).map(|m| m.high))
            .max()
            .unwrap_or(0),
        low: low.and_then(|(id, at)| Some((id, at?.and_utc()))).or_else(|| since.and_then(|m| m.low)),
        open,
        restarted,
    };
    let input = InstanceInput::new(name, tz.into(), jobs, Vec::new());
    Ok(SourceRead { events, reported_next, extent, mark: Some(mark), ..SourceRead::new(input, notes, now) })
}

/// The findings of `from` about log rows ([`ROW_FIELDS`]) added to `to`, once each.
fn carry(from: &[Diagnostic], to: &mut Vec<Diagnostic>) {
    for d in from.iter().filter(|d| d.field.as_deref().is_some_and(|f| ROW_FIELDS.contains(&f))) {
        if !to.contains(d) {
            to.push(d.clone());
        }
    }
}

/// `Entities` as `Id` → `Name`; `None`, with a note, when the table cannot be read (missing, or
/// no SELECT on it): the read goes on without names.
async fn read_entities(
    db: &mut TablesDb,
    notes: &mut Vec<Diagnostic>,
) -> Result<Option<BTreeMap<String, Option<String>>>, SourceError> {
    match tables::read(db, "Entities", ENTITY_COLUMNS, &by_id(db)).await {
        Ok(rows) => Ok(Some(
            rows.iter()
                .filter_map(|r| text(r, "Id").map(|id| (id.to_owned(), text(r, "Name").map(str::to_owned))))
                .collect(),
        )),
        Err(e @ (SourceError::Missing { .. } | SourceError::Permission { .. })) => {
            notes.push(Diagnostic::new(
                Severity::Warning,
                Some("Entities"),
                None,
                format!(
                    "{e}: jobs are named by their EntityId, and a configuration whose entity is gone cannot be told"
                ),
            ));
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// The entity a configuration belongs to.
struct Entity {
    /// `EntityId` as text: the job's id.
    id: String,
    name: String,
}

/// The entity of configuration row `r`, or the note saying it is an orphan (no `EntityId`, or
/// no `Entities` row with it: the dispatcher's `INNER JOIN` never picks it up). Without
/// `entities` (unreadable) every configuration with an `EntityId` is taken as owned.
fn owner(r: &TextRow, entities: Option<&BTreeMap<String, Option<String>>>) -> Result<Entity, Diagnostic> {
    let config = text(r, "Id").unwrap_or("?");
    let Some(id) = text(r, "EntityId") else {
        return Err(Diagnostic::warning(
            "EntityId",
            "NULL",
            format!(
                "SchedulerConfigurations row {config} belongs to no entity: an orphaned configuration, never dispatched \
                 (the dispatcher skips a NULL EntityId); not shown as a job"
            ),
        ));
    };
    let name = match entities {
        None => None,
        Some(known) => match known.get(id) {
            Some(name) => name.clone(),
            None => {
                return Err(Diagnostic::warning(
                    "EntityId",
                    id,
                    format!(
                        "SchedulerConfigurations row {config}: no Entities row has Id {id}, the entity is gone: an \
                         orphaned configuration, never dispatched (the dispatcher joins Entities); not shown as a job"
                    ),
                ));
            }
        },
    };
    Ok(Entity { id: id.to_owned(), name: name.unwrap_or_else(|| format!("Entity {id}")) })
}

/// The job of configuration row `r` (whose entity is `entity`), and the scheduler's own next
/// run when it is a scheduled, enabled one.
fn job(
    r: &TextRow,
    entity: Entity,
    schedule_id: ScheduleId,
    runs: Vec<Run>,
    mut diagnostics: Vec<Diagnostic>,
    scheduled: Vec<String>,
    now: DateTime<Utc>,
) -> (JobInput, Option<ReportedNext>) {
    let mut c: SchedulerConfiguration = match serde_json::from_value(tables::to_json(r)) {
        Ok(c) => c,
        Err(e) => {
            diagnostics.push(Diagnostic::error(
                "SchedulerConfigurations",
                &entity.id,
                format!("the row cannot be read: {e}"),
            ));
            SchedulerConfiguration::default()
        }
    };
    c.now = Some(now.naive_utc().format("%Y-%m-%d %H:%M:%S%.f").to_string());
    // Interval schedules count from each run the schedule fired (the log's `fired` by the
    // schedule, from a day before the window: `CalculateNextRun` after each), the next ones from
    // the last of them, else from the last completion the row remembers.
    c.last_run = scheduled.last().cloned().or_else(|| c.last_completed_at.clone());
    c.fired = scheduled;
    let mode = c.processing_mode.clone().unwrap_or_else(|| "manual".into());
    let enabled = text(r, "IsEnabled").is_none_or(|v| v != "0" && !v.eq_ignore_ascii_case("false"));
    let next = (enabled && mode.trim().eq_ignore_ascii_case("scheduled"))
        .then(|| text(r, "NextScheduledRun"))
        .flatten()
        .and_then(|raw| {
            tables::wall_clock(raw).map(|at| ReportedNext {
                job_id: entity.id.clone(),
                at: at.and_utc(),
                column: "NextScheduledRun",
                raw: raw.to_owned(),
            })
        });
    let job = JobInput {
        id: entity.id,
        name: entity.name,
        category: format!("Primentra / {mode}"),
        // SchedulerConfigurations records no owner (RunStartedBy is who started a run).
        owner: None,
        enabled,
        command: None,
        schedules: vec![JobSchedule {
            id: schedule_id,
            name: format!("{mode} {}", c.schedule_type.clone().unwrap_or_default()).trim().to_owned(),
            enabled,
            schedule: Schedule::Primentra(c),
        }],
        runs,
        history_horizon: None,
        source_horizon: None,
        unobserved: Vec::new(),
        diagnostics,
        earlier: Vec::new(),
        modified: None,
    };
    (job, next)
}

/// One entity's log rows, read: its runs (those starting in the window), its log lines (those
/// in the window), what was odd, and the last time its schedule fired.
struct History {
    runs: Vec<Run>,
    events: Vec<LogEvent>,
    diagnostics: Vec<Diagnostic>,
    /// `EventTime` of every `fired` by the schedule, as the table wrote it, oldest first.
    scheduled: Vec<String>,
    /// The `Id` of the `fired` row of the run still open after the rows (its end may come).
    open: Option<i64>,
}

/// One log row, read.
struct Event<'a> {
    at: DateTime<Utc>,
    /// `EventType`, lower case.
    kind: String,
    source: Option<&'a str>,
    message: String,
    ms: Option<i64>,
    batch: Option<&'a str>,
    rows: Option<&'a str>,
}

impl<'a> Event<'a> {
    /// Row `e`, or the diagnostic saying why it is left out.
    fn read(e: &'a TextRow) -> Result<Event<'a>, Diagnostic> {
        let Some(at) = text(e, "EventTime").and_then(tables::wall_clock).map(|t| t.and_utc()) else {
            return Err(Diagnostic::warning(
                "EventTime",
                text(e, "EventTime").unwrap_or("NULL"),
                "SchedulerLog row without a readable time; left out",
            ));
        };
        Ok(Event {
            at,
            kind: text(e, "EventType").unwrap_or_default().to_ascii_lowercase(),
            source: text(e, "TriggerSource"),
            message: text(e, "Message").unwrap_or_default().to_owned(),
            ms: text(e, "DurationMs").and_then(|d| d.parse().ok()),
            batch: text(e, "BatchId"),
            rows: text(e, "RowsQueued"),
        })
    }

    /// The batch's own logging wrote it (a batch id or a duration), not the dispatcher's CATCH.
    fn has_batch(&self) -> bool {
        self.batch.is_some() || self.ms.is_some()
    }

    /// Who started a `fired` run.
    fn trigger(&self, schedule: ScheduleId) -> Trigger {
        match self.source {
            None => Trigger::Schedule(Some(schedule)),
            Some(s) if s.eq_ignore_ascii_case("schedule") || s.eq_ignore_ascii_case("scheduled") => {
                Trigger::Schedule(Some(schedule))
            }
            Some(s) if s.eq_ignore_ascii_case("manual") => Trigger::Manual,
            Some(s) => Trigger::Other(s.to_owned()),
        }
    }
}

impl History {
    /// Entity `entity`'s log `rows` (in time order); `schedule` is its configuration's schedule.
    /// Rows whose `Id` is at most `logged` were logged by an earlier read: they add no line.
    fn of(
        entity: &str,
        rows: &[&TextRow],
        schedule: ScheduleId,
        window: Window,
        now: DateTime<Utc>,
        logged: Option<i64>,
    ) -> History {
        let mut h = History {
            runs: Vec::new(),
            events: Vec::new(),
            diagnostics: Vec::new(),
            scheduled: Vec::new(),
            open: None,
        };
        // The run whose end the log has not said yet, and its `fired` row's `Id`.
        let mut open: Option<usize> = None;
        let mut open_row = None;
        for row in rows {
            let e = match Event::read(row) {
                Ok(e) => e,
                Err(d) => {
                    h.diagnostics.push(d);
                    continue;
                }
            };
            let ended = match e.kind.as_str() {
                "fired" => {
                    h.fire(&e, schedule, now, &mut open);
                    open_row = row_id(row);
                    if matches!(e.trigger(schedule), Trigger::Schedule(_)) {
                        h.scheduled.extend(text(row, "EventTime").map(str::to_owned));
                    }
                    None
                }
                "completed" => Some(h.end(&e, &mut open, RunOutcome::Succeeded, e.message.clone())),
                "error" if open.is_none() && !e.has_batch() => None,
                "error" => Some(h.end(&e, &mut open, RunOutcome::Failed, e.message.clone())),
                "zombie" if open.is_none() => None,
                "zombie" => Some(h.end(
                    &e,
                    &mut open,
                    RunOutcome::Abandoned,
                    format!("released as a zombie by the dispatcher (stuck over 30 minutes): {}", e.message),
                )),
                "skipped" => None,
                other => {
                    h.diagnostics.push(Diagnostic::warning(
                        "EventType",
                        other,
                        "not one of fired, skipped, error, completed, zombie; left out",
                    ));
                    continue;
                }
            };
            let old = logged.is_some_and(|l| row_id(row).is_some_and(|id| id <= l));
            if window.contains(e.at) && !old {
                h.events.push(line(entity, &e, ended));
            }
        }
        h.open = open.and(open_row);
        h.runs.retain(|r| window.contains(r.start));
        h
    }

    /// A `fired`: a run starts. One still open never logged its end: it crashed.
    fn fire(&mut self, e: &Event, schedule: ScheduleId, now: DateTime<Utc>, open: &mut Option<usize>) {
        if let Some(prev) = open.take() {
            let run = &mut self.runs[prev];
            run.outcome = RunOutcome::Crashed;
            run.duration_secs = (e.at - run.start).num_seconds().max(0);
            run.message = "never logged an end: fired again before it was logged as ended".into();
        }
        self.runs.push(Run {
            start: e.at,
            duration_secs: (now - e.at).num_seconds().max(0),
            outcome: RunOutcome::InProgress,
            trigger: e.trigger(schedule),
            message: e.message.clone(),
            steps: Vec::new(),
        });
        *open = Some(self.runs.len() - 1);
    }

    /// An end (`completed`, `error` or `zombie`): of the open run, else of a batch that started
    /// before the rows read (its start from `DurationMs`, when the row has one). Returns whether
    /// it ended a run.
    fn end(&mut self, e: &Event, open: &mut Option<usize>, outcome: RunOutcome, message: String) -> bool {
        let idx = match (open.take(), e.ms) {
            (Some(i), _) => i,
            (None, Some(ms)) => {
                // A DurationMs no run can have (a start before chrono's range) overflowed here.
                let Some(start) = TimeDelta::try_milliseconds(ms).and_then(|d| e.at.checked_sub_signed(d)) else {
                    self.diagnostics.push(Diagnostic::warning(
                        "DurationMs",
                        ms,
                        format!("SchedulerLog row at {}: not a run's duration; the run it ends is left out", e.at),
                    ));
                    return false;
                };
                self.runs.push(Run {
                    start,
                    duration_secs: 0,
                    outcome,
                    trigger: Trigger::Schedule(None),
                    message: String::new(),
                    steps: Vec::new(),
                });
                self.runs.len() - 1
            }
            (None, None) => return false,
        };
        let run = &mut self.runs[idx];
        run.duration_secs = e.ms.map_or((e.at - run.start).num_seconds(), |m| m / 1000).max(0);
        run.outcome = outcome;
        run.message = message;
        true
    }
}

/// The log line of event `e` of `entity`; `ended`: whether it ended a run (`None`: not an end).
fn line(entity: &str, e: &Event, ended: Option<bool>) -> LogEvent {
    let kind = LogKind::from_primentra(&e.kind).unwrap_or(LogKind::Failed);
    let what = match (e.kind.as_str(), ended) {
        ("error", None) => "error (the dispatcher's, no batch)".to_owned(),
        ("zombie", None) => "zombie (no batch started in the log read)".to_owned(),
        (k, _) => k.to_owned(),
    };
    let source = e.source.map(|t| format!("[{t}] ")).unwrap_or_default();
    let batch = e.batch.map(|b| format!(" (batch {b})")).unwrap_or_default();
    let rows = e.rows.map(|n| format!(" ({n} rows)")).unwrap_or_default();
    let took = e.ms.map(|m| format!(" ({} s)", m / 1000)).unwrap_or_default();
    LogEvent {
        at: e.at,
        job_id: entity.to_owned(),
        kind,
        text: format!("{what}: {source}{}{rows}{took}{batch}", e.message).trim().to_owned(),
        members: Vec::new(),
    }
}
