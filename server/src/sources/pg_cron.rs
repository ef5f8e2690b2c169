//! pg_cron on PostgreSQL: `cron.job` and `cron.job_run_details`, read-only.
//!
//! Least privilege that sees every job: `USAGE` on schema `cron`, `SELECT` on `cron.job` and
//! `cron.job_run_details`, and `BYPASSRLS` (both tables have row-level security
//! `username = current_user`; `pg_read_all_data` does not bypass it). Without BYPASSRLS
//! Sundial sees only its own user's jobs and says so. With `cron.log_run = off` there is no
//! history: runs are unknown, not missed.
use app::engine::fleet::{InstanceInput, JobInput, JobSchedule};
use app::engine::{Diagnostic, Run, RunOutcome, Schedule, Severity, Trigger, Window, cron::CronSchedule};
use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::postgres::PgPool;

use super::connect::{self, Kept};
use super::{BoxFuture, ReadContext, Source, SourceError, SourceRead};

fn query_error(object: &'static str, grant: &'static str, e: sqlx::Error) -> SourceError {
    if let sqlx::Error::Database(db) = &e {
        return match db.code().as_deref() {
            Some("42501") => SourceError::permission(object, grant),
            Some("42P01") | Some("3F000") => SourceError::Missing {
                object: "cron.job".into(),
                hint: ": pg_cron is not installed in this database; connect to the one named by cron.database_name"
                    .into(),
            },
            _ => SourceError::query(object, db.message()),
        };
    }
    SourceError::query(object, "the connection failed")
}

/// One server setting; `None` when it does not exist (older pg_cron) or this role may not
/// read it (pg_cron marks some superuser-only: a note says which grant shows it).
async fn setting(pool: &PgPool, name: &str, notes: &mut Vec<Diagnostic>) -> Option<String> {
    // current_setting(name, missing_ok): NULL when pg_cron does not define it.
    match sqlx::query_scalar::<_, Option<String>>("SELECT current_setting($1, true)").bind(name).fetch_one(pool).await {
        Ok(v) => v,
        Err(_) => {
            notes.push(Diagnostic::new(
                Severity::Info,
                Some(name),
                None,
                format!("this role cannot read {name}; grant it pg_read_all_settings to let Sundial see it"),
            ));
            None
        }
    }
}

/// pg_cron as a [`Source`]: one pool kept between polls; with Sundial's store, jobs are judged
/// only since Sundial could have seen them ([`apply_watch`]).
#[derive(Default)]
pub struct PgCron {
    pool: Kept<PgPool>,
}

impl Source for PgCron {
    fn read<'a>(&'a self, cx: ReadContext<'a>) -> BoxFuture<'a, Result<SourceRead, SourceError>> {
        Box::pin(async move {
            let pool = self.pool.get(|| connect::postgres(cx.config)).await?;
            let (mut input, notes) = read_instance(&pool, &cx.config.name, cx.window).await?;
            if let Some(store) = cx.store {
                apply_watch(&mut input, store, cx.now).await?;
            }
            Ok(SourceRead::new(input, notes, cx.now))
        })
    }

    fn reset(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.pool.forget())
    }
}

/// The instance's jobs and their runs that started inside `window`; instance-level findings
/// (RLS hiding jobs, no run log) come back beside it.
pub async fn read_instance(
    pool: &PgPool,
    name: &str,
    window: Window,
) -> Result<(InstanceInput, Vec<Diagnostic>), SourceError> {
    let mut notes = Vec::new();
    let tz_name = setting(pool, "cron.timezone", &mut notes).await;
    let log_run = setting(pool, "cron.log_run", &mut notes).await;
    // Whether this role sees every user's rows (superuser or BYPASSRLS).
    let sees_all: bool =
        sqlx::query_scalar("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user")
            .fetch_optional(pool)
            .await
            .map_err(|e| query_error("pg_roles", "LOGIN", e))?
            .flatten()
            .unwrap_or(false);
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

    // Every job this role can see.
    let jobs = sqlx::query(
        "SELECT jobid, schedule, command, database, username, active, jobname::text AS jobname FROM cron.job ORDER BY jobid",
    )
    .fetch_all(pool)
    .await
    .map_err(|e| query_error("cron.job", "USAGE on schema cron and SELECT on cron.job", e))?;
    // Runs that started in the window only (never the whole history).
    let runs = sqlx::query(
        "SELECT jobid, status, return_message, start_time, end_time FROM cron.job_run_details \
         WHERE start_time >= $1 AND start_time < $2 ORDER BY start_time",
    )
    .bind(window.start)
    .bind(window.end)
    .fetch_all(pool)
    .await
    .map_err(|e| query_error("cron.job_run_details", "SELECT on cron.job_run_details", e))?;

    let mut out: Vec<JobInput> = Vec::with_capacity(jobs.len());
    for row in &jobs {
        let jobid: i64 = row.try_get("jobid").unwrap_or_default();
        let schedule: Option<String> = row.try_get("schedule").ok().flatten();
        let mut diagnostics = Vec::new();
        let schedule = schedule.unwrap_or_else(|| {
            diagnostics.push(Diagnostic::error("schedule", "NULL", format!("cron.job {jobid} has no schedule")));
            String::new()
        });
        let active: bool = row.try_get::<Option<bool>, _>("active").ok().flatten().unwrap_or(true);
        let jobname: Option<String> = row.try_get("jobname").ok().flatten();
        let database: String = row.try_get::<Option<String>, _>("database").ok().flatten().unwrap_or_default();
        let username: String = row.try_get::<Option<String>, _>("username").ok().flatten().unwrap_or_default();
        out.push(JobInput {
            id: jobid.to_string(),
            name: jobname.filter(|n| !n.is_empty()).unwrap_or_else(|| format!("job {jobid}")),
            category: format!("{database} / {username}"),
            enabled: active,
            schedules: vec![JobSchedule {
                id: jobid,
                name: schedule.clone(),
                enabled: active,
                schedule: Schedule::Cron(CronSchedule::new(schedule)),
            }],
            runs: Vec::new(),
            history_horizon: no_history.then_some(window.end),
            unobserved: Vec::new(),
            diagnostics,
        });
    }
    for row in &runs {
        let jobid: i64 = row.try_get("jobid").unwrap_or_default();
        let Some(job) = out.iter_mut().find(|j| j.id == jobid.to_string()) else { continue };
        let Ok(start) = row.try_get::<DateTime<Utc>, _>("start_time") else { continue };
        let end: Option<DateTime<Utc>> = row.try_get("end_time").ok().flatten();
        let status: String = row.try_get::<Option<String>, _>("status").ok().flatten().unwrap_or_default();
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
            message: row.try_get::<Option<String>, _>("return_message").ok().flatten().unwrap_or_default(),
            steps: Vec::new(),
        });
    }
    Ok((InstanceInput { name: name.to_owned(), tz: tz.into(), jobs: out, agent_starts: Vec::new() }, notes))
}

/// pg_cron keeps no creation time for a job, so a job created an hour ago would look as if it
/// had missed a whole window of runs. Sundial's store remembers when it first read the
/// instance and when it first saw each job:
/// - a job that appeared after Sundial's first read is new: nothing before its first run (or
///   before the poll that first saw it) is judged;
/// - a job with no run at all in the window is judged only since Sundial first saw it;
/// - any other job keeps its whole window (its runs show it existed).
pub async fn apply_watch(
    input: &mut InstanceInput,
    store: &super::snapshots::Store,
    polled_at: DateTime<Utc>,
) -> Result<(), super::snapshots::Error> {
    store.record(&input.name, "", None, polled_at).await?;
    let since = store.samples(&input.name, "", polled_at).await?.first_seen.unwrap_or(polled_at);
    for job in &mut input.jobs {
        let key = format!("job {}", job.id);
        store.record(&input.name, &key, None, polled_at).await?;
        let seen = store.samples(&input.name, &key, polled_at).await?.first_seen.unwrap_or(polled_at);
        let first_run = job.runs.iter().map(|r| r.start).min();
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
