//! MySQL / MariaDB events: `information_schema.EVENTS`, read-only, plus Sundial's own samples.
//!
//! MySQL keeps no run history for events, only `LAST_EXECUTED`. Sundial records it at every
//! poll in its [`Store`], so runs accumulate from the first poll on; an occurrence before that
//! is unknown (the job's history horizon says how far back Sundial's samples go). Between two
//! polls only the last execution is visible: when an event fires more often than Sundial
//! polls, the stretch between a poll and the next sample is *unobserved* (a missing run there
//! is unknown, not missed), while a stretch in which polls saw `LAST_EXECUTED` stand still is
//! a real miss. Failures come from `performance_schema.events_statements_history_long` (each
//! event execution is a thread; an errno there fails the run) when it is enabled and readable.
//!
//! Least privilege: `EVENT` on the schemas whose events Sundial should see (information_schema
//! shows no event without it; it is the only grant MySQL offers for that), and optionally
//! `SELECT ON performance_schema.*` for failures. Every session is `READ ONLY`, so no
//! statement through Sundial's pool can change data.
//!
//! The same tables can also be read from a SQLite file (an instance with `path = "…"`, as the
//! built-in demo's MariaDB is): `EVENTS` with `information_schema.EVENTS`' columns (times as
//! text in each event's `TIME_ZONE`, as MySQL shows them) and `GLOBAL_VARIABLES`
//! (`VARIABLE_NAME`, `VARIABLE_VALUE`: `time_zone`, `system_time_zone`, `event_scheduler`),
//! read through [`super::tables`] from a file opened read-only. A file has no
//! performance_schema: runs come from Sundial's samples only, and a note says failures cannot
//! be told.
//!
//! What a poll reads that grows with history is Sundial's own samples, not the server's tables
//! (`information_schema.EVENTS` has a row per event; `events_statements_history_long` is a
//! bounded ring): an event firing every minute leaves 43,200 samples in 30 days. The source
//! holds each event's samples between polls ([`SampleCache`]) and asks the store only for the
//! newest one held (its `seen_until` grows) and those after it; the window's are read again
//! after a restart, or when an event's `LAST_EXECUTED` went back below the newest sample held.
use chrono::{DateTime, FixedOffset, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;
use sqlx::Row;
use sqlx::mysql::{MySqlDatabaseError, MySqlPool};
use sqlx::sqlite::SqlitePool;
use sundial_engine::fleet::{InstanceInput, JobInput, JobSchedule};
use sundial_engine::mysql_event::MysqlEvent;
use sundial_engine::{Diagnostic, Run, RunOutcome, Schedule, Severity, Trigger, Window};

use super::connect::{self, Kept};
use super::snapshots::{EventSamples, Store};
use super::tables::{self, Col, TablesDb, text};
use super::{BoxFuture, ReadContext, Source, SourceError, SourceRead};

fn query_error(object: &'static str, grant: &'static str, e: sqlx::Error) -> SourceError {
    if let sqlx::Error::Database(db) = &e {
        let number = db.try_downcast_ref::<MySqlDatabaseError>().map(|m| m.number());
        return match number {
            // ER_DBACCESS_DENIED, ER_TABLEACCESS_DENIED, ER_SPECIFIC_ACCESS_DENIED, ER_ACCESS_DENIED_NO_PASSWORD
            Some(1044 | 1142 | 1227 | 1143) => SourceError::permission(object, grant),
            _ => SourceError::query(object, db.message()),
        };
    }
    SourceError::driver(object, &e)
}

/// MySQL/MariaDB events as a [`Source`]: one pool kept between polls (MySQL, or a SQLite file
/// when the instance has a `path`); Sundial's store keeps the `LAST_EXECUTED` samples the
/// server forgets.
#[derive(Default)]
pub struct MysqlEvents {
    pool: Kept<MySqlPool>,
    file: Kept<SqlitePool>,
    /// The samples each event's last poll read from Sundial's store ([`SampleCache`]).
    samples: SampleCache,
}

impl MysqlEvents {
    /// How many samples this source's reads have fetched from Sundial's store.
    pub fn samples_read(&self) -> u64 {
        self.samples.rows.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// The samples of each event (by its store key) as the last poll read them, so that the next
/// asks Sundial's store only for the newest one held (its `seen_until` grows) and those after it
/// ([`Store::samples_from`]) instead of the window's: an event that fires every minute has
/// 43,200 samples in 30 days. Memory only: after a restart the first poll reads the window.
#[derive(Default)]
pub struct SampleCache {
    held: std::sync::Mutex<std::collections::HashMap<String, EventSamples>>,
    /// Samples fetched from the store, all told (for tests and figures).
    rows: std::sync::atomic::AtomicU64,
}

impl SampleCache {
    /// Event `key`'s samples from the last one before `window`'s start on, as
    /// [`Store::samples`] answers them, `last` being the `LAST_EXECUTED` this poll recorded.
    /// The held ones are kept unless the event's `LAST_EXECUTED` went back below the newest
    /// held (the event dropped and made again, a clock set back: samples may have been added
    /// below it) or none is held: then the window is read.
    async fn samples(
        &self,
        store: &Store,
        instance: &str,
        key: &str,
        window: Window,
        last: Option<DateTime<Utc>>,
    ) -> Result<EventSamples, SourceError> {
        let held = self.held.lock().ok().and_then(|h| h.get(key).cloned());
        let newest = held.as_ref().and_then(|h| h.samples.last().map(|s| s.0).filter(|_| h.first_seen.is_some()));
        let (seen, fetched) = match (held, newest) {
            (Some(mut held), Some(newest)) if last.is_some_and(|l| l >= newest) => {
                let fresh = store.samples_from(instance, key, newest).await?;
                let fetched = fresh.len();
                held.samples.retain(|s| s.0 < newest);
                held.samples.extend(fresh);
                // From the last sample before the window on (it bounds the first span).
                let before = held.samples.iter().rposition(|s| s.0.timestamp() < window.start.timestamp());
                if let Some(i) = before {
                    held.samples.drain(..i);
                }
                (held, fetched)
            }
            _ => {
                let seen = store.samples(instance, key, window.start).await?;
                let fetched = seen.samples.len();
                (seen, fetched)
            }
        };
        self.rows.fetch_add(fetched as u64, std::sync::atomic::Ordering::Relaxed);
        if let Ok(mut h) = self.held.lock() {
            h.insert(key.to_owned(), seen.clone());
        }
        Ok(seen)
    }
}

impl Source for MysqlEvents {
    fn read<'a>(&'a self, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
        Box::pin(async move {
            let c = cx.config;
            let read = Polled {
                store: cx.store()?,
                name: &c.name,
                tz: chrono_tz::UTC,
                window: cx.window,
                polled_at: cx.now,
                cache: Some(&self.samples),
            };
            let (input, notes) = if c.path.is_some() {
                let mut db = TablesDb::Sqlite(self.file.get(|| connect::sqlite_of(c)).await?);
                read_file_with(&mut db, read, c.time_zone).await?
            } else {
                let pool = self.pool.get(|| connect::mysql(c)).await?;
                read_instance_with(&pool, read, c.time_zone).await?
            };
            Ok(SourceRead::new(input, notes, cx.now))
        })
    }

    fn reset(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {
            self.pool.forget().await;
            self.file.forget().await;
        })
    }
}

/// An event's zone: `SYSTEM` is the server's; else an IANA name or an offset.
#[derive(Clone, Copy)]
enum Zone {
    Named(Tz),
    Fixed(FixedOffset),
}

fn parse_zone(z: &str) -> Option<Zone> {
    let z = z.trim();
    if let Ok(tz) = z.parse::<Tz>() {
        return Some(Zone::Named(tz));
    }
    let (sign, rest) = match z.as_bytes().first()? {
        b'+' => (1, &z[1..]),
        b'-' => (-1, &z[1..]),
        _ => return None,
    };
    let (h, m) = rest.split_once(':')?;
    let secs = sign * (h.parse::<i32>().ok()? * 3600 + m.parse::<i32>().ok()? * 60);
    FixedOffset::east_opt(secs).map(Zone::Fixed)
}

fn to_utc(local: &str, zone: Zone) -> Option<DateTime<Utc>> {
    let naive = NaiveDateTime::parse_from_str(local.trim(), "%Y-%m-%d %H:%M:%S%.f").ok()?;
    Some(match zone {
        Zone::Named(tz) => sundial_engine::tz::local_to_instant(naive, tz.into()),
        Zone::Fixed(off) => off.from_local_datetime(&naive).single()?.to_utc(),
    })
}

/// The server variables Sundial reads: `time_zone`, `system_time_zone`, `event_scheduler`.
struct Variables {
    global: String,
    system: String,
    scheduler: String,
}

/// The server's zone for `SYSTEM` events (and for forecasting them): the configured override,
/// else `@@global.time_zone`, else `@@system_time_zone`, else UTC with a warning.
async fn server_zone(pool: &MySqlPool, over: Option<Tz>, notes: &mut Vec<Diagnostic>) -> Result<Tz, SourceError> {
    let row =
        sqlx::query("SELECT @@global.time_zone AS tz, @@system_time_zone AS sys, @@global.event_scheduler AS sched")
            .fetch_one(pool)
            .await
            .map_err(|e| query_error("server variables", "a login", e))?;
    let vars = Variables {
        global: row.try_get("tz").unwrap_or_default(),
        system: row.try_get("sys").unwrap_or_default(),
        scheduler: row.try_get("sched").unwrap_or_default(),
    };
    Ok(zone_of(&vars, over, notes))
}

/// The zone the variables give (see [`server_zone`]), with a warning when the event scheduler
/// is not running.
fn zone_of(vars: &Variables, over: Option<Tz>, notes: &mut Vec<Diagnostic>) -> Tz {
    let Variables { global, system, scheduler } = vars;
    if !scheduler.eq_ignore_ascii_case("ON") {
        notes.push(
            Diagnostic::warning(
                "event_scheduler",
                scheduler,
                "the event scheduler is not running on this server: no event fires until it is ON",
            )
            .telling(sundial_engine::Finding::SchedulerStopped),
        );
    }
    if let Some(tz) = over {
        return tz;
    }
    let named = if global.eq_ignore_ascii_case("SYSTEM") { system.clone() } else { global.clone() };
    match parse_zone(&named) {
        Some(Zone::Named(tz)) => tz,
        Some(Zone::Fixed(off)) if off.local_minus_utc() == 0 => chrono_tz::UTC,
        _ => {
            notes.push(Diagnostic::warning(
                "time_zone",
                &named,
                "the server's zone is not an IANA name Sundial knows; SYSTEM events are read in UTC (set time_zone for this instance in the configuration)",
            ));
            chrono_tz::UTC
        }
    }
}

/// One execution performance_schema remembers.
struct Execution {
    schema: String,
    name: String,
    start: DateTime<Utc>,
    secs: i64,
    error: Option<String>,
}

/// Executions of events still in `events_statements_history_long`; empty (with a note) when
/// performance_schema is off or unreadable. The connection lost meanwhile fails the read: runs
/// read without their failures would be shown as good ones.
async fn executions(pool: &MySqlPool, notes: &mut Vec<Diagnostic>) -> Result<Vec<Execution>, SourceError> {
    // TIMER_* count picoseconds from server start; NOW - Uptime is that start (±1 s).
    let sql = "SELECT h.OBJECT_SCHEMA AS s, h.OBJECT_NAME AS n, \
               CAST(MIN(h.TIMER_START) / 1e12 AS DOUBLE) AS t0, CAST(MAX(h.TIMER_END) / 1e12 AS DOUBLE) AS t1, \
               CAST(MAX(h.MYSQL_ERRNO) AS SIGNED) AS errno, \
               MAX(CASE WHEN h.MYSQL_ERRNO <> 0 THEN CONCAT(h.MYSQL_ERRNO, ': ', h.MESSAGE_TEXT) END) AS msg, \
               CAST(UNIX_TIMESTAMP(NOW(6)) AS DOUBLE) AS now_s, \
               (SELECT CAST(VARIABLE_VALUE AS DOUBLE) FROM performance_schema.global_status WHERE VARIABLE_NAME = 'Uptime') AS up \
               FROM performance_schema.events_statements_history_long h \
               WHERE h.OBJECT_TYPE = 'EVENT' GROUP BY h.OBJECT_SCHEMA, h.OBJECT_NAME, h.THREAD_ID";
    let rows = match sqlx::query(sql).fetch_all(pool).await {
        Ok(rows) => rows,
        Err(e @ sqlx::Error::Database(_)) => {
            let why = match query_error("performance_schema", "", e) {
                SourceError::Permission { .. } => "this user cannot read performance_schema: grant SELECT ON performance_schema.* to see which executions failed".to_owned(),
                other => format!("performance_schema is not readable ({other}): failed executions cannot be told from good ones"),
            };
            notes.push(Diagnostic::info(why));
            return Ok(Vec::new());
        }
        Err(e) => return Err(query_error("performance_schema.events_statements_history_long", "", e)),
    };
    Ok(rows
        .iter()
        .filter_map(|r| {
            let t0: f64 = r.try_get("t0").ok()?;
            let t1: f64 = r.try_get::<Option<f64>, _>("t1").ok().flatten().unwrap_or(t0);
            let now: f64 = r.try_get("now_s").ok()?;
            let up: f64 = r.try_get::<Option<f64>, _>("up").ok().flatten()?;
            let start = DateTime::from_timestamp_millis(((now - up + t0) * 1000.0) as i64)?;
            let errno: i64 = r.try_get::<Option<i64>, _>("errno").ok().flatten().unwrap_or(0);
            Some(Execution {
                schema: r.try_get("s").unwrap_or_default(),
                name: r.try_get("n").unwrap_or_default(),
                start,
                secs: (t1 - t0).max(0.0).round() as i64,
                error: (errno != 0).then(|| r.try_get::<Option<String>, _>("msg").ok().flatten().unwrap_or_default()),
            })
        })
        .collect())
}

/// performance_schema's times are only good to a second or so (`LAST_EXECUTED` has whole
/// seconds; the conversion uses the integer `Uptime`): a sample this close to its oldest
/// execution is already covered by it.
const SAME_EXECUTION_SECS: i64 = 2;

/// Every event this user can see, with the runs Sundial's samples and performance_schema
/// show inside `window`. `polled_at` is this poll's time: the sample it records is stamped
/// with it. Instance-level findings come back beside the input.
pub async fn read_instance(
    pool: &MySqlPool,
    store: &Store,
    name: &str,
    zone_override: Option<Tz>,
    window: Window,
    polled_at: DateTime<Utc>,
) -> Result<(InstanceInput, Vec<Diagnostic>), SourceError> {
    let read = Polled { store, name, tz: chrono_tz::UTC, window, polled_at, cache: None };
    read_instance_with(pool, read, zone_override).await
}

/// [`read_instance`] as `read` says (its zone is the server's, found here).
async fn read_instance_with(
    pool: &MySqlPool,
    read: Polled<'_>,
    zone_override: Option<Tz>,
) -> Result<(InstanceInput, Vec<Diagnostic>), SourceError> {
    let mut notes = Vec::new();
    let tz = server_zone(pool, zone_override, &mut notes).await?;
    let events = events(pool).await?;
    if events.is_empty() {
        notes.push(no_events_note());
    }
    let executions = executions(pool, &mut notes).await?;
    let read = Polled { tz, ..read };
    Ok((read.jobs(events, &executions).await?, notes))
}

/// `EVENTS`' columns in a file, each with its alias in [`Q_EVENTS`].
const FILE_EVENT_COLUMNS: &[(Col, &str)] = &[
    (Col::Plain("EVENT_SCHEMA"), "s"),
    (Col::Plain("EVENT_NAME"), "n"),
    (Col::Plain("DEFINER"), "d"),
    (Col::Plain("TIME_ZONE"), "tz"),
    (Col::Plain("EVENT_TYPE"), "ty"),
    (Col::Plain("EXECUTE_AT"), "at"),
    (Col::Plain("INTERVAL_VALUE"), "iv"),
    (Col::Plain("INTERVAL_FIELD"), "f"),
    (Col::Plain("STARTS"), "starts"),
    (Col::Plain("ENDS"), "ends"),
    (Col::Plain("STATUS"), "st"),
    (Col::Plain("ON_COMPLETION"), "oc"),
    (Col::Plain("LAST_EXECUTED"), "le"),
];

/// [`read_instance`] over the same tables in a SQLite file (see the module docs): `EVENTS`
/// and `GLOBAL_VARIABLES`.
pub async fn read_file(
    db: &mut TablesDb,
    store: &Store,
    name: &str,
    zone_override: Option<Tz>,
    window: Window,
    polled_at: DateTime<Utc>,
) -> Result<(InstanceInput, Vec<Diagnostic>), SourceError> {
    let read = Polled { store, name, tz: chrono_tz::UTC, window, polled_at, cache: None };
    read_file_with(db, read, zone_override).await
}

/// [`read_file`] as `read` says (its zone is the file's, found here).
async fn read_file_with(
    db: &mut TablesDb,
    read: Polled<'_>,
    zone_override: Option<Tz>,
) -> Result<(InstanceInput, Vec<Diagnostic>), SourceError> {
    let mut notes = Vec::new();
    let variables =
        tables::read(db, "GLOBAL_VARIABLES", &[Col::Plain("VARIABLE_NAME"), Col::Plain("VARIABLE_VALUE")], "").await?;
    let variable = |n: &str| {
        variables
            .iter()
            .find(|r| text(r, "VARIABLE_NAME").is_some_and(|v| v.eq_ignore_ascii_case(n)))
            .and_then(|r| text(r, "VARIABLE_VALUE"))
            .unwrap_or_default()
            .to_owned()
    };
    let vars = Variables {
        global: variable("time_zone"),
        system: variable("system_time_zone"),
        scheduler: variable("event_scheduler"),
    };
    let tz = zone_of(&vars, zone_override, &mut notes);
    let cols: Vec<Col> = FILE_EVENT_COLUMNS.iter().map(|c| c.0).collect();
    let order = format!("ORDER BY {}, {}", tables::column(db, "EVENT_SCHEMA"), tables::column(db, "EVENT_NAME"));
    let rows = tables::read(db, "EVENTS", &cols, &order).await?;
    let events = rows
        .iter()
        .map(|r| {
            EventRow::from_columns(|alias| {
                let (col, _) = FILE_EVENT_COLUMNS.iter().find(|c| c.1 == alias)?;
                text(r, col.name()).map(str::to_owned)
            })
        })
        .collect::<Vec<_>>();
    if events.is_empty() {
        notes.push(no_events_note());
    }
    notes.push(Diagnostic::info(
        "a file has no performance_schema: runs come from Sundial's samples of LAST_EXECUTED, and failed executions \
         cannot be told from good ones",
    ));
    let read = Polled { tz, ..read };
    Ok((read.jobs(events, &[]).await?, notes))
}

/// One poll of an instance's events: what it records in Sundial's store and reads back.
#[derive(Clone, Copy)]
struct Polled<'a> {
    store: &'a Store,
    name: &'a str,
    tz: Tz,
    window: Window,
    polled_at: DateTime<Utc>,
    /// The samples held from the last poll (`None`: read the window's from the store).
    cache: Option<&'a SampleCache>,
}

impl Polled<'_> {
    /// Each event as a job: this poll's sample recorded, its runs from the samples and
    /// `executions`.
    async fn jobs(&self, events: Vec<EventRow>, executions: &[Execution]) -> Result<InstanceInput, SourceError> {
        let Polled { store, name, tz, window, polled_at, cache } = *self;
        let mut jobs = Vec::with_capacity(events.len());
        for (i, row) in events.into_iter().enumerate() {
            let mut diagnostics = Vec::new();
            let last = last_executed(&row.event, tz, &mut diagnostics);
            let key = row.key();
            let altered = row.altered.as_deref().and_then(|a| to_utc(a, Zone::Named(tz)));
            store.record(name, &key, last, polled_at).await?;
            let seen = match cache {
                Some(cache) => cache.samples(store, name, &key, window, last).await?,
                None => store.samples(name, &key, window.start).await?,
            };
            let mut job = row.into_job(i as i64 + 1, executions, &seen, window, diagnostics);
            job.modified = altered;
            jobs.push(job);
        }
        Ok(InstanceInput::new(name, tz.into(), jobs, Vec::new()))
    }
}

/// Every event visible to this user; times as text, in each event's own TIME_ZONE.
const Q_EVENTS: &str = "SELECT EVENT_SCHEMA AS s, EVENT_NAME AS n, DEFINER AS d, TIME_ZONE AS tz, EVENT_TYPE AS ty, \
     CAST(EXECUTE_AT AS CHAR) AS at, CAST(INTERVAL_VALUE AS CHAR) AS iv, INTERVAL_FIELD AS f, \
     CAST(STARTS AS CHAR) AS starts, CAST(ENDS AS CHAR) AS ends, STATUS AS st, ON_COMPLETION AS oc, \
     CAST(LAST_EXECUTED AS CHAR) AS le, EVENT_DEFINITION AS body, CAST(LAST_ALTERED AS CHAR) AS la \
     FROM information_schema.EVENTS ORDER BY EVENT_SCHEMA, EVENT_NAME";

/// The rows of [`Q_EVENTS`], in its order.
async fn events(pool: &MySqlPool) -> Result<Vec<EventRow>, SourceError> {
    let rows = sqlx::query(Q_EVENTS)
        .fetch_all(pool)
        .await
        .map_err(|e| query_error("information_schema.EVENTS", "the EVENT privilege on the events' schemas", e))?;
    Ok(rows.iter().map(|r| EventRow::from_columns(|c| r.try_get::<Option<String>, _>(c).ok().flatten())).collect())
}

/// The instance's warning when [`Q_EVENTS`] returns nothing.
fn no_events_note() -> Diagnostic {
    Diagnostic::new(
        Severity::Warning,
        Some("EVENT"),
        None,
        "no events are visible: information_schema.EVENTS lists only events in schemas where this user has the \
         EVENT privilege (GRANT EVENT ON shop.* TO …); either there are none or the grant is missing",
    )
}

/// One row of [`Q_EVENTS`]: the event as the engine reads it, and what names it.
struct EventRow {
    schema: String,
    name: String,
    definer: String,
    /// `EVENT_DEFINITION`: what the event runs (read from a server; a file's copy of `EVENTS`
    /// need not have it).
    body: Option<String>,
    /// `LAST_ALTERED`: when the event was last changed (the server's zone; a file's copy of
    /// `EVENTS` need not have it).
    altered: Option<String>,
    event: MysqlEvent,
}

impl EventRow {
    /// The row from its columns by alias (`None` for NULL or unreadable).
    fn from_columns(text: impl Fn(&str) -> Option<String>) -> Self {
        let schema = text("s").unwrap_or_default();
        let name = text("n").unwrap_or_default();
        let event = MysqlEvent {
            event_schema: Some(schema.clone()),
            event_name: Some(name.clone()),
            event_type: text("ty"),
            execute_at: text("at"),
            interval_value: text("iv"),
            interval_field: text("f"),
            starts: text("starts"),
            ends: text("ends"),
            status: text("st"),
            on_completion: text("oc"),
            time_zone: text("tz"),
            last_executed: text("le"),
        };
        EventRow {
            schema,
            name,
            definer: text("d").unwrap_or_default(),
            body: text("body"),
            altered: text("la"),
            event,
        }
    }

    /// The event's key in Sundial's store, and its job's id and name: `schema.name`.
    fn key(&self) -> String {
        format!("{}.{}", self.schema, self.name)
    }

    /// The event as a job: schedule `id`, its runs in `window` from `executions` and the
    /// samples `seen`, its history horizon and unobserved spans from the samples.
    /// `diagnostics` are this poll's so far; a note on the horizon follows them.
    fn into_job(
        self,
        id: i64,
        executions: &[Execution],
        seen: &EventSamples,
        window: Window,
        mut diagnostics: Vec<Diagnostic>,
    ) -> JobInput {
        let key = self.key();
        let runs = event_runs(&self.schema, &self.name, id, executions, seen, window);
        // Between a poll that still saw sample k and sample k+1: only the last execution shows.
        let unobserved = seen.unobserved();
        let horizon = seen.horizon();
        diagnostics.extend(horizon_note(horizon, window));
        let enabled = self.event.status.as_deref().is_some_and(|s| s.eq_ignore_ascii_case("ENABLED"));
        JobInput {
            id: key.clone(),
            name: key,
            // The schema the event belongs to; its DEFINER (`user@host`) is its owner.
            category: self.schema.clone(),
            owner: Some(self.definer.clone()).filter(|d| !d.is_empty()),
            enabled,
            command: self.body.filter(|b| !b.trim().is_empty()),
            schedules: vec![JobSchedule { id, name: self.name, enabled, schedule: Schedule::MysqlEvent(self.event) }],
            runs,
            history_horizon: horizon,
            source_horizon: None,
            unobserved,
            diagnostics,
            earlier: Vec::new(),
            modified: None,
        }
    }
}

/// The instant of the event's `LAST_EXECUTED`, read in its TIME_ZONE (`SYSTEM`: the server's
/// `tz`); `None` when never executed, or with a warning when unreadable (this poll's sample is
/// then lost).
fn last_executed(event: &MysqlEvent, tz: Tz, diagnostics: &mut Vec<Diagnostic>) -> Option<DateTime<Utc>> {
    let zone_text = event.time_zone.clone().unwrap_or_else(|| "SYSTEM".into());
    let zone = if zone_text.eq_ignore_ascii_case("SYSTEM") { Some(Zone::Named(tz)) } else { parse_zone(&zone_text) };
    match (&event.last_executed, zone) {
        (None, _) => None,
        (Some(le), Some(z)) => to_utc(le, z).or_else(|| {
            diagnostics.push(Diagnostic::warning(
                "LAST_EXECUTED",
                le,
                "not a time Sundial can read; this poll's sample is lost",
            ));
            None
        }),
        (Some(le), None) => {
            diagnostics.push(Diagnostic::warning(
                "TIME_ZONE",
                &zone_text,
                format!("unknown zone; LAST_EXECUTED {le} not sampled"),
            ));
            None
        }
    }
}

/// One event's runs in `window`, by start: performance_schema's executions where it still has
/// them (every execution, with its outcome); before its oldest one, one run per distinct
/// LAST_EXECUTED sample.
fn event_runs(
    schema: &str,
    name: &str,
    id: i64,
    executions: &[Execution],
    seen: &EventSamples,
    window: Window,
) -> Vec<Run> {
    let mut runs: Vec<Run> = executions
        .iter()
        .filter(|x| x.schema == schema && x.name == name && window.contains(x.start))
        .map(|x| Run {
            start: x.start,
            duration_secs: x.secs,
            outcome: if x.error.is_some() { RunOutcome::Failed } else { RunOutcome::Succeeded },
            trigger: Trigger::Schedule(Some(id)),
            message: x.error.clone().unwrap_or_default(),
            steps: Vec::new(),
        })
        .collect();
    let covered_from = runs.iter().map(|r| r.start - chrono::TimeDelta::seconds(SAME_EXECUTION_SECS)).min();
    runs.extend(
        seen.samples.iter().filter(|(at, _)| window.contains(*at) && covered_from.is_none_or(|c| *at < c)).map(
            // A LAST_EXECUTED sample says a run started, not how it ended nor how long it took.
            |(at, _)| Run {
                start: *at,
                duration_secs: 0,
                outcome: RunOutcome::Unknown,
                trigger: Trigger::Schedule(Some(id)),
                message: "MySQL keeps no outcome or duration of an event's run (seen by its LAST_EXECUTED)".to_owned(),
                steps: Vec::new(),
            },
        ),
    );
    runs.sort_by_key(|r| r.start);
    runs
}

/// An info when Sundial's samples start inside the window: runs before them are unknown.
fn horizon_note(horizon: Option<DateTime<Utc>>, window: Window) -> Option<Diagnostic> {
    horizon.filter(|h| *h > window.start).map(|h| {
        Diagnostic::info(format!(
            "MySQL keeps no run history: Sundial's own samples of LAST_EXECUTED start at {} UTC; earlier runs are unknown",
            h.format("%Y-%m-%d %H:%M:%S")
        ))
    })
}
