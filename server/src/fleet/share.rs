//! Replicas sharing their readings through the shared store: what the collector of an
//! instance publishes, and how the other replicas take it in (the leases that say who
//! collects are `crate::replicas`).
use chrono::{DateTime, Duration as Span, Utc};
use std::sync::Arc;
use sundial_engine::Window;

use super::{GoodRead, Instance, READ_DAYS};
use crate::held::HeldRuns;
use crate::replicas::Replicas;
use crate::sources::SourceRead;

/// The last publication of an instance this replica took in or made: its `updated_us` (the
/// store's order), and the time of the good read in it.
#[derive(Default)]
pub(super) struct Followed {
    updated_us: i64,
    good_at: Option<DateTime<Utc>>,
}

/// What a collector publishes of an instance's [`PollState`](super::PollState) besides its good read.
#[derive(serde::Serialize, serde::Deserialize)]
struct SharedState {
    attempts: u64,
    last_attempt: Option<DateTime<Utc>>,
    error: Option<String>,
    outages: Vec<(DateTime<Utc>, Option<DateTime<Utc>>, String)>,
}

/// A good read as a collector publishes it: without the runs Sundial's shared store keeps
/// (`runs_in_store`), which the other replicas read from the store, only what changed since
/// the read they hold; a read not kept carries every run.
#[derive(serde::Serialize, serde::Deserialize)]
struct PublishedRead {
    #[serde(flatten)]
    read: SourceRead,
    #[serde(default)]
    runs_in_store: bool,
}

impl Instance {
    /// Publish this collector's reading for the other replicas: the state, and the good read
    /// when it is newer than the one published last.
    pub(super) async fn publish(&self, replicas: &Replicas) {
        let name = &self.reader.config.name;
        let s = self.state.borrow().clone();
        let shared = SharedState {
            attempts: s.attempts,
            last_attempt: s.last_attempt,
            error: s.error.clone(),
            outages: s.outages.clone(),
        };
        let mut followed = self.followed.lock().await;
        let good_at = s.good.as_ref().map(|g| g.at);
        let new_good = s.good.as_ref().filter(|g| Some(g.at) != followed.good_at);
        let (state, good) = match (
            serde_json::to_string(&shared),
            new_good.map(|g| {
                let runs_in_store = !g.runs.is_whole();
                serde_json::to_string(&PublishedRead { read: g.runs.put_unkept(&g.read), runs_in_store })
            }),
        ) {
            (Ok(state), None) => (state, None),
            (Ok(state), Some(Ok(good))) => (state, Some(good)),
            (Err(e), _) | (_, Some(Err(e))) => {
                tracing::error!(instance = %name, error = %e, "replicas: a reading could not be written as JSON");
                return;
            }
        };
        let good = good.as_deref().zip(good_at).map(|(g, at)| (at, g));
        match replicas.publish(name, &state, good, Utc::now()).await {
            Ok(updated_us) => *followed = Followed { updated_us, good_at },
            Err(e) => {
                tracing::warn!(instance = %name, error = %e, "replicas: the reading could not be published; the next read publishes it")
            }
        }
    }

    /// Take in what the instance's collector published since last time; whether a new good
    /// read came with it.
    pub(super) async fn follow(&self, replicas: &Replicas, first_reads: &tokio::sync::Semaphore) -> bool {
        let name = &self.reader.config.name;
        let mut followed = self.followed.lock().await;
        let have = followed.good_at.map(|g| g.timestamp_micros());
        let published = match replicas.published(name, followed.updated_us, have).await {
            Ok(Some(p)) => p,
            Ok(None) => return false,
            Err(e) => {
                tracing::warn!(instance = %name, error = %e, "replicas: Sundial's shared store could not be read; serving the last reading taken in");
                return false;
            }
        };
        let shared: SharedState = match serde_json::from_str(&published.state) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(instance = %name, replica = %published.replica, error = %e, "replicas: a published reading cannot be read (another version of Sundial?); skipped");
                followed.updated_us = published.updated_us;
                return false;
            }
        };
        let good = match (published.good_at_us.and_then(DateTime::from_timestamp_micros), published.good.as_deref()) {
            (Some(at), Some(text)) => match serde_json::from_str::<PublishedRead>(text) {
                // The collector kept its runs in the shared store before publishing: they come
                // from there (only what changed since the read held here), held compact too.
                Ok(PublishedRead { mut read, runs_in_store }) => {
                    let held = self.state.borrow().good.clone();
                    // Nothing held here: the whole window comes from the store, the largest
                    // thing a replica takes in; as many at once as first reads.
                    let _permit = match &held {
                        None => first_reads.acquire().await.ok(),
                        Some(_) => None,
                    };
                    let taken = match runs_in_store {
                        true => self.runs_from_store(&mut read, held.as_deref()).await,
                        false => Ok(()),
                    };
                    match taken {
                        Ok(()) => {
                            let runs = HeldRuns::take(&mut read, runs_in_store);
                            Some(Arc::new(GoodRead { read, runs, at }))
                        }
                        Err(e) => {
                            tracing::warn!(instance = %name, error = %e, "replicas: the runs of a published read could not be read from Sundial's shared store; the last read taken in stays");
                            return false;
                        }
                    }
                }
                Err(e) => {
                    tracing::warn!(instance = %name, replica = %published.replica, error = %e, "replicas: a published read cannot be read; the last one taken in stays");
                    None
                }
            },
            _ => None,
        };
        let fresh = good.is_some();
        if let Some(g) = &good {
            followed.good_at = Some(g.at);
        }
        self.state.send_modify(|s| {
            s.attempts = shared.attempts;
            s.last_attempt = shared.last_attempt;
            s.error = shared.error;
            s.outages = shared.outages;
            if let Some(good) = good {
                s.good = Some(good);
            }
        });
        followed.updated_us = published.updated_us;
        fresh
    }

    /// The runs of a published `read` whose runs are in Sundial's shared store (the jobs that
    /// carry none): from `held` (the last read taken in) before where any of its runs may have
    /// changed since (the earliest run going, else the latest, per job), from the store after.
    async fn runs_from_store(&self, read: &mut SourceRead, held: Option<&GoodRead>) -> Result<(), crate::store::Error> {
        let store = self.reader.store.as_ref().ok_or_else(|| crate::store::Error::Query("no store".into()))?;
        let window = Window::new(read.now - Span::days(READ_DAYS), read.now + Span::milliseconds(1));
        let held = held.map(GoodRead::whole);
        let held_runs =
            |id: &str| held.as_ref().and_then(|h| h.input.jobs.iter().find(|j| j.id == id)).map(|j| &j.runs);
        // From where the store is read: the earliest instant any job's held runs may have
        // changed at; the whole window when a job is new here.
        let mut from = window.end;
        for job in read.input.jobs.iter().filter(|j| j.unobserved.is_empty()) {
            let changes = held_runs(&job.id).and_then(|runs| {
                let going =
                    runs.iter().filter(|r| r.outcome == sundial_engine::RunOutcome::InProgress).map(|r| r.start).min();
                going.or_else(|| runs.last().map(|r| r.start))
            });
            from = from.min(changes.unwrap_or(window.start));
        }
        let from = from.max(window.start);
        let mut kept =
            crate::history::kept_runs(store, &self.reader.config.name, Window::new(from, window.end)).await?;
        for job in read.input.jobs.iter_mut().filter(|j| j.unobserved.is_empty()) {
            // The collector's runs: from its horizon (the source's, moved back over what the store
            // covers) or the window's start.
            let lower = job.history_horizon.map_or(window.start, |h| h.max(window.start));
            let before = held_runs(&job.id).into_iter().flatten().filter(|r| r.start >= lower && r.start < from);
            let mut runs: Vec<sundial_engine::Run> = before.cloned().collect();
            runs.extend(kept.remove(&job.id).unwrap_or_default().into_iter().filter(|r| r.start >= lower));
            job.runs = runs;
        }
        Ok(())
    }
}
