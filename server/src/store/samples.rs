//! Statements on the samples Sundial keeps for the sources that forget (`crate::sources::snapshots`):
//! `event_watch` (the first poll that saw an event or a `job` row), `event_sample` (each
//! distinct `LAST_EXECUTED` of a MySQL/MariaDB event, unix seconds) and `job_sample` (each
//! state of a MySQL `job` table row, microseconds).
use super::{Error, Store, query};
use crate::on_db;
use chrono::{DateTime, Utc};
use sundial_engine::job_table::CycleSample as JobSample;

/// The columns of `job_sample` that make a [`JobSample`], for `SELECT`s (a literal: no outside text).
macro_rules! sample_columns {
    () => {
        "first_seen, seen_until, status, interval_secs, schedule_start, runner_start, runner_finish, cycles, \
         last_start, last_finish"
    };
}

/// The first poll that saw an event (or a job row), kept once.
const WATCH: &str = "INSERT INTO event_watch (instance, event, first_seen) VALUES ($1, $2, $3) ON CONFLICT (instance, event) DO NOTHING";

/// When Sundial first watched an event (or a job row).
const FIRST_SEEN: &str = "SELECT first_seen FROM event_watch WHERE instance = $1 AND event = $2";

/// Record one poll of one event (unix seconds): watched since `polled_at` at the latest, and,
/// when it has executed, its `last_executed` still seen at `polled_at`. One transaction.
pub async fn record_event(
    store: &Store,
    instance: &str,
    event: &str,
    last_executed: Option<i64>,
    polled_at: i64,
) -> Result<(), Error> {
    on_db!(store, |pool| {
        let mut tx = pool.begin().await.map_err(query)?;
        sqlx::query(WATCH).bind(instance).bind(event).bind(polled_at).execute(&mut *tx).await.map_err(query)?;
        if let Some(at) = last_executed {
            sqlx::query(
                "INSERT INTO event_sample (instance, event, last_executed, seen_until) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (instance, event, last_executed) DO UPDATE SET seen_until = \
                 CASE WHEN excluded.seen_until > event_sample.seen_until THEN excluded.seen_until \
                 ELSE event_sample.seen_until END",
            )
            .bind(instance)
            .bind(event)
            .bind(at)
            .bind(polled_at)
            .execute(&mut *tx)
            .await
            .map_err(query)?;
        }
        tx.commit().await.map_err(query)
    })
}

/// The first poll that saw one event, and its samples `(last_executed, seen_until)` from the
/// last one before `since` onwards, oldest first (unix seconds).
pub async fn event_samples(
    store: &Store,
    instance: &str,
    event: &str,
    since: i64,
) -> Result<(Option<i64>, Vec<(i64, i64)>), Error> {
    Ok(on_db!(store, |pool| {
        let first_seen =
            sqlx::query_scalar(FIRST_SEEN).bind(instance).bind(event).fetch_optional(pool).await.map_err(query)?;
        let rows = sqlx::query_as(
            "SELECT last_executed, seen_until FROM event_sample WHERE instance = $1 AND event = $2 AND last_executed >= \
             coalesce((SELECT max(last_executed) FROM event_sample WHERE instance = $1 AND event = $2 AND last_executed < $3), $3) \
             ORDER BY last_executed",
        )
        .bind(instance)
        .bind(event)
        .bind(since)
        .fetch_all(pool)
        .await
        .map_err(query)?;
        (first_seen, rows)
    }))
}

/// The samples `(last_executed, seen_until)` of one event with `last_executed >= from`,
/// oldest first (unix seconds).
pub async fn event_samples_from(
    store: &Store,
    instance: &str,
    event: &str,
    from: i64,
) -> Result<Vec<(i64, i64)>, Error> {
    Ok(on_db!(store, |pool| sqlx::query_as(
        "SELECT last_executed, seen_until FROM event_sample WHERE instance = $1 AND event = $2 \
         AND last_executed >= $3 ORDER BY last_executed",
    )
    .bind(instance)
    .bind(event)
    .bind(from)
    .fetch_all(pool)
    .await
    .map_err(query)?))
}

/// Record one poll of one `job` table row, in one transaction: watched since `polled_at` at
/// the latest; the same state as the latest sample extends it, another starts a new sample;
/// a poll older than the latest sample's first is ignored.
pub async fn record_job(
    store: &Store,
    instance: &str,
    job: &str,
    state: &JobSample,
    polled_at: DateTime<Utc>,
) -> Result<(), Error> {
    let at = micros(polled_at);
    on_db!(store, |pool| {
        let mut tx = pool.begin().await.map_err(query)?;
        sqlx::query(WATCH)
            .bind(instance)
            .bind(job)
            .bind(polled_at.timestamp())
            .execute(&mut *tx)
            .await
            .map_err(query)?;
        let latest = sqlx::query_as::<_, SampleRow>(concat!(
            "SELECT ",
            sample_columns!(),
            " FROM job_sample WHERE instance = $1 AND job = $2 ORDER BY first_seen DESC LIMIT 1"
        ))
        .bind(instance)
        .bind(job)
        .fetch_optional(&mut *tx)
        .await
        .map_err(query)?
        .map(SampleRow::sample);
        match latest {
            Some(l) if micros(l.first_seen) > at => {}
            Some(l) if l.same_state(state) => {
                sqlx::query(
                    "UPDATE job_sample SET seen_until = CASE WHEN seen_until > $1 THEN seen_until ELSE $1 END \
                     WHERE instance = $2 AND job = $3 AND first_seen = $4",
                )
                .bind(at)
                .bind(instance)
                .bind(job)
                .bind(micros(l.first_seen))
                .execute(&mut *tx)
                .await
                .map_err(query)?;
            }
            _ => {
                sqlx::query(
                    "INSERT INTO job_sample (instance, job, first_seen, seen_until, status, interval_secs, \
                     schedule_start, runner_start, runner_finish, cycles, last_start, last_finish) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
                     ON CONFLICT (instance, job, first_seen) DO UPDATE SET seen_until = excluded.seen_until, \
                     status = excluded.status, interval_secs = excluded.interval_secs, \
                     schedule_start = excluded.schedule_start, runner_start = excluded.runner_start, \
                     runner_finish = excluded.runner_finish, cycles = excluded.cycles, \
                     last_start = excluded.last_start, last_finish = excluded.last_finish",
                )
                .bind(instance)
                .bind(job)
                .bind(at)
                .bind(at)
                .bind(state.status.as_deref())
                .bind(state.interval)
                .bind(state.schedule_start.map(micros))
                .bind(state.runner_start.map(micros))
                .bind(state.runner_finish.map(micros))
                .bind(state.cycles)
                .bind(state.last_start.map(micros))
                .bind(state.last_finish.map(micros))
                .execute(&mut *tx)
                .await
                .map_err(query)?;
            }
        }
        tx.commit().await.map_err(query)
    })
}

/// The samples of one job still seen at or after `since`, and the one before them, oldest first.
pub async fn job_samples(
    store: &Store,
    instance: &str,
    job: &str,
    since: DateTime<Utc>,
) -> Result<Vec<JobSample>, Error> {
    let rows: Vec<SampleRow> = on_db!(store, |pool| sqlx::query_as(concat!(
        "SELECT ",
        sample_columns!(),
        " FROM job_sample WHERE instance = $1 AND job = $2 AND first_seen >= coalesce((SELECT max(first_seen) \
         FROM job_sample WHERE instance = $1 AND job = $2 AND seen_until < $3), 0) ORDER BY first_seen"
    ))
    .bind(instance)
    .bind(job)
    .bind(micros(since))
    .fetch_all(pool)
    .await
    .map_err(query)?);
    Ok(rows.into_iter().map(SampleRow::sample).collect())
}

/// The samples of one job first seen at or after `from`, oldest first.
pub async fn job_samples_from(
    store: &Store,
    instance: &str,
    job: &str,
    from: DateTime<Utc>,
) -> Result<Vec<JobSample>, Error> {
    let rows: Vec<SampleRow> = on_db!(store, |pool| sqlx::query_as(concat!(
        "SELECT ",
        sample_columns!(),
        " FROM job_sample WHERE instance = $1 AND job = $2 AND first_seen >= $3 ORDER BY first_seen"
    ))
    .bind(instance)
    .bind(job)
    .bind(micros(from))
    .fetch_all(pool)
    .await
    .map_err(query)?);
    Ok(rows.into_iter().map(SampleRow::sample).collect())
}

/// The first sample of one job, and the first poll that saw it (unix seconds).
pub async fn job_first(store: &Store, instance: &str, job: &str) -> Result<(Option<JobSample>, Option<i64>), Error> {
    let (first, watched): (Option<SampleRow>, Option<i64>) = on_db!(store, |pool| {
        let first = sqlx::query_as::<_, SampleRow>(concat!(
            "SELECT ",
            sample_columns!(),
            " FROM job_sample WHERE instance = $1 AND job = $2 ORDER BY first_seen LIMIT 1"
        ))
        .bind(instance)
        .bind(job)
        .fetch_optional(pool)
        .await
        .map_err(query)?;
        let watched =
            sqlx::query_scalar(FIRST_SEEN).bind(instance).bind(job).fetch_optional(pool).await.map_err(query)?;
        (first, watched)
    });
    Ok((first.map(SampleRow::sample), watched))
}

#[derive(sqlx_macros::FromRow)]
struct SampleRow {
    first_seen: i64,
    seen_until: i64,
    status: Option<String>,
    interval_secs: Option<i64>,
    schedule_start: Option<i64>,
    runner_start: Option<i64>,
    runner_finish: Option<i64>,
    cycles: Option<i64>,
    last_start: Option<i64>,
    last_finish: Option<i64>,
}

impl SampleRow {
    fn sample(self) -> JobSample {
        let t = |v: i64| DateTime::from_timestamp_micros(v).unwrap_or_default();
        JobSample {
            first_seen: t(self.first_seen),
            seen_until: t(self.seen_until),
            status: self.status,
            interval: self.interval_secs,
            schedule_start: self.schedule_start.map(t),
            runner_start: self.runner_start.map(t),
            runner_finish: self.runner_finish.map(t),
            cycles: self.cycles,
            last_start: self.last_start.map(t),
            last_finish: self.last_finish.map(t),
        }
    }
}

fn micros(t: DateTime<Utc>) -> i64 {
    t.timestamp_micros()
}
