//! The demo's msdb-shaped SQLite file, read-only: the `sqlite_demo` source.
//!
//! The tables keep msdb's names, columns and meanings (`sysjobs`, `sysschedules`,
//! `sysjobschedules`, `sysjobsteps`, `sysjobhistory`, `sysjobactivity`, `syssessions`,
//! `syscategories`; see [`super::msdb_rows`] for their conventions), and master's
//! `server_principals` (logins by SID, which `SUSER_SNAME` reads), so what Sundial reads here
//! is what it would read from a real msdb. One table is Sundial's own: `sundial_demo`
//! (instance name, time zone, the demo's "now", the seed), so the server knows which "now" the
//! demo was simulated for.
//!
//! Two kinds of file, told apart by `sundial_demo.now_utc`:
//!
//! - **fixed** (an instant, as `sundial demo` writes it): the file is a snapshot, read whole as
//!   of that "now" at every poll (a window as long as the one asked for, ending then) and
//!   `frozen` (nothing to refresh, never stale);
//! - **live** (`now_utc` NULL: `UPDATE sundial_demo SET now_utc = NULL`): something keeps
//!   writing msdb's rows (a simulated Agent, `end2end/load/fleet_scale.sh`'s appender), and the
//!   file is read as of each poll's "now", not frozen, and incrementally as msdb over TDS is
//!   read: a first read takes the window's history by `run_date`; after it a poll asks
//!   `sysjobhistory` only for the rows past the held [`Mark`]'s `instance_id` (outcome and
//!   step rows in one query, [`Q_DELTA`], a page at a time) and the step rows still waiting
//!   for their run's outcome row; both ends of the table ([`Q_ENDS`]) tell a history that went
//!   back (rows deleted and `instance_id`s reused lower), which is read whole again, merged and
//!   noted. What both readers decide alike is in [`super::msdb_rows`] (`plan_history`,
//!   `mark_after`); neither reader imports the other.
//!
//! Reading never fails on bad *data* (see [`super::msdb_rows::assemble`]); only a failure of
//! the database itself (missing file, missing table, bad meta row) is a [`SourceError`].
//! Sundial never writes to a source: the file is opened with `mode=ro`.
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use sqlx::SqlitePool;
use sqlx::error::BoxDynError;
use sqlx::sqlite::{Sqlite, SqliteTypeInfo, SqliteValueRef};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use sundial_engine::fleet::InstanceInput;
use sundial_engine::{Diagnostic, Window};

use super::connect::{self, Kept};
use super::msdb_rows::{
    self, Cell, DemoMeta, HistoryRow, HorizonRead, JobRead, JobStepRead, MAX_OUTCOME_ROWS_PER_JOB, MsdbRows,
    OutcomeRead, RunningRead, ScheduleRead, SessionRead, StepHistoryRead, assemble, date_int, local_to_utc,
    utc_to_local,
};
use super::{BoxFuture, Mark, ReadContext, Source, SourceError, SourceRead};

fn sql(table: &'static str, action: &'static str) -> impl FnOnce(sqlx::Error) -> SourceError {
    move |e| {
        let message = match &e {
            sqlx::Error::Database(db) => db.message().to_owned(),
            _ => "the file could not be read".to_owned(),
        };
        if message.starts_with("no such table") {
            return SourceError::Missing {
                object: format!("table {table}"),
                hint: " (not a Sundial demo file?)".into(),
            };
        }
        SourceError::query(table, format!("SQLite failed to {action} it: {message}"))
    }
}

/// The demo file as a [`Source`]: a pool kept between polls. A fixed file is read whole as of
/// its own "now", a window as long as the one asked for ending then; a live one as of the
/// poll's, incrementally after a first read ([`read_live`]).
#[derive(Default)]
pub struct DemoFile {
    pool: Kept<SqlitePool>,
    /// `sysjobhistory` rows fetched by this source's live reads, all told (for tests and figures).
    rows: AtomicU64,
}

impl DemoFile {
    /// How many `sysjobhistory` rows (outcome and step rows) this source's live reads fetched.
    pub fn rows_read(&self) -> u64 {
        self.rows.load(Ordering::Relaxed)
    }
}

impl Source for DemoFile {
    fn read<'a>(&'a self, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
        Box::pin(async move {
            let pool = self.pool.get(|| connect::sqlite_of(cx.config)).await?;
            let meta = read_file_meta(&pool).await?;
            let Some(fixed) = meta.now else {
                let since = cx.held.and_then(|h| h.mark.as_ref());
                let (read, rows) = read_live(&pool, &meta, cx.window, cx.now, since).await?;
                self.rows.fetch_add(rows, Ordering::Relaxed);
                return Ok(read);
            };
            // The window asked for, moved to the file's own "now".
            let shift = fixed - cx.now;
            let window = Window::new(cx.window.start + shift, cx.window.end + shift);
            let input = read_instance(&pool, window).await?;
            let note = Diagnostic::info(format!(
                "a demo database: a simulated SQL Server Agent ({}), as of {} UTC",
                meta.name,
                fixed.format("%Y-%m-%d %H:%M")
            ));
            Ok(SourceRead { frozen: true, ..SourceRead::new(input, vec![note], fixed) })
        })
    }

    fn reset(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.pool.forget())
    }
}

/// Open an msdb-shaped SQLite file read-only (`mode=ro`): Sundial never writes to a source.
/// Fails when the file is missing or not a database.
pub async fn open_read_only(path: &Path) -> Result<SqlitePool, SourceError> {
    connect::sqlite(path).await
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

#[derive(sqlx_macros::FromRow)]
struct MetaRead {
    instance_name: Cell,
    time_zone: Cell,
    now_utc: Cell,
    seed: Cell,
}

/// The file's meta row (`sundial_demo`): instance name, time zone, its fixed "now" (`None`:
/// NULL, a live file, read as of each poll), seed.
#[derive(Clone, Debug, PartialEq)]
pub struct FileMeta {
    pub name: String,
    pub tz: Tz,
    pub now: Option<DateTime<Utc>>,
    pub seed: u64,
}

/// The meta row of a fixed file (as the demo writes it): instance name, time zone, "now",
/// seed. A live file (no fixed "now") is a [`SourceError::BadRow`] here: see [`read_file_meta`].
pub async fn read_meta(pool: &SqlitePool) -> Result<DemoMeta, SourceError> {
    let meta = read_file_meta(pool).await?;
    let now = meta.now.ok_or_else(|| SourceError::BadRow {
        table: "sundial_demo".into(),
        column: "now_utc".into(),
        key: "1".into(),
        value: "NULL".into(),
        message: "a live file has no fixed now".into(),
    })?;
    Ok(DemoMeta { name: meta.name, tz: meta.tz, now, seed: meta.seed })
}

/// The file's meta row, fixed or live.
pub async fn read_file_meta(pool: &SqlitePool) -> Result<FileMeta, SourceError> {
    // Reads sundial_demo's row (the first, should there be more).
    let row: Option<MetaRead> =
        sqlx::query_as("SELECT instance_name, time_zone, now_utc, seed FROM sundial_demo LIMIT 1")
            .fetch_optional(pool)
            .await
            .map_err(sql("sundial_demo", "read"))?;
    let row =
        row.ok_or_else(|| SourceError::Missing { object: "the row of sundial_demo".into(), hint: String::new() })?;
    let bad = |column: &'static str, value: &Cell, message: &str| SourceError::BadRow {
        table: "sundial_demo".into(),
        column: column.into(),
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
    let now = match &row.now_utc {
        Cell::Null => None,
        cell => Some(
            cell.text()
                .and_then(|t| DateTime::parse_from_rfc3339(&t).ok())
                .map(|t| t.with_timezone(&Utc))
                .ok_or_else(|| bad("now_utc", cell, "not an RFC 3339 instant (NULL: a live file)"))?,
        ),
    };
    let seed = match row.seed.int() {
        Ok(Some(s)) => s as u64,
        _ => return Err(bad("seed", &row.seed, "not a whole number")),
    };
    Ok(FileMeta { name, tz, now, seed })
}

/// Every job, schedule and run of the demo instance over `window` (see [`assemble`]); the
/// instance's name and zone come from the `sundial_demo` row. Whole, as a fixed file is read.
pub async fn read_instance(pool: &SqlitePool, window: Window) -> Result<InstanceInput, SourceError> {
    let meta = read_file_meta(pool).await?;
    let tz = meta.tz;
    let first = date_int(utc_to_local(window.start, tz).date());
    let last = date_int(utc_to_local(window.end, tz).date());
    let (job_rows, schedule_rows, horizon_rows) = read_jobs(pool).await?;
    let outcome_rows = read_outcomes(pool, first, last).await?;
    let running_rows = read_running(pool).await?;
    let session_rows = read_sessions(pool).await?;
    let step_rows = read_steps(pool, first, last).await?;
    let job_steps = read_job_steps(pool).await?;
    let rows = MsdbRows {
        job_rows,
        schedule_rows,
        horizon_rows,
        outcome_rows,
        running_rows,
        session_rows,
        step_rows,
        job_steps,
    };
    Ok(assemble(&meta.name, tz, window, &rows))
}

/// Both ends of `sysjobhistory` by its key, `instance_id` (the table's rowid): the largest, and
/// the oldest row with its local date and time. Seeks, never a scan.
pub const Q_ENDS: &str = "SELECT (SELECT MAX(instance_id) FROM sysjobhistory) AS high,
        (SELECT instance_id FROM sysjobhistory ORDER BY instance_id LIMIT 1) AS low_id,
        (SELECT run_date FROM sysjobhistory ORDER BY instance_id LIMIT 1) AS low_date,
        (SELECT run_time FROM sysjobhistory ORDER BY instance_id LIMIT 1) AS low_time";

/// Every `sysjobhistory` row past `?1` (outcome rows, step_id 0, and step rows alike), and the
/// rows whose `instance_id` the JSON array `?2` names again (step rows whose run had no
/// outcome row yet), by the key, at most `?3` ([`msdb_rows::PAGE`]) rows.
pub const Q_DELTA: &str =
    "SELECT instance_id, job_id, step_id, step_name, run_status, run_date, run_time, run_duration,
        retries_attempted, sql_message_id, sql_severity, message
     FROM sysjobhistory
     WHERE instance_id > ?1 OR instance_id IN (SELECT value FROM json_each(?2))
     ORDER BY instance_id LIMIT ?3";

/// A live file read at `now` (`meta.now` is `None`): everything as [`read_instance`] reads it,
/// but `sysjobhistory` only for what `since` (the [`Mark`] of an earlier read) does not hold,
/// as msdb over TDS is read: the rows past its `instance_id` mark and the step rows it names as
/// waiting for their run's outcome row ([`Q_DELTA`], a page at a time); jobs, schedules, steps,
/// horizons, sessions and `sysjobactivity` (small) each time. The answer is an
/// [`Extent::Delta`](super::Extent::Delta) that [`super::read`] merges into the held read.
/// Without `since`, or when the `instance_id`s went back ([`msdb_rows::went_back`]: rows
/// deleted and ids reused lower), the window is read whole (by `run_date`), merged into what
/// Sundial holds when it went back, with a note. With the read, how many `sysjobhistory` rows
/// it fetched.
pub async fn read_live(
    pool: &SqlitePool,
    meta: &FileMeta,
    window: Window,
    now: DateTime<Utc>,
    since: Option<&Mark>,
) -> Result<(SourceRead, u64), SourceError> {
    let tz = meta.tz;
    let (job_rows, schedule_rows, horizon_rows) = read_jobs(pool).await?;
    // The runs going now before the history: a run that ends in between is read with its
    // outcome row (and is then that run, not one going: `msdb_rows::assemble`).
    let running_rows = read_running(pool).await?;
    // Both ends before the rows: a row added meanwhile is read now or by the next read.
    let (high, low) = read_ends(pool, tz).await?;
    let first = date_int(utc_to_local(window.start, tz).date());
    let last = date_int(utc_to_local(window.end, tz).date());
    let plan = msdb_rows::plan_history(since, low, high, now);
    let (step_rows, outcome_rows, read_to) = match plan.past {
        Some(mark) => {
            let (steps, outcomes, read_to) = read_past(pool, mark).await?;
            (steps, outcomes, read_to.max(mark.high))
        }
        None => {
            // Steps before outcomes: a run that ends between the two reads still finds its
            // outcome row.
            let steps = read_steps(pool, first, last).await?;
            let outcomes = read_outcomes(pool, first, last).await?;
            (steps, outcomes, high.unwrap_or(0))
        }
    };
    let fetched = (step_rows.len() + outcome_rows.len()) as u64;
    let mut notes = vec![Diagnostic::info(format!(
        "a live msdb file: a simulated SQL Server Agent ({}), read as of each poll",
        meta.name
    ))];
    notes.extend(msdb_rows::restart_note(plan.restarted.as_ref()));
    let mark = msdb_rows::mark_after(&outcome_rows, &step_rows, first, read_to, low, plan.restarted);
    let session_rows = read_sessions(pool).await?;
    let job_steps = read_job_steps(pool).await?;
    let rows = MsdbRows {
        job_rows,
        schedule_rows,
        horizon_rows,
        outcome_rows,
        running_rows,
        session_rows,
        step_rows,
        job_steps,
    };
    let input = assemble(&meta.name, tz, window, &rows);
    let read = SourceRead { extent: plan.extent, mark: Some(mark), ..SourceRead::new(input, notes, now) };
    Ok((read, fetched))
}

#[derive(sqlx_macros::FromRow)]
struct EndsRead {
    high: Cell,
    low_id: Cell,
    low_date: Cell,
    low_time: Cell,
}

/// `sysjobhistory`'s largest `instance_id`, and its oldest row's with that row's start
/// (`None`: no history at all).
async fn read_ends(pool: &SqlitePool, tz: Tz) -> Result<(Option<i64>, Option<(i64, DateTime<Utc>)>), SourceError> {
    let r: EndsRead = sqlx::query_as(Q_ENDS).fetch_one(pool).await.map_err(sql("sysjobhistory", "read the ends of"))?;
    let int = |c: &Cell| c.int().ok().flatten();
    let date = int(&r.low_date).and_then(msdb_rows::parse_date_int);
    let time = int(&r.low_time).and_then(msdb_rows::parse_time_int);
    let low = int(&r.low_id).map(|id| {
        // A row whose date is unreadable is still that row: its key alone says.
        let at = date.zip(time).map_or(DateTime::<Utc>::MIN_UTC, |(d, t)| local_to_utc(d.and_time(t), tz));
        (id, at)
    });
    Ok((int(&r.high), low))
}

/// The rows past `mark` ([`Q_DELTA`]), page after page, as step rows and outcome rows; with
/// the highest `instance_id` read (0 when none).
async fn read_past(
    pool: &SqlitePool,
    mark: &Mark,
) -> Result<(Vec<StepHistoryRead>, Vec<OutcomeRead>, i64), SourceError> {
    let (mut steps, mut outcomes) = (Vec::new(), Vec::new());
    let (mut after, mut read_to) = (mark.high, 0);
    // The rows waiting are named again on the first page only.
    let mut open = serde_json::to_string(&mark.open).unwrap_or_else(|_| "[]".into());
    loop {
        let page: Vec<StepHistoryRead> = sqlx::query_as(Q_DELTA)
            .bind(after)
            .bind(std::mem::replace(&mut open, "[]".into()))
            .bind(msdb_rows::PAGE)
            .fetch_all(pool)
            .await
            .map_err(sql("sysjobhistory", "read the new rows of"))?;
        let full = page.len() as i64 == msdb_rows::PAGE;
        let (s, o, high) = msdb_rows::split_history(page);
        steps.extend(s);
        outcomes.extend(o);
        read_to = read_to.max(high);
        after = after.max(high);
        if !full {
            break;
        }
    }
    Ok((steps, outcomes, read_to))
}

/// Every job with its category and owner, every job's schedules, and per job its oldest kept
/// outcome row and whether it keeps the per-job cap (the history horizon).
async fn read_jobs(pool: &SqlitePool) -> Result<(Vec<JobRead>, Vec<ScheduleRead>, Vec<HorizonRead>), SourceError> {
    let job_rows: Vec<JobRead> = sqlx::query_as(
        // The owner as SUSER_SNAME(owner_sid) names it: its login in `server_principals`, NULL
        // when there is none (a dropped login).
        "SELECT j.job_id, j.name, j.enabled, c.name AS category, p.name AS owner, j.date_modified AS modified
         FROM sysjobs j LEFT JOIN syscategories c ON c.category_id = j.category_id
         LEFT JOIN server_principals p ON p.sid = j.owner_sid
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
    Ok((job_rows, schedule_rows, horizon_rows))
}

/// The outcome rows (step_id 0) on the local dates `first..=last` (`yyyymmdd`).
async fn read_outcomes(pool: &SqlitePool, first: i64, last: i64) -> Result<Vec<OutcomeRead>, SourceError> {
    sqlx::query_as(
        "SELECT instance_id, job_id, run_status, run_date, run_time, run_duration, message
         FROM sysjobhistory
         WHERE step_id = 0 AND run_date BETWEEN ?1 AND ?2
         ORDER BY instance_id",
    )
    .bind(first)
    .bind(last)
    .fetch_all(pool)
    .await
    .map_err(sql("sysjobhistory", "read"))
}

/// The runs executing now, in the latest Agent session.
async fn read_running(pool: &SqlitePool) -> Result<Vec<RunningRead>, SourceError> {
    sqlx::query_as(
        "SELECT a.job_id, a.start_execution_date, a.run_requested_source, a.last_executed_step_id,
                a.last_executed_step_date
         FROM sysjobactivity a
         WHERE a.session_id = (SELECT MAX(session_id) FROM syssessions)
           AND a.start_execution_date IS NOT NULL AND a.stop_execution_date IS NULL",
    )
    .fetch_all(pool)
    .await
    .map_err(sql("sysjobactivity", "read"))
}

/// Agent starts.
async fn read_sessions(pool: &SqlitePool) -> Result<Vec<SessionRead>, SourceError> {
    sqlx::query_as("SELECT agent_start_date FROM syssessions ORDER BY session_id")
        .fetch_all(pool)
        .await
        .map_err(sql("syssessions", "read"))
}

/// The step rows (step_id > 0) on the local dates `first..=last`, as the outcome rows: each
/// run's steps, retries included.
async fn read_steps(pool: &SqlitePool, first: i64, last: i64) -> Result<Vec<StepHistoryRead>, SourceError> {
    sqlx::query_as(
        "SELECT instance_id, job_id, step_id, step_name, run_status, run_date, run_time, run_duration,
                retries_attempted, sql_message_id, sql_severity, message
         FROM sysjobhistory
         WHERE step_id > 0 AND run_date BETWEEN ?1 AND ?2
         ORDER BY instance_id",
    )
    .bind(first)
    .bind(last)
    .fetch_all(pool)
    .await
    .map_err(sql("sysjobhistory", "read the step rows of"))
}

/// Every job's steps: names, subsystems, what follows each, and the job's start step.
async fn read_job_steps(pool: &SqlitePool) -> Result<Vec<JobStepRead>, SourceError> {
    sqlx::query_as(
        "SELECT s.job_id, s.step_id, s.step_name, s.subsystem, s.on_success_action, s.on_success_step_id,
                s.on_fail_action, s.on_fail_step_id, j.start_step_id
         FROM sysjobsteps s JOIN sysjobs j ON j.job_id = s.job_id ORDER BY s.job_id, s.step_id",
    )
    .fetch_all(pool)
    .await
    .map_err(sql("sysjobsteps", "read"))
}

#[derive(sqlx_macros::FromRow)]
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
pub async fn read_job_history(pool: &SqlitePool, job_id: &str, window: Window) -> Result<Vec<HistoryRow>, SourceError> {
    let tz = read_file_meta(pool).await?.tz;
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
