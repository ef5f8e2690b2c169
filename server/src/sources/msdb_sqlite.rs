//! The demo's msdb-shaped SQLite file, read-only: the `sqlite_demo` source.
//!
//! The tables keep msdb's names, columns and meanings (`sysjobs`, `sysschedules`,
//! `sysjobschedules`, `sysjobsteps`, `sysjobhistory`, `sysjobactivity`, `syssessions`,
//! `syscategories`; see [`super::msdb_rows`] for their conventions), and master's
//! `server_principals` (logins by SID, which `SUSER_SNAME` reads), so what Sundial reads here
//! is what it would read from a real msdb. One table is Sundial's own: `sundial_demo`
//! (instance name, time zone, the demo's "now", the seed), so the server knows which "now" the
//! demo was simulated for: the file is a snapshot, read as of that "now".
//!
//! Reading never fails on bad *data* (see [`super::msdb_rows::assemble`]); only a failure of
//! the database itself (missing file, missing table, bad meta row) is a [`SourceError`].
//! Sundial never writes to a source: the file is opened with `mode=ro`.
use app::engine::fleet::InstanceInput;
use app::engine::{Diagnostic, Window};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use sqlx::SqlitePool;
use sqlx::error::BoxDynError;
use sqlx::sqlite::{Sqlite, SqliteTypeInfo, SqliteValueRef};
use std::path::Path;

use super::connect::{self, Kept};
use super::msdb_rows::{
    Cell, DemoMeta, HistoryRow, HorizonRead, JobRead, JobStepRead, MAX_OUTCOME_ROWS_PER_JOB, MsdbRows, OutcomeRead,
    RunningRead, ScheduleRead, SessionRead, StepHistoryRead, assemble, date_int, utc_to_local,
};
use super::{BoxFuture, ReadContext, Source, SourceError, SourceRead};

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

/// The demo file as a [`Source`]: a pool kept between polls; every read is as of the file's own
/// "now", a window as long as the one asked for ending then.
#[derive(Default)]
pub struct DemoFile {
    pool: Kept<SqlitePool>,
}

impl Source for DemoFile {
    fn read<'a>(&'a self, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
        Box::pin(async move {
            let pool = self.pool.get(|| connect::sqlite_of(cx.config)).await?;
            let meta = read_meta(&pool).await?;
            // The window asked for, moved to the file's own "now".
            let shift = meta.now - cx.now;
            let window = Window::new(cx.window.start + shift, cx.window.end + shift);
            let input = read_instance(&pool, window).await?;
            let note = Diagnostic::info(format!(
                "a demo database: a simulated SQL Server Agent ({}), as of {} UTC",
                meta.name,
                meta.now.format("%Y-%m-%d %H:%M")
            ));
            Ok(SourceRead { frozen: true, ..SourceRead::new(input, vec![note], meta.now) })
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

#[derive(sqlx::FromRow)]
struct MetaRead {
    instance_name: Cell,
    time_zone: Cell,
    now_utc: Cell,
    seed: Cell,
}

/// The demo's meta row: instance name, time zone, "now", seed.
pub async fn read_meta(pool: &SqlitePool) -> Result<DemoMeta, SourceError> {
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

/// Every job, schedule and run of the demo instance over `window` (see [`assemble`]); the
/// instance's name and zone come from the `sundial_demo` row.
pub async fn read_instance(pool: &SqlitePool, window: Window) -> Result<InstanceInput, SourceError> {
    let meta = read_meta(pool).await?;
    let tz = meta.tz;
    let first = date_int(utc_to_local(window.start, tz).date());
    let last = date_int(utc_to_local(window.end, tz).date());
    let job_rows: Vec<JobRead> = sqlx::query_as(
        // The owner as SUSER_SNAME(owner_sid) names it: its login in `server_principals`, NULL
        // when there is none (a dropped login).
        "SELECT j.job_id, j.name, j.enabled, c.name AS category, p.name AS owner
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
        "SELECT a.job_id, a.start_execution_date, a.run_requested_source, a.last_executed_step_id,
                a.last_executed_step_date
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
    // Reads the step rows (step_id > 0) on the same local dates as the outcome rows: each
    // run's steps, retries included.
    let step_rows: Vec<StepHistoryRead> = sqlx::query_as(
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
    .map_err(sql("sysjobhistory", "read the step rows of"))?;
    // Reads every job's steps: names, subsystems, what follows each, and the job's start step.
    let job_steps: Vec<JobStepRead> = sqlx::query_as(
        "SELECT s.job_id, s.step_id, s.step_name, s.subsystem, s.on_success_action, s.on_success_step_id,
                s.on_fail_action, s.on_fail_step_id, j.start_step_id
         FROM sysjobsteps s JOIN sysjobs j ON j.job_id = s.job_id ORDER BY s.job_id, s.step_id",
    )
    .fetch_all(pool)
    .await
    .map_err(sql("sysjobsteps", "read"))?;
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
pub async fn read_job_history(pool: &SqlitePool, job_id: &str, window: Window) -> Result<Vec<HistoryRow>, SourceError> {
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
