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
use chrono::{DateTime, Utc};
use sundial_engine::job_table::CycleSample as JobSample;

use crate::store::samples;
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
    pub fn unobserved(&self) -> Vec<sundial_engine::Window> {
        self.samples
            .windows(2)
            .filter(|w| w[0].1 < w[1].0)
            .map(|w| sundial_engine::Window::new(w[0].1, w[1].0))
            .collect()
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
        samples::record_event(self, instance, event, last_executed.map(|at| at.timestamp()), polled_at.timestamp())
            .await
    }

    /// The samples of one event from the last one before `since` onwards (that one bounds the
    /// first span), oldest first.
    pub async fn samples(&self, instance: &str, event: &str, since: DateTime<Utc>) -> Result<EventSamples, Error> {
        let (first_seen, rows) = samples::event_samples(self, instance, event, since.timestamp()).await?;
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
        let rows = samples::event_samples_from(self, instance, event, from.timestamp()).await?;
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
        samples::record_job(self, instance, job, state, polled_at).await
    }

    /// The samples of one job that were still seen at or after `since`, and the one before
    /// them (the runner they continue), oldest first.
    pub async fn job_samples(&self, instance: &str, job: &str, since: DateTime<Utc>) -> Result<Vec<JobSample>, Error> {
        samples::job_samples(self, instance, job, since).await
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
        samples::job_samples_from(self, instance, job, from).await
    }

    /// The first sample of one job, and the first poll that saw the job (which may be older:
    /// samples from before the store kept states are gone).
    pub async fn job_first(
        &self,
        instance: &str,
        job: &str,
    ) -> Result<(Option<JobSample>, Option<DateTime<Utc>>), Error> {
        let (first, watched) = samples::job_first(self, instance, job).await?;
        Ok((first, watched.and_then(|s| DateTime::from_timestamp(s, 0))))
    }
}
