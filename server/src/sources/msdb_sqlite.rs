//! msdb-shaped tables in SQLite: the embedded demo's source, and the only place its SQL lives.
//!
//! The tables keep msdb's names, columns and meanings (`sysjobs`, `sysschedules`,
//! `sysjobschedules`, `sysjobsteps`, `sysjobhistory`, `sysjobactivity`, `syssessions`,
//! `syscategories`), so what Sundial reads here is what it would read from a real msdb:
//!
//! - dates and times are the instance's **local** wall clock: `run_date` `yyyymmdd` and
//!   `run_time` `hhmmss` integers in `sysjobhistory`, `datetime` columns as
//!   `YYYY-MM-DD HH:MM:SS.fff` text;
//! - `run_duration` is `hhmmss`-encoded (13542 = 1 h 35 min 42 s; past 99 hours the hours
//!   part just grows);
//! - every run has a `step_id 0` "(Job outcome)" row plus one row per step attempt.
//!
//! One table is Sundial's own: `sundial_demo` (instance name, time zone, the demo's "now", the
//! seed), so the server knows which "now" the demo was simulated for.
//!
//! Reading never fails on bad *data*: a corrupt row (an unknown `run_status`, a NULL where msdb
//! has none, a date that is not one) becomes a [`Diagnostic`] on its job. Only a failure of the
//! database itself (missing file, missing table, bad meta row) is an [`Error`].
//!
//! Sundial never writes to a source: [`open_read_only`] opens with `mode=ro`. The writers here
//! ([`create`], [`create_schema`], `insert_*`) exist for the demo file only.
use app::engine::fleet::{InstanceInput, JobInput, JobSchedule};
use app::engine::{AgentSchedule, Diagnostic, Run, RunOutcome, Schedule, Trigger, Window};
use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use chrono_tz::Tz;
use sqlx::error::BoxDynError;
use sqlx::sqlite::{
    Sqlite, SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous, SqliteTypeInfo,
    SqliteValueRef,
};
use sqlx::{QueryBuilder, SqlitePool};
use std::collections::HashMap;
use std::path::Path;

/// The demo keeps at most this many job outcome rows per job for a job it trims (the Agent's
/// per-job history retention). A job holding this many outcome rows whose oldest one is much
/// newer than the instance's oldest history looks trimmed: see [`read_instance`].
pub const MAX_OUTCOME_ROWS_PER_JOB: i64 = 100;

/// The text format of msdb `datetime` values here (local wall clock, milliseconds).
const DATETIME_FORMAT: &str = "%Y-%m-%d %H:%M:%S%.3f";

/// Rows per multi-row `INSERT` (13 columns × 1000 stays far below SQLite's variable limit).
const BATCH: usize = 1000;

// ---------------------------------------------------------------------------------------------
// Errors

/// What can go wrong reading or writing an msdb-shaped SQLite file. Messages name the table,
/// column and row key at fault; they never carry file paths, SQL text or credentials (callers
/// that know the path add it as context where it is safe to show).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be opened or created (missing, not a database, no permission).
    #[error("cannot open the SQLite database: {0}")]
    Open(sqlx::Error),
    /// A statement failed: `action` on `table` (a missing table, a read-only file, I/O).
    #[error("SQLite failed to {action} {table}: {source}")]
    Sql { table: &'static str, action: &'static str, source: sqlx::Error },
    /// A value the whole read depends on is unusable (e.g. the meta row's time zone).
    #[error("{table}.{column} = {value} (row {key}): {message}")]
    BadValue { table: &'static str, column: &'static str, key: String, value: String, message: String },
    /// A table that must have a row has none (e.g. `sundial_demo`).
    #[error("{table} has no rows")]
    Empty { table: &'static str },
    /// Replacing an older demo file failed.
    #[error("cannot replace the old demo file: {0}")]
    Io(std::io::Error),
}

fn sql(table: &'static str, action: &'static str) -> impl FnOnce(sqlx::Error) -> Error {
    move |source| Error::Sql { table, action, source }
}

// ---------------------------------------------------------------------------------------------
// Lenient cells: whatever SQLite holds, reading it never fails the whole query.

/// One column value read leniently. SQLite columns hold any type, and msdb-shaped data from
/// elsewhere may be damaged; decoding into `Cell` never fails, so a bad value becomes a
/// diagnostic on its row instead of an error for the whole read.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    /// A blob, by length (no msdb column Sundial reads holds one).
    Blob(usize),
}

impl sqlx::Type<Sqlite> for Cell {
    fn type_info() -> SqliteTypeInfo {
        <i64 as sqlx::Type<Sqlite>>::type_info()
    }
    fn compatible(_: &SqliteTypeInfo) -> bool {
        true
    }
}

impl<'r> sqlx::Decode<'r, Sqlite> for Cell {
    fn decode(value: SqliteValueRef<'r>) -> Result<Self, BoxDynError> {
        use sqlx::{TypeInfo, ValueRef};
        if value.is_null() {
            return Ok(Cell::Null);
        }
        let kind = value.type_info().name().to_owned();
        Ok(match kind.as_str() {
            "INTEGER" => Cell::Int(<i64 as sqlx::Decode<Sqlite>>::decode(value)?),
            "REAL" => Cell::Real(<f64 as sqlx::Decode<Sqlite>>::decode(value)?),
            "TEXT" => Cell::Text(<String as sqlx::Decode<Sqlite>>::decode(value)?),
            _ => Cell::Blob(<Vec<u8> as sqlx::Decode<Sqlite>>::decode(value)?.len()),
        })
    }
}

impl Cell {
    /// The value as an integer: `Ok(None)` for NULL, `Err(shown)` when it is not a whole number.
    pub fn int(&self) -> Result<Option<i64>, String> {
        match self {
            Cell::Null => Ok(None),
            Cell::Int(i) => Ok(Some(*i)),
            Cell::Real(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(Some(*f as i64)),
            Cell::Text(t) => t.trim().parse::<i64>().map(Some).map_err(|_| self.shown()),
            _ => Err(self.shown()),
        }
    }
    /// The value as text (numbers printed); `None` for NULL and blobs.
    pub fn text(&self) -> Option<String> {
        match self {
            Cell::Text(t) => Some(t.clone()),
            Cell::Int(i) => Some(i.to_string()),
            Cell::Real(f) => Some(f.to_string()),
            Cell::Null | Cell::Blob(_) => None,
        }
    }
    /// How a diagnostic shows the value.
    pub fn shown(&self) -> String {
        match self {
            Cell::Null => "NULL".into(),
            Cell::Int(i) => i.to_string(),
            Cell::Real(f) => f.to_string(),
            Cell::Text(t) => format!("{t:?}"),
            Cell::Blob(n) => format!("<blob of {n} bytes>"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Time helpers (msdb integers and local wall clock)

/// A local wall-clock time in `tz` to an instant, by the engine's rule
/// ([`app::engine::tz::local_to_instant`]): a time in a fall-back fold is the earlier instant
/// (the Agent fires once, at the first); a time in a spring-forward gap (which the Agent never
/// writes into history) is the instant the gap ends.
pub fn local_to_utc(local: NaiveDateTime, tz: Tz) -> DateTime<Utc> {
    app::engine::tz::local_to_instant(local, tz.into())
}

/// An instant as `tz`'s wall clock (never panics).
pub fn utc_to_local(at: DateTime<Utc>, tz: Tz) -> NaiveDateTime {
    app::engine::tz::to_local(at, tz.into())
}

/// msdb `yyyymmdd`.
pub fn date_int(d: NaiveDate) -> i64 {
    use chrono::Datelike;
    i64::from(d.year()) * 10000 + i64::from(d.month()) * 100 + i64::from(d.day())
}

/// msdb `hhmmss`.
pub fn time_int(t: NaiveTime) -> i64 {
    use chrono::Timelike;
    i64::from(t.hour()) * 10000 + i64::from(t.minute()) * 100 + i64::from(t.second())
}

/// msdb `yyyymmdd` back to a date; `None` when it is not one.
pub fn parse_date_int(v: i64) -> Option<NaiveDate> {
    if !(10000101..=99991231).contains(&v) {
        return None;
    }
    NaiveDate::from_ymd_opt((v / 10000) as i32, ((v / 100) % 100) as u32, (v % 100) as u32)
}

/// msdb `hhmmss` back to a time; `None` when it is not one.
pub fn parse_time_int(v: i64) -> Option<NaiveTime> {
    if !(0..=235959).contains(&v) {
        return None;
    }
    NaiveTime::from_hms_opt((v / 10000) as u32, ((v / 100) % 100) as u32, (v % 100) as u32)
}

/// Seconds as msdb's `hhmmss`-encoded `run_duration` (hours grow past 99).
pub fn encode_duration(secs: i64) -> i64 {
    let s = secs.max(0);
    (s / 3600) * 10000 + ((s / 60) % 60) * 100 + s % 60
}

/// msdb `run_duration` back to seconds; `Err` with what is wrong (the seconds are still given
/// for minute or second parts above 59, which msdb never writes).
pub fn decode_duration(v: i64) -> Result<i64, (Option<i64>, &'static str)> {
    if v < 0 {
        return Err((None, "a duration cannot be negative"));
    }
    let (h, m, s) = (v / 10000, (v / 100) % 100, v % 100);
    let secs = h * 3600 + m * 60 + s;
    if m > 59 || s > 59 {
        return Err((Some(secs), "not an hhmmss duration (minutes or seconds above 59)"));
    }
    Ok(secs)
}

fn format_datetime(t: NaiveDateTime) -> String {
    t.format(DATETIME_FORMAT).to_string()
}

/// msdb `datetime` text back to a wall-clock time (with or without fractions, `T` or space).
pub fn parse_datetime(s: &str) -> Option<NaiveDateTime> {
    let s = s.trim();
    ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
}

/// Who started a run, from msdb's outcome message: "… The Job was invoked by Schedule 12
/// (Nightly).  …" is [`Trigger::Schedule`], "… invoked by User DOMAIN\dba.  …" is
/// [`Trigger::Manual`], anything else named there ("Alert 3 (…)", "Start Sequence 0") is
/// [`Trigger::Other`]. A message without the phrase (empty, or from a localized server) is
/// taken as a schedule run whose schedule is unknown.
pub fn parse_trigger(message: &str) -> Trigger {
    const PHRASE: &str = "invoked by ";
    let Some(at) = message.find(PHRASE) else {
        return Trigger::Schedule(None);
    };
    let rest = &message[at + PHRASE.len()..];
    let what = match rest.find(".  ") {
        Some(end) => &rest[..end],
        None => rest.trim_end().trim_end_matches('.'),
    };
    if let Some(s) = what.strip_prefix("Schedule ") {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        Trigger::Schedule(digits.parse().ok())
    } else if what.starts_with("User ") {
        Trigger::Manual
    } else {
        Trigger::Other(what.to_owned())
    }
}

// ---------------------------------------------------------------------------------------------
// Opening

/// Open an msdb-shaped SQLite file read-only (`mode=ro`): Sundial never writes to a source.
/// Fails when the file is missing or not a database.
pub async fn open_read_only(path: &Path) -> Result<SqlitePool, Error> {
    let options = SqliteConnectOptions::new().filename(path).read_only(true).create_if_missing(false);
    SqlitePoolOptions::new().max_connections(4).connect_with(options).await.map_err(Error::Open)
}

/// Create a new, empty database file at `path` for writing the demo (an older file there is
/// replaced). Call [`create_schema`] next.
pub async fn create(path: &Path) -> Result<SqlitePool, Error> {
    for p in [path.to_path_buf(), journal_path(path)] {
        match std::fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::Io(e)),
        }
    }
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Delete)
        .synchronous(SqliteSynchronous::Off);
    SqlitePoolOptions::new().max_connections(1).connect_with(options).await.map_err(Error::Open)
}

fn journal_path(path: &Path) -> std::path::PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push("-journal");
    s.into()
}

/// The tables and indexes, one statement each, with what each holds.
const SCHEMA: &[(&str, &str)] = &[
    (
        "syscategories",
        // Creates syscategories: job categories (msdb category_id, class 1 = job).
        "CREATE TABLE syscategories (
            category_id INTEGER PRIMARY KEY, category_class INTEGER NOT NULL,
            category_type INTEGER NOT NULL, name TEXT NOT NULL)",
    ),
    (
        "sysjobs",
        // Creates sysjobs: one row per job; job_id is a uniqueidentifier as GUID text.
        "CREATE TABLE sysjobs (
            job_id TEXT PRIMARY KEY, originating_server_id INTEGER NOT NULL, name TEXT NOT NULL,
            enabled INTEGER NOT NULL, description TEXT, start_step_id INTEGER NOT NULL,
            category_id INTEGER NOT NULL, owner_sid BLOB NOT NULL,
            notify_level_eventlog INTEGER NOT NULL, notify_level_email INTEGER NOT NULL,
            notify_level_netsend INTEGER NOT NULL, notify_level_page INTEGER NOT NULL,
            notify_email_operator_id INTEGER NOT NULL, delete_level INTEGER NOT NULL,
            date_created TEXT NOT NULL, date_modified TEXT NOT NULL, version_number INTEGER NOT NULL)",
    ),
    (
        "sysjobsteps",
        // Creates sysjobsteps: each job's steps, with their retry settings.
        "CREATE TABLE sysjobsteps (
            job_id TEXT NOT NULL, step_id INTEGER NOT NULL, step_name TEXT NOT NULL,
            subsystem TEXT NOT NULL, command TEXT, database_name TEXT,
            on_success_action INTEGER NOT NULL, on_fail_action INTEGER NOT NULL,
            retry_attempts INTEGER NOT NULL, retry_interval INTEGER NOT NULL,
            PRIMARY KEY (job_id, step_id))",
    ),
    (
        "sysschedules",
        // Creates sysschedules: one row per schedule, every frequency column an msdb integer.
        "CREATE TABLE sysschedules (
            schedule_id INTEGER PRIMARY KEY, schedule_uid TEXT NOT NULL,
            originating_server_id INTEGER NOT NULL, name TEXT NOT NULL, owner_sid BLOB NOT NULL,
            enabled INTEGER NOT NULL, freq_type INTEGER NOT NULL, freq_interval INTEGER NOT NULL,
            freq_subday_type INTEGER NOT NULL, freq_subday_interval INTEGER NOT NULL,
            freq_relative_interval INTEGER NOT NULL, freq_recurrence_factor INTEGER NOT NULL,
            active_start_date INTEGER NOT NULL, active_end_date INTEGER NOT NULL,
            active_start_time INTEGER NOT NULL, active_end_time INTEGER NOT NULL,
            date_created TEXT NOT NULL, date_modified TEXT NOT NULL, version_number INTEGER NOT NULL)",
    ),
    (
        "sysjobschedules",
        // Creates sysjobschedules: which job uses which schedule, and the Agent's next run.
        "CREATE TABLE sysjobschedules (
            schedule_id INTEGER NOT NULL, job_id TEXT NOT NULL,
            next_run_date INTEGER NOT NULL, next_run_time INTEGER NOT NULL,
            PRIMARY KEY (job_id, schedule_id))",
    ),
    (
        "sysjobhistory",
        // Creates sysjobhistory: a step_id 0 "(Job outcome)" row per run plus a row per step attempt.
        "CREATE TABLE sysjobhistory (
            instance_id INTEGER PRIMARY KEY, job_id TEXT NOT NULL, step_id INTEGER NOT NULL,
            step_name TEXT NOT NULL, sql_message_id INTEGER NOT NULL, sql_severity INTEGER NOT NULL,
            message TEXT, run_status INTEGER NOT NULL, run_date INTEGER NOT NULL,
            run_time INTEGER NOT NULL, run_duration INTEGER NOT NULL,
            operator_id_emailed INTEGER NOT NULL, operator_id_netsent INTEGER NOT NULL,
            operator_id_paged INTEGER NOT NULL, retries_attempted INTEGER NOT NULL, server TEXT NOT NULL)",
    ),
    (
        "syssessions",
        // Creates syssessions: one row per Agent start (local agent_start_date).
        "CREATE TABLE syssessions (session_id INTEGER PRIMARY KEY, agent_start_date TEXT NOT NULL)",
    ),
    (
        "sysjobactivity",
        // Creates sysjobactivity: per Agent session and job, the latest run requested and its state.
        "CREATE TABLE sysjobactivity (
            session_id INTEGER NOT NULL, job_id TEXT NOT NULL, run_requested_date TEXT,
            run_requested_source TEXT, queued_date TEXT, start_execution_date TEXT,
            last_executed_step_id INTEGER, last_executed_step_date TEXT, stop_execution_date TEXT,
            job_history_id INTEGER, next_scheduled_run_date TEXT,
            PRIMARY KEY (session_id, job_id))",
    ),
    (
        "sundial_demo",
        // Creates sundial_demo: Sundial's own meta row (instance, zone, the demo's now, seed).
        "CREATE TABLE sundial_demo (
            instance_name TEXT NOT NULL, time_zone TEXT NOT NULL, now_utc TEXT NOT NULL,
            seed INTEGER NOT NULL, history_days INTEGER NOT NULL, generator TEXT NOT NULL)",
    ),
];

/// The indexes, created by [`finish`] once the rows are in (built in one pass, they come out
/// packed: a smaller file than indexes grown row by row).
const INDEXES: &[(&str, &str)] = &[
    (
        "sysjobhistory",
        // Indexes sysjobhistory by job (msdb's nc1), ordered so a job's oldest outcome row is one seek.
        "CREATE INDEX nc1 ON sysjobhistory (job_id, step_id, run_date, run_time)",
    ),
    (
        "sysjobhistory",
        // Indexes outcome rows by local run_date so a window read touches only the window.
        "CREATE INDEX nc_outcome_run_date ON sysjobhistory (step_id, run_date)",
    ),
];

/// Create every table of an empty demo database (the indexes come with [`finish`]).
pub async fn create_schema(pool: &SqlitePool) -> Result<(), Error> {
    for (table, statement) in SCHEMA {
        sqlx::query(*statement).execute(pool).await.map_err(sql(table, "create"))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Rows written (the demo's)

/// Sundial's own meta row: which instance the demo is and the "now" it was simulated for.
#[derive(Clone, Debug, PartialEq)]
pub struct DemoMeta {
    pub name: String,
    pub tz: Tz,
    pub now: DateTime<Utc>,
    pub seed: u64,
}

/// One `syscategories` row.
#[derive(Clone, Debug)]
pub struct CategoryRow {
    pub category_id: i64,
    pub name: String,
}

/// One `sysjobs` row (datetimes are local wall clock).
#[derive(Clone, Debug)]
pub struct JobRow {
    pub job_id: String,
    pub name: String,
    pub enabled: bool,
    pub description: String,
    pub category_id: i64,
    pub owner_sid: Vec<u8>,
    pub notify_level_email: i64,
    pub date_created: NaiveDateTime,
    pub date_modified: NaiveDateTime,
    pub version_number: i64,
}

/// One `sysjobsteps` row.
#[derive(Clone, Debug)]
pub struct StepRow {
    pub job_id: String,
    pub step_id: i64,
    pub step_name: String,
    pub subsystem: String,
    pub command: String,
    pub database_name: Option<String>,
    /// 1 quit with success, 3 go to the next step.
    pub on_success_action: i64,
    /// 2 quit with failure.
    pub on_fail_action: i64,
    pub retry_attempts: i64,
    /// Minutes.
    pub retry_interval: i64,
}

/// One `sysschedules` row.
#[derive(Clone, Debug)]
pub struct ScheduleRow {
    pub schedule_id: i64,
    pub schedule_uid: String,
    pub name: String,
    pub owner_sid: Vec<u8>,
    pub schedule: AgentSchedule,
    pub date_created: NaiveDateTime,
}

/// One `sysjobschedules` row; `next_run_date`/`next_run_time` 0 when there is none.
#[derive(Clone, Debug)]
pub struct JobScheduleRow {
    pub job_id: String,
    pub schedule_id: i64,
    pub next_run_date: i64,
    pub next_run_time: i64,
}

/// One `sysjobhistory` row, as msdb stores it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HistoryRow {
    pub instance_id: i64,
    pub job_id: String,
    /// 0 for the "(Job outcome)" row.
    pub step_id: i64,
    pub step_name: String,
    pub sql_message_id: i64,
    pub sql_severity: i64,
    pub message: String,
    /// 0 failed, 1 succeeded, 2 retry, 3 canceled, 4 in progress.
    pub run_status: i64,
    /// Local `yyyymmdd`.
    pub run_date: i64,
    /// Local `hhmmss`.
    pub run_time: i64,
    /// `hhmmss`-encoded.
    pub run_duration: i64,
    pub retries_attempted: i64,
    pub server: String,
}

/// One `syssessions` row.
#[derive(Clone, Debug)]
pub struct SessionRow {
    pub session_id: i64,
    pub agent_start_date: NaiveDateTime,
}

/// One `sysjobactivity` row (local datetimes).
#[derive(Clone, Debug, Default)]
pub struct ActivityRow {
    pub session_id: i64,
    pub job_id: String,
    pub run_requested_date: Option<NaiveDateTime>,
    /// msdb's code as text: "1" scheduler, "2" alerter, "3" boot, "4" user.
    pub run_requested_source: Option<String>,
    pub start_execution_date: Option<NaiveDateTime>,
    pub last_executed_step_id: Option<i64>,
    pub last_executed_step_date: Option<NaiveDateTime>,
    pub stop_execution_date: Option<NaiveDateTime>,
    pub job_history_id: Option<i64>,
    pub next_scheduled_run_date: Option<NaiveDateTime>,
}

/// Run `build`'s multi-row INSERT over `rows` in batches, in one transaction.
async fn insert_batched<T>(
    pool: &SqlitePool,
    table: &'static str,
    head: &'static str,
    rows: &[T],
    mut push: impl FnMut(&mut sqlx::query_builder::Separated<'_, Sqlite, &'static str>, &T),
) -> Result<(), Error> {
    let mut tx = pool.begin().await.map_err(sql(table, "begin writing"))?;
    for chunk in rows.chunks(BATCH) {
        let mut qb = QueryBuilder::<Sqlite>::new(head);
        qb.push_values(chunk, |mut b, row| push(&mut b, row));
        qb.build().execute(&mut *tx).await.map_err(sql(table, "insert into"))?;
    }
    tx.commit().await.map_err(sql(table, "commit"))
}

/// Write the meta row.
pub async fn insert_meta(pool: &SqlitePool, meta: &DemoMeta, history_days: i64) -> Result<(), Error> {
    // Writes sundial_demo's single row: instance name, zone, the demo's now (UTC), seed.
    sqlx::query("INSERT INTO sundial_demo (instance_name, time_zone, now_utc, seed, history_days, generator) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        .bind(meta.name.clone())
        .bind(meta.tz.name().to_owned())
        .bind(meta.now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .bind(meta.seed as i64)
        .bind(history_days)
        .bind(format!("sundial {}", env!("CARGO_PKG_VERSION")))
        .execute(pool)
        .await
        .map_err(sql("sundial_demo", "insert into"))?;
    Ok(())
}

/// Write `syscategories` rows (job categories: class 1, local type 1).
pub async fn insert_categories(pool: &SqlitePool, rows: &[CategoryRow]) -> Result<(), Error> {
    // Writes syscategories rows.
    insert_batched(
        pool,
        "syscategories",
        "INSERT INTO syscategories (category_id, category_class, category_type, name) ",
        rows,
        |b, r| {
            b.push_bind(r.category_id).push_bind(1_i64).push_bind(1_i64).push_bind(r.name.clone());
        },
    )
    .await
}

/// Write `sysjobs` rows.
pub async fn insert_jobs(pool: &SqlitePool, rows: &[JobRow]) -> Result<(), Error> {
    // Writes sysjobs rows (notify/delete levels as sp_add_job's defaults, eventlog on failure).
    insert_batched(
        pool,
        "sysjobs",
        "INSERT INTO sysjobs (job_id, originating_server_id, name, enabled, description, start_step_id, category_id, owner_sid, notify_level_eventlog, notify_level_email, notify_level_netsend, notify_level_page, notify_email_operator_id, delete_level, date_created, date_modified, version_number) ",
        rows,
        |b, r| {
            b.push_bind(r.job_id.clone())
                .push_bind(0_i64)
                .push_bind(r.name.clone())
                .push_bind(i64::from(r.enabled))
                .push_bind(r.description.clone())
                .push_bind(1_i64)
                .push_bind(r.category_id)
                .push_bind(r.owner_sid.clone())
                .push_bind(2_i64)
                .push_bind(r.notify_level_email)
                .push_bind(0_i64)
                .push_bind(0_i64)
                .push_bind(i64::from(r.notify_level_email != 0))
                .push_bind(0_i64)
                .push_bind(format_datetime(r.date_created))
                .push_bind(format_datetime(r.date_modified))
                .push_bind(r.version_number);
        },
    )
    .await
}

/// Write `sysjobsteps` rows.
pub async fn insert_steps(pool: &SqlitePool, rows: &[StepRow]) -> Result<(), Error> {
    // Writes sysjobsteps rows.
    insert_batched(
        pool,
        "sysjobsteps",
        "INSERT INTO sysjobsteps (job_id, step_id, step_name, subsystem, command, database_name, on_success_action, on_fail_action, retry_attempts, retry_interval) ",
        rows,
        |b, r| {
            b.push_bind(r.job_id.clone())
                .push_bind(r.step_id)
                .push_bind(r.step_name.clone())
                .push_bind(r.subsystem.clone())
                .push_bind(r.command.clone())
                .push_bind(r.database_name.clone())
                .push_bind(r.on_success_action)
                .push_bind(r.on_fail_action)
                .push_bind(r.retry_attempts)
                .push_bind(r.retry_interval);
        },
    )
    .await
}

/// Write `sysschedules` rows.
pub async fn insert_schedules(pool: &SqlitePool, rows: &[ScheduleRow]) -> Result<(), Error> {
    // Writes sysschedules rows, every frequency column as the msdb integer.
    insert_batched(
        pool,
        "sysschedules",
        "INSERT INTO sysschedules (schedule_id, schedule_uid, originating_server_id, name, owner_sid, enabled, freq_type, freq_interval, freq_subday_type, freq_subday_interval, freq_relative_interval, freq_recurrence_factor, active_start_date, active_end_date, active_start_time, active_end_time, date_created, date_modified, version_number) ",
        rows,
        |b, r| {
            let s = &r.schedule;
            b.push_bind(r.schedule_id)
                .push_bind(r.schedule_uid.clone())
                .push_bind(0_i64)
                .push_bind(r.name.clone())
                .push_bind(r.owner_sid.clone())
                .push_bind(s.enabled)
                .push_bind(s.freq_type)
                .push_bind(s.freq_interval)
                .push_bind(s.freq_subday_type)
                .push_bind(s.freq_subday_interval)
                .push_bind(s.freq_relative_interval)
                .push_bind(s.freq_recurrence_factor)
                .push_bind(s.active_start_date)
                .push_bind(s.active_end_date)
                .push_bind(s.active_start_time)
                .push_bind(s.active_end_time)
                .push_bind(format_datetime(r.date_created))
                .push_bind(format_datetime(r.date_created))
                .push_bind(1_i64);
        },
    )
    .await
}

/// Write `sysjobschedules` rows.
pub async fn insert_job_schedules(pool: &SqlitePool, rows: &[JobScheduleRow]) -> Result<(), Error> {
    // Writes sysjobschedules rows (job ↔ schedule, with the Agent's next run as local ints).
    insert_batched(
        pool,
        "sysjobschedules",
        "INSERT INTO sysjobschedules (schedule_id, job_id, next_run_date, next_run_time) ",
        rows,
        |b, r| {
            b.push_bind(r.schedule_id)
                .push_bind(r.job_id.clone())
                .push_bind(r.next_run_date)
                .push_bind(r.next_run_time);
        },
    )
    .await
}

/// Write `sysjobhistory` rows (in batches, one transaction).
pub async fn insert_history(pool: &SqlitePool, rows: &[HistoryRow]) -> Result<(), Error> {
    // Writes sysjobhistory rows: outcome (step_id 0) and step rows, local run_date/run_time.
    insert_batched(
        pool,
        "sysjobhistory",
        "INSERT INTO sysjobhistory (instance_id, job_id, step_id, step_name, sql_message_id, sql_severity, message, run_status, run_date, run_time, run_duration, operator_id_emailed, operator_id_netsent, operator_id_paged, retries_attempted, server) ",
        rows,
        |b, r| {
            b.push_bind(r.instance_id)
                .push_bind(r.job_id.clone())
                .push_bind(r.step_id)
                .push_bind(r.step_name.clone())
                .push_bind(r.sql_message_id)
                .push_bind(r.sql_severity)
                .push_bind(r.message.clone())
                .push_bind(r.run_status)
                .push_bind(r.run_date)
                .push_bind(r.run_time)
                .push_bind(r.run_duration)
                .push_bind(0_i64)
                .push_bind(0_i64)
                .push_bind(0_i64)
                .push_bind(r.retries_attempted)
                .push_bind(r.server.clone());
        },
    )
    .await
}

/// Write `syssessions` rows.
pub async fn insert_sessions(pool: &SqlitePool, rows: &[SessionRow]) -> Result<(), Error> {
    // Writes syssessions rows (one per Agent start, local time).
    insert_batched(pool, "syssessions", "INSERT INTO syssessions (session_id, agent_start_date) ", rows, |b, r| {
        b.push_bind(r.session_id).push_bind(format_datetime(r.agent_start_date));
    })
    .await
}

/// Write `sysjobactivity` rows.
pub async fn insert_activity(pool: &SqlitePool, rows: &[ActivityRow]) -> Result<(), Error> {
    // Writes sysjobactivity rows (per session and job: latest requested run, local datetimes).
    insert_batched(
        pool,
        "sysjobactivity",
        "INSERT INTO sysjobactivity (session_id, job_id, run_requested_date, run_requested_source, queued_date, start_execution_date, last_executed_step_id, last_executed_step_date, stop_execution_date, job_history_id, next_scheduled_run_date) ",
        rows,
        |b, r| {
            b.push_bind(r.session_id)
                .push_bind(r.job_id.clone())
                .push_bind(r.run_requested_date.map(format_datetime))
                .push_bind(r.run_requested_source.clone())
                .push_bind(None::<String>)
                .push_bind(r.start_execution_date.map(format_datetime))
                .push_bind(r.last_executed_step_id)
                .push_bind(r.last_executed_step_date.map(format_datetime))
                .push_bind(r.stop_execution_date.map(format_datetime))
                .push_bind(r.job_history_id)
                .push_bind(r.next_scheduled_run_date.map(format_datetime));
        },
    )
    .await
}

/// Index the finished tables and refresh the planner's statistics (after the last insert).
pub async fn finish(pool: &SqlitePool) -> Result<(), Error> {
    for (table, statement) in INDEXES {
        sqlx::query(*statement).execute(pool).await.map_err(sql(table, "index"))?;
    }
    // Refreshes the query planner's statistics for the indexes just filled.
    sqlx::query("ANALYZE").execute(pool).await.map_err(sql("sysjobhistory", "analyze"))?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Rows read

#[derive(sqlx::FromRow)]
struct MetaRead {
    instance_name: Cell,
    time_zone: Cell,
    now_utc: Cell,
    seed: Cell,
}

#[derive(sqlx::FromRow)]
pub struct JobRead {
    pub job_id: Cell,
    pub name: Cell,
    pub enabled: Cell,
    pub category: Cell,
}

#[derive(sqlx::FromRow)]
pub struct ScheduleRead {
    pub job_id: Cell,
    pub schedule_id: Cell,
    pub name: Cell,
    pub enabled: Cell,
    pub freq_type: Cell,
    pub freq_interval: Cell,
    pub freq_subday_type: Cell,
    pub freq_subday_interval: Cell,
    pub freq_relative_interval: Cell,
    pub freq_recurrence_factor: Cell,
    pub active_start_date: Cell,
    pub active_end_date: Cell,
    pub active_start_time: Cell,
    pub active_end_time: Cell,
}

#[derive(sqlx::FromRow)]
pub struct HorizonRead {
    pub job_id: Cell,
    pub oldest_id: Cell,
    pub oldest_date: Cell,
    pub oldest_time: Cell,
    pub at_cap: Cell,
}

#[derive(sqlx::FromRow)]
pub struct OutcomeRead {
    pub instance_id: Cell,
    pub job_id: Cell,
    pub run_status: Cell,
    pub run_date: Cell,
    pub run_time: Cell,
    pub run_duration: Cell,
    pub message: Cell,
}

#[derive(sqlx::FromRow)]
pub struct RunningRead {
    pub job_id: Cell,
    pub start_execution_date: Cell,
    pub run_requested_source: Cell,
}

#[derive(sqlx::FromRow)]
pub struct SessionRead {
    pub agent_start_date: Cell,
}

/// The demo's meta row: instance name, time zone, "now", seed.
pub async fn read_meta(pool: &SqlitePool) -> Result<DemoMeta, Error> {
    // Reads sundial_demo's row (the first, should there be more).
    let row: Option<MetaRead> =
        sqlx::query_as("SELECT instance_name, time_zone, now_utc, seed FROM sundial_demo LIMIT 1")
            .fetch_optional(pool)
            .await
            .map_err(sql("sundial_demo", "read"))?;
    let row = row.ok_or(Error::Empty { table: "sundial_demo" })?;
    let bad = |column: &'static str, value: &Cell, message: &str| Error::BadValue {
        table: "sundial_demo",
        column,
        key: "1".into(),
        value: value.shown(),
        message: message.into(),
    };
    let name = row
        .instance_name
        .text()
        .ok_or_else(|| bad("instance_name", &row.instance_name, "the instance needs a name"))?;
    let tz = row
        .time_zone
        .text()
        .and_then(|t| t.parse::<Tz>().ok())
        .ok_or_else(|| bad("time_zone", &row.time_zone, "not an IANA time zone"))?;
    let now = row
        .now_utc
        .text()
        .and_then(|t| DateTime::parse_from_rfc3339(&t).ok())
        .map(|t| t.with_timezone(&Utc))
        .ok_or_else(|| bad("now_utc", &row.now_utc, "not an RFC 3339 instant"))?;
    let seed = match row.seed.int() {
        Ok(Some(s)) => s as u64,
        _ => return Err(bad("seed", &row.seed, "not a whole number")),
    };
    Ok(DemoMeta { name, tz, now, seed })
}

/// An integer msdb never leaves NULL: the value, or a diagnostic naming table, column and row.
/// `then` says what follows (e.g. "the row is left out").
fn required_int(cell: &Cell, column: &str, row: &str, then: &str) -> Result<i64, Diagnostic> {
    match cell.int() {
        Ok(Some(v)) => Ok(v),
        Ok(None) => Err(Diagnostic::warning(column, "NULL", format!("{row}: msdb never leaves {column} NULL; {then}"))),
        Err(shown) => Err(Diagnostic::warning(column, shown, format!("{row}: {column} is not a whole number; {then}"))),
    }
}

const LEFT_OUT: &str = "the row is left out";

/// One outcome row as a [`Run`], or why not; warnings that do not drop the row come along.
fn outcome_to_run(r: &OutcomeRead, tz: Tz) -> (Option<Run>, Vec<Diagnostic>) {
    let key = match r.instance_id.int() {
        Ok(Some(id)) => format!("sysjobhistory row instance_id {id}"),
        _ => format!("sysjobhistory row instance_id {}", r.instance_id.shown()),
    };
    let mut diags = Vec::new();
    let status = match required_int(&r.run_status, "run_status", &key, LEFT_OUT) {
        Ok(v) => v,
        Err(d) => return (None, vec![d]),
    };
    let Some(outcome) = RunOutcome::from_run_status(status) else {
        let d = Diagnostic::warning(
            "run_status",
            status,
            format!("{key}: msdb writes run_status 0 to 4 only; the row is left out"),
        );
        return (None, vec![d]);
    };
    let date = match required_int(&r.run_date, "run_date", &key, LEFT_OUT) {
        Ok(v) => v,
        Err(d) => return (None, vec![d]),
    };
    let Some(date) = parse_date_int(date) else {
        let d = Diagnostic::warning("run_date", date, format!("{key}: not a yyyymmdd date; the row is left out"));
        return (None, vec![d]);
    };
    let time = match required_int(&r.run_time, "run_time", &key, LEFT_OUT) {
        Ok(v) => v,
        Err(d) => return (None, vec![d]),
    };
    let Some(time) = parse_time_int(time) else {
        let d = Diagnostic::warning("run_time", time, format!("{key}: not an hhmmss time; the row is left out"));
        return (None, vec![d]);
    };
    let duration_secs = match required_int(&r.run_duration, "run_duration", &key, "read as 0s") {
        Ok(v) => match decode_duration(v) {
            Ok(s) => s,
            Err((secs, why)) => {
                diags.push(Diagnostic::warning(
                    "run_duration",
                    v,
                    format!("{key}: {why}; read as {}s", secs.unwrap_or(0)),
                ));
                secs.unwrap_or(0)
            }
        },
        Err(d) => {
            diags.push(d);
            0
        }
    };
    let message = r.message.text().unwrap_or_default();
    let run = Run {
        start: local_to_utc(date.and_time(time), tz),
        duration_secs,
        outcome,
        trigger: parse_trigger(&message),
        message,
    };
    (Some(run), diags)
}

fn schedule_from_row(r: &ScheduleRead) -> Result<JobSchedule, Diagnostic> {
    let id = match r.schedule_id.int() {
        Ok(Some(id)) => id,
        _ => {
            return Err(Diagnostic::error(
                "schedule_id",
                r.schedule_id.shown(),
                "sysjobschedules row without a usable schedule_id; the schedule is left out",
            ));
        }
    };
    let key = format!("sysschedules row schedule_id {id}");
    let get = |cell: &Cell, column: &str| -> Result<i64, Diagnostic> {
        required_int(cell, column, &key, "the schedule is left out").map_err(|mut d| {
            d.severity = app::engine::Severity::Error;
            d
        })
    };
    let schedule = AgentSchedule {
        enabled: get(&r.enabled, "enabled")?,
        freq_type: get(&r.freq_type, "freq_type")?,
        freq_interval: get(&r.freq_interval, "freq_interval")?,
        freq_subday_type: get(&r.freq_subday_type, "freq_subday_type")?,
        freq_subday_interval: get(&r.freq_subday_interval, "freq_subday_interval")?,
        freq_relative_interval: get(&r.freq_relative_interval, "freq_relative_interval")?,
        freq_recurrence_factor: get(&r.freq_recurrence_factor, "freq_recurrence_factor")?,
        active_start_date: get(&r.active_start_date, "active_start_date")?,
        active_end_date: get(&r.active_end_date, "active_end_date")?,
        active_start_time: get(&r.active_start_time, "active_start_time")?,
        active_end_time: get(&r.active_end_time, "active_end_time")?,
    };
    Ok(JobSchedule {
        id,
        name: r.name.text().unwrap_or_else(|| format!("schedule {id}")),
        enabled: schedule.enabled != 0,
        schedule: Schedule::Agent(schedule),
    })
}

/// Everything the engine needs about the instance over `window`:
///
/// - every job (by name) with its schedules (`sysjobs`, `syscategories`, `sysjobschedules`,
///   `sysschedules`);
/// - the runs of each job whose start falls in the window: the `step_id 0` outcome rows whose
///   local `run_date` lies within the window's local dates (the read is bounded by the window,
///   never all history), plus the runs `sysjobactivity` shows still executing in the latest
///   Agent session (outcome `InProgress`, duration up to `window.end`);
/// - `history_horizon`: for a job whose history looks trimmed, the start of its oldest kept
///   outcome row. A job looks trimmed when it keeps at least [`MAX_OUTCOME_ROWS_PER_JOB`]
///   outcome rows and its oldest is more than a day newer than the oldest outcome row of any
///   job on the instance (history of that time survives elsewhere, so this job's was removed);
/// - `agent_starts` from `syssessions`.
///
/// The instance's name and zone come from the `sundial_demo` row. Corrupt rows become
/// diagnostics on their job; runs they would have been are left out.
pub async fn read_instance(pool: &SqlitePool, window: Window) -> Result<InstanceInput, Error> {
    let meta = read_meta(pool).await?;
    let tz = meta.tz;
    let first = date_int(utc_to_local(window.start, tz).date());
    let last = date_int(utc_to_local(window.end, tz).date());
    let job_rows: Vec<JobRead> = sqlx::query_as(
        "SELECT j.job_id, j.name, j.enabled, c.name AS category
         FROM sysjobs j LEFT JOIN syscategories c ON c.category_id = j.category_id
         ORDER BY j.name, j.job_id",
    )
    .fetch_all(pool)
    .await
    .map_err(sql("sysjobs", "read"))?;
    let schedule_rows: Vec<ScheduleRead> = sqlx::query_as(
        "SELECT js.job_id, s.schedule_id, s.name, s.enabled, s.freq_type, s.freq_interval, s.freq_subday_type,
                s.freq_subday_interval, s.freq_relative_interval, s.freq_recurrence_factor,
                s.active_start_date, s.active_end_date, s.active_start_time, s.active_end_time
         FROM sysjobschedules js JOIN sysschedules s ON s.schedule_id = js.schedule_id
         ORDER BY js.job_id, s.schedule_id",
    )
    .fetch_all(pool)
    .await
    .map_err(sql("sysschedules", "read"))?;
    let horizon_rows: Vec<HorizonRead> = sqlx::query_as(
        "SELECT j.job_id,
            (SELECT h.instance_id FROM sysjobhistory h WHERE h.job_id = j.job_id AND h.step_id = 0
              ORDER BY h.run_date, h.run_time LIMIT 1) AS oldest_id,
            (SELECT h.run_date FROM sysjobhistory h WHERE h.job_id = j.job_id AND h.step_id = 0
              ORDER BY h.run_date, h.run_time LIMIT 1) AS oldest_date,
            (SELECT h.run_time FROM sysjobhistory h WHERE h.job_id = j.job_id AND h.step_id = 0
              ORDER BY h.run_date, h.run_time LIMIT 1) AS oldest_time,
            (SELECT 1 FROM sysjobhistory h WHERE h.job_id = j.job_id AND h.step_id = 0
              LIMIT 1 OFFSET ?1) AS at_cap
         FROM sysjobs j",
    )
    .bind(MAX_OUTCOME_ROWS_PER_JOB - 1)
    .fetch_all(pool)
    .await
    .map_err(sql("sysjobhistory", "read the oldest rows of"))?;
    let outcome_rows: Vec<OutcomeRead> = sqlx::query_as(
        "SELECT instance_id, job_id, run_status, run_date, run_time, run_duration, message
         FROM sysjobhistory
         WHERE step_id = 0 AND run_date BETWEEN ?1 AND ?2
         ORDER BY instance_id",
    )
    .bind(first)
    .bind(last)
    .fetch_all(pool)
    .await
    .map_err(sql("sysjobhistory", "read"))?;
    let running_rows: Vec<RunningRead> = sqlx::query_as(
        "SELECT a.job_id, a.start_execution_date, a.run_requested_source
         FROM sysjobactivity a
         WHERE a.session_id = (SELECT MAX(session_id) FROM syssessions)
           AND a.start_execution_date IS NOT NULL AND a.stop_execution_date IS NULL",
    )
    .fetch_all(pool)
    .await
    .map_err(sql("sysjobactivity", "read"))?;
    let session_rows: Vec<SessionRead> = sqlx::query_as("SELECT agent_start_date FROM syssessions ORDER BY session_id")
        .fetch_all(pool)
        .await
        .map_err(sql("syssessions", "read"))?;
    let rows = MsdbRows { job_rows, schedule_rows, horizon_rows, outcome_rows, running_rows, session_rows };
    Ok(assemble(&meta.name, tz, window, &rows))
}

/// msdb's rows as a reader fetched them (from this SQLite file, or over TDS from SQL Server):
/// every value a lenient [`Cell`], so that [`assemble`] turns bad ones into diagnostics.
pub struct MsdbRows {
    /// `sysjobs` with the category name.
    pub job_rows: Vec<JobRead>,
    /// `sysjobschedules` joined to `sysschedules`.
    pub schedule_rows: Vec<ScheduleRead>,
    /// Per job: its oldest kept outcome row, and whether it keeps the per-job cap of rows.
    pub horizon_rows: Vec<HorizonRead>,
    /// `step_id 0` rows whose local `run_date` lies within the window's local dates.
    pub outcome_rows: Vec<OutcomeRead>,
    /// `sysjobactivity` rows executing now in the latest session.
    pub running_rows: Vec<RunningRead>,
    /// `syssessions`: every Agent start.
    pub session_rows: Vec<SessionRead>,
}

/// The engine's view of an instance from msdb's rows (see [`read_instance`] for what each
/// part means). Never fails: corrupt rows become diagnostics on their job.
pub fn assemble(name: &str, tz: Tz, window: Window, rows: &MsdbRows) -> InstanceInput {
    // Reads every job with its category name (LEFT JOIN: a job whose category is gone still counts).
    let job_rows: &Vec<JobRead> = &rows.job_rows;

    let mut jobs: Vec<JobInput> = Vec::with_capacity(job_rows.len());
    let mut index: HashMap<String, usize> = HashMap::new();
    for r in job_rows {
        let Some(id) = r.job_id.text() else { continue };
        let mut diagnostics = Vec::new();
        let enabled = match r.enabled.int() {
            Ok(Some(v)) => v != 0,
            _ => {
                diagnostics.push(Diagnostic::warning(
                    "enabled",
                    r.enabled.shown(),
                    format!("sysjobs row job_id {id}: enabled is not 0 or 1; taken as enabled"),
                ));
                true
            }
        };
        index.insert(id.clone(), jobs.len());
        jobs.push(JobInput {
            name: r.name.text().unwrap_or_else(|| id.clone()),
            id,
            category: r.category.text().unwrap_or_else(|| "[Uncategorized (Local)]".into()),
            enabled,
            schedules: Vec::new(),
            runs: Vec::new(),
            history_horizon: None,
            unobserved: Vec::new(),
            diagnostics,
        });
    }

    // Reads each job's schedules through sysjobschedules (a schedule may serve several jobs).
    let schedule_rows: &Vec<ScheduleRead> = &rows.schedule_rows;
    for r in schedule_rows {
        let Some(&j) = r.job_id.text().and_then(|id| index.get(&id)) else { continue };
        match schedule_from_row(r) {
            Ok(s) => jobs[j].schedules.push(s),
            Err(d) => jobs[j].diagnostics.push(d),
        }
    }

    // Reads, per job, its oldest kept outcome row and whether it keeps at least the per-job cap
    // of outcome rows (index seeks on nc1, LIMIT/OFFSET-bounded: never a scan of all history).
    let horizon_rows: &Vec<HorizonRead> = &rows.horizon_rows;
    let mut oldest: Vec<(usize, DateTime<Utc>, bool)> = Vec::new();
    for r in horizon_rows {
        let Some(&j) = r.job_id.text().and_then(|id| index.get(&id)) else { continue };
        if r.oldest_date == Cell::Null {
            continue; // no history at all
        }
        let key = format!("sysjobhistory row instance_id {}", r.oldest_id.shown());
        let date = r.oldest_date.int().ok().flatten().and_then(parse_date_int);
        let time = r.oldest_time.int().ok().flatten().and_then(parse_time_int);
        match (date, time) {
            (Some(d), Some(t)) => oldest.push((j, local_to_utc(d.and_time(t), tz), r.at_cap != Cell::Null)),
            (None, _) => jobs[j].diagnostics.push(Diagnostic::warning(
                "run_date",
                r.oldest_date.shown(),
                format!("{key} (the job's oldest outcome row): not a yyyymmdd date; the history horizon is not known"),
            )),
            (_, None) => jobs[j].diagnostics.push(Diagnostic::warning(
                "run_time",
                r.oldest_time.shown(),
                format!("{key} (the job's oldest outcome row): not an hhmmss time; the history horizon is not known"),
            )),
        }
    }
    if let Some(instance_oldest) = oldest.iter().map(|o| o.1).min() {
        for &(j, at, at_cap) in &oldest {
            if at_cap && at > instance_oldest + Duration::days(1) {
                jobs[j].history_horizon = Some(at);
            }
        }
    }

    // Reads the outcome rows (step_id 0) whose local run_date lies within the window's local dates.
    let outcome_rows: &Vec<OutcomeRead> = &rows.outcome_rows;
    for r in outcome_rows {
        let Some(&j) = r.job_id.text().and_then(|id| index.get(&id)) else { continue };
        let (run, diags) = outcome_to_run(r, tz);
        jobs[j].diagnostics.extend(diags);
        if let Some(run) = run.filter(|run| window.contains(run.start)) {
            jobs[j].runs.push(run);
        }
    }

    // Reads the runs executing now: started, not stopped, in the latest Agent session.
    let running_rows: &Vec<RunningRead> = &rows.running_rows;
    for r in running_rows {
        let Some(&j) = r.job_id.text().and_then(|id| index.get(&id)) else { continue };
        let Some(start) = r.start_execution_date.text().and_then(|t| parse_datetime(&t)) else {
            jobs[j].diagnostics.push(Diagnostic::warning(
                "start_execution_date",
                r.start_execution_date.shown(),
                "sysjobactivity row of the latest session: not a datetime; the running run is left out",
            ));
            continue;
        };
        let start = local_to_utc(start, tz);
        if !window.contains(start) {
            continue;
        }
        let trigger = match r.run_requested_source.text().as_deref().map(str::trim) {
            Some("1") => Trigger::Schedule(None),
            Some("4") => Trigger::Manual,
            Some("2") => Trigger::Other("Alert".into()),
            Some("3") => Trigger::Other("Agent start".into()),
            Some(other) => Trigger::Other(format!("run_requested_source {other}")),
            None => Trigger::Schedule(None),
        };
        jobs[j].runs.push(Run {
            start,
            duration_secs: (window.end - start).num_seconds().max(0),
            outcome: RunOutcome::InProgress,
            trigger,
            message: String::new(),
        });
    }
    for job in &mut jobs {
        job.runs.sort_by_key(|r| r.start);
    }

    // Reads every Agent start (one syssessions row per start of the service).
    let session_rows: &Vec<SessionRead> = &rows.session_rows;
    let mut agent_starts: Vec<DateTime<Utc>> = session_rows
        .iter()
        .filter_map(|r| r.agent_start_date.text().and_then(|t| parse_datetime(&t)))
        .map(|t| local_to_utc(t, tz))
        .collect();
    agent_starts.sort();
    if agent_starts.len() < session_rows.len() {
        tracing::warn!(instance = %name, "syssessions rows with an unreadable agent_start_date were left out");
    }

    InstanceInput { name: name.to_owned(), tz: tz.into(), jobs, agent_starts }
}

#[derive(sqlx::FromRow)]
struct HistoryRead {
    instance_id: Cell,
    job_id: Cell,
    step_id: Cell,
    step_name: Cell,
    sql_message_id: Cell,
    sql_severity: Cell,
    message: Cell,
    run_status: Cell,
    run_date: Cell,
    run_time: Cell,
    run_duration: Cell,
    retries_attempted: Cell,
    server: Cell,
}

/// Every history row of one job (the outcome rows and the step rows, retries included) whose
/// local `run_date` lies within the window's local dates, by `instance_id`: what a job's
/// timeline shows when it opens a run. Rows with unreadable numbers are left out.
pub async fn read_job_history(pool: &SqlitePool, job_id: &str, window: Window) -> Result<Vec<HistoryRow>, Error> {
    let tz = read_meta(pool).await?.tz;
    let first = date_int(utc_to_local(window.start, tz).date());
    let last = date_int(utc_to_local(window.end, tz).date());
    // Reads one job's sysjobhistory rows (all steps) in the window's local dates, via nc1.
    let rows: Vec<HistoryRead> = sqlx::query_as(
        "SELECT instance_id, job_id, step_id, step_name, sql_message_id, sql_severity, message, run_status,
                run_date, run_time, run_duration, retries_attempted, server
         FROM sysjobhistory
         WHERE job_id = ?1 AND run_date BETWEEN ?2 AND ?3
         ORDER BY instance_id",
    )
    .bind(job_id.to_owned())
    .bind(first)
    .bind(last)
    .fetch_all(pool)
    .await
    .map_err(sql("sysjobhistory", "read"))?;
    let int = |c: &Cell| c.int().ok().flatten();
    Ok(rows
        .iter()
        .filter_map(|r| {
            Some(HistoryRow {
                instance_id: int(&r.instance_id)?,
                job_id: r.job_id.text()?,
                step_id: int(&r.step_id)?,
                step_name: r.step_name.text().unwrap_or_default(),
                sql_message_id: int(&r.sql_message_id).unwrap_or(0),
                sql_severity: int(&r.sql_severity).unwrap_or(0),
                message: r.message.text().unwrap_or_default(),
                run_status: int(&r.run_status)?,
                run_date: int(&r.run_date)?,
                run_time: int(&r.run_time)?,
                run_duration: int(&r.run_duration)?,
                retries_attempted: int(&r.retries_attempted).unwrap_or(0),
                server: r.server.text().unwrap_or_default(),
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_round_trip_and_grow_past_99_hours() {
        assert_eq!(encode_duration(5742), 13542);
        assert_eq!(decode_duration(13542), Ok(5742));
        assert_eq!(encode_duration(100 * 3600 + 61), 1000101);
        assert_eq!(decode_duration(1000101), Ok(100 * 3600 + 61));
        assert!(decode_duration(170).is_err());
        assert!(decode_duration(-1).is_err());
    }

    #[test]
    fn triggers_come_from_the_message() {
        let s = "The job succeeded.  The Job was invoked by Schedule 12 (Nightly (main)).  The last step to run was step 1 (Load).";
        assert_eq!(parse_trigger(s), Trigger::Schedule(Some(12)));
        let m = "The job failed.  The Job was invoked by User DOMAIN\\dba.  The last step to run was step 2 (x).";
        assert_eq!(parse_trigger(m), Trigger::Manual);
        let a = "The job succeeded.  The Job was invoked by Alert 3 (Disk full).  The last step to run was step 1 (x).";
        assert_eq!(parse_trigger(a), Trigger::Other("Alert 3 (Disk full)".into()));
        assert_eq!(parse_trigger(""), Trigger::Schedule(None));
    }

    #[test]
    fn corrupt_outcome_rows_become_diagnostics() {
        let row = |status: Cell, date: Cell| OutcomeRead {
            instance_id: Cell::Int(7),
            job_id: Cell::Text("X".into()),
            run_status: status,
            run_date: date,
            run_time: Cell::Int(101500),
            run_duration: Cell::Int(130),
            message: Cell::Null,
        };
        let tz: Tz = "America/New_York".parse().unwrap();
        let (run, d) = outcome_to_run(&row(Cell::Int(1), Cell::Int(20240105)), tz);
        let run = run.expect("a good row reads");
        assert_eq!(run.duration_secs, 90);
        assert_eq!(run.start.to_rfc3339(), "2024-01-05T15:15:00+00:00");
        assert!(d.is_empty());
        for (status, date, field) in [
            (Cell::Int(9), Cell::Int(20240105), "run_status"),
            (Cell::Null, Cell::Int(20240105), "run_status"),
            (Cell::Int(1), Cell::Int(20231345), "run_date"),
            (Cell::Int(1), Cell::Text("soon".into()), "run_date"),
        ] {
            let (run, d) = outcome_to_run(&row(status, date), tz);
            assert!(run.is_none());
            assert_eq!(d.len(), 1);
            assert_eq!(d[0].field.as_deref(), Some(field));
            assert!(d[0].message.contains("instance_id 7"), "{}", d[0]);
        }
    }

    #[test]
    fn local_times_in_a_fold_read_as_the_earlier_instant() {
        let tz: Tz = "America/New_York".parse().unwrap();
        let fold = NaiveDate::from_ymd_opt(2024, 11, 3).unwrap().and_hms_opt(1, 30, 0).unwrap();
        assert_eq!(local_to_utc(fold, tz).to_rfc3339(), "2024-11-03T05:30:00+00:00");
        let gap = NaiveDate::from_ymd_opt(2024, 3, 10).unwrap().and_hms_opt(2, 30, 0).unwrap();
        assert_eq!(local_to_utc(gap, tz).to_rfc3339(), "2024-03-10T07:00:00+00:00");
    }
}
