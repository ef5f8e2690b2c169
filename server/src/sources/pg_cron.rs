//! pg_cron on PostgreSQL: `cron.job` and `cron.job_run_details`, read-only.
//!
//! Least privilege that sees every job: `USAGE` on schema `cron`, `SELECT` on `cron.job` and
//! `cron.job_run_details`, and `BYPASSRLS` (both tables have row-level security
//! `username = current_user`; `pg_read_all_data` does not bypass it). Without BYPASSRLS
//! Sundial sees only its own user's jobs and says so. With `cron.log_run = off` there is no
//! history: runs are unknown, not missed.
//!
//! Read incrementally ([`read_incremental`]): a first read takes the window; after it, a poll
//! asks `job_run_details` only for the rows past the `runid` high-water mark and the rows last
//! seen unfinished, by its primary key (the table's only index), and answers a delta that
//! `super::read` merges into the held read. The mark is kept in Sundial's store
//! (`crate::history`), so a restart continues from it.
//!
//! The same tables can also be read from a SQLite file (an instance with `path = "…"`, as the
//! built-in demo's pg_cron is): `job` and `job_run_details` with `cron.job`'s and
//! `cron.job_run_details`' columns (times as UTC text, `YYYY-MM-DD HH:MM:SS[.ffffff]`, an
//! offset allowed), and `pg_settings` (`name`, `setting`) for `cron.timezone` and
//! `cron.log_run`, read through [`super::tables`] from a file opened read-only. A file has
//! no row-level security: every job is seen.
use chrono::{DateTime, Utc};
use sqlx::postgres::{PgPool, PgRow};
use sqlx::sqlite::SqlitePool;
use sqlx::{Column, Postgres, Row, TypeInfo};
use sundial_engine::fleet::{InstanceInput, JobInput, JobSchedule};
use sundial_engine::{Diagnostic, Run, RunOutcome, Schedule, Severity, Trigger, Window, cron::CronSchedule};

use super::connect::{self, Kept};
use super::tables::{self, Col, TablesDb, text};
use super::{BoxFuture, Extent, Mark, ReadContext, Source, SourceError, SourceRead};

fn query_error(object: &'static str, grant: &'static str, e: sqlx::Error) -> SourceError {
    if let sqlx::Error::Database(db) = &e {
        return match db.code().as_deref() {
            Some("42501") => SourceError::permission(object, grant),
            // undefined_function, datatype_mismatch: Sundial's SQL meets a column of another type.
            Some("42883") | Some("42804") => SourceError::query(
                object,
                format!(
                    "{} (a column has another type than in pg_cron's own table: an altered or look-alike table?)",
                    db.message()
                ),
            ),
            Some("42P01") | Some("3F000") => SourceError::Missing {
                object: "cron.job".into(),
                hint: ": pg_cron is not installed in this database; connect to the one named by cron.database_name"
                    .into(),
            },
            _ => SourceError::query(object, db.message()),
        };
    }
    SourceError::driver(object, &e)
}

/// One server setting; `None` when it does not exist (older pg_cron) or this role may not
/// read it (pg_cron marks some superuser-only: a note says which grant shows it). Any other
/// failure (the connection lost) fails the read: a setting missed is not a setting unset.
async fn setting(pool: &PgPool, name: &str, notes: &mut Vec<Diagnostic>) -> Result<Option<String>, SourceError> {
    // `pg_settings` leaves out a setting this role may not see, where `current_setting` raises
    // an error (logged by the server at every poll); whether the role could see it tells an
    // unset setting from a hidden one.
    let found: Option<(Option<String>, bool)> = sqlx::query_as(
        "SELECT s.setting, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) \
         OR pg_has_role(current_user, 'pg_read_all_settings', 'USAGE') \
         FROM (SELECT 1) one LEFT JOIN pg_settings s ON s.name = $1",
    )
    .bind(name)
    .fetch_optional(pool)
    .await
    .map_err(|e| query_error("the server's settings", "a login", e))?;
    match found {
        Some((None, false)) => {
            notes.push(Diagnostic::new(
                Severity::Info,
                Some(name),
                None,
                format!("this role cannot read {name}; grant it pg_read_all_settings to let Sundial see it"),
            ));
            Ok(None)
        }
        Some((setting, _)) => Ok(setting),
        None => Ok(None),
    }
}

/// pg_cron's own types of the columns Sundial reads from `cron.job_run_details`, as
/// `format_type` writes them.
const RUN_TYPES: &[(&str, &str)] = &[
    ("runid", "bigint"),
    ("jobid", "bigint"),
    ("status", "text"),
    ("return_message", "text"),
    ("start_time", "timestamp with time zone"),
    ("end_time", "timestamp with time zone"),
];

/// A statement on `object` failed. When it failed on a type (an operator or a function that
/// does not exist for the column's type), the catalog says which column differs from pg_cron's
/// `types`: the error names it. Otherwise as [`query_error`].
async fn failed(
    pool: &PgPool,
    object: &'static str,
    grant: &'static str,
    types: &[(&str, &str)],
    e: sqlx::Error,
) -> SourceError {
    // On the server (an operator or function missing for the column's type), or here (a value
    // of another type than the one read).
    let on_a_type = matches!(&e, sqlx::Error::ColumnDecode { .. })
        || matches!(&e, sqlx::Error::Database(db) if matches!(db.code().as_deref(), Some("42883") | Some("42804")));
    if on_a_type {
        let found: Result<Vec<(String, String)>, _> = sqlx::query_as(
            "SELECT a.attname::text, format_type(a.atttypid, NULL) FROM pg_catalog.pg_attribute a \
             WHERE a.attrelid = $1::text::regclass AND a.attnum > 0 AND NOT a.attisdropped",
        )
        .bind(object)
        .fetch_all(pool)
        .await;
        for (column, expected) in types {
            if let Some((_, ty)) = found.as_deref().unwrap_or_default().iter().find(|(c, _)| c == column)
                && ty != expected
            {
                return SourceError::WrongType {
                    object: object.to_owned(),
                    column: (*column).to_owned(),
                    found: ty.clone(),
                    expected: (*expected).to_owned(),
                };
            }
        }
    }
    query_error(object, grant, e)
}

/// Column `column` of a row of `table`, as pg_cron types it (`expected`, in its words): a
/// column of another type (a look-alike or altered table) fails the read, naming it, rather
/// than reading as a default.
pub(super) fn column<'r, T>(row: &'r PgRow, table: &str, column: &str, expected: &str) -> Result<T, SourceError>
where
    T: sqlx::Decode<'r, Postgres> + sqlx::Type<Postgres>,
{
    row.try_get(column).map_err(|e| match row.try_column(column).map(|c| c.type_info()) {
        Ok(found) if !T::compatible(found) => SourceError::WrongType {
            object: table.to_owned(),
            column: column.to_owned(),
            found: found.name().to_lowercase(),
            expected: expected.to_owned(),
        },
        _ => SourceError::driver(format!("{table}.{column}"), &e),
    })
}

/// pg_cron as a [`Source`]: one pool kept between polls (PostgreSQL, or a SQLite file when the
/// instance has a `path`); with Sundial's store, jobs are judged only since Sundial could have
/// seen them ([`apply_watch`]).
///
/// From PostgreSQL, a read with a held read that has a [`Mark`] ([`ReadContext::held`]) asks
/// only for what is new ([`read_incremental`]) and answers an [`Extent::Delta`].
#[derive(Default)]
pub struct PgCron {
    pool: Kept<PgPool>,
    file: Kept<SqlitePool>,
    /// `job_run_details` rows fetched by this source's reads, all told (for tests and figures).
    rows: std::sync::atomic::AtomicU64,
}

impl PgCron {
    /// How many `cron.job_run_details` rows this source's reads have fetched.
    pub fn rows_read(&self) -> u64 {
        self.rows.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Source for PgCron {
    fn read<'a>(&'a self, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
        Box::pin(async move {
            let (mut input, notes, extent, mark) = if cx.config.path.is_some() {
                let mut db = TablesDb::Sqlite(self.file.get(|| connect::sqlite_of(cx.config)).await?);
                let (input, notes) = read_file(&mut db, &cx.config.name, cx.window).await?;
                (input, notes, Extent::Whole, None)
            } else {
                let pool = self.pool.get(|| connect::postgres(cx.config)).await?;
                let since = cx.held.and_then(|h| h.mark.as_ref());
                let read = read_incremental(&pool, &cx.config.name, cx.window, since, cx.now).await?;
                self.rows.fetch_add(read.rows, std::sync::atomic::Ordering::Relaxed);
                (read.input, read.notes, read.extent, Some(read.mark))
            };
            if let Some(store) = cx.store {
                // A delta's jobs hold only their new runs: their first run may be a held one.
                let held = cx.held.filter(|_| extent == Extent::Delta);
                apply_watch(&mut input, store, cx.now, held.map(|h| (&h.input, cx.window))).await?;
            }
            Ok(SourceRead { extent, mark, ..SourceRead::new(input, notes, cx.now) })
        })
    }

    fn reset(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {
            self.pool.forget().await;
            self.file.forget().await;
        })
    }
}

/// One `cron.job` row, from either database.
struct JobRow {
    jobid: i64,
    schedule: Option<String>,
    active: Option<bool>,
    jobname: Option<String>,
    database: Option<String>,
    username: Option<String>,
    command: Option<String>,
}

/// One `cron.job_run_details` row, from either database; `start` is `None` when unreadable.
struct RunRow {
    /// `runid` (a file's rows have none: 0).
    runid: i64,
    jobid: i64,
    status: Option<String>,
    return_message: Option<String>,
    start: Option<DateTime<Utc>>,
    end: Option<DateTime<Utc>>,
}

/// What the server says about itself: its settings, whether this role sees every row, and
/// the oldest run `job_run_details` still holds.
struct Server {
    tz_name: Option<String>,
    log_run: Option<String>,
    sees_all: bool,
    oldest: Option<DateTime<Utc>>,
}

/// The instance's jobs and their runs that started inside `window`; instance-level findings
/// (RLS hiding jobs, no run log) come back beside it.
pub async fn read_instance(
    pool: &PgPool,
    name: &str,
    window: Window,
) -> Result<(InstanceInput, Vec<Diagnostic>), SourceError> {
    let read = read_incremental(pool, name, window, None, window.end).await?;
    Ok((read.input, read.notes))
}

/// pg_cron's run statuses of a run not finished yet (pg_cron updates its row when it ends).
const UNFINISHED: &[&str] = &["starting", "connecting", "sending", "running"];

/// New rows are asked for this many at a time (by `runid`, so each page is an index range).
const PAGE: i64 = 1000;

/// The columns of `cron.job_run_details` Sundial reads.
const RUN_SELECT: &str = "SELECT runid, jobid, status, return_message, start_time, end_time FROM cron.job_run_details";

/// A read of the instance: whole, or only what is new since `since` (a [`Mark`] of an earlier
/// read), with where it leaves the history. `rows`: how many `job_run_details` rows it fetched.
pub struct Incremental {
    pub input: InstanceInput,
    pub notes: Vec<Diagnostic>,
    pub extent: Extent,
    pub mark: Mark,
    pub rows: u64,
}

/// [`read_instance`], asking the table only for what `since` does not hold: the rows past its
/// `runid` high-water mark (by pages) and the rows it saw unfinished (`runid = ANY`), both by
/// the primary key — never a scan of `job_run_details`. Without `since`, or when the table's
/// `runid`s went back below it (truncated, the sequence reset: see [`went_back`]), the whole
/// window is read and the read says why on the instance.
pub async fn read_incremental(
    pool: &PgPool,
    name: &str,
    window: Window,
    since: Option<&Mark>,
    now: DateTime<Utc>,
) -> Result<Incremental, SourceError> {
    let mut notes = Vec::new();
    let tz_name = setting(pool, "cron.timezone", &mut notes).await?;
    let log_run = setting(pool, "cron.log_run", &mut notes).await?;
    // Whether this role sees every user's rows (superuser or BYPASSRLS).
    let sees_all: bool =
        sqlx::query_scalar("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user")
            .fetch_optional(pool)
            .await
            .map_err(|e| query_error("pg_roles", "LOGIN", e))?
            .flatten()
            .unwrap_or(false);

    // Every job this role can see.
    let jobs = sqlx::query(
        "SELECT jobid, schedule, command, database, username, active, jobname::text AS jobname FROM cron.job ORDER BY jobid",
    )
    .fetch_all(pool)
    .await
    .map_err(|e| query_error("cron.job", "USAGE on schema cron and SELECT on cron.job", e))?;
    let job = "cron.job";
    let jobs = jobs
        .iter()
        .map(|row| {
            Ok(JobRow {
                jobid: column(row, job, "jobid", "bigint")?,
                schedule: column(row, job, "schedule", "text")?,
                active: column(row, job, "active", "boolean")?,
                jobname: column(row, job, "jobname", "name")?,
                database: column(row, job, "database", "text")?,
                username: column(row, job, "username", "text")?,
                command: column(row, job, "command", "text")?,
            })
        })
        .collect::<Result<_, SourceError>>()?;
    let (run, grant) = ("cron.job_run_details", "SELECT on cron.job_run_details");
    // Both ends of the table by its primary key (before the rows: a row added meanwhile has a
    // higher `runid` and is read now or by the next read, never skipped).
    //
    // The oldest run the table still holds (`job_run_details` is often purged by time) is the
    // row with the smallest `runid`, not `min(start_time)`, which scans the whole table. That is
    // sound because pg_cron numbers a run from a sequence as its launcher starts it (one
    // process, so in start order), and its purges (`DELETE … WHERE end_time < …`) remove the
    // oldest first. Someone deleting out of order (one job's old rows, or a run stuck
    // unfinished with a small `runid` left behind) makes it report a later start than the true
    // oldest: runs due before are then called unknown rather than judged, never missed wrongly.
    let low: Option<(i64, DateTime<Utc>)> = match sqlx::query_as(
        "SELECT runid, start_time FROM cron.job_run_details WHERE start_time IS NOT NULL ORDER BY runid LIMIT 1",
    )
    .fetch_optional(pool)
    .await
    {
        Ok(low) => low,
        Err(e) => return Err(failed(pool, run, grant, RUN_TYPES, e).await),
    };
    let high: Option<i64> = sqlx::query_scalar("SELECT max(runid) FROM cron.job_run_details")
        .fetch_one(pool)
        .await
        .map_err(|e| query_error(run, grant, e))?;
    let oldest = low.map(|l| l.1);
    let server = Server { tz_name, log_run, sees_all, oldest };
    let fetched = |rows: &[PgRow]| -> Result<Vec<RunRow>, SourceError> {
        rows.iter()
            .map(|row| {
                Ok(RunRow {
                    runid: column(row, run, "runid", "bigint")?,
                    jobid: column(row, run, "jobid", "bigint")?,
                    status: column(row, run, "status", "text")?,
                    return_message: column(row, run, "return_message", "text")?,
                    start: column(row, run, "start_time", "timestamp with time zone")?,
                    end: column(row, run, "end_time", "timestamp with time zone")?,
                })
            })
            .collect()
    };
    let went_back = since.and_then(|m| went_back(m, low, high));
    let mut restarted = since.and_then(|m| m.restarted.clone()).filter(|(at, _)| now - *at < chrono::Duration::days(1));
    let (extent, runs) = match since.filter(|_| went_back.is_none()) {
        Some(mark) => {
            // What is new: every row past the mark, a page at a time.
            let mut runs = Vec::new();
            let mut after = mark.high;
            loop {
                let page = sqlx::query(sqlx::AssertSqlSafe(format!(
                    "{RUN_SELECT} WHERE runid > $1 ORDER BY runid LIMIT {PAGE}"
                )))
                .bind(after)
                .fetch_all(pool)
                .await;
                let page = match page {
                    Ok(page) => fetched(&page)?,
                    Err(e) => return Err(failed(pool, run, grant, RUN_TYPES, e).await),
                };
                let full = page.len() as i64 == PAGE;
                after = page.last().map_or(after, |r| r.runid);
                runs.extend(page);
                if !full {
                    break;
                }
            }
            // What was unfinished: pg_cron updates those rows in place as they end.
            if !mark.open.is_empty() {
                let open = sqlx::query(sqlx::AssertSqlSafe(format!("{RUN_SELECT} WHERE runid = ANY($1)")))
                    .bind(&mark.open)
                    .fetch_all(pool)
                    .await;
                match open {
                    Ok(open) => runs.extend(fetched(&open)?),
                    Err(e) => return Err(failed(pool, run, grant, RUN_TYPES, e).await),
                }
            }
            // Runs that started before the window (a stuck row) are not the window's.
            runs.retain(|r| r.start.is_none_or(|s| s >= window.start && s < window.end));
            (Extent::Delta, runs)
        }
        None => {
            // Read again after the history went back, the window's rows are added to what
            // Sundial holds (runs it read before still happened), not put in its place.
            let extent = if went_back.is_some() { Extent::Delta } else { Extent::Whole };
            if let Some(why) = went_back {
                restarted = Some((now, why));
            }
            // Runs that started in the window (never the whole history), and the rows not
            // started yet (`starting`: no start time), to follow until they end.
            let runs = sqlx::query(sqlx::AssertSqlSafe(format!(
                "{RUN_SELECT} WHERE (start_time >= $1 AND start_time < $2) OR start_time IS NULL ORDER BY start_time"
            )))
            .bind(window.start)
            .bind(window.end)
            .fetch_all(pool)
            .await;
            match runs {
                Ok(runs) => (extent, fetched(&runs)?),
                Err(e) => return Err(failed(pool, run, grant, RUN_TYPES, e).await),
            }
        }
    };
    if let Some((at, why)) = &restarted {
        notes.push(Diagnostic::new(
            Severity::Warning,
            Some("runid"),
            None,
            format!(
                "{why}: at {} UTC Sundial read the whole window again (runs it kept before are still shown)",
                at.format("%Y-%m-%d %H:%M:%S")
            ),
        ));
    }
    let mark = Mark {
        high: runs
            .iter()
            .map(|r| r.runid)
            .chain(high)
            .chain(since.filter(|_| extent == Extent::Delta).map(|m| m.high))
            .max()
            .unwrap_or(0),
        low,
        open: runs
            .iter()
            .filter(|r| r.status.as_deref().is_some_and(|s| UNFINISHED.contains(&s)))
            .map(|r| r.runid)
            .collect(),
        restarted,
    };
    let rows = runs.len() as u64;
    let (input, notes) = assemble(name, window, &server, notes, jobs, runs);
    Ok(Incremental { input, notes, extent, mark, rows })
}

/// Why the table's `runid`s went back below `mark` (`None`: they did not). `runid` only grows
/// and purges remove the oldest rows, so the largest `runid` below the mark, or a smallest one
/// below the smallest seen before (or the same one on a row that started at another time),
/// means the history was replaced (`TRUNCATE`, the sequence reset, a restore): rows up to the
/// mark cannot be trusted to be the ones Sundial read, even once new rows pass the mark again.
fn went_back(mark: &Mark, low: Option<(i64, DateTime<Utc>)>, high: Option<i64>) -> Option<String> {
    let words = ("cron.job_run_details'", "runid", "the table was truncated or its sequence reset");
    mark.went_back(low.map(|(id, at)| (id, Some(at))), high, words)
}

/// The pg_net function a command calls (`net.http_post`, …), whose request pg_cron only queues.
fn pg_net_call(command: &str) -> Option<String> {
    let lower = command.to_ascii_lowercase();
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    // `net.http_…` as a name of its own (not the end of `internet.http_…`).
    let (at, _) = lower.match_indices("net.http_").find(|(at, _)| !lower[..*at].ends_with(word))?;
    Some(lower[at..].chars().take_while(|c| word(*c) || *c == '.').collect())
}

/// `cron.job`'s columns that Sundial reads, in a file.
const JOB_COLUMNS: &[Col] = &[
    Col::Plain("jobid"),
    Col::Plain("schedule"),
    Col::Plain("database"),
    Col::Plain("username"),
    Col::Plain("command"),
    Col::Plain("active"),
    Col::Plain("jobname"),
];
/// `cron.job_run_details`' columns that Sundial reads, in a file.
const RUN_COLUMNS: &[Col] = &[
    Col::Plain("jobid"),
    Col::Plain("status"),
    Col::Plain("return_message"),
    Col::Time("start_time"),
    Col::Time("end_time"),
];

/// [`read_instance`] over the same tables in a SQLite file (see the module docs): `job`,
/// `job_run_details` and `pg_settings`.
pub async fn read_file(
    db: &mut TablesDb,
    name: &str,
    window: Window,
) -> Result<(InstanceInput, Vec<Diagnostic>), SourceError> {
    let settings = tables::read(db, "pg_settings", &[Col::Plain("name"), Col::Plain("setting")], "").await?;
    let setting = |n: &str| {
        settings.iter().find(|r| text(r, "name") == Some(n)).map(|r| text(r, "setting").unwrap_or_default().to_owned())
    };
    let start = tables::column(db, "start_time");
    let first =
        tables::read(db, "job_run_details", &[Col::Time("start_time")], &format!("ORDER BY {start} LIMIT 1")).await?;
    let oldest = first.first().and_then(|r| text(r, "start_time")).and_then(tables::instant);
    let server = Server { tz_name: setting("cron.timezone"), log_run: setting("cron.log_run"), sees_all: true, oldest };
    let jobs = tables::read(db, "job", JOB_COLUMNS, &format!("ORDER BY {}", tables::column(db, "jobid"))).await?;
    let tail = format!(
        "WHERE {start} >= {} AND {start} < {} ORDER BY {start}",
        tables::time_literal(db, window.start.naive_utc()),
        tables::time_literal(db, window.end.naive_utc())
    );
    let runs = tables::read(db, "job_run_details", RUN_COLUMNS, &tail).await?;
    let mut notes = Vec::new();
    let id = |r: &tables::TextRow, notes: &mut Vec<Diagnostic>| {
        let raw = text(r, "jobid").unwrap_or("NULL");
        raw.parse::<i64>()
            .map_err(|_| notes.push(Diagnostic::warning("jobid", raw, "not a job id; the row is left out")))
    };
    let jobs = jobs
        .iter()
        .filter_map(|r| {
            Some(JobRow {
                jobid: id(r, &mut notes).ok()?,
                schedule: text(r, "schedule").map(str::to_owned),
                active: text(r, "active").map(|a| !matches!(a.to_ascii_lowercase().as_str(), "0" | "f" | "false")),
                jobname: text(r, "jobname").map(str::to_owned),
                database: text(r, "database").map(str::to_owned),
                username: text(r, "username").map(str::to_owned),
                command: text(r, "command").map(str::to_owned),
            })
        })
        .collect();
    let runs = runs
        .iter()
        .filter_map(|r| {
            let start = text(r, "start_time");
            let parsed = start.and_then(tables::instant);
            if parsed.is_none() {
                notes.push(Diagnostic::warning(
                    "start_time",
                    start.unwrap_or("NULL"),
                    "not a time; the run is left out",
                ));
            }
            Some(RunRow {
                runid: 0,
                jobid: id(r, &mut notes).ok()?,
                status: text(r, "status").map(str::to_owned),
                return_message: text(r, "return_message").map(str::to_owned),
                start: parsed,
                end: text(r, "end_time").and_then(tables::instant),
            })
        })
        .collect();
    Ok(assemble(name, window, &server, notes, jobs, runs))
}

/// The rows as the engine's input, with the instance's findings.
fn assemble(
    name: &str,
    window: Window,
    server: &Server,
    mut notes: Vec<Diagnostic>,
    jobs: Vec<JobRow>,
    runs: Vec<RunRow>,
) -> (InstanceInput, Vec<Diagnostic>) {
    let (tz_name, log_run, sees_all) = (&server.tz_name, &server.log_run, server.sees_all);
    let tz = match tz_name.as_deref() {
        None | Some("") => chrono_tz::UTC,
        Some(z) => z.parse().unwrap_or_else(|_| {
            notes.push(Diagnostic::warning("cron.timezone", z, "not an IANA zone Sundial knows; forecasting in UTC"));
            chrono_tz::UTC
        }),
    };
    if !sees_all {
        notes.push(Diagnostic::new(
            Severity::Warning,
            Some("role"),
            None,
            "this role sees only its own pg_cron jobs (row-level security on cron.job and cron.job_run_details): \
             grant it BYPASSRLS (pg_read_all_data is not enough) to see every user's jobs",
        ));
    }
    let no_history = log_run.as_deref().is_some_and(|v| v.eq_ignore_ascii_case("off"));
    if no_history {
        notes.push(Diagnostic::info(
            "cron.log_run is off: pg_cron keeps no run history, so past runs are unknown, not missed",
        ));
    }

    // Purged by time (pg_cron's advice: a job deleting old `job_run_details` rows): before the
    // oldest row left, a run's absence proves nothing.
    let purged = server.oldest.filter(|o| *o > window.start && !no_history);
    if let Some(o) = purged {
        notes.push(Diagnostic::info(format!(
            "cron.job_run_details holds runs from {} UTC on (older ones were purged): runs due before are unknown, \
             not missed, unless Sundial kept them",
            o.format("%Y-%m-%d %H:%M:%S")
        )));
    }
    let mut out: Vec<JobInput> = Vec::with_capacity(jobs.len());
    for row in jobs {
        let jobid = row.jobid;
        let mut diagnostics = Vec::new();
        let schedule = row.schedule.unwrap_or_else(|| {
            diagnostics.push(Diagnostic::error("schedule", "NULL", format!("cron.job {jobid} has no schedule")));
            String::new()
        });
        let active = row.active.unwrap_or(true);
        let jobname = row.jobname;
        if let Some(call) = row.command.as_deref().and_then(pg_net_call) {
            diagnostics.push(Diagnostic::info(format!(
                "the command calls pg_net ({call}): pg_cron's \"succeeded\" means the HTTP request was queued, not \
                 that it was answered; its answer is in net._http_response, which Sundial does not read"
            )));
        }
        out.push(JobInput {
            id: jobid.to_string(),
            name: jobname.filter(|n| !n.is_empty()).unwrap_or_else(|| format!("job {jobid}")),
            // The database the command runs in; the role it runs as is the job's owner.
            category: row.database.unwrap_or_default(),
            owner: row.username.filter(|u| !u.is_empty()),
            enabled: active,
            command: row.command.filter(|c| !c.trim().is_empty()),
            schedules: vec![JobSchedule {
                id: jobid,
                name: schedule.clone(),
                enabled: active,
                schedule: Schedule::Cron(CronSchedule::new(schedule)),
            }],
            runs: Vec::new(),
            history_horizon: if no_history { Some(window.end) } else { purged },
            source_horizon: None,
            unobserved: Vec::new(),
            diagnostics,
            earlier: Vec::new(),
            modified: None,
        });
    }
    for row in runs {
        let jobid = row.jobid;
        let Some(job) = out.iter_mut().find(|j| j.id == jobid.to_string()) else { continue };
        let Some(start) = row.start else { continue };
        let end = row.end;
        let status = row.status.unwrap_or_default();
        let outcome = match status.as_str() {
            "succeeded" => RunOutcome::Succeeded,
            "failed" => RunOutcome::Failed,
            "starting" | "connecting" | "sending" | "running" => RunOutcome::InProgress,
            other => {
                job.diagnostics.push(Diagnostic::warning("status", other, "not a pg_cron run status; read as failed"));
                RunOutcome::Failed
            }
        };
        job.runs.push(Run {
            start,
            // A run in progress has no end yet: 0 s here (no clock in a source reader).
            duration_secs: end.map_or(0, |e| (e - start).num_seconds().max(0)),
            outcome,
            trigger: Trigger::Schedule(Some(jobid)),
            message: row.return_message.unwrap_or_default(),
            steps: Vec::new(),
        });
    }
    (InstanceInput::new(name, tz.into(), out, Vec::new()), notes)
}

/// pg_cron keeps no creation time for a job, so a job created an hour ago would look as if it
/// had missed a whole window of runs. Sundial's store remembers when it first read the
/// instance and when it first saw each job:
/// - a job that appeared after Sundial's first read is new: nothing before its first run (or
///   before the poll that first saw it) is judged;
/// - a job with no run at all in the window is judged only since Sundial first saw it;
/// - any other job keeps its whole window (its runs show it existed).
///
/// `held`: for a delta read, the read it adds to and its window (a job's runs there count).
pub async fn apply_watch(
    input: &mut InstanceInput,
    store: &super::snapshots::Store,
    polled_at: DateTime<Utc>,
    held: Option<(&InstanceInput, Window)>,
) -> Result<(), super::snapshots::Error> {
    store.record(&input.name, "", None, polled_at).await?;
    let since = store.samples(&input.name, "", polled_at).await?.first_seen.unwrap_or(polled_at);
    for job in &mut input.jobs {
        let key = format!("job {}", job.id);
        store.record(&input.name, &key, None, polled_at).await?;
        let seen = store.samples(&input.name, &key, polled_at).await?.first_seen.unwrap_or(polled_at);
        let earlier = held.and_then(|(h, w)| {
            let job = h.jobs.iter().find(|j| j.id == job.id)?;
            job.runs.iter().map(|r| r.start).filter(|s| *s >= w.start).min()
        });
        let first_run = job.runs.iter().map(|r| r.start).chain(earlier).min();
        let horizon = if seen > since {
            Some(first_run.map_or(seen, |r| r.min(seen)))
        } else if first_run.is_none() {
            Some(seen)
        } else {
            None
        };
        if let Some(h) = horizon {
            job.history_horizon = Some(job.history_horizon.map_or(h, |x| x.max(h)));
            job.diagnostics.push(Diagnostic::info(format!(
                "pg_cron keeps no creation time: runs due before {} UTC (Sundial first saw this job then{}) are not judged",
                h.format("%Y-%m-%d %H:%M:%S"),
                if first_run.is_some() { ", or its first run" } else { ", and it has not run since" }
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::pg_net_call;

    #[test]
    fn a_pg_net_call_is_named_wherever_it_is_in_the_command() {
        assert_eq!(
            pg_net_call("SELECT net.http_post(url := 'https://x', body := '{}')").as_deref(),
            Some("net.http_post")
        );
        assert_eq!(pg_net_call("select NET.HTTP_GET('https://x')").as_deref(), Some("net.http_get"));
        assert_eq!(pg_net_call("REFRESH MATERIALIZED VIEW CONCURRENTLY sales_mv"), None);
        // A schema whose name ends like it is not pg_net.
        assert_eq!(pg_net_call("CALL internet.http_logs_rollup()"), None);
        assert_eq!(
            pg_net_call("CALL internet.http_x(); SELECT net.http_delete('u')").as_deref(),
            Some("net.http_delete")
        );
    }
}
