//! Statements on the history Sundial keeps (`crate::history`): `kept_run` (each run as JSON,
//! by instance, job and start), `kept_span` (the spans in which a job's whole history was
//! read), `kept_event` (the schedulers' log lines), `kept_schedule` (each version of a job's
//! schedules), `read_mark` (where an incremental source read up to), `job_definition` (each
//! job's definition as last read) and `job_change` (each change seen of it). Times in
//! microseconds.
use super::{Error, Store, query};
use crate::on_db;

/// Runs written per statement: 4 values a row, well under SQLite's and PostgreSQL's limits.
const ROWS_PER_INSERT: usize = 200;

/// A `kept_span` row: job, from, until (microseconds).
pub type KeptSpanRow = (String, i64, i64);
/// A `kept_run` row: job, start (microseconds), the run as JSON.
pub type KeptRunRow = (String, i64, String);
/// A `kept_schedule` row: job, from (microseconds), the schedules as JSON.
pub type KeptScheduleRow = (String, i64, String);

/// What one read writes of an instance, in one transaction, in this order.
#[derive(Default)]
pub struct Write {
    /// New versions of jobs' schedules: job, from (microseconds), the schedules as JSON.
    pub schedules: Vec<(String, i64, String)>,
    /// Per job, its spans and runs.
    pub jobs: Vec<JobWrite>,
    /// Log lines: instant (microseconds), the SHA-256 of the JSON (hex), the line as JSON.
    pub events: Vec<(i64, String, String)>,
    /// Where the source's history was read up to (`sources::Mark` as JSON).
    pub mark: Option<String>,
    /// Jobs' definitions as this read saw them: job (empty: the instance's baseline mark),
    /// the definition as JSON (`None`: the job is gone, its row deleted).
    pub definitions: Vec<(String, Option<String>)>,
    /// Changes seen: job, seen (microseconds), kind, the change as JSON. Written once.
    pub changes: Vec<(String, i64, String, String)>,
    /// Delete what is older than this (microseconds): the retention.
    pub prune_before: Option<i64>,
}

/// A `job_change` row: instance, the change as JSON.
pub type ChangeRow = (String, String);

/// Each job's definition kept of `instance` (job, JSON); the baseline mark's job is empty.
pub async fn definitions(store: &Store, instance: &str) -> Result<Vec<(String, String)>, Error> {
    Ok(on_db!(store, |pool| sqlx::query_as("SELECT job, definition FROM job_definition WHERE instance = $1")
        .bind(instance)
        .fetch_all(pool)
        .await
        .map_err(query)?))
}

/// The changes kept, seen in `[from_us, until_us)`, of `instance` (`None`: every instance) and
/// `job` (`None`: every job), by instance and when seen.
pub async fn changes_in(
    store: &Store,
    instance: Option<&str>,
    job: Option<&str>,
    from_us: i64,
    until_us: i64,
) -> Result<Vec<ChangeRow>, Error> {
    Ok(on_db!(store, |pool| sqlx::query_as(
        "SELECT instance, change FROM job_change WHERE ($1 IS NULL OR instance = $1) AND ($2 IS NULL OR job = $2) \
         AND seen_us >= $3 AND seen_us < $4 ORDER BY seen_us, instance, job, kind"
    )
    .bind(instance)
    .bind(job)
    .bind(from_us)
    .bind(until_us)
    .fetch_all(pool)
    .await
    .map_err(query)?))
}

/// What one read writes of one job.
pub struct JobWrite {
    pub job: String,
    /// The job's spans of whole history, replacing those kept (`None`: they stay).
    pub spans: Option<Vec<(i64, i64)>>,
    /// New and changed runs: start (microseconds), the run as JSON, by start.
    pub runs: Vec<(i64, String)>,
}

/// The mark kept for `instance` (JSON), if any.
pub async fn read_mark(store: &Store, instance: &str) -> Result<Option<String>, Error> {
    Ok(on_db!(store, |pool| sqlx::query_scalar("SELECT mark FROM read_mark WHERE instance = $1")
        .bind(instance)
        .fetch_optional(pool)
        .await
        .map_err(query)?))
}

/// What the store holds for `instance` from `from_us` on, for the next read: every span, per
/// job the latest run kept and the runs kept still going (from `from_us` on), and every
/// version of the schedules.
pub async fn kept(
    store: &Store,
    instance: &str,
    from_us: i64,
) -> Result<(Vec<KeptSpanRow>, Vec<KeptRunRow>, Vec<KeptScheduleRow>), Error> {
    Ok(on_db!(store, |pool| {
        let spans = sqlx::query_as("SELECT job, from_us, until_us FROM kept_span WHERE instance = $1 ORDER BY from_us")
            .bind(instance)
            .fetch_all(pool)
            .await
            .map_err(query)?;
        // Per job, the latest run kept and the runs kept still going: where the next
        // read may write again.
        let runs = sqlx::query_as(
            "SELECT job, start_us, run FROM kept_run k WHERE instance = $1 AND start_us >= $2 \
                 AND (run LIKE '%\"outcome\":\"InProgress\"%' OR start_us = \
                 (SELECT MAX(start_us) FROM kept_run l WHERE l.instance = k.instance AND l.job = k.job))",
        )
        .bind(instance)
        .bind(from_us)
        .fetch_all(pool)
        .await
        .map_err(query)?;
        let versions =
            sqlx::query_as("SELECT job, from_us, schedules FROM kept_schedule WHERE instance = $1 ORDER BY from_us")
                .bind(instance)
                .fetch_all(pool)
                .await
                .map_err(query)?;
        (spans, runs, versions)
    }))
}

/// Write what one read of `instance` changed ([`Write`]), in one transaction.
pub async fn write(store: &Store, instance: &str, w: &Write) -> Result<(), Error> {
    on_db!(store, |pool| {
        let mut tx = pool.begin().await.map_err(query)?;
        for (job, from_us, text) in &w.schedules {
            sqlx::query(
                "INSERT INTO kept_schedule (instance, job, from_us, schedules) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (instance, job, from_us) DO UPDATE SET schedules = excluded.schedules",
            )
            .bind(instance)
            .bind(job)
            .bind(*from_us)
            .bind(text)
            .execute(&mut *tx)
            .await
            .map_err(query)?;
        }
        for job in &w.jobs {
            if let Some(spans) = &job.spans {
                sqlx::query("DELETE FROM kept_span WHERE instance = $1 AND job = $2")
                    .bind(instance)
                    .bind(&job.job)
                    .execute(&mut *tx)
                    .await
                    .map_err(query)?;
                for (from_us, until_us) in spans {
                    sqlx::query("INSERT INTO kept_span (instance, job, from_us, until_us) VALUES ($1, $2, $3, $4)")
                        .bind(instance)
                        .bind(&job.job)
                        .bind(*from_us)
                        .bind(*until_us)
                        .execute(&mut *tx)
                        .await
                        .map_err(query)?;
                }
            }
            // A statement per [`ROWS_PER_INSERT`] runs (one per run made a first read of a long
            // history, over a PostgreSQL store, take half an hour at 1,000 instances).
            for chunk in job.runs.chunks(ROWS_PER_INSERT) {
                let mut insert = sqlx::QueryBuilder::new("INSERT INTO kept_run (instance, job, start_us, run) ");
                insert.push_values(chunk, |mut row, (start_us, text)| {
                    row.push_bind(instance).push_bind(&job.job).push_bind(*start_us).push_bind(text);
                });
                insert.push(" ON CONFLICT (instance, job, start_us) DO UPDATE SET run = excluded.run");
                insert.build().execute(&mut *tx).await.map_err(query)?;
            }
        }
        for (at_us, digest, text) in &w.events {
            sqlx::query(
                "INSERT INTO kept_event (instance, at_us, digest, event) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (instance, at_us, digest) DO NOTHING",
            )
            .bind(instance)
            .bind(*at_us)
            .bind(digest)
            .bind(text)
            .execute(&mut *tx)
            .await
            .map_err(query)?;
        }
        for (job, definition) in &w.definitions {
            let q = match definition {
                Some(text) => sqlx::query(
                    "INSERT INTO job_definition (instance, job, definition) VALUES ($1, $2, $3) \
                     ON CONFLICT (instance, job) DO UPDATE SET definition = excluded.definition",
                )
                .bind(instance)
                .bind(job)
                .bind(text),
                None => {
                    sqlx::query("DELETE FROM job_definition WHERE instance = $1 AND job = $2").bind(instance).bind(job)
                }
            };
            q.execute(&mut *tx).await.map_err(query)?;
        }
        for (job, seen_us, kind, text) in &w.changes {
            sqlx::query(
                "INSERT INTO job_change (instance, job, seen_us, kind, change) VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT (instance, job, seen_us, kind) DO NOTHING",
            )
            .bind(instance)
            .bind(job)
            .bind(*seen_us)
            .bind(kind)
            .bind(text)
            .execute(&mut *tx)
            .await
            .map_err(query)?;
        }
        if let Some(text) = &w.mark {
            sqlx::query(
                "INSERT INTO read_mark (instance, mark) VALUES ($1, $2) \
                 ON CONFLICT (instance) DO UPDATE SET mark = excluded.mark",
            )
            .bind(instance)
            .bind(text)
            .execute(&mut *tx)
            .await
            .map_err(query)?;
        }
        if let Some(cutoff) = w.prune_before {
            for sql in [
                "DELETE FROM kept_run WHERE instance = $1 AND start_us < $2",
                "DELETE FROM kept_event WHERE instance = $1 AND at_us < $2",
                "DELETE FROM kept_span WHERE instance = $1 AND until_us <= $2",
                "DELETE FROM job_change WHERE instance = $1 AND seen_us < $2",
                // A version of a job's schedules followed by another before the cutoff
                // expects nothing any kept run is judged against.
                "DELETE FROM kept_schedule WHERE instance = $1 AND from_us < (SELECT MAX(from_us) \
                 FROM kept_schedule l WHERE l.instance = kept_schedule.instance AND l.job = kept_schedule.job \
                 AND l.from_us <= $2)",
            ] {
                sqlx::query(sql).bind(instance).bind(cutoff).execute(&mut *tx).await.map_err(query)?;
            }
        }
        tx.commit().await.map_err(query)
    })
}

/// Every run kept of `instance` that started in `[from_us, until_us)`, by start.
pub async fn runs_in(store: &Store, instance: &str, from_us: i64, until_us: i64) -> Result<Vec<KeptRunRow>, Error> {
    Ok(on_db!(store, |pool| {
        sqlx::query_as(
        "SELECT job, start_us, run FROM kept_run WHERE instance = $1 AND start_us >= $2 AND start_us < $3 ORDER BY start_us"
    )
    .bind(instance)
    .bind(from_us)
    .bind(until_us)
    .fetch_all(pool)
    .await
    .map_err(query)?
    }))
}

/// The runs (JSON) kept of one job of `instance` that started in `[from_us, until_us)`, by start.
pub async fn job_runs_in(
    store: &Store,
    instance: &str,
    job: &str,
    from_us: i64,
    until_us: i64,
) -> Result<Vec<String>, Error> {
    Ok(on_db!(store, |pool| {
        sqlx::query_scalar(
        "SELECT run FROM kept_run WHERE instance = $1 AND job = $2 AND start_us >= $3 AND start_us < $4 ORDER BY start_us"
    )
    .bind(instance)
    .bind(job)
    .bind(from_us)
    .bind(until_us)
    .fetch_all(pool)
    .await
    .map_err(query)?
    }))
}

/// The log lines (JSON) kept of `instance` in `[from_us, before_us)`, by instant.
pub async fn events_in(store: &Store, instance: &str, from_us: i64, before_us: i64) -> Result<Vec<String>, Error> {
    Ok(on_db!(store, |pool| sqlx::query_scalar(
        "SELECT event FROM kept_event WHERE instance = $1 AND at_us >= $2 AND at_us < $3 ORDER BY at_us"
    )
    .bind(instance)
    .bind(from_us)
    .bind(before_us)
    .fetch_all(pool)
    .await
    .map_err(query)?))
}
