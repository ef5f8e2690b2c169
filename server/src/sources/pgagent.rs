//! pgAgent (pgAdmin's job scheduler) on PostgreSQL: the `pgagent` schema's tables, read-only.
//!
//! # Least privilege
//!
//! ```sql
//! CREATE ROLE sundial_reader LOGIN;
//! GRANT USAGE ON SCHEMA pgagent TO sundial_reader;
//! GRANT SELECT ON pgagent.pga_job, pgagent.pga_jobclass, pgagent.pga_jobstep, pgagent.pga_schedule,
//!       pgagent.pga_exception, pgagent.pga_joblog, pgagent.pga_jobsteplog, pgagent.pga_jobagent
//!    TO sundial_reader;
//! ```
//!
//! Nothing else: the tables have no row-level security, and `pg_stat_activity` (whether an
//! agent's session is still there) and `pg_db_role_setting` are readable by every role.
//!
//! # What is read
//!
//! - Jobs: `pga_job` (`jobenabled`, `jobcreated`, `jobhostagent`, `jobagentid`, the agent's own
//!   `jobnextrun`), with the class (`pga_jobclass.jclname`) as the category, and every
//!   `pga_schedule` row with its `pga_exception` rows as a [`Schedule::PgAgent`] (the engine's
//!   `pgagent` dialect forecasts it exactly as `pgagent.pga_next_schedule` computes runs). A
//!   schedule row Sundial cannot read (an array of another length or subscripts, a bad
//!   exception) gives the job an Error naming `pgagent.pga_schedule.<column>` and the
//!   schedule; the other jobs and schedules load.
//! - The zone the schedules are computed in: pgAgent's session zone, the server's `TimeZone`.
//!   The instance's `time_zone` when configured; else the `TimeZone` set for the agent's role
//!   or the database (`pg_db_role_setting`); else the server's file setting when this role may
//!   read it (`pg_file_settings`, superusers only); else UTC with a warning saying to
//!   configure `time_zone` (a session of Sundial's always runs in UTC, so it cannot see the
//!   server's default itself).
//! - Runs: `pga_joblog`. `jlgstatus`: `s` succeeded, `f` failed, `r` running (in progress
//!   while the job's `jobagentid` is a live agent session; **crashed** when that agent is gone,
//!   as pgAgent itself marks it `d` at the next agent's start), `i` failed (pgAgent could not
//!   run the steps: no step row could be logged, or a step of an unknown kind; also the row the
//!   agent writes when it could not start the job's thread), `d` crashed (aborted: the agent
//!   running it was gone when another agent started). `jlgduration` is the run's duration.
//! - Steps: `pga_jobsteplog` with the step's `pga_jobstep` name and kind, as the run's
//!   [`Step`]s, in order: `jslstatus` `s` succeeded, `f` failed (it failed the job), `i` failed
//!   (its failure ignored: `jstonerror = 'i'`), `r` in progress, `d` crashed; `jsloutput` as the
//!   step's message (for a batch step that did not succeed, with its exit code, `jslresult`).
//!   The run's message is the failing step's output (`f`), else the last step's.
//! - The agent: `pga_jobagent` (`jaglogintime`, `jagstation`, `jagpid`); each login time is an
//!   agent start (as SQL Agent's `syssessions.agent_start_date`: missed runs before it are
//!   "the scheduler was down"; a delta keeps the logins of the read it adds to, since an
//!   agent's row goes when the next agent clears it); when no row is a live session
//!   (`pg_stat_activity`), the
//!   instance has a warning on `pga_jobagent` (the scheduler is stopped).
//! - `jobnextrun` is checked against Sundial's forecast by `super::finish` (a warning when
//!   they differ by more than a minute).
//!
//! # Incremental
//!
//! As pg_cron's source reads `job_run_details`: a first read takes the window's runs (by
//! `jlgid` pages); after it, a poll asks `pga_joblog` only for the rows past the `jlgid`
//! high-water mark (paged) and the rows last seen running (`jlgid = ANY`), both by the primary
//! key, and the steps of those runs only (`jsljlgid = ANY`, its index). pgAgent runs jobs in
//! threads, each taking its `jlgid` from the sequence before inserting: a row with a lower id
//! may commit after a higher one. The ids just below the mark that a read did not see are
//! asked for once more by the next read (rows that never came are gaps of the sequence).
//! Everything is read in one `REPEATABLE READ` snapshot, so a run and its job, and a run and
//! its steps, agree.
//!
//! # From a SQLite file
//!
//! The same tables can also be read from a SQLite file (an instance with `path = "…"`, as the
//! built-in demo's pgAgent is), through [`super::tables`] from a file opened read-only
//! ([`read_file`], the whole window at each poll): `pga_job`, `pga_jobclass`, `pga_jobstep`,
//! `pga_schedule`, `pga_exception`, `pga_joblog`, `pga_jobsteplog` and `pga_jobagent` with
//! pgAgent's own column names. Times are UTC text (`YYYY-MM-DD HH:MM:SS[.ffffff]`, an offset such
//! as `+00` allowed); booleans `t`/`f` (`true`/`false`, `1`/`0`); the five arrays of
//! `pga_schedule` PostgreSQL's text `{t,f,…}` or JSON arrays of booleans; `jlgduration` and
//! `jslduration` an interval's text (`00:01:02.5`, `1 day 02:00:00`) or seconds. The zone is the
//! instance's `time_zone`, else the file's `pg_settings` row `TimeZone` (`name`, `setting`),
//! else UTC with a warning. A file has no `pg_stat_activity`: every `pga_jobagent` row is taken
//! as a live agent (a file is a snapshot of the tables as of when it was taken; an agent whose
//! row is there was logged in then), so a run `r` of a job whose `jobagentid` is such an agent is
//! in progress. A value that cannot be read is a warning naming its table and column, and its
//! row is left out (a bad boolean is read as the column's default).
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use sqlx::PgConnection;
use sqlx::postgres::{PgPool, PgRow};
use std::collections::{BTreeSet, HashMap};
use sundial_engine::fleet::{InstanceInput, JobInput, JobSchedule};
use sundial_engine::pgagent::{PgAgentException, PgAgentSchedule};
use sundial_engine::{Diagnostic, Run, RunOutcome, Schedule, Severity, Step, Trigger, Window};

use super::connect::{self, Kept};
use super::pg_cron::column;
use super::tables::{self, Col, TablesDb, text};
use super::{BoxFuture, Extent, Mark, ReadContext, ReportedNext, Source, SourceError, SourceRead};

/// What the reading role needs, as errors say it.
const GRANT: &str = "USAGE on schema pgagent and SELECT on its tables (see the pgagent source's documentation)";

fn query_error(object: &'static str, e: sqlx::Error) -> SourceError {
    if let sqlx::Error::Database(db) = &e {
        return match db.code().as_deref() {
            Some("42501") => SourceError::permission(object, GRANT),
            Some("42P01") | Some("3F000") => SourceError::Missing {
                object: object.into(),
                hint: ": pgAgent is not installed in this database (CREATE EXTENSION pgagent); connect to the \
                       database pgAgent's connection string names"
                    .into(),
            },
            _ => SourceError::query(object, db.message()),
        };
    }
    SourceError::driver(object, &e)
}

/// pgAgent as a [`Source`]: one pool kept between polls; a read with a held read that has a
/// [`Mark`] asks only for what is new ([`read_incremental`]) and answers an [`Extent::Delta`].
#[derive(Default)]
pub struct PgAgent {
    pool: Kept<PgPool>,
    /// The SQLite file, for an instance with a `path` ([`read_file`]).
    file: Kept<sqlx::SqlitePool>,
    /// `pga_joblog` rows fetched by this source's reads, all told (for tests and figures).
    rows: std::sync::atomic::AtomicU64,
}

impl PgAgent {
    /// How many `pgagent.pga_joblog` rows this source's reads have fetched.
    pub fn rows_read(&self) -> u64 {
        self.rows.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Source for PgAgent {
    fn read<'a>(&'a self, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
        Box::pin(async move {
            if cx.config.path.is_some() {
                let mut db = TablesDb::Sqlite(self.file.get(|| connect::sqlite_of(cx.config)).await?);
                let (input, notes, reported_next) =
                    read_file(&mut db, &cx.config.name, cx.window, cx.config.time_zone).await?;
                return Ok(SourceRead { reported_next, ..SourceRead::new(input, notes, cx.now) });
            }
            let pool = self.pool.get(|| connect::postgres(cx.config)).await?;
            let since = cx.held.and_then(|h| h.mark.as_ref());
            let read = read_incremental(&pool, &cx.config.name, cx.window, since, cx.now, cx.config.time_zone).await?;
            self.rows.fetch_add(read.rows, std::sync::atomic::Ordering::Relaxed);
            let mut read = read;
            // An agent's row goes when the next agent clears it: the logins Sundial saw before
            // still happened (a whole read after Sundial's restart has only the table's).
            if let Some(held) = cx.held.filter(|_| read.extent == Extent::Delta) {
                let starts = &mut read.input.agent_starts;
                starts.extend(held.input.agent_starts.iter().filter(|s| **s >= cx.window.start));
                starts.sort_unstable();
                starts.dedup();
            }
            Ok(SourceRead {
                extent: read.extent,
                mark: Some(read.mark),
                reported_next: read.reported_next,
                ..SourceRead::new(read.input, read.notes, cx.now)
            })
        })
    }

    fn reset(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {
            self.pool.forget().await;
            self.file.forget().await;
        })
    }
}

/// A read of the instance: whole, or only what is new since the [`Mark`] it was given.
pub struct Incremental {
    pub input: InstanceInput,
    pub notes: Vec<Diagnostic>,
    pub extent: Extent,
    pub mark: Mark,
    /// `pga_joblog` rows fetched.
    pub rows: u64,
    /// Each enabled job's `jobnextrun`, for [`super::finish`].
    pub reported_next: Vec<ReportedNext>,
}

/// The instance's jobs and their runs that started inside `window` (a whole read at
/// `window.end`), with instance-level findings beside it.
pub async fn read_instance(
    pool: &PgPool,
    name: &str,
    window: Window,
) -> Result<(InstanceInput, Vec<Diagnostic>), SourceError> {
    let read = read_incremental(pool, name, window, None, window.end, None).await?;
    Ok((read.input, read.notes))
}

/// New rows are asked for this many at a time (by `jlgid`, so each page is an index range).
const PAGE: i64 = 1000;

/// How far below the new mark a read looks for ids it did not see (rows of concurrent job
/// threads that may commit out of id order), to ask for them once more.
const LATE_IDS: i64 = 64;

const JOBLOG: &str = "pgagent.pga_joblog";
const JOBLOG_SELECT: &str = "SELECT jlgid, jlgjobid, jlgstatus::text AS jlgstatus, jlgstart, \
     EXTRACT(EPOCH FROM jlgduration)::float8 AS jlgduration FROM pgagent.pga_joblog";

struct Agent {
    pid: i32,
    login: DateTime<Utc>,
    station: String,
    role: Option<String>,
    alive: bool,
}

struct JobRow {
    jobid: i32,
    name: String,
    class: Option<String>,
    hostagent: String,
    enabled: bool,
    created: DateTime<Utc>,
    agent: Option<i32>,
    nextrun: Option<DateTime<Utc>>,
}

struct RunRow {
    jlgid: i32,
    jobid: i32,
    status: String,
    start: DateTime<Utc>,
    duration: Option<f64>,
}

/// [`read_instance`], asking only for what `since` does not hold (see the module docs).
/// `configured`: the instance's `time_zone`, which spares looking for the server's.
pub async fn read_incremental(
    pool: &PgPool,
    name: &str,
    window: Window,
    since: Option<&Mark>,
    now: DateTime<Utc>,
    configured: Option<Tz>,
) -> Result<Incremental, SourceError> {
    let mut tx = pool.begin().await.map_err(|e| SourceError::driver("PostgreSQL", &e))?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        .execute(&mut *tx)
        .await
        .map_err(|e| SourceError::driver("PostgreSQL", &e))?;
    let read = read_in(&mut tx, name, window, since, now, configured).await;
    // Read-only: nothing to keep.
    let _ = tx.rollback().await;
    read
}

async fn read_in(
    db: &mut PgConnection,
    name: &str,
    window: Window,
    since: Option<&Mark>,
    now: DateTime<Utc>,
    configured: Option<Tz>,
) -> Result<Incremental, SourceError> {
    let mut notes = Vec::new();
    let agents = agents(db).await?;
    let tz = match configured {
        Some(tz) => tz,
        None => zone(db, &agents, &mut notes).await?,
    };
    let jobs = jobs(db).await?;
    let schedules = schedules(db).await?;

    // Both ends of the run log by its primary key, before the rows.
    let low: Option<(i32, DateTime<Utc>)> =
        sqlx::query_as("SELECT jlgid, jlgstart FROM pgagent.pga_joblog ORDER BY jlgid LIMIT 1")
            .fetch_optional(&mut *db)
            .await
            .map_err(|e| query_error(JOBLOG, e))?;
    let high: Option<i32> = sqlx::query_scalar("SELECT max(jlgid) FROM pgagent.pga_joblog")
        .fetch_one(&mut *db)
        .await
        .map_err(|e| query_error(JOBLOG, e))?;
    let low = low.map(|(id, at)| (i64::from(id), at));
    let high = high.map(i64::from);
    let words = ("pgagent.pga_joblog's", "jlgid", "the table was truncated or its sequence reset");
    let went_back = since.and_then(|m| m.went_back(low.map(|(id, at)| (id, Some(at))), high, words));
    let mut restarted = since.and_then(|m| m.restarted.clone()).filter(|(at, _)| now - *at < chrono::Duration::days(1));

    // Every id fetched (a run outside the window too: it is read, not late), and how many.
    let mut seen: BTreeSet<i64> = BTreeSet::new();
    let (extent, runs, from) = match since.filter(|_| went_back.is_none()) {
        Some(mark) => {
            let mut runs = paged(db, "jlgid > $1", mark.high, None).await?;
            if !mark.open.is_empty() {
                let ids: Vec<i32> = mark.open.iter().filter_map(|&i| i32::try_from(i).ok()).collect();
                let open = sqlx::query(sqlx::AssertSqlSafe(format!("{JOBLOG_SELECT} WHERE jlgid = ANY($1)")))
                    .bind(&ids)
                    .fetch_all(&mut *db)
                    .await
                    .map_err(|e| query_error(JOBLOG, e))?;
                runs.extend(open.iter().map(run_row).collect::<Result<Vec<_>, _>>()?);
            }
            seen.extend(runs.iter().map(|r| i64::from(r.jlgid)));
            runs.retain(|r| r.start >= window.start && r.start < window.end);
            (Extent::Delta, runs, mark.high)
        }
        None => {
            // Read again after the history went back, the window's rows are added to what
            // Sundial holds, not put in its place.
            let extent = if went_back.is_some() { Extent::Delta } else { Extent::Whole };
            if let Some(why) = went_back {
                restarted = Some((now, why));
            }
            let runs = paged(db, "jlgid > $1 AND jlgstart >= $2 AND jlgstart < $3", 0, Some(window)).await?;
            let from = runs.iter().map(|r| i64::from(r.jlgid)).min().or(high).unwrap_or(0);
            seen.extend(runs.iter().map(|r| i64::from(r.jlgid)));
            (extent, runs, from)
        }
    };
    if let Some((at, why)) = &restarted {
        notes.push(Diagnostic::new(
            Severity::Warning,
            Some("jlgid"),
            None,
            format!(
                "{why}: at {} UTC Sundial read the whole window again (runs it kept before are still shown)",
                at.format("%Y-%m-%d %H:%M:%S")
            ),
        ));
    }
    let steps = steps(db, &runs).await?;

    let rows = seen.len() as u64;
    let top = seen.iter().copied().chain(high).chain(since.filter(|_| extent == Extent::Delta).map(|m| m.high)).max();
    let top = top.unwrap_or(0);
    let mut open: Vec<i64> = runs.iter().filter(|r| r.status == "r").map(|r| i64::from(r.jlgid)).collect();
    // Ids just below the mark not seen: a job thread's row not committed yet, or a gap.
    let asked_before: BTreeSet<i64> = since.map(|m| m.open.iter().copied().collect()).unwrap_or_default();
    open.extend(
        ((from + 1).max(top - LATE_IDS + 1)..=top)
            .filter(|id| !seen.contains(id) && !asked_before.contains(id) && *id > 0),
    );
    let mark = Mark { high: top, low, open, restarted };

    let purged = low.map(|l| l.1).filter(|o| *o > window.start);
    if let Some(o) = purged {
        notes.push(Diagnostic::info(format!(
            "pgagent.pga_joblog holds runs from {} UTC on (older ones were deleted): runs due before are unknown, \
             not missed, unless Sundial kept them",
            o.format("%Y-%m-%d %H:%M:%S")
        )));
    }
    let (input, reported_next) = assemble(name, tz, window, purged, &agents, &jobs, schedules, runs, steps, &mut notes);
    Ok(Incremental { input, notes, extent, mark, rows, reported_next })
}

/// The rows read (from PostgreSQL or a file) as the engine's input, with each enabled job's
/// `jobnextrun`; the instance's findings go to `notes`.
#[allow(clippy::too_many_arguments)]
fn assemble(
    name: &str,
    tz: Tz,
    window: Window,
    purged: Option<DateTime<Utc>>,
    agents: &[Agent],
    jobs: &[JobRow],
    schedules: Vec<Sched>,
    runs: Vec<RunRow>,
    steps: HashMap<i32, Vec<Step>>,
    notes: &mut Vec<Diagnostic>,
) -> (InstanceInput, Vec<ReportedNext>) {
    let live: HashMap<i32, &Agent> = agents.iter().filter(|a| a.alive).map(|a| (a.pid, a)).collect();
    let job_agent: HashMap<i32, Option<i32>> = jobs.iter().map(|j| (j.jobid, j.agent)).collect();
    let running = |r: &RunRow| {
        r.status == "r" && job_agent.get(&r.jobid).copied().flatten().is_some_and(|a| live.contains_key(&a))
    };
    agent_notes(agents, notes);

    let mut reported_next = Vec::new();
    let mut out: Vec<JobInput> = Vec::with_capacity(jobs.len());
    let mut by_job: HashMap<i32, Vec<Sched>> = HashMap::new();
    for s in schedules {
        by_job.entry(s.jobid).or_default().push(s);
    }
    for job in jobs {
        let mut diagnostics = Vec::new();
        let scheds = by_job.remove(&job.jobid).unwrap_or_default();
        let mut schedules = Vec::with_capacity(scheds.len());
        for s in scheds {
            for d in sundial_engine::pgagent::validate(&s.row, tz.into()) {
                if d.severity != Severity::Error {
                    continue;
                }
                let column = d.field.as_deref().unwrap_or("row");
                let table = if column.starts_with("jex") { "pga_exception" } else { "pga_schedule" };
                diagnostics.push(Diagnostic::new(
                    Severity::Error,
                    Some(&format!("pgagent.{table}.{column}")),
                    d.value.clone(),
                    format!(
                        "schedule {} (\"{}\") of pgagent.pga_schedule cannot be read: {}; Sundial forecasts none of its runs",
                        s.id, s.name, d.message
                    ),
                ));
            }
            schedules.push(JobSchedule {
                id: i64::from(s.id),
                name: s.name,
                enabled: s.enabled,
                schedule: Schedule::PgAgent(s.row),
            });
        }
        if !job.hostagent.is_empty() && !agents.iter().any(|a| a.alive && a.station == job.hostagent) {
            diagnostics.push(Diagnostic::warning(
                "jobhostagent",
                &job.hostagent,
                "the job runs only on the agent of this host, and no pgAgent from it is connected",
            ));
        }
        if job.enabled
            && let Some(at) = job.nextrun
        {
            reported_next.push(ReportedNext {
                job_id: job.jobid.to_string(),
                at,
                column: "jobnextrun",
                raw: format!("{}+00", at.format("%Y-%m-%d %H:%M:%S")),
            });
        }
        let horizon = [purged, Some(job.created).filter(|c| *c > window.start)].into_iter().flatten().max();
        out.push(JobInput {
            id: job.jobid.to_string(),
            name: job.name.clone(),
            category: job.class.clone().unwrap_or_default(),
            owner: None,
            enabled: job.enabled,
            command: None,
            schedules,
            runs: Vec::new(),
            history_horizon: horizon,
            source_horizon: None,
            unobserved: Vec::new(),
            diagnostics,
            earlier: Vec::new(),
            modified: None,
        });
    }
    let mut steps = steps;
    for row in runs {
        let Some(job) = out.iter_mut().find(|j| j.id == row.jobid.to_string()) else { continue };
        let steps = steps.remove(&row.jlgid).unwrap_or_default();
        let (outcome, why) = match row.status.as_str() {
            "s" => (RunOutcome::Succeeded, None),
            "f" => (RunOutcome::Failed, None),
            "r" if running(&row) => (RunOutcome::InProgress, None),
            "r" => (
                RunOutcome::Crashed,
                Some(
                    "running when its pgAgent went away (pgAgent marks it aborted when an agent starts again)"
                        .to_owned(),
                ),
            ),
            "i" => (
                RunOutcome::Failed,
                Some(
                    "pgAgent could not run the job's steps (jlgstatus i: no step could be logged or started)"
                        .to_owned(),
                ),
            ),
            "d" => (
                RunOutcome::Crashed,
                Some("aborted: the pgAgent running it was gone when another agent started (jlgstatus d)".to_owned()),
            ),
            other => {
                job.diagnostics.push(Diagnostic::warning(
                    "pgagent.pga_joblog.jlgstatus",
                    other,
                    format!("run {} has a status pgAgent never writes; read as failed", row.jlgid),
                ));
                (RunOutcome::Failed, None)
            }
        };
        let enabled: Vec<i64> = job.schedules.iter().filter(|s| s.enabled).map(|s| s.id).collect();
        let message = why.unwrap_or_else(|| {
            let failing =
                steps.iter().rev().find(|s| s.outcome == Some(RunOutcome::Failed) && outcome == RunOutcome::Failed);
            failing.or(steps.last()).map(|s| s.message.clone()).unwrap_or_default()
        });
        job.runs.push(Run {
            start: row.start,
            duration_secs: row.duration.map_or(0, |d| d.max(0.0).round() as i64),
            outcome,
            // pgAgent does not say which schedule (or a "run now") started a run.
            trigger: Trigger::Schedule(if enabled.len() == 1 { Some(enabled[0]) } else { None }),
            message,
            steps,
        });
    }
    for job in &mut out {
        job.runs.sort_by_key(|r| r.start);
    }
    let agent_starts = agents.iter().map(|a| a.login).collect();
    (InstanceInput::new(name, tz.into(), out, agent_starts), reported_next)
}

/// `pga_joblog` rows matching `filter` (`$1`: the id after which a page starts; `$2`, `$3`:
/// the window, when given), a page at a time by `jlgid`.
async fn paged(
    db: &mut PgConnection,
    filter: &str,
    after: i64,
    window: Option<Window>,
) -> Result<Vec<RunRow>, SourceError> {
    let mut runs = Vec::new();
    let mut after = after;
    loop {
        let sql = format!("{JOBLOG_SELECT} WHERE {filter} ORDER BY jlgid LIMIT {PAGE}");
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(i32::try_from(after).unwrap_or(i32::MAX));
        if let Some(w) = window {
            q = q.bind(w.start).bind(w.end);
        }
        let page = q.fetch_all(&mut *db).await.map_err(|e| query_error(JOBLOG, e))?;
        let page = page.iter().map(run_row).collect::<Result<Vec<_>, _>>()?;
        let full = page.len() as i64 == PAGE;
        after = page.last().map_or(after, |r| i64::from(r.jlgid));
        runs.extend(page);
        if !full {
            return Ok(runs);
        }
    }
}

fn run_row(row: &PgRow) -> Result<RunRow, SourceError> {
    Ok(RunRow {
        jlgid: column(row, JOBLOG, "jlgid", "integer")?,
        jobid: column(row, JOBLOG, "jlgjobid", "integer")?,
        status: column::<String>(row, JOBLOG, "jlgstatus", "character")?.trim().to_owned(),
        start: column(row, JOBLOG, "jlgstart", "timestamp with time zone")?,
        duration: column(row, JOBLOG, "jlgduration", "interval")?,
    })
}

/// The steps of `runs`, by their `jlgid`, in the order pgAgent ran them.
async fn steps(db: &mut PgConnection, runs: &[RunRow]) -> Result<HashMap<i32, Vec<Step>>, SourceError> {
    const TABLE: &str = "pgagent.pga_jobsteplog";
    let mut out: HashMap<i32, Vec<Step>> = HashMap::new();
    let ids: Vec<i32> = runs.iter().map(|r| r.jlgid).collect();
    for chunk in ids.chunks(PAGE as usize) {
        let rows = sqlx::query(
            "SELECT l.jslid, l.jsljlgid, l.jsljstid, l.jslstatus::text AS jslstatus, l.jslresult, l.jslstart, \
                    EXTRACT(EPOCH FROM l.jslduration)::float8 AS jslduration, l.jsloutput, \
                    s.jstname, s.jstkind::text AS jstkind \
               FROM pgagent.pga_jobsteplog l LEFT JOIN pgagent.pga_jobstep s ON s.jstid = l.jsljstid \
              WHERE l.jsljlgid = ANY($1) ORDER BY l.jsljlgid, l.jslid",
        )
        .bind(chunk)
        .fetch_all(&mut *db)
        .await
        .map_err(|e| query_error(TABLE, e))?;
        for row in &rows {
            let jlgid: i32 = column(row, TABLE, "jsljlgid", "integer")?;
            let jstid: i32 = column(row, TABLE, "jsljstid", "integer")?;
            let status: String = column(row, TABLE, "jslstatus", "character")?;
            let result: Option<i32> = column(row, TABLE, "jslresult", "integer")?;
            let output: Option<String> = column(row, TABLE, "jsloutput", "text")?;
            let name: Option<String> = column(row, "pgagent.pga_jobstep", "jstname", "text")?;
            let kind: Option<String> = column(row, "pgagent.pga_jobstep", "jstkind", "character")?;
            let start = column(row, TABLE, "jslstart", "timestamp with time zone")?;
            let duration = column::<Option<f64>>(row, TABLE, "jslduration", "interval")?;
            out.entry(jlgid).or_default().push(step(
                jstid,
                name,
                kind.as_deref(),
                &status,
                result,
                output,
                start,
                duration,
            ));
        }
    }
    Ok(out)
}

/// One `pga_jobsteplog` row, with its `pga_jobstep` name and kind, as a [`Step`] (see the
/// module docs for the statuses and the message).
#[allow(clippy::too_many_arguments)]
fn step(
    jstid: i32,
    name: Option<String>,
    kind: Option<&str>,
    status: &str,
    result: Option<i32>,
    output: Option<String>,
    start: Option<DateTime<Utc>>,
    duration: Option<f64>,
) -> Step {
    let batch = kind.map(str::trim) == Some("b");
    let outcome = match status.trim() {
        "s" => Some(RunOutcome::Succeeded),
        "f" | "i" => Some(RunOutcome::Failed),
        "r" => Some(RunOutcome::InProgress),
        "d" => Some(RunOutcome::Crashed),
        _ => None,
    };
    let mut message = output.unwrap_or_default().trim().to_owned();
    if status.trim() == "i" {
        message = format!("(failure ignored: the step's on-error is \"ignore\") {message}").trim_end().to_owned();
    }
    if batch
        && outcome != Some(RunOutcome::Succeeded)
        && let Some(code) = result
    {
        message = format!("exit code {code}{}{message}", if message.is_empty() { "" } else { ": " });
    }
    Step {
        id: i64::from(jstid),
        name: name.unwrap_or_else(|| format!("step {jstid}")),
        outcome,
        message,
        start,
        duration_secs: duration.map(|d| d.max(0.0).round() as i64),
        subsystem: if batch { "batch".into() } else { "SQL".into() },
        ..Step::default()
    }
}

/// The agents that logged in to this database, whether each session is still there.
async fn agents(db: &mut PgConnection) -> Result<Vec<Agent>, SourceError> {
    const TABLE: &str = "pgagent.pga_jobagent";
    let rows = sqlx::query(
        "SELECT a.jagpid, a.jaglogintime, a.jagstation, s.usename::text AS usename, s.pid IS NOT NULL AS alive \
           FROM pgagent.pga_jobagent a LEFT JOIN pg_catalog.pg_stat_activity s ON s.pid = a.jagpid \
          ORDER BY a.jaglogintime",
    )
    .fetch_all(&mut *db)
    .await
    .map_err(|e| query_error(TABLE, e))?;
    rows.iter()
        .map(|row| {
            Ok(Agent {
                pid: column(row, TABLE, "jagpid", "integer")?,
                login: column(row, TABLE, "jaglogintime", "timestamp with time zone")?,
                station: column(row, TABLE, "jagstation", "text")?,
                role: column(row, "pg_stat_activity", "usename", "name")?,
                alive: column(row, "pg_stat_activity", "alive", "boolean")?,
            })
        })
        .collect()
}

/// What the instance is told about its agents.
fn agent_notes(agents: &[Agent], notes: &mut Vec<Diagnostic>) {
    if agents.iter().any(|a| a.alive) {
        return;
    }
    let message = match agents.last() {
        None => {
            "no pgAgent has logged in to this database (pgagent.pga_jobagent is empty): no job is started".to_owned()
        }
        Some(a) => format!(
            "no pgAgent is connected: the last one to log in (pid {} on {}, at {} UTC) is gone; no job is started \
             until an agent starts again",
            a.pid,
            a.station,
            a.login.format("%Y-%m-%d %H:%M:%S")
        ),
    };
    notes.push(
        Diagnostic::new(Severity::Warning, Some("pga_jobagent"), None, message)
            .telling(sundial_engine::Finding::SchedulerStopped),
    );
}

/// pgAgent's session zone (see the module docs): the agent's role's or the database's
/// `TimeZone`, else the server's file setting, else UTC with a warning.
async fn zone(db: &mut PgConnection, agents: &[Agent], notes: &mut Vec<Diagnostic>) -> Result<Tz, SourceError> {
    let role = agents.iter().rev().find(|a| a.alive).or(agents.last()).and_then(|a| a.role.clone());
    // Role and database first, then role alone, then database alone (PostgreSQL's order).
    let set: Option<String> = sqlx::query_scalar(
        "SELECT substr(c, strpos(c, '=') + 1) FROM pg_catalog.pg_db_role_setting s \
           LEFT JOIN pg_catalog.pg_roles r ON r.oid = s.setrole, unnest(s.setconfig) c \
          WHERE lower(split_part(c, '=', 1)) = 'timezone' \
            AND s.setdatabase IN (0, (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())) \
            AND (s.setrole = 0 OR r.rolname = $1) \
          ORDER BY (s.setrole <> 0 AND s.setdatabase <> 0) DESC, (s.setrole <> 0) DESC LIMIT 1",
    )
    .bind(role.as_deref())
    .fetch_optional(&mut *db)
    .await
    .map_err(|e| query_error("pg_db_role_setting", e))?;
    let (found, whence) = match set {
        Some(s) => (Some(s), "the agent's role or the database (pg_db_role_setting)"),
        None => {
            // Only superusers may read the file's settings (asked first: a refusal would end
            // the read's transaction).
            let may: bool = sqlx::query_scalar("SELECT has_table_privilege('pg_catalog.pg_file_settings', 'SELECT')")
                .fetch_one(&mut *db)
                .await
                .map_err(|e| query_error("pg_file_settings", e))?;
            let file: Option<String> = if may {
                sqlx::query_scalar(
                    "SELECT setting FROM pg_catalog.pg_file_settings WHERE lower(name) = 'timezone' AND applied LIMIT 1",
                )
                .fetch_optional(&mut *db)
                .await
                .map_err(|e| query_error("pg_file_settings", e))?
            } else {
                None
            };
            (file, "the server's configuration")
        }
    };
    match found.as_deref().map(|s| s.trim().trim_matches('\'')) {
        Some(z) => Ok(z.parse().unwrap_or_else(|_| {
            notes.push(Diagnostic::warning(
                "TimeZone",
                z,
                format!("set by {whence}, not an IANA zone Sundial knows; forecasting in UTC (set time_zone for this instance)"),
            ));
            chrono_tz::UTC
        })),
        None => {
            notes.push(Diagnostic::new(
                Severity::Warning,
                Some("TimeZone"),
                None,
                "Sundial cannot see the server's TimeZone, the zone pgAgent computes schedules in (its own session \
                 runs in UTC, and pg_file_settings is for superusers): forecasting in UTC; set time_zone for this \
                 instance to the server's (SHOW TimeZone)",
            ));
            Ok(chrono_tz::UTC)
        }
    }
}

async fn jobs(db: &mut PgConnection) -> Result<Vec<JobRow>, SourceError> {
    const TABLE: &str = "pgagent.pga_job";
    let rows = sqlx::query(
        "SELECT j.jobid, j.jobname, c.jclname, j.jobhostagent, j.jobenabled, j.jobcreated, j.jobagentid, j.jobnextrun \
           FROM pgagent.pga_job j LEFT JOIN pgagent.pga_jobclass c ON c.jclid = j.jobjclid ORDER BY j.jobid",
    )
    .fetch_all(&mut *db)
    .await
    .map_err(|e| query_error(TABLE, e))?;
    rows.iter()
        .map(|row| {
            Ok(JobRow {
                jobid: column(row, TABLE, "jobid", "integer")?,
                name: column(row, TABLE, "jobname", "text")?,
                class: column(row, "pgagent.pga_jobclass", "jclname", "text")?,
                hostagent: column(row, TABLE, "jobhostagent", "text")?,
                enabled: column(row, TABLE, "jobenabled", "boolean")?,
                created: column(row, TABLE, "jobcreated", "timestamp with time zone")?,
                agent: column(row, TABLE, "jobagentid", "integer")?,
                nextrun: column(row, TABLE, "jobnextrun", "timestamp with time zone")?,
            })
        })
        .collect()
}

/// One `pga_schedule` row with its exceptions, as the engine reads it.
struct Sched {
    id: i32,
    jobid: i32,
    name: String,
    enabled: bool,
    row: PgAgentSchedule,
}

async fn schedules(db: &mut PgConnection) -> Result<Vec<Sched>, SourceError> {
    const TABLE: &str = "pgagent.pga_schedule";
    const EXC: &str = "pgagent.pga_exception";
    let exceptions = sqlx::query(
        "SELECT jexid, jexscid, jexdate::text AS jexdate, jextime::text AS jextime FROM pgagent.pga_exception \
          ORDER BY jexscid, jexid",
    )
    .fetch_all(&mut *db)
    .await
    .map_err(|e| query_error(EXC, e))?;
    let mut by_schedule: HashMap<i32, Vec<PgAgentException>> = HashMap::new();
    for row in &exceptions {
        let id: i32 = column(row, EXC, "jexid", "integer")?;
        by_schedule.entry(column(row, EXC, "jexscid", "integer")?).or_default().push(PgAgentException {
            jexid: Some(id.to_string()),
            jexdate: column(row, EXC, "jexdate", "date")?,
            jextime: column(row, EXC, "jextime", "time without time zone")?,
        });
    }
    // The arrays as PostgreSQL prints them: a row of another length or subscripts is the
    // dialect's to name, not a failed read.
    let rows = sqlx::query(
        "SELECT jscid, jscjobid, jscname, jscenabled, jscstart::text AS jscstart, jscend::text AS jscend, \
                jscminutes::text AS jscminutes, \
                jschours::text AS jschours, jscweekdays::text AS jscweekdays, jscmonthdays::text AS jscmonthdays, \
                jscmonths::text AS jscmonths \
           FROM pgagent.pga_schedule ORDER BY jscjobid, jscid",
    )
    .fetch_all(&mut *db)
    .await
    .map_err(|e| query_error(TABLE, e))?;
    rows.iter()
        .map(|row| {
            let id: i32 = column(row, TABLE, "jscid", "integer")?;
            let jobid: i32 = column(row, TABLE, "jscjobid", "integer")?;
            let name: String = column(row, TABLE, "jscname", "text")?;
            let enabled: bool = column(row, TABLE, "jscenabled", "boolean")?;
            // As text (in the session's UTC, with its offset): `infinity` is the dialect's to judge.
            let start: Option<String> = column(row, TABLE, "jscstart", "timestamp with time zone")?;
            let end: Option<String> = column(row, TABLE, "jscend", "timestamp with time zone")?;
            let array = |c: &str| column::<Option<String>>(row, TABLE, c, "boolean[]");
            Ok(Sched {
                id,
                jobid,
                name: name.clone(),
                enabled,
                row: PgAgentSchedule {
                    jscid: Some(id.to_string()),
                    jscjobid: Some(jobid.to_string()),
                    jscname: Some(name),
                    jscenabled: Some(enabled.to_string()),
                    jscstart: start,
                    jscend: end,
                    jscminutes: array("jscminutes")?,
                    jschours: array("jschours")?,
                    jscweekdays: array("jscweekdays")?,
                    jscmonthdays: array("jscmonthdays")?,
                    jscmonths: array("jscmonths")?,
                    exceptions: by_schedule.remove(&id).unwrap_or_default(),
                },
            })
        })
        .collect()
}

// -------------------------------------------------------------------------------------------
// The same tables in a SQLite file.

const FILE_JOB: &[Col] = &[
    Col::Plain("jobid"),
    Col::Plain("jobjclid"),
    Col::Plain("jobname"),
    Col::Plain("jobhostagent"),
    Col::Plain("jobenabled"),
    Col::Time("jobcreated"),
    Col::Plain("jobagentid"),
    Col::Time("jobnextrun"),
];
const FILE_SCHEDULE: &[Col] = &[
    Col::Plain("jscid"),
    Col::Plain("jscjobid"),
    Col::Plain("jscname"),
    Col::Plain("jscenabled"),
    Col::Time("jscstart"),
    Col::Time("jscend"),
    Col::Plain("jscminutes"),
    Col::Plain("jschours"),
    Col::Plain("jscweekdays"),
    Col::Plain("jscmonthdays"),
    Col::Plain("jscmonths"),
];
const FILE_EXCEPTION: &[Col] =
    &[Col::Plain("jexid"), Col::Plain("jexscid"), Col::Plain("jexdate"), Col::Plain("jextime")];
const FILE_JOBLOG: &[Col] = &[
    Col::Plain("jlgid"),
    Col::Plain("jlgjobid"),
    Col::Plain("jlgstatus"),
    Col::Time("jlgstart"),
    Col::Plain("jlgduration"),
];
const FILE_STEPLOG: &[Col] = &[
    Col::Plain("jslid"),
    Col::Plain("jsljlgid"),
    Col::Plain("jsljstid"),
    Col::Plain("jslstatus"),
    Col::Plain("jslresult"),
    Col::Time("jslstart"),
    Col::Plain("jslduration"),
    Col::Plain("jsloutput"),
];

/// The instance read from a SQLite file holding pgAgent's tables (see the module docs): the
/// whole window each time, in SQLite's SQL (`db` is the file). `configured`: the instance's
/// `time_zone`. A value that cannot be read is a warning naming `table.column`, its row left out.
pub async fn read_file(
    db: &mut TablesDb,
    name: &str,
    window: Window,
    configured: Option<Tz>,
) -> Result<(InstanceInput, Vec<Diagnostic>, Vec<ReportedNext>), SourceError> {
    let mut notes = Vec::new();
    let order = |c: &str| format!("ORDER BY {}", tables::column(db, c));
    let (by_login, by_jobid, by_jexid, by_jscid) =
        (order("jaglogintime"), order("jobid"), order("jexid"), order("jscid"));

    let agent_rows = tables::read(
        db,
        "pga_jobagent",
        &[Col::Plain("jagpid"), Col::Time("jaglogintime"), Col::Plain("jagstation")],
        &by_login,
    )
    .await?;
    let mut agents = Vec::new();
    for r in &agent_rows {
        let (Some(pid), Some(login)) =
            (int(r, "pga_jobagent", "jagpid", &mut notes), time(r, "pga_jobagent", "jaglogintime", &mut notes))
        else {
            continue;
        };
        // No pg_stat_activity in a file: the row there is the agent that is running.
        agents.push(Agent {
            pid,
            login,
            station: text(r, "jagstation").unwrap_or_default().to_owned(),
            role: None,
            alive: true,
        });
    }
    let tz = match configured {
        Some(tz) => tz,
        None => file_zone(db, &mut notes).await?,
    };

    let classes = tables::read(db, "pga_jobclass", &[Col::Plain("jclid"), Col::Plain("jclname")], "").await?;
    let class_of: HashMap<&str, &str> =
        classes.iter().filter_map(|r| Some((text(r, "jclid")?, text(r, "jclname")?))).collect();
    let job_rows = tables::read(db, "pga_job", FILE_JOB, &by_jobid).await?;
    let mut jobs = Vec::new();
    for r in &job_rows {
        const T: &str = "pga_job";
        let Some(jobid) = int(r, T, "jobid", &mut notes) else { continue };
        let Some(created) = time(r, T, "jobcreated", &mut notes) else { continue };
        jobs.push(JobRow {
            jobid,
            name: text(r, "jobname").map_or_else(|| format!("job {jobid}"), str::to_owned),
            class: text(r, "jobjclid").and_then(|c| class_of.get(c)).map(|c| (*c).to_owned()),
            hostagent: text(r, "jobhostagent").unwrap_or_default().to_owned(),
            enabled: flag(r, T, "jobenabled", true, &mut notes),
            created,
            agent: text(r, "jobagentid").and_then(|_| int(r, T, "jobagentid", &mut notes)),
            nextrun: text(r, "jobnextrun").and_then(|_| time(r, T, "jobnextrun", &mut notes)),
        });
    }

    let exceptions = tables::read(db, "pga_exception", FILE_EXCEPTION, &by_jexid).await?;
    let mut by_schedule: HashMap<i32, Vec<PgAgentException>> = HashMap::new();
    for r in &exceptions {
        let Some(scid) = int(r, "pga_exception", "jexscid", &mut notes) else { continue };
        by_schedule.entry(scid).or_default().push(PgAgentException {
            jexid: text(r, "jexid").map(str::to_owned),
            jexdate: text(r, "jexdate").map(str::to_owned),
            jextime: text(r, "jextime").map(str::to_owned),
        });
    }
    let schedule_rows = tables::read(db, "pga_schedule", FILE_SCHEDULE, &by_jscid).await?;
    let mut schedules = Vec::new();
    for r in &schedule_rows {
        const T: &str = "pga_schedule";
        let (Some(id), Some(jobid)) = (int(r, T, "jscid", &mut notes), int(r, T, "jscjobid", &mut notes)) else {
            continue;
        };
        let enabled = flag(r, T, "jscenabled", true, &mut notes);
        let name = text(r, "jscname").unwrap_or_default().to_owned();
        let s = |c: &str| text(r, c).map(str::to_owned);
        schedules.push(Sched {
            id,
            jobid,
            name: name.clone(),
            enabled,
            row: PgAgentSchedule {
                jscid: Some(id.to_string()),
                jscjobid: Some(jobid.to_string()),
                jscname: Some(name),
                jscenabled: Some(enabled.to_string()),
                jscstart: s("jscstart"),
                jscend: s("jscend"),
                jscminutes: s("jscminutes"),
                jschours: s("jschours"),
                jscweekdays: s("jscweekdays"),
                jscmonthdays: s("jscmonthdays"),
                jscmonths: s("jscmonths"),
                exceptions: by_schedule.remove(&id).unwrap_or_default(),
            },
        });
    }

    let start = tables::column(db, "jlgstart");
    let first = tables::read(db, "pga_joblog", &[Col::Time("jlgstart")], &format!("ORDER BY {start} LIMIT 1")).await?;
    let oldest = first.first().and_then(|r| text(r, "jlgstart")).and_then(tables::instant);
    // Times compare as text: a value not shaped as a time comes through too, to be named.
    let tail = format!(
        "WHERE ({start} >= {} AND {start} < {}) OR NOT ({start} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*') \
         ORDER BY {}",
        tables::time_literal(db, window.start.naive_utc()),
        tables::time_literal(db, window.end.naive_utc()),
        tables::column(db, "jlgid")
    );
    let run_rows = tables::read(db, "pga_joblog", FILE_JOBLOG, &tail).await?;
    let mut runs = Vec::new();
    for r in &run_rows {
        const T: &str = "pga_joblog";
        let (Some(jlgid), Some(jobid), Some(start)) =
            (int(r, T, "jlgid", &mut notes), int(r, T, "jlgjobid", &mut notes), time(r, T, "jlgstart", &mut notes))
        else {
            continue;
        };
        // The text comparison lets through a time written otherwise (another offset).
        if start < window.start || start >= window.end {
            continue;
        }
        runs.push(RunRow {
            jlgid,
            jobid,
            status: text(r, "jlgstatus").unwrap_or_default().to_owned(),
            start,
            duration: text(r, "jlgduration").and_then(|_| seconds(r, T, "jlgduration", &mut notes)),
        });
    }
    let wanted: BTreeSet<i32> = runs.iter().map(|r| r.jlgid).collect();
    let first_run = wanted.first().copied().unwrap_or(i32::MAX);
    let step_names =
        tables::read(db, "pga_jobstep", &[Col::Plain("jstid"), Col::Plain("jstname"), Col::Plain("jstkind")], "")
            .await?;
    let step_of: HashMap<&str, (Option<&str>, Option<&str>)> =
        step_names.iter().filter_map(|r| Some((text(r, "jstid")?, (text(r, "jstname"), text(r, "jstkind"))))).collect();
    let step_rows = tables::read(
        db,
        "pga_jobsteplog",
        FILE_STEPLOG,
        &format!(
            "WHERE {} >= {first_run} ORDER BY {}, {}",
            tables::column(db, "jsljlgid"),
            tables::column(db, "jsljlgid"),
            tables::column(db, "jslid")
        ),
    )
    .await?;
    let mut steps: HashMap<i32, Vec<Step>> = HashMap::new();
    for r in &step_rows {
        const T: &str = "pga_jobsteplog";
        let (Some(jlgid), Some(jstid)) = (int(r, T, "jsljlgid", &mut notes), int(r, T, "jsljstid", &mut notes)) else {
            continue;
        };
        if !wanted.contains(&jlgid) {
            continue;
        }
        let (name, kind) = text(r, "jsljstid").and_then(|j| step_of.get(j)).copied().unwrap_or((None, None));
        let result = text(r, "jslresult").and_then(|_| int(r, T, "jslresult", &mut notes));
        let start = text(r, "jslstart").and_then(|_| time(r, T, "jslstart", &mut notes));
        let duration = text(r, "jslduration").and_then(|_| seconds(r, T, "jslduration", &mut notes));
        steps.entry(jlgid).or_default().push(step(
            jstid,
            name.map(str::to_owned),
            kind,
            text(r, "jslstatus").unwrap_or_default(),
            result,
            r.get("jsloutput").cloned().flatten(),
            start,
            duration,
        ));
    }

    let purged = oldest.filter(|o| *o > window.start);
    if let Some(o) = purged {
        notes.push(Diagnostic::info(format!(
            "pga_joblog holds runs from {} UTC on (older ones were deleted): runs due before are unknown, not missed",
            o.format("%Y-%m-%d %H:%M:%S")
        )));
    }
    let (input, reported_next) = assemble(name, tz, window, purged, &agents, &jobs, schedules, runs, steps, &mut notes);
    Ok((input, notes, reported_next))
}

/// The zone of a file's schedules: its `pg_settings` row `TimeZone` (as `SHOW TimeZone`
/// says), else UTC with a warning.
async fn file_zone(db: &mut TablesDb, notes: &mut Vec<Diagnostic>) -> Result<Tz, SourceError> {
    let settings = match tables::read(db, "pg_settings", &[Col::Plain("name"), Col::Plain("setting")], "").await {
        Ok(rows) => rows,
        Err(SourceError::Missing { .. }) => Vec::new(),
        Err(e) => return Err(e),
    };
    let set = settings.iter().find(|r| text(r, "name").is_some_and(|n| n.eq_ignore_ascii_case("timezone")));
    match set.and_then(|r| text(r, "setting")) {
        Some(z) => Ok(z.parse().unwrap_or_else(|_| {
            notes.push(Diagnostic::warning(
                "TimeZone",
                z,
                "in the file's pg_settings, not an IANA zone Sundial knows; forecasting in UTC (set time_zone for this \
                 instance)",
            ));
            chrono_tz::UTC
        })),
        None => {
            notes.push(Diagnostic::new(
                Severity::Warning,
                Some("TimeZone"),
                None,
                "the file has no pg_settings row TimeZone, the zone pgAgent computes schedules in: forecasting in UTC; \
                 set time_zone for this instance",
            ));
            Ok(chrono_tz::UTC)
        }
    }
}

/// An integer column of a file's row; `None` with a note naming the table and column.
fn int(r: &tables::TextRow, table: &str, c: &str, notes: &mut Vec<Diagnostic>) -> Option<i32> {
    let raw = text(r, c);
    let parsed = raw.and_then(|v| v.parse::<i32>().ok());
    if parsed.is_none() {
        notes.push(Diagnostic::warning(
            &format!("{table}.{c}"),
            raw.unwrap_or("NULL"),
            "not an integer; the row is left out",
        ));
    }
    parsed
}

/// A `timestamptz` column of a file's row; `None` with a note.
fn time(r: &tables::TextRow, table: &str, c: &str, notes: &mut Vec<Diagnostic>) -> Option<DateTime<Utc>> {
    let raw = text(r, c);
    let parsed = raw.and_then(tables::instant);
    if parsed.is_none() {
        notes.push(Diagnostic::warning(
            &format!("{table}.{c}"),
            raw.unwrap_or("NULL"),
            "not a time; the row is left out",
        ));
    }
    parsed
}

/// A boolean column (`t`/`f`, `true`/`false`, `1`/`0`); NULL is `default`, anything else a note
/// and `default`.
fn flag(r: &tables::TextRow, table: &str, c: &str, default: bool, notes: &mut Vec<Diagnostic>) -> bool {
    match text(r, c).map(str::to_ascii_lowercase).as_deref() {
        None => default,
        Some("t" | "true" | "1") => true,
        Some("f" | "false" | "0") => false,
        Some(other) => {
            notes.push(Diagnostic::warning(
                &format!("{table}.{c}"),
                other,
                format!("not a boolean; read as {default}"),
            ));
            default
        }
    }
}

/// An `interval` column as seconds: PostgreSQL's text (`00:01:02.5`, `1 day 02:00:00`) or a
/// number of seconds; `None` with a note.
fn seconds(r: &tables::TextRow, table: &str, c: &str, notes: &mut Vec<Diagnostic>) -> Option<f64> {
    let raw = text(r, c)?;
    let parsed = interval_secs(raw);
    if parsed.is_none() {
        notes.push(Diagnostic::warning(&format!("{table}.{c}"), raw, "not an interval; the duration is unknown"));
    }
    parsed
}

fn interval_secs(s: &str) -> Option<f64> {
    if let Ok(v) = s.parse::<f64>() {
        return v.is_finite().then_some(v);
    }
    let (days, clock) = match s.split_once(" day") {
        Some((d, rest)) => (d.trim().parse::<f64>().ok()?, rest.trim_start_matches('s').trim()),
        None => (0.0, s),
    };
    let mut parts = clock.split(':');
    let (h, m, sec) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let (h, m, sec) = (h.trim().parse::<f64>().ok()?, m.parse::<f64>().ok()?, sec.parse::<f64>().ok()?);
    let total = days * 86_400.0 + h * 3600.0 + m * 60.0 + sec;
    total.is_finite().then_some(total)
}
