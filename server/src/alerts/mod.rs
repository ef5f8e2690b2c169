//! Webhook alerts (`[[alert]]` in the fleet file) that lead to the triage view.
//!
//! Every [`TICK_EVERY`], [`Alerter::tick`] takes the fleet's problems as judged for the pages
//! ([`FleetBackend::problems`]), and for each target [`decide::decide`] says what to send: one
//! alert per problem episode after its grace, reminders of what is still open and not
//! acknowledged, a recovery when an episode ends. The decision and its messages are kept in
//! Sundial's store in one transaction ([`store`]), then queued to the target's own sender
//! ([`send`]), which retries with backoff; nothing waits for delivery. A restart reloads both:
//! nothing is sent twice, nothing decided is lost.
//!
//! - `decide.rs`: the pure decision (problems now + what was sent + now + settings).
//! - `payload.rs`: Slack's and Sundial's JSON bodies.
//! - `send.rs`: delivery, bounded queue, backoff; the URL (a secret) never in a log or error.
//! - `store.rs`: `alert_sent` and `alert_outbox` in Sundial's store.
pub mod decide;
pub mod payload;
pub mod send;
pub mod store;

use crate::config::{AlertConfig, FleetConfig, resolve_alert_url};
use crate::fleet::FleetBackend;
use crate::triage::Judged;
use anyhow::Context;
use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};
use decide::{Open, SentState, Settings};
use send::{Retry, Sender, TargetStatus};
use std::sync::Arc;
use std::time::Duration;
use store::AlertStore;
use tokio::sync::watch;

/// How often problems are looked at (the fleet's judgement is renewed as often).
pub const TICK_EVERY: Duration = Duration::from_secs(15);

/// One target: its rules, what was sent to it, its sender.
struct Target {
    config: AlertConfig,
    settings: Settings,
    sent: tokio::sync::Mutex<SentState>,
    sender: Arc<Sender>,
}

/// Alerts over a fleet (see the module docs).
pub struct Alerter {
    backend: Arc<FleetBackend>,
    public_url: String,
    targets: Vec<Target>,
    store: Arc<AlertStore>,
    /// One tick at a time.
    ticking: tokio::sync::Mutex<()>,
}

/// A problem as alerts see it: its absolute link and whether an acknowledgement holds.
pub fn open(j: &Judged, acknowledged: bool, public_url: &str, now: DateTime<Utc>) -> Open {
    let p = &j.problem;
    let row = app::api::triage::row(p, j.first_seen, j.tz, None, now);
    let since = p.since.unwrap_or(j.first_seen).with_timezone(&j.tz).fixed_offset();
    Open {
        key: row.key,
        episode: j.first_seen,
        kind: p.kind,
        severity: p.severity,
        instance: p.instance.clone(),
        job: p.job.as_ref().map(|j| j.1.clone()),
        since: since.to_rfc3339_opts(SecondsFormat::Secs, true),
        evidence: p.evidence.clone(),
        count: p.count,
        link: format!("{public_url}{}", row.link),
        acknowledged,
        maintenance_until: j.maintenance.as_ref().map(|h| h.until),
    }
}

fn delta(d: Duration) -> TimeDelta {
    TimeDelta::from_std(d).unwrap_or(TimeDelta::MAX)
}

impl Alerter {
    /// The alerts the fleet file configures (`None`: none), their URLs resolved (an unset
    /// variable stops the start, naming the alert, its line and the variable), what was sent
    /// and what waits reloaded from Sundial's store, and each target's sender started.
    /// `public_url`: where links point (no trailing slash). Ticks only when told
    /// ([`Alerter::tick`], or [`Alerter::spawn`] for the serving loop).
    pub async fn start(
        backend: Arc<FleetBackend>,
        config: &FleetConfig,
        public_url: &str,
        retry: Retry,
    ) -> anyhow::Result<Option<Arc<Alerter>>> {
        if config.alerts.is_empty() {
            return Ok(None);
        }
        let mut urls = Vec::new();
        for a in &config.alerts {
            urls.push(resolve_alert_url(a)?);
        }
        let pool = match crate::store::Store::open_at(&config.store).await {
            Ok(store) => Some(store),
            Err(e) => {
                tracing::warn!(error = %e, "alerts: Sundial's store cannot be opened: what was sent is kept in memory only, and a restart may repeat alerts");
                None
            }
        };
        let store = Arc::new(AlertStore::new(pool));
        let (mut sent, mut outbox) = store.load().await.context("reading what alerts sent from Sundial's store")?;
        if backend.replicas().is_some() {
            // Replicas: the one that takes the alert lease loads these then (`take_over`).
            (sent, outbox) = Default::default();
        }
        let targets = config
            .alerts
            .iter()
            .zip(urls)
            .map(|(a, url)| {
                let sender =
                    Sender::new(&a.name, url, store.clone(), retry, outbox.remove(&a.name).unwrap_or_default());
                sender.spawn();
                Target {
                    config: a.clone(),
                    settings: Settings {
                        grace: delta(a.grace),
                        remind: a.remind.map(delta),
                        min_severity: a.min_severity,
                    },
                    sent: tokio::sync::Mutex::new(sent.remove(&a.name).unwrap_or_default()),
                    sender,
                }
            })
            .collect();
        tracing::info!(alerts = config.alerts.len(), public_url, "alerts configured");
        Ok(Some(Arc::new(Alerter {
            backend,
            public_url: public_url.trim_end_matches('/').to_owned(),
            targets,
            store,
            ticking: tokio::sync::Mutex::new(()),
        })))
    }

    /// Look at the fleet's problems now and queue what each target should receive; returns
    /// (target, subject) of each message queued. Never waits for a delivery.
    pub async fn tick(&self, now: DateTime<Utc>) -> Vec<(String, String)> {
        let _one = self.ticking.lock().await;
        let fleet = self.backend.problems_current().await;
        let keeper = self.backend.keeper();
        let open: Vec<Open> =
            fleet.judged.iter().map(|j| open(j, keeper.is_acknowledged(j, now), &self.public_url, now)).collect();
        let mut queued = Vec::new();
        for t in &self.targets {
            let mut sent = t.sent.lock().await;
            let (messages, next) = decide::decide(&open, &fleet.judged_instances, &sent, &t.settings, now);
            if messages.is_empty() && next == *sent {
                continue;
            }
            let bodies: Vec<(String, String)> =
                messages.iter().map(|m| payload::render(m, t.config.format, &self.public_url)).collect();
            let changed = (next != *sent).then_some(&next);
            match self.store.commit(&t.config.name, changed, bodies.clone(), now).await {
                Ok(ready) => {
                    queued.extend(ready.iter().map(|q| (t.config.name.clone(), q.subject.clone())));
                    t.sender.enqueue(ready);
                    *sent = next;
                }
                // Nothing is sent that could not be remembered: the next tick decides again.
                Err(e) => {
                    tracing::warn!(alert = %t.config.name, error = %e, "alerts: Sundial's store refused the decision; retrying next tick")
                }
            }
        }
        queued
    }

    /// Tick every [`TICK_EVERY`] once every instance was read once (or its first read timed
    /// out). `fixed_now` (`serve --now`): time starts there and runs on.
    pub fn spawn(self: &Arc<Self>, fixed_now: Option<DateTime<Utc>>) -> tokio::task::JoinHandle<()> {
        let me = self.clone();
        tokio::spawn(async move {
            me.backend.first_reads().await;
            let started = std::time::Instant::now();
            let mut timer = tokio::time::interval(TICK_EVERY);
            timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // With replicas, the one holding the alert lease sends; one that takes it over
            // starts from what the store says was sent and is still queued.
            let mut leading = me.backend.replicas().is_none();
            loop {
                timer.tick().await;
                if let Some(r) = me.backend.replicas() {
                    let leads = r.leads_alerts().await;
                    if leads && !leading {
                        me.take_over().await;
                    }
                    leading = leads;
                    if !leads {
                        continue;
                    }
                }
                let now = fixed_now.map_or_else(Utc::now, |t| t + delta(started.elapsed()));
                me.tick(now).await;
            }
        })
    }

    /// Become the replica that sends: what was sent and what waits, as the store has them.
    async fn take_over(&self) {
        let (mut sent, mut outbox) = match self.store.load().await {
            Ok(loaded) => loaded,
            Err(e) => {
                tracing::warn!(error = %e, "alerts: taking over from another replica, the store could not be read; deciding from this replica's view");
                return;
            }
        };
        for t in &self.targets {
            *t.sent.lock().await = sent.remove(&t.config.name).unwrap_or_default();
            t.sender.enqueue(outbox.remove(&t.config.name).unwrap_or_default());
        }
        tracing::info!("alerts: this replica sends the fleet's alerts now");
    }

    /// Each target's name and how its delivery goes.
    pub fn status(&self) -> Vec<(String, watch::Receiver<TargetStatus>)> {
        self.targets.iter().map(|t| (t.config.name.clone(), t.sender.status())).collect()
    }

    /// Whether what was sent survives a restart.
    pub fn is_persistent(&self) -> bool {
        self.store.is_persistent()
    }
}
