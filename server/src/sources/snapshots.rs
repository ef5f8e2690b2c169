//! What Sundial's store (`crate::store`) keeps for the sources that forget: it keeps: the `LAST_EXECUTED` of every MySQL/MariaDB event,
//! sampled at each poll, so that runs accumulate over time although MySQL keeps no run history;
//! and each state of a MySQL `job` table row ([`JobSample`]: status, runner, cycle counter, last
//! cycle), one row per state with the first and last poll that saw it, from which
//! `job_table::reconstruct` rebuilds the cycles. Both are read back by the window
//! ([`Store::samples`], [`Store::job_samples`]) or, by a source that holds the older ones, past
//! the newest it holds ([`Store::samples_from`], [`Store::job_samples_from`]).
//!
//! The tables' schemas, and their statements, are the store's (`crate::store::sqlite`,
//! `crate::store::samples`).
use app::engine::job_table::CycleSample as JobSample;
use chrono::{DateTime, Utc};

/// The columns of `job_sample` that make a [`JobSample`], for `SELECT`s (a literal: no outside text).
macro_rules! sample_columns {
    () => {
        "first_seen, seen_until, status, interval_secs, schedule_start, runner_start, runner_finish, cycles, \
         last_start, last_finish"
    };
}
use crate::on_db;
pub use crate::store::{Error, Store, query};

/// One event's samples: when Sundial first watched it, and every distinct `LAST_EXECUTED`
/// seen, with the last poll that saw each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventSamples {
    /// The first poll that saw this event.
    pub first_seen: Option<DateTime<Utc>>,
    /// `(last_executed, last poll that still saw it)`, oldest first.
    pub samples: Vec<(DateTime<Utc>, DateTime<Utc>)>,
}

impl EventSamples {
    /// How far back the samples prove anything: the earlier of the first sample and the first
    /// poll (a first poll that saw an older execution proves nothing ran since it).
    pub fn horizon(&self) -> Option<DateTime<Utc>> {
        match (self.samples.first(), self.first_seen) {
            (Some((first, _)), Some(watch)) => Some((*first).min(watch)),
            (None, watch) => watch,
            (Some((first, _)), None) => Some(*first),
        }
    }

    /// The stretches from a poll that still saw sample k to sample k+1: only the last
    /// execution between two polls shows, so a missing run there proves nothing.
    pub fn unobserved(&self) -> Vec<app::engine::Window> {
        self.samples.windows(2).filter(|w| w[0].1 < w[1].0).map(|w| app::engine::Window::new(w[0].1, w[1].0)).collect()
    }
}

impl Store {
    /// Record one poll of one event: it exists at `polled_at`, and its `LAST_EXECUTED` (UTC)
    /// is `last_executed` (`None`: never executed yet).
    pub async fn record(
        &self,
        instance: &str,
        event: &str,
        last_executed: Option<DateTime<Utc>>,
        polled_at: DateTime<Utc>,
    ) -> Result<(), Error> {
        on_db!(self, |pool| {
            let mut tx = pool.begin().await.map_err(query)?;
            sqlx::query(WATCH)
                .bind(instance)
                .bind(event)
                .bind(polled_at.timestamp())
                .execute(&mut *tx)
                .await
                .map_err(query)?;
            if let Some(at) = last_executed {
                sqlx::query(
                    "INSERT INTO event_sample (instance, event, last_executed, seen_until) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (instance, event, last_executed) DO UPDATE SET seen_until = \
                     CASE WHEN excluded.seen_until > event_sample.seen_until THEN excluded.seen_until \
                     ELSE event_sample.seen_until END",
                )
                .bind(instance)
                .bind(event)
                .bind(at.timestamp())
                .bind(polled_at.timestamp())
                .execute(&mut *tx)
                .await
                .map_err(query)?;
            }
            tx.commit().await.map_err(query)
        })
    }

    /// The samples of one event from the last one before `since` onwards (that one bounds the
    /// first span), oldest first.
    pub async fn samples(&self, instance: &str, event: &str, since: DateTime<Utc>) -> Result<EventSamples, Error> {
        let (first_seen, rows): (Option<i64>, Vec<(i64, i64)>) = on_db!(self, |pool| {
            let first_seen =
                sqlx::query_scalar(FIRST_SEEN).bind(instance).bind(event).fetch_optional(pool).await.map_err(query)?;
            let rows = sqlx::query_as(
                "SELECT last_executed, seen_until FROM event_sample WHERE instance = $1 AND event = $2 AND last_executed >= \
                 coalesce((SELECT max(last_executed) FROM event_sample WHERE instance = $1 AND event = $2 AND last_executed < $3), $3) \
                 ORDER BY last_executed",
            )
            .bind(instance)
            .bind(event)
            .bind(since.timestamp())
            .fetch_all(pool)
            .await
            .map_err(query)?;
            (first_seen, rows)
        });
        let ts = |s: i64| DateTime::from_timestamp(s, 0).unwrap_or_default();
        Ok(EventSamples {
            first_seen: first_seen.map(ts),
            samples: rows.into_iter().map(|(a, b)| (ts(a), ts(b))).collect(),
        })
    }

    /// The samples of one event from `from` on (`last_executed >= from`), oldest first: what a
    /// poll that holds the older ones asks for (the newest it holds, whose `seen_until` grows,
    /// and those after it), by the table's key.
    pub async fn samples_from(
        &self,
        instance: &str,
        event: &str,
        from: DateTime<Utc>,
    ) -> Result<Vec<(DateTime<Utc>, DateTime<Utc>)>, Error> {
        let rows: Vec<(i64, i64)> = on_db!(self, |pool| sqlx::query_as(
            "SELECT last_executed, seen_until FROM event_sample WHERE instance = $1 AND event = $2 \
             AND last_executed >= $3 ORDER BY last_executed",
        )
        .bind(instance)
        .bind(event)
        .bind(from.timestamp())
        .fetch_all(pool)
        .await
        .map_err(query)?);
        let ts = |s: i64| DateTime::from_timestamp(s, 0).unwrap_or_default();
        Ok(rows.into_iter().map(|(a, b)| (ts(a), ts(b))).collect())
    }

    /// Record one poll of one `job` table row: it exists at `polled_at` (the job's first poll
    /// is kept, as for events), and its state is `state` (polls ignored). The same state as the
    /// last one recorded extends it; another starts a new sample. A poll older than the last
    /// sample's first is ignored.
    pub async fn record_job(
        &self,
        instance: &str,
        job: &str,
        state: &JobSample,
        polled_at: DateTime<Utc>,
    ) -> Result<(), Error> {
        let at = micros(polled_at);
        on_db!(self, |pool| {
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

    /// The samples of one job that were still seen at or after `since`, and the one before
    /// them (the runner they continue), oldest first.
    pub async fn job_samples(&self, instance: &str, job: &str, since: DateTime<Utc>) -> Result<Vec<JobSample>, Error> {
        let rows: Vec<SampleRow> = on_db!(self, |pool| sqlx::query_as(concat!(
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

    /// The samples of one job first seen at or after `from` (`first_seen >= from`), oldest
    /// first: what a poll that holds the older ones asks for (the newest it holds, whose
    /// `seen_until` grows, and those after it), by the table's key.
    pub async fn job_samples_from(
        &self,
        instance: &str,
        job: &str,
        from: DateTime<Utc>,
    ) -> Result<Vec<JobSample>, Error> {
        let rows: Vec<SampleRow> = on_db!(self, |pool| sqlx::query_as(concat!(
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

    /// The first sample of one job, and the first poll that saw the job (which may be older:
    /// samples from before the store kept states are gone).
    pub async fn job_first(
        &self,
        instance: &str,
        job: &str,
    ) -> Result<(Option<JobSample>, Option<DateTime<Utc>>), Error> {
        let (first, watched): (Option<SampleRow>, Option<i64>) = on_db!(self, |pool| {
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
        Ok((first.map(SampleRow::sample), watched.and_then(|s| DateTime::from_timestamp(s, 0))))
    }
}

/// The first poll that saw an event (or a job row), kept once.
const WATCH: &str = "INSERT INTO event_watch (instance, event, first_seen) VALUES ($1, $2, $3) ON CONFLICT (instance, event) DO NOTHING";

/// When Sundial first watched an event (or a job row).
const FIRST_SEEN: &str = "SELECT first_seen FROM event_watch WHERE instance = $1 AND event = $2";

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
